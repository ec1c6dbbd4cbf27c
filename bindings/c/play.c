/* play.c — plays a voice message (a file or an http(s) URL) to its end with voicenote's player and prints its
 * progress.
 *
 *   play FILE_OR_URL [--rate R] [--device NAME [--device-config ALSA_CONFIG_FILE]]
 *                    [--header "Name: value"]... [--ca-file PEM] [--key KEY]
 *                    [--mpris IDENTITY [--artist SENDER]] [--role ROLE]
 *
 * Shows: player options (the device by name or by ALSA configuration text, the progress interval), subscribing to
 * events (the current context first, then progress contexts, FINISHED or FAILED), the rate, loading with autoplay,
 * waiting for the end with a condition variable, and the error path (vn_status_name + vn_last_error_message for a
 * refused call; the status and message of a FAILED event for a file that cannot be played, or an HTTP status).
 * A path, a file:// URL or a plain http(s) URL goes to vn_player_load (an http(s) URL plays while it downloads, with
 * the default HTTP options). An http(s) URL with --header, --ca-file or --key goes to vn_player_load_url with a
 * vn_http_options: request headers (Matrix authenticated media needs "Authorization: Bearer TOKEN"), a PEM file of
 * CA certificates to trust instead of the system's, and a stable key that names the media in the media cache
 * instead of the URL (a signed CDN URL changes; the key does not), so a replay of the same key makes no request.
 * --mpris shows the player to the desktop's media keys and controls (MPRIS) under IDENTITY while the note is loaded,
 * with "Voice message" and the SENDER as what the controls show (vn_player_set_metadata, keyed by the location);
 * without a session bus the log says so and the note plays on. --role gives the playback stream a role on a
 * PulseAudio server ("phone": the server itself quiets the music while the note plays); elsewhere it is not set.
 * With no --device it plays to the default ALSA device; tests pass a file speaker (ALSA's file plugin), defined in
 * ALSA_CONFIG_FILE, whose text is handed to the library (vn_player_options_set_device).
 * Exit status: 0 when it played to its end, 1 when it could not be played, 2 for bad arguments.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under strict C */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <voicenote.h>

/* How long the player may stay silent (no event at all) before the sample gives up. */
#define STALL_SECONDS 30

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    unsigned long events; /* every event, to tell a stall from progress */
    int finished;         /* a FINISHED event arrived */
    int failed;           /* the status of a FAILED event, 0 if none */
    int playing;          /* the last context was PLAYING */
} playback;

static void on_event(void *user_data, const vn_player_event *event) {
    playback *play = user_data;
    pthread_mutex_lock(&play->mutex);
    play->events++;
    switch (event->type) {
    case VN_PLAYER_EVENT_CONTEXT: {
        const vn_player_context *context = &event->context;
        if (context->state == VN_PLAYER_PLAYING) {
            if (!play->playing) printf("playing %s at %.2fx\n", context->location, context->rate);
            printf("  %6.2f / %s%.2f s%s\n", context->current_time_s, context->duration_is_estimate ? "~" : "",
                   context->duration_s, context->is_seeking ? " (seeking)" : "");
        }
        play->playing = context->state == VN_PLAYER_PLAYING;
        break;
    }
    case VN_PLAYER_EVENT_FINISHED:
        play->finished = 1;
        printf("finished: %s\n", event->location);
        break;
    case VN_PLAYER_EVENT_FAILED:
        play->failed = event->status;
        fprintf(stderr, "play: failed: %s: %s\n", vn_status_name(event->status), event->message);
        break;
    default:
        break;
    }
    fflush(stdout);
    pthread_cond_broadcast(&play->changed);
    pthread_mutex_unlock(&play->mutex);
}

/* The whole text of a small file, or NULL; the caller frees it. */
static char *read_text(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    char *text = calloc(1, 65536);
    size_t length = text ? fread(text, 1, 65535, file) : 0;
    fclose(file);
    if (text) text[length] = '\0';
    return text;
}

