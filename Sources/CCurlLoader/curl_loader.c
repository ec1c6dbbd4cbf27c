/* libcurl on demand: dlopen of libcurl.so.4 the first time voicenote touches a URL, a trampoline for each libcurl
 * function Swift calls and typed entries for the variadic ones. Linking libcurl made every process that loads
 * libvoicenote.so also load libcurl and its ~30 dependencies (TLS, Kerberos, LDAP, ...). */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "curl_loader.h"
#include "lazy_library.h"
#include "sockets.h"

/* Never in the dynamic symbol table: a host that links libcurl itself keeps its own functions. */
#define VNCURL_HIDDEN __attribute__((visibility("hidden")))

/* libcurl's SONAME has been 4 since 2006 (7.16); Debian's libcurl4 (OpenSSL) provides it. */
static const char *const vncurl_sonames[] = {"libcurl.so.4"};

#define VNCURL(type, name, parameters, arguments) static type(*vncurl_##name) parameters;
#define VNCURL_VOID(name, parameters, arguments) static void(*vncurl_##name) parameters;
#include "curl_functions.h"
#undef VNCURL
#undef VNCURL_VOID
static CURLcode (*vncurl_curl_easy_setopt)(CURL *, CURLoption, ...);
static CURLcode (*vncurl_curl_easy_getinfo)(CURL *, CURLINFO, ...);

static const vnshim_lazy_symbol vncurl_symbols[] = {
#define VNCURL(type, name, parameters, arguments) {0, #name, (void **)&vncurl_##name},
#define VNCURL_VOID(name, parameters, arguments) {0, #name, (void **)&vncurl_##name},
#include "curl_functions.h"
#undef VNCURL
#undef VNCURL_VOID
    {0, "curl_easy_setopt", (void **)&vncurl_curl_easy_setopt},
    {0, "curl_easy_getinfo", (void **)&vncurl_curl_easy_getinfo},
};

static pthread_once_t vncurl_once = PTHREAD_ONCE_INIT;
static int vncurl_status = -1;               /* written once, inside vncurl_once */
static atomic_int vncurl_ready;
static char vncurl_message[512] = "libcurl was not loaded";
static _Thread_local unsigned long vncurl_calls_on_thread;

/* Runs once: opens libcurl, resolves every function and initialises it (curl_global_init is not thread-safe, so it
 * runs here, under the once). */
static void vncurl_load_once(void) {
    size_t count = sizeof vncurl_symbols / sizeof vncurl_symbols[0];
    if (vnshim_lazy_load("libcurl", vncurl_sonames, 1, vncurl_symbols, count, vncurl_message,
                         sizeof vncurl_message) != 0)
        return;
    CURLcode initialised = vncurl_curl_global_init(CURL_GLOBAL_ALL);
    if (initialised != CURLE_OK) {
        snprintf(vncurl_message, sizeof vncurl_message, "libcurl could not be initialised: %s",
                 vncurl_curl_easy_strerror(initialised));
        return;
    }
    vncurl_status = 0;
    atomic_store_explicit(&vncurl_ready, 1, memory_order_release);
}

int vnshim_curl_load(const char **message) {
    vncurl_calls_on_thread++;
    pthread_once(&vncurl_once, vncurl_load_once);
    if (message) *message = vncurl_message;
    return vncurl_status;
}

int vnshim_curl_loaded(void) { return atomic_load_explicit(&vncurl_ready, memory_order_acquire); }

unsigned long vnshim_curl_load_calls_on_thread(void) { return vncurl_calls_on_thread; }

/* A trampoline reached before a successful load is a bug in voicenote: stopped, named (vnshim_lazy_not_loaded). */
#define VNCURL_NOT_LOADED(name) vnshim_lazy_not_loaded("libcurl", name, "vnshim_curl_load")

#define VNCURL_REQUIRE(name) \
    if (__builtin_expect(vncurl_##name == NULL, 0)) VNCURL_NOT_LOADED(#name)

#define VNCURL(type, name, parameters, arguments) \
    VNCURL_HIDDEN type name parameters {          \
        VNCURL_REQUIRE(name);                     \
        return vncurl_##name arguments;           \
    }
#define VNCURL_VOID(name, parameters, arguments) \
    VNCURL_HIDDEN void name parameters {         \
        VNCURL_REQUIRE(name);                    \
        vncurl_##name arguments;                 \
    }
#include "curl_functions.h"
#undef VNCURL
#undef VNCURL_VOID

CURLcode vnshim_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    VNCURL_REQUIRE(curl_easy_setopt);
    return vncurl_curl_easy_setopt(curl, option, value);
}

CURLcode vnshim_curl_setopt_pointer(CURL *curl, CURLoption option, const void *value) {
    VNCURL_REQUIRE(curl_easy_setopt);
    return vncurl_curl_easy_setopt(curl, option, value);
}

CURLcode vnshim_curl_setopt_write_callback(CURL *curl, CURLoption option, curl_write_callback callback) {
    VNCURL_REQUIRE(curl_easy_setopt);
    return vncurl_curl_easy_setopt(curl, option, callback);
}

CURLcode vnshim_curl_setopt_read_callback(CURL *curl, CURLoption option, curl_read_callback callback) {
    VNCURL_REQUIRE(curl_easy_setopt);
    return vncurl_curl_easy_setopt(curl, option, callback);
}

CURLcode vnshim_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value) {
    VNCURL_REQUIRE(curl_easy_setopt);
    return vncurl_curl_easy_setopt(curl, option, value);
}

CURLcode vnshim_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    VNCURL_REQUIRE(curl_easy_getinfo);
    return vncurl_curl_easy_getinfo(curl, info, value);
}

CURLcode vnshim_curl_setopt_blob(CURL *curl, CURLoption option, const void *data, size_t length) {
    VNCURL_REQUIRE(curl_easy_setopt);
    struct curl_blob blob = {(void *)data, length, CURL_BLOB_COPY};
    return vncurl_curl_easy_setopt(curl, option, &blob);
}

CURLcode vnshim_curl_track_sockets(CURL *curl) {
    VNCURL_REQUIRE(curl_easy_setopt);
    CURLcode code = vncurl_curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, vnsock_opened);
    if (code != CURLE_OK) return code;
    return vncurl_curl_easy_setopt(curl, CURLOPT_CLOSESOCKETFUNCTION, vnsock_closed);
}

CURLcode vnshim_curl_getinfo_string(CURL *curl, CURLINFO info, const char **value) {
    VNCURL_REQUIRE(curl_easy_getinfo);
    *value = NULL;
    char *text = NULL;
    CURLcode code = vncurl_curl_easy_getinfo(curl, info, &text);
    *value = text;
    return code;
}

