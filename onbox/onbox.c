/*
 * onbox.c: the on-box agent's entry point and command table.
 *
 * onbox runs on the rented box under tmux/nohup/sbatch: it runs the run's
 * chain of stages &&-gated, lands a marker per stage only on success, and
 * keeps a heartbeat.  Exit codes are a contract (DESIGN.md): 0 every marker
 * present, 1 a stage failed, 75 another onbox holds the run, 64 usage, 78 config.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopts.h"
#include "config.h"
#include "curlcmd.h"
#include "diag.h"
#include "log.h"
#include "onbox.h"
#include "xmalloc.h"

static const struct onbox_cmd *const onbox_cmds[] = {
	&onbox_cmd_run,
	&onbox_cmd_start,
	&onbox_cmd_status,
	&onbox_cmd_notify,
	&onbox_cmd_wait,
	&onbox_cmd_stop,
};

static void
onbox_help(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: onbox [-c FILE] [-v] COMMAND [ARGS]\n\n"
	    "Runs a training run's chain of stages on the box, &&-gated, with markers,\n"
	    "a heartbeat and failure triage.\n\ncommands:\n");
	for (i = 0; i < sizeof(onbox_cmds) / sizeof(onbox_cmds[0]); i++) {
		if (onbox_cmds[i]->hidden)
			continue;
		fprintf(fp, "  %-8s %-14s %s\n", onbox_cmds[i]->name, onbox_cmds[i]->args,
		    onbox_cmds[i]->help);
	}
	fprintf(fp, "\noptions:\n"
	    "  -c, --config FILE  the run's config (else $WATCHKEEPER_CONFIG, else ./watchkeeper.json)\n"
	    "  -v, --verbose      more diagnostics\n"
	    "  -V, --version      print the version\n"
	    "  -h, --help         this text; `onbox --help-config` lists every config key\n"
	    "\nexit: 0 every marker present, 1 a stage failed, 64 usage, 75 another onbox\n"
	    "holds the run, 78 config error; `onbox run` stopped by a signal: 128+N (stopped on\n"
	    "purpose by `onbox stop`: 143).\n"
	    "`onbox stop`: 0 stopped (also when nothing was running: the run is then recorded\n"
	    "stopped so nothing resumes it), 64 usage, 74 cannot write its files, 75 the running\n"
	    "onbox could not be named or did not exit in stop_grace_s + 30 s (slurm: the queue\n"
	    "could not be read), 78 config error or a job stage with no onbox running.\n"
	    "\nwebhooks go through libcurl, else the box's curl command, else nowhere (events\n"
	    "stay in the outbox); `onbox --version` says which.  Testing/override knob:\n"
	    "  WATCHKEEPER_HTTP=libcurl|curl|none  use only that way (default: auto)\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help-config", no_argument, NULL, 'K' },
		WK_LONGOPTS_COMMON
	};
	struct cli_common cc = { "onbox", onbox_help, NULL, 0 };
	struct onbox_ctx ctx;
	size_t i;
	int ch, rc;

	memset(&ctx, 0, sizeof(ctx));
	log_init("onbox", 0);
	/* '+': stop at the command name; its own options are its business. */
	while ((ch = getopt_long(argc, argv, "+c:vVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'V': {
			struct curlcmd_how how;

			curlcmd_how_get(&how);
			printf("onbox %s\nhttp: %s\n", WK_VERSION, how.detail);
			curlcmd_how_free(&how);
			return 0;
		}
		case 'K':
			config_print_keys(stdout);
			return 0;
		default:
			if ((rc = cli_common(&cc, ch)) != CLI_NEXT)
				return rc;
		}
	}
	ctx.config_opt = cc.config;
	ctx.verbose = cc.verbose;
	log_init("onbox", ctx.verbose);
	if (optind >= argc) {
		onbox_help(stderr);
		return WK_EX_USAGE;
	}
	ctx.argc = argc - optind;
	ctx.argv = argv + optind;
	for (i = 0; i < sizeof(onbox_cmds) / sizeof(onbox_cmds[0]); i++) {
		if (strcmp(onbox_cmds[i]->name, ctx.argv[0]) == 0)
			return onbox_cmds[i]->exec(&ctx);
	}
	fprintf(stderr, "onbox: unknown command \"%s\"\n", ctx.argv[0]);
	onbox_help(stderr);
	return WK_EX_USAGE;
}
