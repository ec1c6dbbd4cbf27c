/*
 * vn-payload.c: VnPayload, a GObject over vn_payload: its fields as properties, JSON in both forms (Stream's
 * attachment object, Matrix's m.audio content) in and out.
 */
#include "vn-payload.h"

#include "vn-error.h"
#include "vn-handles.h"

struct _VnPayload {
    GObject parent_instance;
    vn_payload *handle;
    gchar *json;           /* construct-only: the Stream JSON to read; freed after init */
    gchar *matrix_content; /* construct-only: the Matrix content to read; freed after init */
    gboolean is_voice;
};

enum {
    PROP_0,
    PROP_JSON,
    PROP_MATRIX_CONTENT,
    PROP_ATTACHMENT_TYPE,
    PROP_TITLE,
    PROP_ASSET_URL,
    PROP_MIME_TYPE,
    PROP_FILE_SIZE,
    PROP_DURATION,
    PROP_EXTRA_DATA,
    PROP_IS_VOICE,
    N_PROPS
};
static GParamSpec *properties[N_PROPS];

static void vng_payload_initable_init(GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(VnPayload, vng_payload, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, vng_payload_initable_init))

/* The text fields: a property id and its vn_payload_field. */
typedef struct {
    guint property;
    int field;
} TextField;

static const TextField text_fields[] = {
    {PROP_ATTACHMENT_TYPE, VN_PAYLOAD_TYPE},
    {PROP_TITLE, VN_PAYLOAD_TITLE},
    {PROP_ASSET_URL, VN_PAYLOAD_ASSET_URL},
    {PROP_MIME_TYPE, VN_PAYLOAD_MIME_TYPE},
};

static const TextField *text_field_for(guint property) {
    for (gsize i = 0; i < G_N_ELEMENTS(text_fields); i++)
        if (text_fields[i].property == property) return &text_fields[i];
    return NULL;
}

/* A string the library allocated, as a GLib string (NULL stays NULL). */
static gchar *take_library_string(char *text) {
    gchar *copy = g_strdup(text);
    vn_free(text);
    return copy;
}

