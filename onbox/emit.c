/*
 * emit.c: what the runner says: events, the heartbeat, health alerts.
 *
 * Owns: runner_emit() (an event into the outbox of every sink, then
 * events.jsonl, then stdout and onbox.log), the ring of events the outbox
 * could not take yet (runner_pend_*: held in memory, queued again at every
 * heartbeat and before exit, oldest first), the heartbeat (state.json,
 * written on every event and every heartbeat_s), and the alerts the health
 * checker raises (runner_health_alerts, with the loss.on_nan stop).  The
 * state it reads is r->note (sinks, outbox, ring) and what r->cur shows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "card.h"
#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "onbox.h"
#include "outbox.h"
#include "xmalloc.h"
#include "runner-int.h"

void
runner_progress_text(const struct runner *r, char *out, size_t len)
{
	long max = r->run.cfg->has_progress && r->run.cfg->progress.max > 0 ?
	    r->run.cfg->progress.max : r->cur.prog_max_log;

	if (!r->cur.prog_have)
		snprintf(out, len, "unknown");
	else if (max > 0)
		snprintf(out, len, "~%ld/%ld", r->cur.prog_cur, max);
	else
		snprintf(out, len, "~%ld/unknown", r->cur.prog_cur);
}

static const char *
runner_last_line(const struct runner *r)
{
	const char *l;
	size_t i;

	/* The program's own log first: that is where its progress goes. */
	for (i = r->cur.nsrc; i-- > 0;)
		if ((l = tailkeep_last(&r->cur.src[i].tail)) != NULL)
			return l;
	return NULL;
}

/*
 * The live cards' progress (card.h): a "progress" event, for card sinks
 * only (outbox_enqueue filters), when the progress or the loss moved and
 * the quickest card sink's card_every_s has passed.  Not an event of the
 * run's (events.jsonl never sees it) and droppable: a full queue loses
 * nothing a person needs.
 */
static void
runner_card_progress(struct runner *r, const struct health_view *v, time_t now)
{
	long every = 0;
	size_t i;
	cJSON *ev, *p;
	char *od;

	for (i = 0; i < r->note.sinks.n; i++)
		if (r->note.sinks.v[i].card && (every == 0 || r->note.sinks.v[i].card_every_s < every))
			every = r->note.sinks.v[i].card_every_s;
	if (every == 0 || r->cur.st == NULL || !v->have_progress || now - r->note.card_at < every ||
	    (v->cur == r->note.card_cur && (!v->have_loss || v->loss == r->note.card_loss)))
		return;
	ev = events_new(r->run.instance, r->run.cfg->run, CARD_EVENT, r->cur.st->name,
	    r->cur.attempt);
	od = xstrfmt("%s.%ld", json_str(ev, "id", ""), v->cur);
	json_set_str(ev, "id", od);
	free(od);
	p = cJSON_AddObjectToObject(ev, "progress");
	cJSON_AddStringToObject(p, "text", v->text);
	cJSON_AddNumberToObject(p, "cur", (double)v->cur);
	if (v->max > 0)
		cJSON_AddNumberToObject(p, "max", (double)v->max);
	if (v->eta_s >= 0) {
		/* eta_s counts from the progress line's time: from now, as the card reads it */
		long eta = v->eta_s - (long)(now - v->progress_time);

		cJSON_AddNumberToObject(ev, "eta_s", (double)(eta > 0 ? eta : 0));
	}
	if (v->have_loss && isfinite(v->loss))
		cJSON_AddNumberToObject(ev, "loss", v->loss);
	od = layout_path(r->run.cfg->workdir, "outbox");
	if (outbox_enqueue(od, &r->note.sinks, ev, &r->note.outbox) >= 0) {
		r->note.card_at = now;
		r->note.card_cur = v->cur;
		r->note.card_loss = v->have_loss ? v->loss : r->note.card_loss;
		deliver_kick(&r->note.dl);
	}
	free(od);
	cJSON_Delete(ev);
}

