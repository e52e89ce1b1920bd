/*
 * config-check.c: validating a configuration against the key tables (see
 * config-int.h).
 *
 * cfg_check() validates one document as written (unknown keys with a "did
 * you mean", types, bounds, choices, name charsets, regexes) so that a
 * profile's mistakes are reported against the profile file; cfg_derive()
 * holds the rules that span keys (one of run/wait, unique stage and marker
 * names, {checkpoint} placement, notify sinks, detach job) and the derived
 * defaults (session, markers).  Every message goes through cfg_error(), which
 * finds the key's "file:line" in the run's file first, then the profile.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "config-int.h"
#include "jsonc.h"
#include "pattern.h"
#include "reqentry.h"
#include "shword.h"
#include "xmalloc.h"

/* Positions and messages. */

int
cfg_where(const struct cfg_ctx *ctx, const char *path, const char **file)
{
	char *p = xstrdup(path), *cut;
	size_t i;
	int line = 0;

	*file = ctx->docs[0]->path;
	for (;;) {
		for (i = 0; i < ctx->ndocs && line == 0; i++) {
			if ((line = jsonc_index_line(&ctx->docs[i]->idx, p)) > 0)
				*file = ctx->docs[i]->path;
		}
		if (line > 0 || *p == '\0')
			break;
		/* Not written there (a missing or derived key): use its parent. */
		cut = strrchr(p, '.');
		if (strrchr(p, '[') > cut)
			cut = strrchr(p, '[');
		if (cut == NULL)
			cut = p;
		*cut = '\0';
	}
	free(p);
	return line;
}

void
cfg_error(const struct cfg_ctx *ctx, const char *path, const char *fmt, ...)
{
	const char *file;
	char msg[2048];
	va_list ap;
	int line;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	line = cfg_where(ctx, path, &file);
	diag_add(ctx->d, file, line, "%s", msg);
}

static const char *
cfg_json_type(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsNumber(v))
		return "number";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "array";
	return "object";
}

static void
cfg_type_error(const struct cfg_ctx *ctx, const char *path, const char *want, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		cfg_error(ctx, path, "key \"%s\": expected %s, got number %g", path, want,
		    v->valuedouble);
	else
		cfg_error(ctx, path, "key \"%s\": expected %s, got %s", path, want,
		    cfg_json_type(v));
}

/* Levenshtein distance, for "did you mean"; large when either string is long. */
static size_t
cfg_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[33], cur[33];

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);

			cur[j] = del < ins ? del : ins;
			if (sub < cur[j])
				cur[j] = sub;
		}
		memcpy(prev, cur, sizeof(prev));
	}
	return prev[lb];
}

const struct cfg_key *
cfg_key_find(const struct cfg_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nkeys; i++)
		if (strcmp(t->keys[i].name, name) == 0)
			return &t->keys[i];
	return NULL;
}

static const char *
cfg_key_nearest(const struct cfg_table *t, const char *name)
{
	size_t i, best = 3, dist;
	const char *found = NULL;

	for (i = 0; i < t->nkeys; i++) {
		if ((dist = cfg_distance(t->keys[i].name, name)) < best) {
			best = dist;
			found = t->keys[i].name;
		}
	}
	return found;
}

/* Value checks: everything that depends on one value alone. */

int
config_name_ok(const char *s)
{
	static const char extra[] = "._-";
	const char *p;

	if (s == NULL || *s == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	/* A name becomes a file name with a suffix (markers, temp files, job names): bounded. */
	if (strlen(s) > CONFIG_NAME_MAX)
		return 0;
	for (p = s; *p != '\0'; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr(extra, *p) != NULL))
			return 0;
	}
	return 1;
}

