/*
 * sigwait.h: a waiter's one signal source, as every part that waits reads it.
 *
 * The waiter (sentinel.c; patrol mcp's server and its calls, mcp-box.c)
 * routes the signals that end it (SIGTERM, SIGINT, SIGHUP; sentinel also
 * SIGUSR1, a newer sentinel superseding it) to a self-pipe: a handler writes
 * each signal's number and sender into a pipe whose read end the waiter
 * polls beside its other descriptors.  POSIX only, so a Mac
 * runs the code this machine tests.  sentinel's lock.c and ssh/tick.c wait
 * on it between their own steps and hand what came back to their caller,
 * who alone says what a signal means.
 *
 * The handlers are installed with SA_RESTART: reads and writes go on; poll
 * and sleeps return EINTR, which every wait loop here retries.  A child
 * forked through spawn gets default dispositions and none of the pipe.
 */
#ifndef WK_SIGWAIT_H
#define WK_SIGWAIT_H

#include <stddef.h>

struct sigwait_got {
	int		 signo;
	unsigned long	 pid;		/* the sender */
};

/*
 * Route the n signals in sigs to the process's self-pipe (made on the first
 * call; a later call adds its signals to the same pipe) and return its read
 * end (non-blocking, close-on-exec), or -1 with errno.
 */
int sigwait_open(const int *sigs, size_t n);

/* Give the signals routed so far their default dispositions back and close the pipe. */
void sigwait_close(void);

/*
 * Wait up to ms (< 0: no bound, 0: only look) for a signal on fd, the read
 * end sigwait_open returned.  1 and *got when one came, 0 when none did.
 */
int sigwait_fd(int fd, int ms, struct sigwait_got *got);

#endif
