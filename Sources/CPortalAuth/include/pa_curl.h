#ifndef PA_CURL_H
#define PA_CURL_H
/* libcurl for portal-auth.
 *
 * libcurl is not linked: pa_curl_load() dlopens libcurl.so.4 on the first request and resolves the
 * functions below, so a command that never makes a request (portal-auth token with a cached token)
 * never pays for loading libcurl and its dependency tree. The headers only provide types/constants.
 *
 * Variadic calls (curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt) are wrapped in typed
 * static inline functions that Swift can call. A pa_transfer bundles an easy handle with the
 * buffers its callbacks fill (body, the final response's header block, the error text).
 */
#include <stddef.h>
#include <curl/curl.h>

typedef struct {
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_perform)(CURL *);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    char *(*version)(void);
    CURLcode (*easy_pause)(CURL *, int);
} pa_curl_api;

extern pa_curl_api pa_curl;

/* Loads libcurl once (thread-safe). Returns 0, or -1 with a reason in err. */
int pa_curl_load(char *err, size_t errlen);
/* Ends libcurl for the rest of the process (curl_global_cleanup, which also ends the TLS
 * library's use by libcurl): call it once every multi and easy handle is cleaned up and their
 * threads joined. pa_curl_load fails afterwards. */
void pa_curl_unload(void);
/* "libcurl/7.88.1 OpenSSL/3.0.x ..." once loaded, else NULL. */
const char *pa_curl_version(void);

/* Authentication bit masks (macros Swift cannot import). */
static const long PA_CURLAUTH_BASIC = (long)CURLAUTH_BASIC;
static const long PA_CURLAUTH_DIGEST = (long)CURLAUTH_DIGEST;
static const long PA_CURLAUTH_NTLM = (long)CURLAUTH_NTLM;
static const long PA_CURLAUTH_NEGOTIATE = (long)CURLAUTH_NEGOTIATE;

/* A reusable transfer: an easy handle plus the buffers its callbacks fill. */
typedef struct pa_transfer pa_transfer;
/* Which limit of pa_transfer_set_limits ended a transfer. */
typedef enum { PA_LIMIT_NONE = 0, PA_LIMIT_BODY = 1, PA_LIMIT_HEADERS = 2 } pa_limit;
pa_transfer *pa_transfer_new(void);
void pa_transfer_free(pa_transfer *t);
/* Resets every option (curl_easy_reset), clears the buffers and re-installs the callbacks. */
void pa_transfer_reset(pa_transfer *t);
CURL *pa_transfer_easy(pa_transfer *t);
/* Adds a request header line ("Name: value"); applied by pa_transfer_apply_headers. */
int pa_transfer_add_header(pa_transfer *t, const char *line);
/* Bounds what the server may send (0: no bound): the body's decoded bytes, the header bytes and
 * header lines of all response blocks together. A transfer that exceeds one ends at once with
 * CURLE_WRITE_ERROR and pa_transfer_limit_hit says which. pa_transfer_reset clears them. */
void pa_transfer_set_limits(pa_transfer *t, size_t max_body, size_t max_header_bytes, size_t max_header_lines);
pa_limit pa_transfer_limit_hit(const pa_transfer *t);
CURLcode pa_transfer_apply_headers(pa_transfer *t);
const unsigned char *pa_transfer_body(const pa_transfer *t, size_t *length);
/* The header block of the final response (earlier 1xx/3xx blocks are dropped). */
const char *pa_transfer_headers(const pa_transfer *t, size_t *length);
const char *pa_transfer_error(const pa_transfer *t);
/* Wipes the body buffer (it may hold a token) before the transfer is reused; ends streaming. */
void pa_transfer_wipe(pa_transfer *t);

/* Streaming the body (a local proxy's answers): once more than `after` bytes of the body have
 * arrived, each piece goes to fn instead of the buffer. The first call has first=1 and the body
 * so far still in the buffer (pa_transfer_body); fn may decline it (PA_STREAM_DECLINED: the body
 * is buffered as without fn, within the limits). Otherwise fn returns what libcurl's write
 * callback returns: n (taken), CURL_WRITEFUNC_PAUSE (offer it again after curl_easy_pause), or 0
 * (abort). The body limit of pa_transfer_set_limits does not apply to a streamed body. */
