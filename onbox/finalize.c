/*
 * finalize.c: how an attempt ended, and what is written about it.
 *
 * Owns: the outcome of an attempt (runner_judge: the triage input from its
 * exit status, lines and cgroup, then struct outcome: exit status, triage
 * class and its evidence), the restart policy's decision on it
 * (runner_policy, the same core/policy.c patrol applies), completion.require
 * for the last stage (runner_require), and runner_finalize(): the marker or
 * the FAILED marker, the history, the stage_done/stage_failed event.  Also
 * the chain's end: a done stage's event recorded late (runner_catch_up) and
 * chain_done with its caveats (runner_chain_done).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic.h"
#include "caveats.h"
#include "cgroup.h"
#include "ckpt.h"
#include "complete.h"
#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "traceback.h"
#include "xmalloc.h"
#include "runner-int.h"

static void
add_tail(cJSON *obj, const struct runner *r)
{
	const struct source *s = NULL;
	size_t i;

	/* The attempt's own output carries tracebacks; fall back to the program's log. */
	for (i = 0; i < r->cur.nsrc && s == NULL; i++)
		if (!tailkeep_empty(&r->cur.src[i].tail))
			s = &r->cur.src[i];
	cJSON_AddItemToObject(obj, "last_lines", s != NULL ? tailkeep_lines(&s->tail) : cJSON_CreateArray());
}

static void
add_exit(cJSON *obj, const struct outcome *o)
{
	char buf[16];

	if (o->signo != 0)
		cJSON_AddStringToObject(obj, "signal", signame(o->signo, buf, sizeof(buf)));
	else if (o->exited)
		cJSON_AddNumberToObject(obj, "exit_code", o->exit_code);
}

static void
describe_exit(const struct outcome *o, char *out, size_t len)
{
	char buf[16];

	if (o->signo != 0)
		snprintf(out, len, "killed by %s", signame(o->signo, buf, sizeof(buf)));
	else if (o->exited)
		snprintf(out, len, "exit %d", o->exit_code);
	else
		snprintf(out, len, "no exit status");
}

/* The results file, verbatim and bounded, when the run has one and it exists now. */
static void
runner_add_results(const struct runner *r, cJSON *ev)
{
	char *rp, *res = NULL;
	size_t n;

	if (r->run.cfg->results == NULL)
		return;
	rp = fs_join(r->run.cfg->workdir, r->run.cfg->results);
	if (fs_read_file(rp, 64 * 1024, &res, &n) == 0) {
		cJSON_AddStringToObject(ev, "results_file", r->run.cfg->results);
		cJSON_AddStringToObject(ev, "results", res);
	}
	free(res);
	free(rp);
}

/*
 * The restart policy (core/policy.c, the same one patrol applies) on the
 * stage's history, whose last attempt just failed.  Fills out; 1 restart.
 */
int
runner_policy(struct runner *r, const cJSON *hist, struct policy_out *out)
{
	struct attempt att[RUNNER_POLICY_HISTORY];
	struct policy_in in;
	char *final = layout_marker(r->run.cfg->workdir, r->run.cfg->chain[r->run.cfg->nchain - 1].marker);
	size_t n = 0, skipped = 0;

	memset(&in, 0, sizeof(in));
	if (r->cur.st->has_wait) {
		/* It watches a process onbox did not start: there is nothing to restart. */
		memset(out, 0, sizeof(*out));
		out->action = POLICY_STOP;
		out->rule = POLICY_NEVER_RETRY;
		out->rule_name = "wait_stage";
		snprintf(out->reason, sizeof(out->reason), "a wait stage watches a process onbox did "
		    "not start: nothing to restart; relaunch what it waits for, then onbox start");
		free(final);
		return 0;
	}
	(void)history_attempts(hist, att, RUNNER_POLICY_HISTORY, &n, &skipped);
	in.cfg = r->run.cfg;
	in.seen = 1;
	in.finished = fs_exists(final);
	in.att = att;
	in.natt = n;
	in.now = time(NULL);
	in.stage = r->cur.st->name;
	policy_decide(&in, out);
	free(final);
	return out->action == POLICY_RESTART;
}

