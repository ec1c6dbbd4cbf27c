/*
 * contract.c: the subscription and threading contract of voicenote.h, checked from C with a vn_test_source.
 *
 * - 10,000 subscribe/unsubscribe cycles on a source firing from its own thread: after vn_unsubscribe returns
 *   no callback of that subscription runs; release runs exactly once (and before vn_unsubscribe returns);
 *   ids are non-zero and never reused.
 * - vn_unsubscribe and vn_test_source_destroy from inside a callback do not deadlock; release then runs once,
 *   after that callback returned, on the callback's thread.
 * - vn_unsubscribe and destroy from another thread wait for a callback that is running.
 * - Default delivery: on one library thread, not the caller's, not the firing thread, not main.
 * - Order: sequence numbers strictly +1 per subscriber with no gaps, with many subscribers and several
 *   producers at once, and for a subscriber that joins mid-stream.
 * - Event loops: callbacks only inside vn_event_loop_dispatch on the calling thread; the fd is readable while
 *   events are pending and not after a full dispatch; nested dispatch is VN_E_MISUSE; two loops do not
 *   disturb each other; unsubscribe and destroy inside a dispatched callback; destroying the loop first.
 *
 * Every wait is bounded; a watchdog ends the run if a test deadlocks.
 */
#include "harness.h"

#include <poll.h>
#include <stdint.h>

static pthread_t main_thread;

/* Whether the loop's fd is readable within `timeout_ms`. */
static int fd_readable(int fd, int timeout_ms) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int rc;
    do rc = poll(&p, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    return rc > 0 && (p.revents & POLLIN);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Draining the event thread: it delivers in order on one thread, so once an event queued now has been
 * delivered, everything queued before it has been delivered or skipped. */

static atomic_int drain_seen;
static void drain_callback(void *user_data, const vn_test_event *event) {
    (void)user_data;
    (void)event;
    atomic_store(&drain_seen, 1);
    notify();
}

static int drain_event_thread(void) {
    vn_test_source *source = NULL;
    int ok = 0;
    atomic_store(&drain_seen, 0);
    if (vn_test_source_create(NULL, &source) != VN_OK) return 0;
    if (vn_test_source_subscribe(source, drain_callback, NULL, NULL, NULL) == VN_OK &&
        vn_test_source_emit(source, 1) == VN_OK) {
        WAIT_UNTIL(ok, atomic_load(&drain_seen), 10000);
    }
    vn_test_source_destroy(source);
    return EXPECT(ok, "the event thread did not deliver a drain event within 10 s");
}

/* ------------------------------------------------------------------------------------------------------------ */
/* 10,000 subscribe/unsubscribe cycles */

#define CYCLES 10000

typedef struct cycle_state {
    atomic_int unsubscribed; /* set by the test right after vn_unsubscribe returned */
    atomic_int released;
    atomic_int calls;
    atomic_int in_callback;  /* for the statistics: was a callback running when unsubscribe began? */
} cycle_state;

static atomic_int cycle_after_unsubscribe, cycle_after_release, cycle_double_release, cycle_release_total;

static void cycle_callback(void *user_data, const vn_test_event *event) {
    cycle_state *state = user_data;
    (void)event;
    atomic_store(&state->in_callback, 1);
    if (atomic_load(&state->unsubscribed)) atomic_fetch_add(&cycle_after_unsubscribe, 1);
    if (atomic_load(&state->released)) atomic_fetch_add(&cycle_after_release, 1);
    if (atomic_fetch_add(&state->calls, 1) == 0) notify();
    /* Checked again on the way out: a callback still running when vn_unsubscribe returned (or when release
     * ran) breaks the contract as much as one that starts afterwards. */
    if (atomic_load(&state->unsubscribed)) atomic_fetch_add(&cycle_after_unsubscribe, 1);
    if (atomic_load(&state->released)) atomic_fetch_add(&cycle_after_release, 1);
    atomic_store(&state->in_callback, 0);
}

static void cycle_release(void *user_data) {
    cycle_state *state = user_data;
    if (atomic_fetch_add(&state->released, 1) != 0) atomic_fetch_add(&cycle_double_release, 1);
    atomic_fetch_add(&cycle_release_total, 1);
}

static int compare_ids(const void *a, const void *b) {
    vn_subscription_id x = *(const vn_subscription_id *)a, y = *(const vn_subscription_id *)b;
    return x < y ? -1 : x > y;
}

static void test_subscribe_unsubscribe_cycles(void) {
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, 0, 0)); /* fires from its own thread until stopped */

    cycle_state *states = calloc(CYCLES, sizeof *states);
    vn_subscription_id *ids = calloc(CYCLES, sizeof *ids);
    if (states == NULL || ids == NULL) harness_fatal("out of memory");
    int done = 0, bad_status = 0, no_release = 0, waited = 0, zero_id = 0, delivered = 0, during_callback = 0;
    for (int i = 0; i < CYCLES; i++) {
        if (vn_test_source_subscribe(source, cycle_callback, &states[i], cycle_release, &ids[i]) != VN_OK) {
            EXPECT(0, "cycle %d: subscribe failed: %s", i, vn_last_error_message());
            break;
        }
        if (ids[i] == 0) zero_id++;
        if (i % 2 == 0) {
            /* Every 2nd cycle lets a callback run first, so unsubscribe races with delivery in progress. */
            int ok;
            WAIT_UNTIL(ok, atomic_load(&states[i].calls) > 0, 10000);
            if (!EXPECT(ok, "cycle %d: no event delivered within 10 s", i)) {
                vn_unsubscribe(ids[i]);
                break;
            }
            waited++;
        }
        during_callback += atomic_load(&states[i].in_callback);
        if (vn_unsubscribe(ids[i]) != VN_OK) bad_status++;
        atomic_store(&states[i].unsubscribed, 1);
        delivered += atomic_load(&states[i].calls) > 0;
        /* release runs on the thread that ended the subscription, so it has run by now. */
        if (atomic_load(&states[i].released) != 1) no_release++;
        done++;
    }
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source));
    uint64_t fired = 0;
    EXPECT_STATUS(VN_OK, vn_test_source_fired(source, &fired));
    vn_test_source_destroy(source);
    drain_event_thread(); /* every event queued for the ended subscriptions has now been skipped (or run) */

    EXPECT(done == CYCLES, "only %d of %d cycles ran", done, CYCLES);
    EXPECT(bad_status == 0, "vn_unsubscribe failed %d times", bad_status);
    EXPECT(zero_id == 0, "%d subscription ids were 0", zero_id);
    EXPECT(atomic_load(&cycle_after_unsubscribe) == 0, "%d callbacks ran (or were still running) after "
           "vn_unsubscribe returned", atomic_load(&cycle_after_unsubscribe));
    EXPECT(atomic_load(&cycle_after_release) == 0, "%d callbacks ran (or were still running) after release",
           atomic_load(&cycle_after_release));
    EXPECT(atomic_load(&cycle_double_release) == 0, "release ran twice for %d subscriptions",
           atomic_load(&cycle_double_release));
    EXPECT(no_release == 0, "release had not run when vn_unsubscribe returned in %d cycles", no_release);
    EXPECT(atomic_load(&cycle_release_total) == done, "release ran %d times for %d subscriptions",
           atomic_load(&cycle_release_total), done);
    qsort(ids, (size_t)done, sizeof *ids, compare_ids);
    int reused = 0;
    for (int i = 1; i < done; i++) reused += ids[i] == ids[i - 1];
    EXPECT(reused == 0, "%d subscription ids were given twice", reused);
    printf("      %d cycles: %d waited for a first callback, %d got callbacks, %d unsubscribed while one ran; "
           "%llu events fired\n", done, waited, delivered, during_callback, (unsigned long long)fired);
    free(states);
    free(ids);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Unsubscribe from inside the subscription's own callback */

