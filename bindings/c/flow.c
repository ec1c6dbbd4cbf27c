/* flow.c — drives the hold-to-record button (vn_flow) through a scripted sequence of gestures and prints every
 * event, as a chat client's composer would draw them.
 *
 *   flow DIRECTORY [--mic NAME [--mic-config ALSA_CONFIG_FILE]] [--speaker NAME [--speaker-config ALSA_CONFIG_FILE]]
 *
 * Shows: a flow over a recorder and a player; its events delivered on the host's own thread through a
 * vn_event_loop (as a GTK or Qt main loop would, here by vn_event_loop_wait() + vn_event_loop_dispatch()); a manual
 * clock (vn_manual_clock_advance()) standing in for the time a finger rests on the button, so the script does not
 * depend on how fast the machine is. The script:
 *   1. a tap: the tip shows, and hides 2 s later;
 *   2. a hold: recording, a slide up locks it, stop puts it in preview, play, pause, trim to 0.25…1.25 s (the call
 *      returns at once; TRIMMED says when the cut is done), send: ATTACHMENT_READY prints the file, its duration
 *      and its voiceRecording payload;
 *   3. a hold and a slide left: cancelled, the file deleted.
 * With no --mic it records from the default microphone, with no --speaker it plays to the default device; tests pass
 * a virtual microphone and a file speaker (ALSA's file plugin), defined in ALSA configuration files whose text is
 * handed to the library.
 *
 * Build:  cc flow.c $(pkg-config --cflags --libs voicenote) -pthread -o flow
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(flow PRIVATE voicenote::voicenote)
 * Exit status: 0 when the script ran as described, 1 when a step failed or timed out, 2 for bad arguments.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under strict C */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <voicenote.h>

/* How long one step may take before the sample gives up (events come well within this). */
#define STEP_SECONDS 30

/* |x|, without libm. */
static double distance(double x) { return x < 0 ? -x : x; }

/* What the events told so far; only touched on the main thread (the loop delivers there). */
typedef struct {
    int state;             /* of the last view */
    double duration_s;     /* of the last view */
    int preview_playing;   /* of the last view */
    int ready;             /* ATTACHMENT_READY events */
    int failed;            /* FAILED events */
    int trimmed;           /* TRIMMED events that cut the take (status VN_OK) */
    char path[4096];       /* the last take sent */
    double sent_duration_s;
    char description[256]; /* the last accessible description printed */
} script_state;

static const char *state_name(int state) {
    switch (state) {
    case VN_FLOW_IDLE: return "idle";
    case VN_FLOW_SHOWING_TIP: return "showing tip";
    case VN_FLOW_RECORDING: return "recording";
    case VN_FLOW_LOCKED: return "locked";
    case VN_FLOW_PREVIEW: return "preview";
    default: return "?";
    }
}

static void on_event(void *user_data, const vn_flow_event *event) {
    script_state *s = user_data;
    switch (event->type) {
    case VN_FLOW_EVENT_VIEW: {
        const vn_flow_view *view = &event->view;
        int changed = view->state != s->state || strcmp(view->accessible_description, s->description) != 0;
        s->state = view->state;
        s->duration_s = view->duration_s;
        s->preview_playing = view->preview_playing;
        /* Every event is printed; a step that changes only the time and levels gets a short line. */
        if (changed) {
            printf("view: %-11s %6.2f s  \"%s\"", state_name(view->state), view->duration_s,
                   view->accessible_description);
            if (view->state == VN_FLOW_PREVIEW)
                printf("  trim %.2f…%.2f, %zu waveform values", view->trim_start_s, view->trim_end_s, view->waveform_count);
            printf("\n");
            snprintf(s->description, sizeof s->description, "%s", view->accessible_description);
        } else {
            printf("  step: %6.2f s, %zu levels, cancel alpha %.2f, lock padding %.1f%s\n", view->duration_s,
                   view->level_count, view->slide_to_cancel_alpha, view->lock_padding,
                   view->preview_playing ? ", playing" : "");
        }
        break;
    }
    case VN_FLOW_EVENT_ATTACHMENT_READY:
        s->ready++;
        snprintf(s->path, sizeof s->path, "%s", event->path);
        s->sent_duration_s = event->duration_s;
        printf("attachment ready: %s, %.3f s, %zu waveform values\n  payload: %s\n", event->path, event->duration_s,
               event->waveform_count, event->payload_json);
        break;
    case VN_FLOW_EVENT_PUBLISH:
        printf("publish: %s\n", event->path);
        break;
    case VN_FLOW_EVENT_FAILED:
        s->failed++;
        printf("failed: %s: %s\n", vn_status_name(event->status), event->message);
        break;
    case VN_FLOW_EVENT_TRIMMED: /* the trim ran on the flow's worker: vn_flow_trim() had returned at once */
        if (event->status == VN_OK) {
            s->trimmed++;
            printf("trimmed: %s, now %.3f s\n", event->path, event->duration_s);
        } else {
            s->failed++;
            printf("trim failed: %s: %s (the take is as it was)\n", vn_status_name(event->status), event->message);
        }
        break;
    case VN_FLOW_EVENT_TOO_SHORT: /* a client shows its tip here */
        printf("too short: %.2f s captured; hold to record\n", event->duration_s);
        break;
    default:
        break; /* a kind added by a newer library */
    }
}

