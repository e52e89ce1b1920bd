/*
 * entry.c: how a stage's supervision begins.
 *
 * Owns: the choice of the way into a stage's newest attempt
 * (runner_entry: one enum stage_entry, from the history, the attempt's
 * lock and record and /proc) and taking it (runner_enter, through
 * entry_table[]): re-attaching to a wrapper an earlier onbox left running
 * (runner_reattach), following a command whose wrapper is gone, an attempt
 * whose wrapper died without an exit status (runner_lost, which asks the
 * policy), and a new attempt (runner_new_attempt): stale markers
 * downstream removed, the launch with its {checkpoint} (runner_launch), its
 * git state and config drift since the previous attempt (runner_drift), and
 * the stage's own memory cgroup (runner_oom_mark_stage).  The one bounded
 * wait on the wrapper's record (runner_rec_wait) lives here too.  A Slurm
 * requeue is recognised and ended in runslurm.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "caveats.h"
#include "cgroup.h"
#include "ckpt.h"
#include "err.h"
#include "events.h"
#include "gate.h"
#include "jsondiff.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "spawn.h"
#include "xmalloc.h"
#include "runner-int.h"

/* 1 when the wrapper's record shows what runner_rec_wait() waits for. */
static int
rec_has(const struct attempt_rec *rec, enum rec_want want)
{
	switch (want) {
	case REC_WRAPPER:
		return rec->wrapper_pid > 0;
	case REC_STAGE_PID:
		return rec->pid > 0;
	case REC_PID_OR_END:
		return rec->pid > 0 || rec->exited;
	}
	return 0;
}

/*
 * Wait, bounded by REC_WAIT_MS (a live wrapper writes its record within
 * it), until the current attempt's record shows what is wanted: the
 * wrapper's own pid, the stage's pid (written just after the wrapper
 * starts the command), or that pid or an end.  0 with *rec filled, or -1.
 */
int
runner_rec_wait(const struct runner *r, enum rec_want want, struct attempt_rec *rec)
{
	struct deadline d;

	deadline_set(&d, REC_WAIT_MS);
	for (;;) {
		if (attempt_rec_load(r->run.cfg->workdir, r->cur.st->name, r->cur.attempt, rec) == 0 &&
		    rec_has(rec, want))
			return 0;
		if (deadline_expired(&d))
			return -1;
		usleep(REC_WAIT_STEP_US);
	}
}

int
is_unfinished(const cJSON *a)
{
	const char *res = json_str(a, HIST_KEY_RESULT, "");

	return a != NULL && (strcmp(res, "starting") == 0 || strcmp(res, "running") == 0);
}

static void
clear_failed(struct runner *r)
{
	char *f = layout_failed(r->run.cfg->workdir, r->cur.st->marker);

	if (unlink(f) == 0)
		log_info("stage %s: cleared the FAILED marker of an earlier attempt", r->cur.st->name);
	free(f);
}

/*
 * A new attempt of stage idx makes every later stage's marker stale: they
 * were earned by a chain this attempt replaces.  Removing them keeps the
 * rule "a marker means this stage and every stage before it succeeded";
 * the attempt histories keep what they recorded.
 */
static void
invalidate_downstream(struct runner *r, size_t idx)
{
	size_t j;

	for (j = idx + 1; j < r->run.cfg->nchain; j++) {
		const char *mk = r->run.cfg->chain[j].marker;
		char *m = layout_marker(r->run.cfg->workdir, mk), *f = layout_failed(r->run.cfg->workdir, mk);

		if (unlink(m) == 0)
			log_info("stage %s is running again: removed %s, earned by the chain it replaces",
			    r->cur.st->name, mk);
		(void)unlink(f);
		free(m);
		free(f);
	}
}

/*
 * The stage's own memory cgroup, from its pid once its wrapper recorded it
 * (bounded): cgroup_oom_mark keeps the base read before the launch when the
 * stage runs where onbox does.
 */
static void
runner_oom_mark_stage(struct runner *r, cJSON *hist, cJSON *a)
{
	struct attempt_rec rec;

	if (runner_rec_wait(r, REC_PID_OR_END, &rec) == 0 && rec.pid > 0 &&
	    cgroup_oom_mark(a, NULL, rec.pid))
		(void)runner_hist_save(r, hist);
}

