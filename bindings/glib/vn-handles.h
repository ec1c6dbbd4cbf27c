/*
 * vn-handles.h (private, not installed): the libvoicenote handle under each voicenote-glib object, for the classes
 * that build on other objects (VnFlow takes a VnRecorder's, a VnPlayer's and a VnManualClock's; VnQueuePlayer a
 * VnPlayer's; VnUploader a VnPayload's), and a call's own libvoicenote copy of a VnHttpOptions or VnEncoderOptions.
 * NULL once the object was disposed.
 */
#ifndef VOICENOTE_GLIB_HANDLES_H
#define VOICENOTE_GLIB_HANDLES_H

#include "vn-encoder-options.h"
#include "vn-http-options.h"
#include "vn-manual-clock.h"
#include "vn-payload.h"
#include "vn-player.h"
#include "vn-recorder.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL vn_player *vng_player_handle(VnPlayer *player);
G_GNUC_INTERNAL vn_recorder *vng_recorder_handle(VnRecorder *recorder);
G_GNUC_INTERNAL vn_payload *vng_payload_handle(VnPayload *payload);
G_GNUC_INTERNAL vn_manual_clock *vng_manual_clock_handle(VnManualClock *clock);

/* A new vn_http_options holding what `options` holds now (the library's defaults for NULL), the caller's to destroy:
 * each call by URL gets its own copy, so later changes to `options` do not reach it. */
G_GNUC_INTERNAL vn_http_options *vng_http_options_create_handle(VnHttpOptions *options);

/* Sets what `options` holds now (nothing for NULL) on a call's own conversion options; FALSE with @error set when
 * the library refuses it. */
G_GNUC_INTERNAL gboolean vng_encoder_options_apply(VnEncoderOptions *options, vn_convert_options *convert,
                                                   GError **error);

/* The same on a recorder's options. */
G_GNUC_INTERNAL gboolean vng_encoder_options_apply_to_recorder(VnEncoderOptions *options,
                                                               vn_recorder_options *recorder, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_HANDLES_H */
