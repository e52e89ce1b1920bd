/*
 * patrol.c: layer 2's entry point.
 *
 *   patrol [-c FILE] [--once] [--json]      one tick (the default)
 *   patrol [-c FILE] --install-cron          add this run's line to the crontab
 *   patrol [-c FILE] --uninstall-cron        remove it
 *   patrol [-c FILE] deploy [--onbox PATH] [--no-start] [--no-secrets]
 *                                            put the run on the box (and the
 *                                            notify secrets), start onbox
 *   patrol [-c FILE] stop                    stop the run on purpose (onbox stop there)
 *
 * Exit: 0 OK/DONE/STOPPED, 1 any other verdict, 2 the box could not be seen
 * (SSH_DOWN, HOSTKEY_MISMATCH), 64 usage, 75 another patrol is ticking for
 * this run, 78 config error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "decide.h"
#include "diag.h"
#include "fsutil.h"
#include "log.h"
#include "patrol.h"
#include "xmalloc.h"

static void
usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: patrol [-c FILE] [--once] [--json] [-v]\n"
	    "       patrol [-c FILE] --install-cron | --uninstall-cron\n"
	    "       patrol [-c FILE] deploy [--onbox PATH] [--no-start] [--no-secrets]\n"
	    "       patrol [-c FILE] stop\n\n"
	    "One tick: one ssh connection, one probe, the decision table, a one-line report:\n"
	    "  <UTC time> <run> <VERDICT> <details>\n\nverdicts, highest priority first:\n");
	for (i = 0; i < decide_nrows; i++)
		fprintf(fp, "  %-20s %s\n", decide_table[i].name, decide_table[i].when);
	fprintf(fp, "\nexit: 0 OK, DONE or STOPPED, 1 other verdicts, 2 box unseen, 64 usage, 75\n"
	    "another patrol is ticking, 78 config error.\n"
	    "\nstop: runs `onbox stop` on the box over one ssh connection: SIGTERM to the stage's\n"
	    "process group, SIGKILL after stop_grace_s; the run stays STOPPED (never resumed, even\n"
	    "with auto_resume) until `patrol deploy` or `onbox start`.  Exit 0 stopped (also when\n"
	    "nothing ran), 2 box unreachable (nothing stopped, no patrol state or report line\n"
	    "written), else onbox stop's own code (75, 78), 64 usage, 78 config error.\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "once", no_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "install-cron", no_argument, NULL, 'I' },
		{ "uninstall-cron", no_argument, NULL, 'U' },
		{ "onbox", required_argument, NULL, 'B' },
		{ "no-start", no_argument, NULL, 'N' },
		{ "no-secrets", no_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct wk_config *cfg = NULL;
	const char *copt = NULL, *onbox = NULL;
	char *path, *self, *abs;
	int ch, json = 0, mode = 'o', verbose = 0, start = 1, secrets = 1, rc;

	/* deploy and stop mix stdout and stderr lines: keep their order in a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	log_init("patrol", 0);
	while ((ch = getopt_long(argc, argv, "c:jvVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			copt = optarg;
			break;
		case 'o':
			break;
		case 'j':
			json = 1;
			break;
		case 'I':
		case 'U':
			mode = ch;
			break;
		case 'B':
			onbox = optarg;
			break;
		case 'N':
			start = 0;
			break;
		case 'S':
			secrets = 0;
			break;
		case 'v':
			verbose++;
			break;
		case 'V':
			printf("patrol %s\n", WK_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return WK_EX_USAGE;
		}
	}
	if (optind < argc && strcmp(argv[optind], "deploy") == 0 && mode == 'o') {
		mode = 'D';
		optind++;
	} else if (optind < argc && strcmp(argv[optind], "stop") == 0 && mode == 'o' && !json) {
		/* `patrol stop -c FILE` too: getopt moved the options before the word */
		mode = 'S';
		optind++;
	}
	if (optind != argc || ((onbox != NULL || !start || !secrets) && mode != 'D')) {
		usage(stderr);
		return WK_EX_USAGE;
	}
	log_init("patrol", verbose);
	path = config_find(copt);
	if (config_load_report("patrol", path, &cfg) != 0) {
		free(path);
		return WK_EX_CONFIG;
	}
	if (mode == 'I') {
		self = fs_self_exe();
		abs = fs_abspath(path);
		rc = self != NULL ? cron_install(cfg, self, abs) : WK_EX_SOFTWARE;
		free(self);
		free(abs);
	} else if (mode == 'U')
		rc = cron_uninstall(cfg, 0);
	else if (mode == 'D')
		rc = patrol_deploy(cfg, onbox, start, secrets);
	else if (mode == 'S')
		rc = patrol_stop(cfg);
	else
		rc = patrol_tick(cfg, json);
	config_free(cfg);
	free(path);
	return rc;
}
