#ifndef PA_FRONT_FUZZ_H
#define PA_FRONT_FUZZ_H

#include <stddef.h>

/// Feeds `data` to the small portal-auth's D-Bus reader (Sources/CPortalAuthFront/front.c) as what
/// the bus sent after the handshake: read_reply awaits the reply to GetSecrets (serial 4, signals
/// skipped) and, on a method return, take_secrets takes two items' secrets from it, as the real read
/// does; everything is freed. Returns read_reply's or take_secrets' result (1, 0 or -1).
int pa_front_fuzz_reply(const unsigned char *data, size_t length);

#endif
