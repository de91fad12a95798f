#ifndef CPORTALAUTH_H
#define CPORTALAUTH_H
/* C shims of portal-auth. Each part lives in its own header and .c file:
 *   pa_curl.h    libcurl, loaded with dlopen on first use; typed wrappers for variadic calls
 *   pa_crypto.h  libcrypto (OpenSSL), loaded with dlopen on first use: random, SHA-256, PKCS#12
 *   pa_gss.h     GSS-API (MIT Kerberos), loaded with dlopen on first use: tickets for Negotiate
 *   pa_secret.h  libsecret: the portal-auth SecretSchema and GHashTable helpers
 *   pa_spawn.h   child processes that inherit exactly three descriptors (browser, tests)
 *   pa_process.h core dumps off for a process that holds secrets
 *   pa_exec.h    the signal guard of `portal-auth exec`: signals passed on, the private folder removed
 *   pa_dl.h      the dlopen/dlsym helper the curl, crypto and gss loaders share
 */
#include "pa_curl.h"
#include "pa_crypto.h"
#include "pa_gss.h"
#include "pa_secret.h"
#include "pa_spawn.h"
#include "pa_process.h"
#include "pa_exec.h"
/* (Listed so the module is whole; Swift has no use for it.) */
#include "pa_dl.h"
#endif
