/*
 * fleet.c: every run patrol knows, at once (step 16's first part).
 *
 * The fleet is every state directory under statedir_base() whose
 * patrol.json records an absolute config path (what a tick writes, and
 * what `patrol mcp` serves).
 *
 *   patrol --all [--jobs N]     a tick of each run, N at a time (default 4,
 *                               at most 64), each in its own process, so each
 *                               keeps its own lock and its own budget: a run
 *                               another patrol ticks is skipped and said so
 *                               (SKIPPED); one report line a run.  The runs
 *                               on one box take turns (fleet_next), each tick
 *                               a look over the box's one warm connection
 *                               (ssh/warm.h), held for the fleet's tick.  A run that
 *                               was DONE or is sealed is out of the fleet's
 *                               tick.  Exit: 2 when a box could not be seen,
 *                               else 1 when a run is not OK/DONE/STOPPED or a
 *                               config does not load, else 0.
 *   patrol --install-schedule --all, --uninstall-schedule --all
 *                               ONE schedule entry (cron, systemd, launchd as
 *                               for a run) that runs `patrol --all`; the runs'
 *                               own entries are removed when it is installed.
 *                               Its name is FLEET_RUN, which no run can have
 *                               (':' is not in a run name), and it goes when
 *                               every run is DONE or sealed.
 *   patrol status --all [--json] [--refresh]
 *                               the table from the state alone (--refresh:
 *                               the fleet's tick first): run, box, verdict,
 *                               stage, ~cur/max, ETA, when the box was last
 *                               seen, the heartbeat's age then, the last event.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "decide.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "patrol.h"
#include "pstate.h"
#include "scheduler.h"
#include "warm.h"
#include "xmalloc.h"

#define FLEET_JOBS_MAX	64
#define FLEET_RUN	":fleet"	/* the fleet's schedule entry: no run's name has ':' */

/* A config that stands for the fleet in the scheduler code: its name, the defaults. */
static struct wk_config *
fleet_config(void)
{
	struct wk_config *cfg = xcalloc(1, sizeof(*cfg));

	cfg->run = xstrdup(FLEET_RUN);
	cfg->path = xstrdup("(every run patrol knows)");
	cfg->root = cJSON_CreateObject();
	return cfg;
}

int
patrol_fleet_schedule(int install, int kind)
{
	struct wk_config *cfg = fleet_config(), *rc_cfg;
	struct fleet_run *v = NULL;
	struct diag d = DIAG_INIT;
	char *self = NULL;
	size_t n = 0, i, moved = 0;
	int rc;

	if (!install) {
		rc = schedule_uninstall(cfg, 0, kind);
		goto out;
	}
	if ((self = fs_self_exe()) == NULL) {
		log_error("cannot find my own executable");
		rc = WK_EX_SOFTWARE;
		goto out;
	}
	if ((rc = schedule_install(cfg, self, NULL, kind)) != 0)
		goto out;
	/* One entry serves every run: theirs would tick them twice. */
	n = fleet_runs(&v);
	for (i = 0; i < n; i++) {
		rc_cfg = NULL;
		if (config_load(v[i].config, &rc_cfg, &d) == 0 && sched_is_installed(rc_cfg) == 1 &&
		    schedule_uninstall(rc_cfg, 1, -1) == 0)
			moved++;
		config_free(rc_cfg);
		diag_free(&d);
	}
	if (moved > 0)
		printf("removed the own schedule entries of %zu run%s: the fleet's entry ticks them\n",
		    moved, moved == 1 ? "" : "s");
 out:
	fleet_runs_free(v, n);
	free(self);
	config_free(cfg);
	return rc;
}

static int
fleet_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fleet_run *)a)->name, ((const struct fleet_run *)b)->name);
}

void
fleet_runs_sort(struct fleet_run *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), fleet_cmp);
}

/* The box as the config names it: "user@host:port" (the parts set), or NULL without box.host. */
char *
fleet_box_text(const struct wk_config *cfg)
{
	struct buf b = BUF_INIT;

	if (cfg->box.host == NULL)
		return NULL;
	if (cfg->box.user != NULL)
		buf_printf(&b, "%s@", cfg->box.user);
	buf_puts(&b, cfg->box.host);
	if (cfg->box.port > 0)
		buf_printf(&b, ":%ld", cfg->box.port);
	return buf_detach(&b);
}

