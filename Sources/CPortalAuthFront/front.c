#include "pa_front.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

/* GLib's types, opaque here: no GLib header is needed, and nothing links GLib. */
typedef struct GError { unsigned int domain; int code; char *message; } GError;
typedef void GVariant;
typedef void GDBusConnection;

#define PA_SECRET_BUS "org.freedesktop.secrets"
#define PA_SECRET_PATH "/org/freedesktop/secrets"
#define PA_SECRET_SERVICE "org.freedesktop.Secret.Service"
#define G_BUS_TYPE_SESSION 2
#define G_CHECKSUM_SHA256 2

static struct {
    int loaded;
    GDBusConnection *(*bus_get_sync)(int, void *, GError **);
    GVariant *(*call_sync)(GDBusConnection *, const char *, const char *, const char *, const char *, GVariant *,
                           const char *, int, int, void *, GError **);
    void (*call)(GDBusConnection *, const char *, const char *, const char *, const char *, GVariant *, const char *,
                 int, int, void *, void *, void *);
    GVariant *(*variant_new)(const char *, ...);
    GVariant *(*variant_new_string)(const char *);
    void (*variant_get)(GVariant *, const char *, ...);
    int (*variant_lookup)(GVariant *, const char *, const char *, ...);
    GVariant *(*variant_get_child_value)(GVariant *, size_t);
    const void *(*variant_get_fixed_array)(GVariant *, size_t *, size_t);
    void (*variant_unref)(GVariant *);
    void (*object_unref)(void *);
    void (*error_free)(GError *);
    int (*utf8_validate)(const char *, long, const char **);
    char *(*compute_checksum_for_data)(int, const unsigned char *, size_t);
    void (*free)(void *);
} gio;

static pthread_once_t gio_once = PTHREAD_ONCE_INIT;

#define RESOLVE(field, name)                                   \
    do {                                                       \
        if (!(*(void **)&gio.field = dlsym(handle, name))) return; \
    } while (0)

