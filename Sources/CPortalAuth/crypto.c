#include "pa_crypto.h"
#include "pa_dl.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

/* Every libcrypto call goes through these pointers (libcrypto is not linked). */
static struct {
    int (*rand_bytes)(unsigned char *, int);
    const EVP_MD *(*evp_sha256)(void);
    int (*evp_digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *);
    const char *(*version)(int);
    OSSL_PROVIDER *(*provider_load)(OSSL_LIB_CTX *, const char *);
    PKCS12 *(*d2i_pkcs12)(PKCS12 **, const unsigned char **, long);
    int (*pkcs12_mac_present)(const PKCS12 *);
    int (*pkcs12_verify_mac)(PKCS12 *, const char *, int);
    int (*pkcs12_parse)(PKCS12 *, const char *, EVP_PKEY **, X509 **, STACK_OF(X509) **);
    void (*pkcs12_free)(PKCS12 *);
    void (*x509_free)(X509 *);
    void (*pkey_free)(EVP_PKEY *);
    void (*sk_pop_free)(OPENSSL_STACK *, void (*)(void *));
    int (*i2d_x509)(const X509 *, unsigned char **);
    X509_PUBKEY *(*x509_get_pubkey)(const X509 *);
    int (*i2d_pubkey)(const X509_PUBKEY *, unsigned char **);
    X509_NAME *(*subject_name)(const X509 *);
    X509_NAME *(*issuer_name)(const X509 *);
    int (*name_print)(BIO *, const X509_NAME *, int, unsigned long);
    const ASN1_TIME *(*not_before)(const X509 *);
    const ASN1_TIME *(*not_after)(const X509 *);
    int (*time_to_tm)(const ASN1_TIME *, struct tm *);
    BIO *(*bio_new_mem_buf)(const void *, int);
    BIO *(*bio_new)(const BIO_METHOD *);
    const BIO_METHOD *(*bio_s_mem)(void);
    int (*bio_read)(BIO *, void *, int);
    int (*bio_free)(BIO *);
    X509 *(*pem_read_x509)(BIO *, X509 **, pem_password_cb *, void *);
    unsigned long (*err_get)(void);
    void (*err_string)(unsigned long, char *, size_t);
    void (*err_clear)(void);
    void (*crypto_free)(void *, const char *, int);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status = -1;
static char error[512];

static void load(void) {
    pa_dl lib = {NULL, "libcrypto", error, sizeof error};
    if (pa_dl_open(&lib, (const char *const[]){"libcrypto.so.3", NULL}, NULL) != 0) return;
    PA_RESOLVE(&lib, api.rand_bytes, "RAND_bytes");
    PA_RESOLVE(&lib, api.evp_sha256, "EVP_sha256");
    PA_RESOLVE(&lib, api.evp_digest, "EVP_Digest");
    PA_RESOLVE(&lib, api.version, "OpenSSL_version");
    PA_RESOLVE(&lib, api.provider_load, "OSSL_PROVIDER_load");
    PA_RESOLVE(&lib, api.d2i_pkcs12, "d2i_PKCS12");
    PA_RESOLVE(&lib, api.pkcs12_mac_present, "PKCS12_mac_present");
    PA_RESOLVE(&lib, api.pkcs12_verify_mac, "PKCS12_verify_mac");
    PA_RESOLVE(&lib, api.pkcs12_parse, "PKCS12_parse");
    PA_RESOLVE(&lib, api.pkcs12_free, "PKCS12_free");
    PA_RESOLVE(&lib, api.x509_free, "X509_free");
    PA_RESOLVE(&lib, api.pkey_free, "EVP_PKEY_free");
    PA_RESOLVE(&lib, api.sk_pop_free, "OPENSSL_sk_pop_free");
    PA_RESOLVE(&lib, api.i2d_x509, "i2d_X509");
    PA_RESOLVE(&lib, api.x509_get_pubkey, "X509_get_X509_PUBKEY");
    PA_RESOLVE(&lib, api.i2d_pubkey, "i2d_X509_PUBKEY");
    PA_RESOLVE(&lib, api.subject_name, "X509_get_subject_name");
    PA_RESOLVE(&lib, api.issuer_name, "X509_get_issuer_name");
    PA_RESOLVE(&lib, api.name_print, "X509_NAME_print_ex");
    PA_RESOLVE(&lib, api.not_before, "X509_get0_notBefore");
    PA_RESOLVE(&lib, api.not_after, "X509_get0_notAfter");
    PA_RESOLVE(&lib, api.time_to_tm, "ASN1_TIME_to_tm");
    PA_RESOLVE(&lib, api.bio_new_mem_buf, "BIO_new_mem_buf");
    PA_RESOLVE(&lib, api.bio_new, "BIO_new");
    PA_RESOLVE(&lib, api.bio_s_mem, "BIO_s_mem");
    PA_RESOLVE(&lib, api.bio_read, "BIO_read");
    PA_RESOLVE(&lib, api.bio_free, "BIO_free");
    PA_RESOLVE(&lib, api.pem_read_x509, "PEM_read_bio_X509");
    PA_RESOLVE(&lib, api.err_get, "ERR_get_error");
    PA_RESOLVE(&lib, api.err_string, "ERR_error_string_n");
    PA_RESOLVE(&lib, api.err_clear, "ERR_clear_error");
    PA_RESOLVE(&lib, api.crypto_free, "CRYPTO_free");
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

static pthread_once_t legacy_once = PTHREAD_ONCE_INIT;
static int legacy_status = -1;

static void load_legacy(void) {
    if (pa_crypto_load(NULL, 0) != 0) return;
    /* Loading any provider explicitly stops the default one from loading by itself: load both. */
    if (!api.provider_load(NULL, "default")) return;
    legacy_status = api.provider_load(NULL, "legacy") ? 0 : -1;
    api.err_clear();
}

int pa_crypto_enable_legacy(char *err, size_t errlen) {
    if (pa_crypto_load(err, errlen) != 0) return -1;
    pthread_once(&legacy_once, load_legacy);
    if (legacy_status != 0 && err && errlen) snprintf(err, errlen, "OpenSSL's legacy provider (ossl-modules/legacy.so) could not be loaded");
    return legacy_status;
}

/* Empties OpenSSL's error queue into err (its innermost reason, the last one; fallback when
 * empty) and returns that error's code. */
static unsigned long last_error(char *err, size_t errlen, const char *fallback) {
    unsigned long code = api.err_get(), next;
    while ((next = api.err_get()) != 0) code = next;
    if (err && errlen) {
        if (code) api.err_string(code, err, errlen);
        else snprintf(err, errlen, "%s", fallback);
    }
    return code;
}

static long long epoch(const ASN1_TIME *time) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!time || api.time_to_tm(time, &tm) != 1) return 0;
    return (long long)timegm(&tm);
}

