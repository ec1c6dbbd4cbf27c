/*
 * misuse.c: wrong calls get the status voicenote.h documents, and nothing else happens.
 *
 * - A NULL handle to every function that takes one is VN_E_MISUSE; a NULL out-parameter is VN_E_INVALID_ARG
 *   (and a NULL optional one is fine); destroy(NULL) is a no-op; `*out` is NULL after a failing create.
 * - Use after destroy is VN_E_MISUSE for every function of the destroyed object; also after a new object was
 *   created (a known library bug when the new object reuses the address: reported, not failed).
 * - vn_unsubscribe: twice, 0 and unknown ids are VN_E_MISUSE; release never runs for a failed subscribe.
 * - Call order: start while firing, dispatch of one loop from two threads at once.
 * - vn_status_name / vn_strerror for every status and for numbers that are not statuses.
 * - vn_last_error_message is per thread, and successful calls leave it alone.
 * - vn_log_set_handler with a level that is not a vn_log_level is VN_E_INVALID_ARG.
 */
#include "harness.h"

#include <limits.h>
#include <math.h>

/* ------------------------------------------------------------------------------------------------------------ */

static atomic_int never_calls, never_releases;
static void never_callback(void *user_data, const vn_test_event *event) {
    (void)user_data;
    (void)event;
    atomic_fetch_add(&never_calls, 1);
}
static void never_release(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&never_releases, 1);
}

static void test_null_handles(void) {
    vn_subscription_id id = 12345;
    uint64_t count = 777;
    size_t dispatched = 777;
    int pending = 777;

    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_fd(NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_dispatch(NULL, &dispatched));
    EXPECT(dispatched == 0, "dispatched is %zu after a failed dispatch", dispatched);
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_dispatch(NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_wait(NULL, 0, &pending));
    EXPECT(pending == 0, "pending is %d after a failed wait", pending);
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_wait(NULL, 10, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_subscribe(NULL, never_callback, NULL, never_release, &id));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_start(NULL, 1, 0));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_stop(NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_emit(NULL, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_fired(NULL, &count));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_fired(NULL, NULL));
    vn_event_loop_destroy(NULL);
    vn_test_source_destroy(NULL);
    vn_free(NULL);
    EXPECT(atomic_load(&never_releases) == 0, "release ran for a failed subscribe");
}

static void test_null_out_parameters(void) {
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_event_loop_create(NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_test_source_create(NULL, NULL));

    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_test_source_fired(source, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_test_source_subscribe(source, NULL, NULL, never_release, NULL));
    EXPECT(atomic_load(&never_releases) == 0, "release ran for a subscribe without a callback");
    /* Optional out-parameters may be NULL. */
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, never_callback, NULL, never_release, NULL));
    vn_test_source_destroy(source);
    EXPECT(atomic_load(&never_releases) == 1, "destroy ran release %d times for an id-less subscription",
           atomic_load(&never_releases));
    atomic_store(&never_releases, 0);

    vn_event_loop *loop = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    if (loop == NULL) return;
    EXPECT_STATUS(VN_OK, vn_event_loop_dispatch(loop, NULL));
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop, 0, NULL));
    vn_event_loop_destroy(loop);
}

static void test_failed_create_sets_out_to_null(void) {
    vn_event_loop *loop = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    if (loop == NULL) return;
    vn_event_loop_destroy(loop);
    /* A destroyed loop (nothing created in between, so its address is not reused). */
    vn_test_source *source = (vn_test_source *)&loop; /* not NULL: the failure must clear it */
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_create(loop, &source));
    EXPECT(source == NULL, "*out is %p after a failed vn_test_source_create", (void *)source);
}

static void test_use_after_destroy(void) {
    vn_event_loop *loop = NULL;
    vn_test_source *source = NULL;
    vn_subscription_id id = 0;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (loop == NULL || source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, never_callback, NULL, never_release, &id));
    vn_test_source_destroy(source);
    EXPECT(atomic_load(&never_releases) == 1, "destroy ran release %d times", atomic_load(&never_releases));
    atomic_store(&never_releases, 0);

    uint64_t count = 0;
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_subscribe(source, never_callback, NULL, never_release, NULL));
    EXPECT(atomic_load(&never_releases) == 0, "release ran for a subscribe to a destroyed source");
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_start(source, 1, 0));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_stop(source));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_emit(source, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_fired(source, &count));
    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(id)); /* ended by the destroy */
    vn_test_source_destroy(source); /* a second destroy is caught too */

    vn_event_loop_destroy(loop);
    int pending = 0;
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_fd(loop));
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_dispatch(loop, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_wait(loop, 0, &pending));
    vn_event_loop_destroy(loop);
    EXPECT(atomic_load(&never_calls) == 0, "a callback ran in the misuse tests");
}

