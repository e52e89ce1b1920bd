/*
 * runslurm.c: onbox run as a Slurm job sees itself, and Slurm's requeues.
 *
 * Owns: reading and validating SLURM_JOB_ID, SLURM_RESTART_COUNT and
 * SLURMD_NODENAME (runner_slurm_env), marking a new attempt with them
 * (runner_slurm_mark, runner_slurm_event), recognising an attempt an
 * earlier run of this very job left unfinished (runner_is_requeue) and
 * ending it as preempted (runner_requeue), and the short wait for our own
 * signal when a stage dies as its job is being torn down
 * (runner_slurm_stopping).  The Slurm attempt keys are ATT_KEY_* in
 * runner-int.h.  The chain (runner.c) asks; nothing here launches.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "runner-int.h"

/* 1 when s is 1..max characters, all from set. */
static int
env_word_ok(const char *s, size_t max, const char *set)
{
	size_t n = strlen(s);

	return n > 0 && n <= max && strspn(s, set) == n;
}

/*
 * What Slurm's environment says about this onbox, validated: a value that is
 * not what Slurm writes there is ignored with a warning (and never copied
 * anywhere, not even into the warning).
 */
void
runner_slurm_env(struct runner *r)
{
	const char *id = getenv("SLURM_JOB_ID"), *cnt = getenv("SLURM_RESTART_COUNT");
	const char *node = getenv("SLURMD_NODENAME");

	memset(&r->run.slurm, 0, sizeof(r->run.slurm));
	if (id == NULL)
		return;
	if (!env_word_ok(id, SLURM_ID_MAX, DIGITS)) {
		log_warn("SLURM_JOB_ID is not a Slurm job id (1 to %d digits): ignored; attempts "
		    "record no job id and a Slurm requeue cannot be recognised", SLURM_ID_MAX);
		return;
	}
	r->run.slurm.job = 1;
	snprintf(r->run.slurm.job_id, sizeof(r->run.slurm.job_id), "%s", id);
	if (cnt == NULL)
		r->run.slurm.restarts = 0;	/* Slurm sets it only once the job has been requeued */
	else if (env_word_ok(cnt, SLURM_COUNT_MAX, DIGITS))
		r->run.slurm.restarts = strtol(cnt, NULL, 10);
	else {
		r->run.slurm.restarts = -1;
		log_warn("SLURM_RESTART_COUNT is not a count (1 to %d digits): ignored; a Slurm "
		    "requeue of job %s cannot be recognised", SLURM_COUNT_MAX, r->run.slurm.job_id);
	}
	if (node != NULL && env_word_ok(node, SLURM_NODE_MAX, NODE_CHARS))
		snprintf(r->run.slurm.node, sizeof(r->run.slurm.node), "%s", node);
	else if (node != NULL)
		log_warn("SLURMD_NODENAME is not a node name (1 to %d of [A-Za-z0-9._-]): ignored",
		    SLURM_NODE_MAX);
}

/* A new run attempt under Slurm: which job, which run of it, and where. */
void
runner_slurm_mark(const struct runner *r, cJSON *a)
{
	if (!r->run.slurm.job || r->run.job != NULL)
		return;		/* the job backend's own job id lives under the same key */
	json_set_str(a, POLICY_KEY_JOB_ID, r->run.slurm.job_id);
	if (r->run.slurm.restarts >= 0)
		json_set_num(a, ATT_KEY_RESTARTS, (double)r->run.slurm.restarts);
	if (r->run.slurm.node[0] != '\0')
		json_set_str(a, ATT_KEY_NODE, r->run.slurm.node);
}

/* The Slurm attributes runner_slurm_mark() gave attempt a, into event ev. */
void
runner_slurm_event(cJSON *ev, const cJSON *a)
{
	const cJSON *cnt = cJSON_GetObjectItem(a, ATT_KEY_RESTARTS);

	if (json_str(a, POLICY_KEY_JOB_ID, NULL) == NULL)
		return;
	cJSON_AddStringToObject(ev, POLICY_KEY_JOB_ID, json_str(a, POLICY_KEY_JOB_ID, ""));
	if (cJSON_IsNumber(cnt))
		cJSON_AddNumberToObject(ev, ATT_KEY_RESTARTS, cnt->valuedouble);
	if (json_str(a, ATT_KEY_NODE, NULL) != NULL)
		cJSON_AddStringToObject(ev, ATT_KEY_NODE, json_str(a, ATT_KEY_NODE, ""));
}

