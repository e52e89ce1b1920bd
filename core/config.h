/*
 * config.h: one run's configuration, loaded from JSON with comments.
 *
 * Lookup: -c/--config FILE, else $WATCHKEEPER_CONFIG, else ./watchkeeper.json.
 * The file may use // and / * * / comments.  "profile": NAME merges
 * profiles/NAME.json underneath it (profile values are defaults; the run's
 * file wins; objects merge key by key, arrays and scalars are replaced).
 *
 * Every key is described once in a key table (name, type, bounds, default,
 * help) per object kind; that table drives validation, defaults, the help
 * text and the handbook.  Unknown keys, wrong types, out-of-range values and
 * semantic errors (run name charset, marker names, duplicate stage names,
 * regexes that do not compile) are all collected as "file:line: key: message"
 * and reported together; the caller exits 78.
 *
 * Ownership: config_load() returns a struct wk_config that owns every string
 * and compiled pattern in it; config_free() releases all of it.
 */
#ifndef WK_CONFIG_H
#define WK_CONFIG_H

#include <stddef.h>

#include <cJSON.h>

#include "detach.h"
#include "diag.h"
#include "exits.h"
#include "pattern.h"

struct wk_wait {
	char	*log;		/* relative to workdir unless absolute */
	char	*pattern;
	struct pattern *re;
	long	 timeout_s;	/* 0: none (only allowed with pid) */
	long	 pid;		/* 0: not a pid wait */
};

/* Longest run, stage or marker name: it becomes part of file and job names. */
#define CONFIG_NAME_MAX	128

struct wk_stage {
	char	*name;		/* [A-Za-z0-9._-]+, unique in the chain */
	char	*run;		/* shell command, run with sh -c in workdir; NULL for a pure wait stage */
	char	*log;		/* the program's own log, relative to workdir; may be NULL */
	char	*done_when;	/* PCRE2; may be NULL */
	struct pattern *done_re;
	char	*marker;	/* [A-Za-z0-9._-]+; default "<STAGE>_DONE" upper-cased */
	int	 has_wait;
	struct wk_wait wait;
	long	 timeout_s;	/* 0: none */
	char	*adopt;		/* detach job: the id of a job already running; NULL: submit */
	char	*resubmit;	/* an adopted stage's own recovery command; may be NULL */
	int	 line;		/* line of this stage's object in the config file */
};

struct wk_box {
	char	*host;
	char	*ssh_config;
	long	 port;		/* 0: from ssh_config / 22 */
	char	*user;
	char	*identity;
	char	*known_hosts;
	long	 connect_timeout_s;
	char	*transport;	/* "auto" | "libssh2" | "openssh" */
	char	*config;	/* the config's path on the box */
};

struct wk_progress {
	char	*pattern;	/* PCRE2, group 1 = current, optional group 2 = max */
	struct pattern *re;
	long	 max;		/* 0: unknown (take it from the log's group 2) */
};

struct wk_config {
	char	*path;		/* the file loaded, as given */
	char	*dir;		/* its directory (absolute) */
	char	*run;
	char	*profile;	/* NULL when none */
	char	*profile_path;	/* the profile file merged, NULL when none */
	char	*workdir;	/* absolute; "~/" expanded with $HOME; relative to the config's dir */
	char	*detach;	/* tmux | nohup | slurm | job */
	enum detach detach_kind; /* the same as an enum (detach.h) */
	char	*session;	/* tmux session; default "wk-<run>" */
	long	 heartbeat_s;
	long	 poll_ms;	/* stat-poll fallback for filesystems where inotify is blind */
	long	 stop_grace_s;	/* onbox stop: SIGTERM, then SIGKILL after this */
	char	*results;
	char	*dri;
	struct wk_box box;
	struct wk_stage *chain;	/* nchain >= 1 */
	size_t	 nchain;
	int	 has_progress;
	struct wk_progress progress;
	cJSON	*root;		/* the merged, validated document; owned (later steps read more keys from it) */
};

/*
 * Resolve which file to load: opt (from -c) if not NULL, else
 * $WATCHKEEPER_CONFIG, else "./watchkeeper.json".  Returns a new string.
 */
char *config_find(const char *opt);

/*
 * Load, merge the profile, validate.  On success returns 0 and *out; on
 * failure returns WK_ERR_PARSE (or WK_ERR_SYSTEM when the file cannot be
 * read), *out = NULL and every problem in d.
 */
int config_load(const char *path, struct wk_config **out, struct diag *d);

/*
 * What every program's main does with it: config_load(path), and on failure
 * print every diagnostic and "PROG: config error (exit 78)" to stderr and
 * return WK_EX_CONFIG (*out NULL); 0 and *out on success.
 */
int config_load_report(const char *prog, const char *path, struct wk_config **out);
void config_free(struct wk_config *cfg);

/* [A-Za-z0-9._-]+ and not "." or "..": the rule for run, stage and marker names. */
int config_name_ok(const char *s);

/* patrol.schedule's default for a hero run: every 15 minutes. */
#define CFG_HERO_SCHEDULE	"3,18,33,48 * * * *"

/* The stage named name, or NULL. */
const struct wk_stage *config_stage(const struct wk_config *cfg, const char *name);

/* Print the key table as help text (one line per key, with type and default). */
void config_print_keys(FILE *fp);

/*
 * Keys without a C field, by dotted path through objects ("patrol.schedule",
 * "sentinel.max_ticks", "loss.spike_pct"): the value in cfg->root, else the
 * key table's default (NULL / 0 / false when the table has none).  The path
 * must name a key of that type in the key table; anything else is a
 * programming error and fatal.  Strings point into cfg; do not free.
 * Keys inside arrays (notify[]) are read from cfg->root directly.
 */
const char *config_get_str(const struct wk_config *cfg, const char *path);
long config_get_int(const struct wk_config *cfg, const char *path);
double config_get_num(const struct wk_config *cfg, const char *path);
int config_get_bool(const struct wk_config *cfg, const char *path);

#endif
