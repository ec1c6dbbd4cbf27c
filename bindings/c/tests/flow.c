/*
 * flow.c: recording flows through the C API (voicenote.h, section "Recording flow"), over a real recorder on a
 * virtual microphone (ALSA's `file` plugin reading a 30 s tone, unpaced) and a real player on a file speaker. The
 * flow's time is a manual clock; its events, the recorder's and the player's come through a vn_event_loop
 * dispatched on the test's own thread, as a GUI main loop would (the recorder's and player's threads run meanwhile).
 *
 * - Every input in every state (a table): the documented status (VN_OK, or VN_E_MISUSE for a command that means
 *   nothing there), and a misused command changes nothing.
 * - NULL and destroyed handles are VN_E_MISUSE, bad arguments VN_E_INVALID_ARG (options, keys, coordinates, times).
 * - Hurried input: thousands of random inputs from two threads with no waiting, the clock advanced at random and
 *   the loop dispatched between them; every status is one the header documents, then the flow is destroyed with a
 *   take perhaps running. Run under ThreadSanitizer by `make test-tsan`.
 * - A subscriber that destroys its flow inside its own callback: no deadlock, release once, no callback after.
 * - Trim returns at once and its end is an event (VN_FLOW_EVENT_TRIMMED); send during a trim sends the cut take
 *   after it, discard during a trim deletes the take; destroy during a trim keeps the take whole.
 * - A take the recorder drops as too short is VN_FLOW_EVENT_TOO_SHORT, then idle.
 *
 * Every wait is bounded (the loop is dispatched until a condition holds, for at most WAIT_MS).
 */
#define _XOPEN_SOURCE 700 /* nftw, in child.h */
#include "harness.h"
#include "child.h"

#include <dirent.h>

#define WAIT_MS 30000
#define HURRIED_INPUTS 3000

static char directory[256], microphone[600], drafts_directory[300];

/* ------------------------------------------------------------------------------------------------------------ */
/* A rig: loop, clock, recorder, player, flow; the events seen, touched only on this thread (the loop's) */

typedef struct {
    int state;
    double duration_s;
    int views, ready, failed;
    int take_views; /* views in RECORDING or LOCKED */
    int parked;
    char parked_path[400];
    double parked_duration_s;
    int trimmed, trimmed_status, too_short;
    double trimmed_duration_s, too_short_duration_s;
    char order[64]; /* one letter per event other than views: R ready, F failed, P parked, T trimmed, S too short */
    int last_failed_status;
    char last_failed_message[256]; /* what the last failure said, for a message when a test fails */
} seen_state;

static void seen_in_order(seen_state *seen, char kind) {
    size_t length = strlen(seen->order);
    if (length + 1 < sizeof seen->order) seen->order[length] = kind;
}

typedef struct {
    vn_event_loop *loop;
    vn_manual_clock *clock;
    vn_recorder *recorder;
    vn_player *player;
    vn_flow *flow;
    seen_state seen;
} rig;

static void on_flow_event(void *user_data, const vn_flow_event *event) {
    seen_state *seen = user_data;
    switch (event->type) {
    case VN_FLOW_EVENT_VIEW:
        seen->views++;
        seen->state = event->view.state;
        seen->duration_s = event->view.duration_s;
        if (event->view.state == VN_FLOW_RECORDING || event->view.state == VN_FLOW_LOCKED) seen->take_views++;
        break;
    case VN_FLOW_EVENT_ATTACHMENT_READY: seen->ready++; seen_in_order(seen, 'R'); break;
    case VN_FLOW_EVENT_FAILED:
        seen->failed++;
        seen->last_failed_status = event->status;
        snprintf(seen->last_failed_message, sizeof seen->last_failed_message, "%s",
                 event->message ? event->message : "");
        seen_in_order(seen, 'F');
        break;
    case VN_FLOW_EVENT_TRIMMED:
        seen->trimmed++;
        seen->trimmed_status = event->status;
        seen->trimmed_duration_s = event->duration_s;
        seen_in_order(seen, 'T');
        break;
    case VN_FLOW_EVENT_TOO_SHORT:
        seen->too_short++;
        seen->too_short_duration_s = event->duration_s;
        seen_in_order(seen, 'S');
        break;
    case VN_FLOW_EVENT_PARKED:
        seen_in_order(seen, 'P');
        seen->parked++;
        snprintf(seen->parked_path, sizeof seen->parked_path, "%s", event->path);
        seen->parked_duration_s = event->duration_s;
        break;
    default: break;
    }
}

