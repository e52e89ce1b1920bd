/*
 * tick.c: one patrol tick.
 *
 *   lock -> one connection -> one probe -> the decision table -> (an action,
 *   only when the table and the policy say so, after re-probing on the same
 *   connection) -> one report line (stdout, report.log; --json: one object)
 *   -> webhooks when the verdict changed -> state saved.
 *
 * patrol_tick_run is that tick for a caller that prints nothing (patrol
 * mcp) and its modes: an explicit resume (the same resume, policy and
 * records), `patrol stop` between two looks, and the looks alone that say
 * what those would do, locking and writing nothing.  patrol_tick is the CLI:
 * the tick, printed.
 *
 * Unreachable is not dead: nothing is ever done about a box that was not
 * seen.  A resume is idempotent: the box is probed again right before it,
 * the local lock keeps a second patrol out, and `onbox start` itself refuses
 * when a run is alive.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "caveats.h"
#include "ckpt.h"
#include "ckptjson.h"
#include "config.h"
#include "crontab.h"
#include "decide.h"
#include "diag.h"
#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "handbook.h"
#include "history.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "logbook.h"
#include "md.h"
#include "monotime.h"
#include "notify.h"
#include "outbox.h"
#include "patrol.h"
#include "policy.h"
#include "probe.h"
#include "remote.h"
#include "scheduler.h"
#include "slurm.h"
#include "spawn.h"
#include "ssh.h"
#include "sshq.h"
#include "target.h"
#include "triage.h"
#include "xmalloc.h"

#include "tick-int.h"
#include "top.h"

/* Run the probe on the open connection and parse it (tick-int.h). */
int
tick_probe(struct tick *t)
{
	struct ssh_result res;
	char *script = probe_script_at(t->cfg, (long long)json_num(t->st.doc, "events_offset", -1));
	char *line = ssh_script_command(script);
	int r = -1;

	if (t->have_probe) {
		probe_free(&t->probe);
		t->have_probe = 0;
		/* The last verdict's pointers into that probe go with it. */
		t->out.job = NULL;
		t->out.where = NULL;
	}
	free(t->probe_why);
	t->probe_why = NULL;
	memset(&res, 0, sizeof(res));
	/* On the command line when it fits (ssh.h: a round trip less than stdin). */
	if ((line != NULL ? ssh_exec(t->conn, line, NULL, 0, PROBE_MAX_OUT, &res, &t->err) :
	    ssh_exec(t->conn, "sh -s", script, strlen(script), PROBE_MAX_OUT, &res, &t->err)) != 0)
		goto out;
	if (res.truncated) {
		t->probe_why = xstrdup("the probe's output exceeded its bound");
		goto out;
	}
	/* What the box said, kept as it came (the handbook and people read it). */
	if (!t->look) {
		char *lp = fs_join(t->st.dir, "last_probe.txt");

		if (atomic_write(lp, res.out, res.out_len, 0600) != 0)
			log_warn("cannot write %s: %s", lp, wk_strerror(WK_ERR_SYSTEM));
		free(lp);
	}
	if (probe_parse(t->cfg, res.out, res.out_len, &t->probe, &t->probe_why) != 0)
		goto out;
	t->have_probe = 1;
	r = 0;
 out:
	ssh_result_free(&res);
	free(line);
	free(script);
	return r;
}

/* The transfer source on this machine: regular files and their bytes. */
static long tr_files;
static long long tr_bytes;

static int
tick_count(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F && S_ISREG(sb->st_mode)) {
		tr_files++;
		tr_bytes += (long long)sb->st_size;
	}
	return 0;
}

static void
tick_local_transfer(const struct wk_config *cfg, long *files, long long *bytes)
{
	const char *local = config_get_str(cfg, "transfer.local");

	*files = -1;
	*bytes = -1;
	if (local == NULL || config_get_str(cfg, "transfer.remote") == NULL)
		return;
	tr_files = 0;
	tr_bytes = 0;
	if (nftw(local, tick_count, 16, FTW_PHYS) == 0) {
		*files = tr_files;
		*bytes = tr_bytes;
	}
}

