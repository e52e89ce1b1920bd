/*
 * top-draw.c: `patrol top`'s screen, drawn from the model and the
 * children's output (top.c owns the terminal and the loop).
 *
 *   the table  a title line, the columns' header, one row a run (top_line;
 *              the verdict's cell in its colour, the selected row reversed),
 *              the status line, the keys
 *   the page   the run's row, what patrol.json knows (verdict, stage,
 *              attempts, failed stages with their class, `where` and last
 *              line, the checkpoint summary), then the box's answer (the
 *              last lines of the log, the checkpoints) as the child writes it
 *   the log    the followed log's newest lines, scrolled with the arrows
 *
 * Every line goes through top_cell: what a box wrote never reaches the
 * terminal as control characters.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "jsonfile.h"
#include "pstate.h"
#include "top.h"
#include "xmalloc.h"

#define TOP_LINE_MAX	(4 * 1024 + 1)	/* a line's bytes at up to 1024 columns */

static size_t
top_cols(void)
{
	return COLS > 1024 ? 1024 : COLS > 0 ? (size_t)COLS : 0;
}

/* Text at row y, fitted to the screen's width, with attributes. */
static void
top_put_line(int y, const char *text, attr_t attr)
{
	char line[TOP_LINE_MAX];
	size_t n;

	if (y < 0 || y >= LINES)
		return;
	n = top_cell(line, sizeof(line), text, top_cols(), 1);
	attrset(attr);
	mvaddnstr(y, 0, line, (int)n);
	attrset(A_NORMAL);
}

static void
top_draw_row(struct top_ui *u, int y, const struct top_row *r, time_t now, int selected)
{
	char line[TOP_LINE_MAX];
	struct top_span v;
	attr_t base = selected ? A_REVERSE : A_NORMAL;
	enum top_colour c;

	top_line(r, now, u->utf8, top_cols(), line, sizeof(line), &v);
	attrset(r == NULL ? A_BOLD : base);
	mvaddnstr(y, 0, line, (int)v.off);
	c = r != NULL ? top_verdict_colour(r->verdict) : TOP_C_NONE;
	attrset(base | (u->colour && c != TOP_C_NONE ? COLOR_PAIR((short)c) | A_BOLD : 0) |
	    (r == NULL ? A_BOLD : 0));
	addnstr(line + v.off, (int)v.len);
	attrset(r == NULL ? A_BOLD : base);
	addstr(line + v.off + v.len);
	attrset(A_NORMAL);
}

static void
top_draw_table(struct top_ui *u, time_t now)
{
	int rows = LINES - 4, y;
	size_t i;

	if (rows < 1)
		rows = 1;
	if (u->sel >= u->m.n)
		u->sel = u->m.n > 0 ? u->m.n - 1 : 0;
	if (u->sel < u->top)
		u->top = u->sel;
	if (u->sel >= u->top + (size_t)rows)
		u->top = u->sel - (size_t)rows + 1;
	top_draw_row(u, 1, NULL, now, 0);
	if (u->m.n == 0)
		top_put_line(2, "no runs: patrol knows a run once it ticked it (patrol -c FILE)", A_NORMAL);
	for (i = u->top, y = 2; i < u->m.n && y < 2 + rows; i++, y++)
		top_draw_row(u, y, &u->m.runs[i].row, now, i == u->sel);
}

/* "k=v k=v" of an object's scalar members. */
static void
top_kv(struct buf *b, const cJSON *o)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, o) {
		if (cJSON_IsString(e))
			buf_printf(b, " %s=%s", e->string, e->valuestring);
		else if (cJSON_IsNumber(e))
			buf_printf(b, " %s=%g", e->string, e->valuedouble);
		else if (cJSON_IsBool(e))
			buf_printf(b, " %s=%s", e->string, cJSON_IsTrue(e) ? "true" : "false");
	}
}

