/*
 * health-state.c: what health shows and keeps: the view (status and the
 * handbook read it), an alert as JSON, and the state saved across onbox
 * restarts (health_save/health_load).
 *
 * A loaded state is built aside and copied in whole only when it parsed,
 * every number clamped, so a torn or hostile file cannot leave h half
 * loaded.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "health-int.h"
#include "logscan.h"
#include "xmalloc.h"

#define HL_VERSION	1

/* A number, or "nan"/"inf"/"-inf" as a string (JSON has no such numbers). */
static cJSON *
hl_json_num(double v)
{
	char buf[8];

	if (isfinite(v))
		return cJSON_CreateNumber(v);
	return cJSON_CreateString(hl_fmt(v, buf, sizeof(buf)));
}

/* What hl_json_num wrote; def when absent or not a number. */
static double
hl_json_get(const cJSON *obj, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char *end;
	double d;

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	if (cJSON_IsString(v) && v->valuestring != NULL) {
		d = strtod(v->valuestring, &end);
		if (end != v->valuestring && *end == '\0')
			return d;
	}
	return def;
}

/* An integral member, clamped to [lo, hi]; def when absent. */
static long
hl_json_long(const cJSON *obj, const char *key, long def, long lo, long hi)
{
	double d = hl_json_get(obj, key, (double)def);

	if (isnan(d) || d < (double)lo)
		return lo;
	if (d > (double)hi)
		return hi;
	return (long)d;
}

static int
hl_json_bool(const cJSON *obj, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static void
hl_json_str(const cJSON *obj, const char *key, char *out, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char *clean;

	out[0] = '\0';
	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return;
	clean = linering_sanitize(v->valuestring, strlen(v->valuestring), len - 1);
	snprintf(out, len, "%s", clean);
	free(clean);
}

cJSON *
health_alert_json(const struct health_alert *a)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "event", health_kind_name(a->kind));
	cJSON_AddStringToObject(o, "severity", health_severity_name(a->severity));
	cJSON_AddNumberToObject(o, "seq", (double)a->seq);
	cJSON_AddNumberToObject(o, "time", (double)a->time);
	cJSON_AddNumberToObject(o, "attempt", (double)a->attempt);
	cJSON_AddNumberToObject(o, "step", (double)a->step);
	if (a->kind != HEALTH_WANDB)
		cJSON_AddItemToObject(o, "value", hl_json_num(a->value));
	if (!isnan(a->ref))
		cJSON_AddItemToObject(o, "ref", hl_json_num(a->ref));
	cJSON_AddStringToObject(o, "text", a->text);
	if (a->url[0] != '\0')
		cJSON_AddStringToObject(o, "url", a->url);
	if (a->id[0] != '\0')
		cJSON_AddStringToObject(o, "id", a->id);
	return o;
}

/* ---- view ---- */

