#include "pa_crypto.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef struct evp_md_st EVP_MD;
typedef struct engine_st ENGINE;

static struct {
    int (*rand_bytes)(unsigned char *, int);
    const EVP_MD *(*evp_sha256)(void);
    int (*evp_digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *);
    const char *(*version)(int);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status = -1;
static char error[512];

#define RESOLVE(field, name)                                                      \
    do {                                                                          \
        *(void **)(&api.field) = dlsym(lib, name);                                \
        if (!api.field) { snprintf(error, sizeof error, "libcrypto lacks %s", name); return; } \
    } while (0)

static void load(void) {
    void *lib = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(error, sizeof error, "%s", e ? e : "libcrypto.so.3 not found");
        return;
    }
    RESOLVE(rand_bytes, "RAND_bytes");
    RESOLVE(evp_sha256, "EVP_sha256");
    RESOLVE(evp_digest, "EVP_Digest");
    RESOLVE(version, "OpenSSL_version");
    status = 0;
}

int pa_crypto_load(char *err, size_t errlen) {
    pthread_once(&once, load);
    if (status != 0 && err && errlen) snprintf(err, errlen, "%s", error);
    return status;
}

int pa_crypto_random(unsigned char *buf, size_t n) {
    if (pa_crypto_load(NULL, 0) != 0) return -1;
    while (n > 0) {
        int chunk = n > (1 << 20) ? (1 << 20) : (int)n;
        if (api.rand_bytes(buf, chunk) != 1) return -1;
        buf += chunk;
        n -= (size_t)chunk;
    }
    return 0;
}

int pa_crypto_sha256(const unsigned char *data, size_t n, unsigned char *out) {
    if (pa_crypto_load(NULL, 0) != 0) return -1;
    unsigned int len = 0;
    return api.evp_digest(data, n, out, &len, api.evp_sha256(), NULL) == 1 && len == 32 ? 0 : -1;
}

const char *pa_crypto_version(void) {
    return status == 0 ? api.version(0) : NULL;
}
