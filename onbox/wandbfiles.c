/*
 * wandbfiles.c: what the wandb client wrote on the box, for the health
 * checks' W&B identity and staleness (core/health.h, health_wandb_files).
 *
 * The client's layout (wandb/wandb at b6e29505884e, 0.28.3.dev1;
 * tests/e2e/fixtures/wandb-run names the file and line of each fact): under
 * its directory (the config's wandb.dir, default <workdir>/wandb) every run
 * is a directory run-<YYYYMMDD_HHMMSS>-<id> (offline-run-... offline; a
 * "-N" added when two start in one second) and latest-run is a relative
 * symlink to the newest one, swapped atomically.  In it run-<id>.wandb is
 * the transaction log every logged record is appended to (in 32 KiB
 * blocks), and files/wandb-summary.json is written once, when the run
 * finishes (online only): one JSON object, the last values and _step,
 * _timestamp, _runtime.  A resumed run (same id) gets a new directory.
 *
 * Read every heartbeat while a run stage's attempt is watched: latest-run
 * counts only when the link was made at or after the attempt started (an
 * older one belongs to an earlier attempt or run).  The id is the
 * transaction log's (run-<id>.wandb: no "-N" to confuse), else the
 * directory name's after its 15-character time.  A summary that does not
 * parse (written in place, not atomically; NaN written bare) is left
 * unread: its _step and _timestamp stay unknown.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "health.h"
#include "jsonfile.h"
#include "onbox.h"
#include "xmalloc.h"

#define WANDB_SUMMARY_MAX	(4u << 20)
#define WANDB_CLOCK_SLACK_S	5	/* the link may be stamped a moment before our record */

/* The run's transaction log run-<id>.wandb: its id (over the name's) and size. */
static void
wandb_txlog(const char *run, struct health_wandb_files *f)
{
	DIR *d = opendir(run);
	struct dirent *e;
	struct stat st;
	size_t n;
	char *p;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		n = strlen(e->d_name);
		if (n <= 10 || strncmp(e->d_name, "run-", 4) != 0 ||
		    strcmp(e->d_name + n - 6, ".wandb") != 0 || n - 10 >= sizeof(f->id))
			continue;
		p = fs_join(run, e->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			snprintf(f->id, sizeof(f->id), "%.*s", (int)(n - 10), e->d_name + 4);
			f->txlog = (long long)st.st_size;
		}
		free(p);
		break;
	}
	closedir(d);
}

int
onbox_wandb_read(const struct wk_config *cfg, time_t since, struct health_wandb_files *f)
{
	char *j = fs_join(cfg->workdir, config_get_str(cfg, "wandb.dir")), *dir = fs_abspath(j);
	char *link = fs_join(dir, "latest-run"), target[4096], *run = NULL, *sum = NULL;
	char *text = NULL;
	const char *base, *dash;
	struct stat st;
	cJSON *doc = NULL, *v;
	size_t len;
	ssize_t n;

	memset(f, 0, sizeof(*f));
	f->step = f->ts = NAN;
	if (lstat(link, &st) != 0 || !S_ISLNK(st.st_mode) ||
	    st.st_mtime + WANDB_CLOCK_SLACK_S < since)
		goto out;
	if ((n = readlink(link, target, sizeof(target) - 1)) <= 0)
		goto out;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/') != NULL ? strrchr(target, '/') + 1 : target;
	if (strncmp(base, "run-", 4) == 0)
		dash = base + 4;
	else if (strncmp(base, "offline-run-", 12) == 0)
		dash = base + 12;
	else
		goto out;
	if (strlen(dash) < 17 || dash[15] != '-' || strlen(dash + 16) >= sizeof(f->id))
		goto out;	/* not <YYYYMMDD_HHMMSS>-<id> */
	run = target[0] == '/' ? xstrdup(target) : fs_join(dir, target);
	snprintf(f->id, sizeof(f->id), "%s", dash + 16);
	snprintf(f->dir, sizeof(f->dir), "%s", run);
	f->txlog = -1;
	wandb_txlog(run, f);
	/* The run is there; its summary only once it finished (torn, or NaN in it: not read). */
	f->seen = 1;
	sum = fs_join(run, "files/wandb-summary.json");
	if (fs_read_file(sum, WANDB_SUMMARY_MAX, &text, &len) != 0 ||
	    (doc = cJSON_ParseWithLength(text, len)) == NULL || !cJSON_IsObject(doc))
		goto out;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(doc, "_step")))
		f->step = v->valuedouble;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(doc, "_timestamp")))
		f->ts = v->valuedouble;
 out:
	cJSON_Delete(doc);
	free(text);
	free(sum);
	free(run);
	free(link);
	free(dir);
	free(j);
	return f->seen;
}
