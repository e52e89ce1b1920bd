/*
 * outbox.c: the durable, ordered, per-sink notification queue (see outbox.h).
 *
 * Layout under the outbox directory:
 *   .lock                     held by the one process delivering
 *   .enqueue.lock             held for the few microseconds of numbering a file
 *   <sink>/<seq>.json         one event for one sink: {seq, sink, event,
 *                             attempts, queued_ms, next_try_ms, last_error}
 *   <sink>/status.json        what the last delivery attempt found
 *   <sink>/dropped            how many events the size cap dropped
 * <seq> is zero-padded, so name order is queue order.  Every file is written
 * atomically; a delivered event's file is unlinked only after the receiver
 * acknowledged it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "card.h"
#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "log.h"
#include "monotime.h"
#include "notify.h"
#include "outbox.h"
#include "proc.h"
#include "xmalloc.h"

#define SEQ_DIGITS	12
#define ENQUEUE_WAIT_MS	2000

/* Events that only report progress: the first to go when a queue is full. */

/* A time in ms from a status file: out of int64's range (a damaged file) is "now", never UB. */
static int64_t
outbox_ms(const cJSON *doc, const char *key)
{
	double v = json_num(doc, key, 0);

	return v == v && v > -9.0e18 && v < 9.0e18 ? (int64_t)v : 0;
}

static const char *const outbox_droppable[] = { "digest", "stage_started", "test", "progress" };

int64_t
outbox_now_ms(void)
{
	return walltime_ms();
}

void
outbox_opts_from_config(const struct wk_config *cfg, struct outbox_opts *o)
{
	o->retry_base_ms = config_get_int(cfg, "outbox.retry_base_ms");
	o->retry_max_s = config_get_int(cfg, "outbox.retry_max_s");
	o->max_pending = config_get_int(cfg, "outbox.max_pending");
}

static int
is_seq_name(const char *n)
{
	size_t i;

	for (i = 0; i < SEQ_DIGITS; i++)
		if (n[i] < '0' || n[i] > '9')
			return 0;
	return strcmp(n + SEQ_DIGITS, ".json") == 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The queue's file names in order; caller frees each and the array. */
static char **
outbox_list(const char *sinkdir, size_t *n)
{
	DIR *dp = opendir(sinkdir);
	struct dirent *e;
	char **v = NULL;

	*n = 0;
	if (dp == NULL)
		return NULL;
	while ((e = readdir(dp)) != NULL) {
		if (!is_seq_name(e->d_name))
			continue;
		v = xreallocarray(v, *n + 1, sizeof(*v));
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(dp);
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_names);
	return v;
}

static int
is_droppable(const char *type)
{
	size_t i;

	for (i = 0; i < sizeof(outbox_droppable) / sizeof(outbox_droppable[0]); i++)
		if (strcmp(type, outbox_droppable[i]) == 0)
			return 1;
	return 0;
}

static void
bump_dropped(const char *sinkdir)
{
	char *p = fs_join(sinkdir, "dropped"), *s = NULL, num[32];
	long n = 0;

	if (fs_read_file(p, 64, &s, NULL) == 0)
		n = strtol(s, NULL, 10);
	snprintf(num, sizeof(num), "%ld\n", n + 1);
	(void)atomic_write_str(p, num);
	free(s);
	free(p);
}

/* Over the cap: drop the oldest droppable event.  1 when one was dropped. */
static int
outbox_make_room(const char *sinkdir, char **names, size_t n, const char *sink)
{
	cJSON *doc;
	size_t i;
	char *p;
	int done = 0;

	for (i = 0; i < n && !done; i++) {
		p = fs_join(sinkdir, names[i]);
		if (jsonfile_load(p, &doc) == 0) {
			const char *type = json_str(cJSON_GetObjectItem(doc, "event"), "event", "");

			if (is_droppable(type) && unlink(p) == 0) {
				log_warn("outbox for %s is full: dropped a queued %s event", sink, type);
				bump_dropped(sinkdir);
				done = 1;
			}
			cJSON_Delete(doc);
		}
		free(p);
	}
	return done;
}

static int
outbox_enqueue_one(const char *dir, const struct notify_sink *s, const cJSON *ev,
    const struct outbox_opts *o)
{
	char *sinkdir = fs_join(dir, s->id), *lockp = fs_join(dir, ".enqueue.lock");
	char *path = NULL, name[32];
	char **names = NULL;
	size_t n = 0;
	long long seq = 1;
	int lockfd = -1, r = WK_ERR_SYSTEM;
	cJSON *doc = NULL;

	if (fs_mkdirs(sinkdir, 0700) != 0)
		goto out;
	if ((lockfd = lock_wait(lockp, ENQUEUE_WAIT_MS)) < 0)
		goto out;
	names = outbox_list(sinkdir, &n);
	if (n > 0)
		seq = strtoll(names[n - 1], NULL, 10) + 1;
	/* Over the cap: make room among progress-only events; never lose the others. */
	if (o->max_pending > 0 && (long)n >= o->max_pending &&
	    !outbox_make_room(sinkdir, names, n, s->id) &&
	    is_droppable(json_str(ev, "event", ""))) {
		log_warn("outbox for %s is full: not queueing a %s event", s->id,
		    json_str(ev, "event", ""));
		bump_dropped(sinkdir);
		r = 0;
		goto out;
	}
	snprintf(name, sizeof(name), "%0*lld.json", SEQ_DIGITS, seq);
	path = fs_join(sinkdir, name);
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "seq", (double)seq);
	cJSON_AddStringToObject(doc, "sink", s->id);
	cJSON_AddItemToObject(doc, "event", cJSON_Duplicate(ev, 1));
	cJSON_AddNumberToObject(doc, "attempts", 0);
	cJSON_AddNumberToObject(doc, "queued_ms", (double)outbox_now_ms());
	cJSON_AddNumberToObject(doc, "next_try_ms", 0);
	r = jsonfile_save(path, doc) == 0 ? 1 : WK_ERR_SYSTEM;
 out:
	if (lockfd >= 0)
		close(lockfd);
	cJSON_Delete(doc);
	xfree_strv(names, n);
	free(path);
	free(lockp);
	free(sinkdir);
	return r;
}

