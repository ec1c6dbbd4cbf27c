/*
 * voicenote-glib.h: voicenote-glib, libvoicenote's objects as GObjects (no GTK). Include this header only.
 *
 * Types are `Vn*` (GObject Introspection namespace "Voicenote"), functions `vng_*` (libvoicenote owns `vn_*`),
 * errors the VN_ERROR domain. Signals run on the thread-default GMainContext of the thread that made the object;
 * `_async` callbacks on the thread-default GMainContext of the thread that made the call.
 */
#ifndef VOICENOTE_GLIB_H
#define VOICENOTE_GLIB_H

#include "vn-audio-info.h"
#include "vn-convert.h"
#include "vn-drafts.h"
#include "vn-encoder-options.h"
#include "vn-error.h"
#include "vn-flow.h"
#include "vn-http-options.h"
#include "vn-manual-clock.h"
#include "vn-payload.h"
#include "vn-player.h"
#include "vn-queue-player.h"
#include "vn-recorder.h"
#include "vn-uploader.h"
#include "vn-transcript.h"
#include "vn-waveform.h"

#endif /* VOICENOTE_GLIB_H */
