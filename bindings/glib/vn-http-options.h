/*
 * vn-http-options.h: the HTTP options of a request by URL (request headers, CA file, timeouts, size limit), for the
 * `_async` calls that read a location and for the players' loads by URL.
 */
#ifndef VOICENOTE_GLIB_HTTP_OPTIONS_H
#define VOICENOTE_GLIB_HTTP_OPTIONS_H

#include <gio/gio.h>
#include <voicenote.h>

G_BEGIN_DECLS

#define VNG_TYPE_HTTP_OPTIONS (vng_http_options_get_type())
G_DECLARE_FINAL_TYPE(VnHttpOptions, vng_http_options, VNG, HTTP_OPTIONS, GObject)

/**
 * VnHttpOptions:
 *
 * How an `http://` or `https://` location is requested: headers sent with every request (Matrix's authenticated
 * media needs `Authorization: Bearer <access token>`), the CA certificates trusted, the connect, stall and transfer
 * timeouts and the largest download (libvoicenote's `vn_http_options`). Made with libvoicenote's defaults: no
 * headers, the system's certificates, 15 s to connect, 30 s without a byte, 600 s for a whole transfer, 100 MiB.
 *
 * Each setter checks its value with the library at once and fails with a %VN_ERROR error, the options unchanged.
 * A call given the options ([func@Voicenote.waveform_async], [func@Voicenote.AudioInfo.read_async],
 * [func@Voicenote.convert_async], [method@Voicenote.Player.load_url], [method@Voicenote.QueuePlayer.set_http_options],
 * a [class@Voicenote.Uploader]'s construction with [property@Voicenote.Uploader:http-options]) takes them as they are
 * then: later changes do not reach it. One thread changes an options object at a time.
 *
 * Request headers go only to the origin (scheme, host, port) the URL names: a redirect to another origin is
 * followed without them, and one from https to http is refused (%VN_ERROR_NETWORK).
 */

/**
 * vng_http_options_new:
 *
 * Makes HTTP options with libvoicenote's defaults.
 *
 * Returns: (transfer full): the options.
 */
VnHttpOptions *vng_http_options_new(void);

/**
 * vng_http_options_add_header:
 * @self: the options.
 * @name: the header's name (a token: printable ASCII without spaces or colons), e.g. `Authorization`.
 * @value: its value (UTF-8, no line breaks), e.g. `Bearer syt_...`.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Adds a header sent with every request; a name added again is sent again.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG for an empty or malformed name or a value
 *   with a line break).
 */
gboolean vng_http_options_add_header(VnHttpOptions *self, const gchar *name, const gchar *value, GError **error);

/**
 * vng_http_options_set_ca_file:
 * @self: the options.
 * @path: (type filename) (nullable): a PEM file of CA certificates trusted instead of the system's (a private
 *   server, a test certificate), or %NULL for the system's again.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets the certificates an `https://` server's is verified against (certificates and host names are always
 * verified).
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG for an empty path, %VN_ERROR_NOT_FOUND for a
 *   missing file).
 */
gboolean vng_http_options_set_ca_file(VnHttpOptions *self, const gchar *path, GError **error);

/**
 * vng_http_options_set_connect_timeout:
 * @self: the options.
 * @seconds: 0.1…600 (15 by default).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets how long connecting (DNS, TCP, TLS) may take before the request fails with %VN_ERROR_NETWORK.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG outside the range).
 */
gboolean vng_http_options_set_connect_timeout(VnHttpOptions *self, gdouble seconds, GError **error);

/**
 * vng_http_options_set_stall_timeout:
 * @self: the options.
 * @seconds: 0.1…3600 (30 by default).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets how long a transfer may go without a byte before it fails with %VN_ERROR_NETWORK ("stalled").
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG outside the range).
 */
gboolean vng_http_options_set_stall_timeout(VnHttpOptions *self, gdouble seconds, GError **error);

/**
 * vng_http_options_set_transfer_timeout:
 * @self: the options.
 * @seconds: 1…86400 (600 by default).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets how long one transfer may take in all, however it trickles, before it fails with %VN_ERROR_NETWORK.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG outside the range).
 */
gboolean vng_http_options_set_transfer_timeout(VnHttpOptions *self, gdouble seconds, GError **error);

/**
 * vng_http_options_set_max_bytes:
 * @self: the options.
 * @bytes: 1…2^40 (100 MiB by default).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets the largest resource a download takes: a larger one fails with %VN_ERROR_TOO_LARGE (at once when the
 * server says its size, else as soon as it grows past the limit).
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG outside the range).
 */
gboolean vng_http_options_set_max_bytes(VnHttpOptions *self, gint64 bytes, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_HTTP_OPTIONS_H */