void
runner_heartbeat(struct runner *r)
{
	cJSON *doc = cJSON_CreateObject(), *prog, *markers;
	char when[TIMEFMT_LEN], ptext[64], *path;
	const char *last;
	time_t now = time(NULL);
	size_t i;

	(void)runner_pend_flush(r);
	timefmt_utc(now, when, sizeof(when));
	cJSON_AddStringToObject(doc, "run", r->run.cfg->run);
	cJSON_AddStringToObject(doc, "time", when);
	cJSON_AddNumberToObject(doc, "time_unix", (double)now);
	cJSON_AddNumberToObject(doc, "heartbeat_s", (double)r->run.cfg->heartbeat_s);
	cJSON_AddNumberToObject(doc, "onbox_pid", (double)getpid());
	cJSON_AddStringToObject(doc, "status", r->run.status);
	cJSON_AddNumberToObject(doc, "nstages", (double)r->run.cfg->nchain);
	if (r->cur.st != NULL) {
		cJSON_AddStringToObject(doc, "stage", r->cur.st->name);
		cJSON_AddNumberToObject(doc, "stage_index", (double)r->cur.idx);
		cJSON_AddNumberToObject(doc, "attempt", (double)r->cur.attempt);
		cJSON_AddNumberToObject(doc, "stage_pid", (double)r->cur.stage_pid);
		jobrun_heartbeat(r->run.job, doc);	/* job backend: its id and state */
	}
	runner_progress_text(r, ptext, sizeof(ptext));
	prog = cJSON_AddObjectToObject(doc, "progress");
	cJSON_AddStringToObject(prog, "text", ptext);
	if (r->cur.prog_have)
		cJSON_AddNumberToObject(prog, "cur", (double)r->cur.prog_cur);
	if (r->run.cfg->has_progress && r->run.cfg->progress.max > 0)
		cJSON_AddNumberToObject(prog, "max", (double)r->run.cfg->progress.max);
	else if (r->cur.prog_max_log > 0)
		cJSON_AddNumberToObject(prog, "max", (double)r->cur.prog_max_log);
	if ((last = runner_last_line(r)) != NULL)
		cJSON_AddStringToObject(doc, "last_line", last);
	if (r->note.last_event != NULL)
		cJSON_AddItemToObject(doc, "last_event", cJSON_Duplicate(r->note.last_event, 1));
	if (r->note.sinks.n > 0) {
		char *od = layout_path(r->run.cfg->workdir, "outbox");

		cJSON_AddItemToObject(doc, "notify", outbox_status(od, &r->note.sinks));
		free(od);
	}
	if (r->run.health != NULL) {
		struct health_view v;

		/* A tick judges throughput: once per heartbeat interval, however often we write. */
		if (now - r->run.htick >= r->run.cfg->heartbeat_s) {
			struct health_wandb_files wf;

			/* W&B's own files, when the config names a W&B run (a "wandb" section). */
			if (r->cur.started > 0 && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
			    r->run.cfg->root, "wandb")) &&
			    onbox_wandb_read(r->run.cfg, r->cur.started, &wf))
				health_wandb_files(r->run.health, &wf, now);
			health_tick(r->run.health, now);
			r->run.htick = now;
		}
		runner_health_alerts(r);
		health_view(r->run.health, &v);
		cJSON_AddItemToObject(doc, "health", health_view_json(&v));
		runner_card_progress(r, &v, now);
	}
	jobrun_degraded(r->run.job, doc);	/* capacity_wait */
	runner_scan_save(r);
	markers = cJSON_AddObjectToObject(doc, "markers");
	for (i = 0; i < r->run.cfg->nchain; i++) {
		char *m = layout_marker(r->run.cfg->workdir, r->run.cfg->chain[i].marker);

		cJSON_AddBoolToObject(markers, r->run.cfg->chain[i].marker, fs_exists(m));
		free(m);
	}
	path = layout_path(r->run.cfg->workdir, "state.json");
	if (jsonfile_save(path, doc) != 0)
		log_warn("cannot write %s: %s", path, wk_strerror(WK_ERR_SYSTEM));
	free(path);
	cJSON_Delete(doc);
	deadline_set(&r->run.hb, (uint64_t)r->run.cfg->heartbeat_s * 1000);
}

/*
 * Queue p's event in dir for each sink from p->sink on, one sink at a time,
 * so a retry never queues it twice for a sink that already has it.  0, or
 * -1 (errno set) with p->sink at the sink that failed.
 */