static gchar *copy_field(VnPayload *self, int field) {
    char *text = NULL;
    if (self->handle == NULL || vn_payload_copy_field(self->handle, field, &text) != VN_OK) return NULL;
    return take_library_string(text);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Construction */

/* Reads the construct-only JSON (Stream's, else Matrix's), else makes a payload for the asset URL given. */
static gboolean vng_payload_initable_init_instance(GInitable *initable, GCancellable *cancellable, GError **error) {
    (void)cancellable;
    VnPayload *self = VNG_PAYLOAD(initable);
    g_return_val_if_fail(self->handle == NULL, FALSE);
    GValue *pending = g_object_get_data(G_OBJECT(self), "vng-payload-pending");
    gboolean ok;
    if (self->json != NULL) {
        ok = vng_error_set_from_status(error, vn_payload_parse(self->json, strlen(self->json), &self->handle));
    } else if (self->matrix_content != NULL) {
        int is_voice = 0;
        ok = vng_error_set_from_status(error, vn_payload_from_matrix_content(self->matrix_content,
                                                                             strlen(self->matrix_content),
                                                                             &self->handle, &is_voice));
        self->is_voice = is_voice != 0;
    } else {
        const gchar *url = pending != NULL && G_IS_VALUE(&pending[PROP_ASSET_URL])
                               ? g_value_get_string(&pending[PROP_ASSET_URL])
                               : NULL;
        ok = vng_error_set_from_status(error, vn_payload_create(url, &self->handle));
    }
    g_clear_pointer(&self->json, g_free);
    g_clear_pointer(&self->matrix_content, g_free);
    for (guint id = 0; ok && pending != NULL && id < N_PROPS; id++)
        if (G_IS_VALUE(&pending[id])) g_object_set_property(G_OBJECT(self), properties[id]->name, &pending[id]);
    g_object_set_data(G_OBJECT(self), "vng-payload-pending", NULL);
    return ok;
}

static void vng_payload_initable_init(GInitableIface *iface) {
    iface->init = vng_payload_initable_init_instance;
}

static void vng_payload_finalize(GObject *object) {
    VnPayload *self = VNG_PAYLOAD(object);
    vn_payload_destroy(self->handle);
    g_free(self->json);
    g_free(self->matrix_content);
    G_OBJECT_CLASS(vng_payload_parent_class)->finalize(object);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Properties */

static void vng_payload_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    VnPayload *self = VNG_PAYLOAD(object);
    const TextField *text = text_field_for(id);
    if (text != NULL) {
        g_value_take_string(value, copy_field(self, text->field));
        return;
    }
    switch (id) {
    case PROP_FILE_SIZE: g_value_set_int64(value, vng_payload_get_file_size(self)); break;
    case PROP_DURATION: g_value_set_double(value, vng_payload_get_duration(self)); break;
    case PROP_EXTRA_DATA: g_value_take_string(value, vng_payload_get_extra_data(self)); break;
    case PROP_IS_VOICE: g_value_set_boolean(value, self->is_voice); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void pending_free(gpointer data) {
    GValue *values = data;
    for (guint id = 0; id < N_PROPS; id++)
        if (G_IS_VALUE(&values[id])) g_value_unset(&values[id]);
    g_free(values);
}

/* Before init (g_object_new() with properties), keeps the value to apply once the payload exists. */
static gboolean keep_until_init(VnPayload *self, guint id, const GValue *value) {
    if (self->handle != NULL) return FALSE;
    GValue *pending = g_object_get_data(G_OBJECT(self), "vng-payload-pending");
    if (pending == NULL) {
        pending = g_new0(GValue, N_PROPS);
        g_object_set_data_full(G_OBJECT(self), "vng-payload-pending", pending, pending_free);
    }
    if (G_IS_VALUE(&pending[id])) g_value_unset(&pending[id]);
    g_value_init(&pending[id], G_VALUE_TYPE(value));
    g_value_copy(value, &pending[id]);
    return TRUE;
}

static void warn_on_error(GError *error, const gchar *name) {
    if (error == NULL) return;
    g_warning("VnPayload:%s: %s", name, error->message);
    g_error_free(error);
}

static void vng_payload_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    VnPayload *self = VNG_PAYLOAD(object);
    GError *error = NULL;
    switch (id) {
    case PROP_JSON: self->json = g_value_dup_string(value); return;
    case PROP_MATRIX_CONTENT: self->matrix_content = g_value_dup_string(value); return;
    default: break;
    }
    if (keep_until_init(self, id, value)) return;
    const TextField *text = text_field_for(id);
    if (text != NULL) {
        vng_payload_set_text(self, pspec->name, g_value_get_string(value), &error);
    } else {
        switch (id) {
        case PROP_FILE_SIZE: vng_payload_set_file_size(self, g_value_get_int64(value)); break;
        case PROP_DURATION: vng_payload_set_duration(self, g_value_get_double(value), &error); break;
        case PROP_EXTRA_DATA: vng_payload_set_extra_data(self, g_value_get_string(value), &error); break;
        default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
        }
    }
    warn_on_error(error, pspec->name);
}

static void vng_payload_class_init(VnPayloadClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->finalize = vng_payload_finalize;
    object_class->get_property = vng_payload_get_property;
    object_class->set_property = vng_payload_set_property;
    const GParamFlags construct_only = G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;
    const GParamFlags read_write = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

    /**
     * VnPayload:json:
     *
     * A Stream attachment object (JSON text) to read at construction, as [ctor@Voicenote.Payload.new_from_json]; %NULL
     * for none. Write-only.
     */
    properties[PROP_JSON] = g_param_spec_string("json", NULL, NULL, NULL, construct_only);
    /**
     * VnPayload:matrix-content:
     *
     * A Matrix `m.audio` content (JSON text) to read at construction, as
     * [ctor@Voicenote.Payload.new_from_matrix_content]; %NULL for none. Write-only.
     */
    properties[PROP_MATRIX_CONTENT] = g_param_spec_string("matrix-content", NULL, NULL, NULL, construct_only);
    /**
     * VnPayload:attachment-type:
     *
     * The payload's `type`, normally "voiceRecording"; %NULL when it has none.
     */
    properties[PROP_ATTACHMENT_TYPE] = g_param_spec_string("attachment-type", NULL, NULL, NULL, read_write);
    /**
     * VnPayload:title:
     *
     * The payload's `title` (a recording's file name); %NULL when it has none.
     */
    properties[PROP_TITLE] = g_param_spec_string("title", NULL, NULL, NULL, read_write);
    /**
     * VnPayload:asset-url:
     *
     * The payload's `asset_url`, an absolute URL; always present once made (a payload made with
     * [ctor@GObject.Object.new] and neither [property@Voicenote.Payload:json] nor
     * [property@Voicenote.Payload:matrix-content] takes this one).
     */
    properties[PROP_ASSET_URL] = g_param_spec_string("asset-url", NULL, NULL, NULL, read_write);
    /**
     * VnPayload:mime-type:
     *
     * The payload's `mime_type`; %NULL when it has none.
     */
    properties[PROP_MIME_TYPE] = g_param_spec_string("mime-type", NULL, NULL, NULL, read_write);
    /**
     * VnPayload:file-size:
     *
     * The payload's `file_size` in bytes; -1 when it has none (setting a negative number removes it).
     */
    properties[PROP_FILE_SIZE] = g_param_spec_int64("file-size", NULL, NULL, -1, G_MAXINT64, -1, read_write);
    /**
     * VnPayload:duration:
     *
     * The payload's `duration` in seconds; -1 when it has none (setting a negative number removes it).
     */
    properties[PROP_DURATION] = g_param_spec_double("duration", NULL, NULL, -1, G_MAXDOUBLE, -1, read_write);
    /**
     * VnPayload:extra-data:
     *
     * The members whose keys are not known ones, as a JSON object (`{}` when none).
     */
    properties[PROP_EXTRA_DATA] = g_param_spec_string("extra-data", NULL, NULL, "{}", read_write);
    /**
     * VnPayload:is-voice:
     *
     * Whether the Matrix content the payload was read from was marked a voice message (`org.matrix.msc3245.voice`).
     */
    properties[PROP_IS_VOICE] =
        g_param_spec_boolean("is-voice", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);
}

static void vng_payload_init(VnPayload *self) {
    (void)self;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Public API */

VnPayload *vng_payload_new(const gchar *asset_url, GError **error) {
    return g_initable_new(VNG_TYPE_PAYLOAD, NULL, error, "asset-url", asset_url, NULL);
}

VnPayload *vng_payload_new_from_json(const gchar *json, GError **error) {
    g_return_val_if_fail(json != NULL, NULL);
    return g_initable_new(VNG_TYPE_PAYLOAD, NULL, error, "json", json, NULL);
}

VnPayload *vng_payload_new_from_matrix_content(const gchar *content_json, GError **error) {
    g_return_val_if_fail(content_json != NULL, NULL);
    return g_initable_new(VNG_TYPE_PAYLOAD, NULL, error, "matrix-content", content_json, NULL);
}

/* The library makes the payload; it reaches the object as its exact JSON (read and written back unchanged). */
VnPayload *vng_payload_new_from_recording(const gchar *path, gdouble duration, const gfloat *waveform,
                                          gsize n_levels, GError **error) {
    g_return_val_if_fail(path != NULL, NULL);
    vn_payload *made = NULL;
    char *json = NULL;
    gboolean ok =
        vng_error_set_from_status(error, vn_payload_from_recording(path, duration, waveform, n_levels, &made)) &&
        vng_error_set_from_status(error, vn_payload_to_json(made, 0, &json));
    vn_payload_destroy(made);
    VnPayload *payload = ok ? vng_payload_new_from_json(json, error) : NULL;
    vn_free(json);
    return payload;
}

gchar *vng_payload_to_json(VnPayload *self, gint indent, GError **error) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), NULL);
    char *json = NULL;
    if (!vng_error_set_from_status(error, vn_payload_to_json(self->handle, indent, &json))) return NULL;
    return take_library_string(json);
}

