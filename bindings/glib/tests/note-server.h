/*
 * note-server.h: a real HTTP server on 127.0.0.1 in the test's process (a GSocketService on the thread-default main
 * context, so it runs while a test's bounded wait iterates that context), serving one note. What async.c and
 * voicenote-gtk's tests/voice-message-loading.c share (note-fixture.h adds the note itself). Paths:
 * - `/slow/...`: the headers and NOTE_SERVER_FIRST_CHUNK bytes, then `note_server.trickle_bytes` every
 *   NOTE_SERVER_TRICKLE_MS (NOTE_SERVER_TRICKLE_BYTES unless the test sets another amount);
 * - `/missing/...`: 404 Not Found;
 * - `/auth/...`: the whole note when the request carries `Authorization: Bearer ` NOTE_SERVER_AUTH_TOKEN, else 401
 *   Unauthorized (counted in `note_server.denied`);
 * - `/silent/...`: the headers (the note's Content-Length), then nothing until the client goes;
 * - anything else (`/fast/...`): the whole note at once.
 * It counts the requests answered, the connections the client has not closed yet and the trickled chunks. Not a test
 * itself.
 */
#ifndef VOICENOTE_GLIB_TESTS_NOTE_SERVER_H
#define VOICENOTE_GLIB_TESTS_NOTE_SERVER_H

#include <gio/gio.h>
#include <string.h>

#define NOTE_SERVER_FIRST_CHUNK 2048
#define NOTE_SERVER_TRICKLE_BYTES 100
#define NOTE_SERVER_TRICKLE_MS 100
#define NOTE_SERVER_AUTH_TOKEN "secret-token"

typedef struct {
    GSocketService *service;
    guint16 port;
    GBytes *body;        /* the note every 200 answer sends */
    gsize trickle_bytes; /* what a slow answer sends every NOTE_SERVER_TRICKLE_MS */
    guint requests;      /* requests answered */
    guint open;          /* connections not yet closed by the client */
    guint slow_chunks;   /* trickled chunks sent by slow responses */
    guint slow_done;     /* slow responses sent to their end */
    guint denied;        /* `/auth/` requests answered 401 */
} NoteServer;

typedef struct {
    GSocketConnection *connection;
    GString *request;
    gsize sent;
    gboolean closed;
    guint trickle;
    guint8 buffer[1024];
} NoteConnection;

/* One server per process. */
static NoteServer note_server;

/* The client has gone (a read ended or a write failed): no more writes. The stream is closed and the connection freed
 * when its pending read ends (note_server_request_read). */
static inline void note_server_connection_close(NoteConnection *conn) {
    if (conn->closed) return;
    conn->closed = TRUE;
    note_server.open--;
    if (conn->trickle != 0) g_source_remove(conn->trickle);
    conn->trickle = 0;
}

static inline void note_server_connection_free(NoteConnection *conn) {
    g_io_stream_close(G_IO_STREAM(conn->connection), NULL, NULL);
    g_object_unref(conn->connection);
    g_string_free(conn->request, TRUE);
    g_free(conn);
}

/* Writes the next `count` bytes of the note, then, at its end, ends the response (the write side shut); FALSE (and
 * closed) when the client has gone. */
static inline gboolean note_server_send_body(NoteConnection *conn, gsize count) {
    gsize size = 0;
    const guint8 *body = g_bytes_get_data(note_server.body, &size);
    count = MIN(count, size - conn->sent);
    GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(conn->connection));
    if (!g_output_stream_write_all(out, body + conn->sent, count, NULL, NULL, NULL)) {
        note_server_connection_close(conn);
        return FALSE;
    }
    conn->sent += count;
    if (conn->sent == size) g_socket_shutdown(g_socket_connection_get_socket(conn->connection), FALSE, TRUE, NULL);
    return TRUE;
}

static gboolean note_server_trickle(gpointer data) {
    NoteConnection *conn = data;
    guint id = conn->trickle;
    conn->trickle = 0; /* this source ends here unless the body goes on */
    if (!note_server_send_body(conn, note_server.trickle_bytes)) return G_SOURCE_REMOVE;
    note_server.slow_chunks++;
    if (conn->sent == g_bytes_get_size(note_server.body)) {
        note_server.slow_done++;
        return G_SOURCE_REMOVE;
    }
    conn->trickle = id;
    return G_SOURCE_CONTINUE;
}

static void note_server_request_read(GObject *stream, GAsyncResult *result, gpointer data);

/* Reads the request until its blank line, then the client's end of the connection (0 bytes or an error). */
static inline void note_server_read_more(NoteConnection *conn) {
    GInputStream *in = g_io_stream_get_input_stream(G_IO_STREAM(conn->connection));
    g_input_stream_read_async(in, conn->buffer, sizeof conn->buffer, G_PRIORITY_DEFAULT, NULL,
                              note_server_request_read, conn);
}

