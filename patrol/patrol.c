/*
 * patrol.c: layer 2's entry point.
 *
 *   patrol [-c FILE] [--once] [--json]      one tick (the default)
 *   patrol [-c FILE] --install-schedule [--scheduler cron|systemd|launchd]
 *                                            tick from the owner's scheduler (alias
 *                                            --install-cron; scheduler.h)
 *   patrol [-c FILE] --uninstall-schedule [--scheduler ...]   remove it (--uninstall-cron)
 *   patrol [-c FILE] deploy [--onbox PATH] [--no-start] [--no-secrets] [--allow-dirty]
 *                                            check the launch contract (gate.h), put
 *                                            the run on the box (and the notify
 *                                            secrets), start onbox
 *   patrol [-c FILE] deploy --check          the launch contract only
 *   patrol [-c FILE] stop                    stop the run on purpose (onbox stop there)
 *   patrol --all [--jobs N]                  a tick of every run patrol knows (fleet.c)
 *   patrol status --all [--json] [--refresh] [--jobs N]   the fleet's table
 *   patrol [-c FILE] status [--json]         this run's row of it
 *   patrol [-c FILE] seal                    verify the finished run and seal it: logbook,
 *                                            tag seal/<run>, schedule removed (seal.c)
 *   patrol [-c FILE] checkpoints [--prune [--confirm]]
 *                                            the box's checkpoints, what is kept and
 *                                            why; delete the rest (checkpoints.c)
 *   patrol [-c FILE] resume [--dry-run] [--json]  resume it now (policy, not auto_resume)
 *   patrol [-c FILE]... mcp                  serve MCP on stdio for these runs (every run
 *                                            with local state when no -c; mcp.h)
 *   patrol top [--interval S] [--jobs N] [--slow S]   the fleet live (top.c)
 *   patrol watch --job ID [...]              write a config that adopts a cluster job
 *                                            already running (watch.c; its own options)
 *
 * Exit: 0 OK/DONE/STOPPED, 1 any other verdict, 2 the box could not be seen
 * (SSH_DOWN, HOSTKEY_MISMATCH), 64 usage, 75 another patrol is ticking for
 * this run, 78 config error.
 *
 * The modes are a table, patrol_cmds[], as onbox's commands are: each is
 * chosen by an option (--install-schedule) or by a word after the options
 * (deploy), says which of the options it takes, and runs with the loaded
 * config.  The tick is the default.  A command with options of its own
 * (watch) is the first word and gets the rest of argv: patrol's options are
 * not its, and it loads no config.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopts.h"
#include "config.h"
#include "decide.h"
#include "diag.h"
#include "fsutil.h"
#include "log.h"
#include "mcp.h"
#include "patrol.h"
#include "scheduler.h"
#include "top.h"
#include "xmalloc.h"

static void
usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: patrol [-c FILE] [--once] [--json] [-v]\n"
	    "       patrol [-c FILE] --install-schedule | --uninstall-schedule [--scheduler cron|systemd|launchd]\n"
	    "                          (--install-cron, --uninstall-cron: the same)\n"
	    "       patrol [-c FILE] deploy [--onbox PATH] [--no-start] [--no-secrets] [--allow-dirty]\n"
	    "       patrol [-c FILE] deploy --check\n"
	    "       patrol [-c FILE] stop\n"
	    "       patrol [-c FILE] checkpoints [--prune [--confirm]]\n"
	    "       patrol [-c FILE] seal\n"
	    "       patrol --all [--jobs N]\n"
	    "       patrol --install-schedule --all | --uninstall-schedule --all [--scheduler ...]\n"
	    "       patrol status --all [--json] [--refresh] [--jobs N] | patrol [-c FILE] status [--json]\n"
	    "       patrol [-c FILE] resume [--dry-run] [--json]\n"
	    "       patrol [-c FILE]... mcp\n"
	    "       patrol top [--interval S] [--jobs N] [--slow S]\n"
	    "       patrol watch --job ID [--profile ray|iris] [--run NAME] [--stage NAME]\n"
	    "                    [--resubmit CMD] [--workdir DIR] [--host HOST] [-o FILE] [--force]\n\n"
	    "One tick: one ssh connection, one probe, the decision table, a one-line report:\n"
	    "  <UTC time> <run> <VERDICT> <details>\n\nverdicts, highest priority first:\n");
	for (i = 0; i < decide_nrows; i++)
		fprintf(fp, "  %-20s %s\n", decide_table[i].name, decide_table[i].when);
	fprintf(fp, "\nexit: 0 OK, DONE or STOPPED, 1 other verdicts, 2 box unseen, 64 usage, 75\n"
	    "another patrol is ticking, 78 config error.\n"
	    "\nstop: runs `onbox stop` on the box over one ssh connection: SIGTERM to the stage's\n"
	    "process group, SIGKILL after stop_grace_s; the run stays STOPPED (never resumed, even\n"
	    "with auto_resume) until `patrol resume`, `patrol deploy` or `onbox start`.  Exit 0\n"
	    "stopped (also when nothing ran), 2 box unreachable (nothing stopped, no patrol state\n"
	    "or report line written), else onbox stop's own code (75, 78), 64 usage, 78 config\n"
	    "error.\n"
	    "\ndeploy: prints the launch contract (each stage's command, the box's git state,\n"
	    "output_root, the final step, W&B identity, checkpoints, initialize_from, DRI) and\n"
	    "refuses before anything is uploaded when the gate does (a dirty tree of a hero or\n"
	    "refuse_dirty run without --allow-dirty, an output_root that cannot be written, an\n"
	    "initialize_from without its metadata); --check prints it and does nothing else.\n"
	    "Exit 0 started (--check: the gate passes), 1 refused or failed, 2 box unreachable,\n"
	    "75 the run is alive on the box, 78 config error.\n"
	    "\n--all: a tick of every run patrol knows (each state directory whose patrol.json names\n"
	    "its config), N at a time (--jobs, default 4), each with its own lock (a run another\n"
	    "patrol ticks: SKIPPED); a run that was DONE or is sealed is left out.  Exit 2 when a box\n"
	    "was unseen, else 1 when a run is not OK/DONE/STOPPED, else 0.  status --all: the table\n"
	    "(run, box, verdict, stage, ~cur/max, ETA, last seen, details) from the state alone;\n"
	    "--refresh ticks the fleet first.  --install-schedule --all: one entry for the fleet\n"
	    "(runs `patrol --all`; the runs' own entries are removed); it goes when every run is\n"
	    "DONE or sealed.\n"
	    "\nseal: verifies the run finished (every marker), its final checkpoint's metadata,\n"
	    "W&B's final summary (a wandb section) and the results, then writes the seal to the\n"
	    "logbook, commits, pushes and tags it seal/<run> (logbook.git) and removes the schedule;\n"
	    "what is missing blocks it and is named.  Exit 0 sealed, 1 blocked or failed (run it\n"
	    "again to finish), 2 box unreachable, 78 config error.\n"
	    "\ncheckpoints: lists the box's checkpoints and why each is kept (the newest\n"
	    "checkpoints.keep complete ones, the recovery one, the final step's, the ones attempts\n"
	    "launched from, checkpoints.permanent_every milestones, newer incomplete ones, a rejected\n"
	    "lineage); --prune names the rest, --prune --confirm deletes them.  Exit 0, 1 unreadable\n"
	    "or a deletion failed, 2 box unreachable, 64 usage, 78 no checkpoints configured.\n"
	    "\nmcp: serves the Model Context Protocol on stdin/stdout (one JSON-RPC message a\n"
	    "line) for an agent: the runs of every -c FILE given, else every run with local state.\n"
	    "Exit 0 at the end of stdin, 64 usage, 78 config error.\n"
	    "\nresume: a tick that resumes the run now when it is NEEDS_RESUME or CRASHED (the\n"
	    "restart policy decides; patrol.auto_resume is not needed) or STOPPED, recorded like a\n"
	    "tick; --dry-run only looks and says what it would do, writing nothing.  Exit as a tick.\n"
	    "\ntop: a live view of every run patrol knows, one row a run, refreshed by looks in\n"
	    "children (the tick's probe and decision, nothing done, no tick counted; never\n"
	    "waiting for a box); Enter opens a run, l follows its log, s and r stop and resume\n"
	    "it after y/n; `patrol top --help` says more.  Exit 0 after q, Ctrl-C, SIGTERM or a\n"
	    "lost terminal, 64 usage or not a terminal.\n"
	    "\nwatch: writes a config (-o FILE, default ./watchkeeper.json) whose stage adopts a\n"
	    "cluster job that already runs (Ray submission id, Iris /<user>/<job>); `patrol watch\n"
	    "--help` says more.  Exit 0 written, 1 FILE exists (no --force), 64 usage, 74 cannot\n"
	    "write, 78 the config does not validate.\n");
}

/* What the options said, for the mode that runs. */
struct patrol_args {
	const char	*config_path;	/* the config file found (config_find) */
	int		 json;
	const char	*onbox;		/* deploy --onbox PATH, or NULL */
	int		 start;		/* deploy: 0 with --no-start */
	int		 secrets;	/* deploy: 0 with --no-secrets */
	int		 check;		/* deploy --check */
	int		 allow_dirty;	/* deploy --allow-dirty */
	int		 all;		/* --all: the fleet */
	int		 jobs;		/* --jobs N */
	int		 refresh;	/* status --refresh */
	int		 prune;		/* checkpoints --prune */
	int		 confirm;	/* checkpoints --prune --confirm */
	int		 dry_run;	/* resume --dry-run */
	int		 scheduler;	/* --scheduler: a sched_kind, -1 none given */
	char		**configs;	/* every -c FILE, absolute (mcp) */
	size_t		 nconfigs;
	int		 argc;		/* own_args: argv from the command word on */
	char		**argv;
};