/* The header: "a handle that was already destroyed is detected and is VN_E_MISUSE" — even when a new object was
 * created since (handles are never-reused tokens, not addresses that the allocator hands out again). */
static void test_destroyed_handle_after_a_new_create(void) {
    vn_test_source *first = NULL, *second = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &first));
    vn_test_source_destroy(first);
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &second));
    EXPECT(first != second, "a new source reused the destroyed handle %p", (void *)first);
    uint64_t count = 0;
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_fired(first, &count));
    vn_test_source_destroy(second);

    vn_event_loop *loop1 = NULL, *loop2 = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop1));
    vn_event_loop_destroy(loop1);
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop2));
    EXPECT(loop1 != loop2, "a new loop reused the destroyed handle %p", (void *)loop1);
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_fd(loop1));
    vn_event_loop_destroy(loop2);
}

static void test_unsubscribe_misuse(void) {
    vn_test_source *source = NULL;
    vn_subscription_id id = 0;
    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(0));
    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(999999));
    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(UINT64_MAX));
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, never_callback, NULL, never_release, &id));
    EXPECT(id != 0, "subscription id 0");
    EXPECT_STATUS(VN_OK, vn_unsubscribe(id));
    EXPECT(atomic_load(&never_releases) == 1, "release ran %d times", atomic_load(&never_releases));
    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(id));
    EXPECT(atomic_load(&never_releases) == 1, "a second unsubscribe ran release again");
    vn_subscription_id next = 0;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, never_callback, NULL, NULL, &next));
    EXPECT(next != id && next != 0, "a new subscription got id %llu (the old one was %llu)",
           (unsigned long long)next, (unsigned long long)id);
    vn_test_source_destroy(source);
    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(next));
    atomic_store(&never_releases, 0);
}

static void test_call_order(void) {
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source)); /* not firing: fine */
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, 0, 1000));
    EXPECT_STATUS(VN_E_MISUSE, vn_test_source_start(source, 0, 1000));
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source));
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source));
    EXPECT_STATUS(VN_OK, vn_test_source_start(source, 5, 0)); /* can start again after a stop */
    EXPECT_STATUS(VN_OK, vn_test_source_stop(source));
    vn_test_source_destroy(source);
}

/* Dispatch of one loop on two threads at once: the second is VN_E_MISUSE. */
static atomic_int held_entered, held_may_finish, held_calls;
static void held_callback(void *user_data, const vn_test_event *event) {
    (void)user_data;
    (void)event;
    atomic_fetch_add(&held_calls, 1);
    atomic_store(&held_entered, 1);
    notify();
    int ok;
    WAIT_UNTIL(ok, atomic_load(&held_may_finish), 10000);
    (void)ok;
}
static void *dispatch_thread(void *loop) {
    static int status;
    status = vn_event_loop_dispatch(loop, NULL);
    return &status;
}

