/* play_file.c — the "ours" side of the player CPU bench (bench/run.py, section player).
 *
 *   play_file FILE RATE NAME CONFIGURATION [TIMEOUT_S [plain|level|level-given I R TP]]
 *
 * Plays FILE to its end through libvoicenote's player at RATE (vn_player_set_rate, 0.5…2.5; pitch kept by
 * libsonic), to the playback device NAME defined by the ALSA configuration text CONFIGURATION
 * (vn_player_options_set_device). The bench gives an unpaced sink: ALSA's `file` plugin over a `null` slave, which
 * takes frames as fast as they are written, so the item plays at the decoder's pace. Everything else is the
 * default (progress every 0.1 s of played audio, volume 1, skip silence off). The program loads FILE with
 * autoplay, waits for the FINISHED event (a condition variable with a deadline of TIMEOUT_S, default 600) and exits.
 * `level` plays levelled (vn_player_set_leveling at the default target: the gain from the player's 3 s pre-pass);
 * `level-given` too, with the note's loudness I LUFS, range R LU, true peak TP dBTP given with the load (a payload's
 * case: the sender measured it; the bench measures it beforehand, outside the timed run).
 *
 * On success prints one line on stdout:
 *   {"finished": 1, "events": E, "progress_events": P, "duration_s": D, "last_time_s": T}
 * Exit status: 0 when FINISHED arrived (and no FAILED); 1 on a failure or timeout (message on stderr); 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <voicenote.h>

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int finished;          /* FINISHED arrived */
    int failed;            /* status of a FAILED event, 0 if none */
    long events;           /* every event */
    long progress_events;  /* CONTEXT events while PLAYING */
    double duration_s;     /* the last context's */
    double last_time_s;    /* the last PLAYING context's current time */
} playback;

static void on_event(void *user_data, const vn_player_event *event) {
    playback *play = user_data;
    pthread_mutex_lock(&play->mutex);
    play->events++;
    switch (event->type) {
    case VN_PLAYER_EVENT_CONTEXT:
        play->duration_s = event->context.duration_s;
        if (event->context.state == VN_PLAYER_PLAYING) {
            play->progress_events++;
            play->last_time_s = event->context.current_time_s;
        }
        break;
    case VN_PLAYER_EVENT_FINISHED:
        play->finished = 1;
        break;
    case VN_PLAYER_EVENT_FAILED:
        play->failed = event->status;
        fprintf(stderr, "play_file: FAILED event: %s: %s\n", vn_status_name(event->status),
                event->message ? event->message : "");
        break;
    default:
        break;
    }
    /* Only what main waits for wakes it: the harness adds no wake-up per progress event to the CPU measured. */
    if (play->finished || play->failed) pthread_cond_broadcast(&play->changed);
    pthread_mutex_unlock(&play->mutex);
}

static int fail(const char *what, int status) {
    fprintf(stderr, "play_file: %s: %s (%s): %s\n", what, vn_status_name(status), vn_strerror(status),
            vn_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    const char *mode = argc > 6 ? argv[6] : "plain";
    int level = strcmp(mode, "level") == 0, given = strcmp(mode, "level-given") == 0;
    if (argc < 5 || argc > (given ? 10 : 7) || (given && argc != 10) || (!level && !given && strcmp(mode, "plain") != 0)) {
        fprintf(stderr, "usage: play_file FILE RATE NAME CONFIGURATION [TIMEOUT_S [plain|level|level-given I R TP]]\n");
        return 2;
    }
    const char *file = argv[1], *name = argv[3], *configuration = argv[4];
    double rate = atof(argv[2]);
    double timeout_s = argc > 5 ? atof(argv[5]) : 600;
    if (rate <= 0 || timeout_s <= 0) {
        fprintf(stderr, "play_file: RATE and TIMEOUT_S must be > 0\n");
        return 2;
    }

    vn_player_options *options = NULL;
    int status = vn_player_options_create(&options);
    if (status != VN_OK) return fail("vn_player_options_create", status);
    if ((status = vn_player_options_set_device(options, name, configuration)) != VN_OK) {
        vn_player_options_destroy(options);
        return fail("vn_player_options_set_device", status);
    }
    vn_player *player = NULL;
    status = vn_player_create(options, &player);
    vn_player_options_destroy(options);
    if (status != VN_OK) return fail("vn_player_create", status);

    playback play;
    memset(&play, 0, sizeof play);
    pthread_mutex_init(&play.mutex, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&play.changed, &attributes);
    pthread_condattr_destroy(&attributes);

    if ((status = vn_player_subscribe(player, on_event, &play, NULL, NULL)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_subscribe", status);
    }
    if ((status = vn_player_set_rate(player, rate)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_set_rate", status);
    }
    vn_loudness loudness = {0};
    if (given) loudness = (vn_loudness){1, atof(argv[7]), atof(argv[8]), atof(argv[9])};
    if ((level || given) && (status = vn_player_set_leveling(player, 1, VN_LEVELING_DEFAULT_TARGET_LUFS, 0)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_set_leveling", status);
    }
    if ((status = vn_player_load_with_loudness(player, file, 1, -1, given ? &loudness : NULL)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_load_with_loudness", status);
    }

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += (time_t)timeout_s;
    pthread_mutex_lock(&play.mutex);
    int waited = 0;
    while (!play.finished && play.failed == 0 && waited != ETIMEDOUT)
        waited = pthread_cond_timedwait(&play.changed, &play.mutex, &deadline);
    pthread_mutex_unlock(&play.mutex);
    vn_player_destroy(player); /* the device closes (the file plugin flushes); no events after this */

    if (!play.finished || play.failed != 0) {
        if (play.failed == 0) fprintf(stderr, "play_file: no FINISHED event within %.0f s\n", timeout_s);
        return 1;
    }
    printf("{\"finished\": 1, \"events\": %ld, \"progress_events\": %ld, \"duration_s\": %.6f, \"last_time_s\": %.6f}\n",
           play.events, play.progress_events, play.duration_s, play.last_time_s);
    return 0;
}