static void load_gio(void) {
    void *handle = dlopen("libgio-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return;
    RESOLVE(bus_get_sync, "g_bus_get_sync");
    RESOLVE(call_sync, "g_dbus_connection_call_sync");
    RESOLVE(call, "g_dbus_connection_call");
    RESOLVE(variant_new, "g_variant_new");
    RESOLVE(variant_new_string, "g_variant_new_string");
    RESOLVE(variant_get, "g_variant_get");
    RESOLVE(variant_lookup, "g_variant_lookup");
    RESOLVE(variant_get_child_value, "g_variant_get_child_value");
    RESOLVE(variant_get_fixed_array, "g_variant_get_fixed_array");
    RESOLVE(variant_unref, "g_variant_unref");
    RESOLVE(object_unref, "g_object_unref");
    RESOLVE(error_free, "g_error_free");
    RESOLVE(utf8_validate, "g_utf8_validate");
    RESOLVE(compute_checksum_for_data, "g_compute_checksum_for_data");
    RESOLVE(free, "g_free");
    gio.loaded = 1;
}

static int have_gio(void) {
    pthread_once(&gio_once, load_gio);
    return gio.loaded;
}

void pa_front_wipe(void *data, size_t length) {
    volatile unsigned char *bytes = data;
    for (size_t i = 0; i < length; i++) bytes[i] = 0;
}

static GVariant *service_call(GDBusConnection *bus, const char *path, const char *interface, const char *method,
                              GVariant *parameters, const char *reply_type, GError **gerror) {
    return gio.call_sync(bus, PA_SECRET_BUS, path, interface, method, parameters, reply_type, 0, -1, NULL, gerror);
}

/* libsecret's test for a password, as secret.c's is_password. */
static int is_password(const char *data, size_t length, const char *content_type) {
    if (content_type && strcmp(content_type, "text/plain") == 0) return 1;
    if (!content_type || strcmp(content_type, "application/octet-stream") == 0)
        return gio.utf8_validate(data, (long)length, NULL);
    return 0;
}

/* The secrets of every item in the reply of GetSecrets; 1 all found, 0 not. */
static int take_secrets(GVariant *reply, const char *const *paths, int count, char **secrets, size_t *lengths) {
    GVariant *found = gio.variant_get_child_value(reply, 0);
    int taken = 0;
    for (; taken < count; taken++) {
        GVariant *value = NULL;
        const char *content_type = NULL;
        if (!gio.variant_lookup(found, paths[taken], "(o@ay@ay&s)", NULL, NULL, &value, &content_type)) break;
        size_t length = 0;
        char *data = (char *)gio.variant_get_fixed_array(value, &length, 1);
        char *copy = is_password(data, length, content_type) ? malloc(length + 1) : NULL;
        if (copy) {
            memcpy(copy, data, length);
            copy[length] = 0;
        }
        if (length > 0) pa_front_wipe(data, length); /* GDBus's decoded copy */
        gio.variant_unref(value);
        if (!copy) break;
        secrets[taken] = copy;
        lengths[taken] = length;
    }
    gio.variant_unref(found);
    if (taken == count) return 1;
    for (int i = 0; i < taken; i++) {
        pa_front_wipe(secrets[i], lengths[i]);
        free(secrets[i]);
        secrets[i] = NULL;
    }
    return 0;
}

int pa_front_read_plain(const char *const *paths, int count, char **secrets, size_t *lengths) {
    if (count < 1 || count > 8 || !have_gio()) return 0;
    GError *gerror = NULL;
    GDBusConnection *bus = gio.bus_get_sync(G_BUS_TYPE_SESSION, NULL, &gerror);
    if (!bus) {
        if (gerror) gio.error_free(gerror);
        return -1;
    }
    int result = -1;
    GVariant *greeting = service_call(bus, PA_SECRET_PATH, "org.freedesktop.DBus.Properties", "Get",
                                      gio.variant_new("(ss)", PA_SECRET_SERVICE, "Collections"), "(v)", &gerror);
    GVariant *opened = NULL;
    if (greeting) {
        gio.variant_unref(greeting);
        opened = service_call(bus, PA_SECRET_PATH, PA_SECRET_SERVICE, "OpenSession",
                              gio.variant_new("(sv)", "plain", gio.variant_new_string("")), "(vo)", &gerror);
    }
    if (opened) {
        const char *session = NULL;
        gio.variant_get(opened, "(v&o)", NULL, &session);
        const char *items[9] = { 0 };
        for (int i = 0; i < count; i++) items[i] = paths[i];
        GVariant *reply = service_call(bus, PA_SECRET_PATH, PA_SECRET_SERVICE, "GetSecrets",
                                       gio.variant_new("(^ao&o)", items, session), "(a{o(oayays)})", &gerror);
        if (reply) {
            result = take_secrets(reply, paths, count, secrets, lengths);
            gio.variant_unref(reply);
        }
        gio.call(bus, PA_SECRET_BUS, session, "org.freedesktop.Secret.Session", "Close", NULL, NULL, 0, -1, NULL,
                 NULL, NULL);
        gio.variant_unref(opened);
    }
    if (gerror) gio.error_free(gerror);
    gio.object_unref(bus);
    return result;
}

int pa_front_sha256_hex(const char *data, size_t length, char *hex) {
    if (!have_gio()) return -1;
    char *digest = gio.compute_checksum_for_data(G_CHECKSUM_SHA256, (const unsigned char *)data, length);
    if (!digest || strlen(digest) != 64) {
        if (digest) gio.free(digest);
        return -1;
    }
    memcpy(hex, digest, 65);
    gio.free(digest);
    return 0;
}

int pa_front_disable_core_dumps(void) {
    int failure = 0;
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) failure = errno;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 && !failure) failure = errno;
    return failure;
}
