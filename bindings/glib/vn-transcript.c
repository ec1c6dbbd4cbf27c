/*
 * vn-transcript.c: VnTranscript and vng_transcript_transcribe_async()/_finish(): a vn_transcription by PocketSphinx
 * run to its end on a GTask's worker thread, its GCancellable connected to vn_transcription_cancel(), its words
 * copied from the FINISHED event.
 */
#include "vn-transcript.h"

#include "vn-error.h"
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

/* The worker's job: the location and HTTP options, and what the FINISHED event copied. */
typedef struct {
    gchar *location;
    vn_http_options *http;
    GMutex mutex;
    GCond ended;
    gboolean finished; /* under mutex */
    VnTranscript *result; /* under mutex, set with finished */
} TranscribeJob;

static void transcribe_job_free(gpointer data) {
    TranscribeJob *job = data;
    g_free(job->location);
    vn_http_options_destroy(job->http);
    g_clear_object(&job->result);
    g_mutex_clear(&job->mutex);
    g_cond_clear(&job->ended);
    g_free(job);
}

static void on_event(void *user_data, const vn_transcription_event *event) {
    TranscribeJob *job = user_data;
    if (event->kind != VN_TRANSCRIPTION_EVENT_FINISHED) return;
    VnTranscript *made = g_object_new(VNG_TYPE_TRANSCRIPT, NULL);
    made->recogniser = g_strdup(event->recogniser ? event->recogniser : "");
    made->text = g_strdup(event->text ? event->text : "");
    for (size_t i = 0; event->words != NULL && i < event->word_count; i++) {
        Word word = {g_strdup(event->words[i].text), event->words[i].start_s, event->words[i].end_s,
                     event->words[i].confidence};
        g_array_append_val(made->words, word);
    }
    g_mutex_lock(&job->mutex);
    job->result = made;
    job->finished = TRUE;
    g_cond_broadcast(&job->ended);
    g_mutex_unlock(&job->mutex);
}

static void cancel_transcription(GCancellable *cancellable, gpointer transcription) {
    (void)cancellable;
    (void)vn_transcription_cancel(transcription);
}

/* How long the FINISHED event may trail the end vn_transcription_wait() saw (it is queued at that end). */
#define EVENT_WAIT_US (10 * G_TIME_SPAN_SECOND)

static void transcribe_thread(GTask *task, gpointer source_object, gpointer data, GCancellable *cancellable) {
    (void)source_object;
    TranscribeJob *job = data;
    vn_transcriber *sphinx = NULL;
    vn_transcription *transcription = NULL;
    GError *error = NULL;
    if (!vng_error_set_from_status(&error, vn_transcriber_create_pocketsphinx(NULL, NULL, &sphinx)) ||
        !vng_error_set_from_status(&error, vn_transcription_create(job->location, sphinx, job->http, NULL, &transcription)) ||
        !vng_error_set_from_status(&error, vn_transcription_subscribe(transcription, on_event, job, NULL, NULL)) ||
        !vng_error_set_from_status(&error, vn_transcription_start(transcription))) {
        vn_transcription_destroy(transcription);
        vn_transcriber_destroy(sphinx);
        g_task_return_error(task, error);
        return;
    }
    gulong handler = cancellable ? g_cancellable_connect(cancellable, G_CALLBACK(cancel_transcription), transcription, NULL) : 0;
    char *json = NULL;
    int status = vn_transcription_wait(transcription, -1, &json); /* ends when the transcription does */
    vn_free(json);
    if (cancellable) g_cancellable_disconnect(cancellable, handler);
    if (status == VN_OK) {
        gint64 deadline = g_get_monotonic_time() + EVENT_WAIT_US;
        g_mutex_lock(&job->mutex);
        while (!job->finished && g_cond_wait_until(&job->ended, &job->mutex, deadline)) {}
        gboolean finished = job->finished;
        g_mutex_unlock(&job->mutex);
        if (!finished) status = VN_E_INTERNAL;
    } else {
        vng_error_set_from_status(&error, status);
    }
    vn_transcription_destroy(transcription); /* no callback runs after this returns */
    vn_transcriber_destroy(sphinx);
    if (status == VN_E_CANCELLED) {
        g_clear_error(&error);
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "the transcription was cancelled");
    } else if (status != VN_OK) {
        if (error == NULL) g_set_error(&error, VN_ERROR, VN_ERROR_INTERNAL, "the transcription's end was not told");
        g_task_return_error(task, error);
    } else {
        g_task_return_pointer(task, g_steal_pointer(&job->result), g_object_unref);
    }
}

void vng_transcript_transcribe_async(const gchar *location, VnHttpOptions *http_options, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data) {
    g_return_if_fail(location != NULL);
    g_return_if_fail(http_options == NULL || VNG_IS_HTTP_OPTIONS(http_options));
    g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
    TranscribeJob *job = g_new0(TranscribeJob, 1);
    job->location = g_strdup(location);
    job->http = vng_http_options_create_handle(http_options);
    g_mutex_init(&job->mutex);
    g_cond_init(&job->ended);
    GTask *task = g_task_new(NULL, cancellable, callback, user_data);
    g_task_set_source_tag(task, transcribe_tag);
    g_task_set_return_on_cancel(task, FALSE); /* the callback runs only after the library's work has ended */
    g_task_set_task_data(task, job, transcribe_job_free);
    g_task_run_in_thread(task, transcribe_thread);
    g_object_unref(task);
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
