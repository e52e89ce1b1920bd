/*
 * notify.c: notification sinks (see notify.h).
 *
 * Everything that differs between receivers is data: one table of sink types
 * (body shape, content type, extra headers, how a 200 can still be a refusal,
 * which refusal code means "slow down"), one table of event kinds (how the
 * line reads, ntfy's title word, priority and tags) and three judging tables
 * (HTTP statuses, libcurl errors, a command's exit status).  The functions
 * around them only walk the tables.
 *
 * HTTP goes through libcurl's easy interface, bounded by the outbox's
 * connect and total timeouts, never following a redirect (a webhook that
 * moved must be fixed in the config, not chased).  Where libcurl cannot be
 * loaded (the static portable onbox, a box without libcurl.so.4) the same
 * request goes through the box's curl command (curlcmd.c), judged by the same
 * tables.  A command sink runs through spawn.c in its own process group, so a
 * timeout kills everything it started.
 *
 * Secrets live only in struct notify_sinks.  Every text that leaves this file
 * for a person, a log, a file or a receiver goes through notify_scrub(), which
 * masks every byte covered by any occurrence of any secret, so overlapping
 * secrets cannot leak a fragment.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "curlapi.h"
#include "curlcmd.h"

#include "buf.h"
#include "err.h"
#include "jsonc.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "notify.h"
#include "spawn.h"
#include "traceback.h"
#include "xmalloc.h"

#ifndef WK_VERSION
#define WK_VERSION "dev"
#endif

#define NOTIFY_TEXT_MAX		1000	/* one message line, bytes */
#define NOTIFY_LAST_MAX		160	/* the "last:" part of a failure */
#define NOTIFY_SUMMARY_MAX	300	/* the results summary */
#define NOTIFY_SUMMARY_PAIRS	8
#define NOTIFY_FIRSTLINE_MAX	200
#define NOTIFY_DETAIL_MAX	200	/* a receiver's or command's words inside a why */
#define NOTIFY_ANSWER_MAX	(16 * 1024)
#define NOTIFY_CMD_OUT_MAX	4096
#define NOTIFY_DISCORD_MAX	2000	/* Discord refuses longer content */
#define NOTIFY_SECRET_MIN	6	/* shorter "secrets" would mangle ordinary text */
#define NOTIFY_PATH_SECRET_MIN	16	/* a URL's path is a secret of its own when this long */
#define NOTIFY_KILL_GRACE_MS	2000	/* SIGTERM to SIGKILL */
#define NOTIFY_POLL_SLICE_MS	50	/* how often a running command's exit is checked */

#define ELLIPSIS	"\xe2\x80\xa6"
#define SEP		" \xc2\xb7 "

#define TELEGRAM_API	"https://api.telegram.org"

extern char **environ;

/* ---- small text helpers ---- */

/* The largest character boundary <= n in s (strlen(s) >= n). */
static size_t
notify_utf8_floor(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

char *
notify_cut(const char *s, size_t max)
{
	size_t len = strlen(s), n;
	struct buf b = BUF_INIT;

	if (len <= max)
		return xstrdup(s);
	if (max < sizeof(ELLIPSIS) - 1)
		return xstrndup(s, notify_utf8_floor(s, max));
	n = notify_utf8_floor(s, max - (sizeof(ELLIPSIS) - 1));
	while (n > 0 && s[n - 1] == ' ')
		n--;
	buf_append(&b, s, n);
	buf_puts(&b, ELLIPSIS);
	return buf_detach(&b);
}

/* Append s as part of one line: control characters become one space. */
static void
notify_put_flat(struct buf *b, const char *s)
{
	unsigned char c;

	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f) {
			if (b->len > 0 && b->data[b->len - 1] != ' ')
				buf_putc(b, ' ');
		} else
			buf_putc(b, (char)c);
	}
}

/* s as one trimmed line (control characters folded to spaces).  Caller frees. */
static char *
notify_flat(const char *s)
{
	struct buf b = BUF_INIT;

	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	notify_put_flat(&b, s);
	while (b.len > 0 && b.data[b.len - 1] == ' ')
		b.data[--b.len] = '\0';
	return buf_detach(&b);
}

/* A header value: printable ASCII only (no CR/LF can split the header).  Caller frees. */
static char *
notify_header_value(const char *s)
{
	struct buf b = BUF_INIT;

	for (; *s != '\0'; s++)
		if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
			buf_putc(&b, *s);
	return buf_detach(&b);
}

/* ev[key] when it is a non-empty string, else NULL. */
static const char *
notify_ev_str(const cJSON *ev, const char *key)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, key));

	return v != NULL && *v != '\0' ? v : NULL;
}

/* ev[key] as a whole number (a number or a numeric string); def when absent. */
static long
notify_ev_long(const cJSON *ev, const char *key, long def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
	char *end;
	long n;

	if (cJSON_IsNumber(v))
		return (long)v->valuedouble;
	if (cJSON_IsString(v) && v->valuestring[0] != '\0') {
		n = strtol(v->valuestring, &end, 10);
		if (*end == '\0')
			return n;
	}
	return def;
}

/* A copy of a cJSON value printed on one line; caller frees. */
static char *
notify_json_line(const cJSON *v)
{
	char *p = cJSON_PrintUnformatted(v), *r;

	if (p == NULL)
		abort();
	r = xstrdup(p);
	cJSON_free(p);
	return r;
}

/* ---- scrubbing ---- */

char *
notify_scrub(const struct notify_sinks *all, const char *text)
{
	unsigned char *mask = NULL;
	struct buf b = BUF_INIT;
	const char *p;
	size_t len, i, sl;
	int hit = 0;

	if (text == NULL)
		return NULL;
	len = strlen(text);
	mask = xcalloc(len + 1, 1);
	for (i = 0; all != NULL && i < all->nsecrets; i++) {
		sl = strlen(all->secrets[i]);
		if (sl < NOTIFY_SECRET_MIN)
			continue;
		for (p = text; (p = memmem(p, len - (size_t)(p - text), all->secrets[i], sl)) != NULL;
		    p++) {
			memset(mask + (p - text), 1, sl);
			hit = 1;
		}
	}
	if (!hit) {
		free(mask);
		return xstrdup(text);
	}
	for (i = 0; i < len;) {
		if (!mask[i]) {
			buf_putc(&b, text[i++]);
			continue;
		}
		buf_puts(&b, "***");
		while (i < len && mask[i])
			i++;
	}
	free(mask);
	return buf_detach(&b);
}

/* ---- event kinds: how each reads ---- */

static void notify_text_done(struct buf *, const cJSON *);
static void notify_text_failed(struct buf *, const cJSON *);
static void notify_text_lost(struct buf *, const cJSON *);
static void notify_text_started(struct buf *, const cJSON *);
static void notify_text_test(struct buf *, const cJSON *);
static void notify_text_verdict(struct buf *, const cJSON *);
static void notify_text_other(struct buf *, const cJSON *);
static void notify_text_alert(struct buf *, const cJSON *);
static void notify_text_requeued(struct buf *, const cJSON *);
static void notify_text_stopped(struct buf *, const cJSON *);

static const struct notify_kind {
	const char	*type;		/* NULL: the fallback, last */
	void		(*render)(struct buf *, const cJSON *);
	const char	*word;		/* for titles: "<run> <stage> <word>"; NULL: see title() */
	const char	*priority;	/* ntfy Priority */
	const char	*tags;		/* ntfy Tags */
} notify_kinds[] = {
	{ "stage_done",		notify_text_done,	"DONE",	NULL,	"white_check_mark" },
	{ "chain_done",		notify_text_done,	"DONE",	NULL,	"white_check_mark" },
	{ "stage_failed",	notify_text_failed,	"FAILED", "high", "warning" },
	{ "stage_lost",		notify_text_lost,	"LOST",	"high",	"warning" },
	{ "stage_started",	notify_text_started,	"started", NULL, NULL },
	{ "test",		notify_text_test,	"test",	NULL,	NULL },
	{ "verdict_changed",	notify_text_verdict,	NULL,	NULL,	NULL },
	{ "health_alert",	notify_text_alert,	"ALERT", "high", "warning" },
	{ "stage_requeued",	notify_text_requeued,	"REQUEUED", NULL, "repeat" },
	{ "run_stopped",	notify_text_stopped,	"STOPPED", NULL, "stop_sign" },
	{ NULL,			notify_text_other,	NULL,	NULL,	NULL },
};

