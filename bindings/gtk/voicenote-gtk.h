/*
 * voicenote-gtk.h: voicenote-gtk, GTK 4 widgets for voice notes over voicenote-glib. Include this header only.
 *
 * Types are `Vn*` (GObject Introspection namespace "VoicenoteGtk"), functions `vngtk_*` (voicenote-glib owns
 * `vng_*`, libvoicenote `vn_*`). Widgets are used on the GTK main thread only, as every GTK widget.
 */
#ifndef VOICENOTE_GTK_H
#define VOICENOTE_GTK_H

#include "vn-composer.h"
#include "vn-record-button.h"
#include "vn-voice-message.h"
#include "vn-waveform.h"

#endif /* VOICENOTE_GTK_H */
