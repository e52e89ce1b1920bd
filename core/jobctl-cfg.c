/*
 * jobctl-cfg.c: what a run's config says to jobctl (see jobctl.h): which
 * dialect of the CLI to speak (job.dialects), a stage's own options
 * (chain[].job through optwords.c), and the config check that keeps every
 * command's placeholders, the dialects and the stages' job keys honest.
 * The tables it checks against (jobctl_ops[], jobctl_phs[]) are jobctl.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "jobctl.h"
#include "jobctl-int.h"
#include "optwords.h"
#include "xmalloc.h"

/* Dialects. */

static const cJSON *
jobctl_dialects(const struct wk_config *cfg)
{
	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cfg->root, "job"), "dialects");
}

static const char *
jobctl_dialect_name(const cJSON *dl)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dl, "name"));
}

int
jobctl_dialect(struct jobctl *jc, const char *want, char **name, char **why)
{
	const cJSON *all = jobctl_dialects(jc->cfg), *dl;
	struct jobctl_res r;
	struct buf tried = BUF_INIT;
	const char *detect, *dn;
	char *w = NULL, *label;
	int i = 0, ret;

	*name = NULL;
	*why = NULL;
	jc->dialect = NULL;
	if (cJSON_GetArraySize(all) == 0)
		return 0;
	cJSON_ArrayForEach(dl, all)
		if (want != NULL && (dn = jobctl_dialect_name(dl)) != NULL && strcmp(dn, want) == 0) {
			jc->dialect = dl;
			*name = xstrdup(dn);
			return 0;
		}
	cJSON_ArrayForEach(dl, all) {
		dn = jobctl_dialect_name(dl);
		detect = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dl, "detect"));
		if (dn == NULL || detect == NULL)
			continue;
		memset(&r, 0, sizeof(r));
		label = xstrfmt("job.dialects[%d].detect (%s)", i++, dn);
		free(w);
		w = NULL;
		ret = jobctl_run(jc, label, detect, 4096, 0, &r, &w);
		jobctl_res_free(&r);
		free(label);
		if (ret == 0) {
			jc->dialect = dl;
			*name = xstrdup(dn);
			goto out;
		}
		buf_printf(&tried, "%s%s", tried.len > 0 ? ", " : "", dn);
	}
	*why = xstrfmt("no dialect of job.dialects (%s) matches the CLI; the last said: %s",
	    buf_str(&tried), w != NULL ? w : "nothing");
	ret = WK_ERR_NOTFOUND;
out:
	free(w);
	buf_free(&tried);
	return ret;
}

/* Stage options (chain[].job). */

struct jobctl_optctx {
	const cJSON	*allowed;	/* job.options, or NULL: any name */
	const cJSON	*reserved;	/* job.reserved */
};

/* The word's option name, "--name" or "--name=v" -> name; NULL for a short option. */
static int
jobctl_optname_is(const char *w, const char *name)
{
	size_t n = strlen(name);

	return w[0] == '-' && w[1] == '-' && strncmp(w + 2, name, n) == 0 &&
	    (w[2 + n] == '\0' || w[2 + n] == '=');
}

static const char *
jobctl_opt_reserved(const char *w, void *arg, char **why)
{
	const struct jobctl_optctx *o = arg;
	const cJSON *it;
	struct buf names = BUF_INIT;

	cJSON_ArrayForEach(it, o->reserved)
		if (cJSON_IsString(it) && jobctl_optname_is(w, it->valuestring))
			return it->valuestring;
	if (o->allowed == NULL)
		return NULL;
	cJSON_ArrayForEach(it, o->allowed)
		if (cJSON_IsString(it) && jobctl_optname_is(w, it->valuestring))
			return NULL;
	cJSON_ArrayForEach(it, o->allowed)
		if (cJSON_IsString(it))
			buf_printf(&names, "%s%s", names.len > 0 ? ", " : "", it->valuestring);
	*why = xstrfmt("\"%.60s\" is not an option job.options lists (%s)", w, buf_str(&names));
	buf_free(&names);
	return NULL;
}

static const cJSON *
jobctl_stage_item(const struct wk_config *cfg, size_t idx, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(cfg->root, "chain"), (int)idx), key);
}

int
jobctl_options(const struct wk_config *cfg, size_t idx, char **words, char **why)
{
	const cJSON *job = cJSON_GetObjectItemCaseSensitive(cfg->root, "job");
	struct jobctl_optctx o = {
		cJSON_GetObjectItemCaseSensitive(job, "options"),
		cJSON_GetObjectItemCaseSensitive(job, "reserved"),
	};
	struct buf b = BUF_INIT;
	int ret;

	*words = NULL;
	if ((ret = optwords_append(jobctl_stage_item(cfg, idx, "job"), "a job", jobctl_opt_reserved,
	    &o, words != NULL ? &b : NULL, why)) != 0) {
		buf_free(&b);
		return ret;
	}
	*words = buf_detach(&b);
	if (*words == NULL)
		*words = xstrdup("");
	return 0;
}

/* Config check. */