/* patrol verdicts as ntfy sees them; anything not listed is a warning. */
static const struct notify_verdict_look {
	const char	*verdict;	/* NULL: every other verdict */
	const char	*priority;
	const char	*tags;
} notify_verdict_looks[] = {
	{ "HOSTKEY_MISMATCH",	"high",	"warning" },
	{ "SSH_DOWN",		"high",	"warning" },
	{ "CRASHED",		"high",	"warning" },
	{ "NEEDS_RESUME",	"high",	"warning" },
	{ "DONE",		NULL,	"white_check_mark" },
	{ "OK",			NULL,	NULL },
	{ "RESUMED",		NULL,	NULL },
	{ "TRANSFER_RESUMED",	NULL,	NULL },
	{ "STOPPED",		NULL,	"stop_sign" },
	{ NULL,			NULL,	"warning" },
};

static const struct notify_kind *
notify_kind_find(const char *type)
{
	const struct notify_kind *k;

	for (k = notify_kinds; k->type != NULL; k++)
		if (type != NULL && strcmp(k->type, type) == 0)
			break;
	return k;
}

static const struct notify_verdict_look *
notify_verdict_find(const char *verdict)
{
	const struct notify_verdict_look *v;

	for (v = notify_verdict_looks; v->verdict != NULL; v++)
		if (verdict != NULL && strcmp(v->verdict, verdict) == 0)
			break;
	return v;
}

/* Append " word" (or "word" at the start), flattened; nothing for NULL. */
static void
notify_put_word(struct buf *b, const char *s)
{
	if (s == NULL)
		return;
	if (b->len > 0)
		buf_putc(b, ' ');
	notify_put_flat(b, s);
}

static void
notify_put_run(struct buf *b, const cJSON *ev)
{
	const char *run = notify_ev_str(ev, "run");

	if (run == NULL)
		return;
	buf_putc(b, '[');
	notify_put_flat(b, run);
	buf_putc(b, ']');
}

/* Append " · label<flattened s>" when s is set. */
static void
notify_put_part(struct buf *b, const char *label, const char *s)
{
	if (s == NULL || *s == '\0')
		return;
	if (b->len > 0)
		buf_puts(b, SEP);
	buf_puts(b, label);
	notify_put_flat(b, s);
}

static void
notify_put_attempt(struct buf *b, const cJSON *ev, const char *fmt)
{
	long attempt = notify_ev_long(ev, "attempt", 0);

	if (attempt <= 0)
		return;
	if (b->len > 0)
		buf_putc(b, ' ');
	buf_printf(b, fmt, attempt);
}

/*
 * The "last:" part of a failure: its first sentence (the exception and its
 * message, before ". " starts the details), cut near a word boundary, with
 * " …" when anything was dropped.  NULL when there is nothing to say.
 */
static char *
notify_text_last(const cJSON *ev)
{
	const char *src = notify_ev_str(ev, "evidence"), *dot, *sp;
	const cJSON *lines = cJSON_GetObjectItemCaseSensitive(ev, "last_lines"), *it;
	struct buf b = BUF_INIT;
	char *flat = NULL;
	size_t n;
	int cut = 0;

	if (src == NULL && cJSON_IsArray(lines)) {
		cJSON_ArrayForEach(it, lines) {
			const char *l = cJSON_GetStringValue(it);

			if (l != NULL && l[strspn(l, " \t\r\n")] != '\0')
				src = l;
		}
	}
	if (src == NULL)
		return NULL;
	flat = notify_flat(src);
	n = strlen(flat);
	if ((dot = strstr(flat, ". ")) != NULL && dot > flat) {
		n = (size_t)(dot - flat);
		cut = 1;
	}
	if (n > NOTIFY_LAST_MAX) {
		n = notify_utf8_floor(flat, NOTIFY_LAST_MAX);
		for (sp = flat + n; sp > flat + NOTIFY_LAST_MAX / 2 && *sp != ' '; sp--)
			;
		if (*sp == ' ')
			n = (size_t)(sp - flat);
		cut = 1;
	}
	while (cut && n > 0 && strchr(" .,;:", flat[n - 1]) != NULL)
		n--;
	buf_append(&b, flat, n);
	if (cut)
		buf_puts(&b, " " ELLIPSIS);
	free(flat);
	return buf_detach(&b);
}

static void
notify_text_done(struct buf *b, const cJSON *ev)
{
	const char *type = notify_ev_str(ev, "event"), *results = notify_ev_str(ev, "results");
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "duration_s");
	char *summary = results != NULL ? notify_results_summary(results) : NULL;
	char d[32];

	notify_put_run(b, ev);
	notify_put_word(b, type != NULL && strcmp(type, "chain_done") == 0 ? "chain" :
	    notify_ev_str(ev, "stage"));
	notify_put_word(b, "DONE");
	/* what went wrong on the way (caveats.h): a DONE never hides it */
	notify_put_part(b, "caveats: ", notify_ev_str(ev, "caveats_text"));
	notify_put_part(b, "", notify_ev_str(ev, "progress"));
	notify_put_part(b, "results: ", summary);
	if (cJSON_IsNumber(dur) && dur->valuedouble >= 0) {
		timefmt_duration((long)dur->valuedouble, d, sizeof(d));
		notify_put_part(b, "", d);
	}
	free(summary);
}

static void
notify_text_failed(struct buf *b, const cJSON *ev)
{
	const char *cls = notify_ev_str(ev, "class"), *sig = notify_ev_str(ev, "signal");
	long code = notify_ev_long(ev, "exit_code", -1);
	char *last = notify_text_last(ev), at[200];

	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "stage"));
	notify_put_word(b, "FAILED");
	if (cls != NULL) {
		buf_puts(b, " (");
		notify_put_flat(b, cls);
		buf_putc(b, ')');
	} else if (sig != NULL) {
		buf_puts(b, " (");
		notify_put_flat(b, sig);
		buf_putc(b, ')');
	} else if (code >= 0)
		buf_printf(b, " (exit %ld)", code);
	notify_put_attempt(b, ev, "attempt %ld");
	notify_put_part(b, "last: ", last);
	/* " at train.py:62 in lr_at": where the traceback says it failed */
	if (tb_where_text(cJSON_GetObjectItemCaseSensitive(ev, "where"), at, sizeof(at))) {
		if (last != NULL)
			buf_putc(b, ' ');
		else if (b->len > 0)
			buf_puts(b, SEP);
		notify_put_flat(b, at);
	}
	free(last);
}

/* "[run] train attempt 2 REQUEUED by Slurm (job 77, restart 1)" */
static void
notify_text_requeued(struct buf *b, const cJSON *ev)
{
	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "stage"));
	notify_put_attempt(b, ev, "attempt %ld");
	notify_put_word(b, "REQUEUED by Slurm");
	buf_puts(b, " (job ");
	notify_put_flat(b, notify_ev_str(ev, "job_id") != NULL ? notify_ev_str(ev, "job_id") : "?");
	buf_printf(b, ", restart %ld)", notify_ev_long(ev, "slurm_restart_count", 0));
}

/* "[run] train attempt 2 STOPPED on purpose by onbox stop (root@gpu1) · SIGTERM" */
static void
notify_text_stopped(struct buf *b, const cJSON *ev)
{
	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "stage"));
	notify_put_attempt(b, ev, "attempt %ld");
	notify_put_word(b, "STOPPED on purpose");
	if (notify_ev_str(ev, "by") != NULL) {
		buf_puts(b, " by ");
		notify_put_flat(b, notify_ev_str(ev, "by"));
	}
	notify_put_part(b, "", notify_ev_str(ev, "how"));
	notify_put_part(b, "", "start it again with `onbox start` or `patrol deploy`");
}

static void
notify_text_lost(struct buf *b, const cJSON *ev)
{
	const char *cls = notify_ev_str(ev, "class");

	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "stage"));
	notify_put_attempt(b, ev, "attempt %ld");
	notify_put_word(b, "LOST");
	if (cls != NULL) {
		buf_puts(b, " (");
		notify_put_flat(b, cls);
		buf_putc(b, ')');
	}
}

static void
notify_text_alert(struct buf *b, const cJSON *ev)
{
	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "stage"));
	notify_put_attempt(b, ev, "attempt %ld");
	notify_put_word(b, "ALERT");
	if (notify_ev_str(ev, "text") != NULL) {
		buf_puts(b, ": ");
		notify_put_flat(b, notify_ev_str(ev, "text"));
	}
}

