/*
 * journal.c: what a tick adds to the run's LOGBOOK.md.
 *
 * Two sources.  The box's own events (events.jsonl, read incrementally by
 * the probe from the byte offset patrol.json keeps): launches with their
 * exact command, working directory and git state, relaunches, failures
 * with their class and last lines, lost attempts, finished stages and the
 * finished run.  And patrol's own acts: verdict changes, resumes, transfer
 * resumes, the final results.  Every text goes through notify_scrub().
 *
 * The offset only moves past lines that were read whole, so an event cut by
 * the probe's bound is read again next tick, and one that was logged is
 * never logged twice (a restart of patrol reads the offset back).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "logbook.h"
#include "logbookgit.h"
#include "log.h"
#include "monotime.h"
#include "notify.h"
#include "patrol.h"
#include "probe.h"
#include "xmalloc.h"

#define JOURNAL_TAIL	65536	/* bytes of LOGBOOK.md read for its newest heading */

struct jctx {
	struct pstate		*st;
	const struct wk_config	*cfg;
	const struct notify_sinks *sinks;
};

/* Append one entry, scrubbing kind, text and evidence. */
static void
jot(const struct jctx *j, time_t when, const char *kind, const char *text, const char *evidence)
{
	char *k = notify_scrub(j->sinks, kind), *t = notify_scrub(j->sinks, text != NULL ? text : "");
	char *e = evidence != NULL ? notify_scrub(j->sinks, evidence) : NULL;
	int r;

	if ((r = logbook_append(j->st->dir, j->cfg->run, when, k, t, e)) != 0)
		log_warn("cannot append to %s/" LOGBOOK_FILE ": %s", j->st->dir, wk_strerror(r));
	github_queue(j->st, j->cfg, k, t);	/* the significant ones, for the run's issue */
	free(k);
	free(t);
	free(e);
}

/* The event's "last_lines" array as text, or NULL. */
static char *
ev_lines(const cJSON *ev)
{
	const cJSON *arr = cJSON_GetObjectItem(ev, "last_lines"), *l;
	struct buf b = BUF_INIT;

	cJSON_ArrayForEach(l, arr)
		if (cJSON_IsString(l))
			buf_printf(&b, "%s\n", l->valuestring);
	return b.len > 0 ? buf_detach(&b) : (buf_free(&b), NULL);
}

static void
ev_exit(const cJSON *ev, char *out, size_t n)
{
	if (json_str(ev, "signal", NULL) != NULL)
		snprintf(out, n, "signal %s", json_str(ev, "signal", ""));
	else if (cJSON_GetObjectItem(ev, "exit_code") != NULL)
		snprintf(out, n, "exit %ld", json_long(ev, "exit_code", 0));
	else
		snprintf(out, n, "no exit status");
}

static void
ev_started(const struct jctx *j, const cJSON *ev, time_t when)
{
	const char *stage = json_str(ev, "stage", "?"), *cmd = json_str(ev, "command", NULL);
	const cJSON *git = cJSON_GetObjectItem(ev, "git"), *ct = cJSON_GetObjectItem(ev, "contract");
	const cJSON *cg = cJSON_GetObjectItem(ct, "git");
	long attempt = json_long(ev, "attempt", 1);
	char kind[256], gits[256] = "not a git work tree";
	char *text;

	if (cmd == NULL)	/* a wait stage */
		return;
	snprintf(kind, sizeof(kind), "%s %s (attempt %ld)", attempt > 1 ? "relaunch" : "launch",
	    stage, attempt);
	if (cJSON_IsObject(git))
		snprintf(gits, sizeof(gits), "git %.64s%s%s%.64s%s", json_str(git, "sha", "?"),
		    json_bool(git, "dirty", 0) ? " + uncommitted changes to tracked files" : " (clean)",
		    json_str(cg, "allowed", NULL) != NULL ? " (allowed: " : "",
		    json_str(cg, "allowed", ""), json_str(cg, "allowed", NULL) == NULL ? "" :
		    json_str(cg, "diff_sha256", NULL) != NULL ? ", diff sha256 " : ")");
	if (json_str(cg, "allowed", NULL) != NULL && json_str(cg, "diff_sha256", NULL) != NULL) {
		size_t n = strlen(gits);

		snprintf(gits + n, sizeof(gits) - n, "%.64s)", json_str(cg, "diff_sha256", ""));
	}
	text = xstrfmt("`sh -c` in %s, pid %ld; %s. Command:", json_str(ev, "cwd", "the workdir"),
	    json_long(ev, "pid", 0), gits);
	jot(j, when, kind, text, cmd);
	free(text);
	if (json_str(ct, "text", NULL) != NULL) {
		snprintf(kind, sizeof(kind), "LAUNCH CONTRACT of %s (attempt %ld): checked, passed",
		    stage, attempt);
		jot(j, when, kind, "What this launch was checked against (the launch gate):",
		    json_str(ct, "text", ""));
	}
	if (json_str(ev, "config_drift", NULL) != NULL) {
		snprintf(kind, sizeof(kind), "CONFIG DRIFT: %s attempt %ld runs a different config than attempt %ld",
		    stage, attempt, json_long(ev, "drift_since", attempt - 1));
		jot(j, when, kind, "What changed (values under notify[] are never shown):",
		    json_str(ev, "config_drift", ""));
	}
}

