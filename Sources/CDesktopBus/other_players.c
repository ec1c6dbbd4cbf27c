/* Other MPRIS players, through calls that wait a bounded time: their names, their PlaybackStatus, Pause and Play. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int vnbus_mpris_status(vnbus_connection *connection, const char *name, uint64_t timeout_us, char *out, size_t size) {
    if (size > 0) out[0] = '\0';
    sd_bus_message *call = NULL, *reply = NULL;
    int status = sd_bus_message_new_method_call(connection->bus, &call, name, "/org/mpris/MediaPlayer2",
                                                "org.freedesktop.DBus.Properties", "Get");
    if (status >= 0) status = sd_bus_message_append_basic(call, 's', "org.mpris.MediaPlayer2.Player");
    if (status >= 0) status = sd_bus_message_append_basic(call, 's', "PlaybackStatus");
    if (status >= 0) status = call_bounded(connection, call, timeout_us, &reply);
    sd_bus_message_unref(call);
    if (status < 0) return status;
    const char *text = NULL;
    status = sd_bus_message_enter_container(reply, 'v', "s");
    if (status > 0) status = sd_bus_message_read_basic(reply, 's', &text);
    if (status > 0 && text != NULL) snprintf(out, size, "%s", text);
    else if (status >= 0) status = -EBADMSG; /* not a string: not an MPRIS player */
    sd_bus_message_unref(reply);
    return status < 0 ? status : 0;
}

int vnbus_mpris_call(vnbus_connection *connection, const char *name, const char *method, uint64_t timeout_us) {
    sd_bus_message *call = NULL;
    int status = sd_bus_message_new_method_call(connection->bus, &call, name, "/org/mpris/MediaPlayer2",
                                                "org.mpris.MediaPlayer2.Player", method);
    if (status >= 0) status = call_bounded(connection, call, timeout_us, NULL);
    sd_bus_message_unref(call);
    return status;
}