static void
notify_text_started(struct buf *b, const cJSON *ev)
{
	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "stage"));
	notify_put_word(b, "started");
	notify_put_attempt(b, ev, "(attempt %ld)");
}

#define NOTIFY_TEST_WORDS "test notification from watchkeeper"

static void
notify_text_test(struct buf *b, const cJSON *ev)
{
	const char *msg = notify_ev_str(ev, "message");

	notify_put_run(b, ev);
	notify_put_word(b, NOTIFY_TEST_WORDS);
	if (msg != NULL && strcmp(msg, NOTIFY_TEST_WORDS) != 0)
		notify_put_part(b, "", msg);
}

static void
notify_text_verdict(struct buf *b, const cJSON *ev)
{
	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "verdict"));
	notify_put_word(b, notify_ev_str(ev, "details"));
}

static void
notify_text_other(struct buf *b, const cJSON *ev)
{
	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "event"));
	notify_put_word(b, notify_ev_str(ev, "stage"));
	notify_put_part(b, "", notify_ev_str(ev, "message"));
}

char *
notify_text(const cJSON *ev)
{
	struct buf b = BUF_INIT;
	char *r;

	notify_kind_find(notify_ev_str(ev, "event"))->render(&b, ev);
	r = notify_cut(buf_str(&b), NOTIFY_TEXT_MAX);
	buf_free(&b);
	return r;
}

/* ntfy's title: ASCII, "<run> <stage> <word>" or "<run> <VERDICT>".  Caller frees. */
static char *
notify_title(const cJSON *ev, const struct notify_kind *k)
{
	const char *type = notify_ev_str(ev, "event");
	struct buf b = BUF_INIT;
	char *r;

	notify_put_word(&b, notify_ev_str(ev, "run"));
	if (k->render == notify_text_verdict)
		notify_put_word(&b, notify_ev_str(ev, "verdict"));
	else if (k->word == NULL) {
		notify_put_word(&b, type);
		notify_put_word(&b, notify_ev_str(ev, "stage"));
	} else {
		notify_put_word(&b, type != NULL && strcmp(type, "chain_done") == 0 ? "chain" :
		    notify_ev_str(ev, "stage"));
		notify_put_word(&b, k->word);
	}
	r = notify_header_value(buf_str(&b));
	buf_free(&b);
	return r;
}

/* ---- results summary ---- */

struct notify_row {
	char	**f;
	size_t	 n;
};

static int
notify_is_num(const char *s)
{
	char *end;

	if (*s == '\0')
		return 0;
	(void)strtod(s, &end);
	if (end == s)
		return 0;
	if (*end == '%')
		end++;
	return *end == '\0';
}

static int
notify_row_has_num(const struct notify_row *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (notify_is_num(r->f[i]))
			return 1;
	return 0;
}

/* Split one CSV line (no newline) into trimmed fields; "..." quotes, "" inside. */
static void
notify_csv_line(const char *p, const char *end, struct notify_row *row)
{
	struct buf f = BUF_INIT;

	for (;;) {
		buf_reset(&f);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '"') {
			for (p++; p < end; p++) {
				if (*p == '"' && p + 1 < end && p[1] == '"')
					buf_putc(&f, *p++);
				else if (*p == '"')
					break;
				else
					buf_putc(&f, *p);
			}
			while (p < end && *p != ',')
				p++;
		} else {
			while (p < end && *p != ',')
				buf_putc(&f, *p++);
			while (f.len > 0 && (f.data[f.len - 1] == ' ' || f.data[f.len - 1] == '\t'))
				f.data[--f.len] = '\0';
		}
		row->f = xreallocarray(row->f, row->n + 1, sizeof(*row->f));
		row->f[row->n++] = xstrdup(buf_str(&f));
		if (p >= end)
			break;
		p++;	/* the comma */
	}
	buf_free(&f);
}

/* Append "k=v" pairs, at most NOTIFY_SUMMARY_PAIRS, then " …" when there were more. */
static void
notify_put_pair(struct buf *b, size_t *npairs, const char *k, const char *v)
{
	if (*npairs == NOTIFY_SUMMARY_PAIRS)
		buf_puts(b, " " ELLIPSIS);
	if ((*npairs)++ >= NOTIFY_SUMMARY_PAIRS)
		return;
	if (b->len > 0)
		buf_putc(b, ' ');
	notify_put_flat(b, k);
	buf_putc(b, '=');
	notify_put_flat(b, v);
}

/* A results file that is a JSON object of scalars: its pairs.  0 when it is not one. */
static int
notify_summary_json(const char *text, struct buf *b)
{
	cJSON *doc = cJSON_Parse(text);
	const cJSON *it;
	size_t npairs = 0;
	char *v;

	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return 0;
	}
	cJSON_ArrayForEach(it, doc) {
		if (cJSON_IsString(it))
			notify_put_pair(b, &npairs, it->string, it->valuestring);
		else if (cJSON_IsNumber(it) || cJSON_IsBool(it)) {
			v = notify_json_line(it);
			notify_put_pair(b, &npairs, it->string, v);
			free(v);
		}
	}
	cJSON_Delete(doc);
	return npairs > 0;
}

char *
notify_results_summary(const char *csv)
{
	struct notify_row *rows = NULL;
	const struct notify_row *last;
	struct buf b = BUF_INIT;
	const char *p, *e, *first = NULL, *first_end = NULL;
	size_t nrows = 0, npairs = 0, i, j, start;
	int pairs = 1, anyval = 0;
	char *r = NULL, *line;

	if (csv == NULL)
		return NULL;
	p = csv + strspn(csv, " \t\r\n");
	if (*p == '{' && notify_summary_json(p, &b))
		goto done;
	for (p = csv; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		e = p + strcspn(p, "\n");
		if (p + strspn(p, " \t\r") >= e)
			continue;	/* blank */
		if (first == NULL) {
			first = p;
			first_end = e;
		}
		rows = xreallocarray(rows, nrows + 1, sizeof(*rows));
		memset(&rows[nrows], 0, sizeof(*rows));
		notify_csv_line(p, e > p && e[-1] == '\r' ? e - 1 : e, &rows[nrows++]);
	}
	if (nrows == 0)
		goto out;
	last = &rows[nrows - 1];

	/* A header row and values: "acc,f1\n0.812,0.790" (the last row when there are several). */
	if (nrows >= 2 && rows[0].n >= 2 && !notify_row_has_num(&rows[0]) &&
	    notify_row_has_num(last) && (rows[0].n != 2 || notify_is_num(rows[1].f[0]))) {
		for (j = 0; j < rows[0].n && j < last->n; j++)
			notify_put_pair(&b, &npairs, rows[0].f[j], last->f[j]);
		goto done;
	}

	/* name,value rows, maybe under a "metric,value" header. */
	for (i = 0; i < nrows; i++)
		pairs &= rows[i].n == 2;
	start = pairs && nrows >= 2 && !notify_is_num(rows[0].f[1]) ? 1 : 0;
	for (i = start; pairs && i < nrows; i++)
		pairs &= !notify_is_num(rows[i].f[0]);
	for (i = start; pairs && i < nrows; i++)
		anyval |= notify_is_num(rows[i].f[1]);
	if (pairs && anyval) {
		for (i = start; i < nrows; i++)
			notify_put_pair(&b, &npairs, rows[i].f[0], rows[i].f[1]);
		goto done;
	}

	line = xstrndup(first, (size_t)(first_end - first));
	r = notify_flat(line);
	free(line);
	line = r;
	r = notify_cut(line, NOTIFY_FIRSTLINE_MAX);
	free(line);
	goto out;
 done:
	if (b.len > 0)
		r = notify_cut(buf_str(&b), NOTIFY_SUMMARY_MAX);
 out:
	for (i = 0; i < nrows; i++) {
		for (j = 0; j < rows[i].n; j++)
			free(rows[i].f[j]);
		free(rows[i].f);
	}
	free(rows);
	buf_free(&b);
	if (r != NULL && *r == '\0') {
		free(r);
		r = NULL;
	}
	return r;
}

/* ---- sink types: what each receiver wants ---- */

static char *
notify_body_generic(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	(void)s;
	(void)text;
	return notify_json_line(ev);
}

