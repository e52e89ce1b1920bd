/*
 * sigwait.h: a waiter's one signal source, as every part that waits reads it.
 *
 * The waiter (sentinel.c; patrol mcp's calls, mcp-box.c) blocks the signals
 * that end it (SIGTERM, SIGINT, SIGHUP; sentinel also SIGUSR1, a newer
 * sentinel superseding it) and reads them from one signalfd.  sentinel's
 * lock.c and ssh/tick.c wait on it between their own steps and hand what
 * came back to their caller, who alone says what a signal means.
 */
#ifndef WK_SIGWAIT_H
#define WK_SIGWAIT_H

struct sigwait_got {
	int		 signo;
	unsigned long	 pid;		/* the sender */
};

/*
 * Wait up to ms (< 0: no bound, 0: only look) for a signal on the signalfd
 * fd.  1 and *got when one came, 0 when none did.
 */
int sigwait_fd(int fd, int ms, struct sigwait_got *got);

#endif