/*
 * An attempt whose wrapper died without recording an end: note it, and ask
 * the policy whether a new attempt may start (a box that loses every
 * attempt flaps; a finished run is never restarted).  1: start one; 0:
 * stop, its FAILED marker written.
 */
static int
runner_lost(struct runner *r, cJSON *hist, cJSON *a, const struct attempt_rec *rec)
{
	char boot[40], human[1024], when[TIMEFMT_LEN];
	const char *cls;
	struct policy_out pol;
	time_t now = time(NULL);
	int rebooted, restart;
	cJSON *ev;

	proc_boot_id(boot, sizeof(boot));
	rebooted = rec->boot[0] != '\0' && strcmp(rec->boot, boot) != 0;
	cls = rebooted ? "reboot" : "lost";
	timefmt_utc(now, when, sizeof(when));
	json_set_str(a, HIST_KEY_RESULT, "lost");
	json_set_str(a, HIST_KEY_CLASS, cls);
	json_set_str(a, HIST_KEY_ENDED, when);
	json_set_num(a, HIST_KEY_ENDED_UNIX, (double)now);
	json_set_bool(a, HIST_KEY_REPORTED, 1);
	restart = runner_policy(r, hist, &pol);
	json_set(a, HIST_KEY_POLICY, policy_out_json(&pol));
	(void)runner_hist_save(r, hist);	/* a restart's new attempt is saved (and checked) whole */
	ev = events_new(r->run.instance, r->run.cfg->run, "stage_lost", r->cur.st->name, r->cur.attempt);
	cJSON_AddStringToObject(ev, "class", cls);
	cJSON_AddBoolToObject(ev, "restarting", restart);
	cJSON_AddItemToObject(ev, "policy", policy_out_json(&pol));
	snprintf(human, sizeof(human), "%s attempt %ld LOST (%s): %s%.600s", r->cur.st->name, r->cur.attempt,
	    rebooted ? "the box rebooted under it" : "its wrapper died without an exit status",
	    restart ? "starting a new attempt" : "not restarted: ", restart ? "" : pol.reason);
	runner_emit(r, ev, human);
	if (!restart) {
		char *f = layout_failed(r->run.cfg->workdir, r->cur.st->marker);
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "run", r->run.cfg->run);
		cJSON_AddStringToObject(m, "stage", r->cur.st->name);
		cJSON_AddStringToObject(m, "marker", r->cur.st->marker);
		cJSON_AddNumberToObject(m, "attempt", (double)r->cur.attempt);
		cJSON_AddStringToObject(m, "ended", when);
		cJSON_AddStringToObject(m, "class", cls);
		cJSON_AddStringToObject(m, "title", triage_info(triage_by_name(cls))->title);
		cJSON_AddStringToObject(m, "remediation", triage_info(triage_by_name(cls))->remediation);
		cJSON_AddItemToObject(m, "policy", policy_out_json(&pol));
		if (jsonfile_save(f, m) != 0)
			log_error("cannot write marker %s: %s", f, wk_strerror(WK_ERR_SYSTEM));
		cJSON_Delete(m);
		free(f);
	}
	return restart;
}

/*
 * The workdir's git state for a launch record: {"sha", "dirty"} when it is
 * a git work tree, else nothing.  Dirty means tracked files differ from
 * the commit (untracked files do not count: .watchkeeper/ and logs live
 * there).
 */
