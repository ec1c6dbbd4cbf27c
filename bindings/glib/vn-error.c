/*
 * vn-error.c: the VN_ERROR domain, its VnError enum type, and libvoicenote statuses turned into GErrors.
 */
#include "vn-error.h"

G_DEFINE_QUARK(vn-error-quark, vng_error)

GType vng_error_get_type(void) {
    static gsize type_once = 0;
    static const GEnumValue values[] = {
        {VN_ERROR_INVALID_ARG, "VN_E_INVALID_ARG", "invalid-arg"},
        {VN_ERROR_MISUSE, "VN_E_MISUSE", "misuse"},
        {VN_ERROR_NOMEM, "VN_E_NOMEM", "nomem"},
        {VN_ERROR_IO, "VN_E_IO", "io"},
        {VN_ERROR_NO_SPACE, "VN_E_NO_SPACE", "no-space"},
        {VN_ERROR_FORMAT, "VN_E_FORMAT", "format"},
        {VN_ERROR_DEVICE, "VN_E_DEVICE", "device"},
        {VN_ERROR_PERMISSION, "VN_E_PERMISSION", "permission"},
        {VN_ERROR_NETWORK, "VN_E_NETWORK", "network"},
        {VN_ERROR_NOT_FOUND, "VN_E_NOT_FOUND", "not-found"},
        {VN_ERROR_TOO_LARGE, "VN_E_TOO_LARGE", "too-large"},
        {VN_ERROR_UNSUPPORTED, "VN_E_UNSUPPORTED", "unsupported"},
        {VN_ERROR_BUSY, "VN_E_BUSY", "busy"},
        {VN_ERROR_CANCELLED, "VN_E_CANCELLED", "cancelled"},
        {VN_ERROR_INTERNAL, "VN_E_INTERNAL", "internal"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type_once)) {
        GType type = g_enum_register_static(g_intern_static_string("VnError"), values);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

gboolean vng_error_set_from_status(GError **error, int status) {
    if (status == VN_OK) return TRUE;
    /* VnError's values are contiguous, -1 down to the last status this header knows. */
    if (status > 0 || status < VN_ERROR_INTERNAL) {
        g_set_error(error, VN_ERROR, VN_ERROR_INTERNAL, "libvoicenote returned %d, which is not a vn_status", status);
        return FALSE;
    }
    const char *detail = vn_last_error_message();
    g_set_error_literal(error, VN_ERROR, status, detail != NULL && detail[0] != '\0' ? detail : vn_strerror(status));
    return FALSE;
}