typedef struct self_ending {
    vn_subscription_id id;      /* written before any event is emitted */
    vn_test_source *source;     /* for the destroying variant */
    int destroy;                /* 1: destroy the source instead of unsubscribing */
    atomic_int calls;
    atomic_int in_callback;
    atomic_int released;
    atomic_int release_inside_callback;
    atomic_int release_on_callback_thread;
    atomic_int first_status, second_status;
    pthread_t callback_thread;  /* written in the callback before `released` can change */
} self_ending;

static void self_ending_callback(void *user_data, const vn_test_event *event) {
    self_ending *s = user_data;
    (void)event;
    atomic_store(&s->in_callback, 1);
    if (atomic_fetch_add(&s->calls, 1) == 0) {
        s->callback_thread = pthread_self();
        if (s->destroy) {
            vn_test_source_destroy(s->source);
            /* The handle is dead now, also for a call from inside its own callback. */
            atomic_store(&s->second_status, vn_test_source_emit(s->source, 1));
        } else {
            atomic_store(&s->first_status, vn_unsubscribe(s->id));
            atomic_store(&s->second_status, vn_unsubscribe(s->id));
        }
    }
    atomic_store(&s->in_callback, 0);
    notify();
}

static void self_ending_release(void *user_data) {
    self_ending *s = user_data;
    if (atomic_load(&s->in_callback)) atomic_fetch_add(&s->release_inside_callback, 1);
    atomic_store(&s->release_on_callback_thread, pthread_equal(s->callback_thread, pthread_self()) != 0);
    atomic_fetch_add(&s->released, 1);
    notify();
}

/* A plain counting subscriber. */
typedef struct counter {
    atomic_int calls;
    atomic_int released;
    atomic_int after_release;
    atomic_uint_least64_t last_sequence;
} counter;

static void counter_callback(void *user_data, const vn_test_event *event) {
    counter *c = user_data;
    if (atomic_load(&c->released)) atomic_fetch_add(&c->after_release, 1);
    atomic_store(&c->last_sequence, event->sequence);
    atomic_fetch_add(&c->calls, 1);
    notify();
}

static void counter_release(void *user_data) {
    counter *c = user_data;
    atomic_fetch_add(&c->released, 1);
    notify();
}

