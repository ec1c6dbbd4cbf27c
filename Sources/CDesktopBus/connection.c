/* A session-bus connection owned by one thread: opened, polled, processed, named, closed. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>

#include <systemd/sd-bus.h>

#include "bus_internal.h"
#include "desktop_bus.h"

int vnbus_open(vnbus_connection **out) {
    *out = NULL;
    vnbus_connection *connection = calloc(1, sizeof *connection);
    if (connection == NULL) return -ENOMEM;
    int status = sd_bus_open_user(&connection->bus);
    if (status < 0) {
        free(connection);
        return status;
    }
    *out = connection;
    return 0;
}

void vnbus_close(vnbus_connection *connection) {
    if (connection == NULL) return;
    sd_bus_flush_close_unref(connection->bus);
    free(connection);
}

int vnbus_descriptor(vnbus_connection *connection, short *events) {
    int wanted = sd_bus_get_events(connection->bus);
    *events = wanted > 0 ? (short)wanted : POLLIN;
    return sd_bus_get_fd(connection->bus);
}

int vnbus_timeout_ms(vnbus_connection *connection) {
    uint64_t deadline = 0;
    if (sd_bus_get_timeout(connection->bus, &deadline) < 0 || deadline == UINT64_MAX) return -1;
    if (deadline == 0) return 0;
    /* An absolute CLOCK_MONOTONIC time in microseconds. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t now_us = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
    if (deadline <= now_us) return 0;
    uint64_t ms = (deadline - now_us + 999) / 1000;
    return ms > 60000 ? 60000 : (int)ms;
}

int vnbus_process(vnbus_connection *connection) {
    int status;
    /* One message per call; bounded, so a flood cannot keep the owner here for good. */
    for (int round = 0; round < 1000; round++) {
        status = sd_bus_process(connection->bus, NULL);
        if (status <= 0) return status < 0 ? status : 0;
    }
    return 0;
}

int vnbus_request_name(vnbus_connection *connection, const char *name) {
    /* No flags: neither queued behind another owner nor replacing one. */
    int status = sd_bus_request_name(connection->bus, name, 0);
    return status == -EEXIST || status == -EALREADY ? -EEXIST : status < 0 ? status : 0;
}

int vnbus_release_name(vnbus_connection *connection, const char *name) {
    int status = sd_bus_release_name(connection->bus, name);
    if (status >= 0) sd_bus_flush(connection->bus);
    return status < 0 ? status : 0;
}