struct patrol_cmd {
	int		 mode;		/* the option's letter (getopt's), or the word's own */
	const char	*word;		/* the command word after the options, NULL: an option chooses it */
	int		 json;		/* takes --json */
	int		 deploy_opts;	/* takes --onbox, --no-start, --no-secrets */
	int		 configs;	/* takes -c FILE several times and loads them itself (cfg NULL) */
	int		 own_args;	/* the first word; parses argv itself, no config (cfg NULL) */
	int		(*exec)(struct wk_config *, const struct patrol_args *);
};

static int
patrol_cmd_tick(struct wk_config *cfg, const struct patrol_args *a)
{
	return patrol_tick(cfg, a->json);
}

static int
patrol_cmd_install_schedule(struct wk_config *cfg, const struct patrol_args *a)
{
	char *self = fs_self_exe(), *abs = fs_abspath(a->config_path);
	int rc = self != NULL ? schedule_install(cfg, self, abs, a->scheduler) : WK_EX_SOFTWARE;

	free(self);
	free(abs);
	return rc;
}

static int
patrol_cmd_uninstall_schedule(struct wk_config *cfg, const struct patrol_args *a)
{
	return schedule_uninstall(cfg, 0, a->scheduler);
}

static int
patrol_cmd_deploy(struct wk_config *cfg, const struct patrol_args *a)
{
	return patrol_deploy(cfg, a->onbox, (a->start ? DEPLOY_START : 0) |
	    (a->secrets ? DEPLOY_SECRETS : 0) | (a->check ? DEPLOY_CHECK : 0) |
	    (a->allow_dirty ? DEPLOY_ALLOW_DIRTY : 0));
}

