/*
 * attempt.h: one attempt of one stage, and the history of attempts.
 *
 * Two files per stage, each with one writer, so nothing is ever written by
 * two processes:
 *   stages/<stage>.json        the attempt history; written only by onbox
 *   attempts/<stage>.<n>.json  the process record; written only by the
 *                              attempt's wrapper (pids, then the exit status)
 * The wrapper is a small fork of onbox in its own session: it starts the
 * stage's command, writes the record, waits, writes the exit status.  It
 * holds attempts/<stage>.<n>.lock for its whole life, so "the lock is held"
 * means "the attempt is still running", across onbox restarts, pid reuse and
 * reboots.  An onbox that was killed with -9 leaves the wrapper running; the
 * next onbox re-attaches to it instead of launching the stage again.
 */
#ifndef WK_ATTEMPT_H
#define WK_ATTEMPT_H

#include <stdint.h>
#include <sys/types.h>

#include <cJSON.h>

#include "config.h"
#include "history.h"

struct attempt_rec {
	int		 exited;	/* the wrapper recorded an end */
	long		 pid;		/* the stage's process (and process group) */
	uint64_t	 pid_start;
	long		 wrapper_pid;
	uint64_t	 wrapper_start;
	char		 boot[40];
	int		 exit_code;	/* when exited and signo == 0 */
	int		 signo;		/* killed by this signal */
	int		 exec_errno;	/* the command could not be started */
};

/* 0, or WK_ERR_NOTFOUND when the wrapper has not written its record (yet). */
int attempt_rec_load(const char *workdir, const char *stage, long n, struct attempt_rec *rec);

/*
 * Start attempt n of st running command (st->run with {checkpoint} already
 * substituted): creates and locks its lock file, opens its output log, forks
 * the wrapper.  Returns the wrapper's pid (> 0), or a negative code with
 * *why set (caller frees).
 */
pid_t attempt_launch(const struct wk_config *cfg, const struct wk_stage *st, const char *command,
    long n, char **why);

/* "SIGKILL" for 9; "SIG<n>" for ones without a name here. */
const char *signame(int signo, char *buf, size_t len);

#endif
