/* libcurl's headers only: CCurlLoader opens libcurl with dlopen on first use, so nothing links it. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
