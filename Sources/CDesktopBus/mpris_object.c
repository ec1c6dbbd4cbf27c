/* The MPRIS 2 player object (https://specifications.freedesktop.org/mpris-spec/latest/): /org/mpris/MediaPlayer2
 * with the root interface (identity, desktop entry; no raise, no quit, no track list) and the Player interface
 * (status, metadata, rate, volume, position; Play, Pause, PlayPause, Stop, Next, Previous, Seek, SetPosition; the
 * Seeked signal). The properties show the last state given (vnbus_mpris_update), but Position, read from the player
 * at each Get; the methods become the hooks' commands. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "bus_internal.h"
#include "desktop_bus.h"

#define OBJECT_PATH "/org/mpris/MediaPlayer2"
#define ROOT_INTERFACE "org.mpris.MediaPlayer2"
#define PLAYER_INTERFACE "org.mpris.MediaPlayer2.Player"
#define TRACK_PREFIX "/org/voicenote/track/"
#define MINIMUM_RATE 0.5
#define MAXIMUM_RATE 2.5

struct vnbus_mpris {
    vnbus_connection *connection;
    sd_bus_slot *root_slot, *player_slot;
    char *identity, *desktop_entry;
    vnbus_mpris_hooks hooks;
    vnbus_mpris_state shown; /* its strings owned here */
    int shown_once;          /* `shown` was set by an update */
};

static char *copy_text(const char *text) { return strdup(text != NULL ? text : ""); }

static void free_shown(vnbus_mpris *mpris) {
    free((char *)mpris->shown.title);
    free((char *)mpris->shown.artist);
    free((char *)mpris->shown.url);
    free((char *)mpris->shown.art_url);
}

static const char *status_text(int status) {
    return status == VNBUS_MPRIS_PLAYING ? "Playing" : status == VNBUS_MPRIS_PAUSED ? "Paused" : "Stopped";
}

static int64_t microseconds(double seconds) {
    if (!isfinite(seconds) || seconds <= 0) return 0;
    return seconds >= 9.2e12 ? INT64_MAX : (int64_t)llround(seconds * 1e6);
}