static int fail(const char *what, int status) {
    fprintf(stderr, "play: %s: %s (%s): %s\n", what, vn_status_name(status), vn_strerror(status), vn_last_error_message());
    return 1;
}

static int usage(const char *problem) {
    if (problem != NULL) fprintf(stderr, "play: %s\n", problem);
    fprintf(stderr, "usage: play FILE_OR_URL [--rate R] [--device NAME [--device-config ALSA_CONFIG_FILE]]\n"
                    "                        [--header \"Name: value\"]... [--ca-file PEM] [--key KEY]\n"
                    "                        [--mpris IDENTITY [--artist SENDER]] [--role ROLE]\n");
    return 2;
}

static int is_http_url(const char *location) {
    return strncmp(location, "http://", 7) == 0 || strncmp(location, "https://", 8) == 0;
}

#define MAX_HEADERS 16
#define MAX_HEADER_NAME 255

/* HTTP options for the URL: each "Name: value" header, and the CA file. NULL after reporting a failure. */
static vn_http_options *http_options(const char **headers, int header_count, const char *ca_file) {
    vn_http_options *options = NULL;
    int status = vn_http_options_create(&options);
    if (status != VN_OK) {
        fail("vn_http_options_create", status);
        return NULL;
    }
    for (int i = 0; i < header_count; i++) {
        const char *colon = strchr(headers[i], ':'); /* main checked there is one, after a short name */
        char name[MAX_HEADER_NAME + 1];
        memcpy(name, headers[i], (size_t)(colon - headers[i]));
        name[colon - headers[i]] = '\0';
        const char *value = colon + 1;
        while (*value == ' ' || *value == '\t') value++;
        /* The library checks the name (a token) and the value (no line breaks). */
        if ((status = vn_http_options_add_header(options, name, value)) != VN_OK) {
            fail("vn_http_options_add_header", status);
            vn_http_options_destroy(options);
            return NULL;
        }
    }
    if (ca_file != NULL && (status = vn_http_options_set_ca_file(options, ca_file)) != VN_OK) {
        fail("vn_http_options_set_ca_file", status);
        vn_http_options_destroy(options);
        return NULL;
    }
    return options;
}