/* The attempt's record shows no end of its own: killed (or 128 + SIGTERM/SIGKILL), or no end at all. */
static int
rec_killed(const struct attempt_rec *rec)
{
	return !rec->exited || rec->signo != 0 || rec->exit_code == 128 + SIGTERM ||
	    rec->exit_code == 128 + SIGKILL;
}

/*
 * Under Slurm, a stage that ended by a signal (or 128 + SIGTERM/SIGKILL, or
 * without a recorded end) may be the first sign that this job is being
 * stopped: scancel, the time limit and a requeue signal every process of
 * the job in one sweep, and the stage's (or its wrapper's) death can wake us
 * before our own SIGTERM is read.  Judging that attempt then would call a
 * requeue "lost" or "preempted" and restart it, inside a job being torn
 * down.  So wait a moment for our own signal: 1 when it came (the caller
 * stops as for any signal and leaves the attempt to the job's next run,
 * which marks a requeued one requeued), else 0.
 */
int
runner_slurm_stopping(struct runner *r)
{
	struct attempt_rec rec;
	struct deadline d;
	struct pollfd p;

	if (!r->run.slurm.job || r->run.job != NULL || r->cur.st->has_wait)
		return 0;
	if (attempt_rec_load(r->run.cfg->workdir, r->cur.st->name, r->cur.attempt, &rec) == 0 && !rec_killed(&rec))
		return 0;	/* it ended on its own: judge it */
	deadline_set(&d, SLURM_STOP_GRACE_MS);
	do {
		p.fd = r->run.sfd;
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, 1, deadline_poll_timeout(&d, 1, SLURM_STOP_GRACE_MS)) > 0 &&
		    runner_check_signal(r)) {
			log_info("stage %s attempt %ld ended as Slurm job %s is being stopped (signal %d): "
			    "left as it is for the job's next run", r->cur.st->name, r->cur.attempt,
			    r->run.slurm.job_id, r->run.got_signal);
			r->cur.stage_pid = 0;	/* nothing of it keeps running */
			return 1;
		}
	} while (!deadline_expired(&d));
	return 0;
}

/*
 * The newest attempt a, not ended, was started by an earlier run of this
 * very Slurm job (same id, lower restart count): Slurm requeued the job
 * (preemption, node failure, `scontrol requeue`) and runs it again.  Decided
 * from the history and the environment alone, before the attempt's lock,
 * record or pids, which are the earlier run's, are looked at (and then only
 * so that a second copy is never launched: runner_requeue()).
 */
int
runner_is_requeue(const struct runner *r, const cJSON *a)
{
	const cJSON *cnt = cJSON_GetObjectItem(a, ATT_KEY_RESTARTS);

	return is_unfinished(a) && strcmp(json_str(a, HIST_KEY_KIND, ""), "run") == 0 &&
	    r->run.job == NULL && r->run.slurm.job && r->run.slurm.restarts >= 0 &&
	    strcmp(json_str(a, POLICY_KEY_JOB_ID, ""), r->run.slurm.job_id) == 0 &&
	    cJSON_IsNumber(cnt) && cnt->valuedouble < (double)r->run.slurm.restarts;
}

/*
 * End the requeued attempt a (runner_is_requeue): "failed", class
 * preempted (infrastructure: it never counts against restart.max),
 * "requeued"; no FAILED marker and no policy decision, since Slurm, not
 * onbox, restarted it.  Returns 1 when it is ended (the caller starts a new
 * attempt).  Returns 0, ending nothing, only when the attempt verifiably
 * still runs on this node because Slurm did not stop it (its wrapper holds
 * the attempt lock, or its stage's pid with the recorded start time and
 * boot is alive): the caller then re-attaches to it or follows it, as for
 * any live attempt, rather than launching a second copy.  A pid recorded
 * without its start time is never taken for alive here: after a requeue it
 * is more likely reused than ours.  Also 0 when its wrapper recorded an end
 * of its own (an exit status, not a kill) before the requeue: that attempt
 * is judged on its outcome, as any attempt that ended unwatched.
 */
