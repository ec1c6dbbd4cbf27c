/*
 * upload-server.h: what the uploader tests (uploader.c, upload-async.c) share: a real HTTP server on 127.0.0.1 in
 * the test's process (GLib's GThreadedSocketService). It reads each request (headers, then the body by
 * Content-Length or chunks, answering `Expect: 100-continue`), keeps what it got, and answers 200 with a JSON object
 * naming the uploaded URL both ways (`file` for Stream, `content_uri` for Matrix). Told to hold, it answers a request
 * read in full only once released, and counts the held requests whose client closed the connection instead; every
 * wait of its threads is bounded (WAIT_MS). Also a port nobody listens on, and a search in what it got.
 */
#ifndef VOICENOTE_GLIB_TESTS_UPLOAD_SERVER_H
#define VOICENOTE_GLIB_TESTS_UPLOAD_SERVER_H

#include "capture-rig.h"

typedef struct {
    GMutex lock;
    guint requests;
    gchar *method;
    gchar *path;
    gchar *content_type;
    GByteArray *body;
    gboolean hold;          /* answer only once released (a request that stays in flight) */
    GCancellable *release;  /* cancelled: held requests are answered */
    guint holding;          /* requests read in full and held */
    guint closed_while_held; /* held requests whose client closed the connection */
    GMainContext *context;  /* the test's: woken at each change above, so that its waits see them */
    guint connections;      /* accepted and not yet served to the end */
    GCond served;           /* signalled as `connections` goes down */
} Server;

static const gchar *answer_body = "{\"file\":\"https://cdn.example.org/uploads/note.ogg\","
                                  "\"content_uri\":\"mxc://matrix.example.org/UpLoAdEd42\"}";

/* Reads `length` bytes of the body. */
static inline gboolean read_exactly(GInputStream *in, GByteArray *body, gsize length) {
    guint8 *buffer = g_malloc(length > 0 ? length : 1);
    gsize got = 0;
    gboolean ok = g_input_stream_read_all(in, buffer, length, &got, NULL, NULL) && got == length;
    g_byte_array_append(body, buffer, (guint)got);
    g_free(buffer);
    return ok;
}

static inline gboolean read_chunks(GDataInputStream *in, GByteArray *body) {
    for (;;) {
        gchar *line = g_data_input_stream_read_line(in, NULL, NULL, NULL);
        if (line == NULL) return FALSE;
        guint64 size = g_ascii_strtoull(line, NULL, 16);
        g_free(line);
        if (size > 64 * 1024 * 1024) return FALSE;
        if (size > 0 && !read_exactly(G_INPUT_STREAM(in), body, (gsize)size)) return FALSE;
        gchar *end = g_data_input_stream_read_line(in, NULL, NULL, NULL); /* the chunk's CRLF, or the trailer's */
        g_free(end);
        if (size == 0) return TRUE;
    }
}

/* Holds a request read in full: waits (at most WAIT_MS) until `release` is cancelled or the client's end of the
 * connection closes; whether it closed. */
static inline gboolean client_closed(GSocketConnection *connection, GCancellable *release) {
    GSocket *socket = g_socket_connection_get_socket(connection);
    if (!g_socket_condition_timed_wait(socket, G_IO_IN, (gint64)WAIT_MS * 1000, release, NULL)) return FALSE;
    guint8 byte;
    return g_socket_receive(socket, (gchar *)&byte, 1, NULL, NULL) <= 0; /* 0: the end; nothing more is sent */
}

/* One connection, on a service thread: one request, one answer (none when the client closed a held request). */
static inline gboolean serve(GThreadedSocketService *service, GSocketConnection *connection, GObject *source,
                             gpointer data) {
    (void)service;
    (void)source;
    Server *server = data;
    g_socket_set_timeout(g_socket_connection_get_socket(connection), 20);
    GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(connection));
    GDataInputStream *in = g_data_input_stream_new(g_io_stream_get_input_stream(G_IO_STREAM(connection)));
    g_data_input_stream_set_newline_type(in, G_DATA_STREAM_NEWLINE_TYPE_CR_LF);
    g_filter_input_stream_set_close_base_stream(G_FILTER_INPUT_STREAM(in), FALSE);
    gchar *request = g_data_input_stream_read_line(in, NULL, NULL, NULL);
    gchar **parts = request != NULL ? g_strsplit(request, " ", 3) : NULL;
    gchar *content_type = NULL;
    guint64 length = 0;
    gboolean chunked = FALSE, expect = FALSE;
    gchar *line;
    while ((line = g_data_input_stream_read_line(in, NULL, NULL, NULL)) != NULL && line[0] != '\0') {
        gchar *colon = strchr(line, ':');
        if (colon != NULL) {
            *colon = '\0';
            const gchar *value = g_strstrip(colon + 1);
            if (g_ascii_strcasecmp(line, "Content-Length") == 0) length = g_ascii_strtoull(value, NULL, 10);
            if (g_ascii_strcasecmp(line, "Content-Type") == 0) content_type = g_strdup(value);
            if (g_ascii_strcasecmp(line, "Transfer-Encoding") == 0) chunked = g_ascii_strcasecmp(value, "chunked") == 0;
            if (g_ascii_strcasecmp(line, "Expect") == 0) expect = TRUE;
        }
        g_free(line);
    }
    g_free(line);
    if (expect) g_output_stream_write_all(out, "HTTP/1.1 100 Continue\r\n\r\n", 25, NULL, NULL, NULL);
    GByteArray *body = g_byte_array_new();
    gboolean ok = parts != NULL && g_strv_length(parts) == 3 && length <= 64 * 1024 * 1024 &&
                  (chunked ? read_chunks(in, body) : read_exactly(G_INPUT_STREAM(in), body, (gsize)length));
    g_mutex_lock(&server->lock);
    gboolean hold = ok && server->hold;
    if (hold) server->holding++;
    g_mutex_unlock(&server->lock);
    g_main_context_wakeup(server->context);
    if (hold && client_closed(connection, server->release)) {
        ok = FALSE;
        g_mutex_lock(&server->lock);
        server->closed_while_held++;
        g_mutex_unlock(&server->lock);
        g_main_context_wakeup(server->context);
    }
    g_mutex_lock(&server->lock);
    server->requests++;
    g_free(server->method);
    g_free(server->path);
    g_free(server->content_type);
    server->method = parts != NULL ? g_strdup(parts[0]) : NULL;
    server->path = parts != NULL && parts[0] != NULL ? g_strdup(parts[1]) : NULL;
    server->content_type = content_type;
    if (server->body != NULL) g_byte_array_unref(server->body);
    server->body = body;
    g_mutex_unlock(&server->lock);
    g_main_context_wakeup(server->context);
    /* Answered after it was recorded: a client that has the answer finds the request counted. */
    if (ok) {
        gchar *answer = g_strdup_printf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                                        "Connection: close\r\n\r\n%s",
                                        strlen(answer_body), answer_body);
        g_output_stream_write_all(out, answer, strlen(answer), NULL, NULL, NULL);
        g_free(answer);
    }
    g_strfreev(parts);
    g_free(request);
    g_object_unref(in);
    g_io_stream_close(G_IO_STREAM(connection), NULL, NULL);
    g_mutex_lock(&server->lock);
    server->connections--;
    g_cond_broadcast(&server->served);
    g_mutex_unlock(&server->lock);
    return TRUE;
}

