#define _DEFAULT_SOURCE /* explicit_bzero */
#include "pa_curl.h"
#include "pa_dl.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pa_curl_api pa_curl;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static pthread_mutex_t unload_lock = PTHREAD_MUTEX_INITIALIZER;
static char load_error[512];
static const char *version_text;

static void load(void) {
    pa_dl lib = {NULL, "libcurl", load_error, sizeof load_error};
    if (pa_dl_open(&lib, (const char *const[]){"libcurl.so.4", "libcurl.so", NULL}, NULL) != 0) return;
    PA_RESOLVE(&lib, pa_curl.global_init, "curl_global_init");
    PA_RESOLVE(&lib, pa_curl.global_cleanup, "curl_global_cleanup");
    PA_RESOLVE(&lib, pa_curl.easy_setopt, "curl_easy_setopt");
    PA_RESOLVE(&lib, pa_curl.easy_getinfo, "curl_easy_getinfo");
    PA_RESOLVE(&lib, pa_curl.easy_init, "curl_easy_init");
    PA_RESOLVE(&lib, pa_curl.easy_perform, "curl_easy_perform");
    PA_RESOLVE(&lib, pa_curl.easy_cleanup, "curl_easy_cleanup");
    PA_RESOLVE(&lib, pa_curl.easy_reset, "curl_easy_reset");
    PA_RESOLVE(&lib, pa_curl.easy_strerror, "curl_easy_strerror");
    PA_RESOLVE(&lib, pa_curl.multi_init, "curl_multi_init");
    PA_RESOLVE(&lib, pa_curl.multi_cleanup, "curl_multi_cleanup");
    PA_RESOLVE(&lib, pa_curl.multi_add_handle, "curl_multi_add_handle");
    PA_RESOLVE(&lib, pa_curl.multi_remove_handle, "curl_multi_remove_handle");
    PA_RESOLVE(&lib, pa_curl.multi_perform, "curl_multi_perform");
    PA_RESOLVE(&lib, pa_curl.multi_poll, "curl_multi_poll");
    PA_RESOLVE(&lib, pa_curl.multi_wakeup, "curl_multi_wakeup");
    PA_RESOLVE(&lib, pa_curl.multi_info_read, "curl_multi_info_read");
    PA_RESOLVE(&lib, pa_curl.multi_setopt, "curl_multi_setopt");
    PA_RESOLVE(&lib, pa_curl.slist_append, "curl_slist_append");
    PA_RESOLVE(&lib, pa_curl.slist_free_all, "curl_slist_free_all");
    PA_RESOLVE(&lib, pa_curl.version, "curl_version");
    PA_RESOLVE(&lib, pa_curl.easy_pause, "curl_easy_pause");
    if (pa_curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        return;
    }
    version_text = pa_curl.version();
    pthread_mutex_lock(&unload_lock);
    load_status = 0;
    pthread_mutex_unlock(&unload_lock);
}

int pa_curl_load(char *err, size_t errlen) {
    pthread_once(&load_once, load);
    pthread_mutex_lock(&unload_lock);
    int status = load_status;
    pthread_mutex_unlock(&unload_lock);
    if (status != 0 && err && errlen) snprintf(err, errlen, "%s", load_error);
    return status;
}

void pa_curl_unload(void) {
    pthread_mutex_lock(&unload_lock);
    if (load_status == 0) {
        pa_curl.global_cleanup();
        load_status = -1;
        snprintf(load_error, sizeof load_error, "libcurl was shut down (the process is ending)");
    }
    pthread_mutex_unlock(&unload_lock);
}

const char *pa_curl_version(void) { return load_status == 0 ? version_text : NULL; }

struct pa_transfer {
    CURL *easy;
    struct curl_slist *headers;
    unsigned char *body;
    size_t body_len, body_cap;
    char *head;
    size_t head_len, head_cap;
    /* How far into each buffer bytes were written since it was last wiped (its terminating NUL
     * included): pa_transfer_wipe clears that much, not the whole capacity. */
    size_t body_mark, head_mark;
    /* Limits on what the server sends (0: none) and what was received against them. */
    size_t max_body, max_head_bytes, max_head_lines;
    size_t head_total, head_lines;
    pa_limit limit_hit;
    char error[CURL_ERROR_SIZE];
    /* Streaming (pa_transfer_set_stream): where pieces go once more than stream_after arrived. */
    pa_stream_fn stream_fn;
    void *stream_context;
    size_t stream_after;
    int streaming;
    /* Uploading (pa_transfer_set_upload). */
    pa_upload_fn upload_fn;
    void *upload_context;
};

