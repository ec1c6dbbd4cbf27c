/*
 * vn-voice-message.c: VnVoiceMessage, a row of a play/pause button, a VnWaveform, a time label and a speed button
 * over a VnPlayer that follows the player only while the row's note is the player's item; it reads the note's
 * waveform itself when the application gives none, and shows a spinner while loading and an error after a failure.
 */
#include "vn-voice-message.h"
#include "vn-i18n.h"

#include "vn-fallback-css.h"

#include <math.h>

/* The longest duration a row takes: a day (a voice note is minutes; this only keeps the number sane). */
#define MAXIMUM_DURATION 86400.0
/* How many values the row reads from a note that came without a waveform: what voice messages carry. */
#define READ_SAMPLES 100

/* Every text the row shows or gives assistive technologies, in one place, translated (vn-i18n.h). */
#define TEXT_PLAY _("Play")
#define TEXT_PAUSE _("Pause")
#define TEXT_RETRY _("Retry")
#define TEXT_LOADING _("Loading")
#define TEXT_FAILED _("Can't play this voice message")
/* Translators: the name of the error icon of a voice message that cannot be played. */
#define TEXT_ERROR _("Error")
/* Translators: a playback speed on its button; %s is the number ("1.5", with a point in every language). */
#define TEXT_RATE _("%sx")
/* Translators: the speed button's name for screen readers; %s is the speed as its button shows it ("1.5x"). */
#define TEXT_PLAYBACK_SPEED _("Playback speed %s")
/* Translators: a voice message's name for screen readers; %s is its duration as m:ss. */
#define TEXT_VOICE_MESSAGE _("Voice message, %s")
/* Translators: a voice message's state for screen readers; %s is the position as m:ss. */
#define TEXT_PLAYING_AT _("playing at %s")
/* Translators: a voice message's state for screen readers; %s is the position as m:ss. */
#define TEXT_PAUSED_AT _("paused at %s")
/* Translators: a voice message's state for screen readers while its audio or waveform is being fetched. */
#define TEXT_LOADING_DESCRIPTION _("loading")
/* Translators: %s is the error's message, as the library gives it (in English). */
#define TEXT_FAILED_DESCRIPTION _("Can't play this voice message: %s")
/* The default look, under every theme and application stylesheet: the failure's icon and text in the theme's error
 * colour (Adwaita's, libadwaita's). */
static const char DEFAULT_CSS[] = "voicemessage > .failure { color: @error_color; }\n";

/* The speeds the speed button steps through, in order; any other rate steps to the first. */
static const gdouble RATES[] = {1.0, 1.5, 2.0, 0.5};

struct _VnVoiceMessage {
    GtkWidget parent_instance;
    GtkWidget *play_button;
    GtkWidget *spinner;     /* beside the play button, shown while loading */
    VnWaveform *waveform;
    GtkWidget *failure;       /* in the waveform's place after a failure: an error icon and a short text */
    GtkWidget *failure_label; /* its text, whose tooltip is the error's message */
    GtkWidget *time_label;
    GtkWidget *rate_button;
    VnPlayer *player; /* a reference; NULL when none */
    gulong player_handlers[6];
    gchar *location;
    VnHttpOptions *http_options; /* how an http(s) location is requested (a reference), or NULL */
    gdouble duration;
    gdouble pending_seek; /* a seek on the waveform before the note was the player's item (0…1), or -1 */
    gboolean followed;    /* whether the last update showed the player's state (the note was its item) */
    GCancellable *reading;   /* the waveform read in flight (vng_waveform_async), or NULL */
    gboolean values_read;    /* the waveform's values are the row's read, not the application's */
    gboolean setting_values; /* the row is setting them (its own notify::values is not the application's) */
    GError *read_error;      /* why the waveform could not be read, or NULL */
    GError *player_error;    /* the player's `failed` for this note, or NULL */
};

enum { PROP_0, PROP_PLAYER, PROP_LOCATION, PROP_HTTP_OPTIONS, PROP_DURATION, N_PROPS };
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE(VnVoiceMessage, vngtk_voice_message, GTK_TYPE_WIDGET)

/* ------------------------------------------------------------------------------------------------------------ */
/* Showing the state */