int
outbox_enqueue(const char *dir, const struct notify_sinks *sinks, const cJSON *ev,
    const struct outbox_opts *o)
{
	size_t i;
	int r, written = 0;

	for (i = 0; i < sinks->n; i++) {
		if (!notify_wants_ev(sinks, &sinks->v[i], ev))
			continue;
		if ((r = outbox_enqueue_one(dir, &sinks->v[i], ev, o)) < 0)
			return r;
		written += r;
	}
	return written;
}

int
outbox_lock(const char *dir, int wait_ms)
{
	char *p = fs_join(dir, ".lock");
	int fd;

	if (fs_mkdirs(dir, 0700) != 0) {
		free(p);
		return WK_ERR_SYSTEM;
	}
	fd = wait_ms > 0 ? lock_wait(p, wait_ms) : lock_try(p);
	free(p);
	return fd;
}

int
outbox_reserve_make(const char *dir)
{
	char *p = fs_join(dir, ".reserve"), *zeros = NULL;
	struct stat st;
	int r = 1;

	/* Written, not sparse: the blocks must be this file's until it is released. */
	if (stat(p, &st) != 0 || st.st_size < OUTBOX_RESERVE) {
		zeros = xcalloc(1, OUTBOX_RESERVE);
		r = fs_mkdirs(dir, 0700) == 0 && atomic_write(p, zeros, OUTBOX_RESERVE, 0600) == 0;
	}
	free(zeros);
	free(p);
	return r;
}

int
outbox_reserve_release(const char *dir)
{
	char *p = fs_join(dir, ".reserve");
	int r = unlink(p) == 0;

	free(p);
	return r;
}

/* Exponential, capped, with jitter in [50 %, 100 %] so many boxes do not retry in step. */
static int64_t
outbox_backoff_ms(const struct outbox_opts *o, long attempts)
{
	double d = (double)o->retry_base_ms, cap = (double)o->retry_max_s * 1000.0;
	long i;

	for (i = 1; i < attempts && d < cap; i++)
		d *= 2;
	if (d > cap)
		d = cap;
	return (int64_t)(d * (0.5 + 0.5 * ((double)random() / (double)RAND_MAX)));
}

