/*
 * test_health.c: core/health.c against generated logs in the shapes real
 * trainers print (HF Trainer dicts and tqdm bars, PyTorch Lightning bars,
 * Megatron-LM iteration lines, a plain "step N/M | loss | tokens/s" loop,
 * wandb's banner): progress with the exact max and a sane ETA, W&B links
 * once per attempt, NaN/Inf at once, a 10-value loss spike that fires where
 * 9 do not, a throughput collapse over 2 ticks where 1 does not, warm-up,
 * save -> load -> continue without re-firing, hostile input and hostile
 * state files, and a restart in the middle of a log read with logscan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "health.h"
#include "logscan.h"
#include "unit.h"

#define T0	((time_t)1767225600)	/* 2026-01-01T00:00:00Z */

/* ---- log shapes ---- */

/* A plain training loop's line. */
#define GEN_PROGRESS	"step (\\d+)/(\\d+)"
#define GEN_LOSS	"\\| loss ([^ |]+)"
#define GEN_TP		"tokens/s ([0-9.]+)"

/* HF Trainer: a tqdm bar for progress and throughput, a dict for the loss. */
#define HF_PROGRESS	"\\|\\s*(\\d+)/(\\d+) \\["
#define HF_LOSS		"'loss': ([^,}]+)"
#define HF_TP		"([0-9.]+)it/s"

/* Megatron-LM's iteration line. */
#define MEG_PROGRESS	"iteration\\s+(\\d+)/\\s*(\\d+)"
#define MEG_LOSS	"lm loss: ([^ |]+)"
#define MEG_TP		"TFLOP/s/GPU\\): ([0-9.]+)"

/* PyTorch Lightning's bar carries the loss in its postfix. */
#define PL_LOSS		"loss=([^,\\]]+)"

static uint64_t rng_state = 88172645463325252ULL;

/* Deterministic noise in [-1, 1). */
static double
noise(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / (double)(1ULL << 52) - 1.0;
}

static void
feed(struct health *h, time_t now, const char *line)
{
	health_line(h, line, strlen(line), now);
}