/* The newest complete checkpoint's step now, -1 none or not configured. */
long
runner_ckpt_step(const struct runner *r)
{
	struct ckpt_scan *scan = NULL;
	char *why = NULL;
	long step = -1;

	if (ckpt_configured(r->run.cfg) && ckpt_scan_dir(r->run.cfg, &scan, &why) == 0 && scan->newest != NULL)
		step = (long)scan->newest->step;
	ckpt_scan_free(scan);
	free(why);
	return step;
}

/* An ending attempt's seconds per step, for the next attempt's recovery_stalled limit. */
static void
runner_mark_interval(const struct runner *r, cJSON *a)
{
	double iv = r->run.health != NULL ? health_step_interval(r->run.health) : -1;

	if (iv > 0)
		json_set_num(a, POLICY_KEY_STEP_INTERVAL, (double)(long long)(iv * 100 + 0.5) / 100);
}

/* A relaunched attempt: recovery_stalled when no step shows in time (policy_recovery). */
void
runner_watch_recovery(struct runner *r, const cJSON *hist, const cJSON *a)
{
	double iv;
	long limit;

	r->cur.started = (time_t)json_num(a, HIST_KEY_STARTED_UNIX, (double)time(NULL));
	if (r->run.health != NULL && json_str(a, POLICY_KEY_CHECKPOINT, NULL) != NULL)
		health_resume_from(r->run.health, json_long(a, POLICY_KEY_CKPT_FROM, -1));
	if (r->run.health != NULL && policy_recovery(r->run.cfg, hist, a, &limit, &iv))
		health_expect_step(r->run.health,
		    (time_t)json_num(a, HIST_KEY_STARTED_UNIX, (double)time(NULL)),
		    limit, iv);
}

/* The policy's decision overridden to stop, by rule (the caller writes pol->reason). */
static void
policy_force_stop(struct policy_out *pol, const char *rule)
{
	pol->action = POLICY_STOP;
	pol->rule = POLICY_NEVER_RETRY;
	pol->rule_name = rule;
}

/*
 * Write the marker (success) or the FAILED marker, update history, emit the
 * event.  A success whose marker cannot be written is a failure (class
 * disk_full on ENOSPC/EDQUOT, else unknown; never restarted: the disk is the
 * problem): nothing says DONE without its marker.  A failure whose history
 * cannot be written is neither restarted (no attempt is launched on a
 * history not on disk) nor announced: the history still shows the attempt
 * running, so the next onbox judges it again and announces that, and an
 * event now would be a second, different one under the same id.  Its FAILED
 * marker is still written (when it can be).  0 done, -1 failed.
 */