static void
add_git(cJSON *ev, const char *workdir)
{
	char *sha_argv[] = { "git", "-C", (char *)workdir, "rev-parse", "--verify", "-q", "HEAD", NULL };
	char *st_argv[] = { "git", "-C", (char *)workdir, "status", "--porcelain",
	    "--untracked-files=no", NULL };
	char *sha = NULL, *st = NULL;
	int status;
	cJSON *g;

	if (spawn_capture(sha_argv, 256, 0, &status, &sha) != 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || strlen(sha) < 7)
		goto out;
	sha[strcspn(sha, "\n")] = '\0';
	if (spawn_capture(st_argv, 1 << 20, 0, &status, &st) != 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		goto out;
	g = cJSON_AddObjectToObject(ev, "git");
	cJSON_AddStringToObject(g, "sha", sha);
	cJSON_AddBoolToObject(g, "dirty", st[0] != '\0');
 out:
	free(sha);
	free(st);
}

/*
 * Keep the effective config this attempt launches with, and say what
 * changed since the stage's previous attempt that kept one: a relaunch
 * with an edited command or config is shown loudly (onbox.log, the event,
 * the logbook), values under notify[] never.
 */
static void
runner_drift(struct runner *r, cJSON *ev)
{
	char *snap = layout_attempt_config(r->run.cfg->workdir, r->cur.st->name, r->cur.attempt), *diff = NULL;
	cJSON *prev = NULL, *now = jsondiff_redacted(r->run.cfg->root);
	long n;

	/* Kept on disk: notify[] values only as digests, so no secret lands there. */
	if (jsonfile_save(snap, now) != 0)
		log_warn("cannot write %s: %s", snap, wk_strerror(WK_ERR_SYSTEM));
	for (n = r->cur.attempt - 1; n >= 1 && prev == NULL; n--) {
		char *p = layout_attempt_config(r->run.cfg->workdir, r->cur.st->name, n);

		if (jsonfile_load(p, &prev) != 0)
			prev = NULL;
		free(p);
	}
	if (prev != NULL && (diff = jsondiff_text(prev, now, 40, jsondiff_hide_secrets)) != NULL) {
		char *clean = notify_scrub(&r->note.sinks, diff);

		log_warn("stage %s attempt %ld: CONFIG DRIFT since attempt %ld:\n%s", r->cur.st->name,
		    r->cur.attempt, n + 1, clean);
		cJSON_AddStringToObject(ev, "config_drift", clean);
		cJSON_AddNumberToObject(ev, "drift_since", (double)(n + 1));
		free(clean);
	}
	cJSON_Delete(prev);
	cJSON_Delete(now);
	free(diff);
	free(snap);
}

/* Launch attempt n of a run stage; fills w.  0 or -1 (the FAILED marker is written). */
static int
runner_launch(struct runner *r, cJSON *hist, cJSON *a, struct watch *w)
{
	char *why = NULL, *cmd = NULL, human[256];
	struct ckpt_scan *scan = NULL;
	struct outcome o;
	cJSON *ev;
	pid_t pid = -1;
	int rc = -1;
	/* An adopted stage may have no run: its command is its recovery, or the job it follows. */
	const char *tmpl = r->cur.st->run != NULL ? r->cur.st->run : r->cur.st->resubmit != NULL ?
	    r->cur.st->resubmit : r->cur.st->adopt;

	/* {checkpoint}: the newest complete checkpoint now, or the configured fallback. */
	if (ckpt_configured(r->run.cfg) && shword_uses_token(tmpl)) {
		if (ckpt_scan_dir(r->run.cfg, &scan, &why) == 0 &&
		    ckpt_subst_scan(tmpl, scan, r->run.cfg, &cmd, &why) == 0) {
			if (scan->newest != NULL) {
				json_set_str(a, POLICY_KEY_CHECKPOINT, scan->newest->path);
				json_set_num(a, POLICY_KEY_CKPT_FROM, (double)scan->newest->step);
				log_info("stage %s attempt %ld resumes from checkpoint %s (step %lld)",
				    r->cur.st->name, r->cur.attempt, scan->newest->path, scan->newest->step);
			} else if (r->cur.attempt > 1 && config_get_bool(r->run.cfg, "hero")) {
				/* A hero run never restarts from zero: a relaunch needs a checkpoint. */
				free(cmd);
				cmd = NULL;
				why = xstrfmt("hero run: attempt %ld is a relaunch and %s holds no "
				    "complete checkpoint to resume from (%zu entries); a hero run never "
				    "restarts from step 0: the owner decides (restore a complete "
				    "checkpoint, then onbox start)", r->cur.attempt, scan->dir,
				    scan->nentries);
			} else
				log_warn("stage %s attempt %ld: no complete checkpoint in %s: starting fresh "
				    "(checkpoints.fallback)", r->cur.st->name, r->cur.attempt, scan->dir);
		}
	} else if (ckpt_subst(tmpl, NULL, r->run.cfg, &cmd, &why) != 0) {
		free(why);
		why = NULL;
		cmd = xstrdup(tmpl);	/* no token, or nothing configured: as written */
	}
	ckpt_scan_free(scan);	/* what the launch needs of it is in cmd and a */
	/*
	 * Every launch of a hero run passes the launch gate again (onbox start
	 * checked it, but a stage may launch hours later, or after a re-attach
	 * the start did not refuse): code edited on the box since (another diff
	 * than the one allowed) is never run.
	 */
	if (cmd != NULL && config_get_bool(r->run.cfg, "hero")) {
		struct gate_result g;

		if (gate_local(r->run.cfg, 0, &g) == 0 && g.refused > 0) {
			const char *first = strstr(buf_str(&g.text), "REFUSED: ");

			first = first != NULL ? first + 9 : "see onbox.log";
			free(cmd);
			cmd = NULL;
			why = xstrfmt("hero run: the launch gate refuses attempt %ld%s: %.*s",
			    r->cur.attempt, r->cur.attempt > 1 ? " (a relaunch)" : "",
			    (int)strcspn(first, "\n"), first);
			log_error("launch gate:\n%s", buf_str(&g.text));
		}
		gate_result_free(&g);
	}
	if (cmd != NULL && r->run.job != NULL)	/* job backend: a submit, not a process */
		pid = jobrun_launch(r->run.job, r->cur.st, r->cur.attempt, hist, a, cmd, &why);
	else if (cmd != NULL)
		pid = attempt_launch(r->run.cfg, r->cur.st, cmd, r->cur.attempt, &why);
	if (pid < 0) {
		log_error("stage %s: cannot start attempt %ld: %s", r->cur.st->name, r->cur.attempt, why);
		memset(&o, 0, sizeof(o));
		o.cls = TRIAGE_UNKNOWN;
		o.exec_error = why;
		runner_finalize(r, hist, a, &o);
		goto out;
	}
	json_set_str(a, HIST_KEY_RESULT, "running");
	json_set_str(a, HIST_KEY_COMMAND, cmd);
	if (r->run.job == NULL) {
		json_set_num(a, HIST_KEY_WRAPPER_PID, pid);
		w->pid = pid;
		w->own = 1;
		proc_identify(pid, &w->id);
	}
	(void)runner_hist_save(r, hist);	/* "starting" is on disk: enough to never number it twice */
	ev = events_new(r->run.instance, r->run.cfg->run, "stage_started", r->cur.st->name, r->cur.attempt);
	{
		/* Events leave the box (webhooks, the logbook): secret-looking words masked. */
		char *shown = gate_scrub_command(cmd), *tshown = gate_scrub_command(tmpl);

		cJSON_AddStringToObject(ev, "command", shown);
		if (strcmp(cmd, tmpl) != 0)
			cJSON_AddStringToObject(ev, "command_template", tshown);
		free(shown);
		free(tshown);
	}
	if (json_str(a, POLICY_KEY_CHECKPOINT, NULL) != NULL)
		cJSON_AddStringToObject(ev, "checkpoint", json_str(a, POLICY_KEY_CHECKPOINT, ""));
	cJSON_AddStringToObject(ev, "cwd", r->run.cfg->workdir);
	if (r->run.job != NULL)
		jobrun_event(r->run.job, ev);	/* job_name, job_id */
	else {
		cJSON_AddNumberToObject(ev, "pid", (double)pid);
		runner_slurm_event(ev, a);	/* job_id, slurm_restart_count, node under Slurm */
	}
	add_git(ev, r->run.cfg->workdir);
	if (r->run.gate != NULL) {	/* the first launch of this onbox carries the contract */
		cJSON_AddItemToObject(ev, "contract", r->run.gate);
		r->run.gate = NULL;
	}
	runner_drift(r, ev);
	snprintf(human, sizeof(human), "%s started (attempt %ld)", r->cur.st->name, r->cur.attempt);
	runner_emit(r, ev, human);
	rc = 0;
 out:
	free(cmd);
	free(why);
	return rc;
}

/* Re-attach to an attempt whose wrapper still runs.  0, or -1 when it vanished meanwhile. */
static int
runner_reattach(struct runner *r, struct attempt_rec *rec, struct watch *w)
{
	/* The wrapper writes its record right after starting the command. */
	if (runner_rec_wait(r, REC_WRAPPER, rec) != 0)
		return -1;
	w->pid = (pid_t)rec->wrapper_pid;
	w->own = 0;
	w->id.pid = w->pid;
	w->id.start = rec->wrapper_start;
	snprintf(w->id.boot, sizeof(w->id.boot), "%s", rec->boot);
	log_info("stage %s: re-attaching to attempt %ld (pid %ld) started by an earlier onbox",
	    r->cur.st->name, r->cur.attempt, rec->pid);
	return 0;
}

/* The stage's process as the wrapper's record names it, for proc_alive(). */
void
rec_stage_id(const struct attempt_rec *rec, struct proc_id *id)
{
	memset(id, 0, sizeof(*id));
	id->pid = (pid_t)rec->pid;
	id->start = rec->pid_start;
	snprintf(id->boot, sizeof(id->boot), "%s", rec->boot);
}

/*
 * Which way into the stage's newest attempt sc->a.  It only reads (the
 * history, the attempt's lock and record, /proc), except for a Slurm
 * requeue, which comes first (the attempt's lock, record and pids are the
 * earlier run's) and which runner_requeue() ends here.  For an unfinished
 * attempt it sets r->cur.attempt, and sc->rec as far as it was read.
 */
enum stage_entry
runner_entry(struct runner *r, struct stage_ctx *sc)
{
	const char *name = r->cur.st->name, *wd = r->run.cfg->workdir;
	struct proc_id child;

	if (runner_is_requeue(r, sc->a) && runner_requeue(r, sc->hist, sc->a))
		return ENTRY_REQUEUE;
	if (!is_unfinished(sc->a))
		return ENTRY_NEW;
	r->cur.attempt = hist_n(sc->a);
	if (strcmp(json_str(sc->a, HIST_KEY_KIND, ""), "run") != 0)
		return ENTRY_RESUME_WAIT;
	if (r->run.job != NULL)
		return ENTRY_JOB_ATTACH;
	sc->lockp = layout_attempt_lock(wd, name, r->cur.attempt);
	if (lock_is_held(sc->lockp) == 1)
		return ENTRY_REATTACH;
	if (attempt_rec_load(wd, name, r->cur.attempt, &sc->rec) == 0 && sc->rec.exited)
		return ENTRY_ENDED_UNWATCHED;
	rec_stage_id(&sc->rec, &child);
	if (sc->rec.pid > 0 && proc_alive(&child))
		return ENTRY_FOLLOW_ORPHAN;
	return ENTRY_LOST;
}

/* Ended (a requeue, a lost attempt the policy restarts), or none unfinished: a new attempt. */
static int
entry_new(struct runner *r, struct stage_ctx *sc)
{
	(void)r;
	sc->a = NULL;
	return 0;
}

/* job backend: the job the history names, or the submit it was making (jobrun.c). */
static int
entry_job_attach(struct runner *r, struct stage_ctx *sc)
{
	if (!jobrun_attach(r->run.job, r->cur.st, r->cur.attempt, sc->hist, sc->a) &&
	    runner_launch(r, sc->hist, sc->a, &sc->w) != 0)
		return 1;
	return 0;
}

/* Its wrapper holds the attempt's lock: supervise it again. */
static int
entry_reattach(struct runner *r, struct stage_ctx *sc)
{
	if (runner_reattach(r, &sc->rec, &sc->w) == 0)
		return 0;
	/* Never guess here: guessing wrong launches the stage twice. */
	log_error("stage %s attempt %ld: its lock %s is held but it has no process "
	    "record; refusing to launch it again", r->cur.st->name, r->cur.attempt, sc->lockp);
	return WK_EX_TEMPFAIL;
}

/* Ended while no onbox watched (classified from its record and logs), or a wait resumed. */
static int
entry_as_is(struct runner *r, struct stage_ctx *sc)
{
	(void)r;
	(void)sc;
	return 0;
}

/* The wrapper is gone but the command runs: follow it, never relaunch. */
static int
entry_follow_orphan(struct runner *r, struct stage_ctx *sc)
{
	rec_stage_id(&sc->rec, &sc->w.id);
	sc->w.pid = sc->w.id.pid;
	sc->lost_follow = 1;
	log_warn("stage %s attempt %ld: wrapper gone, following pid %ld",
	    r->cur.st->name, r->cur.attempt, sc->rec.pid);
	return 0;
}

/* Its wrapper died without an exit status: the policy says whether a new attempt starts. */
static int
entry_lost(struct runner *r, struct stage_ctx *sc)
{
	if (!runner_lost(r, sc->hist, sc->a, &sc->rec))
		return 1;
	sc->a = NULL;
	return 0;
}

static int (*const entry_table[])(struct runner *, struct stage_ctx *) = {
	[ENTRY_REQUEUE]		= entry_new,
	[ENTRY_JOB_ATTACH]	= entry_job_attach,
	[ENTRY_REATTACH]	= entry_reattach,
	[ENTRY_ENDED_UNWATCHED]	= entry_as_is,
	[ENTRY_FOLLOW_ORPHAN]	= entry_follow_orphan,
	[ENTRY_LOST]		= entry_lost,
	[ENTRY_RESUME_WAIT]	= entry_as_is,
	[ENTRY_NEW]		= entry_new,
};

/*
 * Take the way in runner_entry() chose.  0 (sc->a NULL: a new attempt is
 * due, runner_new_attempt), or the stage's code: 1 failed, else an exit code.
 */
int
runner_enter(struct runner *r, struct stage_ctx *sc, enum stage_entry e)
{
	return entry_table[e](r, sc);
}

/*
 * A new attempt of the current stage: later markers removed, its history
 * entry saved before anything runs, then (a run stage) launched.  0, or
 * the stage's code.
 */
int
runner_new_attempt(struct runner *r, struct stage_ctx *sc)
{
	const struct wk_stage *st = r->cur.st;
	char *flag;
	cJSON *a;

	r->cur.attempt = hist_last_n(sc->hist) + 1;
	clear_failed(r);
	invalidate_downstream(r, r->cur.idx);
	flag = layout_path(r->run.cfg->workdir, "chain.reported");
	unlink(flag);
	free(flag);
	caveats_clear(r->run.cfg->workdir);
	a = sc->a = hist_add(sc->hist, r->cur.attempt, st->has_wait ? "wait" : "run");
	if (r->run.job == NULL)	/* a cluster job runs in no cgroup of ours */
		(void)cgroup_oom_mark(a, NULL, 0);	/* the one the stage inherits */
	if (!st->has_wait)
		runner_slurm_mark(r, a);	/* saved before the launch: a requeue may come any time */
	if (st->log != NULL) {
		char *p = stage_log_path(r->run.cfg, st->log);

		hist_mark_log_start(a, p);
		free(p);
	}
	if (st->has_wait && st->wait.log != NULL) {
		char *p = stage_log_path(r->run.cfg, st->wait.log);

		hist_mark_log_start(a, p);
		free(p);
	}
	/*
	 * Never an attempt whose history is not on disk: the next onbox
	 * would number another one the same, and two different events
	 * would share an id.  Nothing is launched, nothing marked failed.
	 */
	if (runner_hist_save(r, sc->hist) != 0) {
		log_error("stage %s: attempt %ld not started: its history cannot be written",
		    st->name, r->cur.attempt);
		return WK_EX_IOERR;
	}
	if (!st->has_wait && runner_launch(r, sc->hist, a, &sc->w) != 0)
		return 1;
	if (!st->has_wait && r->run.job == NULL)
		runner_oom_mark_stage(r, sc->hist, a);
	return 0;
}
