/* File system calls that Glibc's Swift module does not import. */
#define _GNU_SOURCE
#include "cshims.h"
#include <fcntl.h>
#include <stdio.h>

int vnshim_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}
