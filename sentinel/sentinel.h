/*
 * sentinel.h: what sentinel's files share.
 *
 * sentinel is layer 3: started by hand or by an agent, it waits for one
 * marker (or the first of several) with one short ssh connection per tick
 * and always exits: 0 found, 3 the FAILED twin, 1 gave up after max_ticks
 * (or at once: the run was stopped on purpose),
 * 2 the box refused us, 75 superseded by a newer sentinel, 128+sig stopped.
 *
 *   sentinel.c  options, config, the tick loop, the outcome
 *   lock.c      one waiter per run and marker: the lock files, superseding
 *   tick.c      one connection in a child process the loop can always end
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
	int			 sigfd;		/* SIGUSR1 (supersede), SIGTERM, SIGINT, SIGHUP */
	struct ssh_target	 target;
	int			 have_target;
	pid_t			 child;		/* the tick's connection; 0 none */
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

/*
 * Wait up to ms (< 0: no bound) for a signal.  0 when none came; else the
 * exit code to leave with (75 superseded, 128+sig stopped), the reason
 * printed and s->outcome set.
 */
int sentinel_wait_signal(struct sentinel *s, int ms);

/* lock.c: take every marker's lock, superseding its holder.  0, or an exit code. */
int sentinel_lock(struct sentinel *s);
void sentinel_unlock(struct sentinel *s);

/* tick.c: one connection. */
enum tick_kind {
	TICK_SEEN,		/* the command ran: out, exit_status */
	TICK_UNREACHABLE,	/* retried next tick: err */
	TICK_REFUSED,		/* auth, host key, unsupported: err */
	TICK_STOPPED,		/* a signal ended the tick: stop_rc */
};

struct tick_res {
	enum tick_kind	 kind;
	struct ssh_error err;
	int		 exit_status;
	char		*out;		/* NUL-terminated; caller frees */
	size_t		 outlen;
	int		 stop_rc;
};

/*
 * Connect, run command with in on its stdin, close: in a child process, so
 * that a supersede or SIGTERM ends the tick within a second, connection and
 * ssh processes included.  Bounded by deadline_ms.  Returns r->kind.
 */
enum tick_kind tick_run(struct sentinel *s, const char *command, const char *in, size_t inlen,
    int deadline_ms, struct tick_res *r);
void tick_res_free(struct tick_res *r);
/* End the tick's child (if any) and everything of its connection. */
void tick_abort(struct sentinel *s);

#endif
