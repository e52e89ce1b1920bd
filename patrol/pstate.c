/*
 * pstate.c: patrol's local state, one directory per run: where it is
 * (statedir_path), the report log, and the ssh transport patrol.json
 * remembers ("transport"), so that the report log says it once, not every
 * tick.  patrol.json itself is core/pstate.c's (its one reader and writer).
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
	char *dir;
	int r;

	if ((dir = statedir_path(cfg, 1)) == NULL) {
		memset(s, 0, sizeof(*s));
		s->lockfd = -1;
		return WK_ERR_SYSTEM;
	}
	r = pstate_open_dir(dir, cfg->run, s);
	free(dir);
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