void
tick_decide(struct tick *t)
{
	struct decide_in in;
	const cJSON *d = t->st.doc;

	memset(&in, 0, sizeof(in));
	in.cfg = t->cfg;
	in.seen = t->have_probe;
	in.p = t->have_probe ? &t->probe : NULL;
	if (!t->have_probe) {
		in.fail = t->probe_why != NULL ? SSH_OK : t->err.kind;
		in.fail_msg = t->probe_why != NULL ? t->probe_why : t->err.msg;
	}
	in.prev_progress = json_long(d, "progress", -1);
	in.still_ticks = (int)json_long(d, "still_ticks", 0);
	tick_local_transfer(t->cfg, &in.local_files, &in.local_bytes);
	decide(&in, &t->out);
}

/*
 * Slurm: each stage's job as last seen, in patrol.json's "slurm" object
 * ({stage: {job_id, state, reason, jobs: [ids, oldest first]}}).  Job ids
 * change on resubmission; the name finds the stage's job again, and a new id
 * is said in the report and the logbook, so a resubmission made while
 * patrol was away is known for what it is (and never "restarted" again: the
 * table sees its job live).
 */
static void
tick_reconcile_slurm(struct tick *t)
{
	cJSON *all = cJSON_GetObjectItem(t->st.doc, "slurm"), *rec, *ids, *it;
	const struct slurm_view *sv = &t->probe.slurm_view;
	size_t i;

	if (!t->have_probe || !t->probe.has_slurm_view || !sv->queue_known)
		return;
	if (!cJSON_IsObject(all)) {
		cJSON_DeleteItemFromObject(t->st.doc, "slurm");
		all = cJSON_AddObjectToObject(t->st.doc, "slurm");
	}
	for (i = 0; i < t->cfg->nchain; i++) {
		const char *stage = t->cfg->chain[i].name;
		const struct slurm_job *j = slurm_stage_job(sv, stage);
		const char *was;
		int known = 0;

		if (j == NULL)
			continue;
		if (!cJSON_IsObject(rec = cJSON_GetObjectItem(all, stage))) {
			cJSON_DeleteItemFromObject(all, stage);
			rec = cJSON_AddObjectToObject(all, stage);
		}
		was = json_str(rec, "job_id", NULL);
		if (was != NULL && strcmp(was, j->id) != 0) {
			char *text = xstrfmt("%s is job %s now (%s%s%s), was job %s", stage, j->id, j->state,
			    j->cls == SLURM_WAITING ? ": " : "",
			    j->cls == SLURM_WAITING ? slurm_reason_text(j->reason) : "", was);
			size_t n = strlen(t->out.details);

			snprintf(t->out.details + n, sizeof(t->out.details) - n, " · %s", text);
			if (logbook_append(t->st.dir, t->cfg->run, time(NULL), "slurm job", text, NULL) != 0)
				log_warn("cannot write the logbook in %s: %s", t->st.dir, wk_strerror(WK_ERR_SYSTEM));
			free(text);
		}
		json_set_str(rec, "job_id", j->id);
		json_set_str(rec, "state", j->state);
		json_set_str(rec, "reason", j->reason);
		if (j->exit_code >= 0)
			json_set_num(rec, "exit_code", (double)j->exit_code);
		if (j->restarts >= 0)
			json_set_num(rec, "restarts", (double)j->restarts);
		if (!cJSON_IsArray(ids = cJSON_GetObjectItem(rec, "jobs"))) {
			cJSON_DeleteItemFromObject(rec, "jobs");
			ids = cJSON_AddArrayToObject(rec, "jobs");
		}
		cJSON_ArrayForEach(it, ids)
			known |= cJSON_IsString(it) && strcmp(it->valuestring, j->id) == 0;
		if (!known)
			cJSON_AddItemToArray(ids, cJSON_CreateString(j->id));
		while (cJSON_GetArraySize(ids) > 32)
			cJSON_DeleteItemFromArray(ids, 0);
	}
}

