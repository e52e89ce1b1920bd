/*
 * tail.c: the readable last lines of a log (see tail.h).
 *
 * Every line that is not a bar redraw is "committed": it gets the next seq
 * and goes into the ring of the last TAILKEEP_LINES lines; a committed line
 * that belongs to the newest traceback is also copied into tb_head/tb_tail.
 * The output merges the two by seq, so a traceback that fits in the ring
 * changes nothing, and one that does not comes whole, followed by the ring's
 * lines after it.  The bar is held apart (bar) until a real line comes: then
 * it is committed before that line, so a bar redrawn a thousand times
 * between two log lines is one line there.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "logscan.h"
#include "tail.h"
#include "xmalloc.h"

#define TB_HEADER	"Traceback (most recent call last):"
#define TB_BLANKS_MAX	(sizeof(((struct tailkeep *)0)->tb_blank_seq) / sizeof(uint64_t))
#define BAR_SAME_START	8	/* a '\n' line starting like the uncleared bar redraws it */

static const char *const tb_chain[] = {
	"During handling of the above exception, another exception occurred:",
	"The above exception was the direct cause of the following exception:",
};

/* ---- a ring of lines ---- */

static void
ring_init(struct tk_ring *r, size_t cap)
{
	r->l = xcalloc(cap, sizeof(*r->l));
	r->cap = cap;
	r->head = r->count = 0;
}

static const struct tk_line *
ring_get(const struct tk_ring *r, size_t i)
{
	return &r->l[(r->head + r->cap - r->count + i) % r->cap];
}

/* Take the oldest line out; its text is the caller's. */
static struct tk_line
ring_pop(struct tk_ring *r)
{
	struct tk_line *s = &r->l[(r->head + r->cap - r->count) % r->cap], out = *s;

	s->text = NULL;
	r->count--;
	return out;
}

/* Add text (transferred) as the newest; the oldest drops out when full. */
static void
ring_push(struct tk_ring *r, uint64_t seq, char *text)
{
	if (r->count == r->cap)
		free(ring_pop(r).text);
	r->l[r->head].seq = seq;
	r->l[r->head].text = text;
	r->head = (r->head + 1) % r->cap;
	r->count++;
}

static void
ring_clear(struct tk_ring *r)
{
	while (r->count > 0)
		free(ring_pop(r).text);
	r->head = 0;
}

static void
ring_free(struct tk_ring *r)
{
	ring_clear(r);
	free(r->l);
	r->l = NULL;
	r->cap = 0;
}

/* ---- helpers ---- */

/* What s costs inside a JSON array: quotes, comma, and '"' and '\\' escaped. */
static size_t
json_cost(const char *s)
{
	size_t n = 3;

	for (; *s != '\0'; s++)
		n += *s == '"' || *s == '\\' ? 2 : 1;
	return n;
}

static int
is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

size_t
tailkeep_prefix_len(const char *s)
{
	size_t i = 0;

	if (s[0] == '[') {
		for (i = 1; i < 26 && s[i] != '\0' && s[i] != ']'; i++)
			if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
			    s[i]) == NULL)
				return 0;
		if (i < 2 || s[i] != ']' || s[i + 1] != ':')
			return 0;
		i += 2;
	} else {
		while (i < 6 && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == 0 || s[i] != ':' || s[i + 1] != ' ')
			return 0;
		i++;
	}
	if (s[i] == ' ')
		i++;
	return i <= TAILKEEP_PREFIX_MAX ? i : 0;
}

/* ---- the traceback ---- */

static void
tb_reset(struct tailkeep *tk)
{
	size_t i;

	for (i = 0; i < tk->tb_nhead; i++)
		free(tk->tb_head[i].text);
	tk->tb_nhead = 0;
	ring_clear(&tk->tb_tail);
	tk->tb_omitted = 0;
	tk->tb_bytes = 0;
	tk->tb_blanks = 0;
	tk->tb_state = TK_TB_NONE;
	tk->tb_prefix[0] = '\0';
}

/* Drop the oldest line after the head: the traceback keeps its start and its end. */
static void
tb_drop_one(struct tailkeep *tk)
{
	struct tk_line l = ring_pop(&tk->tb_tail);

	tk->tb_bytes -= json_cost(l.text);
	free(l.text);
	tk->tb_omitted++;
}