size_t
fleet_runs(struct fleet_run **out)
{
	struct fleet_run *v = NULL;
	struct dirent *de;
	char *base = statedir_base(), *dir;
	const char *cfg;
	size_t n = 0;
	cJSON *ps;
	DIR *d;

	*out = NULL;
	if (base == NULL || (d = opendir(base)) == NULL) {
		free(base);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (!config_name_ok(de->d_name))
			continue;
		dir = fs_join(base, de->d_name);
		if (!fs_exists(dir) || (ps = pstate_load(dir)) == NULL) {
			free(dir);
			continue;
		}
		if ((cfg = json_str(ps, "config", NULL)) != NULL && cfg[0] == '/') {
			v = xreallocarray(v, n + 1, sizeof(*v));
			v[n].name = xstrdup(de->d_name);
			v[n].config = xstrdup(cfg);
			v[n].statedir = dir;	/* transferred */
			v[n++].state = ps;	/* transferred */
			continue;
		}
		free(dir);
		cJSON_Delete(ps);
	}
	closedir(d);
	free(base);
	fleet_runs_sort(v, n);
	*out = v;
	return n;
}

void
fleet_runs_free(struct fleet_run *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].config);
		free(v[i].statedir);
		cJSON_Delete(v[i].state);
	}
	free(v);
}

/* Out of the fleet's tick: DONE at the last tick, or sealed. */
static int
fleet_finished(const struct fleet_run *r)
{
	return strcmp(json_str(r->state, "verdict", ""), "DONE") == 0 ||
	    json_bool(cJSON_GetObjectItemCaseSensitive(r->state, "seal"), "done", 0);
}

/* In a child: load the run's config and tick it; the exit code. */
static int
fleet_tick_one(const struct fleet_run *r)
{
	struct wk_config *cfg = NULL;
	char now[TIMEFMT_LEN];
	int rc;

	if (config_load_report("patrol", r->config, &cfg) != 0) {
		timefmt_utc(time(NULL), now, sizeof(now));
		printf("%s %s CONFIG_ERROR %s does not load (see above)\n", now, r->name, r->config);
		fflush(stdout);
		return WK_EX_CONFIG;
	}
	rc = patrol_tick(cfg, 0);
	if (rc == WK_EX_TEMPFAIL) {
		timefmt_utc(time(NULL), now, sizeof(now));
		printf("%s %s SKIPPED another patrol is ticking this run\n", now, r->name);
	}
	fflush(stdout);
	config_free(cfg);
	return rc;
}

/* Each run's box as its config names it (NULL: none, or the config does not load). */
static char **
fleet_boxes(const struct fleet_run *v, size_t n)
{
	struct wk_config *cfg;
	struct diag d = DIAG_INIT;
	char **boxes = xcalloc(n + 1, sizeof(*boxes));
	size_t i;

	for (i = 0; i < n; i++) {
		cfg = NULL;
		if (config_load(v[i].config, &cfg, &d) == 0)
			boxes[i] = fleet_box_text(cfg);
		config_free(cfg);
		diag_free(&d);
	}
	return boxes;
}

/*
 * The next run to tick, from those not started (started[i] 0): the first
 * whose box no running tick is looking at, so that the runs on one box take
 * turns on its one warm connection; n when none can start now.
 */
static size_t
fleet_next(char **boxes, const unsigned char *started, const pid_t *pids, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (started[i])
			continue;
		for (j = 0; j < n && boxes[i] != NULL; j++)
			if (pids[j] > 0 && boxes[j] != NULL && strcmp(boxes[i], boxes[j]) == 0)
				break;
		if (boxes[i] == NULL || j == n)
			return i;
	}
	return n;
}

/* The fleet's exit code so far, with one run's. */
static int
fleet_worst(int acc, int rc)
{
	if (rc == WK_EX_UNSEEN || acc == WK_EX_UNSEEN)
		return WK_EX_UNSEEN;
	if (rc == 0 || rc == WK_EX_TEMPFAIL)
		return acc;
	return WK_EX_FAIL;
}

