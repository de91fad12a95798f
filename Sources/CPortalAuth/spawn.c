#define _GNU_SOURCE
#include "pa_spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

int pa_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

static int route(posix_spawn_file_actions_t *actions, int fd, int target) {
    if (fd < 0) return posix_spawn_file_actions_addopen(actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0);
    /* dup2 onto itself would keep FD_CLOEXEC; the pipes here are always above 2. */
    return posix_spawn_file_actions_adddup2(actions, fd, target);
}

int pa_spawn(const char *path, char *const argv[], char *const envp[],
             int in_fd, int out_fd, int err_fd, int new_group, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) { posix_spawn_file_actions_destroy(&actions); return rc; }

    if (rc == 0) rc = route(&actions, in_fd, 0);
    if (rc == 0) rc = route(&actions, out_fd, 1);
    if (rc == 0) rc = route(&actions, err_fd, 2);
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);

    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGCHLD);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (new_group) flags |= POSIX_SPAWN_SETPGROUP;
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &empty);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &defaults);
    if (rc == 0 && new_group) rc = posix_spawnattr_setpgroup(&attributes, 0);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, flags);
    /* posix_spawnp searches PATH for a bare name and behaves as posix_spawn for a path. */
    if (rc == 0) rc = posix_spawnp(pid, path, &actions, &attributes, argv, envp);

    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

pid_t pa_wait(pid_t pid, int nohang, int *exit_code) {
    int status = 0;
    pid_t result;
    do { result = waitpid(pid, &status, nohang ? WNOHANG : 0); } while (result < 0 && errno == EINTR);
    if (result > 0 && exit_code) {
        if (WIFEXITED(status)) *exit_code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status)) *exit_code = 128 + WTERMSIG(status);
        else *exit_code = -1;
    }
    return result;
}
