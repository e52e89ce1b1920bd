/*
 * jobrun.c: the `job` backend's attempts: submit, follow, reconcile by name
 * (see jobrun.h for what each attempt keeps and why).
 *
 * Rules kept here, whatever the manager says:
 *   - never submit while a job of the stage's name is live or pending;
 *   - a submit that may have gone through (in flight when onbox died, timed
 *     out, printed no id) is looked for by name before any new submit;
 *   - pending is waiting, not a failure;
 *   - a state that cannot be read is unknown: polled again, never "dead";
 *   - never two live jobs of one lineage: a resubmit waits until the job
 *     before it is known to be over.
 * The job's log, cluster signals and a capacity wait are jobwatch.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "attempt.h"
#include "diag.h"
#include "err.h"
#include "events.h"
#include "jobctl.h"
#include "jobrun.h"
#include "jobrun-int.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "policy.h"
#include "sshq.h"
#include "xmalloc.h"

/* ---- small helpers ---- */

const char *
jr_id(const struct jobrun *jr)
{
	return jr->a != NULL ? json_str(jr->a, POLICY_KEY_JOB_ID, NULL) : NULL;
}

/* text through notify_scrub(): a CLI's stderr may quote a secret.  Caller frees. */
char *
jr_scrub(const struct jobrun *jr, const char *text)
{
	return notify_scrub(jr->sinks, text != NULL ? text : "");
}

/* jr_scrub() that consumes text: what a CLI said, kept only scrubbed. */
char *
jr_scrub_take(const struct jobrun *jr, char *text)
{
	char *clean = jr_scrub(jr, text);

	free(text);
	return clean;
}

void
jr_save(const struct jobrun *jr)
{
	if (hist_save(jr->cfg->workdir, jr->st->name, jr->hist) != 0)
		log_warn("cannot write the history of stage %s: %s", jr->st->name, wk_strerror(WK_ERR_SYSTEM));
}

/* attempts/<stage>.<n>.json: the job's name and id (onbox writes it in this backend). */
static void
jr_record(const struct jobrun *jr)
{
	char *path = layout_attempt_record(jr->cfg->workdir, jr->st->name, jr->n);
	cJSON *doc = cJSON_CreateObject();

	cJSON_AddStringToObject(doc, "stage", jr->st->name);
	cJSON_AddNumberToObject(doc, "attempt", (double)jr->n);
	cJSON_AddStringToObject(doc, "state", "job");
	cJSON_AddStringToObject(doc, "job_name", jr->name);
	if (jr_id(jr) != NULL)
		cJSON_AddStringToObject(doc, POLICY_KEY_JOB_ID, jr_id(jr));
	cJSON_AddNumberToObject(doc, "onbox_pid", (double)getpid());
	if (jsonfile_save(path, doc) != 0)
		log_warn("cannot write %s: %s", path, wk_strerror(WK_ERR_SYSTEM));
	cJSON_Delete(doc);
	free(path);
}

/* The attempt's output log's size now (0 when it does not exist). */
static long
jr_log_size(const struct jobrun *jr)
{
	char *p = layout_attempt_log(jr->cfg->workdir, jr->st->name, jr->n);
	struct stat sb;
	long sz = stat(p, &sb) == 0 ? (long)sb.st_size : 0;

	free(p);
	return sz;
}

/* 1 when id was followed by an earlier attempt of the stage. */
static int
jr_earlier(const struct jobrun *jr, const char *id)
{
	const cJSON *e, *r;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(jr->hist, HIST_KEY_ATTEMPTS)) {
		if (e == jr->a)
			break;
		if (strcmp(json_str(e, POLICY_KEY_JOB_ID, ""), id) == 0)
			return 1;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(e, "job_replaced"))
			if (cJSON_IsString(r) && strcmp(r->valuestring, id) == 0)
				return 1;
	}
	return 0;
}

/* Follow id from now on: the old id (if any) to job_replaced, the log copied from here. */
static void
jr_set_id(struct jobrun *jr, const char *id)
{
	const char *old = jr_id(jr);
	cJSON *rep;

	if (old != NULL && strcmp(old, id) != 0) {
		if ((rep = cJSON_GetObjectItem(jr->a, "job_replaced")) == NULL)
			rep = cJSON_AddArrayToObject(jr->a, "job_replaced");
		cJSON_AddItemToArray(rep, cJSON_CreateString(old));
	}
	json_set_str(jr->a, POLICY_KEY_JOB_ID, id);
	json_set_num(jr->a, "job_log_base", (double)jr_log_size(jr));
	json_set_num(jr->a, "job_log_bytes", 0);
	cJSON_DeleteItemFromObject(jr->a, "job_state");
	cJSON_DeleteItemFromObject(jr->a, "job_raw_state");
	jr_save(jr);
	jr_record(jr);
	jr->unknown_since = 0;
	jr->unknown_loud = 0;
	jr->shrink_said = 0;
}

