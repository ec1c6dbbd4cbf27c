/*
 * vn-transcript.c: VnTranscript and vng_transcript_transcribe_async()/_finish(): a vn_transcription by PocketSphinx
 * whose events come to the caller's main context through the event bridge; the last one completes the GTask (its
 * words copied from FINISHED), its GCancellable connected to vn_transcription_cancel() until then.
 */
#include "vn-transcript.h"

#include "vn-error.h"
#include "vn-event-bridge.h"
#include "vn-handles.h"

typedef struct {
    gchar *text;
    gdouble start, end, confidence;
} Word;

struct _VnTranscript {
    GObject parent_instance;
    gchar *recogniser;
    gchar *text;
    GArray *words; /* of Word */
};

G_DEFINE_FINAL_TYPE(VnTranscript, vng_transcript, G_TYPE_OBJECT)

static void clear_word(gpointer data) { g_free(((Word *)data)->text); }

static void vng_transcript_finalize(GObject *object) {
    VnTranscript *self = VNG_TRANSCRIPT(object);
    g_free(self->recogniser);
    g_free(self->text);
    g_array_unref(self->words);
    G_OBJECT_CLASS(vng_transcript_parent_class)->finalize(object);
}

static void vng_transcript_class_init(VnTranscriptClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = vng_transcript_finalize;
}

static void vng_transcript_init(VnTranscript *self) {
    self->words = g_array_new(FALSE, TRUE, sizeof(Word));
    g_array_set_clear_func(self->words, clear_word);
}

/* The GTasks' source tag (ISO C gives no function pointer as a gpointer). */
static gchar transcribe_tag[] = "vng_transcript_transcribe_async";

/* One transcription: libvoicenote's own thread does the work and its events arrive on the caller's main context (the
 * event bridge), where the last one completes the task: no GLib worker thread is held while a note is recognised
 * (or waits its turn). Freed by the subscription's release, after its last event. */
typedef struct {
    GTask *task;
    VngEventBridge *bridge;
    vn_transcription *transcription;
    GCancellable *cancellable;
    gulong cancel_handler;
} TranscribeJob;

static void transcribe_job_release(void *data) {
    TranscribeJob *job = data;
    g_clear_object(&job->task);
    g_clear_object(&job->cancellable);
    if (job->bridge) vng_event_bridge_release(job->bridge);
    g_free(job);
}

static VnTranscript *transcript_from_event(const vn_transcription_event *event) {
    VnTranscript *made = g_object_new(VNG_TYPE_TRANSCRIPT, NULL);
    made->recogniser = g_strdup(event->recogniser ? event->recogniser : "");
    made->text = g_strdup(event->text ? event->text : "");
    for (size_t i = 0; event->words != NULL && i < event->word_count; i++) {
        Word word = {g_strdup(event->words[i].text), event->words[i].start_s, event->words[i].end_s,
                     event->words[i].confidence};
        g_array_append_val(made->words, word);
    }
    return made;
}

/* On the caller's main context. */
static void on_event(void *user_data, const vn_transcription_event *event) {
    TranscribeJob *job = user_data;
    if (event->kind == VN_TRANSCRIPTION_EVENT_WORDS || job->task == NULL) return;
    if (job->cancellable) g_cancellable_disconnect(job->cancellable, job->cancel_handler);
    job->cancel_handler = 0;
    GTask *task = g_steal_pointer(&job->task);
    if (event->kind == VN_TRANSCRIPTION_EVENT_FINISHED) {
        g_task_return_pointer(task, transcript_from_event(event), g_object_unref);
    } else if (event->status == VN_E_CANCELLED) {
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "the transcription was cancelled");
    } else {
        g_task_return_error(task, vng_event_error(event->status, event->message));
    }
    g_object_unref(task);
    /* From inside its own callback: marks the subscription ended without waiting; the release then frees the job. */
    vn_transcription_destroy(g_steal_pointer(&job->transcription));
}

static void cancel_transcription(GCancellable *cancellable, gpointer transcription) {
    (void)cancellable;
    (void)vn_transcription_cancel(transcription);
}

