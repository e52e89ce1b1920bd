/*
 * lock.c: one waiter per run and marker.
 *
 * <statedir>/sentinel.<MARKER>.lock, one per marker (with --any, all of them,
 * taken in sorted order so two sentinels never hold each other's half), an
 * OFD lock held for the sentinel's life.  The file holds the holder's pid
 * and process start time, written in place through the locked descriptor
 * (a rename would put the lock on an inode nobody opens).
 *
 * A new sentinel that finds a lock held reads the holder, checks with
 * proc_identify that the pid still names that very process (not a reused
 * pid), sends it SIGUSR1 and waits, bounded, for the lock to come free.  The
 * old sentinel sees SIGUSR1 on its signal pipe wherever it is (sleeping between
 * ticks, connecting, inside a --follow window), says it was superseded and
 * exits 75.
 *
 * It takes the state directory, the markers and the signal pipe, and hands a
 * signal that came while it waited back to sentinel.c (lock.h): it
 * includes nothing of sentinel.c's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "lock.h"
#include "log.h"
#include "monotime.h"
#include "proc.h"
#include "sigwait.h"
#include "xmalloc.h"

#define LOCK_TAKEOVER_MS	10000	/* how long the old sentinel has to let go */
#define LOCK_STEP_MS		20

/* The holder named in the lock file, if that very process is alive; 0 otherwise. */
static pid_t
slock_holder(const char *path)
{
	struct proc_id id;
	unsigned long long start;
	char *text = NULL;
	long pid;
	pid_t r = 0;

	if (fs_read_file(path, 256, &text, NULL) != 0)
		return 0;
	if (sscanf(text, "%ld %llu", &pid, &start) == 2 && pid > 0 && pid != (long)getpid() &&
	    proc_identify((pid_t)pid, &id) == 0 && id.start == (uint64_t)start)
		r = (pid_t)pid;
	free(text);
	return r;
}

/* Say who holds the lock now: this process. */
static int
slock_stamp(int fd)
{
	struct proc_id id;
	char line[64];
	int n;

	if (proc_identify(getpid(), &id) != 0)
		return -1;
	n = snprintf(line, sizeof(line), "%ld %llu\n", (long)id.pid, (unsigned long long)id.start);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n)
		return -1;
	return 0;
}

/* Take one marker's lock.  The descriptor, a negative exit code, or SLOCK_SIGNALLED (*sig). */
static int
slock_one(const char *statedir, const char *marker, int sigfd, struct sigwait_got *sig)
{
	struct deadline dl;
	char *name = xstrfmt("sentinel.%s.lock", marker), *path = fs_join(statedir, name);
	pid_t holder, told = 0;
	int fd, signalled = 0;

	deadline_set(&dl, LOCK_TAKEOVER_MS);
	while ((fd = lock_try(path)) == WK_ERR_BUSY) {
		if (told == 0 && (holder = slock_holder(path)) > 0) {
			log_debug("superseding the sentinel pid %ld for %s", (long)holder, marker);
			if (kill(holder, SIGUSR1) == 0)
				told = holder;
		}
		if (deadline_expired(&dl)) {
			if (told > 0)
				fprintf(stderr, "sentinel: the sentinel pid %ld for %s did not let go of %s "
				    "within %d s; not waiting twice (exit 75)\n", (long)told, marker, path,
				    LOCK_TAKEOVER_MS / 1000);
			else
				fprintf(stderr, "sentinel: %s is held by a process that is not a sentinel "
				    "this one can supersede; not waiting twice (exit 75)\n", path);
			fd = -WK_EX_TEMPFAIL;	/* SENTINEL_EX_SUPERSEDED */
			break;
		}
		/* Superseded or stopped ourselves while waiting: that wins. */
		if ((signalled = sigwait_fd(sigfd, LOCK_STEP_MS, sig)) != 0)
			break;
	}
	if (signalled)
		fd = SLOCK_SIGNALLED;
	else if (fd == WK_ERR_SYSTEM) {
		fprintf(stderr, "sentinel: cannot use %s: %s (exit 74)\n", path, wk_strerror(WK_ERR_SYSTEM));
		fd = -WK_EX_IOERR;
	} else if (fd >= 0 && slock_stamp(fd) != 0) {
		fprintf(stderr, "sentinel: cannot write %s: %s (exit 74)\n", path, wk_strerror(WK_ERR_SYSTEM));
		close(fd);
		fd = -WK_EX_IOERR;
	} else if (fd >= 0 && told > 0)
		fprintf(stderr, "sentinel: took over %s from the sentinel pid %ld\n", marker, (long)told);
	free(name);
	free(path);
	return fd;
}

int
slock_take(const char *statedir, char *const *markers, size_t n, int sigfd, int **fds,
    struct sigwait_got *sig)
{
	size_t i;
	int fd;

	*fds = xcalloc(n + 1, sizeof(**fds));
	for (i = 0; i < n; i++)
		(*fds)[i] = -1;
	/* markers is sorted: every sentinel takes them in the same order. */
	for (i = 0; i < n; i++) {
		if ((fd = slock_one(statedir, markers[i], sigfd, sig)) < 0)
			return fd == SLOCK_SIGNALLED ? SLOCK_SIGNALLED : -fd;
		(*fds)[i] = fd;
	}
	return 0;
}

void
slock_release(int *fds, size_t n)
{
	size_t i;

	for (i = 0; fds != NULL && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}