static int rig_open_full(rig *r, int toggle_mode, const char *draft_key, int aac, double minimum_take_s) {
    memset(r, 0, sizeof *r);
    r->seen.state = -1;
    char takes[300], speaker[700];
    snprintf(takes, sizeof takes, "%s/takes", directory);
    snprintf(speaker, sizeof speaker,
             "pcm.vn_spk { type file slave.pcm { type null } file \"%s/heard.raw\" format raw perm 0644 }", directory);
    vn_recorder_options *recording = NULL;
    vn_player_options *playing = NULL;
    vn_flow_options *options = NULL;
    int ok = vn_event_loop_create(&r->loop) == VN_OK && vn_manual_clock_create(&r->clock) == VN_OK &&
             vn_recorder_options_create(&recording) == VN_OK &&
             vn_recorder_options_set_directory(recording, takes) == VN_OK &&
             vn_recorder_options_set_device(recording, "vn_flow_mic", microphone) == VN_OK &&
             vn_recorder_options_set_event_loop(recording, r->loop) == VN_OK &&
             vn_recorder_options_set_format(recording, aac ? VN_FORMAT_AAC : VN_FORMAT_OPUS) == VN_OK &&
             vn_recorder_options_set_limits(recording, 0, 0, minimum_take_s) == VN_OK &&
             vn_recorder_create(recording, &r->recorder) == VN_OK && vn_player_options_create(&playing) == VN_OK &&
             vn_player_options_set_device(playing, "vn_spk", speaker) == VN_OK &&
             vn_player_options_set_event_loop(playing, r->loop) == VN_OK &&
             vn_player_create(playing, &r->player) == VN_OK && vn_flow_options_create(&options) == VN_OK &&
             vn_flow_options_set_clock(options, r->clock) == VN_OK &&
             vn_flow_options_set_event_loop(options, r->loop) == VN_OK &&
             vn_flow_options_set_toggle_mode(options, toggle_mode) == VN_OK &&
             vn_flow_options_set_key_inputs(options, 1) == VN_OK &&
             vn_flow_options_set_draft(options, draft_key, drafts_directory) == VN_OK &&
             vn_flow_create(r->recorder, r->player, options, &r->flow) == VN_OK &&
             vn_flow_subscribe(r->flow, on_flow_event, &r->seen, NULL, NULL) == VN_OK;
    vn_recorder_options_destroy(recording);
    vn_player_options_destroy(playing);
    vn_flow_options_destroy(options);
    EXPECT(ok, "setting up a flow: %s", vn_last_error_message());
    return ok;
}

static int rig_open_with(rig *r, int toggle_mode, const char *draft_key) {
    return rig_open_full(r, toggle_mode, draft_key, 0, 0);
}

static int rig_open(rig *r, int toggle_mode) { return rig_open_with(r, toggle_mode, NULL); }

/* Dispatches the loop until `done(r)`, for at most WAIT_MS; whether it came. */
static int dispatch_while_not(rig *r, int (*done)(const rig *)) {
    long long end = harness_now_ms() + WAIT_MS;
    vn_event_loop_dispatch(r->loop, NULL);
    while (!done(r) && harness_now_ms() < end) {
        vn_event_loop_wait(r->loop, 100, NULL);
        vn_event_loop_dispatch(r->loop, NULL);
    }
    return done(r);
}

static void rig_close(rig *r) {
    vn_flow_destroy(r->flow);
    vn_recorder_destroy(r->recorder);
    vn_player_destroy(r->player);
    vn_manual_clock_destroy(r->clock);
    vn_event_loop_destroy(r->loop);
}

/* Dispatches the loop until the flow's last view is in `state` with at least `duration_s` recorded; whether it got
 * there within WAIT_MS. */
static int dispatch_until(rig *r, int state, double duration_s) {
    long long end = harness_now_ms() + WAIT_MS;
    vn_event_loop_dispatch(r->loop, NULL);
    while (!(r->seen.state == state && r->seen.duration_s >= duration_s) && harness_now_ms() < end) {
        vn_event_loop_wait(r->loop, 100, NULL);
        vn_event_loop_dispatch(r->loop, NULL);
    }
    return r->seen.state == state && r->seen.duration_s >= duration_s;
}