static void test_unsubscribe_inside_callback(void) {
    static self_ending s;
    static counter sentinel;
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, self_ending_callback, &s, self_ending_release, &s.id));
    /* Subscribed second, so its callback for event N runs after s's for event N. */
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, counter_callback, &sentinel, counter_release, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 5));

    int ok;
    WAIT_UNTIL(ok, atomic_load(&s.released) > 0 && atomic_load(&sentinel.calls) == 5, 10000);
    if (!ok) harness_fatal("vn_unsubscribe from inside the callback did not return, or release never ran");
    EXPECT_STATUS(VN_OK, atomic_load(&s.first_status));
    EXPECT_STATUS(VN_E_MISUSE, atomic_load(&s.second_status)); /* already ended */
    EXPECT(atomic_load(&s.calls) == 1, "the callback ran %d times; expected once", atomic_load(&s.calls));
    EXPECT(atomic_load(&s.released) == 1, "release ran %d times", atomic_load(&s.released));
    EXPECT(atomic_load(&s.release_inside_callback) == 0, "release ran while the callback was still running");
    EXPECT(atomic_load(&s.release_on_callback_thread), "release did not run on the callback's thread");
    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(s.id));

    vn_test_source_destroy(source);
    EXPECT(atomic_load(&s.released) == 1, "destroy ran release again (%d)", atomic_load(&s.released));
    EXPECT(atomic_load(&sentinel.released) == 1, "destroy did not release the other subscriber");
}

static void test_destroy_inside_callback(void) {
    static self_ending s;
    static counter other;
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    s.destroy = 1;
    s.source = source;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, self_ending_callback, &s, self_ending_release, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, counter_callback, &other, counter_release, NULL));
    /* Firing from its own thread: destroy from the callback must also stop and join that thread. */
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, 0, 0));

    int ok;
    WAIT_UNTIL(ok, atomic_load(&s.released) > 0 && atomic_load(&other.released) > 0, 10000);
    if (!ok) harness_fatal("vn_test_source_destroy from inside a callback did not return, or release never ran");
    EXPECT_STATUS(VN_E_MISUSE, atomic_load(&s.second_status));
    drain_event_thread();
    EXPECT(atomic_load(&s.calls) == 1, "the destroying callback ran %d times", atomic_load(&s.calls));
    EXPECT(atomic_load(&s.released) == 1, "release ran %d times", atomic_load(&s.released));
    EXPECT(atomic_load(&s.release_inside_callback) == 0, "release ran while the destroying callback ran");
    EXPECT(atomic_load(&s.release_on_callback_thread), "release did not run on the callback's thread");
    EXPECT(atomic_load(&other.released) == 1, "the other subscriber was released %d times",
           atomic_load(&other.released));
    EXPECT(atomic_load(&other.after_release) == 0, "the other subscriber was called after its release");
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Unsubscribe and destroy from another thread wait for a running callback */

typedef struct blocker {
    atomic_int entered, may_finish, finished, released, timed_out, calls;
} blocker;

static void blocker_callback(void *user_data, const vn_test_event *event) {
    blocker *b = user_data;
    (void)event;
    if (atomic_fetch_add(&b->calls, 1) != 0) return;
    atomic_store(&b->entered, 1);
    notify();
    int ok;
    WAIT_UNTIL(ok, atomic_load(&b->may_finish), 10000);
    if (!ok) atomic_store(&b->timed_out, 1);
    atomic_store(&b->finished, 1);
}

static void blocker_release(void *user_data) {
    blocker *b = user_data;
    atomic_fetch_add(&b->released, 1);
    notify();
}

/* Lets the blocked callback finish after a delay, from its own thread. */
static void *blocker_releaser(void *arg) {
    blocker *b = arg;
    delay_ms(300);
    atomic_store(&b->may_finish, 1);
    notify();
    return NULL;
}

static void run_waits_for_running_callback(int use_destroy) {
    static blocker blockers[2];
    blocker *b = &blockers[use_destroy];
    vn_test_source *source = NULL;
    vn_subscription_id id = 0;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, blocker_callback, b, blocker_release, &id));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 1));
    int ok;
    WAIT_UNTIL(ok, atomic_load(&b->entered), 10000);
    if (!EXPECT(ok, "the callback did not start within 10 s")) {
        atomic_store(&b->may_finish, 1);
        notify();
        vn_test_source_destroy(source);
        return;
    }
    pthread_t releaser = harness_start_thread(blocker_releaser, b);
    long long start = harness_now_ms();
    if (use_destroy) {
        vn_test_source_destroy(source);
    } else {
        EXPECT_STATUS(VN_OK, vn_unsubscribe(id));
    }
    long long waited = harness_now_ms() - start;
    EXPECT(atomic_load(&b->finished), "%s returned after %lld ms while the callback was still running",
           use_destroy ? "vn_test_source_destroy" : "vn_unsubscribe", waited);
    EXPECT(atomic_load(&b->released) == 1, "release ran %d times by the time it returned", atomic_load(&b->released));
    EXPECT(!atomic_load(&b->timed_out), "the callback was never allowed to finish");
    pthread_join(releaser, NULL);
    if (!use_destroy) vn_test_source_destroy(source);
    EXPECT(atomic_load(&b->released) == 1, "release ran %d times", atomic_load(&b->released));
    printf("      waited %lld ms for the running callback\n", waited);
}

