/*
 * card.c: the live card (see card.h): which events ping, how an event
 * folds into the card's state, the card's words, and per receiver how a
 * card is posted, edited and found again.
 *
 * Three tables: card_folds[] (what each event kind does to the card's
 * status), card_quiet_verdicts[] (patrol verdicts that need nobody) and
 * card_apis[] (per receiver: the URL of a post and of an edit, the edit's
 * method, where the new message's id is in the answer, and how the edit's
 * body names the message).  Nothing here sends: card_show() builds the
 * requests and hands them to notify_send_request().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "card.h"
#include "err.h"
#include "jsonfile.h"
#include "log.h"
#include "monotime.h"
#include "notify-int.h"
#include "xmalloc.h"

#ifndef WK_VERSION
#define WK_VERSION "dev"
#endif

#define CARD_BAR_CELLS	20
#define CARD_LAST_MAX	300

/* ---- what pings ---- */

/*
 * patrol's verdicts that need nobody: the run moves on (or patrol resumes
 * the transfer itself), the card (the box's) shows it.  A box whose onbox
 * is gone (MONITOR_STALE) or whose disk fills (DISK_LOW) needs a person.
 */
static const char *const card_quiet_verdicts[] = {
	"OK", "RESUMED", "TRANSFER_RESUMED", "DEGRADED", "TRANSFER_INCOMPLETE",
};

static int
card_quiet_verdict(const char *v)
{
	size_t i;

	for (i = 0; i < sizeof(card_quiet_verdicts) / sizeof(card_quiet_verdicts[0]); i++)
		if (strcmp(v, card_quiet_verdicts[i]) == 0)
			return 1;
	return 0;
}

/*
 * Per event kind: the card's status after it (NULL: unchanged) and whether
 * it pings.  stage_failed and stage_lost (restarting: no), health_alert
 * (critical, or an action taken) and verdict_changed (card_quiet_verdicts)
 * decide by their fields (card_pings).
 */
static const struct card_fold_rule {
	const char	*event;
	const char	*status;
	int		 pings;
} card_folds[] = {
	{ "stage_started",	"RUNNING",	0 },
	{ "stage_done",		"RUNNING",	0 },
	{ "stage_failed",	"FAILED",	1 },
	{ "stage_lost",		"LOST",		1 },
	{ "stage_requeued",	"REQUEUED",	0 },
	{ "run_stopped",	"STOPPED",	1 },
	{ "chain_done",		"DONE",		1 },
	{ "job_submitted",	"SUBMITTED",	0 },
	{ "job_pending",	"PENDING",	0 },
	{ "job_adopted",	"RUNNING",	0 },
	{ "job_unknown",	"LOST",		1 },
	{ "health_alert",	NULL,		0 },
	{ "verdict_changed",	NULL,		1 },
	{ "test",		NULL,		1 },
	{ CARD_EVENT,		NULL,		0 },
	{ NULL,			NULL,		0 },	/* anything else: the last event only */
};

static const struct card_fold_rule *
card_rule(const char *type)
{
	const struct card_fold_rule *f;

	for (f = card_folds; f->event != NULL; f++)
		if (type != NULL && strcmp(f->event, type) == 0)
			break;
	return f;
}

int
card_pings(const cJSON *ev)
{
	const char *type = json_str(ev, "event", "");
	const struct card_fold_rule *f = card_rule(type);

	if (strcmp(type, "stage_failed") == 0 || strcmp(type, "stage_lost") == 0)
		return !json_bool(ev, "restarting", 0);
	if (strcmp(type, "health_alert") == 0)
		return strcmp(json_str(ev, "severity", ""), "critical") == 0 ||
		    json_str(ev, "action", NULL) != NULL;
	if (strcmp(type, "verdict_changed") == 0)
		return !card_quiet_verdict(json_str(ev, "verdict", "OK"));
	return f->pings;
}

/* ---- folding ---- */

/* The instance an event id starts with ("<16 hex>.type..."), into out[17]. */
static void
card_instance(const cJSON *ev, char *out)
{
	const char *id = json_str(ev, "id", "");
	size_t n = strcspn(id, ".");

	snprintf(out, 17, "%.*s", (int)(n < 16 ? n : 16), id);
}