/* m:ss of whole seconds (rounded down); NaN and negatives are 0:00. */
static gchar *format_time(gdouble seconds) {
    guint64 whole = seconds > 0 ? (guint64)floor(MIN(seconds, MAXIMUM_DURATION)) : 0;
    return g_strdup_printf("%" G_GUINT64_FORMAT ":%02u", whole / 60, (guint)(whole % 60));
}

/* "1x", "1.5x": the C locale's decimal point, as the labels are compared and read the same everywhere. */
static gchar *format_rate(gdouble rate) {
    gchar number[G_ASCII_DTOSTR_BUF_SIZE];
    return g_strdup_printf(TEXT_RATE, g_ascii_formatd(number, sizeof number, "%g", rate));
}

static gboolean is_players_item(VnVoiceMessage *self) {
    return self->player != NULL && self->location != NULL &&
           g_strcmp0(vng_player_get_location(self->player), self->location) == 0;
}

static void report(const gchar *what, GError *error) {
    g_warning("VnVoiceMessage: %s: %s", what, error->message);
    g_error_free(error);
}

static void update_rate(VnVoiceMessage *self) {
    gdouble rate = self->player != NULL ? vng_player_get_rate(self->player) : 1.0;
    gchar *text = format_rate(rate);
    gchar *label = g_strdup_printf(TEXT_PLAYBACK_SPEED, text);
    gtk_button_set_label(GTK_BUTTON(self->rate_button), text);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->rate_button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    g_free(label);
    g_free(text);
}

/* Loading: the row's waveform read is in flight, or the player is loading the row's note. */
static gboolean is_loading(VnVoiceMessage *self) {
    return self->reading != NULL ||
           (is_players_item(self) && vng_player_get_state(self->player) == VN_PLAYER_STATE_LOADING);
}

/* The failure shown, the player's first (it is about playing), or NULL. */
static const GError *shown_failure(VnVoiceMessage *self) {
    return self->player_error != NULL ? self->player_error : self->read_error;
}

/* The row after a failure: the play button retries, the error icon and text take the waveform's place, the
 * description says why. Returns the description. */
static gchar *show_failure(VnVoiceMessage *self, const GError *failure) {
    gtk_button_set_icon_name(GTK_BUTTON(self->play_button), "view-refresh-symbolic");
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->play_button), GTK_ACCESSIBLE_PROPERTY_LABEL, TEXT_RETRY, -1);
    gtk_widget_set_tooltip_text(self->failure_label, failure->message);
    return g_strdup_printf(TEXT_FAILED_DESCRIPTION, failure->message);
}

/* Shows the player's state when the note is its item, else the note at rest (Play, the start, the duration); a
 * spinner while loading, the error after a failure. */