static int
cfg_choice_ok(const char *choices, const char *s)
{
	size_t n = strlen(s);
	const char *p = choices, *bar;

	for (;;) {
		bar = strchr(p, '|');
		if ((bar == NULL ? strlen(p) : (size_t)(bar - p)) == n && strncmp(p, s, n) == 0)
			return 1;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}

static void
cfg_check_string(const struct cfg_ctx *ctx, const struct cfg_key *k, const char *s,
    const char *path)
{
	struct pattern *re = NULL;
	char err[256];

	if (k->choices != NULL && !cfg_choice_ok(k->choices, s))
		cfg_error(ctx, path, "key \"%s\": \"%s\" is not one of %s", path, s, k->choices);
	if ((k->flags & CFG_NAME) && !config_name_ok(s))
		cfg_error(ctx, path, "key \"%s\": \"%.64s%s\" must match [A-Za-z0-9._-]+, be at most "
		    "%d characters, and not be \".\" or \"..\"", path, s, strlen(s) > 64 ? "..." : "",
		    CONFIG_NAME_MAX);
	if (k->flags & CFG_REGEX) {
		if (pattern_compile(s, &re, err, sizeof(err)) != 0)
			cfg_error(ctx, path, "key \"%s\": bad regex: %s", path, err);
		else if ((k->flags & CFG_GROUP1) && pattern_ngroups(re) < 1)
			cfg_error(ctx, path, "key \"%s\": the pattern needs a capture group "
			    "( ... ) around the value", path);
		pattern_free(re);
	}
}

/* 1 when v is an integral number within k's bounds, with the value in *out. */
int
cfg_int_value(const struct cfg_key *k, const cJSON *v, long *out)
{
	double x;

	if (!cJSON_IsNumber(v))
		return 0;
	x = v->valuedouble;
	if (!(x >= (double)k->min && x <= (double)k->max) || x != (double)(long)x)
		return 0;
	*out = (long)x;
	return 1;
}

static void
cfg_check_range(const struct cfg_ctx *ctx, const struct cfg_key *k, const cJSON *v,
    const char *path)
{
	double x = v->valuedouble;

	if (x >= (double)k->min && x <= (double)k->max)
		return;
	if (k->max >= CFG_BIG)
		cfg_error(ctx, path, "key \"%s\": %g is out of range (at least %ld)", path, x,
		    k->min);
	else
		cfg_error(ctx, path, "key \"%s\": %g is out of range %ld..%ld", path, x,
		    k->min, k->max);
}

static int
cfg_is_integer(const cJSON *v)
{
	double x = v->valuedouble;

	return cJSON_IsNumber(v) && x >= -9e15 && x <= 9e15 && x == (double)(long)x;
}

static void
cfg_check_strings(const struct cfg_ctx *ctx, const cJSON *arr, const char *path)
{
	const cJSON *it;
	size_t i = 0;
	char *ep;

	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it)) {
			ep = jsonc_path_elem(path, i);
			cfg_type_error(ctx, ep, "string", it);
			free(ep);
		}
		i++;
	}
}

static void
cfg_check_value(const struct cfg_ctx *ctx, const struct cfg_key *k, const cJSON *v,
    const char *path)
{
	const cJSON *it;
	size_t i, n;
	char *ep;

	switch (k->type) {
	case CFG_STR:
		if (!cJSON_IsString(v))
			cfg_type_error(ctx, path, "string", v);
		else
			cfg_check_string(ctx, k, v->valuestring, path);
		break;
	case CFG_INT:
		if (!cfg_is_integer(v))
			cfg_type_error(ctx, path, "integer", v);
		else
			cfg_check_range(ctx, k, v, path);
		break;
	case CFG_NUM:
		if (!cJSON_IsNumber(v))
			cfg_type_error(ctx, path, "number", v);
		else
			cfg_check_range(ctx, k, v, path);
		break;
	case CFG_BOOL:
		if (!cJSON_IsBool(v))
			cfg_type_error(ctx, path, "boolean (true or false)", v);
		break;
	case CFG_STRINT:
		if (!cJSON_IsString(v) && !cfg_is_integer(v))
			cfg_type_error(ctx, path, "string or integer", v);
		break;
	case CFG_STRARR:
		if (!cJSON_IsArray(v))
			cfg_type_error(ctx, path, "array of strings", v);
		else
			cfg_check_strings(ctx, v, path);
		break;
	case CFG_STRMAP:
		if (!cJSON_IsObject(v)) {
			cfg_type_error(ctx, path, "object", v);
			break;
		}
		cJSON_ArrayForEach(it, v) {
			ep = jsonc_path_key(path, it->string);
			if (cJSON_IsArray(it))
				cfg_check_strings(ctx, it, ep);
			else if (!cJSON_IsString(it))
				cfg_type_error(ctx, ep, "string or array of strings", it);
			free(ep);
		}
		break;
	case CFG_OBJ:
		if (!cJSON_IsObject(v))
			cfg_type_error(ctx, path, "object", v);
		else
			cfg_check(ctx, k->sub, v, path);
		break;
	case CFG_OBJARR:
		if (!cJSON_IsArray(v)) {
			cfg_type_error(ctx, path, "array of objects", v);
			break;
		}
		n = (size_t)cJSON_GetArraySize(v);
		if (n < (size_t)k->min)
			cfg_error(ctx, path, "key \"%s\": needs at least %ld entr%s", path, k->min,
			    k->min == 1 ? "y" : "ies");
		else if (k->max > 0 && n > (size_t)k->max)
			cfg_error(ctx, path, "key \"%s\": at most %ld entries", path, k->max);
		i = 0;
		cJSON_ArrayForEach(it, v) {
			ep = jsonc_path_elem(path, i++);
			if (!cJSON_IsObject(it))
				cfg_type_error(ctx, ep, "object", it);
			else
				cfg_check(ctx, k->sub, it, ep);
			free(ep);
		}
		break;
	case CFG_STROBJ:
		if (!cJSON_IsString(v) && !cJSON_IsObject(v))
			cfg_type_error(ctx, path, "string or object", v);
		break;
	}
}

