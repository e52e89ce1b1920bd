/*
 * top-model.c: the fleet as `patrol top` shows it, from the state files only.
 *
 * The runs are fleet.c's (state directories whose patrol.json names an
 * absolute config), found again at each scan so a run ticked for the first
 * time while top runs appears.  A row shows the newer (by last_tick) of the
 * run's patrol.json, a tick's, and its top.json, a look's (top-look.c).  A
 * scan stats both files of each run and parses them only when one's
 * (device, inode, size, mtime) moved: both are replaced by rename, so a new
 * inode says it changed, and a screen of 100 runs where nothing moved costs
 * 200 stats.  The mtime is whole seconds (POSIX's
 * st_mtime, the same on a Mac): a file written in the last second is
 * parsed again at the next scan too, as git treats a "racily clean" entry,
 * so two writes within one second are never missed.  The row keeps what the
 * screen shows, not the parsed document.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "config.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "pstate.h"
#include "top.h"
#include "xmalloc.h"

void
top_model_init(struct top_model *m)
{
	memset(m, 0, sizeof(*m));
	m->base = statedir_base();
}

static void
top_run_clear(struct top_run *r)
{
	free(r->name);
	free(r->statedir);
	free(r->config);
}

static int
top_run_cmp(const void *a, const void *b)
{
	return strcmp(((const struct top_run *)a)->name, ((const struct top_run *)b)->name);
}

static struct top_run *
top_model_find(struct top_model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->runs[i].name, name) == 0)
			return &m->runs[i];
	return NULL;
}

/* 1 when the file (st, or missing: NULL) is as it was when parsed. */
static int
top_stamp_same(const struct top_stamp *a, const struct stat *st)
{
	if (st == NULL)
		return a->ino == 0 && a->mtime == 0;
	return !a->racy && a->dev == st->st_dev && a->ino == st->st_ino &&
	    a->size == st->st_size && a->mtime == st->st_mtime;
}

static void
top_stamp_set(struct top_stamp *a, const struct stat *st)
{
	memset(a, 0, sizeof(*a));
	if (st == NULL)
		return;
	a->dev = st->st_dev;
	a->ino = st->st_ino;
	a->size = st->st_size;
	a->mtime = st->st_mtime;
	a->racy = st->st_mtime >= time(NULL) - 1;
}

/* The newer of a run's patrol.json (ps, kept) and its top.json (tj), by last_tick. */
static const cJSON *
top_newer(const cJSON *ps, const cJSON *tj)
{
	if (cJSON_IsObject(tj) &&
	    strcmp(json_str(tj, "last_tick", ""), json_str(ps, "last_tick", "")) >= 0)
		return tj;
	return ps;
}

cJSON *
top_model_doc(const char *statedir)
{
	char *path = fs_join(statedir, TOP_LOOK_FILE);
	cJSON *ps = pstate_load(statedir), *tj = NULL;

	if (ps != NULL && jsonfile_load(path, &tj) == 0 && top_newer(ps, tj) == tj) {
		cJSON_Delete(ps);
		ps = tj;	/* transferred */
		tj = NULL;
	}
	cJSON_Delete(tj);
	free(path);
	return ps;
}