/* The box's progress: {progress: {cur, max, text}, eta_s, loss} */
static void
card_fold_progress(cJSON *st, const cJSON *ev)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(ev, "progress");
	const cJSON *loss = cJSON_GetObjectItemCaseSensitive(ev, "loss");
	cJSON *ring;

	if (cJSON_IsObject(p)) {
		if (json_str(p, "text", NULL) != NULL)
			json_set_str(st, "progress", json_str(p, "text", ""));
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(p, "cur")))
			json_set_num(st, "cur", json_num(p, "cur", 0));
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(p, "max")))
			json_set_num(st, "max", json_num(p, "max", 0));
	}
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(ev, "eta_s"))) {
		json_set_num(st, "eta_s", json_num(ev, "eta_s", -1));
		json_set_num(st, "eta_from", json_num(ev, "time_unix", 0));
	}
	if (cJSON_IsNumber(loss) && isfinite(loss->valuedouble)) {
		if (!cJSON_IsArray(ring = cJSON_GetObjectItemCaseSensitive(st, "loss"))) {
			cJSON_DeleteItemFromObjectCaseSensitive(st, "loss");
			ring = cJSON_AddArrayToObject(st, "loss");
		}
		cJSON_AddItemToArray(ring, cJSON_CreateNumber(loss->valuedouble));
		while (cJSON_GetArraySize(ring) > CARD_LOSS_MAX)
			cJSON_DeleteItemFromArray(ring, 0);
	}
}

void
card_fold(cJSON *st, const cJSON *ev)
{
	const char *type = json_str(ev, "event", "");
	const struct card_fold_rule *f = card_rule(type);
	char inst[17], *text, *cut;
	const char *status = f->status;
	cJSON *it;

	card_instance(ev, inst);
	/* Another run in this workdir (a new instance): a new card. */
	if (*inst != '\0' && strcmp(type, "verdict_changed") != 0 &&
	    strcmp(json_str(st, "instance", inst), inst) != 0)
		while ((it = st->child) != NULL)
			cJSON_Delete(cJSON_DetachItemViaPointer(st, it));
	if (*inst != '\0' && strcmp(type, "verdict_changed") != 0)
		json_set_str(st, "instance", inst);
	if (json_str(ev, "run", NULL) != NULL)
		json_set_str(st, "run", json_str(ev, "run", ""));
	if (strcmp(type, CARD_EVENT) == 0) {
		card_fold_progress(st, ev);
		return;
	}
	if ((strcmp(type, "stage_failed") == 0 || strcmp(type, "stage_lost") == 0) &&
	    json_bool(ev, "restarting", 0))
		status = "RESTARTING";
	if (strcmp(type, "verdict_changed") == 0)
		status = json_str(ev, "verdict", NULL);
	if (status != NULL)
		json_set_str(st, "status", status);
	if (json_str(ev, "stage", NULL) != NULL) {
		json_set_str(st, "stage", json_str(ev, "stage", ""));
		json_set_num(st, "attempt", json_num(ev, "attempt", 0));
	}
	if (json_str(ev, "progress", NULL) != NULL)
		json_set_str(st, "progress", json_str(ev, "progress", ""));
	if (strcmp(type, "chain_done") == 0 && json_num(st, "max", 0) > 0)
		json_set_num(st, "cur", json_num(st, "max", 0));
	if (strcmp(type, "stage_started") == 0)
		cJSON_DeleteItemFromObjectCaseSensitive(st, "eta_s");
	text = notify_text(ev);
	cut = notify_cut(text, CARD_LAST_MAX);
	json_set_str(st, "last", cut);
	json_set_str(st, "last_time", json_str(ev, "time", ""));
	free(cut);
	free(text);
}

/* ---- words ---- */

