/* secret_service_search_for_dbus_paths_sync (secret-paths.h, stable since libsecret 0.7 but
 * behind this acknowledgement). */
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include "pa_secret.h"
#include <string.h>

const SecretSchema *pa_secret_schema(void) {
    static const SecretSchema schema = {
        "org.portal-auth.Credential", SECRET_SCHEMA_DONT_MATCH_NAME,
        {
            { "application", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "store", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "server", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "username", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

static void take_error(GError *gerror, pa_secret_error *error) {
    if (!gerror) return;
    if (error) {
        error->set = 1;
        error->domain = gerror->domain;
        error->code = gerror->code;
        g_strlcpy(error->domain_name, g_quark_to_string(gerror->domain), sizeof error->domain_name);
        g_strlcpy(error->message, gerror->message ? gerror->message : "", sizeof error->message);
    }
    g_error_free(gerror);
}

GHashTable *pa_secret_attributes_new(const char *const *keys, const char *const *values, int n) {
    GHashTable *table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    for (int i = 0; i < n; i++) {
        if (values[i]) g_hash_table_insert(table, g_strdup(keys[i]), g_strdup(values[i]));
    }
    return table;
}

int pa_secret_store(GHashTable *attributes, const char *label, const char *secret, pa_secret_error *error) {
    GError *gerror = NULL;
    gboolean ok = secret_password_storev_sync(pa_secret_schema(), attributes, SECRET_COLLECTION_DEFAULT, label, secret, NULL, &gerror);
    take_error(gerror, error);
    return ok ? 0 : -1;
}

char *pa_secret_lookup(GHashTable *attributes, pa_secret_error *error) {
    GError *gerror = NULL;
    char *secret = secret_password_lookupv_sync(pa_secret_schema(), attributes, NULL, &gerror);
    take_error(gerror, error);
    return secret;
}

/* Whether the default collection exists and is unlocked, as pa_secret_check's 0, 2 or 3, in two
 * small D-Bus calls (ReadAlias, then its Locked property), without loading the collection (whose
 * Items property lists every item). -1 on error. */
static int default_collection_state(SecretService *service, GError **gerror) {
    GVariant *alias = g_dbus_proxy_call_sync(G_DBUS_PROXY(service), "ReadAlias", g_variant_new("(s)", "default"),
                                             G_DBUS_CALL_FLAGS_NONE, -1, NULL, gerror);
    if (!alias) return -1;
    const gchar *path = NULL;
    g_variant_get(alias, "(&o)", &path);
    if (g_strcmp0(path, "/") == 0) { g_variant_unref(alias); return 2; }
    GVariant *reply = g_dbus_connection_call_sync(
        g_dbus_proxy_get_connection(G_DBUS_PROXY(service)), g_dbus_proxy_get_name(G_DBUS_PROXY(service)), path,
        "org.freedesktop.DBus.Properties", "Get", g_variant_new("(ss)", "org.freedesktop.Secret.Collection", "Locked"),
        G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, gerror);
    g_variant_unref(alias);
    if (!reply) return -1;
    GVariant *value = NULL;
    g_variant_get(reply, "(v)", &value);
    int state = g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN) && g_variant_get_boolean(value) ? 3 : 0;
    g_variant_unref(value);
    g_variant_unref(reply);
    return state;
}

int pa_secret_exists(GHashTable *attributes, pa_secret_error *error) {
    GError *gerror = NULL;
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_NONE, NULL, &gerror);
    if (!service) { take_error(gerror, error); return -1; }
    int state = default_collection_state(service, &gerror);
    if (state != 0) {
        g_object_unref(service);
        if (state < 0) { take_error(gerror, error); return -1; }
        return -2;
    }
    gchar **unlocked = NULL, **locked = NULL;
    gboolean ok = secret_service_search_for_dbus_paths_sync(service, pa_secret_schema(), attributes, NULL, &unlocked,
                                                            &locked, &gerror);
    int found = ok && ((unlocked && unlocked[0]) || (locked && locked[0]));
    g_strfreev(unlocked);
    g_strfreev(locked);
    g_object_unref(service);
    if (!ok) { take_error(gerror, error); return -1; }
    return found;
}

void pa_secret_free(char *secret) {
    if (secret) secret_password_free(secret);
}

struct pa_secret_item {
    GHashTable *attributes;
    char *secret;
};

struct pa_secret_item_list {
    int count;
    struct pa_secret_item *items;
};

pa_secret_item_list *pa_secret_search(GHashTable *attributes, int with_secrets, pa_secret_error *error) {
    GError *gerror = NULL;
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, NULL, &gerror);
    if (!service) { take_error(gerror, error); return NULL; }
    SecretSearchFlags flags = SECRET_SEARCH_ALL | (with_secrets ? SECRET_SEARCH_LOAD_SECRETS : 0);
    GList *found = secret_service_search_sync(service, pa_secret_schema(), attributes, flags, NULL, &gerror);
    if (gerror) { take_error(gerror, error); g_object_unref(service); return NULL; }
    pa_secret_item_list *list = g_new0(pa_secret_item_list, 1);
    list->count = (int)g_list_length(found);
    list->items = g_new0(struct pa_secret_item, list->count > 0 ? list->count : 1);
    int i = 0;
    for (GList *l = found; l; l = l->next, i++) {
        SecretItem *item = l->data;
        list->items[i].attributes = secret_item_get_attributes(item);
        if (with_secrets) {
            SecretValue *value = secret_item_get_secret(item);
            if (value) {
                const gchar *text = secret_value_get_text(value);
                if (text) list->items[i].secret = g_strdup(text);
                secret_value_unref(value);
            }
        }
    }
    g_list_free_full(found, g_object_unref);
    g_object_unref(service);
    return list;
}

int pa_secret_item_count(const pa_secret_item_list *list) { return list ? list->count : 0; }

const char *pa_secret_item_attribute(const pa_secret_item_list *list, int i, const char *key) {
    if (!list || i < 0 || i >= list->count || !list->items[i].attributes) return NULL;
    return g_hash_table_lookup(list->items[i].attributes, key);
}

const char *pa_secret_item_secret(const pa_secret_item_list *list, int i) {
    if (!list || i < 0 || i >= list->count) return NULL;
    return list->items[i].secret;
}

void pa_secret_item_list_free(pa_secret_item_list *list) {
    if (!list) return;
    for (int i = 0; i < list->count; i++) {
        if (list->items[i].attributes) g_hash_table_unref(list->items[i].attributes);
        if (list->items[i].secret) {
            memset(list->items[i].secret, 0, strlen(list->items[i].secret));
            g_free(list->items[i].secret);
        }
    }
    g_free(list->items);
    g_free(list);
}

int pa_secret_clear_all(GHashTable *attributes, pa_secret_error *error) {
    pa_secret_item_list *list = pa_secret_search(attributes, 0, error);
    if (!list) return -1;
    int count = list->count;
    pa_secret_item_list_free(list);
    if (count == 0) return 0;
    GError *gerror = NULL;
    secret_password_clearv_sync(pa_secret_schema(), attributes, NULL, &gerror);
    if (gerror) { take_error(gerror, error); return -1; }
    return count;
}

/* Whether an item's attributes are exactly these (every schema attribute equal, or absent from both). */
static int same_attributes(GHashTable *item, GHashTable *attributes) {
    const SecretSchema *schema = pa_secret_schema();
    for (int i = 0; i < 32 && schema->attributes[i].name; i++) {
        const char *a = g_hash_table_lookup(item, schema->attributes[i].name);
        const char *b = g_hash_table_lookup(attributes, schema->attributes[i].name);
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0)) return 0;
    }
    return 1;
}

