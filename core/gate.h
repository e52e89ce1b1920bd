/*
 * gate.h: the launch gate (seed 004, "manage-hero-run"): before a run
 * starts (`patrol deploy`, `onbox start`, `onbox run`) its contract is
 * printed and checked, and a launch that would waste a costly run is
 * refused.
 *
 * The contract: each stage's exact command (secret-looking words masked);
 * the git SHA and dirty state of the code on the box (the workdir's work
 * tree); the pinned output_root; the final step (progress.max); the W&B
 * identity and resume policy (wandb.id, wandb.name, wandb.resume); the
 * checkpoint policy and the checkpoint {checkpoint} would resume from now;
 * initialize_from with its parsed step and metadata; the DRI.  A value
 * watchkeeper inferred is labelled "inferred".
 *
 * The refusals (each named, with the way out):
 *   - dirty code (tracked files differ from HEAD) when the run is a hero
 *     run or sets refuse_dirty, unless allowed (--allow-dirty) or the diff's
 *     sha256 is the one approved before (.watchkeeper/gate.json, written by
 *     the launch that allowed it); a hero run whose workdir is no git work
 *     tree counts as dirty (its code is not pinned);
 *   - output_root that cannot be created or written;
 *   - initialize_from that does not exist, or has no metadata file
 *     (checkpoints.complete_file, default metadata.json), or whose metadata
 *     is not a JSON object.
 *
 * The facts come from the box by one read-only POSIX sh script, the same
 * on both sides: patrol runs it over ssh before anything is uploaded, onbox
 * runs it with /bin/sh on the box.  So the two can never judge differently.
 */
#ifndef WK_GATE_H
#define WK_GATE_H

#include <stddef.h>

#include "buf.h"
#include "ckpt.h"
#include "config.h"
#include "jsonc.h"

#define GATE_META_MAX	65536	/* bytes of initialize_from's metadata read */
#define GATE_DIRTY_SHOWN 20	/* changed files named */
#define GATE_FILE	"gate.json"	/* in .watchkeeper/: the approved dirty diff */

enum gate_out { GATE_OUT_NONE, GATE_OUT_DIR, GATE_OUT_NEW, GATE_OUT_BLOCKED, GATE_OUT_NOTDIR,
	GATE_OUT_NOWRITE };
enum gate_init { GATE_INIT_NONE, GATE_INIT_MISSING, GATE_INIT_NOMETA, GATE_INIT_OK };

struct gate_facts {
	int		 git;		/* 1 a work tree with a HEAD, 0 none (git_why says) */
	char		*git_sha;
	char		*git_why;	/* why no sha: git's first line, or "git is not installed" */
	long		 dirty;		/* changed tracked files; -1 unknown */
	char		*dirty_files;	/* the first GATE_DIRTY_SHOWN porcelain lines, '\n' each */
	char		*diff_sha;	/* sha256 of `git diff HEAD --binary`; NULL unknown */
	enum gate_out	 out;
	char		*out_block;	/* the path that blocks output_root */
	enum gate_init	 init;
	long long	 meta_size;	/* the metadata file's size in bytes */
	char		*meta;		/* its first GATE_META_MAX bytes */
	char		*wb_runs;	/* W&B run directories of wandb.id already there, '\n' each */
	struct ckpt_scan *ckpt;		/* NULL: not configured or unreadable (ckpt_why) */
	char		*ckpt_why;
};

struct gate_opts {
	int		 allow_dirty;	/* --allow-dirty */
	const char	*approved;	/* the diff sha256 allowed before; NULL none */
	const char	*who;		/* for an inferred DRI: the login user; NULL unknown */
};

struct gate_result {
	int		 refused;	/* refusals */
	int		 dirty_allowed;	/* a dirty tree let through: approve_sha is the diff */
	char		*approve_sha;	/* the diff's sha256 to keep as approved; NULL none */
	struct buf	 text;		/* the contract, then one "REFUSED: ..." line per refusal */
	cJSON		*json;		/* the same as an object (for the launch event) */
};

/* The facts script (POSIX sh, read-only, LC_ALL=C); caller frees. */
char *gate_script(const struct wk_config *cfg);
/* Parse its output; 0, or WK_ERR_PARSE with *why (caller frees). */
int gate_parse(const struct wk_config *cfg, const char *out, size_t len, struct gate_facts *f,
    char **why);
void gate_facts_free(struct gate_facts *f);

/* Judge the facts; fills *res (free with gate_result_free); returns res->refused. */
int gate_judge(const struct wk_config *cfg, const struct gate_facts *f,
    const struct gate_opts *o, struct gate_result *res);
void gate_result_free(struct gate_result *res);

/* The config's output_root / initialize_from as absolute paths; caller frees; NULL unset. */
char *gate_output_root(const struct wk_config *cfg);
char *gate_init_path(const struct wk_config *cfg);

/*
 * A command for showing: the values of words that look like secrets are
 * masked: NAME=value where a component of NAME (between '-', '_', '.') is
 * KEY, APIKEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL(S), AUTH or PAT
 * (any case: WANDB_API_KEY, HF_TOKEN), and --option=value / --option value
 * where the option's name has one (--api-key; not --tokenizer or
 * --max_tokens).  Caller frees.
 */
char *gate_scrub_command(const char *cmd);

/*
 * On the box (onbox): run the script with /bin/sh here and judge; the
 * approved sha is read from <workdir>/.watchkeeper/gate.json and, when a
 * dirty tree was let through by allow_dirty, written there.  0 and *res,
 * or a negative WK_ERR_* with the message printed.
 */
int gate_local(const struct wk_config *cfg, int allow_dirty, struct gate_result *res);

#endif
