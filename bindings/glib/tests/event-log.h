/*
 * event-log.h: what the player and recorder tests share: a log of everything an object said (notifies and
 * signals, as numbered kinds with a value), in order, with the thread each came on, and the finding and counting
 * over it. Kind 0 is always the object's `state` property: find() matches its value; other kinds match any value.
 */
#ifndef VOICENOTE_GLIB_TESTS_EVENT_LOG_H
#define VOICENOTE_GLIB_TESTS_EVENT_LOG_H

#include <glib-object.h>

typedef struct {
    gint what;     /* a test's own kind; 0 = the state property */
    gdouble value; /* the property's new value, or the signal's number */
    gboolean on_main_thread;
} Entry;

typedef struct {
    GArray *entries;
    GThread *main_thread;
    gboolean disposed;   /* set by the handler that drops the last reference */
    guint after_dispose; /* callbacks that came after that */
    gboolean finalized;  /* set by a weak reference */
} EventLog;

static void event_log_finalized(gpointer data, GObject *where_the_object_was) {
    (void)where_the_object_was;
    ((EventLog *)data)->finalized = TRUE;
}

/* A log on this (the main) thread, watching `object` be finalized. */
static inline void event_log_init(EventLog *log, gpointer object) {
    *log = (EventLog){.entries = g_array_new(FALSE, FALSE, sizeof(Entry)), .main_thread = g_thread_self()};
    g_object_weak_ref(G_OBJECT(object), event_log_finalized, log);
}

static inline void event_log_clear(EventLog *log) {
    g_array_unref(log->entries);
}

static inline void log_add(EventLog *log, gint what, gdouble value) {
    if (log->disposed) log->after_dispose++;
    Entry entry = {what, value, g_thread_self() == log->main_thread};
    g_array_append_val(log->entries, entry);
}

static inline Entry *entry_at(EventLog *log, guint i) {
    return &g_array_index(log->entries, Entry, i);
}

/* Index of the first entry saying `what` (with `value` when what is the state) at or after `from`; -1 when none. */
static inline gint find(EventLog *log, guint from, gint what, gdouble value) {
    for (guint i = from; i < log->entries->len; i++) {
        Entry *entry = entry_at(log, i);
        if (entry->what == what && (what != 0 || entry->value == value)) return (gint)i;
    }
    return -1;
}

static inline guint count(EventLog *log, gint what) {
    guint n = 0;
    for (guint i = 0; i < log->entries->len; i++) n += entry_at(log, i)->what == what;
    return n;
}

/* Every entry ran on the main thread, and each notify of the kinds 0…n_properties-1 carried a value other than the
 * one before (starting from `initial`): once per change. */
static inline void expect_once_per_change(EventLog *log, const gdouble *initial, guint n_properties) {
    gdouble *last = g_memdup2(initial, n_properties * sizeof(gdouble));
    for (guint i = 0; i < log->entries->len; i++) {
        Entry *entry = entry_at(log, i);
        g_assert_true(entry->on_main_thread);
        if (entry->what < 0 || (guint)entry->what >= n_properties) continue;
        if (entry->value == last[entry->what])
            g_error("entry %u: property %d notified without a change (still %g)", i, entry->what, entry->value);
        last[entry->what] = entry->value;
    }
    g_free(last);
}

#endif /* VOICENOTE_GLIB_TESTS_EVENT_LOG_H */
