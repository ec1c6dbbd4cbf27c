/**
 * \file voicenote.h
 * \brief voicenote: the voice-message engine for Linux chat clients (record, meter, waveform, play, upload).
 *
 * This header is the whole public C API and the ABI contract of `libvoicenote.so.0`.
 *
 * Conventions kept by every function (see each function for its own details):
 * - Every fallible call returns `int`: #VN_OK (0) or a negative `VN_E_*` status. Numbers never change.
 * - After a failure, vn_last_error_message() gives this thread's detail text for it.
 * - Handles are opaque tokens, never reused. `create` functions set `*out = NULL` on failure; `destroy(NULL)` is a
 *   no-op; a NULL handle elsewhere is #VN_E_MISUSE; a handle that was already destroyed is detected and is
 *   #VN_E_MISUSE. Handles are not pointers to memory: do not dereference them.
 * - Inputs are copied before a call returns. Returned strings are static unless a function says the caller
 *   owns them, in which case they are freed with vn_free().
 * - String arguments (paths, device names, configuration text) are UTF-8; one that is not valid UTF-8 is
 *   #VN_E_INVALID_ARG (a path in another encoding is refused, never taken for a different file).
 * - Numbers are range-checked before use: a value outside a function's documented range (NaN, infinities and
 *   `size_t` counts above `SIZE_MAX / 2` included) is #VN_E_INVALID_ARG with the allowed range in the message,
 *   and changes nothing. A capacity of `SIZE_MAX` means "room enough".
 * - Event structs passed to callbacks start with `size_t size`, are valid only during the callback, and only
 *   ever grow at the end.
 *
 * Threads and callbacks:
 * - **Events** (what happened) go to subscribers. By default they run on one library-owned event thread, in
 *   the order they happened. An object created with a #vn_event_loop delivers its events only inside
 *   vn_event_loop_dispatch() on the thread that calls it (for GTK, Qt and other main loops).
 * - Callbacks never run on an audio thread and never while the library holds a lock; any `vn_` call is
 *   allowed inside a callback, including unsubscribing or destroying the object that called.
 * - After vn_unsubscribe() or an object's destroy returns, no callback of that subscription runs again. Called
 *   from inside a callback, they never wait for another callback: a subscription whose callback is running (its
 *   own, or one on another thread) is marked dead, no new callback of it starts, and its `release` runs when that
 *   running callback returns. So callbacks on two threads may end each other's subscriptions without deadlock.
 * - A subscription's `release(user_data)` runs exactly once, after its last callback.
 * - **Hooks** (questions the library asks) run synchronously on the thread named in their documentation.
 *
 * \threadsafety Unless a function says otherwise, every function may be called from any thread.
 * \since 0.1.0
 */