static void track_path(const vnbus_mpris *mpris, char *out, size_t size) {
    snprintf(out, size, TRACK_PREFIX "%" PRIu64, mpris->shown.track);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Properties */

static int append_entry(sd_bus_message *reply, const char *key, char type, const void *value) {
    char signature[2] = {type, '\0'};
    int status = sd_bus_message_open_container(reply, 'e', "sv");
    if (status >= 0) status = sd_bus_message_append_basic(reply, 's', key);
    if (status >= 0) status = sd_bus_message_open_container(reply, 'v', signature);
    if (status >= 0) status = sd_bus_message_append_basic(reply, type, value);
    if (status >= 0) status = sd_bus_message_close_container(reply);
    if (status >= 0) status = sd_bus_message_close_container(reply);
    return status;
}

static int append_metadata(sd_bus_message *reply, const vnbus_mpris *mpris) {
    char track[64];
    track_path(mpris, track, sizeof track);
    int status = sd_bus_message_open_container(reply, 'a', "{sv}");
    if (status >= 0) status = append_entry(reply, "mpris:trackid", 'o', track);
    int64_t length = microseconds(mpris->shown.length);
    if (status >= 0 && length > 0) status = append_entry(reply, "mpris:length", 'x', &length);
    if (status >= 0 && mpris->shown.title[0] != '\0') status = append_entry(reply, "xesam:title", 's', mpris->shown.title);
    if (status >= 0 && mpris->shown.url[0] != '\0') status = append_entry(reply, "xesam:url", 's', mpris->shown.url);
    if (status >= 0 && mpris->shown.art_url[0] != '\0')
        status = append_entry(reply, "mpris:artUrl", 's', mpris->shown.art_url);
    if (status >= 0 && mpris->shown.artist[0] != '\0') {
        /* xesam:artist is a list of names: one, the sender. */
        char *artists[] = {(char *)mpris->shown.artist, NULL};
        status = sd_bus_message_open_container(reply, 'e', "sv");
        if (status >= 0) status = sd_bus_message_append_basic(reply, 's', "xesam:artist");
        if (status >= 0) status = sd_bus_message_open_container(reply, 'v', "as");
        if (status >= 0) status = sd_bus_message_append_strv(reply, artists);
        if (status >= 0) status = sd_bus_message_close_container(reply);
        if (status >= 0) status = sd_bus_message_close_container(reply);
    }
    if (status >= 0) status = sd_bus_message_close_container(reply);
    return status;
}

static int append_boolean(sd_bus_message *reply, int value) {
    int flag = value != 0;
    return sd_bus_message_append_basic(reply, 'b', &flag);
}

static int append_double(sd_bus_message *reply, double value) { return sd_bus_message_append_basic(reply, 'd', &value); }

static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus;
    (void)path;
    (void)interface;
    (void)error;
    vnbus_mpris *mpris = userdata;
    const vnbus_mpris_state *shown = &mpris->shown;
    if (!strcmp(property, "Identity")) return sd_bus_message_append_basic(reply, 's', mpris->identity);
    if (!strcmp(property, "DesktopEntry")) return sd_bus_message_append_basic(reply, 's', mpris->desktop_entry);
    if (!strcmp(property, "CanQuit") || !strcmp(property, "CanRaise") || !strcmp(property, "HasTrackList"))
        return append_boolean(reply, 0);
    if (!strcmp(property, "SupportedUriSchemes") || !strcmp(property, "SupportedMimeTypes")) {
        char *none[] = {NULL};
        return sd_bus_message_append_strv(reply, none);
    }
    if (!strcmp(property, "PlaybackStatus")) return sd_bus_message_append_basic(reply, 's', status_text(shown->status));
    if (!strcmp(property, "Rate")) return append_double(reply, shown->rate);
    if (!strcmp(property, "Volume")) return append_double(reply, shown->volume);
    if (!strcmp(property, "MinimumRate")) return append_double(reply, MINIMUM_RATE);
    if (!strcmp(property, "MaximumRate")) return append_double(reply, MAXIMUM_RATE);
    if (!strcmp(property, "Metadata")) return append_metadata(reply, mpris);
    if (!strcmp(property, "Position")) {
        int64_t position = microseconds(mpris->hooks.position(mpris->hooks.context));
        return sd_bus_message_append_basic(reply, 'x', &position);
    }
    if (!strcmp(property, "CanGoNext")) return append_boolean(reply, shown->can_go_next);
    if (!strcmp(property, "CanGoPrevious")) return append_boolean(reply, shown->can_go_previous);
    if (!strcmp(property, "CanSeek")) return append_boolean(reply, shown->can_seek);
    if (!strcmp(property, "CanPlay") || !strcmp(property, "CanPause") || !strcmp(property, "CanControl"))
        return append_boolean(reply, 1);
    return -ENOENT;
}

static int command(vnbus_mpris *mpris, int what, double value, sd_bus_error *error) {
    int status = mpris->hooks.command(mpris->hooks.context, what, value);
    if (status < 0) return sd_bus_error_set(error, "org.mpris.MediaPlayer2.Error.Failed", "the player refused");
    return 0;
}

static int set_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus;
    (void)path;
    (void)interface;
    double number = 0;
    int status = sd_bus_message_read_basic(value, 'd', &number);
    if (status < 0) return status;
    if (!isfinite(number)) return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "not a finite number");
    if (!strcmp(property, "Rate")) {
        /* The spec: a rate outside MinimumRate…MaximumRate is ignored, 0 is a pause. */
        if (number == 0) return command(userdata, VNBUS_MPRIS_PAUSE, 0, error);
        if (number < MINIMUM_RATE || number > MAXIMUM_RATE) return 0;
        return command(userdata, VNBUS_MPRIS_SET_RATE, number, error);
    }
    if (!strcmp(property, "Volume")) return command(userdata, VNBUS_MPRIS_SET_VOLUME, number < 0 ? 0 : number > 1 ? 1 : number, error);
    return -ENOENT;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Methods */

static int reply_empty(sd_bus_message *call) {
    sd_bus_message *reply = NULL;
    int status = sd_bus_message_new_method_return(call, &reply);
    if (status >= 0) status = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    return status;
}

static int method_then_reply(sd_bus_message *call, vnbus_mpris *mpris, int what, double value, sd_bus_error *error) {
    int status = command(mpris, what, value, error);
    return status < 0 ? status : reply_empty(call);
}

static int on_nothing(sd_bus_message *call, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    return reply_empty(call); /* Raise and Quit: CanRaise and CanQuit are false */
}

