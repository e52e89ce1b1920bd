/*
 * top.h: `patrol top`, the fleet on one live screen, and what its files share.
 *
 *   top.c          the command: options, the terminal (ncurses), the loop
 *   top-keys.c     the keys, the y/n, the stop or resume said yes to
 *   top-draw.c     the screen: the table, the run's page, the log, the prompt
 *                  (these three include <curses.h>; the rest never do)
 *   top-fmt.c      pure text: UTF-8 display width, cells, the progress bar,
 *                  the loss sparkline, the verdict's colour, the row's line
 *   top-model.c    the rows from the state files (patrol.json or the newer
 *                  top.json, parsed again only when one changed)
 *   top-look.c     refreshes: one forked look a run (the tick's code,
 *                  TICK_LOOK: nothing acted, no tick counted; saved as
 *                  top.json), a bounded number at once, "slow" past a bound
 *   top-act.c      what a key starts that reaches the box (the run's page,
 *                  following its log, stop, resume): a forked child whose
 *                  output comes back through a pipe, never a wait in the UI
 *   top-loss.c     the loss ring a tick keeps in patrol.json (tick.c calls it)
 *
 * The UI never waits on a box: every look runs in a child; the loop polls
 * the keyboard, a signal pipe and the children's pipes, and reads state
 * files only.
 */
#ifndef WK_TOP_H
#define WK_TOP_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include <cJSON.h>

/* ---- top-loss.c: the loss ring (patrol.json "loss_recent": [[step, loss|null], ...]) ---- */
#define TOP_LOSS_N	32	/* values kept, newest last */
/*
 * Append the heartbeat's last loss (health: the heartbeat's "health" view)
 * to doc's ring when it is new (another step, or another value without a
 * step); the oldest go past TOP_LOSS_N.  NaN/Inf are kept as null.
 */
void top_loss_remember(cJSON *doc, const cJSON *health);
/* The ring's values into v (at most max, oldest first; NaN for null): their number. */
size_t top_loss_values(const cJSON *doc, double *v, size_t max);
/*
 * doc's ring carried on from older's (the last look's top.json): older's
 * entries, then doc's that are newer than older's newest step (all of doc's
 * when older has none), the newest TOP_LOSS_N kept.
 */
void top_loss_merge(cJSON *doc, const cJSON *older);

/* What a look saw, beside patrol.json in the run's state directory (top-look.c). */
#define TOP_LOOK_FILE	"top.json"

/* ---- top-fmt.c: pure text ---- */
/* Display columns of a UTF-8 string as top_cell shows it. */
size_t top_width(const char *s);
/*
 * src fitted to exactly width display columns in dst (NUL-terminated):
 * control characters and invalid UTF-8 shown as '?', a longer text cut with
 * an ellipsis ("…", or '~' when !utf8), a shorter one padded with spaces.
 * dst needs 4 * width + 1 bytes; a smaller one gets less (still terminated).
 * The bytes written.
 */
size_t top_cell(char *dst, size_t dstsz, const char *src, size_t width, int utf8);
/* A progress bar of width columns for cur of max (max <= 0: unknown, blank). */
void top_bar(char *dst, size_t dstsz, long cur, long max, size_t width, int utf8);
/* A sparkline of the last width of n values (NaN: '!'), right-aligned. */
void top_spark(char *dst, size_t dstsz, const double *v, size_t n, size_t width, int utf8);

enum top_colour { TOP_C_NONE, TOP_C_GOOD, TOP_C_INFO, TOP_C_WARN, TOP_C_BAD };
/* A verdict's colour (the table in top-fmt.c); unknown names: TOP_C_NONE. */
enum top_colour top_verdict_colour(const char *verdict);

/* Where a refresh of the run stands (top-look.c sets it). */
enum top_look { TOP_LOOK_IDLE, TOP_LOOK_BUSY, TOP_LOOK_SLOW, TOP_LOOK_QUEUED };

/* One run's row, from its patrol.json (top_row_from_state) and its refresh. */
struct top_row {
	char		 run[64];
	char		 verdict[32];
	char		 stage[64];	/* "" none */
	long		 attempt;
	int		 has_cur;
	long		 cur, max;	/* max <= 0 unknown */
	long		 eta_s;		/* -1 unknown */
	long		 hb_age_s;	/* the heartbeat's age when last seen; -1 unknown */
	time_t		 seen;		/* when the box was last seen; 0 never */
	char		 event[96];	/* the last event, "event stage#attempt" */
	char		 details[256];
	double		 loss[TOP_LOSS_N];
	size_t		 nloss;
	int		 finished;	/* DONE or sealed: out of the refreshes, as of patrol --all's tick */
	enum top_look	 look;
	long		 look_s;	/* how long the running refresh has taken */
};
void top_row_from_state(struct top_row *r, const char *name, const cJSON *state);

/* A byte range of a line (the verdict's cell, for its colour). */
struct top_span {
	size_t	off, len;
};
/*
 * The row as one line of exactly cols display columns (columns that do not
 * fit are left out from the right); *verdict: where the verdict's cell is.
 * dst needs 4 * cols + 1 bytes.  The header line with r NULL.
 */
void top_line(const struct top_row *r, time_t now, int utf8, size_t cols, char *dst,
    size_t dstsz, struct top_span *verdict);