gchar *vng_payload_to_matrix_content(VnPayload *self, const gchar *body, GError **error) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), NULL);
    char *json = NULL;
    if (!vng_error_set_from_status(error, vn_payload_to_matrix_content(self->handle, body, &json))) return NULL;
    return take_library_string(json);
}

gchar *vng_payload_get_attachment_type(VnPayload *self) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), NULL);
    return copy_field(self, VN_PAYLOAD_TYPE);
}

gchar *vng_payload_get_title(VnPayload *self) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), NULL);
    return copy_field(self, VN_PAYLOAD_TITLE);
}

gchar *vng_payload_get_asset_url(VnPayload *self) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), NULL);
    return copy_field(self, VN_PAYLOAD_ASSET_URL);
}

gchar *vng_payload_get_mime_type(VnPayload *self) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), NULL);
    return copy_field(self, VN_PAYLOAD_MIME_TYPE);
}

gint64 vng_payload_get_file_size(VnPayload *self) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), -1);
    int64_t bytes = -1;
    if (self->handle == NULL || vn_payload_get_file_size(self->handle, &bytes) != VN_OK) return -1;
    return bytes;
}

gdouble vng_payload_get_duration(VnPayload *self) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), -1);
    double seconds = -1;
    if (self->handle == NULL || vn_payload_get_duration_s(self->handle, &seconds) != VN_OK) return -1;
    return seconds;
}

