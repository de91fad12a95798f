#ifndef PA_GSS_H
#define PA_GSS_H
/* GSS-API (MIT Kerberos' libgssapi_krb5.so.2), loaded with dlopen on first use, for HTTP Negotiate.
 * libcurl does the SPNEGO exchange itself with the default credential cache; these helpers say
 * whether the user has a usable ticket there, and obtain one from a password when not. */
#include <stddef.h>

/* Copies the principal of the user's current, unexpired Kerberos ticket (the default credential
 * cache, KRB5CCNAME) into out. Returns 0, or -1 when there is none (or GSS-API is not installed). */
int pa_gss_ticket_principal(char *out, size_t outlen);

/* Obtains a ticket for principal ("alice" or "alice@REALM") with password and stores it in the
 * credential cache ccache (for example "MEMORY:portal-auth"); *lifetime gets its seconds left.
 * The environment is not changed: threads that call pa_gss_apply_thread_ccache use that cache from
 * then on. Returns 0, or -1 with GSS-API's reason in err. */
int pa_gss_obtain_ticket(const char *principal, const char *password, const char *ccache, unsigned int *lifetime, char *err, size_t errlen);

/* Makes the calling thread's GSS-API calls (libcurl's Negotiate, on the HTTP event-loop thread)
 * use the cache the last pa_gss_obtain_ticket filled (gss_krb5_ccache_name is per thread). Cheap
 * when nothing changed; does nothing before a ticket was obtained. */
void pa_gss_apply_thread_ccache(void);
#endif
