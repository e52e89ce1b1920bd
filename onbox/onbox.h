/*
 * onbox.h: what onbox's command files share.
 *
 * Each subcommand lives in its own cmd-<name>.c with its usage text beside
 * its handler (tmux's cmd-*.c shape); onbox.c holds the table and main().
 */
#ifndef WK_ONBOX_H
#define WK_ONBOX_H

#include <time.h>

#include "config.h"
#include "jsonc.h"

struct onbox_ctx {
	const char	*config_opt;	/* -c value or NULL */
	int		 verbose;
	int		 argc;		/* the subcommand's own arguments, argv[0] = its name */
	char		**argv;
};

struct onbox_cmd {
	const char	*name;
	const char	*args;		/* usage after the name */
	const char	*help;		/* one line */
	int		(*exec)(struct onbox_ctx *ctx);
	int		 hidden;
};

extern const struct onbox_cmd onbox_cmd_run;
extern const struct onbox_cmd onbox_cmd_start;
extern const struct onbox_cmd onbox_cmd_status;
extern const struct onbox_cmd onbox_cmd_notify;
extern const struct onbox_cmd onbox_cmd_wait;
extern const struct onbox_cmd onbox_cmd_stop;

/* Load the config named by ctx; on failure prints every problem and returns NULL (caller exits 78). */
struct wk_config *onbox_load_config(const struct onbox_ctx *ctx);
/* Print "usage: onbox <cmd> <args>" to stderr and return 64. */
int onbox_usage(const struct onbox_cmd *cmd);
/*
 * Parse -c/--config FILE and --<opt> VALUE (opt NULL: none), no operands,
 * then load the config.  0 with *cfg (caller frees) and *value (NULL: not
 * given), else the exit code (64 usage, 78 config).
 */
int onbox_args_config(struct onbox_ctx *ctx, const struct onbox_cmd *cmd, const char *opt,
    const char **value, struct wk_config **cfg);

/*
 * The runner (runner.c): run the chain in the foreground; or, with stage set
 * (`onbox run --stage NAME`: one Slurm job of the chain), exactly that stage,
 * once every stage before it has its marker.  stage must name a stage of
 * cfg's chain (else WK_EX_USAGE).  Returns an exit code.
 */
/*
 * Run the chain (stage NULL: from the first missing marker, after the launch
 * gate, gate.h; allow_dirty is --allow-dirty) or one stage of it.
 */
int runner_run(struct wk_config *cfg, const char *stage, int allow_dirty);
/*
 * What the wandb client wrote for the attempt started at since
 * (wandbfiles.c); returns f->seen.
 */
struct health_wandb_files;
int onbox_wandb_read(const struct wk_config *cfg, time_t since, struct health_wandb_files *f);
/* 1 when the first missing stage's newest attempt is unfinished (a start re-attaches to it). */
int onbox_attempt_unfinished(const struct wk_config *cfg);
/* The launch gate on the box, printed; 0 passed, WK_EX_FAIL refused, else an exit code. */
int onbox_gate(const struct wk_config *cfg, int allow_dirty, int full, cJSON **contract);
/* 1 when the marker of cfg's stage idx is present (runner.c). */
int runner_has_marker(const struct wk_config *cfg, size_t idx);
/* The first stage of cfg's chain without its marker; cfg->nchain when none is missing. */
size_t runner_first_missing(const struct wk_config *cfg);

#endif
