/*
 * vn-uploader.c: VnUploader, a GObject over vn_uploader whose events reach the thread-default main context through
 * the context's event bridge (vn-event-bridge.c), each attributed to the upload that sent it.
 */
#include "vn-uploader.h"

#include "vn-error.h"
#include "vn-event-bridge.h"
#include "vn-handles.h"

struct _VnUploader {
    GObject parent_instance;
    /* Construct-only */
    gchar *endpoint;
    VnUploadMode mode;
    gchar **headers; /* "Name: value" */
    VnHttpOptions *http_options; /* may be NULL */
    gchar *url_key;
    gchar *attachment_type;
    gint64 max_bytes; /* 0: the library's default */
    VngEventBridge *bridge;
    vn_uploader *handle;
    vn_subscription_id subscription;
    /* Ids, guarded by `lock`: the uploads started whose final event has not been delivered yet, oldest first (the
     * events are theirs, in that order), and the last id given. */
    GMutex lock;
    GQueue undelivered;
    guint last_id;
    /* The uploads started by vng_uploader_upload_async() that have not ended: id → GTask (a reference), guarded by
     * `lock`. */
    GHashTable *tasks;
};

/* The GTasks' source tag (ISO C gives no function pointer as a gpointer). */
static gchar upload_tag[] = "vng_uploader_upload_async";

/* An upload_async's task data: what the cancellable's handler needs. */
typedef struct {
    VnUploader *uploader; /* not a reference: the task holds one */
    gint id;              /* atomic: 0 until the upload has its id */
    gulong cancelled_handler;
} UploadTask;

