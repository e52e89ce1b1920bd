/*
 * jobwatch.c: what onbox watches of a live cluster job besides its state
 * (see jobrun.h): its log, copied into the attempt's output log so that it
 * never freezes (the anchor, {since_ms}); the seeds' cluster signals in it
 * (job.cluster_signal in the heartbeat, patrol's cluster_stall); and a
 * pending job's capacity wait (one capacity_wait alert, the degraded entry
 * while it lasts).  The attempt and its submit are jobrun.c's.
 */
/* memfd_create, memmem: _GNU_SOURCE comes from the Makefile */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "err.h"
#include "events.h"
#include "health.h"
#include "jobctl.h"
#include "jobrun.h"
#include "jobrun-int.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "pattern.h"
#include "triage.h"
#include "xmalloc.h"

/*
 * The seeds' cluster signals (000, 001): with no progress, the run is
 * degraded, naming the signal (patrol's decision table reads it from the
 * heartbeat's job.cluster_signal).
 */
static const struct {
	const char	*name;
	const char	*re;
} jr_signals[JR_NSIGNALS] = {
	{ "OwnerDiedError", "OwnerDiedError" },
	{ "dead node", "(?i)dead node|node death|NodeDiedError" },
	{ "autoscaler unsatisfied resources", TRIAGE_AUTOSCALER_RE },
};
#define JR_SIGNAL_SCAN	(1024 * 1024)	/* the newest bytes of each fetch looked at */

void
jr_signals_init(struct jobrun *jr)
{
	char err[256];
	size_t i;

	for (i = 0; i < JR_NSIGNALS; i++)
		if (pattern_compile(jr_signals[i].re, &jr->signal_re[i], err, sizeof(err)) != 0)
			log_warn("cluster signal %s: %s", jr_signals[i].name, err);	/* a bug: tested */
}

void
jr_signals_free(struct jobrun *jr)
{
	size_t i;

	for (i = 0; i < JR_NSIGNALS; i++)
		pattern_free(jr->signal_re[i]);
}

/* The first occurrence of line (len n) at a line start in f[0..fn), or NULL. */
static const char *
jr_find_line(const char *f, size_t fn, const char *line, size_t n)
{
	const char *p = f, *q;

	while (n > 0 && (size_t)(f + fn - p) >= n) {
		if ((q = memmem(p, (size_t)(f + fn - p), line, n)) == NULL)
			return NULL;
		if (q == f || q[-1] == '\n')
			return q;
		p = q + 1;
	}
	return NULL;
}

/*
 * Where the new part of the fetched log f[0..fn) starts, given what was
 * copied before (have bytes, ending in anchor).  *gap when the part before
 * could not be found in it (the window moved past it): all of f is new.
 */
static size_t
jr_log_from(const char *f, size_t fn, long have, const char *anchor, int cut, int *gap)
{
	size_t an = strlen(anchor), ln;
	const char *p, *l;

	*gap = 0;
	if (have <= 0 || an == 0) {
		*gap = have > 0 || cut;
		return 0;
	}
	/* The whole log again, longer: the old part sits where it was. */
	if (!cut && (size_t)have <= fn && (size_t)have >= an &&
	    memcmp(f + have - (long)an, anchor, an) == 0)
		return (size_t)have;
	/* A window or a tail: the first place the anchor is (a repeat copies twice, never loses). */
	if ((p = memmem(f, fn, anchor, an)) != NULL)
		return (size_t)(p - f) + an;
	/*
	 * A window from a time ({since_ms}): the anchor's last line, with its
	 * newline (or the part of a line the CLI had printed so far), at a line
	 * start.
	 */
	for (ln = an - 1; ln > 0 && anchor[ln - 1] != '\n'; ln--)
		;
	l = anchor + ln;
	if ((p = jr_find_line(f, fn, l, (size_t)(anchor + an - l))) != NULL)
		return (size_t)(p - f) + (size_t)(anchor + an - l);
	*gap = 1;
	return 0;
}

/* The anchor for next time: the end of f, from a line start when it has one, no NUL. */
static char *
jr_log_anchor(const char *f, size_t fn)
{
	size_t start = fn > JOBRUN_ANCHOR_MAX ? fn - JOBRUN_ANCHOR_MAX : 0, i;
	const char *nl;

	for (i = fn; i > start; i--)
		if (f[i - 1] == '\0') {
			start = i;
			break;
		}
	if (start > 0 && (nl = memchr(f + start, '\n', fn - start)) != NULL && nl + 1 < f + fn)
		start = (size_t)(nl + 1 - f);
	return xstrndup(f + start, fn - start);
}