static void
status_write(const char *sinkdir, const struct notify_sink *s, int ok, const char *why,
    int permanent, int64_t next_try)
{
	char *p = fs_join(sinkdir, "status.json"), when[TIMEFMT_LEN];
	cJSON *st = NULL;

	if (jsonfile_load(p, &st) != 0 || !cJSON_IsObject(st)) {
		cJSON_Delete(st);
		st = cJSON_CreateObject();
	}
	timefmt_utc(time(NULL), when, sizeof(when));
	json_set_str(st, "sink", s->id);
	json_set_str(st, "type", s->type);
	if (ok) {
		json_set_str(st, "last_ok", when);
		cJSON_DeleteItemFromObject(st, "last_error");
		cJSON_DeleteItemFromObject(st, "failing_since");
		cJSON_DeleteItemFromObject(st, "next_try_ms");
		json_set_bool(st, "permanent", 0);
	} else {
		json_set_str(st, "last_error", why != NULL ? why : "unknown error");
		json_set_str(st, "last_error_time", when);
		if (json_str(st, "failing_since", NULL) == NULL)
			json_set_str(st, "failing_since", when);
		json_set_bool(st, "permanent", permanent);
		json_set_num(st, "next_try_ms", (double)next_try);
	}
	(void)jsonfile_save(p, st);
	cJSON_Delete(st);
	free(p);
}

/* ev at p was delivered: remove it, say so. */
static void
outbox_done(const char *p, const cJSON *doc, const char *sinkdir, const struct notify_sink *s,
    int verbose, struct outbox_result *res)
{
	if (unlink(p) != 0 && errno != ENOENT)
		log_warn("outbox: delivered but cannot remove %s: %s", p,
		    wk_strerror(WK_ERR_SYSTEM));
	(void)fsync_parent(p);
	res->delivered++;
	status_write(sinkdir, s, 1, NULL, 0, 0);
	if (verbose)
		printf("%s: delivered %s\n", s->id,
		    json_str(cJSON_GetObjectItem(doc, "event"), "id", "?"));
}

/* doc at p failed: its attempt counted, its next try set, the sink's status. */
static void
outbox_fail(const char *p, cJSON *doc, const char *sinkdir, const struct notify_sink *s,
    const struct outbox_opts *o, const char *why, int permanent, int verbose,
    struct outbox_result *res)
{
	long attempts = json_long(doc, "attempts", 0) + 1;
	int64_t next = outbox_now_ms() + outbox_backoff_ms(o, attempts);

	json_set_num(doc, "attempts", (double)attempts);
	json_set_num(doc, "next_try_ms", (double)next);
	json_set_str(doc, "last_error", why != NULL ? why : "unknown error");
	(void)jsonfile_save(p, doc);
	status_write(sinkdir, s, 0, why, permanent, next);
	res->failed++;
	log_warn("notify %s: %s (kept in the outbox, attempt %ld)", s->id,
	    why != NULL ? why : "failed", attempts);
	if (verbose)
		printf("%s: FAILED: %s\n", s->id, why != NULL ? why : "failed");
}

/*
 * Send doc's event (at p) to s as a message of its own, and say how it went.
 * In patrol, a card sink's event first edits the box's card (card_follow).
 */
static int
outbox_send_one(const char *p, cJSON *doc, const char *sinkdir, const struct notify_sinks *sinks,
    const struct notify_sink *s, const struct outbox_opts *o, int verbose,
    struct outbox_result *res)
{
	char *why = NULL;
	int permanent = 0, r;

	if (s->card && !sinks->cards)
		card_follow(sinks, s, cJSON_GetObjectItem(doc, "event"));
	r = notify_send(sinks, s, cJSON_GetObjectItem(doc, "event"), &why, &permanent);
	if (r == 0)
		outbox_done(p, doc, sinkdir, s, verbose, res);
	else
		outbox_fail(p, doc, sinkdir, s, o, why, permanent, verbose, res);
	free(why);
	return r;
}

/*
 * A card sink where this process keeps the cards (card.h): from the head,
 * the events up to and including the first that pings (at most
 * CARD_BATCH) are folded into the card, which is edited once; the card's
 * state is saved, those events are removed, and the ping's event, marked
 * "on_card" (never folded again), is sent as a message of its own.  A
 * failure keeps the head (or the ping) with its retry time.  Killed between
 * the edit and the removals, the next deliverer folds those events again:
 * the card shows them once more, nothing is lost.
 */
#define CARD_BATCH	256
static void
outbox_flush_card(const char *sinkdir, const struct notify_sinks *sinks,
    const struct notify_sink *s, const struct outbox_opts *o, int force, int verbose,
    struct outbox_result *res)
{
	char *cardp = fs_join(sinkdir, CARD_FILE), *why = NULL, *p = NULL, *pp = NULL;
	char **names;
	size_t n, i = 0, j, end, k, shown;
	int changed, permanent = 0, r = 0;
	cJSON *st = NULL, *work = NULL, *doc = NULL, *pdoc = NULL;

