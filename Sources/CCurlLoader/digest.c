/* SHA-256 from OpenSSL's libcrypto, the TLS library libcurl already brought into the process (Debian's libcurl4 is
 * built on OpenSSL 3): opened on first use through the same lazy loader, never linked. The media cache keys a
 * download made with credentials by a digest of them, so no secret is written to disk. */
#include <pthread.h>
#include <stddef.h>

#include "curl_loader.h"
#include "lazy_library.h"

/* OpenSSL 3's SONAME; EVP_Digest and EVP_sha256 are its stable one-shot digest API. */
static const char *const vndigest_sonames[] = {"libcrypto.so.3"};

static int (*vndigest_EVP_Digest)(const void *data, size_t count, unsigned char *md, unsigned int *size,
                                  const void *type, void *engine);
static const void *(*vndigest_EVP_sha256)(void);

static const vnshim_lazy_symbol vndigest_symbols[] = {
    {0, "EVP_Digest", (void **)&vndigest_EVP_Digest},
    {0, "EVP_sha256", (void **)&vndigest_EVP_sha256},
};

static pthread_once_t vndigest_once = PTHREAD_ONCE_INIT;
static int vndigest_status = -1; /* written once, inside vndigest_once */
static char vndigest_message[256];

static void vndigest_load_once(void) {
    vndigest_status = vnshim_lazy_load("libcrypto", vndigest_sonames, 1, vndigest_symbols,
                                       sizeof vndigest_symbols / sizeof vndigest_symbols[0], vndigest_message,
                                       sizeof vndigest_message);
}

int vnshim_sha256(const void *data, size_t count, unsigned char out[32]) {
    pthread_once(&vndigest_once, vndigest_load_once);
    if (vndigest_status != 0) return -1;
    unsigned int size = 0;
    if (vndigest_EVP_Digest(data, count, out, &size, vndigest_EVP_sha256(), NULL) != 1 || size != 32) return -1;
    return 0;
}
