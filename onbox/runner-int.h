/*
 * runner-int.h: what the parts of `onbox run` share, and nothing else
 * includes.  struct runner is in three parts: run (this process, from lock
 * to exit), cur (the stage being supervised, reset by runner_stage_reset)
 * and note (the notification side).  The files:
 *
 *   runner.c     the chain: runner_run, runner_chain, runner_stage
 *   entry.c      how a stage's supervision begins: re-attach, lost, launch
 *   runslurm.c   Slurm: its environment, requeues, a job being stopped
 *   supervise.c  the poll loop while a stage runs, timeouts, signals, stop
 *   sources.c    the logs read, the line feed, scan.json
 *   finalize.c   the outcome, the policy, the markers, the chain's end
 *   emit.c       events, the pending ring, the heartbeat, health alerts
 */
#ifndef RUNNER_INT_H
#define RUNNER_INT_H

#include <sys/types.h>
#include <stddef.h>
#include <time.h>

#include <cJSON.h>

#include "attempt.h"
#include "config.h"
#include "deliver.h"
#include "health.h"
#include "jobrun.h"
#include "logscan.h"
#include "monotime.h"
#include "nanstop.h"
#include "notify.h"
#include "outbox.h"
#include "policy.h"
#include "proc.h"
#include "tail.h"
#include "triage.h"

#define KILL_GRACE_MS	10000	/* SIGTERM, then SIGKILL after this */
#define RUNNER_POLICY_HISTORY 64	/* attempts the policy looks back on */
#define REC_WAIT_MS	5000	/* a live wrapper writes its record within this */
#define REC_WAIT_STEP_US 10000	/* runner_rec_wait: the record read again after this */
#define NOPIDFD_POLL_MS	200	/* liveness re-check when the kernel has no pidfd */
#define REQUEUE_SETTLE_MS 2000	/* a wrapper whose stage Slurm killed lets go of its lock at once */
#define SLURM_STOP_GRACE_MS 2000 /* Slurm signals a job's processes in one sweep: ours comes within it */
#define PEND_MAX	256	/* events held in memory while the outbox cannot take them */

/* What an attempt under Slurm records besides POLICY_KEY_JOB_ID. */
#define ATT_KEY_RESTARTS "slurm_restart_count"	/* number: SLURM_RESTART_COUNT at its start */
#define ATT_KEY_NODE	 "node"			/* string: SLURMD_NODENAME */
#define ATT_KEY_REQUEUED "requeued"		/* bool: ended by a Slurm requeue */

/* Bounds on what the environment may say; anything else is ignored. */
#define SLURM_ID_MAX	 19	/* digits: any 64-bit job id */
#define SLURM_COUNT_MAX	 9	/* digits */
#define SLURM_NODE_MAX	 64	/* a host name's first label is at most 63 */
#define DIGITS		 "0123456789"
#define NODE_CHARS	 DIGITS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._-"

struct source {
	const char	*label;		/* "output" or "log" */
	char		*path;
	int		 wd;		/* inotify watch on its directory, -1 none */
	struct logscan	 ls;
	struct tailkeep	 tail;		/* the readable last lines (core/tail.h) */
};

/* An event the outbox could not take yet, and the first sink it is not queued for. */
struct pending_ev {
	cJSON		*ev;
	size_t		 sink;
};

/*
 * The runner in three parts: what lives as long as the run (run), what one
 * stage's supervision resets (cur, runner_stage_reset), and the
 * notification side (note).
 */
struct runner {
	/* ---- the run: this process, from lock to exit ---- */
	struct {
		struct wk_config *cfg;		/* the run's config; cfg->workdir its workdir */
		char		 instance[17];
		int		 lockfd;	/* onbox.lock */
		int		 ifd;		/* inotify */
		int		 sfd;		/* signalfd */
		struct deadline	 hb;		/* next heartbeat */
		const char	*status;	/* running | done | failed | stopped | waiting (see runner_run) */
		struct jobrun	*job;		/* detach "job": run stages are cluster jobs (jobrun.c); else NULL */
		int		 got_signal;
		int		 stop_asked;	/* SIGUSR1 came with a stop request (`onbox stop`) */
		int		 stopped;	/* the run was stopped on purpose: recorded, run_stopped sent */