/* Adopt id, found by name: record it, say so in onbox.log and an event. */
static void
jr_adopt(struct jobrun *jr, const char *id, enum job_state st, const char *reason)
{
	char human[1024], *old = jr_id(jr) != NULL ? xstrdup(jr_id(jr)) : NULL;
	cJSON *ev;

	jr_set_id(jr, id);
	if (st == JOB_UNKNOWN)	/* named by the config, not found: its state comes at the poll */
		log_warn("stage %s attempt %ld: adopting job %s: %s", jr->st->name, jr->n, id, reason);
	else
		log_warn("stage %s attempt %ld: adopting job %s (%s), found by its name %s: %s",
		    jr->st->name, jr->n, id, job_state_name(st), jr->name, reason);
	ev = events_new(jr->instance, jr->cfg->run, "job_adopted", jr->st->name, jr->n);
	cJSON_AddStringToObject(ev, "job_name", jr->name);
	cJSON_AddStringToObject(ev, POLICY_KEY_JOB_ID, id);
	if (old != NULL)
		cJSON_AddStringToObject(ev, "previous_job_id", old);
	cJSON_AddStringToObject(ev, "job_state", job_state_name(st));
	cJSON_AddStringToObject(ev, "reason", reason);
	snprintf(human, sizeof(human), "%s attempt %ld: adopted job %.300s (%s): %.300s",
	    jr->st->name, jr->n, id, job_state_name(st), reason);
	jr->emit(jr->arg, ev, human);
	free(old);
}

/* ---- the CLI's dialect ---- */

/*
 * The dialect of the CLI for this run (job.dialects): the one recorded in
 * .watchkeeper/job.json, else detected once and recorded.  0 when known (or
 * the profile has none); -1 when no dialect answers (said once, tried again
 * at the next poll).
 */
static int
jr_dialect(struct jobrun *jr)
{
	char *path, *name = NULL, *why = NULL, *was = NULL, when[TIMEFMT_LEN];
	cJSON *doc = NULL;
	time_t now;
	int rc;

	if (jr->dialect_ready)
		return 0;
	path = layout_path(jr->cfg->workdir, "job.json");
	if (jsonfile_load(path, &doc) == 0 && *json_str(doc, "dialect", "") != '\0')
		was = xstrdup(json_str(doc, "dialect", ""));
	cJSON_Delete(doc);
	doc = NULL;
	/* The recorded dialect, unless the CLI just refused it: then detect again. */
	if ((rc = jobctl_dialect(&jr->jc, jr->dialect_redetect ? NULL : was, &name, &why)) != 0) {
		why = jr_scrub_take(jr, why);
		if (!jr->dialect_said)
			log_warn("cannot tell which dialect of the job CLI this is: %s; nothing is "
			    "asked of it until one answers", why);
		jr->dialect_said = 1;
		goto out;
	}
	jr->dialect_ready = 1;
	jr->dialect_said = 0;
	jr->has_find = jobctl_has(&jr->jc, "job.find");
	if (name != NULL && (was == NULL || strcmp(was, name) != 0)) {
		now = time(NULL);
		timefmt_utc(now, when, sizeof(when));
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "dialect", name);
		if (was != NULL)
			cJSON_AddStringToObject(doc, "previous", was);
		cJSON_AddStringToObject(doc, "detected", when);
		cJSON_AddNumberToObject(doc, "detected_unix", (double)now);
		if (jsonfile_save(path, doc) != 0)
			log_warn("cannot write %s: %s", path, wk_strerror(WK_ERR_SYSTEM));
		log_info("the job CLI speaks dialect %s of job.dialects%s%s (recorded in %s)", name,
		    was != NULL ? "; it spoke " : "", was != NULL ? was : "", path);
	}
	jr->dialect_redetect = 0;
out:
	cJSON_Delete(doc);
	free(path);
	free(name);
	free(why);
	free(was);
	return rc == 0 ? 0 : -1;
}

