#ifndef PA_FRONT_H
#define PA_FRONT_H
/* What the small `portal-auth` program (Sources/portal-auth-front) needs of C: reading items of the
 * Secret Service in a `plain` session over its own D-Bus connection (no GLib: front.c), the SHA-256
 * of a secret (sha256.c; the library computes the same with GLib),
 * and turning core dumps off before a secret is read. */
#include <stddef.h>

/* Reads the secrets of the `count` items at the D-Bus object paths `paths` (at most 8) in one
 * Service.GetSecrets of a `plain` session, after the Service's `Collections` property (the order
 * every portal-auth read keeps: docs/development/reliability.md). On 1 every secrets[i] is a malloc'd copy of
 * lengths[i] bytes (plus a NUL) for the caller to wipe (pa_front_wipe) and free; on 0 (an item
 * missing, locked or not a password, or an address other than unix:) or -1 (an error) none is set. */
int pa_front_read_plain(const char *const *paths, int count, char **secrets, size_t *lengths);

/* The lower-case hexadecimal SHA-256 of `length` bytes into `hex` (65 bytes); 0.
 */
int pa_front_sha256_hex(const char *data, size_t length, char *hex);

/* Zeroes `length` bytes in a way the compiler keeps. */
void pa_front_wipe(void *data, size_t length);

/* No core dump for this process, as pa_disable_core_dumps (Sources/CPortalAuth/process.c) does:
 * RLIMIT_CORE 0 and prctl(PR_SET_DUMPABLE, 0). 0, or the errno of the call that failed. */
int pa_front_disable_core_dumps(void);

#endif
