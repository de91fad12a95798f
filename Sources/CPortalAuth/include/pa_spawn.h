#ifndef PA_SPAWN_H
#define PA_SPAWN_H
#include <sys/types.h>

/* Starting child processes without leaking descriptors.
 *
 * Foundation's Process on Linux can hand a pipe opened by one thread to a child started by
 * another at the same moment; a long-lived child (a keyring daemon, a browser) then holds the
 * pipe open and its reader never sees end-of-file. pa_spawn gives the child exactly three
 * descriptors and closes every other one, and pa_pipe_cloexec makes pipes that no other child
 * can inherit. The browser launcher (OAuth, IAP) and the tests' subprocess helper use them. */

/* pipe2(fds, O_CLOEXEC). Returns 0, or -1 with errno set. */
int pa_pipe_cloexec(int fds[2]);

/* Starts `path` (a bare name is looked up in PATH) with `argv` and `envp` (NULL-terminated). The child's standard input, output
 * and error are `in_fd`, `out_fd`, `err_fd` (-1: /dev/null); every other descriptor is closed;
 * signal mask and dispositions are reset (SIGPIPE included); with `new_group` the child leads a
 * process group of its own so it and its children can be signalled together.
 * Returns 0 and sets *pid, or an errno value. */
int pa_spawn(const char *path, char *const argv[], char *const envp[],
             int in_fd, int out_fd, int err_fd, int new_group, pid_t *pid);

/* waitpid(pid, &status, nohang ? WNOHANG : 0), retried on EINTR. Returns the pid, 0 when it is
 * still running (nohang), or -1. *exit_code is the exit status, or 128 + the signal number. */
pid_t pa_wait(pid_t pid, int nohang, int *exit_code);

#endif