/* A command exited 2 (click's usage error): the CLI may have changed under the run. */
static void
jr_usage_error(struct jobrun *jr, int rc, const char *why)
{
	if (rc == WK_ERR_EXEC && why != NULL && strstr(why, "exited with status 2") != NULL &&
	    jr->jc.dialect != NULL && jr->dialect_ready) {
		log_warn("the job CLI refused a command of dialect %s (%s): detecting its dialect again",
		    json_str(jr->jc.dialect, "name", "?"), why);
		jr->dialect_ready = 0;
		jr->dialect_redetect = 1;
	}
}

/* ---- submit ---- */

/*
 * opts plus the manager's exclude option (job.exclude) naming the nodes on
 * which an earlier attempt of the stage failed with bad_accelerator: never
 * back onto the same node.  Consumes opts; returns the new words.
 */
static char *
jr_exclude(const struct jobrun *jr, char *opts)
{
	const char *opt = config_get_str(jr->cfg, "job.exclude");
	char *nodes, *w;
	struct buf b = BUF_INIT;

	if (opt == NULL || (nodes = hist_nodes_of_class(jr->hist, jr->a, "bad_accelerator",
	    "job_node")) == NULL)
		return opts;
	buf_puts(&b, opts);
	buf_putc(&b, ' ');
	w = xstrfmt("--%s=%s", opt, nodes);
	sshq_append(&b, w);
	log_warn("stage %s attempt %ld: keeping the job off %s, where an earlier attempt failed "
	    "with bad_accelerator (%s)", jr->st->name, jr->n, nodes, w);
	free(w);
	free(nodes);
	free(opts);
	return buf_detach(&b);
}

/*
 * Before a resubmit: the job an earlier attempt of the stage followed must
 * be known to be over (never two live jobs of one lineage).  0: go on; 1:
 * wait for the next poll (said once).
 */
static int
jr_lineage_live(struct jobrun *jr)
{
	const cJSON *e;
	const char *prev = NULL;
	char *raw = NULL, *why = NULL;
	enum job_state st = JOB_UNKNOWN;
	int rc;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(jr->hist, HIST_KEY_ATTEMPTS)) {
		if (e == jr->a)
			break;
		if (json_str(e, POLICY_KEY_JOB_ID, NULL) != NULL)
			prev = json_str(e, POLICY_KEY_JOB_ID, NULL);
	}
	if (prev == NULL)
		return 0;
	rc = jobctl_status(&jr->jc, prev, &st, &raw, &why);
	if (rc == 0 && job_state_final(st)) {
		free(raw);
		free(why);
		return 0;
	}
	if (!jr->find_said) {
		why = jr_scrub_take(jr, why);
		log_warn("stage %s attempt %ld: not resubmitting while job %s, which attempt before "
		    "followed, is %s%s%s", jr->st->name, jr->n, prev, rc == 0 ? job_state_name(st) :
		    "not known to be over", why != NULL ? ": " : "", why != NULL ? why : "");
	}
	jr->find_said = 1;
	free(raw);
	free(why);
	return 1;
}

/*
 * No job id yet: find the stage's job by name, else submit one.  0: an id
 * is known now; 1: try again at the next poll; -1: give up (jr->why).
 */
