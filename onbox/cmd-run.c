/*
 * cmd-run.c: `onbox run`: run the chain in the foreground (under nohup,
 * tmux or sbatch).  `onbox run --stage NAME` runs one stage of it: what
 * each Slurm job of a "detach": "slurm" chain runs.  The work is in runner.c.
 */
#include <getopt.h>
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
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "stage", required_argument, NULL, 's' },
		{ "allow-dirty", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};
	struct wk_config *cfg;
	const char *stage = NULL;
	int rc, ch, allow_dirty = 0;

	optind = 0;
	while ((ch = getopt_long(ctx->argc, ctx->argv, "+c:", longopts, NULL)) != -1) {
		if (ch == 'c')
			ctx->config_opt = optarg;
		else if (ch == 's')
			stage = optarg;
		else if (ch == 'D')
			allow_dirty = 1;
		else
			return onbox_usage(&onbox_cmd_run);
	}
	if (optind != ctx->argc)
		return onbox_usage(&onbox_cmd_run);
	if ((cfg = onbox_load_config(ctx)) == NULL)
		return WK_EX_CONFIG;
	if (stage != NULL && !cmd_run_stage_known(cfg, stage))
		rc = WK_EX_USAGE;
	else
		rc = runner_run(cfg, stage, allow_dirty);
	config_free(cfg);
	return rc;
}

const struct onbox_cmd onbox_cmd_run = {
	.name = "run",
	.args = "[-c FILE] [--stage NAME] [--allow-dirty]",
	.help = "run the chain in the foreground, from the first missing marker, after the "
	    "launch gate; --stage: that stage only",
	.exec = cmd_run_exec,
};