static void test_dispatch_from_two_threads(void) {
    vn_event_loop *loop = NULL;
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop, &source));
    if (loop == NULL || source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(source, held_callback, NULL, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 1));
    pthread_t other = harness_start_thread(dispatch_thread, loop);
    int ok;
    WAIT_UNTIL(ok, atomic_load(&held_entered), 10000);
    EXPECT(ok, "the other thread's dispatch did not run the callback");
    EXPECT_STATUS(VN_E_MISUSE, vn_event_loop_dispatch(loop, NULL));
    atomic_store(&held_may_finish, 1);
    notify();
    void *result = NULL;
    pthread_join(other, &result);
    EXPECT_STATUS(VN_OK, *(int *)result);
    EXPECT_STATUS(VN_OK, vn_event_loop_dispatch(loop, NULL)); /* free again */
    vn_test_source_destroy(source);
    vn_event_loop_destroy(loop);
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_status_names(void) {
    static const struct {
        int status;
        const char *name;
    } table[] = {
        {VN_OK, "VN_OK"},
        {VN_E_INVALID_ARG, "VN_E_INVALID_ARG"},
        {VN_E_MISUSE, "VN_E_MISUSE"},
        {VN_E_NOMEM, "VN_E_NOMEM"},
        {VN_E_IO, "VN_E_IO"},
        {VN_E_NO_SPACE, "VN_E_NO_SPACE"},
        {VN_E_FORMAT, "VN_E_FORMAT"},
        {VN_E_DEVICE, "VN_E_DEVICE"},
        {VN_E_PERMISSION, "VN_E_PERMISSION"},
        {VN_E_NETWORK, "VN_E_NETWORK"},
        {VN_E_NOT_FOUND, "VN_E_NOT_FOUND"},
        {VN_E_TOO_LARGE, "VN_E_TOO_LARGE"},
        {VN_E_UNSUPPORTED, "VN_E_UNSUPPORTED"},
        {VN_E_BUSY, "VN_E_BUSY"},
        {VN_E_CANCELLED, "VN_E_CANCELLED"},
        {VN_E_INTERNAL, "VN_E_INTERNAL"},
    };
    const size_t n = sizeof table / sizeof table[0];
    for (size_t i = 0; i < n; i++) {
        const char *name = vn_status_name(table[i].status);
        const char *text = vn_strerror(table[i].status);
        EXPECT(name != NULL && strcmp(name, table[i].name) == 0, "vn_status_name(%d) = \"%s\", expected \"%s\"",
               table[i].status, name ? name : "(null)", table[i].name);
        EXPECT(text != NULL && text[0] != '\0' && strcmp(text, "unknown status") != 0,
               "vn_strerror(%d) = \"%s\"", table[i].status, text ? text : "(null)");
        for (size_t j = 0; j < i && text != NULL; j++) {
            EXPECT(strcmp(text, vn_strerror(table[j].status)) != 0, "vn_strerror(%d) and vn_strerror(%d) are the same",
                   table[i].status, table[j].status);
        }
        EXPECT(vn_status_name(table[i].status) == name, "vn_status_name(%d) is not a static string", table[i].status);
    }
    static const int unknown[] = {1, 2, -16, -100, 12345, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *name = vn_status_name(unknown[i]);
        const char *text = vn_strerror(unknown[i]);
        EXPECT(name != NULL && strcmp(name, "VN_E_UNKNOWN") == 0, "vn_status_name(%d) = \"%s\"", unknown[i],
               name ? name : "(null)");
        EXPECT(text != NULL && strcmp(text, "unknown status") == 0, "vn_strerror(%d) = \"%s\"", unknown[i],
               text ? text : "(null)");
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* vn_last_error_message is per thread */

static monitor step_monitor; /* a two-thread handshake: each side waits for the other's step number */
static int step;
static char thread_b_initial[256], thread_b_after_a[256], thread_b_own[256];
static int thread_b_status;

static int wait_step(int want) {
    struct timespec deadline = harness_deadline_ms(10000);
    pthread_mutex_lock(&step_monitor.mutex);
    while (step < want) {
        if (pthread_cond_timedwait(&step_monitor.cond, &step_monitor.mutex, &deadline) == ETIMEDOUT) break;
    }
    int ok = step >= want;
    pthread_mutex_unlock(&step_monitor.mutex);
    return ok;
}

static void set_step(int value) {
    pthread_mutex_lock(&step_monitor.mutex);
    step = value;
    pthread_cond_broadcast(&step_monitor.cond);
    pthread_mutex_unlock(&step_monitor.mutex);
}

static void *thread_b(void *unused) {
    (void)unused;
    snprintf(thread_b_initial, sizeof thread_b_initial, "%s", vn_last_error_message());
    set_step(1);
    if (!wait_step(2)) return NULL; /* thread A failed a call */
    snprintf(thread_b_after_a, sizeof thread_b_after_a, "%s", vn_last_error_message());
    thread_b_status = vn_test_source_fired(NULL, NULL);
    snprintf(thread_b_own, sizeof thread_b_own, "%s", vn_last_error_message());
    set_step(3);
    return NULL;
}

static void test_last_error_is_per_thread(void) {
    monitor_init(&step_monitor);
    pthread_t b = harness_start_thread(thread_b, NULL);
    EXPECT(wait_step(1), "thread B did not start");

    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(0));
    char mine[256];
    snprintf(mine, sizeof mine, "%s", vn_last_error_message());
    EXPECT(mine[0] != '\0', "no message after a failed vn_unsubscribe(0)");
    set_step(2);
    EXPECT(wait_step(3), "thread B did not finish its step");
    pthread_join(b, NULL);

    EXPECT(thread_b_initial[0] == '\0', "a new thread's message is \"%s\", expected \"\"", thread_b_initial);
    EXPECT(thread_b_after_a[0] == '\0', "thread B sees \"%s\" after thread A failed", thread_b_after_a);
    EXPECT_STATUS(VN_E_MISUSE, thread_b_status);
    EXPECT(thread_b_own[0] != '\0' && strcmp(thread_b_own, mine) != 0,
           "thread B's own message \"%s\" (thread A's: \"%s\")", thread_b_own, mine);
    EXPECT(strcmp(vn_last_error_message(), mine) == 0, "thread A's message changed to \"%s\" after thread B failed",
           vn_last_error_message());

    /* Successful calls do not clear it. */
    vn_test_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(NULL, &source));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(source, 1));
    vn_test_source_destroy(source);
    (void)vn_version_number();
    EXPECT(strcmp(vn_last_error_message(), mine) == 0, "a successful call changed the message to \"%s\"",
           vn_last_error_message());
    /* The message belongs to the last failed call. */
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_event_loop_create(NULL));
    EXPECT(strcmp(vn_last_error_message(), mine) != 0 && vn_last_error_message()[0] != '\0',
           "the message did not change for a new failure: \"%s\"", vn_last_error_message());
}