static void update(VnVoiceMessage *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    gboolean item = is_players_item(self);
    VnPlayerState state = item ? vng_player_get_state(self->player) : VN_PLAYER_STATE_NOT_LOADED;
    gboolean playing = state == VN_PLAYER_STATE_PLAYING;
    gboolean under_way = playing || state == VN_PLAYER_STATE_PAUSED;
    gdouble duration = item && vng_player_get_duration(self->player) > 0 ? vng_player_get_duration(self->player)
                                                                         : self->duration;
    gdouble position = under_way ? vng_player_get_position(self->player) : 0;
    const GError *failure = shown_failure(self);
    gboolean loading = failure == NULL && is_loading(self);
    self->followed = item;

    gtk_widget_set_visible(self->spinner, loading);
    gtk_spinner_set_spinning(GTK_SPINNER(self->spinner), loading);
    gtk_accessible_update_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_BUSY, loading, -1);
    gtk_widget_set_visible(GTK_WIDGET(self->waveform), failure == NULL);
    gtk_widget_set_visible(self->failure, failure != NULL);

    gchar *description = NULL;
    gchar *shown = format_time(under_way ? position : duration);
    if (failure != NULL) {
        description = show_failure(self, failure);
    } else {
        gtk_button_set_icon_name(GTK_BUTTON(self->play_button),
                                 playing ? "media-playback-pause-symbolic" : "media-playback-start-symbolic");
        gtk_accessible_update_property(GTK_ACCESSIBLE(self->play_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       playing ? TEXT_PAUSE : TEXT_PLAY, -1);
        if (under_way) description = g_strdup_printf(playing ? TEXT_PLAYING_AT : TEXT_PAUSED_AT, shown);
        else if (loading) description = g_strdup(TEXT_LOADING_DESCRIPTION);
    }
    /* A failed read is retried without a player. */
    gtk_widget_set_sensitive(self->play_button, self->location != NULL && (self->player != NULL || failure != NULL));
    gtk_widget_set_sensitive(self->rate_button, self->player != NULL);

    gtk_label_set_text(GTK_LABEL(self->time_label), shown);
    if (under_way)
        vngtk_waveform_set_position(self->waveform, duration > 0 ? position / duration : 0);
    else
        vngtk_waveform_set_position(self->waveform, self->pending_seek >= 0 ? self->pending_seek : 0);

    gchar *length = format_time(self->duration > 0 ? self->duration : duration);
    gchar *label = g_strdup_printf(TEXT_VOICE_MESSAGE, length);
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    if (description != NULL)
        gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
    else
        gtk_accessible_reset_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
    g_free(description);
    g_free(label);
    g_free(length);
    g_free(shown);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The waveform read from the note (when the application gives none) */

static void cancel_read(VnVoiceMessage *self) {
    if (self->reading == NULL) return;
    g_cancellable_cancel(self->reading);
    g_clear_object(&self->reading);
}

static void set_read_values(VnVoiceMessage *self, const gfloat *values, gsize n_values) {
    self->setting_values = TRUE;
    vngtk_waveform_set_values(self->waveform, values, n_values);
    self->setting_values = FALSE;
    self->values_read = n_values > 0;
}

/* The read's end, on the main context of the thread that started it. A cancelled read (the row disposed, or its
 * location changed or the application set values meanwhile) never touches the row: it may be gone. GTask gives
 * G_IO_ERROR_CANCELLED whenever the cancellable was cancelled before this runs, also after a read that got to its
 * end. */
static void on_waveform_read(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    gsize n_values = 0;
    GError *error = NULL;
    gfloat *values = vng_waveform_finish(result, &n_values, &error);
    if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
        g_error_free(error);
        return;
    }
    VnVoiceMessage *self = data;
    g_clear_object(&self->reading);
    if (values != NULL) set_read_values(self, values, n_values);
    else self->read_error = error;
    g_free(values);
    update(self);
}

/* Starts reading the waveform from the note when the row is realized, has a location, has no values (the
 * application gave none) and no read is in flight or has failed. */
static void read_waveform_if_needed(VnVoiceMessage *self) {
    gsize n_values = 0;
    if (!gtk_widget_get_realized(GTK_WIDGET(self)) || self->location == NULL || self->reading != NULL ||
        self->read_error != NULL)
        return;
    vngtk_waveform_get_values(self->waveform, &n_values);
    if (n_values > 0) return;
    self->reading = g_cancellable_new();
    vng_waveform_async(self->location, READ_SAMPLES, self->http_options, self->reading, on_waveform_read, self);
    update(self);
}