void vng_transcript_transcribe_async(const gchar *location, VnHttpOptions *http_options, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data) {
    g_return_if_fail(location != NULL);
    g_return_if_fail(http_options == NULL || VNG_IS_HTTP_OPTIONS(http_options));
    g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
    GTask *task = g_task_new(NULL, cancellable, callback, user_data);
    g_task_set_source_tag(task, transcribe_tag);
    g_task_set_return_on_cancel(task, FALSE); /* the callback runs only after the library's work has ended */
    GError *error = NULL;
    VngEventBridge *bridge = vng_event_bridge_acquire(&error);
    vn_transcriber *sphinx = NULL;
    vn_transcription *transcription = NULL;
    vn_http_options *http = vng_http_options_create_handle(http_options);
    if (bridge == NULL ||
        !vng_error_set_from_status(&error, vn_transcriber_create_pocketsphinx(NULL, NULL, &sphinx)) ||
        !vng_error_set_from_status(&error, vn_transcription_create(location, sphinx, http, vng_event_bridge_loop(bridge),
                                                                   &transcription))) {
        vn_transcriber_destroy(sphinx);
        vn_http_options_destroy(http);
        if (bridge) vng_event_bridge_release(bridge);
        g_task_return_error(task, error);
        g_object_unref(task);
        return;
    }
    vn_transcriber_destroy(sphinx); /* the transcription holds the recogniser */
    vn_http_options_destroy(http);  /* copied by the transcription */
    TranscribeJob *job = g_new0(TranscribeJob, 1);
    job->task = task;
    job->bridge = bridge;
    job->transcription = transcription;
    job->cancellable = cancellable ? g_object_ref(cancellable) : NULL;
    if (!vng_error_set_from_status(&error, vn_transcription_subscribe(transcription, on_event, job,
                                                                      transcribe_job_release, NULL))) {
        vn_transcription_destroy(transcription);
        g_task_return_error(task, error);
        transcribe_job_release(job); /* never subscribed: no release comes */
        return;
    }
    if (cancellable) job->cancel_handler = g_cancellable_connect(cancellable, G_CALLBACK(cancel_transcription), transcription, NULL);
    if (!vng_error_set_from_status(&error, vn_transcription_start(transcription))) {
        if (cancellable) g_cancellable_disconnect(cancellable, job->cancel_handler);
        GTask *failed = g_steal_pointer(&job->task);
        g_task_return_error(failed, error);
        g_object_unref(failed);
        vn_transcription_destroy(g_steal_pointer(&job->transcription)); /* its release frees the job */
    }
}

VnTranscript *vng_transcript_transcribe_finish(GAsyncResult *result, GError **error) {
    g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
    g_return_val_if_fail(g_task_get_source_tag(G_TASK(result)) == transcribe_tag, NULL);
    return g_task_propagate_pointer(G_TASK(result), error);
}

const gchar *vng_transcript_get_recogniser(VnTranscript *self) {
    g_return_val_if_fail(VNG_IS_TRANSCRIPT(self), NULL);
    return self->recogniser;
}

const gchar *vng_transcript_get_text(VnTranscript *self) {
    g_return_val_if_fail(VNG_IS_TRANSCRIPT(self), NULL);
    return self->text;
}

guint vng_transcript_get_n_words(VnTranscript *self) {
    g_return_val_if_fail(VNG_IS_TRANSCRIPT(self), 0);
    return self->words->len;
}

const gchar *vng_transcript_get_word(VnTranscript *self, guint index, gdouble *start, gdouble *end,
                                     gdouble *confidence) {
    g_return_val_if_fail(VNG_IS_TRANSCRIPT(self), NULL);
    if (index >= self->words->len) return NULL;
    const Word *word = &g_array_index(self->words, Word, index);
    if (start) *start = word->start;
    if (end) *end = word->end;
    if (confidence) *confidence = word->confidence;
    return word->text;
}

gint vng_transcript_get_word_at(VnTranscript *self, gdouble seconds) {
    g_return_val_if_fail(VNG_IS_TRANSCRIPT(self), -1);
    gint found = -1;
    for (guint i = 0; i < self->words->len && i < G_MAXINT; i++) {
        if (g_array_index(self->words, Word, i).start <= seconds) found = (gint)i;
    }
    return found;
}