#define SIMPLE_METHOD(function, what)                                              \
    static int function(sd_bus_message *call, void *userdata, sd_bus_error *error) { \
        return method_then_reply(call, userdata, what, 0, error);                   \
    }
SIMPLE_METHOD(on_play, VNBUS_MPRIS_PLAY)
SIMPLE_METHOD(on_pause, VNBUS_MPRIS_PAUSE)
SIMPLE_METHOD(on_play_pause, VNBUS_MPRIS_PLAY_PAUSE)
SIMPLE_METHOD(on_stop, VNBUS_MPRIS_STOP)
SIMPLE_METHOD(on_next, VNBUS_MPRIS_NEXT)
SIMPLE_METHOD(on_previous, VNBUS_MPRIS_PREVIOUS)
#undef SIMPLE_METHOD

static int on_seek(sd_bus_message *call, void *userdata, sd_bus_error *error) {
    int64_t offset = 0;
    int status = sd_bus_message_read_basic(call, 'x', &offset);
    if (status < 0) return status;
    return method_then_reply(call, userdata, VNBUS_MPRIS_SEEK_BY, (double)offset / 1e6, error);
}

static int on_set_position(sd_bus_message *call, void *userdata, sd_bus_error *error) {
    vnbus_mpris *mpris = userdata;
    const char *track = NULL;
    int64_t position = 0;
    int status = sd_bus_message_read_basic(call, 'o', &track);
    if (status >= 0) status = sd_bus_message_read_basic(call, 'x', &position);
    if (status < 0) return status;
    char current[64];
    track_path(mpris, current, sizeof current);
    /* The spec: a stale track id, or a position outside the track, is ignored. */
    if (strcmp(track, current) != 0 || position < 0 || (mpris->shown.length > 0 && (double)position / 1e6 > mpris->shown.length))
        return reply_empty(call);
    return method_then_reply(call, mpris, VNBUS_MPRIS_SET_POSITION, (double)position / 1e6, error);
}

