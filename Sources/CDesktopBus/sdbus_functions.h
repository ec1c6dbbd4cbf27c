/* Every sd-bus function voicenote calls, written once: an X-macro list included by sdbus_loader.c with VNBUS
 * defined for each use (pointer, symbol table, trampoline).
 *   VNBUS(return type, name, (parameters), (arguments))
 * The trampolines are definitions of the functions <systemd/sd-bus.h> declares, so the compiler checks each line
 * against libsystemd's prototype. Only non-variadic functions: a trampoline cannot forward `...`. */

VNBUS(int, sd_bus_open_user, (sd_bus **ret), (ret))
VNBUS(sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus), (bus))
VNBUS(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie))
VNBUS(int, sd_bus_call, (sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply),
      (bus, m, usec, ret_error, reply))
VNBUS(int, sd_bus_get_fd, (sd_bus *bus), (bus))
VNBUS(int, sd_bus_get_events, (sd_bus *bus), (bus))
VNBUS(int, sd_bus_get_timeout, (sd_bus *bus, uint64_t *timeout_usec), (bus, timeout_usec))
VNBUS(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r))
VNBUS(int, sd_bus_flush, (sd_bus *bus), (bus))
VNBUS(int, sd_bus_add_object_vtable,
      (sd_bus *bus, sd_bus_slot **slot, const char *path, const char *interface, const sd_bus_vtable *vtable,
       void *userdata),
      (bus, slot, path, interface, vtable, userdata))
VNBUS(sd_bus_slot *, sd_bus_slot_unref, (sd_bus_slot *slot), (slot))
VNBUS(int, sd_bus_message_new_signal,
      (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member),
      (bus, m, path, interface, member))
VNBUS(int, sd_bus_message_new_method_call,
      (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface,
       const char *member),
      (bus, m, destination, path, interface, member))
VNBUS(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m))
VNBUS(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m))
VNBUS(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p))
VNBUS(int, sd_bus_message_append_strv, (sd_bus_message *m, char **l), (m, l))
VNBUS(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
VNBUS(int, sd_bus_message_close_container, (sd_bus_message *m), (m))
VNBUS(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p))
VNBUS(int, sd_bus_message_skip, (sd_bus_message *m, const char *types), (m, types))
VNBUS(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
VNBUS(int, sd_bus_message_exit_container, (sd_bus_message *m), (m))
VNBUS(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents))
VNBUS(int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags), (bus, name, flags))
VNBUS(int, sd_bus_release_name, (sd_bus *bus, const char *name), (bus, name))
VNBUS(int, sd_bus_list_names, (sd_bus *bus, char ***acquired, char ***activatable), (bus, acquired, activatable))
VNBUS(int, sd_bus_emit_properties_changed_strv, (sd_bus *bus, const char *path, const char *interface, char **names),
      (bus, path, interface, names))
VNBUS(void, sd_bus_error_free, (sd_bus_error *e), (e))
VNBUS(int, sd_bus_error_set, (sd_bus_error *e, const char *name, const char *message), (e, name, message))
VNBUS(int, sd_bus_call_async,
      (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata,
       uint64_t usec),
      (bus, slot, m, callback, userdata, usec))
VNBUS(int, sd_bus_wait, (sd_bus *bus, uint64_t timeout_usec), (bus, timeout_usec))
VNBUS(int, sd_bus_message_is_method_error, (sd_bus_message *m, const char *name), (m, name))
