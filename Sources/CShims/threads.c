/* Linux calls that Glibc's Swift module does not import. */
#define _GNU_SOURCE
#include "cshims.h"
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/eventfd.h>

int vnshim_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void vnshim_set_thread_name(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = '\0';
    pthread_setname_np(pthread_self(), short_name);
}

int vnshim_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    int count = CPU_COUNT(&set);
    return count > 0 ? count : 1;
}
