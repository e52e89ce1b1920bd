/*
 * policy.h: the one restart policy, shared by onbox (on the box) and patrol
 * (from outside), so both decide a failed stage the same way.
 *
 * Data, walked in order (like decide.h's decision table): each row is a rule
 * with a stable short name, its predicate, the action it calls for, and the
 * words for "when" and "then" that reports and the handbook print from here.
 * The first row whose predicate holds decides.  In order:
 *
 *   finished     the run's final marker is there        STOP (never restart it)
 *   unseen       the box was not seen                   STOP (unreachable is not dead)
 *   no_failure   the newest attempt did not fail        STOP (nothing to restart)
 *   never_retry  the class is not retryable             STOP, with the remediation
 *   consent      bad_accelerator on a cluster job       STOP and escalate: the node
 *                (detach job: Ray, Iris)                must be replaced, which the
 *                                                       owner consents to first
 *   escalate     same class as the attempt before, and  STOP and escalate
 *                it ended within restart.escalate_s of
 *                its start without real progress
 *   no_progress  the last restart.no_progress_max       STOP
 *                failed attempts in a row added no new
 *                complete checkpoint (stages that resume
 *                from {checkpoint} only)
 *   flapping     more than restart.max_in_window        STOP
 *                failures ended in restart.window_s
 *   budget       a counting failure with restart.max    STOP
 *                counting failures already in the series
 *   retry        otherwise                              RESTART
 *
 * Retryable: the class is named in restart.retry_classes when that array is
 * set, else triage_info()->retryable; a class name triage does not know is
 * never retryable.
 *
 * No progress: an attempt added a new complete checkpoint when the newest
 * complete checkpoint at its end (POLICY_KEY_CKPT_STEP; absent: none) has
 * a higher step than the newest before it: at its launch
 * (POLICY_KEY_CKPT_FROM; absent: none) and at the end of the attempt
 * before.  The rule counts, from the newest attempt back, the failed
 * attempts of retryable classes (infrastructure ones too: a preemption
 * that always comes before the first checkpoint is not helped by another
 * restart) that added none; a success, a never-retry failure (the relaunch
 * after it was a person's), an attempt that added one, and an attempt
 * whose checkpoints are unknown (no POLICY_KEY_PROGRESSED: ended while no
 * onbox watched, or written by an older onbox) end the count.  It holds
 * when the count reaches restart.no_progress_max (0: the rule is off).
 * It applies only to a stage that resumes from checkpoints: in->stage
 * names a stage of cfg->chain whose command holds {checkpoint}, with
 * checkpoints configured.  Without checkpoints a restart starts over from
 * scratch anyway and how far it gets is chance (a preemption): budget,
 * escalate and flapping decide then, and steps are not used instead.
 *
 * Counting: a failure counts against the budget unless its class is
 * infrastructure (triage_info()->infra: preempted, node_lost, reboot) or
 * "lost" (the exit status is unknown, so the fault is unknown too).
 *
 * The series, and "counters and debounce reset on real progress": budget and
 * escalation look only at the attempts from the newest one that made real
 * progress (itself included: its failure opens the new series) to the one
 * being decided; with no progressed attempt, at all of them.  So when a
 * run trains for ten hours, hits an NCCL timeout, and hits it again a
 * minute after the restart, the second failure escalates (the restart did
 * not help); and each stretch of progress gives the run restart.max fresh
 * restarts.  Flapping looks at every attempt in the window, progress or not.
 *
 * Budget arithmetic: used = counting failures in the series before the one
 * being decided.  A counting failure is restarted while used < restart.max
 * and then uses one more (out->budget_used = used + 1); an infra failure
 * never stops on budget and uses nothing.  restart.max 0 means no counting
 * failure is ever restarted.
 *
 * Times are unix seconds (wall clock: they come from the box's history and
 * are compared with each other and with in->now, never with a monotonic
 * clock).  An end time of 0 is unknown: the attempt being decided then
 * counts as ended at in->now (the caller decides when the failure is found,
 * so its duration is at most now - start); an earlier attempt counts as
 * ended at its start (a lower bound), or not at all when that is unknown
 * too.  Unknown times never make a rule fire that known ones would not.
 *
 * Nothing here keeps state or reads files or clocks, and policy_decide()
 * allocates nothing: everything it needs is in the stage's attempt
 * history, which the caller persists (stages/<stage>.json, layout.h).  What
 * the caller must write into each attempt for the policy to work:
 *   "ended_unix"      when it ended (also for "lost"/"reboot" attempts),
 *   "class"           for every failed or lost attempt,
 *   POLICY_KEY_PROGRESSED  (policy_mark_progress() computes and writes it,
 *                  with POLICY_KEY_CKPT_STEP: no_progress reads both),
 *   POLICY_KEY_CKPT_FROM  at launch, when a complete checkpoint exists,
 * and, for the record, POLICY_KEY_CHECKPOINT, POLICY_KEY_PID or
 * POLICY_KEY_JOB_ID.
 */
#ifndef WK_POLICY_H
#define WK_POLICY_H

#include <stddef.h>
#include <time.h>

#include <cJSON.h>

#include "config.h"
#include "history.h"
#include "triage.h"

/*
 * A size for the caller's array for history_attempts(): more
 * than restart.max and restart.max_in_window can ever look at (both <= 1000).
 */
#define POLICY_ATTEMPTS_MAX	 4096

enum policy_action {
	POLICY_STOP,
	POLICY_RESTART,
};