static int
tick_push(struct tick *t, struct notify_sinks *sinks, cJSON *ev)
{
	struct outbox_opts o;
	struct outbox_result res;
	char *dir = fs_join(t->st.dir, "outbox");
	int fd, r = 0;

	outbox_opts_from_config(t->cfg, &o);
	if (outbox_enqueue(dir, sinks, ev, &o) < 0) {
		log_warn("cannot queue the notification in %s: %s", dir, wk_strerror(WK_ERR_SYSTEM));
		r = -1;
	}
	if ((fd = outbox_lock(dir, 0)) >= 0) {
		outbox_flush(dir, sinks, &o, 0, 0, &res);
		close(fd);
	}
	free(dir);
	return r;
}

/*
 * patrol's event for this tick: its id carries the tick's time, so each
 * change or digest is its own event and a re-sent one keeps its id.
 */
static cJSON *
tick_event(const struct tick *t, const char *type)
{
	char instance[17], *id;
	cJSON *ev;

	snprintf(instance, sizeof(instance), "%.16s", json_str(t->st.doc, "instance", "0000000000000000"));
	ev = events_new(instance, t->cfg->run, type, NULL, 0);
	id = xstrfmt("%s.%s", json_str(ev, "id", ""), json_str(ev, "time", ""));
	json_set_str(ev, "id", id);
	free(id);
	cJSON_AddStringToObject(ev, "verdict", verdict_name(t->out.v));
	cJSON_AddStringToObject(ev, "details", t->out.details);
	return ev;
}

/* A digest every patrol.digest_s: the report line, whatever the verdict. */
static void
tick_digest(struct tick *t, struct notify_sinks *sinks, const char *line)
{
	long every = config_get_int(t->cfg, "patrol.digest_s");
	time_t now = time(NULL), last = (time_t)json_num(t->st.doc, "last_digest", 0);
	cJSON *ev;

	if (every <= 0 || now - last < every)
		return;
	ev = tick_event(t, "digest");
	cJSON_AddStringToObject(ev, "message", line);
	if (tick_push(t, sinks, ev) == 0)
		json_set_num(t->st.doc, "last_digest", (double)now);
	cJSON_Delete(ev);
}

/* 1 while patrol's own outbox holds an event not yet delivered. */
static int
tick_undelivered(struct tick *t)
{
	char *dir = fs_join(t->st.dir, "outbox");
	int pending = t->sinks.n > 0 && outbox_next_due_ms(dir, &t->sinks) != 0;

	free(dir);
	return pending;
}

static void
tick_finish(struct tick *t)
{
	const char *what;

	/*
	 * The cron entry is what retries patrol's webhooks: it stays until the
	 * DONE news is queued (this tick) and delivered (a later one).
	 */
	if (t->sinks.n > 0 && (strcmp(json_str(t->st.doc, "notified", ""), "DONE") != 0 ||
	    tick_undelivered(t))) {
		if ((what = sched_entry_name(sched_installed(t->cfg))) != NULL)
			snprintf(t->action, sizeof(t->action), "run done: its %s stays until "
			    "the DONE notification is delivered", what);
		return;
	}
	/* Said only when an entry was there to remove: a DONE tick repeats. */
	if ((what = sched_entry_name(sched_installed(t->cfg))) != NULL &&
	    schedule_uninstall(t->cfg, 1, -1) == 0)
		snprintf(t->action, sizeof(t->action), "run done: its %s is removed", what);
}

/*
 * Deliver what an earlier tick could not: without this a webhook that
 * failed when it was pushed would wait for the next verdict change.
 */
static void
tick_flush(struct tick *t)
{
	struct outbox_opts o;
	struct outbox_result res;
	char *dir;
	int fd;

	if (!tick_undelivered(t))
		return;
	dir = fs_join(t->st.dir, "outbox");
	outbox_opts_from_config(t->cfg, &o);
	if ((fd = outbox_lock(dir, 0)) >= 0) {
		outbox_flush(dir, &t->sinks, &o, 0, 0, &res);
		close(fd);
	}
	free(dir);
}

/*
 * The box's live cards as its heartbeat lists them (card.h): kept in
 * patrol.json, so a verdict only patrol can see (a crash, a box that is
 * down) edits the same message (card_follow) even when the box is gone.
 */