/* Validate one document as written: every key known, every value well-formed. */
void
cfg_check(const struct cfg_ctx *ctx, const struct cfg_table *t, const cJSON *obj,
    const char *path)
{
	const struct cfg_key *k;
	const cJSON *it;
	const char *near;
	char *kp;

	cJSON_ArrayForEach(it, obj) {
		kp = jsonc_path_key(path, it->string);
		if ((k = cfg_key_find(t, it->string)) != NULL)
			cfg_check_value(ctx, k, it, kp);
		else if ((near = cfg_key_nearest(t, it->string)) != NULL)
			cfg_error(ctx, kp, "unknown key \"%s\" (did you mean \"%s\"?)", kp, near);
		else
			cfg_error(ctx, kp, "unknown key \"%s\"", kp);
		free(kp);
	}
}

/* Rules that span keys, and derived defaults. */

static char *
cfg_default_marker(const char *stage)
{
	struct buf b = BUF_INIT;
	const char *p;

	for (p = stage; *p != '\0'; p++) {
		char c = *p;

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		buf_putc(&b, c);
	}
	buf_puts(&b, "_DONE");
	return buf_detach(&b);
}

static int
cfg_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void
cfg_derive_wait(const struct cfg_ctx *ctx, const struct wk_stage *st, size_t i)
{
	const struct wk_wait *w = &st->wait;
	char *p = xstrfmt("chain[%zu].wait", i);

	if (w->pid > 0 && (w->log != NULL || w->pattern != NULL))
		cfg_error(ctx, p, "key \"%s\": wait for either a pid or a log line "
		    "(log + pattern), not both", p);
	else if (w->pid == 0 && (w->log == NULL || w->pattern == NULL))
		cfg_error(ctx, p, "key \"%s\": needs \"pid\", or \"log\" and \"pattern\"", p);
	else if (w->log != NULL && w->timeout_s <= 0)
		cfg_error(ctx, p, "key \"%s.timeout_s\": must be > 0 with a log: "
		    "a wait never waits forever", p);
	free(p);
}

static void
cfg_derive_stages(const struct cfg_ctx *ctx, struct wk_config *cfg, const cJSON *chain)
{
	struct wk_stage *st, *o;
	const char *file;
	char *p;
	size_t i, j;

	for (i = 0; i < cfg->nchain; i++) {
		st = &cfg->chain[i];
		p = xstrfmt("chain[%zu]", i);
		st->line = cfg_where(ctx, p, &file);
		st->has_wait = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetArrayItem(chain, (int)i), "wait"));
		if (st->marker == NULL && st->name != NULL)
			st->marker = cfg_default_marker(st->name);
		if (st->run != NULL && st->has_wait)
			cfg_error(ctx, p, "key \"%s\": has both \"run\" and \"wait\"; a stage "
			    "does exactly one of them (make the wait its own stage)", p);
		else if (st->adopt != NULL && st->has_wait)
			cfg_error(ctx, p, "key \"%s\": has both \"adopt\" and \"wait\"; a stage "
			    "does exactly one of them", p);
		else if (st->run == NULL && !st->has_wait && st->adopt == NULL)
			cfg_error(ctx, p, "key \"%s\": needs \"run\" (a command), \"adopt\" (a "
			    "job that already runs) or \"wait\"", p);
		if (st->resubmit != NULL && st->adopt == NULL)
			cfg_error(ctx, p, "key \"%s.resubmit\": recovers an adopted job: it needs "
			    "\"adopt\" (a stage of ours is submitted again by job.submit)", p);
		if (st->has_wait)
			cfg_derive_wait(ctx, st, i);
		free(p);
		if (st->marker != NULL && cfg_has_suffix(st->marker, ".FAILED")) {
			p = xstrfmt("chain[%zu].marker", i);
			cfg_error(ctx, p, "key \"%s\": \"%s\" must not end in \".FAILED\" "
			    "(reserved for failure markers)", p, st->marker);
			free(p);
		}
		for (j = 0; j < i; j++) {
			o = &cfg->chain[j];
			if (st->name != NULL && o->name != NULL && strcmp(st->name, o->name) == 0) {
				p = xstrfmt("chain[%zu].stage", i);
				cfg_error(ctx, p, "key \"%s\": duplicate stage name \"%s\" "
				    "(also chain[%zu])", p, st->name, j);
				free(p);
			}
			else if (st->marker != NULL && o->marker != NULL &&
			    strcmp(st->marker, o->marker) == 0) {
				p = xstrfmt("chain[%zu].marker", i);
				cfg_error(ctx, p, "key \"%s\": duplicate marker \"%s\" "
				    "(also chain[%zu])", p, st->marker, j);
				free(p);
			}
		}
	}
}