static void
hl_reason(struct health_view *v, enum health_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
hl_reason(struct health_view *v, enum health_kind kind, const char *fmt, ...)
{
	struct health_reason *r;
	va_list ap;
	int n;

	if (v->nreasons == HEALTH_REASONS_MAX)
		return;
	r = &v->reasons[v->nreasons++];
	r->kind = kind;
	n = snprintf(r->text, sizeof(r->text), "%s: ", health_kind_name(kind));
	va_start(ap, fmt);
	vsnprintf(r->text + n, sizeof(r->text) - (size_t)n, fmt, ap);
	va_end(ap);
}

void
health_view(const struct health *h, struct health_view *v)
{
	const struct hl_state *st = &h->st;
	char a[32], b[32];
	double eta;

	memset(v, 0, sizeof(*v));
	v->attempt = st->attempt;
	v->have_progress = st->prog_have;
	v->cur = st->cur;
	v->max_from_config = h->progress_max > 0;
	v->max = h->progress_max > 0 ? h->progress_max : st->max_log;
	if (!st->prog_have)
		snprintf(v->text, sizeof(v->text), "unknown");
	else if (v->max > 0)
		snprintf(v->text, sizeof(v->text), "~%ld/%ld", v->cur, v->max);
	else
		snprintf(v->text, sizeof(v->text), "~%ld/unknown", v->cur);
	v->progress_time = st->prog_have ? (time_t)st->prog_time : 0;
	v->rate = hl_rate(st);
	v->eta_s = -1;
	if (st->prog_have && v->max > 0 && v->cur >= v->max)
		v->eta_s = 0;
	else if (st->prog_have && v->max > 0 && v->rate > 0) {
		eta = ceil((double)(v->max - v->cur) / v->rate);
		if (eta < 1e10)
			v->eta_s = (long)eta;
	}
	snprintf(v->wandb_url, sizeof(v->wandb_url), "%s", st->wb_url);
	snprintf(v->wandb_id, sizeof(v->wandb_id), "%s", st->wb_id);
	snprintf(v->wandb_name, sizeof(v->wandb_name), "%s", st->wb_name);
	v->have_loss = st->loss_have;
	v->loss = st->loss_have ? st->loss_last : NAN;
	v->loss_trend = st->trend_n >= HEALTH_TREND_MIN ? st->trend : NAN;
	v->spike_run = st->spike_run;
	v->have_throughput = st->tp_have;
	v->throughput = st->tp_have ? st->tp_last : NAN;
	v->tp_tick = st->tick_have ? st->tick_val : NAN;
	v->tp_baseline = st->nbase == HEALTH_TP_BASE_N ? st->baseline : NAN;
	v->low_ticks = st->low_ticks;
	v->alerts_dropped = st->dropped;

	if (st->wf_id_latched)
		hl_reason(v, HEALTH_WANDB_IDENTITY, "%s", st->wf_text);
	if (st->res_latched)
		hl_reason(v, HEALTH_RESUME_MISMATCH, "%s", st->res_text);
	if (st->nan_latched && st->loss_have && !isfinite(st->loss_last))
		hl_reason(v, HEALTH_NAN_LOSS, "loss is %s (attempt %ld)",
		    hl_fmt(st->loss_last, a, sizeof(a)), st->attempt);
	if (st->spike_latched)
		hl_reason(v, HEALTH_LOSS_SPIKE,
		    "loss %s is more than %.0f%% above its trend %s (%ld spike values in a row now)",
		    hl_fmt(st->loss_last, a, sizeof(a)), h->spike_pct,
		    hl_fmt(st->trend, b, sizeof(b)), st->spike_run);
	if (st->rec_fired && st->rec_attempt == st->attempt && !st->prog_attempt) {
		char w[128];

		hl_reason(v, HEALTH_RECOVERY_STALLED, "no new step within %ld s of the relaunch (%s)",
		    st->rec_limit, hl_rec_words(st, w, sizeof(w)));
	}
	if (st->wf_stale_latched)
		hl_reason(v, HEALTH_WANDB_STALE, "%s", st->wf_stale_text);
	if (st->tp_latched)
		hl_reason(v, HEALTH_THROUGHPUT_DROP,
		    "throughput %s is more than %.0f%% below its baseline %s (%ld low ticks)",
		    hl_fmt(st->tick_val, a, sizeof(a)), h->drop_pct,
		    hl_fmt(st->baseline, b, sizeof(b)), st->low_ticks);
}

cJSON *
health_view_json(const struct health_view *v)
{
	cJSON *o = cJSON_CreateObject(), *p, *w, *l, *t, *d, *r;
	size_t i;

	cJSON_AddNumberToObject(o, "attempt", (double)v->attempt);
	p = cJSON_AddObjectToObject(o, "progress");
	cJSON_AddStringToObject(p, "text", v->text);
	if (v->have_progress) {
		cJSON_AddNumberToObject(p, "cur", (double)v->cur);
		cJSON_AddNumberToObject(p, "time", (double)v->progress_time);
	}
	if (v->max > 0) {
		cJSON_AddNumberToObject(p, "max", (double)v->max);
		cJSON_AddStringToObject(p, "max_source", v->max_from_config ? "config" : "log");
	}
	if (v->rate >= 0)
		cJSON_AddNumberToObject(p, "rate", v->rate);
	if (v->eta_s >= 0)
		cJSON_AddNumberToObject(p, "eta_s", (double)v->eta_s);
	if (v->wandb_url[0] != '\0' || v->wandb_name[0] != '\0') {
		w = cJSON_AddObjectToObject(o, "wandb");
		if (v->wandb_url[0] != '\0') {
			cJSON_AddStringToObject(w, "url", v->wandb_url);
			cJSON_AddStringToObject(w, "id", v->wandb_id);
		}
		if (v->wandb_name[0] != '\0')
			cJSON_AddStringToObject(w, "name", v->wandb_name);
	}
	if (v->have_loss) {
		l = cJSON_AddObjectToObject(o, "loss");
		cJSON_AddItemToObject(l, "last", hl_json_num(v->loss));
		if (!isnan(v->loss_trend))
			cJSON_AddNumberToObject(l, "trend", v->loss_trend);
		cJSON_AddNumberToObject(l, "spike_run", (double)v->spike_run);
	}
	if (v->have_throughput) {
		t = cJSON_AddObjectToObject(o, "throughput");
		cJSON_AddNumberToObject(t, "last", v->throughput);
		if (!isnan(v->tp_tick))
			cJSON_AddNumberToObject(t, "tick", v->tp_tick);
		if (!isnan(v->tp_baseline))
			cJSON_AddNumberToObject(t, "baseline", v->tp_baseline);
		cJSON_AddNumberToObject(t, "low_ticks", (double)v->low_ticks);
	}
	d = cJSON_AddArrayToObject(o, "degraded");
	for (i = 0; i < v->nreasons; i++) {
		r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "kind", health_kind_name(v->reasons[i].kind));
		cJSON_AddStringToObject(r, "text", v->reasons[i].text);
		cJSON_AddItemToArray(d, r);
	}
	if (v->alerts_dropped > 0)
		cJSON_AddNumberToObject(o, "alerts_dropped", (double)v->alerts_dropped);
	return o;
}