int pa_secret_replace(GHashTable *attributes, GHashTable *scope, const char *label, const char *secret,
                      pa_secret_error *error) {
    if (pa_secret_store(attributes, label, secret, error) != 0) return -1;
    GError *gerror = NULL;
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_NONE, NULL, &gerror);
    if (!service) { take_error(gerror, error); return -1; }
    GList *found = secret_service_search_sync(service, pa_secret_schema(), scope, SECRET_SEARCH_ALL, NULL, &gerror);
    int removed = 0;
    for (GList *l = found; l && !gerror; l = l->next) {
        SecretItem *item = l->data;
        GHashTable *item_attributes = secret_item_get_attributes(item);
        int keep = item_attributes && same_attributes(item_attributes, attributes);
        if (item_attributes) g_hash_table_unref(item_attributes);
        if (!keep && secret_item_delete_sync(item, NULL, &gerror)) removed++;
    }
    g_list_free_full(found, g_object_unref);
    g_object_unref(service);
    if (gerror) { take_error(gerror, error); return -1; }
    return removed;
}

int pa_secret_check(pa_secret_error *error) {
    GError *gerror = NULL;
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_NONE, NULL, &gerror);
    if (!service) { take_error(gerror, error); return 1; }
    SecretCollection *collection = secret_collection_for_alias_sync(service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, NULL, &gerror);
    if (gerror) { take_error(gerror, error); g_object_unref(service); return 1; }
    int state = 0;
    if (!collection) state = 2;
    else if (secret_collection_get_locked(collection)) state = 3;
    if (collection) g_object_unref(collection);
    g_object_unref(service);
    return state;
}