static void feedf(struct health *h, time_t now, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
feedf(struct health *h, time_t now, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	feed(h, now, line);
}

static void
gen_line(struct health *h, time_t now, long step, long max, double loss, double tps)
{
	feedf(h, now, "step %ld/%ld | loss %.4f | lr 2.9e-04 | grad_norm 0.84 | tokens/s %.0f",
	    step, max, loss, tps);
}

static void
meg_line(struct health *h, time_t now, long it, long max, const char *loss, double tflops)
{
	feedf(h, now, " iteration %8ld/%8ld | consumed samples: %12ld | elapsed time per "
	    "iteration (ms): 1043.2 | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: "
	    "1.500000E-04 | global batch size:   512 | lm loss: %s | loss scale: 1.0 | "
	    "grad norm: 0.845 | number of skipped iterations:   0 | number of nan iterations:   0 |",
	    it, max, it * 512, tflops, loss);
}

static void
meg_num(struct health *h, time_t now, long it, double loss)
{
	char l[32];

	snprintf(l, sizeof(l), "%.6E", loss);
	meg_line(h, now, it, 500000, l, 180.5 + noise());
}

/* An HF Trainer tqdm redraw, as logscan delivers one '\r' segment. */
static void
hf_bar(struct health *h, time_t now, long step, long max, double its)
{
	long pct = step * 100 / max;

	feedf(h, now, " %2ld%%|%-10.*s| %ld/%ld [%02ld:%02ld<%02ld:%02ld, %.2fit/s]", pct,
	    (int)(pct / 10), "##########", step, max, step / 2 / 60, step / 2 % 60,
	    (max - step) / 2 / 60, (max - step) / 2 % 60, its);
}

static void
hf_dict(struct health *h, time_t now, const char *loss, double epoch)
{
	feedf(h, now, "{'loss': %s, 'grad_norm': 1.2345678, 'learning_rate': 4.5e-05, "
	    "'epoch': %.2f}", loss, epoch);
}

/* ---- helpers ---- */

static struct health *
mk(const struct health_opts *o)
{
	struct health *h = NULL;
	char err[256];

	assert_int_equal(health_new_opts(o, &h, err, sizeof(err)), 0);
	assert_non_null(h);
	return h;
}

static void
opts_gen(struct health_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->progress_re = GEN_PROGRESS;
	o->loss_re = GEN_LOSS;
	o->spike_pct = 50;
	o->spike_steps = 10;
	o->tp_re = GEN_TP;
	o->drop_pct = 25;
	o->tp_ticks = 2;
	o->wandb = 1;
}

static void
opts_meg(struct health_opts *o)
{
	opts_gen(o);
	o->progress_re = MEG_PROGRESS;
	o->loss_re = MEG_LOSS;
	o->tp_re = MEG_TP;
}

static void
opts_hf(struct health_opts *o)
{
	opts_gen(o);
	o->progress_re = HF_PROGRESS;
	o->loss_re = HF_LOSS;
	o->tp_re = HF_TP;
}

/* Take the pending alerts: how many there were, and how many of kind. */
static size_t
take(struct health *h, enum health_kind kind, size_t *nkind)
{
	struct health_alert *a = NULL;
	size_t n = health_take_alerts(h, &a), i, k = 0;

	for (i = 0; i < n; i++) {
		assert_int_equal(a[i].severity, health_kinds[a[i].kind].severity);
		assert_true(a[i].text[0] != '\0');
		if (a[i].kind == kind)
			k++;
	}
	free(a);
	if (nkind != NULL)
		*nkind = k;
	return n;
}

/* Exactly one alert pending, of kind; returns it by value. */
static struct health_alert
take_one(struct health *h, enum health_kind kind)
{
	struct health_alert *a = NULL, one;
	size_t n = health_take_alerts(h, &a);

	if (n != 1) {
		size_t i;

		for (i = 0; i < n; i++)
			print_message("  alert %s: %s\n", health_kind_name(a[i].kind), a[i].text);
		fail_msg("expected one %s alert, got %zu", health_kind_name(kind), n);
	}
	assert_int_equal(a[0].kind, kind);
	one = a[0];
	free(a);
	return one;
}

static void
no_alerts(struct health *h)
{
	struct health_alert *a = NULL;
	size_t n = health_take_alerts(h, &a);

	if (n != 0)
		fail_msg("unexpected alert %s: %s", health_kind_name(a[0].kind), a[0].text);
	assert_null(a);
}

/* The view's reason of kind, or NULL. */
static const char *
reason(const struct health *h, enum health_kind kind)
{
	static struct health_view v;
	size_t i;

	health_view(h, &v);
	for (i = 0; i < v.nreasons; i++)
		if (v.reasons[i].kind == kind)
			return v.reasons[i].text;
	return NULL;
}

/*
 * What a restarted onbox or patrol does: the state goes through text, a new
 * struct is made from the same options and loads it.  The old one is freed.
 */
static struct health *
restart(struct health *h, const struct health_opts *o)
{
	cJSON *doc = health_save(h), *back;
	char *text = cJSON_PrintUnformatted(doc);
	struct health *h2 = mk(o);

	assert_non_null(text);
	back = cJSON_Parse(text);
	assert_non_null(back);
	assert_int_equal(health_load(h2, back), 0);
	cJSON_Delete(back);
	cJSON_Delete(doc);
	free(text);
	health_free(h);
	return h2;
}

/* ---- progress ---- */

static void
test_progress_exact_max(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_view v;

	(void)state;
	opts_gen(&o);
	o.progress_max = 5155;
	h = mk(&o);
	health_view(h, &v);
	assert_string_equal(v.text, "unknown");
	assert_int_equal(v.have_progress, 0);
	assert_int_equal(v.eta_s, -1);
	/* The log's own total is a nominal one; the config's exact max wins. */
	gen_line(h, T0, 1200, 5200, 2.31, 45123);
	health_view(h, &v);
	assert_string_equal(v.text, "~1200/5155");
	assert_int_equal(v.cur, 1200);
	assert_int_equal(v.max, 5155);
	assert_int_equal(v.max_from_config, 1);
	health_free(h);

	/* Without progress.max the log's group 2; no group 2 at all: unknown. */
	o.progress_max = 0;
	h = mk(&o);
	gen_line(h, T0, 1200, 5155, 2.31, 45123);
	health_view(h, &v);
	assert_string_equal(v.text, "~1200/5155");
	assert_int_equal(v.max_from_config, 0);
	health_free(h);

	o.progress_re = "global_step=(\\d+)";
	h = mk(&o);
	feed(h, T0, "Epoch 0: global_step=4600 train_loss=1.92");
	health_view(h, &v);
	assert_string_equal(v.text, "~4600/unknown");
	assert_int_equal(v.max, 0);
	assert_int_equal(v.eta_s, -1);
	health_free(h);

	/* tqdm with unit_scale shows rounded counts: never taken as exact. */
	o.progress_re = "([0-9.,]+k?)/([0-9.,]+k?) \\[";
	h = mk(&o);
	feed(h, T0, " 23%|##3       | 1.20k/5.16k [12:01<39:33, 1.67it/s]");
	health_view(h, &v);
	assert_string_equal(v.text, "unknown");
	/* ... while grouped exact counts are. */
	feed(h, T0, " 23%|##3       | 1,200/5,155 [12:01<39:33, 1.67it/s]");
	health_view(h, &v);
	assert_string_equal(v.text, "~1200/5155");
	feed(h, T0, " 23%|##3       | 1,20/5,155 [12:01<39:33, 1.67it/s]");	/* odd but digits */
	feed(h, T0, " 23%|##3       | ,1200/5155 [12:01<39:33, 1.67it/s]");
	health_view(h, &v);
	assert_int_equal(v.cur, 120);
	health_free(h);
}

static void
test_rate_and_eta(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_view v;
	long step = 0, i;
	time_t now = T0;

	(void)state;
	opts_gen(&o);
	o.progress_max = 5155;
	h = mk(&o);
	/* A log line every 10 s, 2 steps/s, for 30 minutes. */
	for (i = 0; i < 180; i++) {
		step += 20;
		now += 10;
		gen_line(h, now, step, 5200, 2.3, 45000);
	}
	health_view(h, &v);
	assert_int_equal(v.cur, 3600);
	assert_true(fabs(v.rate - 2.0) < 1e-9);
	assert_int_equal(v.eta_s, (5155 - 3600) / 2 + 1);	/* ceil(777.5) */
	assert_int_equal(v.progress_time, now);

	/* Twice as fast for the last 10 minutes: the rate follows within the window. */
	for (i = 0; i < 60; i++) {
		step += 40;
		now += 10;
		gen_line(h, now, step, 5200, 2.3, 45000);
	}
	health_view(h, &v);
	assert_true(v.rate > 3.6 && v.rate <= 4.0 + 1e-9);
	/* Done: ETA 0. */
	gen_line(h, now + 5, 5155, 5200, 2.3, 45000);
	health_view(h, &v);
	assert_int_equal(v.eta_s, 0);
	/* A count that goes back (a resumed run) starts the rate again. */
	gen_line(h, now + 10, 3000, 5200, 2.3, 45000);
	health_view(h, &v);
	assert_true(v.rate < 0);
	assert_int_equal(v.eta_s, -1);
	gen_line(h, now + 20, 3030, 5200, 2.3, 45000);
	health_view(h, &v);
	assert_true(fabs(v.rate - 3.0) < 1e-9);
	assert_int_equal(v.eta_s, (5155 - 3030 + 2) / 3);
	health_free(h);

	/*
	 * patrol's shape: a backlog read in one go lands at one `now`; the rate
	 * comes from the next read and is not inflated by the backlog.
	 */
	h = mk(&o);
	now = T0;
	for (step = 1; step <= 1800; step++)
		gen_line(h, now, step, 5155, 2.3, 45000);
	health_view(h, &v);
	assert_true(v.rate < 0);
	now += 1800;
	for (; step <= 3600; step++)
		gen_line(h, now, step, 5155, 2.3, 45000);
	health_view(h, &v);
	assert_true(fabs(v.rate - 1.0) < 1e-9);
	assert_int_equal(v.eta_s, 5155 - 3600);
	/* And after a restart the rate carries on. */
	h = restart(h, &o);
	health_view(h, &v);
	assert_true(fabs(v.rate - 1.0) < 1e-9);
	/* A new attempt measures its own. */
	health_new_attempt(h, 2);
	gen_line(h, now + 60, 3600, 5155, 2.3, 45000);
	health_view(h, &v);
	assert_true(v.rate < 0);
	assert_string_equal(v.text, "~3600/5155");
	gen_line(h, now + 120, 3720, 5155, 2.3, 45000);
	health_view(h, &v);
	assert_true(fabs(v.rate - 2.0) < 1e-9);
	health_free(h);
}

/* ---- W&B ---- */

static const char *const wandb_banner[] = {
	"wandb: Currently logged in as: ana (ana-lab). Use `wandb login --relogin` to force relogin",
	"wandb: Tracking run with wandb version 0.16.3",
	"wandb: Run data is saved locally in /root/autodl-tmp/run1/wandb/run-20260131_054012-3kq9x2ab",
	"wandb: Run `wandb offline` to turn off syncing.",
	"wandb: Syncing run fluent-sun-12",
	"wandb: \xe2\xad\x90\xef\xb8\x8f View project at https://wandb.ai/ana-lab/llama-ft",
	"wandb: \xf0\x9f\x9a\x80 View run at https://wandb.ai/ana-lab/llama-ft/runs/3kq9x2ab",
};

static const char wandb_end[] =
	"wandb: \xf0\x9f\x9a\x80 View run fluent-sun-12 at: "
	"https://wandb.ai/ana-lab/llama-ft/runs/3kq9x2ab";

static void
test_wandb_once(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_view v;
	struct health_alert a;
	size_t i;
	long step;

	(void)state;
	opts_gen(&o);
	h = mk(&o);
	health_new_attempt(h, 1);
	for (i = 0; i < sizeof(wandb_banner) / sizeof(wandb_banner[0]); i++) {
		feed(h, T0, wandb_banner[i]);
		if (i + 1 < sizeof(wandb_banner) / sizeof(wandb_banner[0]))
			no_alerts(h);
	}
	a = take_one(h, HEALTH_WANDB);
	assert_string_equal(a.url, "https://wandb.ai/ana-lab/llama-ft/runs/3kq9x2ab");
	assert_string_equal(a.id, "3kq9x2ab");
	assert_int_equal(a.attempt, 1);
	assert_int_equal(a.severity, HEALTH_INFO);
	assert_non_null(strstr(a.text, "fluent-sun-12"));
	assert_non_null(strstr(a.text, a.url));
	health_view(h, &v);
	assert_string_equal(v.wandb_url, a.url);
	assert_string_equal(v.wandb_id, "3kq9x2ab");
	assert_string_equal(v.wandb_name, "fluent-sun-12");
	assert_int_equal(v.nreasons, 0);

	/* Training, then wandb's closing summary repeats the link: not again. */
	for (step = 10; step <= 200; step += 10)
		gen_line(h, T0 + step, step, 5155, 2.3, 45000);
	feed(h, T0 + 300, wandb_end);
	no_alerts(h);
	/* Nor after a restart of the watcher. */
	h = restart(h, &o);
	health_new_attempt(h, 1);	/* re-attaching to the same attempt: a no-op */
	feed(h, T0 + 310, wandb_end);
	for (i = 0; i < sizeof(wandb_banner) / sizeof(wandb_banner[0]); i++)
		feed(h, T0 + 320, wandb_banner[i]);
	no_alerts(h);
	health_view(h, &v);
	assert_string_equal(v.wandb_id, "3kq9x2ab");

	/* A new attempt reports the link it prints, the same id resumed or a new one. */
	health_new_attempt(h, 2);
	feed(h, T0 + 400, wandb_end);
	a = take_one(h, HEALTH_WANDB);
	assert_int_equal(a.attempt, 2);
	assert_string_equal(a.id, "3kq9x2ab");
	feed(h, T0 + 500, "wandb: Syncing run brisk-wave-13");
	feed(h, T0 + 500, "wandb: \xf0\x9f\x9a\x80 View run at https://wandb.ai/ana-lab/llama-ft/runs/q0z7mm1c");
	a = take_one(h, HEALTH_WANDB);
	assert_string_equal(a.id, "q0z7mm1c");
	assert_non_null(strstr(a.text, "brisk-wave-13"));
	health_view(h, &v);
	assert_string_equal(v.wandb_id, "q0z7mm1c");
	assert_string_equal(v.wandb_name, "brisk-wave-13");
	feed(h, T0 + 600, wandb_end);	/* the first run's id again in attempt 2: seen */
	no_alerts(h);
	/* A name goes with the next link only: a later bare link has none. */
	feed(h, T0 + 700, "eval logged to https://wandb.ai/ana-lab/llama-ft/runs/ev4l0001");
	a = take_one(h, HEALTH_WANDB);
	assert_null(strstr(a.text, "fluent-sun-12"));
	health_view(h, &v);
	assert_string_equal(v.wandb_id, "ev4l0001");
	assert_string_equal(v.wandb_name, "");
	health_free(h);
}

static void
test_wandb_variants(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert a;
	struct health_view v;
	int i;
	char line[256];

	(void)state;
	opts_gen(&o);

	/* A log written by a tty-less process still has wandb's colours. */
	h = mk(&o);
	feed(h, T0, "\033[34m\033[1mwandb\033[0m: \xf0\x9f\x9a\x80 View run \033[33mfluent-sun-12"
	    "\033[0m at: \033[34m\033[4mhttps://wandb.ai/ana-lab/llama-ft/runs/3kq9x2ab\033[0m");
	a = take_one(h, HEALTH_WANDB);
	assert_string_equal(a.url, "https://wandb.ai/ana-lab/llama-ft/runs/3kq9x2ab");
	assert_string_equal(a.id, "3kq9x2ab");
	health_view(h, &v);
	assert_string_equal(v.wandb_name, "fluent-sun-12");
	health_free(h);

	/* A bare link, as a script prints it; the query string is not the id. */
	h = mk(&o);
	feed(h, T0, "[2026-01-31 05:40:12,123][__main__][INFO] - Logging to "
	    "(https://wandb.ai/ana-lab/llama-ft/runs/7yt1pq0z?nw=nwuserana)");
	a = take_one(h, HEALTH_WANDB);
	assert_string_equal(a.url, "https://wandb.ai/ana-lab/llama-ft/runs/7yt1pq0z");
	assert_string_equal(a.id, "7yt1pq0z");
	/* A self-hosted server. */
	feed(h, T0, "wandb: View run at http://wandb.lab.internal:8080/team/proj/runs/abc_DEF-9");
	a = take_one(h, HEALTH_WANDB);
	assert_string_equal(a.id, "abc_DEF-9");
	health_free(h);

	/* Only wandb's own lines name a run. */
	h = mk(&o);
	feed(h, T0, "Syncing run 3 of 10 (results in /data/runs/eval3)");
	feed(h, T0, "https://wandb.ai/ana-lab/llama-ft/runs/7yt1pq0z");
	take_one(h, HEALTH_WANDB);
	health_view(h, &v);
	assert_string_equal(v.wandb_name, "");
	health_free(h);

	/* Paths and half-links are not links. */
	h = mk(&o);
	feed(h, T0, "Saving model checkpoint to /root/autodl-tmp/runs/exp1/checkpoint-500");
	feed(h, T0, "wandb: Find logs at: ./wandb/run-20260131_054012-3kq9x2ab/logs");
	feed(h, T0, "see https://wandb.ai/ana-lab/llama-ft/runs/");
	feed(h, T0, "wandb: \xf0\x9f\x9a\x80 View run at");
	feed(h, T0, "https://");
	no_alerts(h);
	health_view(h, &v);
	assert_string_equal(v.wandb_url, "");
	health_free(h);

	/* W&B off: nothing. */
	o.wandb = 0;
	h = mk(&o);
	feed(h, T0, wandb_end);
	no_alerts(h);
	health_free(h);

	/* A log that prints many runs is bounded: HEALTH_WANDB_IDS per attempt. */
	o.wandb = 1;
	h = mk(&o);
	for (i = 0; i < 3 * HEALTH_WANDB_IDS; i++) {
		snprintf(line, sizeof(line), "wandb: View run at https://wandb.ai/e/p/runs/run%d", i);
		feed(h, T0, line);
		feed(h, T0, line);
	}
	assert_int_equal(take(h, HEALTH_WANDB, NULL), HEALTH_WANDB_IDS);
	health_free(h);
}

/* ---- loss: NaN/Inf ---- */

static void
test_nan_at_once(void **state)
{
	static const char *const bad[] = { "nan", "NaN", "inf", "-inf", "Infinity", "-Infinity",
	    "1e999" };
	struct health_opts o;
	struct health *h;
	struct health_alert a;
	struct health_view v;
	size_t i;
	long step;

	(void)state;
	opts_hf(&o);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h = mk(&o);
		health_new_attempt(h, 1);
		for (step = 10; step <= 100; step += 10) {
			hf_bar(h, T0 + step, step, 5155, 1.67);
			hf_dict(h, T0 + step, "2.31", (double)step / 5155);
		}
		no_alerts(h);
		hf_bar(h, T0 + 110, 110, 5155, 1.67);
		hf_dict(h, T0 + 110, bad[i], 0.02);
		a = take_one(h, HEALTH_NAN_LOSS);
		assert_int_equal(a.severity, HEALTH_CRITICAL);
		assert_int_equal(a.step, 110);
		assert_int_equal(a.attempt, 1);
		assert_true(!isfinite(a.value));
		assert_non_null(strstr(a.text, "at step 110"));
		assert_non_null(reason(h, HEALTH_NAN_LOSS));
		/* Latched: more NaNs in this attempt say nothing new. */
		for (step = 120; step <= 300; step += 10) {
			hf_bar(h, T0 + step, step, 5155, 1.67);
			hf_dict(h, T0 + step, "nan", 0.05);
		}
		no_alerts(h);
		health_view(h, &v);
		assert_true(isnan(v.loss) || isinf(v.loss));
		/* A finite value clears the reason (the alert stays said). */
		hf_bar(h, T0 + 310, 310, 5155, 1.67);
		hf_dict(h, T0 + 310, "2.2", 0.06);
		assert_null(reason(h, HEALTH_NAN_LOSS));
		hf_dict(h, T0 + 320, "nan", 0.06);	/* same step, another value: a value */
		no_alerts(h);
		health_view(h, &v);
		assert_true(isnan(v.loss));
		/* A new attempt may fire again. */
		health_new_attempt(h, 2);
		hf_dict(h, T0 + 400, bad[i], 0.06);
		a = take_one(h, HEALTH_NAN_LOSS);
		assert_int_equal(a.attempt, 2);
		health_free(h);
	}

	/* Megatron prints it in its own spelling, in the middle of the line. */
	opts_meg(&o);
	h = mk(&o);
	meg_num(h, T0, 100, 2.5);
	meg_line(h, T0 + 1, 110, 500000, "nan", 180.0);
	a = take_one(h, HEALTH_NAN_LOSS);
	assert_int_equal(a.step, 110);
	health_free(h);

	/* HF's eval dict is not the training loss. */
	opts_hf(&o);
	h = mk(&o);
	feed(h, T0, "{'eval_loss': nan, 'eval_runtime': 12.3, 'eval_samples_per_second': 81.2, "
	    "'epoch': 1.0}");
	no_alerts(h);
	health_view(h, &v);
	assert_int_equal(v.have_loss, 0);
	health_free(h);
}