static int
jr_acquire(struct jobrun *jr)
{
	const char *cmd = json_str(jr->a, HIST_KEY_COMMAND, NULL);
	int inflight = cJSON_GetObjectItem(jr->a, "job_submit") != NULL, rc;
	char *id = NULL, *why = NULL, *opts = NULL, *label = NULL, when[TIMEFMT_LEN];
	enum job_state st;
	time_t now;
	cJSON *o;

	if (jr_dialect(jr) != 0)
		return 1;
	if (jr->resubmit && (rc = jr_lineage_live(jr)) != 0)
		goto out;
	if (jr->has_find && !jr->resubmit) {
		rc = jobctl_find(&jr->jc, jr->name, &id, &st, &why);
		/*
		 * A live job of this name is never doubled; a finished one is ours
		 * only when a submit of this attempt may have made it.
		 */
		if (rc == 0 && (!job_state_final(st) || (inflight && !jr_earlier(jr, id)))) {
			jr_adopt(jr, id, st, inflight ? "the submit in flight when the last onbox "
			    "stopped went through" : "a job of this name is already live or pending: "
			    "following it instead of submitting a second");
			rc = 0;
			goto out;
		}
		if (rc != 0 && rc != WK_ERR_NOTFOUND) {
			why = jr_scrub_take(jr, why);
			if (!jr->find_said)
				log_warn("stage %s attempt %ld: cannot look for job %s by name: %s; "
				    "nothing is submitted until it answers", jr->st->name, jr->n, jr->name,
				    why);
			jr->find_said = 1;
			rc = 1;
			goto out;
		}
		jr->find_said = 0;
		free(id);
		free(why);
		id = why = NULL;
	} else if (inflight) {
		/* Without job.find a submit that may have gone through cannot be checked. */
		jr->why = jr->resubmit ? xstrfmt("stage %s: its resubmit command may have gone "
		    "through (onbox stopped while it ran) and its job cannot be found by name: look "
		    "with the manager's CLI, put the job's id in chain[].adopt, then onbox start",
		    jr->st->name) : xstrfmt("job %s: a submit may have gone through and the config "
		    "has no job.find to look for it; look with the manager's CLI, then onbox start",
		    jr->name);
		rc = -1;
		goto out;
	}
	if (deadline_isset(&jr->backoff) && !deadline_expired(&jr->backoff)) {
		rc = 1;
		goto out;
	}
	if (cmd == NULL) {
		jr->why = xstrfmt("job %s: the attempt has no command recorded", jr->name);
		rc = -1;
		goto out;
	}
	/* In flight, on disk, before the CLI runs. */
	now = time(NULL);
	timefmt_utc(now, when, sizeof(when));
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", jr->name);
	cJSON_AddStringToObject(o, "time", when);
	cJSON_AddNumberToObject(o, "time_unix", (double)now);
	json_set(jr->a, "job_submit", o);
	jr_save(jr);
	if (jr->resubmit) {
		label = xstrfmt("chain[%zu].resubmit", (size_t)(jr->st - jr->cfg->chain));
		log_info("stage %s attempt %ld: resubmitting with the stage's own command (%s)",
		    jr->st->name, jr->n, label);
		rc = jobctl_resubmit(&jr->jc, label, jr->st->resubmit, &id, &why);
	} else if ((rc = jobctl_options(jr->cfg, (size_t)(jr->st - jr->cfg->chain), &opts,
	    &why)) == 0) {
		opts = jr_exclude(jr, opts);
		log_info("stage %s attempt %ld: submitting job %s", jr->st->name, jr->n, jr->name);
		rc = jobctl_submit(&jr->jc, jr->name, cmd, opts, &id, &why);
	}
	if (rc == 0) {
		jr->refused = 0;
		jr_set_id(jr, id);
		log_info("stage %s attempt %ld: submitted job %s as %s", jr->st->name, jr->n,
		    jr->name, id);
		if (!jr->launching) {
			char human[512];
			cJSON *ev = events_new(jr->instance, jr->cfg->run, "job_submitted",
			    jr->st->name, jr->n);

			jobrun_event(jr, ev);
			snprintf(human, sizeof(human), "%s attempt %ld: submitted job %.300s",
			    jr->st->name, jr->n, id);
			jr->emit(jr->arg, ev, human);
		}
		goto out;
	}
	why = jr_scrub_take(jr, why);
	jr_usage_error(jr, rc, why);
	if ((rc == WK_ERR_TIMEOUT || rc == WK_ERR_PARSE) && jr->has_find && !jr->resubmit) {
		log_warn("stage %s attempt %ld: the submit of %s may have gone through (%s): "
		    "looking for it by name before any new submit", jr->st->name, jr->n, jr->name,
		    why);
		rc = 1;
		goto out;
	}
	if (rc == WK_ERR_INVALID || rc == WK_ERR_TIMEOUT || rc == WK_ERR_PARSE ||
	    ++jr->refused >= JOBRUN_SUBMIT_TRIES) {
		jr->why = xstrfmt("cannot submit job %s: %s", jr->name, why);
		rc = -1;
		goto out;
	}
	log_warn("stage %s attempt %ld: submit of %s refused (%d of %d): %s; trying again in %ld s",
	    jr->st->name, jr->n, jr->name, jr->refused, JOBRUN_SUBMIT_TRIES, why,
	    (JOBRUN_BACKOFF_MS << (jr->refused - 1)) / 1000);
	deadline_set(&jr->backoff, (uint64_t)(JOBRUN_BACKOFF_MS << (jr->refused - 1)));
	rc = 1;
 out:
	free(id);
	free(why);
	free(opts);
	free(label);
	return rc;
}