static void test_unsubscribe_waits_for_running_callback(void) { run_waits_for_running_callback(0); }
static void test_destroy_waits_for_running_callback(void) { run_waits_for_running_callback(1); }

/* ------------------------------------------------------------------------------------------------------------ */
/* Default delivery thread */

#define THREAD_EVENTS 3
static struct {
    atomic_int calls;
    pthread_t threads[THREAD_EVENTS];
    int from_library_thread[THREAD_EVENTS];
    size_t sizes[THREAD_EVENTS];
    uint64_t sequences[THREAD_EVENTS];
} where;

static void where_callback(void *user_data, const vn_test_event *event) {
    (void)user_data;
    int i = atomic_load(&where.calls);
    if (i < THREAD_EVENTS) {
        where.threads[i] = pthread_self();
        where.from_library_thread[i] = event->from_library_thread;
        where.sizes[i] = event->size;
        where.sequences[i] = event->sequence;
    }
    atomic_fetch_add(&where.calls, 1);
    notify();
}

static vn_test_source *emitter_source;
static void *emit_one(void *unused) {
    (void)unused;
    EXPECT_STATUS(VN_OK, vn_test_source_emit(emitter_source, 1));
    return NULL;
}

static void test_default_delivery_thread(void) {
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, where_callback, NULL, NULL, NULL));

    /* Event 1 from a helper thread, event 2 from the source's own thread, event 3 from main. */
    emitter_source = source;
    pthread_t helper = harness_start_thread(emit_one, NULL);
    pthread_join(helper, NULL);
    int ok;
    WAIT_UNTIL(ok, atomic_load(&where.calls) >= 1, 10000);
    EXPECT(ok, "event 1 was not delivered");
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, 1, 0));
    WAIT_UNTIL(ok, atomic_load(&where.calls) >= 2, 10000);
    EXPECT(ok, "event 2 was not delivered");
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 1));
    WAIT_UNTIL(ok, atomic_load(&where.calls) >= 3, 10000);
    EXPECT(ok, "event 3 was not delivered");
    vn_test_source_destroy(source);
    if (!ok) return;

    for (int i = 0; i < THREAD_EVENTS; i++) {
        EXPECT(!pthread_equal(where.threads[i], main_thread), "event %d was delivered on the main thread", i + 1);
        EXPECT(where.sizes[i] == sizeof(vn_test_event), "event %d: size %zu, expected %zu", i + 1, where.sizes[i],
               sizeof(vn_test_event));
        EXPECT(where.sequences[i] == (uint64_t)i + 1, "event %d: sequence %llu", i + 1,
               (unsigned long long)where.sequences[i]);
        EXPECT(pthread_equal(where.threads[i], where.threads[0]),
               "event %d was delivered on another thread than event 1 (one event thread expected)", i + 1);
    }
    EXPECT(!pthread_equal(where.threads[0], helper), "event 1 was delivered on the thread that fired it");
    EXPECT(where.from_library_thread[0] == 0, "event 1 (vn_test_source_emit) says from_library_thread=%d",
           where.from_library_thread[0]);
    EXPECT(where.from_library_thread[1] == 1, "event 2 (the source's thread) says from_library_thread=%d",
           where.from_library_thread[1]);
    EXPECT(where.from_library_thread[2] == 0, "event 3 (vn_test_source_emit) says from_library_thread=%d",
           where.from_library_thread[2]);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Order */

typedef struct sequence_checker {
    atomic_uint_least64_t last;
    atomic_int calls;
    atomic_int gaps;
    atomic_int not_main, in_dispatch_violations; /* for loop mode */
    int first_must_be_one;
    uint64_t first_gap_after, first_gap_got;
} sequence_checker;

static atomic_int loop_mode_in_dispatch; /* set by the test around vn_event_loop_dispatch */

static void sequence_callback(void *user_data, const vn_test_event *event) {
    sequence_checker *c = user_data;
    uint64_t last = atomic_load(&c->last);
    int gap = last == 0 ? (c->first_must_be_one && event->sequence != 1) : event->sequence != last + 1;
    if (gap && atomic_fetch_add(&c->gaps, 1) == 0) {
        c->first_gap_after = last;
        c->first_gap_got = event->sequence;
    }
    atomic_store(&c->last, event->sequence);
    atomic_fetch_add(&c->calls, 1);
    notify();
}

static void loop_sequence_callback(void *user_data, const vn_test_event *event) {
    sequence_checker *c = user_data;
    if (!pthread_equal(pthread_self(), main_thread)) atomic_fetch_add(&c->not_main, 1);
    if (!atomic_load(&loop_mode_in_dispatch)) atomic_fetch_add(&c->in_dispatch_violations, 1);
    sequence_callback(user_data, event);
}

