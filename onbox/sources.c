/*
 * sources.c: the logs a stage's attempt is read from, line by line.
 *
 * Owns: the sources (the attempt's output, the program's own log) and their
 * inotify watches on the logs' directories, where an attempt begins in a
 * log shared with earlier ones (log_start), the line feed (runner_line:
 * done and wait patterns, the kept tail, triage, health, progress), and
 * scan.json: where each source stands and what it showed, saved with every
 * heartbeat and restored on a re-attach so nothing is read or counted twice.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "xmalloc.h"
#include "runner-int.h"

void
source_open(struct runner *r, struct source *s, const char *label, const char *path)
{
	s->label = label;
	s->path = xstrdup(path);
	s->wd = -1;
	logscan_init(&s->ls, path, LOGSCAN_DEFAULT_MAX_LINE);
	tailkeep_init(&s->tail);
	(void)r;
}

static void
source_watch(struct runner *r, struct source *s)
{
	char *copy;

	if (s->wd >= 0 || r->run.ifd < 0)
		return;
	copy = xstrdup(s->path);
	/* The directory, not the file: a watch on the file is lost on rotation. */
	s->wd = inotify_add_watch(r->run.ifd, dirname(copy),
	    IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF);
	free(copy);
}

void
source_close(struct runner *r, struct source *s)
{
	(void)r;	/* directory watches stay: they are shared and cheap */
	logscan_free(&s->ls);
	tailkeep_free(&s->tail);
	free(s->path);
	memset(s, 0, sizeof(*s));
	s->wd = -1;
}

static char *
runner_scan_path(const struct runner *r)
{
	return layout_path(r->run.cfg->workdir, "scan.json");
}

/*
 * scan.json, written with every heartbeat: for the run stage being read,
 * where each source stands (complete lines consumed, with the fingerprint
 * of the bytes before), the last lines, what the lines showed (done line,
 * progress, triage hits), and the health checks' state, all as of the same
 * moment.  A restarted onbox that re-attaches to that attempt continues
 * from there: it reads only the bytes written since, however big the log,
 * and nothing it had seen counts twice.
 */
void
runner_scan_save(struct runner *r)
{
	cJSON *doc = cJSON_CreateObject(), *srcs;
	char *path = runner_scan_path(r), hex[2 * sizeof(((struct logscan_pos *)0)->fp) + 1];
	size_t i;

	if (r->run.health != NULL)
		cJSON_AddItemToObject(doc, "health", health_save(r->run.health));
	nanstop_save(&r->run.nan, doc);
	if (r->cur.st != NULL && !r->cur.st->has_wait && r->cur.nsrc > 0) {
		cJSON_AddStringToObject(doc, "stage", r->cur.st->name);
		cJSON_AddNumberToObject(doc, "attempt", (double)r->cur.attempt);
		cJSON_AddBoolToObject(doc, "done_seen", r->cur.done_seen);
		if (r->cur.prog_have)
			cJSON_AddNumberToObject(doc, "prog_cur", (double)r->cur.prog_cur);
		cJSON_AddNumberToObject(doc, "prog_max_log", (double)r->cur.prog_max_log);
		cJSON_AddItemToObject(doc, "triage", triage_scan_save(&r->cur.ts));
		srcs = cJSON_AddObjectToObject(doc, "sources");
		for (i = 0; i < r->cur.nsrc; i++) {
			struct logscan_pos pos;
			cJSON *o = cJSON_AddObjectToObject(srcs, r->cur.src[i].label);

			logscan_get_pos(&r->cur.src[i].ls, &pos);
			cJSON_AddNumberToObject(o, "dev", (double)pos.dev);
			cJSON_AddNumberToObject(o, "ino", (double)pos.ino);
			cJSON_AddNumberToObject(o, "off", (double)pos.off);
			logscan_fp_hex(&pos, hex);
			cJSON_AddStringToObject(o, "fp", hex);
			cJSON_AddItemToObject(o, "tail", tailkeep_save(&r->cur.src[i].tail));
		}
	}
	if (jsonfile_save(path, doc) != 0)
		log_warn("cannot write %s: %s", path, wk_strerror(WK_ERR_SYSTEM));
	cJSON_Delete(doc);
	free(path);
}