/* Slack reads &, < and > as markup; its docs ask for these three escapes. */
static char *
notify_body_slack(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	struct buf b = BUF_INIT;
	cJSON *o = cJSON_CreateObject();
	char *r;

	(void)s;
	(void)ev;
	for (; *text != '\0'; text++) {
		if (*text == '&')
			buf_puts(&b, "&amp;");
		else if (*text == '<')
			buf_puts(&b, "&lt;");
		else if (*text == '>')
			buf_puts(&b, "&gt;");
		else
			buf_putc(&b, *text);
	}
	cJSON_AddStringToObject(o, "text", buf_str(&b));
	r = notify_json_line(o);
	cJSON_Delete(o);
	buf_free(&b);
	return r;
}

/* A log line saying "@everyone" must not ping a whole Discord server. */
static char *
notify_body_discord(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	cJSON *o = cJSON_CreateObject(), *am;
	char *r;

	(void)s;
	(void)ev;
	cJSON_AddStringToObject(o, "content", text);
	am = cJSON_AddObjectToObject(o, "allowed_mentions");
	cJSON_AddArrayToObject(am, "parse");
	r = notify_json_line(o);
	cJSON_Delete(o);
	return r;
}

static char *
notify_body_telegram(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	cJSON *o = cJSON_CreateObject();
	char *r;

	(void)ev;
	cJSON_AddStringToObject(o, "chat_id", s->chat_id != NULL ? s->chat_id : "");
	cJSON_AddStringToObject(o, "text", text);
	cJSON_AddTrueToObject(o, "disable_web_page_preview");
	r = notify_json_line(o);
	cJSON_Delete(o);
	return r;
}

static char *
notify_body_plain(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	(void)s;
	(void)ev;
	return xstrdup(text);
}

static char *
notify_body_feishu(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	cJSON *o = cJSON_CreateObject(), *c;
	char *r;

	(void)s;
	(void)ev;
	cJSON_AddStringToObject(o, "msg_type", "text");
	c = cJSON_AddObjectToObject(o, "content");
	cJSON_AddStringToObject(c, "text", text);
	r = notify_json_line(o);
	cJSON_Delete(o);
	return r;
}

static char *
notify_body_dingtalk(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	cJSON *o = cJSON_CreateObject(), *c;
	char *r;

	(void)s;
	(void)ev;
	cJSON_AddStringToObject(o, "msgtype", "text");
	c = cJSON_AddObjectToObject(o, "text");
	cJSON_AddStringToObject(c, "content", text);
	r = notify_json_line(o);
	cJSON_Delete(o);
	return r;
}

static void
notify_req_header(struct notify_request *r, char *line /* transferred */)
{
	r->headers = xreallocarray(r->headers, r->nheaders + 1, sizeof(*r->headers));
	r->headers[r->nheaders++] = line;
}

static void
notify_headers_ntfy(const struct notify_sink *s, const cJSON *ev, struct notify_request *r)
{
	const struct notify_kind *k = notify_kind_find(notify_ev_str(ev, "event"));
	const char *prio = k->priority, *tags = k->tags;
	char *title = notify_title(ev, k), *tok;

	if (k->render == notify_text_verdict) {
		const struct notify_verdict_look *v = notify_verdict_find(notify_ev_str(ev, "verdict"));

		prio = v->priority;
		tags = v->tags;
	}
	if (*title != '\0')
		notify_req_header(r, xstrfmt("Title: %s", title));
	if (prio != NULL)
		notify_req_header(r, xstrfmt("Priority: %s", prio));
	if (tags != NULL)
		notify_req_header(r, xstrfmt("Tags: %s", tags));
	if (s->token != NULL) {
		tok = notify_header_value(s->token);
		notify_req_header(r, xstrfmt("Authorization: Bearer %s", tok));
		free(tok);
	}
	free(title);
}

static char *
notify_url_telegram(const struct notify_sink *s)
{
	size_t n = strlen(s->url);

	while (n > 0 && s->url[n - 1] == '/')
		n--;
	return xstrfmt("%.*s/bot%s/sendMessage", (int)n, s->url, s->token != NULL ? s->token : "");
}

/* feishu/lark answer 200 with {"code": 19021, "msg": "sign match fail"}. */
static int
notify_refused_feishu(const cJSON *a, long *code, const char **msg)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(a, "code");

	if (!cJSON_IsNumber(c))
		c = cJSON_GetObjectItemCaseSensitive(a, "StatusCode");
	if (!cJSON_IsNumber(c) || c->valuedouble == 0)
		return 0;
	*code = (long)c->valuedouble;
	*msg = json_str(a, "msg", json_str(a, "StatusMessage", ""));
	return 1;
}

/* dingtalk/wecom answer 200 with {"errcode": 310000, "errmsg": "..."}. */
static int
notify_refused_errcode(const cJSON *a, long *code, const char **msg)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(a, "errcode");

	if (!cJSON_IsNumber(c) || c->valuedouble == 0)
		return 0;
	*code = (long)c->valuedouble;
	*msg = json_str(a, "errmsg", "");
	return 1;
}

static const struct notify_type {
	const char	*name;
	const char	*ctype;		/* NULL: not HTTP (command) */
	char		*(*body)(const struct notify_sink *, const cJSON *, const char *);
	char		*(*url)(const struct notify_sink *);	/* NULL: the sink's url */
	void		(*headers)(const struct notify_sink *, const cJSON *, struct notify_request *);
	int		(*refused)(const cJSON *, long *, const char **);
	long		 busy_code;	/* a refusal code meaning "too fast": retry */
	size_t		 text_max;	/* 0: NOTIFY_TEXT_MAX is the only bound */
} notify_types[] = {
	{ "generic", "application/json", notify_body_generic, NULL, NULL, NULL, 0, 0 },
	{ "slack", "application/json", notify_body_slack, NULL, NULL, NULL, 0, 0 },
	{ "discord", "application/json", notify_body_discord, NULL, NULL, NULL, 0,
	  NOTIFY_DISCORD_MAX },
	{ "telegram", "application/json", notify_body_telegram, notify_url_telegram, NULL, NULL,
	  0, 0 },
	{ "ntfy", "text/plain; charset=utf-8", notify_body_plain, NULL, notify_headers_ntfy, NULL,
	  0, 0 },
	{ "feishu", "application/json", notify_body_feishu, NULL, NULL, notify_refused_feishu,
	  11232, 0 },
	{ "lark", "application/json", notify_body_feishu, NULL, NULL, notify_refused_feishu,
	  11232, 0 },
	{ "dingtalk", "application/json", notify_body_dingtalk, NULL, NULL,
	  notify_refused_errcode, 130101, 0 },
	{ "wecom", "application/json", notify_body_dingtalk, NULL, NULL, notify_refused_errcode,
	  45009, 0 },
	{ "command", NULL, NULL, NULL, NULL, NULL, 0, 0 },
};

static const struct notify_type *
notify_type_find(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof(notify_types) / sizeof(notify_types[0]); i++)
		if (strcmp(notify_types[i].name, name) == 0)
			return &notify_types[i];
	return NULL;
}

/* ---- loading ---- */

static void
notify_secret_add(struct notify_sinks *all, const char *s)
{
	size_t i;

	if (s == NULL || *s == '\0')
		return;
	for (i = 0; i < all->nsecrets; i++)
		if (strcmp(all->secrets[i], s) == 0)
			return;
	all->secrets = xreallocarray(all->secrets, all->nsecrets + 1, sizeof(*all->secrets));
	all->secrets[all->nsecrets++] = xstrdup(s);
}

/* A URL and, when long enough to be a credential by itself, its path and query. */
static void
notify_secret_add_url(struct notify_sinks *all, const char *url)
{
	const char *p;

	notify_secret_add(all, url);
	if (url != NULL && (p = strstr(url, "://")) != NULL && (p = strchr(p + 3, '/')) != NULL &&
	    strlen(p) >= NOTIFY_PATH_SECRET_MIN)
		notify_secret_add(all, p);
}