static void
ev_failed(const struct jctx *j, const cJSON *ev, time_t when)
{
	char kind[256], ex[64], *text, *lines = ev_lines(ev);

	ev_exit(ev, ex, sizeof(ex));
	snprintf(kind, sizeof(kind), "%s FAILED (attempt %ld): %s", json_str(ev, "stage", "?"),
	    json_long(ev, "attempt", 0), json_str(ev, "class", "unknown"));
	text = xstrfmt("%s after %lds. %s%s%s", ex, json_long(ev, "duration_s", 0),
	    json_str(ev, "remediation", ""), json_str(ev, "evidence", NULL) ? " Evidence: " : "",
	    json_str(ev, "evidence", ""));
	jot(j, when, kind, text, lines);
	free(text);
	free(lines);
}

static void
ev_done(const struct jctx *j, const cJSON *ev, time_t when)
{
	char kind[256], dur[32], *text;

	timefmt_duration(json_long(ev, "duration_s", 0), dur, sizeof(dur));
	snprintf(kind, sizeof(kind), "%s done (attempt %ld)", json_str(ev, "stage", "?"),
	    json_long(ev, "attempt", 0));
	text = xstrfmt("marker %s after %s%s%s.", json_str(ev, "marker", "?"), dur,
	    json_str(ev, "progress", NULL) ? ", progress " : "", json_str(ev, "progress", ""));
	jot(j, when, kind, text, NULL);
	free(text);
}

static void
ev_lost(const struct jctx *j, const cJSON *ev, time_t when)
{
	char kind[256];

	snprintf(kind, sizeof(kind), "%s attempt %ld lost (%s)", json_str(ev, "stage", "?"),
	    json_long(ev, "attempt", 0), json_str(ev, "class", "lost"));
	jot(j, when, kind, strcmp(json_str(ev, "class", ""), "reboot") == 0 ?
	    "The box rebooted under the attempt; onbox starts a new one." :
	    "Its wrapper died without an exit status; onbox starts a new one.", NULL);
}

static void
ev_requeued(const struct jctx *j, const cJSON *ev, time_t when)
{
	char kind[256], text[256];

	snprintf(kind, sizeof(kind), "%s attempt %ld requeued by Slurm", json_str(ev, "stage", "?"),
	    json_long(ev, "attempt", 0));
	snprintf(text, sizeof(text), "Slurm ran job %s again (restart %ld); counted as preempted, "
	    "not against restart.max.", json_str(ev, "job_id", "?"),
	    json_long(ev, "slurm_restart_count", 0));
	jot(j, when, kind, text, NULL);
}

static void
ev_alert(const struct jctx *j, const cJSON *ev, time_t when)
{
	char kind[256];

	snprintf(kind, sizeof(kind), "ALERT %s: %s attempt %ld", json_str(ev, "kind", "?"),
	    json_str(ev, "stage", "?"), json_long(ev, "attempt", 0));
	jot(j, when, kind, json_str(ev, "text", ""), NULL);
}

static void
ev_chain(const struct jctx *j, const cJSON *ev, time_t when)
{
	char *text = xstrfmt("every stage's marker is present%s%s.",
	    json_str(ev, "results_file", NULL) ? "; results in " : "", json_str(ev, "results_file", ""));

	jot(j, when, "run finished on the box", text, json_str(ev, "results", NULL));
	if (json_str(ev, "results", NULL) != NULL)
		json_set_bool(j->st->doc, "results_logged", 1);
	free(text);
}

static void
ev_stopped(const struct jctx *j, const cJSON *ev, time_t when)
{
	char kind[256];
	char *text = xstrfmt("stopped on purpose by %s%s%s; never resumed automatically: "
	    "`onbox start` on the box or `patrol deploy` starts it again from the first missing "
	    "marker.", json_str(ev, "by", "?"), json_str(ev, "how", NULL) ? ", " : "",
	    json_str(ev, "how", ""));

	if (json_str(ev, "stage", NULL) != NULL)
		snprintf(kind, sizeof(kind), "run stopped at %s attempt %ld", json_str(ev, "stage", "?"),
		    json_long(ev, "attempt", 0));
	else
		snprintf(kind, sizeof(kind), "run stopped");
	jot(j, when, kind, text, NULL);
	free(text);
}

