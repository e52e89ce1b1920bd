/*
 * decide.c: the decision table and the facts it is walked over (see decide.h).
 *
 * Pure: the facts come from the typed probe (probe.h: its Slurm view,
 * checkpoint scan, and the tails' triage and progress are read by
 * probe_parse), the config and the previous tick's numbers.  Nothing here
 * parses text, reads a file or a clock, or keeps state between calls.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caveats.h"
#include "ckpt.h"
#include "decide.h"
#include "exits.h"
#include "jsonfile.h"
#include "history.h"
#include "monotime.h"
#include "probe.h"
#include "traceback.h"
#include "triage.h"

static void
say(struct decide_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
say(struct decide_out *o, const char *fmt, ...)
{
	size_t n = strlen(o->details);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->details + n, sizeof(o->details) - n, fmt, ap);
	va_end(ap);
}

static void
say_progress(const struct decide_facts *f, struct decide_out *o)
{
	if (f->progress < 0)
		return;
	if (f->progress_max > 0)
		say(o, " ~%ld/%ld", f->progress, f->progress_max);
	else
		say(o, " ~%ld/unknown", f->progress);
	if (f->eta_s > 0) {
		char eta[32];

		timefmt_duration(f->eta_s, eta, sizeof(eta));
		say(o, " ETA %s", eta);
	}
}

/*
 * The triage class of a job that ended without its stage's marker, from
 * Slurm's word for it; TRIAGE_NONE when it did not fail.
 */
static const struct {
	const char		*state;
	enum triage_class	 cls;
} slurm_triage_map[] = {
	{ "FAILED", TRIAGE_UNKNOWN },
	{ "OUT_OF_MEMORY", TRIAGE_CGROUP_OOM },
	{ "TIMEOUT", TRIAGE_TIMEOUT },
	{ "DEADLINE", TRIAGE_TIMEOUT },
	{ "NODE_FAIL", TRIAGE_NODE_LOST },
	{ "BOOT_FAIL", TRIAGE_NODE_LOST },
	{ "PREEMPTED", TRIAGE_PREEMPTED },
	/* CANCELLED is a person's scancel, not a crash: NEEDS_RESUME says it, as for a killed session */
};

static enum triage_class
slurm_triage(const struct slurm_job *j)
{
	size_t i;

	for (i = 0; i < sizeof(slurm_triage_map) / sizeof(slurm_triage_map[0]); i++)
		if (strcmp(slurm_triage_map[i].state, j->state) == 0)
			return slurm_triage_map[i].cls;
	return TRIAGE_NONE;
}

/* " · eval job 13 stranded": later stages' jobs that can never start. */
static void
say_stranded(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	size_t i;

	if (f->slurm == NULL)
		return;
	for (i = (size_t)f->first_missing + 1; i < in->cfg->nchain; i++) {
		const struct slurm_job *j = slurm_stage_job(f->slurm, in->cfg->chain[i].name);

		if (j != NULL && j->cls == SLURM_STRANDED)
			say(o, " · %s job %s stranded (DependencyNeverSatisfied)", j->stage, j->id);
	}
}

/* "job 12 running" / "job 12 pending: waiting for resources". */
static void
say_job(const struct slurm_job *j, struct decide_out *o)
{
	if (j->cls == SLURM_WAITING)
		say(o, " job %s %s: %s", j->id, j->state, slurm_reason_text(j->reason));
	else
		say(o, " job %s %s", j->id, j->state);
}

/* ---- predicates, in table order ---- */

static int
pred_hostkey(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	(void)f;
	if (in->seen || in->fail != SSH_FAIL_HOSTKEY_MISMATCH)
		return 0;
	say(o, "%s", in->fail_msg != NULL ? in->fail_msg : "the host key changed");
	return 1;
}

static int
pred_ssh_down(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	/* every marker present: done, whatever the queue says */
	if (in->seen && f->unseen != NULL && !f->done) {
		say(o, "slurm: the queue could not be read: %.900s", f->unseen);
		return 1;
	}
	if (in->seen)
		return 0;
	say(o, "%s: %s", in->fail == SSH_OK ? "probe" : ssh_fail_name(in->fail),
	    in->fail_msg != NULL ? in->fail_msg : "no answer");
	return 1;
}