/* The newest line of f[from..fn) with a cluster signal, into the attempt's job_cluster_signal. */
static void
jr_signals_scan(struct jobrun *jr, const char *f, size_t from, size_t fn)
{
	const char *p, *e, *best = NULL;
	size_t i, best_i = 0, blen = 0;
	char when[TIMEFMT_LEN], *clean, *line;
	time_t now;
	cJSON *o;

	if (fn - from > JR_SIGNAL_SCAN)
		from = fn - JR_SIGNAL_SCAN;
	for (p = f + from; p < f + fn; p = e + 1) {
		if ((e = memchr(p, '\n', (size_t)(f + fn - p))) == NULL)
			e = f + fn;
		for (i = 0; i < JR_NSIGNALS; i++)
			if (jr->signal_re[i] != NULL &&
			    pattern_match(jr->signal_re[i], p, (size_t)(e - p)) == 1) {
				best = p;
				blen = (size_t)(e - p);
				best_i = i;
				break;
			}
	}
	if (best == NULL)
		return;
	now = time(NULL);
	timefmt_utc(now, when, sizeof(when));
	line = xstrndup(best, blen > 300 ? 300 : blen);
	clean = jr_scrub_take(jr, line);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "signal", jr_signals[best_i].name);
	cJSON_AddStringToObject(o, "line", clean);
	cJSON_AddStringToObject(o, "time", when);
	cJSON_AddNumberToObject(o, "time_unix", (double)now);
	json_set(jr->a, "job_cluster_signal", o);
	log_warn("stage %s attempt %ld: job %s's log shows a cluster signal (%s): %s", jr->st->name,
	    jr->n, jr_id(jr), jr_signals[best_i].name, clean);
	free(clean);
}