/* ---- top-model.c: the fleet as rows ---- */
struct top_run {
	struct top_row	 row;
	char		*name;
	char		*statedir;
	char		*config;	/* absolute, from patrol.json */
	/* patrol.json [0] and top.json [1] as last parsed: parsed again when one of these moves */
	struct top_stamp {
		dev_t	 dev;
		ino_t	 ino;
		off_t	 size;
		time_t	 mtime;
		int	 racy;		/* written within a second of its parse: parse it again */
	}		 stamp[2];
	char		 tick[2][32];	/* each one's last_tick as last parsed ("" none) */
	int		 src;		/* the row's: 0 patrol.json, 1 top.json */
	int		 present;	/* seen in the last scan */
	/* the refresh (top-look.c) */
	pid_t		 pid;		/* > 0 while its tick runs */
	unsigned long long started_ms;	/* monotime of its start */
	int		 queued;
	int		 hold;		/* no refresh: a stop or resume of it is under way */
};
struct top_model {
	struct top_run	*runs;		/* sorted by name */
	size_t		 n;
	char		*base;		/* statedir_base() */
	int		 force;		/* the bench: parse again at the next scan as if moved ... */
#define TOP_FORCE_ALL	1	/* ... every file */
#define TOP_FORCE_LOOKS	2	/* ... every top.json (a refresh of every run) */
};
void top_model_init(struct top_model *m);
/* Read the state directories again: new runs added, gone ones dropped, changed files parsed. */
void top_model_scan(struct top_model *m);
void top_model_free(struct top_model *m);
/* The newer of statedir's patrol.json and top.json (caller deletes), or NULL. */
cJSON *top_model_doc(const char *statedir);

/* ---- top-look.c: refreshes ---- */
struct top_looks {
	int		 jobs;		/* at most this many ticks at once */
	unsigned	 slow_ms;	/* a tick running longer is "slow" */
	unsigned	 kill_ms;	/* ... and ended past this */
	size_t		 running;
};
/* Queue a refresh of every run that is not being refreshed (nor finished). */
void top_look_all(struct top_model *m);
/*
 * Reap the ticks that ended, mark the slow ones, end the ones past kill_ms,
 * start queued ones up to jobs.  1 when a tick ended (the rows may have changed).
 */
int top_look_pump(struct top_looks *l, struct top_model *m);
/* End every running tick (SIGTERM to its process group, then SIGKILL) and reap it. */
void top_look_stop(struct top_looks *l, struct top_model *m);

/* ---- top-act.c: the run's page, its log, stop, resume, in a child ---- */
enum top_act_kind { TOP_ACT_PAGE, TOP_ACT_FOLLOW, TOP_ACT_STOP, TOP_ACT_RESUME };
#define TOP_ACT_KEEP	(256 * 1024)	/* bytes of a child's output kept (the newest) */
struct top_act {
	enum top_act_kind kind;
	char		*run;
	pid_t		 pid;		/* > 0 while it runs */
	int		 fd;		/* its output's read end, -1 when closed */
	int		 rc;		/* its exit code once it ended; -1 before */
	char		*out;		/* what it wrote so far (NUL-terminated, at most TOP_ACT_KEEP) */
	size_t		 len;
};
/* Start kind for the run (name, config, follow_s: the log's poll interval). 0, or -1 (cannot fork). */
int top_act_start(struct top_act *a, enum top_act_kind kind, const char *name, const char *config,
    int follow_s);
/* Read what is there on a->fd; reap the child once its output ended.  1 when something changed. */
int top_act_read(struct top_act *a);
/* End the child (its process group) if it runs, reap it, free what a holds. */
void top_act_end(struct top_act *a);

/* ---- top.c and top-draw.c: the screen ---- */
enum top_view { TOP_VIEW_TABLE, TOP_VIEW_PAGE, TOP_VIEW_LOG };
struct top_ui {
	struct top_model m;
	struct top_looks looks;
	enum top_view	 view;
	size_t		 sel;		/* the selected run (table) */
	char		 sel_name[64];	/* ... by name: sel follows it across scans */
	size_t		 top;		/* the first run shown */
	long		 scroll;	/* page / log: lines up from the end (log), down from the top (page) */
	struct top_act	 act;		/* the page's or the log's child (act.run NULL: none) */
	struct top_act	 cmd;		/* a stop or resume (cmd.run NULL: none) */
	int		 confirm;	/* 's' or 'r' waiting for y/n, else 0 */
	int		 pending;	/* 's' or 'r' said y to, not started yet (top_pending) */
	char		 confirm_run[64];
	char		 msg[512];	/* the status line */
	int		 utf8;
	int		 colour;
	int		 interval_s;
	int		 follow_s;
};
/* Draw the current view (top-draw.c); the terminal is set up.  Colour pair N is top_colour N. */
void top_draw(struct top_ui *u);
/* top-keys.c: one key (curses's getch code); 1 to quit. */
int top_key(struct top_ui *u, int ch);
/* The selected run found again by name after a scan. */
void top_reselect(struct top_ui *u);
/* Start the stop or resume said yes to, once it can (a resume: once the run's refresh ended). */
void top_pending(struct top_ui *u);
/* The stop or resume ended: said on the status line, the run refreshed. */
void top_cmd_done(struct top_ui *u);

/* The `patrol top` command (top.c); argv from the word "top" on. */
int patrol_top(int argc, char **argv);

#endif