		/*
		 * Training health (core/health.c): fed every new line, its state kept
		 * in .watchkeeper/scan.json with how far each log was read (runner_scan_save).
		 */
		struct health	*health;	/* NULL: none (its patterns failed) */
		cJSON		*saved;		/* scan.json as the last onbox left it, or NULL */
		cJSON		*gate;		/* the launch contract (gate.h), for the next launch's event; NULL */
		time_t		 htick;		/* last health tick: one per heartbeat_s, not per event */
		struct nanstop	 nan;		/* loss.on_nan stop: the attempt to stop (nanstop.h) */

		/* This onbox as a Slurm job sees itself (runner_slurm_env); job 0: not under Slurm. */
		struct {
			int	 job;			/* SLURM_JOB_ID was valid: job_id holds it */
			char	 job_id[SLURM_ID_MAX + 1];
			long	 restarts;		/* SLURM_RESTART_COUNT (unset: 0); -1 unusable */
			char	 node[SLURM_NODE_MAX + 1]; /* SLURMD_NODENAME; "" unknown */
		} slurm;
	} run;

	/* ---- the stage being supervised (runner_stage_reset) ---- */
	struct {
		const struct wk_stage *st;
		size_t		 idx;
		long		 attempt;
		long		 stage_pid;
		struct source	 src[2];
		size_t		 nsrc;
		struct triage_scan ts;
		int		 done_seen;
		int		 wait_seen;
		int		 prog_have;
		long		 prog_cur;
		long		 prog_max_log;
		int		 restart;	/* the policy restarts the stage that just failed */
		time_t		 started;	/* the watched run attempt's launch (unix s); 0 none */
	} cur;

	/* ---- notifications: sinks, their outbox and delivery, events held in memory ---- */
	struct {
		struct notify_sinks sinks;
		struct outbox_opts outbox;
		struct deliver	 dl;
		cJSON		*last_event;	/* {event, stage, attempt, time} */

		/*
		 * Events outbox_enqueue could not queue (a full disk): a ring, oldest
		 * first, queued again at every heartbeat and before exit, in the order
		 * they were raised (runner_pend_flush).  A new event waits behind them.
		 */
		struct pending_ev pend[PEND_MAX];
		size_t		 pend_head;
		size_t		 npend;
		int		 pend_failing;	/* this streak of failures is logged */

		/* the live cards' progress (card.h): when last queued, and what it said */
		time_t		 card_at;
		long		 card_cur;
		double		 card_loss;
	} note;
};

struct line_ctx {
	struct runner	*r;
	struct source	*s;
	int		 catchup;	/* only look for the done/wait pattern */
};

struct outcome {
	enum triage_class cls;
	int		 exited;
	int		 exit_code;
	int		 signo;
	const char	*evidence;
	const char	*guess;		/* why the class is a guess, or NULL */
	const char	*exec_error;
};

enum sup_end { SUP_GONE, SUP_WAIT_HIT, SUP_CRASH, SUP_TIMEOUT, SUP_SIGNAL, SUP_STOP };

struct watch {
	pid_t		 pid;		/* followed process; 0 none */
	struct proc_id	 id;		/* its identity, to survive pid reuse without pidfd */
	int		 pidfd;
	int		 own;		/* our child: reap it */
	pid_t		 kill_pgid;	/* process group to stop on timeout; 0 none */
	time_t		 timeout_at;	/* wall clock; 0 none */
	int		 wait_stage;
	struct jobrun	*job;		/* job backend: polled instead of a pid; NULL none */
};



/* What runner_rec_wait() waits for in the wrapper's record. */
enum rec_want {
	REC_WRAPPER,		/* the wrapper's own pid: it runs (a re-attach) */
	REC_STAGE_PID,		/* the stage's pid, its process group (a stop) */
	REC_PID_OR_END		/* the stage's pid, or an end without one (its cgroup) */
};

/* One stage's supervision, from runner_stage's way in to its outcome. */
struct stage_ctx {
	cJSON		*hist;		/* the stage's history (stages/<stage>.json) */
	cJSON		*a;		/* the attempt supervised; NULL: a new one is due */
	struct attempt_rec rec;		/* the wrapper's record, as far as it was read */
	struct watch	 w;
	int		 lost_follow;	/* its wrapper is gone, its command followed: no exit status */
	char		*lockp;		/* the attempt's lock, when runner_entry looked at it */
};