static int
notify_env_name_ok(const char *s)
{
	size_t i;

	if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/*
 * Where url_env/token_env values come from: the secrets file patrol sent
 * (on the box only; NULL elsewhere), then the environment.  problem: the
 * file exists but cannot be used (every sink that takes a value by name is
 * held: its events stay in the outbox).
 */
struct notify_src {
	const cJSON	*file;
	const char	*path;
	const char	*problem;
};

/*
 * A secret from the config (key), the secrets file or the environment
 * (envkey).  A problem lands in *missing (the first one wins) and names the
 * variable, never a value: not even a value pasted into envkey by mistake.
 */
static void
notify_resolve(const struct notify_src *src, const cJSON *it, const char *key,
    const char *envkey, char **val, char **missing)
{
	const char *v = json_str(it, key, NULL), *name = json_str(it, envkey, NULL), *e;
	char *why = NULL;

	if (v != NULL && *v != '\0') {
		*val = xstrdup(v);
		return;
	}
	if (name == NULL)
		return;
	e = NULL;
	if (!notify_env_name_ok(name))
		why = xstrfmt("\"%s\" is not an environment variable name (a value pasted there? "
		    "put it in the environment and name the variable)", envkey);
	else if (src->problem != NULL)
		why = xstrfmt("%s cannot be used (%s); %s is not read until it is fixed",
		    src->path, src->problem, name);
	else if ((e = json_str(src->file, name, NULL)) != NULL && *e != '\0')
		;	/* the file is what the owner sent last: it wins */
	else if ((e = getenv(name)) == NULL)
		why = src->path != NULL ? xstrfmt("environment variable %s is not set (nor in %s: "
		    "`patrol deploy` sends it from the owner's environment)", name, src->path) :
		    xstrfmt("environment variable %s is not set", name);
	else if (*e == '\0')
		why = xstrfmt("environment variable %s is empty", name);
	if (why == NULL && e != NULL)
		*val = xstrdup(e);
	if (why != NULL && *missing == NULL)
		*missing = why;	/* transferred */
	else
		free(why);
}

static void
notify_sink_init(struct notify_sinks *all, const struct notify_src *src, struct notify_sink *s,
    const cJSON *it, int index)
{
	const cJSON *chat = cJSON_GetObjectItemCaseSensitive(it, "chat_id");
	const cJSON *evs = cJSON_GetObjectItemCaseSensitive(it, "events"), *e;
	const char *type = json_str(it, "type", "generic");
	char *full;

	s->index = index;
	s->type = xstrdup(type);
	snprintf(s->id, sizeof(s->id), "%d-%s", index, type);
	if (strcmp(type, "command") == 0)
		s->command = xstrdup_or_null(json_str(it, "command", NULL));
	else
		notify_resolve(src, it, "url", "url_env", &s->url, &s->missing);
	notify_resolve(src, it, "token", "token_env", &s->token, &s->missing);
	if (cJSON_IsString(chat))
		s->chat_id = xstrdup(chat->valuestring);
	else if (cJSON_IsNumber(chat))
		s->chat_id = xstrfmt("%.0f", chat->valuedouble);
	if (cJSON_IsArray(evs)) {
		s->events = xcalloc((size_t)cJSON_GetArraySize(evs) + 1, sizeof(*s->events));
		cJSON_ArrayForEach(e, evs)
			if (cJSON_IsString(e))
				s->events[s->nevents++] = xstrdup(e->valuestring);
	}
	if (strcmp(type, "telegram") == 0) {
		if (s->url == NULL && s->missing == NULL)
			s->url = xstrdup(TELEGRAM_API);
		if (s->token == NULL && s->missing == NULL)
			s->missing = xstrdup("no bot token (set \"token_env\")");
		if (s->url != NULL && s->token != NULL) {
			full = notify_url_telegram(s);
			notify_secret_add(all, full);
			free(full);
		}
	} else if (s->url == NULL && s->missing == NULL && notify_type_find(type) != NULL &&
	    notify_type_find(type)->ctype != NULL)
		s->missing = xstrdup("no URL (set \"url_env\")");
	notify_secret_add_url(all, s->url);
	notify_secret_add(all, s->token);
}

static int
notify_sinks_build(const struct wk_config *cfg, const struct notify_src *src,
    struct notify_sinks *out)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cfg->root, "notify"), *it;
	int n;

	out->connect_timeout_s = config_get_int(cfg, "outbox.connect_timeout_s");
	out->timeout_s = config_get_int(cfg, "outbox.timeout_s");
	if (!cJSON_IsArray(arr) || (n = cJSON_GetArraySize(arr)) == 0)
		return 0;
	out->v = xcalloc((size_t)n, sizeof(*out->v));
	cJSON_ArrayForEach(it, arr) {
		notify_sink_init(out, src, &out->v[out->n], it, (int)out->n);
		out->n++;
	}
	return 0;
}

int
notify_sinks_load(const struct wk_config *cfg, struct notify_sinks *out)
{
	struct notify_src src = { NULL, NULL, NULL };

	memset(out, 0, sizeof(*out));
	return notify_sinks_build(cfg, &src, out);
}

/* ---- the secrets file (patrol/secrets.c writes it) ---- */

int
notify_secrets_read(const char *path, cJSON **out, char **why)
{
	struct stat st;
	struct buf b = BUF_INIT;
	const char *end = NULL;
	const cJSON *it;
	cJSON *doc = NULL;
	char chunk[4096];
	ssize_t n;
	int fd, rc = WK_ERR_INVALID;

	*out = NULL;
	*why = NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 1;
		*why = errno == ELOOP ? xstrdup("it is a symbolic link") :
		    xstrfmt("cannot open it: %s", strerror(errno));
		return errno == ELOOP ? WK_ERR_INVALID : WK_ERR_SYSTEM;
	}
	if (fstat(fd, &st) != 0) {
		*why = xstrfmt("cannot stat it: %s", strerror(errno));
		rc = WK_ERR_SYSTEM;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = xstrdup("it is not a regular file");
		goto out;
	}
	if (st.st_uid != geteuid()) {
		*why = xstrfmt("it is owned by uid %ld, not by this user (uid %ld)",
		    (long)st.st_uid, (long)geteuid());
		goto out;
	}
	if ((st.st_mode & 077) != 0) {
		*why = xstrfmt("its mode is %04o: group or others have access; it must be 0600 "
		    "(`patrol deploy` writes it so)", (unsigned int)(st.st_mode & 07777));
		goto out;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = xstrfmt("cannot read it: %s", strerror(errno));
			rc = WK_ERR_SYSTEM;
			goto out;
		}
		if (b.len + (size_t)n > NOTIFY_SECRETS_MAX) {
			*why = xstrfmt("it is larger than %u bytes", (unsigned int)NOTIFY_SECRETS_MAX);
			goto out;
		}
		buf_append(&b, chunk, (size_t)n);
	}
	/* Never quote the text: it holds secrets.  The line is all a person needs. */
	if ((doc = cJSON_ParseWithLengthOpts(buf_str(&b), b.len + 1, &end, 1)) == NULL) {
		*why = xstrfmt("line %d: not valid JSON", jsonc_line_at(buf_str(&b),
		    end != NULL && end >= buf_str(&b) ? (size_t)(end - buf_str(&b)) : 0));
		rc = WK_ERR_PARSE;
		goto out;
	}
	if (!cJSON_IsObject(doc)) {
		*why = xstrdup("not a JSON object of \"NAME\": \"value\" pairs");
		rc = WK_ERR_PARSE;
		goto out;
	}
	cJSON_ArrayForEach(it, doc) {
		if (it->string == NULL || !notify_env_name_ok(it->string)) {
			*why = xstrdup("a key is not an environment variable name");
			rc = WK_ERR_PARSE;
			goto out;
		}
		if (!cJSON_IsString(it)) {
			*why = xstrfmt("\"%s\": the value is not a string", it->string);
			rc = WK_ERR_PARSE;
			goto out;
		}
	}
	*out = doc;
	doc = NULL;	/* transferred */
	rc = 0;
out:
	close(fd);
	cJSON_Delete(doc);
	/* The text held secrets: do not leave them in freed memory longer than needed. */
	if (b.data != NULL)
		memset(b.data, 0, b.len);
	buf_free(&b);
	return rc;
}

/* What notify_resolve would look up for each sink (see notify.h). */
static const struct notify_env_key {
	const char	*envkey;
	const char	*literal;
	int		 not_command;
} notify_env_keys[] = {
	{ "url_env", "url", 1 },
	{ "token_env", "token", 0 },
};

