/*
 * vn-http-options.c: VnHttpOptions, settings checked by libvoicenote as they are made and kept, so that each call
 * gets its own vn_http_options made from them (vn-http-options.h, vn-handles.h).
 */
#include "vn-http-options.h"

#include "vn-error.h"
#include "vn-handles.h"

/* What was set; -1 (or NULL) for the library's default. */
struct _VnHttpOptions {
    GObject parent_instance;
    vn_http_options *checker; /* where each value is tried first: the library's check and message */
    GPtrArray *headers;       /* name, value, name, value... */
    gchar *ca_file;
    gdouble connect_timeout;
    gdouble stall_timeout;
    gdouble transfer_timeout;
    gint64 max_bytes;
};

G_DEFINE_FINAL_TYPE(VnHttpOptions, vng_http_options, G_TYPE_OBJECT)

static void vng_http_options_finalize(GObject *object) {
    VnHttpOptions *self = VNG_HTTP_OPTIONS(object);
    vn_http_options_destroy(self->checker);
    g_ptr_array_unref(self->headers);
    g_free(self->ca_file);
    G_OBJECT_CLASS(vng_http_options_parent_class)->finalize(object);
}

static void vng_http_options_class_init(VnHttpOptionsClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = vng_http_options_finalize;
}

static void vng_http_options_init(VnHttpOptions *self) {
    /* Only a NULL out or no memory fail, neither of which can happen here (GLib aborts without memory). */
    if (vn_http_options_create(&self->checker) != VN_OK) g_error("vn_http_options_create failed");
    self->headers = g_ptr_array_new_with_free_func(g_free);
    self->connect_timeout = -1;
    self->stall_timeout = -1;
    self->transfer_timeout = -1;
    self->max_bytes = -1;
}

VnHttpOptions *vng_http_options_new(void) {
    return g_object_new(VNG_TYPE_HTTP_OPTIONS, NULL);
}

gboolean vng_http_options_add_header(VnHttpOptions *self, const gchar *name, const gchar *value, GError **error) {
    g_return_val_if_fail(VNG_IS_HTTP_OPTIONS(self), FALSE);
    if (!vng_error_set_from_status(error, vn_http_options_add_header(self->checker, name, value))) return FALSE;
    g_ptr_array_add(self->headers, g_strdup(name));
    g_ptr_array_add(self->headers, g_strdup(value));
    return TRUE;
}

gboolean vng_http_options_set_ca_file(VnHttpOptions *self, const gchar *path, GError **error) {
    g_return_val_if_fail(VNG_IS_HTTP_OPTIONS(self), FALSE);
    if (!vng_error_set_from_status(error, vn_http_options_set_ca_file(self->checker, path))) return FALSE;
    g_free(self->ca_file);
    self->ca_file = g_strdup(path);
    return TRUE;
}

/* Sets a timeout through `set` on the checker, then keeps it in `*field`. */
static gboolean set_timeout(VnHttpOptions *self, int (*set)(vn_http_options *, double), gdouble seconds,
                            gdouble *field, GError **error) {
    if (!vng_error_set_from_status(error, set(self->checker, seconds))) return FALSE;
    *field = seconds;
    return TRUE;
}

gboolean vng_http_options_set_connect_timeout(VnHttpOptions *self, gdouble seconds, GError **error) {
    g_return_val_if_fail(VNG_IS_HTTP_OPTIONS(self), FALSE);
    return set_timeout(self, vn_http_options_set_connect_timeout, seconds, &self->connect_timeout, error);
}

gboolean vng_http_options_set_stall_timeout(VnHttpOptions *self, gdouble seconds, GError **error) {
    g_return_val_if_fail(VNG_IS_HTTP_OPTIONS(self), FALSE);
    return set_timeout(self, vn_http_options_set_stall_timeout, seconds, &self->stall_timeout, error);
}

gboolean vng_http_options_set_transfer_timeout(VnHttpOptions *self, gdouble seconds, GError **error) {
    g_return_val_if_fail(VNG_IS_HTTP_OPTIONS(self), FALSE);
    return set_timeout(self, vn_http_options_set_transfer_timeout, seconds, &self->transfer_timeout, error);
}

gboolean vng_http_options_set_max_bytes(VnHttpOptions *self, gint64 bytes, GError **error) {
    g_return_val_if_fail(VNG_IS_HTTP_OPTIONS(self), FALSE);
    if (!vng_error_set_from_status(error, vn_http_options_set_max_bytes(self->checker, bytes))) return FALSE;
    self->max_bytes = bytes;
    return TRUE;
}

vn_http_options *vng_http_options_create_handle(VnHttpOptions *options) {
    vn_http_options *handle = NULL;
    if (vn_http_options_create(&handle) != VN_OK) g_error("vn_http_options_create failed");
    if (options == NULL) return handle;
    /* Every value passed the library's check once already. */
    for (guint i = 0; i + 1 < options->headers->len; i += 2)
        vn_http_options_add_header(handle, g_ptr_array_index(options->headers, i),
                                   g_ptr_array_index(options->headers, i + 1));
    if (options->ca_file != NULL) vn_http_options_set_ca_file(handle, options->ca_file);
    if (options->connect_timeout >= 0) vn_http_options_set_connect_timeout(handle, options->connect_timeout);
    if (options->stall_timeout >= 0) vn_http_options_set_stall_timeout(handle, options->stall_timeout);
    if (options->transfer_timeout >= 0) vn_http_options_set_transfer_timeout(handle, options->transfer_timeout);
    if (options->max_bytes >= 0) vn_http_options_set_max_bytes(handle, options->max_bytes);
    return handle;
}