/* ---- supervision ---- */

/*
 * After the job's state could not be read, or it is final: the manager may
 * have replaced it (resubmitted by hand while nobody watched).  Adopt the
 * job find names when it is another one that is live (or, when ours cannot
 * be read at all, another one no earlier attempt followed).  1 adopted.
 */
static int
jr_reconcile(struct jobrun *jr, int ours_final)
{
	const char *cur = jr_id(jr);
	char *id = NULL, *why = NULL;
	enum job_state st;
	int adopted = 0;

	/* An adopted or resubmitted job has the owner's name, not the stage's. */
	if (!jr->has_find || cur == NULL || jr->resubmit || json_str(jr->a, "job_adopt", NULL) != NULL)
		return 0;
	if (jobctl_find(&jr->jc, jr->name, &id, &st, &why) == 0 && strcmp(id, cur) != 0 &&
	    (job_state_live(st) || (!ours_final && !jr_earlier(jr, id)))) {
		jr_adopt(jr, id, st, ours_final ? "the job followed is finished and a job of the "
		    "same name is live (resubmitted by hand?)" : "the manager does not answer for "
		    "the job followed; a job of the same name replaced it");
		adopted = 1;
	}
	free(id);
	free(why);
	return adopted;
}

/* The state could not be read: unknown, never dead; loud when it lasts. */
static void
jr_unknown(struct jobrun *jr, const char *why)
{
	time_t now = time(NULL);
	char *clean = jr_scrub(jr, why), dur[32], human[1024];
	cJSON *ev;

	if (jr->unknown_since == 0) {
		jr->unknown_since = now;
		log_warn("stage %s attempt %ld: the state of job %s is unknown (%s): asking again "
		    "in %ld ms; not taken for a failure", jr->st->name, jr->n, jr_id(jr), clean,
		    jr->cfg->poll_ms);
	} else if (!jr->unknown_loud && now - jr->unknown_since >= jr->unknown_loud_s) {
		jr->unknown_loud = 1;
		timefmt_duration((long)(now - jr->unknown_since), dur, sizeof(dur));
		log_error("stage %s attempt %ld: the state of job %s has been UNKNOWN for %s (%s): "
		    "onbox keeps asking and does NOT treat it as dead; look at the cluster manager",
		    jr->st->name, jr->n, jr_id(jr), dur, clean);
		ev = events_new(jr->instance, jr->cfg->run, "job_unknown", jr->st->name, jr->n);
		jobrun_event(jr, ev);
		cJSON_AddNumberToObject(ev, "unknown_s", (double)(now - jr->unknown_since));
		cJSON_AddStringToObject(ev, "why", clean);
		snprintf(human, sizeof(human), "%s attempt %ld: job %.300s state UNKNOWN for %s "
		    "(not treated as dead)", jr->st->name, jr->n, jr_id(jr), dur);
		jr->emit(jr->arg, ev, human);
	}
	free(clean);
}

/* The state answered: record it; say pending (once per job) and running. */
static void
jr_state(struct jobrun *jr, enum job_state st, const char *raw)
{
	const char *was = json_str(jr->a, "job_state", "");
	char human[512];
	cJSON *ev;

	if (jr->unknown_since != 0)
		log_info("stage %s attempt %ld: job %s answers again: %s", jr->st->name, jr->n,
		    jr_id(jr), raw);
	jr->unknown_since = 0;
	jr->unknown_loud = 0;
	if (strcmp(was, job_state_name(st)) == 0 && strcmp(json_str(jr->a, "job_raw_state", ""),
	    raw) == 0)
		return;
	json_set_str(jr->a, "job_state", job_state_name(st));
	json_set_str(jr->a, "job_raw_state", raw);
	if (st == JOB_PENDING && strcmp(json_str(jr->a, "job_pending_said", ""), jr_id(jr)) != 0) {
		json_set_str(jr->a, "job_pending_said", jr_id(jr));
		json_set_num(jr->a, "job_pending_since", (double)time(NULL));
		jr_save(jr);	/* the history before the event and the heartbeat */
		ev = events_new(jr->instance, jr->cfg->run, "job_pending", jr->st->name, jr->n);
		jobrun_event(jr, ev);
		cJSON_AddStringToObject(ev, "job_raw_state", raw);
		snprintf(human, sizeof(human), "%s attempt %ld: job %.300s pending for capacity (%s): "
		    "waiting, not a failure", jr->st->name, jr->n, jr_id(jr), raw);
		jr->emit(jr->arg, ev, human);
	} else if (st == JOB_RUNNING)
		log_info("stage %s attempt %ld: job %s is running (%s)", jr->st->name, jr->n,
		    jr_id(jr), raw);
	else if (job_state_final(st))
		log_info("stage %s attempt %ld: job %s ended: %s (%s)", jr->st->name, jr->n,
		    jr_id(jr), job_state_name(st), raw);
	jr_save(jr);
}