static int
patrol_cmd_checkpoints(struct wk_config *cfg, const struct patrol_args *a)
{
	return patrol_checkpoints(cfg, a->prune, a->confirm);
}

static int
patrol_cmd_status(struct wk_config *cfg, const struct patrol_args *a)
{
	return patrol_fleet_status(a->json, 0, a->jobs, cfg->run);
}

static int
patrol_cmd_seal(struct wk_config *cfg, const struct patrol_args *a)
{
	(void)a;
	return patrol_seal(cfg);
}

static int
patrol_cmd_stop(struct wk_config *cfg, const struct patrol_args *a)
{
	(void)a;
	return patrol_stop(cfg);
}

/* The MCP resume tool's code (tick.c): a tick that resumes on request; --dry-run only says. */
static int
patrol_cmd_resume(struct wk_config *cfg, const struct patrol_args *a)
{
	return patrol_resume(cfg, a->dry_run, a->json);
}

static int
patrol_cmd_mcp(struct wk_config *cfg, const struct patrol_args *a)
{
	(void)cfg;
	return mcp_serve(a->configs, a->nconfigs);
}

static int
patrol_cmd_top(struct wk_config *cfg, const struct patrol_args *a)
{
	(void)cfg;
	return patrol_top(a->argc, a->argv);
}

