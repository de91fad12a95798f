#ifndef PA_EXEC_H
#define PA_EXEC_H
#include <sys/types.h>

/* The signal guard of `portal-auth exec`, which runs a command with a live token in a header file
 * in a private folder: whatever signal arrives, the folder does not outlive portal-auth (only
 * SIGKILL, which cannot be caught, can leave it; the next exec removes it).
 *
 * pa_exec_guard_begin catches every signal whose default action ends the process: HUP INT QUIT
 * ILL TRAP ABRT BUS FPE USR1 SEGV USR2 PIPE ALRM TERM STKFLT XCPU XFSZ VTALRM PROF IO PWR SYS and
 * the real-time signals SIGRTMIN..SIGRTMAX (32 and 33 belong to glibc and cannot be caught).
 * A signal ignored when it is called (nohup) stays ignored, for the command too. What a caught
 * signal does depends on where it came from:
 *
 * - Sent by another process (kill(2), sigqueue(3): a service manager, a CI runner, a user,
 *   init's SIGPWR): passed on to the command, and portal-auth goes on waiting for it; its exit
 *   status is portal-auth's. One that arrives before the command starts is held and passed on
 *   when it has started.
 * - Sent by the terminal to the whole foreground process group (Ctrl-C, Ctrl-\, a hang-up:
 *   INT, QUIT, HUP from the kernel): the command got it too, so it is not passed on; portal-auth
 *   waits for the command. Before the command has started, portal-auth ends as below.
 * - A write of portal-auth's own to a closed pipe (PIPE) or past its file size limit (XFSZ): the
 *   write fails (EPIPE, EFBIG) and says so; portal-auth goes on.
 * - About portal-auth itself: a fault in it (SEGV, BUS, FPE, ILL, TRAP, SYS from the kernel),
 *   abort() (ABRT), its CPU time limit (XCPU from the kernel), a timer of its own (ALRM, VTALRM,
 *   PROF from the kernel), any other signal it sends itself, or any signal sent by another
 *   process after the command has exited (portal-auth is cleaning up; a TERM then need not wait
 *   for a renewal in flight): the folder is removed (with async-signal-safe calls only: open,
 *   getdents64, unlinkat, rmdir), the command is sent SIGTERM (and SIGCONT), and portal-auth is
 *   killed by the signal (a shell sees 128 + the signal), whichever of its threads gets there
 *   first (the command's exit status is not returned then). A fault that recurs (SEGV, BUS, FPE,
 *   ILL) does so once the handler returns, with the signal's previous action (Swift's crash
 *   report, then the default); any other signal is raised again with the default action (no
 *   crash report for abort()), and where that is discarded (the first process of a PID
 *   namespace) portal-auth exits with 128 + the signal; a fault that has not ended portal-auth
 *   a minute after the command exited ends it so. A fault on a thread whose stack is exhausted
 *   may not run the handler: the kernel ends portal-auth and the folder stays until the next
 *   exec removes it.
 *
 * Returns 0, or the errno of a sigaction that failed. */
int pa_exec_guard_begin(void);

/* The folder to remove when a signal about portal-auth itself ends it (NULL: none, any more).
 * Returns 0, or ENAMETOOLONG. */
int pa_exec_guard_folder(const char *path);

/* Names the command that signals are passed on to, and passes on those that arrived before. */
void pa_exec_guard_child(pid_t child);

/* Waits for the named command to exit, stops passing signals on (one that arrives from now on
 * ends portal-auth as a signal about itself does), and reaps it. Returns 0 and sets *exit_code
 * (the exit status, or 128 + the signal that ended it), or an errno value. Does not return when
 * the command exited because a signal about portal-auth itself stopped it: that signal ends the
 * process (not the command's status, whichever thread gets there first). */
int pa_exec_guard_wait(pid_t child, int *exit_code);

/* Whether signal number `signal` is one pa_exec_guard_begin catches (for tests and help). */
int pa_exec_guard_catches(int signal);
#endif
