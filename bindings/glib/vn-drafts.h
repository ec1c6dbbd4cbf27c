/*
 * vn-drafts.h: VnDraft and the drafts a drafts directory keeps: listed and cleared (libvoicenote's
 * vn_flow_drafts_list() and vn_flow_drafts_clear()), for a client's list of conversations with an unsent voice note.
 */
#ifndef VOICENOTE_GLIB_DRAFTS_H
#define VOICENOTE_GLIB_DRAFTS_H

#include <gio/gio.h>
#include <voicenote.h>

G_BEGIN_DECLS

/**
 * VnDraft:
 * @key: the conversation's key, as given to [property@Voicenote.Flow:draft-key].
 * @path: the take's file in the drafts directory (a `.part` while it was still being recorded: the next flow with
 *   the key makes it whole).
 * @duration: the take's length in seconds as its record says (0 for a take still recording when it was kept).
 *
 * One conversation's voice draft, from [func@Voicenote.drafts_list]. A boxed type: copy with
 * [method@Voicenote.Draft.copy], free with [method@Voicenote.Draft.free].
 */
typedef struct {
    gchar *key;
    gchar *path;
    gdouble duration;
} VnDraft;

/**
 * VNG_TYPE_DRAFT:
 *
 * The [type@GObject.Type] of [struct@Voicenote.Draft].
 */
#define VNG_TYPE_DRAFT (vng_draft_get_type())

/**
 * vng_draft_get_type:
 *
 * Registers (once) and returns the boxed type of [struct@Voicenote.Draft].
 *
 * Returns: the [type@GObject.Type] of [struct@Voicenote.Draft].
 */
GType vng_draft_get_type(void) G_GNUC_CONST;

/**
 * vng_draft_copy:
 * @draft: the draft.
 *
 * Copies @draft (its strings too).
 *
 * Returns: (transfer full): the copy; free with [method@Voicenote.Draft.free].
 */
VnDraft *vng_draft_copy(const VnDraft *draft);

/**
 * vng_draft_free:
 * @draft: (nullable): the draft, or %NULL (nothing happens).
 *
 * Frees @draft and its strings.
 */
void vng_draft_free(VnDraft *draft);

/**
 * vng_drafts_list:
 * @directory: (nullable): the drafts directory, or %NULL for the default one (`$XDG_DATA_HOME/voicenote/drafts`),
 *   as [property@Voicenote.Flow:drafts-directory] takes it.
 * @error: (nullable): where a failure is told, in the [error@Voicenote.Error] domain.
 *
 * Lists the drafts a drafts directory keeps, one per conversation, ordered by key: what a client shows as
 * "voice draft" beside a conversation. Records that cannot be read are left out (clearing their key, or all,
 * deletes them). A directory that does not exist has no drafts. Reads a few small files on the calling thread.
 *
 * Returns: (transfer full) (element-type VnDraft): the drafts (empty when there are none), or %NULL with @error set.
 */
GPtrArray *vng_drafts_list(const gchar *directory, GError **error);

/**
 * vng_drafts_clear:
 * @directory: (nullable): the drafts directory, or %NULL for the default one.
 * @key: (nullable): the conversation whose draft goes, or %NULL for every draft.
 * @error: (nullable): where a failure is told, in the [error@Voicenote.Error] domain.
 *
 * Deletes drafts: their records and the audio they name in the drafts directory, nothing outside it (a record that
 * cannot be read is deleted too). What a client does when the user deletes a conversation, or signs out. A flow
 * holding the key meanwhile keeps its take; its record is written again when it changes.
 *
 * Returns: %TRUE when the drafts are gone (also when there were none); %FALSE with @error set.
 */
gboolean vng_drafts_clear(const gchar *directory, const gchar *key, GError **error);

G_END_DECLS

#endif