static int
runner_enqueue(struct runner *r, const char *dir, struct pending_ev *p)
{
	struct notify_sinks one;

	for (; p->sink < r->note.sinks.n; p->sink++) {
		one = r->note.sinks;
		one.v = &r->note.sinks.v[p->sink];
		one.n = 1;
		if (outbox_enqueue(dir, &one, p->ev, &r->note.outbox) < 0)
			return -1;
	}
	return 0;
}

/* The outbox cannot take an event: said once per streak of failures, not per retry. */
static void
runner_pend_error(struct runner *r, const char *dir)
{
	int e = errno;

	if (r->note.pend_failing)
		return;
	r->note.pend_failing = 1;
	log_error("cannot queue a notification in %s: %s; held in memory (up to %d) and queued "
	    "again at every heartbeat", dir, strerror(e), PEND_MAX);
}

/* Hold p (its event consumed) for a later runner_pend_flush; the oldest goes when full. */
static void
runner_pend_push(struct runner *r, struct pending_ev *p)
{
	struct pending_ev *old;

	if (r->note.npend == PEND_MAX) {
		old = &r->note.pend[r->note.pend_head];
		log_error("%d notifications wait for space in the outbox: dropping the oldest, "
		    "%s, never delivered", PEND_MAX, json_str(old->ev, "id", "?"));
		cJSON_Delete(old->ev);
		r->note.pend_head = (r->note.pend_head + 1) % PEND_MAX;
		r->note.npend--;
	}
	r->note.pend[(r->note.pend_head + r->note.npend) % PEND_MAX] = *p;	/* transferred */
	r->note.npend++;
	p->ev = NULL;
}

/*
 * Queue the held events, oldest first, stopping at the first that still
 * cannot be queued.  0 when none is left held, else -1.
 */
int
runner_pend_flush(struct runner *r)
{
	struct pending_ev *p;
	char *od;
	size_t queued = 0;
	int rc = 0;

	if (r->note.npend == 0)
		return 0;
	od = layout_path(r->run.cfg->workdir, "outbox");
	while (r->note.npend > 0) {
		p = &r->note.pend[r->note.pend_head];
		if (runner_enqueue(r, od, p) != 0) {
			runner_pend_error(r, od);
			rc = -1;
			break;
		}
		cJSON_Delete(p->ev);
		p->ev = NULL;
		r->note.pend_head = (r->note.pend_head + 1) % PEND_MAX;
		r->note.npend--;
		queued++;
	}
	if (queued > 0) {
		deliver_kick(&r->note.dl);
		if (rc == 0) {
			log_info("the outbox %s takes notifications again: queued %zu held in memory",
			    od, queued);
			r->note.pend_failing = 0;
		}
	}
	free(od);
	return rc;
}

/*
 * Before exit: queue the events held in memory; when the disk still cannot
 * take them, give up the outbox's reserve (made at start) and try again.
 * The stage has ended by then, so nothing else of the run's takes the space
 * first.
 */
void
runner_pend_last(struct runner *r)
{
	char *od;

	if (runner_pend_flush(r) == 0)
		return;
	od = layout_path(r->run.cfg->workdir, "outbox");
	if (outbox_reserve_release(od)) {
		log_warn("the disk is full: gave up the outbox's reserve (%d KiB) for the %zu "
		    "notification(s) held in memory", OUTBOX_RESERVE / 1024, r->note.npend);
		if (runner_pend_flush(r) == 0)
			log_info("queued them: the next onbox or `onbox notify --flush` sends them");
	}
	free(od);
}

/* The events still held at exit: lost to the webhooks, said loudly. */
void
runner_pend_free(struct runner *r)
{
	if (r->note.npend > 0)
		log_error("%zu notification(s) could never be queued in the outbox of %s: not "
		    "delivered (events.jsonl has them where it could be written)", r->note.npend,
		    r->run.cfg->workdir);
	while (r->note.npend > 0) {
		cJSON_Delete(r->note.pend[r->note.pend_head].ev);
		r->note.pend_head = (r->note.pend_head + 1) % PEND_MAX;
		r->note.npend--;
	}
}