/* {checkpoint} in a stage's command: checkpoints must exist, the token sit where a quoted word may. */
static void
cfg_derive_ckpt(const struct cfg_ctx *ctx, const struct wk_config *cfg, const cJSON *root)
{
	size_t i;
	char *p, *why;

	for (i = 0; i < cfg->nchain; i++) {
		const char *run = cfg->chain[i].run;

		if (run == NULL || !shword_uses_token(run))
			continue;
		why = NULL;
		p = xstrfmt("chain[%zu].run", i);
		if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "checkpoints")))
			cfg_error(ctx, p, "key \"%s\": uses {checkpoint} but the config has no "
			    "\"checkpoints\" (dir, pattern) to take it from", p);
		else if (shword_check_token(run, &why) != 0)
			cfg_error(ctx, p, "key \"%s\": %s", p, why);
		free(why);
		free(p);
	}
}

/* completion.require: relative entries that stay in the workdir; {final_checkpoint} needs checkpoints. */
static void
cfg_derive_complete(const struct cfg_ctx *ctx, const cJSON *root)
{
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(root, "completion"), "require"), *it;
	char *p, *why;
	size_t i = 0;

	cJSON_ArrayForEach(it, req) {
		p = jsonc_path_elem("completion.require", i++);
		why = NULL;
		if (!cJSON_IsString(it))
			;	/* the type check said so */
		else if (reqentry_ok(it->valuestring, &why) != 0)
			cfg_error(ctx, p, "key \"%s\": %s", p, why);
		else if (strcmp(it->valuestring, REQENTRY_FINAL_CKPT) == 0 &&
		    !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "checkpoints")))
			cfg_error(ctx, p, "key \"%s\": " REQENTRY_FINAL_CKPT " needs \"checkpoints\" "
			    "(dir, pattern) to find the newest complete checkpoint", p);
		free(why);
		free(p);
	}
}

static void
cfg_derive_notify(const struct cfg_ctx *ctx, const cJSON *notify)
{
	const cJSON *it;
	const char *type;
	char *p;
	size_t i = 0;

	cJSON_ArrayForEach(it, notify) {
		type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "type"));
		p = jsonc_path_elem("notify", i++);
		if (type != NULL && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "card")) &&
		    strcmp(type, "telegram") != 0 && strcmp(type, "discord") != 0 &&
		    (strcmp(type, "slack") != 0 || !cJSON_HasObjectItem(it, "channel")))
			cfg_error(ctx, p, "key \"%s.card\": a live card needs a receiver that can edit "
			    "what it sent: telegram, discord, or slack through a bot token (\"channel\" "
			    "and \"token_env\"; an incoming webhook cannot edit)", p);
		if (type == NULL || !cJSON_IsObject(it))
			;
		else if (strcmp(type, "command") == 0) {
			if (!cJSON_HasObjectItem(it, "command"))
				cfg_error(ctx, p, "key \"%s\": type command needs \"command\"", p);
		} else if (strcmp(type, "github") == 0) {
			const char *repo = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "repo")), *sl;

			if (repo == NULL || (sl = strchr(repo, '/')) == NULL || sl == repo ||
			    sl[1] == '\0' || strchr(sl + 1, '/') != NULL || strpbrk(repo, " \t?#") != NULL)
				cfg_error(ctx, p, "key \"%s\": type github needs \"repo\": \"owner/name\"", p);
		} else if (strcmp(type, "telegram") == 0) {
			if ((!cJSON_HasObjectItem(it, "token_env") && !cJSON_HasObjectItem(it, "token")) ||
			    !cJSON_HasObjectItem(it, "chat_id"))
				cfg_error(ctx, p, "key \"%s\": type telegram needs \"token_env\" "
				    "(or \"token\") and \"chat_id\"", p);
		} else if (strcmp(type, "slack") == 0 && cJSON_HasObjectItem(it, "channel")) {
			/* the Web API through a bot token; url, if any, is the API's base */
			if (!cJSON_HasObjectItem(it, "token_env") && !cJSON_HasObjectItem(it, "token"))
				cfg_error(ctx, p, "key \"%s\": type slack with a \"channel\" posts "
				    "through a bot token: it needs \"token_env\" (or \"token\")", p);
		} else if (!cJSON_HasObjectItem(it, "url") && !cJSON_HasObjectItem(it, "url_env"))
			cfg_error(ctx, p, "key \"%s\": type %s needs \"url_env\" (or \"url\")", p, type);
		free(p);
	}
}