static void
tick_remember_cards(struct tick *t)
{
	const cJSON *it;
	cJSON *cards = cJSON_CreateObject();

	cJSON_ArrayForEach(it, cJSON_GetObjectItem(t->probe.state, "notify"))
		if (cJSON_IsObject(cJSON_GetObjectItem(it, "card")) && json_str(it, "sink", NULL) != NULL)
			cJSON_AddItemToObject(cards, json_str(it, "sink", ""),
			    cJSON_Duplicate(cJSON_GetObjectItem(it, "card"), 1));
	if (cards->child != NULL)
		json_set(t->st.doc, "cards", cards);	/* transferred */
	else
		cJSON_Delete(cards);
}

/* Verdict changes (and DONE's results) go to the webhooks through the durable outbox. */
static void
tick_notify(struct tick *t, const char *line)
{
	const char *prev = json_str(t->st.doc, "notified", NULL);
	cJSON *ev;

	if (t->sinks.n == 0)
		return;
	if (t->have_probe)
		tick_remember_cards(t);
	tick_digest(t, &t->sinks, line);
	tick_flush(t);
	/*
	 * A network blip is not news: the report says SSH_DOWN at once (it is
	 * true), the webhooks only when the next tick cannot see the box either.
	 */
	if ((prev != NULL && strcmp(prev, verdict_name(t->out.v)) == 0) ||
	    (t->out.v == V_SSH_DOWN && json_num(t->st.doc, "unseen_ticks", 0) < 1))
		return;
	ev = tick_event(t, "verdict_changed");
	if (prev != NULL)
		cJSON_AddStringToObject(ev, "previous", prev);
	cJSON_AddStringToObject(ev, "report", line);
	if (t->out.v == V_DONE && t->have_probe && t->probe.results != NULL)
		cJSON_AddStringToObject(ev, "results", t->probe.results);
	if (t->out.v == V_DONE && t->have_probe)
		caveats_event(ev, t->probe.caveats);
	if (cJSON_IsObject(cJSON_GetObjectItem(t->st.doc, "cards"))) {
		cJSON *cards = cJSON_Duplicate(cJSON_GetObjectItem(t->st.doc, "cards"), 1), *c;

		/* the card as the heartbeat last listed it, with the progress this look saw */
		cJSON_ArrayForEach(c, cards) {
			if (t->out.progress >= 0)
				json_set_num(c, "cur", (double)t->out.progress);
			if (t->out.progress_max > 0)
				json_set_num(c, "max", (double)t->out.progress_max);
		}
		cJSON_AddItemToObject(ev, "cards", cards);
	}
	if (tick_push(t, &t->sinks, ev) == 0)
		json_set_str(t->st.doc, "notified", verdict_name(t->out.v));
	cJSON_Delete(ev);
}


/*
 * What the box showed, for the handbook: markers present, FAILED markers,
 * the current stage and attempt (see handbook.h for the keys).
 */