/* ---- save / load ---- */

static cJSON *
hl_num_array(const double *vals, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, hl_json_num(vals[i]));
	return a;
}

/* Up to max finite numbers of the array obj[key] into vals; returns the count. */
static size_t
hl_get_array(const cJSON *obj, const char *key, double *vals, size_t max)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key), *it;
	size_t n = 0;

	if (!cJSON_IsArray(a))
		return 0;
	cJSON_ArrayForEach(it, a) {
		if (n == max)
			break;
		if (cJSON_IsNumber(it) && isfinite(it->valuedouble))
			vals[n++] = it->valuedouble;
	}
	return n;
}

/* ---- the resume check's pairs and the W&B files' state ---- */

static cJSON *
hl_points_json(const struct hl_point *p, size_t n, size_t first)
{
	cJSON *arr = cJSON_CreateArray(), *e;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct hl_point *x = &p[(first + i) % HEALTH_RESUME_N];

		e = cJSON_CreateArray();
		cJSON_AddItemToArray(e, cJSON_CreateNumber((double)x->step));
		cJSON_AddItemToArray(e, hl_json_num(x->loss));
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

static void
hl_save_resume(cJSON *o, const struct hl_state *st)
{
	cJSON *r = cJSON_AddObjectToObject(o, "resume");

	cJSON_AddNumberToObject(r, "from", (double)st->res_from);
	cJSON_AddNumberToObject(r, "first", (double)st->res_first);
	cJSON_AddBoolToObject(r, "mismatch", st->res_latched);
	cJSON_AddStringToObject(r, "text", st->res_text);
	cJSON_AddItemToObject(r, "cur", hl_points_json(st->lr, st->nlr,
	    (st->lr_next + HEALTH_RESUME_N - st->nlr) % HEALTH_RESUME_N));
	cJSON_AddItemToObject(r, "prev", hl_points_json(st->prev, st->nprev, 0));
}

static void
hl_save_wandb_files(cJSON *o, const struct hl_state *st)
{
	cJSON *w = cJSON_AddObjectToObject(o, "wandb_files");

	cJSON_AddBoolToObject(w, "seen", st->wf_seen);
	cJSON_AddStringToObject(w, "id", st->wf_id);
	cJSON_AddItemToObject(w, "step", hl_json_num(st->wf_step));
	cJSON_AddItemToObject(w, "ts", hl_json_num(st->wf_ts));
	cJSON_AddNumberToObject(w, "txlog", (double)st->wf_txlog);
	cJSON_AddNumberToObject(w, "since", (double)st->wf_since);
	cJSON_AddNumberToObject(w, "prog", (double)st->wf_prog);
	cJSON_AddBoolToObject(w, "identity", st->wf_id_latched);
	cJSON_AddBoolToObject(w, "stale", st->wf_stale_latched);
	cJSON_AddStringToObject(w, "text", st->wf_text);
	cJSON_AddStringToObject(w, "stale_text", st->wf_stale_text);
}

cJSON *
health_save(const struct health *h)
{
	const struct hl_state *st = &h->st;
	cJSON *o = cJSON_CreateObject(), *p, *w, *l, *t, *arr, *s;
	double recent[HEALTH_TP_RECENT];
	size_t i;

	cJSON_AddNumberToObject(o, "version", HL_VERSION);
	cJSON_AddNumberToObject(o, "attempt", (double)st->attempt);

	p = cJSON_AddObjectToObject(o, "progress");
	cJSON_AddBoolToObject(p, "have", st->prog_have);
	cJSON_AddBoolToObject(p, "in_attempt", st->prog_attempt);
	cJSON_AddNumberToObject(p, "cur", (double)st->cur);
	cJSON_AddNumberToObject(p, "max_log", (double)st->max_log);
	cJSON_AddNumberToObject(p, "time", (double)st->prog_time);
	cJSON_AddNumberToObject(p, "first_step", (double)st->ws);
	arr = cJSON_AddArrayToObject(p, "samples");
	for (i = 0; i < st->nsamples; i++) {
		s = cJSON_CreateArray();
		cJSON_AddItemToArray(s, cJSON_CreateNumber((double)st->samples[i].t));
		cJSON_AddItemToArray(s, cJSON_CreateNumber((double)st->samples[i].step));
		cJSON_AddItemToArray(arr, s);
	}

	w = cJSON_AddObjectToObject(o, "wandb");
	cJSON_AddStringToObject(w, "url", st->wb_url);
	cJSON_AddStringToObject(w, "id", st->wb_id);
	cJSON_AddStringToObject(w, "name", st->wb_name);
	cJSON_AddStringToObject(w, "pending", st->wb_pending);
	arr = cJSON_AddArrayToObject(w, "reported");
	for (i = 0; i < st->wb_nseen; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(st->wb_seen[i]));

	l = cJSON_AddObjectToObject(o, "loss");
	cJSON_AddNumberToObject(l, "n", (double)st->loss_n);
	cJSON_AddBoolToObject(l, "have", st->loss_have);
	cJSON_AddItemToObject(l, "last", hl_json_num(st->loss_last));
	cJSON_AddNumberToObject(l, "last_step", (double)st->loss_step);
	cJSON_AddItemToObject(l, "trend", hl_json_num(st->trend));
	cJSON_AddNumberToObject(l, "trend_n", (double)st->trend_n);
	cJSON_AddNumberToObject(l, "spike_run", (double)st->spike_run);
	cJSON_AddBoolToObject(l, "spike", st->spike_latched);
	cJSON_AddBoolToObject(l, "nan", st->nan_latched);

	t = cJSON_AddObjectToObject(o, "throughput");
	cJSON_AddNumberToObject(t, "n", (double)st->tp_n);
	cJSON_AddBoolToObject(t, "have", st->tp_have);
	cJSON_AddItemToObject(t, "last", hl_json_num(st->tp_last));
	cJSON_AddItemToObject(t, "base", hl_num_array(st->base, st->nbase));
	for (i = 0; i < st->nrecent; i++)
		recent[i] = st->recent[(st->recent_next + HEALTH_TP_RECENT - st->nrecent + i) %
		    HEALTH_TP_RECENT];
	cJSON_AddItemToObject(t, "recent", hl_num_array(recent, st->nrecent));
	if (st->tick_have)
		cJSON_AddItemToObject(t, "tick", hl_json_num(st->tick_val));
	hl_save_resume(o, st);
	hl_save_wandb_files(o, st);
	cJSON_AddNumberToObject(t, "low_ticks", (double)st->low_ticks);
	if (st->low_since > 0)
		cJSON_AddNumberToObject(t, "low_since", (double)st->low_since);
	cJSON_AddBoolToObject(t, "drop", st->tp_latched);

	if (st->rec_attempt != 0) {
		cJSON *r = cJSON_AddObjectToObject(o, "recovery");

		cJSON_AddNumberToObject(r, "attempt", (double)st->rec_attempt);
		cJSON_AddNumberToObject(r, "since", (double)st->rec_since);
		cJSON_AddNumberToObject(r, "limit_s", (double)st->rec_limit);
		if (st->rec_interval > 0)
			cJSON_AddNumberToObject(r, "interval_s", st->rec_interval);
		cJSON_AddBoolToObject(r, "fired", st->rec_fired);
	}

	arr = cJSON_AddArrayToObject(o, "alerts");
	for (i = 0; i < st->nalerts; i++)
		cJSON_AddItemToArray(arr, health_alert_json(&st->alerts[i]));
	cJSON_AddNumberToObject(o, "seq", (double)st->seq);
	cJSON_AddNumberToObject(o, "dropped", (double)st->dropped);
	return o;
}

#define HL_LONG_MAX	1000000000000000000L	/* what a double and a long both hold */

/* obj[key] when it is an array, else NULL (cJSON_ArrayForEach then does nothing). */
static const cJSON *
hl_json_array(const cJSON *obj, const char *key)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsArray(a) ? a : NULL;
}