int
runner_finalize(struct runner *r, cJSON *hist, cJSON *a, const struct outcome *given)
{
	const struct wk_stage *st = r->cur.st;
	const struct triage_class_info *ci;
	struct outcome oc = *given;
	const struct outcome *o = &oc;
	cJSON *m = cJSON_CreateObject(), *ev, *pj = NULL;
	char when[TIMEFMT_LEN], dur[32], ex[64], *mpath = NULL, *logrel, human[1024];
	char *mwhy = NULL, where_txt[200] = "";
	time_t now = time(NULL), started = (time_t)json_num(a, HIST_KEY_STARTED_UNIX, (double)now);
	int ok, r_ = 0, restart = 0, e, hist_ok;
	struct policy_out pol;

	memset(&pol, 0, sizeof(pol));
	timefmt_utc(now, when, sizeof(when));
	timefmt_duration((long)(now - started), dur, sizeof(dur));
	describe_exit(o, ex, sizeof(ex));
	logrel = layout_attempt_log_rel(st->name, r->cur.attempt);

	cJSON_AddStringToObject(m, "run", r->run.cfg->run);
	cJSON_AddStringToObject(m, "stage", st->name);
	cJSON_AddStringToObject(m, "marker", st->marker);
	cJSON_AddNumberToObject(m, "attempt", (double)r->cur.attempt);
	cJSON_AddStringToObject(m, "started", json_str(a, HIST_KEY_STARTED, ""));
	cJSON_AddStringToObject(m, "ended", when);
	cJSON_AddNumberToObject(m, "duration_s", (double)(now - started));
	add_exit(m, o);
	cJSON_AddStringToObject(m, "output", logrel);
	if (st->log != NULL)
		cJSON_AddStringToObject(m, "log", st->log);

	/* The marker first: DONE is only ever said with it on disk. */
	if (oc.cls == TRIAGE_NONE) {
		mpath = layout_marker(r->run.cfg->workdir, st->marker);
		if (jsonfile_save(mpath, m) != 0) {
			e = errno;
			mwhy = xstrfmt("cannot write marker %s: %s", mpath, strerror(e));
			log_error("stage %s attempt %ld: %s: the attempt is failed", st->name,
			    r->cur.attempt, mwhy);
			oc.cls = e == ENOSPC || e == EDQUOT ? TRIAGE_DISK_FULL : TRIAGE_UNKNOWN;
			oc.evidence = mwhy;
		}
		free(mpath);
		mpath = NULL;
	}
	ok = oc.cls == TRIAGE_NONE;
	ci = triage_info(oc.cls);

	/* The history first: the policy decides on it. */
	json_set_str(a, HIST_KEY_RESULT, ok ? "done" : "failed");
	json_set_str(a, HIST_KEY_ENDED, when);
	json_set_num(a, HIST_KEY_ENDED_UNIX, (double)now);
	if (!ok)
		json_set_str(a, HIST_KEY_CLASS, ci->name);
	if (o->signo != 0)
		json_set_num(a, HIST_KEY_SIGNAL, o->signo);
	else if (o->exited)
		json_set_num(a, HIST_KEY_EXIT_CODE, o->exit_code);
	if (r->cur.stage_pid > 0)
		json_set_num(a, POLICY_KEY_PID, (double)r->cur.stage_pid);
	/* Real progress (steps past the best before, or a newer complete checkpoint) resets the budget. */
	(void)policy_mark_progress(hist, a, r->cur.prog_have ? r->cur.prog_cur : -1, runner_ckpt_step(r));
	runner_mark_interval(r, a);
	if (!ok) {
		restart = runner_policy(r, hist, &pol);
		if (restart && mwhy != NULL) {
			restart = 0;
			policy_force_stop(&pol, "marker_write");
			snprintf(pol.reason, sizeof(pol.reason), "%s; a new attempt would fail the same "
			    "way: free space (or fix the path), then onbox start", mwhy);
		}
		/* Slurm: this job stays on its node, whose accelerator is bad: resubmit, never here. */
		if (restart && r->run.slurm.job && o->cls == TRIAGE_BAD_ACCELERATOR) {
			restart = 0;
			policy_force_stop(&pol, "move_node");
			snprintf(pol.reason, sizeof(pol.reason), "bad_accelerator on node %.100s: "
			    "relaunched in this job it would run there again; nothing is launched here: "
			    "onbox start (patrol, with auto_resume) submits the stage again with "
			    "--exclude=%.100s", json_str(a, ATT_KEY_NODE, "?"),
			    json_str(a, ATT_KEY_NODE, "?"));
		}
		json_set(a, HIST_KEY_POLICY, policy_out_json(&pol));
	}
	hist_ok = runner_hist_save(r, hist) == 0;
	if (!hist_ok && restart) {
		restart = 0;
		policy_force_stop(&pol, "history_write");
		snprintf(pol.reason, sizeof(pol.reason), "the policy would restart it, but its "
		    "history cannot be written: nothing is launched; the next onbox judges this "
		    "attempt again");
		json_set(a, HIST_KEY_POLICY, policy_out_json(&pol));
	}
	if (!ok)
		pj = policy_out_json(&pol);

	if (!ok) {
		cJSON_AddStringToObject(m, "class", ci->name);
		cJSON_AddStringToObject(m, "title", ci->title);
		cJSON_AddStringToObject(m, "remediation", ci->remediation);
		cJSON_AddBoolToObject(m, "retryable", ci->retryable);
		if (o->evidence != NULL)
			cJSON_AddStringToObject(m, "evidence", o->evidence);
		if (o->guess != NULL)
			cJSON_AddStringToObject(m, "guess", o->guess);
		if (o->exec_error != NULL)
			cJSON_AddStringToObject(m, "exec_error", o->exec_error);
		cJSON_AddItemToObject(m, "policy", cJSON_Duplicate(pj, 1));
		add_tail(m, r);
		(void)tb_add_where(m, r->run.cfg->workdir);
	}
	/*
	 * A failure the policy restarts leaves no FAILED marker: a sentinel or
	 * a person would read it as the end.  The event and the history say it.
	 */
	if (!ok && !restart) {
		mpath = layout_failed(r->run.cfg->workdir, st->marker);
		if (jsonfile_save(mpath, m) != 0)
			log_error("stage %s attempt %ld FAILED, but cannot write marker %s: %s: "
			    "nothing on disk says so", st->name, r->cur.attempt, mpath, wk_strerror(WK_ERR_SYSTEM));
	}
	if (!ok)
		r_ = -1;

	ev = events_new(r->run.instance, r->run.cfg->run, ok ? "stage_done" : "stage_failed", st->name,
	    r->cur.attempt);
	cJSON_AddStringToObject(ev, "marker", st->marker);
	cJSON_AddNumberToObject(ev, "duration_s", (double)(now - started));
	add_exit(ev, o);
	if (r->cur.prog_have) {
		char ptext[64];

		runner_progress_text(r, ptext, sizeof(ptext));
		cJSON_AddStringToObject(ev, "progress", ptext);
	}
	if (ok) {
		runner_add_results(r, ev);
		snprintf(human, sizeof(human), "%s DONE (attempt %ld, %s) -> %s", st->name,
		    r->cur.attempt, dur, st->marker);
	} else {
		cJSON_AddStringToObject(ev, "class", ci->name);
		cJSON_AddStringToObject(ev, "remediation", ci->remediation);
		if (o->evidence != NULL)
			cJSON_AddStringToObject(ev, "evidence", o->evidence);
		if (o->guess != NULL)
			cJSON_AddStringToObject(ev, "guess", o->guess);
		add_tail(ev, r);
		/* " at train.py:62 in lr_at" beside the evidence (core/traceback.c) */
		if (tb_add_where(ev, r->run.cfg->workdir) && tb_where_text(cJSON_GetObjectItem(ev,
		    "where"), where_txt + 1, sizeof(where_txt) - 1))
			where_txt[0] = ' ';
		cJSON_AddBoolToObject(ev, "restarting", restart);
		cJSON_AddItemToObject(ev, "policy", pj);	/* transferred */
		pj = NULL;
		snprintf(human, sizeof(human), "%s FAILED (%s, %s) attempt %ld%s%.200s%s · %s: %.400s",
		    st->name, ci->name, ex, r->cur.attempt, o->evidence ? " · last: " : "",
		    o->evidence ? o->evidence : "", where_txt, restart ? "restarting" : "not restarted",
		    pol.reason);
	}
	if (!ok && !hist_ok) {
		log_error("%s: not announced: the history of stage %s cannot be written; the next "
		    "onbox judges attempt %ld again", human, st->name, r->cur.attempt);
		cJSON_Delete(ev);
	} else {
		runner_emit(r, ev, human);
		json_set_bool(a, HIST_KEY_REPORTED, 1);
		(void)runner_hist_save(r, hist);
	}
	r->cur.restart = restart;
	cJSON_Delete(m);
	cJSON_Delete(pj);
	free(mwhy);
	free(mpath);
	free(logrel);
	return r_;
}

