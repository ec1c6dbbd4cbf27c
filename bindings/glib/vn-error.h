/*
 * vn-error.h: the VN_ERROR GError domain of voicenote-glib, whose codes are libvoicenote's vn_status values.
 */
#ifndef VOICENOTE_GLIB_ERROR_H
#define VOICENOTE_GLIB_ERROR_H

#include <glib-object.h>
#include <voicenote.h>

G_BEGIN_DECLS

/**
 * VN_ERROR:
 *
 * The error domain of voicenote-glib (its quark's text is "vn-error-quark"). Every error in it carries one of
 * libvoicenote's negative `vn_status` values as its code (a [error@Voicenote.Error]) and the library's detail text as
 * its message.
 */
#define VN_ERROR (vng_error_quark())

/**
 * VNG_ERROR:
 *
 * The same domain as `VN_ERROR`, under the name tools working from the introspection data derive from the `vng`
 * symbol prefix (Vala's `Voicenote.Error` compiles to it). C code uses `VN_ERROR`.
 */
#define VNG_ERROR VN_ERROR

/**
 * VnError:
 * @VN_ERROR_INVALID_ARG: a bad argument (`VN_E_INVALID_ARG`).
 * @VN_ERROR_MISUSE: wrong call order, or an object already disposed (`VN_E_MISUSE`).
 * @VN_ERROR_NOMEM: out of memory (`VN_E_NOMEM`).
 * @VN_ERROR_IO: a read or write failed (`VN_E_IO`).
 * @VN_ERROR_NO_SPACE: the disk or a file-size limit is full (`VN_E_NO_SPACE`).
 * @VN_ERROR_FORMAT: corrupt, truncated or not audio (`VN_E_FORMAT`).
 * @VN_ERROR_DEVICE: no such audio device, it will not start, or it was lost (`VN_E_DEVICE`).
 * @VN_ERROR_PERMISSION: access refused (`VN_E_PERMISSION`).
 * @VN_ERROR_NETWORK: DNS, connect, TLS, a dropped connection, HTTP 5xx and other 4xx (`VN_E_NETWORK`).
 * @VN_ERROR_NOT_FOUND: a missing file, HTTP 404/410 (`VN_E_NOT_FOUND`).
 * @VN_ERROR_TOO_LARGE: over a size limit, HTTP 413 (`VN_E_TOO_LARGE`).
 * @VN_ERROR_UNSUPPORTED: not supported (`VN_E_UNSUPPORTED`).
 * @VN_ERROR_BUSY: a session hook refused, or the resource is in use (`VN_E_BUSY`).
 * @VN_ERROR_CANCELLED: the operation was cancelled (`VN_E_CANCELLED`).
 * @VN_ERROR_INTERNAL: a bug in voicenote; the message says where (`VN_E_INTERNAL`).
 *
 * The codes of the `VN_ERROR` domain: libvoicenote's `vn_status` values, the same numbers (negative), in the same
 * order. Values are only ever appended, as the C library's.
 */
typedef enum {
    VN_ERROR_INVALID_ARG = VN_E_INVALID_ARG,
    VN_ERROR_MISUSE = VN_E_MISUSE,
    VN_ERROR_NOMEM = VN_E_NOMEM,
    VN_ERROR_IO = VN_E_IO,
    VN_ERROR_NO_SPACE = VN_E_NO_SPACE,
    VN_ERROR_FORMAT = VN_E_FORMAT,
    VN_ERROR_DEVICE = VN_E_DEVICE,
    VN_ERROR_PERMISSION = VN_E_PERMISSION,
    VN_ERROR_NETWORK = VN_E_NETWORK,
    VN_ERROR_NOT_FOUND = VN_E_NOT_FOUND,
    VN_ERROR_TOO_LARGE = VN_E_TOO_LARGE,
    VN_ERROR_UNSUPPORTED = VN_E_UNSUPPORTED,
    VN_ERROR_BUSY = VN_E_BUSY,
    VN_ERROR_CANCELLED = VN_E_CANCELLED,
    VN_ERROR_INTERNAL = VN_E_INTERNAL
} VnError;

/**
 * VNG_TYPE_ERROR:
 *
 * The [type@GObject.Type] of [error@Voicenote.Error].
 */
#define VNG_TYPE_ERROR (vng_error_get_type())

/**
 * vng_error_get_type:
 *
 * Registers (once) and returns the enum type of [error@Voicenote.Error], whose values' names are the `vn_status` names
 * ("VN_E_FORMAT") and whose nicks are the same without the prefix, in lower case ("format").
 *
 * Returns: the [type@GObject.Type] of [error@Voicenote.Error].
 */
GType vng_error_get_type(void) G_GNUC_CONST;

/**
 * vng_error_quark:
 *
 * The quark of the `VN_ERROR` domain, made from the text "vn-error-quark".
 *
 * Returns: the quark.
 */
GQuark vng_error_quark(void) G_GNUC_CONST;

/**
 * vng_error_set_from_status: (skip)
 * @error: (out) (optional) (nullable): where to put the error, or %NULL.
 * @status: what a `vn_` call just returned on this thread: `VN_OK` or a negative `VN_E_*` status.
 *
 * Turns a libvoicenote status into a [struct@GLib.Error]: for `VN_OK`, does nothing and returns %TRUE; otherwise sets
 * @error to a `VN_ERROR` error whose code is @status and whose message is this thread's vn_last_error_message() (or the
 * status's vn_strerror() text when the library left none), and returns %FALSE. Call it on the thread of the failing
 * call, before any other `vn_` call there. A status that is not a `vn_status` becomes %VN_ERROR_INTERNAL, naming
 * the number. For C code over libvoicenote only: bindings through GObject Introspection do not see it (they
 * get their errors as exceptions, or as [signal@Voicenote.Player::failed]).
 *
 * Returns: %TRUE when @status is `VN_OK`, else %FALSE (with @error set).
 */
gboolean vng_error_set_from_status(GError **error, int status);

G_END_DECLS

#endif /* VOICENOTE_GLIB_ERROR_H */