/* Delivers events on this thread until `done(s)` holds; 0 on time, 1 after STEP_SECONDS. */
static int run_until(vn_event_loop *loop, script_state *s, int (*done)(const script_state *), const char *what) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        vn_event_loop_dispatch(loop, NULL);
        if (done(s)) return 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= STEP_SECONDS) {
            fprintf(stderr, "flow: timed out waiting for %s\n", what);
            return 1;
        }
        vn_event_loop_wait(loop, 100, NULL);
    }
}

static int is_idle(const script_state *s) { return s->state == VN_FLOW_IDLE; }
static int is_tip(const script_state *s) { return s->state == VN_FLOW_SHOWING_TIP; }
static int is_recording_1s(const script_state *s) { return s->state == VN_FLOW_RECORDING && s->duration_s >= 1.0; }
static int is_locked_2s(const script_state *s) { return s->state == VN_FLOW_LOCKED && s->duration_s >= 2.0; }
static int is_preview(const script_state *s) { return s->state == VN_FLOW_PREVIEW; }
static int is_playing(const script_state *s) { return s->state == VN_FLOW_PREVIEW && s->preview_playing; }
static int is_trimmed(const script_state *s) {
    return s->trimmed == 1 && s->state == VN_FLOW_PREVIEW && distance(s->duration_s - 1.0) < 1e-6;
}
static int is_sent(const script_state *s) { return s->ready > 0 && s->state == VN_FLOW_IDLE; }

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

