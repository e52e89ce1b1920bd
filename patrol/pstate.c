/*
 * pstate.c: patrol's local state, one directory per run.
 *
 * patrol.json carries what one tick tells the next: the last verdict (a
 * change is pushed), the last progress and how many ticks it has not moved
 * (STALLED), the resumes patrol made (the restart budget).  It is written
 * atomically; patrol.lock (an OFD lock) keeps two overlapping cron ticks
 * from ever running at once.  It also remembers the ssh transport in use and
 * why ("transport"), so that the report log says it once, not every tick.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "md.h"
#include "monotime.h"
#include "patrol.h"
#include "proc.h"
#include "target.h"
#include "xmalloc.h"

int
pstate_open(const struct wk_config *cfg, struct pstate *s)
{
	char *p;
	int r;

	memset(s, 0, sizeof(*s));
	s->lockfd = -1;
	if ((s->dir = statedir_path(cfg, 1)) == NULL)
		return WK_ERR_SYSTEM;
	p = fs_join(s->dir, "patrol.lock");
	s->lockfd = lock_try(p);
	free(p);
	if (s->lockfd < 0)
		return s->lockfd;
	p = fs_join(s->dir, "patrol.json");
	r = jsonfile_load(p, &s->doc);
	free(p);
	if (r != 0 || !cJSON_IsObject(s->doc)) {
		cJSON_Delete(s->doc);
		s->doc = cJSON_CreateObject();
		cJSON_AddStringToObject(s->doc, "run", cfg->run);
	}
	if (json_str(s->doc, "instance", NULL) == NULL) {
		/* This machine's id for the run's events (a receiver dedupes by it). */
		unsigned char rnd[8] = { 0 };
		char hex[17];
		FILE *fp = fopen("/dev/urandom", "re");
		size_t i;

		if (fp == NULL || fread(rnd, 1, sizeof(rnd), fp) != sizeof(rnd)) {
			unsigned long long v = (unsigned long long)time(NULL) ^ (unsigned long long)getpid();

			memcpy(rnd, &v, sizeof(rnd));
		}
		if (fp != NULL)
			fclose(fp);
		for (i = 0; i < sizeof(rnd); i++)
			snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
		json_set_str(s->doc, "instance", hex);
	}
	return 0;
}

int
pstate_save(struct pstate *s)
{
	char *p = fs_join(s->dir, "patrol.json");
	int r = jsonfile_save(p, s->doc);

	free(p);
	return r;
}

void
pstate_report(struct pstate *s, const char *line)
{
	char *p = fs_join(s->dir, "report.log"), *l = xstrfmt("%s\n", line);

	(void)append_record(p, l, strlen(l));
	free(l);
	free(p);
}

void
pstate_transport(struct pstate *s, const struct wk_config *cfg, const struct ssh_target *t)
{
	char *text = target_transport_text(t), when[TIMEFMT_LEN];
	const char *was = json_str(s->doc, "transport", NULL);
	struct buf b = BUF_INIT;
	int say;

	/* Once: the first tick the system ssh stands in for libssh2 (or cannot), then on a change. */
	if (was == NULL)
		say = t->transport_auto && t->transport_why != NULL;
	else
		say = strcmp(was, text) != 0;
	if (say) {
		timefmt_utc(time(NULL), when, sizeof(when));
		buf_printf(&b, "%s %s transport ", when, cfg->run);
		md_flat(&b, text);
		pstate_report(s, buf_str(&b));
	}
	json_set_str(s->doc, "transport", text);
	buf_free(&b);
	free(text);
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