/* The ways into a stage's newest attempt (runner_entry), each taken by runner_enter. */
enum stage_entry {
	ENTRY_REQUEUE,		/* Slurm requeued the job: that attempt is ended, a new one starts */
	ENTRY_JOB_ATTACH,	/* job backend: the job the history names */
	ENTRY_REATTACH,		/* its wrapper holds the attempt lock: supervise it again */
	ENTRY_ENDED_UNWATCHED,	/* it ended while no onbox watched: judge its record */
	ENTRY_FOLLOW_ORPHAN,	/* its wrapper is gone, its command runs: follow that pid */
	ENTRY_LOST,		/* its wrapper died without an exit status: the policy decides */
	ENTRY_RESUME_WAIT,	/* a wait stage's attempt: resume the wait */
	ENTRY_NEW		/* the last attempt ended (or none): a new one */
};


/* runner.c: the chain */
int	runner_hist_save(struct runner *r, const cJSON *hist);

/* entry.c: the way into a stage's attempt */
int	is_unfinished(const cJSON *a);
int	runner_rec_wait(const struct runner *r, enum rec_want want, struct attempt_rec *rec);
void	rec_stage_id(const struct attempt_rec *rec, struct proc_id *id);
enum stage_entry runner_entry(struct runner *r, struct stage_ctx *sc);
int	runner_enter(struct runner *r, struct stage_ctx *sc, enum stage_entry e);
int	runner_new_attempt(struct runner *r, struct stage_ctx *sc);

/* runslurm.c: Slurm */
void	runner_slurm_env(struct runner *r);
void	runner_slurm_mark(const struct runner *r, cJSON *a);
void	runner_slurm_event(cJSON *ev, const cJSON *a);
int	runner_slurm_stopping(struct runner *r);
int	runner_is_requeue(const struct runner *r, const cJSON *a);
int	runner_requeue(struct runner *r, cJSON *hist, cJSON *a);

/* supervise.c: watching a stage, stopping it */
int	runner_stop_requested(const struct runner *r);
int	runner_check_signal(struct runner *r);
void	runner_stop_record(struct runner *r, const struct wk_stage *st, cJSON *hist, cJSON *a,
	    const char *how);
void	runner_stop_stage(struct runner *r, cJSON *hist, cJSON *a, struct watch *w);
enum sup_end runner_watch_run(struct runner *r, struct stage_ctx *sc);
enum sup_end runner_watch_wait(struct runner *r, struct stage_ctx *sc);

/* sources.c: the logs read, scan.json */
void	source_open(struct runner *r, struct source *s, const char *label, const char *path);
void	source_close(struct runner *r, struct source *s);
void	runner_scan_save(struct runner *r);
void	runner_scan_init(struct runner *r);
void	runner_scan_restore(struct runner *r);
void	runner_line(void *arg, const char *line, size_t len, int flags);
void	runner_scan(struct runner *r);
void	runner_scan_final(struct runner *r);
void	runner_drain_inotify(struct runner *r);
void	source_from(struct source *s, const cJSON *start);
void	hist_mark_log_start(cJSON *a, const char *path);
char *	stage_log_path(const struct wk_config *cfg, const char *rel);
void	runner_sources_run(struct runner *r, const cJSON *a);

/* finalize.c: the verdict, the markers, the chain's end */
int	runner_policy(struct runner *r, const cJSON *hist, struct policy_out *out);
long	runner_ckpt_step(const struct runner *r);
void	runner_watch_recovery(struct runner *r, const cJSON *hist, const cJSON *a);
int	runner_finalize(struct runner *r, cJSON *hist, cJSON *a, const struct outcome *given);
void	runner_catch_up(struct runner *r, size_t idx);
void	runner_chain_done(struct runner *r);
int	runner_judge(struct runner *r, struct stage_ctx *sc, enum sup_end end);

/* emit.c: events, the pending ring, the heartbeat */
void	runner_progress_text(const struct runner *r, char *out, size_t len);
void	runner_heartbeat(struct runner *r);
int	runner_pend_flush(struct runner *r);
void	runner_pend_free(struct runner *r);
void	runner_pend_last(struct runner *r);
void	runner_emit(struct runner *r, cJSON *ev, const char *human);
void	runner_job_emit(void *arg, cJSON *ev, const char *human);
void	runner_health_alerts(struct runner *r);

#endif /* RUNNER_INT_H */
