/*
 * lock.h: one sentinel per run and marker (see lock.c for the files and the
 * takeover).  Takes what it needs and nothing of struct sentinel.
 */
#ifndef WK_SENTINEL_LOCK_H
#define WK_SENTINEL_LOCK_H

#include <stddef.h>

#include "sigwait.h"

#define SLOCK_SIGNALLED	(-1)	/* a signal came while waiting for a lock: *sig */

/*
 * Take the lock of every marker (markers sorted: every sentinel takes them
 * in the same order) in statedir, superseding a sentinel that holds one,
 * and waiting on the signal pipe sigfd meanwhile.  *fds (n entries, -1 where
 * none; free with slock_release) is set whatever happens.  0 when all are
 * held; an exit code (74 the lock file unusable, 75 not let go); or
 * SLOCK_SIGNALLED with *sig (this sentinel is superseded or stopped).
 */
int slock_take(const char *statedir, char *const *markers, size_t n, int sigfd, int **fds,
    struct sigwait_got *sig);
/* Let go of every lock taken; fds may be NULL. */
void slock_release(int *fds, size_t n);

#endif
