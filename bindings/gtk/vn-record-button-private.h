/*
 * vn-record-button-private.h: private to voicenote-gtk (not installed, not exported, not scanned): what VnComposer
 * asks of its VnRecordButton.
 */
#ifndef VOICENOTE_GTK_RECORD_BUTTON_PRIVATE_H
#define VOICENOTE_GTK_RECORD_BUTTON_PRIVATE_H

#include "vn-record-button.h"

/* The room the button draws in left of its allocation now: the slide-to-cancel hint's natural width and the
 * spacing before the button while the hint shows (a take held), else 0. */
G_GNUC_INTERNAL int record_button_room_before(VnRecordButton *self);

#endif /* VOICENOTE_GTK_RECORD_BUTTON_PRIVATE_H */