/*
 * The run was stopped on purpose (`onbox stop`, `patrol stop`): said every
 * tick, never resumed (no action), whatever else the box shows.
 */
static int
pred_stopped(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	const cJSON *s = in->p->stopped;
	const char *stage;
	size_t i;
	long n;

	if (s == NULL)
		return 0;
	stage = json_str(s, "stage", NULL);
	n = json_long(s, "attempt", 0);
	for (i = 0; stage != NULL && i < in->cfg->nchain; i++)
		if (strcmp(in->cfg->chain[i].name, stage) == 0)
			o->stage = in->cfg->chain[i].name;
	say(o, "stopped on purpose by %.200s at %.40s", json_str(s, "by", "?"), json_str(s, "when", "?"));
	if (stage != NULL && n > 0)
		say(o, " · %.100s attempt %ld (%.200s)", stage, n, json_str(s, "how", "?"));
	else if (stage != NULL)
		say(o, " · before %.100s (%.200s)", stage, json_str(s, "how", "?"));
	if (f->alive)
		say(o, " · yet something of the run is alive on the box");
	say(o, " · start again: onbox start (or patrol deploy)");
	return 1;
}

static int
pred_crashed(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	const struct wk_stage *st;
	const char *cls;
	char at[200];

	if (f->alive || f->done || f->first_missing < 0)
		return 0;
	st = &in->cfg->chain[f->first_missing];
	if (f->failed != NULL) {
		cls = json_str(f->failed, "class", "unknown");
		o->cls = triage_by_name(cls);
		if (o->cls == TRIAGE_NCLASSES)
			o->cls = TRIAGE_UNKNOWN;
		say(o, "%s (%s) attempt %ld: %s", st->name, cls, json_long(f->failed, "attempt", 0),
		    triage_info(o->cls)->remediation);
		if (json_str(f->failed, "evidence", NULL) != NULL)
			say(o, " · last: %.200s", json_str(f->failed, "evidence", ""));
		if (tb_where_text(cJSON_GetObjectItem(f->failed, "where"), at, sizeof(at))) {
			say(o, "%s%s", json_str(f->failed, "evidence", NULL) != NULL ? " " : " · ", at);
			o->where = cJSON_GetObjectItem(f->failed, "where");
		}
	} else if (f->tail_cls != TRIAGE_NONE) {
		o->cls = f->tail_cls;
		say(o, "%s (%s), nothing running: %s", st->name, triage_info(f->tail_cls)->name,
		    triage_info(f->tail_cls)->remediation);
		if (f->tail_evidence != NULL)
			say(o, " · last: %.200s", f->tail_evidence);
	} else if (f->job != NULL && (o->cls = slurm_triage(f->job)) != TRIAGE_NONE) {
		/* the job ended before onbox could say anything (time limit, node, a cancel) */
		say(o, "%s (%s): job %s %s", st->name, triage_info(o->cls)->name, f->job->id,
		    f->job->state);
		if (f->job->exit_code >= 0)
			say(o, " exit %d:%d", f->job->exit_code, f->job->signo);
		say(o, ": %s", triage_info(o->cls)->remediation);
	} else
		return 0;
	o->stage = st->name;
	say_stranded(in, f, o);
	return 1;
}

static int
pred_needs_resume(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	if (f->alive || f->done || f->first_missing < 0)
		return 0;
	o->stage = in->cfg->chain[f->first_missing].name;
	say(o, "%s: nothing is %s and %s is missing", o->stage,
	    f->slurm != NULL ? "queued or running" : "running", in->cfg->chain[f->first_missing].marker);
	if (f->job != NULL)
		say(o, " (its last job %s: %s)", f->job->id, f->job->state);
	say_progress(f, o);
	say_stranded(in, f, o);
	return 1;
}

