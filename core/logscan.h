/*
 * logscan.h: incremental reading of a growing log, line by line.
 *
 * A scanner remembers (device, inode, offset) of the bytes it has consumed, so
 * a restarted process resumes where the last one stopped: it neither re-fires
 * on old lines nor rescans a multi-GB file (monit's state.c keeps inode and
 * readpos per file for the same reason).  It survives:
 *   - truncation in place (copytruncate, `: > log`): size below offset -> restart at 0;
 *   - rotation by rename (logrotate create): the old file is drained to its end
 *     through the descriptor still open, then the new file is read from 0;
 *   - a file that does not exist yet: polls report 0 bytes until it appears.
 * Lines longer than max_line are cut at max_line bytes (the rest up to the
 * newline is skipped and the line is flagged LOGSCAN_TRUNCATED); NUL bytes and binary
 * garbage pass through as bytes.  A line ends at '\n', "\r\n" or a lone '\r'
 * (progress bars redraw with '\r'); the callback sees it without them.
 *
 * logscan_poll() never blocks; callers wait for inotify or a timer and poll.
 */
#ifndef WK_LOGSCAN_H
#define WK_LOGSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"

struct logscan_pos {
	uint64_t dev;
	uint64_t ino;
	uint64_t off;	/* bytes of this (dev, ino) consumed as complete lines */
	unsigned char fp[32];	/* the file's bytes just before off, when known */
	uint32_t fp_len;	/* 0: unknown (taken from the file when it is opened) */
};

/* pos's fingerprint as hex into out (65 bytes), and back; 0 or WK_ERR_PARSE. */
void logscan_fp_hex(const struct logscan_pos *pos, char *out);
int logscan_fp_parse(struct logscan_pos *pos, const char *hex);

/*
 * Called once per complete line; line is NOT NUL-terminated.  flags tell how
 * it ended: LOGSCAN_CR when by a lone '\r' (a progress bar's redraw, which
 * the next segment overwrites on a terminal), else by '\n' or "\r\n" (or
 * by logscan_flush: no terminator yet); LOGSCAN_TRUNCATED when it was cut at
 * max_line.  A '\r' that ends one read is held until the next byte is seen,
 * so a "\r\n" split between reads is never reported as a lone '\r'.
 */
#define LOGSCAN_TRUNCATED	0x1
#define LOGSCAN_CR		0x2
typedef void (*logscan_line_fn)(void *arg, const char *line, size_t len, int flags);

struct logscan {
	char		*path;		/* owned */
	int		 fd;		/* -1 when not open */
	struct logscan_pos pos;
	size_t		 max_line;
	struct buf	 partial;	/* bytes after the last '\n' */
	int		 skipping;	/* inside an over-long line */
	int		 cr_pending;	/* the last read ended with '\r': partial is a line whose end is not known yet */
	uint64_t	 lines;		/* complete lines delivered, for statistics */
	uint64_t	 bytes;		/* bytes read, for statistics */
	unsigned char	 fp[32];	/* the last bytes read, ending at rdoff */
	size_t		 fp_len;	/* 0: nothing to verify */
	int		 fp_given;	/* fp came with logscan_set_pos: keep it at open */
	uint64_t	 rdoff;		/* next byte to read from fd: pos.off + partial + skipped */
};

#define LOGSCAN_DEFAULT_MAX_LINE 8192

/* Start at offset 0 of whatever file is at path (or appears there later). */
void logscan_init(struct logscan *ls, const char *path, size_t max_line);
/*
 * Resume at a saved position: honoured only while path still has that (dev,
 * ino), and, when pos carries a fingerprint, only while the file still holds
 * those bytes just before off (else the file was rewritten: start at 0).
 */
void logscan_set_pos(struct logscan *ls, const struct logscan_pos *pos);
/*
 * Skip everything currently in the file: the next poll delivers only bytes
 * written after this call (used to scan "this attempt's output" of a shared log).
 */
int logscan_seek_end(struct logscan *ls);
/*
 * Read every byte available now and deliver complete lines.  Returns the
 * number of bytes read (0 when nothing new), or WK_ERR_SYSTEM on a read error
 * other than the file not existing.
 */
long logscan_poll(struct logscan *ls, logscan_line_fn fn, void *arg);
/* Deliver a pending partial last line (no '\n' yet) as a line; used at stage end. */
void logscan_flush(struct logscan *ls, logscan_line_fn fn, void *arg);
/* Current position (only whole lines consumed count). */
void logscan_get_pos(const struct logscan *ls, struct logscan_pos *pos);
void logscan_free(struct logscan *ls);

/*
 * A ring of the last N lines seen, for FAILED markers and status.  Lines are
 * stored with control characters other than '\t' replaced by '?', so they are
 * safe to print and to put in JSON.
 */
struct linering {
	char	**lines;	/* owned; n slots */
	size_t	  n;
	size_t	  head;		/* next slot to write */
	size_t	  count;	/* lines stored, <= n */
};

void linering_init(struct linering *r, size_t n);
void linering_push(struct linering *r, const char *line, size_t len);
/* i = 0 is the oldest stored line; i < count. */
const char *linering_get(const struct linering *r, size_t i);
const char *linering_last(const struct linering *r);	/* NULL when empty */
void linering_clear(struct linering *r);
void linering_free(struct linering *r);

/*
 * The printable, JSON-safe copy of line[0..len) that linering stores: C0/C1
 * control characters other than '\t' and bytes that are not valid UTF-8
 * become '?', and the result is cut to at most max bytes (never inside a
 * UTF-8 sequence).  Caller frees.
 */
char *linering_sanitize(const char *line, size_t len, size_t max);

#endif
