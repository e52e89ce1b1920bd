/*
 * decide.h: patrol's decision table.
 *
 * Data, walked in priority order (monit keeps its event wording in one table
 * the same way): each row is a verdict, the predicate that selects it, the
 * action it calls for, and the words for "when" and "then" that the report,
 * the webhooks and the handbook all print from here, so they cannot drift.
 * The first row whose predicate holds is the tick's verdict.
 *
 * Verdicts and exit codes are a contract (DESIGN.md): 0 for OK, DONE and STOPPED, 2
 * when the box could not be seen (SSH_DOWN, HOSTKEY_MISMATCH), 1 otherwise.
 * No action is ever decided from a failed probe: unreachable is not dead.
 */
#ifndef WK_DECIDE_H
#define WK_DECIDE_H

#include <stddef.h>
#include <time.h>

#include "config.h"
#include "probe.h"
#include "slurm.h"
#include "sshfail.h"
#include "triage.h"

enum verdict {
	V_HOSTKEY_MISMATCH,
	V_SSH_DOWN,
	V_STOPPED,
	V_CRASHED,
	V_NEEDS_RESUME,
	V_RESUMED,
	V_DEGRADED,
	V_STALLED,
	V_MONITOR_STALE,
	V_DISK_LOW,
	V_TRANSFER_INCOMPLETE,
	V_TRANSFER_RESUMED,
	V_DONE,
	V_OK,
	V_COUNT
};

enum decide_action {
	ACT_NONE,
	ACT_RESUME,		/* rebuild layer 1 (when policy allows) */
	ACT_RESUME_TRANSFER,	/* run transfer.resume (when transfer.auto) */
	ACT_FINISH,		/* report the results, remove the cron entry */
};

struct decide_in {
	const struct wk_config *cfg;
	int		 seen;		/* the probe arrived and parsed */
	enum ssh_fail	 fail;		/* when !seen: why (SSH_OK for a garbled probe) */
	const char	*fail_msg;	/* when !seen */
	/*
	 * when seen: the probe as probe_parse read it with cfg.  Under detach
	 * slurm (its slurm_view), liveness is the job of the first stage
	 * without its marker: waiting or running is alive (a pending job is
	 * waiting, not dead), and the heartbeat is only expected while that
	 * job runs (not while it is CONFIGURING).  A job in the queue in a
	 * state slurm.c does not know is alive.  When the queue could not be
	 * read the run is not seen (SSH_DOWN's row, saying why; every marker
	 * present is still DONE): never dead.
	 */
	const struct probe *p;
	long		 prev_progress;	/* last tick's progress, -1 unknown */
	int		 still_ticks;	/* earlier consecutive ticks without progress */
	long		 local_files;	/* transfer source on this machine, -1 unknown */
	long long	 local_bytes;
};

struct decide_out {
	enum verdict	 v;
	enum decide_action action;
	char		 details[1024];	/* the rest of the one-line report */
	enum triage_class cls;		/* CRASHED */
	const char	*stage;		/* the stage the verdict is about, or NULL */
	long		 progress;	/* -1 unknown */
	long		 progress_max;	/* -1 unknown */
	int		 alive;
	int		 no_progress;	/* this tick saw no progress (for the stall count) */
	const struct slurm_job *job;	/* slurm: the job of out->stage (points into in->p), or NULL */
	const cJSON	*where;		/* CRASHED: the FAILED marker's "where" (points into in->p), or NULL */
};

/* What the probe says, worked out once before the table is walked. */
struct decide_facts {
	int		 alive;		/* tmux session, onbox or the stage process lives (slurm: its job is live) */
	int		 onbox_alive;	/* onbox runs (slurm: the stage's job runs) */
	const struct slurm_view *slurm;	/* detach slurm: the probe's view of the jobs, else NULL */
	const char	*unseen;	/* slurm: why the queue could not be read, else NULL */
	const struct slurm_job *job;	/* slurm: the first missing stage's job, or NULL */
	int		 done;		/* every marker present */
	long		 first_missing;	/* index of the first stage without its marker, -1 none */
	const cJSON	*failed;	/* that stage's FAILED marker, or NULL */
	enum triage_class tail_cls;	/* crash signature in the newest output tail, TRIAGE_NONE none */
	const char	*tail_evidence;	/* its line (points into in->p) */
	long		 progress;	/* -1 unknown */
	long		 progress_max;
	long		 heartbeat_age;	/* seconds, box clock; -1 no heartbeat */
	long		 heartbeat_ahead; /* seconds the heartbeat is beyond the box's clock past the race's bound; 0 none */
	char		*ckpt_stall;	/* checkpoints stopped advancing: why (owned), or NULL */
	long		 eta_s;		/* onbox's estimate from the recent rate; -1 unknown */
};

struct decide_row {
	enum verdict	 v;
	const char	*name;
	int		(*pred)(const struct decide_in *, const struct decide_facts *, struct decide_out *);
	enum decide_action action;
	const char	*when;		/* the condition, for people */
	const char	*then;		/* what it means / what to do */
};

extern const struct decide_row decide_table[];
extern const size_t decide_nrows;

const char *verdict_name(enum verdict v);
int verdict_exit(enum verdict v);

/*
 * A heartbeat older than this many seconds is stale (MONITOR_STALE, onbox
 * status's monitor_stale): two intervals, and never under
 * HEARTBEAT_STALE_MIN_S, since a loaded box can hold one state.json write
 * (its fsync, the scheduler) for seconds and whole-second clocks add one
 * more.  Only intervals under 5 s meet the floor; the default (60) is 120.
 */
#define HEARTBEAT_STALE_MIN_S	10
long heartbeat_stale_s(long heartbeat_s);

/*
 * Walk the table: a pure function of in (the parsed probe, the config, the
 * last tick's numbers); it parses nothing.  out->details carries the
 * evidence (no secrets: it holds no config values but names).
 */
void decide(const struct decide_in *in, struct decide_out *out);

#endif