void
notify_secret_names(const struct wk_config *cfg, int warn, char ***names, size_t *n)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cfg->root, "notify"), *it;
	const struct notify_env_key *k;
	const char *name, *lit;
	size_t i, j;
	int idx = 0;

	*names = NULL;
	*n = 0;
	cJSON_ArrayForEach(it, arr) {
		for (i = 0; i < sizeof(notify_env_keys) / sizeof(notify_env_keys[0]); i++) {
			k = &notify_env_keys[i];
			if (k->not_command && strcmp(json_str(it, "type", "generic"), "command") == 0)
				continue;
			lit = json_str(it, k->literal, NULL);
			if ((name = json_str(it, k->envkey, NULL)) == NULL ||
			    (lit != NULL && *lit != '\0'))
				continue;
			if (!notify_env_name_ok(name)) {
				/* It may be a value pasted there: never print it. */
				if (warn)
					log_warn("notify[%d].%s is not an environment variable "
					    "name; nothing is sent for it", idx, k->envkey);
				continue;
			}
			for (j = 0; j < *n && strcmp((*names)[j], name) != 0; j++)
				;
			if (j < *n)
				continue;
			*names = xreallocarray(*names, *n + 1, sizeof(**names));
			(*names)[(*n)++] = xstrdup(name);
		}
		idx++;
	}
}

int
notify_sinks_load_box(const struct wk_config *cfg, struct notify_sinks *out)
{
	struct notify_src src = { NULL, NULL, NULL };
	const cJSON *it;
	cJSON *file = NULL;
	char *path = layout_path(cfg->workdir, NOTIFY_SECRETS_FILE), *why = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	src.path = path;
	if ((r = notify_secrets_read(path, &file, &why)) < 0) {
		log_error("%s: %s; refusing it: every sink that names a url_env/token_env is "
		    "held and its events stay in the outbox (send it again with `patrol deploy`)", path, why);
		src.problem = why;
	}
	src.file = file;
	/* Every value it holds is a secret, whether a sink uses it or not. */
	cJSON_ArrayForEach(it, file)
		notify_secret_add_url(out, it->valuestring);
	notify_sinks_build(cfg, &src, out);
	cJSON_Delete(file);
	free(why);
	free(path);
	return 0;
}

void
notify_sinks_free(struct notify_sinks *s)
{
	size_t i, j;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		struct notify_sink *k = &s->v[i];

		free(k->type);
		free(k->url);
		free(k->token);
		free(k->chat_id);
		free(k->command);
		for (j = 0; j < k->nevents; j++)
			free(k->events[j]);
		free(k->events);
		free(k->missing);
	}
	free(s->v);
	for (i = 0; i < s->nsecrets; i++)
		free(s->secrets[i]);
	free(s->secrets);
	memset(s, 0, sizeof(*s));
}

int
notify_wants(const struct notify_sink *s, const char *event_type)
{
	size_t i;

	if (event_type != NULL && strcmp(event_type, "test") == 0)
		return 1;
	if (s->events == NULL)
		return 1;
	for (i = 0; event_type != NULL && i < s->nevents; i++)
		if (strcmp(s->events[i], event_type) == 0)
			return 1;
	return 0;
}

/* ---- requests ---- */

