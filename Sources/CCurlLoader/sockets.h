/* sockets.c's callbacks, which curl_loader.c installs (vnshim_curl_track_sockets): internal to CCurlLoader. */
#ifndef VOICENOTE_CURL_SOCKETS_H
#define VOICENOTE_CURL_SOCKETS_H

#include "curl_loader.h"

/** CURLOPT_OPENSOCKETFUNCTION: socket(2), close-on-exec, remembered. */
__attribute__((visibility("hidden"))) curl_socket_t vnsock_opened(void *unused, curlsocktype purpose,
                                                                  struct curl_sockaddr *address);
/** CURLOPT_CLOSESOCKETFUNCTION: forgotten, then close(2). */
__attribute__((visibility("hidden"))) int vnsock_closed(void *unused, curl_socket_t fd);

#endif
