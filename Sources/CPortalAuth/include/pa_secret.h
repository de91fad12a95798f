#ifndef PA_SECRET_H
#define PA_SECRET_H
/* libsecret for portal-auth: the SecretSchema, GHashTable helpers, and wrappers over the *v_sync
 * and secret_service_* calls that hand GError details back as plain values. */
#include <libsecret/secret.h>

/* "org.portal-auth.Credential": application, store, server, kind, username (strings),
 * SECRET_SCHEMA_DONT_MATCH_NAME so `secret-tool search` finds the items. */
const SecretSchema *pa_secret_schema(void);

/* A GError's parts, copied out (the message is truncated to fit). */
typedef struct {
    int set;
    unsigned int domain;
    int code;
    char domain_name[128];
    char message[512];
} pa_secret_error;

/* An attribute table from parallel arrays (values NULL are skipped). Free with g_hash_table_unref. */
GHashTable *pa_secret_attributes_new(const char *const *keys, const char *const *values, int n);

/* 0 ok, -1 error. */
int pa_secret_store(GHashTable *attributes, const char *label, const char *secret, pa_secret_error *error);
/* The secret (free with pa_secret_free) or NULL (not found, or error->set). */
char *pa_secret_lookup(GHashTable *attributes, pa_secret_error *error);
void pa_secret_free(char *secret);
/* The fast read: the first unlocked item matching attributes, its secret read over GDBus in a Secret
 * Service session with the spec's `plain` algorithm (no key exchange; secret.c says why that is safe).
 * 1: *secret set (free with pa_secret_free: non-pageable memory, wiped); 0: no item; -2: only locked
 * items match, or the secret is not text (read it with pa_secret_lookup, which prompts or decides);
 * -1: error (error set; pa_secret_lookup reports it as it always did). On 1, *item_path (when
 * item_path is not NULL) is the item's D-Bus object path (free with g_free). */
int pa_secret_lookup_plain(GHashTable *attributes, char **secret, char **item_path, pa_secret_error *error);
/* The secret of the item at item_path (a D-Bus object path pa_secret_lookup_plain gave), read as
 * pa_secret_lookup_plain reads it, without a search. 1: *secret set (pa_secret_free); 0: no such
 * item, a locked one, not text, or not an object path; -1: error (error set). */
int pa_secret_read_plain(const char *item_path, char **secret, pa_secret_error *error);
/* Whether any item (locked or not) matches: 1 yes, 0 no, -1 error, -2 when the default collection
 * is missing or locked (pa_secret_check says which). Three small D-Bus calls (the default
 * collection's alias and Locked property, SearchItems), no session and no secret transferred, so
 * no key exchange. */
int pa_secret_exists(GHashTable *attributes, pa_secret_error *error);
/* Stores the item (Secret Service CreateItem with replace: an item with exactly these attributes
 * is replaced in place, so readers never miss it), then deletes every other item matching scope
 * (which must match the item). Number of other items removed, or -1. Not atomic across
 * processes on its own: callers hold a lock around it. */
int pa_secret_replace(GHashTable *attributes, GHashTable *scope, const char *label, const char *secret,
                      pa_secret_error *error);
/* Number removed, or -1. Removes every match. */
int pa_secret_clear_all(GHashTable *attributes, pa_secret_error *error);

/* Search results: attributes (as "key\0value\0...\0\0" blocks) and optional secrets. */
typedef struct pa_secret_item_list pa_secret_item_list;
pa_secret_item_list *pa_secret_search(GHashTable *attributes, int with_secrets, pa_secret_error *error);
int pa_secret_item_count(const pa_secret_item_list *list);
/* The attribute value for key of item i, or NULL. */
const char *pa_secret_item_attribute(const pa_secret_item_list *list, int i, const char *key);
/* The secret text of item i, or NULL when not loaded. */
const char *pa_secret_item_secret(const pa_secret_item_list *list, int i);
void pa_secret_item_list_free(pa_secret_item_list *list);

/* Service state: 0 ok, 1 no Secret Service (error set), 2 no default collection, 3 default collection locked. */
int pa_secret_check(pa_secret_error *error);
#endif