/* Progress has not moved for patrol.stall_ticks ticks (alive, not waiting in a queue). */
static int
decide_still(const struct decide_in *in, const struct decide_facts *f)
{
	if (!f->alive || f->done || f->progress < 0 || in->prev_progress < 0)
		return 0;
	if (f->slurm != NULL && !f->onbox_alive)
		return 0;	/* waiting in the queue is not a stall */
	return f->progress == in->prev_progress &&
	    in->still_ticks + 1 >= config_get_int(in->cfg, "patrol.stall_ticks");
}

/*
 * Alive but unhealthy: what onbox's health checks (loss, throughput) put in
 * the heartbeat's health.degraded, and checkpoints that stopped advancing
 * while the steps move (checked here, from the probe's listing).
 */
static int
pred_degraded(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	const cJSON *why = cJSON_GetObjectItem(cJSON_GetObjectItem(in->p->state, "health"), "degraded"), *it;
	const cJSON *sig;
	int n = 0;

	if (!f->alive || f->done || (f->slurm != NULL && !f->onbox_alive))
		return 0;
	o->stage = f->first_missing >= 0 ? in->cfg->chain[f->first_missing].name : NULL;
	cJSON_ArrayForEach(it, why) {
		const char *text = cJSON_IsString(it) ? it->valuestring : json_str(it, "text", NULL);

		if (text != NULL)
			say(o, "%s%s", n++ > 0 ? "; " : "", text);
	}
	if (f->ckpt_stall != NULL)
		say(o, "%s%s", n++ > 0 ? "; " : "", f->ckpt_stall);
	/* The seeds' rule: a stall with a cluster signal in the job's log is degraded. */
	sig = cJSON_GetObjectItem(cJSON_GetObjectItem(in->p->state, "job"), "cluster_signal");
	if (sig != NULL && decide_still(in, f))
		say(o, "%scluster_stall: no progress for %d ticks and the job's log shows %s (%s)",
		    n++ > 0 ? "; " : "", in->still_ticks + 1, json_str(sig, "signal", "a cluster signal"),
		    json_str(sig, "line", ""));
	if (n == 0)
		return 0;
	say_progress(f, o);
	return 1;
}

static int
pred_stalled(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	if (!decide_still(in, f))
		return 0;
	o->stage = f->first_missing >= 0 ? in->cfg->chain[f->first_missing].name : NULL;
	say(o, "no progress for %d ticks", in->still_ticks + 1);
	say_progress(f, o);
	return 1;
}

static int
pred_monitor_stale(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	long hb = in->cfg->heartbeat_s;

	if (!f->alive || f->done)
		return 0;
	if (f->slurm != NULL && !f->onbox_alive)
		return 0;	/* its job waits in the queue: no heartbeat is due */
	if (f->onbox_alive && f->heartbeat_age >= 0 && f->heartbeat_age <= heartbeat_stale_s(hb) &&
	    f->heartbeat_ahead == 0)
		return 0;
	o->stage = f->first_missing >= 0 ? in->cfg->chain[f->first_missing].name : NULL;
	if (!f->onbox_alive)
		say(o, "onbox is not running while the run lives (the run is unwatched on the box)");
	else if (f->heartbeat_ahead > 0)
		say(o, "onbox's heartbeat is %lds ahead of the box's clock (interval %lds): "
		    "the clock was set back, or state.json is not onbox's", f->heartbeat_ahead, hb);
	else if (f->heartbeat_age < 0)
		say(o, "onbox has written no heartbeat (interval %lds)", hb);
	else
		say(o, "onbox's heartbeat is %lds old (interval %lds)", f->heartbeat_age, hb);
	say_progress(f, o);
	return 1;
}

static int
pred_disk_low(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	long warn = config_get_int(in->cfg, "patrol.disk_warn_pct");

	(void)f;
	if (in->p->disk_used_pct < warn && in->p->inode_used_pct < warn)
		return 0;
	say(o, "workdir's disk %ld%% used, inodes %ld%% used (warn at %ld%%)", in->p->disk_used_pct,
	    in->p->inode_used_pct, warn);
	return 1;
}