/* ---- The fast read: the Secret Service over GDBus with a `plain` session ----
 *
 * libsecret opens its session with dh-ietf1024-sha256-aes128-cbc-pkcs7: a 1024-bit Diffie-Hellman
 * exchange, most of a cached `token`'s CPU time. The Secret Service specification (7.2, "Algorithm:
 * plain") defines a `plain` algorithm that "does no encryption whatsoever", and recommends that every
 * service support it; its section 7 says the transfer encryption "is not envisioned to withstand man in
 * the middle attacks", only to keep plain text out of caches. On the user's own session bus it protects
 * nothing a reader could not get otherwise: any process of the same user may open its own session and
 * ask the Secret Service for the same secret, and only the user's processes (and root) can read the bus
 * or this process's memory. python's secretstorage and KeePassXC use plain too. So the read opens a
 * plain session; the secret is copied into libsecret's non-pageable memory (freed, and wiped, with
 * pa_secret_free as a libsecret read is), and the copy GDBus decoded is zeroed. (The raw D-Bus message
 * GDBus read from the socket is freed unwiped, as for any D-Bus reply; core dumps are off.)
 * Anything else (a locked item, which needs libsecret's prompt; a service refusing plain; an error)
 * goes to the libsecret path, so errors read as they always did. Writes stay on libsecret. */

#define PA_SECRET_BUS "org.freedesktop.secrets"
#define PA_SECRET_PATH "/org/freedesktop/secrets"
#define PA_SECRET_SERVICE "org.freedesktop.Secret.Service"

static GVariant *service_call(GDBusConnection *bus, const char *path, const char *interface, const char *method,
                              GVariant *parameters, const char *reply_type, GError **gerror) {
    return g_dbus_connection_call_sync(bus, PA_SECRET_BUS, path, interface, method, parameters,
                                       G_VARIANT_TYPE(reply_type), G_DBUS_CALL_FLAGS_NONE, -1, NULL, gerror);
}

static GVariant *attributes_variant(GHashTable *attributes) {
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE("a{ss}"));
    GHashTableIter iter;
    gpointer key, value;
    g_hash_table_iter_init(&iter, attributes);
    while (g_hash_table_iter_next(&iter, &key, &value)) g_variant_builder_add(&builder, "{ss}", key, value);
    return g_variant_builder_end(&builder);
}

/* Every connection's first call to the service is one that needs no client record, answered before
 * anything else is sent. gnome-keyring-daemon keeps a record per client, made by an idle callback that
 * its message filter queues (at high priority) for each incoming message; under load the callback can
 * run after the message's own method. OpenSession, SearchItems, GetSecrets, ReadAlias and a
 * collection's properties look the record up, pass the NULL on, and abort the daemon (`g_variant_new:
 * expected GVariant of type 'v' but received value has type '(null)'`; gnome-keyring 42.1 here, still
 * in 50.0, reported upstream as issues 190, 194, 196 and 199). Once this call's reply is back, the
 * record's callback was queued before anything sent next, at higher priority, so it runs first. The
 * Service's Collections property is answered through the daemon's own session, with no record.
 * libsecret does the same by design: its proxy loads the properties before any call, which is why its
 * clients did not crash the daemon in scripts/checks/repro-keyring-first-call-crash.py. Made on every read
 * (not once per connection): a restarted daemon has no record of an old connection. */
static int greet_service(GDBusConnection *bus, GError **gerror) {
    GVariant *reply = service_call(bus, PA_SECRET_PATH, "org.freedesktop.DBus.Properties", "Get",
                                   g_variant_new("(ss)", PA_SECRET_SERVICE, "Collections"), "(v)", gerror);
    if (!reply) return 0;
    g_variant_unref(reply);
    return 1;
}

/* Service.SearchItems: the first unlocked match into *path (g_free), and whether there are locked ones.
 * 1 an unlocked match, 0 none, 2 only locked ones, -1 error. */
static int search_first(GDBusConnection *bus, GHashTable *attributes, char **path, GError **gerror) {
    GVariant *reply = service_call(bus, PA_SECRET_PATH, PA_SECRET_SERVICE, "SearchItems",
                                   g_variant_new("(@a{ss})", attributes_variant(attributes)), "(aoao)", gerror);
    if (!reply) return -1;
    GVariantIter *unlocked = NULL, *locked = NULL;
    g_variant_get(reply, "(aoao)", &unlocked, &locked);
    const char *first = NULL;
    int state = g_variant_iter_next(unlocked, "&o", &first) ? 1 : (g_variant_iter_n_children(locked) > 0 ? 2 : 0);
    if (first) *path = g_strdup(first);
    g_variant_iter_free(unlocked);
    g_variant_iter_free(locked);
    g_variant_unref(reply);
    return state;
}