static void
hl_load_alert(struct hl_state *st, const cJSON *a)
{
	struct health_alert *x;
	enum health_kind kind = health_kind_by_name(cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(a, "event")));

	if (kind == HEALTH_NKINDS || st->nalerts == HEALTH_ALERTS_MAX)
		return;
	x = &st->alerts[st->nalerts++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->severity = health_kinds[kind].severity;
	x->seq = (unsigned long)hl_json_long(a, "seq", 0, 0, HL_LONG_MAX);
	x->time = (time_t)hl_json_long(a, "time", 0, 0, HL_LONG_MAX);
	x->attempt = hl_json_long(a, "attempt", 0, -HL_LONG_MAX, HL_LONG_MAX);
	x->step = hl_json_long(a, "step", -1, -1, HL_LONG_MAX);
	x->value = hl_json_get(a, "value", NAN);
	x->ref = hl_json_get(a, "ref", NAN);
	hl_json_str(a, "text", x->text, sizeof(x->text));
	hl_json_str(a, "url", x->url, sizeof(x->url));
	hl_json_str(a, "id", x->id, sizeof(x->id));
}

static size_t
hl_points_load(const cJSON *arr, struct hl_point *out, int sorted)
{
	const cJSON *it, *a, *b;
	size_t n = 0;

	cJSON_ArrayForEach(it, arr) {
		if (n == HEALTH_RESUME_N)
			break;
		a = cJSON_GetArrayItem(it, 0);
		b = cJSON_GetArrayItem(it, 1);
		if (!cJSON_IsNumber(a) || !(a->valuedouble >= 0 && a->valuedouble < 1e18))
			continue;
		/* prev is searched by step: an unordered pair ends it (a hostile file) */
		if (sorted && n > 0 && (long)a->valuedouble <= out[n - 1].step)
			break;
		out[n].step = (long)a->valuedouble;
		out[n].loss = cJSON_IsNumber(b) ? b->valuedouble : cJSON_IsString(b) ?
		    strtod(b->valuestring, NULL) : NAN;	/* hl_json_num's "nan", "inf" */
		n++;
	}
	return n;
}