int
patrol_fleet_tick(int jobs, int quiet)
{
	struct fleet_run *v;
	size_t n = fleet_runs(&v), left, running = 0, i, ticked = 0;
	pid_t *pids = NULL;
	unsigned char *started = NULL;
	char **boxes = NULL;
	int rc = 0, status, devnull = -1, warm_on = 0;
	pid_t pid;

	if (jobs < 1)
		jobs = 4;
	if (jobs > FLEET_JOBS_MAX)
		jobs = FLEET_JOBS_MAX;
	if (n == 0) {
		if (!quiet)
			printf("no runs: patrol knows a run once it ticked it (patrol -c FILE)\n");
		goto out;
	}
	pids = xcalloc(n, sizeof(*pids));
	started = xcalloc(n, 1);
	boxes = fleet_boxes(v, n);
	/* The runs on one box look through one held connection (warm.h), one after the other. */
	warm_on = warm_init(0) == 0;
	fflush(stdout);
	fflush(stderr);
	if (quiet)
		devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	for (i = 0; i < n; i++)
		if (fleet_finished(&v[i]))
			started[i] = 1;
	left = n;
	for (i = 0; i < n; i++)
		left -= started[i];
	while (left > 0 || running > 0) {
		while (left > 0 && running < (size_t)jobs &&
		    (i = fleet_next(boxes, started, pids, n)) < n) {
			started[i] = 1;
			left--;
			if ((pid = fork()) < 0) {
				log_error("cannot fork for run %s: %s", v[i].name, wk_strerror(WK_ERR_SYSTEM));
				rc = WK_EX_FAIL;
				continue;
			}
			if (pid == 0) {
				if (devnull >= 0)
					(void)dup2(devnull, STDOUT_FILENO);
				rc = fleet_tick_one(&v[i]);
				free(pids);
				free(started);
				xfree_strv(boxes, n);
				fleet_runs_free(v, n);
				_exit(rc);
			}
			pids[i] = pid;
			running++;
			ticked++;
		}
		if (running == 0)
			break;
		while ((pid = waitpid(-1, &status, 0)) < 0 && errno == EINTR)
			;
		if (pid < 0)
			break;
		for (i = 0; i < n && pids[i] != pid; i++)
			;
		if (i == n)
			continue;	/* not one of ours */
		pids[i] = 0;
		running--;
		rc = fleet_worst(rc, WIFEXITED(status) ? WEXITSTATUS(status) : WK_EX_FAIL);
	}
	if (ticked == 0 && n > 0) {
		/* Nothing left to watch: the fleet's schedule entry goes too. */
		struct wk_config *fc = fleet_config();

		(void)schedule_uninstall(fc, 1, -1);
		config_free(fc);
		if (!quiet)
			printf("every run of the fleet is DONE or sealed: nothing to tick (the fleet's "
			    "schedule entry, if any, is removed)\n");
	}
 out:
	if (warm_on)
		warm_shutdown();
	if (devnull >= 0)
		close(devnull);
	free(pids);
	free(started);
	if (boxes != NULL)
		xfree_strv(boxes, n);
	fleet_runs_free(v, n);
	return rc;
}

/* "user@host:port", or the config's box as written, or "-". */
static char *
fleet_box(const char *config)
{
	struct wk_config *cfg = NULL;
	struct diag d = DIAG_INIT;
	char *box = NULL;

	if (config_load(config, &cfg, &d) == 0)
		box = fleet_box_text(cfg);
	config_free(cfg);
	diag_free(&d);
	return box != NULL ? box : xstrdup("-");
}

static cJSON *
fleet_row(const struct fleet_run *r, time_t now)
{
	const cJSON *s = r->state;
	cJSON *o = cJSON_CreateObject();
	char *box = fleet_box(r->config);
	time_t seen;

	json_set_str(o, "run", r->name);
	json_set_str(o, "box", box);
	json_set_str(o, "verdict", json_str(s, "verdict", "unknown"));
	if (json_str(s, "stage", NULL) != NULL) {
		json_set_str(o, "stage", json_str(s, "stage", ""));
		json_set_num(o, "attempt", json_num(s, "attempt", 0));
	}
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s, "progress")))
		json_set_num(o, "progress", json_num(s, "progress", 0));
	if (json_num(s, "progress_max", -1) > 0)
		json_set_num(o, "progress_max", json_num(s, "progress_max", 0));
	if (json_num(s, "eta_s", -1) >= 0)
		json_set_num(o, "eta_s", json_num(s, "eta_s", 0));
	if (json_str(s, "seen_at", NULL) != NULL) {
		json_set_str(o, "seen_at", json_str(s, "seen_at", ""));
		if (timefmt_parse(json_str(s, "seen_at", ""), &seen) == 0 && now >= seen)
			json_set_num(o, "seen_age_s", (double)(now - seen));
	}
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s, "heartbeat_age_s")))
		json_set_num(o, "heartbeat_age_s", json_num(s, "heartbeat_age_s", 0));
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "last_event")))
		json_set(o, "last_event", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(s,
		    "last_event"), 1));
	json_set_str(o, "details", json_str(s, "details", ""));
	json_set_str(o, "config", r->config);
	json_set_str(o, "state_dir", r->statedir);
	free(box);
	return o;
}

