/*
 * history.h: a stage's attempt history, stages/<stage>.json (layout.h): the
 * one parser and the one emitter of that file.
 *
 * onbox writes it (the runner, onbox stop, the job backend: hist_load, then
 * hist_add for a new attempt, keys set on the entry, hist_save); the policy
 * (onbox and patrol), caveats and onbox status read it.  The document:
 *   {"stage": NAME, "attempts": [ENTRY, ...]}   oldest first, appended in time order
 * and each ENTRY starts as hist_add writes it, in this key order:
 *   {"attempt": N, "kind": KIND, "started": UTC ISO, "started_unix": T, "result": "starting"}
 * and gains the other keys below as the attempt runs and ends.  Readers take
 * an ended entry as a struct attempt (history_attempts()).
 */
#ifndef WK_HISTORY_H
#define WK_HISTORY_H

#include <stddef.h>
#include <time.h>

#include <cJSON.h>

#define HIST_KEY_STAGE		 "stage"	  /* the document's stage name */
#define HIST_KEY_ATTEMPTS	 "attempts"	  /* the document's array of entries */
#define HIST_KEY_ATTEMPT	 "attempt"	  /* number: the attempt, from 1 */
#define HIST_KEY_KIND		 "kind"		  /* string: why it was started */
#define HIST_KEY_STARTED	 "started"	  /* string: UTC ISO */
#define HIST_KEY_STARTED_UNIX	 "started_unix"	  /* number: unix seconds */
#define HIST_KEY_ENDED_UNIX	 "ended_unix"	  /* number: unix seconds (also for lost/reboot) */
#define HIST_KEY_RESULT		 "result"	  /* "starting" | ... | "done" | "failed" | "lost" */
#define HIST_KEY_CLASS		 "class"	  /* triage class of a failed or lost attempt */
#define HIST_KEY_EXIT_CODE	 "exit_code"	  /* number */
#define HIST_KEY_SIGNAL		 "signal"	  /* number: killed by it */
#define HIST_KEY_WRAPPER_PID	 "wrapper_pid"	  /* number */
#define HIST_KEY_ENDED		 "ended"	  /* string: UTC ISO */
#define HIST_KEY_COMMAND	 "command"	  /* string: the command launched ({checkpoint} filled in) */
#define HIST_KEY_REPORTED	 "reported"	  /* bool: its end was announced (an event) */
#define HIST_KEY_POLICY		 "policy"	  /* object: the policy's decision at its end (policy_out_json) */
#define HIST_KEY_TIMED_OUT	 "timed_out"	  /* bool: onbox killed it at its timeout */
#define HIST_KEY_NAN_STOP	 "nan_stop"	  /* string: why loss.on_nan stopped it */
#define HIST_KEY_WAIT_ANNOUNCED	 "wait_announced" /* number: 1 once its wait was announced */
#define HIST_KEY_STOPPED_BY	 "stopped_by"	  /* string: who ran onbox stop (result "stopped") */
#define HIST_KEY_STOP		 "stop"		  /* string: how onbox stop ended it */
#define HIST_KEY_LOG_START	 "log_start"	  /* object: the log's position at its start {dev, ino, off, fp} */

/*
 * Keys of one attempt in stages/<stage>.json that the policy computes
 * (policy_mark_progress()) or onbox records for it (policy.h says which).
 */
#define POLICY_KEY_PROGRESSED	 "progressed"	  /* bool: real progress in this attempt */
#define POLICY_KEY_STEP		 "step"		  /* number: best progress step it reached */
#define POLICY_KEY_CKPT_STEP	 "checkpoint_step" /* number: newest complete checkpoint's step at its end */
#define POLICY_KEY_CKPT_FROM	 "checkpoint_step_from" /* number: newest complete checkpoint's step at its launch */
#define POLICY_KEY_STEP_INTERVAL "step_interval_s" /* number: seconds per step before its end (recovery_stalled) */
#define POLICY_KEY_CHECKPOINT	 "checkpoint"	  /* string: the checkpoint it resumed from; absent: fresh */
#define POLICY_KEY_PID		 "pid"		  /* number: the stage's process (else "wrapper_pid") */
#define POLICY_KEY_JOB_ID	 "job_id"	  /* string: the cluster manager's job id (job backend) */