/* The health checker, and what the last onbox saved. */
void
runner_scan_init(struct runner *r)
{
	char err[256], *path = runner_scan_path(r);
	cJSON *doc = NULL;

	if (health_new(r->run.cfg, &r->run.health, err, sizeof(err)) != 0) {
		log_warn("training health checks are off: %s", err);
		r->run.health = NULL;
	}
	if (jsonfile_load(path, &doc) == 0 && doc != NULL) {
		if (r->run.health != NULL && cJSON_GetObjectItem(doc, "health") != NULL &&
		    health_load(r->run.health, cJSON_GetObjectItem(doc, "health")) != 0)
			log_warn("%s: not a health state of this onbox: starting afresh", path);
		nanstop_load(&r->run.nan, doc);
		r->run.saved = doc;	/* transferred */
	}
	free(path);
}

/*
 * A run stage's sources are open for attempt r->cur.attempt.  When scan.json
 * was saved for this very attempt (a re-attach), continue each source from
 * where it stood, with what it had shown; else everything starts afresh.
 */
void
runner_scan_restore(struct runner *r)
{
	const cJSON *sv = r->run.saved, *srcs = cJSON_GetObjectItem(sv, "sources"), *o, *l;
	size_t i;

	if (sv != NULL && strcmp(json_str(sv, "stage", ""), r->cur.st->name) == 0 &&
	    json_long(sv, "attempt", 0) == r->cur.attempt && cJSON_IsObject(srcs)) {
		for (i = 0; i < r->cur.nsrc; i++) {
			if ((o = cJSON_GetObjectItem(srcs, r->cur.src[i].label)) == NULL)
				continue;
			source_from(&r->cur.src[i], o);
			if (tailkeep_load(&r->cur.src[i].tail, cJSON_GetObjectItem(o, "tail")) != 0)
				cJSON_ArrayForEach(l, cJSON_GetObjectItem(o, "tail"))	/* an older onbox's */
					if (cJSON_IsString(l))
						tailkeep_line(&r->cur.src[i].tail, l->valuestring,
						    strlen(l->valuestring), 0);
			log_info("stage %s attempt %ld: %s continues at byte %.0f, where the last onbox "
			    "stopped reading", r->cur.st->name, r->cur.attempt, r->cur.src[i].label,
			    json_num(o, "off", 0));
		}
		r->cur.done_seen = json_bool(sv, "done_seen", 0);
		if (cJSON_GetObjectItem(sv, "prog_cur") != NULL) {
			r->cur.prog_cur = json_long(sv, "prog_cur", 0);
			r->cur.prog_have = 1;
		}
		r->cur.prog_max_log = json_long(sv, "prog_max_log", 0);
		if (triage_scan_load(&r->cur.ts, cJSON_GetObjectItem(sv, "triage")) != 0)
			log_warn("stage %s: the saved crash signatures are from another rule table; "
			    "only new lines are classified", r->cur.st->name);
	}
	if (r->run.health != NULL)
		health_new_attempt(r->run.health, r->cur.attempt);
}

static long
parse_long(const char *s, size_t len)
{
	char tmp[32];

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return strtol(tmp, NULL, 10);
}

void
runner_line(void *arg, const char *line, size_t len, int flags)
{
	struct line_ctx *lc = arg;
	struct runner *r = lc->r;
	const struct wk_stage *st = r->cur.st;
	struct pattern_span g[3];
	long v;

	if (st->done_re != NULL && !r->cur.done_seen && pattern_match(st->done_re, line, len) == 1)
		r->cur.done_seen = 1;
	if (st->has_wait && st->wait.re != NULL && !r->cur.wait_seen &&
	    pattern_match(st->wait.re, line, len) == 1)
		r->cur.wait_seen = 1;
	if (lc->catchup)
		return;
	tailkeep_line(&lc->s->tail, line, len, flags);
	triage_scan_line(&r->cur.ts, line, len);
	if (r->run.health != NULL)
		health_line(r->run.health, line, len, time(NULL));
	if (r->run.cfg->has_progress &&
	    pattern_match_groups(r->run.cfg->progress.re, line, len, g, 3) == 1 && g[1].start >= 0) {
		if ((v = parse_long(line + g[1].start, (size_t)(g[1].end - g[1].start))) >= 0) {
			r->cur.prog_cur = v;
			r->cur.prog_have = 1;
		}
		if (g[2].start >= 0 &&
		    (v = parse_long(line + g[2].start, (size_t)(g[2].end - g[2].start))) > 0)
			r->cur.prog_max_log = v;
	}
}