int
runner_requeue(struct runner *r, cJSON *hist, cJSON *a)
{
	const struct wk_stage *st = r->cur.st;
	long n = hist_n(a), before = json_long(a, ATT_KEY_RESTARTS, 0), step = -1;
	char *lockp = layout_attempt_lock(r->run.cfg->workdir, st->name, n), when[TIMEFMT_LEN];
	char human[512];
	struct attempt_rec rec;
	struct deadline d;
	struct proc_id child;
	time_t now;
	int held, have_rec;
	cJSON *ev;

	deadline_set(&d, REQUEUE_SETTLE_MS);
	while ((held = lock_is_held(lockp)) == 1 && !deadline_expired(&d))
		usleep(10000);
	if (held == 1) {
		log_warn("stage %s attempt %ld: Slurm requeued job %s (restart %ld) but the attempt "
		    "still runs here (its wrapper holds %s): re-attaching to it, not launching a "
		    "second copy", st->name, n, r->run.slurm.job_id, r->run.slurm.restarts, lockp);
		free(lockp);
		return 0;
	}
	free(lockp);
	have_rec = attempt_rec_load(r->run.cfg->workdir, st->name, n, &rec) == 0;
	if (have_rec && !rec_killed(&rec)) {
		log_info("stage %s attempt %ld ended on its own (exit %d) before Slurm requeued job %s: "
		    "judged on its outcome", st->name, n, rec.exit_code, r->run.slurm.job_id);
		return 0;
	}
	if (have_rec && !rec.exited && rec.pid > 0 && rec.pid_start != 0) {
		rec_stage_id(&rec, &child);
		if (proc_alive(&child)) {
			log_warn("stage %s attempt %ld: Slurm requeued job %s (restart %ld) but its "
			    "pid %ld still runs here: following it, not launching a second copy",
			    st->name, n, r->run.slurm.job_id, r->run.slurm.restarts, rec.pid);
			return 0;
		}
	}

	r->cur.attempt = n;
	now = time(NULL);
	timefmt_utc(now, when, sizeof(when));
	json_set_str(a, HIST_KEY_RESULT, "failed");
	json_set_str(a, HIST_KEY_CLASS, triage_info(TRIAGE_PREEMPTED)->name);
	json_set_bool(a, ATT_KEY_REQUEUED, 1);
	json_set_str(a, HIST_KEY_ENDED, when);
	json_set_num(a, HIST_KEY_ENDED_UNIX, (double)now);
	if (have_rec && rec.exited && rec.signo != 0)
		json_set_num(a, HIST_KEY_SIGNAL, rec.signo);
	else if (have_rec && rec.exited)
		json_set_num(a, HIST_KEY_EXIT_CODE, rec.exit_code);
	if (have_rec && rec.pid > 0)
		json_set_num(a, POLICY_KEY_PID, (double)rec.pid);
	/* Its progress as the last onbox read it, and its checkpoints: real progress resets the budget. */
	if (r->run.saved != NULL && strcmp(json_str(r->run.saved, "stage", ""), st->name) == 0 &&
	    json_long(r->run.saved, "attempt", 0) == n && cJSON_GetObjectItem(r->run.saved, "prog_cur") != NULL)
		step = json_long(r->run.saved, "prog_cur", -1);
	(void)policy_mark_progress(hist, a, step, runner_ckpt_step(r));
	json_set_bool(a, HIST_KEY_REPORTED, 1);
	(void)runner_hist_save(r, hist);	/* the new attempt's save, checked, carries it too */

	snprintf(human, sizeof(human), "%s requeued by Slurm (job %s, restart %ld): attempt %ld starts",
	    st->name, r->run.slurm.job_id, r->run.slurm.restarts, n + 1);
	ev = events_new(r->run.instance, r->run.cfg->run, "stage_requeued", st->name, n);
	cJSON_AddStringToObject(ev, POLICY_KEY_JOB_ID, r->run.slurm.job_id);
	cJSON_AddNumberToObject(ev, ATT_KEY_RESTARTS, (double)r->run.slurm.restarts);
	cJSON_AddNumberToObject(ev, "attempt_restart_count", (double)before);
	cJSON_AddStringToObject(ev, "class", triage_info(TRIAGE_PREEMPTED)->name);
	cJSON_AddStringToObject(ev, "message", human);	/* what a webhook without its own wording shows */
	runner_emit(r, ev, human);
	return 1;
}