static void expect_in_order(sequence_checker *c, const char *who, uint64_t total) {
    EXPECT(atomic_load(&c->gaps) == 0, "%s: %d sequence gaps; first: %llu after %llu", who, atomic_load(&c->gaps),
           (unsigned long long)c->first_gap_got, (unsigned long long)c->first_gap_after);
    EXPECT(atomic_load(&c->last) == total, "%s: last sequence %llu, expected %llu", who,
           (unsigned long long)atomic_load(&c->last), (unsigned long long)total);
}

#define ORDER_SUBSCRIBERS 8
#define ORDER_FROM_THREAD 4000
#define ORDER_EMITTERS 2
#define ORDER_PER_EMITTER 3000
#define ORDER_TAIL 500 /* fired by main after the late subscriber joined, so it always gets events */
#define ORDER_TOTAL (ORDER_FROM_THREAD + ORDER_EMITTERS * ORDER_PER_EMITTER + ORDER_TAIL)

static void *emit_many(void *arg) {
    vn_test_source *source = arg;
    for (int i = 0; i < ORDER_PER_EMITTER; i++) {
        if (vn_test_source_emit(source, 1) != VN_OK) {
            EXPECT(0, "vn_test_source_emit failed: %s", vn_last_error_message());
            break;
        }
    }
    return NULL;
}

static void test_order_many_subscribers_many_producers(void) {
    static sequence_checker checkers[ORDER_SUBSCRIBERS], late;
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    for (int i = 0; i < ORDER_SUBSCRIBERS; i++) {
        checkers[i].first_must_be_one = 1;
        EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, sequence_callback, &checkers[i], NULL, NULL));
    }
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, ORDER_FROM_THREAD, 0));
    pthread_t emitters[ORDER_EMITTERS];
    for (int i = 0; i < ORDER_EMITTERS; i++) emitters[i] = harness_start_thread(emit_many, source);
    /* A subscriber that joins mid-stream starts anywhere but still sees no gap. */
    int ok;
    WAIT_UNTIL(ok, atomic_load(&checkers[0].calls) >= 100, 10000);
    EXPECT(ok, "no events delivered within 10 s");
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, sequence_callback, &late, NULL, NULL));
    for (int i = 0; i < ORDER_TAIL; i++) EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 1));
    for (int i = 0; i < ORDER_EMITTERS; i++) pthread_join(emitters[i], NULL);

    WAIT_UNTIL(ok, atomic_load(&late.last) == ORDER_TOTAL && atomic_load(&checkers[ORDER_SUBSCRIBERS - 1].calls) == ORDER_TOTAL, 30000);
    EXPECT(ok, "not every event was delivered within 30 s");
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source));
    uint64_t fired = 0;
    EXPECT_STATUS(VN_OK, vn_test_source_fired(source, &fired));
    EXPECT(fired == ORDER_TOTAL, "fired %llu, expected %d", (unsigned long long)fired, ORDER_TOTAL);
    vn_test_source_destroy(source);
    char who[32];
    for (int i = 0; i < ORDER_SUBSCRIBERS; i++) {
        snprintf(who, sizeof who, "subscriber %d", i);
        expect_in_order(&checkers[i], who, ORDER_TOTAL);
        EXPECT(atomic_load(&checkers[i].calls) == ORDER_TOTAL, "%s: %d calls", who, atomic_load(&checkers[i].calls));
    }
    expect_in_order(&late, "late subscriber", ORDER_TOTAL);
    EXPECT(atomic_load(&late.calls) >= ORDER_TAIL && atomic_load(&late.calls) <= ORDER_TOTAL,
           "late subscriber: %d calls", atomic_load(&late.calls));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Event loops */

/* Dispatches `loop` on this thread with the in-dispatch flag set; returns the status. */
static int dispatch(vn_event_loop *loop, size_t *count) {
    atomic_store(&loop_mode_in_dispatch, 1);
    int status = vn_event_loop_dispatch(loop, count);
    atomic_store(&loop_mode_in_dispatch, 0);
    return status;
}

