/* Per-thread last error text: C11 thread-local storage, which Swift cannot declare. */
#include "cshims.h"
#include <string.h>

static _Thread_local char last_error[1024];

void vnshim_set_last_error(const char *message) {
    if (message == NULL) message = "";
    size_t n = strlen(message);
    if (n >= sizeof last_error) n = sizeof last_error - 1;
    memcpy(last_error, message, n);
    last_error[n] = '\0';
}

const char *vnshim_last_error(void) { return last_error; }