/* What patrol.json knows of the run, one line a '\n'. */
static void
top_page_state(const struct top_run *r, struct buf *b)
{
	cJSON *s = top_model_doc(r->statedir);
	const cJSON *e, *f;

	buf_printf(b, "config %s\nstate  %s\n", r->config, r->statedir);
	if (s == NULL) {
		buf_puts(b, "(its state cannot be read)\n");
		return;
	}
	buf_printf(b, "verdict %s: %s\n", json_str(s, "verdict", "unknown"), json_str(s, "details", ""));
	buf_printf(b, "last %s %s, box last seen %s\n", json_str(s, "looked_by", NULL) != NULL ?
	    "look" : "tick", json_str(s, "last_tick", "never"), json_str(s, "seen_at", "never"));
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "attempts"))) {
		buf_puts(b, "attempts:");
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "attempts"))
			buf_printf(b, " %s#%ld", e->string, (long)e->valuedouble);
		buf_putc(b, '\n');
	}
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(s, "failed")) {
		buf_printf(b, "failed %s: class %s, attempt %ld\n", f->string, json_str(f, "class", "?"),
		    json_long(f, "attempt", 0));
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(f, "where"))) {
			buf_puts(b, "  where:");
			top_kv(b, cJSON_GetObjectItemCaseSensitive(f, "where"));
			buf_putc(b, '\n');
		}
		if (json_str(f, "last_line", NULL) != NULL)
			buf_printf(b, "  last line: %s\n", json_str(f, "last_line", ""));
	}
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "checkpoint"))) {
		buf_puts(b, "checkpoint:");
		top_kv(b, cJSON_GetObjectItemCaseSensitive(s, "checkpoint"));
		buf_putc(b, '\n');
	}
	if (json_str(s, "wandb", NULL) != NULL)
		buf_printf(b, "W&B %s\n", json_str(s, "wandb", ""));
	if (json_str(s, "caveats_text", NULL) != NULL)
		buf_printf(b, "caveats: %s\n", json_str(s, "caveats_text", ""));
	buf_putc(b, '\n');
	cJSON_Delete(s);
}

/* Lines of text (split at '\n') from line first on, rows y0 .. y1-1. */
static void
top_draw_text(const char *text, long first, int y0, int y1)
{
	const char *p = text, *nl;
	char *one;
	long i = 0;
	int y = y0;

	while (*p != '\0' && y < y1) {
		nl = strchr(p, '\n');
		if (i++ >= first) {
			one = xstrndup(p, nl != NULL ? (size_t)(nl - p) : strlen(p));
			top_put_line(y++, one, A_NORMAL);
			free(one);
		}
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

static long
top_count_lines(const char *s)
{
	size_t len = strlen(s), i;
	long n = 0;

	for (i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len > 0 && s[len - 1] != '\n');
}

static void
top_draw_page(struct top_ui *u, time_t now)
{
	struct buf b = BUF_INIT;
	const struct top_run *r = u->sel < u->m.n ? &u->m.runs[u->sel] : NULL;

	if (r == NULL)
		return;
	top_draw_row(u, 1, NULL, now, 0);
	top_draw_row(u, 2, &r->row, now, 0);
	top_page_state(r, &b);
	buf_puts(&b, u->act.out != NULL ? u->act.out : "");
	if (u->act.pid > 0)
		buf_puts(&b, "(asking the box ...)\n");
	if (u->scroll < 0)
		u->scroll = 0;
	top_draw_text(b.len > 0 ? b.data : "", u->scroll, 3, LINES - 2);
	buf_free(&b);
}

static void
top_draw_log(struct top_ui *u)
{
	const char *out = u->act.out != NULL ? u->act.out : "";
	long n = out[0] != '\0' ? top_count_lines(out) : 0, rows = LINES - 3, first;

	if (u->scroll < 0)
		u->scroll = 0;
	if (u->scroll > n)
		u->scroll = n;
	first = n - rows - u->scroll;
	top_draw_text(out, first > 0 ? first : 0, 1, LINES - 2);
}

static const char *const top_keys[] = {
	[TOP_VIEW_TABLE] = "q quit  up/down select  Enter open  l log  s stop  r resume  space refresh",
	[TOP_VIEW_PAGE] = "q/Esc back  up/down scroll  l log  s stop  r resume  space refresh",
	[TOP_VIEW_LOG] = "q/Esc back  up/down/PgUp/PgDn scroll  s stop  r resume",
};

void
top_draw(struct top_ui *u)
{
	char title[512], when[32];
	time_t now = time(NULL);
	size_t busy = 0, slow = 0, i;

	erase();
	for (i = 0; i < u->m.n; i++) {
		busy += u->m.runs[i].pid > 0;
		slow += u->m.runs[i].row.look == TOP_LOOK_SLOW;
	}
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (u->view == TOP_VIEW_TABLE)
		snprintf(title, sizeof(title), "patrol top  %s  %zu run%s, %zu looking (%zu slow), every %ds",
		    when, u->m.n, u->m.n == 1 ? "" : "s", busy, slow, u->interval_s);
	else
		snprintf(title, sizeof(title), "patrol top  %s  %s %s%s", when,
		    u->view == TOP_VIEW_LOG ? "log of" : "run",
		    u->act.run != NULL ? u->act.run : "?",
		    u->act.pid <= 0 && u->act.rc >= 0 && u->view == TOP_VIEW_LOG ? " (ended)" : "");
	top_put_line(0, title, A_REVERSE);
	if (u->view == TOP_VIEW_TABLE)
		top_draw_table(u, now);
	else if (u->view == TOP_VIEW_PAGE)
		top_draw_page(u, now);
	else
		top_draw_log(u);
	top_put_line(LINES - 2, u->msg, u->confirm ? A_BOLD : A_NORMAL);
	top_put_line(LINES - 1, top_keys[u->view], A_DIM);
	move(LINES - 1, 0);
}
