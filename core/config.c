/*
 * config.c: load, merge and fill one run's configuration (see config.h).
 *
 * Every key is a row in a key table (config-table.c, in the manner of tmux's
 * options-table.c).  Generic walkers use the tables: cfg_check()
 * (config-check.c) validates one document as written, so that a profile's
 * mistakes are reported against the profile file; cfg_fill() here copies the
 * merged document into struct wk_config, applies defaults and checks required
 * keys; cfg_release() frees what cfg_fill() stored, so adding a key to a
 * table is the whole job.  Rules that span keys are cfg_derive()
 * (config-check.c).  This file also owns paths (the config's directory, the
 * workdir), profiles (find, load, merge), config_load/config_free and the
 * typed getters for keys without a C field.
 *
 * Positions: the run's file is looked up first, then the profile, so a key
 * that came from the profile is reported against the profile file.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "config-int.h"
#include "err.h"
#include "fsutil.h"
#include "jsonc.h"
#include "log.h"
#include "xmalloc.h"

/* Set by the Makefile; empty means "not configured". */
#ifndef WK_PROFILES_DIR
#define WK_PROFILES_DIR ""
#endif
#ifndef WK_SRC_PROFILES_DIR
#define WK_SRC_PROFILES_DIR ""
#endif

/* Filling the C structs from the merged document. */

#define CFG_AT(base, off, type)	((type *)(void *)((char *)(base) + (off) - 1))

static void
cfg_fill_default(const struct cfg_key *k, void *base)
{
	if (base == NULL || k->field == NO_FIELD || k->def == NULL || (k->flags & CFG_DERIVED))
		return;
	switch (k->type) {
	case CFG_STR:
		*CFG_AT(base, k->field, char *) = xstrdup(k->def);
		break;
	case CFG_INT:
		*CFG_AT(base, k->field, long) = strtol(k->def, NULL, 10);
		break;
	case CFG_BOOL:
		*CFG_AT(base, k->field, int) = strcmp(k->def, "true") == 0;
		break;
	default:
		break;
	}
}

static void cfg_fill(const struct cfg_ctx *ctx, const struct cfg_table *t, const cJSON *obj,
    void *base, const char *path);

static void
cfg_fill_array(const struct cfg_ctx *ctx, const struct cfg_key *k, const cJSON *v, void *base,
    const char *path)
{
	const cJSON *it;
	char *elems = NULL, *ep;
	size_t i = 0, n = (size_t)cJSON_GetArraySize(v);

	if (base != NULL && k->field != NO_FIELD) {
		elems = xcalloc(n, k->sub->size);
		*CFG_AT(base, k->field, void *) = elems;
		*CFG_AT(base, k->aux, size_t) = n;
	}
	cJSON_ArrayForEach(it, v) {
		ep = jsonc_path_elem(path, i);
		cfg_fill(ctx, k->sub, cJSON_IsObject(it) ? it : NULL,
		    elems == NULL ? NULL : elems + i * k->sub->size, ep);
		free(ep);
		i++;
	}
}

static void
cfg_fill_value(const struct cfg_ctx *ctx, const struct cfg_key *k, const cJSON *v, void *base,
    const char *path)
{
	struct pattern *re = NULL;
	char err[256];
	long n;

	switch (k->type) {
	case CFG_STR:
		if (!cJSON_IsString(v) || base == NULL || k->field == NO_FIELD)
			break;
		*CFG_AT(base, k->field, char *) = xstrdup(v->valuestring);
		/* A bad regex was reported by cfg_check(); here it only stays unset. */
		if (k->aux != NO_FIELD && pattern_compile(v->valuestring, &re, err, sizeof(err)) == 0)
			*CFG_AT(base, k->aux, struct pattern *) = re;	/* transferred */
		break;
	case CFG_INT:
		if (base != NULL && k->field != NO_FIELD) {
			if (cfg_int_value(k, v, &n))
				*CFG_AT(base, k->field, long) = n;
			else
				cfg_fill_default(k, base);
		}
		break;
	case CFG_BOOL:
		if (base != NULL && k->field != NO_FIELD) {
			if (cJSON_IsBool(v))
				*CFG_AT(base, k->field, int) = cJSON_IsTrue(v);
			else
				cfg_fill_default(k, base);
		}
		break;
	case CFG_OBJ:
		cfg_fill(ctx, k->sub, cJSON_IsObject(v) ? v : NULL,
		    base == NULL || k->field == NO_FIELD ? NULL : CFG_AT(base, k->field, char), path);
		break;
	case CFG_OBJARR:
		if (cJSON_IsArray(v))
			cfg_fill_array(ctx, k, v, base, path);
		break;
	default:
		break;
	}
}