static int current_state(rig *r) {
    int state = -1;
    EXPECT_STATUS(VN_OK, vn_flow_get_state(r->flow, &state));
    return state;
}

/* Brings a fresh rig's flow into `state`; whether it got there. */
static int reach(rig *r, int state) {
    if (!dispatch_until(r, VN_FLOW_IDLE, 0)) return 0;
    if (state == VN_FLOW_IDLE) return 1;
    EXPECT_STATUS(VN_OK, vn_flow_press(r->flow, 200, 200));
    if (state == VN_FLOW_SHOWING_TIP) {
        EXPECT_STATUS(VN_OK, vn_flow_release(r->flow));
        return dispatch_until(r, VN_FLOW_SHOWING_TIP, 0);
    }
    EXPECT_STATUS(VN_OK, vn_manual_clock_advance(r->clock, 0.5));
    if (!dispatch_until(r, VN_FLOW_RECORDING, 0.3)) return 0;
    if (state == VN_FLOW_RECORDING) return 1;
    EXPECT_STATUS(VN_OK, vn_flow_lock(r->flow));
    if (state == VN_FLOW_LOCKED) return dispatch_until(r, VN_FLOW_LOCKED, 0);
    EXPECT_STATUS(VN_OK, vn_flow_stop(r->flow));
    return dispatch_until(r, VN_FLOW_PREVIEW, 0);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Every input in every state */

enum { PRESS, RELEASE, MOVE, KEY_DOWN, KEY_UP, LOCK, CANCEL, STOP, DISCARD, SEND, CONFIRM, PLAY, PAUSE, SEEK, TRIM,
       DEACTIVATE, PARK, INPUTS };
static const char *const input_names[INPUTS] = {"press", "release", "move", "key_down", "key_up", "lock", "cancel",
                                                "stop", "discard", "send", "confirm", "play", "pause", "seek", "trim",
                                                "deactivate", "park"};

static int apply(vn_flow *flow, int input, double a, double b) {
    switch (input) {
    case PRESS: return vn_flow_press(flow, a, b);
    case RELEASE: return vn_flow_release(flow);
    case MOVE: return vn_flow_move(flow, a, b);
    case KEY_DOWN: return vn_flow_key_down(flow, (int)a);
    case KEY_UP: return vn_flow_key_up(flow, (int)a);
    case LOCK: return vn_flow_lock(flow);
    case CANCEL: return vn_flow_cancel(flow);
    case STOP: return vn_flow_stop(flow);
    case DISCARD: return vn_flow_discard(flow);
    case SEND: return vn_flow_send(flow);
    case CONFIRM: return vn_flow_confirm(flow);
    case PLAY: return vn_flow_play(flow);
    case PAUSE: return vn_flow_pause(flow);
    case SEEK: return vn_flow_seek(flow, a);
    case TRIM: return vn_flow_trim(flow, a, b);
    case PARK: return vn_flow_park(flow);
    default: return vn_flow_deactivate(flow);
    }
}

/* The header's table: the status of each input in each state (O = VN_OK, M = VN_E_MISUSE). States in
 * vn_flow_state order: idle, showing tip, recording, locked, preview. */
static const char *const expected_table[INPUTS] = {
    /* press      */ "OOOOO", /* release    */ "OOOOO", /* move       */ "OOOOO", /* key_down   */ "OOOOO",
    /* key_up     */ "OOOOO", /* lock       */ "MMOMM", /* cancel     */ "OOOOO", /* stop       */ "MMOOM",
    /* discard    */ "MMOOO", /* send       */ "MMOOO", /* confirm    */ "MMOOO", /* play       */ "MMMMO",
    /* pause      */ "MMMMO", /* seek       */ "MMMMO", /* trim       */ "MMMMO", /* deactivate */ "OOOOO",
    /* park (no draft key) */ "MMMMM",
};

static void test_every_input_in_every_state(void) {
    for (int state = VN_FLOW_IDLE; state <= VN_FLOW_PREVIEW; state++) {
        for (int input = 0; input < INPUTS; input++) {
            rig r;
            if (!rig_open(&r, 0)) return;
            if (!EXPECT(reach(&r, state), "could not reach state %d for %s", state, input_names[input])) {
                rig_close(&r);
                return;
            }
            /* Keys: Escape (the record key would start a take). Trim and seek: inside any take. */
            double a = input == KEY_DOWN || input == KEY_UP ? VN_FLOW_KEY_ESCAPE : input == TRIM ? 0.05 : 120;
            double b = input == TRIM ? 0.2 : 200;
            int status = apply(r.flow, input, a, b);
            int want = expected_table[input][state] == 'O' ? VN_OK : VN_E_MISUSE;
            EXPECT(status == want, "%s in state %d: expected %s, got %s (%s)", input_names[input], state,
                   vn_status_name(want), vn_status_name(status), vn_last_error_message());
            if (status == VN_E_MISUSE) EXPECT(current_state(&r) == state, "a misused %s changed the state", input_names[input]);
            rig_close(&r);
        }
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Refusals */

static void test_null_destroyed_and_bad_arguments(void) {
    int state = 0;
    vn_flow *flow = NULL;
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_press(NULL, 0, 0));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_release(NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_send(NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_get_state(NULL, &state));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_subscribe(NULL, on_flow_event, NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_create(NULL, NULL, NULL, &flow));
    EXPECT(flow == NULL, "a failed create left a handle");
    EXPECT_STATUS(VN_E_MISUSE, vn_manual_clock_advance(NULL, 1));
    vn_flow_destroy(NULL);
    vn_manual_clock_destroy(NULL);
    vn_flow_options_destroy(NULL);

    vn_flow_options *options = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_create(NULL));
    EXPECT_STATUS(VN_OK, vn_flow_options_create(&options));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_distances(options, 0, 50));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_distances(options, 75, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_times(options, 0.5, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_times(options, 1.0 / 0.0, 2));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_waveform_samples(options, 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_waveform_samples(options, (size_t)-1));
    EXPECT_STATUS(VN_OK, vn_flow_options_set_waveform_samples(options, 40));
    vn_flow_options_destroy(options);
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_options_set_toggle_mode(options, 1)); /* destroyed */

    vn_manual_clock *clock = NULL;
    EXPECT_STATUS(VN_OK, vn_manual_clock_create(&clock));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_manual_clock_advance(clock, -0.1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_manual_clock_advance(clock, 0.0 / 0.0));
    vn_manual_clock_destroy(clock);
    EXPECT_STATUS(VN_E_MISUSE, vn_manual_clock_advance(clock, 1));

    rig r;
    if (!rig_open(&r, 0)) return;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_press(r.flow, 0.0 / 0.0, 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_move(r.flow, 0, 1.0 / 0.0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_key_down(r.flow, 3));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_key_up(r.flow, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_get_state(r.flow, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_subscribe(r.flow, NULL, NULL, NULL, NULL));
    if (reach(&r, VN_FLOW_PREVIEW)) {
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_trim(r.flow, 0.2, 0.1));
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_trim(r.flow, 0, 1e9));
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_seek(r.flow, 0.0 / 0.0));
        EXPECT(current_state(&r) == VN_FLOW_PREVIEW, "a refused trim left the preview");
    }
    vn_flow *destroyed = r.flow;
    rig_close(&r);
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_press(destroyed, 0, 0));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_get_state(destroyed, &state));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Hurried input from two threads */