static void
tb_add(struct tailkeep *tk, uint64_t seq, const char *text)
{
	char *t = linering_sanitize(text, strlen(text), TAILKEEP_TB_LINE_MAX);

	tk->tb_bytes += json_cost(t);
	if (tk->tb_nhead < TAILKEEP_TB_HEAD && tk->tb_tail.count == 0 && tk->tb_omitted == 0) {
		tk->tb_head[tk->tb_nhead].seq = seq;
		tk->tb_head[tk->tb_nhead++].text = t;
		return;
	}
	if (tk->tb_tail.count == tk->tb_tail.cap)
		tb_drop_one(tk);
	ring_push(&tk->tb_tail, seq, t);
	while (tk->tb_bytes > TAILKEEP_TB_BYTES && tk->tb_tail.count > 1)
		tb_drop_one(tk);
}

static void
tb_add_blanks(struct tailkeep *tk)
{
	size_t i;

	for (i = 0; i < tk->tb_blanks; i++)
		tb_add(tk, tk->tb_blank_seq[i], tk->tb_prefix);
	tk->tb_blanks = 0;
}

static int
is_chain_line(const char *body)
{
	size_t i;

	for (i = 0; i < sizeof(tb_chain) / sizeof(tb_chain[0]); i++)
		if (strncmp(body, tb_chain[i], strlen(tb_chain[i])) == 0)
			return 1;
	return 0;
}

/* A committed line, seen by the traceback keeper. */
static void
tb_feed(struct tailkeep *tk, uint64_t seq, const char *text)
{
	size_t pl = tailkeep_prefix_len(text);
	const char *body = text + pl;
	int same = tk->tb_state != TK_TB_NONE && pl == strlen(tk->tb_prefix) &&
	    strncmp(text, tk->tb_prefix, pl) == 0;
	int blank = is_blank(body, strlen(body)), indented = *body == ' ' || *body == '\t';

	if (strncmp(body, TB_HEADER, strlen(TB_HEADER)) == 0) {
		if (same && tk->tb_state == TK_TB_CHAINED) {
			tb_add(tk, seq, text);
			tk->tb_state = TK_TB_FRAMES;
		} else if (same || tk->tb_state != TK_TB_FRAMES) {
			/* A new one: the newest traceback is the one kept. */
			tb_reset(tk);
			memcpy(tk->tb_prefix, text, pl);
			tk->tb_prefix[pl] = '\0';
			tb_add(tk, seq, text);
			tk->tb_state = TK_TB_FRAMES;
		}
		/* else another rank's, while this one's frames are still coming */
		return;
	}
	if (!same)
		return;
	switch (tk->tb_state) {
	case TK_TB_FRAMES:
		tb_add(tk, seq, text);
		if (!blank && !indented) {
			tk->tb_state = TK_TB_AFTER;	/* the exception line */
			tk->tb_blanks = 0;
		}
		break;
	case TK_TB_AFTER:
		if (blank) {
			if (tk->tb_blanks < TB_BLANKS_MAX)
				tk->tb_blank_seq[tk->tb_blanks++] = seq;
		} else if (is_chain_line(body)) {
			tb_add_blanks(tk);
			tb_add(tk, seq, text);
			tk->tb_state = TK_TB_CHAINED;
		} else if (indented) {
			tb_add_blanks(tk);	/* the exception message goes on */
			tb_add(tk, seq, text);
		} else
			tk->tb_state = TK_TB_NONE;
		break;
	case TK_TB_CHAINED:
		if (blank)
			tb_add(tk, seq, text);
		else
			tk->tb_state = TK_TB_NONE;
		break;
	case TK_TB_NONE:
		break;
	}
}

/* ---- lines ---- */

/* A line of the log (or a bar's state: never part of a traceback, nor its end). */
static void
commit(struct tailkeep *tk, const char *line, size_t len, int bar)
{
	char *t = linering_sanitize(line, len, TAILKEEP_LINE_MAX);
	uint64_t seq = tk->seq++;

	if (!bar)
		tb_feed(tk, seq, t);
	ring_push(&tk->ring, seq, t);
}