static void
tick_remember_box(struct tick *t, const char *when)
{
	cJSON *d = t->st.doc, *m, *f, *att;
	const struct probe *p = &t->probe;
	size_t i;

	if (!t->have_probe)
		return;
	m = cJSON_CreateArray();
	f = cJSON_CreateObject();
	json_set_str(d, "seen_at", when);
	for (i = 0; i < p->nmarkers; i++)
		cJSON_AddItemToArray(m, cJSON_CreateString(p->markers[i]));
	json_set(d, "markers", m);
	for (i = 0; i < p->nfailed; i++) {
		cJSON *e = cJSON_AddObjectToObject(f, p->failed[i].marker);
		const cJSON *lines = cJSON_GetObjectItem(p->failed[i].doc, "last_lines");
		int n = cJSON_GetArraySize(lines);

		cJSON_AddStringToObject(e, "class", json_str(p->failed[i].doc, "class", "unknown"));
		cJSON_AddNumberToObject(e, "attempt", (double)json_long(p->failed[i].doc, "attempt", 0));
		if (cJSON_IsObject(cJSON_GetObjectItem(p->failed[i].doc, "where")))
			cJSON_AddItemToObject(e, "where",
			    cJSON_Duplicate(cJSON_GetObjectItem(p->failed[i].doc, "where"), 1));
		if (n > 0 && cJSON_IsString(cJSON_GetArrayItem(lines, n - 1))) {
			char *l = notify_scrub(&t->sinks, cJSON_GetArrayItem(lines, n - 1)->valuestring);

			cJSON_AddStringToObject(e, "last_line", l);
			free(l);
		}
	}
	json_set(d, "failed", f);
	/* the DONE's caveats (caveats.h), for the handbook's status */
	if (caveats_text(p->caveats) != NULL && t->out.v == V_DONE)
		json_set_str(d, "caveats_text", caveats_text(p->caveats));
	else
		cJSON_DeleteItemFromObjectCaseSensitive(d, "caveats_text");
	if (t->out.progress_max >= 0)
		json_set_num(d, "progress_max", (double)t->out.progress_max);
	/* For the fleet's table: the heartbeat's age when looked at, and the last event. */
	{
		time_t hb;

		if (timefmt_parse(json_str(p->state, "time", ""), &hb) == 0 && p->box_time >= hb)
			json_set_num(d, "heartbeat_age_s", (double)(p->box_time - hb));
		else
			cJSON_DeleteItemFromObjectCaseSensitive(d, "heartbeat_age_s");
		if (cJSON_IsObject(cJSON_GetObjectItem(p->state, "last_event")))
			json_set(d, "last_event", cJSON_Duplicate(cJSON_GetObjectItem(p->state,
			    "last_event"), 1));
	}
	{
		const cJSON *hv = cJSON_GetObjectItem(p->state, "health");
		const char *wb = json_str(cJSON_GetObjectItem(hv, "wandb"), "url", NULL);
		const cJSON *pr = cJSON_GetObjectItem(hv, "progress");

		if (wb != NULL)
			json_set_str(d, "wandb", wb);
		if (json_num(pr, "eta_s", -1) >= 0)
			json_set_num(d, "eta_s", json_num(pr, "eta_s", 0));
		/* patrol top's sparkline: the box keeps no loss history we can read (top-loss.c) */
		top_loss_remember(d, hv);
	}
	if (p->ckpt_scan != NULL) {
		struct ckpt_summary sum;
		cJSON *ck = cJSON_CreateObject();

		ckpt_summarize(p->ckpt_scan, p->box_time, &sum);
		ckptjson_summary(ck, &sum);
		json_set(d, "checkpoint", ck);
	}
	if (json_str(p->state, "stage", NULL) != NULL) {
		const char *stage = json_str(p->state, "stage", NULL);
		long a = json_long(p->state, "attempt", 0);

		json_set_str(d, "stage", stage);
		json_set_num(d, "attempt", (double)a);
		if (!cJSON_IsObject(att = cJSON_GetObjectItem(d, "attempts")))
			att = cJSON_AddObjectToObject(d, "attempts");
		if (json_long(att, stage, 0) < a)
			json_set_num(att, stage, (double)a);
	}
}

/* Carry what the next tick needs. */
static void
tick_remember(struct tick *t, const char *when)
{
	cJSON *d = t->st.doc;

	json_set_str(d, "last_tick", when);
	if (t->cfg_abs != NULL)
		json_set_str(d, "config", t->cfg_abs);	/* patrol mcp finds the run by it */
	json_set_num(d, "ticks", json_num(d, "ticks", 0) + 1);
	if (t->out.v == V_SSH_DOWN || t->out.v == V_HOSTKEY_MISMATCH) {
		/* An unseen box says nothing about progress: keep what we knew. */
		json_set_num(d, "unseen_ticks", json_num(d, "unseen_ticks", 0) + 1);
	} else {
		json_set_num(d, "unseen_ticks", 0);
		tick_remember_box(t, when);
		if (t->out.progress >= 0) {
			cJSON *h = cJSON_GetObjectItem(d, "history"), *e;

			json_set_num(d, "still_ticks", t->out.no_progress ? json_num(d, "still_ticks", 0) + 1 : 0);
			json_set_num(d, "progress", (double)t->out.progress);
			/* The last day of ticks at the default schedule: enough for a rate and an ETA. */
			if (!cJSON_IsArray(h))
				h = cJSON_AddArrayToObject(d, "history");
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "time", when);
			cJSON_AddNumberToObject(e, "progress", (double)t->out.progress);
			cJSON_AddItemToArray(h, e);
			while (cJSON_GetArraySize(h) > PROGRESS_HISTORY)
				cJSON_DeleteItemFromArray(h, 0);
		}
	}
	json_set_str(d, "verdict", verdict_name(t->out.v));
	json_set_str(d, "details", t->out.details);
}

