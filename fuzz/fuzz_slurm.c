/*
 * fuzz_slurm.c: slurm_parse() on arbitrary bytes, as if they were the output
 * of slurm_query_script() run on a login node ("=squeue json 0" / "=sacct
 * comp 0" / "=scontrol 0" sections).  The run's config is fixed (run "t1",
 * stages "a", "b", "train") and loaded once in the initializer.  A parse
 * either fails with a reason and an empty view, or gives jobs that all
 * belong to the run, have valid ids and classes, newest first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzzutil.h"
#include "log.h"
#include "slurm.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char cfg_json[] =
    "{ \"run\": \"t1\", \"workdir\": \"/w/run\", \"detach\": \"slurm\",\n"
    "  \"chain\": [ { \"stage\": \"a\", \"run\": \"true\" },\n"
    "    { \"stage\": \"b\", \"run\": \"true\" },\n"
    "    { \"stage\": \"train\", \"run\": \"python train.py\", \"sbatch\": { \"gpus\": 8, \"requeue\": true } } ] }\n";

static struct wk_config *cfg;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_init("fuzz_slurm", 0);
	cfg = fz_config("slurm.json", cfg_json);
	fz_tmpdir_remove();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slurm_view sv;
	char *why = NULL;
	size_t i;

	if (slurm_parse(cfg, (const char *)data, size, &sv, &why) != 0) {
		if (why == NULL || sv.njobs != 0 || sv.jobs != NULL)
			abort();
		free(why);
		return 0;
	}
	if (why != NULL)
		abort();
	for (i = 0; i < sv.njobs; i++) {
		const struct slurm_job *j = &sv.jobs[i];

		if (j->cls >= SLURM_NCLS || slurm_cls_name(j->cls) == NULL ||
		    slurm_reason_text(j->reason) == NULL || !slurm_id_ok(j->id) ||
		    config_stage(cfg, j->stage) == NULL || slurm_job_by_id(&sv, j->id) != j ||
		    memchr(j->state, '\0', sizeof(j->state)) == NULL ||
		    memchr(j->reason, '\0', sizeof(j->reason)) == NULL)
			abort();
		/* Newest first. */
		if (i > 0 && strtoull(sv.jobs[i - 1].id, NULL, 10) < strtoull(j->id, NULL, 10))
			abort();
		(void)slurm_classify(j->state, j->reason);
	}
	for (i = 0; i < cfg->nchain; i++) {
		const struct slurm_job *j = slurm_stage_job(&sv, cfg->chain[i].name);

		if (j != NULL && strcmp(j->stage, cfg->chain[i].name) != 0)
			abort();
	}
	slurm_view_free(&sv);
	return 0;
}
