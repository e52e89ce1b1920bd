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
 * old sentinel sees SIGUSR1 on its signalfd wherever it is (sleeping between
 * ticks, connecting, inside a --follow window), says it was superseded and
 * exits 75.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fsutil.h"
#include "log.h"
#include "monotime.h"
#include "proc.h"
#include "sentinel.h"
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

/* Take one marker's lock.  The descriptor, or a negative exit code. */
static int
slock_one(struct sentinel *s, const char *marker)
{
	struct deadline dl;
	char *name = xstrfmt("sentinel.%s.lock", marker), *path = fs_join(s->statedir, name);
	pid_t holder, told = 0;
	int fd, rc;

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
			fd = -SENTINEL_EX_SUPERSEDED;
			break;
		}
		/* Superseded or stopped ourselves while waiting: that wins. */
		if ((rc = sentinel_wait_signal(s, LOCK_STEP_MS)) != 0) {
			fd = -rc;
			break;
		}
	}
	if (fd == WK_ERR_SYSTEM) {
		fprintf(stderr, "sentinel: cannot use %s: %s (exit 74)\n", path, strerror(errno));
		fd = -WK_EX_IOERR;
	} else if (fd >= 0 && slock_stamp(fd) != 0) {
		fprintf(stderr, "sentinel: cannot write %s: %s (exit 74)\n", path, strerror(errno));
		close(fd);
		fd = -WK_EX_IOERR;
	} else if (fd >= 0 && told > 0)
		fprintf(stderr, "sentinel: took over %s from the sentinel pid %ld\n", marker, (long)told);
	free(name);
	free(path);
	return fd;
}

int
sentinel_lock(struct sentinel *s)
{
	size_t i;
	int fd;

	s->lockfds = xcalloc(s->spec.nmarkers + 1, sizeof(*s->lockfds));
	for (i = 0; i < s->spec.nmarkers; i++)
		s->lockfds[i] = -1;
	/* spec.markers is sorted: every sentinel takes them in the same order. */
	for (i = 0; i < s->spec.nmarkers; i++) {
		if ((fd = slock_one(s, s->spec.markers[i])) < 0)
			return -fd;
		s->lockfds[i] = fd;
	}
	return 0;
}

void
sentinel_unlock(struct sentinel *s)
{
	size_t i;

	for (i = 0; s->lockfds != NULL && i < s->spec.nmarkers; i++)
		if (s->lockfds[i] >= 0)
			close(s->lockfds[i]);
	free(s->lockfds);
	s->lockfds = NULL;
}