static void
hl_load_resume(const cJSON *doc, struct hl_state *st)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(doc, "resume");

	st->res_from = hl_json_long(r, "from", -1, -1, HL_LONG_MAX);
	st->res_first = hl_json_long(r, "first", -1, -1, HL_LONG_MAX);
	st->res_latched = hl_json_bool(r, "mismatch");
	hl_json_str(r, "text", st->res_text, sizeof(st->res_text));
	st->nlr = hl_points_load(hl_json_array(r, "cur"), st->lr, 0);
	st->lr_next = st->nlr % HEALTH_RESUME_N;
	st->nprev = hl_points_load(hl_json_array(r, "prev"), st->prev, 1);
}

static void
hl_load_wandb_files(const cJSON *doc, struct hl_state *st)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(doc, "wandb_files");

	st->wf_seen = hl_json_bool(w, "seen");
	hl_json_str(w, "id", st->wf_id, sizeof(st->wf_id));
	st->wf_step = hl_json_get(w, "step", NAN);
	st->wf_ts = hl_json_get(w, "ts", NAN);
	st->wf_txlog = (long long)hl_json_long(w, "txlog", -1, -1, HL_LONG_MAX);
	st->wf_since = hl_json_long(w, "since", 0, 0, HL_LONG_MAX);
	st->wf_prog = hl_json_long(w, "prog", -1, -1, HL_LONG_MAX);
	st->wf_id_latched = hl_json_bool(w, "identity");
	st->wf_stale_latched = hl_json_bool(w, "stale");
	hl_json_str(w, "text", st->wf_text, sizeof(st->wf_text));
	hl_json_str(w, "stale_text", st->wf_stale_text, sizeof(st->wf_stale_text));
}