/* ------------------------------------------------------------------------------------------------------------ */

static void ignore_log(void *user_data, int level, const char *message) {
    (void)user_data;
    (void)level;
    (void)message;
}

static void test_log_handler_levels(void) {
    static const int bad[] = {0, 5, -1, 100, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_log_set_handler(ignore_log, NULL, bad[i]));
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_log_set_handler(NULL, NULL, bad[i]));
    }
    for (int level = VN_LOG_ERROR; level <= VN_LOG_DEBUG; level++) {
        EXPECT_STATUS(VN_OK, vn_log_set_handler(ignore_log, NULL, level));
    }
    EXPECT_STATUS(VN_OK, vn_log_set_handler(NULL, NULL, VN_LOG_ERROR));
}

/* HTTP options: every number is range-checked before it is used; NULL options are MISUSE. */
static void test_http_option_ranges(void) {
    vn_http_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_http_options_create(&options));
    if (options == NULL) return;
    const double bad_seconds[] = {0.5, 86401, NAN, INFINITY, -INFINITY, -1};
    for (size_t i = 0; i < sizeof bad_seconds / sizeof bad_seconds[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_set_transfer_timeout(options, bad_seconds[i]));
    EXPECT_STATUS(VN_OK, vn_http_options_set_transfer_timeout(options, 1));
    EXPECT_STATUS(VN_OK, vn_http_options_set_transfer_timeout(options, 86400));
    const int64_t bad_bytes[] = {0, -1, INT64_MIN, ((int64_t)1 << 40) + 1, INT64_MAX};
    for (size_t i = 0; i < sizeof bad_bytes / sizeof bad_bytes[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_set_max_bytes(options, bad_bytes[i]));
    EXPECT_STATUS(VN_OK, vn_http_options_set_max_bytes(options, 1));
    EXPECT_STATUS(VN_OK, vn_http_options_set_max_bytes(options, (int64_t)1 << 40));
    vn_http_options_destroy(options);
    EXPECT_STATUS(VN_E_MISUSE, vn_http_options_set_transfer_timeout(NULL, 10));
    EXPECT_STATUS(VN_E_MISUSE, vn_http_options_set_max_bytes(NULL, 10));
}

int main(void) {
    harness_init("misuse");
    TEST(test_http_option_ranges);
    TEST(test_null_handles);
    TEST(test_null_out_parameters);
    TEST(test_failed_create_sets_out_to_null);
    TEST(test_use_after_destroy);
    TEST(test_destroyed_handle_after_a_new_create);
    TEST(test_unsubscribe_misuse);
    TEST(test_call_order);
    TEST(test_dispatch_from_two_threads);
    TEST(test_status_names);
    TEST(test_last_error_is_per_thread);
    TEST(test_log_handler_levels);
    return harness_finish();
}