/*
 * completion.require, for the LAST stage when it ended well (exit 0, its
 * done line seen, not stopped): what is missing, for the classifier's
 * in->missing (missing_artifacts), or NULL.  *own, freed by the caller,
 * holds that text.  The total for {final_checkpoint} is progress.max, else
 * this stage's log total, else the last one the health checker saw (an
 * eval stage after the training prints none).
 */
static const char *
runner_require(struct runner *r, const struct triage_input *in, char **own)
{
	struct health_view v;
	long max = r->cur.prog_max_log;
	char *note = NULL;

	*own = NULL;
	if (in->status_lost || !in->exited || in->exit_code != 0 || in->nan_stopped != NULL ||
	    (in->done_required && !in->done_seen) || r->cur.idx + 1 != r->run.cfg->nchain ||
	    !complete_configured(r->run.cfg))
		return NULL;
	if (max <= 0 && r->run.health != NULL) {
		health_view(r->run.health, &v);
		if (!v.max_from_config)
			max = v.max;
	}
	if (complete_check(r->run.cfg, max, own, &note) > 0)
		log_warn("stage %s attempt %ld: completion.require not met: %s", r->cur.st->name,
		    r->cur.attempt, *own);
	else if (note != NULL)
		log_warn("stage %s: completion.require met, but %s", r->cur.st->name, note);
	free(note);
	return *own;
}