/*
 * Fill base (may be NULL: validate only) from obj.  obj NULL means the object
 * is absent: only defaults are applied and nothing inside it is required.
 */
static void
cfg_fill(const struct cfg_ctx *ctx, const struct cfg_table *t, const cJSON *obj, void *base,
    const char *path)
{
	const struct cfg_key *k;
	const cJSON *v;
	char *kp;
	size_t i;

	for (i = 0; i < t->nkeys; i++) {
		k = &t->keys[i];
		v = obj == NULL ? NULL : cJSON_GetObjectItemCaseSensitive(obj, k->name);
		kp = jsonc_path_key(path, k->name);
		if (v != NULL)
			cfg_fill_value(ctx, k, v, base, kp);
		else {
			if (obj != NULL && (k->flags & CFG_REQUIRED))
				cfg_error(ctx, kp, "missing required key \"%s\"", kp);
			if (k->type == CFG_OBJ && k->field != NO_FIELD && base != NULL)
				cfg_fill(ctx, k->sub, NULL, CFG_AT(base, k->field, char), kp);
			else
				cfg_fill_default(k, base);
		}
		free(kp);
	}
}

/* Free what cfg_fill() stored in base. */
static void
cfg_release(const struct cfg_table *t, void *base)
{
	const struct cfg_key *k;
	char *elems;
	size_t i, j, n;

	for (i = 0; i < t->nkeys; i++) {
		k = &t->keys[i];
		if (k->field == NO_FIELD)
			continue;
		switch (k->type) {
		case CFG_STR:
			free(*CFG_AT(base, k->field, char *));
			if (k->aux != NO_FIELD)
				pattern_free(*CFG_AT(base, k->aux, struct pattern *));
			break;
		case CFG_OBJ:
			cfg_release(k->sub, CFG_AT(base, k->field, char));
			break;
		case CFG_OBJARR:
			elems = *CFG_AT(base, k->field, char *);
			n = *CFG_AT(base, k->aux, size_t);
			for (j = 0; elems != NULL && j < n; j++)
				cfg_release(k->sub, elems + j * k->sub->size);
			free(elems);
			break;
		default:
			break;
		}
	}
}

/* Paths. */

/* Lexically normalize an absolute path: no "//", ".", "..", or trailing '/'. */
static char *
cfg_path_normalize(const char *abs)
{
	struct buf b = BUF_INIT;
	const char *p = abs, *e;
	size_t n, cut;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		n = e == NULL ? strlen(p) : (size_t)(e - p);
		if (n == 1 && p[0] == '.')
			;
		else if (n == 2 && p[0] == '.' && p[1] == '.') {
			for (cut = b.len; cut > 0 && b.data[cut - 1] != '/'; cut--)
				;
			b.len = cut > 0 ? cut - 1 : 0;
			if (b.cap > 0)
				b.data[b.len] = '\0';
		} else {
			buf_putc(&b, '/');
			buf_append(&b, p, n);
		}
		p += n;
	}
	if (b.len == 0)
		buf_putc(&b, '/');
	return buf_detach(&b);
}

