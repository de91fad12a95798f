#define _GNU_SOURCE
#include "pa_exec.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* See pa_exec.h. The handler reads and writes only sig_atomic_t variables and the folder path
 * (written before the handler may read it, and never while a signal could be handled: the
 * handled signals are blocked around the change), and calls only async-signal-safe functions. */

#define GUARD_SIGNALS 65
static volatile sig_atomic_t guard_child = 0;  /* 0: not started yet; -1: exited */
static volatile sig_atomic_t guard_pending[GUARD_SIGNALS];
static volatile sig_atomic_t guard_has_folder = 0;
static char guard_folder[PATH_MAX];
static struct sigaction guard_previous[GUARD_SIGNALS];
static volatile sig_atomic_t guard_installed[GUARD_SIGNALS];

int pa_exec_guard_catches(int signal) {
    if (signal <= 0 || signal >= GUARD_SIGNALS || signal >= NSIG) return 0;
    switch (signal) {
    case SIGKILL: case SIGSTOP:                             /* cannot be caught */
    case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH: /* ignored by default */
    case SIGTSTP: case SIGTTIN: case SIGTTOU:               /* stop, not end */
        return 0;
    default:
        /* 32 and 33 are glibc's own (thread cancellation, setxid). */
        return signal < 32 || (signal >= SIGRTMIN && signal <= SIGRTMAX);
    }
}

/* Removes every file in the folder, then the folder (a file made meanwhile is removed on the next
 * round). */