void
runner_scan(struct runner *r)
{
	struct line_ctx lc;
	size_t i;

	for (i = 0; i < r->cur.nsrc; i++) {
		lc.r = r;
		lc.s = &r->cur.src[i];
		lc.catchup = 0;
		source_watch(r, &r->cur.src[i]);
		if (logscan_poll(&r->cur.src[i].ls, runner_line, &lc) < 0)
			log_debug("read %s: %s", r->cur.src[i].path, wk_strerror(WK_ERR_SYSTEM));
	}
	/* A NaN loss is news now, not at the next heartbeat. */
	if (r->run.health != NULL)
		runner_health_alerts(r);
}

void
runner_scan_final(struct runner *r)
{
	struct line_ctx lc;
	size_t i;

	runner_scan(r);
	for (i = 0; i < r->cur.nsrc; i++) {
		lc.r = r;
		lc.s = &r->cur.src[i];
		lc.catchup = 0;
		logscan_flush(&r->cur.src[i].ls, runner_line, &lc);
	}
}

/* Read every pending inotify event; what changed is re-read by runner_scan anyway. */
void
runner_drain_inotify(struct runner *r)
{
	char evbuf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	while (r->run.ifd >= 0 && read(r->run.ifd, evbuf, sizeof(evbuf)) > 0)
		;
}

/* Position a source at where the attempt began in a log shared with earlier attempts. */
void
source_from(struct source *s, const cJSON *start)
{
	struct logscan_pos pos;

	if (start == NULL)
		return;
	memset(&pos, 0, sizeof(pos));
	pos.dev = (uint64_t)json_num(start, "dev", 0);
	pos.ino = (uint64_t)json_num(start, "ino", 0);
	pos.off = (uint64_t)json_num(start, "off", 0);
	(void)logscan_fp_parse(&pos, json_str(start, "fp", ""));
	logscan_set_pos(&s->ls, &pos);
}

/*
 * Record where a log ends now, with a fingerprint of its last bytes, so this
 * attempt reads only what it adds, and a rewrite of the log before we read
 * it is noticed rather than taken for growth.
 */
void
hist_mark_log_start(cJSON *a, const char *path)
{
	struct logscan ls;
	struct logscan_pos pos;
	char hex[2 * sizeof(pos.fp) + 1];
	cJSON *o;

	logscan_init(&ls, path, LOGSCAN_DEFAULT_MAX_LINE);
	if (logscan_seek_end(&ls) == 0 && ls.fd >= 0) {
		logscan_get_pos(&ls, &pos);
		logscan_fp_hex(&pos, hex);
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "dev", (double)pos.dev);
		cJSON_AddNumberToObject(o, "ino", (double)pos.ino);
		cJSON_AddNumberToObject(o, "off", (double)pos.off);
		cJSON_AddStringToObject(o, "fp", hex);
		json_set(a, HIST_KEY_LOG_START, o);
	}
	logscan_free(&ls);
}

char *
stage_log_path(const struct wk_config *cfg, const char *rel)
{
	return fs_join(cfg->workdir, rel);
}

/* Set up the sources a run stage reads: its attempt output, and its own log. */
void
runner_sources_run(struct runner *r, const cJSON *a)
{
	char *p = layout_attempt_log(r->run.cfg->workdir, r->cur.st->name, r->cur.attempt);

	source_open(r, &r->cur.src[r->cur.nsrc++], "output", p);
	free(p);
	if (r->cur.st->log != NULL) {
		p = stage_log_path(r->run.cfg, r->cur.st->log);
		source_open(r, &r->cur.src[r->cur.nsrc], "log", p);
		source_from(&r->cur.src[r->cur.nsrc], cJSON_GetObjectItem(a, "log_start"));
		r->cur.nsrc++;
		free(p);
	}
}