/* ---- loss: spikes ---- */

/* n lines at ~base (+-3 %), one iteration apart from *it. */
static void
meg_normal(struct health *h, long *it, long n, double base)
{
	long i;

	for (i = 0; i < n; i++) {
		*it += 1;
		meg_num(h, T0 + *it, *it, base * (1 + 0.03 * noise()));
	}
}

static void
meg_spikes(struct health *h, long *it, long n, double value)
{
	long i;

	for (i = 0; i < n; i++) {
		*it += 1;
		meg_num(h, T0 + *it, *it, value);
	}
}

static void
test_spike_ten_fires_nine_not(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert a;
	struct health_view v;
	long it = 0;

	(void)state;
	opts_meg(&o);
	h = mk(&o);
	health_new_attempt(h, 1);
	meg_normal(h, &it, 300, 2.3);
	health_view(h, &v);
	assert_true(fabs(v.loss_trend - 2.3) < 0.1);

	/* 9 in a row: nothing. */
	meg_spikes(h, &it, 9, 2.3 * 1.8);
	no_alerts(h);
	health_view(h, &v);
	assert_int_equal(v.spike_run, 9);
	assert_int_equal(v.nreasons, 0);
	meg_normal(h, &it, 1, 2.3);
	health_view(h, &v);
	assert_int_equal(v.spike_run, 0);
	/* 5, a normal one, 5: not in a row. */
	meg_spikes(h, &it, 5, 2.3 * 1.8);
	meg_normal(h, &it, 1, 2.3);
	meg_spikes(h, &it, 5, 2.3 * 1.8);
	meg_normal(h, &it, 20, 2.3);
	no_alerts(h);
	/* Just below the threshold is no spike (and feeds the trend, which comes back). */
	meg_spikes(h, &it, 12, 2.3 * 1.45);
	health_view(h, &v);
	assert_int_equal(v.spike_run, 0);
	meg_normal(h, &it, 60, 2.3);
	no_alerts(h);

	/* 10 in a row fires on the 10th. */
	meg_spikes(h, &it, 9, 2.3 * 1.8);
	no_alerts(h);
	meg_spikes(h, &it, 1, 2.3 * 1.8);
	a = take_one(h, HEALTH_LOSS_SPIKE);
	assert_int_equal(a.severity, HEALTH_DEGRADED);
	assert_int_equal(a.step, it);
	assert_true(fabs(a.value - 2.3 * 1.8) < 1e-6);
	assert_true(fabs(a.ref - 2.3) < 0.1);
	assert_non_null(strstr(a.text, "10 logged values in a row"));
	assert_non_null(reason(h, HEALTH_LOSS_SPIKE));
	/* Latched while it lasts; the spikes do not drag the trend up. */
	meg_spikes(h, &it, 200, 2.3 * 1.8);
	no_alerts(h);
	health_view(h, &v);
	assert_int_equal(v.spike_run, 210);
	assert_true(fabs(v.loss_trend - 2.3) < 0.1);
	/* Back to the trend: recovered, and it may fire again later. */
	meg_normal(h, &it, 1, 2.3);
	a = take_one(h, HEALTH_LOSS_RECOVERED);
	assert_int_equal(a.severity, HEALTH_INFO);
	assert_null(reason(h, HEALTH_LOSS_SPIKE));
	meg_normal(h, &it, 50, 2.3);
	meg_spikes(h, &it, 10, 2.3 * 2.5);
	take_one(h, HEALTH_LOSS_SPIKE);
	health_free(h);

	/*
	 * Half-way down is not "back": no recovery, no second alert.  (Such
	 * values are no spikes, so they feed the trend: a loss that stays there
	 * becomes the trend, and is then back near it.)
	 */
	h = mk(&o);
	it = 0;
	meg_normal(h, &it, 100, 2.0);
	meg_spikes(h, &it, 10, 4.0);
	take_one(h, HEALTH_LOSS_SPIKE);
	meg_spikes(h, &it, 2, 2.0 * 1.45);	/* below the spike line, above half of it */
	meg_spikes(h, &it, 10, 4.0);
	no_alerts(h);
	assert_non_null(reason(h, HEALTH_LOSS_SPIKE));
	meg_spikes(h, &it, 30, 2.0 * 1.45);
	take_one(h, HEALTH_LOSS_RECOVERED);
	health_free(h);

	/* Configurable: 37.5 % for 3 values. */
	o.spike_pct = 37.5;
	o.spike_steps = 3;
	h = mk(&o);
	it = 0;
	meg_normal(h, &it, 100, 2.0);
	meg_spikes(h, &it, 2, 2.0 * 1.45);
	meg_normal(h, &it, 1, 2.0);
	no_alerts(h);
	meg_spikes(h, &it, 3, 2.0 * 1.45);
	take_one(h, HEALTH_LOSS_SPIKE);
	health_free(h);
}

static void
test_spike_negative_and_hf(void **state)
{
	struct health_opts o;
	struct health *h;
	long step;

	(void)state;
	/* HF Trainer: progress from the bar, the loss from the dict between redraws. */
	opts_hf(&o);
	h = mk(&o);
	for (step = 1; step <= 400; step++) {
		hf_bar(h, T0 + step, step, 5155, 1.67);
		if (step % 10 == 0)
			hf_dict(h, T0 + step, step < 300 ? "1.8312" : "3.9021", (double)step / 5155);
		if (step % 10 == 5)	/* tqdm redraws the same step; one value per dict */
			hf_bar(h, T0 + step, step, 5155, 1.67);
	}
	/* Values 300..390 are 10 dicts: fires. */
	take_one(h, HEALTH_LOSS_SPIKE);
	health_free(h);

	/* A loss below zero (an RL objective): "above" still means worse. */
	opts_gen(&o);
	h = mk(&o);
	for (step = 1; step <= 100; step++)
		gen_line(h, T0 + step, step, 5155, -2.0 + 0.02 * noise(), 45000);
	for (; step <= 109; step++)
		gen_line(h, T0 + step, step, 5155, -0.5, 45000);
	no_alerts(h);
	gen_line(h, T0 + step, step, 5155, -0.5, 45000);
	take_one(h, HEALTH_LOSS_SPIKE);
	health_free(h);
}