/* A bar of CARD_BAR_CELLS cells for frac in [0, 1]. */
static void
card_put_bar(struct buf *b, double frac)
{
	int i, full;

	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	full = (int)(frac * CARD_BAR_CELLS + 0.5);
	for (i = 0; i < CARD_BAR_CELLS; i++)
		buf_puts(b, i < full ? "\xe2\x96\x88" : "\xe2\x96\x91");	/* █ ░ */
}

/* ▁▂▃▄▅▆▇█ over the ring's range, then the last value. */
static void
card_put_sparkline(struct buf *b, const cJSON *ring)
{
	static const char *const blocks[] = {
		"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
		"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
	};
	const cJSON *v;
	double lo = INFINITY, hi = -INFINITY, last = 0;
	int k;

	cJSON_ArrayForEach(v, ring) {
		if (v->valuedouble < lo)
			lo = v->valuedouble;
		if (v->valuedouble > hi)
			hi = v->valuedouble;
		last = v->valuedouble;
	}
	buf_puts(b, "loss ");
	cJSON_ArrayForEach(v, ring) {
		k = hi > lo ? (int)((v->valuedouble - lo) / (hi - lo) * 7.0 + 0.5) : 3;
		buf_puts(b, blocks[k < 0 ? 0 : k > 7 ? 7 : k]);
	}
	buf_printf(b, " %.4g\n", last);
}

char *
card_text(const cJSON *st, time_t now)
{
	struct buf b = BUF_INIT;
	const cJSON *ring = cJSON_GetObjectItemCaseSensitive(st, "loss");
	double cur = json_num(st, "cur", -1), max = json_num(st, "max", 0);
	long eta = json_long(st, "eta_s", -1), attempt = json_long(st, "attempt", 0), left;
	char d[32], when[TIMEFMT_LEN];
	char *r;

	buf_printf(&b, "[%s] %s", json_str(st, "run", "?"), json_str(st, "status", "STARTING"));
	if (json_str(st, "stage", NULL) != NULL) {
		buf_printf(&b, " \xc2\xb7 %s", json_str(st, "stage", ""));
		if (attempt > 0)
			buf_printf(&b, " attempt %ld", attempt);
	}
	buf_putc(&b, '\n');
	if (cur >= 0 && max > 0) {
		card_put_bar(&b, cur / max);
		buf_printf(&b, " %d%% \xc2\xb7 ~%.0f/%.0f", (int)(cur / max * 100.0), cur, max);
	} else if (json_str(st, "progress", NULL) != NULL)
		buf_printf(&b, "%s", json_str(st, "progress", ""));
	if (eta >= 0 && strcmp(json_str(st, "status", ""), "DONE") != 0) {
		left = eta - (long)(now - (time_t)json_num(st, "eta_from", (double)now));
		if (left > 0) {
			timefmt_duration(left, d, sizeof(d));
			buf_printf(&b, " \xc2\xb7 ETA %s", d);
		}
	}
	if (b.len > 0 && b.data[b.len - 1] != '\n')
		buf_putc(&b, '\n');
	if (cJSON_GetArraySize(ring) > 0)
		card_put_sparkline(&b, ring);
	if (json_str(st, "last", NULL) != NULL)
		buf_printf(&b, "last: %s\n", json_str(st, "last", ""));
	timefmt_utc(now, when, sizeof(when));
	buf_printf(&b, "updated %s", when);
	r = notify_cut(buf_str(&b), CARD_TEXT_MAX);
	buf_free(&b);
	return r;
}

/* ---- receivers ---- */

static char *
card_url_telegram(const struct notify_sink *s, const char *id)
{
	return notify_url_telegram_method(s, id != NULL ? "editMessageText" : "sendMessage");
}

static char *
card_url_slack(const struct notify_sink *s, const char *id)
{
	return notify_url_slack(s, id != NULL ? "chat.update" : "chat.postMessage");
}

/* <webhook>?wait=true, or <webhook>/messages/<id>, keeping a query (thread_id) it has. */
static char *
card_url_discord(const struct notify_sink *s, const char *id)
{
	size_t n = strcspn(s->url, "?");
	const char *q = s->url + n;

	if (id == NULL)
		return xstrfmt("%s%swait=true", s->url, *q == '?' ? "&" : "?");
	return xstrfmt("%.*s/messages/%s%s", (int)n, s->url, id, q);
}

