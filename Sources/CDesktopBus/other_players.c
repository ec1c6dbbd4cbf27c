/* Other MPRIS players, through calls that wait a bounded time: their names, then their PlaybackStatus, Pause and
 * Play sent to all at once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-bus.h>

#include "bus_internal.h"
#include "desktop_bus.h"

#define MPRIS_PREFIX "org.mpris.MediaPlayer2."

/* Sends `call` and waits at most `timeout_us` for its reply (into `*reply`, or dropped when NULL). */
static int call_bounded(vnbus_connection *connection, sd_bus_message *call, uint64_t timeout_us, sd_bus_message **reply) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *answer = NULL;
    int status = sd_bus_call(connection->bus, call, timeout_us, &error, &answer);
    sd_bus_error_free(&error);
    if (reply != NULL && status >= 0) *reply = answer;
    else sd_bus_message_unref(answer);
    return status < 0 ? status : 0;
}

void vnbus_free_names(char **names) {
    for (size_t i = 0; names != NULL && names[i] != NULL; i++) free(names[i]);
    free(names);
}

int vnbus_mpris_names(vnbus_connection *connection, uint64_t timeout_us, char ***out) {
    *out = NULL;
    sd_bus_message *call = NULL, *reply = NULL;
    int status = sd_bus_message_new_method_call(connection->bus, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                "org.freedesktop.DBus", "ListNames");
    if (status >= 0) status = call_bounded(connection, call, timeout_us, &reply);
    sd_bus_message_unref(call);
    if (status < 0) return status;
    size_t count = 0, capacity = 8;
    char **names = calloc(capacity + 1, sizeof *names);
    status = names == NULL ? -ENOMEM : sd_bus_message_enter_container(reply, 'a', "s");
    while (status >= 0) {
        const char *name = NULL;
        status = sd_bus_message_read_basic(reply, 's', &name);
        if (status <= 0) break;
        if (strncmp(name, MPRIS_PREFIX, strlen(MPRIS_PREFIX)) != 0) continue;
        if (count == capacity) {
            char **grown = capacity < 4096 ? realloc(names, (capacity * 2 + 1) * sizeof *names) : NULL;
            if (grown == NULL) break; /* a bus with thousands of players: the first ones */
            names = grown;
            capacity *= 2;
        }
        if ((names[count] = strdup(name)) == NULL) {
            status = -ENOMEM;
            break;
        }
        names[++count] = NULL;
    }
    sd_bus_message_unref(reply);
    if (status < 0) {
        vnbus_free_names(names);
        return status;
    }
    *out = names;
    return (int)count;
}

/* One call among those sent at once: its answer, and the count of those still waiting. */
typedef struct {
    int *waiting;
    int result;     /* 0, or a negative errno */
    int status;     /* a status call's answer, or -1 */
    int wants_status;
} pending_call;

static int parse_status(sd_bus_message *reply) {
    const char *text = NULL;
    if (sd_bus_message_enter_container(reply, 'v', "s") <= 0 || sd_bus_message_read_basic(reply, 's', &text) <= 0)
        return -1;
    if (!strcmp(text, "Playing")) return VNBUS_MPRIS_PLAYING;
    if (!strcmp(text, "Paused")) return VNBUS_MPRIS_PAUSED;
    if (!strcmp(text, "Stopped")) return VNBUS_MPRIS_STOPPED;
    return -1;
}

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)error;
    pending_call *call = userdata;
    if (sd_bus_message_is_method_error(reply, NULL)) {
        call->result = sd_bus_message_is_method_error(reply, SD_BUS_ERROR_NO_REPLY) ? -ETIMEDOUT : -EIO;
    } else {
        call->result = 0;
        if (call->wants_status) call->status = parse_status(reply);
    }
    (*call->waiting)--;
    return 0;
}

static uint64_t now_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/* Sends one call per name (Get PlaybackStatus, or `method`), then processes replies until every one came or the
 * deadline passed; sd-bus answers a call that timed out with NoReply, so a hung player ends the wait at `timeout_us`. */
static int call_all(vnbus_connection *connection, char *const *names, size_t count, const char *method,
                    uint64_t timeout_us, pending_call *calls, sd_bus_slot **slots) {
    int waiting = 0, sent = 0;
    for (size_t i = 0; i < count; i++) {
        calls[i] = (pending_call){.waiting = &waiting, .result = -ETIMEDOUT, .status = -1, .wants_status = method == NULL};
        sd_bus_message *message = NULL;
        int status = method == NULL
                         ? sd_bus_message_new_method_call(connection->bus, &message, names[i], "/org/mpris/MediaPlayer2",
                                                          "org.freedesktop.DBus.Properties", "Get")
                         : sd_bus_message_new_method_call(connection->bus, &message, names[i], "/org/mpris/MediaPlayer2",
                                                          "org.mpris.MediaPlayer2.Player", method);
        if (status >= 0 && method == NULL) status = sd_bus_message_append_basic(message, 's', "org.mpris.MediaPlayer2.Player");
        if (status >= 0 && method == NULL) status = sd_bus_message_append_basic(message, 's', "PlaybackStatus");
        if (status >= 0) status = sd_bus_call_async(connection->bus, &slots[i], message, on_reply, &calls[i], timeout_us);
        sd_bus_message_unref(message);
        if (status < 0) {
            calls[i].result = status;
            continue;
        }
        waiting++;
        sent++;
    }
    /* sd-bus times each call out itself; the outer deadline only guards against a bus that stops answering. */
    uint64_t deadline = now_us() + timeout_us + 100000u;
    while (waiting > 0) {
        int status = sd_bus_process(connection->bus, NULL);
        if (status < 0) break;
        if (status > 0) continue;
        uint64_t now = now_us();
        if (now >= deadline) break;
        if (sd_bus_wait(connection->bus, deadline - now) < 0) break;
    }
    for (size_t i = 0; i < count; i++) {
        sd_bus_slot_unref(slots[i]); /* a call still waiting is dropped: its callback never runs after this */
        slots[i] = NULL;
    }
    return sent > 0 || count == 0 ? 0 : calls[0].result;
}

static int run_calls(vnbus_connection *connection, char *const *names, size_t count, const char *method,
                     uint64_t timeout_us, int *out, int want_status) {
    pending_call *calls = calloc(count ? count : 1, sizeof *calls);
    sd_bus_slot **slots = calloc(count ? count : 1, sizeof *slots);
    if (calls == NULL || slots == NULL) {
        free(calls);
        free(slots);
        return -ENOMEM;
    }
    int status = call_all(connection, names, count, method, timeout_us, calls, slots);
    for (size_t i = 0; i < count; i++) out[i] = want_status ? calls[i].status : calls[i].result;
    free(calls);
    free(slots);
    return status;
}

int vnbus_mpris_statuses(vnbus_connection *connection, char *const *names, size_t count, uint64_t timeout_us,
                         int *statuses) {
    return run_calls(connection, names, count, NULL, timeout_us, statuses, 1);
}

int vnbus_mpris_call_all(vnbus_connection *connection, char *const *names, size_t count, const char *method,
                         uint64_t timeout_us, int *results) {
    return run_calls(connection, names, count, method, timeout_us, results, 0);
}
