/*
 * flow.c: VnFlow (voicenote-glib's vn-flow.h) on the main context, over a real VnRecorder on a virtual microphone
 * (ALSA's `file` plugin reading 30 s of a raw tone, unpaced), a real VnPlayer on a file speaker, and a
 * VnManualClock for the flow's timers, as bindings/c/tests/flow.c does.
 * - /flow/hold-lock-stop-preview-send: press, hold (the clock moves the minimum press), slide left and up (the
 *   view's alphas and padding move), lock, stop, play the preview, send: `attachment-ready` (the file, its
 *   duration, 100 waveform values, the payload naming the file) then `publish`; the states come in order on the
 *   main context's thread, and every property notifies once per change (each notify carries a new value).
 * - /flow/tip-on-the-clock: a tap shows the tip; the clock moving 2 s hides it.
 * - /flow/keys: with key inputs, the record key held records and Escape cancels.
 * - /flow/too-short: a take the recorder drops (minimum 3600 s) is `too-short`, then idle; nothing is sent.
 * - /flow/gesture-options: `lock-distance` 20, `minimum-press` 0.2 s and `waveform-samples` 40 set at construction: a
 *   0.2 s press begins the take, 25 px up locks it, and the preview's waveform has 40 values.
 * - /flow/trim-and-park: a trim is `trimmed` with the cut length; park keeps the take as the draft (`parked`, in
 *   the drafts directory), which vng_drafts_list() lists and vng_drafts_clear() deletes; misused inputs are
 *   VN_ERROR_MISUSE or VN_ERROR_INVALID_ARG and change nothing.
 * - /flow/dispose-in-attachment-ready, /flow/dispose-in-notify: the last reference dropped inside the flow's own
 *   handlers; nothing of it runs afterwards (no `publish`), it is finalized, and its recorder and player live on.
 * Every wait is bounded (rig_wait: the main context iterated until a condition, under a deadline).
 */
#include "capture-rig.h"

#include <math.h>
#include <string.h>

static gchar *directory;
static gchar *microphone;

/* ------------------------------------------------------------------------------------------------------------ */
/* A log of everything a flow said, in order */

typedef struct {
    gchar *what; /* a property's name (a notify) or a signal's name */
    gdouble value; /* state, duration, preview-playing: the new value; levels, waveform: how many values; a take's
                      signal: its duration */
    gboolean on_main_thread;
} Entry;

typedef struct {
    GArray *entries;
    GThread *main_thread;
    GHashTable *last; /* property name → its value's text, to see each notify carry a change */
    gchar *path;      /* the last take signal's */
    guint waveform_count;
    gchar *payload;
    guint most_levels; /* the most live levels a view of a running take carried */
    gboolean disposed;   /* set by the handler that drops the last reference */
    guint after_dispose; /* callbacks that came after that */
    gboolean finalized;  /* set by a weak reference */
} Log;

static void log_add(Log *log, const gchar *what, gdouble value) {
    if (log->disposed) log->after_dispose++;
    Entry entry = {g_strdup(what), value, g_thread_self() == log->main_thread};
    g_array_append_val(log->entries, entry);
}

static gchar *property_text(GObject *object, GParamSpec *pspec) {
    GValue value = G_VALUE_INIT;
    g_value_init(&value, pspec->value_type);
    g_object_get_property(object, pspec->name, &value);
    /* GLib prints a GVariant in a GValue as "???": its own text, then. */
    gchar *text = G_VALUE_HOLDS_VARIANT(&value) ? g_variant_print(g_value_get_variant(&value), FALSE)
                                                : g_strdup_value_contents(&value);
    g_value_unset(&value);
    return text;
}

/* A levels property (a GVariant "ad"): the same values as its float getter; how many there are. */
static gdouble levels_number(GObject *object, GParamSpec *pspec) {
    GVariant *variant = NULL;
    g_object_get(object, pspec->name, &variant, NULL);
    g_assert_true(g_variant_is_of_type(variant, G_VARIANT_TYPE("ad")));
    gsize n = 0;
    const gdouble *values = g_variant_get_fixed_array(variant, &n, sizeof(gdouble));
    guint n_floats = 0;
    const gfloat *floats = g_str_equal(pspec->name, "levels") ? vng_flow_get_levels(VNG_FLOW(object), &n_floats)
                                                             : vng_flow_get_waveform(VNG_FLOW(object), &n_floats);
    g_assert_cmpuint(n, ==, n_floats);
    for (gsize i = 0; i < n; i++) g_assert_cmpfloat(values[i], ==, floats[i]);
    g_variant_unref(variant);
    return (gdouble)n;
}