static void
card_name_telegram(cJSON *body, const cJSON *st)
{
	const char *id = json_str(st, "message_id", "0");

	cJSON_AddNumberToObject(body, "message_id", strtod(id, NULL));
}

static void
card_name_slack(cJSON *body, const cJSON *st)
{
	/* chat.update wants the channel's id, which the post answered with. */
	if (json_str(st, "channel", NULL) != NULL)
		json_set_str(body, "channel", json_str(st, "channel", ""));
	json_set_str(body, "ts", json_str(st, "message_id", ""));
}

static void
card_name_none(cJSON *body, const cJSON *st)
{
	(void)body;
	(void)st;
}

static int
card_id_telegram(const cJSON *a, cJSON *st)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(a, "result"), "message_id");
	char num[32];

	if (!cJSON_IsNumber(id))
		return -1;
	snprintf(num, sizeof(num), "%.0f", id->valuedouble);
	json_set_str(st, "message_id", num);
	return 0;
}

static int
card_id_slack(const cJSON *a, cJSON *st)
{
	if (!json_bool(a, "ok", 0) || json_str(a, "ts", NULL) == NULL)
		return -1;
	json_set_str(st, "message_id", json_str(a, "ts", ""));
	if (json_str(a, "channel", NULL) != NULL)
		json_set_str(st, "channel", json_str(a, "channel", ""));
	return 0;
}

static int
card_id_discord(const cJSON *a, cJSON *st)
{
	if (json_str(a, "id", NULL) == NULL)
		return -1;
	json_set_str(st, "message_id", json_str(a, "id", ""));
	return 0;
}

/* Telegram refuses an edit to the same text: the card shows it already. */
static int
card_same_telegram(const struct notify_reply *rp)
{
	return rp->status == 400 && rp->answer != NULL &&
	    strstr(rp->answer, "message is not modified") != NULL;
}

static const struct card_api {
	const char	*type;
	char		*(*url)(const struct notify_sink *, const char *id);
	const char	*edit_method;	/* NULL: POST */
	void		(*name)(cJSON *body, const cJSON *st);
	int		(*take_id)(const cJSON *answer, cJSON *st);
	int		(*same)(const struct notify_reply *);	/* NULL: never */
} card_apis[] = {
	{ "telegram", card_url_telegram, NULL, card_name_telegram, card_id_telegram,
	  card_same_telegram },
	{ "discord", card_url_discord, "PATCH", card_name_none, card_id_discord, NULL },
	{ "slack", card_url_slack, NULL, card_name_slack, card_id_slack, NULL },
};

static const struct card_api *
card_api(const struct notify_sink *s)
{
	size_t i;

	for (i = 0; i < sizeof(card_apis) / sizeof(card_apis[0]); i++)
		if (strcmp(card_apis[i].type, s->type) == 0)
			return &card_apis[i];
	return NULL;
}

int
card_capable(const struct notify_sink *s)
{
	if (card_api(s) == NULL)
		return 0;
	/* slack: an incoming webhook cannot edit; the Web API (a channel) can */
	return strcmp(s->type, "slack") != 0 || s->channel != NULL;
}

int
card_request(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *st,
    const char *text, int edit, struct notify_request *out)
{
	const struct notify_type *t = notify_type_find(s->type);
	const struct card_api *api = card_api(s);
	char *clean = NULL, *raw = NULL, *line = NULL;
	cJSON *body = NULL;
	int r = WK_ERR_INVALID;

	memset(out, 0, sizeof(*out));
	if (s->missing != NULL || t == NULL || !card_capable(s) || s->url == NULL ||
	    (edit && json_str(st, "message_id", NULL) == NULL))
		goto out;
	clean = notify_scrub(all, text);
	raw = t->body(s, NULL, clean);
	if ((body = cJSON_Parse(raw)) == NULL)
		goto out;
	if (edit)
		api->name(body, st);
	line = notify_json_line(body);
	out->method = edit ? api->edit_method : NULL;
	out->url = api->url(s, edit ? json_str(st, "message_id", "") : NULL);
	notify_req_header(out, xstrfmt("Content-Type: %s", t->ctype));
	notify_req_header(out, xstrfmt("User-Agent: watchkeeper/%s", WK_VERSION));
	if (t->headers != NULL)
		t->headers(s, NULL, out);
	out->body = notify_scrub(all, line);
	out->body_len = strlen(out->body);
	r = 0;
 out:
	cJSON_Delete(body);
	free(clean);
	free(raw);
	free(line);
	return r;
}

