/*
 * jobrun.h: the `job` backend's attempts (detach "job").  A run stage's
 * attempt is a job in a cluster manager, driven through core/jobctl.h, and
 * onbox itself is its supervisor: there is no wrapper process.  runner.c
 * keeps the chain, the supervision loop, the log scan, triage, the markers
 * and the restart policy; this file does what differs from a process:
 *
 *   launch     jobrun_launch(): reconcile by name (a job of this name that
 *              is live is adopted, never doubled), then submit; the id goes
 *              into the history and the attempt record
 *   supervise  jobrun_tick(), called by runner_supervise() on every wake-up
 *              and acting once per poll_ms: the job's state, the new bytes
 *              of its log appended to the attempt's output log (so the
 *              runner's scan sees each line once), pending said once and
 *              never a failure, an unknown state never taken for "dead"
 *   end        jobrun_outcome(): the manager's final state as an exit
 *              status (succeeded 0, failed 1, stopped SIGTERM from outside)
 *   re-attach  jobrun_attach(): the job the history names; one the manager
 *              no longer knows, or one that finished while a job of the same
 *              name is live, is replaced by the job find names (adopted, said
 *              in onbox.log and an event); a submit that was in flight when
 *              an onbox died is reconciled by name before any new submit
 *
 * What an attempt (an entry of stages/<stage>.json) keeps, besides onbox's
 * usual keys:
 *   "job_name"          wk-<run>-<stage>
 *   "job_submit"        {"name", "time", "time_unix"}: written BEFORE a submit
 *                       runs.  With no job id it means "a submit may have gone
 *                       through": find by name decides before any new one
 *   POLICY_KEY_JOB_ID   the job followed
 *   "job_replaced"      the ids followed before an adoption, oldest first
 *   "job_state"         our state name at the last answer; "job_raw_state"
 *                       the manager's word (for triage: WORKER_FAILED)
 *   "job_log_base"      the output log's size when this job's log began in it
 *   "job_log_bytes"     bytes of the job's log appended so far
 *   "job_pending_said"  the id whose pending was announced
 * attempts/<stage>.<n>.json (written by onbox in this backend) holds the
 * job's name and id, for people and cleanup scripts.
 *
 *   "job_log_anchor"    the last bytes copied (up to JOBRUN_ANCHOR_MAX, from a
 *                       line start): where the copy stopped, found again in
 *                       the next fetch
 *   "job_log_seen_ms"   wall-clock ms of the fetch that last found new bytes:
 *                       {since_ms} is this less JOBRUN_LOG_OVERLAP_MS
 *
 * Logs.  Each poll runs job.logs (from {since_ms} where the CLI can) and
 * keeps its end (JOBRUN_LOG_CAP); what follows the anchor in it is appended.
 * So a whole log (ray), a window of the newest lines (iris --tail
 * --max-lines) and a log past the cap all keep flowing; when the window has
 * moved past the anchor (more new lines in one poll than it shows), all of
 * it is appended after a line that says lines may be missing.  A line
 * repeated exactly across the anchor can be copied twice, never lost.
 *
 * Limits.  Iris reuses a finished
 * job's id for the same name: a submit in flight whose job already finished
 * under the id of an earlier attempt is taken for that earlier job (and
 * submitted again).
 *
 * Ownership: struct jobrun borrows cfg, instance and sinks for its life, and
 * hist and a between jobrun_attach()/jobrun_launch() and jobrun_detach().
 */
#ifndef WK_JOBRUN_H
#define WK_JOBRUN_H

#include <cJSON.h>

#include "config.h"
#include "notify.h"
#include "triage.h"

#define JOBRUN_SUBMIT_TRIES	5		/* refused submits in a row: the attempt fails */
#define JOBRUN_BACKOFF_MS	1000L		/* after the first refusal; doubled each time */
#define JOBRUN_UNKNOWN_LOUD_S	600L		/* unknown this long: said loudly, never "dead" */
#define JOBRUN_LOG_CAP		(16 * 1024 * 1024)	/* the job's log as fetched: its end */
#define JOBRUN_ANCHOR_MAX	2048		/* the end of what was copied, found again in the next fetch */
#define JOBRUN_LOG_OVERLAP_MS	300000LL	/* {since_ms}: this long before the last new bytes (clock skew) */

struct jobrun;

/* How jobrun emits an event (the runner's runner_emit): ev is consumed. */
typedef void (*jobrun_emit_fn)(void *arg, cJSON *ev, const char *human);

/*
 * For a config with detach "job": check the job section (jobctl_check();
 * problems printed to stderr) and return the backend, or NULL (exit 78).
 * WATCHKEEPER_JOB_UNKNOWN_S overrides JOBRUN_UNKNOWN_LOUD_S (for tests).
 */
struct jobrun *jobrun_new(const struct wk_config *cfg, const char *instance,
    const struct notify_sinks *sinks, jobrun_emit_fn emit, void *arg);
void jobrun_free(struct jobrun *jr);

/*
 * Take up attempt n of run stage st, unfinished in the history (hist, its
 * entry a).  1: a job was submitted (or a submit started): supervise it;
 * 0: nothing was ever submitted: launch it (jobrun_launch()).
 */
int jobrun_attach(struct jobrun *jr, const struct wk_stage *st, long n, cJSON *hist, cJSON *a);

/*
 * Launch attempt n: command (st->run with {checkpoint} substituted) goes
 * into a, then reconcile by name and submit.  0: a job id is known, or the
 * submit is left for jobrun_tick() (the CLI did not answer clearly); a
 * negative code with *why (caller frees) when it cannot be submitted.
 */
int jobrun_launch(struct jobrun *jr, const struct wk_stage *st, long n, cJSON *hist, cJSON *a,
    const char *command, char **why);

/* The attempt's end or abandonment: forget hist and a.  NULL-safe. */
void jobrun_detach(struct jobrun *jr);

/*
 * One poll when poll_ms has passed since the last (else nothing).  1 when
 * the job ended (final state, or a submit that cannot be made); 0 while it
 * lives, waits or cannot be seen.
 */
int jobrun_tick(struct jobrun *jr);

/* cap, lowered to the milliseconds until the next poll. */
int jobrun_poll_cap(const struct jobrun *jr, int cap);

/* timeout_s passed: ask the manager to stop the job (again each poll while it lives). */
void jobrun_stop(struct jobrun *jr);

/* After jobrun_tick() returned 1: the end as an exit status in in; *exec_error for a failed submit. */
void jobrun_outcome(const struct jobrun *jr, struct triage_input *in, const char **exec_error);

/* After a final FAILED: the manager's word for it ("FAILED", "worker_failed"); else NULL. */
const char *jobrun_failed_state(const struct jobrun *jr);

/* Add "job_name" and "job_id" (when known) to an event. */
void jobrun_event(const struct jobrun *jr, cJSON *ev);

/*
 * Pending past job.pending_alert_s: a capacity_wait entry in doc's
 * health.degraded (patrol's DEGRADED), for as long as it lasts.
 */
void jobrun_degraded(const struct jobrun *jr, cJSON *doc);

/*
 * Add the "job" object (name, id, state, waiting, pending_s, unknown_s,
 * cluster_signal, dialect) to state.json's doc.
 */
void jobrun_heartbeat(const struct jobrun *jr, cJSON *doc);

#endif
