/*
 * note-server.h: what the `_async` tests over URLs (async.c, http-options.c) share: a note (NOTE_SECONDS of tone,
 * encoded by opusenc) in a temporary directory, and a real HTTP server on 127.0.0.1 in this process (a
 * GSocketService on the main context, so it answers while a test iterates it) that serves the note:
 * - `/fast/...`: at once;
 * - `/slow/...`: the headers and FIRST_CHUNK bytes, then TRICKLE_BYTES every TRICKLE_MS (tens of seconds in all);
 * - `/auth/...`: at once when the request carries `Authorization: Bearer ` AUTH_TOKEN, else 401 Unauthorized;
 * - `/silent/...`: the headers (the note's Content-Length), then nothing until the client goes.
 * Connections are counted (`server.open`), so a test sees the client close one.
 */
#ifndef VOICENOTE_GLIB_TESTS_NOTE_SERVER_H
#define VOICENOTE_GLIB_TESTS_NOTE_SERVER_H

#include "async-outcome.h"

#include <string.h>

#define NOTE_SECONDS 3.0
#define FIRST_CHUNK 2048
#define TRICKLE_BYTES 100
#define TRICKLE_MS 100
#define AUTH_TOKEN "secret-token"

static gchar *directory;
static gchar *note_path;
static GBytes *note_bytes;

/* ------------------------------------------------------------------------------------------------------------ */
/* The HTTP server: one per process, on the main context */

typedef struct {
    GSocketService *service;
    guint16 port;
    guint requests;      /* requests answered */
    guint open;          /* connections not yet closed by the client */
    guint slow_chunks;   /* trickled chunks sent by slow responses */
    guint denied;        /* `/auth/` requests answered 401 */
} Server;

typedef struct {
    GSocketConnection *connection;
    GString *request;
    gsize sent;
    gboolean closed;
    guint trickle;
    guint8 buffer[1024];
} Connection;

static Server server;

/* The client has gone (a read ended or a write failed): no more writes. The stream is closed and the connection freed
 * when its pending read ends (request_read). */
static inline void connection_close(Connection *conn) {
    if (conn->closed) return;
    conn->closed = TRUE;
    server.open--;
    if (conn->trickle != 0) g_source_remove(conn->trickle);
    conn->trickle = 0;
}

static inline void connection_free(Connection *conn) {
    g_io_stream_close(G_IO_STREAM(conn->connection), NULL, NULL);
    g_object_unref(conn->connection);
    g_string_free(conn->request, TRUE);
    g_free(conn);
}

/* Writes the next `count` bytes of the note, then, at its end, ends the response (the write side shut); FALSE (and
 * closed) when the client has gone. */
static inline gboolean send_body(Connection *conn, gsize count) {
    gsize size = 0;
    const guint8 *body = g_bytes_get_data(note_bytes, &size);
    count = MIN(count, size - conn->sent);
    GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(conn->connection));
    if (!g_output_stream_write_all(out, body + conn->sent, count, NULL, NULL, NULL)) {
        connection_close(conn);
        return FALSE;
    }
    conn->sent += count;
    if (conn->sent == size) g_socket_shutdown(g_socket_connection_get_socket(conn->connection), FALSE, TRUE, NULL);
    return TRUE;
}

static inline gboolean trickle(gpointer data) {
    Connection *conn = data;
    guint id = conn->trickle;
    conn->trickle = 0; /* this source ends here unless the body goes on */
    if (!send_body(conn, TRICKLE_BYTES) || conn->sent == g_bytes_get_size(note_bytes)) return G_SOURCE_REMOVE;
    server.slow_chunks++;
    conn->trickle = id;
    return G_SOURCE_CONTINUE;
}

static inline void request_read(GObject *stream, GAsyncResult *result, gpointer data);

/* Reads the request until its blank line, then the client's end of the connection (0 bytes or an error). */
static inline void read_more(Connection *conn) {
    GInputStream *in = g_io_stream_get_input_stream(G_IO_STREAM(conn->connection));
    g_input_stream_read_async(in, conn->buffer, sizeof conn->buffer, G_PRIORITY_DEFAULT, NULL, request_read, conn);
}

static inline gboolean request_is(const Connection *conn, const gchar *prefix) {
    return g_str_has_prefix(conn->request->str, prefix);
}

static inline void respond(Connection *conn) {
    server.requests++;
    gboolean denied = request_is(conn, "GET /auth/") &&
                      strstr(conn->request->str, "\r\nAuthorization: Bearer " AUTH_TOKEN "\r\n") == NULL;
    server.denied += denied;
    gchar *headers =
        denied ? g_strdup("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
               : g_strdup_printf("HTTP/1.1 200 OK\r\nContent-Type: audio/ogg\r\nContent-Length: %" G_GSIZE_FORMAT
                                 "\r\nConnection: close\r\n\r\n",
                                 g_bytes_get_size(note_bytes));
    GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(conn->connection));
    gboolean ok = g_output_stream_write_all(out, headers, strlen(headers), NULL, NULL, NULL);
    g_free(headers);
    if (!ok) {
        connection_close(conn);
        return;
    }
    if (denied) {
        g_socket_shutdown(g_socket_connection_get_socket(conn->connection), FALSE, TRUE, NULL);
        return;
    }
    if (request_is(conn, "GET /silent/")) return; /* the body never comes */
    if (!request_is(conn, "GET /slow/")) {
        send_body(conn, g_bytes_get_size(note_bytes));
        return;
    }
    if (!send_body(conn, FIRST_CHUNK)) return;
    conn->trickle = g_timeout_add(TRICKLE_MS, trickle, conn);
}