typedef struct {
    vn_flow *flow;
    unsigned seed;
    int unexpected; /* statuses the header does not document for that input */
    char first_unexpected[200];
} hurrier;

static unsigned next_random(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) & 0x7fff;
}

/* One random input; its status checked against what the header documents (OK, MISUSE, or INVALID_ARG for a trim
 * range outside the take). */
static void hurry_once(hurrier *h) {
    int input = (int)(next_random(&h->seed) % INPUTS);
    double a = (double)(next_random(&h->seed) % 400), b = (double)(next_random(&h->seed) % 400);
    if (input == KEY_DOWN || input == KEY_UP) a = (double)(next_random(&h->seed) % 3);
    if (input == TRIM || input == SEEK) a /= 400, b = a + (b + 1) / 400;
    int status = apply(h->flow, input, a, b);
    int documented = status == VN_OK || status == VN_E_MISUSE || (input == TRIM && status == VN_E_INVALID_ARG);
    if (!documented && h->unexpected++ == 0)
        snprintf(h->first_unexpected, sizeof h->first_unexpected, "%s: %s (%s)", input_names[input],
                 vn_status_name(status), vn_last_error_message());
}

static void *hurry_thread(void *arg) {
    hurrier *h = arg;
    for (int i = 0; i < HURRIED_INPUTS; i++) hurry_once(h);
    return NULL;
}