/* The node the job ran on (job.node), for a bad accelerator's exclusion. */
static void
jr_node(struct jobrun *jr)
{
	char *node = NULL, *why = NULL;

	if (!jobctl_has(&jr->jc, "job.node"))
		return;
	if (jobctl_node(&jr->jc, jr_id(jr), &node, &why) == 0) {
		json_set_str(jr->a, "job_node", node);
		jr_save(jr);
	} else {
		why = jr_scrub_take(jr, why);
		log_debug("job %s: cannot name its node: %s", jr_id(jr), why);
	}
	free(node);
	free(why);
}

int
jobrun_tick(struct jobrun *jr)
{
	char *raw = NULL, *why = NULL, *sw = NULL;
	enum job_state st;
	int rc, ended = 0;

	if (jr == NULL || jr->a == NULL)
		return 0;
	if (jr->end != JR_LIVE)
		return 1;
	if (deadline_isset(&jr->next) && !deadline_expired(&jr->next))
		return 0;
	deadline_set(&jr->next, (uint64_t)jr->cfg->poll_ms);
	if (jr_dialect(jr) != 0)
		return 0;
	if (jr_id(jr) == NULL) {
		if ((rc = jr_acquire(jr)) < 0) {
			log_error("stage %s attempt %ld: %s", jr->st->name, jr->n, jr->why);
			jr->end = JR_SUBMIT_FAILED;
			return 1;
		}
		if (rc > 0)
			return 0;
	}
	rc = jobctl_status(&jr->jc, jr_id(jr), &st, &raw, &why);
	jr_usage_error(jr, rc, why);
	if (rc != 0 || st == JOB_UNKNOWN) {
		if (!jr_reconcile(jr, 0))
			jr_unknown(jr, why);
		goto out;
	}
	if (jr->stop_wanted && job_state_live(st) && jobctl_stop(&jr->jc, jr_id(jr), &sw) != 0) {
		sw = jr_scrub_take(jr, sw);
		log_warn("stage %s attempt %ld: cannot stop job %s: %s; trying again", jr->st->name,
		    jr->n, jr_id(jr), sw);
	}
	/* The log at its own pace (job.logs_poll_ms), and always once more at the end. */
	if (st != JOB_PENDING && (job_state_final(st) || !deadline_isset(&jr->next_log) ||
	    deadline_expired(&jr->next_log))) {
		jr_fetch_log(jr);
		if (jr->logs_poll_ms > 0)
			deadline_set(&jr->next_log, (uint64_t)jr->logs_poll_ms);
	}
	jr_state(jr, st, raw);
	jr_capacity(jr);
	if (job_state_final(st) && !jr_reconcile(jr, 1)) {
		jr_node(jr);
		jr->end = JR_FINAL;
		jr->final = st;
		ended = 1;
	}
 out:
	free(raw);
	free(why);
	free(sw);
	return ended;
}

int
jobrun_poll_cap(const struct jobrun *jr, int cap)
{
	uint64_t left;

	if (jr == NULL || jr->a == NULL || jr->end != JR_LIVE)
		return cap;
	left = deadline_isset(&jr->next) ? deadline_left_ms(&jr->next) : 0;
	return left < (uint64_t)cap ? (int)left : cap;
}

void
jobrun_stop(struct jobrun *jr)
{
	char *why = NULL, *clean;

	if (jr == NULL || jr->a == NULL)
		return;
	jr->stop_wanted = 1;
	if (jr_id(jr) == NULL || jr_dialect(jr) != 0)
		return;		/* the next poll finds it, then stops it */
	if (jobctl_stop(&jr->jc, jr_id(jr), &why) != 0) {
		clean = jr_scrub(jr, why);
		log_warn("stage %s attempt %ld: cannot stop job %s: %s; trying again at each poll",
		    jr->st->name, jr->n, jr_id(jr), clean);
		free(clean);
	} else
		log_info("stage %s attempt %ld: asked the manager to stop job %s", jr->st->name,
		    jr->n, jr_id(jr));
	free(why);
	deadline_clear(&jr->next);	/* see its state at once */
}

