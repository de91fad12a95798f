#include "pa_process.h"
#include <errno.h>
#include <sys/prctl.h>
#include <sys/resource.h>

int pa_disable_core_dumps(void) {
    int failure = 0;
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) failure = errno;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 && !failure) failure = errno;
    return failure;
}

void pa_name_current_thread(const char *name) {
    /* (PR_SET_NAME: the calling thread's name, cut to 15 bytes.) */
    (void)prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}