static void print_name(const X509_NAME *name, char *out, size_t size) {
    out[0] = 0;
    BIO *bio = api.bio_new(api.bio_s_mem());
    if (!bio) return;
    if (api.name_print(bio, name, 0, XN_FLAG_RFC2253) >= 0) {
        int n = api.bio_read(bio, out, (int)size - 1);
        out[n > 0 ? n : 0] = 0;
    }
    api.bio_free(bio);
}

static int describe(X509 *cert, pa_x509_info *out) {
    memset(out, 0, sizeof *out);
    unsigned char *der = NULL;
    int len = api.i2d_x509(cert, &der);
    if (len <= 0) return -1;
    out->der = malloc((size_t)len);
    if (!out->der) { api.crypto_free(der, __FILE__, __LINE__); return -1; }
    memcpy(out->der, der, (size_t)len);
    out->der_len = (size_t)len;
    api.crypto_free(der, __FILE__, __LINE__);

    unsigned char *spki = NULL;
    int spki_len = api.i2d_pubkey(api.x509_get_pubkey(cert), &spki);
    if (spki_len <= 0) return -1;
    int digest = pa_crypto_sha256(spki, (size_t)spki_len, out->spki_sha256);
    api.crypto_free(spki, __FILE__, __LINE__);
    if (digest != 0) return -1;

    print_name(api.subject_name(cert), out->subject, sizeof out->subject);
    print_name(api.issuer_name(cert), out->issuer, sizeof out->issuer);
    out->not_before = epoch(api.not_before(cert));
    out->not_after = epoch(api.not_after(cert));
    return 0;
}

