/*
 * notify-text.c: the words of a notification (see notify.h, notify-int.h).
 *
 * How each event kind reads is one table (notify_kinds[]: the line's
 * renderer, ntfy's title word, priority and tags; monit's Event_Table
 * shape), walked by notify_text() and notify_ntfy_look(); patrol verdicts
 * have their own small table.  Beside it the text helpers every part of
 * notify uses (a cut at a UTF-8 boundary, one flat line, a header value,
 * an event field) and the results-file summary.  Nothing here knows a
 * receiver, a secret or a transport.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonc.h"
#include "jsonfile.h"
#include "monotime.h"
#include "notify-int.h"
#include "traceback.h"
#include "xmalloc.h"

#define ELLIPSIS	"\xe2\x80\xa6"
#define SEP		" \xc2\xb7 "

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
char *
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
char *
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
char *
notify_json_line(const cJSON *v)
{
	char *p = cJSON_PrintUnformatted(v), *r;

	if (p == NULL)
		abort();
	r = xstrdup(p);
	cJSON_free(p);
	return r;
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

/* "[run] stage attempt N WORD": the head of a line about one attempt. */
static void
notify_put_head(struct buf *b, const cJSON *ev, const char *word)
{
	notify_put_run(b, ev);
	notify_put_word(b, notify_ev_str(ev, "stage"));
	notify_put_attempt(b, ev, "attempt %ld");
	notify_put_word(b, word);
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
	notify_put_head(b, ev, "REQUEUED by Slurm");
	buf_puts(b, " (job ");
	notify_put_flat(b, notify_ev_str(ev, "job_id") != NULL ? notify_ev_str(ev, "job_id") : "?");
	buf_printf(b, ", restart %ld)", notify_ev_long(ev, "slurm_restart_count", 0));
}

/* "[run] train attempt 2 STOPPED on purpose by onbox stop (root@gpu1) · SIGTERM" */
static void
notify_text_stopped(struct buf *b, const cJSON *ev)
{
	notify_put_head(b, ev, "STOPPED on purpose");
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

	notify_put_head(b, ev, "LOST");
	if (cls != NULL) {
		buf_puts(b, " (");
		notify_put_flat(b, cls);
		buf_putc(b, ')');
	}
}

static void
notify_text_alert(struct buf *b, const cJSON *ev)
{
	notify_put_head(b, ev, "ALERT");
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

/* What ntfy shows for ev (see notify-int.h). */
char *
notify_ntfy_look(const cJSON *ev, const char **prio, const char **tags)
{
	const struct notify_kind *k = notify_kind_find(notify_ev_str(ev, "event"));

	*prio = k->priority;
	*tags = k->tags;
	if (k->render == notify_text_verdict) {
		const struct notify_verdict_look *v = notify_verdict_find(notify_ev_str(ev, "verdict"));

		*prio = v->priority;
		*tags = v->tags;
	}
	return notify_title(ev, k);
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