/* The problems of one source of commands (the job section, or a dialect) into d. */
static int
jobctl_check_source(const struct wk_config *cfg, const cJSON *src, const char *where,
    int has_regex, int stage_opts, struct diag *d)
{
	const struct jobctl_op *o;
	const char *tmpl;
	unsigned uses;
	size_t i, j;
	int found = 0;

	for (i = 0; i < OP_N; i++) {
		o = &jobctl_ops[i];
		tmpl = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src,
		    o->key + strlen("job.")));
		if (tmpl == NULL)
			continue;
		uses = jobctl_uses(tmpl);
		for (j = 0; j < PH_N; j++) {
			if ((uses & PH(j)) && !(o->have & PH(j))) {
				diag_add(d, cfg->path, 0, "key \"%s%s\": uses %s, which %s has no "
				    "value for", where, o->key + strlen("job."), jobctl_phs[j], o->verb);
				found++;
			} else if (!(uses & PH(j)) && (o->need & PH(j))) {
				diag_add(d, cfg->path, 0, "key \"%s%s\": does not use %s", where,
				    o->key + strlen("job."), jobctl_phs[j]);
				found++;
			}
		}
		if (i == OP_SUBMIT && stage_opts && !(uses & PH(PH_OPTIONS))) {
			diag_add(d, cfg->path, 0, "key \"%ssubmit\": does not use {options}, and "
			    "a stage sets chain[].job", where);
			found++;
		}
		if ((i == OP_SUBMIT || i == OP_FIND) && !has_regex) {
			diag_add(d, cfg->path, 0, "key \"%s%s\": needs \"job.id_regex\" to read job "
			    "ids from its output", where, o->key + strlen("job."));
			found++;
		}
	}
	return found;
}

int
jobctl_has_nowait(const char *cmd)
{
	static const char *const words[] = { "--no-wait", "--no_wait" };
	const char *p;
	size_t i, n;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i]);
		for (p = cmd; (p = strstr(p, words[i])) != NULL; p++)
			if ((p == cmd || strchr(" \t\n'\"", p[-1]) != NULL) &&
			    strchr(" \t\n'\"", p[n]) != NULL)
				return 1;
	}
	return 0;
}

/* 1 when a submit command of the job section or a dialect passes --no-wait. */
static int
jobctl_submit_nowait(const struct wk_config *cfg)
{
	const cJSON *dl;
	const char *t = config_get_str(cfg, "job.submit");

	if (t != NULL && strstr(t, "--no-wait") != NULL)
		return 1;
	cJSON_ArrayForEach(dl, jobctl_dialects(cfg))
		if ((t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dl, "submit"))) !=
		    NULL && strstr(t, "--no-wait") != NULL)
			return 1;
	return 0;
}

/* chain[]'s job, adopt and resubmit. */
static int
jobctl_check_stages(const struct wk_config *cfg, int *stage_opts, struct diag *d)
{
	const struct wk_stage *st;
	char *why = NULL, *words = NULL;
	size_t i;
	int found = 0, nowait = jobctl_submit_nowait(cfg);

	*stage_opts = 0;
	for (i = 0; i < cfg->nchain; i++) {
		st = &cfg->chain[i];
		if (jobctl_stage_item(cfg, i, "job") != NULL)
			*stage_opts = 1;
		if (jobctl_options(cfg, i, &words, &why) != 0) {
			diag_add(d, cfg->path, st->line, "chain[%zu].job (stage %s): %s", i, st->name,
			    why);
			found++;
		}
		free(words);
		free(why);
		why = words = NULL;
		if (st->resubmit != NULL && nowait && !jobctl_has_nowait(st->resubmit)) {
			diag_add(d, cfg->path, st->line, "chain[%zu].resubmit (stage %s): must pass "
			    "--no-wait (or ray_run.py's --no_wait), as the profile's submit does: onbox "
			    "reads the new job's id from its output and must not wait for the job to "
			    "end", i, st->name);
			found++;
		}
	}
	return found;
}

int
jobctl_check(const struct wk_config *cfg, struct diag *d)
{
	const cJSON *job = cJSON_GetObjectItemCaseSensitive(cfg->root, "job"), *dl, *o;
	int found, stage_opts, i = 0, has_regex = config_get_str(cfg, "job.id_regex") != NULL;
	const char *dn, *on;
	char *where;

	found = jobctl_check_stages(cfg, &stage_opts, d);
	found += jobctl_check_source(cfg, job, "job.", has_regex, stage_opts, d);
	cJSON_ArrayForEach(dl, jobctl_dialects(cfg)) {
		where = xstrfmt("job.dialects[%d].", i++);
		found += jobctl_check_source(cfg, dl, where, has_regex ||
		    cJSON_HasObjectItem(dl, "id_regex"), stage_opts, d);
		dn = jobctl_dialect_name(dl);
		for (o = dl->next; dn != NULL && o != NULL; o = o->next)
			if ((on = jobctl_dialect_name(o)) != NULL && strcmp(dn, on) == 0) {
				diag_add(d, cfg->path, 0, "key \"%sname\": \"%s\" names two dialects",
				    where, dn);
				found++;
			}
		free(where);
	}
	return found + jobctl_check_states(cfg, d);
}