/* Appends n bytes (and a NUL); the buffer doubles but never past limit + 1 (limit 0: none). `mark`
 * keeps how far bytes were ever written. */
static int append(
    unsigned char **buf, size_t *len, size_t *cap, size_t *mark, size_t limit, const void *data, size_t n) {
    if (*len + n + 1 > *cap) {
        size_t want = *cap ? *cap : 4096;
        while (want < *len + n + 1) want *= 2;
        if (limit && want > limit + 1) want = limit + 1;
        /* Not realloc: a block it moves away from would be freed with the bytes in it. */
        unsigned char *grown = malloc(want);
        if (!grown) return -1;
        if (*buf) {
            memcpy(grown, *buf, *len);
            explicit_bzero(*buf, *mark);
            free(*buf);
        }
        *buf = grown;
        *cap = want;
        *mark = *len;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = 0;
    if (*len + 1 > *mark) *mark = *len + 1;
    return 0;
}

/* libcurl hands the body here decoded (after Content-Encoding), so a compressed answer counts
 * with the size it expands to. Returning less than n ends the transfer (CURLE_WRITE_ERROR) at
 * once: nothing past the limit is ever stored. */
static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata) {
    pa_transfer *t = userdata;
    size_t n = size * nmemb;
    if (t->streaming) return t->stream_fn(t->stream_context, data, n, 0);
    if (t->stream_fn && n > t->stream_after - t->body_len) {
        size_t taken = t->stream_fn(t->stream_context, data, n, 1);
        if (taken != PA_STREAM_DECLINED) {
            t->streaming = 1;
            return taken;
        }
        t->stream_fn = NULL;
    }
    if (t->max_body && n > t->max_body - t->body_len) {
        t->limit_hit = PA_LIMIT_BODY;
        return 0;
    }
    return append(&t->body, &t->body_len, &t->body_cap, &t->body_mark, t->max_body, data, n) == 0 ? n : 0;
}

/* Header lines count across every block (1xx, redirects, the final one), so neither endless
 * lines nor endless interim responses get past the limits. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *userdata) {
    pa_transfer *t = userdata;
    size_t n = size * nmemb;
    t->head_total += n;
    t->head_lines += 1;
    if ((t->max_head_bytes && t->head_total > t->max_head_bytes)
        || (t->max_head_lines && t->head_lines > t->max_head_lines)) {
        t->limit_hit = PA_LIMIT_HEADERS;
        return 0;
    }
    /* A new status line starts a new block: keep only the final response's headers. */
    if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) t->head_len = 0;
    return append((unsigned char **)&t->head, &t->head_len, &t->head_cap, &t->head_mark, 0, data, n) == 0 ? n : 0;
}

static void install(pa_transfer *t) {
    pa_curl.easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body);
    pa_curl.easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
    pa_curl.easy_setopt(t->easy, CURLOPT_HEADERFUNCTION, on_header);
    pa_curl.easy_setopt(t->easy, CURLOPT_HEADERDATA, t);
    pa_curl.easy_setopt(t->easy, CURLOPT_ERRORBUFFER, t->error);
    pa_curl.easy_setopt(t->easy, CURLOPT_PRIVATE, t);
}

pa_transfer *pa_transfer_new(void) {
    pa_transfer *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->easy = pa_curl.easy_init();
    if (!t->easy) { free(t); return NULL; }
    install(t);
    return t;
}

void pa_transfer_wipe(pa_transfer *t) {
    /* (Beyond the marks the buffers hold zeros, or bytes never written.) */
    if (t->body) explicit_bzero(t->body, t->body_mark);
    if (t->head) explicit_bzero(t->head, t->head_mark);
    t->body_len = t->head_len = 0;
    t->body_mark = t->head_mark = 0;
    t->head_total = t->head_lines = 0;
    t->limit_hit = PA_LIMIT_NONE;
    t->stream_fn = NULL;
    t->stream_context = NULL;
    t->stream_after = 0;
    t->streaming = 0;
    t->upload_fn = NULL;
    t->upload_context = NULL;
}

static size_t on_read(char *buffer, size_t size, size_t nmemb, void *userdata) {
    pa_transfer *t = userdata;
    return t->upload_fn ? t->upload_fn(t->upload_context, buffer, size * nmemb) : CURL_READFUNC_ABORT;
}

