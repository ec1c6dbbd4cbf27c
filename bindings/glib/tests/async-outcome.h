/*
 * async-outcome.h: what the `_async` tests (async.c, upload-async.c) share: what a callback got, on which thread and
 * when, waited for under a bound on the thread-default main context; and the process's thread count
 * (process-threads.h).
 */
#ifndef VOICENOTE_GLIB_TESTS_ASYNC_OUTCOME_H
#define VOICENOTE_GLIB_TESTS_ASYNC_OUTCOME_H

#include "capture-rig.h"
#include "process-threads.h"

/* What a callback got, and on which thread. */
typedef struct {
    GAsyncResult *result;
    GThread *thread;
    gint64 at;
} Outcome;

static inline void keep_result(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    Outcome *outcome = data;
    outcome->result = g_object_ref(result);
    outcome->thread = g_thread_self();
    outcome->at = g_get_monotonic_time();
}

static inline gboolean has_result(gpointer data) {
    return ((Outcome *)data)->result != NULL;
}

/* Waits (bounded) for the callback, which must run on this thread. */
static inline void wait_outcome(Outcome *outcome) {
    g_assert_true(rig_wait(has_result, outcome, WAIT_MS));
    g_assert_true(outcome->thread == g_thread_self());
}

static inline void outcome_clear(Outcome *outcome) {
    g_clear_object(&outcome->result);
}

#endif /* VOICENOTE_GLIB_TESTS_ASYNC_OUTCOME_H */