#define PA_STREAM_DECLINED ((size_t)0x7ffffffe) /* never a piece's length, nor CURL_WRITEFUNC_PAUSE */
static const size_t PA_STREAM_DECLINE = PA_STREAM_DECLINED;
static const size_t PA_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
typedef size_t (*pa_stream_fn)(void *context, const char *data, size_t n, int first);
void pa_transfer_set_stream(pa_transfer *t, size_t after, pa_stream_fn fn, void *context);
/* Uploading the body from fn (libcurl's read callback: it fills up to n bytes of buffer and returns
 * how many, 0 at the end, CURL_READFUNC_PAUSE or CURL_READFUNC_ABORT); the body's length is set
 * apart (CURLOPT_POSTFIELDSIZE_LARGE, -1: chunked). */
typedef size_t (*pa_upload_fn)(void *context, char *buffer, size_t n);
CURLcode pa_transfer_set_upload(pa_transfer *t, pa_upload_fn fn, void *context);
static const size_t PA_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
static const size_t PA_READFUNC_ABORT = CURL_READFUNC_ABORT;

/* Connects to url and completes the TLS handshake without sending an HTTP request, then copies the
 * PEM of the server's own (leaf) certificate into *pem (malloc'd; the caller frees it; NULL when
 * none was seen). verify=0 skips chain and host checks, for inspection only: nothing is sent.
 * cainfo may be NULL. Returns the CURLcode of the handshake; err (CURL_ERROR_SIZE) gets its text. */
CURLcode pa_curl_peer_certificate(const char *url, const char *cainfo, int verify, long timeout_ms, char **pem, char *err);
/* Multi: the next finished transfer, if any. Returns 1 and fills easy/result, else 0. */
int pa_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

static inline CURLcode pa_easy_setopt_long(CURL *h, CURLoption o, long v) { return pa_curl.easy_setopt(h, o, v); }
static inline CURLcode pa_easy_setopt_str(CURL *h, CURLoption o, const char *v) { return pa_curl.easy_setopt(h, o, v); }
static inline CURLcode pa_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return pa_curl.easy_setopt(h, o, v); }
static inline CURLcode pa_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return pa_curl.easy_setopt(h, o, v); }
static inline CURLcode pa_easy_setopt_blob(CURL *h, CURLoption o, const void *data, size_t len) {
    struct curl_blob blob = { (void *)data, len, CURL_BLOB_COPY };
    return pa_curl.easy_setopt(h, o, &blob);
}
static inline CURLcode pa_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return pa_curl.easy_getinfo(h, i, v); }
static inline CURLcode pa_easy_getinfo_str(CURL *h, CURLINFO i, const char **v) { return pa_curl.easy_getinfo(h, i, v); }
static inline CURLMcode pa_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return pa_curl.multi_setopt(m, o, v); }
static inline const char *pa_easy_strerror(CURLcode c) { return pa_curl.easy_strerror(c); }
static inline CURLM *pa_multi_init(void) { return pa_curl.multi_init(); }
static inline CURLMcode pa_multi_cleanup(CURLM *m) { return pa_curl.multi_cleanup(m); }
static inline CURLMcode pa_multi_add(CURLM *m, CURL *e) { return pa_curl.multi_add_handle(m, e); }
static inline CURLMcode pa_multi_remove(CURLM *m, CURL *e) { return pa_curl.multi_remove_handle(m, e); }
static inline CURLMcode pa_multi_perform(CURLM *m, int *running) { return pa_curl.multi_perform(m, running); }
static inline CURLMcode pa_multi_poll(CURLM *m, int timeout_ms) { return pa_curl.multi_poll(m, NULL, 0, timeout_ms, NULL); }
static inline CURLMcode pa_multi_poll_fds(CURLM *m, struct curl_waitfd *fds, unsigned int count, int timeout_ms) {
    return pa_curl.multi_poll(m, fds, count, timeout_ms, NULL);
}
static inline CURLMcode pa_multi_wakeup(CURLM *m) { return pa_curl.multi_wakeup(m); }
static inline CURLcode pa_easy_unpause(CURL *h) { return pa_curl.easy_pause(h, CURLPAUSE_CONT); }

#endif