#ifndef VOICENOTE_H
#define VOICENOTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Version
 * @{ */

/*
 * The project's version is written here and nowhere else: the three numbers below. The library, the CLI, the
 * Makefile (SONAME, .deb, pkg-config and CMake packages), the documentation and the Python package (and its wheel)
 * all read them (scripts/version.sh).
 */
/** Major version; the SONAME is `libvoicenote.so.<major>`. \since 0.1.0 */
#define VN_VERSION_MAJOR 0
/** Minor version: grows when API is added. \since 0.1.0 */
#define VN_VERSION_MINOR 1
/** Patch version: grows for fixes. \since 0.1.0 */
#define VN_VERSION_PATCH 0
/** Turns three version numbers into the text "major.minor.patch" (a string literal). \since 0.1.0 */
#define VN_VERSION_TEXT(major, minor, patch) VN_VERSION_TEXT_LITERAL_(major, minor, patch)
/** VN_VERSION_TEXT()'s second step: the numbers, expanded, are stringified here. \since 0.1.0 */
#define VN_VERSION_TEXT_LITERAL_(major, minor, patch) #major "." #minor "." #patch
/** The version as text, "major.minor.patch". \since 0.1.0 */
#define VN_VERSION_STRING VN_VERSION_TEXT(VN_VERSION_MAJOR, VN_VERSION_MINOR, VN_VERSION_PATCH)
/** Packs a version into one comparable number: major * 1000000 + minor * 1000 + patch. \since 0.1.0 */
#define VN_MAKE_VERSION(major, minor, patch) ((major) * 1000000 + (minor) * 1000 + (patch))
/** The version this header describes, as a number from VN_MAKE_VERSION(). \since 0.1.0 */
#define VN_VERSION_NUMBER VN_MAKE_VERSION(VN_VERSION_MAJOR, VN_VERSION_MINOR, VN_VERSION_PATCH)

/**
 * The version of the library loaded at run time, which may be newer than the header compiled against.
 *
 * \returns the version as VN_MAKE_VERSION(major, minor, patch).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_version_number(void);

/**
 * The version of the library loaded at run time, as text.
 *
 * \returns a static string such as "0.1.0"; never NULL; do not free.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
const char *vn_version_string(void);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Status codes
 * @{ */

/** Status codes returned by every fallible call. Values are stable and only ever appended. \since 0.1.0 */
typedef enum vn_status {
    VN_OK = 0,                /**< Success. */
    VN_E_INVALID_ARG = -1,    /**< A bad argument, including a directory where a file is expected. */
    VN_E_MISUSE = -2,         /**< Wrong call order, a NULL or destroyed handle, an unknown subscription. */
    VN_E_NOMEM = -3,          /**< Out of memory. */
    VN_E_IO = -4,             /**< A read or write failed. */
    VN_E_NO_SPACE = -5,       /**< The disk or a file-size limit is full. */
    VN_E_FORMAT = -6,         /**< Corrupt, truncated, not audio, absurd header values, invalid UTF-8 or JSON. */
    VN_E_DEVICE = -7,         /**< No such audio device, it will not start, or it was lost. */
    VN_E_PERMISSION = -8,     /**< Access refused: device or file permission, HTTP 401/403. */
    VN_E_NETWORK = -9,        /**< DNS, connect, TLS, dropped connection, HTTP 5xx and other 4xx. */
    VN_E_NOT_FOUND = -10,     /**< Missing file, HTTP 404/410. */
    VN_E_TOO_LARGE = -11,     /**< Over a size limit, HTTP 413. */
    VN_E_UNSUPPORTED = -12,   /**< Not supported (format, attachment type, operation). */
    VN_E_BUSY = -13,          /**< A session hook refused, or the resource is in use. */
    VN_E_CANCELLED = -14,     /**< The operation was cancelled. */
    VN_E_INTERNAL = -15       /**< A bug in voicenote; the message says where. */
} vn_status;

/**
 * The symbolic name of a status, e.g. "VN_E_FORMAT".
 *
 * \param status a status code.
 * \returns a static string; "VN_E_UNKNOWN" for a number that is not a status. Never NULL; do not free.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
const char *vn_status_name(int status);

/**
 * A short English description of a status, e.g. "corrupt or unsupported data".
 *
 * \param status a status code.
 * \returns a static string; "unknown status" for a number that is not a status. Never NULL; do not free.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
const char *vn_strerror(int status);

/**
 * The detail message of the last call that failed on the calling thread, with the errno or HTTP status where
 * there is one (e.g. "open /tmp/x.ogg: No such file or directory (errno 2)").
 *
 * Successful calls do not clear it.
 *
 * \returns a string owned by the library, valid on this thread until its next failing `vn_` call; "" when
 *          no call has failed on this thread. Never NULL; do not free.
 * \threadsafety Any thread; each thread has its own message.
 * \since 0.1.0
 */
const char *vn_last_error_message(void);

/**
 * Frees memory that a `vn_` function returned and documented as owned by the caller.
 *
 * \param memory the pointer, or NULL (then nothing happens).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_free(void *memory);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Logging
 * @{ */

/** Log levels, most severe first. \since 0.1.0 */
typedef enum vn_log_level {
    VN_LOG_ERROR = 1,  /**< Something failed. */
    VN_LOG_WARNING = 2, /**< Something unexpected that voicenote handled. */
    VN_LOG_INFO = 3,   /**< A notable step (device opened, file finished). */
    VN_LOG_DEBUG = 4   /**< Detail for debugging. */
} vn_log_level;

/**
 * Receives one log line.
 *
 * \param user_data the pointer given to vn_log_set_handler().
 * \param level a #vn_log_level.
 * \param message the line, without a trailing newline; valid only during the call.
 * \threadsafety Runs on the thread that logged (a caller's thread or a library thread, never an audio thread),
 *               never while the library holds a lock. It may call any `vn_` function except
 *               vn_log_set_handler().
 * \since 0.1.0
 */
typedef void (*vn_log_fn)(void *user_data, int level, const char *message);

/**
 * Sets the process-wide log handler. The default is none: the library is quiet.
 *
 * Like SDL's setters, this waits until calls of the previous handler that are running on other threads have
 * returned, so after it returns the old handler and its `user_data` are no longer used.
 *
 * \param handler the new handler, or NULL to stop logging.
 * \param user_data passed to every call of `handler`.
 * \param max_level lines less severe than this (a larger number) are not passed.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `max_level` is not a #vn_log_level; #VN_E_MISUSE when called from
 *          inside a log handler.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_log_set_handler(vn_log_fn handler, void *user_data, int max_level);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Subscriptions
 * @{ */

/** Identifies one subscription. Ids are non-zero and never reused within a process. \since 0.1.0 */
typedef uint64_t vn_subscription_id;

/**
 * Frees a subscriber's `user_data`; runs exactly once per subscription, after its last callback, whether the
 * end came from vn_unsubscribe() or from destroying the object.
 *
 * \param user_data the pointer given when subscribing.
 * \threadsafety Runs on the thread that ended the subscription, or on the thread of its last callback when it
 *               ended itself from inside that callback; never while the library holds a lock.
 * \since 0.1.0
 */
typedef void (*vn_release_fn)(void *user_data);

/**
 * Ends a subscription made by any `vn_*_subscribe` function.
 *
 * Called from another thread while one of its callbacks runs, it waits for that callback to return. Called from
 * inside any callback, it does not wait: the subscription is marked dead, no further callback of it starts, and
 * `release` runs when its running callback (if any) returns.
 *
 * \param id the id the subscribe function returned.
 * \returns #VN_OK; #VN_E_MISUSE when `id` is 0, unknown, or already ended (including by a destroy).
 * \threadsafety Any thread, including inside any callback.
 * \since 0.1.0
 */
int vn_unsubscribe(vn_subscription_id id);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Event loops (manual delivery for GUI main loops)
 *
 * An event loop collects the events of the objects created with it and runs their callbacks only inside
 * vn_event_loop_dispatch(), on the thread that calls it. Its file descriptor becomes readable while events are
 * pending, so a GLib `GSource`, a Qt `QSocketNotifier` or `poll()` can watch it. Loops are independent: two
 * components of one process each use their own.
 * @{ */

/** An event loop; opaque. \since 0.1.0 */
typedef struct vn_event_loop vn_event_loop;

/**
 * Creates an event loop.
 *
 * \param out receives the loop; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL; #VN_E_NOMEM or #VN_E_IO when no eventfd can be made.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_event_loop_create(vn_event_loop **out);

/**
 * Destroys an event loop. Events still pending are dropped. Objects created with the loop stay valid; their
 * later events are dropped too. Destroy those objects first to be sure every `release` has run.
 *
 * \param loop the loop, or NULL (no-op).
 * \threadsafety Any thread, but not from inside this loop's dispatch.
 * \since 0.1.0
 */
void vn_event_loop_destroy(vn_event_loop *loop);

/**
 * The loop's pollable file descriptor: readable (POLLIN) while events are pending. Do not read, write or close it.
 *
 * \param loop the loop.
 * \returns the descriptor (>= 0); #VN_E_MISUSE when `loop` is NULL or destroyed.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_event_loop_fd(vn_event_loop *loop);

/**
 * Runs the callbacks of pending events on the calling thread, in the order the events happened.
 *
 * Events that arrive while it runs wait for the next call, so a steady stream of events cannot hold the
 * caller forever.
 *
 * \param loop the loop.
 * \param dispatched receives how many callbacks ran (events of subscriptions that ended meanwhile are dropped
 *                   and not counted); may be NULL.
 * \returns #VN_OK; #VN_E_MISUSE when `loop` is NULL or destroyed, when called from inside a callback that this
 *          loop is dispatching, or while another thread is dispatching the same loop.
 * \threadsafety One thread at a time per loop (the thread that owns the main loop).
 * \since 0.1.0
 */
int vn_event_loop_dispatch(vn_event_loop *loop, size_t *dispatched);

/**
 * Waits until the loop has pending events or the timeout passes; for hosts without a main loop of their own.
 *
 * \param loop the loop.
 * \param timeout_ms how long to wait at most, in milliseconds; 0 polls; negative waits without limit.
 * \param pending receives 1 when events are pending, else 0; may be NULL.
 * \returns #VN_OK (also on timeout); #VN_E_MISUSE when `loop` is NULL or destroyed.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_event_loop_wait(vn_event_loop *loop, int timeout_ms, int *pending);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \defgroup test_support Test support: the test event source
 *
 * Not for applications: a small object whose only job is to fire numbered events from a library thread. Hosts
 * and bindings use it to test their integration with the subscription contract (threads, ordering, unsubscribe
 * and destroy from inside callbacks, event loops) before any audio is involved. It behaves exactly as every other
 * object does.
 * @{ */

/** A test event source; opaque. \since 0.1.0 */
typedef struct vn_test_source vn_test_source;

/** One event of a #vn_test_source. \since 0.1.0 */
typedef struct vn_test_event {
    size_t size;        /**< sizeof(vn_test_event) as the library knows it. */
    uint64_t sequence;  /**< 1 for the source's first event, then 2, 3, ... with no gaps. */
    int from_library_thread; /**< 1 when fired by the source's own thread, 0 when by vn_test_source_emit(). */
} vn_test_event;

/**
 * Receives one test event.
 *
 * \param user_data the pointer given to vn_test_source_subscribe().
 * \param event the event; valid only during the call.
 * \threadsafety Runs on the library's event thread, or inside vn_event_loop_dispatch() when the source was
 *               created with a loop.
 * \since 0.1.0
 */
typedef void (*vn_test_event_fn)(void *user_data, const vn_test_event *event);

/**
 * Creates a test event source.
 *
 * \param loop the event loop that delivers its events, or NULL for the library's event thread. The source keeps
 *             the loop's internals alive as long as it needs them.
 * \param out receives the source; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL; #VN_E_MISUSE when `loop` was destroyed.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_test_source_create(vn_event_loop *loop, vn_test_source **out);

/**
 * Subscribes to the source's events.
 *
 * \param source the source.
 * \param callback called for each event fired from the moment the subscription is registered (during this call).
 * \param user_data passed to `callback` and `release`.
 * \param release called once after the last callback; may be NULL.
 * \param out_id receives the subscription id, written before the first callback can run (so a callback may read
 *               it to unsubscribe itself); may be NULL (then only destroy ends it).
 * \returns #VN_OK; #VN_E_MISUSE when `source` is NULL or destroyed; #VN_E_INVALID_ARG when `callback` is NULL.
 *          On failure `release` is not called.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_test_source_subscribe(vn_test_source *source, vn_test_event_fn callback, void *user_data,
                             vn_release_fn release, vn_subscription_id *out_id);

/**
 * Starts the source's own thread, which fires `count` events, one every `interval_us` microseconds.
 *
 * \param source the source.
 * \param count how many events to fire; 0 fires until vn_test_source_stop() or destroy.
 * \param interval_us the pause between events in microseconds; 0 fires as fast as possible (events then queue
 *                    without bound while a subscriber is slower than the source: a stress mode, not a pace).
 * \returns #VN_OK; #VN_E_MISUSE when `source` is NULL or destroyed, or still firing (a finite run that has
 *          finished does not count).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_test_source_start(vn_test_source *source, uint64_t count, uint32_t interval_us);

/**
 * Stops the source's thread and waits for it to end. Events it already fired are still delivered.
 *
 * \param source the source.
 * \returns #VN_OK (also when it was not firing); #VN_E_MISUSE when `source` is NULL or destroyed.
 * \threadsafety Any thread, including inside the source's callbacks.
 * \since 0.1.0
 */
int vn_test_source_stop(vn_test_source *source);

/**
 * Fires `count` events from the calling thread (queued for delivery as usual, never run synchronously).
 *
 * \param source the source.
 * \param count how many events, 0…16777216 (2^24).
 * \returns #VN_OK; #VN_E_MISUSE when `source` is NULL or destroyed; #VN_E_INVALID_ARG for a larger `count`.
 * \threadsafety Any thread, including inside the source's callbacks.
 * \since 0.1.0
 */
int vn_test_source_emit(vn_test_source *source, uint64_t count);

/**
 * How many events the source has fired so far.
 *
 * \param source the source.
 * \param out_count receives the count.
 * \returns #VN_OK; #VN_E_MISUSE when `source` is NULL or destroyed; #VN_E_INVALID_ARG when `out_count` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_test_source_fired(vn_test_source *source, uint64_t *out_count);

/**
 * Destroys the source: stops its thread, ends every subscription (waiting for callbacks running on other
 * threads; from inside one of its callbacks it does not wait for that one) and runs each `release`.
 *
 * \param source the source, or NULL (no-op).
 * \threadsafety Any thread, including inside the source's callbacks.
 * \since 0.1.0
 */
void vn_test_source_destroy(vn_test_source *source);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Byte sources
 *
 * Where encoded audio comes from: a file, a memory buffer, an http(s) URL, or host callbacks (a Matrix client
 * decrypting an attachment, a client with its own HTTP stack). The decoder is chosen by content, never by file name.
 * A source is read by one call at a time; each waveform or info call reads it from the start.
 * @{ */

/** A byte source; opaque. \since 0.1.0 */
typedef struct vn_source vn_source;

/**
 * Reads bytes for a host source.
 *
 * \param user_data the pointer given to vn_source_create_callbacks().
 * \param buffer where to put the bytes.
 * \param capacity at most this many bytes.
 * \returns the bytes read (0 only at the end), or a negative value on failure (reported as #VN_E_IO).
 * \threadsafety A hook: runs synchronously on the thread of the call that reads the source.
 * \since 0.1.0
 */
typedef int64_t (*vn_source_read_fn)(void *user_data, void *buffer, size_t capacity);

/**
 * Moves a host source to an absolute byte offset.
 *
 * \param user_data the pointer given to vn_source_create_callbacks().
 * \param offset the new read position from the start.
 * \returns 0, or a negative value on failure (reported as #VN_E_IO).
 * \threadsafety A hook: runs synchronously on the thread of the call that reads the source.
 * \since 0.1.0
 */
typedef int (*vn_source_seek_fn)(void *user_data, int64_t offset);

/**
 * Opens a local file as a source.
 *
 * \param path the file's path (UTF-8).
 * \param out receives the source; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `path` or `out` is NULL or `path` is not a regular file (a directory,
 *          FIFO, socket or device: refused at once, never waited on); #VN_E_NOT_FOUND; #VN_E_PERMISSION; #VN_E_IO.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_source_create_file(const char *path, vn_source **out);

/**
 * Makes a source over a copy of a memory buffer.
 *
 * \param data the bytes; copied before the call returns.
 * \param size how many bytes.
 * \param out receives the source; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL, `data` is NULL with a non-zero `size`, or `size` is
 *          above `SIZE_MAX / 2` (no real buffer); #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_source_create_memory(const void *data, size_t size, vn_source **out);

/**
 * Makes a source whose bytes come from the host.
 *
 * \param read reads bytes; required.
 * \param seek seeks; required (Ogg Opus lengths are read from the end of the stream).
 * \param size_bytes the total size in bytes, or -1 when unknown.
 * \param user_data passed to `read`, `seek` and `release`.
 * \param release called once when the source is destroyed; may be NULL.
 * \param out receives the source; set to NULL on failure (then `release` is not called).
 * \returns #VN_OK; #VN_E_INVALID_ARG when `read`, `seek` or `out` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_source_create_callbacks(vn_source_read_fn read, vn_source_seek_fn seek, int64_t size_bytes, void *user_data,
                               vn_release_fn release, vn_source **out);

/** Options of an HTTP(S) source (vn_source_create_url()); opaque. \since 0.1.0 */
typedef struct vn_http_options vn_http_options;

/**
 * Makes HTTP options with the defaults: no extra request headers, the system's CA certificates, 15 s to connect,
 * 30 s without a byte before a transfer counts as stalled, 600 s for a whole transfer, downloads up to 100 MiB.
 * Certificates and host names are always verified; proxies come from the environment (`http_proxy`,
 * `https_proxy`, `no_proxy`, `all_proxy`, as libcurl reads them).
 *
 * Redirects (at most 10, http and https only) are followed hop by hop: the request headers (credentials, CDN
 * tokens) go only to the origin (scheme, host, port) the URL names, so a hop to another origin is made without
 * them; a hop from https to http is refused; an upload is never sent on to where a redirect points (both
 * #VN_E_NETWORK, the message naming the redirect).
 *
 * \param out receives the options; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL; #VN_E_NOMEM.
 * \threadsafety Any thread; one options object is used by one thread at a time.
 * \since 0.1.0
 */
int vn_http_options_create(vn_http_options **out);

/**
 * Destroys HTTP options. Sources made with them keep their own copy.
 *
 * \param options the options, or NULL (no-op).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_http_options_destroy(vn_http_options *options);

/**
 * Adds a request header sent with every request of the source (Matrix authenticated media needs
 * `Authorization: Bearer …`). Repeated names are all sent.
 *
 * \param options the options.
 * \param name the header's name (a token: printable ASCII without spaces or colons).
 * \param value its value (UTF-8, no line breaks).
 * \returns #VN_OK; #VN_E_MISUSE when `options` is NULL or destroyed; #VN_E_INVALID_ARG for a NULL, empty or
 *          malformed name, or a value that is NULL or holds a line break.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_http_options_add_header(vn_http_options *options, const char *name, const char *value);

/**
 * Trusts the CA certificates of a PEM file instead of the system's (a private server, a test certificate).
 *
 * \param options the options.
 * \param path the PEM file, or NULL for the system's certificates again.
 * \returns #VN_OK; #VN_E_MISUSE when `options` is NULL or destroyed; #VN_E_INVALID_ARG for an empty path;
 *          #VN_E_NOT_FOUND when the file does not exist.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_http_options_set_ca_file(vn_http_options *options, const char *path);

/**
 * Sets how long connecting (DNS, TCP, TLS) may take before the source fails with #VN_E_NETWORK.
 *
 * \param options the options.
 * \param seconds 0.1…600; default 15.
 * \returns #VN_OK; #VN_E_MISUSE when `options` is NULL or destroyed; #VN_E_INVALID_ARG outside the range (NaN
 *          included).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_http_options_set_connect_timeout(vn_http_options *options, double seconds);

/**
 * Sets how long a transfer may go without a byte before the source fails with #VN_E_NETWORK ("stalled").
 *
 * \param options the options.
 * \param seconds 0.1…3600; default 30.
 * \returns #VN_OK; #VN_E_MISUSE when `options` is NULL or destroyed; #VN_E_INVALID_ARG outside the range (NaN
 *          included).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_http_options_set_stall_timeout(vn_http_options *options, double seconds);

/**
 * Sets how long one transfer may take in all, however it trickles (a server sending a byte a second never
 * stalls), before it fails with #VN_E_NETWORK. Applies to downloads and uploads.
 *
 * \param options the options.
 * \param seconds 1…86400; default 600.
 * \returns #VN_OK; #VN_E_MISUSE when `options` is NULL or destroyed; #VN_E_INVALID_ARG outside the range (NaN
 *          included).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_http_options_set_transfer_timeout(vn_http_options *options, double seconds);

/**
 * Sets the largest resource a download takes. A larger `Content-Length` (or `Content-Range` total) fails at
 * once, a body without one fails as soon as it grows past the limit; either way with #VN_E_TOO_LARGE, and the
 * bytes that had arrived are released at once.
 *
 * \param options the options.
 * \param bytes 1…2^40; default 104857600 (100 MiB).
 * \returns #VN_OK; #VN_E_MISUSE when `options` is NULL or destroyed; #VN_E_INVALID_ARG outside the range.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_http_options_set_max_bytes(vn_http_options *options, int64_t bytes);

/**
 * Makes a source over an `http://` or `https://` URL. The download starts at once, on the library's network
 * thread, into an unnamed temporary file; reads take what has arrived and wait for the rest, so the player and
 * the waveform start before the download ends. A read far ahead of the download (a seek) asks the server for a
 * byte range when it takes ranges; a server that does not is read in one pass. libcurl is loaded on the first
 * call, never before.
 *
 * Failures arrive from the reads (and so from the player as a `FAILED` event, from a waveform or info call as
 * its status), with the HTTP status in the message: 401 and 403 → #VN_E_PERMISSION; 404 and 410 →
 * #VN_E_NOT_FOUND; 413 → #VN_E_TOO_LARGE; other 4xx, 5xx, DNS, connect, TLS, a dropped connection or a stall →
 * #VN_E_NETWORK. Destroying the source, or a player leaving it, stops a waiting read at once.
 *
 * \param url the URL (UTF-8; http or https, with a host).
 * \param options HTTP options (copied), or NULL for the defaults.
 * \param out receives the source; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `url` or `out` is NULL or `url` is not an http(s) URL with a host;
 *          #VN_E_MISUSE when `options` is destroyed; #VN_E_UNSUPPORTED when libcurl (libcurl.so.4) cannot be
 *          loaded; #VN_E_IO or #VN_E_NO_SPACE when the temporary file cannot be made (in `$TMPDIR`, else /tmp).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_source_create_url(const char *url, const vn_http_options *options, vn_source **out);

/**
 * Destroys a source and runs its `release`, if any.
 *
 * \param source the source, or NULL (no-op).
 * \threadsafety Any thread, but not while another call reads the source.
 * \since 0.1.0
 */
void vn_source_destroy(vn_source *source);

/**
 * Cancels the call reading a source on another thread: a read of a URL source waiting for the network ends at once
 * with #VN_E_CANCELLED, so a vn_waveform_source(), vn_audio_info_source() or vn_convert_source() in progress returns
 * #VN_E_CANCELLED within 100 ms. When no read waits — always so for files, memory and host callbacks, whose reads
 * never wait — the next read of the source fails instead (one read, whichever call makes it): a long decode of a
 * local note ends at its next read. Cancel a source only while the call to cancel runs, and destroy it after. The
 * download itself stops when the source is destroyed. The one call that may be made on a source while another uses
 * it.
 *
 * \param source the source.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed source.
 * \threadsafety Any thread, while another call reads the source.
 * \since 0.1.0
 */
int vn_source_cancel(vn_source *source);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Media cache
 *
 * Downloads kept on disk so that a replay costs no network. Every URL source (vn_source_create_url(),
 * vn_player_load() and vn_player_load_url() with an http(s) URL) looks in the cache first: a hit reads the kept
 * file and makes no request at all; a miss downloads, and the complete download is kept under its key (the URL,
 * or the key given to vn_player_load_url()). A download made with request headers (`Authorization`, a CDN token)
 * and no key is kept under the URL and a SHA-256 of those headers: it is served only to a request that sends the
 * same ones (another account, or a request without credentials, asks the server), and no header value reaches
 * the disk; an explicit key is shared by every request that names it. At most the size limit is kept: after each
 * new entry the least recently used go first. An unfinished file left by a killed writer (unchanged for 5
 * minutes, unlocked) is deleted by vn_cache_clear() and after each new entry. Entry files are 0600 in a 0700 directory; processes may share the directory (an entry
 * is written aside and renamed into place, and names the key it holds, so a reader never sees a partial or
 * foreign entry). The settings are the process's, for every player and source made after the call.
 * @{ */
/* ------------------------------------------------------------------------------------------------------------ */
/**
 * Sets the cache directory (made when first needed, with its parents, mode 0700).
 *
 * \param path the directory (UTF-8), or NULL for the default: `$XDG_CACHE_HOME/voicenote/media`, else
 *             `$HOME/.cache/voicenote/media`.
 * \returns #VN_OK; #VN_E_INVALID_ARG for an empty path or one that is not UTF-8.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_cache_set_directory(const char *path);

/**
 * The cache directory in use.
 *
 * \param out_path receives a NUL-terminated copy owned by the caller (free with vn_free()).
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out_path` is NULL; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_cache_get_directory(char **out_path);

/**
 * Sets the size limit of the cache (default 100 MB); entries over it are deleted now, the least recently used
 * first. 0 turns the cache off: nothing is kept or read. Media larger than the limit is never kept.
 *
 * \param bytes 0…10^12.
 * \returns #VN_OK; #VN_E_INVALID_ARG outside the range; #VN_E_IO or #VN_E_PERMISSION when an entry cannot be
 *          deleted.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_cache_set_limit(int64_t bytes);

/**
 * The size limit of the cache.
 *
 * \param out_bytes receives the limit in bytes.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out_bytes` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_cache_get_limit(int64_t *out_bytes);

/**
 * The bytes the cache's entries, and files still being written there, take on disk now.
 *
 * \param out_bytes receives the size (0 when the directory does not exist yet).
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out_bytes` is NULL; #VN_E_IO or #VN_E_PERMISSION when the directory
 *          cannot be read (#VN_E_IO when the cache path is not a directory).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_cache_get_size(int64_t *out_bytes);

/**
 * Deletes every entry of the cache (sources reading an entry keep reading it).
 *
 * \returns #VN_OK; #VN_E_IO or #VN_E_PERMISSION when an entry cannot be deleted.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_cache_clear(void);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Stream facts
 * @{ */

/** Facts about an audio stream, read without decoding it all where the format allows. \since 0.1.0 */
typedef struct vn_audio_info {
    size_t size;              /**< Set by the caller to sizeof(vn_audio_info); the library fills only that much. */
    double duration_s;        /**< Duration in seconds, never more than the packets hold; 0 when unknown. */
    int duration_is_estimate; /**< 1 when the duration is estimated from the bitrate (an MP3 or ADTS file whose frames cannot all be counted, HE-AAC in ADTS). */
    int sample_rate;          /**< The stream's sample rate in Hz (48000 for Opus). */
    int channels;             /**< Channels in the stream. */
    int64_t bitrate;          /**< Average bitrate in bits per second; 0 when unknown. */
    char codec[32];           /**< Codec name as FFmpeg names it ("opus", "aac", "mp3", "pcm_s16le", ...), NUL-terminated. */
} vn_audio_info;

/**
 * Reads the facts of an audio file.
 *
 * \param path the file's path (UTF-8).
 * \param info receives the facts; its `size` must be set to sizeof(vn_audio_info) (or the size of an older
 *             version of the struct).
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL argument, a path that is not a regular file (as
 *          vn_source_create_file()) or a `size` smaller than the first version of the struct; #VN_E_NOT_FOUND;
 *          #VN_E_PERMISSION; #VN_E_IO; #VN_E_FORMAT when it is not audio, has no audio packets, a header page is
 *          damaged (a bad or missing CRC), its timestamps leave no audio, or its packets claim more audio than their
 *          bytes can honestly hold (docs/errors.md, "What a note may cost"; the same answer as
 *          vn_waveform_file()); #VN_E_UNSUPPORTED when it is not Ogg Opus and FFmpeg's libraries cannot be
 *          loaded (they are opened the first time a file needs them), for a container or codec voice messages do
 *          not come in (FFmpeg opens only Ogg, MP3, ADTS AAC, MP4/M4A/3GP, WAV and FLAC, and nothing they name: a
 *          DASH or HLS manifest, an `ffconcat` list is refused, naming it), and for a URL of a scheme voicenote
 *          does not read (`mxc://`, `content://`…; a `file://` URL is read as its file).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_audio_info_file(const char *path, vn_audio_info *info);

/**
 * Reads the facts of the audio in a source (read from its start).
 *
 * \param source the source.
 * \param info as for vn_audio_info_file().
 * \returns as vn_audio_info_file(); #VN_E_MISUSE when `source` is NULL or destroyed; #VN_E_IO when a host
 *          callback fails.
 * \threadsafety Any thread, one call per source at a time.
 * \since 0.1.0
 */
int vn_audio_info_source(vn_source *source, vn_audio_info *info);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Waveforms
 *
 * A waveform is `samples` values in 0…1 (docs/waveform.md, the algorithm of Stream's Swift SDK): the frames are split
 * into `samples` buckets, bucket i holding frames [⌊i·N/samples⌋, ⌊(i+1)·N/samples⌋); each value is the mean of the
 * clipped dB (−50…0) of every sample of every channel in its bucket, mapped to 0…1. Buckets with no frame are 0.
 * Results go into caller buffers: `out` with room for `capacity` values, `*count` receives how many were written.
 * @{ */

/** The number of waveform values Stream and voicenote send with a voice message. \since 0.1.0 */
#define VN_WAVEFORM_DEFAULT_SAMPLES 100
/** The largest waveform length accepted (larger is #VN_E_INVALID_ARG): far beyond any display. \since 0.1.0 */
#define VN_WAVEFORM_MAX_SAMPLES 1048576
/** The most values a received waveform may decode to (more is #VN_E_FORMAT: hostile input). \since 0.1.0 */
#define VN_WAVEFORM_MAX_DECODED 4096

/**
 * The waveform of an audio file (any format voicenote reads).
 *
 * \param path the file's path (UTF-8).
 * \param samples how many values, 1…#VN_WAVEFORM_MAX_SAMPLES, usually #VN_WAVEFORM_DEFAULT_SAMPLES.
 * \param out receives the values.
 * \param capacity room in `out`; must be at least `samples`.
 * \param count receives the number of values written (`samples`); may be NULL.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `samples` is 0 or over #VN_WAVEFORM_MAX_SAMPLES, `capacity` < `samples`,
 *          a pointer is NULL or `path` is not a regular file (as vn_source_create_file()); #VN_E_NOT_FOUND;
 *          #VN_E_PERMISSION; #VN_E_IO; #VN_E_FORMAT as vn_audio_info_file(), or when no audio decodes;
 *          #VN_E_UNSUPPORTED as vn_audio_info_file().
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_file(const char *path, size_t samples, float *out, size_t capacity, size_t *count);

/**
 * A note's loudness by EBU R128 (ITU-R BS.1770), measured by libebur128 in the waveform's decode pass, so it costs no
 * second decode: what levelled playback plays every note at one loudness by (docs/loudness.md).
 * \since 0.1.0
 */
typedef struct vn_loudness {
    int known;              /**< 1 when measured (the figures below hold it); 0 when not known (they are 0). */
    double integrated_lufs; /**< Integrated loudness in LUFS (gated at −70 LUFS and −10 LU); -INFINITY for a silent
                                 note (nothing above −70 LUFS). */
    double range_lu;        /**< Loudness range in LU (short-term loudness, 10th to 95th percentile); 0 for a note
                                 under 3 s. */
    double true_peak_dbtp;  /**< True peak in dBTP (between samples, 4× oversampled); -INFINITY for digital
                                 silence. */
} vn_loudness;

/**
 * The waveform, length and loudness of an audio file in one decoding pass (vn_waveform_file() and the loudness).
 *
 * \param path, samples, out, capacity, count as for vn_waveform_file().
 * \param duration_s receives the decoded audio's length in seconds; may be NULL.
 * \param loudness receives the loudness (`known` 1); may be NULL (then the loudness is not measured: the call costs
 *        what vn_waveform_file() does).
 * \returns as vn_waveform_file().
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_analyse_file(const char *path, size_t samples, float *out, size_t capacity, size_t *count,
                             double *duration_s, vn_loudness *loudness);

/**
 * vn_waveform_analyse_file() of the audio in a source (read from its start).
 *
 * \param source the source.
 * \param samples, out, capacity, count, duration_s, loudness as for vn_waveform_analyse_file().
 * \returns as vn_waveform_source().
 * \threadsafety Any thread, one call per source at a time.
 * \since 0.1.0
 */
int vn_waveform_analyse_source(vn_source *source, size_t samples, float *out, size_t capacity, size_t *count,
                               double *duration_s, vn_loudness *loudness);

/**
 * The waveform of encoded audio in memory.
 *
 * \param data the encoded bytes (not copied; read during the call only).
 * \param size how many bytes.
 * \param samples, out, capacity, count as for vn_waveform_file().
 * \returns as vn_waveform_file().
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_memory(const void *data, size_t size, size_t samples, float *out, size_t capacity, size_t *count);

/**
 * The waveform of the audio in a source (read from its start).
 *
 * \param source the source.
 * \param samples, out, capacity, count as for vn_waveform_file().
 * \returns as vn_waveform_file(); #VN_E_MISUSE when `source` is NULL or destroyed; #VN_E_IO when a host
 *          callback fails.
 * \threadsafety Any thread, one call per source at a time.
 * \since 0.1.0
 */
int vn_waveform_source(vn_source *source, size_t samples, float *out, size_t capacity, size_t *count);

/** Many waveforms on one pool of threads, handed back in input order (vn_waveform_batch_create()); opaque.
 * \since 0.1.0 */
typedef struct vn_waveform_batch vn_waveform_batch;

/** One note's result from vn_waveform_batch_next(). Its pointers stay valid until the next
 * vn_waveform_batch_next() or vn_waveform_batch_destroy() on the batch. \since 0.1.0 */
typedef struct vn_waveform_result {
    size_t size;          /**< Set by the caller to `sizeof(vn_waveform_result)`; the library fills no further. */
    size_t index;         /**< The note's place in the input, from 0. */
    const char *location; /**< The location as it was added. */
    int status;           /**< #VN_OK, or why this note has no waveform (#VN_E_NOT_FOUND, #VN_E_FORMAT, a URL's
                               network statuses…). */
    const char *message;  /**< The failure's detail, as vn_last_error_message() would give it; "" on success. */
    double duration_s;    /**< The decoded audio's length in seconds; 0 on failure. */
    const float *values;  /**< `count` values 0…1; NULL on failure. */
    size_t count;         /**< The number of values: the batch's `samples`, or 0 on failure. */
    vn_loudness loudness; /**< The note's loudness, measured in the same pass; `known` 0 on failure or when the
                               batch does not measure it (vn_waveform_batch_set_loudness()). */
} vn_waveform_result;

/**
 * Starts a batch: `jobs` worker threads that compute the waveforms (and lengths) of the notes added with
 * vn_waveform_batch_add(), handed back in the order they were added by vn_waveform_batch_next() — on the thread
 * that calls it, so the caller chooses where results arrive. A note that fails gives its status as its result and
 * the batch goes on. Workers run at most twice `jobs` notes ahead of the results taken, so memory is bounded by the
 * pool, not by the batch's length. One process and one pool for thousands of notes: a backend's alternative to a
 * process per file (`voicenote waveform FILE… -j N` is this).
 *
 * A long local file (at least 20 s of Opus, MP3, AAC, FLAC or PCM) that a worker starts while other workers have
 * nothing to start is split into ranges of at least 10 s decoded on as many threads as there are idle workers, so a
 * batch of one long note uses the machine too. Its values equal the one-pass vn_waveform_file()'s within 0.001 (the
 * buckets holding a cut, where a decoder restarted before it converges; AAC's random noise substitution everywhere);
 * a file whose ranges cannot line up exactly (a damaged packet) is analysed in one pass. A #VN_LOG_DEBUG line says
 * which happened.
 *
 * \param samples values per waveform, 1…#VN_WAVEFORM_MAX_SAMPLES.
 * \param jobs worker threads, 1…256; 0 for the CPUs this process may use (its `sched_getaffinity` mask).
 * \param http how URLs are fetched (copied), or NULL for the defaults.
 * \param out receives the batch; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG for `samples` or `jobs` out of range or a NULL `out`; #VN_E_MISUSE for destroyed
 *          `http` options; #VN_E_NOMEM when a thread cannot start.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_batch_create(size_t samples, int jobs, const vn_http_options *http, vn_waveform_batch **out);

/**
 * Adds a note: a local file's path, or an http(s) URL (through the media cache, as vn_source_create_url()).
 *
 * \param batch the batch.
 * \param location the path or URL (UTF-8), copied.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL or non-UTF-8 location; #VN_E_MISUSE for a NULL or destroyed batch,
 *          or after vn_waveform_batch_end_input().
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_batch_add(vn_waveform_batch *batch, const char *location);

/**
 * Whether the batch measures each note's loudness with its waveform (the default); off, a note costs only its
 * waveform. Applies to the notes started after the call.
 *
 * \param batch the batch.
 * \param measure 1 to measure (the default), 0 not to.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed batch; #VN_E_INVALID_ARG for a `measure` other than 0 or 1.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_batch_set_loudness(vn_waveform_batch *batch, int measure);

/**
 * Says no note will be added: once every result is taken, vn_waveform_batch_next() returns 0. Idempotent.
 *
 * \param batch the batch.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed batch.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_batch_end_input(vn_waveform_batch *batch);

/**
 * Takes the next result in input order, waiting for it at most `timeout_ms`.
 *
 * \param batch the batch.
 * \param timeout_ms how long to wait at most, in milliseconds; negative waits as long as it takes.
 * \param result receives the result (its `size` set by the caller); valid until the next call or the destroy.
 * \returns 1 when `result` holds the next result; 0 when every result was taken and the input has ended;
 *          #VN_E_BUSY when the timeout passed first (nothing is taken; call again); #VN_E_INVALID_ARG for a NULL
 *          `result` or a `size` smaller than the first version of the struct; #VN_E_MISUSE for a NULL or destroyed
 *          batch.
 * \threadsafety Any thread; one call at a time per batch.
 * \since 0.1.0
 */
int vn_waveform_batch_next(vn_waveform_batch *batch, int timeout_ms, vn_waveform_result *result);

/**
 * Stops the workers — a note being read from the network is cancelled, one being decoded stops at its next packet — waits for
 * them, and destroys the batch. Results not taken are dropped. NULL is a no-op.
 *
 * \param batch the batch.
 * \threadsafety Any thread, but not while another call uses the batch.
 * \since 0.1.0
 */
void vn_waveform_batch_destroy(vn_waveform_batch *batch);

/**
 * The waveform of 16-bit PCM the host decoded itself.
 *
 * \param pcm interleaved samples, `frames * channels` of them.
 * \param frames how many frames.
 * \param channels samples per frame (1…255).
 * \param samples, out, capacity, count as for vn_waveform_file().
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL pointer (`pcm` may be NULL when `frames` is 0), `channels` out of
 *          range, `samples` 0 or `capacity` < `samples`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_from_pcm_s16(const int16_t *pcm, size_t frames, int channels, size_t samples, float *out,
                             size_t capacity, size_t *count);

/**
 * The waveform of float PCM (full scale ±1.0) the host decoded itself.
 *
 * \param pcm, frames, channels, samples, out, capacity, count as for vn_waveform_from_pcm_s16().
 * \returns as vn_waveform_from_pcm_s16().
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_from_pcm_f32(const float *pcm, size_t frames, int channels, size_t samples, float *out,
                             size_t capacity, size_t *count);

/**
 * Resamples waveform values to `target` values for display. Down: the mean of each bucket of values
 * [⌊i·count/target⌋, ⌊(i+1)·count/target⌋), the same split as the waveform itself (equal to Stream's
 * `downsample` when `target` divides the count; Stream's formula drops the tail otherwise). Up: linear
 * interpolation (Stream's `upsample`). Equal counts copy.
 *
 * \param values the input values.
 * \param value_count how many.
 * \param target how many values to produce (> 0).
 * \param out receives the values.
 * \param capacity room in `out`; at least `target`.
 * \param count receives the number written; may be NULL.
 * \returns #VN_OK; #VN_E_INVALID_ARG for NULL pointers, `target` 0 or over #VN_WAVEFORM_MAX_SAMPLES,
 *          `value_count` over #VN_WAVEFORM_MAX_SAMPLES, or `capacity` < `target`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_resample(const float *values, size_t value_count, size_t target, float *out, size_t capacity,
                         size_t *count);

/**
 * Bar heights for drawing a waveform in a view (Stream's `AudioVisualizationView`): bars 1.5 wide with gaps of
 * 2, so ⌊width / 3.5⌋ bars, each `max(1, level · height / 2)` tall; the levels are resampled to the bar count.
 * Bar i starts at x = i · 3.5.
 *
 * \param values the waveform.
 * \param value_count how many values.
 * \param width the view's width (same unit as the heights, usually pixels).
 * \param height the view's height.
 * \param heights receives one height per bar.
 * \param capacity room in `heights`.
 * \param count receives the number of bars; may be NULL. When `capacity` is too small, nothing is written,
 *              `*count` receives the number needed and the call returns #VN_E_INVALID_ARG.
 * \returns #VN_OK; #VN_E_INVALID_ARG for NULL pointers, a negative or non-finite size, `value_count` over
 *          #VN_WAVEFORM_MAX_SAMPLES, or too little room. Widths beyond 350000 give 100000 bars.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_bars(const float *values, size_t value_count, double width, double height, float *heights,
                     size_t capacity, size_t *count);

/** Wire encodings of a waveform (docs/waveform.md). \since 0.1.0 */
typedef enum vn_waveform_encoding {
    VN_WAVEFORM_STREAM = 0,   /**< Stream `waveform_data`: the 0…1 values themselves as JSON numbers (no integer form). */
    VN_WAVEFORM_MATRIX = 1,   /**< Matrix MSC3246: integers 0…1024, 100 values. */
    VN_WAVEFORM_TELEGRAM = 2, /**< Telegram: 100 values of 5 bits, packed LSB-first into 63 bytes. */
    VN_WAVEFORM_SIGNAL = 3    /**< Signal: up to 100 bytes 0…255. */
} vn_waveform_encoding;

/**
 * Encodes a waveform for a network, as integers in `out`: Matrix values 0…1024 (resampled to 100 values),
 * Telegram's 63 packed bytes, Signal bytes 0…255 (at most 100). Stream sends the 0…1 values themselves, so
 * #VN_WAVEFORM_STREAM has no integer form here.
 *
 * \param encoding a #vn_waveform_encoding.
 * \param values the waveform (0…1; out-of-range values are clamped).
 * \param value_count how many values.
 * \param out receives the encoded integers.
 * \param capacity room in `out` (Telegram: 63, Matrix and Signal: 100).
 * \param count receives the number written; may be NULL. When `capacity` is too small, nothing is written,
 *              `*count` receives the number needed and the call returns #VN_E_INVALID_ARG.
 * \returns #VN_OK; #VN_E_INVALID_ARG for #VN_WAVEFORM_STREAM or an unknown encoding, NULL pointers,
 *          `value_count` over #VN_WAVEFORM_MAX_SAMPLES or too little room.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_encode(int encoding, const float *values, size_t value_count, int32_t *out, size_t capacity,
                       size_t *count);

/**
 * Decodes a waveform received from a network back to values 0…1.
 *
 * \param encoding a #vn_waveform_encoding.
 * \param encoded the integers as vn_waveform_encode() produces them.
 * \param encoded_count how many.
 * \param out receives the values.
 * \param capacity room in `out` (Telegram: `encoded_count * 8 / 5`, else `encoded_count`).
 * \param count receives the number written; may be NULL; on too little room, as for vn_waveform_encode().
 * Received values outside the encoding's range are clamped into it first (Matrix 0…1024; Telegram and Signal
 * bytes 0…255), so a sloppy peer's waveform is still drawn. Telegram decodes ⌊bytes·8/5⌋ values, as Telegram's
 * clients do.
 *
 * \returns #VN_OK; #VN_E_INVALID_ARG for #VN_WAVEFORM_STREAM or an unknown encoding, NULL pointers or too
 *          little room; #VN_E_FORMAT only for an absurd count: more than #VN_WAVEFORM_MAX_DECODED values.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_waveform_decode(int encoding, const int32_t *encoded, size_t encoded_count, float *out, size_t capacity,
                       size_t *count);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Audio devices and session hooks
 * @{ */

/**
 * Receives one ALSA PCM device during vn_devices_enumerate().
 *
 * \param user_data the pointer given to vn_devices_enumerate().
 * \param name the ALSA name to open ("default", "pulse", "hw:CARD=...", ...); valid during the call.
 * \param description ALSA's one-line description; valid during the call.
 * \param can_capture 1 when it can record.
 * \param can_play 1 when it can play.
 * \threadsafety A hook: runs synchronously on the thread that called vn_devices_enumerate().
 * \since 0.1.0
 */
typedef void (*vn_device_fn)(void *user_data, const char *name, const char *description, int can_capture,
                             int can_play);

/**
 * Lists the ALSA PCM devices (capture and playback) with their descriptions.
 *
 * \param callback called once per device.
 * \param user_data passed to `callback`.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `callback` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_devices_enumerate(vn_device_fn callback, void *user_data);

/** What a session hook is asked about. \since 0.1.0 */
typedef enum vn_session_kind {
    VN_SESSION_PLAYBACK = 0,  /**< Playback. */
    VN_SESSION_RECORDING = 1  /**< Recording. */
} vn_session_kind;

/**
 * Asked before a device opens for playback or recording; may refuse (the host is in a call, say).
 *
 * \param user_data the pointer given with the hooks.
 * \param kind a #vn_session_kind.
 * \returns non-zero to allow, 0 to refuse (the action then fails with #VN_E_BUSY and opens no device).
 * \threadsafety A hook: runs synchronously on the thread that called vn_recorder_begin() (or play).
 * \since 0.1.0
 */
typedef int (*vn_session_activate_fn)(void *user_data, int kind);

/**
 * Told after the device closed.
 *
 * \param user_data the pointer given with the hooks.
 * \param kind a #vn_session_kind.
 * \threadsafety A hook: runs synchronously on the thread that closed the device: the caller of stop, cancel or
 *               destroy, or the library thread that ended a take by itself (maximum length, device lost).
 * \since 0.1.0
 */
typedef void (*vn_session_deactivate_fn)(void *user_data, int kind);

/**
 * An audio-focus group; opaque. Players and recorders of one group do not sound at once: a player that starts
 * pauses every other member (other players, and a take that is recording; the take stays whole and can be
 * resumed); beginning or resuming a take pauses every player. Each player and recorder joins the process's default
 * group unless its options name another; a host makes more groups when two parts of it must not disturb each other.
 * \since 0.1.0
 */
typedef struct vn_focus_group vn_focus_group;

/**
 * Makes a new, empty focus group.
 *
 * \param out receives the group; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_focus_group_create(vn_focus_group **out);

/**
 * Destroys a group handle. Objects created with it stay in the group until they are destroyed. NULL is a no-op.
 *
 * \param group the group.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_focus_group_destroy(vn_focus_group *group);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Recorder
 *
 * Records from an ALSA device into Ogg Opus (or AAC-LC in ADTS) files that survive crashes: pages reach the disk
 * at least every 0.5 s, a take is written as `<UUID>.ogg.part` and renamed on stop, and vn_recover() finishes what
 * a crash left. Meter and duration steps are counted in captured frames, not wall-clock time.
 * @{ */

/** A recorder; opaque. \since 0.1.0 */
typedef struct vn_recorder vn_recorder;
/** Options for vn_recorder_create(); opaque, with typed setters. \since 0.1.0 */
typedef struct vn_recorder_options vn_recorder_options;

/** Recording file formats. \since 0.1.0 */
typedef enum vn_recording_format {
    VN_FORMAT_OPUS = 0, /**< Ogg Opus, `.ogg`, `audio/ogg` (the default). */
    VN_FORMAT_AAC = 1   /**< AAC-LC in ADTS, `.aac`, `audio/aac` (what Stream's iOS and Android apps send). */
} vn_recording_format;

/** Recorder states (Stream's `AudioRecordingState`). \since 0.1.0 */
typedef enum vn_recorder_state {
    VN_RECORDER_STOPPED = 0,   /**< Not recording. */
    VN_RECORDER_RECORDING = 1, /**< Capturing. */
    VN_RECORDER_PAUSED = 2     /**< Paused; the take is whole on disk. */
} vn_recorder_state;

/**
 * Makes recorder options with the defaults of docs/formats.md: directory `$XDG_CACHE_HOME/voicenote/recordings`, device "default",
 * Opus at 32 kbit/s, complexity 10, 20 ms frames, meter steps every 0.1 s, duration steps every 0.5 s, at most
 * 3600 s with a warning 10 s before, no minimum, events on the library's event thread.
 *
 * \param out receives the options; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL.
 * \threadsafety Any thread; one options object is used by one thread at a time.
 * \since 0.1.0
 */
int vn_recorder_options_create(vn_recorder_options **out);

/**
 * Destroys options (recorders made with them keep their own copy).
 *
 * \param options the options, or NULL (no-op).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_recorder_options_destroy(vn_recorder_options *options);

/**
 * Sets the directory takes are written to (created when missing).
 *
 * \param options the options.
 * \param directory a path (UTF-8), copied.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG when `directory` is NULL or empty.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_directory(vn_recorder_options *options, const char *directory);

/**
 * Sets the capture device by ALSA name, or by ALSA configuration text (opened with `snd_pcm_open_lconf`, how a
 * virtual microphone is given without touching the environment).
 *
 * \param options the options.
 * \param name the PCM name ("default", "pulse", "hw:0", or a name defined in `configuration`), copied.
 * \param configuration ALSA configuration text defining `name`, copied; NULL to use the system configuration. It is
 *        ALSA's language, read as it is: quote a path written into it (docs/recorder.md, "Devices").
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG when `name` is NULL or empty.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_device(vn_recorder_options *options, const char *name, const char *configuration);

/**
 * Sets the file format.
 *
 * \param options the options.
 * \param format a #vn_recording_format.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for an unknown format.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_format(vn_recorder_options *options, int format);

/**
 * Sets the encoder: bitrate, Opus complexity and Opus frame duration.
 *
 * \param options the options.
 * \param bitrate bits per second, 6000…256000.
 * \param complexity Opus complexity 0…10 (ignored for AAC).
 * \param frame_ms Opus frame duration: 2.5, 5, 10, 20, 40 or 60 (ignored for AAC).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG, naming the allowed values, for
 *          a value out of range (NaN and infinities included); the options are then unchanged.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_encoder(vn_recorder_options *options, int bitrate, int complexity, double frame_ms);

/**
 * Sets how often context events report levels and duration, in seconds of captured audio.
 *
 * \param options the options.
 * \param meter_interval_s seconds between meter steps, in 0.01…10 (default 0.1).
 * \param duration_interval_s seconds between duration steps, in 0.01…60 (default 0.5).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG, naming the range, for a value
 *          out of range (NaN and infinities included); the options are then unchanged.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_intervals(vn_recorder_options *options, double meter_interval_s, double duration_interval_s);

/**
 * Sets the length limits of a take.
 *
 * \param options the options.
 * Each value is in 0…1000000 seconds (about 11.5 days). A take is counted in frames: a positive maximum is
 * at least one frame, however small.
 *
 * \param maximum_s the longest take; it stops and is finished at exactly this many frames; 0 = no limit.
 * \param warning_s how long before the maximum the warning event comes.
 * \param minimum_s shorter takes are discarded with a #VN_RECORDER_EVENT_TOO_SHORT event; 0 keeps every take that
 *        captured at least one frame. A take that captured no frame at all is never a finished file: it always
 *        ends with #VN_RECORDER_EVENT_TOO_SHORT (duration 0), whatever the minimum.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG, naming the allowed range, for
 *          a value outside 0…1000000 (negative, NaN, infinite or larger); the options are then unchanged.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_limits(vn_recorder_options *options, double maximum_s, double warning_s, double minimum_s);

/**
 * Delivers the recorder's events through an event loop instead of the library's event thread.
 *
 * \param options the options.
 * \param loop the loop, or NULL for the event thread.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed loop.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_event_loop(vn_recorder_options *options, vn_event_loop *loop);

/**
 * Puts recorders made with these options in a focus group (see #vn_focus_group): beginning or resuming a take
 * pauses the group's players, and a player of the group that starts pauses the take.
 *
 * \param options the options.
 * \param group the group (the options keep it), or NULL for the process's default group (the default).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed group.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_focus_group(vn_recorder_options *options, vn_focus_group *group);

/**
 * Sets the session hooks (docs/recorder.md): `activate` before the device opens, `deactivate` after it closes.
 *
 * \param options the options.
 * \param activate may refuse; NULL allows always.
 * \param deactivate may be NULL.
 * \param user_data passed to both; must stay valid as long as recorders made with these options exist.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_session_hooks(vn_recorder_options *options, vn_session_activate_fn activate,
                                          vn_session_deactivate_fn deactivate, void *user_data);

/**
 * Turns voice cleanup on or off for recorders made with these options (vn_recorder_set_voice_cleanup() changes it
 * later). Cleanup runs on the captured audio before the encoder, so the file, the live levels, the waveform and the
 * loudness are all of the cleaned voice: a high-pass at 80 Hz against rumble, noise suppression (at most 60 dB off
 * steady noise: fans, hiss, hum) and automatic gain bringing a quiet voice up to a normal one's level (at most
 * +24 dB), by speexdsp, loaded on first use. The take keeps exactly the captured length (the processing's 10 ms
 * delay is taken out). Off by default: a take is then the captured audio bit for bit.
 *
 * \param options the options.
 * \param enabled 1 to clean, 0 not to.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for `enabled` other than 0 or 1;
 *          #VN_E_UNSUPPORTED, naming what to install, when turning it on where speexdsp (Debian: libspeexdsp1) cannot
 *          be loaded (the options are then unchanged).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_voice_cleanup(vn_recorder_options *options, int enabled);

/**
 * Gives the recorder's capture stream a role on a PulseAudio or pipewire-pulse server (its `media.role` property:
 * "phone", "production", ...), which the sound server's own policies read; none by default. Where the recorder's
 * device goes to such a server (`pulse`, or `default` while a server runs, or a `type pulse` PCM of configuration
 * text), the stream is then opened through libpulse itself (Debian: libpulse0, loaded on first use) on that PCM's
 * server and source, because ALSA's pulse plugin cannot give a stream a role; anywhere else, or when the server does
 * not take the stream, the role is not set (the log says why) and the device opens through ALSA as without one. The
 * fallback device (vn_recorder_options_set_fallback_device()) gets the same role.
 *
 * A role on a recording is the host's choice, never the library's: with "phone", PulseAudio's module-role-ducking
 * lowers other streams during takes only where it was loaded with `use_source_trigger=true global=true`, while its
 * module-bluetooth-policy (loaded by default) switches every Bluetooth headset that plays music to its headset
 * profile, and module-intended-roles prefers a headset's microphone over the default source. Set "phone" when the
 * user chose the headset's microphone; to quiet other audio during takes, prefer
 * vn_recorder_options_set_pause_other_players().
 *
 * \param options the options.
 * \param role the role, 1 to 64 bytes of printable ASCII; NULL for none.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for a role that is empty, too
 *          long, not printable ASCII or not UTF-8.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_stream_role(vn_recorder_options *options, const char *role);

/**
 * Pauses the desktop's other media players (every MPRIS player on the session bus that is playing: music, a podcast,
 * a video) while a recorder made with these options has a take, from its first frame until it is finished or
 * cancelled, and then resumes exactly those, no others; off by default. Holds nest with those of players made with
 * vn_player_options_set_pause_other_players() (the process's players and recorders share one hold), and this
 * process's own MPRIS players are never paused. The bus calls run on a thread of the library's, each round waiting
 * at most 250 ms for all the players at once: a player that hangs never delays a take. The take's state changes
 * drive it, as they are delivered (an event loop given to the options delivers them when the host dispatches).
 * Without a session bus nothing is paused and the log says why, once.
 *
 * \param options the options.
 * \param enabled 1 to pause the others during takes, 0 not to.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for `enabled` other than 0 or 1.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_pause_other_players(vn_recorder_options *options, int enabled);

/**
 * Sets where a take goes on when its capture source is lost mid-take (a USB microphone unplugged, a Bluetooth headset
 * gone): the fallback device is opened at the take's rate and channel count and captures into the same take, with a
 * #VN_RECORDER_EVENT_SOURCE_CHANGED event; nothing captured before is lost, and nothing after but the gap while it
 * opened (at most three switches per take). Without a fallback, a loss finishes the take cleanly with what was
 * captured (#VN_RECORDER_EVENT_FINISHED, then #VN_RECORDER_EVENT_FAILED with #VN_E_DEVICE). By default the fallback
 * is the system's `default` device when the recorder's own device is the default too, and none for a device the host
 * chose (a fixed device). Through PulseAudio or PipeWire a lost source's streams are moved by the sound server itself,
 * so the take goes on there without an ALSA error; a fallback matters where the device is reached directly.
 *
 * \param options the options.
 * \param name the fallback's ALSA name ("default"), or NULL for none (the take finishes when its source is lost).
 * \param configuration ALSA configuration text defining `name`, or NULL for the system's.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for an empty name or text that is
 *          not UTF-8.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_options_set_fallback_device(vn_recorder_options *options, const char *name, const char *configuration);

/**
 * Creates a recorder. No device is opened until vn_recorder_begin().
 *
 * \param options the options, or NULL for the defaults; copied.
 * \param out receives the recorder; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL; #VN_E_MISUSE for destroyed options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_create(const vn_recorder_options *options, vn_recorder **out);

/**
 * Destroys a recorder. A take in progress is finished and kept (synchronously); no events are delivered after
 * this returns (from inside one of its callbacks: none after that callback); every subscription's `release` runs.
 *
 * \param recorder the recorder, or NULL (no-op).
 * \threadsafety Any thread, including inside the recorder's callbacks.
 * \since 0.1.0
 */
void vn_recorder_destroy(vn_recorder *recorder);

/**
 * Opens the device, creates the take's file and starts capturing; returns when capture runs. While the previous
 * take is still finishing (it ended by itself, or vn_recorder_stop() runs on another thread; its `finished` event
 * can arrive before its last step), this first waits for it, at most 5 seconds.
 *
 * \param recorder the recorder.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed recorder or when already recording or paused;
 *          #VN_E_BUSY when the activate hook refused, or when the previous take was still finishing after 5 seconds
 *          (no device was opened; try again); #VN_E_DEVICE when the device is
 *          missing or will not start; #VN_E_PERMISSION; #VN_E_IO (or #VN_E_NO_SPACE, #VN_E_PERMISSION) when the
 *          file cannot be created; #VN_E_UNSUPPORTED for an AAC take when FFmpeg's libraries cannot be loaded.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_recorder_begin(vn_recorder *recorder);

/**
 * Turns voice cleanup (vn_recorder_options_set_voice_cleanup()) on or off from the next take on; a take being
 * recorded keeps what it began with. For a settings switch the user flips between notes.
 *
 * \param recorder the recorder.
 * \param enabled 1 to clean, 0 not to.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed recorder; #VN_E_INVALID_ARG for `enabled` other than 0 or 1;
 *          #VN_E_UNSUPPORTED, naming what to install, when turning it on without speexdsp (unchanged then).
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_recorder_set_voice_cleanup(vn_recorder *recorder, int enabled);

/**
 * Whether the recorder's next take is cleaned (vn_recorder_set_voice_cleanup()).
 *
 * \param recorder the recorder.
 * \param out_enabled receives 1 or 0.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed recorder; #VN_E_INVALID_ARG when `out_enabled` is NULL.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_recorder_get_voice_cleanup(vn_recorder *recorder, int *out_enabled);

/**
 * Pauses: capture stops and every encoded packet is flushed to disk. Paused time is not in the file.
 *
 * \param recorder the recorder.
 * \returns #VN_OK; #VN_E_MISUSE unless recording.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_recorder_pause(vn_recorder *recorder);

/**
 * Resumes a paused take.
 *
 * \param recorder the recorder.
 * \returns #VN_OK; #VN_E_MISUSE unless paused; #VN_E_DEVICE when the device will not restart (still paused).
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_recorder_resume(vn_recorder *recorder);

/**
 * Stops and finishes the take; a #VN_RECORDER_EVENT_FINISHED event follows (or TOO_SHORT), then the context
 * with state #VN_RECORDER_STOPPED.
 *
 * \param recorder the recorder.
 * \returns #VN_OK (also when the take was ending by itself at that moment); #VN_E_MISUSE when stopped.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_recorder_stop(vn_recorder *recorder);

/**
 * Stops and deletes the take; no finished event.
 *
 * \param recorder the recorder.
 * \returns #VN_OK; #VN_E_MISUSE when stopped.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_recorder_cancel(vn_recorder *recorder);

/** A recorder's context (Stream's `AudioRecordingContext` and more). \since 0.1.0 */
typedef struct vn_recorder_context {
    size_t size;         /**< sizeof(vn_recorder_context) as the library knows it (set by the caller for get). */
    int state;           /**< A #vn_recorder_state. */
    double duration_s;   /**< Seconds captured in this take, paused time excluded. */
    float average_power; /**< RMS level of the last meter window, 0…1. */
    float peak_power;    /**< Peak level of the last meter window, 0…1. */
    int64_t overruns;    /**< ALSA overruns in this take (recovered; they never end a take). */
    const char *path;    /**< The file being written or last kept; in events valid during the callback; NULL from
                              vn_recorder_get_context() (use vn_recorder_copy_path()). */
} vn_recorder_context;

/** Kinds of recorder events. \since 0.1.0 */
typedef enum vn_recorder_event_type {
    VN_RECORDER_EVENT_CONTEXT = 0,              /**< A state change or a meter/duration step (steps coalesce). */
    VN_RECORDER_EVENT_FINISHED = 1,             /**< A take was kept: path, duration, size, waveform. */
    VN_RECORDER_EVENT_FAILED = 2,               /**< A failure: status and message (after FINISHED when kept). */
    VN_RECORDER_EVENT_MAX_DURATION_WARNING = 3, /**< `remaining_s` seconds left before the maximum. */
    VN_RECORDER_EVENT_MAX_DURATION_REACHED = 4, /**< The maximum was reached; FINISHED follows. */
    VN_RECORDER_EVENT_TOO_SHORT = 5,            /**< The take was under the minimum, or captured no frame at all,
                                                     and was deleted. */
    /** The capture source was lost mid-take and the take goes on from the fallback device (`device`; the loss: status
     * and message): nothing captured is lost but the gap while it opened. See
     * vn_recorder_options_set_fallback_device(). */
    VN_RECORDER_EVENT_SOURCE_CHANGED = 6
} vn_recorder_event_type;

/** One recorder event; valid only during the callback. \since 0.1.0 */
typedef struct vn_recorder_event {
    size_t size;                 /**< sizeof(vn_recorder_event) as the library knows it. */
    int type;                    /**< A #vn_recorder_event_type. */
    vn_recorder_context context; /**< CONTEXT: the new context. */
    const char *path;            /**< FINISHED: the kept file. */
    double duration_s;           /**< FINISHED, TOO_SHORT: the take's length (FINISHED: what the file holds, which
                                      is less than was captured when a write failed — a FAILED with
                                      #VN_E_NO_SPACE or #VN_E_IO then follows). */
    int64_t size_bytes;          /**< FINISHED: bytes on disk. */
    const float *waveform;       /**< FINISHED: the waveform values, 0…1. */
    size_t waveform_count;       /**< FINISHED: #VN_WAVEFORM_DEFAULT_SAMPLES. */
    int format;                  /**< FINISHED: a #vn_recording_format. */
    int status;                  /**< FAILED: a negative status. */
    const char *message;         /**< FAILED: the detail. */
    double remaining_s;          /**< MAX_DURATION_WARNING: seconds left. */
    vn_loudness loudness;        /**< FINISHED: the take's loudness, measured on the PCM as it was encoded. */
    const char *device;          /**< SOURCE_CHANGED: the device the take goes on from. */
} vn_recorder_event;

/**
 * Receives one recorder event.
 *
 * \param user_data the pointer given to vn_recorder_subscribe().
 * \param event the event; valid only during the call.
 * \threadsafety Runs on the library's event thread, or inside vn_event_loop_dispatch() when the recorder has a loop.
 * \since 0.1.0
 */
typedef void (*vn_recorder_event_fn)(void *user_data, const vn_recorder_event *event);

/**
 * Subscribes to a recorder's events.
 *
 * \param recorder the recorder.
 * \param callback called for each event.
 * \param user_data passed to `callback` and `release`.
 * \param release called once after the last callback; may be NULL.
 * \param out_id receives the id (written before the first callback); may be NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed recorder; #VN_E_INVALID_ARG when `callback` is NULL.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_recorder_subscribe(vn_recorder *recorder, vn_recorder_event_fn callback, void *user_data,
                          vn_release_fn release, vn_subscription_id *out_id);

/**
 * Reads the current context.
 *
 * \param recorder the recorder.
 * \param context receives it; set its `size` to sizeof(vn_recorder_context) first. `path` is set to NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed recorder; #VN_E_INVALID_ARG for a NULL `context` or a
 *          `size` that is too small.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_get_context(vn_recorder *recorder, vn_recorder_context *context);

/**
 * Copies the path of the file being written (or last kept).
 *
 * \param recorder the recorder.
 * \param out_path receives a NUL-terminated copy owned by the caller (free with vn_free()), "" when none.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed recorder; #VN_E_INVALID_ARG when `out_path` is NULL;
 *          #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_copy_path(vn_recorder *recorder, char **out_path);

/**
 * The last `count` live levels of the take (one average power 0…1 per meter step, oldest first), for live bars.
 *
 * \param recorder the recorder.
 * \param count how many at most.
 * \param out receives them.
 * \param capacity room in `out`; at least `count`.
 * \param written receives how many were written (fewer early in a take); may be NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed recorder; #VN_E_INVALID_ARG for a NULL `out` with
 *          `count` > 0 or `capacity` < `count`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recorder_levels(vn_recorder *recorder, size_t count, float *out, size_t capacity, size_t *written);

/**
 * Receives one file handled by vn_recover().
 *
 * \param user_data the pointer given to vn_recover().
 * \param path the finished file (or the `.part` left in place when it failed); valid during the call.
 * \param duration_s its length (0 on failure).
 * \param size_bytes its size (0 on failure).
 * \param status #VN_OK, or why it could not be recovered (#VN_E_FORMAT when it held no audio).
 * \threadsafety A hook: runs synchronously on the thread that called vn_recover().
 * \since 0.1.0
 */
typedef void (*vn_recovered_fn)(void *user_data, const char *path, double duration_s, int64_t size_bytes, int status);

/**
 * Finishes takes a crash left in `directory` (`*.ogg.part`, `*.aac.part`): keeps every whole page or frame, marks
 * the end of the stream, renames to `.ogg`/`.aac`.
 *
 * \param directory the recordings directory, or NULL for the default one.
 * \param callback called once per `.part` file; may be NULL.
 * \param user_data passed to `callback`.
 * \param recovered receives how many files were recovered; may be NULL.
 * \returns #VN_OK (also when some files could not be recovered: see the callback); #VN_E_NOT_FOUND when the
 *          directory does not exist; #VN_E_PERMISSION; #VN_E_IO.
 * \threadsafety Any thread; not while a recorder writes into the same directory.
 * \since 0.1.0
 */
int vn_recover(const char *directory, vn_recovered_fn callback, void *user_data, size_t *recovered);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Converting notes
 *
 * Writes a note again as a recording file — Ogg Opus or AAC, with the recorder's encoder — optionally at another
 * speed with its pitch kept (the player's libsonic stretcher): what a bridge needs to pass on a voice message that
 * came in another format (an MP3, an M4A), or a bot to answer with a faster copy. Any format the player reads is
 * read; more than two channels are mixed down to mono. The output is written beside `out_path`
 * (`<out_path>.convert.<random>.part`) and renamed over it once complete and synced, so a failure leaves whatever was at
 * `out_path` untouched. The call decodes and encodes on the calling thread: a 60 s note at 2x takes about 1.3 s
 * here, 1.3–1.4 times FFmpeg's `atempo` filter with libopus (libsonic's stretch is the difference).
 * @{ */

/** Options for vn_convert_file() and vn_convert_source(); opaque, with typed setters. \since 0.1.0 */
typedef struct vn_convert_options vn_convert_options;

/**
 * Creates conversion options with the defaults: rate 1, Ogg Opus, 32 kbit/s, complexity 10, 20 ms frames.
 *
 * \param out receives the options; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_convert_options_create(vn_convert_options **out);

/**
 * Destroys conversion options. NULL is a no-op.
 *
 * \param options the options.
 * \threadsafety Any thread; not while another call uses the same options.
 * \since 0.1.0
 */
void vn_convert_options_destroy(vn_convert_options *options);

/**
 * Sets the speed of the new note, its pitch kept: it lasts the original's length divided by `rate`.
 *
 * \param options the options.
 * \param rate 0.5…2.5.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for a rate outside 0.5…2.5 (NaN
 *          and infinities included); the options are then unchanged.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_convert_options_set_rate(vn_convert_options *options, double rate);

/**
 * Sets the format written.
 *
 * \param options the options.
 * \param format a #vn_recording_format.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for an unknown format.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_convert_options_set_format(vn_convert_options *options, int format);

/**
 * Sets the encoder, as vn_recorder_options_set_encoder() does for a recorder.
 *
 * \param options the options.
 * \param bitrate bits per second, 6000…256000.
 * \param complexity Opus complexity 0…10 (ignored for AAC).
 * \param frame_ms Opus frame duration: 2.5, 5, 10, 20, 40 or 60 (ignored for AAC).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG, naming the allowed values, for
 *          a value out of range; the options are then unchanged.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_convert_options_set_encoder(vn_convert_options *options, int bitrate, int complexity, double frame_ms);

/**
 * Converts the note in a file.
 *
 * \param path the note to read.
 * \param out_path the file to write (replaced when it exists; its directory must exist); may be `path` itself.
 * \param options the options, or NULL for the defaults.
 * \param out_duration_s receives the new note's length in seconds (0 on failure); may be NULL.
 * \returns #VN_OK; #VN_E_INVALID_ARG for NULL, empty or non-UTF-8 paths; #VN_E_MISUSE for
 *          destroyed options; #VN_E_NOT_FOUND, #VN_E_PERMISSION for either file; #VN_E_FORMAT for a file that is not
 *          audio, is damaged beyond decoding, or claims more audio than its bytes can hold (as vn_audio_info_file());
 *          #VN_E_UNSUPPORTED for a format without its decoder (FFmpeg missing) or a rate below 1000 Hz (notes from
 *          1000 Hz up to the encoders' 8000 Hz are resampled to 8000 Hz first); #VN_E_NO_SPACE (a full disk or a
 *          file-size limit; the part file is removed); #VN_E_IO.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_convert_file(const char *path, const char *out_path, const vn_convert_options *options, double *out_duration_s);

/**
 * Converts the note a byte source reads (memory, host callbacks, an http(s) URL), from its start.
 *
 * \param source the source; used by this call only (not destroyed).
 * \param out_path the file to write (replaced when it exists; its directory must exist).
 * \param options the options, or NULL for the defaults.
 * \param out_duration_s receives the new note's length in seconds (0 on failure); may be NULL.
 * \returns as vn_convert_file(); #VN_E_MISUSE for a NULL or destroyed source; a URL source's network statuses.
 * \threadsafety Any thread; not while another call uses the same source.
 * \since 0.1.0
 */
int vn_convert_source(vn_source *source, const char *out_path, const vn_convert_options *options, double *out_duration_s);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Player
 *
 * Plays voice messages (docs/player.md): local files (a path or a `file://` URL; both name one location), http(s)
 * URLs (played while they download, through the media cache; vn_player_load_url() for headers and a stable key),
 * memory and host byte sources; Ogg Opus through libopusfile, AAC, MP3, WAV, FLAC and Vorbis through FFmpeg; at 0.5–2.5x
 * with the pitch kept (libsonic), with a software volume, skip silence, sample-accurate seeking (Opus), a resume
 * position per location and audio focus. Loading never blocks the caller: the player's own thread opens and decodes,
 * and every load failure arrives as a #VN_PLAYER_EVENT_FAILED event. Media times are seconds (`_s`) in the file's
 * time; `current_time_s` is what the listener hears (the device's delay and the time-stretcher's backlog are taken
 * off). Progress contexts come every 100 ms of played audio and coalesce for a slow subscriber.
 * @{ */

/** A player; opaque. \since 0.1.0 */
typedef struct vn_player vn_player;
/** Options for vn_player_create(); opaque, with typed setters. \since 0.1.0 */
typedef struct vn_player_options vn_player_options;

/** Player states (Stream's `AudioPlaybackState`). \since 0.1.0 */
typedef enum vn_player_state {
    VN_PLAYER_NOT_LOADED = 0, /**< Nothing loaded, or the last load failed (its location is kept). */
    VN_PLAYER_LOADING = 1,    /**< Opening the location and reading its duration. */
    VN_PLAYER_PAUSED = 2,     /**< Loaded, not sounding. */
    VN_PLAYER_PLAYING = 3,    /**< Sounding. */
    VN_PLAYER_STOPPED = 4     /**< Loaded, at 0: after vn_player_stop() or the end of the item. */
} vn_player_state;

/**
 * Makes player options holding the defaults: the `default` ALSA device, the library's event thread, the process's
 * focus group, no session hooks, progress every 0.1 s of played audio, 256 resume positions.
 *
 * \param out receives the options; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_player_options_create(vn_player_options **out);

/**
 * Destroys options. Players created with them are not affected. NULL is a no-op.
 *
 * \param options the options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_player_options_destroy(vn_player_options *options);

/**
 * Chooses the playback device.
 *
 * \param options the options.
 * \param name an ALSA PCM name (`default`, `pulse`, `plughw:1,0`, ...), or a `pcm.NAME` defined in `configuration`.
 * \param configuration ALSA configuration text in which `name` is looked up instead of the system's; may be NULL.
 *        It is ALSA's language, read as it is: quote a path written into it (docs/recorder.md, "Devices").
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG when `name` is NULL or empty.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_device(vn_player_options *options, const char *name, const char *configuration);

/**
 * Delivers the player's events through `loop` (manual delivery for GUI main loops) instead of the library's
 * event thread.
 *
 * \param options the options.
 * \param loop the loop, or NULL for the event thread.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed loop.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_event_loop(vn_player_options *options, vn_event_loop *loop);

/**
 * Chooses the player's focus group.
 *
 * \param options the options.
 * \param group the group, or NULL for the process's default group.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed group.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_focus_group(vn_player_options *options, vn_focus_group *group);

/**
 * Sets the session hooks: `activate(VN_SESSION_PLAYBACK)` runs on the thread that calls vn_player_play() (or
 * vn_player_load() with autoplay) before the player starts sounding, and may refuse (the call then fails with
 * #VN_E_BUSY); `deactivate(VN_SESSION_PLAYBACK)` runs after the player stopped sounding (pause, stop, the end, a
 * failure, destroy) and closed the device, on the player's thread or the destroying one.
 *
 * \param options the options.
 * \param activate may be NULL.
 * \param deactivate may be NULL.
 * \param user_data passed to both.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_session_hooks(vn_player_options *options, vn_session_activate_fn activate,
                                        vn_session_deactivate_fn deactivate, void *user_data);

/**
 * Sets how often progress contexts come, in seconds of played (output) audio.
 *
 * \param options the options.
 * \param interval_s 0.01…10; the default is 0.1.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG, naming the range, otherwise.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_progress_interval(vn_player_options *options, double interval_s);

/**
 * Sets how many locations' resume positions the player keeps in memory (least recently used go first).
 *
 * \param options the options.
 * \param count 0…100000 (0 keeps none); the default is 256.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG, naming the range, otherwise.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_resume_limit(vn_player_options *options, size_t count);

/**
 * Sets whether the player remembers positions across players and processes (listening that remembers; on by
 * default). A small store under the cache directory (`$XDG_CACHE_HOME/voicenote/positions`), keyed by the
 * location's key (an absolute path, or a URL's key, or the URL), is written as the player pauses, leaves an item for
 * another, or is destroyed while playing or paused; a stop or an item's end forgets the position; a load starts
 * where the store says when this player has no position of its own. It keeps the 1000 most recently used. The
 * same store keeps which notes were listened (#VN_PLAYER_EVENT_LISTENED, vn_listened()).
 *
 * \param options the options.
 * \param enabled non-zero to remember, 0 to keep positions and listened notes in this player's memory only.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_remember_positions(vn_player_options *options, int enabled);

/**
 * Sets whether a queue player goes back (on by default; Element's rule): when a load interrupts a playing path or
 * URL and the loaded note plays to its end, the interrupted note plays again from where it was left, then the queue
 * goes on from there. Jumping on again keeps the first note to return to; a stop, or loading while nothing plays,
 * forgets it.
 *
 * \param options the options.
 * \param enabled non-zero to return, 0 to go on from the loaded note.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_return_to_interrupted(vn_player_options *options, int enabled);

/**
 * Shows the player to the desktop's media keys and controls (MPRIS 2 on the session bus; off by default): while a
 * note is loading, playing or paused, the player is `org.mpris.MediaPlayer2.IDENTITY.instancePID_N` (vn_player_copy_mpris_name())
 * with the note's title, sender, length and position (vn_player_set_metadata()), and takes Play, Pause, PlayPause,
 * Stop, Next (a queue's next item), Previous (the note from its start), Seek, SetPosition, Rate and Volume. Stopped
 * or unloaded, its name is gone and its connection closed, so an idle client never takes the media keys. sd-bus
 * (libsystemd.so.0) is opened on first use; without a session bus the player plays on and the log says why, once.
 *
 * \param options the options.
 * \param identity the name applets show ("Fractal"; its letters, digits and `_` make the bus name's middle), or NULL
 *        to turn MPRIS off.
 * \param desktop_entry the host's desktop file name without `.desktop` ("org.gnome.Fractal"), for its icon; NULL
 *        for none.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for an empty identity or text that
 *          is not UTF-8.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_mpris(vn_player_options *options, const char *identity, const char *desktop_entry);

/**
 * Gives the player's playback stream a role on a PulseAudio or pipewire-pulse server (its `media.role` property),
 * which the sound server's own policies read; none by default. "phone" is the role PulseAudio's policies know for
 * speech between people: module-role-cork (loaded by default) mutes and asks to pause music and video while it
 * plays, module-role-ducking (where loaded) lowers them, pipewire-pulse calls it "Communication". Like
 * vn_recorder_options_set_stream_role(): where the player's device goes to such a server the stream is opened
 * through libpulse itself on that PCM's server and sink (its name is "Voice message"), anywhere else the role is not
 * set and ALSA opens the device as without one. With "phone", module-intended-roles sends the stream to a sink meant
 * for calls (a headset's) when the default sink is not one. The sound server's ducking reaches every application,
 * also those without MPRIS; vn_player_options_set_pause_other_players() pauses MPRIS players outright, wherever the
 * sound goes. A host may use both.
 *
 * \param options the options.
 * \param role the role, 1 to 64 bytes of printable ASCII; NULL for none.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for a role that is empty, too
 *          long, not printable ASCII or not UTF-8.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_stream_role(vn_player_options *options, const char *role);

/**
 * Pauses the desktop's other media players while a player made with these options plays, and resumes exactly those
 * once it stops playing (pause, stop, the end of its queue); off by default. As
 * vn_recorder_options_set_pause_other_players(), with which its holds nest.
 *
 * \param options the options.
 * \param enabled 1 to pause the others while playing, 0 not to.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for `enabled` other than 0 or 1.
 * \threadsafety Any thread, one call per options object at a time.
 * \since 0.1.0
 */
int vn_player_options_set_pause_other_players(vn_player_options *options, int enabled);

/**
 * Reads the position remembered for a location (see vn_player_options_set_remember_positions()).
 *
 * \param location a path or `file://` URL, or an http(s) URL.
 * \param key the key the URL is loaded with (vn_player_load_url()), or NULL.
 * \param out_seconds receives the position, 0 when none is remembered.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL or empty location, an empty key or a NULL `out_seconds`;
 *          #VN_E_UNSUPPORTED for another URL scheme.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_resume_position(const char *location, const char *key, double *out_seconds);

/**
 * Forgets every remembered position (players keep those in their own memory).
 *
 * \returns #VN_OK; #VN_E_PERMISSION or #VN_E_IO when the store cannot be removed.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_resume_positions_clear(void);

/**
 * Tells whether a note was listened: heard to 90 % of its duration or to its end by a player of any process
 * (#VN_PLAYER_EVENT_LISTENED). Kept beside the resume positions (`$XDG_CACHE_HOME/voicenote/positions/listened.json`,
 * the 10,000 most recently heard notes).
 *
 * \param location the note's path or URL, as it is loaded.
 * \param key its key (as given to vn_player_load_keyed()), or NULL for the location's own.
 * \param out_listened receives 1 when listened, else 0.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL or empty `location` or `key`, a location the player would refuse,
 *          or a NULL `out_listened`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_listened(const char *location, const char *key, int *out_listened);

/**
 * Marks a note listened or, with 0, unlistened again (a host's "mark as unplayed", or a played marker that came
 * from another device). No event is sent.
 *
 * \param location the note's path or URL.
 * \param key its key, or NULL for the location's own.
 * \param listened 1 to mark it listened, 0 to forget the mark.
 * \returns #VN_OK; #VN_E_INVALID_ARG as vn_listened().
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_listened_set(const char *location, const char *key, int listened);

/**
 * Forgets every listened mark (the resume positions stay).
 *
 * \returns #VN_OK; #VN_E_PERMISSION or #VN_E_IO when the store cannot be removed.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_listened_clear(void);

/**
 * Creates a player. No device is opened until it first plays.
 *
 * \param options the options, or NULL for the defaults.
 * \param out receives the player; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL; #VN_E_MISUSE for destroyed options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_player_create(const vn_player_options *options, vn_player **out);

/**
 * Destroys a player: sound stops, the device closes, the source is released; no callback for it runs after this
 * returns. NULL is a no-op. May be called from inside the player's own callbacks.
 *
 * \param player the player.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_player_destroy(vn_player *player);

/**
 * Loads a location, with Stream's `loadAsset` rules: the same location already loaded → paused plays, stopped
 * plays from the start, playing or loading does nothing; another location → the current item reports
 * #VN_PLAYER_STOPPED (its position is kept for a later load), the state becomes #VN_PLAYER_LOADING, then the
 * item plays (`autoplay`) or ends #VN_PLAYER_PAUSED at its resume position (or 0). Returns at once: a missing,
 * unreadable or corrupt file arrives as a #VN_PLAYER_EVENT_FAILED event (#VN_E_NOT_FOUND, #VN_E_PERMISSION,
 * #VN_E_IO, #VN_E_FORMAT, #VN_E_UNSUPPORTED) with the state #VN_PLAYER_NOT_LOADED and the location kept.
 *
 * \param player the player.
 * \param location a path (UTF-8, absolute or relative to the working directory), a `file://` URL, or an
 *                 `http://` or `https://` URL fetched with the default HTTP options through the media cache (for
 *                 headers, a CA file, timeouts or a stable key: vn_player_load_url()); network failures arrive as
 *                 `FAILED` events with the statuses of vn_source_create_url(). Text that begins with `scheme:` is
 *                 a URL (RFC 3986), so a relative path whose first part holds a colon is written `./a:b.ogg`.
 * \param autoplay non-zero to play once loaded.
 * \param duration_hint_s the duration to show until the real one is known (e.g. a payload's `duration`);
 *                        negative for none.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG for a NULL or empty location,
 *          a `file://` URL of another host, or a hint that is not finite or over 1000000; #VN_E_UNSUPPORTED for
 *          other URL schemes; #VN_E_BUSY when `autoplay` asked the activate hook and it refused (nothing changed).
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_load(vn_player *player, const char *location, int autoplay, double duration_hint_s);

/**
 * Loads an `http://` or `https://` URL with HTTP options and a stable key, as vn_player_load().
 *
 * The key names the media: the media cache and the resume position use it instead of the URL, because CDN URLs
 * carry signatures that expire and change. So the same URL under two keys is two locations (two cache entries, two
 * resume positions; loading it under the other key loads it again), and two URLs under one key are one location
 * (loading the second while the first is loaded follows the "same location" rules; a cached copy made from the
 * first serves the second without a request).
 *
 * \param player the player.
 * \param url the URL (UTF-8; http or https, with a host).
 * \param options HTTP options (copied), or NULL for the defaults.
 * \param key the media's identity (UTF-8, for example a message id and an attachment index), or NULL for the URL.
 * \param autoplay non-zero to play once loaded.
 * \param duration_hint_s as for vn_player_load().
 * \returns as vn_player_load(); #VN_E_INVALID_ARG also for a URL that is not http(s) with a host or an empty
 *          key; #VN_E_MISUSE for destroyed options.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_load_url(vn_player *player, const char *url, const vn_http_options *options, const char *key,
                       int autoplay, double duration_hint_s);

/**
 * Loads the audio of a byte source (memory, host callbacks), as vn_player_load(); the context's location is the
 * source's name. The player keeps the source until it loads another location or is destroyed, reading it on its
 * own thread: the caller may destroy its handle at once; other calls that use the same source meanwhile fail
 * with #VN_E_BUSY.
 *
 * \param player the player.
 * \param source the source.
 * \param autoplay non-zero to play once loaded.
 * \param duration_hint_s as for vn_player_load().
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player or source; #VN_E_BUSY when another player holds the
 *          source, or as for vn_player_load(); #VN_E_INVALID_ARG for a bad hint.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_load_source(vn_player *player, vn_source *source, int autoplay, double duration_hint_s);

/**
 * Plays or resumes the loaded item; during loading, it plays once loaded. Nothing happens while playing. Playing
 * pauses the other players of the focus group and a take that is recording in it.
 *
 * \param player the player.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player or when nothing is loaded (or the load failed);
 *          #VN_E_BUSY when the activate hook refused. A device that cannot be opened arrives as a
 *          #VN_PLAYER_EVENT_FAILED event (#VN_E_DEVICE, #VN_E_PERMISSION) with the state #VN_PLAYER_PAUSED.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_play(vn_player *player);

/**
 * Pauses at what the listener hears now. Nothing happens when nothing is loaded, paused or stopped; during
 * loading the item ends paused.
 *
 * \param player the player.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_pause(vn_player *player);

/**
 * Stops: position 0, state #VN_PLAYER_STOPPED, the item and its duration kept, its resume position forgotten.
 * Nothing happens when nothing is loaded.
 *
 * \param player the player.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_stop(vn_player *player);

/**
 * Moves to `time_s`, clamped to 0…duration, keeping the play/pause state (a stopped item becomes paused there).
 * `is_seeking` is 1 until audio at the new position is ready; seeks faster than the player carries them out
 * coalesce (the latest wins), so a scrubbing slider may call this on every motion event.
 *
 * \param player the player.
 * \param time_s seconds.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player or when nothing is loaded; #VN_E_INVALID_ARG for a
 *          time that is not finite.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_seek(vn_player *player, double time_s);

/**
 * Sets the playback rate, pitch kept. Allowed in every state and kept while paused; it never starts playback.
 *
 * \param player the player.
 * \param rate 0.5…2.5.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG outside the range (NaN too).
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_set_rate(vn_player *player, double rate);

/**
 * Sets the software volume (ramped over 10 ms).
 *
 * \param player the player.
 * \param volume 0…1.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG outside the range (NaN too).
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_set_volume(vn_player *player, double volume);

/**
 * Turns skip silence on or off: pauses longer than 0.6 s (below a level set from the note's own noise floor)
 * are shortened to 0.25 s, at any rate; times stay in the file's time.
 *
 * \param player the player.
 * \param enabled non-zero to skip.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_set_skip_silence(vn_player *player, int enabled);

/** The default levelling target, LUFS: what the AES streaming recommendation and podcast practice give mono speech.
 * \since 0.1.0 */
#define VN_LEVELING_DEFAULT_TARGET_LUFS (-19.0)

/**
 * Levelled playback (docs/loudness.md): on, every note plays at `target_lufs` plus `offset_db` (the "louder for
 * this contact" knob), its true peak held under −1 dBTP by a limiter. A note's gain (target − its integrated
 * loudness + offset, at most +30 dB; the offset alone for a silent note) is known before its first frame: from the
 * loudness given with vn_player_load_with_loudness() (a payload's), else from a pre-pass over its first 3 s (decoded
 * once: those frames then play). It stays for the note; a new target or offset moves the note playing over 50 ms.
 * Turning levelling on or off applies from the next note loaded. Off by default: notes play as recorded, bit-exact.
 *
 * \param player the player.
 * \param enabled 1 to level, 0 not to.
 * \param target_lufs the loudness every note plays at, −30…−10 LUFS (#VN_LEVELING_DEFAULT_TARGET_LUFS).
 * \param offset_db added to every note's gain, −12…12 dB (0 for none).
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG for `enabled` other than 0 or 1, or
 *          a target or offset out of range (NaN too).
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_set_leveling(vn_player *player, int enabled, double target_lufs, double offset_db);

/**
 * vn_player_load() with the note's loudness as the host knows it (a payload's: vn_payload_get_loudness()), so a
 * levelled note needs no pre-pass; ignored while levelling is off.
 *
 * \param player, location, autoplay, duration_hint_s as for vn_player_load().
 * \param loudness the note's loudness; NULL or `known` 0 when unknown.
 * \returns as vn_player_load(); #VN_E_INVALID_ARG also for figures that are not a plausible loudness (as
 *          vn_payload_set_loudness()).
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_load_with_loudness(vn_player *player, const char *location, int autoplay, double duration_hint_s,
                                 const vn_loudness *loudness);

/** A player's context (Stream's `AudioPlaybackContext` and more). \since 0.1.0 */
typedef struct vn_player_context {
    size_t size;              /**< sizeof(vn_player_context) as the library knows it (set by the caller for get). */
    int state;                /**< A #vn_player_state. */
    double duration_s;        /**< The item's duration; the hint until it is known; 0 when nothing is loaded. */
    double current_time_s;    /**< What the listener hears now, in the file's time. */
    double rate;              /**< The chosen rate, 0.5…2.5 (kept while paused). */
    int is_seeking;           /**< 1 from a seek until audio at the new position is ready. */
    double buffered_fraction; /**< How much of the item is available, 0…1 (1 for local items once loaded). */
    int duration_is_estimate; /**< 1 while the duration is a hint or an estimate. */
    double volume;            /**< The software volume, 0…1. */
    int skip_silence;         /**< 1 when skip silence is on. */
    int last_status;          /**< The last failure's status (negative), 0 when none since the last load. */
    const char *location;     /**< The location as given; in events valid during the callback; NULL from
                                   vn_player_get_context() (use vn_player_copy_location()). */
    int leveling;             /**< 1 when levelled playback is on (vn_player_set_leveling()). */
    double leveling_target_lufs; /**< Its target, LUFS. */
    double leveling_offset_db;   /**< Its offset, dB. */
    double leveling_gain_db;  /**< The gain levelling gives the loaded note, dB; 0 when it is not levelled. */
} vn_player_context;

/** Kinds of player events. \since 0.1.0 */
typedef enum vn_player_event_type {
    VN_PLAYER_EVENT_CONTEXT = 0,  /**< A state change, a seek, a setting, or a progress step (steps coalesce). */
    VN_PLAYER_EVENT_FINISHED = 1, /**< The item played to its end; the state is #VN_PLAYER_STOPPED at 0 (a queue
                                       player's next item follows instead, when there is one). */
    VN_PLAYER_EVENT_FAILED = 2,   /**< A load, decode or device failure: status and message; a CONTEXT follows. */
    /** A queue player moved to another item: `location` (as given) and `key` (the URL's key or the URL, the
     * absolute path, or a source's name). Sent whenever the queue moves on, and for every load of another location
     * the host makes while a data source is set, before the new item's CONTEXT. */
    VN_PLAYER_EVENT_ITEM_CHANGED = 3,
    /** The note at `location` (its `key` as in #VN_PLAYER_EVENT_ITEM_CHANGED) was heard to 90 % of its duration,
     * or to its end: it is listened now, remembered across processes and restarts (vn_listened()). Sent once per
     * note, never for one already listened, before its FINISHED: the moment to send a read receipt or the played
     * marker. */
    VN_PLAYER_EVENT_LISTENED = 4
} vn_player_event_type;

/** One player event; valid only during the callback. \since 0.1.0 */
typedef struct vn_player_event {
    size_t size;               /**< sizeof(vn_player_event) as the library knows it. */
    int type;                  /**< A #vn_player_event_type. */
    vn_player_context context; /**< CONTEXT: the new context. */
    const char *location;      /**< FINISHED, ITEM_CHANGED, LISTENED: the item's location. */
    int status;                /**< FAILED: a negative status. */
    const char *message;       /**< FAILED: the detail. */
    const char *key;           /**< ITEM_CHANGED: the new item's key; LISTENED: the note's key. */
} vn_player_event;

/**
 * Receives one player event.
 *
 * \param user_data the pointer given to vn_player_subscribe().
 * \param event the event; valid only during the call.
 * \threadsafety Runs on the library's event thread, or inside vn_event_loop_dispatch() when the player has a loop.
 * \since 0.1.0
 */
typedef void (*vn_player_event_fn)(void *user_data, const vn_player_event *event);

/**
 * Subscribes to a player's events. The current context is delivered first, then every event in order.
 *
 * \param player the player.
 * \param callback called for each event.
 * \param user_data passed to `callback` and `release`.
 * \param release called once after the last callback; may be NULL.
 * \param out_id receives the id (written before the first callback); may be NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG when `callback` is NULL.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_subscribe(vn_player *player, vn_player_event_fn callback, void *user_data, vn_release_fn release,
                        vn_subscription_id *out_id);

/**
 * Reads the current context.
 *
 * \param player the player.
 * \param context receives it; set its `size` to sizeof(vn_player_context) first. `location` is set to NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG for a NULL `context` or a
 *          `size` that is too small.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_player_get_context(vn_player *player, vn_player_context *context);

/**
 * Copies the current location (as given to the load).
 *
 * \param player the player.
 * \param out_location receives a NUL-terminated copy owned by the caller (free with vn_free()), "" when none.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG when `out_location` is NULL;
 *          #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_player_copy_location(vn_player *player, char **out_location);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Attachment payloads
 * Stream's `voiceRecording` attachment payload: `type`, `title`, `asset_url`, `file_size` (bytes), `mime_type`,
 * `duration` (seconds), `waveform_data` (levels 0…1), and any other key as extra data. A payload read and written
 * back keeps every key in its place and every value exact (64-bit integers, reals in their shortest form); the one
 * normalisation is `file_size`, which is read as Stream reads it (an integer, or a real rounded; 0 for a negative
 * number, a real outside int64 or any other value). A known key whose value is JSON `null` is taken as absent. Payload JSON is at most 1 MiB (#VN_E_TOO_LARGE) and nests at most 64 levels;
 * invalid JSON or UTF-8, duplicate keys and numbers beyond int64 or double are #VN_E_FORMAT.
 * @{ */

/** A voiceRecording payload. Not thread-safe: one thread uses a payload at a time. */
typedef struct vn_payload vn_payload;

/**
 * Makes a payload with `type` "voiceRecording" and an `asset_url`.
 *
 * \param asset_url an absolute URL (`scheme:…`, e.g. https://… or mxc://…).
 * \param out receives the payload (destroy with vn_payload_destroy()); set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL or relative `asset_url` or a NULL `out`; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_create(const char *asset_url, vn_payload **out);

/**
 * Reads a payload from JSON text. Only `asset_url` is required.
 *
 * \param json the text (UTF-8; need not be NUL-terminated).
 * \param length its length in bytes.
 * \param out receives the payload; set to NULL on failure.
 * \returns #VN_OK; #VN_E_TOO_LARGE over 1 MiB; #VN_E_FORMAT for invalid JSON, nesting deeper than 64, a value that
 *          is not an object, a missing or relative `asset_url`, or a known key of the wrong type (`title`,
 *          `mime_type` and `type` strings, `duration` a number, `waveform_data` an array of numbers);
 *          #VN_E_INVALID_ARG for NULL arguments.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_parse(const char *json, size_t length, vn_payload **out);

/**
 * Makes the payload of a finished recording before upload: `title` the file name, `asset_url` its `file://` URL,
 * `file_size` from disk, `mime_type` from the extension (ogg/opus `audio/ogg`, aac `audio/aac`, m4a `audio/mp4`,
 * mp3 `audio/mpeg`, wav `audio/wav`, else `application/octet-stream`), and the duration and waveform.
 *
 * \param path the recording (UTF-8).
 * \param duration_s its duration (the recorder's `finished` event has it), or negative to read it from the file.
 * \param waveform its waveform levels (the recorder's 100 values), or NULL to compute 100 from the file (and the
 *        loudness with them, in the extra data: vn_payload_get_loudness(); given levels, set the FINISHED event's
 *        loudness with vn_payload_set_loudness()).
 * \param count how many levels `waveform` holds.
 * \param out receives the payload; set to NULL on failure.
 * \returns #VN_OK; #VN_E_NOT_FOUND, #VN_E_PERMISSION or #VN_E_INVALID_ARG (a directory) for the file;
 *          #VN_E_FORMAT when it must be read and is not audio; #VN_E_INVALID_ARG for NaN or infinite values.
 * \threadsafety Any thread. Computing the waveform decodes the file.
 * \since 0.1.0
 */
int vn_payload_from_recording(const char *path, double duration_s, const float *waveform, size_t count,
                              vn_payload **out);

/**
 * Destroys a payload.
 *
 * \param payload the payload, or NULL (no-op).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_payload_destroy(vn_payload *payload);

/**
 * Writes a payload as JSON: its keys in their order (a new payload: `type`, `title`, `asset_url`, `file_size`,
 * `mime_type`, `duration`, `waveform_data`, then the extra data); absent values are left out.
 *
 * \param payload the payload.
 * \param indent 0 for compact text, else spaces per level (at most 16).
 * \param out_json receives NUL-terminated UTF-8 owned by the caller (free with vn_free()).
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for a NULL `out_json` or an
 *          `indent` outside 0…16; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_to_json(const vn_payload *payload, int indent, char **out_json);

/** The text fields of a payload, for vn_payload_copy_field() and vn_payload_set_field(). */
typedef enum vn_payload_field {
    VN_PAYLOAD_TYPE = 0,      /**< `type`, normally "voiceRecording" */
    VN_PAYLOAD_TITLE = 1,     /**< `title` */
    VN_PAYLOAD_ASSET_URL = 2, /**< `asset_url` (always present) */
    VN_PAYLOAD_MIME_TYPE = 3  /**< `mime_type` */
} vn_payload_field;

/**
 * Copies a text field.
 *
 * \param payload the payload.
 * \param field a #vn_payload_field.
 * \param out_text receives a NUL-terminated copy owned by the caller (free with vn_free()), or NULL when the
 *        payload has no such value.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for an unknown field or a NULL
 *          `out_text`; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_copy_field(const vn_payload *payload, int field, char **out_text);

/**
 * Sets or removes a text field. An existing key keeps its place; a new one goes to its place among the known keys
 * (Stream's order: `type`, `title`, `asset_url`, `file_size`, `mime_type`, `duration`, `waveform_data`), as do
 * the other setters'.
 *
 * \param payload the payload.
 * \param field a #vn_payload_field.
 * \param text UTF-8 text (copied), or NULL to remove the value.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for an unknown field, invalid
 *          UTF-8, a relative or NULL `asset_url`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_set_field(vn_payload *payload, int field, const char *text);

/**
 * Reads `file_size`.
 *
 * \param payload the payload.
 * \param out_bytes receives the size in bytes, or -1 when the payload has none.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for a NULL `out_bytes`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_get_file_size(const vn_payload *payload, int64_t *out_bytes);

/**
 * Sets `file_size`.
 *
 * \param payload the payload.
 * \param bytes the size, or negative to remove it.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_set_file_size(vn_payload *payload, int64_t bytes);

/**
 * Reads `duration`.
 *
 * \param payload the payload.
 * \param out_s receives the duration in seconds, or -1 when the payload has none.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for a NULL `out_s`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_get_duration_s(const vn_payload *payload, double *out_s);

/**
 * Sets `duration`.
 *
 * \param payload the payload.
 * \param seconds the duration, or negative to remove it.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for NaN or infinity.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_set_duration_s(vn_payload *payload, double seconds);

/**
 * Reads the note's loudness from the extra data (the `voicenote_loudness` member, docs/attachments.md): what the
 * sender measured, so a receiver levels the note without measuring it.
 *
 * \param payload the payload.
 * \param out receives it; `known` 0 when the payload has none, or one that is not a plausible loudness (a
 *        stranger's payload never sets a gain it should not).
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for a NULL `out`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_get_loudness(const vn_payload *payload, vn_loudness *out);

/**
 * Sets the note's loudness in the extra data (`voicenote_loudness`), as vn_payload_from_recording() does when it
 * reads the file, and as the recorder's FINISHED event gives it.
 *
 * \param payload the payload.
 * \param loudness the loudness; NULL, or `known` 0, removes it.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for figures that are not a
 *          plausible loudness (integrated −70…10 LUFS or -INFINITY, range 0…100 LU, true peak −200…40 dBTP or
 *          -INFINITY; never NaN).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_set_loudness(vn_payload *payload, const vn_loudness *loudness);

/**
 * Reads `waveform_data` (as doubles, so values round-trip exactly).
 *
 * \param payload the payload.
 * \param out the values; may be NULL when `capacity` is 0 (to ask for the count).
 * \param capacity how many values `out` holds; the first `capacity` are copied.
 * \param count receives how many values the payload has (0 when it has none).
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for a NULL `count`, or a NULL
 *          `out` with a non-zero `capacity`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_get_waveform(const vn_payload *payload, double *out, size_t capacity, size_t *count);

/**
 * Sets `waveform_data`.
 *
 * \param payload the payload.
 * \param values the levels (copied), or NULL to remove the key.
 * \param count how many (at most 1048576).
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for NaN or infinite values or
 *          a count over the limit.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_set_waveform(vn_payload *payload, const double *values, size_t count);

/**
 * Copies the extra data: every member whose key is not a known one, in order, as a JSON object.
 *
 * \param payload the payload.
 * \param out_json receives NUL-terminated UTF-8 owned by the caller (free with vn_free()); "{}" when none.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG for a NULL `out_json`;
 *          #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_copy_extra_data(const vn_payload *payload, char **out_json);

/**
 * Replaces the extra data: a key kept stays in its place, a key dropped goes, a new key is added at the end.
 *
 * \param payload the payload.
 * \param json a JSON object (NUL-terminated UTF-8), or NULL for none.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_FORMAT when `json` is not a JSON object
 *          (or as vn_payload_parse()); #VN_E_INVALID_ARG when it holds a known key.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_set_extra_data(vn_payload *payload, const char *json);

/**
 * The content of a Matrix voice message (`m.room.message`) for a payload, as Element sends one: `msgtype` `m.audio`,
 * `body`, `url` (the payload's `asset_url`, an `mxc://` URI: upload with #VN_UPLOAD_RAW first), `info` (`duration`
 * in milliseconds, `mimetype`, `size`), `org.matrix.msc1767.audio` (`duration`, and `waveform`: 100 integers 0…1024,
 * #VN_WAVEFORM_MATRIX) and `org.matrix.msc3245.voice: {}`; with the payload's loudness (vn_payload_get_loudness()),
 * `org.voicenote.loudness` too: the figures in hundredths, as integers (`integrated_lufs_x100`, `range_lu_x100`,
 * `true_peak_dbtp_x100`; Matrix events allow no reals), which vn_payload_from_matrix_content() reads back.
 *
 * \param payload the payload (its duration is required; its waveform, MIME type and size when present).
 * \param body the text clients without voice messages show, or NULL for "Voice message".
 * \param out_json receives the content as compact JSON owned by the caller (free with vn_free()).
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_INVALID_ARG when `asset_url` is not an
 *          `mxc://<server>/<media id>` URI, the duration is missing, `body` is not UTF-8 or `out_json` is NULL;
 *          #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_to_matrix_content(const vn_payload *payload, const char *body, char **out_json);

/**
 * Reads a received Matrix `m.audio` content into a payload: `asset_url` its `url` (an `mxc://` URI), `title` its
 * `body`, `mime_type` and `file_size` from `info`, `duration` in seconds (from `org.matrix.msc1767.audio`, else
 * `info`), and `waveform_data` decoded to 0…1 from `org.matrix.msc1767.audio`'s `waveform`. Other keys are not kept.
 *
 * \param content_json the content (UTF-8).
 * \param length its length in bytes.
 * \param out receives the payload; destroy it with vn_payload_destroy().
 * \param out_is_voice receives 1 when the content is marked a voice message (`org.matrix.msc3245.voice`), else 0;
 *        may be NULL.
 * \returns #VN_OK; #VN_E_FORMAT for JSON that is not an `m.audio` content with an `mxc://` url as
 *          vn_matrix_download_url() takes it, whose fields have the wrong types, or whose `body` or `info.mimetype`
 *          holds a NUL character (C would read it cut short); #VN_E_TOO_LARGE over 1 MiB; #VN_E_INVALID_ARG for
 *          NULL arguments.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_from_matrix_content(const char *content_json, size_t length, vn_payload **out, int *out_is_voice);

/**
 * Where a Matrix client downloads a media URI with authenticated media (Matrix 1.11):
 * `<homeserver>/_matrix/client/v1/media/download/<server>/<media id>`. Send the header
 * `Authorization: Bearer <access token>` with it (vn_http_options_add_header(), or the player's headers).
 *
 * \param mxc_uri an `mxc://<server name>/<media id>` URI of the Matrix grammar, checked because both parts go into
 *        the URL's path: the server name a DNS name (labels of letters, digits and `-`), a dotted IPv4 address or
 *        a bracketed IPv6 literal, with an optional port 1–65535; the media id 1–255 of `A-Z a-z 0-9 _ -`. Nothing
 *        else passes (no `..`, percent-escapes, empty parts or anything after the media id).
 * \param homeserver the client-server API's base URL, e.g. `https://matrix.example.org`.
 * \param out_url receives the URL owned by the caller (free with vn_free()).
 * \returns #VN_OK; #VN_E_INVALID_ARG for a malformed URI, a homeserver that is not an http(s) base URL, or NULL
 *          arguments; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_matrix_download_url(const char *mxc_uri, const char *homeserver, char **out_url);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Attachment types and names
 * Attachment types are Stream's raw values: `image`, `file`, `giphy`, `video`, `audio`, `voiceRecording`,
 * `linkPreview`, `unknown`, or any custom string. Uploads take `image`, `video`, `audio`, `file` and
 * `voiceRecording`.
 * @{ */

/**
 * The attachment type of a file by its extension: "image", "video" or "audio" when its MIME type's major type is
 * that, else "file".
 *
 * \param file_name a file name or path (UTF-8), or NULL.
 * \returns static text (never NULL).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
const char *vn_attachment_type_for_file(const char *file_name);

/**
 * The MIME type voicenote sends a file as, by its extension (case-insensitive): ogg/opus `audio/ogg`, aac
 * `audio/aac`, m4a `audio/mp4`, mp3 `audio/mpeg`, wav `audio/wav`, flac `audio/flac`, common image and video types,
 * else `application/octet-stream`.
 *
 * \param file_name a file name or path (UTF-8), or NULL.
 * \returns static text (never NULL).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
const char *vn_mime_type_for_file(const char *file_name);

/**
 * The type of an attachment object as received: its `type`; `linkPreview` for an object with an `og_scrape_url`;
 * `unknown` without a `type` string.
 *
 * \param json the attachment object (UTF-8; need not be NUL-terminated).
 * \param length its length in bytes (at most 1 MiB).
 * \param out_type receives a NUL-terminated copy owned by the caller (free with vn_free()).
 * \returns #VN_OK; #VN_E_FORMAT when `json` is not a JSON object; #VN_E_TOO_LARGE; #VN_E_INVALID_ARG for NULL
 *          arguments; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_attachment_type_of_json(const char *json, size_t length, char **out_type);

/**
 * Checks a local file before upload, as Stream does.
 *
 * \param location a path or a `file://` URL (UTF-8).
 * \param type the attachment type it would be uploaded as (e.g. "voiceRecording").
 * \param max_bytes the size limit, or 0 for the default (100 MiB).
 * \returns #VN_OK; #VN_E_UNSUPPORTED for a type uploads do not take; #VN_E_INVALID_ARG for a URL of another
 *          scheme, a directory, NULL arguments or a negative `max_bytes`; #VN_E_NOT_FOUND; #VN_E_PERMISSION;
 *          #VN_E_TOO_LARGE over the limit.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_attachment_check_local(const char *location, const char *type, int64_t max_bytes);

/**
 * The display name of the n-th recording of a message being composed (Stream's `AudioRecordingNameFormatter`):
 * index 0 is "Recording", index n ≥ 1 is "Recording(n)".
 *
 * \param index the index.
 * \param out_name receives a NUL-terminated copy owned by the caller (free with vn_free()).
 * \returns #VN_OK; #VN_E_INVALID_ARG for a negative index or a NULL `out_name`; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_recording_display_name(int index, char **out_name);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Messages and the next voice message
 * A channel's messages as JSON, in chronological order (oldest first, as Stream's REST API returns them): an
 * array of `{"id", "user": {"id"}, "attachments": [{"type", "asset_url", …}]}`, or an object with such a
 * `messages` array. At most 64 MiB.
 * @{ */

/** Which voice message follows the current one. */
typedef enum vn_next_scope {
    /** The next voice recording of the same message only. */
    VN_NEXT_SAME_MESSAGE = 0,
    /** The same message's next one; else the first of the message right after it, when the same author sent it. */
    VN_NEXT_SUBSEQUENT_FROM_USER = 1,
    /** The next voice recording in time from anyone but the current user, up to a message with none. */
    VN_NEXT_CONSECUTIVE = 2
} vn_next_scope;

/**
 * Finds the voice message to play after `current_url` (Stream's next-item provider). The current one is found in
 * the newest message having it as a `voiceRecording` attachment's `asset_url`; nothing follows when it is not
 * found, or when the current user sent it. Other attachment types are skipped.
 *
 * \param messages_json the messages (UTF-8; need not be NUL-terminated).
 * \param length its length in bytes.
 * \param current_url the location playing now (UTF-8), or NULL when nothing plays: then nothing follows either
 *        (the messages are still checked).
 * \param current_user_id the current user's id, or NULL.
 * \param scope a #vn_next_scope.
 * \param out_url receives the next `asset_url` as a NUL-terminated copy owned by the caller (free with vn_free()),
 *        or NULL when nothing follows.
 * \returns #VN_OK (also when nothing follows); #VN_E_INVALID_ARG for an unknown scope, NULL `messages_json` or
 *          `out_url`;
 *          #VN_E_TOO_LARGE over 64 MiB; #VN_E_FORMAT for invalid JSON, or a message or attachment list that is
 *          not of its JSON type; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_find_next_item(const char *messages_json, size_t length, const char *current_url,
                      const char *current_user_id, int scope, char **out_url);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Queue players
 * A player with a data source is a queue player: when an item ends (or fails to load, or vn_player_next() is
 * called) it asks the data source for the location that follows and plays it; no answer stops it. Items of the same
 * rate and channel count play back to back: when the current item's audio is decoded to its end the data source is
 * asked, its answer is opened and decoded on into the same device, which never stops, so no silence comes between
 * them; #VN_PLAYER_EVENT_FINISHED and #VN_PLAYER_EVENT_ITEM_CHANGED come when the next item's first frame is heard.
 * 5 s before the end of an item the data source is asked ahead and a remote answer is fetched meanwhile (into the
 * media cache too); the answer at the end decides what plays. An answer naming a location that failed to load since
 * an item last loaded ends the queue instead of looping.
 * @{ */

/** A data source's answer, filled in by the hook during its call (valid only during that call). */
typedef struct vn_queue_answer vn_queue_answer;

/**
 * Answers which location plays after the current one: call vn_queue_answer_set_location() or
 * vn_queue_answer_set_url() on `answer`, or nothing to end the queue.
 *
 * \param user_data the pointer given to vn_player_set_data_source().
 * \param current_location the current item's location as given to the load (or as the data source answered it).
 * \param current_key its key (see #VN_PLAYER_EVENT_ITEM_CHANGED).
 * \param answer where the answer goes. The strings and `answer` are valid only during the call; the library copies
 *        what the setters are given.
 * \threadsafety A hook: runs synchronously on the player's decoder thread, with no library lock held. It may call
 *        any vn_ function, vn_player_destroy() of this player included. It may be asked more than once per item
 *        (ahead, when the audio is decoded, at the end); it should answer quickly and the same way each time.
 * \since 0.1.0
 */
typedef void (*vn_queue_next_fn)(void *user_data, const char *current_location, const char *current_key,
                                 vn_queue_answer *answer);

/**
 * Answers with a local path, a `file://` URL or an http(s) URL (fetched without extra HTTP options), as
 * vn_player_load() takes it.
 *
 * \param answer the answer given to the hook.
 * \param location the location (UTF-8).
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL or empty `location`; #VN_E_MISUSE for an `answer` used outside
 *          its call.
 * \threadsafety Only inside the #vn_queue_next_fn call that received `answer`.
 * \since 0.1.0
 */
int vn_queue_answer_set_location(vn_queue_answer *answer, const char *location);

/**
 * Answers with an http(s) URL, as vn_player_load_url() takes it.
 *
 * \param answer the answer given to the hook.
 * \param url the URL (UTF-8).
 * \param options headers, CA file and timeouts (copied), or NULL for none.
 * \param key the location's identity instead of the URL (copied), or NULL.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL `url`, an empty key, or a URL that is not http(s); #VN_E_MISUSE
 *          for an `answer` used outside its call or a destroyed `options`.
 * \threadsafety Only inside the #vn_queue_next_fn call that received `answer`.
 * \since 0.1.0
 */
int vn_queue_answer_set_url(vn_queue_answer *answer, const char *url, const vn_http_options *options, const char *key);

/**
 * Makes `player` a queue player asking `next`, or a plain player again when `next` is NULL. Replaces a data source
 * set before (also one set by vn_player_use_messages()); the old one's `release` runs once no call of it runs any
 * more.
 *
 * \param player the player.
 * \param next the hook, or NULL.
 * \param user_data passed to `next` and `release`.
 * \param release called once with `user_data` after the last call of `next` (when replaced, unset or the player is
 *        destroyed), on whichever thread drops it, with no lock held; may be NULL. Also called (at once) when this
 *        function fails. Ignored when `next` is NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player.
 * \threadsafety Any thread, including inside callbacks and hooks.
 * \since 0.1.0
 */
int vn_player_set_data_source(vn_player *player, vn_queue_next_fn next, void *user_data, vn_release_fn release);

/**
 * Makes `player` a queue player over a channel's messages with the built-in provider (vn_find_next_item()): after
 * an item whose location is a message's `voiceRecording` `asset_url`, the next one the scope names plays. A URL that
 * follows on the same scheme, host and port as the current URL is fetched with the current item's HTTP options (its
 * headers, CA file); any other without. Calling it again replaces the messages, also while an item plays: what comes
 * next follows the new messages. A next note whose attachment carries the sender's loudness (`voicenote_loudness`,
 * plausible figures only) is levelled by it (vn_player_set_leveling()) with no pre-pass.
 *
 * \param player the player.
 * \param messages_json the messages, oldest first (UTF-8; need not be NUL-terminated).
 * \param length its length in bytes.
 * \param current_user_id the current user's id, or NULL.
 * \param scope a #vn_next_scope.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG for an unknown scope or a NULL
 *          `messages_json`; #VN_E_TOO_LARGE over 64 MiB; #VN_E_FORMAT for invalid JSON or messages; #VN_E_NOMEM.
 *          On failure the data source set before stays.
 * \threadsafety Any thread, including inside callbacks and hooks.
 * \since 0.1.0
 */
int vn_player_use_messages(vn_player *player, const char *messages_json, size_t length, const char *current_user_id,
                           int scope);

/**
 * Skips to the next item now: the data source is asked about the current item (or the one that last failed to load)
 * on the decoder thread and its answer plays; the current item is left (its position kept for a later load). No
 * answer stops the player. Returns at once.
 *
 * \param player the player.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player, one without a data source, or with nothing loaded;
 *          #VN_E_BUSY when the session's activate hook refused.
 * \threadsafety Any thread, including inside callbacks and hooks.
 * \since 0.1.0
 */
int vn_player_next(vn_player *player);

/**
 * "Play unplayed": with 1, the queue passes over the notes that are listened (vn_listened()): its data source is asked
 * again after each such answer, so the queue plays the unlistened notes in order and ends after the last. A load
 * by the host plays what it names, listened or not. Off by default; takes effect at the next question to the data
 * source.
 *
 * \param player the player.
 * \param skip 1 to pass over listened notes, 0 to play every answer.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player.
 * \threadsafety Any thread, including inside callbacks and hooks.
 * \since 0.1.0
 */
int vn_player_set_skip_listened(vn_player *player, int skip);

/**
 * Tells the desktop's media controls what a note is (vn_player_options_set_mpris()): shown while it is the current
 * note, at once when it already is. Kept for the 1000 most recently set keys, so a host can set them ahead for a
 * queue's messages. Without MPRIS it does nothing.
 *
 * \param player the player.
 * \param key the note's key as #VN_PLAYER_EVENT_ITEM_CHANGED names it, or its location as given to the load.
 * \param title the title ("Voice message"), or NULL to show the file's name.
 * \param artist the sender's name, or NULL for none.
 * \param art_url the sender's picture (a `file://` or http(s) URL), or NULL for none.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player; #VN_E_INVALID_ARG for an empty key or text that is
 *          not UTF-8. Texts over 4096 bytes are cut.
 * \threadsafety Any thread, including inside callbacks and hooks.
 * \since 0.1.0
 */
int vn_player_set_metadata(vn_player *player, const char *key, const char *title, const char *artist,
                           const char *art_url);

/**
 * Copies the player's MPRIS bus name (`org.mpris.MediaPlayer2.…`), taken while a note is loading, playing or paused.
 *
 * \param player the player.
 * \param out_name receives the name (free with vn_free()).
 * \param out_exported receives 1 while the name is on the bus, else 0; NULL is fine.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed player, or one made without MPRIS; #VN_E_INVALID_ARG for a
 *          NULL `out_name`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_player_copy_mpris_name(vn_player *player, char **out_name, int *out_exported);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Uploads
 * An uploader sends one attachment at a time to an http(s) endpoint, on a library thread (`vn-upload`) while
 * libcurl sends it on the network thread. Multipart mode is Stream's `POST /channels/{type}/{id}/file`
 * (multipart/form-data, one part named `file` with the file name and MIME type; the response's `file` becomes
 * `asset_url`, and its `thumb_url` is kept). Raw mode is Matrix's `/_matrix/media/v3/upload` (the body is the file
 * with its `Content-Type`, the file name as the `filename` query parameter; the response's `content_uri`, an
 * `mxc://` URI the host turns into a download URL, becomes `asset_url`). HTTP statuses map as everywhere:
 * 401/403 #VN_E_PERMISSION, 404/410 #VN_E_NOT_FOUND, 413 #VN_E_TOO_LARGE, others #VN_E_NETWORK, the message
 * naming `HTTP nnn`; a response that is not a JSON object with that URL is #VN_E_FORMAT. A failure or a cancel
 * never deletes or changes the local file.
 * @{ */

/** Options for an uploader (opaque; typed setters). */
typedef struct vn_upload_options vn_upload_options;

/** How uploads are framed. */
typedef enum vn_upload_mode {
    VN_UPLOAD_MULTIPART = 0, /**< multipart/form-data, Stream's file upload (the default) */
    VN_UPLOAD_RAW = 1,       /**< the bare body, Matrix's media upload */
    /** Matrix's upload to a content URI created first (MSC2246, spec v1.7): the endpoint is the homeserver's base
     *  URL (`https://matrix.example.org`); `POST /_matrix/media/v1/create` reserves the `mxc://` URI at once
     *  (vn_uploader_copy_content_uri(): a message can name it before the bytes are sent), then the bare body goes
     *  with its length to `PUT /_matrix/media/v3/upload/{server}/{id}?filename=` (a take sent with
     *  vn_uploader_upload_recording() goes when it ends: Synapse wants the length); `asset_url` is that URI. */
    VN_UPLOAD_MATRIX = 2,
    /** tus 1.0.0, the open resumable-upload protocol (with its creation, creation-defer-length and termination
     *  extensions): the endpoint is the server's creation URL; a `POST` with `Upload-Length` (a take sent while it
     *  is recorded: `Upload-Defer-Length: 1`) and `Upload-Metadata` (`filename`, `filetype`) creates the upload,
     *  whose URL (the `Location`, vn_uploader_copy_content_uri()) becomes `asset_url`; `PATCH`es at offsets send
     *  the bytes (a take's as its pages are written, the last naming its length); a failed PATCH resumes from the
     *  offset `HEAD` gives (three times, after 0.5, 1 and 2 s); a failed or cancelled upload is `DELETE`d. */
    VN_UPLOAD_TUS = 3
} vn_upload_mode;

/** Where an upload is (Stream's `LocalAttachmentState`). */
typedef enum vn_upload_state {
    VN_UPLOAD_PENDING = 0,   /**< accepted, not sending yet (a recording's waveform is being read) */
    VN_UPLOAD_UPLOADING = 1, /**< sending; `progress` says how much */
    VN_UPLOAD_FAILED = 2,    /**< failed or cancelled; `status` and `message` say why; the file is untouched */
    VN_UPLOAD_UPLOADED = 3   /**< done; `payload_json` is the uploaded payload */
} vn_upload_state;

/**
 * Makes upload options with the defaults: multipart mode, the mode's response key, type "voiceRecording", a
 * 100 MiB limit, no extra headers or query parameters, the system's CAs, events on the library's event thread.
 *
 * \param out receives the options; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_upload_options_create(vn_upload_options **out);

/**
 * Destroys upload options; uploaders made with them keep their own copy.
 *
 * \param options the options, or NULL (no-op).
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_upload_options_destroy(vn_upload_options *options);

/**
 * Sets the mode.
 *
 * \param options the options.
 * \param mode a #vn_upload_mode.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for an unknown mode.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_upload_options_set_mode(vn_upload_options *options, int mode);

/**
 * Uses HTTP options for uploads: request headers (Stream needs `api_key` as a query parameter and `Authorization`
 * and `Stream-Auth-Type: jwt` headers), a CA file, the connect and stall timeouts.
 *
 * \param options the options.
 * \param http the HTTP options (copied), or NULL for the defaults.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or destroyed `http`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_upload_options_set_http(vn_upload_options *options, const vn_http_options *http);

/**
 * Adds a query parameter to the endpoint (both parts percent-encoded), after any the endpoint has.
 *
 * \param options the options.
 * \param name the name (UTF-8, not empty).
 * \param value the value (UTF-8).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for a NULL or empty name, a
 *          NULL value or invalid UTF-8.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_upload_options_add_query(vn_upload_options *options, const char *name, const char *value);

/**
 * Sets the key of the response's JSON object that holds the uploaded URL.
 *
 * \param options the options.
 * \param key the key (UTF-8, not empty), or NULL for the mode's: `file` (multipart) or `content_uri` (raw).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for an empty key or invalid UTF-8.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_upload_options_set_url_key(vn_upload_options *options, const char *key);

/**
 * Sets the attachment type uploaded (the payload's `type`).
 *
 * \param options the options.
 * \param type "voiceRecording" (the default), "audio", "image", "video" or "file".
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_UNSUPPORTED for a type uploads do not take;
 *          #VN_E_INVALID_ARG for NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_upload_options_set_attachment_type(vn_upload_options *options, const char *type);

/**
 * Sets the size limit.
 *
 * \param options the options.
 * \param max_bytes the largest body sent, 1 or more (the default is 100 MiB).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for 0 or less.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_upload_options_set_max_bytes(vn_upload_options *options, int64_t max_bytes);

/**
 * Delivers the uploader's events through an event loop instead of the library's event thread.
 *
 * \param options the options.
 * \param loop the loop (it must outlive the uploader), or NULL for the event thread.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed loop.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_upload_options_set_event_loop(vn_upload_options *options, vn_event_loop *loop);

/** An uploader (opaque). */
typedef struct vn_uploader vn_uploader;

/** An uploader's event: a change of state, or a progress step. */
typedef struct vn_upload_event {
    size_t size;              /**< sizeof(vn_upload_event) as built by the library */
    int state;                /**< a #vn_upload_state */
    double progress;          /**< UPLOADING: 0 first, then steps of at least 0.05, then 1 once the server answered */
    int status;               /**< FAILED: the status (#VN_E_CANCELLED after a cancel); else #VN_OK */
    const char *message;      /**< FAILED: the detail (with the HTTP status where there is one); else NULL */
    const char *payload_json; /**< UPLOADED: the payload with the uploaded `asset_url`; else NULL */
} vn_upload_event;

/**
 * Receives an uploader's events.
 *
 * \param user_data as given to vn_uploader_subscribe().
 * \param event valid during the call only.
 * \threadsafety Runs on the library's event thread, or inside vn_event_loop_dispatch() for an uploader made with
 *               a loop; never on the upload or network thread.
 */
typedef void (*vn_upload_event_fn)(void *user_data, const vn_upload_event *event);

/**
 * Rewrites the uploaded payload before it is reported (Stream's `UploadedAttachmentPostProcessor`). A hook: it
 * runs synchronously on the upload thread, after the server answered and before the UPLOADED event.
 *
 * \param user_data as given to vn_uploader_set_post_processor().
 * \param payload_json the payload with the uploaded `asset_url`; valid during the call only.
 * \param out_payload_json set it to NULL to keep the payload, or to a new payload JSON allocated with
 *        vn_strdup() (the library frees it).
 * \returns #VN_OK to go on; a negative status fails the upload with it. A payload that does not parse fails the
 *          upload with #VN_E_FORMAT.
 * \threadsafety Runs on the upload's own thread (`vn-upload`), with no library lock held; never on the event
 *               or network thread. It may call any vn_ function, the uploader's own included.
 * \since 0.1.0
 */
typedef int (*vn_upload_post_processor_fn)(void *user_data, const char *payload_json, char **out_payload_json);

/**
 * Copies a string into memory the library can free (for a hook's answer).
 *
 * \param text NUL-terminated text, or NULL.
 * \returns a copy to be freed with vn_free() (by whoever owns it then), or NULL for NULL or when out of memory.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
char *vn_strdup(const char *text);

/**
 * Makes an uploader for an endpoint.
 *
 * \param endpoint the http(s) URL uploads go to (UTF-8).
 * \param options the options (copied), or NULL for the defaults.
 * \param out receives the uploader; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL or non-http(s) `endpoint` or a NULL `out`; #VN_E_MISUSE for
 *          destroyed options; #VN_E_NOMEM.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_create(const char *endpoint, const vn_upload_options *options, vn_uploader **out);

/**
 * Destroys an uploader: a running upload is cancelled; when this returns, no callback or hook of it runs again
 * (called from inside one of them, it does not wait for itself).
 *
 * \param uploader the uploader, or NULL (no-op).
 * \threadsafety Any thread, including its own callbacks and hook.
 * \since 0.1.0
 */
void vn_uploader_destroy(vn_uploader *uploader);

/**
 * Subscribes to an uploader's events.
 *
 * \param uploader the uploader.
 * \param callback the function.
 * \param user_data passed to `callback` and `release`.
 * \param release called once with `user_data` after the last callback, or NULL.
 * \param out_id receives the subscription id (for vn_unsubscribe()), before any callback runs; may be NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed uploader; #VN_E_INVALID_ARG for a NULL callback.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_subscribe(vn_uploader *uploader, vn_upload_event_fn callback, void *user_data, vn_release_fn release,
                          vn_subscription_id *out_id);

/**
 * Sets the post-processor hook, replacing any earlier one (whose `release` then runs once it is no longer in use).
 *
 * \param uploader the uploader.
 * \param hook the hook, or NULL to remove it.
 * \param user_data passed to `hook` and `release`.
 * \param release called once with `user_data` when the hook is replaced or the uploader destroyed, or NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed uploader.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_set_post_processor(vn_uploader *uploader, vn_upload_post_processor_fn hook, void *user_data,
                                   vn_release_fn release);

/**
 * Starts uploading a local file; returns at once (state PENDING, then events).
 *
 * \param uploader the uploader.
 * \param location a path or a `file://` URL (UTF-8).
 * \param payload the payload to complete (e.g. from vn_payload_from_recording(), with the recorder's duration and
 *        waveform; copied), or NULL to make it from the file (for a voiceRecording, its duration and waveform are
 *        read from it).
 * \returns #VN_OK; #VN_E_BUSY while an upload runs; #VN_E_NOT_FOUND, #VN_E_PERMISSION, #VN_E_INVALID_ARG (a
 *          directory, a URL of another scheme), #VN_E_UNSUPPORTED (the type) or #VN_E_TOO_LARGE (the limit) for
 *          the file; #VN_E_MISUSE for a NULL or destroyed uploader or payload.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_upload_file(vn_uploader *uploader, const char *location, const vn_payload *payload);

/**
 * Starts uploading the bytes of a source (a memory buffer, or the host's callbacks: Matrix encrypted rooms upload
 * the ciphertext the client made), from its start; returns at once. The uploader holds the source until another
 * upload replaces it or the uploader is destroyed (other calls on it are #VN_E_BUSY meanwhile), so that a retry
 * sends it again.
 *
 * \param uploader the uploader.
 * \param source the source (the caller may destroy its handle at once; the uploader keeps what it needs).
 * \param file_name the name it is sent under (UTF-8, not empty).
 * \param mime_type its MIME type, or NULL for the one of `file_name`'s extension.
 * \param payload the payload to complete (copied), or NULL for one with the name, size and MIME type.
 * \returns #VN_OK; #VN_E_BUSY while an upload runs or when a player holds the source; #VN_E_TOO_LARGE over the
 *          limit; #VN_E_INVALID_ARG for NULL or empty arguments; #VN_E_MISUSE for a NULL or destroyed uploader,
 *          source or payload.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_upload_source(vn_uploader *uploader, vn_source *source, const char *file_name, const char *mime_type,
                              const vn_payload *payload);

/**
 * Starts uploading the recorder's running take while it is recorded; returns at once. The pages the recorder has
 * written are sent at once and the rest as they are written (HTTP chunked transfer: the body's length is not
 * announced), so when the take stops only its last pages remain to send. The take's end decides the upload's:
 * stopped, it completes with the finished take's payload (its duration, waveform and size, as
 * vn_payload_from_recording() makes it) and the uploaded URL; cancelled, dropped as too short or repaired after a
 * failed write, it fails (#VN_E_CANCELLED for the first two, #VN_E_IO for the last: upload the finished file with
 * vn_uploader_upload_file() then). The server sees the request end without its last chunk, so nothing is stored.
 * Such an upload cannot be retried (vn_uploader_retry() is #VN_E_UNSUPPORTED): send the finished file instead.
 * While the recorder pauses, the request waits without counting the stall timeout; the transfer timeout does not
 * apply (it lasts as long as the take). A server that needs the length first (Synapse's media upload) refuses it:
 * upload the finished file there.
 *
 * \param uploader the uploader (the voiceRecording or audio type).
 * \param recorder a recorder whose take is recording or paused.
 * \returns #VN_OK; #VN_E_BUSY while an upload runs or when this take is already being sent; #VN_E_MISUSE when no
 *          take runs, and for a NULL or destroyed uploader or recorder; #VN_E_UNSUPPORTED for another attachment
 *          type.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_upload_recording(vn_uploader *uploader, vn_recorder *recorder);

/**
 * Cancels the running upload: it ends FAILED with #VN_E_CANCELLED (unless it already ended). No-op when none runs.
 *
 * \param uploader the uploader.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed uploader.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_cancel(vn_uploader *uploader);

/**
 * Sends the last upload again, after it failed or was cancelled.
 *
 * \param uploader the uploader.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed uploader, or when the last upload did not fail;
 *          #VN_E_BUSY when its source is held by a player now.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_retry(vn_uploader *uploader);

/**
 * Waits until the upload ends (UPLOADED or FAILED) or the timeout passes; for hosts that do not use the events.
 * It returns as soon as the state is final: subscribers may still be receiving the last events (on the event
 * thread, or in a later vn_event_loop_dispatch()).
 *
 * \param uploader the uploader.
 * \param timeout_ms how long to wait at most, in milliseconds; negative waits without limit.
 * \param out_state receives the #vn_upload_state then (PENDING before any upload); may be NULL.
 * \returns #VN_OK (also on timeout); #VN_E_MISUSE for a NULL or destroyed uploader.
 * \threadsafety Any thread except the uploader's own callbacks and hook.
 * \since 0.1.0
 */
int vn_uploader_wait(vn_uploader *uploader, int timeout_ms, int *out_state);

/**
 * The URL the last upload reserved before sending its bytes: the `mxc://` content URI in #VN_UPLOAD_MATRIX mode,
 * the upload's URL in #VN_UPLOAD_TUS mode. Known from its first UPLOADING event on, so a message can be built and
 * sent at once (Matrix receivers that follow MSC2246 wait for the media; others fail to fetch it until it is there).
 *
 * \param uploader the uploader.
 * \param out_uri receives the URI, NUL-terminated, owned by the caller (free with vn_free()); NULL on failure.
 * \returns #VN_OK; #VN_E_NOT_FOUND while none is reserved (before the server answered, in the other modes);
 *          #VN_E_INVALID_ARG when `out_uri` is NULL; #VN_E_MISUSE for a NULL or destroyed uploader.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_copy_content_uri(vn_uploader *uploader, char **out_uri);

/**
 * The outcome of the last upload.
 *
 * \param uploader the uploader.
 * \param out_payload_json receives the uploaded payload as NUL-terminated JSON owned by the caller (free with
 *        vn_free()) when it was uploaded, else NULL.
 * \returns #VN_OK when uploaded; the failure's status (its detail in vn_last_error_message()) when it failed;
 *          #VN_E_MISUSE for a NULL or destroyed uploader, or while no upload has ended.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_uploader_copy_result(vn_uploader *uploader, char **out_payload_json);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Outbox
 * A durable outbox (docs/outbox.md): every note added is copied into the outbox's directory and recorded in its
 * SQLite database (write-ahead log, synced at every commit) before vn_outbox_add() returns, then sent, oldest
 * first, by one library thread (`vn-outbox`) through an uploader to the outbox's endpoint. It survives SIGKILL and
 * power loss: at the next start an item found mid-send goes on where the server allows (a tus upload from the
 * offset `HEAD` gives, a Matrix content URI reserved once and `PUT` again) and starts again otherwise (multipart and
 * raw, every attempt with the note's `Idempotency-Key` header, so a server that honours it stores the note once).
 * A transient failure (the link, a timeout, 5xx, 408, 429) waits with exponential back-off and jitter, then tries
 * again (at the next start at once); a permanent one (another 4xx, a note that is not one, an answer without a URL)
 * stays #VN_OUTBOX_FAILED until the host retries or cancels it. Each uploaded payload is offered to the host
 * (#VN_OUTBOX_EVENT_UPLOADED), again at every start, until the host acknowledges it: send the message, then
 * vn_outbox_acknowledge(); deduplicate by the item's id if the host can die between the two.
 * SQLite (`libsqlite3.so.0`) is opened on first use; without it vn_outbox_create() is #VN_E_UNSUPPORTED. The
 * endpoint's credentials (the upload options' HTTP headers) are given at each vn_outbox_create(), never written
 * to disk; each item records its destination (the endpoint and mode of the outbox it was added to) and is sent only
 * by an outbox opened for that destination. One outbox per directory at a time (#VN_E_BUSY).
 * @{ */

/** An outbox (opaque). */
typedef struct vn_outbox vn_outbox;

/** Where an item of the outbox is. */
typedef enum vn_outbox_state {
    VN_OUTBOX_QUEUED = 0,   /**< waiting for its turn (new, or found mid-send at the start) */
    VN_OUTBOX_SENDING = 1,  /**< being sent now */
    VN_OUTBOX_WAITING = 2,  /**< its last attempt failed in a way that may pass; tried again after a back-off */
    VN_OUTBOX_FAILED = 3,   /**< refused for good; kept, with its error, until retried or cancelled */
    VN_OUTBOX_UPLOADED = 4, /**< uploaded; its payload is offered until vn_outbox_acknowledge() removes it */
    /** being sent by the flow's uploader (streamed while recorded); the outbox sends it only if that fails or the
     *  process ends first (vn_flow_options_set_outbox()) */
    VN_OUTBOX_HELD = 5
} vn_outbox_state;

/** What an outbox event tells. */
typedef enum vn_outbox_event_kind {
    VN_OUTBOX_EVENT_ADDED = 0,    /**< an item was added (durable) */
    VN_OUTBOX_EVENT_SENDING = 1,  /**< an attempt is under way; `progress` 0 … 1 */
    VN_OUTBOX_EVENT_WAITING = 2,  /**< an attempt failed and is tried again in `retry_in` seconds; `status`, `message` */
    VN_OUTBOX_EVENT_FAILED = 3,   /**< refused for good; `status`, `message`, `http_code` */
    VN_OUTBOX_EVENT_UPLOADED = 4, /**< uploaded: send the message with `payload_json`, then acknowledge */
    VN_OUTBOX_EVENT_REMOVED = 5   /**< the item is gone (acknowledged or cancelled) */
} vn_outbox_event_kind;

/** An outbox's event. */
typedef struct vn_outbox_event {
    size_t size;              /**< sizeof(vn_outbox_event) as built by the library */
    int kind;                 /**< a #vn_outbox_event_kind */
    int64_t id;               /**< the item's id */
    double progress;          /**< SENDING: 0 … 1; else 0 */
    double retry_in;          /**< WAITING: seconds until the next attempt; else 0 */
    int status;               /**< WAITING, FAILED: the failure's status; else #VN_OK */
    int http_code;            /**< WAITING, FAILED: the HTTP status of the answer that failed it, or 0 */
    const char *message;      /**< WAITING, FAILED: the detail; else NULL */
    const char *payload_json; /**< UPLOADED: the uploaded payload; else NULL */
} vn_outbox_event;

/**
 * Receives an outbox's events.
 *
 * \param user_data as given to vn_outbox_subscribe().
 * \param event valid during the call only.
 * \threadsafety Runs on the library's event thread, or inside vn_event_loop_dispatch() for an outbox made with
 *               options naming a loop; never on the outbox's or the network thread.
 */
typedef void (*vn_outbox_event_fn)(void *user_data, const vn_outbox_event *event);

/**
 * Opens (creating it, mode 0700, when missing) the outbox kept in a directory, for uploads to an endpoint. Items
 * found mid-send, held or waiting out a back-off go back to #VN_OUTBOX_QUEUED (tried at once); nothing is sent
 * before vn_outbox_start().
 *
 * \param directory the outbox's directory (UTF-8): ours alone (not a symbolic link, not writable by others).
 * \param endpoint the http(s) URL uploads go to, as for vn_uploader_create().
 * \param options the upload options (copied: mode, HTTP headers, event loop…), or NULL for the defaults.
 * \param out receives the outbox; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG for NULL arguments or an endpoint that is not http(s); #VN_E_BUSY while
 *          another outbox has the directory open (after waiting up to 0.5 s for it to be closed); #VN_E_FORMAT for a damaged database (left as it is);
 *          #VN_E_UNSUPPORTED without SQLite or for a database of a later voicenote; #VN_E_PERMISSION for a directory
 *          that cannot be trusted; #VN_E_MISUSE for destroyed options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_create(const char *directory, const char *endpoint, const vn_upload_options *options, vn_outbox **out);

/**
 * Closes an outbox: an item being sent is interrupted (it goes on at the next start); when this returns no
 * callback of it runs again and another process may open the directory. The directory stays as it is.
 *
 * \param outbox the outbox, or NULL (no-op).
 * \threadsafety Any thread except the outbox's own callbacks.
 * \since 0.1.0
 */
void vn_outbox_destroy(vn_outbox *outbox);

/**
 * Sets the back-off of transient failures: `min(cap, base · 2^(attempts−1))`, scaled by a random factor in
 * [0.5, 1]. The defaults are 1 s and 300 s.
 *
 * \param outbox the outbox.
 * \param base_seconds the first wait, 0.01 … 3600.
 * \param cap_seconds the longest wait, `base_seconds` … 86400.
 * \returns #VN_OK; #VN_E_INVALID_ARG out of range; #VN_E_MISUSE for a NULL or destroyed outbox.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_set_retry(vn_outbox *outbox, double base_seconds, double cap_seconds);

/**
 * Subscribes to an outbox's events (before vn_outbox_start(), to see the hand-offs it offers again).
 *
 * \param outbox the outbox.
 * \param callback the callback.
 * \param user_data passed to the callback.
 * \param release called once with `user_data` after the last callback, or NULL.
 * \param out_id receives the subscription's id (for vn_unsubscribe()), or NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed outbox; #VN_E_INVALID_ARG for a NULL callback.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_subscribe(vn_outbox *outbox, vn_outbox_event_fn callback, void *user_data, vn_release_fn release,
                        vn_subscription_id *out_id);

/**
 * Starts sending: first an #VN_OUTBOX_EVENT_UPLOADED for every item not yet acknowledged, oldest first, then the
 * queue.
 *
 * \param outbox the outbox.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed outbox, or one started already.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_start(vn_outbox *outbox);

/**
 * Adds a note: the file is copied into the outbox (the caller may delete its own once this returns) and recorded,
 * synced to disk, before this returns.
 *
 * \param outbox the outbox.
 * \param path the note's file (a path or a `file://` URL, UTF-8).
 * \param payload the payload the upload completes (copied), or NULL to make it from the file.
 * \param out_id receives the item's id (unique in the outbox, never reused), or NULL.
 * \returns #VN_OK; #VN_E_NOT_FOUND for a missing file; #VN_E_INVALID_ARG for what is not a regular file or NULL
 *          arguments; #VN_E_NO_SPACE when the disk is full (nothing was added); #VN_E_MISUSE for a NULL or destroyed
 *          outbox or payload.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_add(vn_outbox *outbox, const char *path, const vn_payload *payload, int64_t *out_id);

/**
 * Acknowledges an uploaded item (the host sent its message): the item and its copy go.
 *
 * \param outbox the outbox.
 * \param id the item's id.
 * \returns #VN_OK; #VN_E_NOT_FOUND unless the item is #VN_OUTBOX_UPLOADED; #VN_E_MISUSE for a NULL or destroyed
 *          outbox.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_acknowledge(vn_outbox *outbox, int64_t id);

/**
 * Sends a #VN_OUTBOX_FAILED or #VN_OUTBOX_WAITING item again now.
 *
 * \param outbox the outbox.
 * \param id the item's id.
 * \returns #VN_OK; #VN_E_NOT_FOUND unless the item is failed or waiting; #VN_E_MISUSE for a NULL or destroyed
 *          outbox.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_retry(vn_outbox *outbox, int64_t id);

/**
 * Removes an item whatever its state; one being sent is cancelled first (a tus upload is deleted on the server).
 *
 * \param outbox the outbox.
 * \param id the item's id.
 * \returns #VN_OK; #VN_E_NOT_FOUND for no such item; #VN_E_MISUSE for a NULL or destroyed outbox.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_cancel(vn_outbox *outbox, int64_t id);

/**
 * Lists the items as a JSON array, oldest first: objects with `id`, `state` ("queued", "sending", "waiting",
 * "failed", "uploaded", "held"), `path` (the outbox's copy), `attempts`, `key` (the `Idempotency-Key`), `endpoint`
 * and `mode` ("multipart", "raw", "matrix", "tus": the destination it was added for), and when known
 * `reserved` (a tus URL or `mxc://` URI), `error` (`status` as "VN_E_…", `message`, `http`), `payload`, `uploaded`.
 *
 * \param outbox the outbox.
 * \param out_json receives the JSON (free with vn_free()); set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out_json` is NULL; #VN_E_MISUSE for a NULL or destroyed outbox.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_outbox_copy_items(vn_outbox *outbox, char **out_json);

/** @} */

/* ------------------------------------------------------------------------------------------------------------ */
/** \name Recording flow
 *
 * The hold-to-record button as one object with no thread and no toolkit of its own (docs/flow.md): the host
 * forwards pointer and key inputs, and draws what the events say. A press held for the minimum press begins a take
 * (a shorter one shows the tip); sliding left by the cancel distance cancels it (its file deleted); sliding up by
 * the lock distance locks it; release sends it. Stop puts a take in preview, where it can be played, trimmed,
 * discarded or sent. Sending emits #VN_FLOW_EVENT_ATTACHMENT_READY (the file, its duration, waveform and
 * `voiceRecording` payload), followed by #VN_FLOW_EVENT_PUBLISH when confirmation is not required or on
 * vn_flow_confirm(). Gestures are measured from the press point, in the host's pixels.
 *
 * No `vn_flow_*` call blocks its caller with slow work: an input decides the transition under the flow's lock (which
 * guards the state machine alone) and returns; what it leads to — beginning or stopping the recorder, loading the
 * preview, trimming, reading a take's waveform and payload, writing a draft record — is carried out after, in
 * order, on the flow's own worker thread, and what comes of it arrives as events. The session hooks those steps
 * call (the recorder's and player's activate and deactivate) run on that worker. The flow reacts to its recorder's
 * and player's events, and to its clock's timers, through the same lock. Events are delivered like every other
 * object's (the event thread, or the event loop set in the options), one per transition, never under a library
 * lock. Pointer and key inputs that mean nothing in a state are ignored (a view sends them whatever the state);
 * commands that mean nothing there return #VN_E_MISUSE and change nothing.
 * @{ */

/** A recording flow. \since 0.1.0 */
typedef struct vn_flow vn_flow;
/** A recording flow's settings, read at vn_flow_create(). \since 0.1.0 */
typedef struct vn_flow_options vn_flow_options;
/** A clock that moves only when told to, for tests and scripted demos: the flow's timers (the minimum press, the
 *  tip's hiding) fire inside vn_manual_clock_advance(), in order. \since 0.1.0 */
typedef struct vn_manual_clock vn_manual_clock;

/** The states of a recording flow. \since 0.1.0 */
typedef enum vn_flow_state {
    VN_FLOW_IDLE = 0,        /**< Nothing happens; the record button waits. */
    VN_FLOW_SHOWING_TIP = 1, /**< The button was tapped, not held: the tip shows for a while. */
    VN_FLOW_RECORDING = 2,   /**< A take runs while the button is held (toggle mode: until the next press). */
    VN_FLOW_LOCKED = 3,      /**< A take runs with no finger on the button: discard, stop or send. */
    VN_FLOW_PREVIEW = 4      /**< The finished take waits: play, trim, discard or send. */
} vn_flow_state;

/** The keys a flow understands when its key inputs are on. \since 0.1.0 */
typedef enum vn_flow_key {
    VN_FLOW_KEY_RECORD = 0, /**< Held like the record button. */
    VN_FLOW_KEY_ESCAPE = 1, /**< Cancels a take or discards a preview. */
    VN_FLOW_KEY_ENTER = 2   /**< Sends. */
} vn_flow_key;

/**
 * Creates a manual clock at time 0.
 *
 * \param out receives the clock; destroy it with vn_manual_clock_destroy() after the flows that use it.
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_manual_clock_create(vn_manual_clock **out);

/**
 * Moves a manual clock forward, firing every timer that falls due, in order, on the calling thread.
 *
 * \param clock the clock.
 * \param seconds how far, finite and ≥ 0.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed clock; #VN_E_INVALID_ARG for a negative or non-finite time.
 * \threadsafety Any thread, one at a time; not inside a flow's callback for a flow on this clock.
 * \since 0.1.0
 */
int vn_manual_clock_advance(vn_manual_clock *clock, double seconds);

/**
 * Destroys a manual clock: it moves no more, so timers not yet fired never fire. A flow still using it keeps it
 * alive until the flow is destroyed. NULL is ignored.
 *
 * \param clock the clock.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_manual_clock_destroy(vn_manual_clock *clock);

/**
 * Creates flow options with the defaults: cancel distance 75 px, lock distance 50 px, minimum press 0.5 s, tip
 * shown 2 s, 100 waveform values, confirmation required, toggle mode and key inputs off, the monotonic clock, events
 * on the event thread.
 *
 * \param out receives the options; destroy them with vn_flow_options_destroy().
 * \returns #VN_OK; #VN_E_INVALID_ARG when `out` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_create(vn_flow_options **out);

/**
 * Destroys flow options. NULL is ignored.
 *
 * \param options the options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_flow_options_destroy(vn_flow_options *options);

/**
 * Sets the gesture distances, in the host's pixels from the press point.
 *
 * \param options the options.
 * \param slide_to_cancel how far left cancels a take; finite, > 0.
 * \param lock how far up locks it; finite, > 0.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for a distance out of range.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_distances(vn_flow_options *options, double slide_to_cancel, double lock);

/**
 * Sets the flow's times.
 *
 * \param options the options.
 * \param minimum_press_s how long the button is held before a take begins; finite, > 0.
 * \param hide_tip_s how long the tip stays shown; finite, ≥ 0.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for a time out of range.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_times(vn_flow_options *options, double minimum_press_s, double hide_tip_s);

/**
 * Sets how many values a take's waveform has in the flow's events (its payload keeps
 * #VN_WAVEFORM_DEFAULT_SAMPLES).
 *
 * \param options the options.
 * \param samples 1…1048576.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG out of range.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_waveform_samples(vn_flow_options *options, size_t samples);

/**
 * Sets whether a sent take waits for vn_flow_confirm() (non-zero, the default) or is published at once.
 *
 * \param options the options.
 * \param required non-zero to wait for confirmation.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_confirmation_required(vn_flow_options *options, int required);

/**
 * Turns toggle mode on or off (off by default), for people who cannot hold a button: a press released before the
 * minimum press starts a locked take, and the next press stops it into preview. A longer press still records while
 * held.
 *
 * \param options the options.
 * \param enabled non-zero for toggle mode.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_toggle_mode(vn_flow_options *options, int enabled);

/**
 * Turns key inputs on or off (off by default: vn_flow_key_down() and vn_flow_key_up() are then ignored). On: the
 * record key is held like the button, Escape cancels, Enter sends.
 *
 * \param options the options.
 * \param enabled non-zero for key inputs.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_key_inputs(vn_flow_options *options, int enabled);

/**
 * Delivers the flow's events through `loop` (vn_event_loop_dispatch() on the host's thread) instead of the event
 * thread.
 *
 * \param options the options.
 * \param loop the loop, or NULL for the event thread. It must outlive the flow.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed loop.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_event_loop(vn_flow_options *options, vn_event_loop *loop);

/**
 * Runs the flow's timers on `clock` instead of the monotonic clock.
 *
 * \param options the options.
 * \param clock a manual clock, or NULL for the monotonic clock.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed clock.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_clock(vn_flow_options *options, vn_manual_clock *clock);

/**
 * Gives the flow a draft key: the id of the conversation it records for. Its takes are then recorded in the drafts
 * directory (they never move), and a small record there names the take by file name, written before the take's
 * first sample (so after a crash, even SIGKILL, at any moment, at most the last half second is lost); vn_flow_park() keeps the take (running or in preview) as the
 * conversation's draft; and the next flow created with this key, in this process or another, restores the draft
 * into #VN_FLOW_PREVIEW (a crashed take is made whole first, as vn_recover() does). Sending or discarding the take
 * removes the draft (a sent take's file is the host's to delete); one draft per key: a new take replaces the one the
 * flow parked. Destroying a flow with a take in preview, or while a take is being stopped (released, stopped,
 * parked, sent), keeps that take as the draft; with a take running and no stop asked, cancels it.
 *
 * One flow at a time holds a key (two windows on one conversation): a take begun while another flow holds it, or
 * while the key has a draft this flow did not park, is recorded in the recorder's directory and is not the draft
 * (#VN_FLOW_EVENT_FAILED with #VN_E_BUSY says so; vn_flow_park() refuses it). The drafts directory must be the
 * user's own: created 0700; one that another user owns or others may write is refused (#VN_E_PERMISSION in a
 * #VN_FLOW_EVENT_FAILED).
 *
 * \param options the options.
 * \param key the conversation's id, 1…100 bytes of UTF-8; NULL for no drafts (the default).
 * \param directory where drafts are kept, or NULL for `$XDG_DATA_HOME/voicenote/drafts`.
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options; #VN_E_INVALID_ARG for a key that is empty, too long
 *          or not UTF-8, or an empty directory.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_draft(vn_flow_options *options, const char *key, const char *directory);

/**
 * Sends every take through an uploader (Matrix, Stream, tus…, as the uploader is made): each take is uploaded while
 * it is recorded, from its first page (vn_uploader_upload_recording()), so when it is sent only its last pages were
 * left to go; a take trimmed in preview, restored from a draft, or begun while the uploader was still busy with the
 * last one is uploaded as its file when it is sent (#VN_FLOW_EVENT_ATTACHMENT_READY), once the uploader's previous
 * upload ended (up to 30 s, on the flow's worker); a take cancelled or discarded has its upload cancelled. The host
 * follows the upload on the uploader's own events (its payload then has the uploaded `asset_url`); an upload the
 * flow could not start is a #VN_FLOW_EVENT_FAILED. The uploader must outlive the flow (destroyed first, the flow's
 * later uploads fail with #VN_E_MISUSE).
 *
 * \param options the options.
 * \param uploader the uploader (its handle is kept, not copied), or NULL for none (the default: the host uploads
 *        the attachment's file).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed uploader.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_uploader(vn_flow_options *options, vn_uploader *uploader);

/**
 * Sends every take through an outbox (vn_outbox_create()): a sent take is copied into it and recorded, synced to
 * disk, on the flow's worker, so from #VN_FLOW_EVENT_ATTACHMENT_READY on it survives a crash, and the outbox sends
 * it (resumed and retried) and hands its payload off on the outbox's events. With an uploader too
 * (vn_flow_options_set_uploader()), a take streamed while it was recorded waits in the outbox as
 * #VN_OUTBOX_HELD while that upload ends: its payload is then the outbox's #VN_OUTBOX_EVENT_UPLOADED, and the outbox
 * sends the file itself only if that upload failed or the process ended first. A take that could not be added is a
 * #VN_FLOW_EVENT_FAILED. The outbox must be started by the host and outlive the flow.
 *
 * \param options the options.
 * \param outbox the outbox (its handle is kept, not copied), or NULL for none (the default).
 * \returns #VN_OK; #VN_E_MISUSE for NULL or destroyed options or a destroyed outbox.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_options_set_outbox(vn_flow_options *options, vn_outbox *outbox);

/**
 * Creates a recording flow over a recorder and a player (the flow begins, stops and cancels takes, and plays
 * previews; a take's beginning stops the player). Both stay the host's and must outlive the flow. With a draft key
 * whose draft can be restored, the draft is read back on the flow's worker: the flow reads #VN_FLOW_IDLE and
 * delivers no view until then, and every subscriber's first view shows it in #VN_FLOW_PREVIEW.
 *
 * \param recorder the recorder.
 * \param player the player.
 * \param options the options, or NULL for the defaults.
 * \param out receives the flow; destroy it with vn_flow_destroy().
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed recorder, player or options; #VN_E_INVALID_ARG when `out`
 *          is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_create(vn_recorder *recorder, vn_player *player, const vn_flow_options *options, vn_flow **out);

/**
 * Destroys a flow: a running take is cancelled (its file deleted), a running trim abandoned (the take as it was),
 * the preview's player stopped, timers cancelled; no callback of the flow runs after this returns. A take in
 * preview, or one being stopped (its end not yet reported), stays on disk and, with a draft key, remains the
 * conversation's draft. With a take running or being stopped it waits for the flow's worker to settle the recorder
 * and the draft record; while a trim runs it returns at once, and the worker abandons the trim (at its next packet)
 * and then lets the draft key go — a new flow with the key waits for it (up to 2 s) before restoring. NULL is
 * ignored.
 *
 * \param flow the flow.
 * \threadsafety Any thread, including inside the flow's own callbacks.
 * \since 0.1.0
 */
void vn_flow_destroy(vn_flow *flow);

/**
 * The button was pressed at (x, y), in the button's coordinates; the gestures are measured from here.
 *
 * \param flow the flow.
 * \param x,y the press point; finite.
 * \returns #VN_OK (also when ignored in this state); #VN_E_MISUSE for a NULL or destroyed flow;
 *          #VN_E_INVALID_ARG for a coordinate that is not finite.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_press(vn_flow *flow, double x, double y);

/**
 * The button was released: a held take is sent, a press shorter than the minimum shows the tip (toggle mode: starts
 * a locked take).
 *
 * \param flow the flow.
 * \returns #VN_OK (also when ignored in this state); #VN_E_MISUSE for a NULL or destroyed flow.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_release(vn_flow *flow);

/**
 * The pointer moved to (x, y) while the button is held: slide left to cancel, up to lock.
 *
 * \param flow the flow.
 * \param x,y the pointer; finite.
 * \returns #VN_OK (also when ignored in this state); #VN_E_MISUSE for a NULL or destroyed flow;
 *          #VN_E_INVALID_ARG for a coordinate that is not finite.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_move(vn_flow *flow, double x, double y);

/**
 * A key went down (with key inputs on; ignored otherwise).
 *
 * \param flow the flow.
 * \param key a #vn_flow_key.
 * \returns #VN_OK (also when ignored); #VN_E_MISUSE for a NULL or destroyed flow; #VN_E_INVALID_ARG for an
 *          unknown key.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_key_down(vn_flow *flow, int key);

/**
 * A key went up (with key inputs on; ignored otherwise).
 *
 * \param flow the flow.
 * \param key a #vn_flow_key.
 * \returns #VN_OK (also when ignored); #VN_E_MISUSE for a NULL or destroyed flow; #VN_E_INVALID_ARG for an
 *          unknown key.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_key_up(vn_flow *flow, int key);

/**
 * Locks a held take (the lock button, or a host's own gesture).
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or outside #VN_FLOW_RECORDING.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_lock(vn_flow *flow);

/**
 * Cancels a take (its file deleted) or discards a preview; does nothing otherwise. The flow is idle on return; the
 * file is deleted on the flow's worker just after, and no event says when.
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_cancel(vn_flow *flow);

/**
 * Stops a take into preview.
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or when no take runs.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_stop(vn_flow *flow);

/**
 * Deletes the take or the preview and goes idle.
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or when there is no take.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_discard(vn_flow *flow);

/**
 * Hands the take to the composer: a running take is stopped first; #VN_FLOW_EVENT_ATTACHMENT_READY follows, then
 * #VN_FLOW_EVENT_PUBLISH when confirmation is not required.
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or when there is no take.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_send(vn_flow *flow);

/**
 * As vn_flow_send(), always followed by #VN_FLOW_EVENT_PUBLISH.
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or when there is no take.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_confirm(vn_flow *flow);

/**
 * Plays the preview (a player failure arrives as #VN_FLOW_EVENT_FAILED; the state stays).
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or outside #VN_FLOW_PREVIEW.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_play(vn_flow *flow);

/**
 * Pauses the preview.
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or outside #VN_FLOW_PREVIEW.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_pause(vn_flow *flow);

/**
 * Moves the preview to `seconds` (clamped to the take).
 *
 * \param flow the flow.
 * \param seconds the position; finite.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or outside #VN_FLOW_PREVIEW; #VN_E_INVALID_ARG for a
 *          time that is not finite.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_seek(vn_flow *flow, double seconds);

/**
 * Starts cutting the previewed take to `start_s … end_s` and returns at once: the cut runs on the flow's worker
 * thread, and #VN_FLOW_EVENT_TRIMMED says when it ended — #VN_OK with the take's new duration, waveform and payload
 * (the preview then shows it, the player reloaded at 0), or a negative status with the take as it was (previewed
 * again). Ogg Opus takes are cut sample-exactly without re-encoding; AAC takes are re-encoded (the new file holds
 * the range plus the encoder's priming and the last frame's padding, at most 2048 samples more; a long take takes
 * seconds). The file is replaced only once the new one is whole, so a crash mid-trim loses nothing.
 *
 * While a trim runs (from this call until #VN_FLOW_EVENT_TRIMMED), the flow stays in #VN_FLOW_PREVIEW and:
 * - vn_flow_trim(), vn_flow_play(), vn_flow_pause() and vn_flow_seek() return #VN_E_MISUSE;
 * - vn_flow_send(), vn_flow_confirm() and vn_flow_park() return #VN_OK and act once the trim ended, on the take as
 *   cut (or as it was, when the trim failed): #VN_FLOW_EVENT_TRIMMED comes first, then what they emit;
 * - vn_flow_discard() and vn_flow_cancel() abandon the trim and delete the take at once (idle; no TRIMMED event);
 * - vn_flow_deactivate() does nothing (the trim stopped the player);
 * - vn_flow_destroy() returns at once; the trim is abandoned on the worker (at its next packet) and the take kept as
 *   it was — with a draft key, as the conversation's draft.
 *
 * \param flow the flow.
 * \param start_s,end_s the range to keep: 0 ≤ start_s < end_s ≤ the take's duration.
 * \returns #VN_OK (the trim started); #VN_E_MISUSE for a NULL or destroyed flow, outside #VN_FLOW_PREVIEW or while
 *          a trim runs; #VN_E_INVALID_ARG for a range outside the take.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_trim(vn_flow *flow, double start_s, double end_s);

/**
 * The view was hidden (the window lost focus, the conversation closed): a take stops into preview, a playing
 * preview pauses.
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_deactivate(vn_flow *flow);

/**
 * The user left the conversation: a running take is stopped, and the take (running or in preview) is kept as the
 * conversation's draft, where it was recorded in the drafts directory; #VN_FLOW_EVENT_PARKED follows and the flow is
 * idle. Destroying the flow at once after this call keeps the take too. Nothing happens while idle.
 *
 * \param flow the flow.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow, or one without a draft key; #VN_E_BUSY when the take
 *          is not the conversation's draft (another flow held the key when it began): it stays in this flow.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_park(vn_flow *flow);

/**
 * Receives one draft from vn_flow_drafts_list().
 *
 * \param user_data the pointer given to vn_flow_drafts_list().
 * \param key the conversation's key.
 * \param path the take's file (a take that was running when its process ended: its `.part`, made whole when a flow
 *        with this key restores it).
 * \param duration_s its length (0 for a take that was running).
 * \threadsafety A hook: runs synchronously on the thread that called vn_flow_drafts_list(); valid during the call.
 * \since 0.1.0
 */
typedef void (*vn_flow_draft_fn)(void *user_data, const char *key, const char *path, double duration_s);

/**
 * Lists the drafts in a drafts directory, by key (records that cannot be read are left out).
 *
 * \param directory the drafts directory, or NULL for the default one.
 * \param callback called once per draft.
 * \param user_data passed to `callback`.
 * \param count receives how many drafts there are; may be NULL.
 * \returns #VN_OK (also when the directory does not exist: no drafts); #VN_E_INVALID_ARG when `callback` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_drafts_list(const char *directory, vn_flow_draft_fn callback, void *user_data, size_t *count);

/**
 * Deletes drafts: their records and the audio they name in the drafts directory (nothing outside it). A record
 * that cannot be read (damaged, a FIFO, too large) is deleted too.
 *
 * \param directory the drafts directory, or NULL for the default one.
 * \param key the conversation's key, or NULL for every draft.
 * \returns #VN_OK (also when there was none); #VN_E_INVALID_ARG for a bad key; file statuses when a record cannot
 *          be deleted (#VN_E_PERMISSION, #VN_E_IO).
 * \threadsafety Any thread; not for a key whose flow exists.
 * \since 0.1.0
 */
int vn_flow_drafts_clear(const char *directory, const char *key);

/**
 * Reads the flow's state.
 *
 * \param flow the flow.
 * \param out_state receives a #vn_flow_state.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow; #VN_E_INVALID_ARG when `out_state` is NULL.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_flow_get_state(vn_flow *flow, int *out_state);

/** Everything a view draws for the flow, as of one event. Pointers are valid during the callback. \since 0.1.0 */
typedef struct vn_flow_view {
    size_t size;                  /**< sizeof(vn_flow_view) as the library knows it. */
    int state;                    /**< A #vn_flow_state. */
    double duration_s;            /**< Seconds recorded (recording, locked) or the take's length (preview). */
    const float *levels;          /**< Recording, locked: the last live levels, oldest first, 0…1. */
    size_t level_count;           /**< How many `levels` (up to 40). */
    double slide_to_cancel_alpha; /**< The "slide to cancel" label's alpha: 1 at the press point, 0 at the
                                       cancel distance. */
    double lock_padding;          /**< The lock's padding in pixels above its resting place. */
    double chevron_alpha;         /**< The chevron's alpha above the lock. */
    int tip_visible;              /**< Non-zero while the tip shows. */
    double preview_position_s;    /**< Preview: where the player is in the take. */
    int preview_playing;          /**< Preview: non-zero while it plays. */
    const float *waveform;        /**< Preview: the take's waveform, 0…1. */
    size_t waveform_count;        /**< How many `waveform` values. */
    double trim_start_s;          /**< Preview: the part that will be sent (0 … duration unless trimmed). */
    double trim_end_s;            /**< Preview: its end. */
    int toggled;                  /**< Non-zero when the take was started in toggle mode (the next press stops
                                       it). */
    const char *accessible_description; /**< What a screen reader says for this view, e.g. "Recording, 0:07,
                                             slide left to cancel, slide up to lock". */
} vn_flow_view;

/** Kinds of flow events. \since 0.1.0 */
typedef enum vn_flow_event_type {
    VN_FLOW_EVENT_VIEW = 0,             /**< The view after a transition or a step. */
    VN_FLOW_EVENT_ATTACHMENT_READY = 1, /**< A take is ready for the composer: path, duration, waveform, payload. */
    VN_FLOW_EVENT_PUBLISH = 2,          /**< The take is to be published (the same fields). */
    VN_FLOW_EVENT_FAILED = 3,           /**< The recorder or the player failed: status and message. */
    VN_FLOW_EVENT_PARKED = 4,           /**< The take was kept as the conversation's draft (vn_flow_park()): path,
                                             duration, waveform, payload; the flow is idle. */
    VN_FLOW_EVENT_TRIMMED = 5,          /**< A trim (vn_flow_trim()) ended. `status` #VN_OK: the take as cut (path,
                                             its new duration, waveform, payload). A negative `status` and
                                             `message`: it failed, and the fields are the take as it was. The
                                             preview (or a send or park asked meanwhile) follows. */
    VN_FLOW_EVENT_TOO_SHORT = 6         /**< The take was dropped as too short: released (or stopped) before any
                                             audio arrived, or shorter than the recorder's minimum. `duration_s`:
                                             the seconds captured. The flow is idle; a client shows the tip ("hold
                                             to record"). */
} vn_flow_event_type;

/** One flow event; valid only during the callback. \since 0.1.0 */
typedef struct vn_flow_event {
    size_t size;              /**< sizeof(vn_flow_event) as the library knows it. */
    int type;                 /**< A #vn_flow_event_type. */
    vn_flow_view view;        /**< VIEW: the view. */
    const char *path;         /**< ATTACHMENT_READY, PUBLISH, PARKED, TRIMMED: the take's file. */
    double duration_s;        /**< ATTACHMENT_READY, PUBLISH, PARKED, TRIMMED: its length; TOO_SHORT: the seconds
                                   captured. */
    const float *waveform;    /**< ATTACHMENT_READY, PUBLISH, PARKED, TRIMMED: its waveform, 0…1. */
    size_t waveform_count;    /**< How many `waveform` values (the options' samples). */
    const char *payload_json; /**< ATTACHMENT_READY, PUBLISH, PARKED, TRIMMED: Stream's `voiceRecording` payload of
                                   the file (`asset_url` its `file://` URL), "" when it could not be read back. */
    int status;               /**< FAILED: a negative status. TRIMMED: #VN_OK, or a negative status when the trim
                                   failed. */
    const char *message;      /**< FAILED, and TRIMMED with a negative status: the detail. */
} vn_flow_event;

/**
 * Receives one flow event.
 *
 * \param user_data the pointer given to vn_flow_subscribe().
 * \param event the event; valid only during the call.
 * \threadsafety Runs on the library's event thread, or inside vn_event_loop_dispatch() when the flow has a loop.
 * \since 0.1.0
 */
typedef void (*vn_flow_event_fn)(void *user_data, const vn_flow_event *event);

/**
 * Subscribes to a flow's events. The current view is delivered first (for a flow restoring its draft: once the
 * draft is in preview), then every event in order.
 *
 * \param flow the flow.
 * \param callback called for each event.
 * \param user_data passed to `callback` and `release`.
 * \param release called once after the last callback; may be NULL.
 * \param out_id receives the id (written before the first callback); may be NULL.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed flow; #VN_E_INVALID_ARG when `callback` is NULL.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_flow_subscribe(vn_flow *flow, vn_flow_event_fn callback, void *user_data, vn_release_fn release,
                      vn_subscription_id *out_id);

/** @} */

/* ------------------------------------------------------------------------------------------------------------------
 * Transcripts: a note's words with their times, recognised on this machine (docs/transcripts.md).
 * ------------------------------------------------------------------------------------------------------------------ */

/** A speech recogniser: PocketSphinx (vn_transcriber_create_pocketsphinx()) or the host's own
 * (vn_transcriber_create_callbacks()); opaque. One recogniser serves any number of transcriptions, also at once.
 * \since 0.1.0 */
typedef struct vn_transcriber vn_transcriber;

/**
 * Makes a PocketSphinx recogniser. PocketSphinx (Debian: `libpocketsphinx3`, with the model `pocketsphinx-en-us`)
 * is opened with dlopen when the first transcription begins, so a host without it keeps every other feature: its
 * transcriptions then fail with #VN_E_UNSUPPORTED naming what to install. Its log goes through vn_log_set_handler().
 *
 * \param model_dir the directory holding the model, laid out as Debian's (`<dir>/<language>/<language>` the
 *        acoustic model, `<dir>/<language>/<language>.lm.bin`, `<dir>/<language>/cmudict-<language>.dict`); NULL
 *        for Debian's `/usr/share/pocketsphinx/model`.
 * \param language the model's name; NULL for `en-us`.
 * \param out receives the recogniser; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL `out`, an empty `model_dir`, or a `language` that is empty or holds
 *          `/`. Nothing is loaded or checked on disk here.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_transcriber_create_pocketsphinx(const char *model_dir, const char *language, vn_transcriber **out);

/** Where a host recogniser puts the words it found (vn_transcript_words_add()); valid during the hook only.
 * \since 0.1.0 */
typedef struct vn_transcript_words vn_transcript_words;

/**
 * Adds a word a host recogniser found, from inside its feed or finish hook.
 *
 * \param words the collection the hook was given.
 * \param text the word (UTF-8, no white space or control characters); copied.
 * \param start_s where it begins, in seconds from the note's start (≥ 0).
 * \param end_s where it ends (≥ `start_s`, ≤ 10000000).
 * \param confidence 0…1 (1 when the recogniser has no measure).
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL or bad `text`, times that are not finite, negative or reversed, or
 *          a confidence outside 0…1 (the word is not added); #VN_E_MISUSE for a NULL `words` or one whose hook has
 *          returned.
 * \threadsafety The thread of the hook that was given `words`.
 * \since 0.1.0
 */
int vn_transcript_words_add(vn_transcript_words *words, const char *text, double start_s, double end_s,
                            double confidence);

/**
 * Begins one note's recognition in a host recogniser.
 *
 * \param user_data the pointer given to vn_transcriber_create_callbacks().
 * \param out_session receives the host's state for this note (passed to feed, finish and end; may stay NULL).
 * \returns #VN_OK, or a negative #vn_status (the transcription fails with it).
 * \threadsafety A hook: runs on the transcription's thread.
 * \since 0.1.0
 */
typedef int (*vn_transcriber_begin_fn)(void *user_data, void **out_session);

/**
 * Gives a host recogniser the note's next samples: mono 16-bit PCM at the rate it asked for.
 *
 * \param user_data the pointer given to vn_transcriber_create_callbacks().
 * \param session what begin set.
 * \param samples the samples; valid during the call.
 * \param count how many.
 * \param words where to add the words recognised so far and not added before (vn_transcript_words_add()).
 * \returns #VN_OK, or a negative #vn_status (the transcription fails with it).
 * \threadsafety A hook: runs on the transcription's thread. It may take its time (the words wait for it), but a
 *               hook that never returns holds that thread forever: vn_transcription_destroy() does not wait for it.
 * \since 0.1.0
 */
typedef int (*vn_transcriber_feed_fn)(void *user_data, void *session, const int16_t *samples, size_t count,
                                      vn_transcript_words *words);

/**
 * Tells a host recogniser the note has ended, to add its last words.
 *
 * \param user_data the pointer given to vn_transcriber_create_callbacks().
 * \param session what begin set.
 * \param words where to add the last words.
 * \returns #VN_OK, or a negative #vn_status (the transcription fails with it).
 * \threadsafety A hook: runs on the transcription's thread.
 * \since 0.1.0
 */
typedef int (*vn_transcriber_finish_fn)(void *user_data, void *session, vn_transcript_words *words);

/**
 * Ends one note's recognition: frees what begin made. Called exactly once per successful begin, whether the note
 * finished, failed or was cancelled.
 *
 * \param user_data the pointer given to vn_transcriber_create_callbacks().
 * \param session what begin set.
 * \threadsafety A hook: runs on the transcription's thread.
 * \since 0.1.0
 */
typedef void (*vn_transcriber_end_fn)(void *user_data, void *session);

/**
 * Makes a recogniser of the host's (whisper.cpp, a server, anything): voicenote decodes each note, brings it to
 * mono 16-bit PCM at `sample_rate` and feeds it in pieces of 0.1 s to the hooks; the words they add are told as
 * they come, kept in the media cache under `identity`, and given to everything else a transcript feeds.
 *
 * One recogniser serves any number of transcriptions at once: the hooks of different notes may run at the same time
 * on different threads with the same `user_data` (each note's own calls come one at a time, in order), so `begin`
 * and whatever the hooks share must be thread-safe. A hook must not wait for another transcription to end. Host
 * recognisers do not take turns with PocketSphinx's (the host knows what its own recogniser can run at once).
 *
 * \param identity names the recogniser and its model (`whisper/base.en`): a transcript kept by another identity is
 *        never served for this one. UTF-8, 1…200 bytes with no control characters, copied.
 * \param sample_rate the rate the hooks take, 8000…48000 Hz.
 * \param begin, feed, finish, end the hooks; all required.
 * \param user_data passed to every hook and to `release`.
 * \param release called once when the recogniser is destroyed and no transcription holds it any more (a transcription
 *        holds it until vn_transcription_destroy()), on whichever thread let it go last; may be NULL.
 * \param out receives the recogniser; set to NULL on failure (then `release` is not called).
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL hook or `out`, a bad `identity` or a `sample_rate` out of range.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_transcriber_create_callbacks(const char *identity, int sample_rate, vn_transcriber_begin_fn begin,
                                    vn_transcriber_feed_fn feed, vn_transcriber_finish_fn finish,
                                    vn_transcriber_end_fn end, void *user_data, vn_release_fn release,
                                    vn_transcriber **out);

/**
 * Destroys a recogniser handle; transcriptions made with it go on with it to their end. NULL is a no-op.
 *
 * \param transcriber the recogniser.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
void vn_transcriber_destroy(vn_transcriber *transcriber);

/** One note's transcription (vn_transcription_create()); opaque. \since 0.1.0 */
typedef struct vn_transcription vn_transcription;

/** A recognised word, as events carry them. Its layout never changes. \since 0.1.0 */
typedef struct vn_transcript_word {
    const char *text;  /**< The word (UTF-8). */
    double start_s;    /**< Where it begins, in seconds from the note's start. */
    double end_s;      /**< Where it ends. */
    double confidence; /**< 0…1. */
} vn_transcript_word;

/** What a transcription event tells. \since 0.1.0 */
typedef enum vn_transcription_event_kind {
    VN_TRANSCRIPTION_EVENT_WORDS = 0,    /**< Words recognised since the last event. */
    VN_TRANSCRIPTION_EVENT_FINISHED = 1, /**< The whole transcript; the last event. */
    VN_TRANSCRIPTION_EVENT_FAILED = 2    /**< The transcription failed (#VN_E_CANCELLED after a cancel); the last. */
} vn_transcription_event_kind;

/** A transcription event. \since 0.1.0 */
typedef struct vn_transcription_event {
    size_t size;                     /**< sizeof(vn_transcription_event) as built by the library. */
    int kind;                        /**< A #vn_transcription_event_kind. */
    const vn_transcript_word *words; /**< WORDS: the new words; FINISHED: every word; else NULL. */
    size_t word_count;               /**< How many `words`. */
    const char *text;                /**< FINISHED: the words joined by spaces; else NULL. */
    int cached;                      /**< FINISHED: 1 when read from the media cache (no audio decoded). */
    int status;                      /**< FAILED: why; else #VN_OK. */
    const char *message;             /**< FAILED: the detail; else NULL. */
    const char *recogniser;          /**< FINISHED: the identity of the recogniser that made it; else NULL. */
} vn_transcription_event;

/**
 * Receives a transcription's events.
 *
 * \param user_data as given to vn_transcription_subscribe().
 * \param event valid during the call only.
 * \threadsafety Runs on the library's event thread, or inside vn_event_loop_dispatch() for a transcription made
 *               with a loop; never on the transcription's thread.
 * \since 0.1.0
 */
typedef void (*vn_transcription_event_fn)(void *user_data, const vn_transcription_event *event);

/**
 * Makes a transcription of a note: a local file's path, a `file://` URL or an http(s) URL (through the media
 * cache, as vn_source_create_url()). Nothing happens until vn_transcription_start(): subscribe first.
 *
 * The note is decoded on the transcription's own thread and fed to the recogniser as it is decoded, so the first
 * words are told before the note is read to its end. The transcript is kept in the media cache (beside a URL's
 * media; under a local file's device, inode, size and modification time) with the recogniser's identity, so a
 * second request for the same note and recogniser is a cache read. At most one note per CPU this process may use is
 * recognised at once (a model takes tens of MB, its work is all CPU): the others wait their turn on their own threads,
 * and a cancel ends that wait at once. A damaged note finishes with the words heard before the damage; a silent one
 * with none: neither is a failure.
 *
 * \param location the note (UTF-8), copied.
 * \param transcriber the recogniser.
 * \param http how a URL is fetched (copied), or NULL for the defaults.
 * \param loop the event loop to deliver events on, or NULL for the library's event thread.
 * \param out receives the transcription; set to NULL on failure.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL `out` or a location that is no location; #VN_E_UNSUPPORTED for a
 *          scheme voicenote does not fetch; #VN_E_MISUSE for a NULL or destroyed `transcriber`, `http` or `loop`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_transcription_create(const char *location, vn_transcriber *transcriber, const vn_http_options *http,
                            vn_event_loop *loop, vn_transcription **out);

/**
 * Subscribes to a transcription's events (as every object's subscriptions: vn_unsubscribe(), `release`).
 *
 * \param transcription the transcription.
 * \param callback receives each event.
 * \param user_data passed to `callback` and `release`.
 * \param release called once after the last callback; may be NULL.
 * \param out_id receives the subscription's id; may be NULL.
 * \returns #VN_OK; #VN_E_INVALID_ARG for a NULL `callback`; #VN_E_MISUSE for a NULL or destroyed transcription.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_transcription_subscribe(vn_transcription *transcription, vn_transcription_event_fn callback, void *user_data,
                               vn_release_fn release, vn_subscription_id *out_id);

/**
 * Starts the transcription on its own thread; returns at once.
 *
 * \param transcription the transcription.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed transcription, or one started before; #VN_E_NOMEM when its
 *          thread cannot start.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_transcription_start(vn_transcription *transcription);

/**
 * Cancels the transcription: it ends at its next piece of audio (or when a host hook returns) with a FAILED event
 * of #VN_E_CANCELLED, and keeps nothing. Nothing happens once it has ended.
 *
 * \param transcription the transcription.
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed transcription.
 * \threadsafety Any thread, also inside its own callback.
 * \since 0.1.0
 */
int vn_transcription_cancel(vn_transcription *transcription);

/**
 * Waits for the transcription's end and gives its transcript as JSON: `{"recogniser", "text", "words": [{"text",
 * "start", "end", "confidence"}]}` (times in seconds).
 *
 * \param transcription the transcription (started).
 * \param timeout_ms how long to wait at most; negative waits as long as it takes.
 * \param out_json receives the JSON, to free with vn_free(); NULL unless #VN_OK.
 * \returns #VN_OK; #VN_E_BUSY when the timeout passed first; the failure's status when it failed (its message in
 *          vn_last_error_message()); #VN_E_MISUSE for a NULL or destroyed transcription, or one not started;
 *          #VN_E_INVALID_ARG for a NULL `out_json`.
 * \threadsafety Any thread, but not inside the transcription's own callback.
 * \since 0.1.0
 */
int vn_transcription_wait(vn_transcription *transcription, int timeout_ms, char **out_json);

/**
 * Seeks a player to a word of a transcript, 50 ms before its start (PocketSphinx's boundaries fall inside a
 * consonant's attack; a seek exactly to the start could clip its first sound), as vn_player_seek().
 *
 * \param player the player (the note of the transcript loaded).
 * \param word the word, from an event or a transcript the host holds.
 * \returns as vn_player_seek(); #VN_E_INVALID_ARG for a NULL `word` or a start that is not finite or negative.
 * \threadsafety Any thread, including inside callbacks.
 * \since 0.1.0
 */
int vn_player_seek_to_word(vn_player *player, const vn_transcript_word *word);

/**
 * The transcript a payload carries in its extra data (`voicenote_transcript`; from a Matrix content, its
 * `org.voicenote.transcript`), as the JSON of vn_transcription_wait(): a receiver without a recogniser reads the
 * note and seeks to a word with it.
 *
 * \param payload the payload.
 * \param out_json receives the JSON, to free with vn_free(); NULL unless #VN_OK.
 * \returns #VN_OK; #VN_E_NOT_FOUND when the payload carries none, or one that is not a well-formed transcript (a
 *          stranger's payload is checked word by word); #VN_E_MISUSE for a NULL or destroyed payload;
 *          #VN_E_INVALID_ARG for a NULL `out_json`.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_copy_transcript(const vn_payload *payload, char **out_json);

/**
 * Sets the transcript a payload carries (extra data `voicenote_transcript`). vn_payload_to_matrix_content() then
 * puts its text in the content's `body` fallback ("Voice message: " and the text, unless a body is given) and in
 * MSC1767's `org.matrix.msc1767.text`, and its words with their times (integers of milliseconds) in
 * `org.voicenote.transcript` — all within 60,000 bytes (Matrix refuses larger events): when the words do not fit the
 * text goes alone, and a text too long is cut at a word and ended with "…".
 *
 * \param payload the payload.
 * \param transcript_json the JSON of vn_transcription_wait() (or NULL to remove it).
 * \returns #VN_OK; #VN_E_MISUSE for a NULL or destroyed payload; #VN_E_FORMAT for JSON that is not a transcript
 *          (a word with spaces, times reversed, a confidence outside 0…1, more than 36000 words);
 *          #VN_E_TOO_LARGE when the payload would pass 1 MiB.
 * \threadsafety Any thread.
 * \since 0.1.0
 */
int vn_payload_set_transcript(vn_payload *payload, const char *transcript_json);

/**
 * Cancels the transcription and destroys it: no callback runs after this returns (a callback running on another
 * thread is waited for). It does not wait for a host hook that blocks; the thread ends when the hook returns.
 * NULL is a no-op.
 *
 * \param transcription the transcription.
 * \threadsafety Any thread, also inside its own callback.
 * \since 0.1.0
 */
void vn_transcription_destroy(vn_transcription *transcription);

#ifdef __cplusplus
}
#endif

#endif /* VOICENOTE_H */