/* The application set values: they win over the row's read (cancelled, its failure forgotten). */
static void on_values_changed(VnWaveform *waveform, GParamSpec *pspec, VnVoiceMessage *self) {
    (void)pspec;
    gsize n_values = 0;
    if (self->setting_values || vngtk_waveform_get_values(waveform, &n_values) == NULL || n_values == 0) return;
    self->values_read = FALSE;
    gboolean changed = self->reading != NULL || self->read_error != NULL;
    cancel_read(self);
    g_clear_error(&self->read_error);
    if (changed) update(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The player's side */

/* A seek asked for before the note was the player's item, carried out once it is loaded there. */
static void apply_pending_seek(VnVoiceMessage *self) {
    VnPlayerState state = vng_player_get_state(self->player);
    gdouble duration = vng_player_get_duration(self->player);
    if (self->pending_seek < 0 || (state != VN_PLAYER_STATE_PLAYING && state != VN_PLAYER_STATE_PAUSED) ||
        duration <= 0)
        return;
    gdouble fraction = self->pending_seek;
    self->pending_seek = -1;
    GError *error = NULL;
    if (!vng_player_seek(self->player, fraction * duration, &error)) report("seek", error);
}

/* location, state, duration, position: the row follows them while the note is the player's item, and shows the
 * note at rest once when it stops being it. */
static void on_player_changed(VnPlayer *player, GParamSpec *pspec, VnVoiceMessage *self) {
    (void)player, (void)pspec;
    if (is_players_item(self)) {
        if (vng_player_get_state(self->player) != VN_PLAYER_STATE_NOT_LOADED) g_clear_error(&self->player_error);
        apply_pending_seek(self);
        update(self);
    } else if (self->followed) {
        update(self);
    }
}

/* A load, decode or device failure of the player's item: the row's when the item is its note. */
static void on_player_failed(VnPlayer *player, const GError *error, VnVoiceMessage *self) {
    (void)player;
    if (!is_players_item(self)) return;
    g_clear_error(&self->player_error);
    self->player_error = g_error_copy(error);
    update(self);
}

static void on_rate_changed(VnPlayer *player, GParamSpec *pspec, VnVoiceMessage *self) {
    (void)player, (void)pspec;
    update_rate(self);
}

static void disconnect_player(VnVoiceMessage *self) {
    if (self->player == NULL) return;
    for (guint i = 0; i < G_N_ELEMENTS(self->player_handlers); i++)
        g_clear_signal_handler(&self->player_handlers[i], self->player);
    g_clear_object(&self->player);
    g_clear_error(&self->player_error);
}

void vngtk_voice_message_set_player(VnVoiceMessage *self, VnPlayer *player) {
    g_return_if_fail(VNGTK_IS_VOICE_MESSAGE(self));
    g_return_if_fail(player == NULL || VNG_IS_PLAYER(player));
    if (player == self->player) return;
    disconnect_player(self);
    if (player != NULL) {
        static const char *const followed[] = {"notify::location", "notify::state", "notify::duration",
                                               "notify::position"};
        self->player = g_object_ref(player);
        for (guint i = 0; i < G_N_ELEMENTS(followed); i++)
            self->player_handlers[i] = g_signal_connect(player, followed[i], G_CALLBACK(on_player_changed), self);
        self->player_handlers[4] = g_signal_connect(player, "notify::rate", G_CALLBACK(on_rate_changed), self);
        self->player_handlers[5] = g_signal_connect(player, "failed", G_CALLBACK(on_player_failed), self);
    }
    update(self);
    update_rate(self);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_PLAYER]);
}

