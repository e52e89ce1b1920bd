/*
 * cmd-run.c: `onbox run`: run the chain in the foreground (under nohup,
 * tmux or sbatch).  The work is in runner.c.
 */
#include <getopt.h>
#include <stdio.h>

#include "config.h"
#include "onbox.h"

static int
cmd_run_exec(struct onbox_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	struct wk_config *cfg;
	int ch, rc;

	optind = 0;
	while ((ch = getopt_long(ctx->argc, ctx->argv, "+c:", longopts, NULL)) != -1) {
		if (ch != 'c')
			return onbox_usage(&onbox_cmd_run);
		ctx->config_opt = optarg;
	}
	if (optind != ctx->argc)
		return onbox_usage(&onbox_cmd_run);
	if ((cfg = onbox_load_config(ctx)) == NULL)
		return WK_EX_CONFIG;
	rc = runner_run(cfg);
	config_free(cfg);
	return rc;
}

const struct onbox_cmd onbox_cmd_run = {
	.name = "run",
	.args = "[-c FILE]",
	.help = "run the chain in the foreground; resumes at the first missing marker",
	.exec = cmd_run_exec,
};