static int
pred_transfer(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	(void)f;
	if (in->local_files < 0 || in->p->transfer_files < 0)
		return 0;
	if (in->p->transfer_files >= in->local_files &&
	    (in->local_bytes < 0 || in->p->transfer_bytes < 0 || in->p->transfer_bytes >= in->local_bytes))
		return 0;
	say(o, "box has %ld of %ld files", in->p->transfer_files, in->local_files);
	if (in->local_bytes >= 0 && in->p->transfer_bytes >= 0)
		say(o, ", %lld of %lld bytes", in->p->transfer_bytes, in->local_bytes);
	return 1;
}

static int
pred_done(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	(void)in;
	if (!f->done)
		return 0;
	say(o, "every marker present");
	if (caveats_text(in->p->caveats) != NULL)
		say(o, " · caveats: %s", caveats_text(in->p->caveats));
	if (in->p->results != NULL)
		say(o, " · results: %s", in->cfg->results);
	return 1;
}

static int
pred_ok(const struct decide_in *in, const struct decide_facts *f, struct decide_out *o)
{
	const char *stage = in->p->state != NULL ? json_str(in->p->state, "stage", NULL) : NULL;

	if (f->job != NULL) {
		/* slurm: the stage whose job counts, whatever an old heartbeat says */
		o->stage = f->job->stage;
		say(o, "%s", f->job->stage);
		say_job(f->job, o);
		if (f->onbox_alive && stage != NULL && strcmp(stage, f->job->stage) == 0)
			say(o, " attempt %ld", json_long(in->p->state, "attempt", 0));
	} else if (stage != NULL)
		say(o, "%s attempt %ld", stage, json_long(in->p->state, "attempt", 0));
	else
		say(o, "running");
	say_progress(f, o);
	if (f->progress >= 0 && in->prev_progress >= 0)
		say(o, " (%+ld since last tick)", f->progress - in->prev_progress);
	return 1;
}

/*
 * RESUMED and TRANSFER_RESUMED are what NEEDS_RESUME / CRASHED and
 * TRANSFER_INCOMPLETE become once patrol has acted.  Their rows have no predicate: they are
 * listed so the table the handbook prints is the whole contract.
 */
const struct decide_row decide_table[] = {
	{ V_HOSTKEY_MISMATCH, "HOSTKEY_MISMATCH", pred_hostkey, ACT_NONE,
	  "the box's host key differs from known_hosts",
	  "refused and never overwritten; check with the provider that the box was not replaced before trusting a new key" },
	{ V_SSH_DOWN, "SSH_DOWN", pred_ssh_down, ACT_NONE,
	  "cannot connect, authenticate or read a whole probe in time",
	  "check the provider console (balance, power); no action is ever taken on an unseen box" },
	{ V_STOPPED, "STOPPED", pred_stopped, ACT_NONE,
	  "the run was stopped on purpose (onbox stop / patrol stop): .watchkeeper/stopped is there",
	  "nothing is resumed, even with auto_resume; reported every tick (exit 0, the cron entry stays); start it again from the first missing marker with onbox start on the box or patrol deploy" },
	{ V_CRASHED, "CRASHED", pred_crashed, ACT_RESUME,
	  "nothing runs, the chain is not done, and a FAILED marker or a crash signature is there",
	  "read the class and its remediation; a retryable class is resumed when auto_resume is on and budget is left" },
	{ V_NEEDS_RESUME, "NEEDS_RESUME", pred_needs_resume, ACT_RESUME,
	  "nothing runs, the chain is not done, no crash signature",
	  "resume: rebuild layer 1 (onbox start); patrol does it itself when auto_resume is on" },
	{ V_RESUMED, "RESUMED", NULL, ACT_NONE,
	  "patrol resumed the run this tick (after re-checking in the same connection)",
	  "watch the next tick: it must show progress" },
	{ V_DEGRADED, "DEGRADED", pred_degraded, ACT_NONE,
	  "the run lives but is unhealthy: loss spike, throughput collapse, checkpoints not advancing, "
	  "a cluster job pending past job.pending_alert_s (capacity_wait), or no progress for "
	  "patrol.stall_ticks with a cluster signal in the job's log (cluster_stall)",
	  "look at the details; not restarted automatically" },
	{ V_STALLED, "STALLED", pred_stalled, ACT_NONE,
	  "alive, but progress has not moved for patrol.stall_ticks ticks",
	  "look at the last lines (a hang, a deadlock, a block-buffered log?); never blind-restarted" },
	{ V_MONITOR_STALE, "MONITOR_STALE", pred_monitor_stale, ACT_NONE,
	  "the run lives but onbox is gone or its heartbeat is older than 2 intervals (and 10 s)",
	  "the run may be fine; restart onbox (onbox start re-attaches, never relaunches a live stage)" },
	{ V_DISK_LOW, "DISK_LOW", pred_disk_low, ACT_NONE,
	  "the workdir's disk or inodes are at patrol.disk_warn_pct or more",
	  "free space now: `patrol checkpoints --prune` names the checkpoints that may go (and "
	  "--confirm deletes them), then caches; a full disk kills checkpoint saves" },
	{ V_TRANSFER_INCOMPLETE, "TRANSFER_INCOMPLETE", pred_transfer, ACT_RESUME_TRANSFER,
	  "the transfer target has fewer files or bytes than the local source",
	  "resume the transfer (transfer.resume); patrol does it itself when transfer.auto is on" },
	{ V_TRANSFER_RESUMED, "TRANSFER_RESUMED", NULL, ACT_NONE,
	  "patrol resumed the transfer this tick",
	  "the next tick compares the counts again" },
	{ V_DONE, "DONE", pred_done, ACT_FINISH,
	  "every marker is present",
	  "the results are printed and pushed; this run's cron entry is removed" },
	{ V_OK, "OK", pred_ok, ACT_NONE,
	  "none of the above",
	  "nothing to do; progress is reported every tick" },
};
const size_t decide_nrows = sizeof(decide_table) / sizeof(decide_table[0]);

