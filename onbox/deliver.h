/*
 * deliver.h: onbox's notification deliveries, each in a short-lived child.
 *
 * The runner never talks to a receiver itself: a receiver that hangs must not
 * stall the supervision of a stage, and libcurl (with its resolver threads)
 * must not live in the process that forks stage wrappers.  So each delivery
 * round is a child process that takes the outbox lock, delivers what is due
 * (outbox_flush) and exits.  The runner polls the child's pidfd, starts the
 * next round when events arrived meanwhile or a retry falls due, and at the
 * end drains (bounded) so the chain's last events leave before onbox exits.
 */
#ifndef WK_DELIVER_H
#define WK_DELIVER_H

#include <poll.h>
#include <sys/types.h>

#include "monotime.h"
#include "notify.h"
#include "outbox.h"

struct deliver {
	const struct notify_sinks *sinks;
	struct outbox_opts opts;
	long		 timeout_s;	/* per request */
	char		*dir;		/* <workdir>/.watchkeeper/outbox */
	pid_t		 pid;		/* the running delivery child, 0 none */
	int		 pidfd;
	int		 more;		/* events were queued while the child ran */
	int		 force;		/* the next round ignores retry times */
	struct deadline	 next;		/* when to start the next round */
	struct deadline	 notbefore;	/* after a failed round: no new one before */
};

void deliver_init(struct deliver *d, const struct wk_config *cfg, const struct notify_sinks *sinks);
/* New events are in the outbox: deliver them now (or right after the running round). */
void deliver_kick(struct deliver *d);
/* Add the child's pidfd to pfd (returns its index, or -1 when there is none). */
int deliver_poll_add(struct deliver *d, struct pollfd *pfd, int *n);
/* After poll: revents of the pidfd (0 when none), and the retry deadline. */
void deliver_after_poll(struct deliver *d, short revents);
/* Wait (bounded by max_ms) until due events are delivered or fail; returns pending count. */
int deliver_drain(struct deliver *d, int max_ms);
void deliver_free(struct deliver *d);

#endif