/* A stage whose marker exists but whose done event was never recorded: record it now. */
void
runner_catch_up(struct runner *r, size_t idx)
{
	const struct wk_stage *st = &r->run.cfg->chain[idx];
	cJSON *hist = hist_load(r->run.cfg->workdir, st->name), *a = hist_last(hist), *ev;
	char human[256];

	if (a != NULL && strcmp(json_str(a, HIST_KEY_RESULT, ""), "done") == 0 &&
	    !json_bool(a, HIST_KEY_REPORTED, 0)) {
		ev = events_new(r->run.instance, r->run.cfg->run, "stage_done", st->name,
		    hist_n(a));
		cJSON_AddStringToObject(ev, "marker", st->marker);
		snprintf(human, sizeof(human), "%s DONE (attempt %ld) -> %s", st->name,
		    hist_n(a), st->marker);
		runner_emit(r, ev, human);
		json_set_bool(a, HIST_KEY_REPORTED, 1);
		(void)hist_save(r->run.cfg->workdir, st->name, hist);
	}
	cJSON_Delete(hist);
}

void
runner_chain_done(struct runner *r)
{
	char *flag = layout_path(r->run.cfg->workdir, "chain.reported");
	cJSON *ev;

	if (fs_exists(flag)) {
		free(flag);
		return;
	}
	ev = events_new(r->run.instance, r->run.cfg->run, "chain_done", NULL, 0);
	cJSON_AddNumberToObject(ev, "stages", (double)r->run.cfg->nchain);
	{
		/* From the first stage's last attempt to now: the chain as it last ran. */
		cJSON *h = hist_load(r->run.cfg->workdir, r->run.cfg->chain[0].name);
		const cJSON *a = hist_last(h);

		if (a != NULL)
			cJSON_AddNumberToObject(ev, "duration_s",
			    difftime(time(NULL), (time_t)json_num(a, HIST_KEY_STARTED_UNIX, 0)));
		cJSON_Delete(h);
	}
	runner_add_results(r, ev);
	{
		/* What went wrong on the way (caveats.h): in the event, the line, caveats.json. */
		cJSON *cav = caveats_build(r->run.cfg);
		char *human = caveats_text(cav) != NULL ?
		    xstrfmt("chain DONE · caveats: %s", caveats_text(cav)) :
		    xstrdup("chain DONE: every marker present");

		caveats_event(ev, cav);
		if (caveats_save(r->run.cfg->workdir, cav) != 0)
			log_warn("cannot write %s/.watchkeeper/%s: %s", r->run.cfg->workdir, CAVEATS_FILE,
			    wk_strerror(WK_ERR_SYSTEM));
		runner_emit(r, ev, human);
		free(human);
		cJSON_Delete(cav);
	}
	(void)atomic_write_str(flag, "1\n");
	free(flag);
}