static gdouble property_number(GObject *object, GParamSpec *pspec) {
    if (pspec->value_type == G_TYPE_VARIANT) return levels_number(object, pspec);
    GValue value = G_VALUE_INIT;
    g_value_init(&value, pspec->value_type);
    g_object_get_property(object, pspec->name, &value);
    gdouble number = G_VALUE_HOLDS_DOUBLE(&value)    ? g_value_get_double(&value)
                     : G_VALUE_HOLDS_BOOLEAN(&value) ? g_value_get_boolean(&value)
                     : G_VALUE_HOLDS_ENUM(&value)    ? g_value_get_enum(&value)
                                                     : 0;
    g_value_unset(&value);
    return number;
}

/* Each notify must carry a value other than the last one seen (once per change). */
static void on_notify(GObject *object, GParamSpec *pspec, gpointer data) {
    Log *log = data;
    gchar *text = property_text(object, pspec);
    const gchar *before = g_hash_table_lookup(log->last, pspec->name);
    if (g_strcmp0(before, text) == 0) g_error("%s notified without a change (still %s)", pspec->name, text);
    g_hash_table_insert(log->last, g_strdup(pspec->name), text);
    log_add(log, pspec->name, property_number(object, pspec));
    guint n_levels = 0;
    const gfloat *levels = vng_flow_get_levels(VNG_FLOW(object), &n_levels);
    for (guint i = 0; i < n_levels; i++) g_assert_true(levels[i] >= 0 && levels[i] <= 1);
    log->most_levels = MAX(log->most_levels, n_levels);
}

static void on_take(VnFlow *flow, const gchar *path, gdouble duration, GArray *waveform, const gchar *payload,
                    gpointer data) {
    (void)flow;
    Log *log = data;
    GSignalInvocationHint *hint = g_signal_get_invocation_hint(flow);
    log_add(log, g_signal_name(hint->signal_id), duration);
    g_free(log->path);
    log->path = g_strdup(path);
    log->waveform_count = waveform->len;
    for (guint i = 0; i < waveform->len; i++) {
        g_assert_cmpfloat(g_array_index(waveform, gfloat, i), >=, 0);
        g_assert_cmpfloat(g_array_index(waveform, gfloat, i), <=, 1);
    }
    g_free(log->payload);
    log->payload = g_strdup(payload);
}

static void on_error(VnFlow *flow, GError *error, gpointer data) {
    g_assert_true(error->domain == VN_ERROR);
    GSignalInvocationHint *hint = g_signal_get_invocation_hint(flow);
    g_test_message("%s: %s", g_signal_name(hint->signal_id), error->message);
    log_add(data, g_signal_name(hint->signal_id), error->code);
}

static void on_trim_failed(VnFlow *flow, GError *error, const gchar *path, gdouble duration, gpointer data) {
    (void)path;
    (void)duration;
    on_error(flow, error, data);
}

static void on_too_short(VnFlow *flow, gdouble duration, gpointer data) {
    (void)flow;
    log_add(data, "too-short", duration);
}

static void on_finalized(gpointer data, GObject *where_the_object_was) {
    (void)where_the_object_was;
    ((Log *)data)->finalized = TRUE;
}

static void entry_clear(gpointer data) {
    g_free(((Entry *)data)->what);
}

static void log_init(Log *log, VnFlow *flow) {
    *log = (Log){.entries = g_array_new(FALSE, FALSE, sizeof(Entry)), .main_thread = g_thread_self(),
                 .last = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)};
    g_array_set_clear_func(log->entries, entry_clear);
    guint n = 0;
    GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(flow), &n);
    for (guint i = 0; i < n; i++)
        g_hash_table_insert(log->last, g_strdup(specs[i]->name), property_text(G_OBJECT(flow), specs[i]));
    g_free(specs);
    g_signal_connect(flow, "notify", G_CALLBACK(on_notify), log);
    const gchar *takes[] = {"attachment-ready", "publish", "parked", "trimmed"};
    for (guint i = 0; i < G_N_ELEMENTS(takes); i++) g_signal_connect(flow, takes[i], G_CALLBACK(on_take), log);
    g_signal_connect(flow, "failed", G_CALLBACK(on_error), log);
    g_signal_connect(flow, "trim-failed", G_CALLBACK(on_trim_failed), log);
    g_signal_connect(flow, "too-short", G_CALLBACK(on_too_short), log);
    g_object_weak_ref(G_OBJECT(flow), on_finalized, log);
}