/* ---- the attempt ---- */

static void
jr_bind(struct jobrun *jr, const struct wk_stage *st, long n, cJSON *hist, cJSON *a)
{
	long have, fsz;

	jobrun_detach(jr);
	jr->st = st;
	jr->n = n;
	jr->hist = hist;
	jr->a = a;
	jr->name = jobctl_job_name(jr->cfg, st->name);
	json_set_str(a, "job_name", jr->name);
	jr->resubmit = cJSON_IsTrue(cJSON_GetObjectItem(a, "job_resubmit"));
	/* A crash between copying log bytes and counting them: the file knows. */
	if (jr_id(jr) != NULL) {
		have = json_long(a, "job_log_bytes", 0);
		fsz = jr_log_size(jr) - json_long(a, "job_log_base", 0);
		if (fsz > have) {
			json_set_num(a, "job_log_bytes", (double)fsz);
			jr_anchor_rebuild(jr);	/* the copy's end is the file's end */
		}
	}
}

int
jobrun_attach(struct jobrun *jr, const struct wk_stage *st, long n, cJSON *hist, cJSON *a)
{
	jr_bind(jr, st, n, hist, a);
	if (jr_id(jr) != NULL) {
		log_info("stage %s attempt %ld: re-attaching to job %s (%s)", st->name, n, jr_id(jr),
		    jr->name);
		return 1;
	}
	if (cJSON_GetObjectItem(a, "job_submit") != NULL) {
		log_warn("stage %s attempt %ld: a submit of job %s was in flight when the last onbox "
		    "stopped: looking for it by name before any new submit", st->name, n, jr->name);
		return 1;
	}
	return 0;
}

int
jobrun_launch(struct jobrun *jr, const struct wk_stage *st, long n, cJSON *hist, cJSON *a,
    const char *command, char **why)
{
	char *label;
	int rc;

	*why = NULL;
	jr_bind(jr, st, n, hist, a);
	json_set_str(a, HIST_KEY_COMMAND, command);
	if (st->adopt != NULL && !jr_earlier(jr, st->adopt)) {
		/* A job started outside watchkeeper: followed, never submitted. */
		label = xstrfmt("chain[%zu].adopt names it: a job started outside watchkeeper",
		    (size_t)(st - jr->cfg->chain));
		json_set_str(a, "job_adopt", st->adopt);
		jr_adopt(jr, st->adopt, JOB_UNKNOWN, label);
		free(label);
		jr_record(jr);
		return 0;
	}
	if (st->adopt != NULL && st->resubmit != NULL) {
		jr->resubmit = 1;
		cJSON_DeleteItemFromObject(a, "job_resubmit");
		cJSON_AddTrueToObject(a, "job_resubmit");
	} else if (st->adopt != NULL && st->run == NULL) {
		*why = xstrfmt("stage %s follows job %s (chain[].adopt), which is over, and has no "
		    "resubmit command or run to recover it: the owner decides", st->name, st->adopt);
		return WK_ERR_INVALID;
	}
	jr->launching = 1;
	rc = jr_acquire(jr);
	jr->launching = 0;
	if (rc < 0) {
		*why = jr->why;
		jr->why = NULL;
		return WK_ERR_EXEC;
	}
	jr_record(jr);
	return 0;
}

void
jobrun_detach(struct jobrun *jr)
{
	if (jr == NULL)
		return;
	free(jr->name);
	free(jr->why);
	jr->name = jr->why = NULL;
	jr->st = NULL;
	jr->hist = jr->a = NULL;
	jr->n = 0;
	deadline_clear(&jr->next);
	deadline_clear(&jr->next_log);
	deadline_clear(&jr->backoff);
	jr->refused = jr->launching = jr->stop_wanted = jr->find_said = jr->shrink_said = 0;
	jr->resubmit = 0;
	jr->unknown_since = 0;
	jr->unknown_loud = 0;
	jr->end = JR_LIVE;
	jr->final = JOB_UNKNOWN;
}

