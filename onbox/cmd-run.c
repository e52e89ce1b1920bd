/*
 * cmd-run.c: `onbox run`: run the chain in the foreground (under nohup,
 * tmux or sbatch).  `onbox run --stage NAME` runs one stage of it: what
 * each Slurm job of a "detach": "slurm" chain runs.  The work is in runner.c.
 */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "log.h"
#include "onbox.h"

/* 1 when name is a stage of cfg's chain; else says so, naming the config and its stages. */
static int
cmd_run_stage_known(const struct wk_config *cfg, const char *name)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < cfg->nchain; i++)
		if (strcmp(cfg->chain[i].name, name) == 0)
			return 1;
	for (i = 0; i < cfg->nchain; i++)
		buf_printf(&b, "%s%s", i > 0 ? ", " : "", cfg->chain[i].name);
	log_error("run --stage \"%.100s\": %s has no stage of that name (its chain: %s)", name,
	    cfg->path, buf_str(&b));
	buf_free(&b);
	return 0;
}

static int
cmd_run_exec(struct onbox_ctx *ctx)
{
	struct wk_config *cfg;
	const char *stage;
	int rc;

	if ((rc = onbox_args_config(ctx, &onbox_cmd_run, "stage", &stage, &cfg)) != 0)
		return rc;
	if (stage != NULL && !cmd_run_stage_known(cfg, stage))
		rc = WK_EX_USAGE;
	else
		rc = runner_run(cfg, stage);
	config_free(cfg);
	return rc;
}

const struct onbox_cmd onbox_cmd_run = {
	.name = "run",
	.args = "[-c FILE] [--stage NAME]",
	.help = "run the chain in the foreground, from the first missing marker; "
	    "--stage: that stage only",
	.exec = cmd_run_exec,
};