void
notify_request_free(struct notify_request *r)
{
	size_t i;

	if (r == NULL)
		return;
	free(r->url);
	for (i = 0; i < r->nheaders; i++)
		free(r->headers[i]);
	free(r->headers);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

int
notify_request_build(const struct notify_sinks *all, const struct notify_sink *s,
    const cJSON *ev, struct notify_request *out)
{
	const struct notify_type *t = notify_type_find(s->type);
	char *text = NULL, *clean = NULL, *cut = NULL, *raw = NULL, *id = NULL;
	int r = WK_ERR_INVALID;

	memset(out, 0, sizeof(*out));
	if (s->missing != NULL || t == NULL)
		goto out;
	if (t->ctype == NULL) {
		if (s->command == NULL)
			goto out;
		text = notify_json_line(ev);
		raw = xstrfmt("%s\n", text);
	} else {
		if (s->url == NULL)
			goto out;
		text = notify_text(ev);
		clean = notify_scrub(all, text);
		cut = notify_cut(clean, t->text_max != 0 ? t->text_max : NOTIFY_TEXT_MAX);
		raw = t->body(s, ev, cut);
		out->url = t->url != NULL ? t->url(s) : xstrdup(s->url);
		notify_req_header(out, xstrfmt("Content-Type: %s", t->ctype));
		notify_req_header(out, xstrfmt("User-Agent: watchkeeper/%s", WK_VERSION));
		id = notify_header_value(json_str(ev, "id", ""));
		notify_req_header(out, xstrfmt("X-Watchkeeper-Event-Id: %s", id));
		if (t->headers != NULL)
			t->headers(s, ev, out);
	}
	out->body = notify_scrub(all, raw);
	out->body_len = strlen(out->body);
	r = 0;
 out:
	free(text);
	free(clean);
	free(cut);
	free(raw);
	free(id);
	return r;
}

/* ---- judging ---- */

enum notify_outcome { NJ_OK, NJ_RETRY, NJ_PERM };

/*
 * HTTP statuses, first match wins.  Every message takes the status (%ld)
 * and then a detail (%s: "" or ": <the receiver's words>").
 */
static const struct notify_http_rule {
	long		 lo, hi;
	enum notify_outcome outcome;
	int		 detail;	/* quote the receiver's answer */
	const char	*fmt;
} notify_http_rules[] = {
	{ 200, 299, NJ_OK, 0, NULL },
	{ 300, 399, NJ_PERM, 0, "HTTP %ld: the receiver redirects; set the final URL%s" },
	{ 401, 401, NJ_PERM, 0, "HTTP %ld: not authorised: the token or URL is wrong or revoked%s" },
	{ 403, 403, NJ_PERM, 0, "HTTP %ld: not authorised: the token or URL is wrong or revoked%s" },
	{ 404, 404, NJ_PERM, 0,
	  "HTTP %ld: the URL is wrong (the receiver says this address does not exist)%s" },
	{ 408, 408, NJ_RETRY, 0, "HTTP %ld: the receiver timed out reading the message; will retry%s" },
	{ 410, 410, NJ_PERM, 0, "the webhook was deleted (HTTP %ld)%s" },
	{ 429, 429, NJ_RETRY, 0, "HTTP %ld: rate limited; will retry%s" },
	{ 400, 499, NJ_PERM, 1, "HTTP %ld: the receiver rejected the message%s" },
	{ 500, 599, NJ_RETRY, 0, "HTTP %ld: the receiver is failing; will retry%s" },
	{ LONG_MIN, LONG_MAX, NJ_RETRY, 1, "HTTP %ld: an answer watchkeeper does not understand; "
	  "will retry%s" },
};

/*
 * libcurl failures; the last entry catches the rest.  %ld, when present, is
 * the timeout; detail appends libcurl's own words (scrubbed).
 */
static const struct notify_curl_rule {
	int		 code;		/* -1: any */
	enum notify_outcome outcome;
	int		 detail;
	const char	*fmt;
} notify_curl_rules[] = {
	{ CURLE_OPERATION_TIMEDOUT, NJ_RETRY, 0, "no answer within %ld s (timeout); will retry" },
	{ CURLE_COULDNT_CONNECT, NJ_RETRY, 0, "connection refused: the receiver is down; will retry" },
	{ CURLE_COULDNT_RESOLVE_HOST, NJ_RETRY, 0, "cannot resolve the host (DNS); will retry" },
	{ CURLE_COULDNT_RESOLVE_PROXY, NJ_RETRY, 0, "cannot resolve the proxy (DNS); will retry" },
	{ CURLE_SSL_CONNECT_ERROR, NJ_RETRY, 1, "TLS handshake with the receiver failed; will retry" },
	{ CURLE_PEER_FAILED_VERIFICATION, NJ_PERM, 1, "TLS: the receiver's certificate does not verify" },
	{ CURLE_SSL_CACERT_BADFILE, NJ_PERM, 1, "TLS: cannot read the CA certificates" },
	{ CURLE_SSL_CERTPROBLEM, NJ_PERM, 1, "TLS: a problem with the local certificate" },
	{ CURLE_SSL_ENGINE_NOTFOUND, NJ_PERM, 1, "TLS: the crypto engine is missing" },
	{ CURLE_URL_MALFORMAT, NJ_PERM, 0, "the URL is malformed" },
	{ CURLE_UNSUPPORTED_PROTOCOL, NJ_PERM, 0, "the URL is not http:// or https://" },
	{ CURLE_GOT_NOTHING, NJ_RETRY, 0,
	  "the receiver closed the connection without answering; will retry" },
	{ CURLE_SEND_ERROR, NJ_RETRY, 1, "the connection broke while sending; will retry" },
	{ CURLE_RECV_ERROR, NJ_RETRY, 1, "the connection broke while reading the answer; will retry" },
	{ -1, NJ_RETRY, 1, "delivery failed; will retry" },
};

/* The receiver's words for a why: a JSON error field if there is one, one line, capped. */
static char *
notify_answer_words(const char *answer)
{
	static const char *const keys[] = { "description", "message", "error", "msg", "errmsg" };
	cJSON *doc = answer != NULL ? cJSON_Parse(answer) : NULL;
	const char *w = answer;
	char *flat, *r;
	size_t i;

	for (i = 0; cJSON_IsObject(doc) && i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (json_str(doc, keys[i], NULL) != NULL) {
			w = json_str(doc, keys[i], NULL);
			break;
		}
	}
	flat = notify_flat(w != NULL ? w : "");
	r = notify_cut(flat, NOTIFY_DETAIL_MAX);
	free(flat);
	cJSON_Delete(doc);
	return r;
}

static int
notify_code_of(enum notify_outcome o, int curl_code)
{
	if (o == NJ_OK)
		return 0;
	if (o == NJ_PERM)
		return WK_ERR_INVALID;
	if (curl_code == CURLE_OPERATION_TIMEDOUT)
		return WK_ERR_TIMEOUT;
	errno = curl_code == CURLE_COULDNT_CONNECT ? ECONNREFUSED : EAGAIN;
	return WK_ERR_SYSTEM;
}

int
notify_judge(const struct notify_sinks *all, const struct notify_sink *s, int curl_code,
    const char *curl_error, long http_status, const char *answer, char **why, int *permanent)
{
	const struct notify_type *t = notify_type_find(s->type);
	const struct notify_http_rule *h;
	const struct notify_curl_rule *c;
	enum notify_outcome o;
	struct buf b = BUF_INIT;
	char *words = NULL, *detail = NULL;
	const char *msg = "";
	cJSON *doc = NULL;
	long code = 0, secs;

	*why = NULL;
	*permanent = 0;
	if (curl_code != CURLE_OK) {
		for (c = notify_curl_rules; c->code != -1 && c->code != curl_code; c++)
			;
		o = c->outcome;
		secs = all != NULL ? all->timeout_s : 0;
		if (curl_error != NULL && (strncmp(curl_error, "Connection timed out", 20) == 0 ||
		    strncmp(curl_error, "Failed to connect", 17) == 0) && all != NULL)
			secs = all->connect_timeout_s;
		buf_printf(&b, c->fmt, secs);
		if (c->code == -1 && curl_api_get(NULL) != NULL)
			buf_printf(&b, " (%s)", curl_api_get(NULL)->easy_strerror((CURLcode)curl_code));
		else if (c->code == -1)
			buf_printf(&b, " (curl error %d)", curl_code);
		if (c->detail && curl_error != NULL && *curl_error != '\0') {
			words = notify_flat(curl_error);
			detail = notify_cut(words, NOTIFY_DETAIL_MAX);
			buf_printf(&b, ": %s", detail);
		}
		goto done;
	}
	for (h = notify_http_rules; http_status < h->lo || http_status > h->hi; h++)
		;
	o = h->outcome;
	if (o == NJ_OK) {
		if (t != NULL && t->refused != NULL && answer != NULL &&
		    (doc = cJSON_Parse(answer)) != NULL && t->refused(doc, &code, &msg)) {
			o = t->busy_code != 0 && code == t->busy_code ? NJ_RETRY : NJ_PERM;
			words = notify_flat(msg);
			detail = notify_cut(words, NOTIFY_DETAIL_MAX);
			buf_printf(&b, "HTTP %ld but the receiver refused: %ld%s%s%s", http_status, code,
			    *detail != '\0' ? " " : "", detail, o == NJ_RETRY ? "; will retry" : "");
		}
		goto done;
	}
	if (h->detail)
		words = notify_answer_words(answer);
	detail = words != NULL && *words != '\0' ? xstrfmt(": %s", words) : xstrdup("");
	buf_printf(&b, h->fmt, http_status, detail);
 done:
	*permanent = o == NJ_PERM;
	if (o != NJ_OK)
		*why = notify_scrub(all, buf_str(&b));
	buf_free(&b);
	free(words);
	free(detail);
	cJSON_Delete(doc);
	return notify_code_of(o, curl_code);
}

/* ---- HTTP delivery ---- */

struct notify_answer {
	struct buf	b;
	size_t		cap;
};

static size_t
notify_curl_write(char *p, size_t size, size_t n, void *arg)
{
	struct notify_answer *a = arg;
	size_t len = size * n;

	if (a->b.len < a->cap)
		buf_append(&a->b, p, len > a->cap - a->b.len ? a->cap - a->b.len : len);
	return len;
}


static int
notify_http(const struct notify_sinks *all, const struct notify_sink *s,
    const struct notify_request *rq, char **why, int *permanent)
{
	struct notify_answer ans = { BUF_INIT, NOTIFY_ANSWER_MAX };
	struct curl_slist *hdrs = NULL, *h;
	char errbuf[CURL_ERROR_SIZE];
	CURL *c = NULL;
	CURLcode rc;
	const struct curl_api *api;
	const char *nocurl = NULL, *ca;
	long status = 0;
	size_t i;
	int r, saved;

	if ((api = curl_api_get(&nocurl)) == NULL)
		return curlcmd_send(all, s, rq, nocurl, why, permanent);
	if ((c = api->easy_init()) == NULL) {
		*why = xstrdup("cannot start libcurl; will retry");
		*permanent = 0;
		errno = EAGAIN;
		r = WK_ERR_SYSTEM;
		goto out;
	}
	for (i = 0; i <= rq->nheaders; i++) {
		/* "Expect:" turns off 100-continue, which some webhook receivers mishandle. */
		if ((h = api->slist_append(hdrs, i < rq->nheaders ? rq->headers[i] : "Expect:")) == NULL)
			abort();
		hdrs = h;
	}
	errbuf[0] = '\0';
	api->easy_setopt(c, CURLOPT_URL, rq->url);
	api->easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	api->easy_setopt(c, CURLOPT_POST, 1L);
	api->easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
	api->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
	api->easy_setopt(c, CURLOPT_CONNECTTIMEOUT, all->connect_timeout_s);
	api->easy_setopt(c, CURLOPT_TIMEOUT, all->timeout_s);
	api->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	api->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	api->easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	api->easy_setopt(c, CURLOPT_WRITEFUNCTION, notify_curl_write);
	api->easy_setopt(c, CURLOPT_WRITEDATA, &ans);
	/* The same CA bundle the curl command is given; a failure stays a failure. */
	if ((ca = curlcmd_cafile()) != NULL)
		api->easy_setopt(c, CURLOPT_CAINFO, ca);
#if LIBCURL_VERSION_NUM >= 0x075500
	api->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	api->easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	rc = api->easy_perform(c);
	if (rc == CURLE_OK)
		api->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	r = notify_judge(all, s, (int)rc, errbuf, status, buf_str(&ans.b), why, permanent);
 out:
	saved = errno;
	if (c != NULL)
		api->easy_cleanup(c);
	if (api != NULL)
		api->slist_free_all(hdrs);
	buf_free(&ans.b);
	errno = saved;
	return r;
}

/* ---- command delivery ---- */

/*
 * A command's exit status, first match wins; every message takes the status
 * (%d) and a detail (%s: "" or ": <its last line of output>").
 */
static const struct notify_exit_rule {
	int		 code;		/* -1: any */
	enum notify_outcome outcome;
	const char	*fmt;
} notify_exit_rules[] = {
	{ 0, NJ_OK, NULL },
	{ 126, NJ_PERM, "the command cannot be executed (exit %d)%s" },
	{ 127, NJ_PERM, "the command was not found (exit %d)%s" },
	{ -1, NJ_RETRY, "the command exited %d%s" },
};

/* The environment for a command: ours plus the event's id and type (own[], caller frees). */
static char **
notify_command_env(const cJSON *ev, char *own[2])
{
	size_t n, k = 0, i;
	char **env;

	for (n = 0; environ[n] != NULL; n++)
		;
	env = xcalloc(n + 3, sizeof(*env));
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "WATCHKEEPER_EVENT_ID=", 21) != 0 &&
		    strncmp(environ[i], "WATCHKEEPER_EVENT=", 18) != 0)
			env[k++] = environ[i];
	own[0] = xstrfmt("WATCHKEEPER_EVENT_ID=%s", json_str(ev, "id", ""));
	own[1] = xstrfmt("WATCHKEEPER_EVENT=%s", json_str(ev, "event", ""));
	env[k++] = own[0];
	env[k++] = own[1];
	return env;
}

