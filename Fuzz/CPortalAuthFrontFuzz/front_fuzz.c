/* The fuzz entry of the small portal-auth's D-Bus reader: front.c compiled here, unchanged, with its
 * static functions in reach, and its public functions renamed so that nothing clashes with
 * CPortalAuthFront in a binary that links both. The bytes are read from a memfd, so any length
 * fits (a pipe would block past its buffer). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define pa_front_wipe pa_front_fuzz_copy_wipe
#define pa_front_disable_core_dumps pa_front_fuzz_copy_disable_core_dumps
#define pa_front_read_plain pa_front_fuzz_copy_read_plain
#include "../../Sources/CPortalAuthFront/front.c"
#include "pa_front_fuzz.h"
#include <sys/mman.h>

int pa_front_fuzz_reply(const unsigned char *data, size_t length) {
    int fd = memfd_create("pa-front-fuzz", MFD_CLOEXEC);
    if (fd < 0) return -1;
    for (size_t done = 0; done < length;) {
        ssize_t n = write(fd, data + done, length - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { close(fd); return -1; }
        done += (size_t)n;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) { close(fd); return -1; }
    static const char *const paths[2] = { "/org/freedesktop/secrets/collection/login/1",
                                          "/org/freedesktop/secrets/collection/login/2" };
    char *secrets[2] = { NULL, NULL };
    size_t lengths[2] = { 0, 0 };
    connection c = { .fd = fd };
    int result = read_reply(&c, 4);
    if (result == 1) result = take_secrets(&c, paths, 2, secrets, lengths);
    for (int i = 0; i < 2; i++) {
        if (!secrets[i]) continue;
        pa_front_wipe(secrets[i], lengths[i]);
        free(secrets[i]);
    }
    drop_message(&c);
    close(fd);
    return result;
}