static int a_take_ran(const rig *r) { return r->seen.take_views > 0; }

/* The last view delivered, and the flow as it stands, are recording. */
static int recording_now(rig *r) { return r->seen.state == VN_FLOW_RECORDING && current_state(r) == VN_FLOW_RECORDING; }

static void test_hurried_inputs_from_two_threads(void) {
    for (int toggle = 0; toggle <= 1; toggle++) {
        rig r;
        if (!rig_open(&r, toggle)) return;
        hurrier other = {r.flow, 7u + (unsigned)toggle, 0, ""};
        hurrier mine = {r.flow, 1234u + (unsigned)toggle, 0, ""};
        pthread_t thread = harness_start_thread(hurry_thread, &other);
        unsigned clock_seed = 99;
        for (int i = 0; i < HURRIED_INPUTS; i++) {
            hurry_once(&mine);
            if (next_random(&clock_seed) % 8 == 0) {
                int status = vn_manual_clock_advance(r.clock, (double)(next_random(&clock_seed) % 100) / 100);
                EXPECT_STATUS(VN_OK, status); /* only this thread advances the clock */
            }
            if (i % 16 == 0) vn_event_loop_dispatch(r.loop, NULL);
        }
        pthread_join(thread, NULL);
        EXPECT(mine.unexpected == 0, "%d undocumented statuses, the first %s", mine.unexpected, mine.first_unexpected);
        EXPECT(other.unexpected == 0, "%d undocumented statuses, the first %s", other.unexpected, other.first_unexpected);
        /* The flow carries its commands out on its worker, behind the inputs: what the hurry began may still be on
         * its way. Wait for it (bounded) before asking whether a take ever ran. */
        EXPECT(dispatch_while_not(&r, a_take_ran), "no take ever ran (%d views)", r.seen.views);
        /* Not wedged: after the documented inputs that end anything (keys up, release, cancel), a press held past the
         * minimum begins a take; asked again each second (a begin still pending ignores a press), for at most WAIT_MS. */
        long long end = harness_now_ms() + WAIT_MS;
        while (!recording_now(&r) && harness_now_ms() < end) {
            for (int key = 0; key < 3; key++) (void)vn_flow_key_up(r.flow, key); /* MISUSE when not down */
            (void)vn_flow_release(r.flow);
            (void)vn_flow_cancel(r.flow);
            EXPECT_STATUS(VN_OK, vn_flow_press(r.flow, 200, 200));
            EXPECT_STATUS(VN_OK, vn_manual_clock_advance(r.clock, 0.5));
            long long again = harness_now_ms() + 1000;
            while (!recording_now(&r) && harness_now_ms() < again) {
                vn_event_loop_wait(r.loop, 100, NULL);
                vn_event_loop_dispatch(r.loop, NULL);
            }
        }
        EXPECT(recording_now(&r),
               "the flow did not record after the hurry (state %d, %d views, %d failures, the last %d \"%s\")",
               current_state(&r), r.seen.views, r.seen.failed, r.seen.last_failed_status, r.seen.last_failed_message);
        rig_close(&r);
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* A subscriber destroying its flow */

typedef struct {
    vn_flow *flow;
    atomic_int calls, releases, destroyed;
} self_destroying;

static void destroy_in_callback(void *user_data, const vn_flow_event *event) {
    (void)event;
    self_destroying *s = user_data;
    atomic_fetch_add(&s->calls, 1);
    if (atomic_exchange(&s->destroyed, 1) == 0) vn_flow_destroy(s->flow);
    notify();
}

static void count_release(void *user_data) {
    self_destroying *s = user_data;
    atomic_fetch_add(&s->releases, 1);
    notify();
}

static void test_a_subscriber_destroys_its_flow(void) {
    rig r;
    if (!rig_open(&r, 0)) return;
    /* This subscriber's events come on the event thread (a flow without a loop): a second flow over the same parts. */
    self_destroying s = {.flow = NULL};
    EXPECT_STATUS(VN_OK, vn_flow_create(r.recorder, r.player, NULL, &s.flow));
    EXPECT_STATUS(VN_OK, vn_flow_subscribe(s.flow, destroy_in_callback, &s, count_release, NULL));
    int ok;
    WAIT_UNTIL(ok, atomic_load(&s.releases) == 1, WAIT_MS);
    EXPECT(ok, "the subscription was not released after its flow was destroyed in the callback");
    EXPECT(atomic_load(&s.calls) == 1, "%d callbacks, want 1", atomic_load(&s.calls));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_press(s.flow, 0, 0));
    rig_close(&r);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Drafts */

typedef struct {
    int count;
    char key[128], path[400];
    double duration_s;
} draft_list;

static void on_draft(void *user_data, const char *key, const char *path, double duration_s) {
    draft_list *list = user_data;
    if (list->count++ == 0) {
        snprintf(list->key, sizeof list->key, "%s", key);
        snprintf(list->path, sizeof list->path, "%s", path);
        list->duration_s = duration_s;
    }
}

static void test_park_list_restore_and_clear_drafts(void) {
    rig r;
    if (!rig_open_with(&r, 0, "!room:example.org")) return;
    int parked = reach(&r, VN_FLOW_LOCKED);
    EXPECT(parked, "could not record");
    EXPECT_STATUS(VN_OK, vn_flow_park(r.flow));
    /* PARKED comes before the idle view. */
    EXPECT(parked && dispatch_until(&r, VN_FLOW_IDLE, 0), "the flow did not go idle after park");
    EXPECT(r.seen.parked == 1 && r.seen.parked_duration_s > 0.3, "PARKED: %d, %.3f s", r.seen.parked,
           r.seen.parked_duration_s);
    rig_close(&r);

    draft_list list = {0};
    size_t count = 99;
    EXPECT_STATUS(VN_OK, vn_flow_drafts_list(drafts_directory, on_draft, &list, &count));
    EXPECT(count == 1 && list.count == 1 && strcmp(list.key, "!room:example.org") == 0 &&
           strcmp(list.path, r.seen.parked_path) == 0, "listed %zu: %s %s", count, list.key, list.path);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_drafts_list(drafts_directory, NULL, NULL, NULL));

    /* Another flow with the key starts in preview with the take. */
    rig again;
    if (!rig_open_with(&again, 0, "!room:example.org")) return;
    EXPECT(dispatch_until(&again, VN_FLOW_PREVIEW, 0) &&
               distance(again.seen.duration_s, r.seen.parked_duration_s) < 1e-3,
           "not restored: state %d, %.3f s", again.seen.state, again.seen.duration_s);
    rig_close(&again); /* in preview: the draft stays */

    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_drafts_clear(drafts_directory, ""));
    EXPECT_STATUS(VN_OK, vn_flow_drafts_clear(drafts_directory, "another key"));
    EXPECT_STATUS(VN_OK, vn_flow_drafts_clear(drafts_directory, "!room:example.org"));
    struct stat info;
    EXPECT(stat(list.path, &info) != 0, "the draft's audio is still there");
    memset(&list, 0, sizeof list);
    EXPECT_STATUS(VN_OK, vn_flow_drafts_list(drafts_directory, on_draft, &list, &count));
    EXPECT(count == 0 && list.count == 0, "%zu drafts left", count);

    vn_flow_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_flow_options_create(&options));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_draft(options, "", NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_draft(options, "k", ""));
    char long_key[102];
    memset(long_key, 'k', 101);
    long_key[101] = '\0';
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_flow_options_set_draft(options, long_key, NULL));
    EXPECT_STATUS(VN_OK, vn_flow_options_set_draft(options, NULL, NULL));
    vn_flow_options_destroy(options);
}