const char *
verdict_name(enum verdict v)
{
	size_t i;

	for (i = 0; i < decide_nrows; i++)
		if (decide_table[i].v == v)
			return decide_table[i].name;
	return "?";
}

long
heartbeat_stale_s(long heartbeat_s)
{
	return heartbeat_s > HEARTBEAT_STALE_MIN_S / 2 ? 2 * heartbeat_s : HEARTBEAT_STALE_MIN_S;
}

int
verdict_exit(enum verdict v)
{
	if (v == V_OK || v == V_DONE || v == V_STOPPED)
		return WK_EX_VERDICT_OK;
	if (v == V_SSH_DOWN || v == V_HOSTKEY_MISMATCH)
		return WK_EX_UNSEEN;
	return WK_EX_VERDICT_BAD;
}

/* Progress: onbox's heartbeat when it has it, else the tails read with progress.pattern (probe.c). */
static void
facts_progress(const struct decide_in *in, struct decide_facts *f)
{
	const struct probe *p = in->p;
	const cJSON *prog = p->state != NULL ? cJSON_GetObjectItem(p->state, "progress") : NULL;

	f->progress = json_long(prog, "cur", -1);
	f->eta_s = json_long(cJSON_GetObjectItem(cJSON_GetObjectItem(p->state, "health"),
	    "progress"), "eta_s", -1);
	f->progress_max = json_long(prog, "max", -1);
	if (in->cfg->has_progress && in->cfg->progress.max > 0)
		f->progress_max = in->cfg->progress.max;
	if (f->progress >= 0 || !in->cfg->has_progress)
		return;
	f->progress = p->tail_progress;
	if (f->progress_max < 0)
		f->progress_max = p->tail_progress_max;
}

/* Checkpoints behind progress by more than two of their spacings (core/ckpt.c). */
static void
facts_ckpt(const struct decide_in *in, struct decide_facts *f)
{
	struct ckpt_stall st;

	if (in->p->ckpt_scan == NULL || f->progress < 0)
		return;
	if (ckpt_scan_stalled(in->p->ckpt_scan, in->cfg, f->progress, &st))
		f->ckpt_stall = ckpt_stall_text(&st);
}