/* The tick's object: what --json prints and the MCP tools return. */
static cJSON *
tick_object(struct tick *t, const char *when, const char *line)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "time", when);
	cJSON_AddStringToObject(o, "run", t->cfg->run);
	cJSON_AddStringToObject(o, "verdict", verdict_name(t->out.v));
	cJSON_AddStringToObject(o, "details", t->out.details);
	cJSON_AddNumberToObject(o, "exit", verdict_exit(t->out.v));
	cJSON_AddBoolToObject(o, "seen", t->have_probe);
	if (t->out.progress >= 0)
		cJSON_AddNumberToObject(o, "progress", (double)t->out.progress);
	if (t->out.progress_max >= 0)
		cJSON_AddNumberToObject(o, "progress_max", (double)t->out.progress_max);
	if (t->out.stage != NULL)
		cJSON_AddStringToObject(o, "stage", t->out.stage);
	if (t->out.v == V_CRASHED)
		cJSON_AddStringToObject(o, "class", triage_info(t->out.cls)->name);
	if (t->out.v == V_CRASHED && t->out.where != NULL)
		cJSON_AddItemToObject(o, "where", cJSON_Duplicate(t->out.where, 1));
	if (t->action[0] != '\0')
		cJSON_AddStringToObject(o, "action", t->action);
	if (t->have_probe && t->probe.results != NULL)
		cJSON_AddStringToObject(o, "results", t->probe.results);
	if (t->out.v == V_DONE && t->have_probe)
		caveats_event(o, t->probe.caveats);	/* what went wrong on the way */
	cJSON_AddStringToObject(o, "line", line);
	return o;
}

/* What each mode's act is called, done and to be done (enum tick_did's ACTED). */
static const struct {
	const char	*done, *would;
} tick_words[] = {
	[TICK_TABLE] = { NULL, NULL },
	[TICK_RESUME] = { "resumed", "resume" },
	[TICK_LOOK_RESUME] = { "resumed", "resume" },
	[TICK_STOP] = { "stopped", "stop" },
	[TICK_LOOK_STOP] = { "stopped", "stop" },
	[TICK_LOOK] = { NULL, NULL },
};

/*
 * An act's object (every mode but TICK_TABLE): the tick's, and what came of
 * the act: confirm (it acted, not only looked), did (nothing, refused,
 * resumed/stopped; always nothing for a look), would (a look: what acting
 * would do), why (one line), said (TICK_STOP: onbox stop's words).
 */
static void
tick_object_act(struct tick *t, cJSON *o, const char *why)
{
	static const char *const did[] = { "nothing", "refused", NULL };
	const char *w = t->did == TICK_DID_ACTED ? NULL : did[t->did];

	cJSON_AddBoolToObject(o, "confirm", !t->dry);
	cJSON_AddStringToObject(o, "did", t->dry ? "nothing" : w != NULL ? w : tick_words[t->mode].done);
	if (t->dry)
		cJSON_AddStringToObject(o, "would", w != NULL ? w : tick_words[t->mode].would);
	cJSON_AddStringToObject(o, "why", why);
	if (t->said != NULL)
		cJSON_AddStringToObject(o, "said", t->said);
}

/*
 * The CLI's output: the line (and a DONE's results), or with --json the
 * object; an act's why on a line of its own.
 */
static void
tick_print(struct tick *t, const char *line, const cJSON *o, int json, const char *why)
{
	char *s;

	if (!json) {
		printf("%s\n", line);
		if (t->mode != TICK_TABLE)
			printf("%s%s\n", t->dry ? "nothing done (a dry run): " : "", why);
		if (t->out.v == V_DONE && t->have_probe && t->probe.results != NULL)
			printf("%.*s%s", RESULTS_PRINT, t->probe.results,
			    t->probe.results[strlen(t->probe.results) - 1] == '\n' ? "" : "\n");
		return;
	}
	s = cJSON_PrintUnformatted(o);
	printf("%s\n", s);
	free(s);
}