static void
test_spike_warmup_ignored(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_view v;
	long step;

	(void)state;
	opts_gen(&o);
	o.loss_warmup = 100;
	h = mk(&o);
	health_new_attempt(h, 1);
	/* Warm-up: loss falls fast, with a 30-step hump at 2x. */
	for (step = 1; step < 100; step++)
		gen_line(h, T0 + step, step, 5155,
		    step >= 40 && step < 70 ? 8.0 : 10.0 - 7.5 * (double)step / 100, 45000);
	no_alerts(h);
	for (; step < 400; step++)
		gen_line(h, T0 + step, step, 5155, 2.3 * (1 + 0.02 * noise()), 45000);
	no_alerts(h);
	/* After warm-up the same hump counts. */
	for (; step < 430; step++)
		gen_line(h, T0 + step, step, 5155, 8.0, 45000);
	take_one(h, HEALTH_LOSS_SPIKE);

	/*
	 * Attempt 2 resumes from the step-3000 checkpoint: its warm-up is its
	 * own first 100 steps, and its trend starts afresh.
	 */
	health_new_attempt(h, 2);
	health_view(h, &v);
	assert_int_equal(v.nreasons, 0);
	assert_int_equal(v.spike_run, 0);
	for (step = 3000; step < 3100; step++)
		gen_line(h, T0 + 1000 + step, step, 5155, step < 3030 ? 2.2 : 5.0, 45000);
	no_alerts(h);
	for (; step < 3300; step++)
		gen_line(h, T0 + 1000 + step, step, 5155, 2.1 * (1 + 0.02 * noise()), 45000);
	no_alerts(h);
	for (; step < 3310; step++)
		gen_line(h, T0 + 1000 + step, step, 5155, 5.0, 45000);
	take_one(h, HEALTH_LOSS_SPIKE);

	health_free(h);

	/*
	 * Without warm-up: attempt 2 starts from scratch (no checkpoint), and
	 * its high first losses are measured against its own trend, not the
	 * end of attempt 1.
	 */
	o.loss_warmup = 0;
	h = mk(&o);
	health_new_attempt(h, 1);
	for (step = 1; step < 300; step++)
		gen_line(h, T0 + step, step, 5155, 2.0 * (1 + 0.02 * noise()), 45000);
	health_new_attempt(h, 2);
	for (step = 1; step < 300; step++)
		gen_line(h, T0 + 5000 + step, step, 5155, 2.0 + 8.0 / (1 + step / 20.0), 45000);
	no_alerts(h);
	health_free(h);
	o.loss_warmup = 100;

	/* No progress pattern: warm-up counts logged loss values. */
	o.progress_re = NULL;
	o.loss_warmup = 50;
	h = mk(&o);
	for (step = 1; step <= 20; step++)
		gen_line(h, T0 + step, step, 5155, 2.0, 45000);
	for (; step <= 50; step++)
		gen_line(h, T0 + step, step, 5155, 6.0, 45000);
	no_alerts(h);
	for (; step <= 100; step++)
		gen_line(h, T0 + step, step, 5155, 2.0, 45000);
	for (; step <= 110; step++)
		gen_line(h, T0 + step, step, 5155, 6.0, 45000);
	take_one(h, HEALTH_LOSS_SPIKE);
	health_free(h);
}

/* A watcher restarted in the middle of attempt 2's warm-up keeps its bounds. */
static void
test_warmup_across_restart(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert a;
	long step;

	(void)state;
	opts_gen(&o);
	o.loss_warmup = 100;
	/* Still warm after the restart: the spikes at 3050..3099 do not count. */
	h = mk(&o);
	health_new_attempt(h, 2);
	for (step = 3000; step < 3050; step++)
		gen_line(h, T0 + step, step, 5155, 2.2, 45000);
	h = restart(h, &o);
	health_new_attempt(h, 2);
	for (; step < 3100; step++)
		gen_line(h, T0 + step, step, 5155, 5.0, 45000);
	no_alerts(h);
	health_free(h);

	/* ... and warm-up still ends at 3100, not 100 steps after the restart. */
	h = mk(&o);
	health_new_attempt(h, 2);
	for (step = 3000; step < 3050; step++)
		gen_line(h, T0 + step, step, 5155, 2.2, 45000);
	h = restart(h, &o);
	health_new_attempt(h, 2);
	for (; step < 3100; step++)
		gen_line(h, T0 + step, step, 5155, 2.2, 45000);
	for (; step < 3110; step++)
		gen_line(h, T0 + step, step, 5155, 5.0, 45000);
	a = take_one(h, HEALTH_LOSS_SPIKE);
	assert_int_equal(a.step, 3109);
	health_free(h);
}

/* A Lightning bar: progress, throughput and the loss all in one redraw. */
static void
pl_bar(struct health *h, time_t now, long step, const char *loss, double its)
{
	long pct = step * 100 / 5155;

	feedf(h, now, "Epoch 3: %3ld%%|%-10.*s| %ld/5155 [%02ld:%02ld<%02ld:%02ld, %.2fit/s, "
	    "loss=%s, v_num=0]", pct, (int)(pct / 10), "##########", step, step / 3 / 60,
	    step / 3 % 60, (5155 - step) / 3 / 60, (5155 - step) / 3 % 60, its, loss);
}

static void
test_lightning(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert a;
	struct health_view v;
	char l[32];
	long step;

	(void)state;
	opts_hf(&o);
	o.loss_re = PL_LOSS;
	o.progress_max = 5155;
	h = mk(&o);
	health_new_attempt(h, 1);
	for (step = 1; step <= 300; step++) {
		snprintf(l, sizeof(l), "%.3g", 1.8 + 0.05 * noise());
		pl_bar(h, T0 + step / 3, step, l, 2.93 + 0.05 * noise());
		if (step % 50 == 0)
			health_tick(h, T0 + step / 3);
	}
	no_alerts(h);
	health_view(h, &v);
	assert_string_equal(v.text, "~300/5155");
	assert_true(v.rate > 2.9 && v.rate < 3.1);
	assert_true(fabs(v.tp_baseline - 2.93) < 0.05);
	/* The GPU throttles: it/s halves for two ticks. */
	for (; step <= 400; step++) {
		snprintf(l, sizeof(l), "%.3g", 1.8 + 0.05 * noise());
		pl_bar(h, T0 + step / 3, step, l, 1.41 + 0.05 * noise());
		if (step % 50 == 0)
			health_tick(h, T0 + step / 3);
	}
	a = take_one(h, HEALTH_THROUGHPUT_DROP);
	assert_int_equal(a.step, 400);	/* ticks at 350 and 400 were low */
	/* Then the loss diverges. */
	pl_bar(h, T0 + 140, 401, "nan", 1.4);
	a = take_one(h, HEALTH_NAN_LOSS);
	assert_int_equal(a.step, 401);
	health_view(h, &v);
	assert_int_equal(v.nreasons, 2);
	assert_int_equal(v.reasons[0].kind, HEALTH_NAN_LOSS);
	assert_int_equal(v.reasons[1].kind, HEALTH_THROUGHPUT_DROP);
	health_free(h);

	/*
	 * tqdm refreshes a bar without a new step (postfix updates, close()):
	 * the same step with the same loss is one value, so 4 spiking steps
	 * drawn 3 times each are 4 values, not 12.
	 */
	h = mk(&o);
	for (step = 1; step <= 100; step++)
		pl_bar(h, T0 + step / 3, step, "1.8", 2.93);
	for (; step <= 104; step++) {
		pl_bar(h, T0 + step / 3, step, "4.5", 2.93);
		pl_bar(h, T0 + step / 3, step, "4.5", 2.91);
		pl_bar(h, T0 + step / 3, step, "4.5", 2.92);
	}
	no_alerts(h);
	health_view(h, &v);
	assert_int_equal(v.spike_run, 4);
	for (; step <= 110; step++)
		pl_bar(h, T0 + step / 3, step, "4.5", 2.93);
	take_one(h, HEALTH_LOSS_SPIKE);
	health_free(h);
}

/* ---- throughput ---- */

/* n generic lines at ~tps (+-2 %). */
static void
gen_tp(struct health *h, long *step, long n, double tps)
{
	long i;

	for (i = 0; i < n; i++) {
		*step += 1;
		gen_line(h, T0 + *step, *step, 5155, 2.3 * (1 + 0.02 * noise()),
		    tps * (1 + 0.02 * noise()));
	}
}

