/* The small program's Secret Service read: a D-Bus client of its own over the session bus's Unix
 * socket (no GLib: loading GDBus and its libraries cost more than the rest of a cached token), for
 * four calls in three round trips. It speaks only what it needs: SASL EXTERNAL, little-endian
 * messages, the replies' exact signatures. Anything else (another address kind, an error reply, a
 * big-endian peer, a reply it cannot read) is 0 or -1, and the caller hands the command to
 * portal-auth-full, whose libsecret/GDBus read reports what is wrong. */
#include "pa_front.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define SECRET_BUS "org.freedesktop.secrets"
#define SECRET_PATH "/org/freedesktop/secrets"
#define SECRET_SERVICE "org.freedesktop.Secret.Service"
/* The largest message read: GetSecrets of at most 8 items of at most 64 KiB each, and room. */
#define MAX_MESSAGE (1024 * 1024)

void pa_front_wipe(void *data, size_t length) {
    volatile unsigned char *bytes = data;
    for (size_t i = 0; i < length; i++) bytes[i] = 0;
}

int pa_front_disable_core_dumps(void) {
    int failure = 0;
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) failure = errno;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 && !failure) failure = errno;
    return failure;
}

/* ---- Writing messages ---- */

typedef struct {
    unsigned char data[4096];
    size_t length;
    int overflow;
} buffer;