int
health_load(struct health *h, const cJSON *doc)
{
	struct hl_state *st;
	const cJSON *p, *w, *l, *t, *arr, *it;
	double recent[HEALTH_TP_RECENT];
	size_t i;

	if (!cJSON_IsObject(doc) || hl_json_long(doc, "version", 0, 0, 1000) > HL_VERSION)
		return WK_ERR_PARSE;
	st = xcalloc(1, sizeof(*st));
	hl_state_reset(st);
	st->attempt = hl_json_long(doc, "attempt", 0, -HL_LONG_MAX, HL_LONG_MAX);

	p = cJSON_GetObjectItemCaseSensitive(doc, "progress");
	st->prog_have = hl_json_bool(p, "have");
	st->prog_attempt = st->prog_have && hl_json_bool(p, "in_attempt");
	st->cur = hl_json_long(p, "cur", 0, 0, HL_LONG_MAX);
	st->max_log = hl_json_long(p, "max_log", 0, 0, HL_LONG_MAX);
	st->prog_time = hl_json_long(p, "time", 0, 0, HL_LONG_MAX);
	st->ws = hl_json_long(p, "first_step", -1, -1, HL_LONG_MAX);
	arr = hl_json_array(p, "samples");
	cJSON_ArrayForEach(it, arr) {
		const cJSON *ts = cJSON_GetArrayItem(it, 0), *ss = cJSON_GetArrayItem(it, 1);

		if (st->nsamples == HEALTH_RATE_SAMPLES)
			break;
		if (!cJSON_IsNumber(ts) || !cJSON_IsNumber(ss) || !(fabs(ts->valuedouble) < 1e15) ||
		    !(ss->valuedouble >= 0 && ss->valuedouble < 1e18))
			continue;
		/* Keep them ordered, as hl_sample() does; an odd pair restarts the count. */
		if (st->nsamples > 0 &&
		    (ts->valuedouble <= st->samples[st->nsamples - 1].t ||
		    ss->valuedouble < st->samples[st->nsamples - 1].step))
			st->nsamples = 0;
		st->samples[st->nsamples++] = (struct hl_sample){ (long)ts->valuedouble,
		    (long)ss->valuedouble };
	}

	w = cJSON_GetObjectItemCaseSensitive(doc, "wandb");
	hl_json_str(w, "url", st->wb_url, sizeof(st->wb_url));
	hl_json_str(w, "id", st->wb_id, sizeof(st->wb_id));
	hl_json_str(w, "name", st->wb_name, sizeof(st->wb_name));
	hl_json_str(w, "pending", st->wb_pending, sizeof(st->wb_pending));
	arr = hl_json_array(w, "reported");
	cJSON_ArrayForEach(it, arr) {
		if (st->wb_nseen == HEALTH_WANDB_IDS)
			break;
		if (cJSON_IsString(it) && it->valuestring != NULL && it->valuestring[0] != '\0' &&
		    strlen(it->valuestring) < HEALTH_ID_MAX)
			snprintf(st->wb_seen[st->wb_nseen++], HEALTH_ID_MAX, "%s", it->valuestring);
	}

	l = cJSON_GetObjectItemCaseSensitive(doc, "loss");
	st->loss_n = hl_json_long(l, "n", 0, 0, HL_LONG_MAX);
	st->loss_have = hl_json_bool(l, "have");
	st->loss_last = hl_json_get(l, "last", NAN);
	st->loss_step = hl_json_long(l, "last_step", -1, -1, HL_LONG_MAX);
	st->trend = hl_json_get(l, "trend", 0);
	st->trend_n = hl_json_long(l, "trend_n", 0, 0, HL_LONG_MAX);
	if (!isfinite(st->trend)) {
		st->trend = 0;
		st->trend_n = 0;
	}
	st->spike_run = hl_json_long(l, "spike_run", 0, 0, HL_LONG_MAX);
	st->spike_latched = hl_json_bool(l, "spike");
	st->nan_latched = hl_json_bool(l, "nan");

	t = cJSON_GetObjectItemCaseSensitive(doc, "throughput");
	st->tp_n = hl_json_long(t, "n", 0, 0, HL_LONG_MAX);
	st->tp_have = hl_json_bool(t, "have");
	st->tp_last = hl_json_get(t, "last", NAN);
	st->nbase = hl_get_array(t, "base", st->base, HEALTH_TP_BASE_N);
	if (st->nbase == HEALTH_TP_BASE_N)
		st->baseline = hl_median(st->base, st->nbase);
	st->nrecent = hl_get_array(t, "recent", recent, HEALTH_TP_RECENT);
	for (i = 0; i < st->nrecent; i++)
		st->recent[i] = recent[i];
	st->recent_next = st->nrecent % HEALTH_TP_RECENT;
	st->tick_val = hl_json_get(t, "tick", NAN);
	st->tick_have = !isnan(st->tick_val);
	st->low_ticks = hl_json_long(t, "low_ticks", 0, 0, HL_LONG_MAX);
	st->low_since = hl_json_long(t, "low_since", 0, 0, HL_LONG_MAX);
	hl_load_resume(doc, st);
	hl_load_wandb_files(doc, st);
	st->tp_latched = hl_json_bool(t, "drop");

	p = cJSON_GetObjectItemCaseSensitive(doc, "recovery");
	st->rec_attempt = hl_json_long(p, "attempt", 0, -HL_LONG_MAX, HL_LONG_MAX);
	st->rec_since = hl_json_long(p, "since", 0, 0, HL_LONG_MAX);
	st->rec_limit = hl_json_long(p, "limit_s", 0, 0, HL_LONG_MAX);
	st->rec_interval = hl_json_get(p, "interval_s", -1);
	if (!isfinite(st->rec_interval) || st->rec_interval <= 0)
		st->rec_interval = -1;
	st->rec_fired = hl_json_bool(p, "fired");
	if (st->rec_limit <= 0)
		st->rec_attempt = 0;

	arr = hl_json_array(doc, "alerts");
	cJSON_ArrayForEach(it, arr)
		hl_load_alert(st, it);
	st->seq = (unsigned long)hl_json_long(doc, "seq", 0, 0, HL_LONG_MAX);
	for (i = 0; i < st->nalerts; i++)
		if (st->alerts[i].seq > st->seq)
			st->seq = st->alerts[i].seq;
	st->dropped = (unsigned long)hl_json_long(doc, "dropped", 0, 0, HL_LONG_MAX);

	h->st = *st;
	free(st);
	return 0;
}
