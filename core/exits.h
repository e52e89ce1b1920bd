/*
 * exits.h: the exit codes of all four programs (onbox, patrol, sentinel,
 * handbook), in one place.  The values are the contract of DESIGN.md and
 * README.md ("Exit codes", the verdict table, sentinel's table): never change
 * one.  The sysexits(3) values are shared by every program; the small codes
 * mean different things per program, so each has its own name here.
 *
 * Who prints: the program's main() (or its command) says why on stderr and
 * returns one of these; library code returns WK_ERR_* (err.h), never an exit code.
 */
#ifndef WK_EXITS_H
#define WK_EXITS_H

/* Shared by all four programs (sysexits(3) where a value comes from there). */
#define WK_EX_OK	0	/* all: success (onbox: every marker present; patrol: OK/DONE/STOPPED) */
#define WK_EX_FAIL	1	/* onbox: a stage failed; patrol: a bad verdict or a refused command */
#define WK_EX_USAGE	64	/* all: usage error (EX_USAGE) */
#define WK_EX_SOFTWARE	70	/* onbox, patrol, sentinel: internal error; patrol --install-cron:
				   the crontab cannot be read or written (EX_SOFTWARE) */
#define WK_EX_IOERR	74	/* all: could not read/write our own files (EX_IOERR) */
#define WK_EX_TEMPFAIL	75	/* onbox, patrol: another process holds the run's lock (or
				   deploy: the run is alive); onbox stop: the running onbox did
				   not let go in time (EX_TEMPFAIL) */
#define WK_EX_CONFIG	78	/* all: config error, listed as file:line: key: message (EX_CONFIG) */
#define WK_EX_SIGNAL	128	/* onbox run, sentinel: 128+N stopped by signal N (onbox stop: 143) */

/* patrol: the verdict's exit (core/decide.c verdict_exit()), and patrol stop/deploy. */
#define WK_EX_VERDICT_OK	0	/* patrol: OK, DONE, STOPPED */
#define WK_EX_VERDICT_BAD	1	/* patrol: every other verdict (CRASHED .. TRANSFER_*) */
#define WK_EX_UNSEEN		2	/* patrol: SSH_DOWN/HOSTKEY_MISMATCH; patrol stop/deploy:
					   cannot reach the box; handbook --check: box not reachable */

/* handbook --check. */
#define HANDBOOK_EX_DRIFT	1	/* handbook --check: a claim no longer holds */

/* sentinel (README "sentinel" table). */
#define SENTINEL_EX_FOUND	0	/* sentinel: the marker is there */
#define SENTINEL_EX_GAVE_UP	1	/* sentinel: gave up after --max-ticks, or the run was stopped */
#define SENTINEL_EX_REFUSED	2	/* sentinel: the box refused (authentication, host key) */
#define SENTINEL_EX_FAILED	3	/* sentinel: the marker's .FAILED twin appeared */
#define SENTINEL_EX_SUPERSEDED	WK_EX_TEMPFAIL	/* sentinel: 75, a newer sentinel for the same marker */

#endif