void pa_x509_info_free(pa_x509_info *info) {
    free(info->der);
    info->der = NULL;
    info->der_len = 0;
}

int pa_x509_from_pem(const char *pem, size_t len, pa_x509_info *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (pa_crypto_load(err, errlen) != 0) return -1;
    api.err_clear();
    BIO *bio = api.bio_new_mem_buf(pem, (int)len);
    if (!bio) { snprintf(err, errlen, "out of memory"); return -1; }
    X509 *cert = api.pem_read_x509(bio, NULL, NULL, NULL);
    api.bio_free(bio);
    if (!cert) { last_error(err, errlen, "no certificate in the PEM text"); return -1; }
    int rc = describe(cert, out);
    api.x509_free(cert);
    if (rc != 0) { pa_x509_info_free(out); last_error(err, errlen, "the certificate could not be encoded"); }
    return rc;
}

int pa_pkcs12_inspect(const unsigned char *data, size_t n, const char *password, pa_x509_info *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (pa_crypto_load(err, errlen) != 0) return PA_P12_UNAVAILABLE;
    char legacy[256] = {0};
    int have_legacy = pa_crypto_enable_legacy(legacy, sizeof legacy) == 0;
    api.err_clear();
    const unsigned char *cursor = data;
    PKCS12 *p12 = api.d2i_pkcs12(NULL, &cursor, (long)n);
    if (!p12) { last_error(err, errlen, "not a PKCS#12 file"); return PA_P12_CORRUPT; }
    /* An empty password may have been encoded as no password at all. */
    const char *pass = password;
    if (api.pkcs12_mac_present(p12)) {
        if (api.pkcs12_verify_mac(p12, pass, -1) != 1) {
            if (pass[0] == 0 && api.pkcs12_verify_mac(p12, NULL, 0) == 1) pass = NULL;
            else { api.err_clear(); snprintf(err, errlen, "mac verify failure"); api.pkcs12_free(p12); return PA_P12_WRONG_PASSWORD; }
        }
    }
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    STACK_OF(X509) *chain = NULL;
    int parsed = api.pkcs12_parse(p12, pass, &key, &cert, &chain);
    api.pkcs12_free(p12);
    if (!parsed) {
        unsigned long code = last_error(err, errlen, "PKCS12_parse failed");
        /* A cipher no loaded provider implements (RC2 and friends without the legacy provider). */
        int unsupported = ERR_GET_REASON(code) == ERR_R_UNSUPPORTED || ERR_GET_REASON(code) == EVP_R_UNSUPPORTED_ALGORITHM;
        if (unsupported && !have_legacy && err && errlen) snprintf(err, errlen, "%s", legacy);
        return unsupported ? PA_P12_UNSUPPORTED : PA_P12_CORRUPT;
    }
    int rc = PA_P12_OK;
    if (!key) { rc = PA_P12_NO_KEY; snprintf(err, errlen, "no private key"); }
    else if (!cert) { rc = PA_P12_NO_CERTIFICATE; snprintf(err, errlen, "no certificate for the private key"); }
    else if (describe(cert, out) != 0) { rc = PA_P12_CORRUPT; pa_x509_info_free(out); last_error(err, errlen, "the certificate could not be encoded"); }
    if (key) api.pkey_free(key);
    if (cert) api.x509_free(cert);
    if (chain) api.sk_pop_free((OPENSSL_STACK *)chain, (void (*)(void *))api.x509_free);
    return rc;
}