/*
 * One attempt of a stage.  The strings point into the history document it
 * was read from (or wherever the caller built it): valid while that lives;
 * nothing here is freed.
 */
struct attempt {
	long		 n;		/* attempt number, from 1 */
	time_t		 started;	/* unix seconds; 0 unknown */
	time_t		 ended;		/* unix seconds; 0 unknown */
	const char	*cls;		/* triage class name; NULL: it succeeded */
	int		 progressed;	/* it made real progress (see policy_progressed()) */
	int		 exit_code;	/* -1 unknown or killed */
	int		 signo;		/* 0: not killed by a signal (or unknown) */
	long		 pid;		/* the stage's pid, 0 unknown */
	const char	*job_id;	/* NULL: not a job, or unknown */
	const char	*checkpoint;	/* resumed from; NULL: fresh start or unknown */
	int		 ckpt_known;	/* ckpt_step and ckpt_from are known (onbox marked its progress) */
	long		 ckpt_step;	/* newest complete checkpoint's step at its end; -1 none */
	long		 ckpt_from;	/* ... at its launch; -1 none */
};

/* ---- the parser ---- */

/*
 * The attempts of one stage's history: hist is the stages/<stage>.json
 * document ({"attempts": [...]}) or that array itself.  Entries oldest
 * first; only ended ones are read (result "done", "failed" or "lost");
 * entries that are not objects, have no positive integral "attempt", or
 * carry a key of the wrong type are skipped (counted in *skipped), as are
 * attempts still starting or running (not counted).  A failed entry
 * without "class" is "unknown", a lost one "lost".  When more than cap
 * attempts remain, the newest cap are kept (the oldest dropped, counted in
 * *skipped).  out's strings point into hist.
 * Returns 0 and *n, or WK_ERR_PARSE when hist has no attempts array
 * (*n = 0).  skipped may be NULL.
 */
int history_attempts(const cJSON *hist, struct attempt *out, size_t cap, size_t *n,
    size_t *skipped);

/* The entries array of hist (the document, or that array itself); NULL when there is none. */
const cJSON *history_array(const cJSON *hist);
/* 1: key present and a number in [lo, hi] (integral when asked); 0 absent; WK_ERR_PARSE malformed. */
int history_num(const cJSON *o, const char *key, double lo, double hi, int integral, double *v);
/* 1 and *s (NULL when absent); WK_ERR_PARSE when present and not a string. */
int history_str(const cJSON *o, const char *key, const char **s);

/* ---- the emitter ---- */

/* The history document of a stage: {"stage": ..., "attempts": [...]}; never NULL. */
cJSON *hist_load(const char *workdir, const char *stage);
int hist_save(const char *workdir, const char *stage, const cJSON *hist);
/* The last attempt object, or NULL when there is none. */
cJSON *hist_last(const cJSON *hist);
/* An entry's attempt number (1 when it has none). */
long hist_n(const cJSON *a);
/* The last attempt's number; 0 when there is none. */
long hist_last_n(const cJSON *hist);
/* Append a new attempt object numbered n; returns it (owned by hist). */
cJSON *hist_add(cJSON *hist, long n, const char *kind);
/*
 * The nodes (string key node_key of each entry) on which an attempt before
 * stop (NULL: all of them) failed with class cls, comma-separated in
 * attempt order, as a node list for sbatch --exclude; NULL when there are
 * none.  Caller frees.
 */
char *hist_nodes_of_class(const cJSON *hist, const cJSON *stop, const char *cls,
    const char *node_key);

#endif
