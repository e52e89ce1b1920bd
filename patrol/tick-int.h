/*
 * tick-int.h: what the parts of a patrol tick share (tick.c, tick-act.c).
 *
 * struct tick is one tick's whole state: the connection, the probe and the
 * table's answer, what was done (action, did, why) and the local state it
 * writes.  tick.c runs the tick and records it; tick-act.c carries out the
 * table's actions on the box (resume, stop, transfer resume).
 */
#ifndef WK_TICK_INT_H
#define WK_TICK_INT_H

#include "config.h"
#include "decide.h"
#include "notify.h"
#include "patrol.h"
#include "probe.h"
#include "pstate.h"
#include "ssh.h"
#include "target.h"

#define TICK_BUDGET_S	60	/* the probe itself, on top of the connect timeout */
#define RESULTS_PRINT	(16 * 1024)
#define PROGRESS_HISTORY 48

struct tick {
	struct wk_config	*cfg;
	struct pstate		 st;
	struct ssh_target	 target;
	struct ssh_conn		*conn;
	struct ssh_error	 err;
	struct probe		 probe;
	int			 have_probe;
	char			*probe_why;	/* why the probe output was rejected */
	struct decide_out	 out;
	char			 action[1400];	/* what patrol did, for the report */
	struct notify_sinks	 sinks;		/* for webhooks and for scrubbing what is written */
	char			*cfg_abs;	/* the config's absolute path, for the handbook */
	enum tick_mode		 mode;
	int			 look;		/* no lock, nothing written on this machine */
	int			 dry;		/* TICK_LOOK_*: nothing done on the box either */
	enum tick_did		 did;
	char			 why[1400];	/* for the caller: what was done and why (else action) */
	char			*said;		/* TICK_STOP: onbox stop's words */
	char			 allowed[900];	/* why the resume may go ahead (the policy's words) */
};

/* tick.c: run the probe on the open connection and parse it; 0, or -1 (t->err / t->probe_why). */
int tick_probe(struct tick *t);
/* tick.c: the decision table over what the probe brought (or the box unseen). */
void tick_decide(struct tick *t);

/* tick-act.c: the table's actions, each re-checking on the same connection first. */
void tick_resume(struct tick *t);
void tick_stop(struct tick *t);
void tick_resume_transfer(struct tick *t);

#endif