static int on_open_uri(sd_bus_message *call, void *userdata, sd_bus_error *error) {
    (void)call;
    (void)userdata;
    return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED, "voicenote plays the chat's notes only");
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
static const sd_bus_vtable root_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Raise", "", "", on_nothing, 0),
    SD_BUS_METHOD("Quit", "", "", on_nothing, 0),
    SD_BUS_PROPERTY("CanQuit", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanRaise", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("HasTrackList", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Identity", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("DesktopEntry", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable player_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Play", "", "", on_play, 0),
    SD_BUS_METHOD("Pause", "", "", on_pause, 0),
    SD_BUS_METHOD("PlayPause", "", "", on_play_pause, 0),
    SD_BUS_METHOD("Stop", "", "", on_stop, 0),
    SD_BUS_METHOD("Next", "", "", on_next, 0),
    SD_BUS_METHOD("Previous", "", "", on_previous, 0),
    SD_BUS_METHOD("Seek", "x", "", on_seek, 0),
    SD_BUS_METHOD("SetPosition", "ox", "", on_set_position, 0),
    SD_BUS_METHOD("OpenUri", "s", "", on_open_uri, 0),
    SD_BUS_SIGNAL("Seeked", "x", 0),
    SD_BUS_PROPERTY("PlaybackStatus", "s", get_property, 0, EMITS),
    SD_BUS_WRITABLE_PROPERTY("Rate", "d", get_property, set_property, 0, EMITS),
    SD_BUS_PROPERTY("Metadata", "a{sv}", get_property, 0, EMITS),
    SD_BUS_WRITABLE_PROPERTY("Volume", "d", get_property, set_property, 0, EMITS),
    SD_BUS_PROPERTY("Position", "x", get_property, 0, 0), /* read at each Get; no signal (the spec) */
    SD_BUS_PROPERTY("MinimumRate", "d", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("MaximumRate", "d", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanGoNext", "b", get_property, 0, EMITS),
    SD_BUS_PROPERTY("CanGoPrevious", "b", get_property, 0, EMITS),
    SD_BUS_PROPERTY("CanPlay", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanPause", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanSeek", "b", get_property, 0, EMITS),
    SD_BUS_PROPERTY("CanControl", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};
#undef EMITS

/* ------------------------------------------------------------------------------------------------------------ */
/* The object */

int vnbus_mpris_export(vnbus_connection *connection, const char *identity, const char *desktop_entry,
                       const vnbus_mpris_hooks *hooks, vnbus_mpris **out) {
    *out = NULL;
    vnbus_mpris *mpris = calloc(1, sizeof *mpris);
    if (mpris == NULL) return -ENOMEM;
    mpris->connection = connection;
    mpris->hooks = *hooks;
    mpris->identity = copy_text(identity);
    mpris->desktop_entry = copy_text(desktop_entry);
    mpris->shown = (vnbus_mpris_state){.rate = 1, .volume = 1};
    mpris->shown.title = copy_text(NULL);
    mpris->shown.artist = copy_text(NULL);
    mpris->shown.url = copy_text(NULL);
    mpris->shown.art_url = copy_text(NULL);
    int status = mpris->identity && mpris->desktop_entry && mpris->shown.title && mpris->shown.artist &&
                         mpris->shown.url && mpris->shown.art_url
                     ? 0
                     : -ENOMEM;
    if (status >= 0)
        status = sd_bus_add_object_vtable(connection->bus, &mpris->root_slot, OBJECT_PATH, ROOT_INTERFACE, root_vtable, mpris);
    if (status >= 0)
        status = sd_bus_add_object_vtable(connection->bus, &mpris->player_slot, OBJECT_PATH, PLAYER_INTERFACE,
                                          player_vtable, mpris);
    if (status < 0) {
        vnbus_mpris_unexport(mpris);
        return status;
    }
    *out = mpris;
    return 0;
}

static int same_text(const char *a, const char *b) { return strcmp(a, b != NULL ? b : "") == 0; }

int vnbus_mpris_update(vnbus_mpris *mpris, const vnbus_mpris_state *state) {
    const vnbus_mpris_state *old = &mpris->shown;
    int first = !mpris->shown_once;
    char *changed[8];
    size_t count = 0;
    if (first || old->status != state->status) changed[count++] = "PlaybackStatus";
    if (first || old->rate != state->rate) changed[count++] = "Rate";
    if (first || old->volume != state->volume) changed[count++] = "Volume";
    if (first || old->track != state->track || old->length != state->length || !same_text(old->title, state->title) ||
        !same_text(old->artist, state->artist) || !same_text(old->url, state->url) ||
        !same_text(old->art_url, state->art_url))
        changed[count++] = "Metadata";
    if (first || old->can_go_next != state->can_go_next) changed[count++] = "CanGoNext";
    if (first || old->can_go_previous != state->can_go_previous) changed[count++] = "CanGoPrevious";
    if (first || old->can_seek != state->can_seek) changed[count++] = "CanSeek";
    changed[count] = NULL;
    vnbus_mpris_state copy = *state;
    copy.title = copy_text(state->title);
    copy.artist = copy_text(state->artist);
    copy.url = copy_text(state->url);
    copy.art_url = copy_text(state->art_url);
    if (!copy.title || !copy.artist || !copy.url || !copy.art_url) {
        free((char *)copy.title);
        free((char *)copy.artist);
        free((char *)copy.url);
        free((char *)copy.art_url);
        return -ENOMEM;
    }
    free_shown(mpris);
    mpris->shown = copy;
    mpris->shown_once = 1;
    if (count == 0) return 0;
    return sd_bus_emit_properties_changed_strv(mpris->connection->bus, OBJECT_PATH, PLAYER_INTERFACE, changed);
}

int vnbus_mpris_seeked(vnbus_mpris *mpris, double position) {
    sd_bus_message *signal = NULL;
    int64_t value = microseconds(position);
    int status = sd_bus_message_new_signal(mpris->connection->bus, &signal, OBJECT_PATH, PLAYER_INTERFACE, "Seeked");
    if (status >= 0) status = sd_bus_message_append_basic(signal, 'x', &value);
    if (status >= 0) status = sd_bus_send(mpris->connection->bus, signal, NULL);
    sd_bus_message_unref(signal);
    return status < 0 ? status : 0;
}

void vnbus_mpris_unexport(vnbus_mpris *mpris) {
    if (mpris == NULL) return;
    sd_bus_slot_unref(mpris->player_slot);
    sd_bus_slot_unref(mpris->root_slot);
    free(mpris->identity);
    free(mpris->desktop_entry);
    free_shown(mpris);
    free(mpris);
}