/* The bar's state becomes a line of its own. */
static void
bar_commit(struct tailkeep *tk)
{
	if (tk->bar == NULL)
		return;
	commit(tk, tk->bar, strlen(tk->bar), 1);
	free(tk->bar);
	tk->bar = NULL;
	tk->bar_cleared = 0;
}

static void
bar_set(struct tailkeep *tk, const char *line, size_t len)
{
	free(tk->bar);
	tk->bar = linering_sanitize(line, len, TAILKEEP_LINE_MAX);
	tk->bar_cleared = 0;
}

void
tailkeep_init(struct tailkeep *tk)
{
	memset(tk, 0, sizeof(*tk));
	ring_init(&tk->ring, TAILKEEP_LINES);
	ring_init(&tk->tb_tail, TAILKEEP_TB_LINES - TAILKEEP_TB_HEAD);
}

void
tailkeep_line(struct tailkeep *tk, const char *line, size_t len, int flags)
{
	const char *h;
	char start[TAILKEEP_PREFIX_MAX + 2];
	size_t pre, same, n;

	if (flags & LOGSCAN_CR) {
		/* A redraw: it replaces the bar's state; a blank one only clears the screen. */
		if (is_blank(line, len))
			tk->bar_cleared = tk->bar != NULL;
		else
			bar_set(tk, line, len);
		return;
	}
	/* A bar redrawn with no '\n' when a traceback was printed: the header is glued to it. */
	h = len >= strlen(TB_HEADER) ? memmem(line, len, TB_HEADER, strlen(TB_HEADER)) : NULL;
	pre = h != NULL ? (size_t)(h - line) : 0;
	if (pre > 0) {
		/* line is not NUL-terminated: look for a rank prefix in a copy of its start. */
		n = pre < sizeof(start) - 1 ? pre : sizeof(start) - 1;
		memcpy(start, line, n);
		start[n] = '\0';
	}
	if (pre > 0 && tailkeep_prefix_len(start) != pre) {
		if (!is_blank(line, pre))
			bar_set(tk, line, pre);
		bar_commit(tk);
		line += pre;
		len -= pre;
	} else if (tk->bar != NULL) {
		for (same = 0; same < len && tk->bar[same] != '\0' && tk->bar[same] == line[same]; same++)
			;
		if (!tk->bar_cleared && same >= BAR_SAME_START) {
			/* The bar's last redraw, ended by '\n' (tqdm's close): it is the line. */
			free(tk->bar);
			tk->bar = NULL;
		} else
			bar_commit(tk);
	}
	commit(tk, line, len, 0);
}

const char *
tailkeep_last(const struct tailkeep *tk)
{
	if (tk->bar != NULL)
		return tk->bar;
	if (tk->ring.count == 0)
		return NULL;
	return ring_get(&tk->ring, tk->ring.count - 1)->text;
}

int
tailkeep_empty(const struct tailkeep *tk)
{
	return tk->bar == NULL && tk->ring.count == 0 && tk->tb_nhead == 0;
}

/* ---- output ---- */

struct out_line {
	uint64_t	 seq;
	int		 sub;	/* 0: the "not kept" line before seq's line; 1: a line */
	int		 tb;	/* part of the traceback: never dropped for room */
	const char	*text;
};

static int
out_cmp(const void *a, const void *b)
{
	const struct out_line *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub - y->sub;
	return y->tb - x->tb;	/* the traceback's copy first */
}

