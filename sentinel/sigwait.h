/*
 * sigwait.h: sentinel's one signal source, as every part that waits reads it.
 *
 * SIGUSR1 (a newer sentinel supersedes this one), SIGTERM, SIGINT and SIGHUP
 * are blocked and come on one signalfd, made by sentinel.c.  lock.c and
 * tick.c wait on it between their own steps and hand what came back to
 * their caller; what a signal means (superseded, stopped, the exit code)
 * is said in one place, sentinel.c.  Nothing here knows struct sentinel.
 */
#ifndef WK_SENTINEL_SIGWAIT_H
#define WK_SENTINEL_SIGWAIT_H

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