/* The absolute directory of path. */
static char *
cfg_dir_of(const char *path)
{
	char *dir, *slash, *real, *abs, cwd[PATH_MAX];

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if ((real = realpath(dir, NULL)) != NULL) {
		abs = xstrdup(real);
		free(real);
	} else if (dir[0] == '/')
		abs = cfg_path_normalize(dir);
	else {
		char *joined = xstrfmt("%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : "/", dir);

		abs = cfg_path_normalize(joined);
		free(joined);
	}
	free(dir);
	return abs;
}

void
cfg_workdir(const struct cfg_ctx *ctx, struct wk_config *cfg)
{
	const char *w = cfg->workdir, *home = getenv("HOME");
	char *joined;

	if (w == NULL)
		return;
	if (*w == '\0') {
		cfg_error(ctx, "workdir", "key \"workdir\": must not be empty");
		return;
	}
	if (w[0] == '~' && w[1] != '\0' && w[1] != '/') {
		cfg_error(ctx, "workdir", "key \"workdir\": only \"~\" and \"~/\" are expanded, "
		    "not \"~user\"");
		return;
	}
	if (w[0] == '~' && (home == NULL || *home != '/')) {
		cfg_error(ctx, "workdir", "key \"workdir\": $HOME is not set to an absolute "
		    "path, cannot expand \"~\"");
		return;
	}
	if (w[0] == '~')
		joined = xstrfmt("%s/%s", home, w + 1);
	else if (w[0] == '/')
		joined = xstrdup(w);
	else
		joined = xstrfmt("%s/%s", cfg->dir, w);
	free(cfg->workdir);
	cfg->workdir = cfg_path_normalize(joined);
	free(joined);
}

/* Profiles. */

static void
cfg_merge(cJSON *base, const cJSON *over)
{
	const cJSON *it;
	cJSON *b, *dup;

	cJSON_ArrayForEach(it, over) {
		b = cJSON_GetObjectItemCaseSensitive(base, it->string);
		if (b != NULL && cJSON_IsObject(b) && cJSON_IsObject(it)) {
			cfg_merge(b, it);
			continue;
		}
		if ((dup = cJSON_Duplicate(it, 1)) == NULL)
			fatal("out of memory");
		if (b != NULL)
			cJSON_ReplaceItemInObjectCaseSensitive(base, it->string, dup);
		else
			cJSON_AddItemToObject(base, it->string, dup);	/* transferred */
	}
}

/* The profile file for name, or NULL with the directories searched in *searched. */
static char *
cfg_profile_find(const struct wk_config *cfg, const char *name, struct buf *searched)
{
	const char *dirs[5];
	char *local = xstrfmt("%s/profiles", cfg->dir), *file = NULL, *exe, *beside = NULL;
	size_t i;

	/* Installed next to the binary: <prefix>/bin/onbox -> <prefix>/share/watchkeeper/profiles. */
	if ((exe = fs_self_dir()) != NULL) {
		beside = xstrfmt("%s/../share/watchkeeper/profiles", exe);
		free(exe);
	}
	dirs[0] = getenv("WATCHKEEPER_PROFILES");
	dirs[1] = local;
	dirs[2] = beside;
	dirs[3] = WK_PROFILES_DIR;
	dirs[4] = WK_SRC_PROFILES_DIR;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (dirs[i] == NULL || *dirs[i] == '\0')
			continue;
		file = xstrfmt("%s/%s.json", dirs[i], name);
		if (access(file, F_OK) == 0)
			break;
		free(file);
		file = NULL;
		buf_printf(searched, "%s%s", searched->len > 0 ? ", " : "", dirs[i]);
	}
	free(local);
	free(beside);
	return file;
}

/* Load and check the profile the run's file names, into prof (left empty on failure). */
static void
cfg_profile_load(const struct cfg_ctx *runctx, struct wk_config *cfg, const char *name,
    struct cfg_doc *prof)
{
	struct cfg_ctx ctx = { { prof, NULL }, 1, runctx->d };
	struct buf searched = BUF_INIT;
	size_t i;

