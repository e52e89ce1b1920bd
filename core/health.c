/*
 * health.c: progress, ETA, W&B links, loss and throughput health from a
 * training log, line by line (see health.h for the rules).
 *
 * The struct splits in two: what the options compiled (patterns and
 * thresholds, fixed for the struct's life) and struct hl_state, every bit of
 * what was learned from the log.  The state holds no pointers, only fixed
 * arrays, so health_load() builds a new one aside and copies it in whole
 * when it parsed, and a torn or hostile state file cannot leave h half
 * loaded.  Every detector is a small function of one line or one tick; the
 * alert wording and severity sit in one table (monit's Event_Table shape).
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "health.h"
#include "logscan.h"
#include "pattern.h"
#include "xmalloc.h"

#define HL_VERSION	1
#define HL_NUM_MAX	64	/* longest captured number we parse */
#define HL_WB_SCAN	4096	/* bytes of a W&B line searched, after ANSI removal */

const struct health_kind_info health_kinds[HEALTH_NKINDS] = {
	{ HEALTH_WANDB, "wandb", HEALTH_INFO, "W&B run" },
	{ HEALTH_NAN_LOSS, "nan_loss", HEALTH_CRITICAL, "loss is NaN/Inf" },
	{ HEALTH_LOSS_SPIKE, "loss_spike", HEALTH_DEGRADED, "loss spike" },
	{ HEALTH_LOSS_RECOVERED, "loss_recovered", HEALTH_INFO, "loss back to its trend" },
	{ HEALTH_THROUGHPUT_DROP, "throughput_drop", HEALTH_DEGRADED, "throughput drop" },
	{ HEALTH_THROUGHPUT_RECOVERED, "throughput_recovered", HEALTH_INFO,
	  "throughput back to its baseline" },
	{ HEALTH_RECOVERY_STALLED, "recovery_stalled", HEALTH_DEGRADED,
	  "no step after a relaunch" },
};

static const char *const hl_sev_names[] = {
	[HEALTH_INFO] = "info",
	[HEALTH_DEGRADED] = "degraded",
	[HEALTH_CRITICAL] = "critical",
};

struct hl_sample {
	long	t;		/* the caller's now */
	long	step;		/* the last step observed at t */
};

struct hl_state {
	long	 attempt;
	/* progress */
	int	 prog_have;		/* ever */
	int	 prog_attempt;		/* in this attempt */
	long	 cur;
	long	 max_log;		/* the log's group 2; 0 none */
	long	 prog_time;
	long	 ws;			/* the attempt's first step (warm-up start for attempts > 1) */
	struct hl_sample samples[HEALTH_RATE_SAMPLES];	/* oldest first */
	size_t	 nsamples;
	/* W&B */
	char	 wb_url[HEALTH_URL_MAX];
	char	 wb_id[HEALTH_ID_MAX];
	char	 wb_name[HEALTH_ID_MAX];	/* the name printed with wb_url's run */
	char	 wb_pending[HEALTH_ID_MAX];	/* the newest "Syncing run NAME" of this attempt */
	char	 wb_seen[HEALTH_WANDB_IDS][HEALTH_ID_MAX];	/* ids reported this attempt */
	size_t	 wb_nseen;
	/* loss */
	long	 loss_n;		/* values this attempt */
	int	 loss_have;
	double	 loss_last;
	long	 loss_step;		/* step of loss_last; -1 unknown */
	double	 trend;
	long	 trend_n;
	long	 spike_run;
	int	 spike_latched;
	int	 nan_latched;
	/* throughput */
	long	 tp_n;			/* values this attempt */
	int	 tp_have;
	double	 tp_last;
	double	 base[HEALTH_TP_BASE_N];
	size_t	 nbase;
	double	 baseline;		/* valid when nbase == HEALTH_TP_BASE_N */
	double	 recent[HEALTH_TP_RECENT];	/* a ring of the values since the last tick */
	size_t	 nrecent;
	size_t	 recent_next;
	int	 tick_have;
	double	 tick_val;
	long	 low_ticks;
	int	 tp_latched;
	/* recovery: the attempt watched for its first step (health_expect_step); 0 none */
	long	 rec_attempt;
	long	 rec_since;		/* its launch, unix seconds */
	long	 rec_limit;		/* seconds */
	double	 rec_interval;		/* the step interval before the failure; <= 0 unknown */
	int	 rec_fired;
	/* alerts not yet taken, oldest first */
	struct health_alert alerts[HEALTH_ALERTS_MAX];
	size_t	 nalerts;
	unsigned long seq;
	unsigned long dropped;
};