/* Append ev to events.jsonl, remember it for the heartbeat, print it. ev is consumed. */
void
runner_emit(struct runner *r, cJSON *ev, const char *human)
{
	cJSON *brief = cJSON_CreateObject();
	struct pending_ev p;
	char *od;

	/*
	 * The outbox first, then events.jsonl: killed in between, the event is
	 * still delivered (the next onbox sends the outbox); the other order
	 * would leave an event in the log that no webhook ever carries.  What
	 * the outbox cannot take (a full disk) is held in memory, behind the
	 * events already held, and queued again later (runner_pend_flush).
	 */
	if (r->note.sinks.n > 0) {
		od = layout_path(r->run.cfg->workdir, "outbox");
		p.ev = cJSON_Duplicate(ev, 1);
		p.sink = 0;
		/* Durable first: on disk before any attempt to send it. */
		if (runner_pend_flush(r) != 0)
			runner_pend_push(r, &p);
		else if (runner_enqueue(r, od, &p) != 0) {
			runner_pend_error(r, od);
			runner_pend_push(r, &p);
		} else
			cJSON_Delete(p.ev);
		free(od);
		deliver_kick(&r->note.dl);
	}
	if (events_append(r->run.cfg->workdir, ev) != 0) {
		int e = errno;
		char *ep = layout_path(r->run.cfg->workdir, EVENTS_FILE);

		log_warn("cannot append to %s: %s", ep, strerror(e));
		free(ep);
	}
	cJSON_AddStringToObject(brief, "event", json_str(ev, "event", ""));
	if (json_str(ev, "stage", NULL) != NULL) {
		cJSON_AddStringToObject(brief, "stage", json_str(ev, "stage", ""));
		cJSON_AddNumberToObject(brief, "attempt", json_num(ev, "attempt", 0));
	}
	cJSON_AddStringToObject(brief, "time", json_str(ev, "time", ""));
	cJSON_Delete(r->note.last_event);
	r->note.last_event = brief;
	printf("%s %s %s\n", json_str(ev, "time", ""), r->run.cfg->run, human);
	fflush(stdout);
	log_tee_line(human);
	cJSON_Delete(ev);
	runner_heartbeat(r);
}

/* runner_emit for jobrun.c. */
void
runner_job_emit(void *arg, cJSON *ev, const char *human)
{
	runner_emit(arg, ev, human);
}

/* Alerts the checker raised: events (and so webhooks and the logbook), once each. */
void
runner_health_alerts(struct runner *r)
{
	struct health_alert *al = NULL;
	size_t i, n = health_take_alerts(r->run.health, &al);
	char human[512], *id;
	cJSON *ev;

	for (i = 0; i < n; i++) {
		int stop = al[i].kind == HEALTH_NAN_LOSS && (r->cur.st == NULL || !r->cur.st->has_wait) &&
		    nanstop_alert(&r->run.nan, r->run.cfg, r->cur.st != NULL ? r->cur.st->name :
		    json_str(r->run.saved, "stage", NULL), al[i].attempt, al[i].text);

		ev = events_new(r->run.instance, r->run.cfg->run, "health_alert",
		    r->cur.st != NULL ? r->cur.st->name : NULL, al[i].attempt);
		/* One event per alert: the id carries its kind and sequence number. */
		id = xstrfmt("%s.%s.%lu", json_str(ev, "id", ""), health_kind_name(al[i].kind), al[i].seq);
		json_set_str(ev, "id", id);
		free(id);
		cJSON_AddItemToObject(ev, "alert", health_alert_json(&al[i]));
		cJSON_AddStringToObject(ev, "kind", health_kind_name(al[i].kind));
		cJSON_AddStringToObject(ev, "severity", health_severity_name(al[i].severity));
		cJSON_AddStringToObject(ev, "text", al[i].text);
		if (stop)
			cJSON_AddStringToObject(ev, "action", "stop_stage");	/* loss.on_nan stop */
		snprintf(human, sizeof(human), "%s attempt %ld %s: %s%s", r->cur.st != NULL ? r->cur.st->name : "run",
		    al[i].attempt, health_kind_name(al[i].kind), al[i].text,
		    stop ? " · loss.on_nan stop: stopping the stage" : "");
		runner_emit(r, ev, human);
	}
	free(al);
	if (n > 0)
		runner_scan_save(r);
}