	if (jsonfile_load(cardp, &st) != 0 || !cJSON_IsObject(st)) {
		cJSON_Delete(st);
		st = cJSON_CreateObject();
	}
	names = outbox_list(sinkdir, &n);
	while (i < n && r == 0) {
		p = fs_join(sinkdir, names[i]);
		if (jsonfile_load(p, &doc) != 0) {
			log_warn("outbox: cannot read %s; skipping it", p);
			free(p);
			p = NULL;
			i++;
			continue;
		}
		if (!force && outbox_ms(doc, "next_try_ms") > outbox_now_ms()) {
			cJSON_Delete(doc);
			doc = NULL;
			break;
		}
		/* the batch: [i, end]; pdoc, the event that pings, at end */
		work = cJSON_Duplicate(st, 1);
		changed = 0;
		for (j = i; j < n && j - i < CARD_BATCH; j++) {
			if (j > i) {
				char *q = fs_join(sinkdir, names[j]);

				if (jsonfile_load(q, &doc) != 0) {
					/* not ours to fold or remove: the batch ends before it */
					doc = NULL;
					free(q);
					break;
				}
				free(q);
			}
			if (!json_bool(doc, "on_card", 0)) {
				card_fold(work, cJSON_GetObjectItem(doc, "event"));
				changed = 1;
			}
			if (card_pings(cJSON_GetObjectItem(doc, "event"))) {
				pdoc = doc;
				doc = NULL;
				pp = fs_join(sinkdir, names[j]);
				j++;
				break;
			}
			cJSON_Delete(doc);
			doc = NULL;
		}
		end = j - 1;
		if (changed) {
			if ((r = card_show(sinks, s, work, time(NULL), &why, &permanent)) != 0) {
				/* the head keeps the failure and the retry time */
				if (jsonfile_load(p, &doc) == 0)
					outbox_fail(p, doc, sinkdir, s, o, why, permanent, verbose, res);
				break;
			}
			if (jsonfile_save(cardp, work) != 0)
				log_warn("outbox: the card is shown but cannot be saved in %s: %s",
				    cardp, wk_strerror(WK_ERR_SYSTEM));
			cJSON_Delete(st);
			st = work;
			work = NULL;
		}
		shown = 0;
		for (k = i; k <= end; k++) {
			char *q = fs_join(sinkdir, names[k]);

			if ((pp == NULL || strcmp(q, pp) != 0) && unlink(q) == 0)
				shown++;
			free(q);
		}
		if (shown > 0) {
			(void)fsync_parent(p);
			res->delivered += (int)shown;
			status_write(sinkdir, s, 1, NULL, 0, 0);
			if (verbose)
				printf("%s: card updated with %zu event(s)\n", s->id, shown);
		}
		if (pdoc != NULL) {
			if (!json_bool(pdoc, "on_card", 0)) {
				json_set_bool(pdoc, "on_card", 1);
				(void)jsonfile_save(pp, pdoc);
			}
			r = outbox_send_one(pp, pdoc, sinkdir, sinks, s, o, verbose, res);
		}
		free(why);
		why = NULL;
		cJSON_Delete(work);
		work = NULL;
		cJSON_Delete(pdoc);
		pdoc = NULL;
		free(pp);
		pp = NULL;
		free(p);
		p = NULL;
		i = end + 1;
	}
	free(why);
	cJSON_Delete(work);
	cJSON_Delete(doc);
	cJSON_Delete(pdoc);
	free(pp);
	free(p);
	cJSON_Delete(st);
	xfree_strv(names, n);
	free(cardp);
}

/* Deliver one sink's queue in order until it is empty, a failure, or a head not yet due. */
static void
outbox_flush_sink(const char *dir, const struct notify_sinks *sinks, const struct notify_sink *s,
    const struct outbox_opts *o, int force, int verbose, struct outbox_result *res)
{
	char *sinkdir = fs_join(dir, s->id), *p;
	char **names;
	size_t n, i;
	int r;
	cJSON *doc;

	if (sinks->cards && s->card) {
		outbox_flush_card(sinkdir, sinks, s, o, force, verbose, res);
		goto count;
	}
	names = outbox_list(sinkdir, &n);
	for (i = 0; i < n; i++) {
		p = fs_join(sinkdir, names[i]);
		if (jsonfile_load(p, &doc) != 0) {
			/* A torn file cannot exist (atomic writes); a foreign one is left alone. */
			log_warn("outbox: cannot read %s; skipping it", p);
			free(p);
			continue;
		}
		if (!force && outbox_ms(doc, "next_try_ms") > outbox_now_ms()) {
			cJSON_Delete(doc);
			free(p);
			break;	/* in order: nothing behind the head goes first */
		}
		r = outbox_send_one(p, doc, sinkdir, sinks, s, o, verbose, res);
		cJSON_Delete(doc);
		free(p);
		if (r != 0)
			break;
	}
	xfree_strv(names, n);
 count:
	names = outbox_list(sinkdir, &n);
	res->pending += (int)n;
	xfree_strv(names, n);
	free(sinkdir);
}

