/*
 * slurm.h: the `slurm` backend: a run's stages as Slurm jobs.
 *
 * Names.  Stage s of run r is the job named "wk-<r>-<s>" (jobctl_job_name()):
 * the name, not the id, is what finds a stage's job again, because ids change
 * on every resubmission (by onbox start, by patrol, or by hand).
 *
 * Submitting.  slurm_sbatch_command() is the whole sbatch command line for
 * one stage: --parsable, the job name, --chdir=workdir, onbox's output file
 * under .watchkeeper/logs/ (appended across requeues), the dependency
 * afterok:<id> on the previous stage's job when that stage is not done yet,
 * the stage's own chain[].sbatch options, and --wrap running
 * `<onbox> -c <config> run --stage <stage>` (onbox's stage wrapper: markers,
 * triage, heartbeat and notifications as under tmux).  Every word goes
 * through sshq_append().  chain[].sbatch is a string of options (split on
 * blanks, each one word: no shell syntax is ever interpreted) or an object
 * {"partition": "gpu", "gpus": 8, "time": "12:00:00", "requeue": true}:
 * a string or number value becomes --key=value, true becomes --key, false
 * leaves the option out.  Options watchkeeper sets itself (job-name,
 * dependency, output, error, chdir, wrap, parsable, open-mode and their short
 * forms) are refused by slurm_check().
 *
 * Querying.  slurm_query_script() is one POSIX sh fragment that asks squeue
 * (--json when this Slurm has it and the cluster's whole queue, which 22.05
 * prints whatever the filters say, is under SLURM_JSON_MAX bytes; else its
 * text format, filtered by --name; a JSON document with "errors" is a failed
 * squeue even though it exits 0), sacct (the
 * accounting database, else the job completion file with `sacct -c`) and
 * `scontrol -o show job` about the run's job names, and prints what each said
 * after a header line of its own:
 *
 *   =squeue json|text <exit status>
 *   =sacct db|comp <exit status>
 *   =scontrol <exit status>
 *
 * The same fragment runs under `onbox start` (through sh) and inside patrol's
 * probe (whose '|' prefixes the probe parser strips).  slurm_parse() reads it
 * back into one record per job id, keeping from each source what it knows
 * best: the queue's state for a job in the queue, exit codes, restart counts
 * and reasons from scontrol, final states from sacct for jobs the controller
 * has forgotten.  A source that failed is remembered as failed: when squeue
 * did not answer, nothing can be said about which jobs are live
 * (queue_known is 0) and a caller must not act as if none were.
 *
 * Ownership: struct slurm_view owns its jobs and strings (slurm_view_free).
 * Nothing here keeps state between calls or touches files.
 */
#ifndef WK_SLURM_H
#define WK_SLURM_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "diag.h"

#define SLURM_CMD_TIMEOUT	"20"	/* seconds per squeue/sacct/scontrol in the fragment */
#define SLURM_JSON_MAX		"262144"	/* bytes of squeue --json kept; more: the text form */
#define SLURM_COMP_LINES	"500"	/* newest lines of the run's jobs in the job completion file */

/* What a job's state means to us. */
enum slurm_cls {
	SLURM_UNKNOWN,		/* a state this table does not know: never read as dead */
	SLURM_WAITING,		/* pending: resources, priority, a dependency, a hold, a requeue */
	SLURM_STRANDED,		/* pending on a dependency that can never be satisfied */
	SLURM_RUNNING,
	SLURM_COMPLETED,
	SLURM_FAILED,		/* FAILED, OUT_OF_MEMORY, TIMEOUT, DEADLINE */
	SLURM_CANCELLED,
	SLURM_INFRA,		/* NODE_FAIL, PREEMPTED, BOOT_FAIL: the cluster's fault */
	SLURM_NCLS
};