gdouble *vng_payload_get_waveform(VnPayload *self, gsize *n_values) {
    g_return_val_if_fail(n_values != NULL, NULL);
    *n_values = 0;
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), NULL);
    size_t count = 0;
    if (self->handle == NULL || vn_payload_get_waveform(self->handle, NULL, 0, &count) != VN_OK || count == 0)
        return NULL;
    gdouble *values = g_new(gdouble, count);
    if (vn_payload_get_waveform(self->handle, values, count, &count) != VN_OK) {
        g_free(values);
        return NULL;
    }
    *n_values = count;
    return values;
}

gchar *vng_payload_get_extra_data(VnPayload *self) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), NULL);
    char *json = NULL;
    if (self->handle == NULL || vn_payload_copy_extra_data(self->handle, &json) != VN_OK) return g_strdup("{}");
    return take_library_string(json);
}

gboolean vng_payload_get_is_voice(VnPayload *self) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), FALSE);
    return self->is_voice;
}

gboolean vng_payload_set_text(VnPayload *self, const gchar *property, const gchar *text, GError **error) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), FALSE);
    g_return_val_if_fail(property != NULL, FALSE);
    GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(self), property);
    const TextField *field = pspec != NULL ? text_field_for(pspec->param_id) : NULL;
    if (field == NULL) {
        g_set_error(error, VN_ERROR, VN_ERROR_INVALID_ARG, "VnPayload has no text property \"%s\"", property);
        return FALSE;
    }
    gchar *before = copy_field(self, field->field);
    gboolean ok = vng_error_set_from_status(error, vn_payload_set_field(self->handle, field->field, text));
    if (ok && g_strcmp0(before, text) != 0) g_object_notify_by_pspec(G_OBJECT(self), pspec);
    g_free(before);
    return ok;
}

void vng_payload_set_file_size(VnPayload *self, gint64 bytes) {
    g_return_if_fail(VNG_IS_PAYLOAD(self));
    gint64 before = vng_payload_get_file_size(self);
    vn_payload_set_file_size(self->handle, bytes < 0 ? -1 : bytes);
    if (vng_payload_get_file_size(self) != before) g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_FILE_SIZE]);
}

gboolean vng_payload_set_duration(VnPayload *self, gdouble seconds, GError **error) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), FALSE);
    gdouble before = vng_payload_get_duration(self);
    if (!vng_error_set_from_status(error, vn_payload_set_duration_s(self->handle, seconds))) return FALSE;
    if (vng_payload_get_duration(self) != before) g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_DURATION]);
    return TRUE;
}

gboolean vng_payload_set_waveform(VnPayload *self, const gdouble *values, gsize n_values, GError **error) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), FALSE);
    return vng_error_set_from_status(error, vn_payload_set_waveform(self->handle, values, n_values));
}

gboolean vng_payload_set_extra_data(VnPayload *self, const gchar *json, GError **error) {
    g_return_val_if_fail(VNG_IS_PAYLOAD(self), FALSE);
    gchar *before = vng_payload_get_extra_data(self);
    gboolean ok = vng_error_set_from_status(error, vn_payload_set_extra_data(self->handle, json));
    gchar *after = ok ? vng_payload_get_extra_data(self) : NULL;
    if (ok && g_strcmp0(before, after) != 0) g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_EXTRA_DATA]);
    g_free(before);
    g_free(after);
    return ok;
}

/* The payload under a VnPayload, for the classes that take one (VnUploader). */
vn_payload *vng_payload_handle(VnPayload *payload) {
    return payload->handle;
}
