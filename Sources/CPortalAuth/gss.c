#include "pa_gss.h"
#include "pa_dl.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few GSS-API types needed (RFC 2744; MIT's gss_key_value_set for gss_store_cred_into), so
 * that building needs no Kerberos headers. */
typedef uint32_t OM_uint32;
typedef struct { OM_uint32 length; void *elements; } gss_OID_desc, *gss_OID;
typedef struct { size_t count; gss_OID elements; } gss_OID_set_desc, *gss_OID_set;
typedef struct { size_t length; void *value; } gss_buffer_desc, *gss_buffer_t;
typedef struct gss_name_struct *gss_name_t;
typedef struct gss_cred_id_struct *gss_cred_id_t;
typedef struct { const char *key; const char *value; } gss_key_value_element_desc;
typedef struct { OM_uint32 count; gss_key_value_element_desc *elements; } gss_key_value_set_desc;

#define GSS_C_INITIATE 1
#define GSS_C_GSS_CODE 1
#define GSS_C_MECH_CODE 2
#define GSS_ERROR(x) ((x) & 0xffff0000u)

static gss_OID_desc krb5_mech = {9, "\x2a\x86\x48\x86\xf7\x12\x01\x02\x02"};
static gss_OID_desc user_name = {10, "\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x01"};
static gss_OID_set_desc krb5_only = {1, &krb5_mech};

static struct {
    OM_uint32 (*import_name)(OM_uint32 *, gss_buffer_t, gss_OID, gss_name_t *);
    OM_uint32 (*acquire_cred)(OM_uint32 *, gss_name_t, OM_uint32, gss_OID_set, int, gss_cred_id_t *, gss_OID_set *, OM_uint32 *);
    OM_uint32 (*acquire_cred_with_password)(OM_uint32 *, gss_name_t, gss_buffer_t, OM_uint32, gss_OID_set, int, gss_cred_id_t *, gss_OID_set *, OM_uint32 *);
    OM_uint32 (*store_cred_into)(OM_uint32 *, gss_cred_id_t, int, gss_OID, OM_uint32, OM_uint32, const gss_key_value_set_desc *, gss_OID_set *, int *);
    OM_uint32 (*inquire_cred)(OM_uint32 *, gss_cred_id_t, gss_name_t *, OM_uint32 *, int *, gss_OID_set *);
    OM_uint32 (*display_name)(OM_uint32 *, gss_name_t, gss_buffer_t, gss_OID *);
    OM_uint32 (*display_status)(OM_uint32 *, OM_uint32, int, gss_OID, OM_uint32 *, gss_buffer_t);
    OM_uint32 (*release_name)(OM_uint32 *, gss_name_t *);
    OM_uint32 (*release_cred)(OM_uint32 *, gss_cred_id_t *);
    OM_uint32 (*release_buffer)(OM_uint32 *, gss_buffer_t);
    OM_uint32 (*krb5_ccache_name)(OM_uint32 *, const char *, const char **);
} api;

/* The cache tickets obtained with a password went to, and a generation number the threads that
 * use it compare with theirs. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static char cache_name[256];
static atomic_int cache_generation;
static _Thread_local int applied_generation;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status = -1;
static char load_error[256];

static void load(void) {
    pa_dl lib = {NULL, "libgssapi_krb5", load_error, sizeof load_error};
    if (pa_dl_open(&lib, (const char *const[]){"libgssapi_krb5.so.2", NULL},
                   "libgssapi_krb5.so.2 is not installed (apt-get install libgssapi-krb5-2)") != 0)
        return;
    PA_RESOLVE(&lib, api.import_name, "gss_import_name");
    PA_RESOLVE(&lib, api.acquire_cred, "gss_acquire_cred");
    PA_RESOLVE(&lib, api.acquire_cred_with_password, "gss_acquire_cred_with_password");
    PA_RESOLVE(&lib, api.store_cred_into, "gss_store_cred_into");
    PA_RESOLVE(&lib, api.inquire_cred, "gss_inquire_cred");
    PA_RESOLVE(&lib, api.display_name, "gss_display_name");
    PA_RESOLVE(&lib, api.display_status, "gss_display_status");
    PA_RESOLVE(&lib, api.release_name, "gss_release_name");
    PA_RESOLVE(&lib, api.release_cred, "gss_release_cred");
    PA_RESOLVE(&lib, api.release_buffer, "gss_release_buffer");
    PA_RESOLVE(&lib, api.krb5_ccache_name, "gss_krb5_ccache_name");
    status = 0;
}

/* GSS-API's words for a failure: the mechanism's (Kerberos) message when there is one. */
static void describe(OM_uint32 major, OM_uint32 minor, char *err, size_t errlen) {
    if (!err || !errlen) return;
    err[0] = 0;
    OM_uint32 context = 0, ignored;
    gss_buffer_desc text = {0, NULL};
    int type = minor ? GSS_C_MECH_CODE : GSS_C_GSS_CODE;
    if (api.display_status(&ignored, minor ? minor : major, type, minor ? &krb5_mech : NULL, &context, &text) == 0 && text.value) {
        snprintf(err, errlen, "%.*s", (int)text.length, (const char *)text.value);
        api.release_buffer(&ignored, &text);
    } else {
        snprintf(err, errlen, "GSS-API major %u minor %u", major, minor);
    }
}

