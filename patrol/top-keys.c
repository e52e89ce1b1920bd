/*
 * top-keys.c: what a key does on `patrol top`'s screen, and the stop or
 * resume a y starts (top.c owns the loop, top-act.c the children).
 *
 *   table   up/down (k/j) select, Enter the run's page, l its log,
 *           s / r stop / resume after y/n, space refresh now, q quit
 *   page    up/down/PgUp/PgDn scroll, l its log, s, r, q or Esc back
 *   log     up/down/PgUp/PgDn scroll (from the newest line), s, r, q or Esc back
 *
 * The selected run is kept by name (top_reselect), so the page and s/r act
 * on the run the user chose even when a scan adds or drops runs before it.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "top.h"

static struct top_run *
top_selected(struct top_ui *u)
{
	return u->sel < u->m.n ? &u->m.runs[u->sel] : NULL;
}

static void
top_select(struct top_ui *u, size_t i)
{
	u->sel = i;
	snprintf(u->sel_name, sizeof(u->sel_name), "%s", u->m.runs[i].name);
}

/* Leave the page or the log: its child ends. */
static void
top_back(struct top_ui *u)
{
	if (u->act.run != NULL)
		top_act_end(&u->act);
	u->view = TOP_VIEW_TABLE;
	u->scroll = 0;
}

static void
top_open(struct top_ui *u, enum top_view view)
{
	struct top_run *r = top_selected(u);

	if (r == NULL)
		return;
	top_back(u);
	if (top_act_start(&u->act, view == TOP_VIEW_LOG ? TOP_ACT_FOLLOW : TOP_ACT_PAGE, r->name,
	    r->config, u->follow_s) != 0) {
		snprintf(u->msg, sizeof(u->msg), "cannot start a child for %s", r->name);
		top_act_end(&u->act);
		return;
	}
	u->view = view;
	u->scroll = 0;
}

static struct top_run *
top_run_named(struct top_ui *u, const char *name)
{
	size_t i;

	for (i = 0; i < u->m.n; i++)
		if (strcmp(u->m.runs[i].name, name) == 0)
			return &u->m.runs[i];
	return NULL;
}

/*
 * y after s or r.  The run's refreshes stop until the stop or resume ends
 * (top_cmd_done).  A resume starts once the run's look in flight has ended
 * (top_pending), so that a look from before the resume never lands after
 * its tick and shows the run as it was.  A stop starts at once: a box that
 * is slow to answer a look must not hold it up.
 */
static void
top_confirmed(struct top_ui *u, int what)
{
	struct top_run *r = top_run_named(u, u->confirm_run);

	if (r == NULL) {
		snprintf(u->msg, sizeof(u->msg), "run %s is gone", u->confirm_run);
		return;
	}
	r->hold = 1;
	r->queued = 0;
	u->pending = what;
	snprintf(u->msg, sizeof(u->msg), "%s %s ...", what == 's' ? "stopping" : "resuming",
	    u->confirm_run);
}

/* Start the stop or resume that waits, when it can. */
void
top_pending(struct top_ui *u)
{
	struct top_run *r;
	int what = u->pending;

	if (what == 0)
		return;
	if ((r = top_run_named(u, u->confirm_run)) == NULL) {
		snprintf(u->msg, sizeof(u->msg), "run %s is gone", u->confirm_run);
		u->pending = 0;
		return;
	}
	if (what == 'r' && r->pid > 0)
		return;		/* its refresh holds the lock: the next turn */
	u->pending = 0;
	if (top_act_start(&u->cmd, what == 's' ? TOP_ACT_STOP : TOP_ACT_RESUME, r->name, r->config,
	    0) != 0) {
		snprintf(u->msg, sizeof(u->msg), "cannot start a child for %s", r->name);
		top_act_end(&u->cmd);
		r->hold = 0;
	}
}