/* What a C host does when the user leaves a conversation: park, then destroy at once (the take's end may still be on
 * its way). A second flow on the same key (another window) records, but its take is not the draft: park refuses it
 * with VN_E_BUSY, and it never replaces the first one's. */
static void test_park_then_destroy_at_once_and_one_flow_per_key(void) {
    rig r, other;
    if (!rig_open_with(&r, 0, "conversation-2")) return;
    if (!rig_open_with(&other, 0, "conversation-2")) {
        rig_close(&r);
        return;
    }
    int recording = reach(&r, VN_FLOW_LOCKED) && reach(&other, VN_FLOW_PREVIEW);
    EXPECT(recording, "could not record: states %d, %d", r.seen.state, other.seen.state);
    EXPECT_STATUS(VN_E_BUSY, vn_flow_park(other.flow));
    EXPECT(current_state(&other) == VN_FLOW_PREVIEW, "the refused take left preview");
    EXPECT_STATUS(VN_OK, vn_flow_park(r.flow));
    rig_close(&r);
    rig_close(&other);

    rig again;
    if (!rig_open_with(&again, 0, "conversation-2")) return;
    EXPECT(dispatch_until(&again, VN_FLOW_PREVIEW, 0) && again.seen.duration_s > 0.3,
           "the parked take was not restored: state %d, %.3f s", again.seen.state, again.seen.duration_s);
    rig_close(&again);
    EXPECT_STATUS(VN_OK, vn_flow_drafts_clear(drafts_directory, "conversation-2"));
}