static void
test_throughput_collapse(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert a;
	struct health_view v;
	long step = 0;

	(void)state;
	opts_gen(&o);
	o.tp_warmup = 50;
	h = mk(&o);
	health_new_attempt(h, 1);
	/* Warm-up is slow (compilation, cold caches): not the baseline. */
	gen_tp(h, &step, 49, 5000);
	health_tick(h, T0 + step);
	gen_tp(h, &step, 40, 45000);
	health_tick(h, T0 + step);
	no_alerts(h);
	health_view(h, &v);
	assert_true(fabs(v.tp_baseline - 45000) < 45000 * 0.02);
	assert_int_equal(v.low_ticks, 0);

	/* One low tick, then a normal one: nothing. */
	gen_tp(h, &step, 10, 20000);
	health_tick(h, T0 + step);
	no_alerts(h);
	health_view(h, &v);
	assert_int_equal(v.low_ticks, 1);
	assert_true(fabs(v.tp_tick - 20000) < 20000 * 0.02);
	gen_tp(h, &step, 10, 44000);
	health_tick(h, T0 + step);
	health_view(h, &v);
	assert_int_equal(v.low_ticks, 0);
	no_alerts(h);
	/* 24 % down is not 25 %. */
	gen_tp(h, &step, 10, 45000 * 0.76 / 0.98);
	health_tick(h, T0 + step);
	gen_tp(h, &step, 10, 45000 * 0.76 / 0.98);
	health_tick(h, T0 + step);
	no_alerts(h);

	/* Two low ticks in a row: DEGRADED. */
	gen_tp(h, &step, 10, 20000);
	health_tick(h, T0 + step);
	no_alerts(h);
	/* A tick with nothing logged neither counts nor breaks the row. */
	health_tick(h, T0 + step + 60);
	health_view(h, &v);
	assert_int_equal(v.low_ticks, 1);
	gen_tp(h, &step, 10, 20000);
	health_tick(h, T0 + step);
	a = take_one(h, HEALTH_THROUGHPUT_DROP);
	assert_int_equal(a.severity, HEALTH_DEGRADED);
	assert_true(fabs(a.ref - 45000) < 45000 * 0.02);
	assert_true(fabs(a.value - 20000) < 20000 * 0.02);
	assert_int_equal(a.step, step);
	assert_non_null(strstr(a.text, "2 checks in a row"));
	assert_non_null(reason(h, HEALTH_THROUGHPUT_DROP));
	/* Latched. */
	gen_tp(h, &step, 10, 20000);
	health_tick(h, T0 + step);
	no_alerts(h);
	/* One fast line in a slow tick does not hide it: the median judges. */
	gen_tp(h, &step, 9, 20000);
	gen_tp(h, &step, 1, 90000);
	health_tick(h, T0 + step);
	no_alerts(h);
	/* Recovered. */
	gen_tp(h, &step, 10, 45000);
	health_tick(h, T0 + step);
	take_one(h, HEALTH_THROUGHPUT_RECOVERED);
	assert_null(reason(h, HEALTH_THROUGHPUT_DROP));

	/* A new attempt (maybe on other GPUs) learns its own baseline after its warm-up. */
	health_new_attempt(h, 2);
	step = 3000;
	gen_tp(h, &step, 49, 3000);
	health_tick(h, T0 + step);
	gen_tp(h, &step, 30, 30000);
	health_tick(h, T0 + step);
	gen_tp(h, &step, 10, 29000);
	health_tick(h, T0 + step);
	no_alerts(h);
	health_view(h, &v);
	assert_true(fabs(v.tp_baseline - 30000) < 30000 * 0.02);
	health_free(h);
}

/*
 * throughput.window_s: the drop must last the window (several check
 * cadences), however many low checks came; one dip back up starts it over.
 */
static void
test_throughput_window(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_view v;
	long step = 0, t;

	(void)state;
	opts_gen(&o);
	o.tp_window_s = 600;
	h = mk(&o);
	health_new_attempt(h, 1);
	gen_tp(h, &step, 40, 45000);
	health_tick(h, T0);
	/* Low every minute for 9 minutes: not yet. */
	for (t = 1; t <= 9; t++) {
		gen_tp(h, &step, 10, 20000);
		health_tick(h, T0 + 60 * t);
	}
	no_alerts(h);
	health_view(h, &v);
	assert_int_equal(v.low_ticks, 9);
	/* Back up once: the window starts over. */
	gen_tp(h, &step, 10, 45000);
	health_tick(h, T0 + 600);
	for (t = 11; t <= 20; t++) {
		gen_tp(h, &step, 10, 20000);
		health_tick(h, T0 + 60 * t);
	}
	no_alerts(h);	/* low since T0+660: 540 s */
	gen_tp(h, &step, 10, 20000);
	health_tick(h, T0 + 60 * 21);	/* 600 s: the window is full */
	{
		struct health_alert a = take_one(h, HEALTH_THROUGHPUT_DROP);

		assert_non_null(strstr(a.text, "low for 10m00s"));
		assert_non_null(strstr(a.text, "throughput.window_s 600"));
	}
	health_free(h);
}

/*
 * The resume check: a resumed attempt's loss at a step the earlier lineage
 * logged must match it (0.002, or 1 % after loss.resume_warmup_steps); a
 * fresh start is never compared; it survives a restart; one alert an attempt.
 */
static double
lineage(long step)
{
	return 3.0 - 0.001 * (double)step;
}

static void
test_resume_mismatch(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert a;
	long s;

	(void)state;
	opts_gen(&o);
	h = mk(&o);
	health_new_attempt(h, 1);
	for (s = 1; s <= 300; s++)
		gen_line(h, T0 + s, s, 1000, lineage(s), 45000);
	/* Attempt 2 starts fresh: other values at the same steps are another lineage. */
	health_new_attempt(h, 2);
	for (s = 1; s <= 50; s++)
		gen_line(h, T0 + 400 + s, s, 1000, 9.0, 45000);
	no_alerts(h);
	/* Attempt 3 resumes from step 200: a faithful replay (within 0.002) says nothing ... */
	health_new_attempt(h, 3);
	health_resume_from(h, 200);
	for (s = 201; s <= 250; s++)
		gen_line(h, T0 + 500 + s, s, 1000, lineage(s) + 0.0015, 45000);
	no_alerts(h);
	h = restart(h, &o);
	/* ... one that departs does, once, and stays a reason. */
	gen_line(h, T0 + 800, 251, 1000, lineage(251) + 0.01, 45000);
	a = take_one(h, HEALTH_RESUME_MISMATCH);
	assert_int_equal(a.severity, HEALTH_CRITICAL);
	assert_non_null(strstr(a.text, "from the checkpoint at step 200) the loss at step 251 is"));
	assert_non_null(strstr(a.text, "more than 0.002 apart"));
	gen_line(h, T0 + 801, 252, 1000, lineage(252) + 0.5, 45000);
	no_alerts(h);
	assert_non_null(reason(h, HEALTH_RESUME_MISMATCH));
	/* Past the earlier lineage's last step there is nothing to compare. */
	health_new_attempt(h, 4);
	health_resume_from(h, 300);
	for (s = 301; s <= 320; s++)
		gen_line(h, T0 + 900 + s, s, 1000, 7.0, 45000);
	no_alerts(h);
	assert_null(reason(h, HEALTH_RESUME_MISMATCH));
	health_free(h);

	/* With a post-resume warm-up: not judged inside it, 1 % after it. */
	o.resume_warmup = 20;
	h = mk(&o);
	health_new_attempt(h, 1);
	for (s = 1; s <= 300; s++)
		gen_line(h, T0 + s, s, 1000, lineage(s), 45000);
	health_new_attempt(h, 2);
	health_resume_from(h, 100);
	for (s = 101; s <= 120; s++)
		gen_line(h, T0 + 400 + s, s, 1000, lineage(s) * 1.2, 45000);
	for (s = 121; s <= 150; s++)
		gen_line(h, T0 + 400 + s, s, 1000, lineage(s) * 1.009, 45000);
	no_alerts(h);
	gen_line(h, T0 + 600, 151, 1000, lineage(151) * 1.02, 45000);
	a = take_one(h, HEALTH_RESUME_MISMATCH);
	assert_non_null(strstr(a.text, "more than 1% apart after loss.resume_warmup_steps"));
	health_free(h);
}

/* W&B from the box's files: identity (files and log links) and a summary that stands still. */
static void
test_wandb_files(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_wandb_files f;
	struct health_alert a;
	long s;

	(void)state;
	opts_gen(&o);
	o.wandb_id = "r7a1";
	o.wandb_stale_s = 600;
	h = mk(&o);
	health_new_attempt(h, 1);
	memset(&f, 0, sizeof(f));
	health_wandb_files(h, &f, T0);	/* nothing yet */
	no_alerts(h);
	f.seen = 1;
	snprintf(f.id, sizeof(f.id), "r7a1");
	snprintf(f.dir, sizeof(f.dir), "/w/wandb/run-20261128_101500-r7a1");
	f.txlog = 32768;
	f.step = f.ts = NAN;
	for (s = 1; s <= 10; s++)
		gen_line(h, T0 + s * 60, s * 10, 1000, 2.0, 45000);
	health_wandb_files(h, &f, T0 + 600);
	no_alerts(h);
	/* The log moves on, the summary does not: 599 s is not yet, 600 s is. */
	for (s = 11; s <= 20; s++)
		gen_line(h, T0 + 600 + s, s * 10, 1000, 2.0, 45000);
	health_wandb_files(h, &f, T0 + 1199);
	no_alerts(h);
	h = restart(h, &o);
	health_wandb_files(h, &f, T0 + 1200);
	a = take_one(h, HEALTH_WANDB_STALE);
	assert_int_equal(a.severity, HEALTH_DEGRADED);
	assert_non_null(strstr(a.text, "run-r7a1.wandb (32768 bytes) has not grown for 10m00s while the log went from step 100 to 200"));
	assert_non_null(reason(h, HEALTH_WANDB_STALE));
	health_wandb_files(h, &f, T0 + 1300);
	no_alerts(h);
	f.txlog = 65536;
	health_wandb_files(h, &f, T0 + 1400);
	take_one(h, HEALTH_WANDB_FRESH);
	assert_null(reason(h, HEALTH_WANDB_STALE));
	/* A summary that stands still while training stands still too: not stale. */
	health_wandb_files(h, &f, T0 + 9000);
	no_alerts(h);
	/* Another run id in the run directory: critical, once. */
	snprintf(f.id, sizeof(f.id), "zz99");
	health_wandb_files(h, &f, T0 + 9100);
	a = take_one(h, HEALTH_WANDB_IDENTITY);
	assert_int_equal(a.severity, HEALTH_CRITICAL);
	assert_non_null(strstr(a.text, "W&B run zz99"));
	assert_non_null(strstr(a.text, "not wandb.id r7a1"));
	health_wandb_files(h, &f, T0 + 9200);
	no_alerts(h);
	assert_non_null(reason(h, HEALTH_WANDB_IDENTITY));
	/* A new attempt whose log links another run: the same alert, from the log. */
	health_new_attempt(h, 2);
	feed(h, T0 + 9300, "wandb: 🚀 View run hero at: https://wandb.ai/team/proj/runs/q1q1");
	{
		struct health_alert *v = NULL;

		assert_int_equal(health_take_alerts(h, &v), 2);
		assert_int_equal(v[0].kind, HEALTH_WANDB);
		assert_int_equal(v[1].kind, HEALTH_WANDB_IDENTITY);
		assert_non_null(strstr(v[1].text, "the log links W&B run q1q1"));
		free(v);
	}
	health_free(h);
}

