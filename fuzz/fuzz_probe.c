/*
 * fuzz_probe.c: patrol's probe parser, and everything patrol derives from a
 * probe that parsed, on arbitrary bytes as if they came back from the box.
 *
 * probe_parse() must either accept or say why; an accepted probe must hold
 * what its framing promised (lengths that match, no FAILED marker among the
 * markers).  The bytes are parsed three times, as patrol and its neighbours
 * do: without a config (the sections only: deploy, the handbook's check),
 * and with each of two fixed configs (one tmux, one Slurm, loaded once in
 * the initializer), which reads the typed views too (the @slurm jobs, the
 * @ckpt listing, the tails' triage and progress).  Each typed probe is then
 * walked the way patrol walks it: the lookups, the views, and the decision
 * table, which must parse nothing of its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "ckpt.h"
#include "config.h"
#include "decide.h"
#include "fuzzutil.h"
#include "log.h"
#include "probe.h"
#include "slurm.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char cfg_tmux_json[] =
    "{ \"run\": \"t1\", \"workdir\": \"/w/run 1\", \"detach\": \"tmux\",\n"
    "  \"results\": \"results/metrics.csv\",\n"
    "  \"progress\": { \"pattern\": \"step (\\\\d+)/(\\\\d+)\", \"max\": 100 },\n"
    "  \"transfer\": { \"remote\": \"out\" },\n"
    "  \"checkpoints\": { \"dir\": \"ck\", \"pattern\": \"^step_(\\\\d+)$\" },\n"
    "  \"chain\": [\n"
    "    { \"stage\": \"train\", \"run\": \"python train.py\", \"log\": \"train.log\",\n"
    "      \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\" },\n"
    "    { \"stage\": \"eval\", \"run\": \"python eval.py\", \"marker\": \"EVAL_DONE\" } ] }\n";

static const char cfg_slurm_json[] =
    "{ \"run\": \"t1\", \"workdir\": \"/w/run\", \"detach\": \"slurm\",\n"
    "  \"checkpoints\": { \"dir\": \"/w/ck\", \"pattern\": \"(\\\\d+)\", \"complete_file\": \"\" },\n"
    "  \"chain\": [ { \"stage\": \"a\", \"run\": \"true\" },\n"
    "    { \"stage\": \"b\", \"run\": \"true\", \"sbatch\": \"--gpus=1\" } ] }\n";

static struct wk_config *cfg_tmux, *cfg_slurm;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_init("fuzz_probe", 0);
	cfg_tmux = fz_config("tmux.json", cfg_tmux_json);
	cfg_slurm = fz_config("slurm.json", cfg_slurm_json);
	fz_tmpdir_remove();
	return 0;
}

static void
check_probe(const struct probe *p)
{
	size_t i;

	for (i = 0; i < p->nmarkers; i++) {
		size_t n = strlen(p->markers[i]);

		if (n == 0 || (n > 7 && strcmp(p->markers[i] + n - 7, ".FAILED") == 0))
			abort();
		if (!probe_has_marker(p, p->markers[i]))
			abort();
	}
	/* The parser refuses NUL bytes, so every length is the string's. */
	for (i = 0; i < p->nlogs; i++)
		if (strlen(p->logs[i].tail) != p->logs[i].len || probe_log(p, p->logs[i].name) == NULL)
			abort();
	if ((p->events != NULL && strlen(p->events) != p->events_len) ||
	    (p->ckpt != NULL && strlen(p->ckpt) != p->ckpt_len) ||
	    (p->slurm != NULL && strlen(p->slurm) != p->slurm_len))
		abort();
	if (p->events != NULL && (p->events_from < 0 || p->events_from > p->events_size))
		abort();
}