/*
 * Judge the attempt sc->a that ended as end says (not stopped, not a
 * signal): what triage makes of its exit status (or the wait's end, or the
 * job's final state), its lines and its cgroup, then runner_finalize().
 * 0 done, 1 failed.
 */
int
runner_judge(struct runner *r, struct stage_ctx *sc, enum sup_end end)
{
	const struct wk_stage *st = r->cur.st;
	struct attempt_rec *rec = &sc->rec;
	struct outcome o;
	struct triage_input in;
	char *oom_why = NULL, *guess = NULL, *req = NULL, *job_ev = NULL;
	const char *job_raw;
	const char *nan;
	cJSON *a = sc->a;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(&in, 0, sizeof(in));
	in.done_required = st->done_re != NULL;
	in.done_seen = r->cur.done_seen;
	in.we_timed_out = json_bool(a, HIST_KEY_TIMED_OUT, 0) || end == SUP_TIMEOUT;
	in.oom_kills = cgroup_oom_delta(a, &oom_why);
	in.oom_known = in.oom_kills >= 0;
	in.oom_why = oom_why;
	if (st->has_wait) {
		/* A wait has no exit status: it ends by its pattern, a crash, a timeout or the pid. */
		in.exited = 1;
		in.exit_code = end == SUP_WAIT_HIT || end == SUP_GONE ? 0 : 1;
		if (end == SUP_WAIT_HIT)
			in.done_required = 0;
		if (end == SUP_CRASH || (end == SUP_GONE && r->cur.ts.crash_seen)) {
			in.exit_code = 1;
			in.done_required = 0;
		}
		o.exited = 0;
	} else if (sc->lost_follow) {
		in.status_lost = 1;
	} else if (r->run.job != NULL) {
		/* job backend: the manager's final state stands for the exit status */
		jobrun_outcome(r->run.job, &in, &o.exec_error);
		o.exited = in.exited;
		o.exit_code = in.exit_code;
		o.signo = in.signo;
	} else if (attempt_rec_load(r->run.cfg->workdir, st->name, r->cur.attempt, rec) == 0 &&
	    rec->exited) {
		in.exited = rec->signo == 0;
		in.exit_code = rec->exit_code;
		in.signo = rec->signo;
		o.exited = in.exited;
		o.exit_code = rec->exit_code;
		o.signo = rec->signo;
		if (rec->exec_errno != 0)
			o.exec_error = strerror(rec->exec_errno);
	} else {
		char boot[40];

		in.status_lost = 1;
		proc_boot_id(boot, sizeof(boot));
		in.rebooted = rec->boot[0] != '\0' && strcmp(rec->boot, boot) != 0;
	}
	nan = st->has_wait ? NULL : nanstop_due(&r->run.nan, st->name, r->cur.attempt);
	if (nan == NULL && !st->has_wait)
		nan = json_str(a, HIST_KEY_NAN_STOP, NULL);
	in.we_stopped = nan != NULL;
	in.nan_stopped = nan;
	in.missing = runner_require(r, &in, &req);
	o.cls = triage_classify_guess(&in, &r->cur.ts, &o.evidence, &guess);
	o.guess = guess;
	if (st->has_wait && end == SUP_CRASH && o.cls == TRIAGE_NONE)
		o.cls = TRIAGE_UNKNOWN;
	/* A cluster job the manager failed while its log names no cause: the cluster's doing. */
	if (o.cls == TRIAGE_UNKNOWN && r->run.job != NULL &&
	    (job_raw = jobrun_failed_state(r->run.job)) != NULL) {
		o.cls = TRIAGE_CLUSTER_FAILURE;
		if (o.evidence == NULL)
			o.evidence = job_ev = xstrfmt("the cluster manager says the job %s, and its log "
			    "names no cause", job_raw);
	}
	rc = o.cls == TRIAGE_NONE ? 0 : 1;
	if (runner_finalize(r, sc->hist, a, &o) != 0)
		rc = 1;
	free(req);
	free(oom_why);
	free(guess);
	free(job_ev);
	return rc;
}
