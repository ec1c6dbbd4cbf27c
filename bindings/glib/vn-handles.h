/*
 * vn-handles.h (private, not installed): the libvoicenote handle under each voicenote-glib object, for the classes
 * that build on other objects (VnFlow takes a VnRecorder's, a VnPlayer's and a VnManualClock's; VnQueuePlayer a
 * VnPlayer's; VnUploader a VnPayload's). NULL once the object was disposed.
 */
#ifndef VOICENOTE_GLIB_HANDLES_H
#define VOICENOTE_GLIB_HANDLES_H

#include "vn-manual-clock.h"
#include "vn-payload.h"
#include "vn-player.h"
#include "vn-recorder.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL vn_player *vng_player_handle(VnPlayer *player);
G_GNUC_INTERNAL vn_recorder *vng_recorder_handle(VnRecorder *recorder);
G_GNUC_INTERNAL vn_payload *vng_payload_handle(VnPayload *payload);
G_GNUC_INTERNAL vn_manual_clock *vng_manual_clock_handle(VnManualClock *clock);

G_END_DECLS

#endif /* VOICENOTE_GLIB_HANDLES_H */
