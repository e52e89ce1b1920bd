/*
 * complete.c: completion.require (the rules are in complete.h).
 *
 * glob(3) without a shell: the workdir is escaped into the pattern so its
 * own '*', '?', '[' or '\' are literal, and the error callback aborts only
 * on a directory that exists but cannot be read (a missing one is just no
 * match), which is GLOB_ERR without its ENOENT false alarm.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "buf.h"
#include "ckpt.h"
#include "complete.h"
#include "config.h"
#include "err.h"
#include "xmalloc.h"

static const cJSON *
complete_list(const struct wk_config *cfg)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(cfg->root, "completion");

	return cJSON_GetObjectItemCaseSensitive(c, "require");
}

int
complete_configured(const struct wk_config *cfg)
{
	const cJSON *l = complete_list(cfg);

	return cJSON_IsArray(l) && cJSON_GetArraySize(l) > 0;
}

/* The one error glob must not swallow: a directory that is there but unreadable
 * (glob's callback has no argument; onbox is single-threaded). */
static int glob_errno;
static char glob_errpath[512];

static int
complete_glob_err(const char *path, int e)
{
	if (e == ENOENT || e == ENOTDIR)
		return 0;
	glob_errno = e;
	snprintf(glob_errpath, sizeof(glob_errpath), "%s", path);
	return 1;
}

static int
dir_has_entry(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int found = 0;

	if (d == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL)
		found = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return found;
}

/* NULL when the entry is met, else why not (a static string or one in *own). */
static const char *
complete_path(const char *workdir, const char *entry, char **own)
{
	struct buf pat;
	const char *p, *why = "not found";
	struct stat sb;
	glob_t g;
	size_t i;
	int rc;

	*own = NULL;
	buf_init(&pat);
	for (p = workdir; *p != '\0'; p++) {
		if (strchr("*?[\\", *p) != NULL)
			buf_putc(&pat, '\\');
		buf_putc(&pat, *p);
	}
	buf_putc(&pat, '/');
	buf_puts(&pat, entry);
	memset(&g, 0, sizeof(g));
	glob_errno = 0;
	rc = glob(buf_str(&pat), GLOB_NOSORT, complete_glob_err, &g);
	if (rc == GLOB_ABORTED) {
		*own = xstrfmt("cannot read %s: %s", glob_errpath, strerror(glob_errno));
		why = *own;
	} else if (rc == GLOB_NOSPACE)
		why = "out of memory while matching";
	else if (rc == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			if (stat(g.gl_pathv[i], &sb) != 0)
				continue;
			if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
				why = NULL;
				break;
			}
			if (S_ISDIR(sb.st_mode) && dir_has_entry(g.gl_pathv[i])) {
				why = NULL;
				break;
			}
			if (S_ISREG(sb.st_mode))
				why = "empty";
			else if (S_ISDIR(sb.st_mode))
				why = "empty directory";
			else if (strcmp(why, "not found") == 0)
				why = "not a regular file or directory";
		}
	}
	globfree(&g);
	buf_free(&pat);
	return why;
}

/* {final_checkpoint}: 1 met (maybe with *note), 0 unmet with *why. */
static int
complete_final_ckpt(const struct wk_config *cfg, long prog_max_log, char **why, char **note)
{
	struct ckpt_scan *scan = NULL;
	char *err = NULL;
	long long max = cfg->progress.max > 0 ? cfg->progress.max : prog_max_log;
	const char *src = cfg->progress.max > 0 ? "progress.max" : "the log's progress total";
	int met = 0;

	*why = NULL;
	if (!ckpt_configured(cfg)) {
		*why = xstrdup("no \"checkpoints\" in the config");
		goto out;
	}
	if (ckpt_scan_dir(cfg, &scan, &err) != 0) {
		*why = xstrfmt("cannot scan the checkpoints: %s", err != NULL ? err : "?");
		goto out;
	}
	if (scan->newest == NULL) {
		*why = xstrfmt("no complete checkpoint in %s%s", scan->dir,
		    scan->missing ? " (the directory does not exist)" : "");
		goto out;
	}
	if (max <= 0) {
		met = 1;
		if (note != NULL)
			*note = xstrfmt("final checkpoint: the total is unknown (no progress.max and "
			    "no total in the log's progress lines), so only a complete checkpoint was "
			    "required: newest complete is %s", scan->newest->name);
		goto out;
	}
	if (scan->newest->step >= max)
		met = 1;
	else
		*why = xstrfmt("newest complete is %s, %s is %lld", scan->newest->name, src, max);
 out:
	ckpt_scan_free(scan);
	free(err);
	return met;
}

int
complete_check(const struct wk_config *cfg, long prog_max_log, char **missing, char **note)
{
	const cJSON *it;
	struct buf files, ck;
	const char *why;
	char *own, *cwhy;
	int unmet = 0;

	*missing = NULL;
	if (note != NULL)
		*note = NULL;
	buf_init(&files);
	buf_init(&ck);
	cJSON_ArrayForEach(it, complete_list(cfg)) {
		if (!cJSON_IsString(it))
			continue;
		if (strcmp(it->valuestring, REQENTRY_FINAL_CKPT) == 0) {
			cwhy = NULL;
			if (ck.len == 0 && !complete_final_ckpt(cfg, prog_max_log, &cwhy, note)) {
				buf_printf(&ck, "final checkpoint: %s", cwhy);
				unmet++;
			}
			free(cwhy);
			continue;
		}
		if ((why = complete_path(cfg->workdir, it->valuestring, &own)) != NULL) {
			buf_printf(&files, "%s%s%s%s%s", files.len > 0 ? ", " : "missing: ",
			    it->valuestring, strcmp(why, "not found") != 0 ? " (" : "",
			    strcmp(why, "not found") != 0 ? why : "",
			    strcmp(why, "not found") != 0 ? ")" : "");
			unmet++;
		}
		free(own);
	}
	if (unmet > 0) {
		if (files.len > 0 && ck.len > 0)
			buf_puts(&files, "; ");
		buf_puts(&files, buf_str(&ck));
		*missing = buf_detach(&files);
	}
	buf_free(&files);
	buf_free(&ck);
	return unmet;
}
