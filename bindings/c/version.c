/*
 * version.c: the first voicenote sample.
 *
 * What it shows:
 * - Checking at run time that the library you loaded is the one your header describes: vn_version_string() and
 *   vn_version_number() against VN_VERSION_STRING and VN_VERSION_NUMBER. (This sample wants them equal, so it
 *   catches an install whose header and library disagree. An application would accept a newer library of the
 *   same major version: vn_version_number() >= VN_VERSION_NUMBER and the same major.)
 * - How voicenote reports an error: the call returns a negative vn_status; vn_status_name() gives its symbol,
 *   vn_strerror() a short description (both static text), and vn_last_error_message() this thread's detail for
 *   the call that just failed. Here the failing call passes a NULL handle, which is VN_E_MISUSE.
 *
 * Build:  cc version.c $(pkg-config --cflags --libs voicenote) -o version
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(version PRIVATE voicenote::voicenote)
 * Exit status: 0 when the versions agree and the error path returned VN_E_MISUSE with a detail message; else 1.
 */
#include <stdio.h>
#include <string.h>

#include <voicenote.h>

int main(void) {
    int ok = 1;

    const char *version = vn_version_string();
    int number = vn_version_number();
    printf("voicenote %s (number %d); compiled against %s (number %d)\n", version, number, VN_VERSION_STRING,
           VN_VERSION_NUMBER);
    if (strcmp(version, VN_VERSION_STRING) != 0 || number != VN_VERSION_NUMBER) {
        fprintf(stderr, "version mismatch: the library is %s (%d), the header %s (%d)\n", version, number,
                VN_VERSION_STRING, VN_VERSION_NUMBER);
        ok = 0;
    }

    /* An error on purpose: a NULL handle. */
    int status = vn_test_source_start(NULL, 1, 0);
    printf("vn_test_source_start(NULL, 1, 0) = %d %s: %s\n", status, vn_status_name(status), vn_strerror(status));
    printf("  detail: %s\n", vn_last_error_message());
    if (status != VN_E_MISUSE) {
        fprintf(stderr, "expected VN_E_MISUSE (%d), got %d\n", VN_E_MISUSE, status);
        ok = 0;
    }
    if (vn_last_error_message()[0] == '\0') {
        fprintf(stderr, "expected a detail message after a failed call\n");
        ok = 0;
    }

    return ok ? 0 : 1;
}