int main(int argc, char **argv) {
    const char *file = NULL, *device = NULL, *config_path = NULL, *ca_file = NULL, *key = NULL;
    const char *mpris = NULL, *artist = NULL, *role = NULL;
    const char *headers[MAX_HEADERS];
    int header_count = 0;
    double rate = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *argument = argv[i];
        if (strcmp(argument, "--rate") == 0 || strcmp(argument, "--device") == 0 ||
            strcmp(argument, "--device-config") == 0 || strcmp(argument, "--header") == 0 ||
            strcmp(argument, "--ca-file") == 0 || strcmp(argument, "--key") == 0 || strcmp(argument, "--mpris") == 0 ||
            strcmp(argument, "--artist") == 0 || strcmp(argument, "--role") == 0) {
            if (i + 1 >= argc) return usage("an option lacks its value");
            const char *value = argv[++i];
            if (strcmp(argument, "--device") == 0) {
                device = value;
            } else if (strcmp(argument, "--device-config") == 0) {
                config_path = value;
            } else if (strcmp(argument, "--header") == 0) {
                const char *colon = strchr(value, ':');
                if (colon == NULL || colon == value || colon - value > MAX_HEADER_NAME)
                    return usage("--header takes \"Name: value\"");
                if (header_count == MAX_HEADERS) return usage("too many --header options");
                headers[header_count++] = value;
            } else if (strcmp(argument, "--ca-file") == 0) {
                ca_file = value;
            } else if (strcmp(argument, "--key") == 0) {
                key = value;
            } else if (strcmp(argument, "--mpris") == 0) {
                mpris = value;
            } else if (strcmp(argument, "--artist") == 0) {
                artist = value;
            } else if (strcmp(argument, "--role") == 0) {
                role = value;
            } else {
                char *end = NULL;
                errno = 0;
                rate = strtod(value, &end);
                if (end == value || *end != '\0' || errno != 0) return usage("--rate takes a number (0.5 to 2.5)");
            }
        } else if (argument[0] == '-' && argument[1] != '\0') {
            return usage("unknown option");
        } else if (file == NULL) {
            file = argument;
        } else {
            return usage("one FILE_OR_URL only");
        }
    }
    if (file == NULL) return usage(NULL);
    if (config_path != NULL && device == NULL) return usage("--device-config needs --device NAME");
    if (artist != NULL && mpris == NULL) return usage("--artist goes with --mpris");
    int with_http_options = header_count > 0 || ca_file != NULL || key != NULL;
    if (with_http_options && !is_http_url(file)) return usage("--header, --ca-file and --key need an http(s) URL");
    char *configuration = NULL;
    if (config_path != NULL && (configuration = read_text(config_path)) == NULL) {
        fprintf(stderr, "play: cannot read %s\n", config_path);
        return 2;
    }

    vn_player_options *options = NULL;
    int status = vn_player_options_create(&options);
    if (status != VN_OK) {
        free(configuration);
        return fail("vn_player_options_create", status);
    }
    /* The library checks the identity (not empty) and the role (printable ASCII). */
    if ((device != NULL && (status = vn_player_options_set_device(options, device, configuration)) != VN_OK) ||
        (status = vn_player_options_set_progress_interval(options, 0.25)) != VN_OK ||
        (mpris != NULL && (status = vn_player_options_set_mpris(options, mpris, NULL)) != VN_OK) ||
        (role != NULL && (status = vn_player_options_set_stream_role(options, role)) != VN_OK)) {
        vn_player_options_destroy(options);
        free(configuration);
        return fail("setting player options", status);
    }
    free(configuration); /* the options copied it */
    vn_player *player = NULL;
    status = vn_player_create(options, &player);
    vn_player_options_destroy(options); /* the player keeps its own copy */
    if (status != VN_OK) return fail("vn_player_create", status);

    playback play = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0};
    if ((status = vn_player_subscribe(player, on_event, &play, NULL, NULL)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_subscribe", status);
    }
    if ((status = vn_player_set_rate(player, rate)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_set_rate", status);
    }
    /* What the desktop's controls show for this note: set before it loads, keyed by the location as loaded. */
    if (mpris != NULL && (status = vn_player_set_metadata(player, file, "Voice message", artist, NULL)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_set_metadata", status);
    }
    /* Returns at once; a file that cannot be opened or decoded, or a URL that cannot be fetched (an HTTP status,
     * a network failure), arrives as a FAILED event. */
    if (with_http_options) {
        vn_http_options *http = http_options(headers, header_count, ca_file);
        if (http == NULL) {
            vn_player_destroy(player);
            return 1;
        }
        status = vn_player_load_url(player, file, http, key, 1, -1); /* key NULL: the URL is the key */
        vn_http_options_destroy(http); /* the player copied them */
        if (status != VN_OK) {
            vn_player_destroy(player);
            return fail("vn_player_load_url", status);
        }
    } else if ((status = vn_player_load(player, file, 1, -1)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_load", status);
    }

    /* Wait for the end or a failure; bounded: give up when no event at all came for STALL_SECONDS. */
    pthread_mutex_lock(&play.mutex);
    int waited = 0;
    while (!play.finished && play.failed == 0 && waited != ETIMEDOUT) {
        unsigned long seen = play.events;
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += STALL_SECONDS;
        while (!play.finished && play.failed == 0 && play.events == seen && waited != ETIMEDOUT)
            waited = pthread_cond_timedwait(&play.changed, &play.mutex, &deadline);
    }
    int finished = play.finished, failed = play.failed;
    pthread_mutex_unlock(&play.mutex);
    vn_player_destroy(player); /* sound stops, the device closes; no callback runs after this */
    if (!finished && failed == 0) {
        fprintf(stderr, "play: no progress for %d s; giving up\n", STALL_SECONDS);
        return 1;
    }
    return finished && failed == 0 ? 0 : 1;
}
