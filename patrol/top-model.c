/*
 * top-model.c: the fleet as `patrol top` shows it, from the state files only.
 *
 * The runs are fleet.c's (state directories whose patrol.json names an
 * absolute config), found again at each scan so a run ticked for the first
 * time while top runs appears.  A scan stats each patrol.json and parses
 * only those whose (device, inode, size, mtime) moved: a tick replaces the
 * file by rename, so a new inode says it changed, and a screen of 100 runs
 * where nothing moved costs 100 stats.  The mtime is whole seconds (POSIX's
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

/* Parse name's patrol.json again when it moved (or is new): 1 a run, 0 not one (no config). */
static int
top_model_load(struct top_model *m, const char *name, const char *dir, const struct stat *st)
{
	struct top_run *r = top_model_find(m, name);
	enum top_look look;
	const char *cfg;
	long look_s;
	cJSON *ps;

	if (r != NULL && !m->force && !r->racy && r->dev == st->st_dev && r->ino == st->st_ino &&
	    r->size == st->st_size && r->mtime == st->st_mtime) {
		r->present = 1;
		return 1;
	}
	if ((ps = pstate_load(dir)) == NULL ||
	    (cfg = json_str(ps, "config", NULL)) == NULL || cfg[0] != '/') {
		cJSON_Delete(ps);
		return 0;
	}
	if (r == NULL) {
		m->runs = xreallocarray(m->runs, m->n + 1, sizeof(*m->runs));
		r = &m->runs[m->n++];
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(name);
		r->statedir = xstrdup(dir);
	}
	if (r->config == NULL || strcmp(r->config, cfg) != 0) {
		free(r->config);
		r->config = xstrdup(cfg);
	}
	look = r->row.look;
	look_s = r->row.look_s;
	top_row_from_state(&r->row, name, ps);
	r->row.look = look;
	r->row.look_s = look_s;
	r->dev = st->st_dev;
	r->ino = st->st_ino;
	r->size = st->st_size;
	r->mtime = st->st_mtime;
	r->racy = st->st_mtime >= time(NULL) - 1;
	r->present = 1;
	cJSON_Delete(ps);
	return 1;
}

void
top_model_scan(struct top_model *m)
{
	struct dirent *de;
	struct stat st;
	char *dir, *file;
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
			if (stat(file, &st) == 0 && S_ISREG(st.st_mode))
				(void)top_model_load(m, de->d_name, dir, &st);
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