/* dir's file f (0 patrol.json, 1 top.json) parsed, or NULL. */
static cJSON *
top_model_parse(const char *dir, int f)
{
	char *path;
	cJSON *doc = NULL;

	if (f == 0)
		return pstate_load(dir);
	path = fs_join(dir, TOP_LOOK_FILE);
	if (jsonfile_load(path, &doc) != 0 || !cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	free(path);
	return doc;
}

/*
 * Parse what moved of name's state (both files for a new run, or with
 * m->force): 1 a run, 0 not one (patrol.json names no absolute config).  A
 * look rewrites top.json alone, so a refresh parses one small file a run;
 * the other file is parsed again only when the row's source changes to it.
 */
static int
top_model_load(struct top_model *m, const char *name, const char *dir, const struct stat *st,
    const struct stat *tst)
{
	struct top_run *r = top_model_find(m, name);
	cJSON *doc[2] = { NULL, NULL };
	int moved[2], newer, f, rc = 0;
	enum top_look look;
	const char *cfg = NULL;
	long look_s;

	moved[0] = r == NULL || m->force == TOP_FORCE_ALL || !top_stamp_same(&r->stamp[0], st);
	moved[1] = r == NULL || m->force != 0 || !top_stamp_same(&r->stamp[1], tst);
	if (!moved[0] && !moved[1]) {
		r->present = 1;
		return 1;
	}
	if (moved[0] && ((doc[0] = top_model_parse(dir, 0)) == NULL ||
	    (cfg = json_str(doc[0], "config", NULL)) == NULL || cfg[0] != '/'))
		goto out;
	if (moved[1] && tst != NULL)
		doc[1] = top_model_parse(dir, 1);
	if (r == NULL) {
		m->runs = xreallocarray(m->runs, m->n + 1, sizeof(*m->runs));
		r = &m->runs[m->n++];
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(name);
		r->statedir = xstrdup(dir);
	}
	if (moved[0] && (r->config == NULL || strcmp(r->config, cfg) != 0)) {
		free(r->config);
		r->config = xstrdup(cfg);
	}
	for (f = 0; f < 2; f++)
		if (moved[f])
			snprintf(r->tick[f], sizeof(r->tick[f]), "%s",
			    doc[f] != NULL ? json_str(doc[f], "last_tick", "") : "");
	/* The row shows the newer: top.json when its look is no older than patrol.json's tick. */
	newer = tst != NULL && r->tick[1][0] != '\0' && strcmp(r->tick[1], r->tick[0]) >= 0;
	if (doc[newer] == NULL && r->src != newer)
		doc[newer] = top_model_parse(dir, newer);
	if (doc[newer] != NULL) {
		look = r->row.look;
		look_s = r->row.look_s;
		top_row_from_state(&r->row, name, doc[newer]);
		r->row.look = look;
		r->row.look_s = look_s;
		r->src = newer;
	}
	top_stamp_set(&r->stamp[0], st);
	top_stamp_set(&r->stamp[1], tst);
	r->present = 1;
	rc = 1;
 out:
	cJSON_Delete(doc[0]);
	cJSON_Delete(doc[1]);
	return rc;
}

void
top_model_scan(struct top_model *m)
{
	struct dirent *de;
	struct stat st, tst;
	char *dir, *file, *tfile;
	size_t i, j;
	DIR *d;

	for (i = 0; i < m->n; i++)
		m->runs[i].present = 0;
	if (m->base != NULL && (d = opendir(m->base)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (!config_name_ok(de->d_name))
				continue;
			dir = fs_join(m->base, de->d_name);
			file = fs_join(dir, PSTATE_FILE);
			tfile = fs_join(dir, TOP_LOOK_FILE);
			if (stat(file, &st) == 0 && S_ISREG(st.st_mode))
				(void)top_model_load(m, de->d_name, dir, &st,
				    stat(tfile, &tst) == 0 && S_ISREG(tst.st_mode) ? &tst : NULL);
			free(tfile);
			free(file);
			free(dir);
		}
		closedir(d);
	}
	m->force = 0;
	/* A run whose state went stays while its refresh runs (top-look.c reaps it by pid). */
	for (i = j = 0; i < m->n; i++) {
		if (m->runs[i].present || m->runs[i].pid > 0)
			m->runs[j++] = m->runs[i];
		else
			top_run_clear(&m->runs[i]);
	}
	m->n = j;
	if (m->n > 1)
		qsort(m->runs, m->n, sizeof(*m->runs), top_run_cmp);
}

void
top_model_free(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		top_run_clear(&m->runs[i]);
	free(m->runs);
	free(m->base);
	memset(m, 0, sizeof(*m));
}
