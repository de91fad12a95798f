#ifndef PA_PROCESS_H
#define PA_PROCESS_H

/* Process-wide protection of the secrets a process holds in memory. */

/* No core dump for this process: RLIMIT_CORE 0 (soft and hard, so a child cannot raise it either)
 * and prctl(PR_SET_DUMPABLE, 0), which also covers a core_pattern pipe (systemd-coredump, apport)
 * that ignores RLIMIT_CORE and keeps other processes of the same user from ptrace-attaching.
 * Returns 0, or the errno of the call that failed (the other is still made). */
int pa_disable_core_dumps(void);

/* Names the calling thread (what `top -H`, perf and /proc/thread-self/comm show; cut to 15 bytes). */
void pa_name_current_thread(const char *name);

#endif