struct health {
	struct pattern	*progress;	/* NULL: off */
	long		 progress_max;
	struct pattern	*loss;
	double		 spike_pct;
	long		 spike_steps;
	long		 loss_warmup;
	struct pattern	*tp;
	double		 drop_pct;
	long		 tp_ticks;
	long		 tp_warmup;
	int		 wandb;
	struct hl_state	 st;
};

/* ---- the kind table ---- */

const char *
health_kind_name(enum health_kind kind)
{
	if ((unsigned)kind >= HEALTH_NKINDS)
		return "unknown";
	return health_kinds[kind].name;
}

enum health_kind
health_kind_by_name(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < HEALTH_NKINDS; i++)
		if (strcmp(health_kinds[i].name, name) == 0)
			return health_kinds[i].kind;
	return HEALTH_NKINDS;
}

const char *
health_severity_name(enum health_severity sev)
{
	if ((unsigned)sev > HEALTH_CRITICAL)
		return "unknown";
	return hl_sev_names[sev];
}

/* ---- construction ---- */

void
health_opts_from_config(const struct wk_config *cfg, struct health_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (cfg->has_progress) {
		o->progress_re = cfg->progress.pattern;
		o->progress_max = cfg->progress.max;
	}
	o->loss_re = config_get_str(cfg, "loss.pattern");
	o->spike_pct = config_get_num(cfg, "loss.spike_pct");
	o->spike_steps = config_get_int(cfg, "loss.spike_steps");
	o->loss_warmup = config_get_int(cfg, "loss.warmup_steps");
	o->tp_re = config_get_str(cfg, "throughput.pattern");
	o->drop_pct = config_get_num(cfg, "throughput.drop_pct");
	o->tp_ticks = config_get_int(cfg, "throughput.ticks");
	o->tp_warmup = config_get_int(cfg, "throughput.warmup_steps");
	o->wandb = 1;
}

/* Compile re for key into *p (NULL re: leave NULL); 0 or an error named in errbuf. */
static int
hl_compile(const char *key, const char *re, struct pattern **p, char *errbuf, size_t errlen)
{
	char msg[256];
	int r;

	if (re == NULL)
		return 0;
	if ((r = pattern_compile(re, p, msg, sizeof(msg))) != 0) {
		snprintf(errbuf, errlen, "%s: %s", key, msg);
		return r;
	}
	if (pattern_ngroups(*p) < 1) {
		snprintf(errbuf, errlen, "%s: needs a capture group (group 1 = the value)", key);
		return WK_ERR_INVALID;
	}
	return 0;
}

static void
hl_state_reset(struct hl_state *st)
{
	memset(st, 0, sizeof(*st));
	st->ws = -1;
	st->loss_step = -1;
}