static void
test_throughput_tqdm_and_config(void **state)
{
	struct health_opts o;
	struct health *h;
	long step, t;

	(void)state;
	/* it/s from HF's bar; 3 ticks, 50 % configured. */
	opts_hf(&o);
	o.drop_pct = 50;
	o.tp_ticks = 3;
	h = mk(&o);
	for (step = 1, t = 0; step <= 60; step++)
		hf_bar(h, T0 + step, step, 5155, 3.2 + 0.05 * noise());
	health_tick(h, T0 + step);
	for (t = 0; t < 2; t++) {
		for (; step % 30 != 0; step++)
			hf_bar(h, T0 + step, step, 5155, 1.7);	/* 47 % down: not enough */
		step++;
		health_tick(h, T0 + step);
	}
	no_alerts(h);
	for (t = 0; t < 3; t++) {
		for (; step % 30 != 0; step++)
			hf_bar(h, T0 + step, step, 5155, 1.2);
		step++;
		health_tick(h, T0 + step);
		if (t < 2)
			no_alerts(h);
	}
	take_one(h, HEALTH_THROUGHPUT_DROP);
	health_free(h);

	/* Fewer than HEALTH_TP_BASE_N values: no baseline, no judgement. */
	opts_gen(&o);
	h = mk(&o);
	step = 0;
	gen_tp(h, &step, 5, 45000);
	health_tick(h, T0 + step);
	gen_tp(h, &step, 5, 100);
	health_tick(h, T0 + step);
	gen_tp(h, &step, 5, 100);
	health_tick(h, T0 + step);
	no_alerts(h);
	{
		struct health_view v;

		health_view(h, &v);
		assert_true(isnan(v.tp_baseline));
		assert_int_equal(v.low_ticks, 0);
		assert_true(fabs(v.tp_tick - 100) < 5);
	}
	health_free(h);
}

/* ---- save, load, continue ---- */

static void
test_save_load_continue(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert *al = NULL, a;
	struct health_view v, v2;
	long it = 0, step;
	size_t n;

	(void)state;
	opts_meg(&o);
	h = mk(&o);
	health_new_attempt(h, 3);
	feed(h, T0, wandb_banner[4]);
	feed(h, T0, wandb_banner[6]);
	meg_normal(h, &it, 200, 2.3);
	meg_spikes(h, &it, 6, 2.3 * 1.9);
	/* The W&B alert is not taken before the restart: it survives it. */
	h = restart(h, &o);
	health_new_attempt(h, 3);
	n = health_take_alerts(h, &al);
	assert_int_equal(n, 1);
	assert_int_equal(al[0].kind, HEALTH_WANDB);
	assert_int_equal(al[0].seq, 1);
	assert_string_equal(al[0].id, "3kq9x2ab");
	assert_string_equal(al[0].url, "https://wandb.ai/ana-lab/llama-ft/runs/3kq9x2ab");
	assert_non_null(strstr(al[0].text, "fluent-sun-12"));
	assert_true(isnan(al[0].value));
	{
		cJSON *j = health_alert_json(&al[0]);
		char *js = cJSON_PrintUnformatted(j);

		assert_null(strstr(js, "\"value\""));
		assert_null(strstr(js, "\"ref\""));
		assert_non_null(strstr(js, "\"id\":\"3kq9x2ab\""));
		free(js);
		cJSON_Delete(j);
	}
	free(al);
	/* The spike count carries on: 6 + 4 = 10. */
	health_view(h, &v);
	assert_int_equal(v.spike_run, 6);
	meg_spikes(h, &it, 3, 2.3 * 1.9);
	no_alerts(h);
	meg_spikes(h, &it, 1, 2.3 * 1.9);
	a = take_one(h, HEALTH_LOSS_SPIKE);
	assert_int_equal(a.seq, 2);
	assert_int_equal(a.attempt, 3);
	/* A restart neither re-fires it nor the W&B link. */
	h = restart(h, &o);
	meg_spikes(h, &it, 30, 2.3 * 1.9);
	feed(h, T0 + it, wandb_end);
	no_alerts(h);
	assert_non_null(reason(h, HEALTH_LOSS_SPIKE));
	/* Recovery after a restart is still seen, with the next seq. */
	h = restart(h, &o);
	meg_normal(h, &it, 1, 2.3);
	a = take_one(h, HEALTH_LOSS_RECOVERED);
	assert_int_equal(a.seq, 3);

	/* NaN latched across a restart. */
	meg_line(h, T0 + it, it + 1, 500000, "nan", 180.0);
	it++;
	take_one(h, HEALTH_NAN_LOSS);
	h = restart(h, &o);
	meg_line(h, T0 + it, it + 1, 500000, "nan", 180.0);
	it++;
	no_alerts(h);
	assert_non_null(reason(h, HEALTH_NAN_LOSS));
	health_free(h);

	/* Throughput: a low tick, a restart, a low tick: fires; then never again. */
	opts_gen(&o);
	h = mk(&o);
	step = 0;
	gen_tp(h, &step, 30, 45000);
	health_tick(h, T0 + step);
	gen_tp(h, &step, 10, 10000);
	health_tick(h, T0 + step);
	gen_tp(h, &step, 5, 10000);	/* logged before the restart, judged after it */
	h = restart(h, &o);
	health_view(h, &v);
	assert_int_equal(v.low_ticks, 1);
	health_tick(h, T0 + step);
	take_one(h, HEALTH_THROUGHPUT_DROP);
	h = restart(h, &o);
	gen_tp(h, &step, 10, 10000);
	health_tick(h, T0 + step);
	h = restart(h, &o);
	gen_tp(h, &step, 10, 10000);
	health_tick(h, T0 + step);
	no_alerts(h);
	assert_non_null(reason(h, HEALTH_THROUGHPUT_DROP));

	/* The view is the same before and after. */
	health_view(h, &v);
	h = restart(h, &o);
	health_view(h, &v2);
	assert_int_equal(memcmp(&v, &v2, offsetof(struct health_view, loss)), 0);
	assert_true(v.loss == v2.loss && v.loss_trend == v2.loss_trend);
	assert_true(v.tp_baseline == v2.tp_baseline && v.tp_tick == v2.tp_tick);
	assert_int_equal(v.low_ticks, v2.low_ticks);
	assert_int_equal(v.nreasons, v2.nreasons);
	assert_string_equal(v.reasons[0].text, v2.reasons[0].text);
	health_free(h);
}

static void
test_load_hostile(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_view v;
	struct health_alert *al = NULL;
	cJSON *doc, *arr;
	char big[2000];
	size_t n;
	int i;

	(void)state;
	opts_meg(&o);
	h = mk(&o);
	health_new_attempt(h, 1);
	meg_num(h, T0, 10, 2.0);

	/* Not an object, or a newer format: refused, and h is untouched. */
	assert_int_equal(health_load(h, NULL), WK_ERR_PARSE);
	doc = cJSON_CreateArray();
	assert_int_equal(health_load(h, doc), WK_ERR_PARSE);
	cJSON_Delete(doc);
	doc = cJSON_Parse("{\"version\": 2, \"attempt\": 9}");
	assert_int_equal(health_load(h, doc), WK_ERR_PARSE);
	cJSON_Delete(doc);
	health_view(h, &v);
	assert_int_equal(v.attempt, 1);
	assert_int_equal(v.cur, 10);

	/* Empty: the empty state. */
	doc = cJSON_Parse("{}");
	assert_int_equal(health_load(h, doc), 0);
	cJSON_Delete(doc);
	health_view(h, &v);
	assert_int_equal(v.attempt, 0);
	assert_string_equal(v.text, "unknown");
	assert_int_equal(v.have_loss, 0);

	/* Wrong types, absurd numbers, oversized arrays and strings: loaded, bounded. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	doc = cJSON_Parse("{\"version\": 1, \"attempt\": \"x\", "
	    "\"progress\": {\"have\": true, \"in_attempt\": true, \"cur\": -5, \"max_log\": 1e300,"
	    "  \"samples\": [[1, 2], \"x\", [3], [2, 1], [30, 5], [40, -1], [1e300, 3]]},"
	    "\"loss\": {\"have\": 1, \"last\": \"nan\", \"trend\": \"inf\", \"trend_n\": 50,"
	    "  \"spike_run\": -3, \"spike\": true},"
	    "\"throughput\": {\"base\": [1, 2, \"x\", null], \"recent\": {}, \"low_ticks\": 1e99},"
	    "\"wandb\": {\"url\": 5, \"reported\": [1, \"\", \"abc\"]},"
	    "\"alerts\": [{\"event\": \"nope\"}, 7, {\"event\": \"loss_spike\", \"seq\": 41}],"
	    "\"seq\": -1, \"dropped\": \"many\"}");
	assert_non_null(doc);
	arr = cJSON_GetObjectItem(doc, "alerts");
	for (i = 0; i < 100; i++) {
		cJSON *a = cJSON_CreateObject();

		cJSON_AddStringToObject(a, "event", "wandb");
		cJSON_AddStringToObject(a, "url", big);
		cJSON_AddStringToObject(a, "text", "line\x01with\x7f" "controls");
		cJSON_AddItemToArray(arr, a);
	}
	arr = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "wandb"), "reported");
	for (i = 0; i < 100; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString("r"));
	cJSON_AddItemToArray(arr, cJSON_CreateString(big));
	assert_int_equal(health_load(h, doc), 0);
	cJSON_Delete(doc);
	health_view(h, &v);
	assert_int_equal(v.attempt, 0);
	assert_int_equal(v.cur, 0);
	/* Samples out of order restart the count: (2, 1) and (30, 5) are left. */
	assert_true(fabs(v.rate - 4.0 / 28) < 1e-9);
	assert_true(isnan(v.loss_trend));	/* an infinite trend is no trend */
	assert_int_equal(v.spike_run, 0);
	n = health_take_alerts(h, &al);
	assert_int_equal(n, HEALTH_ALERTS_MAX);
	assert_int_equal(al[0].kind, HEALTH_LOSS_SPIKE);
	assert_int_equal(al[0].seq, 41);
	assert_true(strlen(al[1].url) < HEALTH_URL_MAX);
	assert_null(strchr(al[1].text, '\x01'));
	free(al);
	/* New alerts continue after the highest seq seen. */
	health_new_attempt(h, 2);
	meg_line(h, T0, 20, 500000, "nan", 1.0);
	assert_true(take_one(h, HEALTH_NAN_LOSS).seq == 42);
	health_free(h);
}

