#define _GNU_SOURCE
#include "pa_spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pthread.h>

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

/* Signal forwarding for `portal-auth exec`. The handler only reads and writes sig_atomic_t
 * variables and calls kill(2), both async-signal-safe. */
static volatile sig_atomic_t forward_child = 0;
static volatile sig_atomic_t forward_pending[65];

static void forward_signal(int signal, siginfo_t *info, void *context) {
    (void)context;
    /* The terminal sends Ctrl-C, Ctrl-\ and hang-ups to the whole foreground process group,
     * the child included: forwarding those would deliver them twice. */
    if (info != NULL && info->si_code == SI_KERNEL) return;
    pid_t child = (pid_t)forward_child;
    if (child > 0) kill(child, signal);
    else if (signal > 0 && signal < 65) forward_pending[signal] = 1;
}

int pa_forward_signals(const int *signals, int count) {
    for (int i = 0; i < count; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) != 0) return errno;
        /* A signal ignored by whoever started us (nohup) stays ignored, for the child too. */
        if (old.sa_handler == SIG_IGN) continue;
        struct sigaction action = {0};
        action.sa_sigaction = forward_signal;
        action.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&action.sa_mask);
        if (sigaction(signals[i], &action, NULL) != 0) return errno;
    }
    return 0;
}

void pa_forward_signals_to(pid_t child, const int *signals, int count) {
    sigset_t block, previous;
    sigemptyset(&block);
    for (int i = 0; i < count; i++) sigaddset(&block, signals[i]);
    pthread_sigmask(SIG_BLOCK, &block, &previous);
    forward_child = child;
    for (int i = 0; i < count; i++) {
        int signal = signals[i];
        if (signal > 0 && signal < 65 && forward_pending[signal]) {
            forward_pending[signal] = 0;
            kill(child, signal);
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}