	if ((cfg->profile_path = cfg_profile_find(cfg, name, &searched)) == NULL) {
		cfg_error(runctx, "profile", "key \"profile\": profile \"%s\" not found "
		    "(looked for %s.json in %s)", name, name, buf_str(&searched));
		goto out;
	}
	prof->path = cfg->profile_path;
	if (jsonc_load(prof->path, &prof->root, &prof->idx, runctx->d) != 0)
		goto out;
	if (!cJSON_IsObject(prof->root)) {
		diag_add(runctx->d, prof->path, 0, "a profile must be an object");
		cJSON_Delete(prof->root);
		prof->root = NULL;
		goto out;
	}
	for (i = 0; i < cfg_nprofile_forbidden; i++) {
		if (!cJSON_HasObjectItem(prof->root, cfg_profile_forbidden[i]))
			continue;
		cfg_error(&ctx, cfg_profile_forbidden[i], "key \"%s\" is not allowed in a "
		    "profile (it belongs to one run)", cfg_profile_forbidden[i]);
		cJSON_DeleteItemFromObjectCaseSensitive(prof->root, cfg_profile_forbidden[i]);
	}
	cfg_check(&ctx, &cfg_root_table, prof->root, "");
out:
	buf_free(&searched);
}

/* API. */

char *
config_find(const char *opt)
{
	const char *env;

	if (opt != NULL)
		return xstrdup(opt);
	if ((env = getenv("WATCHKEEPER_CONFIG")) != NULL && *env != '\0')
		return xstrdup(env);
	return xstrdup("./watchkeeper.json");
}

int
config_load(const char *path, struct wk_config **out, struct diag *d)
{
	struct cfg_doc run, prof;
	struct cfg_ctx ctx = { { &run, NULL }, 1, d };
	struct wk_config *cfg;
	const cJSON *pv;
	cJSON *merged = NULL;
	size_t nerr = d->n;
	int rc;

	*out = NULL;
	memset(&run, 0, sizeof(run));
	memset(&prof, 0, sizeof(prof));
	cfg = xcalloc(1, sizeof(*cfg));
	cfg->path = xstrdup(path);
	cfg->dir = cfg_dir_of(path);
	run.path = cfg->path;
	if ((rc = jsonc_load(path, &run.root, &run.idx, d)) != 0) {
		if (rc != WK_ERR_SYSTEM)
			rc = WK_ERR_PARSE;
		goto out;
	}
	if (!cJSON_IsObject(run.root)) {
		diag_add(d, path, 0, "the configuration must be a JSON object { ... }");
		rc = WK_ERR_PARSE;
		goto out;
	}
	cfg_check(&ctx, &cfg_root_table, run.root, "");

	pv = cJSON_GetObjectItemCaseSensitive(run.root, "profile");
	if (cJSON_IsString(pv) && config_name_ok(pv->valuestring))
		cfg_profile_load(&ctx, cfg, pv->valuestring, &prof);
	if (prof.root != NULL) {
		if ((merged = cJSON_Duplicate(prof.root, 1)) == NULL)
			fatal("out of memory");
		cfg_merge(merged, run.root);
		ctx.docs[ctx.ndocs++] = &prof;
	} else {
		merged = run.root;
		run.root = NULL;	/* transferred */
	}

	cfg_fill(&ctx, &cfg_root_table, merged, cfg, "");
	cfg_derive(&ctx, cfg, merged);
	/* A hero run is looked at every 15 minutes unless its config says otherwise (seed 004). */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(merged, "hero"))) {
		cJSON *pt = cJSON_GetObjectItemCaseSensitive(merged, "patrol");

		if (pt == NULL)
			pt = cJSON_AddObjectToObject(merged, "patrol");
		if (cJSON_IsObject(pt) && cJSON_GetObjectItemCaseSensitive(pt, "schedule") == NULL)
			cJSON_AddStringToObject(pt, "schedule", CFG_HERO_SCHEDULE);
	}
	cfg->root = merged;
	merged = NULL;	/* transferred */
	rc = d->n > nerr ? WK_ERR_PARSE : 0;