/* s or r: ask first. */
static void
top_ask(struct top_ui *u, int what)
{
	struct top_run *r = top_selected(u);

	if (r == NULL)
		return;
	if (u->cmd.run != NULL || u->pending) {
		snprintf(u->msg, sizeof(u->msg), "a %s of %s is still running",
		    (u->cmd.run != NULL ? u->cmd.kind == TOP_ACT_STOP : u->pending == 's') ? "stop" :
		    "resume", u->confirm_run);
		return;
	}
	u->confirm = what;
	snprintf(u->confirm_run, sizeof(u->confirm_run), "%s", r->name);
	snprintf(u->msg, sizeof(u->msg), "%s run %s? y/n", what == 's' ? "stop" : "resume", r->name);
}

/* One key; 1 to quit. */
int
top_key(struct top_ui *u, int ch)
{
	if (u->confirm) {
		int what = u->confirm;

		u->confirm = 0;
		if (ch == 'y' || ch == 'Y')
			top_confirmed(u, what);
		else
			snprintf(u->msg, sizeof(u->msg), "%s %s (only y does it)", u->confirm_run,
			    what == 's' ? "not stopped" : "not resumed");
		return 0;
	}
	switch (ch) {
	case 'q':
	case 'Q':
	case 27:	/* Esc */
		if (u->view == TOP_VIEW_TABLE)
			return ch != 27;
		top_back(u);
		break;
	case KEY_UP:
	case 'k':
		if (u->view != TOP_VIEW_TABLE)
			u->scroll += u->view == TOP_VIEW_LOG ? 1 : -1;
		else if (u->sel > 0)
			top_select(u, u->sel - 1);
		break;
	case KEY_DOWN:
	case 'j':
		if (u->view != TOP_VIEW_TABLE)
			u->scroll += u->view == TOP_VIEW_LOG ? -1 : 1;
		else if (u->sel + 1 < u->m.n)
			top_select(u, u->sel + 1);
		break;
	case KEY_PPAGE:
		u->scroll += u->view == TOP_VIEW_LOG ? LINES - 4 : -(LINES - 4);
		break;
	case KEY_NPAGE:
		u->scroll += u->view == TOP_VIEW_LOG ? -(LINES - 4) : LINES - 4;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (u->view == TOP_VIEW_TABLE)
			top_open(u, TOP_VIEW_PAGE);
		break;
	case 'l':
		top_open(u, TOP_VIEW_LOG);
		break;
	case 's':
	case 'r':
		top_ask(u, ch);
		break;
	case ' ':
	case 'R':
		top_look_all(&u->m);
		snprintf(u->msg, sizeof(u->msg), "refreshing every run");
		break;
	default:
		break;
	}
	return 0;
}

/* A stop or resume that ended: its last line on the status line, and a look at the run. */
void
top_cmd_done(struct top_ui *u)
{
	const char *out = u->cmd.out, *last = out, *p;
	size_t i;

	for (p = out; *p != '\0'; p++)
		if (*p == '\n' && p[1] != '\0')
			last = p + 1;
	snprintf(u->msg, sizeof(u->msg), "%s %s: exit %d: %.*s", u->cmd.kind == TOP_ACT_STOP ?
	    "stop" : "resume", u->cmd.run, u->cmd.rc, (int)strcspn(last, "\n"), last);
	for (i = 0; i < u->m.n; i++)
		if (strcmp(u->m.runs[i].name, u->cmd.run) == 0) {
			u->m.runs[i].hold = 0;
			if (u->m.runs[i].pid <= 0) {
				u->m.runs[i].queued = 1;
				u->m.runs[i].row.look = TOP_LOOK_QUEUED;
			}
		}
	top_act_end(&u->cmd);
}

/*
 * The selected run by its name, after a scan that added or dropped runs
 * before it (the page and s/r act on that run, never on its neighbour).
 */
void
top_reselect(struct top_ui *u)
{
	size_t i;

	for (i = 0; u->sel_name[0] != '\0' && i < u->m.n; i++)
		if (strcmp(u->m.runs[i].name, u->sel_name) == 0) {
			u->sel = i;
			return;
		}
	if (u->sel >= u->m.n)
		u->sel = u->m.n > 0 ? u->m.n - 1 : 0;
	if (u->sel < u->m.n)
		snprintf(u->sel_name, sizeof(u->sel_name), "%s", u->m.runs[u->sel].name);
}