static void log_clear(Log *log) {
    g_array_unref(log->entries);
    g_hash_table_unref(log->last);
    g_free(log->path);
    g_free(log->payload);
}

static Entry *entry_at(Log *log, guint i) {
    return &g_array_index(log->entries, Entry, i);
}

/* Index of the first entry about `what` (with `value`, unless it is NAN) at or after `from`; -1 when none. */
static gint find(Log *log, guint from, const gchar *what, gdouble value) {
    for (guint i = from; i < log->entries->len; i++) {
        Entry *entry = entry_at(log, i);
        if (g_str_equal(entry->what, what) && (isnan(value) || entry->value == value)) return (gint)i;
    }
    return -1;
}

static guint count(Log *log, const gchar *what) {
    guint n = 0;
    for (guint i = 0; i < log->entries->len; i++) n += g_str_equal(entry_at(log, i)->what, what);
    return n;
}

static void expect_all_on_main_thread(Log *log) {
    for (guint i = 0; i < log->entries->len; i++) g_assert_true(entry_at(log, i)->on_main_thread);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* A rig: clock, recorder, player, flow (this test holds its own references to the first three) */

typedef struct {
    VnManualClock *clock;
    VnRecorder *recorder;
    VnPlayer *player;
    VnFlow *flow;
    Log log;
} Rig;

typedef struct {
    gdouble minimum_take;
    gboolean confirmation_required;
    gboolean key_inputs;
    const gchar *draft_key;
    gdouble lock_distance;  /* 0: the default, 50 */
    gdouble minimum_press;  /* 0: the default, 0.5 */
    guint waveform_samples; /* 0: the default, 100 */
} RigOptions;

static void rig_open(Rig *rig, RigOptions options) {
    GError *error = NULL;
    gchar *takes = g_build_filename(directory, "takes", NULL);
    gchar *drafts = g_build_filename(directory, "drafts", NULL);
    gchar *heard = g_build_filename(directory, "heard.raw", NULL);
    gchar *speaker = rig_speaker(heard);
    rig->clock = vng_manual_clock_new(&error);
    g_assert_no_error(error);
    rig->recorder = g_initable_new(VNG_TYPE_RECORDER, NULL, &error, "device", "vn_mic", "configuration", microphone,
                                   "directory", takes, "minimum-duration", options.minimum_take, NULL);
    g_assert_no_error(error);
    rig->player = vng_player_new_for_device("vn_spk", speaker, &error);
    g_assert_no_error(error);
    rig->flow = g_initable_new(VNG_TYPE_FLOW, NULL, &error, "recorder", rig->recorder, "player", rig->player,
                               "clock", rig->clock, "confirmation-required", options.confirmation_required,
                               "key-inputs", options.key_inputs, "draft-key", options.draft_key, "drafts-directory",
                               drafts, "lock-distance", options.lock_distance > 0 ? options.lock_distance : 50.0,
                               "minimum-press", options.minimum_press > 0 ? options.minimum_press : 0.5,
                               "waveform-samples", options.waveform_samples > 0 ? options.waveform_samples : 100,
                               NULL);
    g_assert_no_error(error);
    g_assert_true(vng_flow_get_state(rig->flow) == VN_FLOW_STATE_IDLE);
    log_init(&rig->log, rig->flow);
    g_free(takes);
    g_free(drafts);
    g_free(heard);
    g_free(speaker);
}

static void rig_close(Rig *rig) {
    g_clear_object(&rig->flow);
    g_object_unref(rig->recorder);
    g_object_unref(rig->player);
    g_object_unref(rig->clock);
    log_clear(&rig->log);
}

typedef struct {
    Rig *rig;
    VnFlowState state;
    gdouble duration;
    const gchar *signal;
} Until;

static gboolean in_state(gpointer data) {
    Until *until = data;
    return vng_flow_get_state(until->rig->flow) == until->state &&
           vng_flow_get_duration(until->rig->flow) >= until->duration;
}

static gboolean signalled(gpointer data) {
    Until *until = data;
    return count(&until->rig->log, until->signal) > 0;
}

static void wait_for_state(Rig *rig, VnFlowState state, gdouble duration) {
    Until until = {.rig = rig, .state = state, .duration = duration};
    if (!rig_wait(in_state, &until, WAIT_MS))
        g_error("no state %d with %.2f s within %d ms (state %d, %.2f s)", state, duration, WAIT_MS,
                vng_flow_get_state(rig->flow), vng_flow_get_duration(rig->flow));
}

static void wait_for_signal(Rig *rig, const gchar *signal) {
    Until until = {.rig = rig, .signal = signal};
    if (!rig_wait(signalled, &until, WAIT_MS)) g_error("no %s within %d ms", signal, WAIT_MS);
}

/* The first view arrived (its accessible description is never empty). */
static gboolean viewed(gpointer data) {
    return vng_flow_get_accessible_description(((Rig *)data)->flow)[0] != '\0';
}

/* Press at (200, 200) and hold for the minimum press, until a take has recorded `seconds`. */
static void hold_until(Rig *rig, gdouble seconds) {
    GError *error = NULL;
    g_assert_true(rig_wait(viewed, rig, WAIT_MS));
    g_assert_true(vng_flow_press(rig->flow, 200, 200, &error));
    g_assert_no_error(error);
    g_assert_true(vng_manual_clock_advance(rig->clock, 0.5, &error));
    g_assert_no_error(error);
    wait_for_state(rig, VN_FLOW_STATE_RECORDING, seconds);
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_hold_lock_stop_preview_send(void) {
    Rig rig;
    rig_open(&rig, (RigOptions){.confirmation_required = FALSE});
    GError *error = NULL;
    hold_until(&rig, 0.3);
    g_assert_true(vng_flow_move(rig.flow, 170, 200, &error)); /* 30 px left of 75: the label fades */
    /* Each move reads along its larger step: these two go up. */
    g_assert_true(vng_flow_move(rig.flow, 170, 180, &error)); /* 20 px up of 50: the lock rises */
    g_assert_true(vng_flow_move(rig.flow, 170, 140, &error)); /* 60 px up: locked */
    g_assert_no_error(error);
    wait_for_state(&rig, VN_FLOW_STATE_LOCKED, 0.6);
    g_assert_true(vng_flow_stop(rig.flow, &error));
    wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0.6);
    guint n_values = 0;
    g_assert_nonnull(vng_flow_get_waveform(rig.flow, &n_values));
    g_assert_cmpuint(n_values, ==, 100);
    gdouble take = vng_flow_get_duration(rig.flow);
    g_assert_true(vng_flow_play(rig.flow, &error));
    g_assert_no_error(error);
    Until playing = {.rig = &rig, .signal = "preview-playing"};
    g_assert_true(rig_wait(signalled, &playing, WAIT_MS));
    g_assert_true(vng_flow_send(rig.flow, &error));
    g_assert_no_error(error);
    wait_for_signal(&rig, "publish");
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);

    Log *log = &rig.log;
    expect_all_on_main_thread(log);
    gint recording = find(log, 0, "state", VN_FLOW_STATE_RECORDING);
    gint locked = find(log, 0, "state", VN_FLOW_STATE_LOCKED);
    gint preview = find(log, 0, "state", VN_FLOW_STATE_PREVIEW);
    gint plays = find(log, 0, "preview-playing", 1);
    gint ready = find(log, 0, "attachment-ready", NAN);
    gint publish = find(log, 0, "publish", NAN);
    g_assert_cmpint(recording, >=, 0);
    g_assert_cmpint(locked, >, recording);
    g_assert_cmpint(preview, >, locked);
    g_assert_cmpint(plays, >, preview);
    g_assert_cmpint(ready, >, plays);
    g_assert_cmpint(publish, >, ready);
    g_assert_cmpint(find(log, (guint)preview, "state", VN_FLOW_STATE_IDLE), >, preview);
    g_assert_cmpuint(count(log, "attachment-ready"), ==, 1);
    g_assert_cmpuint(count(log, "failed") + count(log, "too-short"), ==, 0);
    /* The gestures moved the view while recording. */
    g_assert_cmpint(find(log, (guint)recording, "slide-to-cancel-alpha", NAN), >, recording);
    g_assert_cmpint(find(log, (guint)recording, "lock-padding", NAN), >, recording);
    g_assert_cmpint(find(log, 0, "accessible-description", NAN), >=, 0);
    g_assert_cmpuint(rig.log.most_levels, >, 0); /* the take's views carried live levels */
    g_assert_cmpuint(rig.log.most_levels, <=, 40);
    /* The levels property moved with the take (several notifies, each a change: on_notify) and emptied after it;
     * the waveform came once, with the preview, and emptied at the send. */
    gint levels = find(log, 0, "levels", NAN);
    g_assert_cmpint(levels, >, recording);
    g_assert_cmpuint(count(log, "levels"), >=, 2); /* some, then none */
    g_assert_cmpint(find(log, (guint)locked, "levels", 0), >, locked);
    gint waveform = find(log, 0, "waveform", 100);
    g_assert_cmpint(waveform, >, locked);
    g_assert_cmpint(find(log, (guint)waveform + 1, "waveform", 100), ==, -1);
    g_assert_cmpint(find(log, (guint)waveform, "waveform", 0), >, ready);
    g_test_message("levels notified %u times, waveform %u times", count(log, "levels"), count(log, "waveform"));
    /* The take: the previewed length, its file, 100 values, a payload naming the file. */
    gdouble sent = entry_at(log, (guint)ready)->value;
    g_test_message("sent %.3f s (preview said %.3f s): %s", sent, take, rig.log.path);
    g_assert_cmpfloat_with_epsilon(sent, take, 0.05);
    g_assert_true(g_file_test(rig.log.path, G_FILE_TEST_IS_REGULAR));
    g_assert_cmpuint(rig.log.waveform_count, ==, 100);
    gchar *url = g_filename_to_uri(rig.log.path, NULL, NULL);
    g_assert_nonnull(strstr(rig.log.payload, "file://"));
    g_assert_nonnull(strstr(rig.log.payload, strrchr(url, '/') + 1));
    g_free(url);
    rig_close(&rig);
}