static int
patrol_cmd_watch(struct wk_config *cfg, const struct patrol_args *a)
{
	(void)cfg;
	return patrol_watch(a->argc, a->argv);
}

/* The first row is the default (a tick); a word is looked for only when no option chose a mode. */
static const struct patrol_cmd patrol_cmds[] = {
	{ 'o', NULL, 1, 0, 0, 0, patrol_cmd_tick },
	{ 'I', NULL, 1, 0, 0, 0, patrol_cmd_install_schedule },
	{ 'U', NULL, 1, 0, 0, 0, patrol_cmd_uninstall_schedule },
	{ 'D', "deploy", 1, 1, 0, 0, patrol_cmd_deploy },
	/* `patrol stop -c FILE` too: getopt moved the options before the word */
	{ 'S', "stop", 0, 0, 0, 0, patrol_cmd_stop },
	{ 'M', "mcp", 0, 0, 1, 0, patrol_cmd_mcp },
	{ 'C', "checkpoints", 0, 0, 0, 0, patrol_cmd_checkpoints },
	{ 'E', "seal", 0, 0, 0, 0, patrol_cmd_seal },
	{ 'T', "status", 1, 0, 0, 0, patrol_cmd_status },
	{ 'R', "resume", 1, 0, 0, 0, patrol_cmd_resume },
	{ 'W', "watch", 0, 0, 0, 1, patrol_cmd_watch },
	{ 'X', "top", 0, 0, 0, 1, patrol_cmd_top },
};

#define PATROL_NCMDS	(sizeof(patrol_cmds) / sizeof(patrol_cmds[0]))

/* The row of mode letter m, or NULL. */
static const struct patrol_cmd *
patrol_cmd_by_mode(int m)
{
	size_t i;

	for (i = 0; i < PATROL_NCMDS; i++)
		if (patrol_cmds[i].mode == m)
			return &patrol_cmds[i];
	return NULL;
}

/*
 * The row of command word w that takes what the options said (own, the
 * first word: a row with own_args; else one without), or NULL.
 */