enum policy_rule {
	POLICY_FINISHED,
	POLICY_UNSEEN,
	POLICY_NO_FAILURE,
	POLICY_NEVER_RETRY,
	POLICY_CONSENT,
	POLICY_ESCALATE,
	POLICY_NO_PROGRESS,
	POLICY_FLAPPING,
	POLICY_BUDGET,
	POLICY_RETRY,
	POLICY_NRULES
};

struct policy_in {
	const struct wk_config *cfg;	/* restart.* keys; required */
	int		 seen;		/* the box answered (patrol: the probe arrived and parsed) */
	int		 finished;	/* the run's final marker is present */
	const struct attempt *att; /* the failed stage's attempts, oldest first */
	size_t		 natt;		/* the last one is the failure being decided */
	time_t		 now;		/* unix seconds, the moment of the decision; required */
	const char	*stage;		/* the stage's name in cfg->chain; NULL: unknown (no_progress off) */
};

struct policy_out {
	enum policy_action action;
	enum policy_rule rule;
	const char	*rule_name;	/* "finished", "unseen", ..., "retry" (static) */
	const char	*cls;		/* the class decided about (points into in->att), NULL none */
	enum triage_class tcls;		/* its triage class; TRIAGE_UNKNOWN for a name triage lacks */
	int		 retryable;
	int		 counts;	/* this failure counts against the budget */
	int		 escalate;	/* STOP that needs a person now (rule escalate) */
	long		 budget_used;	/* counting failures in the series, incl. this one when restarted */
	long		 budget_max;	/* restart.max */
	long		 in_window;	/* failures ended within restart.window_s of now, this one included */
	long		 max_in_window;	/* restart.max_in_window */
	long		 window_s;	/* restart.window_s */
	char		 reason[768];	/* one line, for people: class and remediation when it stops */
};

/* What the attempts say, worked out once before the table is walked. */
struct policy_facts {
	const struct attempt *last;	/* NULL when natt == 0 */
	const struct attempt *prev;	/* the one before last, NULL none */
	const struct triage_class_info *ci;	/* last's class info (unknown names: "unknown") */
	int		 known;		/* last->cls is a triage class name */
	int		 retryable;
	int		 counts;
	size_t		 series;	/* index of the first attempt of the series */
	long		 used_before;	/* counting failures in the series before last */
	long		 in_window;
	long		 duration;	/* last's end - start in seconds; -1 unknown */
	long		 max, window_s, max_in_window, escalate_s;	/* restart.* */
	long		 np_max;	/* restart.no_progress_max; 0 when the rule does not apply */
	long		 np_run;	/* failed attempts in a row, newest back, without a new checkpoint */
	long		 np_newest;	/* the newest complete checkpoint's step before them; -1 none */
};

struct policy_row {
	enum policy_rule rule;
	const char	*name;
	int		(*pred)(const struct policy_in *, const struct policy_facts *,
			    struct policy_out *);
	enum policy_action action;
	const char	*when;		/* the condition, for people */
	const char	*then;		/* what it means / what to do */
};

extern const struct policy_row policy_table[];
extern const size_t policy_nrows;

/* The rules in order, for the handbook; *n receives their number. */
const struct policy_row *policy_table_rows(size_t *n);
/* "finished" ... "retry"; "?" out of range. */
const char *policy_rule_name(enum policy_rule rule);
/* "stop" or "restart". */
const char *policy_action_name(enum policy_action action);

/*
 * Decide.  Never fails: a NULL or empty attempt list decides no_failure.
 * out is filled whole; out->reason holds class names, numbers and the
 * triage table's remediation, never a config value that could be a secret.
 */
void policy_decide(const struct policy_in *in, struct policy_out *out);

/*
 * Real progress: the attempt's best progress step went past best_before
 * (the best of the earlier attempts), or the newest complete checkpoint's
 * step went past ckpt_before.  -1 means unknown / none for each; a step of
 * 0 is never progress.
 */
int policy_progressed(long best_before, long step, long ckpt_before, long ckpt_step);

/*
 * For onbox when an attempt ends: record on a (an entry of hist's attempts)
 * POLICY_KEY_STEP and POLICY_KEY_CKPT_STEP (when >= 0) and
 * POLICY_KEY_PROGRESSED, comparing with the best of the entries before a.
 * Returns the progressed flag written.  hist and a stay the caller's.
 */
int policy_mark_progress(const cJSON *hist, cJSON *a, long step, long ckpt_step);

/*
 * recovery_stalled (onbox's supervision; health.h raises the alert): does
 * attempt a of hist (the stages/<stage>.json document; a in its attempts)
 * get watched for its first step after a relaunch, and for how long?  Yes
 * when a is not the stage's first attempt and the attempt before it ended
 * "failed" or "lost" (a relaunch after a failure: the policy's restart,
 * patrol's resume, or a person's onbox start).  *limit_s is
 * restart.recovery_s when > 0, else three times the step interval the
 * attempt before saw (POLICY_KEY_STEP_INTERVAL), at least
 * POLICY_RECOVERY_MIN_S (that minimum when the interval is unknown);
 * *interval_s is that interval, or -1 unknown.  Returns 1 (watch) or 0.
 */
#define POLICY_RECOVERY_MIN_S	600
#define POLICY_RECOVERY_FACTOR	3
int policy_recovery(const struct wk_config *cfg, const cJSON *hist, const cJSON *a,
    long *limit_s, double *interval_s);

/*
 * The decision as a new JSON object (caller cJSON_Delete()s) for events and
 * the logbook: action, rule, class, counts, budget_used, budget_max,
 * in_window, max_in_window, window_s, escalate, reason.
 */
cJSON *policy_out_json(const struct policy_out *out);

#endif
