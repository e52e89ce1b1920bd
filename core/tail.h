/*
 * tail.h: the readable last lines of a log, for FAILED markers, stage_failed
 * events and status.
 *
 * A struct tailkeep is fed every line a logscan delivers, with its flags,
 * and keeps:
 *   - the last TAILKEEP_LINES lines, where the redraws of a progress bar
 *     (lines ended by a lone '\r': tqdm, rich, Lightning, HF) count as ONE
 *     line, the bar's newest state, put between the real lines when the
 *     next real line comes.  Blank '\r' segments (tqdm.write's clearing line
 *     of spaces) are not lines.  A line ended by '\n' that redraws the bar
 *     in place (no clearing before it, same start: tqdm's close) replaces it;
 *   - the newest Python traceback whole, from "Traceback (most recent call
 *     last):" to its exception line, chained tracebacks ("During handling of
 *     the above exception", "The above exception was the direct cause") and
 *     the exception's indented continuation lines included, even when it is
 *     longer than TAILKEEP_LINES; a rank prefix ("[rank0]: ", "[default1]:",
 *     "0: ") is followed: the traceback's lines are those with its prefix.
 *     A header glued after a bar's redraw (the bar had no '\n' when the
 *     exception was printed) is split from it.  A newer traceback replaces
 *     the older one.
 * tailkeep_lines() gives the kept last lines and the traceback merged in log
 * order (a traceback longer than the ring comes whole, then the lines after
 * it), then the bar's newest state if it is still being redrawn.
 *
 * Bounds, whatever the log: every line is cut to TAILKEEP_LINE_MAX bytes
 * (traceback lines to TAILKEEP_TB_LINE_MAX), made printable and JSON-safe
 * (linering_sanitize); a traceback keeps at most TAILKEEP_TB_LINES lines and
 * TAILKEEP_TB_BYTES: its first TAILKEEP_TB_HEAD lines and its newest ones,
 * with one "[... N traceback lines not kept ...]" line between; the whole
 * output is at most TAILKEEP_OUT_BYTES counted as JSON (quotes and
 * backslashes twice), the oldest lines outside the traceback dropped first,
 * so a FAILED marker stays well inside the 64 KiB patrol's probe reads.
 */
#ifndef WK_TAIL_H
#define WK_TAIL_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#define TAILKEEP_LINES		30
#define TAILKEEP_LINE_MAX	1024
#define TAILKEEP_TB_LINES	200
#define TAILKEEP_TB_HEAD	20
#define TAILKEEP_TB_LINE_MAX	512
#define TAILKEEP_TB_BYTES	(24 * 1024)
#define TAILKEEP_OUT_BYTES	(40 * 1024)
#define TAILKEEP_PREFIX_MAX	32

struct tk_line {
	uint64_t seq;		/* order in the log (committed lines) */
	char	*text;		/* owned, sanitized */
};

/* A ring of at most cap lines. */
struct tk_ring {
	struct tk_line *l;	/* cap slots */
	size_t	 cap, head, count;
};

enum tk_tb_state {
	TK_TB_NONE,		/* no traceback open */
	TK_TB_FRAMES,		/* in the frames: until a line not indented */
	TK_TB_AFTER,		/* after the exception line: a chain or its continuation may follow */
	TK_TB_CHAINED		/* after "During handling ...": the next header continues it */
};

struct tailkeep {
	struct tk_ring	 ring;		/* the last lines (bars collapsed) */
	uint64_t	 seq;		/* the next line's seq */
	char		*bar;		/* the bar's newest state, not yet a line; NULL none */
	int		 bar_cleared;	/* a blank '\r' segment came after it */

	enum tk_tb_state tb_state;
	char		 tb_prefix[TAILKEEP_PREFIX_MAX + 1];
	size_t		 tb_blanks;	/* blank lines held after the exception line */
	uint64_t	 tb_blank_seq[4];
	struct tk_line	 tb_head[TAILKEEP_TB_HEAD];
	size_t		 tb_nhead;
	struct tk_ring	 tb_tail;	/* its lines after the head, the newest */
	uint64_t	 tb_omitted;	/* lines dropped between head and tail */
	size_t		 tb_bytes;	/* JSON cost of head + tail */
};

void tailkeep_init(struct tailkeep *tk);
/* One line as logscan delivered it: flags LOGSCAN_CR, LOGSCAN_TRUNCATED. */
void tailkeep_line(struct tailkeep *tk, const char *line, size_t len, int flags);
/* The kept lines, oldest first, as a JSON array of strings (caller owns). */
cJSON *tailkeep_lines(const struct tailkeep *tk);
/* The newest line (the bar's state while it is redrawn), NULL when nothing was seen. */
const char *tailkeep_last(const struct tailkeep *tk);
int tailkeep_empty(const struct tailkeep *tk);
/*
 * Everything kept, for scan.json, and back: 0, or WK_ERR_PARSE (tk left
 * empty) when doc is not one.
 */
cJSON *tailkeep_save(const struct tailkeep *tk);
int tailkeep_load(struct tailkeep *tk, const cJSON *doc);
void tailkeep_clear(struct tailkeep *tk);
void tailkeep_free(struct tailkeep *tk);

/* Length of a rank prefix at the start of s ("[rank0]: ", "[default3]:", "12: "), 0 when none. */
size_t tailkeep_prefix_len(const char *s);

#endif
