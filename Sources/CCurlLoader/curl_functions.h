/* Every non-variadic libcurl function voicenote calls, written once: an X-macro list included by curl_loader.c with
 * VNCURL / VNCURL_VOID defined for each use (pointer, symbol table, trampoline).
 *   VNCURL(return type, name, (parameters), (arguments))
 *   VNCURL_VOID(name, (parameters), (arguments))        for functions returning void
 * The trampolines are definitions of the functions curl.h declares, so the compiler checks each line against
 * libcurl's prototype. The variadic ones (curl_easy_setopt, curl_easy_getinfo) are resolved in
 * curl_loader.c and reached through the typed vnshim_curl_* functions of curl_loader.h. */

VNCURL(CURLcode, curl_global_init, (long flags), (flags))
VNCURL(CURL *, curl_easy_init, (void), ())
VNCURL_VOID(curl_easy_cleanup, (CURL *curl), (curl))
VNCURL(const char *, curl_easy_strerror, (CURLcode code), (code))
VNCURL(CURLM *, curl_multi_init, (void), ())
VNCURL(CURLMcode, curl_multi_cleanup, (CURLM *multi), (multi))
VNCURL(CURLMcode, curl_multi_add_handle, (CURLM *multi, CURL *curl), (multi, curl))
VNCURL(CURLMcode, curl_multi_remove_handle, (CURLM *multi, CURL *curl), (multi, curl))
VNCURL(CURLMcode, curl_multi_perform, (CURLM *multi, int *running_handles), (multi, running_handles))
VNCURL(CURLMcode, curl_multi_poll,
       (CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms, int *ret),
       (multi, extra_fds, extra_nfds, timeout_ms, ret))
VNCURL(CURLMcode, curl_multi_wakeup, (CURLM *multi), (multi))
VNCURL(CURLcode, curl_easy_pause, (CURL *handle, int bitmask), (handle, bitmask))
VNCURL(CURLU *, curl_url, (void), ())
VNCURL_VOID(curl_url_cleanup, (CURLU *handle), (handle))
VNCURL(CURLUcode, curl_url_set, (CURLU *handle, CURLUPart what, const char *part, unsigned int flags),
       (handle, what, part, flags))
VNCURL(CURLUcode, curl_url_get, (CURLU *handle, CURLUPart what, char **part, unsigned int flags),
       (handle, what, part, flags))
VNCURL_VOID(curl_free, (void *p), (p))
VNCURL(CURLMsg *, curl_multi_info_read, (CURLM *multi, int *msgs_in_queue), (multi, msgs_in_queue))
VNCURL(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *data), (list, data))
VNCURL_VOID(curl_slist_free_all, (struct curl_slist *list), (list))
VNCURL(curl_mime *, curl_mime_init, (CURL *easy), (easy))
VNCURL_VOID(curl_mime_free, (curl_mime *mime), (mime))
VNCURL(curl_mimepart *, curl_mime_addpart, (curl_mime *mime), (mime))
VNCURL(CURLcode, curl_mime_name, (curl_mimepart *part, const char *name), (part, name))
VNCURL(CURLcode, curl_mime_filename, (curl_mimepart *part, const char *filename), (part, filename))
VNCURL(CURLcode, curl_mime_type, (curl_mimepart *part, const char *mimetype), (part, mimetype))
VNCURL(CURLcode, curl_mime_data_cb,
       (curl_mimepart *part, curl_off_t datasize, curl_read_callback readfunc, curl_seek_callback seekfunc,
        curl_free_callback freefunc, void *arg),
       (part, datasize, readfunc, seekfunc, freefunc, arg))