/* The box's events worth a logbook entry; the rest (digests, tests) are not. */
static const struct {
	const char	*type;
	void		(*fn)(const struct jctx *, const cJSON *, time_t);
} journal_events[] = {
	{ "stage_started", ev_started },
	{ "stage_failed", ev_failed },
	{ "stage_done", ev_done },
	{ "stage_lost", ev_lost },
	{ "stage_requeued", ev_requeued },
	{ "chain_done", ev_chain },
	{ "health_alert", ev_alert },
	{ "run_stopped", ev_stopped },
};

void
journal_box(struct pstate *st, const struct wk_config *cfg, const struct notify_sinks *sinks,
    const struct probe *p)
{
	struct jctx j = { st, cfg, sinks };
	const char *l, *nl, *end;
	long long off;
	size_t i;

	if (p->events == NULL)
		return;
	off = p->events_from;
	end = p->events + p->events_len;
	for (l = p->events; l < end; l = nl + 1) {
		cJSON *ev;
		time_t when;
		size_t n;

		if ((nl = memchr(l, '\n', (size_t)(end - l))) == NULL)
			break;
		n = (size_t)(nl - l);
		ev = cJSON_ParseWithLength(l, n);
		if (ev == NULL && nl + 1 == end &&
		    (p->events_len >= PROBE_EVENTS || off + (long long)n + 1 > p->events_size))
			break;	/* cut short: read it whole next tick */
		off += (long long)n + 1;
		if (ev == NULL)
			continue;
		if (timefmt_parse(json_str(ev, "time", ""), &when) != 0)
			when = time(NULL);
		for (i = 0; i < sizeof(journal_events) / sizeof(journal_events[0]); i++)
			if (strcmp(json_str(ev, "event", ""), journal_events[i].type) == 0)
				journal_events[i].fn(&j, ev, when);
		cJSON_Delete(ev);
	}
	json_set_num(st->doc, "events_offset", (double)off);
}

void
journal_tick(struct pstate *st, const struct wk_config *cfg, const struct notify_sinks *sinks,
    const char *prev, const char *verdict, const char *line, const char *action,
    const char *results)
{
	struct jctx j = { st, cfg, sinks };
	time_t now = time(NULL);
	char kind[128], was[128];

	if (prev == NULL || strcmp(prev, verdict) != 0) {
		snprintf(kind, sizeof(kind), "verdict %s", verdict);
		snprintf(was, sizeof(was), prev != NULL ? "was %s" : "first tick%s", prev != NULL ? prev : "");
		jot(&j, now, kind, was, line);
		if (strcmp(verdict, "DONE") == 0 && results != NULL &&
		    !json_bool(st->doc, "results_logged", 0)) {
			jot(&j, now, "results", "the run's results file, as patrol fetched it:", results);
			json_set_bool(st->doc, "results_logged", 1);
		}
	}
	if (action != NULL && action[0] != '\0')
		jot(&j, now, "patrol acted", action, NULL);
}

/*
 * The newest entry's heading ("<time> · <kind>") for a commit message, from
 * the logbook's last JOURNAL_TAIL bytes (it only grows); caller frees; NULL
 * when none is there.
 */
static char *
journal_last_heading(const char *dir)
{
	char *path = fs_join(dir, LOGBOOK_FILE), buf[JOURNAL_TAIL + 1], *h = NULL, *p, *e;
	struct stat sb;
	ssize_t n = -1;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		if (fstat(fd, &sb) == 0)
			n = pread(fd, buf, JOURNAL_TAIL, sb.st_size > JOURNAL_TAIL ?
			    sb.st_size - JOURNAL_TAIL : 0);
		close(fd);
	}
	if (n > 0) {
		buf[n] = '\0';
		for (p = buf; (p = strstr(p, "\n### ")) != NULL; p++)
			h = p + 5;
		if (h != NULL) {
			e = strchr(h, '\n');
			h = xstrndup(h, e != NULL ? (size_t)(e - h) : strlen(h));
		}
	}
	free(path);
	return h;
}

void
journal_push(struct pstate *st, const struct wk_config *cfg)
{
	char *head, *msg, *why = NULL, now[TIMEFMT_LEN];
	cJSON *o;
	int r;

	if (!logbook_git_configured(cfg))
		return;
	head = journal_last_heading(st->dir);
	msg = xstrfmt("%s: %s", cfg->run, head != NULL ? head : "logbook");
	r = logbook_git_sync(cfg, st->dir, msg, &why);
	if (r < 0)
		log_warn("logbook.git: %s; the logbook is kept (and any commit), and pushed at the "
		    "next tick", why != NULL ? why : wk_strerror(r));
	if (r <= 0) {
		timefmt_utc(time(NULL), now, sizeof(now));
		o = cJSON_CreateObject();
		json_set_str(o, "at", now);
		json_set_bool(o, "pushed", r == 0);
		if (why != NULL)
			json_set_str(o, "why", why);
		json_set(st->doc, "logbook_git", o);	/* transferred */
	}
	free(why);
	free(msg);
	free(head);
}