/* libsecret's test for a password (secret-value.c, is_password_value): text/plain, or no or an
 * octet-stream content type with valid UTF-8 (what gnome-keyring used to send). */
static int is_password(const char *data, gsize length, const char *content_type) {
    if (content_type && strcmp(content_type, "text/plain") == 0) return 1;
    if (!content_type || strcmp(content_type, "application/octet-stream") == 0)
        return g_utf8_validate(data, (gssize)length, NULL);
    return 0;
}

/* Service.GetSecrets for one item in a plain session (cheaper than Item.GetSecret in gnome-keyring,
 * which finds the item twice: 2.6 ms against 4.9 with 10,000 items). 1: *secret set, the text in
 * non-pageable memory; 0: no such item, a locked one (GetSecrets leaves both out) or not a password;
 * -1: error. */
static int plain_secret(GDBusConnection *bus, const char *item, const char *session, char **secret,
                        GError **gerror) {
    const char *items[] = { item, NULL };
    GVariant *reply = service_call(bus, PA_SECRET_PATH, PA_SECRET_SERVICE, "GetSecrets",
                                   g_variant_new("(^ao&o)", items, session), "(a{o(oayays)})", gerror);
    if (!reply) return -1;
    GVariant *found = g_variant_get_child_value(reply, 0);
    GVariant *value = NULL;
    const char *content_type = NULL;
    int result = 0;
    if (g_variant_lookup(found, item, "(o@ay@ay&s)", NULL, NULL, &value, &content_type)) {
        gsize length = 0;
        char *data = (char *)g_variant_get_fixed_array(value, &length, 1);
        if (is_password(data, length, content_type)) {
            *secret = secret_value_unref_to_password(
                secret_value_new(data, (gssize)length, content_type ? content_type : "text/plain"), NULL);
            result = *secret ? 1 : 0;
        }
        if (length > 0) memset(data, 0, length); /* GDBus's decoded copy (heap memory this reply owns) */
        g_variant_unref(value);
    }
    g_variant_unref(found);
    g_variant_unref(reply);
    return result;
}

/* OpenSession(plain), then plain_secret; the session is closed without waiting for the answer (the
 * service also closes it when this connection goes). */
static int read_in_plain_session(GDBusConnection *bus, const char *item, char **secret, GError **gerror) {
    GVariant *opened = service_call(bus, PA_SECRET_PATH, PA_SECRET_SERVICE, "OpenSession",
                                    g_variant_new("(sv)", "plain", g_variant_new_string("")), "(vo)", gerror);
    if (!opened) return -1;
    const char *session = NULL;
    g_variant_get(opened, "(v&o)", NULL, &session);
    int result = plain_secret(bus, item, session, secret, gerror);
    g_dbus_connection_call(bus, PA_SECRET_BUS, session, "org.freedesktop.Secret.Session", "Close", NULL, NULL,
                           G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
    g_variant_unref(opened);
    return result;
}

int pa_secret_lookup_plain(GHashTable *attributes, char **secret, char **item_path, pa_secret_error *error) {
    GError *gerror = NULL;
    *secret = NULL;
    if (item_path) *item_path = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &gerror);
    if (!bus) { take_error(gerror, error); return -1; }
    if (!greet_service(bus, &gerror)) { g_object_unref(bus); take_error(gerror, error); return -1; }
    char *item = NULL;
    int state = search_first(bus, attributes, &item, &gerror);
    if (state != 1) {
        g_object_unref(bus);
        if (state < 0) { take_error(gerror, error); return -1; }
        return state == 2 ? -2 : 0;
    }
    int read = read_in_plain_session(bus, item, secret, &gerror);
    int result = read == 1 ? 1 : (read < 0 ? -1 : -2);
    if (result == 1 && item_path) *item_path = item; else g_free(item);
    g_object_unref(bus);
    if (gerror) take_error(gerror, error);
    return result;
}

int pa_secret_read_plain(const char *item_path, char **secret, pa_secret_error *error) {
    GError *gerror = NULL;
    *secret = NULL;
    if (!g_variant_is_object_path(item_path)) return 0;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &gerror);
    if (!bus) { take_error(gerror, error); return -1; }
    int result = greet_service(bus, &gerror) ? read_in_plain_session(bus, item_path, secret, &gerror) : -1;
    g_object_unref(bus);
    if (gerror) take_error(gerror, error);
    return result;
}
