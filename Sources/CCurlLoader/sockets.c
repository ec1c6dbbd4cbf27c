/* The sockets libcurl opens for voicenote, tracked so the network loop can ask the kernel how much of a transfer's
 * request body still waits in its connection's send queue (libcurl gives a transfer's socket only once it is over:
 * CURLINFO_ACTIVESOCKET). A connection reused by a later transfer is found again by its ports. */
#include <errno.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "curl_loader.h"
#include "sockets.h"

/* At most this many sockets are tracked at once (libcurl's connection cache keeps far fewer); more are opened and
 * used as ever, just not found by vnshim_curl_unsent_bytes. */
#define VNSOCK_MAX 512

static pthread_mutex_t vnsock_lock = PTHREAD_MUTEX_INITIALIZER;
static int vnsock_open[VNSOCK_MAX];
static int vnsock_count;

curl_socket_t vnsock_opened(void *unused, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)unused;
    (void)purpose;
    int fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd < 0) return CURL_SOCKET_BAD;
    pthread_mutex_lock(&vnsock_lock);
    if (vnsock_count < VNSOCK_MAX) vnsock_open[vnsock_count++] = fd;
    pthread_mutex_unlock(&vnsock_lock);
    return fd;
}

int vnsock_closed(void *unused, curl_socket_t fd) {
    (void)unused;
    pthread_mutex_lock(&vnsock_lock);
    for (int i = 0; i < vnsock_count; i++) {
        if (vnsock_open[i] == fd) {
            vnsock_open[i] = vnsock_open[--vnsock_count];
            break;
        }
    }
    pthread_mutex_unlock(&vnsock_lock); /* before close: a new socket may take the number at once */
    return close(fd);
}

/* The port of a socket address (IPv4 or IPv6), or -1. */
static long vnsock_port(const struct sockaddr_storage *address) {
    if (address->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)address)->sin_port);
    if (address->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    return -1;
}

int vnshim_curl_unsent_bytes(CURL *curl) {
    long local = 0, remote = 0;
    if (vnshim_curl_getinfo_long(curl, CURLINFO_LOCAL_PORT, &local) != CURLE_OK || local <= 0) return -1;
    if (vnshim_curl_getinfo_long(curl, CURLINFO_PRIMARY_PORT, &remote) != CURLE_OK || remote <= 0) return -1;
    int unsent = -1;
    pthread_mutex_lock(&vnsock_lock);
    for (int i = 0; i < vnsock_count && unsent < 0; i++) {
        struct sockaddr_storage mine, theirs;
        socklen_t mine_size = sizeof mine, theirs_size = sizeof theirs;
        int fd = vnsock_open[i];
        if (getsockname(fd, (struct sockaddr *)&mine, &mine_size) != 0 || vnsock_port(&mine) != local) continue;
        if (getpeername(fd, (struct sockaddr *)&theirs, &theirs_size) != 0 || vnsock_port(&theirs) != remote) continue;
        int queued = 0;
        if (ioctl(fd, SIOCOUTQ, &queued) == 0) unsent = queued;
    }
    pthread_mutex_unlock(&vnsock_lock);
    return unsent;
}