/* A record names only a take in its own directory: one naming a file elsewhere is neither restored, moved nor
 * deleted; a damaged record is cleared by its key. */
static void test_a_record_names_only_its_own_files(void) {
    char outside[400], record[400];
    snprintf(outside, sizeof outside, "%s/thesis.ogg", directory);
    snprintf(record, sizeof record, "%s/6b6579.json", drafts_directory); /* "key" in hex */
    FILE *file = fopen(outside, "w");
    if (file == NULL) return;
    fputs("years of work", file);
    fclose(file);
    const char *records[] = {"{\"key\":\"key\",\"path\":\"%s\",\"duration\":1}",
                             "{\"key\":\"key\",\"file\":\"../thesis.ogg\",\"duration\":1}",
                             "{\"key\":\"key\",\"file\":\"x.ogg\",\"dur"};
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
        file = fopen(record, "w");
        if (file == NULL) return;
        fprintf(file, records[i], outside);
        fclose(file);
        rig r;
        if (!rig_open_with(&r, 0, "key")) return;
        EXPECT(dispatch_until(&r, VN_FLOW_IDLE, 0), "record %zu was restored", i);
        rig_close(&r);
        EXPECT_STATUS(VN_OK, vn_flow_drafts_clear(drafts_directory, i == 1 ? NULL : "key"));
        struct stat info;
        EXPECT(stat(record, &info) != 0, "record %zu was not cleared", i);
        EXPECT(stat(outside, &info) == 0 && info.st_size == 13, "record %zu touched the file it named", i);
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Trimming in the background, and takes too short to keep */

static int sent_and_idle(const rig *r) { return r->seen.ready == 1 && r->seen.state == VN_FLOW_IDLE; }
static int idle(const rig *r) { return r->seen.state == VN_FLOW_IDLE; }
static int too_short_and_idle(const rig *r) { return r->seen.too_short == 1 && r->seen.state == VN_FLOW_IDLE; }

static void test_trim_returns_at_once_and_its_end_is_an_event(void) {
    rig r;
    if (!rig_open(&r, 0)) return;
    if (EXPECT(reach(&r, VN_FLOW_PREVIEW), "no preview")) {
        EXPECT_STATUS(VN_OK, vn_flow_trim(r.flow, 0.1, 0.6));
        EXPECT_STATUS(VN_OK, vn_flow_send(r.flow)); /* during the trim, or just after: the cut take is sent */
        EXPECT(dispatch_while_not(&r, sent_and_idle), "not sent: %d ready, state %d", r.seen.ready, r.seen.state);
        EXPECT(r.seen.trimmed == 1 && r.seen.trimmed_status == VN_OK && distance(r.seen.trimmed_duration_s, 0.5) < 1e-6,
               "TRIMMED: %d, %s, %.6f s", r.seen.trimmed, vn_status_name(r.seen.trimmed_status), r.seen.trimmed_duration_s);
        EXPECT(strcmp(r.seen.order, "TR") == 0, "events in order %s, not TRIMMED then ATTACHMENT_READY", r.seen.order);
    }
    rig_close(&r);
}

/* An AAC take (re-encoded by a trim): discard during its trim deletes it, destroy during its trim leaves it whole. */
static void test_discard_and_destroy_during_a_trim(void) {
    rig r;
    if (!rig_open_full(&r, 0, NULL, 1, 0)) return;
    if (EXPECT(reach(&r, VN_FLOW_PREVIEW), "no preview")) {
        char path[600] = "";
        DIR *takes = NULL;
        char folder[300];
        snprintf(folder, sizeof folder, "%s/takes", directory);
        if ((takes = opendir(folder)) != NULL) {
            struct dirent *entry;
            while ((entry = readdir(takes)) != NULL)
                if (strstr(entry->d_name, ".aac") != NULL) snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
            closedir(takes);
        }
        EXPECT(path[0] != '\0', "no AAC take in %s", folder);
        EXPECT_STATUS(VN_OK, vn_flow_trim(r.flow, 0.1, 0.6));
        EXPECT_STATUS(VN_OK, vn_flow_discard(r.flow));
        EXPECT(current_state(&r) == VN_FLOW_IDLE, "discard during a trim did not go idle");
        EXPECT(dispatch_while_not(&r, idle), "no idle view");
        rig_close(&r); /* waits for the worker: the deletion is done */
        struct stat info;
        EXPECT(path[0] == '\0' || stat(path, &info) != 0, "the discarded take %s is still there", path);
    } else {
        rig_close(&r);
    }

    if (!rig_open_full(&r, 0, "trimmed-at-destroy", 1, 0)) return;
    if (EXPECT(reach(&r, VN_FLOW_PREVIEW), "no preview")) {
        double original = r.seen.duration_s;
        EXPECT_STATUS(VN_OK, vn_flow_trim(r.flow, 0.1, 0.6));
        vn_flow_destroy(r.flow); /* returns at once (the bench's `flow` section times it), the trim abandoned */
        r.flow = NULL;
        rig again;
        rig_close(&r);
        if (rig_open_full(&again, 0, "trimmed-at-destroy", 1, 0)) {
            /* The draft: the take as it was, or as cut when the cut was in place before destroy. */
            EXPECT(dispatch_until(&again, VN_FLOW_PREVIEW, 0) &&
                       (distance(again.seen.duration_s, original) < 0.05 || again.seen.duration_s < 0.6 + 0.05),
                   "after destroy during a trim: state %d, %.3f s of %.3f s", again.seen.state, again.seen.duration_s, original);
            rig_close(&again);
        }
        EXPECT_STATUS(VN_OK, vn_flow_drafts_clear(drafts_directory, "trimmed-at-destroy"));
    } else {
        rig_close(&r);
    }
}

/* A real capture whose take the recorder drops (shorter than its minimum, as a take released before any audio
 * arrived): TOO_SHORT with the seconds captured, then the idle view; nothing is sent. */
static void test_a_take_too_short_to_keep_is_an_event(void) {
    rig r;
    if (!rig_open_full(&r, 0, NULL, 0, 3600)) return;
    if (EXPECT(reach(&r, VN_FLOW_RECORDING), "no take")) {
        EXPECT_STATUS(VN_OK, vn_flow_release(r.flow));
        EXPECT(dispatch_while_not(&r, too_short_and_idle), "TOO_SHORT: %d, state %d", r.seen.too_short, r.seen.state);
        EXPECT(r.seen.too_short_duration_s > 0.3 && r.seen.ready == 0 && strcmp(r.seen.order, "S") == 0,
               "%.3f s, %d ready, events %s", r.seen.too_short_duration_s, r.seen.ready, r.seen.order);
    }
    rig_close(&r);
}

int main(void) {
    harness_init("flow");
    if (!temp_directory_create(directory, sizeof directory, "flow")) return 1;
    char tone[400];
    snprintf(tone, sizeof tone, "%s/mic.wav", directory);
    if (!write_tone(tone, 30)) return 1;
    snprintf(drafts_directory, sizeof drafts_directory, "%s/drafts", directory);
    /* The WAV's 44-byte header reaches the recorder as 22 samples: the raw file plugin does not parse it. */
    snprintf(microphone, sizeof microphone,
             "pcm.vn_flow_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"%s\" format raw }", tone);
    TEST(test_null_destroyed_and_bad_arguments);
    TEST(test_every_input_in_every_state);
    TEST(test_hurried_inputs_from_two_threads);
    TEST(test_a_subscriber_destroys_its_flow);
    TEST(test_park_list_restore_and_clear_drafts);
    TEST(test_park_then_destroy_at_once_and_one_flow_per_key);
    TEST(test_a_record_names_only_its_own_files);
    TEST(test_trim_returns_at_once_and_its_end_is_an_event);
    TEST(test_discard_and_destroy_during_a_trim);
    TEST(test_a_take_too_short_to_keep_is_an_event);
    temp_directory_remove(directory);
    return harness_finish();
}