/* ---- hostile lines ---- */

static void
test_garbage_lines(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_view v;
	char *big;
	size_t i, n = 4u << 20;

	(void)state;
	opts_gen(&o);
	h = mk(&o);
	/* 4 MB of binary with a match beyond HEALTH_LINE_MAX: not looked at. */
	big = malloc(n);
	assert_non_null(big);
	for (i = 0; i < n; i++) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		big[i] = (char)(unsigned char)(rng_state >> 56);
		if (big[i] == '\r')	/* '\r' segments are tested below */
			big[i] = 'x';
	}
	memcpy(big + HEALTH_LINE_MAX + 100, "step 7/9 | loss nan | tokens/s 5", 32);
	for (i = 0; i < n; i += 4096)
		big[i] = '\0';
	health_line(h, big, n, T0);
	no_alerts(h);
	health_view(h, &v);
	assert_int_equal(v.have_loss, 0);
	assert_string_equal(v.text, "unknown");
	/* Within the bound it is. */
	memcpy(big + 100, "step 7/9 | loss nan | tokens/s 5", 32);
	big[132] = ' ';
	health_line(h, big, n, T0);
	take_one(h, HEALTH_NAN_LOSS);
	health_view(h, &v);
	assert_string_equal(v.text, "~7/9");
	/* 1 MB of "/runs/" and "wandb" fragments: bounded work, no link. */
	for (i = 0; i + 12 < n / 4; i += 12)
		memcpy(big + i, "wandb/runs/x", 12);
	health_line(h, big, n / 4, T0);
	memset(big, '/', n / 4);
	memcpy(big + 1000, "https://", 8);
	memcpy(big + 4000, "/runs/", 6);
	health_line(h, big, n / 4, T0);
	no_alerts(h);
	free(big);
	health_free(h);

	h = mk(&o);
	/* Numbers as trainers print them. */
	feed(h, T0, "step 1/9 | loss 1.2e-3 | tokens/s 45000.0");
	health_view(h, &v);
	assert_true(fabs(v.loss - 0.0012) < 1e-12);
	assert_true(fabs(v.throughput - 45000) < 1e-9);
	feed(h, T0, "step 2/9 | loss 2.31abc | tokens/s -5");
	feed(h, T0, "step 3/9 | loss  | tokens/s nan");
	feed(h, T0, "step 99999999999999999999/9 | loss 0x | tokens/s inf");
	health_view(h, &v);
	assert_true(fabs(v.loss - 0.0012) < 1e-12);
	assert_true(fabs(v.throughput - 45000) < 1e-9);
	assert_int_equal(v.cur, 3);
	/* Empty, NUL-only and '\r'-only lines. */
	health_line(h, "", 0, T0);
	health_line(h, NULL, 5, T0);
	health_line(h, "\0\0\0", 3, T0);
	feed(h, T0, "\r\r\r");
	/* A bar the caller did not split: its newest non-empty state counts. */
	feed(h, T0, "step 4/9 | loss 2.0 | tokens/s 1\rstep 5/9 | loss 2.1 | tokens/s 2\r\r");
	health_view(h, &v);
	assert_int_equal(v.cur, 5);
	assert_true(fabs(v.loss - 2.1) < 1e-12);
	no_alerts(h);
	health_free(h);

	/* Losses at the edge of double: the trend stays a number. */
	h = mk(&o);
	feed(h, T0, "step 1/9 | loss 1e308 | tokens/s 1e308");
	feed(h, T0, "step 2/9 | loss -1.7e308 | tokens/s 1e308");
	feed(h, T0, "step 3/9 | loss 1.7e308 | tokens/s 1e308");
	for (i = 4; i < 40; i++)
		feedf(h, T0, "step %zu/99 | loss 2.0 | tokens/s 45000", i);
	health_view(h, &v);
	assert_true(isfinite(v.loss_trend));
	health_free(h);
}

/* ---- the caller's loop: logscan + health + one state file, with a restart ---- */

struct pump {
	struct health	*h;
	time_t		 now;
};

static void
pump_line(void *arg, const char *line, size_t len, int flags)
{
	struct pump *p = arg;

	(void)flags;
	health_line(p->h, line, len, p->now);
}

/* What onbox/patrol persist: the health state and the log position together. */
static cJSON *
persist(const struct health *h, const struct logscan *ls)
{
	cJSON *doc = cJSON_CreateObject();
	struct logscan_pos pos;
	char fp[65];

	logscan_get_pos(ls, &pos);
	logscan_fp_hex(&pos, fp);
	cJSON_AddNumberToObject(doc, "dev", (double)pos.dev);
	cJSON_AddNumberToObject(doc, "ino", (double)pos.ino);
	cJSON_AddNumberToObject(doc, "off", (double)pos.off);
	cJSON_AddStringToObject(doc, "fp", fp);
	cJSON_AddItemToObject(doc, "health", health_save(h));
	return doc;
}

static void
resume(struct health *h, struct logscan *ls, const char *path, const cJSON *doc)
{
	struct logscan_pos pos;

	memset(&pos, 0, sizeof(pos));
	pos.dev = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "dev"));
	pos.ino = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "ino"));
	pos.off = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "off"));
	assert_int_equal(logscan_fp_parse(&pos, cJSON_GetStringValue(cJSON_GetObjectItem(doc,
	    "fp"))), 0);
	logscan_init(ls, path, LOGSCAN_DEFAULT_MAX_LINE);
	logscan_set_pos(ls, &pos);
	assert_int_equal(health_load(h, cJSON_GetObjectItem(doc, "health")), 0);
}

static void
append_meg(FILE *fp, long it, double loss)
{
	fprintf(fp, " iteration %8ld/%8d | consumed samples: %12ld | lm loss: %.6E | "
	    "throughput per GPU (TFLOP/s/GPU): %.1f | grad norm: 0.845 |\n", it, 500000,
	    it * 512, loss, 180.5 + noise());
}

static void
test_logscan_restart(void **state)
{
	char dir[] = "/tmp/wk-test-health.XXXXXX", path[PATH_MAX];
	struct health_opts o;
	struct logscan ls;
	struct pump p;
	struct health *h;
	cJSON *saved;
	FILE *fp;
	long it;
	size_t nspike;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/train.log", dir);
	opts_meg(&o);
	h = mk(&o);
	health_new_attempt(h, 1);
	logscan_init(&ls, path, LOGSCAN_DEFAULT_MAX_LINE);
	p.h = h;

	fp = fopen(path, "w");
	assert_non_null(fp);
	for (it = 1; it <= 200; it++)
		append_meg(fp, it, 2.3 * (1 + 0.03 * noise()));
	for (; it <= 206; it++)
		append_meg(fp, it, 4.6);
	fflush(fp);
	p.now = T0;
	assert_true(logscan_poll(&ls, pump_line, &p) > 0);
	no_alerts(h);
	saved = persist(h, &ls);
	logscan_free(&ls);
	health_free(h);

	/* More is written while nobody watches; a new process resumes. */
	for (; it <= 215; it++)
		append_meg(fp, it, 4.6);
	fflush(fp);
	h = mk(&o);
	resume(h, &ls, path, saved);
	cJSON_Delete(saved);
	health_new_attempt(h, 1);
	p.h = h;
	p.now = T0 + 600;
	assert_true(logscan_poll(&ls, pump_line, &p) > 0);
	assert_int_equal(take(h, HEALTH_LOSS_SPIKE, &nspike), 1);
	assert_int_equal(nspike, 1);
	saved = persist(h, &ls);
	logscan_free(&ls);
	health_free(h);

	/* And again: nothing new in the log, nothing re-fired. */
	h = mk(&o);
	resume(h, &ls, path, saved);
	cJSON_Delete(saved);
	p.h = h;
	assert_int_equal(logscan_poll(&ls, pump_line, &p), 0);
	no_alerts(h);
	assert_non_null(reason(h, HEALTH_LOSS_SPIKE));
	logscan_free(&ls);
	health_free(h);
	fclose(fp);
	assert_int_equal(unit_rmrf(dir), 0);
}

/* ---- construction, config, queue, JSON ---- */