int
health_new_opts(const struct health_opts *o, struct health **out, char *errbuf, size_t errlen)
{
	struct health *h;
	char scratch[8];
	int r;

	*out = NULL;
	if (errbuf == NULL || errlen == 0) {
		errbuf = scratch;
		errlen = sizeof(scratch);
	}
	errbuf[0] = '\0';
	h = xcalloc(1, sizeof(*h));
	if ((r = hl_compile("progress.pattern", o->progress_re, &h->progress, errbuf, errlen)) != 0 ||
	    (r = hl_compile("loss.pattern", o->loss_re, &h->loss, errbuf, errlen)) != 0 ||
	    (r = hl_compile("throughput.pattern", o->tp_re, &h->tp, errbuf, errlen)) != 0)
		goto out;
	h->progress_max = o->progress_max > 0 ? o->progress_max : 0;
	h->spike_pct = o->spike_pct > 0 ? o->spike_pct : 50;
	h->spike_steps = o->spike_steps > 0 ? o->spike_steps : 10;
	h->loss_warmup = o->loss_warmup > 0 ? o->loss_warmup : 0;
	h->drop_pct = o->drop_pct > 0 && o->drop_pct <= 100 ? o->drop_pct : 25;
	h->tp_ticks = o->tp_ticks > 0 ? o->tp_ticks : 2;
	h->tp_warmup = o->tp_warmup > 0 ? o->tp_warmup : 0;
	h->wandb = o->wandb != 0;
	hl_state_reset(&h->st);
	*out = h;
	h = NULL;	/* transferred */
 out:
	health_free(h);
	return r;
}

int
health_new(const struct wk_config *cfg, struct health **out, char *errbuf, size_t errlen)
{
	struct health_opts o;

	health_opts_from_config(cfg, &o);
	return health_new_opts(&o, out, errbuf, errlen);
}

void
health_free(struct health *h)
{
	if (h == NULL)
		return;
	pattern_free(h->progress);
	pattern_free(h->loss);
	pattern_free(h->tp);
	free(h);
}

void
health_new_attempt(struct health *h, long attempt)
{
	struct hl_state *st = &h->st;

	if (attempt == st->attempt)
		return;
	st->attempt = attempt;
	st->prog_attempt = 0;
	st->ws = -1;
	st->nsamples = 0;
	st->wb_nseen = 0;
	st->wb_pending[0] = '\0';
	st->loss_n = 0;
	st->loss_step = -1;
	st->trend = 0;
	st->trend_n = 0;
	st->spike_run = 0;
	st->spike_latched = 0;
	st->nan_latched = 0;
	st->tp_n = 0;
	st->nbase = 0;
	st->baseline = 0;
	st->nrecent = 0;
	st->recent_next = 0;
	st->tick_have = 0;
	st->low_ticks = 0;
	st->tp_latched = 0;
}

long
health_attempt(const struct health *h)
{
	return h->st.attempt;
}

/* ---- small helpers ---- */

/* A finite double for display: %.4g, or nan/inf. */
static const char *
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

static double
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
static double
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
static const char *
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
		if (++st->low_ticks >= h->tp_ticks && !st->tp_latched) {
			st->tp_latched = 1;
			hl_alert(h, HEALTH_THROUGHPUT_DROP, now, m, st->baseline, NULL, NULL,
			    "throughput %s is %.0f%% below its baseline %s for %ld ticks in a row%s",
			    hl_fmt(m, a, sizeof(a)), (st->baseline - m) / st->baseline * 100,
			    hl_fmt(st->baseline, b, sizeof(b)), st->low_ticks,
			    hl_at_step(h, at, sizeof(at)));
		}
		return;
	}
	st->low_ticks = 0;
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
	while ((cr = memrchr(line, '\r', len)) != NULL) {
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

/* ---- alerts ---- */

size_t
health_take_alerts(struct health *h, struct health_alert **out)
{
	struct hl_state *st = &h->st;
	size_t n = st->nalerts;

	*out = NULL;
	if (n == 0)
		return 0;
	*out = xreallocarray(NULL, n, sizeof(**out));
	memcpy(*out, st->alerts, n * sizeof(**out));
	st->nalerts = 0;
	return n;
}

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
	cJSON_AddNumberToObject(t, "low_ticks", (double)st->low_ticks);
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