int
outbox_flush(const char *dir, const struct notify_sinks *sinks, const struct outbox_opts *o,
    int force, int verbose, struct outbox_result *res)
{
	size_t i;

	memset(res, 0, sizeof(*res));
	srandom((unsigned)(getpid() ^ outbox_now_ms()));
	for (i = 0; i < sinks->n; i++)
		outbox_flush_sink(dir, sinks, &sinks->v[i], o, force, verbose, res);
	return 0;
}

int64_t
outbox_next_due_ms(const char *dir, const struct notify_sinks *sinks)
{
	int64_t best = 0, t;
	char **names, *sinkdir, *p;
	size_t i, n;
	cJSON *doc;

	for (i = 0; i < sinks->n; i++) {
		sinkdir = fs_join(dir, sinks->v[i].id);
		names = outbox_list(sinkdir, &n);
		if (n > 0) {
			p = fs_join(sinkdir, names[0]);
			if (jsonfile_load(p, &doc) == 0) {
				t = outbox_ms(doc, "next_try_ms");
				if (t <= 0)
					t = 1;
				if (best == 0 || t < best)
					best = t;
				cJSON_Delete(doc);
			}
			free(p);
		}
		xfree_strv(names, n);
		free(sinkdir);
	}
	return best;
}

cJSON *
outbox_status(const char *dir, const struct notify_sinks *sinks)
{
	cJSON *arr = cJSON_CreateArray(), *o, *st;
	char **names, *sinkdir, *p, *s;
	size_t i, n;

	for (i = 0; i < sinks->n; i++) {
		const struct notify_sink *k = &sinks->v[i];

		sinkdir = fs_join(dir, k->id);
		names = outbox_list(sinkdir, &n);
		xfree_strv(names, n);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "sink", k->id);
		cJSON_AddStringToObject(o, "type", k->type);
		cJSON_AddNumberToObject(o, "pending", (double)n);
		p = fs_join(sinkdir, "dropped");
		if (fs_read_file(p, 64, &s, NULL) == 0) {
			cJSON_AddNumberToObject(o, "dropped", (double)strtol(s, NULL, 10));
			free(s);
		}
		free(p);
		p = fs_join(sinkdir, "status.json");
		if (jsonfile_load(p, &st) == 0) {
			static const char *const keys[] = {
				"last_ok", "last_error", "last_error_time", "failing_since",
			};
			size_t j;

			for (j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
				if (json_str(st, keys[j], NULL) != NULL)
					cJSON_AddStringToObject(o, keys[j], json_str(st, keys[j], ""));
			if (json_str(st, "last_error", NULL) != NULL) {
				cJSON_AddBoolToObject(o, "permanent", json_bool(st, "permanent", 0));
				cJSON_AddNumberToObject(o, "next_try_ms", json_num(st, "next_try_ms", 0));
			}
			cJSON_Delete(st);
		}
		free(p);
		if (k->missing != NULL)
			cJSON_AddStringToObject(o, "missing", k->missing);
		p = fs_join(sinkdir, CARD_FILE);
		if (k->card && jsonfile_load(p, &st) == 0) {
			char when[TIMEFMT_LEN];

			/* a message id names a chat message, no secret */
			if (json_str(st, "message_id", NULL) != NULL &&
			    json_num(st, "updated", 0) > 0) {
				timefmt_utc((time_t)json_num(st, "updated", 0), when, sizeof(when));
				cJSON_AddStringToObject(o, "card_message", json_str(st, "message_id", ""));
				cJSON_AddStringToObject(o, "card_updated", when);
				/* the whole card: patrol edits it with what the box cannot say */
				cJSON_AddItemToObject(o, "card", st);	/* transferred */
				st = NULL;
			}
			cJSON_Delete(st);
		}
		free(p);
		cJSON_AddItemToArray(arr, o);
		free(sinkdir);
	}
	return arr;
}