/* HANDBOOK.md, regenerated from this tick's state. */
static void
tick_handbook(struct tick *t)
{
	struct handbook_ctx c;
	char *self = fs_self_dir(), *path = fs_join(t->st.dir, HANDBOOK_FILE), *tr = NULL;

	c = (struct handbook_ctx){ .cfg = t->cfg, .config_path = t->cfg_abs, .bindir = self,
	    .statedir = t->st.dir, .pstate = t->st.doc, .cron = sched_is_installed(t->cfg) };
	if (t->target.alias != NULL)
		c.transport = tr = target_transport_text(&t->target);
	if (handbook_write(&c, path) != 0)
		log_warn("cannot write %s: %s", path, wk_strerror(WK_ERR_SYSTEM));
	free(tr);
	free(self);
	free(path);
}

/* The local state: locked for a tick, read as it is for a look (nothing created). */
static int
tick_state(struct tick *t)
{
	int r;

	if (!t->look) {
		if ((r = pstate_open(t->cfg, &t->st)) == 0)
			return 0;
		if (r == WK_ERR_BUSY)
			log_error("another patrol is ticking for run %s right now; not running twice",
			    t->cfg->run);
		else
			log_error("cannot open the local state of run %s: %s", t->cfg->run,
			    wk_strerror(WK_ERR_SYSTEM));
		return r == WK_ERR_BUSY ? WK_EX_TEMPFAIL : WK_EX_IOERR;
	}
	t->st.lockfd = -1;
	t->st.dir = statedir_path(t->cfg, 0);
	if (t->st.dir != NULL)
		t->st.doc = pstate_load(t->st.dir);
	if (t->st.doc == NULL) {
		t->st.doc = cJSON_CreateObject();
		json_set_str(t->st.doc, "run", t->cfg->run);
	}
	return 0;
}

/* The mode's act, only on what was seen. */
static void
tick_act(struct tick *t)
{
	if (!t->have_probe) {
		snprintf(t->why, sizeof(t->why), "the box could not be seen (%.1000s): nothing is "
		    "done about a box that was not seen", t->out.details);
		return;
	}
	switch (t->mode) {
	case TICK_TABLE:
		/* Act only as the table and the policy allow. */
		if (t->out.action == ACT_RESUME)
			tick_resume(t);
		else if (t->out.action == ACT_RESUME_TRANSFER)
			tick_resume_transfer(t);
		else if (t->out.action == ACT_FINISH)
			tick_finish(t);
		break;
	case TICK_RESUME:
	case TICK_LOOK_RESUME:
		tick_resume(t);
		break;
	case TICK_STOP:
	case TICK_LOOK_STOP:
		tick_stop(t);
		break;
	case TICK_LOOK:
		break;		/* patrol top's refresh only looks */
	}
}

