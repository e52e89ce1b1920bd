/*
 * health-detect.c: the detectors, one small function of one log line or
 * one tick each (see health.h for the rules).
 *
 * health_line() feeds a line to progress (step, ETA), W&B links, loss (NaN,
 * spikes against the trend, recovery) and throughput (drops against the
 * baseline); health_tick() judges throughput and a relaunch that shows no
 * step.  They run per line and per tick: no allocation, no parse beyond
 * the compiled patterns, alerts queued into fixed arrays.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health-int.h"
#include "monotime.h"
#include "logscan.h"
#include "portable.h"

#define HL_NUM_MAX	64	/* longest captured number we parse */
#define HL_WB_SCAN	4096	/* bytes of a W&B line searched, after ANSI removal */

/* ---- small helpers ---- */

/* A finite double for display: %.4g, or nan/inf. */
const char *
hl_fmt(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "nan");
	else if (isinf(v))
		snprintf(buf, len, v < 0 ? "-inf" : "inf");
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

double
hl_median(const double *vals, size_t n)
{
	double tmp[HEALTH_TP_RECENT > HEALTH_TP_BASE_N ? HEALTH_TP_RECENT : HEALTH_TP_BASE_N], x;
	size_t i, j;

	if (n == 0)
		return NAN;
	if (n > sizeof(tmp) / sizeof(tmp[0]))
		n = sizeof(tmp) / sizeof(tmp[0]);
	for (i = 0; i < n; i++) {
		x = vals[i];
		for (j = i; j > 0 && tmp[j - 1] > x; j--)
			tmp[j] = tmp[j - 1];
		tmp[j] = x;
	}
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/*
 * A number as a pattern captured it: surrounding blanks and trailing
 * punctuation (",;)]}'\"%") are ignored; anything else around it rejects it.
 * "nan", "-inf", "Infinity" give NaN/Inf; an overflow gives Inf.
 */
static int
hl_parse_num(const char *s, size_t len, double *out)
{
	char tmp[HL_NUM_MAX], *end;
	size_t i = 0;
	double v;

	while (len > 0 && (s[0] == ' ' || s[0] == '\t')) {
		s++;
		len--;
	}
	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (memchr(tmp, '\0', len) != NULL)
		return -1;
	v = strtod(tmp, &end);
	if (end == tmp)
		return -1;
	for (i = (size_t)(end - tmp); i < len; i++)
		if (strchr(" \t,;)]}'\"%", tmp[i]) == NULL)
			return -1;
	*out = v;
	return 0;
}

/* A step count: digits, optionally grouped with ',' or '_'; nothing rounded ("5.16k"). */
static int
hl_parse_step(const char *s, size_t len, long *out)
{
	long v = 0;
	size_t i, digits = 0;

	while (len > 0 && (s[0] == ' ' || s[0] == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	for (i = 0; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (++digits > 15)	/* every step then survives health_save() as a double */
				return -1;
			v = v * 10 + (s[i] - '0');
		} else if ((s[i] != ',' && s[i] != '_') || i == 0 || i + 1 == len)
			return -1;
	}
	if (digits == 0)
		return -1;
	*out = v;
	return 0;
}

/* Group 1 (and 2) of p in line; 1 when group 1 matched. */
static int
hl_match(struct pattern *p, const char *line, size_t len, struct pattern_span *g)
{
	g[1].start = g[2].start = -1;
	return pattern_match_groups(p, line, len, g, 3) == 1 && g[1].start >= 0;
}

/* The step the run is at in this attempt, or -1. */
static long
hl_step(const struct health *h)
{
	return h->st.prog_attempt ? h->st.cur : -1;
}

/* Whether a metric's value is still in warm-up (see health.h); n counts its values. */
static int
hl_warm(const struct health *h, long warmup, long n)
{
	long ws;

	if (warmup <= 0)
		return 0;
	if (!h->st.prog_attempt)
		return n <= warmup;
	ws = h->st.attempt <= 1 || h->st.ws < 0 ? 0 : h->st.ws;
	return h->st.cur < ws + warmup;
}

static void
hl_alert(struct health *h, enum health_kind kind, time_t now, double value, double ref,
    const char *url, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static void
hl_alert(struct health *h, enum health_kind kind, time_t now, double value, double ref,
    const char *url, const char *id, const char *fmt, ...)
{
	struct hl_state *st = &h->st;
	struct health_alert *a;
	va_list ap;

	if (st->nalerts == HEALTH_ALERTS_MAX) {
		memmove(&st->alerts[0], &st->alerts[1], (HEALTH_ALERTS_MAX - 1) * sizeof(st->alerts[0]));
		st->nalerts--;
		st->dropped++;
	}
	a = &st->alerts[st->nalerts++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->severity = health_kinds[kind].severity;
	a->seq = ++st->seq;
	a->time = now;
	a->attempt = st->attempt;
	a->step = hl_step(h);
	a->value = value;
	a->ref = ref;
	va_start(ap, fmt);
	vsnprintf(a->text, sizeof(a->text), fmt, ap);
	va_end(ap);
	snprintf(a->url, sizeof(a->url), "%s", url != NULL ? url : "");
	snprintf(a->id, sizeof(a->id), "%s", id != NULL ? id : "");
}

/* " at step N" or "" into buf. */
static const char *
hl_at_step(const struct health *h, char *buf, size_t len)
{
	long step = hl_step(h);

	if (step < 0)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, " at step %ld", step);
	return buf;
}

/* ---- progress ---- */

static void
hl_sample(struct hl_state *st, long step, long now)
{
	struct hl_sample *s = st->samples;
	size_t n = st->nsamples;

	if (n > 0 && step < s[n - 1].step)
		n = 0;		/* went backwards: a new count */
	if (n > 0 && now <= s[n - 1].t)
		s[n - 1].step = step;	/* same second (or the clock stepped back) */
	else if (n >= 2 && s[n - 1].t - s[n - 2].t < HEALTH_RATE_SPACING_S)
		s[n - 1] = (struct hl_sample){ now, step };
	else {
		if (n == HEALTH_RATE_SAMPLES) {
			memmove(&s[0], &s[1], (n - 1) * sizeof(s[0]));
			n--;
		}
		s[n++] = (struct hl_sample){ now, step };
	}
	st->nsamples = n;
}

static void
hl_progress(struct health *h, const char *line, size_t len, time_t now)
{
	struct hl_state *st = &h->st;
	struct pattern_span g[3];
	long cur, max;

	if (!hl_match(h->progress, line, len, g) ||
	    hl_parse_step(line + g[1].start, (size_t)(g[1].end - g[1].start), &cur) != 0)
		return;
	if (g[2].start >= 0 &&
	    hl_parse_step(line + g[2].start, (size_t)(g[2].end - g[2].start), &max) == 0 && max > 0)
		st->max_log = max;
	st->cur = cur;
	st->prog_have = 1;
	st->prog_time = (long)now;
	if (!st->prog_attempt) {
		st->prog_attempt = 1;
		st->ws = cur;
	}
	hl_sample(st, cur, (long)now);
}

/* Steps per second over the window; < 0 unknown. */
double
hl_rate(const struct hl_state *st)
{
	const struct hl_sample *s = st->samples, *last, *base;
	size_t n = st->nsamples, i;

	if (n < 2)
		return -1;
	last = &s[n - 1];
	base = &s[0];
	for (i = n - 1; i-- > 0;)
		if (last->t - s[i].t >= HEALTH_RATE_WINDOW_S) {
			base = &s[i];
			break;
		}
	if (last->t - base->t < HEALTH_RATE_MIN_S || last->step < base->step)
		return -1;
	return (double)(last->step - base->step) / (double)(last->t - base->t);
}

/* ---- W&B ---- */

/* Copy line to out without ANSI CSI sequences (ESC [ ... final byte); returns the length. */
static size_t
hl_strip_ansi(const char *line, size_t len, char *out, size_t outlen)
{
	size_t i = 0, o = 0;

	while (i < len && o + 1 < outlen) {
		if (line[i] == '\033' && i + 1 < len && line[i + 1] == '[') {
			i += 2;
			while (i < len && ((unsigned char)line[i] < 0x40 || (unsigned char)line[i] > 0x7e))
				i++;
			i++;
			continue;
		}
		out[o++] = line[i++];
	}
	out[o] = '\0';
	return o;
}

static int
hl_urlchar(unsigned char c)
{
	return c > 0x20 && c < 0x7f && strchr("\"'<>`\\", c) == NULL;
}

static int
hl_idchar(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-';
}

/* NAME after "Syncing run " / "View run " up to " at" or the end, sanitized; 0 when none. */
static int
hl_wandb_name(const char *s, size_t len, char *name, size_t namelen)
{
	static const char *const intro[] = { "Syncing run ", "View run " };
	const char *p = NULL, *e, *at;
	char *clean;
	size_t i;

	for (i = 0; i < sizeof(intro) / sizeof(intro[0]) && p == NULL; i++)
		if ((p = memmem(s, len, intro[i], strlen(intro[i]))) != NULL)
			p += strlen(intro[i]);
	if (p == NULL)
		return 0;
	e = s + len;
	if ((at = memmem(p, (size_t)(e - p), " at:", 4)) != NULL ||
	    (at = memmem(p, (size_t)(e - p), " at ", 4)) != NULL)
		e = at;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	/* "View run at URL": no name. */
	if (e == p || (e - p == 2 && memcmp(p, "at", 2) == 0) || memmem(p, (size_t)(e - p), "://", 3))
		return 0;
	clean = linering_sanitize(p, (size_t)(e - p), namelen - 1);
	snprintf(name, namelen, "%s", clean);
	free(clean);
	return 1;
}

/* The first http(s) URL with /runs/ID in s: url and id; 0 when none. */
static int
hl_wandb_url(const char *s, size_t len, char *url, size_t urllen, char *id, size_t idlen)
{
	const char *p = s, *e = s + len, *r, *tok, *scheme, *idend, *q;

	while ((r = memmem(p, (size_t)(e - p), "/runs/", 6)) != NULL) {
		p = r + 6;
		for (tok = r; tok > s && r - tok < HEALTH_URL_MAX && hl_urlchar((unsigned char)tok[-1]);
		    tok--)
			;
		scheme = NULL;
		for (q = tok; q < r; q++)
			if ((size_t)(r - q) >= 7 && (memcmp(q, "http://", 7) == 0 ||
			    ((size_t)(r - q) >= 8 && memcmp(q, "https://", 8) == 0)))
				scheme = q;	/* the last one in the token */
		for (idend = r + 6; idend < e && hl_idchar((unsigned char)*idend); idend++)
			;
		if (scheme == NULL || idend == r + 6 || (size_t)(idend - (r + 6)) >= idlen ||
		    (size_t)(idend - scheme) >= urllen)
			continue;
		memcpy(url, scheme, (size_t)(idend - scheme));
		url[idend - scheme] = '\0';
		memcpy(id, r + 6, (size_t)(idend - (r + 6)));
		id[idend - (r + 6)] = '\0';
		return 1;
	}
	return 0;
}

/* A message into a fixed buffer, cut at its size (an alert's words are one line). */
static void
hl_textf(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
hl_textf(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, n, fmt, ap);
	va_end(ap);
}

/* A W&B run id seen (where: "the log links", "the run directory"): not wandb.id -> alert once. */
static void
hl_wandb_identity(struct health *h, const char *id, const char *where, const char *what,
    time_t now)
{
	struct hl_state *st = &h->st;

	if (h->wandb_id == NULL || id[0] == '\0' || strcmp(id, h->wandb_id) == 0 ||
	    st->wf_id_latched)
		return;
	st->wf_id_latched = 1;
	hl_textf(st->wf_text, sizeof(st->wf_text), "%s W&B run %s (%s), not wandb.id %s (attempt "
	    "%ld): its metrics land in another lineage", where, id, what, h->wandb_id, st->attempt);
	hl_alert(h, HEALTH_WANDB_IDENTITY, now, NAN, NAN, NULL, id, "%s", st->wf_text);
}

static void
hl_wandb(struct health *h, const char *line, size_t len, time_t now)
{
	struct hl_state *st = &h->st;
	char buf[HL_WB_SCAN], url[HEALTH_URL_MAX], id[HEALTH_ID_MAX], name[HEALTH_ID_MAX];
	size_t n, i;

	if (memmem(line, len, "wandb", 5) == NULL && memmem(line, len, "/runs/", 6) == NULL)
		return;
	n = hl_strip_ansi(line, len, buf, sizeof(buf));
	if (memmem(buf, n, "wandb", 5) != NULL && hl_wandb_name(buf, n, name, sizeof(name)))
		snprintf(st->wb_pending, sizeof(st->wb_pending), "%s", name);
	if (!hl_wandb_url(buf, n, url, sizeof(url), id, sizeof(id)))
		return;
	for (i = 0; i < st->wb_nseen; i++)
		if (strcmp(st->wb_seen[i], id) == 0)
			break;
	/* Past HEALTH_WANDB_IDS ids in one attempt, this is not one run's log: stay quiet. */
	if (i == st->wb_nseen && st->wb_nseen < HEALTH_WANDB_IDS) {
		snprintf(st->wb_seen[st->wb_nseen++], HEALTH_ID_MAX, "%s", id);
		snprintf(st->wb_url, sizeof(st->wb_url), "%s", url);
		snprintf(st->wb_id, sizeof(st->wb_id), "%s", id);
		snprintf(st->wb_name, sizeof(st->wb_name), "%s", st->wb_pending);
		hl_alert(h, HEALTH_WANDB, now, NAN, NAN, url, id, "W&B run %s%s%s (attempt %ld): %s",
		    st->wb_name[0] != '\0' ? st->wb_name : id, st->wb_name[0] != '\0' ? " id " : "",
		    st->wb_name[0] != '\0' ? id : "", st->attempt, url);
		hl_wandb_identity(h, id, "the log links", url, now);
	}
	st->wb_pending[0] = '\0';	/* a name belongs to the next link only */
}

/* ---- loss ---- */

static void
hl_trend_feed(struct hl_state *st, double v)
{
	double alpha = 2.0 / (HEALTH_TREND_SPAN + 1), next;

	if (1.0 / (double)(st->trend_n + 1) > alpha)
		alpha = 1.0 / (double)(st->trend_n + 1);
	next = st->trend + alpha * (v - st->trend);
	if (!isfinite(next))
		return;		/* 1e308 after -1e308: no trend can hold it */
	st->trend = next;
	st->trend_n++;
}

/* The value above which a loss is a spike, for a fraction of spike_pct. */
static double
hl_spike_limit(const struct health *h, double frac)
{
	return h->st.trend + fabs(h->st.trend) * h->spike_pct / 100.0 * frac;
}

/* ---- resume ---- */

static int
hl_point_cmp(const void *a, const void *b)
{
	const struct hl_point *x = a, *y = b;

	return x->step < y->step ? -1 : x->step > y->step;
}

void
hl_resume_new_attempt(struct hl_state *st)
{
	struct hl_point all[2 * HEALTH_RESUME_N];
	size_t n = 0, i, k;

	/* The earlier pairs, less the steps this attempt logged again: the newer attempt wins. */
	for (i = 0; i < st->nprev; i++) {
		for (k = 0; k < st->nlr && st->lr[k].step != st->prev[i].step; k++)
			;
		if (k == st->nlr)
			all[n++] = st->prev[i];
	}
	for (i = 0; i < st->nlr; i++)
		all[n++] = st->lr[i];	/* one pair a step already (hl_resume_check) */
	qsort(all, n, sizeof(all[0]), hl_point_cmp);
	i = n > HEALTH_RESUME_N ? n - HEALTH_RESUME_N : 0;	/* the newest steps */
	st->nprev = n - i;
	memcpy(st->prev, all + i, st->nprev * sizeof(st->prev[0]));
	st->nlr = st->lr_next = 0;
	st->res_first = -1;
	st->res_from = -1;
	st->res_latched = 0;
	st->res_text[0] = '\0';
}

static const struct hl_point *
hl_prev_at(const struct hl_state *st, long step)
{
	struct hl_point key = { step, 0 };

	return bsearch(&key, st->prev, st->nprev, sizeof(st->prev[0]), hl_point_cmp);
}

/* A loss at step in this attempt: kept, and judged against the earlier lineage's. */
static void
hl_resume_check(struct health *h, long step, double v, time_t now)
{
	struct hl_state *st = &h->st;
	const struct hl_point *p;
	char a[32], b[32];
	double d;
	int bad;

	if (step < 0)
		return;
	if (st->nlr > 0 && st->lr[(st->lr_next + HEALTH_RESUME_N - 1) % HEALTH_RESUME_N].step == step)
		st->lr[(st->lr_next + HEALTH_RESUME_N - 1) % HEALTH_RESUME_N].loss = v;
	else {
		st->lr[st->lr_next] = (struct hl_point){ step, v };
		st->lr_next = (st->lr_next + 1) % HEALTH_RESUME_N;
		if (st->nlr < HEALTH_RESUME_N)
			st->nlr++;
	}
	if (st->res_from < 0 || step <= st->res_from || st->nprev == 0)
		return;
	if (st->res_first < 0)
		st->res_first = step;
	if (st->res_latched || (p = hl_prev_at(st, step)) == NULL || !isfinite(p->loss))
		return;
	d = fabs(v - p->loss);
	if (h->resume_warmup == 0)
		bad = d > HEALTH_RESUME_ABS;
	else if (step - st->res_first < h->resume_warmup)
		return;		/* inside the post-resume warm-up: not judged */
	else
		bad = d > HEALTH_RESUME_REL * fabs(p->loss);
	if (!bad)
		return;
	st->res_latched = 1;
	hl_textf(st->res_text, sizeof(st->res_text), "after the resume (attempt %ld, from the "
	    "checkpoint at step %ld) the loss at step %ld is %s; the earlier lineage logged %s "
	    "there (%s)", st->attempt, st->res_from, step, hl_fmt(v, a, sizeof(a)), hl_fmt(p->loss, b, sizeof(b)),
	    h->resume_warmup == 0 ? "more than 0.002 apart in the catch-up" :
	    "more than 1% apart after loss.resume_warmup_steps");
	hl_alert(h, HEALTH_RESUME_MISMATCH, now, v, p->loss, NULL, NULL, "%s", st->res_text);
}

void
health_resume_from(struct health *h, long step)
{
	h->st.res_from = step >= 0 ? step : -1;
}

/* ---- W&B files ---- */

void
health_wandb_files(struct health *h, const struct health_wandb_files *f, time_t now)
{
	struct hl_state *st = &h->st;
	char dur[32];
	int moved;

	if (!f->seen)
		return;
	hl_wandb_identity(h, f->id, "the run directory logs to", f->dir, now);
	moved = !st->wf_seen || strcmp(st->wf_id, f->id) != 0 || f->txlog != st->wf_txlog ||
	    !((isnan(f->step) && isnan(st->wf_step)) || f->step == st->wf_step) ||
	    !((isnan(f->ts) && isnan(st->wf_ts)) || f->ts == st->wf_ts);
	if (moved) {
		st->wf_seen = 1;
		snprintf(st->wf_id, sizeof(st->wf_id), "%s", f->id);
		st->wf_step = f->step;
		st->wf_ts = f->ts;
		st->wf_txlog = f->txlog;
		st->wf_since = (long)now;
		st->wf_prog = st->prog_attempt ? st->cur : -1;
		if (st->wf_stale_latched) {
			st->wf_stale_latched = 0;
			hl_alert(h, HEALTH_WANDB_FRESH, now, NAN, NAN, NULL, f->id,
			    "W&B run %s logs again (its transaction log is %lld bytes)", f->id,
			    f->txlog);
		}
		return;
	}
	if (st->wf_stale_latched || (long)now - st->wf_since < h->wandb_stale_s ||
	    !st->prog_attempt || st->cur <= st->wf_prog)
		return;
	st->wf_stale_latched = 1;
	timefmt_duration((long)now - st->wf_since, dur, sizeof(dur));
	hl_textf(st->wf_stale_text, sizeof(st->wf_stale_text), "W&B run %.64s: its transaction "
	    "log run-%.64s.wandb (%lld bytes) has not grown for %s while the log went from step "
	    "%ld to %ld: nothing reaches W&B", f->id, f->id, f->txlog, dur, st->wf_prog, st->cur);
	hl_alert(h, HEALTH_WANDB_STALE, now, NAN, NAN, NULL, f->id, "%s", st->wf_stale_text);
}

static void
hl_loss(struct health *h, const char *line, size_t len, time_t now)
{
	struct hl_state *st = &h->st;
	struct pattern_span g[3];
	char a[32], b[32], at[48];
	long step = hl_step(h);
	double v;

	if (!hl_match(h->loss, line, len, g) ||
	    hl_parse_num(line + g[1].start, (size_t)(g[1].end - g[1].start), &v) != 0)
		return;
	/* A progress bar redrawn at the same step with the same value is one value. */
	if (st->loss_have && step >= 0 && step == st->loss_step &&
	    (v == st->loss_last || (isnan(v) && isnan(st->loss_last))))
		return;
	st->loss_n++;
	st->loss_have = 1;
	st->loss_last = v;
	st->loss_step = step;
	if (!isfinite(v)) {
		if (!st->nan_latched) {
			st->nan_latched = 1;
			hl_alert(h, HEALTH_NAN_LOSS, now, v, st->trend_n > 0 ? st->trend : NAN,
			    NULL, NULL, "loss is %s%s (attempt %ld)", hl_fmt(v, a, sizeof(a)),
			    hl_at_step(h, at, sizeof(at)), st->attempt);
		}
		return;
	}
	hl_resume_check(h, step, v, now);
	if (hl_warm(h, h->loss_warmup, st->loss_n) || st->trend_n < HEALTH_TREND_MIN) {
		st->spike_run = 0;
		hl_trend_feed(st, v);
		return;
	}
	if (v > hl_spike_limit(h, 1)) {
		if (++st->spike_run >= h->spike_steps && !st->spike_latched) {
			st->spike_latched = 1;
			hl_alert(h, HEALTH_LOSS_SPIKE, now, v, st->trend, NULL, NULL,
			    "loss %s is %.0f%% above its trend %s for %ld logged values in a row%s",
			    hl_fmt(v, a, sizeof(a)), (v - st->trend) / fabs(st->trend) * 100,
			    hl_fmt(st->trend, b, sizeof(b)), st->spike_run,
			    hl_at_step(h, at, sizeof(at)));
		}
		return;		/* a spike never feeds the trend */
	}
	st->spike_run = 0;
	if (st->spike_latched && v <= hl_spike_limit(h, 0.5)) {
		st->spike_latched = 0;
		hl_alert(h, HEALTH_LOSS_RECOVERED, now, v, st->trend, NULL, NULL,
		    "loss %s is back near its trend %s%s", hl_fmt(v, a, sizeof(a)),
		    hl_fmt(st->trend, b, sizeof(b)), hl_at_step(h, at, sizeof(at)));
	}
	hl_trend_feed(st, v);
}

/* ---- throughput ---- */

static void
hl_throughput(struct health *h, const char *line, size_t len)
{
	struct hl_state *st = &h->st;
	struct pattern_span g[3];
	double v;

	if (!hl_match(h->tp, line, len, g) ||
	    hl_parse_num(line + g[1].start, (size_t)(g[1].end - g[1].start), &v) != 0 ||
	    !isfinite(v) || v < 0)
		return;
	st->tp_n++;
	st->tp_have = 1;
	st->tp_last = v;
	if (hl_warm(h, h->tp_warmup, st->tp_n))
		return;
	if (st->nbase < HEALTH_TP_BASE_N) {
		st->base[st->nbase++] = v;
		if (st->nbase == HEALTH_TP_BASE_N)
			st->baseline = hl_median(st->base, st->nbase);
	}
	st->recent[st->recent_next] = v;
	st->recent_next = (st->recent_next + 1) % HEALTH_TP_RECENT;
	if (st->nrecent < HEALTH_TP_RECENT)
		st->nrecent++;
}

/* ---- recovery ---- */

void
health_expect_step(struct health *h, time_t started, long limit_s, double interval_s)
{
	struct hl_state *st = &h->st;

	if (h->progress == NULL || limit_s <= 0)
		return;
	if (st->rec_attempt != st->attempt)
		st->rec_fired = 0;
	st->rec_attempt = st->attempt;
	st->rec_since = (long)started;
	st->rec_limit = limit_s;
	st->rec_interval = isfinite(interval_s) && interval_s > 0 ? interval_s : -1;
}

double
health_step_interval(const struct health *h)
{
	const struct hl_state *st = &h->st;
	const struct hl_sample *a, *b;

	if (!st->prog_attempt || st->nsamples < 2)
		return -1;
	a = &st->samples[0];
	b = &st->samples[st->nsamples - 1];
	if (b->t <= a->t || b->step <= a->step)
		return -1;
	return (double)(b->t - a->t) / (double)(b->step - a->step);
}

/* " (attempt 2; before the failure a step came every 300 s)" into buf. */
const char *
hl_rec_words(const struct hl_state *st, char *buf, size_t len)
{
	char iv[32];

	if (st->rec_interval > 0)
		snprintf(buf, len, "attempt %ld; before the failure a step came every %s s",
		    st->attempt, hl_fmt(st->rec_interval, iv, sizeof(iv)));
	else
		snprintf(buf, len, "attempt %ld; the step interval before the failure is unknown",
		    st->attempt);
	return buf;
}

static void
hl_recovery(struct health *h, time_t now)
{
	struct hl_state *st = &h->st;
	char w[128];

	if (st->rec_attempt == 0 || st->rec_attempt != st->attempt || st->rec_fired ||
	    st->prog_attempt || (long)now - st->rec_since < st->rec_limit)
		return;
	st->rec_fired = 1;
	hl_alert(h, HEALTH_RECOVERY_STALLED, now, (double)((long)now - st->rec_since),
	    (double)st->rec_limit, NULL, NULL, "no new step %ld s after the relaunch (%s)",
	    (long)now - st->rec_since, hl_rec_words(st, w, sizeof(w)));
}

void
health_tick(struct health *h, time_t now)
{
	struct hl_state *st = &h->st;
	char a[32], b[32], at[48];
	double m, limit;

	hl_recovery(h, now);
	if (st->nrecent == 0)
		return;		/* nothing logged since the last tick: no judgement */
	m = hl_median(st->recent, st->nrecent);
	st->nrecent = st->recent_next = 0;
	st->tick_have = 1;
	st->tick_val = m;
	if (st->nbase < HEALTH_TP_BASE_N)
		return;
	limit = st->baseline * (1 - h->drop_pct / 100.0);
	if (m < limit) {
		/* Sustained: low at every tick for window_s (several check cadences), not one dip. */
		if (st->low_ticks++ == 0 || st->low_since <= 0 || st->low_since > (long)now)
			st->low_since = (long)now;
		if (st->low_ticks >= h->tp_ticks && (long)now - st->low_since >= h->tp_window_s &&
		    !st->tp_latched) {
			char dur[32];

			st->tp_latched = 1;
			timefmt_duration((long)now - st->low_since, dur, sizeof(dur));
			hl_alert(h, HEALTH_THROUGHPUT_DROP, now, m, st->baseline, NULL, NULL,
			    "throughput %s is %.0f%% below its baseline %s, low for %s (%ld checks in "
			    "a row; throughput.window_s %ld)%s",
			    hl_fmt(m, a, sizeof(a)), (st->baseline - m) / st->baseline * 100,
			    hl_fmt(st->baseline, b, sizeof(b)), dur, st->low_ticks, h->tp_window_s,
			    hl_at_step(h, at, sizeof(at)));
		}
		return;
	}
	st->low_ticks = 0;
	st->low_since = 0;
	if (st->tp_latched) {
		st->tp_latched = 0;
		hl_alert(h, HEALTH_THROUGHPUT_RECOVERED, now, m, st->baseline, NULL, NULL,
		    "throughput %s is back near its baseline %s%s", hl_fmt(m, a, sizeof(a)),
		    hl_fmt(st->baseline, b, sizeof(b)), hl_at_step(h, at, sizeof(at)));
	}
}

/* ---- lines ---- */

void
health_line(struct health *h, const char *line, size_t len, time_t now)
{
	const char *cr;

	if (line == NULL || len == 0)
		return;
	if (len > HEALTH_LINE_MAX)
		len = HEALTH_LINE_MAX;
	/* A redrawn bar the caller did not split: its newest non-empty state. */
	while ((cr = wk_memlast(line, '\r', len)) != NULL) {
		if (cr + 1 < line + len) {
			len -= (size_t)(cr + 1 - line);
			line = cr + 1;
			break;
		}
		len = (size_t)(cr - line);
	}
	if (len == 0)
		return;
	if (h->progress != NULL)
		hl_progress(h, line, len, now);
	if (h->wandb)
		hl_wandb(h, line, len, now);
	if (h->loss != NULL)
		hl_loss(h, line, len, now);
	if (h->tp != NULL)
		hl_throughput(h, line, len);
}
