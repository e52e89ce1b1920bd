/*
 * jobctl.h: the `job` backend's driver for a cluster manager's CLI (Ray,
 * Iris, ...), entirely from the commands in the config's job.* keys.
 *
 * Commands.  job.submit, job.status, job.find, job.stop and job.logs are sh
 * command lines (usually from profiles/<manager>.json); a profile for a CLI
 * that changed between versions lists job.dialects, each with a detect
 * command and its own versions of any of them (jobctl_dialect()).  Before a
 * command runs, the placeholders {id}, {name}, {command}, {workdir} and
 * {since_ms} are replaced, each by ONE word quoted with sshq_append(), so a
 * placeholder must stand outside any quotes in the template; {options}
 * (submit only) becomes the stage's chain[].job as zero or more quoted words.  Anything else in braces (an awk
 * program's { print $1 }) is left alone.  A placeholder the operation has no
 * value for ({id} in submit) is an error, not an empty word.
 *
 * Running.  Every command runs as `/bin/sh -c` through spawn_sh() in its own
 * process group, stdin on /dev/null, in the caller's working directory and
 * environment (the profile's commands cd themselves).  It is bounded by
 * jc->timeout_ms: past it the whole group gets SIGTERM, then SIGKILL after
 * JOBCTL_KILL_GRACE_MS, and the call fails with WK_ERR_TIMEOUT.  stdout is
 * kept up to jc->out_cap bytes, stderr's last JOBCTL_ERR_KEEP bytes (for the
 * why).  A non-zero exit, a signal, or output that does not parse is an
 * error with a why; a state is never guessed.  When the shell has exited the
 * call returns even if something it left in the background still holds the
 * pipes; such leftovers are not waited for and not killed.
 *
 * Output contracts (the profiles document them again):
 *   submit  a line of stdout matched by job.id_regex (group 1, else the whole
 *           match) gives the new job's id; the first line that matches wins.
 *   status  prints the manager's state as ONE bare word (surrounding
 *           whitespace is stripped).  Nothing, or more than one word, is an
 *           error.  The word is mapped through job.states: exact,
 *           case-sensitive match of the manager's token.
 *   find    prints one line per job named {name}, NEWEST FIRST.  On each line
 *           job.id_regex finds the id and the line's last word, after the id,
 *           is the manager's state.  Lines the regex does not match are
 *           ignored (headers).
 *   stop    its exit status is all that counts.
 *   logs    its stdout is the job's log.
 *
 * job.states maps our state names (the keys: pending, running, succeeded,
 * failed, stopped, unknown) to the manager's state name or array of names.
 * A key that is not one of ours, or a manager name listed under two of our
 * states, is a config error (jobctl_check() reports it; every call refuses).
 *
 * Codes: WK_ERR_INVALID (the config or an argument), WK_ERR_EXEC (the
 * command could not start, exited non-zero or died of a signal),
 * WK_ERR_TIMEOUT, WK_ERR_PARSE (output not in the contract's shape),
 * WK_ERR_TOOLONG (find's listing over out_cap), WK_ERR_NOTFOUND (find: no
 * job of that name), WK_ERR_REGEX, WK_ERR_SYSTEM.  Every failure has a why.
 *
 * Ownership: nothing here keeps state between calls and nothing is global;
 * struct jobctl only borrows cfg.  Every char ** out-parameter is set to NULL
 * on entry and, when set, is the caller's to free().
 *
 * What the caller must persist: the job id from jobctl_submit() (or
 * jobctl_find()) and the job name it was submitted under, in its state file,
 * before it does anything else: the name is what finds the job again when the
 * id is lost or changed (resubmitted by hand, a submit whose output did not
 * parse, a submit that timed out).  For the attempt history, the raw state
 * word from jobctl_status() too: it keeps what the mapping folds together
 * (JOB_STATE_WORKER_FAILED and JOB_STATE_FAILED are both failed).
 *
 * Secrets: a why may quote the last line the CLI wrote to stderr.  Put it
 * through notify_scrub() before it leaves the machine.
 */
#ifndef WK_JOBCTL_H
#define WK_JOBCTL_H

#include <stddef.h>

#include <cJSON.h>

#include "config.h"
#include "diag.h"

#define JOBCTL_TIMEOUT_MS	60000L		/* per command: a CLI talking to a controller */
#define JOBCTL_KILL_GRACE_MS	1000L		/* SIGTERM to SIGKILL */
#define JOBCTL_OUT_CAP		(1024 * 1024)	/* stdout kept for parsing */
#define JOBCTL_ERR_KEEP		8192		/* the tail of stderr, for the why */
#define JOBCTL_LOGS_CAP		(1024 * 1024)	/* jobctl_logs() with cap 0 */
#define JOBCTL_STATE_MAX	128		/* longest state word accepted */

/* Our states.  pending and running are "live": never restart a live job. */
enum job_state {
	JOB_UNKNOWN = 0,	/* a manager state job.states does not map (raw name in the why) */
	JOB_PENDING,		/* accepted, waiting for capacity or being set up: NOT a failure */
	JOB_RUNNING,
	JOB_SUCCEEDED,
	JOB_FAILED,
	JOB_STOPPED,		/* stopped or killed by a person or the manager */
};

/*
 * Names and ids passed in must be one line of printable text (the managers'
 * output is read line by line); anything else is WK_ERR_INVALID.
 */
struct jobctl {
	const struct wk_config *cfg;	/* job.*, workdir; borrowed */
	const cJSON	*dialect;	/* the job.dialects[] entry in use (jobctl_dialect()); NULL: none */
	long		 timeout_ms;	/* per command, milliseconds; <= 0: JOBCTL_TIMEOUT_MS */
	size_t		 out_cap;	/* stdout bytes kept for parsing; 0: JOBCTL_OUT_CAP */
};

