#ifndef PA_CRYPTO_H
#define PA_CRYPTO_H
/* OpenSSL's libcrypto for portal-auth, loaded with dlopen on first use (like libcurl): random
 * bytes, SHA-256, the version, and reading X.509 certificates and PKCS#12 files. OpenSSL's headers
 * give only types and constants here; every call goes through pointers resolved with dlsym. */
#include <stddef.h>

/* Loads libcrypto.so.3 once (thread-safe). Returns 0, or -1 with a reason in err. */
int pa_crypto_load(char *err, size_t errlen);
/* Fills buf with n cryptographically secure random bytes (RAND_bytes). Returns 0 on success. */
int pa_crypto_random(unsigned char *buf, size_t n);
/* SHA-256 of data into out[32]. Returns 0 on success. */
int pa_crypto_sha256(const unsigned char *data, size_t n, unsigned char *out);
/* "OpenSSL 3.0.x ..." once loaded, else NULL. */
const char *pa_crypto_version(void);

/* Loads OpenSSL's "legacy" provider (RC2, 3DES, ... in PKCS#12 files made by older tools) next to
 * the "default" one, in the process-wide library context, which libcurl's OpenSSL shares. Once per
 * process. Returns 0, or -1 with a reason in err (the legacy module is missing). */
int pa_crypto_enable_legacy(char *err, size_t errlen);

/* What portal-auth shows and keeps of a certificate. */
typedef struct {
    unsigned char *der;              /* the certificate's DER (malloc'd; pa_x509_info_free frees it) */
    size_t der_len;
    unsigned char spki_sha256[32];   /* SHA-256 of its SubjectPublicKeyInfo (what CURLOPT_PINNEDPUBLICKEY pins) */
    char subject[512];               /* RFC 2253 */
    char issuer[512];
    long long not_before;            /* seconds since 1970 */
    long long not_after;
} pa_x509_info;

void pa_x509_info_free(pa_x509_info *info);

/* Reads the first certificate of a PEM text. Returns 0, or -1 with a reason in err. */
int pa_x509_from_pem(const char *pem, size_t len, pa_x509_info *out, char *err, size_t errlen);

enum {
    PA_P12_OK = 0,
    PA_P12_CORRUPT = 1,          /* not a PKCS#12 structure */
    PA_P12_WRONG_PASSWORD = 2,   /* the MAC does not verify with this password */
    PA_P12_NO_KEY = 3,           /* no private key inside */
    PA_P12_NO_CERTIFICATE = 4,   /* no certificate matching the key */
    PA_P12_UNSUPPORTED = 5,      /* a cipher this OpenSSL cannot use */
    PA_P12_UNAVAILABLE = -1      /* libcrypto could not be loaded */
};

/* Opens a PKCS#12 file's bytes with its password (the legacy provider is loaded first) and describes
 * the certificate that goes with its private key. Returns a PA_P12_* code; err gets OpenSSL's reason. */
int pa_pkcs12_inspect(const unsigned char *data, size_t n, const char *password, pa_x509_info *out, char *err, size_t errlen);

/* The most bytes pa_pkcs12_from_pem reads of each PEM text, and the most certificates of a chain. */
#define PA_PEM_MAXIMUM_BYTES 1048576
#define PA_PEM_MAXIMUM_CERTIFICATES 64

enum {
    PA_PEM_OK = 0,
    PA_PEM_NO_KEY = 1,            /* no PEM private key in the key text (or a damaged one) */
    PA_PEM_KEY_ENCRYPTED = 2,     /* the private key is encrypted: it asks for a passphrase */
    PA_PEM_NO_CERTIFICATE = 3,    /* no PEM certificate in the certificate text (or a damaged one) */
    PA_PEM_MISMATCH = 4,          /* no certificate of the text goes with the private key */
    PA_PEM_TOO_LARGE = 5,         /* a text beyond PA_PEM_MAXIMUM_BYTES, or a chain beyond PA_PEM_MAXIMUM_CERTIFICATES */
    PA_PEM_FAILED = 6,            /* OpenSSL could not write the PKCS#12 file */
    PA_PEM_UNAVAILABLE = -1       /* libcrypto could not be loaded */
};

/* Reads an unencrypted PEM private key (key_pem) and PEM certificates (cert_pem: the key's own and
 * any chain, in any order; other PEM blocks are skipped) and writes them as one PKCS#12 file
 * protected by password, with OpenSSL's defaults (AES-256-CBC, PBKDF2, a SHA-256 MAC). Never asks
 * for a passphrase. On PA_PEM_OK *out is a malloc'd copy of *out_len bytes, for
 * pa_crypto_free_secret; otherwise *out is NULL and err gets the reason. */
int pa_pkcs12_from_pem(const char *key_pem, size_t key_len, const char *cert_pem, size_t cert_len,
                       const char *password, unsigned char **out, size_t *out_len, char *err, size_t errlen);

/* Overwrites n bytes at p with zeros and frees p (malloc'd). NULL is fine. */
void pa_crypto_free_secret(unsigned char *p, size_t n);
#endif