static void
test_config_keys(void **state)
{
	char dir[] = "/tmp/wk-test-health.XXXXXX", path[PATH_MAX], err[256];
	struct wk_config *cfg = NULL;
	struct diag d = DIAG_INIT;
	struct health_opts o;
	struct health *h = NULL;
	struct health_view v;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/watchkeeper.json", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{ \"run\": \"r1\", \"workdir\": \"/w/r1\",\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"python train.py\" } ],\n"
	    "  // as in the design brief\n"
	    "  \"progress\": { \"pattern\": \"iteration\\\\s+(\\\\d+)/\\\\s*(\\\\d+)\", \"max\": 5155 },\n"
	    "  \"loss\": { \"pattern\": \"lm loss: ([^ |]+)\", \"spike_steps\": 4 },\n"
	    "  \"throughput\": { \"pattern\": \"TFLOP/s/GPU\\\\): ([0-9.]+)\", \"drop_pct\": 40,\n"
	    "    \"warmup_steps\": 10 }\n"
	    "}\n", fp);
	fclose(fp);
	if (config_load(path, &cfg, &d) != 0) {
		diag_print(&d, stderr);
		fail();
	}
	health_opts_from_config(cfg, &o);
	assert_string_equal(o.progress_re, "iteration\\s+(\\d+)/\\s*(\\d+)");
	assert_int_equal(o.progress_max, 5155);
	assert_string_equal(o.loss_re, "lm loss: ([^ |]+)");
	assert_true(o.spike_pct == 50);
	assert_int_equal(o.spike_steps, 4);
	assert_int_equal(o.loss_warmup, 0);
	assert_true(o.drop_pct == 40);
	assert_int_equal(o.tp_ticks, 2);
	assert_int_equal(o.tp_window_s, 3 * 1800);	/* three of patrol's default intervals */
	assert_int_equal(o.tp_warmup, 10);
	assert_int_equal(o.wandb, 1);
	assert_int_equal(health_new(cfg, &h, err, sizeof(err)), 0);
	meg_num(h, T0, 1200, 2.3);
	health_view(h, &v);
	assert_string_equal(v.text, "~1200/5155");
	health_free(h);
	config_free(cfg);
	cfg = NULL;
	diag_free(&d);

	/* No loss/throughput sections: those detectors are off. */
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{ \"run\": \"r1\", \"workdir\": \"/w/r1\",\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"python train.py\" } ] }\n", fp);
	fclose(fp);
	assert_int_equal(config_load(path, &cfg, &d), 0);
	health_opts_from_config(cfg, &o);
	assert_null(o.progress_re);
	assert_null(o.loss_re);
	assert_null(o.tp_re);
	assert_int_equal(health_new(cfg, &h, err, sizeof(err)), 0);
	meg_line(h, T0, 5, 10, "nan", 0.0);
	no_alerts(h);
	health_view(h, &v);
	assert_string_equal(v.text, "unknown");
	health_free(h);
	config_free(cfg);
	diag_free(&d);
	assert_int_equal(unit_rmrf(dir), 0);

	/* Bad patterns name their key. */
	opts_gen(&o);
	o.loss_re = "loss (";
	assert_int_equal(health_new_opts(&o, &h, err, sizeof(err)), WK_ERR_REGEX);
	assert_null(h);
	assert_non_null(strstr(err, "loss.pattern: "));
	opts_gen(&o);
	o.tp_re = "tokens/s [0-9]+";
	assert_int_equal(health_new_opts(&o, &h, err, sizeof(err)), WK_ERR_INVALID);
	assert_non_null(strstr(err, "throughput.pattern: needs a capture group"));
	assert_int_equal(health_new_opts(&o, &h, NULL, 0), WK_ERR_INVALID);
}

static void
test_queue_and_json(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert *al = NULL;
	struct health_view v;
	cJSON *j, *p;
	char *s;
	size_t n, i;
	long k;

	(void)state;
	assert_int_equal(health_kind_by_name("loss_spike"), HEALTH_LOSS_SPIKE);
	assert_int_equal(health_kind_by_name("nope"), HEALTH_NKINDS);
	assert_int_equal(health_kind_by_name(NULL), HEALTH_NKINDS);
	for (i = 0; i < HEALTH_NKINDS; i++) {
		assert_int_equal(health_kinds[i].kind, i);
		assert_int_equal(health_kind_by_name(health_kind_name(i)), i);
	}
	assert_string_equal(health_severity_name(HEALTH_CRITICAL), "critical");

	/* 40 attempts with a NaN each, nobody taking: the newest 32 are kept. */
	opts_meg(&o);
	h = mk(&o);
	for (k = 1; k <= 40; k++) {
		health_new_attempt(h, k);
		meg_line(h, T0 + k, k, 500000, "nan", 1.0);
	}
	health_view(h, &v);
	assert_int_equal(v.alerts_dropped, 8);
	n = health_take_alerts(h, &al);
	assert_int_equal(n, HEALTH_ALERTS_MAX);
	for (i = 0; i < n; i++) {
		assert_int_equal(al[i].seq, 9 + i);
		assert_int_equal(al[i].attempt, 9 + (long)i);
	}
	j = health_alert_json(&al[0]);
	s = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(s, "\"event\":\"nan_loss\""));
	assert_non_null(strstr(s, "\"severity\":\"critical\""));
	assert_non_null(strstr(s, "\"value\":\"nan\""));
	free(s);
	cJSON_Delete(j);
	free(al);
	assert_int_equal(health_take_alerts(h, &al), 0);
	assert_null(al);

	/* The view as JSON: what the heartbeat and the probe carry. */
	meg_num(h, T0 + 100, 41, 2.0);
	feed(h, T0 + 100, wandb_end);
	health_view(h, &v);
	j = health_view_json(&v);
	p = cJSON_GetObjectItem(j, "progress");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(p, "text")), "~41/500000");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(p, "max_source")), "log");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(j, "wandb"), "id")), "3kq9x2ab");
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "loss"),
	    "last")) == 2.0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "degraded")), 0);
	cJSON_Delete(j);
	meg_line(h, T0 + 101, 42, 500000, "-inf", 1.0);
	health_view(h, &v);
	j = health_view_json(&v);
	s = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(s, "\"last\":\"-inf\""));
	assert_non_null(strstr(s, "{\"kind\":\"nan_loss\",\"text\":\"nan_loss: loss is -inf"));
	free(s);
	cJSON_Delete(j);
	health_free(h);
}

/* ---- recovery ---- */

/*
 * A relaunched attempt watched for its first step: nothing before the
 * limit, one recovery_stalled at it, never again for that attempt (not
 * after save/load either), a reason until a step comes; a step in time
 * fires nothing; the next attempt is watched afresh.  And the step
 * interval an ending attempt leaves for the next one's limit.
 */
static void
test_recovery_stalled(void **state)
{
	struct health_opts o;
	struct health *h;
	struct health_alert al;
	long k;

	(void)state;
	opts_gen(&o);
	h = mk(&o);
	health_new_attempt(h, 1);
	assert_true(health_step_interval(h) < 0);
	/* Attempt 1: a step every 5 s (fed once per second), 40 steps. */
	for (k = 1; k <= 200; k++)
		if (k % 5 == 0)
			gen_line(h, T0 + k, k / 5, 100, 2.0, 1000);
	assert_true(fabs(health_step_interval(h) - 5.0) < 0.2);
	(void)take(h, HEALTH_NKINDS, NULL);
	/* Not watched: ticks fire nothing however long it is silent. */
	health_tick(h, T0 + 100000);
	no_alerts(h);

	health_new_attempt(h, 2);
	assert_true(health_step_interval(h) < 0);	/* a new attempt, no step yet */
	health_expect_step(h, T0 + 1000, 900, 300);
	health_tick(h, T0 + 1899);
	no_alerts(h);
	assert_null(reason(h, HEALTH_RECOVERY_STALLED));
	health_tick(h, T0 + 1900);
	al = take_one(h, HEALTH_RECOVERY_STALLED);
	assert_int_equal(al.severity, HEALTH_DEGRADED);
	assert_int_equal(al.attempt, 2);
	assert_string_equal(al.text, "no new step 900 s after the relaunch (attempt 2; before the "
	    "failure a step came every 300 s)");
	assert_non_null(reason(h, HEALTH_RECOVERY_STALLED));
	health_tick(h, T0 + 5000);
	no_alerts(h);
	/* A restarted onbox: the same attempt again, never a second alert. */
	h = restart(h, &o);
	health_new_attempt(h, 2);
	health_expect_step(h, T0 + 1000, 900, 300);
	health_tick(h, T0 + 9000);
	no_alerts(h);
	assert_non_null(strstr(reason(h, HEALTH_RECOVERY_STALLED), "within 900 s of the relaunch"));
	/* The first step ends the reason. */
	gen_line(h, T0 + 9001, 41, 100, 2.0, 1000);
	assert_null(reason(h, HEALTH_RECOVERY_STALLED));

	/* Attempt 3: its step comes in time, nothing fires. */
	health_new_attempt(h, 3);
	health_expect_step(h, T0 + 10000, 3, -1);
	gen_line(h, T0 + 10002, 42, 100, 2.0, 1000);
	health_tick(h, T0 + 10010);
	no_alerts(h);

	/* Attempt 4: interval unknown, said so; watched afresh. */
	health_new_attempt(h, 4);
	health_expect_step(h, T0 + 20000, 3, -1);
	health_tick(h, T0 + 20003);
	al = take_one(h, HEALTH_RECOVERY_STALLED);
	assert_non_null(strstr(al.text, "(attempt 4; the step interval before the failure is unknown)"));
	health_free(h);

	/* Without a progress pattern there is nothing to watch. */
	o.progress_re = NULL;
	h = mk(&o);
	health_new_attempt(h, 2);
	health_expect_step(h, T0, 3, 1);
	health_tick(h, T0 + 100);
	no_alerts(h);
	health_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_exact_max),
		cmocka_unit_test(test_rate_and_eta),
		cmocka_unit_test(test_wandb_once),
		cmocka_unit_test(test_wandb_variants),
		cmocka_unit_test(test_nan_at_once),
		cmocka_unit_test(test_spike_ten_fires_nine_not),
		cmocka_unit_test(test_spike_negative_and_hf),
		cmocka_unit_test(test_spike_warmup_ignored),
		cmocka_unit_test(test_warmup_across_restart),
		cmocka_unit_test(test_lightning),
		cmocka_unit_test(test_throughput_collapse),
		cmocka_unit_test(test_throughput_window),
		cmocka_unit_test(test_resume_mismatch),
		cmocka_unit_test(test_wandb_files),
		cmocka_unit_test(test_throughput_tqdm_and_config),
		cmocka_unit_test(test_save_load_continue),
		cmocka_unit_test(test_load_hostile),
		cmocka_unit_test(test_garbage_lines),
		cmocka_unit_test(test_logscan_restart),
		cmocka_unit_test(test_config_keys),
		cmocka_unit_test(test_queue_and_json),
		cmocka_unit_test(test_recovery_stalled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
