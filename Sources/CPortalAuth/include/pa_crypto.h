#ifndef PA_CRYPTO_H
#define PA_CRYPTO_H
/* OpenSSL's libcrypto for portal-auth, loaded with dlopen on first use (like libcurl):
 * random bytes, SHA-256, and the version. PKCS#12 helpers join these with the network-credential work. */
#include <stddef.h>

/* Loads libcrypto.so.3 once (thread-safe). Returns 0, or -1 with a reason in err. */
int pa_crypto_load(char *err, size_t errlen);
/* Fills buf with n cryptographically secure random bytes (RAND_bytes). Returns 0 on success. */
int pa_crypto_random(unsigned char *buf, size_t n);
/* SHA-256 of data into out[32]. Returns 0 on success. */
int pa_crypto_sha256(const unsigned char *data, size_t n, unsigned char *out);
/* "OpenSSL 3.0.x ..." once loaded, else NULL. */
const char *pa_crypto_version(void);
#endif
