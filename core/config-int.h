/*
 * config-int.h: what the parts of the config module share (not for callers;
 * they use config.h).
 *
 * config-table.c holds the key tables (one per object kind, tmux's
 * options-table.c) and the help text printed from them; config-check.c the
 * validators (one value, one document, rules that span keys) and the
 * "file:line" positions of messages; config.c the loader (profiles, merge,
 * filling struct wk_config from the tables, release) and the typed getters.
 */
#ifndef WK_CONFIG_INT_H
#define WK_CONFIG_INT_H

#include <stddef.h>

#include <cJSON.h>

#include "config.h"
#include "diag.h"
#include "jsonc.h"

enum cfg_type {
	CFG_STR,	/* string */
	CFG_INT,	/* integral number in [min, max] */
	CFG_NUM,	/* any number in [min, max] */
	CFG_BOOL,
	CFG_STRINT,	/* string or integer (chat ids) */
	CFG_STRARR,	/* array of strings */
	CFG_STRMAP,	/* object whose values are strings or arrays of strings */
	CFG_OBJ,	/* object described by sub */
	CFG_OBJARR,	/* array of objects described by sub; min/max bound the count */
	CFG_STROBJ,	/* string, or an object with any keys (sbatch options) */
};

#define CFG_REQUIRED	0x01	/* must be present (when its object is) */
#define CFG_REGEX	0x02	/* a PCRE2 pattern; must compile */
#define CFG_GROUP1	0x04	/* ... with at least one capture group */
#define CFG_NAME	0x08	/* [A-Za-z0-9._-]+, not "." or ".." */
#define CFG_SECRET	0x10	/* never printed, never logged */
#define CFG_DERIVED	0x20	/* def describes a computed default, set in cfg_derive() */

/* Offsets are stored plus one so that 0, what a designated initializer leaves, means none. */
#define FIELD(type, member)	(offsetof(type, member) + 1)
#define NO_FIELD		0

#define CFG_BIG		1000000000000000L	/* "no upper bound" that a double holds exactly */
#define CFG_DAY		86400L
#define CFG_TIMEOUT_MAX	(3660L * CFG_DAY)	/* ten years */

struct cfg_table;

struct cfg_key {
	const char	*name;
	enum cfg_type	 type;
	size_t		 field;		/* FIELD() in the C struct, or NO_FIELD */
	size_t		 aux;		/* CFG_OBJARR: the size_t count; CFG_REGEX: the struct pattern * */
	long		 min, max;	/* CFG_INT/CFG_NUM: value bounds; CFG_OBJARR: item count */
	const char	*def;		/* default as text, or NULL */
	const char	*choices;	/* "a|b|c": the only allowed string values */
	unsigned	 flags;
	const struct cfg_table *sub;	/* CFG_OBJ, CFG_OBJARR */
	const char	*help;
};

struct cfg_table {
	const char	*name;
	const struct cfg_key *keys;
	size_t		 nkeys;
	size_t		 size;		/* sizeof one C element, for CFG_OBJARR with a field */
};

#define CFG_TABLE(name, keys, size) { name, keys, sizeof(keys) / sizeof(keys[0]), size }

/* The tables (config-table.c). */
extern const struct cfg_table cfg_root_table;
extern const char *const cfg_type_names[];
/* Keys a profile must not set: they belong to one run. */
extern const char *const cfg_profile_forbidden[];
extern const size_t cfg_nprofile_forbidden;

struct cfg_doc {
	const char	*path;		/* as given, for messages */
	cJSON		*root;
	struct jsonc_index idx;
};

struct cfg_ctx {
	const struct cfg_doc *docs[2];	/* where positions are looked up, in order */
	size_t		 ndocs;
	struct diag	*d;
};

/* Positions and messages (config-check.c). */
int cfg_where(const struct cfg_ctx *ctx, const char *path, const char **file);
void cfg_error(const struct cfg_ctx *ctx, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Validation (config-check.c). */
const struct cfg_key *cfg_key_find(const struct cfg_table *t, const char *name);
int cfg_int_value(const struct cfg_key *k, const cJSON *v, long *out);
void cfg_check(const struct cfg_ctx *ctx, const struct cfg_table *t, const cJSON *obj,
    const char *path);
void cfg_derive(const struct cfg_ctx *ctx, struct wk_config *cfg, const cJSON *root);

/* Paths (config.c): workdir made absolute ("~/" expanded, relative to the config's dir). */
void cfg_workdir(const struct cfg_ctx *ctx, struct wk_config *cfg);

#endif
