/*
 * health.c: progress, ETA, W&B links, loss and throughput health from a
 * training log (see health.h for the rules): the front.
 *
 * The alert kinds, their wording and severity sit in one table
 * (health_kinds[], monit's Event_Table shape); this file holds it, builds
 * and frees the struct from the options (patterns compiled once), starts a
 * new attempt and hands out the alerts the detectors queued.  The detectors
 * that read each line and each tick are health-detect.c; the view, the
 * alert JSON and the saved state are health-state.c; what they share is
 * health-int.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "health-int.h"
#include "schedule.h"
#include "xmalloc.h"

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
	{ HEALTH_CAPACITY_WAIT, "capacity_wait", HEALTH_DEGRADED,
	  "cluster job pending for capacity" },
	{ HEALTH_CLUSTER_STALL, "cluster_stall", HEALTH_DEGRADED,
	  "no progress, with a cluster failure in the job's log" },
	{ HEALTH_RESUME_MISMATCH, "resume_mismatch", HEALTH_CRITICAL,
	  "a resumed loss departs from the earlier lineage" },
	{ HEALTH_WANDB_IDENTITY, "wandb_identity", HEALTH_CRITICAL,
	  "W&B logs to another run than wandb.id" },
	{ HEALTH_WANDB_STALE, "wandb_stale", HEALTH_DEGRADED,
	  "W&B summary stands still while training advances" },
	{ HEALTH_WANDB_FRESH, "wandb_fresh", HEALTH_INFO, "W&B summary moving again" },
};

static const char *const hl_sev_names[] = {
	[HEALTH_INFO] = "info",
	[HEALTH_DEGRADED] = "degraded",
	[HEALTH_CRITICAL] = "critical",
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
	o->tp_window_s = config_get_int(cfg, "throughput.window_s");
	if (o->tp_window_s == 0) {	/* three patrol intervals */
		struct sched s;
		char why[160];

		o->tp_window_s = sched_parse(config_get_str(cfg, "patrol.schedule"), &s, why,
		    sizeof(why)) == 0 ? 3 * sched_interval_s(&s) : 3 * 1800;
	}
	o->tp_warmup = config_get_int(cfg, "throughput.warmup_steps");
	o->resume_warmup = config_get_int(cfg, "loss.resume_warmup_steps");
	o->wandb_id = config_get_str(cfg, "wandb.id");
	o->wandb_stale_s = config_get_int(cfg, "wandb.stale_s");
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

void
hl_state_reset(struct hl_state *st)
{
	memset(st, 0, sizeof(*st));
	st->ws = -1;
	st->loss_step = -1;
	st->res_first = -1;
	st->res_from = -1;
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
	h->tp_window_s = o->tp_window_s > 0 ? o->tp_window_s : 0;
	h->tp_warmup = o->tp_warmup > 0 ? o->tp_warmup : 0;
	h->resume_warmup = o->resume_warmup > 0 ? o->resume_warmup : 0;
	h->wandb_id = o->wandb_id != NULL && *o->wandb_id != '\0' ? xstrdup(o->wandb_id) : NULL;
	h->wandb_stale_s = o->wandb_stale_s > 0 ? o->wandb_stale_s : 3600;
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
	free(h->wandb_id);
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
	st->low_since = 0;
	st->tp_latched = 0;
	hl_resume_new_attempt(st);
	st->wf_seen = 0;
	st->wf_id_latched = 0;
	st->wf_stale_latched = 0;
}

long
health_attempt(const struct health *h)
{
	return h->st.attempt;
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