void
jobrun_outcome(const struct jobrun *jr, struct triage_input *in, const char **exec_error)
{
	/* The final state as the exit status a process would have had. */
	static const struct {
		enum job_state	 st;
		int		 exited, exit_code, signo;
	} tab[] = {
		{ JOB_SUCCEEDED, 1, 0, 0 },
		{ JOB_FAILED, 1, 1, 0 },
		{ JOB_STOPPED, 0, -1, SIGTERM },	/* stopped from outside: preempted */
	};
	size_t i;

	in->exited = 0;
	in->exit_code = -1;
	in->signo = 0;
	if (jr->end == JR_SUBMIT_FAILED) {
		*exec_error = jr->why;
		return;
	}
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].st == jr->final) {
			in->exited = tab[i].exited;
			in->exit_code = tab[i].exit_code;
			in->signo = tab[i].signo;
		}
}

const char *
jobrun_failed_state(const struct jobrun *jr)
{
	if (jr == NULL || jr->a == NULL || jr->end != JR_FINAL || jr->final != JOB_FAILED)
		return NULL;
	return json_str(jr->a, "job_raw_state", "failed");
}

void
jobrun_event(const struct jobrun *jr, cJSON *ev)
{
	if (jr == NULL || jr->a == NULL)
		return;
	cJSON_AddStringToObject(ev, "job_name", jr->name);
	if (jr_id(jr) != NULL)
		cJSON_AddStringToObject(ev, POLICY_KEY_JOB_ID, jr_id(jr));
}

void
jobrun_heartbeat(const struct jobrun *jr, cJSON *doc)
{
	const char *state;
	cJSON *o;

	if (jr == NULL || jr->a == NULL)
		return;
	o = cJSON_AddObjectToObject(doc, "job");
	cJSON_AddStringToObject(o, "name", jr->name);
	if (jr_id(jr) != NULL)
		cJSON_AddStringToObject(o, "id", jr_id(jr));
	state = jr_id(jr) == NULL ? "submitting" : jr->unknown_since != 0 ? "unknown" :
	    json_str(jr->a, "job_state", "unknown");
	cJSON_AddStringToObject(o, "state", state);
	if (json_str(jr->a, "job_raw_state", NULL) != NULL)
		cJSON_AddStringToObject(o, "raw_state", json_str(jr->a, "job_raw_state", ""));
	if (strcmp(state, "pending") == 0)
		cJSON_AddStringToObject(o, "waiting", "pending for capacity");
	if (jr_pending_s(jr) >= 0)
		cJSON_AddNumberToObject(o, "pending_s", (double)jr_pending_s(jr));
	if (cJSON_GetObjectItem(jr->a, "job_cluster_signal") != NULL)
		cJSON_AddItemToObject(o, "cluster_signal",
		    cJSON_Duplicate(cJSON_GetObjectItem(jr->a, "job_cluster_signal"), 1));
	if (jr->jc.dialect != NULL)
		cJSON_AddStringToObject(o, "dialect", json_str(jr->jc.dialect, "name", ""));
	if (jr->unknown_since != 0)
		cJSON_AddNumberToObject(o, "unknown_s", difftime(time(NULL), jr->unknown_since));
}

/* ---- life ---- */

struct jobrun *
jobrun_new(const struct wk_config *cfg, const char *instance, const struct notify_sinks *sinks,
    jobrun_emit_fn emit, void *arg)
{
	struct diag d = DIAG_INIT;
	struct jobrun *jr;
	const char *env = getenv("WATCHKEEPER_JOB_UNKNOWN_S");

	if (jobctl_check(cfg, &d) != 0) {
		diag_print(&d, stderr);
		diag_free(&d);
		return NULL;
	}
	diag_free(&d);
	jr = xcalloc(1, sizeof(*jr));
	jr->cfg = cfg;
	jr->instance = instance;
	jr->sinks = sinks;
	jr->emit = emit;
	jr->arg = arg;
	jobctl_init(&jr->jc, cfg);
	jr->has_find = config_get_str(cfg, "job.find") != NULL;
	jr->pending_alert_s = config_get_int(cfg, "job.pending_alert_s");
	jr->logs_poll_ms = config_get_int(cfg, "job.logs_poll_ms");
	jr_signals_init(jr);
	jr->unknown_loud_s = env != NULL && atol(env) > 0 ? atol(env) : JOBRUN_UNKNOWN_LOUD_S;
	jr->end = JR_LIVE;
	return jr;
}

void
jobrun_free(struct jobrun *jr)
{
	if (jr == NULL)
		return;
	jobrun_detach(jr);
	jr_signals_free(jr);
	free(jr);
}