struct slurm_job {
	char		*id;		/* "123" */
	char		*stage;		/* the stage its name names */
	char		 state[32];	/* Slurm's state word: PENDING, RUNNING, COMPLETED ... */
	char		 reason[96];	/* why it pends ("Resources", "DependencyNeverSatisfied"); "" none */
	int		 exit_code;	/* -1 unknown */
	int		 signo;		/* 0 none or unknown */
	long		 restarts;	/* requeues so far; -1 unknown */
	int		 in_queue;	/* squeue listed it */
	enum slurm_cls	 cls;
};

struct slurm_view {
	struct slurm_job *jobs;		/* newest (highest id) first */
	size_t		 njobs;
	int		 queue_known;	/* squeue answered: a job it did not list is not live */
	int		 final_known;	/* sacct or scontrol answered */
	char		*why;		/* what could not be asked ("squeue: exit 1: ..."), or NULL */
};

/* "waiting", "stranded", "running", ... */
const char *slurm_cls_name(enum slurm_cls c);
/* 1 for waiting and running: the job holds or will get resources (stranded is not live). */
int slurm_cls_live(enum slurm_cls c);
/* 1 when j waits or runs, or sits in the queue in a state we do not know (never read as dead). */
int slurm_job_live(const struct slurm_job *j);
/*
 * The class of a Slurm state word and pending reason.  "CANCELLED by 0"
 * counts as its first word.
 */
enum slurm_cls slurm_classify(const char *state, const char *reason);
/* What a pending reason means, for people ("waiting for resources"); never NULL. */
const char *slurm_reason_text(const char *reason);

/* Problems with chain[].sbatch, one diagnostic each (file, line, key).  Returns the count. */
int slurm_check(const struct wk_config *cfg, struct diag *d);

/*
 * The sbatch command line for chain[idx], depending on job `after` (NULL:
 * none), running onbox `self` with config `cfgpath` (both absolute).  Caller
 * frees.  NULL (and *why) when chain[idx].sbatch is invalid.
 */
char *slurm_sbatch_command(const struct wk_config *cfg, size_t idx, const char *self,
    const char *cfgpath, const char *after, char **why);
/* The job id in sbatch --parsable's output ("123" or "123;cluster"), or NULL.  Caller frees. */
char *slurm_parse_sbatch(const char *out);
/* `scancel <ids...>`.  Ids must be valid job ids (slurm_id_ok).  Caller frees. */
char *slurm_scancel_command(const char *const *ids, size_t n);
/* 1 when s looks like a job id: digits, optionally with _N or +N. */
int slurm_id_ok(const char *s);

/* The run's job names, comma-separated ("wk-r-a,wk-r-b"), as --name takes them; caller frees. */
char *slurm_names(const struct wk_config *cfg);
/* " -e '<pre><name><post>'" for every job name of cfg: grep -F's patterns, quoted. */
void slurm_grep_names(const struct wk_config *cfg, struct buf *b, const char *pre, const char *post);

/* The query fragment for cfg's job names; caller frees. */
char *slurm_query_script(const struct wk_config *cfg);
/*
 * Run the fragment here (onbox on the login node), bounded like jobctl's
 * commands, and parse it: 0 and *sv (slurm_view_free), or a negative code
 * and *why (caller frees).  sv->queue_known still has to be checked.
 */
int slurm_ask(const struct wk_config *cfg, struct slurm_view *sv, char **why);
/*
 * Parse the fragment's output.  0 and *sv (free with slurm_view_free), or
 * WK_ERR_PARSE and *why when the framing itself is broken.  A source that
 * failed or printed what cannot be read is not an error here: it is said in
 * sv->why and leaves queue_known/final_known 0.
 */
int slurm_parse(const struct wk_config *cfg, const char *text, size_t len, struct slurm_view *sv,
    char **why);
void slurm_view_free(struct slurm_view *sv);

/*
 * The job of stage that counts now: the newest live (waiting or running)
 * job, else the newest job (stranded, or finished).  NULL when none.
 */
const struct slurm_job *slurm_stage_job(const struct slurm_view *sv, const char *stage);
/* The job with id, or NULL. */
const struct slurm_job *slurm_job_by_id(const struct slurm_view *sv, const char *id);

#endif