/* The crash signature probe_parse found in the output tail; onbox's own class of the attempt wins. */
static void
facts_tail_triage(const struct decide_in *in, struct decide_facts *f)
{
	const cJSON *a;
	enum triage_class cls;

	if (!in->p->tail_crash)
		return;
	f->tail_cls = in->p->tail_cls;
	f->tail_evidence = in->p->tail_evidence;
	/* onbox judged the attempt with its counter: its class wins (killed, not cgroup_oom) */
	if (f->first_missing >= 0 && (a = hist_last(probe_history(in->p,
	    in->cfg->chain[f->first_missing].name))) != NULL &&
	    (cls = triage_by_name(json_str(a, HIST_KEY_CLASS, NULL))) != TRIAGE_NCLASSES)
		f->tail_cls = cls;
}

/*
 * Under Slurm only the first stage without its marker can be running: the
 * later ones wait on it (afterok).  Its job decides liveness.
 */
static void
facts_slurm(const struct decide_in *in, struct decide_facts *f)
{
	if (!f->slurm->queue_known) {
		f->unseen = f->slurm->why != NULL ? f->slurm->why : "squeue did not answer";
		return;
	}
	if (f->first_missing < 0)
		return;
	f->job = slurm_stage_job(f->slurm, in->cfg->chain[f->first_missing].name);
	if (f->job == NULL)
		return;
	/* CONFIGURING: its nodes are still booting and onbox has not started */
	f->onbox_alive = f->job->cls == SLURM_RUNNING && strcmp(f->job->state, "CONFIGURING") != 0 &&
	    strcmp(f->job->state, "CF") != 0;
	/* a live job of the stage was (re)submitted after its failure: it is not failed now */
	if (f->alive)
		f->failed = NULL;
}

void
decide(const struct decide_in *in, struct decide_out *out)
{
	struct decide_facts f;
	size_t i;

	memset(out, 0, sizeof(*out));
	memset(&f, 0, sizeof(f));
	f.first_missing = -1;
	f.progress = f.progress_max = f.heartbeat_age = f.eta_s = -1;
	f.heartbeat_ahead = 0;
	if (in->seen) {
		const struct probe *p = in->p;

		f.first_missing = probe_first_missing(p, in->cfg);
		f.done = f.first_missing < 0;
		if (f.first_missing >= 0)
			f.failed = probe_failed(p, in->cfg->chain[f.first_missing].marker);
		f.alive = probe_alive(p, in->cfg, f.first_missing);
		f.onbox_alive = p->onbox_alive;
		if (p->has_slurm_view) {
			f.slurm = &p->slurm_view;
			f.onbox_alive = 0;
			facts_slurm(in, &f);
		}
		/*
		 * box_time >= 0 and time_unix > 0: the difference cannot overflow.
		 * The probe reads the box's clock first and state.json later: on a
		 * loaded box a heartbeat can land in between, "from the future" by
		 * a second or so.  It is fresh (age 0), not missing, as long as it
		 * is ahead by less than a stale heartbeat's age: further ahead, no
		 * probe was that slow, and the box's clock was stepped back (or
		 * state.json is not onbox's own): not fresh, said so.
		 */
		if (p->state != NULL && json_num(p->state, "time_unix", 0) > 0 && p->box_time >= 0) {
			f.heartbeat_age = (long)(p->box_time - json_long(p->state, "time_unix", 0));
			if (f.heartbeat_age < 0) {
				if (-f.heartbeat_age > heartbeat_stale_s(in->cfg->heartbeat_s))
					f.heartbeat_ahead = -f.heartbeat_age;
				f.heartbeat_age = 0;
			}
		}
		facts_progress(in, &f);
		if (!f.alive && !f.done && f.failed == NULL)
			facts_tail_triage(in, &f);
		if (f.alive && !f.done)
			facts_ckpt(in, &f);
	}
	out->progress = f.progress;
	out->progress_max = f.progress_max;
	out->alive = f.alive;
	out->job = f.job;
	out->no_progress = f.progress >= 0 && f.progress == in->prev_progress;
	for (i = 0; i < decide_nrows; i++) {
		if (decide_table[i].pred == NULL)
			continue;
		out->details[0] = '\0';
		if (decide_table[i].pred(in, &f, out)) {
			out->v = decide_table[i].v;
			out->action = decide_table[i].action;
			break;
		}
	}
	free(f.ckpt_stall);
}
