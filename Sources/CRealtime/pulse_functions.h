/* Every libpulse function voicenote calls, written once: an X-macro list included by pulse_loader.c with VNPA
 * defined for each use (pointer, symbol table, trampoline).
 *   VNPA(return type, name, (parameters), (arguments))
 * The trampolines are definitions of the functions <pulse/pulseaudio.h> declares, so the compiler checks each line
 * against libpulse's prototype. */

VNPA(pa_threaded_mainloop *, pa_threaded_mainloop_new, (void), ())
VNPA(void, pa_threaded_mainloop_free, (pa_threaded_mainloop *m), (m))
VNPA(int, pa_threaded_mainloop_start, (pa_threaded_mainloop *m), (m))
VNPA(void, pa_threaded_mainloop_stop, (pa_threaded_mainloop *m), (m))
VNPA(void, pa_threaded_mainloop_lock, (pa_threaded_mainloop *m), (m))
VNPA(void, pa_threaded_mainloop_unlock, (pa_threaded_mainloop *m), (m))
VNPA(pa_mainloop_api *, pa_threaded_mainloop_get_api, (pa_threaded_mainloop *m), (m))
VNPA(void, pa_threaded_mainloop_set_name, (pa_threaded_mainloop *m, const char *name), (m, name))
VNPA(pa_proplist *, pa_proplist_new, (void), ())
VNPA(void, pa_proplist_free, (pa_proplist *p), (p))
VNPA(int, pa_proplist_sets, (pa_proplist *p, const char *key, const char *value), (p, key, value))
VNPA(pa_context *, pa_context_new_with_proplist, (pa_mainloop_api *mainloop, const char *name, const pa_proplist *proplist),
     (mainloop, name, proplist))
VNPA(void, pa_context_set_state_callback, (pa_context *c, pa_context_notify_cb_t cb, void *userdata), (c, cb, userdata))
VNPA(int, pa_context_connect, (pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api),
     (c, server, flags, api))
VNPA(pa_context_state_t, pa_context_get_state, (const pa_context *c), (c))
VNPA(int, pa_context_errno, (const pa_context *c), (c))
VNPA(void, pa_context_disconnect, (pa_context *c), (c))
VNPA(void, pa_context_unref, (pa_context *c), (c))
VNPA(const char *, pa_strerror, (int error), (error))
VNPA(pa_stream *, pa_stream_new_with_proplist,
     (pa_context *c, const char *name, const pa_sample_spec *ss, const pa_channel_map *map, pa_proplist *p),
     (c, name, ss, map, p))
VNPA(void, pa_stream_set_state_callback, (pa_stream *s, pa_stream_notify_cb_t cb, void *userdata), (s, cb, userdata))
VNPA(void, pa_stream_set_read_callback, (pa_stream *p, pa_stream_request_cb_t cb, void *userdata), (p, cb, userdata))
VNPA(void, pa_stream_set_write_callback, (pa_stream *p, pa_stream_request_cb_t cb, void *userdata), (p, cb, userdata))
VNPA(void, pa_stream_set_underflow_callback, (pa_stream *p, pa_stream_notify_cb_t cb, void *userdata), (p, cb, userdata))
VNPA(void, pa_stream_set_overflow_callback, (pa_stream *p, pa_stream_notify_cb_t cb, void *userdata), (p, cb, userdata))
VNPA(int, pa_stream_connect_record, (pa_stream *s, const char *dev, const pa_buffer_attr *attr, pa_stream_flags_t flags),
     (s, dev, attr, flags))
VNPA(int, pa_stream_connect_playback,
     (pa_stream *s, const char *dev, const pa_buffer_attr *attr, pa_stream_flags_t flags, const pa_cvolume *volume,
      pa_stream *sync_stream),
     (s, dev, attr, flags, volume, sync_stream))
VNPA(pa_stream_state_t, pa_stream_get_state, (const pa_stream *p), (p))
VNPA(int, pa_stream_peek, (pa_stream *p, const void **data, size_t *nbytes), (p, data, nbytes))
VNPA(int, pa_stream_drop, (pa_stream *p), (p))
VNPA(size_t, pa_stream_writable_size, (const pa_stream *p), (p))
VNPA(int, pa_stream_write,
     (pa_stream *p, const void *data, size_t nbytes, pa_free_cb_t free_cb, int64_t offset, pa_seek_mode_t seek),
     (p, data, nbytes, free_cb, offset, seek))
VNPA(pa_operation *, pa_stream_cork, (pa_stream *s, int b, pa_stream_success_cb_t cb, void *userdata), (s, b, cb, userdata))
VNPA(pa_operation *, pa_stream_flush, (pa_stream *s, pa_stream_success_cb_t cb, void *userdata), (s, cb, userdata))
VNPA(pa_operation *, pa_stream_drain, (pa_stream *s, pa_stream_success_cb_t cb, void *userdata), (s, cb, userdata))
VNPA(int, pa_stream_get_latency, (pa_stream *s, pa_usec_t *r_usec, int *negative), (s, r_usec, negative))
VNPA(int, pa_stream_disconnect, (pa_stream *s), (s))
VNPA(void, pa_stream_unref, (pa_stream *s), (s))
VNPA(void, pa_operation_unref, (pa_operation *o), (o))
VNPA(void, pa_operation_cancel, (pa_operation *o), (o))
VNPA(pa_operation_state_t, pa_operation_get_state, (const pa_operation *o), (o))