int pa_gss_ticket_principal(char *out, size_t outlen) {
    pthread_once(&once, load);
    if (status != 0) return -1;
    OM_uint32 minor = 0, lifetime = 0, ignored;
    gss_cred_id_t cred = NULL;
    OM_uint32 major = api.acquire_cred(&minor, NULL, 0, &krb5_only, GSS_C_INITIATE, &cred, NULL, &lifetime);
    if (GSS_ERROR(major) || !cred) return -1;
    gss_name_t name = NULL;
    int rc = -1;
    major = api.inquire_cred(&minor, cred, &name, &lifetime, NULL, NULL);
    if (!GSS_ERROR(major) && lifetime > 30 && name) {
        gss_buffer_desc text = {0, NULL};
        if (!GSS_ERROR(api.display_name(&minor, name, &text, NULL)) && text.value) {
            snprintf(out, outlen, "%.*s", (int)text.length, (const char *)text.value);
            api.release_buffer(&ignored, &text);
            rc = 0;
        }
    }
    if (name) api.release_name(&ignored, &name);
    api.release_cred(&ignored, &cred);
    return rc;
}

int pa_gss_obtain_ticket(const char *principal, const char *password, const char *ccache, unsigned int *lifetime, char *err, size_t errlen) {
    pthread_once(&once, load);
    if (status != 0) { snprintf(err, errlen, "%s", load_error); return -1; }
    OM_uint32 minor = 0, ignored;
    gss_buffer_desc name_text = {strlen(principal), (void *)principal};
    gss_name_t name = NULL;
    OM_uint32 major = api.import_name(&minor, &name_text, &user_name, &name);
    if (GSS_ERROR(major)) { describe(major, minor, err, errlen); return -1; }
    gss_buffer_desc secret = {strlen(password), (void *)password};
    gss_cred_id_t cred = NULL;
    OM_uint32 seconds = 0;
    major = api.acquire_cred_with_password(&minor, name, &secret, 0, &krb5_only, GSS_C_INITIATE, &cred, NULL, &seconds);
    api.release_name(&ignored, &name);
    if (GSS_ERROR(major)) { describe(major, minor, err, errlen); return -1; }
    gss_key_value_element_desc element = {"ccache", ccache};
    gss_key_value_set_desc store = {1, &element};
    major = api.store_cred_into(&minor, cred, GSS_C_INITIATE, &krb5_mech, 1, 1, &store, NULL, NULL);
    api.release_cred(&ignored, &cred);
    if (GSS_ERROR(major)) { describe(major, minor, err, errlen); return -1; }
    if (lifetime) *lifetime = seconds;
    pthread_mutex_lock(&cache_lock);
    snprintf(cache_name, sizeof cache_name, "%s", ccache);
    pthread_mutex_unlock(&cache_lock);
    atomic_fetch_add(&cache_generation, 1);
    return 0;
}

void pa_gss_apply_thread_ccache(void) {
    int generation = atomic_load(&cache_generation);
    if (generation == applied_generation || status != 0) return;
    char name[256];
    pthread_mutex_lock(&cache_lock);
    snprintf(name, sizeof name, "%s", cache_name);
    pthread_mutex_unlock(&cache_lock);
    OM_uint32 minor = 0;
    api.krb5_ccache_name(&minor, name, NULL);
    applied_generation = generation;
}