static void test_loop_delivers_only_inside_dispatch(void) {
    static sequence_checker a, b;
    vn_event_loop *loop = NULL;
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    if (loop == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop, &source));
    if (source == NULL) {
        vn_event_loop_destroy(loop);
        return;
    }
    a.first_must_be_one = b.first_must_be_one = 1;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, loop_sequence_callback, &a, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, loop_sequence_callback, &b, NULL, NULL));
    int fd = vn_event_loop_fd(loop);
    EXPECT(fd >= 0, "vn_event_loop_fd: %d", fd);
    EXPECT(!fd_readable(fd, 0), "the fd is readable before any event");
    int pending = -1;
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop, 0, &pending));
    EXPECT(pending == 0, "vn_event_loop_wait(0) says %d pending before any event", pending);

    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 50));
    EXPECT(fd_readable(fd, 1000), "the fd is not readable while 50 events are pending");
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop, 1000, &pending));
    EXPECT(pending == 1, "vn_event_loop_wait says %d pending with 50 events queued", pending);
    EXPECT(atomic_load(&a.calls) == 0, "%d callbacks ran before dispatch", atomic_load(&a.calls));

    size_t count = 0;
    EXPECT_STATUS(VN_OK, dispatch(loop, &count));
    EXPECT(count == 100, "dispatch ran %zu callbacks, expected 100 (2 subscribers x 50 events)", count);
    EXPECT(atomic_load(&a.calls) == 50 && atomic_load(&b.calls) == 50, "calls: %d and %d, expected 50 each",
           atomic_load(&a.calls), atomic_load(&b.calls));
    EXPECT(!fd_readable(fd, 100), "the fd is still readable after a full dispatch with nothing new");
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop, 0, &pending));
    EXPECT(pending == 0, "vn_event_loop_wait(0) says %d pending after a full dispatch", pending);
    long long start = harness_now_ms();
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop, 100, &pending));
    long long waited = harness_now_ms() - start;
    EXPECT(pending == 0 && waited >= 90, "vn_event_loop_wait(100) with nothing pending: pending %d after %lld ms",
           pending, waited);
    EXPECT_STATUS(VN_OK, dispatch(loop, &count));
    EXPECT(count == 0, "an empty dispatch ran %zu callbacks", count);

    /* Events from the source's own thread, dispatched as they come. */
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, 2000, 0));
    long long deadline = harness_now_ms() + 30000;
    while ((atomic_load(&a.calls) < 2050 || atomic_load(&b.calls) < 2050) && harness_now_ms() < deadline) {
        if (fd_readable(fd, 1000)) EXPECT_STATUS(VN_OK, dispatch(loop, NULL));
    }
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source));
    EXPECT(!fd_readable(fd, 100), "the fd is readable after every event was dispatched");
    expect_in_order(&a, "loop subscriber a", 2050);
    expect_in_order(&b, "loop subscriber b", 2050);
    EXPECT(atomic_load(&a.not_main) + atomic_load(&b.not_main) == 0,
           "%d callbacks ran on another thread than the one dispatching", atomic_load(&a.not_main) + atomic_load(&b.not_main));
    EXPECT(atomic_load(&a.in_dispatch_violations) + atomic_load(&b.in_dispatch_violations) == 0,
           "%d callbacks ran outside vn_event_loop_dispatch",
           atomic_load(&a.in_dispatch_violations) + atomic_load(&b.in_dispatch_violations));
    vn_test_source_destroy(source);
    vn_event_loop_destroy(loop);
}

/* vn_event_loop_wait from another thread wakes when an event arrives. */
static void *wait_for_pending(void *arg) {
    static int pending;
    pending = -1;
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(arg, 10000, &pending));
    return &pending;
}

static void test_loop_wait_wakes_other_thread(void) {
    vn_event_loop *loop = NULL;
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop, &source));
    if (loop == NULL || source == NULL) return;
    static counter c;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, counter_callback, &c, NULL, NULL));
    pthread_t waiter = harness_start_thread(wait_for_pending, loop);
    delay_ms(50); /* let it block first (if it does not, it returns at once: also correct) */
    long long start = harness_now_ms();
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 1));
    void *result = NULL;
    pthread_join(waiter, &result);
    EXPECT(*(int *)result == 1, "vn_event_loop_wait woke with pending=%d", *(int *)result);
    EXPECT(harness_now_ms() - start < 5000, "vn_event_loop_wait took %lld ms to see an event", harness_now_ms() - start);
    EXPECT(atomic_load(&c.calls) == 0, "a callback ran without dispatch");
    size_t count = 0;
    EXPECT_STATUS(VN_OK, vn_event_loop_dispatch(loop, &count));
    EXPECT(count == 1 && atomic_load(&c.calls) == 1, "dispatch: %zu, calls %d", count, atomic_load(&c.calls));
    vn_test_source_destroy(source);
    vn_event_loop_destroy(loop);
}

static vn_event_loop *nested_loop;
static atomic_int nested_status = 1, nested_wait_status = 1, nested_calls;

static void nested_callback(void *user_data, const vn_test_event *event) {
    (void)user_data;
    (void)event;
    size_t count = 99;
    atomic_store(&nested_status, vn_event_loop_dispatch(nested_loop, &count));
    int pending = -1;
    atomic_store(&nested_wait_status, vn_event_loop_wait(nested_loop, 0, &pending));
    atomic_fetch_add(&nested_calls, 1);
}

static void test_loop_nested_dispatch_is_misuse(void) {
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&nested_loop));
    EXPECT_STATUS(VN_OK, vn_test_source_create(nested_loop, &source));
    if (nested_loop == NULL || source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, nested_callback, NULL, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 2));
    size_t count = 0;
    EXPECT_STATUS(VN_OK, vn_event_loop_dispatch(nested_loop, &count));
    EXPECT(count == 2 && atomic_load(&nested_calls) == 2, "outer dispatch: %zu, calls %d", count,
           atomic_load(&nested_calls));
    EXPECT_STATUS(VN_E_MISUSE, atomic_load(&nested_status));
    EXPECT_STATUS(VN_OK, atomic_load(&nested_wait_status));
    /* The loop still works after the refused nested call. */
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 1));
    EXPECT_STATUS(VN_OK, vn_event_loop_dispatch(nested_loop, &count));
    EXPECT(count == 1, "dispatch after a nested attempt ran %zu", count);
    vn_test_source_destroy(source);
    vn_event_loop_destroy(nested_loop);
}