/* What only pa_pkcs12_from_pem uses, resolved on its first call (the other paths never pay for it). */
static struct {
    EVP_PKEY *(*pem_read_key)(BIO *, EVP_PKEY **, pem_password_cb *, void *);
    int (*check_key)(const X509 *, const EVP_PKEY *);
    PKCS12 *(*pkcs12_create)(const char *, const char *, EVP_PKEY *, X509 *, STACK_OF(X509) *, int, int, int, int, int);
    int (*i2d_pkcs12)(const PKCS12 *, unsigned char **);
    OPENSSL_STACK *(*sk_new_null)(void);
    int (*sk_push)(OPENSSL_STACK *, const void *);
    void (*cleanse)(void *, size_t);
} pem;

static pthread_once_t pem_once = PTHREAD_ONCE_INIT;
static int pem_status = -1;
static char pem_error[512];

static void load_pem(void) {
    if (pa_crypto_load(pem_error, sizeof pem_error) != 0) return;
    pa_dl lib = {NULL, "libcrypto", pem_error, sizeof pem_error};
    if (pa_dl_open(&lib, (const char *const[]){"libcrypto.so.3", NULL}, NULL) != 0) return;
    PA_RESOLVE(&lib, pem.pem_read_key, "PEM_read_bio_PrivateKey");
    PA_RESOLVE(&lib, pem.check_key, "X509_check_private_key");
    PA_RESOLVE(&lib, pem.pkcs12_create, "PKCS12_create");
    PA_RESOLVE(&lib, pem.i2d_pkcs12, "i2d_PKCS12");
    PA_RESOLVE(&lib, pem.sk_new_null, "OPENSSL_sk_new_null");
    PA_RESOLVE(&lib, pem.sk_push, "OPENSSL_sk_push");
    PA_RESOLVE(&lib, pem.cleanse, "OPENSSL_cleanse");
    pem_status = 0;
}

/* The passphrase callback: OpenSSL asks only for an encrypted key. Records that it asked and
 * gives nothing (never the terminal prompt OpenSSL would show without a callback). */
static int no_passphrase(char *buf, int size, int rwflag, void *asked) {
    (void)buf;
    (void)size;
    (void)rwflag;
    *(int *)asked = 1;
    return -1;
}

/* The unencrypted private key of a PEM text, or NULL with the reason's code. */
static EVP_PKEY *read_key(const char *text, size_t len, int *rc, char *err, size_t errlen) {
    BIO *bio = api.bio_new_mem_buf(text, (int)len);
    if (!bio) { *rc = PA_PEM_FAILED; snprintf(err, errlen, "out of memory"); return NULL; }
    int asked = 0;
    EVP_PKEY *key = pem.pem_read_key(bio, NULL, no_passphrase, &asked);
    api.bio_free(bio);
    if (key) return key;
    *rc = asked ? PA_PEM_KEY_ENCRYPTED : PA_PEM_NO_KEY;
    last_error(err, errlen, "no PEM private key");
    if (asked) snprintf(err, errlen, "the private key is encrypted");
    return NULL;
}

/* Every certificate of a PEM text: the one that goes with key into *leaf, the others pushed on
 * chain. Returns a PA_PEM_* code. */
static int read_certificates(const char *text, size_t len, EVP_PKEY *key, X509 **leaf, OPENSSL_STACK *chain,
                             char *err, size_t errlen) {
    BIO *bio = api.bio_new_mem_buf(text, (int)len);
    if (!bio) { snprintf(err, errlen, "out of memory"); return PA_PEM_FAILED; }
    int count = 0, rc = PA_PEM_OK, asked = 0;
    X509 *cert;
    while (rc == PA_PEM_OK && (cert = api.pem_read_x509(bio, NULL, no_passphrase, &asked)) != NULL) {
        if (++count > PA_PEM_MAXIMUM_CERTIFICATES) {
            rc = PA_PEM_TOO_LARGE;
            snprintf(err, errlen, "more than %d certificates", PA_PEM_MAXIMUM_CERTIFICATES);
        } else if (!*leaf && pem.check_key(cert, key) == 1) {
            *leaf = cert;
            continue;
        } else if (pem.sk_push(chain, cert) > 0) {
            api.err_clear(); /* the mismatch X509_check_private_key reported */
            continue;
        } else {
            rc = PA_PEM_FAILED;
            snprintf(err, errlen, "out of memory");
        }
        api.x509_free(cert);
    }
    api.bio_free(bio);
    if (rc != PA_PEM_OK) return rc;
    /* The text ends where no PEM block starts any more; anything else is a damaged certificate. */
    unsigned long code = last_error(err, errlen, "no PEM certificate");
    int ended = ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE;
    if (count == 0 || !ended) return PA_PEM_NO_CERTIFICATE;
    if (!*leaf) { snprintf(err, errlen, "no certificate goes with the private key"); return PA_PEM_MISMATCH; }
    return PA_PEM_OK;
}