static inline gboolean note_server_request_is(NoteConnection *conn, const gchar *prefix) {
    return g_str_has_prefix(conn->request->str, prefix);
}

static inline void note_server_respond(NoteConnection *conn) {
    gboolean slow = note_server_request_is(conn, "GET /slow/");
    gboolean missing = note_server_request_is(conn, "GET /missing/");
    gboolean denied = note_server_request_is(conn, "GET /auth/") &&
                      strstr(conn->request->str, "\r\nAuthorization: Bearer " NOTE_SERVER_AUTH_TOKEN "\r\n") == NULL;
    note_server.denied += denied;
    gchar *headers = missing  ? g_strdup("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                     : denied ? g_strdup("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                              : g_strdup_printf("HTTP/1.1 200 OK\r\nContent-Type: audio/ogg\r\nContent-Length: "
                                               "%" G_GSIZE_FORMAT "\r\nConnection: close\r\n\r\n",
                                               g_bytes_get_size(note_server.body));
    GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(conn->connection));
    gboolean ok = g_output_stream_write_all(out, headers, strlen(headers), NULL, NULL, NULL);
    g_free(headers);
    note_server.requests++;
    if (!ok) {
        note_server_connection_close(conn);
        return;
    }
    if (missing || denied) {
        g_socket_shutdown(g_socket_connection_get_socket(conn->connection), FALSE, TRUE, NULL);
        return;
    }
    if (note_server_request_is(conn, "GET /silent/")) return; /* the body never comes */
    if (!slow) {
        note_server_send_body(conn, g_bytes_get_size(note_server.body));
        return;
    }
    if (!note_server_send_body(conn, NOTE_SERVER_FIRST_CHUNK)) return;
    conn->trickle = g_timeout_add(NOTE_SERVER_TRICKLE_MS, note_server_trickle, conn);
}

static void note_server_request_read(GObject *stream, GAsyncResult *result, gpointer data) {
    NoteConnection *conn = data;
    gssize n = g_input_stream_read_finish(G_INPUT_STREAM(stream), result, NULL);
    if (n <= 0) {
        note_server_connection_close(conn);
        note_server_connection_free(conn);
        return;
    }
    gboolean had_request = strstr(conn->request->str, "\r\n\r\n") != NULL;
    if (!had_request) g_string_append_len(conn->request, (const gchar *)conn->buffer, n);
    if (!had_request && strstr(conn->request->str, "\r\n\r\n") != NULL) note_server_respond(conn);
    note_server_read_more(conn); /* also after a failed write: the client's end ends the read, which frees it */
}

static gboolean note_server_incoming(GSocketService *service, GSocketConnection *connection, GObject *source,
                                     gpointer data) {
    (void)service, (void)source, (void)data;
    NoteConnection *conn = g_new0(NoteConnection, 1);
    conn->connection = g_object_ref(connection);
    conn->request = g_string_new(NULL);
    note_server.open++;
    note_server_read_more(conn);
    return TRUE;
}

/* Starts the server on a free port of 127.0.0.1, serving `body` (a reference is taken). */
static inline void note_server_start(GBytes *body) {
    GError *error = NULL;
    note_server.body = g_bytes_ref(body);
    note_server.trickle_bytes = NOTE_SERVER_TRICKLE_BYTES;
    note_server.service = g_socket_service_new();
    GInetAddress *loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
    GSocketAddress *address = g_inet_socket_address_new(loopback, 0);
    GSocketAddress *bound = NULL;
    g_assert_true(g_socket_listener_add_address(G_SOCKET_LISTENER(note_server.service), address, G_SOCKET_TYPE_STREAM,
                                                G_SOCKET_PROTOCOL_TCP, NULL, &bound, &error));
    g_assert_no_error(error);
    note_server.port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
    g_signal_connect(note_server.service, "incoming", G_CALLBACK(note_server_incoming), NULL);
    g_socket_service_start(note_server.service);
    g_object_unref(bound);
    g_object_unref(address);
    g_object_unref(loopback);
}

static inline void note_server_stop(void) {
    g_socket_service_stop(note_server.service);
    g_socket_listener_close(G_SOCKET_LISTENER(note_server.service));
    g_clear_object(&note_server.service);
    g_clear_pointer(&note_server.body, g_bytes_unref);
}

/* The server's URL of `path`; free it. */
static inline gchar *note_server_url(const gchar *path) {
    return g_strdup_printf("http://127.0.0.1:%u%s", note_server.port, path);
}

/* A slow response is trickling: the client has had its first chunk and two trickles after the count `data` points
 * at (it reads past what it has and waits on the network). */
static inline gboolean note_server_trickling(gpointer data) {
    return note_server.slow_chunks >= *(guint *)data + 2;
}

/* Every connection is closed by its client. */
static inline gboolean note_server_all_closed(gpointer data) {
    (void)data;
    return note_server.open == 0;
}

#endif /* VOICENOTE_GLIB_TESTS_NOTE_SERVER_H */