/* jc for cfg with JOBCTL_TIMEOUT_MS and JOBCTL_OUT_CAP. */
void jobctl_init(struct jobctl *jc, const struct wk_config *cfg);

/* "pending", "running", ... (the keys of job.states). */
const char *job_state_name(enum job_state st);
/* 1 for pending and running: the job holds or waits for resources. */
int job_state_live(enum job_state st);
/* 1 for succeeded, failed and stopped. */
int job_state_final(enum job_state st);

/* The job name for one stage of cfg's run: "wk-<run>-<stage>".  Caller frees. */
char *jobctl_job_name(const struct wk_config *cfg, const char *stage);

/*
 * Check cfg's job section for what config.c cannot know: job.states keys and
 * duplicate names, id_regex present when submit or find is set, and which
 * placeholders each command uses ({id} in status/stop/logs, {name} in find,
 * no {id} in submit or find).  One diagnostic per problem, naming the key.
 * Returns the number added (0: fine).
 */
int jobctl_check(const struct wk_config *cfg, struct diag *d);

/*
 * Submit the stage command as job name.  0 and *id; or a negative code and
 * *why.  After WK_ERR_TIMEOUT, or WK_ERR_PARSE following a zero exit (no id
 * in the output), the job may exist: reconcile with jobctl_find() before
 * submitting again.
 */
int jobctl_submit(const struct jobctl *jc, const char *name, const char *command,
    const char *options, char **id, char **why);

/*
 * An adopted stage's recovery: run the owner's own command (label names it,
 * "chain[0].resubmit") the same bounded way and read the new job's id from
 * its output with job.id_regex, as jobctl_submit() does.
 */
int jobctl_resubmit(const struct jobctl *jc, const char *label, const char *command, char **id,
    char **why);

/*
 * Which generation of the CLI this is.  With job.dialects, the entry named
 * want (the one recorded for the run) when there is one, else the first
 * whose detect command exits 0; its commands replace the job section's from
 * then on (jc->dialect).  0 and *name (NULL without job.dialects), or
 * WK_ERR_NOTFOUND and *why naming each dialect tried and what the last said.
 */
int jobctl_dialect(struct jobctl *jc, const char *want, char **name, char **why);

/*
 * 1 when cmd passes --no-wait (or Marin's ray_run.py --no_wait) as a word of
 * its own: a resubmit that returns at once with the new id.
 */
int jobctl_has_nowait(const char *cmd);

/* 1 when key ("job.find") has a command, in the dialect in use or the job section. */
int jobctl_has(const struct jobctl *jc, const char *key);

/*
 * chain[idx].job as quoted option words for {options} ("" when the stage has
 * none), checked against job.options and job.reserved.  0 and *words, or
 * WK_ERR_INVALID and *why.
 */
int jobctl_options(const struct wk_config *cfg, size_t idx, char **words, char **why);

/*
 * The state of job id.  0 with *st and *raw_state (the manager's word, for the
 * record and for triage: JOB_STATE_WORKER_FAILED is a failed job lost to a
 * worker); for an unmapped word *st is JOB_UNKNOWN and *why says which word.
 * A negative code (*st JOB_UNKNOWN, *raw_state NULL, *why set) when the
 * command failed, timed out or printed no single word: the state is then
 * not known at all, which is not the same as the job being gone.
 */
int jobctl_status(const struct jobctl *jc, const char *id, enum job_state *st,
    char **raw_state, char **why);

/*
 * Reconcile: the job named name that counts now, from job.find's listing
 * (newest first).  The first job that is live, or whose state is unknown (it
 * may be live), wins; when every job listed is finished, the first (newest).
 * A live job beats a newer finished one because restarting beside a job that
 * still runs would double-launch.  0 with *id and *st (*why set only when *st
 * is JOB_UNKNOWN, naming the raw state); WK_ERR_NOTFOUND (with *why) when the
 * listing has no job of that name; another negative code on failure.  The
 * caller records the id it returns in place of the one it had.
 */
int jobctl_find(const struct jobctl *jc, const char *name, char **id, enum job_state *st,
    char **why);

/*
 * The node (or node list) job id ran on, from job.node: its first word.  0
 * and *node, or a negative code and *why (no job.node: WK_ERR_INVALID).
 */
int jobctl_node(const struct jobctl *jc, const char *id, char **node, char **why);

/* Stop job id.  0, or a negative code and *why. */
int jobctl_stop(const struct jobctl *jc, const char *id, char **why);

/*
 * Write the END of job id's log, at most cap bytes (0: JOBCTL_LOGS_CAP), to
 * out_fd; when the log was longer, output starts at a line boundary and *cut
 * (may be NULL) is 1.  {since_ms} in job.logs becomes since_ms (0 when <= 0):
 * a CLI that can read from a time (iris --since-ms) sends only the recent
 * part.  The whole output is read (bounded by the timeout) and its tail kept
 * in memory.  Nothing is written when the command fails.  out_fd takes
 * blocking writes; a reader that went away is WK_ERR_SYSTEM (EPIPE), never a
 * SIGPIPE.  0, or a negative code and *why.
 */
int jobctl_logs(const struct jobctl *jc, const char *id, long long since_ms, int out_fd,
    size_t cap, int *cut, char **why);

/*
 * Run one sh command line of the caller's (built with sshq_append only) the
 * same bounded way, for a backend that drives its manager's CLI itself (the
 * slurm backend).  label names it in a why.  0 and *out (stdout, up to
 * out_cap bytes; more is WK_ERR_TOOLONG), or a negative code and *why.
 */
int jobctl_exec(const struct jobctl *jc, const char *label, const char *cmd, char **out,
    char **why);

#endif