int
card_take_id(const struct notify_sink *s, const char *answer, cJSON *st)
{
	const struct card_api *api = card_api(s);
	cJSON *a = answer != NULL ? cJSON_Parse(answer) : NULL;
	int r = api != NULL && a != NULL ? api->take_id(a, st) : -1;

	cJSON_Delete(a);
	return r;
}

/* One request for the card: 0, or as notify_send (with *same for an unchanged edit). */
static int
card_send(const struct notify_sinks *all, const struct notify_sink *s, cJSON *st,
    const char *text, int edit, struct notify_reply *rp, char **why, int *permanent)
{
	struct notify_request rq;
	int r;

	*why = NULL;
	*permanent = 0;
	memset(rp, 0, sizeof(*rp));
	if (card_request(all, s, st, text, edit, &rq) != 0) {
		*why = s->missing != NULL ? notify_scrub(all, s->missing) :
		    xstrdup("this sink cannot keep a card");
		*permanent = 1;
		return WK_ERR_INVALID;
	}
	r = notify_send_request(all, s, &rq, rp, why, permanent);
	notify_request_free(&rq);
	return r;
}

int
card_show(const struct notify_sinks *all, const struct notify_sink *s, cJSON *st, time_t now,
    char **why, int *permanent)
{
	const struct card_api *api = card_api(s);
	struct notify_reply rp;
	char *text = card_text(st, now);
	int r;

	*why = NULL;
	*permanent = 0;
	if (json_str(st, "message_id", NULL) != NULL) {
		r = card_send(all, s, st, text, 1, &rp, why, permanent);
		if (r != 0 && api != NULL && api->same != NULL && api->same(&rp))
			r = 0;
		notify_reply_free(&rp);
		if (r == 0 || !*permanent)
			goto done;
		/* Deleted, too old, not ours any more: a new card, never silence. */
		log_warn("notify %s: the card could not be edited (%s); posting a new card", s->id,
		    *why != NULL ? *why : "refused");
		free(*why);
		*why = NULL;
		cJSON_DeleteItemFromObjectCaseSensitive(st, "message_id");
	}
	r = card_send(all, s, st, text, 0, &rp, why, permanent);
	if (r == 0) {
		if (card_take_id(s, rp.answer, st) != 0) {
			log_warn("notify %s: the receiver's answer names no message: the card's "
			    "next change is a new message", s->id);
			cJSON_DeleteItemFromObjectCaseSensitive(st, "message_id");
		}
		json_set_num(st, "posted", (double)now);
	}
	notify_reply_free(&rp);
 done:
	if (r == 0)
		json_set_num(st, "updated", (double)now);
	free(text);
	return r;
}

void
card_follow(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev)
{
	const cJSON *box = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(ev, "cards"), s->id);
	const struct card_api *api = card_api(s);
	struct notify_reply rp;
	cJSON *st;
	char *text, *why = NULL;
	int permanent, r;

	if (!cJSON_IsObject(box) || json_str(box, "message_id", NULL) == NULL || !card_capable(s))
		return;
	st = cJSON_Duplicate(box, 1);
	card_fold(st, ev);
	text = card_text(st, time(NULL));
	r = card_send(all, s, st, text, 1, &rp, &why, &permanent);
	if (r != 0 && !(api != NULL && api->same != NULL && api->same(&rp)))
		log_warn("notify %s: the run's card could not be edited (%s); the message "
		    "goes out on its own", s->id, why != NULL ? why : "refused");
	notify_reply_free(&rp);
	free(why);
	free(text);
	cJSON_Delete(st);
}