static void remove_folder(void) {
    if (!guard_has_folder) return;
    for (int round = 0; round < 3; round++) {
        int fd = open(guard_folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return;
        char buffer[4096] __attribute__((aligned(8)));
        for (;;) {
            long n = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
            if (n <= 0) break;
            for (long offset = 0; offset < n;) {
                struct dirent64 *entry = (struct dirent64 *)(buffer + offset);
                offset += entry->d_reclen;
                const char *name = entry->d_name;
                if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
                unlinkat(fd, name, 0);
            }
        }
        close(fd);
        if (rmdir(guard_folder) == 0 || errno != ENOTEMPTY) return;
    }
}

/* A fault that happens again when the handler returns (the instruction runs again). Not SIGTRAP:
 * after int3 the handler would return past the breakpoint; not SIGSYS (a seccomp filter's trap:
 * the system call fails and the thread goes on) nor a machine check's advance warning
 * (BUS_MCEERR_AO): those are raised again. */
static int is_fault(int signal, const siginfo_t *info) {
    if (info == NULL || info->si_code <= 0 || info->si_code == SI_KERNEL) return 0;
    if (signal == SIGBUS && info->si_code == BUS_MCEERR_AO) return 0;
    return signal == SIGSEGV || signal == SIGBUS || signal == SIGFPE || signal == SIGILL;
}

/* How long the command's waiter gives a faulting thread to end the process (Swift's crash report
 * runs first) before it ends it itself. */
#define FAULT_GRACE_SECONDS 60

/* Set once a signal about portal-auth itself is being handled: the signal (negated for a fault,
 * which its own thread ends). The command's exit, which that handling causes, then ends nothing
 * else: pa_exec_guard_wait ends the process with the signal instead of returning the status. */
static volatile sig_atomic_t guard_ending = 0;

/* Ends the process with `signal`, whose action is the default now: unblocked on this thread, it
 * is delivered on the return from raise. Needed because the thread may go back to a mask that
 * blocks it (the handler may have run inside libdispatch's sigsuspend on the main thread, whose
 * mask outside sigsuspend blocks every signal): pending there, the command's exit status would
 * end the process first. */
static void end_now(int signal) {
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    raise(signal);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
}

/* A signal about portal-auth itself: clean up, stop the command, and end with the signal. */
static void end_for(int signal, siginfo_t *info, void *context) {
    int saved = errno;
    int fault = is_fault(signal, info);
    remove_folder();
    /* A fault happens again when the handler returns, now with the previous action. Any other
     * signal: the default action. Not the previous handler: Swift's crash report returns for a
     * signal that was raised (the process would go on), and called from here it crashes. */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    if (fault && signal > 0 && signal < GUARD_SIGNALS && guard_installed[signal])
        action = guard_previous[signal];
    sigaction(signal, &action, NULL);
    guard_ending = fault ? -signal : signal;
    pid_t child = (pid_t)guard_child;
    if (child > 0) {
        kill(child, SIGTERM);
        kill(child, SIGCONT);
    }
    (void)context;
    if (!fault) {
        end_now(signal);
        /* Still here: the signal was discarded (the first process of a PID namespace, as in a
         * container, ignores a default action it raises itself). End as a shell would say it. */
        _exit(128 + signal);
    }
    errno = saved;
}

static void guard_signal(int signal, siginfo_t *info, void *context) {
    pid_t self = getpid();
    int sent = info != NULL && info->si_pid != self &&
               (info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL);
    int terminal = info != NULL && info->si_code == SI_KERNEL &&
                   (signal == SIGINT || signal == SIGQUIT || signal == SIGHUP);
    /* The kernel's SIGPIPE and SIGXFSZ for a write of portal-auth's own (to a closed pipe, past
     * the file size limit): the write fails (EPIPE, EFBIG) and says so; nothing to end. */
    if (info != NULL && info->si_code == SI_USER && info->si_pid == self &&
        (signal == SIGPIPE || signal == SIGXFSZ))
        return;
    pid_t child = (pid_t)guard_child;
    if (sent && child > 0) {
        int saved = errno;
        kill(child, signal);
        errno = saved;
    } else if (sent && child == 0) {
        if (signal > 0 && signal < GUARD_SIGNALS) guard_pending[signal] = 1;
    } else if (terminal && child > 0) {
        /* The command got it too. */
    } else {
        end_for(signal, info, context);
    }
}

static void block_caught(sigset_t *previous) {
    sigset_t block;
    sigemptyset(&block);
    for (int s = 1; s < GUARD_SIGNALS; s++)
        if (pa_exec_guard_catches(s)) sigaddset(&block, s);
    pthread_sigmask(SIG_BLOCK, &block, previous);
}

int pa_exec_guard_begin(void) {
    for (int s = 1; s < GUARD_SIGNALS; s++) {
        if (!pa_exec_guard_catches(s) || guard_installed[s]) continue;
        struct sigaction old;
        if (sigaction(s, NULL, &old) != 0) return errno;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = guard_signal;
        action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
        /* One at a time on a thread: the handler's cleanup is not interrupted by another. */
        sigemptyset(&action.sa_mask);
        for (int t = 1; t < GUARD_SIGNALS; t++)
            if (pa_exec_guard_catches(t)) sigaddset(&action.sa_mask, t);
        guard_previous[s] = old;
        guard_installed[s] = 1;
        if (sigaction(s, &action, NULL) != 0) {
            guard_installed[s] = 0;
            return errno;
        }
    }
    return 0;
}

int pa_exec_guard_folder(const char *path) {
    if (path != NULL && strlen(path) >= sizeof guard_folder) return ENAMETOOLONG;
    sigset_t previous;
    block_caught(&previous);
    guard_has_folder = 0;
    if (path != NULL) {
        strcpy(guard_folder, path);
        guard_has_folder = 1;
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return 0;
}

void pa_exec_guard_child(pid_t child) {
    sigset_t previous;
    block_caught(&previous);
    guard_child = child;
    for (int s = 1; s < GUARD_SIGNALS; s++) {
        if (guard_pending[s]) {
            guard_pending[s] = 0;
            kill(child, s);
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

int pa_exec_guard_wait(pid_t child, int *exit_code) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    /* Wait without reaping: until it is reaped, the pid is the command's and no other's. */
    int rc;
    do { rc = waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT); } while (rc < 0 && errno == EINTR);
    if (rc < 0) return errno;
    guard_child = -1;
    int ending = guard_ending;
    if (ending > 0) {
        end_now(ending);
        _exit(128 + ending);
    }
    if (ending < 0) {
        /* A fault: its thread ends the process (after Swift's crash report, which takes a while);
         * should it not, the process ends here. */
        struct timespec second = {1, 0};
        for (int waited = 0; waited < FAULT_GRACE_SECONDS; waited++) nanosleep(&second, NULL);
        _exit(128 - ending);
    }
    int status = 0;
    pid_t result;
    do { result = waitpid(child, &status, 0); } while (result < 0 && errno == EINTR);
    if (result < 0) return errno;
    if (WIFEXITED(status)) *exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) *exit_code = 128 + WTERMSIG(status);
    else *exit_code = -1;
    return 0;
}