out:
	if (rc != 0) {
		config_free(cfg);
		cfg = NULL;
	}
	*out = cfg;
	cJSON_Delete(run.root);
	cJSON_Delete(prof.root);
	cJSON_Delete(merged);
	jsonc_index_free(&run.idx);
	jsonc_index_free(&prof.idx);
	return rc;
}

int
config_load_report(const char *prog, const char *path, struct wk_config **out)
{
	struct diag d = DIAG_INIT;
	int rc = 0;

	if (config_load(path, out, &d) != 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "%s: config error (exit 78)\n", prog);
		rc = WK_EX_CONFIG;
	}
	diag_free(&d);
	return rc;
}

void
config_free(struct wk_config *cfg)
{
	if (cfg == NULL)
		return;
	cfg_release(&cfg_root_table, cfg);
	free(cfg->path);
	free(cfg->dir);
	free(cfg->profile_path);
	cJSON_Delete(cfg->root);
	free(cfg);
}

const struct wk_stage *
config_stage(const struct wk_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nchain; i++)
		if (cfg->chain[i].name != NULL && strcmp(cfg->chain[i].name, name) == 0)
			return &cfg->chain[i];
	return NULL;
}

/* Typed access to keys without a C field, with the table's default. */

static const struct cfg_key *
cfg_lookup(const struct wk_config *cfg, const char *path, enum cfg_type type, const cJSON **v)
{
	const struct cfg_table *t = &cfg_root_table;
	const struct cfg_key *k = NULL;
	const cJSON *obj = cfg->root;
	char *copy = xstrdup(path), *name, *next, *save = NULL;

	*v = NULL;
	for (name = strtok_r(copy, ".", &save); name != NULL; name = next) {
		next = strtok_r(NULL, ".", &save);
		if (t == NULL || (k = cfg_key_find(t, name)) == NULL)
			fatal("no config key \"%s\"", path);
		obj = cJSON_GetObjectItemCaseSensitive(obj, name);
		if (next != NULL && k->type != CFG_OBJ)
			fatal("config key \"%s\": \"%s\" is not an object", path, name);
		t = k->sub;
	}
	free(copy);
	if (k == NULL || k->type != type)
		fatal("config key \"%s\" is not a %s", path, cfg_type_names[type]);
	*v = obj;
	return k;
}

const char *
config_get_str(const struct wk_config *cfg, const char *path)
{
	const cJSON *v;
	const struct cfg_key *k = cfg_lookup(cfg, path, CFG_STR, &v);

	if (cJSON_IsString(v))
		return v->valuestring;
	return (k->flags & CFG_DERIVED) ? NULL : k->def;
}

long
config_get_int(const struct wk_config *cfg, const char *path)
{
	const cJSON *v;
	const struct cfg_key *k = cfg_lookup(cfg, path, CFG_INT, &v);
	long n;

	if (v != NULL && cfg_int_value(k, v, &n))
		return n;
	return k->def == NULL ? 0 : strtol(k->def, NULL, 10);
}

double
config_get_num(const struct wk_config *cfg, const char *path)
{
	const cJSON *v;
	const struct cfg_key *k = cfg_lookup(cfg, path, CFG_NUM, &v);

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	return k->def == NULL ? 0 : strtod(k->def, NULL);
}

int
config_get_bool(const struct wk_config *cfg, const char *path)
{
	const cJSON *v;
	const struct cfg_key *k = cfg_lookup(cfg, path, CFG_BOOL, &v);

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	return k->def != NULL && strcmp(k->def, "true") == 0;
}