VnPlayer *vngtk_voice_message_get_player(VnVoiceMessage *self) {
    g_return_val_if_fail(VNGTK_IS_VOICE_MESSAGE(self), NULL);
    return self->player;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The user's side */

static gboolean is_http_url(const gchar *location) {
    return g_ascii_strncasecmp(location, "http://", 7) == 0 || g_ascii_strncasecmp(location, "https://", 8) == 0;
}

static void load_note(VnVoiceMessage *self) {
    GError *error = NULL;
    gdouble hint = self->duration > 0 ? self->duration : -1;
    gboolean loaded = self->http_options != NULL && is_http_url(self->location)
                          ? vng_player_load_url(self->player, self->location, self->http_options, NULL, TRUE, hint,
                                                &error)
                          : vng_player_load(self->player, self->location, TRUE, hint, &error);
    if (!loaded) report("load", error);
}

/* After a failure the play button retries what failed: the waveform read, the player's load (playing once loaded,
 * as the click that failed asked). */
static void retry(VnVoiceMessage *self) {
    gboolean reload = self->player_error != NULL;
    g_clear_error(&self->player_error);
    g_clear_error(&self->read_error);
    read_waveform_if_needed(self);
    if (reload) load_note(self);
    update(self);
}

static void on_play_clicked(GtkButton *button, VnVoiceMessage *self) {
    (void)button;
    if (self->location == NULL) return;
    if (shown_failure(self) != NULL) {
        retry(self);
        return;
    }
    if (self->player == NULL) return;
    GError *error = NULL;
    VnPlayerState state = vng_player_get_state(self->player);
    if (!is_players_item(self) || state == VN_PLAYER_STATE_NOT_LOADED) {
        load_note(self);
    } else if (state == VN_PLAYER_STATE_PLAYING) {
        if (!vng_player_pause(self->player, &error)) report("pause", error);
    } else if (!vng_player_play(self->player, &error)) {
        report("play", error);
    }
}

static void on_rate_clicked(GtkButton *button, VnVoiceMessage *self) {
    (void)button;
    if (self->player == NULL) return;
    gdouble rate = vng_player_get_rate(self->player), next = RATES[0];
    for (guint i = 0; i < G_N_ELEMENTS(RATES); i++)
        if (fabs(rate - RATES[i]) < 1e-6) next = RATES[(i + 1) % G_N_ELEMENTS(RATES)];
    GError *error = NULL;
    if (!vng_player_set_rate(self->player, next, &error)) report("rate", error);
}

/* The waveform's seek: the player's, when the note is its item and loaded; else where the note will start. */
static void on_seek(VnWaveform *waveform, gdouble fraction, VnVoiceMessage *self) {
    (void)waveform;
    VnPlayerState state = is_players_item(self) ? vng_player_get_state(self->player) : VN_PLAYER_STATE_NOT_LOADED;
    gdouble duration = self->player != NULL ? vng_player_get_duration(self->player) : 0;
    if (state == VN_PLAYER_STATE_NOT_LOADED || state == VN_PLAYER_STATE_LOADING || duration <= 0) {
        self->pending_seek = fraction;
        return;
    }
    GError *error = NULL;
    if (!vng_player_seek(self->player, fraction * duration, &error)) report("seek", error);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Note */

void vngtk_voice_message_set_location(VnVoiceMessage *self, const gchar *location) {
    g_return_if_fail(VNGTK_IS_VOICE_MESSAGE(self));
    if (g_strcmp0(location, self->location) == 0) return;
    g_free(self->location);
    self->location = g_strdup(location);
    self->pending_seek = -1;
    /* The old note's read, failures and read values are not this one's. */
    cancel_read(self);
    g_clear_error(&self->read_error);
    g_clear_error(&self->player_error);
    if (self->values_read) set_read_values(self, NULL, 0);
    read_waveform_if_needed(self);
    update(self);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LOCATION]);
}

const gchar *vngtk_voice_message_get_location(VnVoiceMessage *self) {
    g_return_val_if_fail(VNGTK_IS_VOICE_MESSAGE(self), NULL);
    return self->location;
}

void vngtk_voice_message_set_http_options(VnVoiceMessage *self, VnHttpOptions *http_options) {
    g_return_if_fail(VNGTK_IS_VOICE_MESSAGE(self));
    g_return_if_fail(http_options == NULL || VNG_IS_HTTP_OPTIONS(http_options));
    if (!g_set_object(&self->http_options, http_options)) return;
    /* A read that failed without them (a 401) may succeed with them: read again. */
    if (self->read_error != NULL && self->reading == NULL) {
        g_clear_error(&self->read_error);
        read_waveform_if_needed(self);
        update(self);
    }
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_HTTP_OPTIONS]);
}

VnHttpOptions *vngtk_voice_message_get_http_options(VnVoiceMessage *self) {
    g_return_val_if_fail(VNGTK_IS_VOICE_MESSAGE(self), NULL);
    return self->http_options;
}

void vngtk_voice_message_set_duration(VnVoiceMessage *self, gdouble duration) {
    g_return_if_fail(VNGTK_IS_VOICE_MESSAGE(self));
    g_return_if_fail(duration >= 0 && duration <= MAXIMUM_DURATION); /* NaN fails both */
    if (duration == self->duration) return;
    self->duration = duration;
    update(self);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_DURATION]);
}

gdouble vngtk_voice_message_get_duration(VnVoiceMessage *self) {
    g_return_val_if_fail(VNGTK_IS_VOICE_MESSAGE(self), 0);
    return self->duration;
}

