/*
 * sentinel.h: sentinel.c's own state and exit codes.
 *
 * sentinel is layer 3: started by hand or by an agent, it waits for one
 * marker (or the first of several) with one short ssh connection per tick
 * and always exits: 0 found, 3 the FAILED twin, 1 gave up after max_ticks
 * (or at once: the run was stopped on purpose),
 * 2 the box refused us, 75 superseded by a newer sentinel, 128+sig stopped.
 *
 *   sentinel.c  options, config, the tick loop, the outcome; what a signal means
 *   lock.c      one waiter per run and marker: the lock files, superseding (lock.h)
 *   ssh/tick.c  one connection in a child process the loop can always end (tick.h)
 *   core/sigwait.c  the signal pipe, read bounded (sigwait.h)
 *
 * lock.c and tick.c take narrow parameters (a state directory and markers;
 * a struct tick_conn) and hand a signal back to sentinel.c: they include
 * this header's parts, never this header.
 */
#ifndef WK_SENTINEL_H
#define WK_SENTINEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cJSON.h>

#include "config.h"
#include "exits.h"
#include "mwait.h"
#include "ssh.h"
#include "tick.h"

struct sentinel {
	struct wk_config	*cfg;
	struct mwait_spec	 spec;
	char			*names;		/* the markers, "A or B", for messages */
	long			 interval_s;
	long			 max_ticks;
	long			 follow_s;
	int			 follow;
	int			 json;
	int			 fallback_said;	/* "no onbox wait on the box" was said */
	char			*statedir;
	int			*lockfds;	/* parallel to spec.markers */
	struct ssh_target	 target;
	int			 have_target;
	/* the tick's connection; conn.sigfd: SIGUSR1 (supersede), SIGTERM, SIGINT, SIGHUP */
	struct tick_conn	 conn;
	uint64_t		 start_ms;
	long			 tick;
	long			*attempt;	/* per spec stage: the current attempt last seen, 0 none */
	cJSON			*relaunched;	/* [{stage, from, to}] */
	char			 seen[1400];	/* the last thing seen, for tick lines and the end */

	/* The outcome. */
	const char		*outcome;	/* found failed gave_up refused superseded stopped */
	int			 rc;
	int			 decided;	/* the deciding marker's index, -1 none */
	long			 decided_attempt;	/* its stage's attempt, 0 unknown */
	cJSON			*failed_doc;	/* the FAILED twin's JSON (owned), or NULL */
	char			*message;	/* refusal or supersede, for --json */
};

#endif