/* Checks a call; prints the failure and returns 1 when it failed. */
static int failed(const char *what, int status) {
    if (status == VN_OK) return 0;
    fprintf(stderr, "flow: %s: %s: %s\n", what, vn_status_name(status), vn_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    const char *directory = NULL, *mic = "default", *mic_config_file = NULL, *speaker = "default",
               *speaker_config_file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mic") == 0 && i + 1 < argc) mic = argv[++i];
        else if (strcmp(argv[i], "--mic-config") == 0 && i + 1 < argc) mic_config_file = argv[++i];
        else if (strcmp(argv[i], "--speaker") == 0 && i + 1 < argc) speaker = argv[++i];
        else if (strcmp(argv[i], "--speaker-config") == 0 && i + 1 < argc) speaker_config_file = argv[++i];
        else if (directory == NULL && argv[i][0] != '-') directory = argv[i];
        else directory = NULL, i = argc;
    }
    if (directory == NULL) {
        fprintf(stderr, "usage: flow DIRECTORY [--mic NAME [--mic-config FILE]] [--speaker NAME [--speaker-config FILE]]\n");
        return 2;
    }
    char *mic_config = mic_config_file ? read_text(mic_config_file) : NULL;
    char *speaker_config = speaker_config_file ? read_text(speaker_config_file) : NULL;
    if ((mic_config_file && !mic_config) || (speaker_config_file && !speaker_config)) {
        fprintf(stderr, "flow: cannot read an ALSA configuration file\n");
        return 2;
    }

    int bad = 0;
    vn_event_loop *loop = NULL;
    vn_manual_clock *clock = NULL;
    vn_recorder_options *recorder_options = NULL;
    vn_player_options *player_options = NULL;
    vn_flow_options *flow_options = NULL;
    vn_recorder *recorder = NULL;
    vn_player *player = NULL;
    vn_flow *flow = NULL;
    script_state s = {.state = -1};

    /* Set-up: the loop and the clock, then a recorder and a player delivering through the loop, then the flow. */
    bad = failed("vn_event_loop_create", vn_event_loop_create(&loop)) ||
          failed("vn_manual_clock_create", vn_manual_clock_create(&clock)) ||
          failed("recorder options", vn_recorder_options_create(&recorder_options)) ||
          failed("recorder directory", vn_recorder_options_set_directory(recorder_options, directory)) ||
          failed("recorder device", vn_recorder_options_set_device(recorder_options, mic, mic_config)) ||
          failed("recorder loop", vn_recorder_options_set_event_loop(recorder_options, loop)) ||
          failed("vn_recorder_create", vn_recorder_create(recorder_options, &recorder)) ||
          failed("player options", vn_player_options_create(&player_options)) ||
          failed("player device", vn_player_options_set_device(player_options, speaker, speaker_config)) ||
          failed("player loop", vn_player_options_set_event_loop(player_options, loop)) ||
          failed("vn_player_create", vn_player_create(player_options, &player)) ||
          failed("flow options", vn_flow_options_create(&flow_options)) ||
          failed("flow clock", vn_flow_options_set_clock(flow_options, clock)) ||
          failed("flow loop", vn_flow_options_set_event_loop(flow_options, loop)) ||
          failed("vn_flow_create", vn_flow_create(recorder, player, flow_options, &flow)) ||
          failed("vn_flow_subscribe", vn_flow_subscribe(flow, on_event, &s, NULL, NULL));
    vn_recorder_options_destroy(recorder_options);
    vn_player_options_destroy(player_options);
    vn_flow_options_destroy(flow_options);
    free(mic_config);
    free(speaker_config);

    /* 1. A tap: the tip, hidden after 2 s of the clock. */
    if (!bad) {
        printf("-- a tap\n");
        bad = run_until(loop, &s, is_idle, "the first view") ||
              failed("press", vn_flow_press(flow, 200, 200)) || failed("release", vn_flow_release(flow)) ||
              run_until(loop, &s, is_tip, "the tip") ||
              failed("advance", vn_manual_clock_advance(clock, 2.0)) || run_until(loop, &s, is_idle, "the tip hidden");
    }
    /* 2. Hold, lock, stop, preview, play, pause, trim, send. */
    if (!bad) {
        printf("-- hold, slide up to lock, stop, play, trim, send\n");
        bad = failed("press", vn_flow_press(flow, 200, 200)) ||
              failed("advance", vn_manual_clock_advance(clock, 0.5)) ||
              run_until(loop, &s, is_recording_1s, "1 s recorded") ||
              failed("move", vn_flow_move(flow, 200, 140)) || failed("release", vn_flow_release(flow)) ||
              run_until(loop, &s, is_locked_2s, "2 s recorded, locked") ||
              failed("stop", vn_flow_stop(flow)) || run_until(loop, &s, is_preview, "the preview") ||
              failed("play", vn_flow_play(flow)) || run_until(loop, &s, is_playing, "the preview playing") ||
              failed("pause", vn_flow_pause(flow)) ||
              failed("trim", vn_flow_trim(flow, 0.25, 1.25)) || run_until(loop, &s, is_trimmed, "the trimmed preview") ||
              failed("send", vn_flow_send(flow)) || run_until(loop, &s, is_sent, "the take sent");
        if (!bad && (distance(s.sent_duration_s - 1.0) > 1e-6 || s.path[0] == '\0')) {
            fprintf(stderr, "flow: the sent take is %.6f s, not 1 s\n", s.sent_duration_s);
            bad = 1;
        }
    }
    /* 3. Hold, slide left: cancelled. */
    if (!bad) {
        printf("-- hold, slide left to cancel\n");
        bad = failed("press", vn_flow_press(flow, 200, 200)) ||
              failed("advance", vn_manual_clock_advance(clock, 0.5)) ||
              run_until(loop, &s, is_recording_1s, "1 s recorded") ||
              failed("move", vn_flow_move(flow, 120, 200)) || run_until(loop, &s, is_idle, "the take cancelled");
    }
    if (!bad && s.failed > 0) bad = 1;

    /* The flow first (it cancels a running take), then what it used; the loop last. */
    vn_flow_destroy(flow);
    vn_recorder_destroy(recorder);
    vn_player_destroy(player);
    vn_manual_clock_destroy(clock);
    vn_event_loop_destroy(loop);
    if (!bad) printf("sent %s\n", s.path);
    return bad ? 1 : 0;
}