/* The Slurm view probe_parse read: every job sane and found again. */
static void
check_slurm(const struct wk_config *cfg, const struct probe *p)
{
	const struct slurm_view *sv = &p->slurm_view;
	size_t i;

	if (!p->has_slurm_view) {
		if (cfg->detach_kind == DETACH_SLURM)
			abort();
		return;
	}
	if (cfg->detach_kind != DETACH_SLURM || (!sv->queue_known && sv->why == NULL))
		abort();
	for (i = 0; i < sv->njobs; i++) {
		const struct slurm_job *j = &sv->jobs[i];

		if (j->cls >= SLURM_NCLS || slurm_cls_name(j->cls) == NULL ||
		    slurm_reason_text(j->reason) == NULL || !slurm_id_ok(j->id) ||
		    config_stage(cfg, j->stage) == NULL || slurm_job_by_id(sv, j->id) != j)
			abort();
	}
	for (i = 0; i < cfg->nchain; i++)
		(void)slurm_stage_job(sv, cfg->chain[i].name);
}

static void
check_ckpt(const struct probe *p)
{
	struct ckpt_summary sum;
	char *text;

	if (p->ckpt_scan == NULL)
		return;
	if (p->ckpt == NULL)
		abort();
	ckpt_summarize(p->ckpt_scan, p->box_time, &sum);
	text = ckpt_summary_text(&sum);
	free(text);
}

/* The tails' triage and progress: read only where the table can use them. */
static void
check_tails(const struct wk_config *cfg, const struct probe *p)
{
	long fm = probe_first_missing(p, cfg);

	if (p->tail_crash && (fm < 0 || probe_alive(p, cfg, fm) || probe_log(p, "output") == NULL ||
	    p->tail_cls >= TRIAGE_NCLASSES))
		abort();
	if (!p->tail_crash && (p->tail_cls != TRIAGE_NONE || p->tail_evidence != NULL))
		abort();
	if (p->tail_progress_max >= 0 && p->tail_progress < 0)
		abort();
}

static void
walk(const struct wk_config *cfg, const uint8_t *data, size_t size)
{
	struct decide_in in;
	struct decide_out out;
	struct probe p;
	char *why = NULL;
	size_t i;

	if (probe_parse(cfg, (const char *)data, size, &p, &why) != 0) {
		/* the views never make a probe fail: the sections decided (LLVMFuzzerTestOneInput) */
		abort();
	}
	check_probe(&p);
	for (i = 0; i < cfg->nchain; i++) {
		(void)probe_has_marker(&p, cfg->chain[i].marker);
		(void)probe_failed(&p, cfg->chain[i].marker);
		(void)probe_history(&p, cfg->chain[i].name);
		(void)probe_log(&p, cfg->chain[i].name);
	}
	(void)probe_log(&p, "output");
	check_slurm(cfg, &p);
	check_ckpt(&p);
	check_tails(cfg, &p);

	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.seen = 1;
	in.fail = SSH_OK;
	in.p = &p;
	in.prev_progress = 3;
	in.still_ticks = 1;
	in.local_files = 2;
	in.local_bytes = 8;
	memset(&out, 0, sizeof(out));
	decide(&in, &out);
	if (out.v >= V_COUNT || verdict_name(out.v) == NULL ||
	    memchr(out.details, '\0', sizeof(out.details)) == NULL)
		abort();
	if (out.job != NULL && !p.has_slurm_view)
		abort();
	probe_free(&p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe p;
	char *why = NULL;

	if (size > PROBE_MAX_OUT)
		return -1;
	if (probe_parse(NULL, (const char *)data, size, &p, &why) != 0) {
		if (why == NULL || p.nmarkers != 0 || p.nlogs != 0 || p.state != NULL)
			abort();
		free(why);
		return 0;
	}
	if (why != NULL || p.has_slurm_view || p.ckpt_scan != NULL || p.tail_crash ||
	    p.tail_progress != -1)
		abort();
	check_probe(&p);
	probe_free(&p);
	walk(cfg_tmux, data, size);
	walk(cfg_slurm, data, size);
	return 0;
}