int
patrol_fleet_status(int json, int refresh, int jobs, const char *only)
{
	struct fleet_run *v;
	size_t n, i;
	time_t now;
	cJSON *arr;
	int rc = 0;

	if (refresh)
		rc = patrol_fleet_tick(jobs, 1);
	n = fleet_runs(&v);
	now = time(NULL);
	arr = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		if (only == NULL || strcmp(only, v[i].name) == 0)
			cJSON_AddItemToArray(arr, fleet_row(&v[i], now));
	if (json) {
		char *t = cJSON_PrintUnformatted(arr);

		printf("%s\n", t);
		cJSON_free(t);
	} else if (cJSON_GetArraySize(arr) == 0)
		printf("%s%s%s: patrol knows a run once it ticked it (patrol -c FILE)\n",
		    only != NULL ? "run " : "no runs", only != NULL ? only : "",
		    only != NULL ? " has no state yet" : "");
	else {
		const cJSON *o;

		printf("%-16s %-20s %-15s %-14s %-14s %-8s %-8s %-9s %-24s %s\n", "RUN", "BOX",
		    "VERDICT", "STAGE", "PROGRESS", "ETA", "SEEN", "HEARTBEAT", "LAST EVENT", "DETAILS");
		cJSON_ArrayForEach(o, arr) {
			char stage[64], prog[48], eta[32], seen[32], hb[32], ev[64];
			const cJSON *le = cJSON_GetObjectItemCaseSensitive(o, "last_event");

			if (json_str(o, "stage", NULL) != NULL)
				snprintf(stage, sizeof(stage), "%.40s#%ld", json_str(o, "stage", ""),
				    json_long(o, "attempt", 0));
			else
				snprintf(stage, sizeof(stage), "-");
			if (cJSON_GetObjectItemCaseSensitive(o, "progress") != NULL &&
			    cJSON_GetObjectItemCaseSensitive(o, "progress_max") != NULL)
				snprintf(prog, sizeof(prog), "~%ld/%ld", json_long(o, "progress", 0),
				    json_long(o, "progress_max", 0));
			else if (cJSON_GetObjectItemCaseSensitive(o, "progress") != NULL)
				snprintf(prog, sizeof(prog), "~%ld", json_long(o, "progress", 0));
			else
				snprintf(prog, sizeof(prog), "-");
			if (cJSON_GetObjectItemCaseSensitive(o, "eta_s") != NULL)
				timefmt_duration(json_long(o, "eta_s", 0), eta, sizeof(eta));
			else
				snprintf(eta, sizeof(eta), "-");
			if (cJSON_GetObjectItemCaseSensitive(o, "seen_age_s") != NULL)
				timefmt_duration(json_long(o, "seen_age_s", 0), seen, sizeof(seen));
			else
				snprintf(seen, sizeof(seen), "never");
			if (cJSON_GetObjectItemCaseSensitive(o, "heartbeat_age_s") != NULL)
				timefmt_duration(json_long(o, "heartbeat_age_s", 0), hb, sizeof(hb));
			else
				snprintf(hb, sizeof(hb), "-");
			if (le != NULL && json_str(le, "stage", NULL) != NULL)
				snprintf(ev, sizeof(ev), "%.30s %.20s#%ld", json_str(le, "event", "?"),
				    json_str(le, "stage", ""), json_long(le, "attempt", 0));
			else
				snprintf(ev, sizeof(ev), "%.40s", le != NULL ? json_str(le, "event", "-") : "-");
			printf("%-16s %-20.20s %-15s %-14s %-14s %-8s %-8s %-9s %-24s %s\n",
			    json_str(o, "run", ""), json_str(o, "box", ""), json_str(o, "verdict", ""),
			    stage, prog, eta, seen, hb, ev, json_str(o, "details", ""));
		}
	}
	cJSON_Delete(arr);
	fleet_runs_free(v, n);
	return rc;
}
