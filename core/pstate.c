/*
 * pstate.c: patrol.json, its one reader and writer (see pstate.h).
 *
 * It carries what one tick tells the next: the last verdict (a change is
 * pushed), the last progress and how many ticks it has not moved
 * (STALLED), the resumes patrol made (the restart budget).  It is written
 * atomically; patrol.lock (an OFD lock) keeps two overlapping cron ticks
 * from ever running at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "log.h"
#include "proc.h"
#include "pstate.h"
#include "xmalloc.h"

/* This machine's id for the run's events (a receiver dedupes by it). */
static void
pstate_instance(cJSON *doc)
{
	char hex[17];

	fs_random_hex(hex, 8);
	json_set_str(doc, "instance", hex);
}

int
pstate_open_dir(const char *dir, const char *run, struct pstate *s)
{
	char *p;
	int r;

	memset(s, 0, sizeof(*s));
	s->dir = xstrdup(dir);
	p = fs_join(s->dir, PSTATE_LOCK);
	s->lockfd = lock_try(p);
	free(p);
	if (s->lockfd < 0)
		return s->lockfd;
	p = fs_join(s->dir, PSTATE_FILE);
	r = jsonfile_load(p, &s->doc);
	free(p);
	if (r != 0 || !cJSON_IsObject(s->doc)) {
		cJSON_Delete(s->doc);
		s->doc = cJSON_CreateObject();
		cJSON_AddStringToObject(s->doc, "run", run);
	}
	if (json_str(s->doc, "instance", NULL) == NULL)
		pstate_instance(s->doc);
	return 0;
}

int
pstate_save(struct pstate *s)
{
	char *p = fs_join(s->dir, PSTATE_FILE);
	int r = jsonfile_save(p, s->doc);

	free(p);
	return r;
}

void
pstate_close(struct pstate *s)
{
	if (s->lockfd >= 0)
		close(s->lockfd);
	cJSON_Delete(s->doc);
	free(s->dir);
	memset(s, 0, sizeof(*s));
	s->lockfd = -1;
}

cJSON *
pstate_load(const char *statedir)
{
	char *p = fs_join(statedir, PSTATE_FILE);
	cJSON *doc = NULL;
	int r = jsonfile_load(p, &doc);

	if (r != 0) {
		if (!(r == WK_ERR_SYSTEM && errno == ENOENT))
			log_warn("ignoring %s: %s", p, wk_strerror(r));
		doc = NULL;
	} else if (!cJSON_IsObject(doc)) {
		log_warn("ignoring %s: not a JSON object", p);
		cJSON_Delete(doc);
		doc = NULL;
	}
	free(p);
	return doc;
}