void
jr_anchor_rebuild(struct jobrun *jr)
{
	char *p = layout_attempt_log(jr->cfg->workdir, jr->st->name, jr->n), *anchor, buf[JOBRUN_ANCHOR_MAX];
	long base = json_long(jr->a, "job_log_base", 0);
	struct stat sb;
	off_t from;
	ssize_t k = -1;
	int fd;

	if ((fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0 && fstat(fd, &sb) == 0 &&
	    sb.st_size > base) {
		from = sb.st_size - base > JOBRUN_ANCHOR_MAX ? sb.st_size - JOBRUN_ANCHOR_MAX : base;
		k = pread(fd, buf, (size_t)(sb.st_size - from), from);
	}
	if (fd >= 0)
		close(fd);
	if (k > 0) {
		anchor = jr_log_anchor(buf, (size_t)k);
		json_set_str(jr->a, "job_log_anchor", anchor);
		free(anchor);
		log_info("stage %s attempt %ld: the copy of job %s's log went further than recorded "
		    "(onbox stopped in between): going on from the end of %s", jr->st->name, jr->n,
		    jr_id(jr), p);
	}
	free(p);
}

/*
 * Append what is new in the job's log to the output log.  Each poll reads
 * the log (from {since_ms} where the CLI can), finds where what was already
 * copied ends in it (the anchor: its last bytes), and appends the rest; a log
 * shown as a window (iris --tail) or cut to its tail (JOBRUN_LOG_CAP) never
 * freezes.  When the window moved past the anchor, everything fetched is
 * appended after a line that says lines may be missing.
 */
void
jr_fetch_log(struct jobrun *jr)
{
	long have = json_long(jr->a, "job_log_bytes", 0);
	long long seen = (long long)json_num(jr->a, "job_log_seen_ms", 0), start = walltime_ms();
	char *why = NULL, *clean, *p = NULL, *f = NULL, *anchor = NULL, note[256];
	struct stat sb;
	size_t from, fn = 0;
	ssize_t k;
	int mfd, ofd = -1, cut = 0, gap = 0;

	if ((mfd = memfd_create("wk-job-log", MFD_CLOEXEC)) < 0) {
		log_warn("cannot make a buffer for a job's log: %s", wk_strerror(WK_ERR_SYSTEM));
		return;
	}
	if (jobctl_logs(&jr->jc, jr_id(jr), seen > 0 ? seen - JOBRUN_LOG_OVERLAP_MS : 0, mfd,
	    JOBRUN_LOG_CAP, &cut, &why) != 0) {
		clean = jr_scrub(jr, why);
		log_debug("job %s: cannot fetch its log: %s", jr_id(jr), clean);
		free(clean);
		goto out;
	}
	if (fstat(mfd, &sb) != 0 || sb.st_size == 0)
		goto out;
	f = xmalloc((size_t)sb.st_size + 1);
	for (fn = 0; fn < (size_t)sb.st_size; fn += (size_t)k)
		if ((k = pread(mfd, f + fn, (size_t)sb.st_size - fn, (off_t)fn)) <= 0)
			goto out;
	f[fn] = '\0';
	from = jr_log_from(f, fn, have, json_str(jr->a, "job_log_anchor", ""), cut, &gap);
	if (from == fn)
		goto out;
	p = layout_attempt_log(jr->cfg->workdir, jr->st->name, jr->n);
	if ((ofd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0) {
		log_warn("cannot open %s: %s", p, wk_strerror(WK_ERR_SYSTEM));
		goto out;
	}
	if (gap) {
		snprintf(note, sizeof(note), "[watchkeeper] the log of job %.120s as fetched no longer "
		    "reaches what was copied before: lines in between may be missing\n", jr_id(jr));
		if (have > 0 && !jr->shrink_said)
			log_warn("stage %s attempt %ld: %.*s", jr->st->name, jr->n,
			    (int)strlen(note) - 1, note + strlen("[watchkeeper] "));
		jr->shrink_said = 1;
		if (have > 0 && write_full(ofd, note, strlen(note)) != 0)
			goto wfail;
	}
	if (write_full(ofd, f + from, fn - from) != 0)
		goto wfail;
	jr_signals_scan(jr, f, from, fn);
	/* The count and the anchor after the bytes: a crash between copies twice, never loses. */
	anchor = jr_log_anchor(f, fn);
	json_set_num(jr->a, "job_log_bytes", (double)(have + (long)(fn - from)));
	json_set_str(jr->a, "job_log_anchor", anchor);
	json_set_num(jr->a, "job_log_seen_ms", (double)start);
	jr_save(jr);
	goto out;
 wfail:
	log_warn("cannot copy the log of job %s to %s: %s", jr_id(jr), p, wk_strerror(WK_ERR_SYSTEM));
 out:
	if (ofd >= 0)
		close(ofd);
	close(mfd);
	free(why);
	free(p);
	free(f);
	free(anchor);
}

/* Seconds job has been pending (this id), or -1 when it is not pending. */
long
jr_pending_s(const struct jobrun *jr)
{
	long since = json_long(jr->a, "job_pending_since", 0);

	if (jr_id(jr) == NULL || jr->unknown_since != 0 || since <= 0 ||
	    strcmp(json_str(jr->a, "job_state", ""), "pending") != 0 ||
	    strcmp(json_str(jr->a, "job_pending_said", ""), jr_id(jr)) != 0)
		return -1;
	return (long)difftime(time(NULL), (time_t)since);
}

/* Pending past job.pending_alert_s: one degraded capacity_wait alert a job; nothing changed. */
void
jr_capacity(struct jobrun *jr)
{
	long s = jr_pending_s(jr);
	char dur[32], text[512], *id;
	cJSON *ev, *al;

	if (s < 0 || jr->pending_alert_s <= 0 || s < jr->pending_alert_s ||
	    strcmp(json_str(jr->a, "job_capacity_said", ""), jr_id(jr)) == 0)
		return;
	json_set_str(jr->a, "job_capacity_said", jr_id(jr));
	jr_save(jr);
	timefmt_duration(s, dur, sizeof(dur));
	snprintf(text, sizeof(text), "job %.300s pending for %s (%s): waiting for capacity, "
	    "nothing is changed; the owner decides whether to wait", jr_id(jr), dur,
	    json_str(jr->a, "job_raw_state", "pending"));
	ev = events_new(jr->instance, jr->cfg->run, "health_alert", jr->st->name, jr->n);
	id = xstrfmt("%s.capacity_wait", json_str(ev, "id", ""));
	json_set_str(ev, "id", id);
	free(id);
	jobrun_event(jr, ev);
	al = cJSON_AddObjectToObject(ev, "alert");
	cJSON_AddStringToObject(al, "event", health_kind_name(HEALTH_CAPACITY_WAIT));
	cJSON_AddStringToObject(al, "severity", health_severity_name(HEALTH_DEGRADED));
	cJSON_AddNumberToObject(al, "time", (double)time(NULL));
	cJSON_AddNumberToObject(al, "attempt", (double)jr->n);
	cJSON_AddNumberToObject(al, "value", (double)s);
	cJSON_AddStringToObject(al, "text", text);
	cJSON_AddStringToObject(ev, "kind", health_kind_name(HEALTH_CAPACITY_WAIT));
	cJSON_AddStringToObject(ev, "severity", health_severity_name(HEALTH_DEGRADED));
	cJSON_AddStringToObject(ev, "text", text);
	log_warn("stage %s attempt %ld: capacity_wait: %s", jr->st->name, jr->n, text);
	snprintf(text, sizeof(text), "%s attempt %ld capacity_wait: job %.300s pending for %s",
	    jr->st->name, jr->n, jr_id(jr), dur);
	jr->emit(jr->arg, ev, text);
}

void
jobrun_degraded(const struct jobrun *jr, cJSON *doc)
{
	long s;
	char dur[32], text[512];
	cJSON *h, *d, *r;

	if (jr == NULL || jr->a == NULL || jr->pending_alert_s <= 0 ||
	    (s = jr_pending_s(jr)) < jr->pending_alert_s)
		return;
	if ((h = cJSON_GetObjectItem(doc, "health")) == NULL)
		h = cJSON_AddObjectToObject(doc, "health");
	if ((d = cJSON_GetObjectItem(h, "degraded")) == NULL)
		d = cJSON_AddArrayToObject(h, "degraded");
	timefmt_duration(s, dur, sizeof(dur));
	snprintf(text, sizeof(text), "%s: job %.300s pending for %s (job.pending_alert_s %ld): "
	    "waiting for capacity", health_kind_name(HEALTH_CAPACITY_WAIT), jr_id(jr), dur,
	    jr->pending_alert_s);
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "kind", health_kind_name(HEALTH_CAPACITY_WAIT));
	cJSON_AddStringToObject(r, "text", text);
	cJSON_AddItemToArray(d, r);
}