/* A connection accepted, on the test's thread (before the service hands it to a thread): counted, so that
 * server_stop() can wait for its end. */
static inline gboolean server_accepted(GSocketService *service, GSocketConnection *connection, GObject *source,
                                       gpointer data) {
    (void)service, (void)connection, (void)source;
    Server *server = data;
    g_mutex_lock(&server->lock);
    server->connections++;
    g_mutex_unlock(&server->lock);
    return FALSE; /* the threaded service's own handler runs next */
}

/* A server on 127.0.0.1 (`server` zeroed, or with `hold` set); *port receives its port. */
static GSocketService *server_start(Server *server, guint16 *port) {
    g_mutex_init(&server->lock);
    server->release = g_cancellable_new();
    server->context = g_main_context_ref_thread_default();
    g_cond_init(&server->served);
    GSocketService *service = g_threaded_socket_service_new(4);
    GInetAddress *loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
    GSocketAddress *address = g_inet_socket_address_new(loopback, 0);
    GSocketAddress *bound = NULL;
    GError *error = NULL;
    g_socket_listener_add_address(G_SOCKET_LISTENER(service), address, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                  NULL, &bound, &error);
    g_assert_no_error(error);
    *port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
    g_signal_connect(service, "incoming", G_CALLBACK(server_accepted), server);
    g_signal_connect(service, "run", G_CALLBACK(serve), server);
    g_socket_service_start(service);
    g_object_unref(bound);
    g_object_unref(address);
    g_object_unref(loopback);
    return service;
}

static inline void server_stop(GSocketService *service, Server *server) {
    g_cancellable_cancel(server->release);
    g_socket_service_stop(service);
    g_socket_listener_close(G_SOCKET_LISTENER(service));
    /* The service's threads still serving use `server`: their end is waited for (bounded), as unreffing the service
     * does not wait. */
    g_mutex_lock(&server->lock);
    gint64 deadline = g_get_monotonic_time() + (gint64)WAIT_MS * 1000;
    while (server->connections > 0 && g_cond_wait_until(&server->served, &server->lock, deadline)) {}
    guint left = server->connections;
    g_mutex_unlock(&server->lock);
    g_assert_cmpuint(left, ==, 0);
    g_object_unref(service);
    g_free(server->method);
    g_free(server->path);
    g_free(server->content_type);
    if (server->body != NULL) g_byte_array_unref(server->body);
    g_object_unref(server->release);
    g_main_context_unref(server->context);
    g_cond_clear(&server->served);
    g_mutex_clear(&server->lock);
}

/* A port on 127.0.0.1 that nobody listens on: bound, then closed. */
static inline guint16 closed_port(void) {
    GError *error = NULL;
    GSocket *socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
    g_assert_no_error(error);
    GInetAddress *loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
    GSocketAddress *address = g_inet_socket_address_new(loopback, 0);
    g_assert_true(g_socket_bind(socket, address, FALSE, &error));
    GSocketAddress *bound = g_socket_get_local_address(socket, &error);
    g_assert_no_error(error);
    guint16 port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
    g_socket_close(socket, NULL);
    g_object_unref(bound);
    g_object_unref(address);
    g_object_unref(loopback);
    g_object_unref(socket);
    return port;
}

/* Whether `haystack` holds `needle`. */
static inline gboolean bytes_contain(const GByteArray *haystack, const gchar *needle, gsize length) {
    for (gsize i = 0; i + length <= haystack->len; i++)
        if (memcmp(haystack->data + i, needle, length) == 0) return TRUE;
    return FALSE;
}

#endif /* VOICENOTE_GLIB_TESTS_UPLOAD_SERVER_H */