static struct {
    atomic_int calls;
    atomic_int wrong_thread;
    pthread_t expected; /* set before each dispatch */
} second_loop;

static void second_loop_callback(void *user_data, const vn_test_event *event) {
    (void)user_data;
    (void)event;
    if (!pthread_equal(pthread_self(), second_loop.expected)) atomic_fetch_add(&second_loop.wrong_thread, 1);
    atomic_fetch_add(&second_loop.calls, 1);
}

static void *dispatch_on_own_thread(void *arg) {
    static size_t count;
    second_loop.expected = pthread_self();
    count = 0;
    EXPECT_STATUS(VN_OK, vn_event_loop_dispatch(arg, &count));
    return &count;
}

static void test_two_loops_are_independent(void) {
    static sequence_checker first;
    vn_event_loop *loop1 = NULL, *loop2 = NULL;
    vn_test_source *source1 = NULL, *source2 = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop1));
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop2));
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop1, &source1));
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop2, &source2));
    if (!loop1 || !loop2 || !source1 || !source2) return;
    int fd1 = vn_event_loop_fd(loop1), fd2 = vn_event_loop_fd(loop2);
    EXPECT(fd1 >= 0 && fd2 >= 0 && fd1 != fd2, "fds %d and %d", fd1, fd2);
    first.first_must_be_one = 1;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source1, loop_sequence_callback, &first, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source2, second_loop_callback, NULL, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source1, 5));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source2, 7));

    size_t count = 0;
    EXPECT_STATUS(VN_OK, dispatch(loop1, &count));
    EXPECT(count == 5 && atomic_load(&first.calls) == 5, "loop 1 dispatched %zu (calls %d), expected 5", count,
           atomic_load(&first.calls));
    EXPECT(!fd_readable(fd1, 0), "loop 1's fd is readable after its full dispatch");
    EXPECT(atomic_load(&second_loop.calls) == 0, "dispatching loop 1 ran %d callbacks of loop 2",
           atomic_load(&second_loop.calls));
    EXPECT(fd_readable(fd2, 0), "loop 2's fd is not readable: dispatching loop 1 took its events");
    int pending = 0;
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop2, 0, &pending));
    EXPECT(pending == 1, "loop 2 says %d pending", pending);

    /* Loop 2 dispatched on another thread: its callbacks run there. */
    pthread_t other = harness_start_thread(dispatch_on_own_thread, loop2);
    void *result = NULL;
    pthread_join(other, &result);
    EXPECT(*(size_t *)result == 7 && atomic_load(&second_loop.calls) == 7, "loop 2 dispatched %zu (calls %d), expected 7",
           *(size_t *)result, atomic_load(&second_loop.calls));
    EXPECT(atomic_load(&second_loop.wrong_thread) == 0, "%d loop 2 callbacks ran off its dispatching thread",
           atomic_load(&second_loop.wrong_thread));
    EXPECT(!fd_readable(fd2, 0), "loop 2's fd is readable after its full dispatch");
    EXPECT(atomic_load(&first.calls) == 5, "dispatching loop 2 ran loop 1 callbacks");
    expect_in_order(&first, "loop 1 subscriber", 5);
    vn_test_source_destroy(source1);
    vn_test_source_destroy(source2);
    vn_event_loop_destroy(loop1);
    vn_event_loop_destroy(loop2);
}