cJSON *
tailkeep_lines(const struct tailkeep *tk)
{
	size_t cap = tk->ring.count + tk->tb_nhead + tk->tb_tail.count + 2, n = 0, i, k;
	struct out_line *o = xcalloc(cap, sizeof(*o));
	uint64_t gap_lo = 0, gap_hi = 0;
	char marker[96];
	size_t total = 0;
	cJSON *arr = cJSON_CreateArray();

	for (i = 0; i < tk->tb_nhead; i++)
		o[n++] = (struct out_line){ tk->tb_head[i].seq, 1, 1, tk->tb_head[i].text };
	for (i = 0; i < tk->tb_tail.count; i++) {
		const struct tk_line *l = ring_get(&tk->tb_tail, i);

		o[n++] = (struct out_line){ l->seq, 1, 1, l->text };
	}
	if (tk->tb_omitted > 0 && tk->tb_tail.count > 0 && tk->tb_nhead > 0) {
		gap_lo = tk->tb_head[tk->tb_nhead - 1].seq;
		gap_hi = ring_get(&tk->tb_tail, 0)->seq;
		snprintf(marker, sizeof(marker), "[... %llu traceback lines not kept ...]",
		    (unsigned long long)tk->tb_omitted);
		o[n++] = (struct out_line){ gap_hi, 0, 1, marker };
	}
	for (i = 0; i < tk->ring.count; i++) {
		const struct tk_line *l = ring_get(&tk->ring, i);

		if (gap_hi > 0 && l->seq > gap_lo && l->seq < gap_hi)
			continue;	/* among the traceback's lines not kept */
		o[n++] = (struct out_line){ l->seq, 1, 0, l->text };
	}
	if (tk->bar != NULL)
		o[n++] = (struct out_line){ tk->seq, 1, 0, tk->bar };
	qsort(o, n, sizeof(*o), out_cmp);
	/* One copy of each line. */
	for (i = k = 0; i < n; i++)
		if (k == 0 || o[k - 1].seq != o[i].seq || o[k - 1].sub != o[i].sub)
			o[k++] = o[i];
	n = k;
	for (i = 0; i < n; i++)
		total += json_cost(o[i].text);
	/* Over the bound: the oldest lines outside the traceback go first. */
	for (i = 0; i < n && total > TAILKEEP_OUT_BYTES; i++)
		if (!o[i].tb) {
			total -= json_cost(o[i].text);
			o[i].text = NULL;
		}
	for (i = 0; i < n; i++)
		if (o[i].text != NULL)
			cJSON_AddItemToArray(arr, cJSON_CreateString(o[i].text));
	free(o);
	return arr;
}

/* ---- scan.json ---- */

static cJSON *
lines_json(const struct tk_line *l, size_t n)
{
	cJSON *arr = cJSON_CreateArray(), *p;
	size_t i;

	for (i = 0; i < n; i++) {
		p = cJSON_CreateArray();
		cJSON_AddItemToArray(p, cJSON_CreateNumber((double)l[i].seq));
		cJSON_AddItemToArray(p, cJSON_CreateString(l[i].text));
		cJSON_AddItemToArray(arr, p);
	}
	return arr;
}

static cJSON *
ring_json(const struct tk_ring *r)
{
	cJSON *arr = cJSON_CreateArray(), *p;
	size_t i;

	for (i = 0; i < r->count; i++) {
		p = cJSON_CreateArray();
		cJSON_AddItemToArray(p, cJSON_CreateNumber((double)ring_get(r, i)->seq));
		cJSON_AddItemToArray(p, cJSON_CreateString(ring_get(r, i)->text));
		cJSON_AddItemToArray(arr, p);
	}
	return arr;
}

cJSON *
tailkeep_save(const struct tailkeep *tk)
{
	cJSON *doc = cJSON_CreateObject(), *tb, *bl;
	size_t i;

	cJSON_AddNumberToObject(doc, "seq", (double)tk->seq);
	cJSON_AddItemToObject(doc, "lines", ring_json(&tk->ring));
	if (tk->bar != NULL) {
		cJSON_AddStringToObject(doc, "bar", tk->bar);
		cJSON_AddBoolToObject(doc, "bar_cleared", tk->bar_cleared);
	}
	tb = cJSON_AddObjectToObject(doc, "traceback");
	cJSON_AddNumberToObject(tb, "state", (double)tk->tb_state);
	cJSON_AddStringToObject(tb, "prefix", tk->tb_prefix);
	bl = cJSON_AddArrayToObject(tb, "blanks");
	for (i = 0; i < tk->tb_blanks; i++)
		cJSON_AddItemToArray(bl, cJSON_CreateNumber((double)tk->tb_blank_seq[i]));
	cJSON_AddNumberToObject(tb, "omitted", (double)tk->tb_omitted);
	cJSON_AddItemToObject(tb, "head", lines_json(tk->tb_head, tk->tb_nhead));
	cJSON_AddItemToObject(tb, "tail", ring_json(&tk->tb_tail));
	return doc;
}