/* The PKCS#12 file of key, leaf and chain, DER in a malloc'd copy. Returns a PA_PEM_* code. */
static int write_pkcs12(const char *password, EVP_PKEY *key, X509 *leaf, OPENSSL_STACK *chain, unsigned char **out,
                        size_t *out_len, char *err, size_t errlen) {
    PKCS12 *p12 = pem.pkcs12_create(password, NULL, key, leaf, (STACK_OF(X509) *)chain, 0, 0, 0, 0, 0);
    if (!p12) { last_error(err, errlen, "PKCS12_create failed"); return PA_PEM_FAILED; }
    unsigned char *der = NULL;
    int len = pem.i2d_pkcs12(p12, &der);
    api.pkcs12_free(p12);
    if (len <= 0) { last_error(err, errlen, "i2d_PKCS12 failed"); return PA_PEM_FAILED; }
    *out = malloc((size_t)len);
    if (*out) {
        memcpy(*out, der, (size_t)len);
        *out_len = (size_t)len;
    }
    pem.cleanse(der, (size_t)len);
    api.crypto_free(der, __FILE__, __LINE__);
    if (!*out) { snprintf(err, errlen, "out of memory"); return PA_PEM_FAILED; }
    return PA_PEM_OK;
}

int pa_pkcs12_from_pem(const char *key_pem, size_t key_len, const char *cert_pem, size_t cert_len,
                       const char *password, unsigned char **out, size_t *out_len, char *err, size_t errlen) {
    *out = NULL;
    *out_len = 0;
    if (err && errlen) err[0] = 0;
    if (key_len > PA_PEM_MAXIMUM_BYTES || cert_len > PA_PEM_MAXIMUM_BYTES) {
        snprintf(err, errlen, "more than %d bytes", PA_PEM_MAXIMUM_BYTES);
        return PA_PEM_TOO_LARGE;
    }
    if (key_len == 0) { snprintf(err, errlen, "no PEM private key"); return PA_PEM_NO_KEY; }
    if (cert_len == 0) { snprintf(err, errlen, "no PEM certificate"); return PA_PEM_NO_CERTIFICATE; }
    pthread_once(&pem_once, load_pem);
    if (pem_status != 0) { snprintf(err, errlen, "%s", pem_error); return PA_PEM_UNAVAILABLE; }
    api.err_clear();
    int rc = PA_PEM_OK;
    EVP_PKEY *key = read_key(key_pem, key_len, &rc, err, errlen);
    if (!key) return rc;
    X509 *leaf = NULL;
    OPENSSL_STACK *chain = pem.sk_new_null();
    if (!chain) rc = PA_PEM_FAILED;
    else rc = read_certificates(cert_pem, cert_len, key, &leaf, chain, err, errlen);
    if (rc == PA_PEM_OK) rc = write_pkcs12(password, key, leaf, chain, out, out_len, err, errlen);
    if (rc == PA_PEM_OK && err && errlen) err[0] = 0;
    if (chain) api.sk_pop_free(chain, (void (*)(void *))api.x509_free);
    if (leaf) api.x509_free(leaf);
    api.pkey_free(key);
    api.err_clear();
    return rc;
}

void pa_crypto_free_secret(unsigned char *p, size_t n) {
    if (!p) return;
    volatile unsigned char *v = p;
    while (n--) *v++ = 0;
    free(p);
}
