/*
 * cmdargs.c: what the subcommands share about their arguments: the usage
 * line, loading the run's config, and the shape several take (`onbox run
 * --stage NAME`, `onbox stop --by WHO`): -c/--config FILE, at most one
 * --OPT VALUE, no operands, then the config.  One place for them, so their
 * usage errors and config errors read the same; apart from onbox.c (main
 * and the command table), so that no command calls back into it.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "log.h"
#include "onbox.h"

int
onbox_usage(const struct onbox_cmd *cmd)
{
	fprintf(stderr, "usage: onbox [-c FILE] %s %s\n", cmd->name, cmd->args);
	return WK_EX_USAGE;
}

struct wk_config *
onbox_load_config(const struct onbox_ctx *ctx)
{
	struct wk_config *cfg = NULL;
	char *path = config_find(ctx->config_opt);

	(void)config_load_report(log_prog(), path, &cfg);
	free(path);
	return cfg;
}

/*
 * A subcommand's arguments when it takes -c/--config FILE, at most one
 * --OPT VALUE (opt NULL: none) and no operands, then its config.  0 with
 * *cfg (caller frees) and *value (NULL: not given), else the exit code
 * (64 usage, 78 config).
 */
int
onbox_args_config(struct onbox_ctx *ctx, const struct onbox_cmd *cmd, const char *opt,
    const char **value, struct wk_config **cfg)
{
	struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ opt, required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	*value = NULL;
	*cfg = NULL;
	optind = 0;
	while ((ch = getopt_long(ctx->argc, ctx->argv, "+c:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			ctx->config_opt = optarg;
			break;
		case 'o':
			*value = optarg;
			break;
		default:
			return onbox_usage(cmd);
		}
	}
	if (optind != ctx->argc)
		return onbox_usage(cmd);
	if ((*cfg = onbox_load_config(ctx)) == NULL)
		return WK_EX_CONFIG;
	return 0;
}