/* [seq, "text"] -> 0, else WK_ERR_PARSE. */
static int
pair_get(const cJSON *p, uint64_t *seq, const char **text)
{
	const cJSON *s = cJSON_GetArrayItem(p, 0), *t = cJSON_GetArrayItem(p, 1);

	if (!cJSON_IsArray(p) || !cJSON_IsNumber(s) || !cJSON_IsString(t) || s->valuedouble < 0 ||
	    s->valuedouble > 9007199254740992.0)
		return WK_ERR_PARSE;
	*seq = (uint64_t)s->valuedouble;
	*text = t->valuestring;
	return 0;
}

int
tailkeep_load(struct tailkeep *tk, const cJSON *doc)
{
	const cJSON *tb = cJSON_GetObjectItem(doc, "traceback"), *p, *st, *pre, *om;
	const char *text;
	uint64_t seq;
	int r = WK_ERR_PARSE;

	tailkeep_clear(tk);
	if (!cJSON_IsObject(doc) || !cJSON_IsNumber(cJSON_GetObjectItem(doc, "seq")) ||
	    !cJSON_IsArray(cJSON_GetObjectItem(doc, "lines")) || !cJSON_IsObject(tb))
		goto out;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "lines")) {
		if (pair_get(p, &seq, &text) != 0)
			goto out;
		ring_push(&tk->ring, seq, linering_sanitize(text, strlen(text), TAILKEEP_LINE_MAX));
	}
	if (cJSON_IsString(cJSON_GetObjectItem(doc, "bar"))) {
		text = cJSON_GetObjectItem(doc, "bar")->valuestring;
		bar_set(tk, text, strlen(text));
		tk->bar_cleared = cJSON_IsTrue(cJSON_GetObjectItem(doc, "bar_cleared"));
	}
	/* The traceback's lines go through tb_add: its bounds hold for whatever the file says. */
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(tb, "head")) {
		if (pair_get(p, &seq, &text) != 0)
			goto out;
		tb_add(tk, seq, text);
	}
	om = cJSON_GetObjectItem(tb, "omitted");
	if (cJSON_IsNumber(om) && om->valuedouble > 0 && om->valuedouble < 9007199254740992.0)
		tk->tb_omitted = (uint64_t)om->valuedouble;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(tb, "tail")) {
		if (pair_get(p, &seq, &text) != 0)
			goto out;
		tb_add(tk, seq, text);
	}
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(tb, "blanks"))
		if (cJSON_IsNumber(p) && p->valuedouble >= 0 && tk->tb_blanks < TB_BLANKS_MAX)
			tk->tb_blank_seq[tk->tb_blanks++] = (uint64_t)p->valuedouble;
	st = cJSON_GetObjectItem(tb, "state");
	pre = cJSON_GetObjectItem(tb, "prefix");
	if (!cJSON_IsNumber(st) || st->valuedouble < TK_TB_NONE || st->valuedouble > TK_TB_CHAINED ||
	    !cJSON_IsString(pre) || strlen(pre->valuestring) > TAILKEEP_PREFIX_MAX ||
	    tailkeep_prefix_len(pre->valuestring) != strlen(pre->valuestring))
		goto out;
	tk->tb_state = (enum tk_tb_state)st->valueint;
	strcpy(tk->tb_prefix, pre->valuestring);
	tk->seq = (uint64_t)cJSON_GetObjectItem(doc, "seq")->valuedouble;
	r = 0;
 out:
	if (r != 0)
		tailkeep_clear(tk);
	return r;
}

void
tailkeep_clear(struct tailkeep *tk)
{
	ring_clear(&tk->ring);
	tb_reset(tk);
	free(tk->bar);
	tk->bar = NULL;
	tk->bar_cleared = 0;
	tk->seq = 0;
}

void
tailkeep_free(struct tailkeep *tk)
{
	tailkeep_clear(tk);
	ring_free(&tk->ring);
	ring_free(&tk->tb_tail);
}