/* The gesture's numbers set at construction: a 0.2 s press begins a take, 25 px up locks it, and its waveform has 40
 * values. */
static void test_gesture_options(void) {
    Rig rig;
    rig_open(&rig, (RigOptions){.lock_distance = 20, .minimum_press = 0.2, .waveform_samples = 40});
    GError *error = NULL;
    gdouble lock = 0, press = 0;
    g_object_get(rig.flow, "lock-distance", &lock, "minimum-press", &press, NULL);
    g_assert_cmpfloat(lock, ==, 20);
    g_assert_cmpfloat(press, ==, 0.2);
    g_assert_true(rig_wait(viewed, &rig, WAIT_MS));
    g_assert_true(vng_flow_press(rig.flow, 200, 200, &error));
    g_assert_true(vng_manual_clock_advance(rig.clock, 0.2, &error));
    g_assert_no_error(error);
    wait_for_state(&rig, VN_FLOW_STATE_RECORDING, 0.3);
    g_assert_true(vng_flow_move(rig.flow, 200, 175, &error)); /* 25 px up: past 20 */
    g_assert_no_error(error);
    wait_for_state(&rig, VN_FLOW_STATE_LOCKED, 0.3);
    g_assert_true(vng_flow_stop(rig.flow, &error));
    wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0.3);
    guint n_values = 0;
    g_assert_nonnull(vng_flow_get_waveform(rig.flow, &n_values));
    g_assert_cmpuint(n_values, ==, 40);
    rig_close(&rig);
}