/* The tick; print: -1 nothing, 0 the line, 1 the object (the CLI's, at the moment it always printed). */
static int
tick_run(struct wk_config *cfg, enum tick_mode mode, int print, struct tick_result *res)
{
	struct tick t;
	struct diag d = DIAG_INIT;
	struct buf wb = BUF_INIT;
	char when[TIMEFMT_LEN], *line = NULL;
	int budget_s;

	memset(&t, 0, sizeof(t));
	memset(res, 0, sizeof(*res));
	t.cfg = cfg;
	t.mode = mode;
	t.look = mode != TICK_TABLE && mode != TICK_RESUME;
	t.dry = mode == TICK_LOOK_RESUME || mode == TICK_LOOK_STOP || mode == TICK_LOOK;
	t.cfg_abs = fs_abspath(cfg->path);
	notify_sinks_load(cfg, &t.sinks);
	if ((res->rc = tick_state(&t)) != 0)
		goto out;
	if (target_from_config(cfg, &t.target, &t.err, &d) == 0) {
		if (!t.look)
			pstate_transport(&t.st, cfg, &t.target);
		budget_s = t.target.connect_timeout_s + TICK_BUDGET_S;
		if (mode == TICK_STOP)
			budget_s += (int)cfg->stop_grace_s + PATROL_STOP_BUDGET_S;
		t.target.warm = 1;	/* a held connection when this process family keeps them */
		if (ssh_connect(&t.target, budget_s * 1000, &t.conn, &t.err) == 0)
			(void)tick_probe(&t);
	}
	diag_print(&d, stderr);
	tick_decide(&t);
	if (!t.look)
		tick_reconcile_slurm(&t);
	tick_act(&t);
	if (t.conn != NULL)
		ssh_close(t.conn);
	t.conn = NULL;

	timefmt_utc(time(NULL), when, sizeof(when));
	{
		/* One line, whatever the details quote (a host name with a newline): flattened. */
		struct buf lb = BUF_INIT;

		buf_printf(&lb, "%s %s %s ", when, cfg->run, verdict_name(t.out.v));
		md_flat(&lb, t.out.details);
		if (t.action[0] != '\0') {
			buf_puts(&lb, " · ");
			md_flat(&lb, t.action);
		}
		line = buf_detach(&lb);
	}
	md_flat(&wb, t.why[0] != '\0' ? t.why : t.action);
	res->why = buf_detach(&wb);
	res->obj = tick_object(&t, when, line);
	if (mode != TICK_TABLE && mode != TICK_LOOK)
		tick_object_act(&t, res->obj, res->why);
	if (print >= 0) {
		tick_print(&t, line, res->obj, print, res->why);
		fflush(stdout);
	}
	if (!t.look) {
		pstate_report(&t.st, line);
		if (t.have_probe)
			journal_box(&t.st, cfg, &t.sinks, &t.probe);
		journal_tick(&t.st, cfg, &t.sinks, json_str(t.st.doc, "verdict", NULL),
		    verdict_name(t.out.v), line, t.action, t.have_probe ? t.probe.results : NULL);
		journal_push(&t.st, cfg);
		github_flush(&t.st, cfg, line);
		tick_notify(&t, line);
		tick_remember(&t, when);
		if (pstate_save(&t.st) != 0)
			log_warn("cannot save the patrol state in %s: %s", t.st.dir,
			    wk_strerror(WK_ERR_SYSTEM));
		tick_handbook(&t);
	} else if (mode == TICK_LOOK) {
		/*
		 * What a tick would have recorded, for patrol top's screen (top-look.c),
		 * which saves it apart: a look counts no tick (stall_ticks) and notifies
		 * no one, however often the screen refreshes.
		 */
		tick_remember(&t, when);
		res->state = t.st.doc;	/* transferred */
		t.st.doc = NULL;
	}
	res->rc = verdict_exit(t.out.v);
	res->verdict = (int)t.out.v;
	res->did = t.did;
	res->line = line;	/* transferred */
	res->said = t.said;	/* transferred */
	t.said = NULL;
 out:
	free(t.probe_why);
	if (t.have_probe)
		probe_free(&t.probe);
	target_free(&t.target);
	diag_free(&d);
	pstate_close(&t.st);
	notify_sinks_free(&t.sinks);
	free(t.cfg_abs);
	return res->rc;
}

int
patrol_tick_run(struct wk_config *cfg, enum tick_mode mode, struct tick_result *r)
{
	return tick_run(cfg, mode, -1, r);
}

void
tick_result_free(struct tick_result *r)
{
	cJSON_Delete(r->obj);
	cJSON_Delete(r->state);
	free(r->line);
	free(r->why);
	free(r->said);
	memset(r, 0, sizeof(*r));
}

int
patrol_resume(struct wk_config *cfg, int dry, int json)
{
	struct tick_result r;
	int rc = tick_run(cfg, dry ? TICK_LOOK_RESUME : TICK_RESUME, json, &r);

	tick_result_free(&r);
	return rc;
}

int
patrol_tick(struct wk_config *cfg, int json)
{
	struct tick_result r;
	int rc = tick_run(cfg, TICK_TABLE, json, &r);

	tick_result_free(&r);
	return rc;
}