CURLcode pa_transfer_set_upload(pa_transfer *t, pa_upload_fn fn, void *context) {
    t->upload_fn = fn;
    t->upload_context = context;
    CURLcode code = pa_curl.easy_setopt(t->easy, CURLOPT_READFUNCTION, on_read);
    return code != CURLE_OK ? code : pa_curl.easy_setopt(t->easy, CURLOPT_READDATA, t);
}

void pa_transfer_set_stream(pa_transfer *t, size_t after, pa_stream_fn fn, void *context) {
    t->stream_after = after;
    t->stream_fn = fn;
    t->stream_context = context;
    t->streaming = 0;
}

void pa_transfer_reset(pa_transfer *t) {
    pa_curl.easy_reset(t->easy);
    if (t->headers) { pa_curl.slist_free_all(t->headers); t->headers = NULL; }
    pa_transfer_wipe(t);
    t->max_body = t->max_head_bytes = t->max_head_lines = 0;
    t->error[0] = 0;
    install(t);
}

void pa_transfer_set_limits(pa_transfer *t, size_t max_body, size_t max_header_bytes, size_t max_header_lines) {
    t->max_body = max_body;
    t->max_head_bytes = max_header_bytes;
    t->max_head_lines = max_header_lines;
}

pa_limit pa_transfer_limit_hit(const pa_transfer *t) { return t->limit_hit; }

void pa_transfer_free(pa_transfer *t) {
    if (!t) return;
    pa_transfer_wipe(t);
    if (t->headers) pa_curl.slist_free_all(t->headers);
    pa_curl.easy_cleanup(t->easy);
    free(t->body);
    free(t->head);
    free(t);
}

CURL *pa_transfer_easy(pa_transfer *t) { return t->easy; }

int pa_transfer_add_header(pa_transfer *t, const char *line) {
    struct curl_slist *next = pa_curl.slist_append(t->headers, line);
    if (!next) return -1;
    t->headers = next;
    return 0;
}

CURLcode pa_transfer_apply_headers(pa_transfer *t) {
    return pa_curl.easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
}

const unsigned char *pa_transfer_body(const pa_transfer *t, size_t *length) {
    *length = t->body_len;
    return t->body;
}

const char *pa_transfer_headers(const pa_transfer *t, size_t *length) {
    *length = t->head_len;
    return t->head;
}

const char *pa_transfer_error(const pa_transfer *t) { return t->error; }

int pa_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int left = 0;
    CURLMsg *msg;
    while ((msg = pa_curl.multi_info_read(multi, &left)) != NULL) {
        if (msg->msg == CURLMSG_DONE) {
            *easy = msg->easy_handle;
            *result = msg->data.result;
            return 1;
        }
    }
    return 0;
}

CURLcode pa_curl_peer_certificate(const char *url, const char *cainfo, int verify, long timeout_ms, char **pem, char *err) {
    *pem = NULL;
    err[0] = 0;
    if (pa_curl_load(err, CURL_ERROR_SIZE) != 0) return CURLE_FAILED_INIT;
    CURL *easy = pa_curl.easy_init();
    if (!easy) return CURLE_OUT_OF_MEMORY;
    pa_curl.easy_setopt(easy, CURLOPT_URL, url);
    pa_curl.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    pa_curl.easy_setopt(easy, CURLOPT_CONNECT_ONLY, 1L);
    pa_curl.easy_setopt(easy, CURLOPT_CERTINFO, 1L);
    pa_curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, err);
    pa_curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    pa_curl.easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    pa_curl.easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, verify ? 1L : 0L);
    pa_curl.easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L);
    if (cainfo) pa_curl.easy_setopt(easy, CURLOPT_CAINFO, cainfo);
    CURLcode code = pa_curl.easy_perform(easy);
    if (code == CURLE_OK) {
        struct curl_certinfo *info = NULL;
        if (pa_curl.easy_getinfo(easy, CURLINFO_CERTINFO, &info) == CURLE_OK && info && info->num_of_certs > 0) {
            for (struct curl_slist *item = info->certinfo[0]; item; item = item->next) {
                if (strncmp(item->data, "Cert:", 5) == 0) {
                    *pem = strdup(item->data + 5);
                    break;
                }
            }
        }
    }
    if (code != CURLE_OK && !err[0]) snprintf(err, CURL_ERROR_SIZE, "%s", pa_curl.easy_strerror(code));
    pa_curl.easy_cleanup(easy);
    return code;
}