static const struct patrol_cmd *
patrol_cmd_by_word(const char *w, int json, int own)
{
	size_t i;

	for (i = 0; i < PATROL_NCMDS; i++)
		if (patrol_cmds[i].word != NULL && strcmp(patrol_cmds[i].word, w) == 0 &&
		    (patrol_cmds[i].json || !json) && patrol_cmds[i].own_args == own)
			return &patrol_cmds[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "install-schedule", no_argument, NULL, 'I' },
		{ "uninstall-schedule", no_argument, NULL, 'U' },
		{ "install-cron", no_argument, NULL, 'I' },
		{ "uninstall-cron", no_argument, NULL, 'U' },
		{ "scheduler", required_argument, NULL, 'K' },
		{ "onbox", required_argument, NULL, 'B' },
		{ "no-start", no_argument, NULL, 'N' },
		{ "no-secrets", no_argument, NULL, 'S' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 'k' },
		{ "allow-dirty", no_argument, NULL, 'A' },
		{ "all", no_argument, NULL, 'a' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "refresh", no_argument, NULL, 'F' },
		{ "prune", no_argument, NULL, 'P' },
		{ "confirm", no_argument, NULL, 'Y' },
		WK_LONGOPTS_COMMON
	};
	const struct patrol_cmd *cmd = &patrol_cmds[0], *w;
	struct patrol_args a;
	struct wk_config *cfg = NULL;
	struct cli_common cc = { "patrol", usage, NULL, 0 };
	char *path = NULL;
	int ch, rc;

	memset(&a, 0, sizeof(a));
	a.start = a.secrets = 1;
	a.scheduler = -1;
	/* deploy and stop mix stdout and stderr lines: keep their order in a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	log_init("patrol", 0);
	if (argc > 1 && (w = patrol_cmd_by_word(argv[1], 0, 1)) != NULL) {
		a.argc = argc - 1;
		a.argv = argv + 1;
		rc = w->exec(NULL, &a);
		goto out;
	}
	while ((ch = getopt_long(argc, argv, "c:jvVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			/* the last one counts, but mcp takes them all */
			cc.config = optarg;
			a.configs = xreallocarray(a.configs, a.nconfigs + 1, sizeof(*a.configs));
			a.configs[a.nconfigs++] = fs_abspath(optarg);
			break;
		case 'o':
			break;
		case 'j':
			a.json = 1;
			break;
		case 'I':
		case 'U':
			cmd = patrol_cmd_by_mode(ch);
			break;
		case 'B':
			a.onbox = optarg;
			break;
		case 'N':
			a.start = 0;
			break;
		case 'S':
			a.secrets = 0;
			break;
		case 'n':
			a.dry_run = 1;
			break;
		case 'k':
			a.check = 1;
			break;
		case 'A':
			a.allow_dirty = 1;
			break;
		case 'a':
			a.all = 1;
			break;
		case 'J': {
			char *end;

			a.jobs = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || a.jobs < 1 || a.jobs > 64) {
				fprintf(stderr, "patrol: --jobs %s: a number from 1 to 64\n", optarg);
				rc = WK_EX_USAGE;
				goto out;
			}
			break;
		}
		case 'F':
			a.refresh = 1;
			break;
		case 'P':
			a.prune = 1;
			break;
		case 'Y':
			a.confirm = 1;
			break;
		case 'K':
			if ((a.scheduler = sched_kind_parse(optarg)) < 0) {
				fprintf(stderr, "patrol: --scheduler %s: one of cron, systemd, launchd\n", optarg);
				rc = WK_EX_USAGE;
				goto out;
			}
			break;
		default:
			if ((rc = cli_common(&cc, ch)) != CLI_NEXT)
				goto out;
		}
	}
	if (optind < argc && cmd == &patrol_cmds[0] &&
	    (w = patrol_cmd_by_word(argv[optind], a.json, 0)) != NULL) {
		cmd = w;
		optind++;
	}
	if (optind != argc || ((a.onbox != NULL || !a.start || !a.secrets || a.check ||
	    a.allow_dirty) && !cmd->deploy_opts) || (a.check && (a.allow_dirty || a.onbox != NULL ||
	    !a.start || !a.secrets)) ||
	    (a.dry_run && cmd->exec != patrol_cmd_resume) ||
	    ((a.prune || a.confirm) && cmd->exec != patrol_cmd_checkpoints) ||
	    (a.confirm && !a.prune) ||
	    (a.scheduler >= 0 && cmd->exec != patrol_cmd_install_schedule &&
	    cmd->exec != patrol_cmd_uninstall_schedule)) {
		usage(stderr);
		rc = WK_EX_USAGE;
		goto out;
	}
	log_init("patrol", cc.verbose);
	/* The fleet: every run patrol knows, no -c (fleet.c). */
	if (a.all) {
		if (cc.config != NULL || (cmd != &patrol_cmds[0] && cmd->exec != patrol_cmd_status &&
		    cmd->exec != patrol_cmd_install_schedule && cmd->exec != patrol_cmd_uninstall_schedule)) {
			usage(stderr);
			rc = WK_EX_USAGE;
		} else if (cmd->exec == patrol_cmd_install_schedule ||
		    cmd->exec == patrol_cmd_uninstall_schedule)
			rc = patrol_fleet_schedule(cmd->exec == patrol_cmd_install_schedule, a.scheduler);
		else if (cmd == &patrol_cmds[0])
			rc = a.json ? (usage(stderr), WK_EX_USAGE) : patrol_fleet_tick(a.jobs, 0);
		else
			rc = patrol_fleet_status(a.json, a.refresh, a.jobs, NULL);
		goto out;
	}
	if (a.refresh || a.jobs != 0) {
		usage(stderr);
		rc = WK_EX_USAGE;
		goto out;
	}
	if (cmd->configs) {
		rc = cmd->exec(NULL, &a);
		goto out;
	}
	path = config_find(cc.config);
	if (config_load_report("patrol", path, &cfg) != 0) {
		rc = WK_EX_CONFIG;
		goto out;
	}
	a.config_path = path;
	rc = cmd->exec(cfg, &a);
out:
	config_free(cfg);
	free(path);
	xfree_strv(a.configs, a.nconfigs);
	return rc;
}