static inline void request_read(GObject *stream, GAsyncResult *result, gpointer data) {
    Connection *conn = data;
    gssize n = g_input_stream_read_finish(G_INPUT_STREAM(stream), result, NULL);
    if (n <= 0) {
        connection_close(conn);
        connection_free(conn);
        return;
    }
    gboolean had_request = strstr(conn->request->str, "\r\n\r\n") != NULL;
    if (!had_request) g_string_append_len(conn->request, (const gchar *)conn->buffer, n);
    if (!had_request && strstr(conn->request->str, "\r\n\r\n") != NULL) respond(conn);
    read_more(conn); /* also after a failed write: the client's end ends the read, which frees the connection */
}

static inline gboolean incoming(GSocketService *service, GSocketConnection *connection, GObject *source, gpointer data) {
    (void)service, (void)source, (void)data;
    Connection *conn = g_new0(Connection, 1);
    conn->connection = g_object_ref(connection);
    conn->request = g_string_new(NULL);
    server.open++;
    read_more(conn);
    return TRUE;
}

static inline void server_start(void) {
    GError *error = NULL;
    server.service = g_socket_service_new();
    GInetAddress *loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
    GSocketAddress *address = g_inet_socket_address_new(loopback, 0);
    GSocketAddress *bound = NULL;
    g_assert_true(g_socket_listener_add_address(G_SOCKET_LISTENER(server.service), address, G_SOCKET_TYPE_STREAM,
                                                G_SOCKET_PROTOCOL_TCP, NULL, &bound, &error));
    g_assert_no_error(error);
    server.port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
    g_signal_connect(server.service, "incoming", G_CALLBACK(incoming), NULL);
    g_socket_service_start(server.service);
    g_object_unref(bound);
    g_object_unref(address);
    g_object_unref(loopback);
}

static inline gchar *server_url(const gchar *path) {
    return g_strdup_printf("http://127.0.0.1:%u%s", server.port, path);
}

/* The slow response is trickling: the client has had its first chunk and read past it (it waits on the network). */
static inline gboolean slow_trickling(gpointer data) {
    return server.slow_chunks >= *(guint *)data + 2;
}

static inline gboolean all_closed(gpointer data) {
    (void)data;
    return server.open == 0;
}


/* ------------------------------------------------------------------------------------------------------------ */
/* Fixture: the note (a tone encoded by opusenc) */

static inline void child_done(GObject *source, GAsyncResult *result, gpointer data) {
    gboolean *ok = data;
    GError *error = NULL;
    *ok = g_subprocess_wait_check_finish(G_SUBPROCESS(source), result, &error) ? 1 : 2;
    if (error != NULL) g_printerr("%s\n", error->message);
    g_clear_error(&error);
}

static inline gboolean child_ended(gpointer data) {
    return *(gboolean *)data != 0;
}

static inline void make_note(void) {
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-glib-async-XXXXXX", &error);
    g_assert_no_error(error);
    gchar *raw = g_build_filename(directory, "tone.raw", NULL);
    note_path = g_build_filename(directory, "note.ogg", NULL);
    rig_write_tone(raw, NOTE_SECONDS);
    const gchar *argv[] = {"opusenc", "--quiet", "--raw", "--raw-bits", "16", "--raw-rate", "48000", "--raw-chan",
                           "1", raw, note_path, NULL};
    GSubprocess *child = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_NONE, &error);
    g_assert_no_error(error);
    gboolean ok = 0;
    g_subprocess_wait_check_async(child, NULL, child_done, &ok);
    if (!rig_wait(child_ended, &ok, WAIT_MS)) g_subprocess_force_exit(child);
    g_assert_cmpint(ok, ==, 1);
    g_object_unref(child);
    g_remove(raw);
    g_free(raw);
    gchar *contents = NULL;
    gsize size = 0;
    g_assert_true(g_file_get_contents(note_path, &contents, &size, &error));
    note_bytes = g_bytes_new_take(contents, size);
}


/* The note, the media cache in the test's directory (downloads kept there, the user's cache untouched) and the
 * server; before g_test_run(). */
static inline void note_server_start(void) {
    make_note();
    gchar *cache = g_build_filename(directory, "cache", NULL);
    g_assert_cmpint(vn_cache_set_directory(cache), ==, VN_OK);
    g_free(cache);
    server_start();
}

/* The server stopped, the note and its directory gone; after g_test_run(). */
static inline void note_server_stop(void) {
    g_socket_service_stop(server.service);
    g_socket_listener_close(G_SOCKET_LISTENER(server.service));
    g_object_unref(server.service);
    g_bytes_unref(note_bytes);
    rig_remove_tree(directory);
    g_free(note_path);
    g_free(directory);
}

#endif /* VOICENOTE_GLIB_TESTS_NOTE_SERVER_H */
