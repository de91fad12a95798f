#ifndef PA_DL_H
#define PA_DL_H
/* Loading a library on first use: libcurl (curl.c), libcrypto (crypto.c), libgssapi_krb5 (gss.c).
 *
 * None of them is linked, so a command that does not use one never pays for loading it. Each .c
 * file keeps a table of function pointers, fills it once (pthread_once) with pa_dl_open and
 * PA_RESOLVE, and reports the first failure as text. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/* A library being loaded: its handle, its name for messages, and where a failure is described. */
typedef struct {
    void *handle;
    const char *library;
    char *error;
    size_t error_size;
} pa_dl;

/* Opens the first of `names` (NULL-terminated) that loads (RTLD_NOW | RTLD_LOCAL). On failure
 * writes `missing`, or dlerror()'s text when `missing` is NULL, to dl->error and returns -1. */
static inline int pa_dl_open(pa_dl *dl, const char *const names[], const char *missing) {
    for (size_t i = 0; names[i] && !dl->handle; i++) dl->handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (dl->handle) return 0;
    const char *reason = dlerror();
    snprintf(dl->error, dl->error_size, "%s", missing ? missing : (reason ? reason : "not found"));
    return -1;
}

/* Resolves `name` into *slot. On failure writes "<library> lacks <name>" to dl->error and returns -1. */
static inline int pa_dl_symbol(pa_dl *dl, void **slot, const char *name) {
    *slot = dlsym(dl->handle, name);
    if (*slot) return 0;
    snprintf(dl->error, dl->error_size, "%s lacks %s", dl->library, name);
    return -1;
}

/* In a loader that returns void: resolves `name` into the function pointer `field`, or returns. */
#define PA_RESOLVE(dl, field, name)                                  \
    do {                                                             \
        if (pa_dl_symbol((dl), (void **)&(field), (name)) != 0) return; \
    } while (0)

#endif
