/* CCurlLoader: libcurl opened with dlopen on first use, not linked (ARCHITECTURE.md, "Heavy libraries are loaded
 * lazily"): libcurl pulls about 30 shared objects, and a process that never touches a URL must not load them. The
 * non-variadic functions voicenote calls are hidden trampolines with libcurl's own prototypes (curl_functions.h);
 * the variadic ones, which Swift cannot call, are reached through the typed functions below.
 * Nothing here is public: the trampolines are hidden and the version script exports vn_* alone. */
#ifndef VOICENOTE_CURL_LOADER_H
#define VOICENOTE_CURL_LOADER_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/** Loads libcurl (libcurl.so.4), resolves every function voicenote calls and runs curl_global_init. The first call
 *  does the work, once per process (pthread_once); later calls return its outcome. Any thread.
 *  \param message on failure, receives static text naming what is missing (NULL is fine).
 *  \returns 0 when libcurl is ready, -1 when it cannot be loaded (and never will be in this process). */
int vnshim_curl_load(const char **message);

/** 1 once vnshim_curl_load has succeeded in this process, else 0. Does not load. Any thread. */
int vnshim_curl_loaded(void);

/** curl_easy_setopt with a long (CURLOPTTYPE_LONG options). */
CURLcode vnshim_curl_setopt_long(CURL *curl, CURLoption option, long value);
/** curl_easy_setopt with a pointer: a string (copied by libcurl), a curl_slist, or user data. */
CURLcode vnshim_curl_setopt_pointer(CURL *curl, CURLoption option, const void *value);
/** curl_easy_setopt of CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION. */
CURLcode vnshim_curl_setopt_write_callback(CURL *curl, CURLoption option, curl_write_callback callback);
/** curl_easy_setopt of CURLOPT_READFUNCTION. */
CURLcode vnshim_curl_setopt_read_callback(CURL *curl, CURLoption option, curl_read_callback callback);
/** curl_easy_setopt with a curl_off_t (CURLOPTTYPE_OFF_T options, e.g. CURLOPT_POSTFIELDSIZE_LARGE). */
CURLcode vnshim_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value);
/** curl_easy_setopt of a blob option (CURLOPT_CAINFO_BLOB…): libcurl copies the `length` bytes at `data`. */
CURLcode vnshim_curl_setopt_blob(CURL *curl, CURLoption option, const void *data, size_t length);
/** curl_easy_getinfo of a long (CURLINFO_LONG). */
CURLcode vnshim_curl_getinfo_long(CURL *curl, CURLINFO info, long *value);
/** Makes libcurl open and close this handle's sockets through voicenote (CURLOPT_OPENSOCKETFUNCTION and
 *  CURLOPT_CLOSESOCKETFUNCTION: the same socket(2) and close(2), close-on-exec), which keeps the set of open ones,
 *  so vnshim_curl_unsent_bytes can find a transfer's connection (libcurl tells it only once a transfer is over). */
CURLcode vnshim_curl_track_sockets(CURL *curl);

/** The bytes the handle's current connection has queued that the peer has not acknowledged yet (SIOCOUTQ): a
 *  request body libcurl handed over may wait there, draining, longer than a stall timeout on a slow uplink. The
 *  connection is the tracked socket whose local and peer ports are the handle's (CURLINFO_LOCAL_PORT,
 *  CURLINFO_PRIMARY_PORT). -1 when it cannot be told. Any thread. */
int vnshim_curl_unsent_bytes(CURL *curl);

/** curl_easy_getinfo of a string (CURLINFO_STRING): `*value` is libcurl's, valid until the handle changes, or NULL. */
CURLcode vnshim_curl_getinfo_string(CURL *curl, CURLINFO info, const char **value);

/** The SHA-256 of `count` bytes at `data` into `out`, through OpenSSL's libcrypto (opened on first use; any
 *  thread). \returns 0, or -1 when libcrypto cannot be loaded (then `out` is untouched). */
int vnshim_sha256(const void *data, size_t count, unsigned char out[32]);

/** How many times the calling thread has called vnshim_curl_load: lets a test prove a code path never asks for
 *  libcurl. */
unsigned long vnshim_curl_load_calls_on_thread(void);

#endif