static void put(buffer *b, const void *bytes, size_t n) {
    if (b->overflow || b->length + n > sizeof b->data) { b->overflow = 1; return; }
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
}
static void pad(buffer *b, size_t to) {
    static const unsigned char zeros[8] = { 0 };
    put(b, zeros, (to - b->length % to) % to);
}
static void put_u32(buffer *b, uint32_t v) {
    pad(b, 4);
    unsigned char le[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
    put(b, le, 4);
}
static void put_string(buffer *b, const char *s) { /* s and o */
    size_t n = strlen(s);
    put_u32(b, (uint32_t)n);
    put(b, s, n + 1);
}
static void put_signature(buffer *b, const char *s) {
    unsigned char n = (unsigned char)strlen(s);
    put(b, &n, 1);
    put(b, s, (size_t)n + 1);
}
static void put_field(buffer *b, unsigned char code, const char *type, const char *value) {
    pad(b, 8);
    put(b, &code, 1);
    put_signature(b, type);
    if (type[0] == 'g') put_signature(b, value); else put_string(b, value);
}

/* Appends a method call to `out`: the header (with `signature` when the body is not empty) and
 * the body already marshalled in `body` (whose offsets were counted from 0: the body starts at
 * an 8-byte boundary). */
static void put_call(buffer *out, uint32_t serial, int no_reply, const char *destination, const char *path,
                     const char *interface, const char *member, const char *signature, const buffer *body) {
    buffer header = { .length = 0 };
    unsigned char fixed[4] = { 'l', 1, (unsigned char)(no_reply ? 1 : 0), 1 };
    put(&header, fixed, 4);
    put_u32(&header, (uint32_t)body->length);
    put_u32(&header, serial);
    put_u32(&header, 0); /* the fields' length, written below */
    size_t fields_start = header.length;
    put_field(&header, 1, "o", path);
    put_field(&header, 2, "s", interface);
    put_field(&header, 3, "s", member);
    put_field(&header, 6, "s", destination);
    if (body->length) put_field(&header, 8, "g", signature);
    uint32_t fields = (uint32_t)(header.length - fields_start);
    memcpy(header.data + 12, (unsigned char[4]){ (unsigned char)fields, (unsigned char)(fields >> 8),
                                                  (unsigned char)(fields >> 16), (unsigned char)(fields >> 24) }, 4);
    pad(&header, 8);
    if (header.overflow || body->overflow) { out->overflow = 1; return; }
    put(out, header.data, header.length);
    put(out, body->data, body->length);
}

/* ---- Reading messages ---- */

typedef struct {
    const unsigned char *data;
    size_t length, at;
    int bad;
} reader;

static void align(reader *r, size_t to) {
    size_t next = (r->at + to - 1) / to * to;
    if (next > r->length) r->bad = 1; else r->at = next;
}
static uint32_t get_u32(reader *r) {
    align(r, 4);
    if (r->bad || r->length - r->at < 4) { r->bad = 1; return 0; }
    const unsigned char *p = r->data + r->at;
    r->at += 4;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
/* A string or object path: its bytes (NUL-terminated in the message) and length. */
static const char *get_string(reader *r, size_t *n) {
    uint32_t length = get_u32(r);
    if (r->bad || length >= r->length - r->at || r->data[r->at + length] != 0) { r->bad = 1; return NULL; }
    const char *s = (const char *)r->data + r->at;
    if (memchr(s, 0, length)) { r->bad = 1; return NULL; }
    r->at += (size_t)length + 1;
    if (n) *n = length;
    return s;
}
static const char *get_signature(reader *r) {
    if (r->bad || r->at >= r->length) { r->bad = 1; return NULL; }
    size_t n = r->data[r->at];
    if (r->length - r->at < n + 2 || r->data[r->at + 1 + n] != 0) { r->bad = 1; return NULL; }
    const char *s = (const char *)r->data + r->at + 1;
    r->at += n + 2;
    return s;
}
/* A byte array: its bytes and length. */
static const unsigned char *get_bytes(reader *r, size_t *n) {
    uint32_t length = get_u32(r);
    if (r->bad || length > r->length - r->at) { r->bad = 1; return NULL; }
    const unsigned char *p = r->data + r->at;
    r->at += length;
    *n = length;
    return p;
}

typedef struct {
    int fd;
    unsigned char *message; /* the last message read (malloc'd), its body from body_at */
    size_t length, body_at;
    char signature[64];
} connection;

static int read_fully(int fd, void *into, size_t n) {
    unsigned char *p = into;
    while (n > 0) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

static int write_fully(int fd, const void *from, size_t n) {
    const unsigned char *p = from;
    while (n > 0) {
        ssize_t done = send(fd, p, n, MSG_NOSIGNAL);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return -1;
        p += done;
        n -= (size_t)done;
    }
    return 0;
}

static void drop_message(connection *c) {
    if (c->message) {
        pa_front_wipe(c->message, c->length);
        free(c->message);
    }
    c->message = NULL;
}

/* Reads messages until the reply to `serial`: 1 a method return (its body in c), 0 an error reply,
 * -1 a failure. Signals (NameAcquired after Hello) are skipped. */
static int read_reply(connection *c, uint32_t serial) {
    for (int skipped = 0; skipped < 16; skipped++) {
        drop_message(c);
        unsigned char fixed[16];
        if (read_fully(c->fd, fixed, 16) != 0 || fixed[0] != 'l' || fixed[3] != 1) return -1;
        reader f = { fixed, 16, 4, 0 };
        uint32_t body = get_u32(&f);
        get_u32(&f);
        uint32_t fields = get_u32(&f);
        size_t header = 16 + (size_t)fields;
        header = (header + 7) / 8 * 8;
        if (fields > MAX_MESSAGE || body > MAX_MESSAGE || header + body > MAX_MESSAGE) return -1;
        c->length = header + body;
        c->message = malloc(c->length);
        if (!c->message) return -1;
        memcpy(c->message, fixed, 16);
        if (read_fully(c->fd, c->message + 16, c->length - 16) != 0) return -1;
        c->body_at = header;
        /* The header fields: REPLY_SERIAL (5, u) and SIGNATURE (8, g). */
        reader r = { c->message, 16 + (size_t)fields, 16, 0 };
        uint32_t reply_to = 0;
        c->signature[0] = 0;
        while (!r.bad && r.at < r.length) {
            align(&r, 8);
            if (r.bad || r.at >= r.length) break;
            unsigned char code = c->message[r.at++];
            const char *type = get_signature(&r);
            if (r.bad || !type) return -1;
            if (strcmp(type, "u") == 0) {
                uint32_t v = get_u32(&r);
                if (code == 5) reply_to = v;
            } else if (strcmp(type, "s") == 0 || strcmp(type, "o") == 0) {
                get_string(&r, NULL);
            } else if (strcmp(type, "g") == 0) {
                const char *s = get_signature(&r);
                if (s && code == 8) snprintf(c->signature, sizeof c->signature, "%s", s);
            } else {
                return -1; /* no other header field type is defined */
            }
        }
        if (r.bad) return -1;
        unsigned char type = c->message[1];
        if ((type == 2 || type == 3) && reply_to == serial) return type == 2 ? 1 : 0;
        if (type != 4) return -1; /* a reply to nothing asked, or a call to us */
    }
    return -1;
}

/* ---- The bus address and the handshake ---- */

/* The first `unix:path=` or `unix:abstract=` address of DBUS_SESSION_BUS_ADDRESS into *address. */
static int bus_address(struct sockaddr_un *address, socklen_t *length) {
    const char *value = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (!value) return -1;
    char path[sizeof address->sun_path];
    int abstract = 0;
    size_t n = 0;
    const char *p = NULL;
    if (strncmp(value, "unix:path=", 10) == 0) p = value + 10;
    else if (strncmp(value, "unix:abstract=", 14) == 0) p = value + 14, abstract = 1;
    else if (strncmp(value, "unix:", 5) == 0) {
        /* unix:guid=…,path=… */
        const char *found = strstr(value, ",path=");
        if (!found) return -1;
        p = found + 6;
    } else return -1;
    for (; *p && *p != ',' && *p != ';'; p++) {
        char ch = *p;
        if (ch == '%') {
            unsigned int byte;
            if (!p[1] || !p[2] || sscanf(p + 1, "%2x", &byte) != 1) return -1;
            ch = (char)byte;
            p += 2;
        }
        if (n + 1 >= sizeof path) return -1;
        path[n++] = ch;
    }
    if (n == 0) return -1;
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (abstract) {
        memcpy(address->sun_path + 1, path, n);
        *length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    } else {
        memcpy(address->sun_path, path, n);
        *length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
    }
    return 0;
}

/* Connects, authenticates (EXTERNAL, pipelined with BEGIN), and sends `first` right after. */
static int open_bus(connection *c, const buffer *first) {
    struct sockaddr_un address;
    socklen_t length;
    if (bus_address(&address, &length) != 0) return -1;
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) return -1;
    /* As GDBus's default call time-out: a stalled service ends the read, and the full program reports it. */
    struct timeval limit = { 25, 0 };
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    if (connect(c->fd, (struct sockaddr *)&address, length) != 0) return -1;
    char uid[16], hello[96];
    snprintf(uid, sizeof uid, "%u", (unsigned)geteuid());
    size_t n = 0;
    hello[n++] = 0;
    n += (size_t)snprintf(hello + n, sizeof hello - n, "AUTH EXTERNAL ");
    for (const char *d = uid; *d; d++) n += (size_t)snprintf(hello + n, sizeof hello - n, "%02x", (unsigned char)*d);
    n += (size_t)snprintf(hello + n, sizeof hello - n, "\r\nBEGIN\r\n");
    if (write_fully(c->fd, hello, n) != 0 || write_fully(c->fd, first->data, first->length) != 0) return -1;
    /* "OK <guid>\r\n", read a byte at a time: what follows is the first message. */
    char line[128];
    size_t got = 0;
    while (got < sizeof line - 1) {
        if (read_fully(c->fd, line + got, 1) != 0) return -1;
        if (line[got++] == '\n') break;
    }
    line[got] = 0;
    return strncmp(line, "OK ", 3) == 0 && got >= 2 && line[got - 2] == '\r' ? 0 : -1;
}

/* ---- The read ---- */

static int valid_utf8(const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned char b = s[i];
        size_t extra;
        uint32_t cp;
        if (b < 0x80) { i++; continue; }
        else if ((b & 0xE0) == 0xC0) { extra = 1; cp = b & 0x1F; }
        else if ((b & 0xF0) == 0xE0) { extra = 2; cp = b & 0x0F; }
        else if ((b & 0xF8) == 0xF0) { extra = 3; cp = b & 0x07; }
        else return 0;
        if (n - i <= extra) return 0;
        for (size_t k = 1; k <= extra; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += extra + 1;
    }
    return 1;
}

/* libsecret's test for a password, as secret.c's is_password reads GDBus's answer (a content type
 * is always there: an empty one is neither), with g_utf8_validate's rules (no NUL either). */
static int is_password(const unsigned char *data, size_t length, const char *content_type) {
    if (strcmp(content_type, "text/plain") == 0) return 1;
    if (strcmp(content_type, "application/octet-stream") == 0)
        return !memchr(data, 0, length) && valid_utf8(data, length);
    return 0;
}

/* The secrets of the items `paths` from a GetSecrets reply (a{o(oayays)}); 1 all found, 0 not. */
static int take_secrets(connection *c, const char *const *paths, int count, char **secrets, size_t *lengths) {
    if (strcmp(c->signature, "a{o(oayays)}") != 0) return -1;
    reader r = { c->message, c->length, c->body_at, 0 };
    uint32_t size = get_u32(&r);
    align(&r, 8);
    if (r.bad || size > r.length - r.at) return -1;
    size_t end = r.at + size;
    int taken = 0;
    while (!r.bad && r.at < end) {
        align(&r, 8);
        const char *path = get_string(&r, NULL);
        align(&r, 8);
        get_string(&r, NULL); /* the session */
        size_t n = 0;
        get_bytes(&r, &n); /* the parameters (none in plain) */
        size_t length = 0;
        const unsigned char *value = get_bytes(&r, &length);
        const char *content_type = get_string(&r, NULL);
        if (r.bad || r.at > end) return -1;
        for (int i = 0; i < count; i++) {
            if (secrets[i] || strcmp(paths[i], path) != 0 || !is_password(value, length, content_type)) continue;
            secrets[i] = malloc(length + 1);
            if (!secrets[i]) return -1;
            memcpy(secrets[i], value, length);
            secrets[i][length] = 0;
            lengths[i] = length;
            taken++;
        }
    }
    return !r.bad && taken == count ? 1 : (r.bad ? -1 : 0);
}

static int read_items(connection *c, const char *const *paths, int count, char **secrets, size_t *lengths) {
    buffer out = { .length = 0 }, none = { .length = 0 }, body = { .length = 0 };
    /* Hello and the Service's Collections property, sent with the handshake; both answers awaited
     * before the session is opened (docs/development/reliability.md: the order every portal-auth read keeps). */
    put_call(&out, 1, 0, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", "", &none);
    put_string(&body, SECRET_SERVICE);
    put_string(&body, "Collections");
    put_call(&out, 2, 0, SECRET_BUS, SECRET_PATH, "org.freedesktop.DBus.Properties", "Get", "ss", &body);
    if (out.overflow || open_bus(c, &out) != 0) return -1;
    if (read_reply(c, 1) != 1 || read_reply(c, 2) != 1) return -1;
    out.length = 0;
    body.length = 0;
    put_string(&body, "plain");
    put_signature(&body, "s");
    put_string(&body, "");
    put_call(&out, 3, 0, SECRET_BUS, SECRET_PATH, SECRET_SERVICE, "OpenSession", "sv", &body);
    if (out.overflow || write_fully(c->fd, out.data, out.length) != 0 || read_reply(c, 3) != 1) return -1;
    if (strcmp(c->signature, "vo") != 0) return -1;
    reader r = { c->message, c->length, c->body_at, 0 };
    const char *output = get_signature(&r);
    if (!output || strcmp(output, "s") != 0) return -1;
    get_string(&r, NULL);
    const char *opened = get_string(&r, NULL);
    if (r.bad || !opened || strlen(opened) >= 256) return -1;
    char session[256];
    snprintf(session, sizeof session, "%s", opened);
    out.length = 0;
    body.length = 0;
    put_u32(&body, 0); /* the array's length, written below */
    size_t start = body.length;
    for (int i = 0; i < count; i++) put_string(&body, paths[i]);
    uint32_t size = (uint32_t)(body.length - start);
    memcpy(body.data, (unsigned char[4]){ (unsigned char)size, (unsigned char)(size >> 8), (unsigned char)(size >> 16),
                                          (unsigned char)(size >> 24) }, 4);
    put_string(&body, session);
    put_call(&out, 4, 0, SECRET_BUS, SECRET_PATH, SECRET_SERVICE, "GetSecrets", "aoo", &body);
    /* The session's Close goes with it, expecting no reply (the service closes it with the connection too). */
    put_call(&out, 5, 1, SECRET_BUS, session, "org.freedesktop.Secret.Session", "Close", "", &none);
    if (out.overflow || write_fully(c->fd, out.data, out.length) != 0) return -1;
    int answer = read_reply(c, 4);
    if (answer != 1) return answer == 0 ? 0 : -1;
    return take_secrets(c, paths, count, secrets, lengths);
}

int pa_front_read_plain(const char *const *paths, int count, char **secrets, size_t *lengths) {
    if (count < 1 || count > 8) return 0;
    for (int i = 0; i < count; i++) {
        secrets[i] = NULL;
        if (strlen(paths[i]) > 1024) return 0;
    }
    connection c = { .fd = -1 };
    int result = read_items(&c, paths, count, secrets, lengths);
    drop_message(&c);
    if (c.fd >= 0) close(c.fd);
    if (result != 1) {
        for (int i = 0; i < count; i++) {
            if (!secrets[i]) continue;
            pa_front_wipe(secrets[i], lengths[i]);
            free(secrets[i]);
            secrets[i] = NULL;
        }
    }
    return result;
}