/* job.<key> is set, or every dialect sets it. */
static int
cfg_job_has(const cJSON *job, const char *key)
{
	const cJSON *dl, *all = cJSON_GetObjectItemCaseSensitive(job, "dialects");

	if (cJSON_HasObjectItem(job, key))
		return 1;
	if (cJSON_GetArraySize(all) == 0)
		return 0;
	cJSON_ArrayForEach(dl, all)
		if (!cJSON_HasObjectItem(dl, key))
			return 0;
	return 1;
}

/* chain[].job, adopt and resubmit belong to detach job. */
static void
cfg_derive_jobkeys(const struct cfg_ctx *ctx, const struct wk_config *cfg, const cJSON *chain)
{
	static const char *const keys[] = { "job", "adopt", "resubmit" };
	size_t i, k;
	char *p;

	if (cfg->detach_kind == DETACH_JOB)
		return;
	for (i = 0; i < cfg->nchain; i++)
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			if (!cJSON_HasObjectItem(cJSON_GetArrayItem(chain, (int)i), keys[k]))
				continue;
			p = xstrfmt("chain[%zu].%s", i, keys[k]);
			cfg_error(ctx, p, "key \"%s\": only with \"detach\": \"job\" (a cluster "
			    "manager's jobs; the profiles ray and iris set it), not \"%s\"", p,
			    cfg->detach != NULL ? cfg->detach : "tmux");
			free(p);
		}
}

void
cfg_derive(const struct cfg_ctx *ctx, struct wk_config *cfg, const cJSON *root)
{
	const cJSON *job = cJSON_GetObjectItemCaseSensitive(root, "job");
	char *p;

	/* tmux reads '.' and ':' in a target as window and pane separators. */
	if (cfg->session != NULL && strpbrk(cfg->session, ".:") != NULL)
		cfg_error(ctx, "session", "key \"session\": \"%s\": a tmux session name "
		    "cannot contain '.' or ':'", cfg->session);
	if (cfg->session == NULL && cfg->run != NULL) {
		cfg->session = xstrfmt("wk-%s", cfg->run);
		for (p = cfg->session; (p = strchr(p, '.')) != NULL; p++)
			*p = '_';
	}
	cfg_workdir(ctx, cfg);
	cfg->has_progress = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "progress"));
	/* Seed 004: the final step comes from the launched config, never a progress bar. */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "hero")) &&
	    (!cfg->has_progress || cfg->progress.max <= 0))
		cfg_error(ctx, "hero", "key \"hero\": a hero run needs \"progress.max\", its final "
		    "step as the config launches it (a progress bar's total is never taken for it)");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "hero")) &&
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "output_root")))
		cfg_error(ctx, "hero", "key \"hero\": a hero run needs \"output_root\", the "
		    "directory its outputs are pinned to");
	cfg_derive_stages(ctx, cfg, cJSON_GetObjectItemCaseSensitive(root, "chain"));
	cfg_derive_ckpt(ctx, cfg, root);
	cfg_derive_complete(ctx, root);
	cfg_derive_notify(ctx, cJSON_GetObjectItemCaseSensitive(root, "notify"));
	if ((cfg->detach_kind = detach_parse(cfg->detach)) == DETACH_JOB &&
	    (!cJSON_IsObject(job) || !cfg_job_has(job, "submit") || !cfg_job_has(job, "status")))
		cfg_error(ctx, "detach", "key \"detach\": \"job\" needs \"job.submit\" and "
		    "\"job.status\" (in \"job\", or in every entry of \"job.dialects\")");
	cfg_derive_jobkeys(ctx, cfg, cJSON_GetObjectItemCaseSensitive(root, "chain"));
}