VnWaveform *vngtk_voice_message_get_waveform(VnVoiceMessage *self) {
    g_return_val_if_fail(VNGTK_IS_VOICE_MESSAGE(self), NULL);
    return self->waveform;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* GObject */

static void vngtk_voice_message_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    VnVoiceMessage *self = VNGTK_VOICE_MESSAGE(object);
    switch (id) {
    case PROP_PLAYER: g_value_set_object(value, self->player); break;
    case PROP_LOCATION: g_value_set_string(value, self->location); break;
    case PROP_HTTP_OPTIONS: g_value_set_object(value, self->http_options); break;
    case PROP_DURATION: g_value_set_double(value, self->duration); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vngtk_voice_message_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    VnVoiceMessage *self = VNGTK_VOICE_MESSAGE(object);
    switch (id) {
    case PROP_PLAYER: vngtk_voice_message_set_player(self, g_value_get_object(value)); break;
    case PROP_LOCATION: vngtk_voice_message_set_location(self, g_value_get_string(value)); break;
    case PROP_HTTP_OPTIONS: vngtk_voice_message_set_http_options(self, g_value_get_object(value)); break;
    case PROP_DURATION: vngtk_voice_message_set_duration(self, g_value_get_double(value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vngtk_voice_message_realize(GtkWidget *widget) {
    GTK_WIDGET_CLASS(vngtk_voice_message_parent_class)->realize(widget);
    read_waveform_if_needed(VNGTK_VOICE_MESSAGE(widget));
}

static void vngtk_voice_message_root(GtkWidget *widget) {
    GTK_WIDGET_CLASS(vngtk_voice_message_parent_class)->root(widget);
    fallback_css_install(gtk_widget_get_display(widget), "vngtk-voice-message-default-css", DEFAULT_CSS, NULL);
}

static void vngtk_voice_message_dispose(GObject *object) {
    VnVoiceMessage *self = VNGTK_VOICE_MESSAGE(object);
    cancel_read(self); /* its callback then leaves the row alone */
    disconnect_player(self);
    g_clear_pointer(&self->play_button, gtk_widget_unparent);
    g_clear_pointer(&self->spinner, gtk_widget_unparent);
    if (self->waveform != NULL) {
        g_signal_handlers_disconnect_by_data(self->waveform, self);
        gtk_widget_unparent(GTK_WIDGET(self->waveform));
        self->waveform = NULL;
    }
    g_clear_pointer(&self->failure, gtk_widget_unparent);
    self->failure_label = NULL; /* the failure's child */
    g_clear_pointer(&self->time_label, gtk_widget_unparent);
    g_clear_pointer(&self->rate_button, gtk_widget_unparent);
    g_clear_object(&self->http_options);
    G_OBJECT_CLASS(vngtk_voice_message_parent_class)->dispose(object);
}

static void vngtk_voice_message_finalize(GObject *object) {
    VnVoiceMessage *self = VNGTK_VOICE_MESSAGE(object);
    g_free(self->location);
    g_clear_error(&self->read_error);
    G_OBJECT_CLASS(vngtk_voice_message_parent_class)->finalize(object);
}

static void vngtk_voice_message_class_init(VnVoiceMessageClass *klass) {
    i18n_bind();
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->get_property = vngtk_voice_message_get_property;
    object_class->set_property = vngtk_voice_message_set_property;
    object_class->dispose = vngtk_voice_message_dispose;
    object_class->finalize = vngtk_voice_message_finalize;
    widget_class->realize = vngtk_voice_message_realize;
    widget_class->root = vngtk_voice_message_root;

    /**
     * VnVoiceMessage:player:
     *
     * The player the note plays with; rows may share one. %NULL makes the buttons insensitive.
     */
    properties[PROP_PLAYER] = g_param_spec_object("player", NULL, NULL, VNG_TYPE_PLAYER,
                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    /**
     * VnVoiceMessage:location:
     *
     * The note's location (a path, a `file://` or http(s) URL), as given to [method@Voicenote.Player.load] and compared
     * with [property@Voicenote.Player:location].
     */
    properties[PROP_LOCATION] = g_param_spec_string("location", NULL, NULL, NULL,
                                                    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                        G_PARAM_STATIC_STRINGS);
    /**
     * VnVoiceMessage:http-options:
     *
     * How an http(s) [property@VoicenoteGtk.VoiceMessage:location] is requested — its waveform read and the player's
     * load ([method@Voicenote.Player.load_url]): request headers such as Matrix's `Authorization: Bearer` for
     * authenticated media, CA file, timeouts, size limit — or %NULL for libvoicenote's defaults. Each request takes
     * the options as they are when it starts. Set after a read failed (a 401 without the token), the row reads again.
     */
    properties[PROP_HTTP_OPTIONS] = g_param_spec_object("http-options", NULL, NULL, VNG_TYPE_HTTP_OPTIONS,
                                                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                            G_PARAM_STATIC_STRINGS);
    /**
     * VnVoiceMessage:duration:
     *
     * The note's duration in seconds, shown while the note is not the player's item and given to the load as its
     * hint.
     */
    properties[PROP_DURATION] = g_param_spec_double("duration", NULL, NULL, 0, MAXIMUM_DURATION, 0,
                                                    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                        G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    gtk_widget_class_set_css_name(widget_class, "voicemessage");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BOX_LAYOUT);
}

static GtkWidget *round_button(GtkWidget *button, VnVoiceMessage *self) {
    gtk_widget_add_css_class(button, "flat");
    gtk_widget_add_css_class(button, "circular");
    gtk_widget_set_valign(button, GTK_ALIGN_CENTER);
    gtk_widget_set_parent(button, GTK_WIDGET(self));
    return button;
}

static void vngtk_voice_message_init(VnVoiceMessage *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    self->pending_seek = -1;
    gtk_box_layout_set_spacing(GTK_BOX_LAYOUT(gtk_widget_get_layout_manager(widget)), 6);

    self->play_button = round_button(gtk_button_new_from_icon_name("media-playback-start-symbolic"), self);
    g_signal_connect(self->play_button, "clicked", G_CALLBACK(on_play_clicked), self);

    self->spinner = gtk_spinner_new();
    gtk_widget_set_visible(self->spinner, FALSE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->spinner), GTK_ACCESSIBLE_PROPERTY_LABEL, TEXT_LOADING, -1);
    gtk_widget_set_parent(self->spinner, widget);

    self->waveform = VNGTK_WAVEFORM(vngtk_waveform_new());
    gtk_widget_set_hexpand(GTK_WIDGET(self->waveform), TRUE);
    gtk_widget_set_valign(GTK_WIDGET(self->waveform), GTK_ALIGN_CENTER);
    gtk_widget_set_parent(GTK_WIDGET(self->waveform), widget);
    g_signal_connect(self->waveform, "seek", G_CALLBACK(on_seek), self);
    g_signal_connect(self->waveform, "notify::values", G_CALLBACK(on_values_changed), self);

    self->failure = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_add_css_class(self->failure, "failure");
    gtk_widget_set_hexpand(self->failure, TRUE);
    GtkWidget *icon = gtk_image_new_from_icon_name("dialog-error-symbolic");
    gtk_accessible_update_property(GTK_ACCESSIBLE(icon), GTK_ACCESSIBLE_PROPERTY_LABEL, TEXT_ERROR, -1);
    gtk_box_append(GTK_BOX(self->failure), icon);
    self->failure_label = gtk_label_new(TEXT_FAILED);
    gtk_widget_add_css_class(self->failure_label, "error"); /* themes that colour only `label.error` */
    gtk_label_set_xalign(GTK_LABEL(self->failure_label), 0);
    gtk_label_set_ellipsize(GTK_LABEL(self->failure_label), PANGO_ELLIPSIZE_END);
    gtk_box_append(GTK_BOX(self->failure), self->failure_label);
    gtk_widget_set_visible(self->failure, FALSE);
    gtk_widget_set_parent(self->failure, widget);

    self->time_label = gtk_label_new(NULL);
    gtk_widget_add_css_class(self->time_label, "numeric");
    gtk_widget_add_css_class(self->time_label, "dim-label");
    gtk_widget_set_parent(self->time_label, widget);

    self->rate_button = round_button(gtk_button_new_with_label("1x"), self);
    g_signal_connect(self->rate_button, "clicked", G_CALLBACK(on_rate_clicked), self);

    update(self);
    update_rate(self);
}

GtkWidget *vngtk_voice_message_new(VnPlayer *player, const gchar *location, gdouble duration) {
    g_return_val_if_fail(player == NULL || VNG_IS_PLAYER(player), NULL);
    g_return_val_if_fail(duration >= 0 && duration <= MAXIMUM_DURATION, NULL);
    return g_object_new(VNGTK_TYPE_VOICE_MESSAGE, "player", player, "location", location, "duration", duration, NULL);
}