static void test_loop_unsubscribe_and_destroy_inside_dispatch(void) {
    static self_ending unsub, destroyer;
    static counter after_unsub, after_destroyer;
    vn_event_loop *loop = NULL;
    vn_test_source *source1 = NULL, *source2 = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop, &source1));
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop, &source2));
    if (!loop || !source1 || !source2) return;

    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source1, self_ending_callback, &unsub, self_ending_release, &unsub.id));
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source1, counter_callback, &after_unsub, counter_release, NULL));
    destroyer.destroy = 1;
    destroyer.source = source2;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source2, self_ending_callback, &destroyer, self_ending_release, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source2, counter_callback, &after_destroyer, counter_release, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source1, 3));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source2, 3));

    size_t count = 0;
    EXPECT_STATUS(VN_OK, vn_event_loop_dispatch(loop, &count));
    /* source1: unsub runs once, after_unsub 3 times; source2: destroyer once, after_destroyer never. */
    int ran = atomic_load(&unsub.calls) + atomic_load(&after_unsub.calls) + atomic_load(&destroyer.calls) +
              atomic_load(&after_destroyer.calls);
    EXPECT(atomic_load(&unsub.calls) == 1, "self-unsubscribing callback ran %d times", atomic_load(&unsub.calls));
    EXPECT(atomic_load(&after_unsub.calls) == 3, "its neighbour ran %d times", atomic_load(&after_unsub.calls));
    EXPECT(atomic_load(&destroyer.calls) == 1, "destroying callback ran %d times", atomic_load(&destroyer.calls));
    EXPECT(atomic_load(&after_destroyer.calls) == 0, "a subscriber of the destroyed source ran %d times",
           atomic_load(&after_destroyer.calls));
    /* The header: `dispatched` "receives how many callbacks ran", not counting events of ended subscriptions. */
    EXPECT(count == (size_t)ran, "vn_event_loop_dispatch reported %zu callbacks, %d ran", count, ran);
    EXPECT_STATUS(VN_OK, atomic_load(&unsub.first_status));
    EXPECT_STATUS(VN_E_MISUSE, atomic_load(&unsub.second_status));
    EXPECT_STATUS(VN_E_MISUSE, atomic_load(&destroyer.second_status));
    EXPECT(atomic_load(&unsub.released) == 1 && atomic_load(&destroyer.released) == 1 &&
               atomic_load(&after_destroyer.released) == 1,
           "releases by the end of dispatch: %d, %d, %d", atomic_load(&unsub.released),
           atomic_load(&destroyer.released), atomic_load(&after_destroyer.released));
    EXPECT(atomic_load(&unsub.release_inside_callback) + atomic_load(&destroyer.release_inside_callback) == 0,
           "release ran inside the callback that ended its subscription");
    EXPECT(atomic_load(&unsub.release_on_callback_thread) && atomic_load(&destroyer.release_on_callback_thread) &&
               pthread_equal(unsub.callback_thread, main_thread),
           "release did not run on the dispatching thread");
    EXPECT(!fd_readable(vn_event_loop_fd(loop), 0), "the fd is readable after a full dispatch");
    vn_test_source_destroy(source1);
    EXPECT(atomic_load(&after_unsub.released) == 1, "destroy released the neighbour %d times",
           atomic_load(&after_unsub.released));
    vn_event_loop_destroy(loop);
}

/* Destroying the loop first: the source stays usable, its events are dropped, release still runs. */
static void test_loop_destroyed_before_its_source(void) {
    static counter c;
    vn_event_loop *loop = NULL;
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop, &source));
    if (!loop || !source) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, counter_callback, &c, counter_release, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 3)); /* pending, then dropped */
    vn_event_loop_destroy(loop);
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 3));
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, 100, 0));
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source));
    vn_test_source_destroy(source);
    EXPECT(atomic_load(&c.calls) == 0, "%d callbacks ran for a destroyed loop", atomic_load(&c.calls));
    EXPECT(atomic_load(&c.released) == 1, "release ran %d times", atomic_load(&c.released));
}

/* The header: `*out_id` is written before the first callback can run, so a callback may unsubscribe itself by it,
 * even when the source is already firing while subscribing. */
typedef struct {
    vn_subscription_id id;
    atomic_int saw_zero;
    atomic_int calls;
    atomic_int released;
} id_reader;

static void id_reader_callback(void *user_data, const vn_test_event *event) {
    (void)event;
    id_reader *r = user_data;
    if (atomic_fetch_add(&r->calls, 1) > 0) return;
    if (r->id == 0) atomic_fetch_add(&r->saw_zero, 1);
    else vn_unsubscribe(r->id);
}

static void id_reader_release(void *user_data) {
    atomic_fetch_add(&((id_reader *)user_data)->released, 1);
    notify();
}

static int id_readers_released(const id_reader *readers, int count) {
    int released = 0;
    for (int i = 0; i < count; i++) released += atomic_load(&readers[i].released);
    return released;
}

static void test_out_id_written_before_first_callback(void) {
    enum { ROUNDS = 2000 };
    static id_reader readers[ROUNDS];
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, 0, 0));
    for (int i = 0; i < ROUNDS; i++) {
        EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, id_reader_callback, &readers[i], id_reader_release,
                                                      &readers[i].id));
    }
    int ok, seen_zero = 0;
    WAIT_UNTIL(ok, id_readers_released(readers, ROUNDS) == ROUNDS, 20000);
    vn_test_source_destroy(source);
    for (int i = 0; i < ROUNDS; i++) seen_zero += atomic_load(&readers[i].saw_zero);
    EXPECT(ok, "only %d of %d self-unsubscribing subscriptions were released", id_readers_released(readers, ROUNDS),
           ROUNDS);
    EXPECT(seen_zero == 0, "%d callbacks ran before *out_id was written", seen_zero);
}

int main(void) {
    harness_init("contract");
    main_thread = pthread_self();
    TEST(test_subscribe_unsubscribe_cycles);
    TEST(test_unsubscribe_inside_callback);
    TEST(test_destroy_inside_callback);
    TEST(test_unsubscribe_waits_for_running_callback);
    TEST(test_destroy_waits_for_running_callback);
    TEST(test_default_delivery_thread);
    TEST(test_order_many_subscribers_many_producers);
    TEST(test_loop_delivers_only_inside_dispatch);
    TEST(test_loop_wait_wakes_other_thread);
    TEST(test_loop_nested_dispatch_is_misuse);
    TEST(test_two_loops_are_independent);
    TEST(test_loop_unsubscribe_and_destroy_inside_dispatch);
    TEST(test_loop_destroyed_before_its_source);
    TEST(test_out_id_written_before_first_callback);
    return harness_finish();
}