static void test_tip_on_the_clock(void) {
    Rig rig;
    rig_open(&rig, (RigOptions){.confirmation_required = TRUE});
    g_assert_true(rig_wait(viewed, &rig, WAIT_MS));
    g_assert_true(vng_flow_press(rig.flow, 10, 10, NULL));
    g_assert_true(vng_flow_release(rig.flow, NULL));
    wait_for_state(&rig, VN_FLOW_STATE_SHOWING_TIP, 0);
    gboolean tip = FALSE;
    g_object_get(rig.flow, "tip-visible", &tip, NULL);
    g_assert_true(tip);
    g_assert_true(vng_manual_clock_advance(rig.clock, 2.0, NULL));
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    g_object_get(rig.flow, "tip-visible", &tip, NULL);
    g_assert_false(tip);
    gint shown = find(&rig.log, 0, "tip-visible", 1);
    g_assert_cmpint(shown, >=, 0);
    g_assert_cmpint(find(&rig.log, (guint)shown, "tip-visible", 0), >, shown);
    g_assert_cmpint(find(&rig.log, 0, "state", VN_FLOW_STATE_RECORDING), ==, -1);
    expect_all_on_main_thread(&rig.log);
    rig_close(&rig);
}

static void test_keys(void) {
    Rig rig;
    rig_open(&rig, (RigOptions){.confirmation_required = TRUE, .key_inputs = TRUE});
    GError *error = NULL;
    g_assert_true(rig_wait(viewed, &rig, WAIT_MS));
    g_assert_true(vng_flow_key_down(rig.flow, VN_FLOW_INPUT_KEY_RECORD, &error));
    g_assert_true(vng_manual_clock_advance(rig.clock, 0.5, &error));
    wait_for_state(&rig, VN_FLOW_STATE_RECORDING, 0.2);
    g_assert_true(vng_flow_key_down(rig.flow, VN_FLOW_INPUT_KEY_ESCAPE, &error));
    g_assert_true(vng_flow_key_up(rig.flow, VN_FLOW_INPUT_KEY_ESCAPE, &error));
    g_assert_true(vng_flow_key_up(rig.flow, VN_FLOW_INPUT_KEY_RECORD, &error));
    g_assert_no_error(error);
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    g_assert_false(vng_flow_key_down(rig.flow, (VnFlowInputKey)7, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    /* A sent take's signal would have come before the idle view. */
    g_assert_cmpuint(count(&rig.log, "attachment-ready"), ==, 0);
    rig_close(&rig);
}

static void test_too_short(void) {
    Rig rig;
    rig_open(&rig, (RigOptions){.minimum_take = 3600, .confirmation_required = FALSE});
    hold_until(&rig, 0.3);
    g_assert_true(vng_flow_release(rig.flow, NULL));
    wait_for_signal(&rig, "too-short");
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    gint too_short = find(&rig.log, 0, "too-short", NAN);
    g_assert_cmpfloat(entry_at(&rig.log, (guint)too_short)->value, >=, 0.3);
    g_assert_cmpuint(count(&rig.log, "attachment-ready") + count(&rig.log, "publish"), ==, 0);
    rig_close(&rig);
}

static void test_trim_and_park(void) {
    Rig rig;
    rig_open(&rig, (RigOptions){.confirmation_required = TRUE, .draft_key = "room-1"});
    GError *error = NULL;
    g_assert_false(vng_flow_lock(rig.flow, &error)); /* idle: nothing to lock */
    g_assert_error(error, VN_ERROR, VN_ERROR_MISUSE);
    g_clear_error(&error);
    hold_until(&rig, 0.6);
    g_assert_true(vng_flow_stop(rig.flow, &error));
    wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0.6);
    gdouble take = vng_flow_get_duration(rig.flow);
    g_assert_false(vng_flow_trim(rig.flow, 0.2, take + 1, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_assert_cmpint(vng_flow_get_state(rig.flow), ==, VN_FLOW_STATE_PREVIEW);
    g_assert_true(vng_flow_trim(rig.flow, 0.1, 0.4, &error));
    g_assert_no_error(error);
    wait_for_signal(&rig, "trimmed");
    gint trimmed = find(&rig.log, 0, "trimmed", NAN);
    g_assert_cmpfloat_with_epsilon(entry_at(&rig.log, (guint)trimmed)->value, 0.3, 0.03);
    wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0);
    g_assert_true(vng_flow_park(rig.flow, &error));
    g_assert_no_error(error);
    wait_for_signal(&rig, "parked");
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    gchar *drafts = g_build_filename(directory, "drafts", NULL);
    g_assert_true(g_str_has_prefix(rig.log.path, drafts));
    g_assert_true(g_file_test(rig.log.path, G_FILE_TEST_IS_REGULAR));
    g_assert_cmpint(find(&rig.log, (guint)trimmed, "parked", NAN), >, trimmed);
    g_assert_cmpuint(count(&rig.log, "trim-failed") + count(&rig.log, "failed"), ==, 0);
    expect_all_on_main_thread(&rig.log);
    gchar *parked = g_strdup(rig.log.path);
    rig_close(&rig);
    /* The drafts directory lists the parked take under its key, and clearing the key deletes record and take. */
    GPtrArray *listed = vng_drafts_list(drafts, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(listed->len, ==, 1);
    VnDraft *draft = vng_draft_copy(g_ptr_array_index(listed, 0));
    g_ptr_array_unref(listed);
    g_assert_cmpstr(draft->key, ==, "room-1");
    g_assert_cmpstr(draft->path, ==, parked);
    g_free(parked);
    g_assert_cmpfloat_with_epsilon(draft->duration, 0.3, 0.03);
    g_assert_true(vng_drafts_clear(drafts, "room-1", &error));
    g_assert_no_error(error);
    g_assert_false(g_file_test(draft->path, G_FILE_TEST_EXISTS));
    vng_draft_free(draft);
    listed = vng_drafts_list(drafts, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(listed->len, ==, 0);
    g_ptr_array_unref(listed);
    g_assert_false(vng_drafts_clear(drafts, "", &error)); /* a key is 1…100 bytes */
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_free(drafts);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Disposed inside its own handlers */

static void unref_on_ready(VnFlow *flow, const gchar *path, gdouble duration, GArray *waveform, const gchar *payload,
                           gpointer data) {
    (void)path, (void)duration, (void)waveform, (void)payload;
    Rig *rig = data;
    rig->log.disposed = TRUE;
    rig->flow = NULL;
    g_object_unref(flow); /* the last reference */
    g_assert_false(rig->log.finalized); /* the emission holds one until the handler returns */
}

static void unref_when_recording(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    Rig *rig = data;
    if (rig->log.disposed || vng_flow_get_state(VNG_FLOW(object)) != VN_FLOW_STATE_RECORDING) return;
    rig->log.disposed = TRUE;
    rig->flow = NULL;
    g_object_unref(object); /* the last reference, mid-take */
}

static gboolean disposed(gpointer data) {
    return ((Rig *)data)->log.disposed;
}

static void expect_gone_quietly(Rig *rig) {
    g_assert_true(rig_wait(disposed, rig, WAIT_MS));
    rig_drain();
    g_assert_true(rig->log.finalized);
    g_assert_cmpuint(rig->log.after_dispose, ==, 0);
    /* The recorder and player outlive their flow, idle. */
    g_assert_cmpint(vng_recorder_get_state(rig->recorder), ==, VN_RECORDER_STATE_STOPPED);
    g_assert_cmpint(vng_player_get_state(rig->player), !=, VN_PLAYER_STATE_PLAYING);
}

static void test_dispose_in_attachment_ready(void) {
    Rig rig;
    rig_open(&rig, (RigOptions){.confirmation_required = FALSE});
    g_signal_connect_after(rig.flow, "attachment-ready", G_CALLBACK(unref_on_ready), &rig);
    hold_until(&rig, 0.3);
    g_assert_true(vng_flow_send(rig.flow, NULL));
    expect_gone_quietly(&rig);
    g_assert_cmpuint(count(&rig.log, "attachment-ready"), ==, 1);
    g_assert_cmpuint(count(&rig.log, "publish"), ==, 0);
    rig_close(&rig);
}

static void test_dispose_in_notify(void) {
    Rig rig;
    rig_open(&rig, (RigOptions){.confirmation_required = FALSE});
    g_signal_connect_after(rig.flow, "notify::state", G_CALLBACK(unref_when_recording), &rig);
    g_assert_true(rig_wait(viewed, &rig, WAIT_MS));
    g_assert_true(vng_flow_press(rig.flow, 200, 200, NULL));
    g_assert_true(vng_manual_clock_advance(rig.clock, 0.5, NULL));
    expect_gone_quietly(&rig);
    rig_close(&rig);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    directory = rig_directory_with_tone("vn-glib-flow-XXXXXX", 30, &microphone);
    g_test_add_func("/flow/hold-lock-stop-preview-send", test_hold_lock_stop_preview_send);
    g_test_add_func("/flow/gesture-options", test_gesture_options);
    g_test_add_func("/flow/tip-on-the-clock", test_tip_on_the_clock);
    g_test_add_func("/flow/keys", test_keys);
    g_test_add_func("/flow/too-short", test_too_short);
    g_test_add_func("/flow/trim-and-park", test_trim_and_park);
    g_test_add_func("/flow/dispose-in-attachment-ready", test_dispose_in_attachment_ready);
    g_test_add_func("/flow/dispose-in-notify", test_dispose_in_notify);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(microphone);
    g_free(directory);
    return status;
}