/* The last non-blank line of out, one line, capped, as ": <line>"; "" when none. */
static char *
notify_output_detail(const char *out)
{
	const char *p, *e, *best = NULL, *best_end = NULL;
	char *line, *flat, *cut, *r;

	for (p = out; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		e = p + strcspn(p, "\n");
		if (p + strspn(p, " \t\r") < e) {
			best = p;
			best_end = e;
		}
	}
	if (best == NULL)
		return xstrdup("");
	line = xstrndup(best, (size_t)(best_end - best));
	flat = notify_flat(line);
	cut = notify_cut(flat, NOTIFY_DETAIL_MAX);
	r = xstrfmt(": %s", cut);
	free(line);
	free(flat);
	free(cut);
	return r;
}

static void
notify_read_some(int *fd, struct buf *b)
{
	char chunk[4096];
	ssize_t n;

	while (*fd >= 0) {
		n = read(*fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;	/* EAGAIN: later */
		if (n == 0) {
			close(*fd);
			*fd = -1;
			return;
		}
		if (b->len < NOTIFY_CMD_OUT_MAX)
			buf_append(b, chunk, (size_t)n > NOTIFY_CMD_OUT_MAX - b->len ?
			    NOTIFY_CMD_OUT_MAX - b->len : (size_t)n);
	}
}

/* SIGTERM to the group, SIGKILL after a grace.  Returns 1 when SIGKILL was needed. */
static int
notify_kill(pid_t pid, int *status)
{
	struct deadline grace;
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	kill(-pid, SIGTERM);
	deadline_set(&grace, NOTIFY_KILL_GRACE_MS);
	while (!deadline_expired(&grace)) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 0;
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL);
	spawn_wait(pid, status);
	return 1;
}

static int
notify_command(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev,
    const struct notify_request *rq, char **why, int *permanent)
{
	const struct notify_exit_rule *x;
	struct spawn_opts o;
	struct deadline dl;
	struct buf out = BUF_INIT, msg = BUF_INIT;
	sigset_t pipeset, oldmask, before, after;
	char **env = NULL, *own[2] = { NULL, NULL }, *detail = NULL;
	int in[2] = { -1, -1 }, outp[2] = { -1, -1 }, status = 0, exited = 0, killed = 0, r;
	int hard = 0, epipe = 0, lost = 0;
	size_t off = 0;
	pid_t pid, w;
	ssize_t n;

	*permanent = 0;
	sigemptyset(&pipeset);
	sigaddset(&pipeset, SIGPIPE);
	sigpending(&before);
	/* A command that exits without reading stdin must not kill us with SIGPIPE. */
	sigprocmask(SIG_BLOCK, &pipeset, &oldmask);
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(outp, O_CLOEXEC) != 0) {
		buf_printf(&msg, "cannot run the command: %s; will retry", strerror(errno));
		r = WK_ERR_SYSTEM;
		goto out;
	}
	env = notify_command_env(ev, own);
	spawn_opts_init(&o);
	o.fd_in = in[0];
	o.fd_out = outp[1];
	o.fd_err = SPAWN_STDOUT;
	o.new_pgrp = 1;
	o.env = env;
	pid = spawn_sh(s->command, &o);
	close(in[0]);
	close(outp[1]);
	in[0] = outp[1] = -1;
	if (pid < 0) {
		buf_printf(&msg, "cannot run the command: %s; will retry", strerror(errno));
		r = WK_ERR_EXEC;
		goto out;
	}
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(outp[0], F_SETFL, O_NONBLOCK);
	deadline_set(&dl, (uint64_t)(all->timeout_s > 0 ? all->timeout_s : 1) * 1000);
	while (!exited && !killed) {
		struct pollfd pf[2];
		nfds_t np = 0;

		if (in[1] >= 0 && off == rq->body_len) {
			close(in[1]);
			in[1] = -1;
		}
		if (outp[0] >= 0)
			pf[np++] = (struct pollfd){ .fd = outp[0], .events = POLLIN };
		if (in[1] >= 0)
			pf[np++] = (struct pollfd){ .fd = in[1], .events = POLLOUT };
		if (poll(pf, np, deadline_poll_timeout(&dl, 1, NOTIFY_POLL_SLICE_MS)) < 0 &&
		    errno != EINTR)
			break;
		notify_read_some(&outp[0], &out);
		if (in[1] >= 0) {
			n = write(in[1], rq->body + off, rq->body_len - off);
			if (n > 0)
				off += (size_t)n;
			else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				/* EPIPE: it stopped reading; its exit status decides. */
				epipe |= errno == EPIPE;
				close(in[1]);
				in[1] = -1;
			}
		}
		if ((w = waitpid(pid, &status, WNOHANG)) == pid)
			exited = 1;
		else if (w < 0 && errno == ECHILD) {
			/* Someone else reaped it (a SIGCHLD handler): its verdict is lost. */
			lost = exited = 1;
		} else if (deadline_expired(&dl)) {
			hard = notify_kill(pid, &status);
			killed = 1;
		}
	}
	if (!exited && !killed) {
		hard = notify_kill(pid, &status);
		killed = 1;
	}
	/* What it wrote before exiting; a background child holding the pipe is not waited for. */
	notify_read_some(&outp[0], &out);
	if (killed) {
		buf_printf(&msg, "the command did not finish within %ld s; killed%s; will retry",
		    all->timeout_s, hard ? " (it ignored SIGTERM)" : "");
		r = WK_ERR_TIMEOUT;
		goto out;
	}
	detail = notify_output_detail(buf_str(&out));
	if (lost) {
		buf_printf(&msg, "the command's exit status was taken by another waiter%s; will retry",
		    detail);
		r = WK_ERR_SYSTEM;
		goto out;
	}
	if (WIFSIGNALED(status)) {
		buf_printf(&msg, "the command was killed by signal %d%s; will retry", WTERMSIG(status),
		    detail);
		errno = EAGAIN;
		r = WK_ERR_SYSTEM;
		goto out;
	}
	for (x = notify_exit_rules; x->code != -1 && x->code != WEXITSTATUS(status); x++)
		;
	if (x->outcome != NJ_OK)
		buf_printf(&msg, x->fmt, WEXITSTATUS(status), detail);
	*permanent = x->outcome == NJ_PERM;
	r = notify_code_of(x->outcome, 0);
 out:
	if (in[0] >= 0)
		close(in[0]);
	if (in[1] >= 0)
		close(in[1]);
	if (outp[0] >= 0)
		close(outp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	sigpending(&after);
	if (epipe || (sigismember(&after, SIGPIPE) && !sigismember(&before, SIGPIPE))) {
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&pipeset, NULL, &zero) == SIGPIPE)
			;
	}
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (msg.len > 0)
		*why = notify_scrub(all, buf_str(&msg));
	free(own[0]);
	free(own[1]);
	free(env);
	free(detail);
	buf_free(&out);
	buf_free(&msg);
	if (r == WK_ERR_SYSTEM)
		errno = EAGAIN;
	return r;
}

/* ---- sending ---- */

int
notify_send(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev,
    char **why, int *permanent)
{
	const struct notify_type *t = notify_type_find(s->type);
	struct notify_request rq;
	int r;

	*why = NULL;
	*permanent = 0;
	if (s->missing != NULL || t == NULL) {
		*why = s->missing != NULL ? notify_scrub(all, s->missing) :
		    xstrfmt("unknown sink type \"%s\"", s->type);
		*permanent = 1;
		return WK_ERR_INVALID;
	}
	if (notify_request_build(all, s, ev, &rq) != 0) {
		*why = xstrdup(t->ctype == NULL ? "no command to run" : "no URL to send to");
		*permanent = 1;
		return WK_ERR_INVALID;
	}
	if (t->ctype == NULL)
		r = notify_command(all, s, ev, &rq, why, permanent);
	else
		r = notify_http(all, s, &rq, why, permanent);
	notify_request_free(&rq);
	return r;
}