enum {
    PROP_0,
    PROP_ENDPOINT,
    PROP_MODE,
    PROP_HEADERS,
    PROP_URL_KEY,
    PROP_ATTACHMENT_TYPE,
    PROP_MAX_BYTES,
    PROP_HTTP_OPTIONS,
    N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum { SIGNAL_PROGRESS, SIGNAL_COMPLETED, SIGNAL_FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void vng_uploader_initable_init(GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(VnUploader, vng_uploader, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, vng_uploader_initable_init))

GType vng_upload_mode_get_type(void) {
    static gsize type_once = 0;
    static const GEnumValue values[] = {
        {VN_UPLOAD_MODE_MULTIPART, "VN_UPLOAD_MODE_MULTIPART", "multipart"},
        {VN_UPLOAD_MODE_RAW, "VN_UPLOAD_MODE_RAW", "raw"},
        {VN_UPLOAD_MODE_MATRIX, "VN_UPLOAD_MODE_MATRIX", "matrix"},
        {VN_UPLOAD_MODE_TUS, "VN_UPLOAD_MODE_TUS", "tus"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type_once)) {
        GType type = g_enum_register_static(g_intern_static_string("VnUploadMode"), values);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Events, on the context's thread (inside vn_event_loop_dispatch) */

/* The id of the upload the next event belongs to (the oldest not finished); 0 when none (never expected). */
static guint delivering_id(VnUploader *self, gboolean finished) {
    g_mutex_lock(&self->lock);
    gpointer head = finished ? g_queue_pop_head(&self->undelivered) : g_queue_peek_head(&self->undelivered);
    guint id = GPOINTER_TO_UINT(head);
    g_mutex_unlock(&self->lock);
    return id;
}

/* Ends an upload_async's task with the payload, or the error; G_IO_ERROR_CANCELLED once its cancellable was
 * cancelled (GIO's rule, whatever the library said). Its cancellable is disconnected first (waiting for a handler
 * running on another thread). */
static void return_task(GTask *task, VnPayload *payload, const GError *error) {
    UploadTask *data = g_task_get_task_data(task);
    g_cancellable_disconnect(g_task_get_cancellable(task), data->cancelled_handler);
    data->cancelled_handler = 0;
    if (!g_task_return_error_if_cancelled(task)) {
        if (payload != NULL) {
            g_task_return_pointer(task, g_object_ref(payload), g_object_unref);
        } else {
            g_task_return_error(task, g_error_copy(error));
        }
    }
    g_object_unref(task);
}

/* The last signal of an upload, then the end of its task when upload_async started it. The task is taken first, so
 * that a handler disposing the uploader leaves it to this outcome. */
static void emit_end(VnUploader *self, guint id, VnPayload *payload, const GError *error) {
    gpointer task = NULL;
    g_mutex_lock(&self->lock);
    g_hash_table_steal_extended(self->tasks, GUINT_TO_POINTER(id), NULL, &task);
    g_mutex_unlock(&self->lock);
    if (payload != NULL) {
        g_signal_emit(self, signals[SIGNAL_COMPLETED], 0, id, payload);
    } else {
        g_signal_emit(self, signals[SIGNAL_FAILED], 0, id, error);
    }
    if (task != NULL) return_task(task, payload, error);
}

static void emit_completed(VnUploader *self, guint id, const char *payload_json) {
    GError *error = NULL;
    VnPayload *payload = payload_json != NULL ? vng_payload_new_from_json(payload_json, &error) : NULL;
    if (payload == NULL && error == NULL)
        error = g_error_new_literal(VN_ERROR, VN_ERROR_INTERNAL, "uploaded without a payload");
    emit_end(self, id, payload, error);
    g_clear_object(&payload);
    g_clear_error(&error);
}

static void on_upload_event(void *user_data, const vn_upload_event *event) {
    VnUploader *self = user_data;
    g_object_ref(self); /* a handler may drop the last reference */
    switch (event->state) {
    case VN_UPLOAD_UPLOADING:
        g_signal_emit(self, signals[SIGNAL_PROGRESS], 0, delivering_id(self, FALSE), event->progress);
        break;
    case VN_UPLOAD_UPLOADED:
        emit_completed(self, delivering_id(self, TRUE), event->payload_json);
        break;
    case VN_UPLOAD_FAILED: {
        guint id = delivering_id(self, TRUE);
        GError *error = vng_event_error(event->status, event->message);
        emit_end(self, id, NULL, error);
        g_error_free(error);
        break;
    }
    default: /* PENDING, or a state a newer library added: nothing to say */
        break;
    }
    g_object_unref(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Construction and disposal */

/* The construct-only properties as upload options with the bridge's loop. */
static gboolean fill_options(VnUploader *self, vn_upload_options *options, GError **error) {
    if (!vng_error_set_from_status(error, vn_upload_options_set_mode(options, (int)self->mode)) ||
        !vng_error_set_from_status(error, vn_upload_options_set_url_key(options, self->url_key)) ||
        (self->attachment_type != NULL &&
         !vng_error_set_from_status(error, vn_upload_options_set_attachment_type(options, self->attachment_type))) ||
        (self->max_bytes > 0 &&
         !vng_error_set_from_status(error, vn_upload_options_set_max_bytes(options, self->max_bytes))) ||
        !vng_error_set_from_status(error,
                                   vn_upload_options_set_event_loop(options, vng_event_bridge_loop(self->bridge))))
        return FALSE;
    /* The HTTP options as they are now, with the headers added. */
    vn_http_options *http = vng_http_options_create_handle(self->http_options);
    gboolean ok = TRUE;
    for (gchar **header = self->headers; ok && header != NULL && *header != NULL; header++) {
        const gchar *colon = strchr(*header, ':');
        if (colon == NULL) {
            g_set_error(error, VN_ERROR, VN_ERROR_INVALID_ARG, "VnUploader:headers: \"%s\" is not \"Name: value\"",
                        *header);
            ok = FALSE;
            break;
        }
        gchar *name = g_strndup(*header, (gsize)(colon - *header));
        gchar *value = g_strstrip(g_strdup(colon + 1));
        ok = vng_error_set_from_status(error, vn_http_options_add_header(http, g_strstrip(name), value));
        g_free(name);
        g_free(value);
    }
    ok = ok && vng_error_set_from_status(error, vn_upload_options_set_http(options, http));
    vn_http_options_destroy(http);
    return ok;
}

static gboolean vng_uploader_initable_init_instance(GInitable *initable, GCancellable *cancellable, GError **error) {
    (void)cancellable;
    VnUploader *self = VNG_UPLOADER(initable);
    g_return_val_if_fail(self->bridge == NULL, FALSE);
    self->bridge = vng_event_bridge_acquire(error);
    if (self->bridge == NULL) return FALSE;
    vn_upload_options *options = NULL;
    gboolean ok = vng_error_set_from_status(error, vn_upload_options_create(&options)) &&
                  fill_options(self, options, error) &&
                  vng_error_set_from_status(error, vn_uploader_create(self->endpoint, options, &self->handle));
    vn_upload_options_destroy(options);
    /* No reference in user_data: dispose ends the subscription before the object goes. */
    return ok && vng_error_set_from_status(error, vn_uploader_subscribe(self->handle, on_upload_event, self, NULL,
                                                                        &self->subscription));
}

static void vng_uploader_initable_init(GInitableIface *iface) {
    iface->init = vng_uploader_initable_init_instance;
}

/* Ends the upload_async tasks still running (only g_object_run_dispose() gets here with some: each holds a
 * reference) with VN_ERROR_CANCELLED: no event will end them. */
static void end_tasks_disposed(VnUploader *self) {
    g_mutex_lock(&self->lock);
    GHashTable *tasks = g_steal_pointer(&self->tasks);
    self->tasks = g_hash_table_new(NULL, NULL);
    g_mutex_unlock(&self->lock);
    GHashTableIter iter;
    gpointer task;
    g_hash_table_iter_init(&iter, tasks);
    GError *error = g_error_new_literal(VN_ERROR, VN_ERROR_CANCELLED, "the uploader was disposed");
    while (g_hash_table_iter_next(&iter, NULL, &task)) return_task(task, NULL, error);
    g_error_free(error);
    g_hash_table_unref(tasks);
}

/* Unsubscribes first, then destroys the uploader (cancelling a running upload), then lets the bridge go. */
static void vng_uploader_dispose(GObject *object) {
    VnUploader *self = VNG_UPLOADER(object);
    if (self->subscription != 0) {
        vn_unsubscribe(self->subscription);
        self->subscription = 0;
    }
    g_clear_pointer(&self->handle, vn_uploader_destroy);
    end_tasks_disposed(self);
    g_clear_pointer(&self->bridge, vng_event_bridge_release);
    G_OBJECT_CLASS(vng_uploader_parent_class)->dispose(object);
}

static void vng_uploader_finalize(GObject *object) {
    VnUploader *self = VNG_UPLOADER(object);
    g_free(self->endpoint);
    g_strfreev(self->headers);
    g_clear_object(&self->http_options);
    g_free(self->url_key);
    g_free(self->attachment_type);
    g_queue_clear(&self->undelivered);
    g_hash_table_unref(self->tasks);
    g_mutex_clear(&self->lock);
    G_OBJECT_CLASS(vng_uploader_parent_class)->finalize(object);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Properties */

static void vng_uploader_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    VnUploader *self = VNG_UPLOADER(object);
    switch (id) {
    case PROP_ENDPOINT: g_value_set_string(value, self->endpoint); break;
    case PROP_MODE: g_value_set_enum(value, self->mode); break;
    case PROP_HEADERS: g_value_set_boxed(value, self->headers); break;
    case PROP_URL_KEY: g_value_set_string(value, self->url_key); break;
    case PROP_ATTACHMENT_TYPE: g_value_set_string(value, self->attachment_type); break;
    case PROP_MAX_BYTES: g_value_set_int64(value, self->max_bytes); break;
    case PROP_HTTP_OPTIONS: g_value_set_object(value, self->http_options); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vng_uploader_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    VnUploader *self = VNG_UPLOADER(object);
    switch (id) {
    case PROP_ENDPOINT: self->endpoint = g_value_dup_string(value); break;
    case PROP_MODE: self->mode = g_value_get_enum(value); break;
    case PROP_HEADERS: self->headers = g_value_dup_boxed(value); break;
    case PROP_URL_KEY: self->url_key = g_value_dup_string(value); break;
    case PROP_ATTACHMENT_TYPE: self->attachment_type = g_value_dup_string(value); break;
    case PROP_MAX_BYTES: self->max_bytes = g_value_get_int64(value); break;
    case PROP_HTTP_OPTIONS: self->http_options = g_value_dup_object(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vng_uploader_class_init(VnUploaderClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->dispose = vng_uploader_dispose;
    object_class->finalize = vng_uploader_finalize;
    object_class->get_property = vng_uploader_get_property;
    object_class->set_property = vng_uploader_set_property;
    const GParamFlags construct_only = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

    /**
     * VnUploader:endpoint:
     *
     * The http(s) URL uploads go to (its query parameters kept). Set at construction.
     */
    properties[PROP_ENDPOINT] = g_param_spec_string("endpoint", NULL, NULL, NULL, construct_only);
    /**
     * VnUploader:mode:
     *
     * How uploads are framed. Set at construction.
     */
    properties[PROP_MODE] = g_param_spec_enum("mode", NULL, NULL, VNG_TYPE_UPLOAD_MODE, VN_UPLOAD_MODE_MULTIPART,
                                              construct_only);
    /**
     * VnUploader:headers:
     *
     * Request headers sent with each upload, each "Name: value" (Stream: `Authorization` and
     * `Stream-Auth-Type: jwt`; Matrix: `Authorization: Bearer …`); %NULL for none. Set at construction.
     */
    properties[PROP_HEADERS] = g_param_spec_boxed("headers", NULL, NULL, G_TYPE_STRV, construct_only);
    /**
     * VnUploader:url-key:
     *
     * The key of the response's JSON object that holds the uploaded URL; %NULL for the mode's (`file`, or
     * `content_uri` for raw uploads). Set at construction.
     */
    properties[PROP_URL_KEY] = g_param_spec_string("url-key", NULL, NULL, NULL, construct_only);
    /**
     * VnUploader:attachment-type:
     *
     * The attachment type uploaded: "voiceRecording", "audio", "image", "video" or "file"; %NULL for
     * "voiceRecording". Set at construction.
     */
    properties[PROP_ATTACHMENT_TYPE] = g_param_spec_string("attachment-type", NULL, NULL, NULL, construct_only);
    /**
     * VnUploader:max-bytes:
     *
     * The largest file sent, in bytes; 0 for the default (100 MiB). Set at construction.
     */
    properties[PROP_MAX_BYTES] = g_param_spec_int64("max-bytes", NULL, NULL, 0, G_MAXINT64, 0, construct_only);
    /**
     * VnUploader:http-options:
     *
     * How uploads are requested: headers (sent besides [property@Voicenote.Uploader:headers]), CA file, connect,
     * stall and transfer timeouts, as the options are at construction; %NULL for libvoicenote's defaults. Set at
     * construction.
     */
    properties[PROP_HTTP_OPTIONS] =
        g_param_spec_object("http-options", NULL, NULL, VNG_TYPE_HTTP_OPTIONS, construct_only);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    /**
     * VnUploader::progress:
     * @self: the uploader.
     * @id: the upload's id.
     * @fraction: how much was sent, 0…1: 0 first, then steps of at least 0.05, then 1 once the server answered.
     *
     * An upload is sending.
     */
    signals[SIGNAL_PROGRESS] = g_signal_new("progress", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                            NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_DOUBLE);
    /**
     * VnUploader::completed:
     * @self: the uploader.
     * @id: the upload's id.
     * @payload: the uploaded payload: its [property@Voicenote.Payload:asset-url] is the URL the server answered
     *   (Stream's `file`, or Matrix's `mxc://` `content_uri`), with the file's title, size, MIME type, duration and
     *   waveform.
     *
     * An upload ended well. The last signal of that id.
     */
    signals[SIGNAL_COMPLETED] = g_signal_new("completed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                             NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, VNG_TYPE_PAYLOAD);
    /**
     * VnUploader::failed:
     * @self: the uploader.
     * @id: the upload's id.
     * @error: what failed: a %VN_ERROR error: %VN_ERROR_NETWORK (no connection, HTTP 5xx and other 4xx, the message
     *   naming `HTTP nnn`), %VN_ERROR_PERMISSION (401/403), %VN_ERROR_NOT_FOUND (404/410), %VN_ERROR_TOO_LARGE
     *   (413), %VN_ERROR_FORMAT (a response without the URL), %VN_ERROR_CANCELLED ([method@Voicenote.Uploader.cancel]).
     *
     * An upload failed or was cancelled; the file is untouched, and [method@Voicenote.Uploader.retry] sends it again.
     * The last signal of that id.
     */
    signals[SIGNAL_FAILED] = g_signal_new("failed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_ERROR);
}

static void vng_uploader_init(VnUploader *self) {
    g_mutex_init(&self->lock);
    g_queue_init(&self->undelivered);
    self->tasks = g_hash_table_new(NULL, NULL);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Public API */

VnUploader *vng_uploader_new(const gchar *endpoint, VnUploadMode mode, GError **error) {
    g_return_val_if_fail(endpoint != NULL, NULL);
    return g_initable_new(VNG_TYPE_UPLOADER, NULL, error, "endpoint", endpoint, "mode", mode, NULL);
}

/* Gives the next id to an upload `start` begins; the id is queued first (and `task`, when not NULL, kept under it),
 * so that events coming at once (on another thread's call) find them; a start that fails takes them back (and gives
 * the id again when no other was given since). */
static guint start_upload(VnUploader *self, int (*start)(VnUploader *, gpointer), gpointer data, GTask *task,
                          GError **error) {
    g_mutex_lock(&self->lock);
    guint id = ++self->last_id;
    g_queue_push_tail(&self->undelivered, GUINT_TO_POINTER(id));
    if (task != NULL) {
        g_hash_table_insert(self->tasks, GUINT_TO_POINTER(id), g_object_ref(task));
        g_atomic_int_set(&((UploadTask *)g_task_get_task_data(task))->id, (gint)id);
    }
    g_mutex_unlock(&self->lock);
    if (vng_error_set_from_status(error, start(self, data))) return id;
    g_mutex_lock(&self->lock);
    g_queue_remove(&self->undelivered, GUINT_TO_POINTER(id));
    if (task != NULL && g_hash_table_remove(self->tasks, GUINT_TO_POINTER(id))) g_object_unref(task);
    if (self->last_id == id) self->last_id--; /* not given: the next upload takes it */
    g_mutex_unlock(&self->lock);
    return 0;
}

typedef struct {
    const gchar *location;
    VnPayload *payload;
} FileUpload;

static int start_file(VnUploader *self, gpointer data) {
    FileUpload *upload = data;
    return vn_uploader_upload_file(self->handle, upload->location,
                                   upload->payload != NULL ? vng_payload_handle(upload->payload) : NULL);
}

typedef struct {
    GBytes *bytes;
    const gchar *file_name;
    const gchar *mime_type;
    VnPayload *payload;
} BytesUpload;

/* The bytes through a memory source (a copy: the library keeps it for a retry). */
static int start_bytes(VnUploader *self, gpointer data) {
    BytesUpload *upload = data;
    gsize size = 0;
    gconstpointer bytes = g_bytes_get_data(upload->bytes, &size);
    vn_source *source = NULL;
    int status = vn_source_create_memory(bytes, size, &source);
    if (status != VN_OK) return status;
    status = vn_uploader_upload_source(self->handle, source, upload->file_name, upload->mime_type,
                                       upload->payload != NULL ? vng_payload_handle(upload->payload) : NULL);
    vn_source_destroy(source);
    return status;
}

static int start_retry(VnUploader *self, gpointer data) {
    (void)data;
    return vn_uploader_retry(self->handle);
}

guint vng_uploader_upload_file(VnUploader *self, const gchar *location, VnPayload *payload, GError **error) {
    g_return_val_if_fail(VNG_IS_UPLOADER(self), 0);
    g_return_val_if_fail(payload == NULL || VNG_IS_PAYLOAD(payload), 0);
    FileUpload upload = {location, payload};
    return start_upload(self, start_file, &upload, NULL, error);
}

guint vng_uploader_upload_bytes(VnUploader *self, GBytes *bytes, const gchar *file_name, const gchar *mime_type,
                                VnPayload *payload, GError **error) {
    g_return_val_if_fail(VNG_IS_UPLOADER(self), 0);
    g_return_val_if_fail(bytes != NULL, 0);
    g_return_val_if_fail(payload == NULL || VNG_IS_PAYLOAD(payload), 0);
    BytesUpload upload = {bytes, file_name, mime_type, payload};
    return start_upload(self, start_bytes, &upload, NULL, error);
}

guint vng_uploader_retry(VnUploader *self, GError **error) {
    g_return_val_if_fail(VNG_IS_UPLOADER(self), 0);
    return start_upload(self, start_retry, NULL, NULL, error);
}

/* Only the last upload can be running (one at a time); an earlier id has ended, or its end is on its way. */
gboolean vng_uploader_cancel(VnUploader *self, guint id, GError **error) {
    g_return_val_if_fail(VNG_IS_UPLOADER(self), FALSE);
    g_mutex_lock(&self->lock);
    gboolean running = id != 0 && id == self->last_id && g_queue_find(&self->undelivered, GUINT_TO_POINTER(id));
    g_mutex_unlock(&self->lock);
    if (self->handle == NULL) return vng_error_set_from_status(error, vn_uploader_cancel(NULL));
    return !running || vng_error_set_from_status(error, vn_uploader_cancel(self->handle));
}

/* The cancellable's handler, on the canceller's thread (or at once in g_cancellable_connect()): cancels the upload
 * once it has its id; upload_async cancels it itself when the cancel came before. */
static void cancel_task_upload(GCancellable *cancellable, gpointer data) {
    (void)cancellable;
    UploadTask *task = data;
    guint id = (guint)g_atomic_int_get(&task->id);
    if (id != 0) vng_uploader_cancel(task->uploader, id, NULL);
}

void vng_uploader_upload_async(VnUploader *self, const gchar *location, VnPayload *payload, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data) {
    g_return_if_fail(VNG_IS_UPLOADER(self));
    g_return_if_fail(payload == NULL || VNG_IS_PAYLOAD(payload));
    g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
    GTask *task = g_task_new(self, cancellable, callback, user_data);
    g_task_set_source_tag(task, upload_tag);
    UploadTask *data = g_new0(UploadTask, 1);
    data->uploader = self;
    g_task_set_task_data(task, data, g_free);
    /* Cancelled already: nothing starts. */
    if (g_task_return_error_if_cancelled(task)) {
        g_object_unref(task);
        return;
    }
    if (cancellable != NULL)
        data->cancelled_handler = g_cancellable_connect(cancellable, G_CALLBACK(cancel_task_upload), data, NULL);
    FileUpload upload = {location, payload};
    GError *error = NULL;
    guint id = start_upload(self, start_file, &upload, task, &error);
    if (id == 0) {
        g_cancellable_disconnect(cancellable, data->cancelled_handler);
        data->cancelled_handler = 0;
        g_task_return_error(task, error);
    } else if (g_cancellable_is_cancelled(cancellable)) {
        vng_uploader_cancel(self, id, NULL); /* a cancel between the check above and the id */
    }
    g_object_unref(task);
}

VnPayload *vng_uploader_upload_finish(VnUploader *self, GAsyncResult *result, GError **error) {
    g_return_val_if_fail(VNG_IS_UPLOADER(self), NULL);
    g_return_val_if_fail(g_task_is_valid(result, self), NULL);
    g_return_val_if_fail(g_task_get_source_tag(G_TASK(result)) == upload_tag, NULL);
    return g_task_propagate_pointer(G_TASK(result), error);
}
