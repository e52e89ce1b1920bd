/*
 * logscan.c: incremental, restartable reading of a growing log (see logscan.h).
 *
 * Reads go through pread() at an explicit offset (rdoff), never through the
 * descriptor's file position, so the descriptor can be shared with nothing
 * and the offset is always the one we think it is.  Three offsets matter:
 *   pos.off  bytes consumed as complete lines: what is persisted, so a
 *            resumed scanner re-reads a partial last line instead of losing it;
 *   rdoff    bytes read: pos.off + the held partial line + bytes skipped of
 *            an over-long line;
 *   st_size  what the file holds now: below rdoff means it was truncated.
 * Memory is bounded by max_line + one chunk whatever the file holds: an
 * over-long line keeps its first max_line (+1, to see a '\r') bytes and the
 * rest is counted but not stored.  One poll reads at most up to the size the
 * file had when the poll started, so a writer faster than us cannot keep a
 * poll going forever; the inotify event for the newer bytes brings the next.
 *
 * A copytruncate followed by more writes than we had read before our next
 * poll cannot be told from growth by size, so the scanner also keeps the last
 * 32 bytes it read (fp) and checks, before reading on, that the file still
 * holds them just before rdoff; if not, the file was truncated and rewritten
 * and reading restarts at 0.  Known limits: a rewrite that happens to repeat
 * those 32 bytes at that offset, and an inode number reused by a new file at
 * the same path, both look like the old file.
 *
 * The linering beside it keeps sanitized copies of the last N lines for
 * FAILED markers and status; linering_sanitize() is shared with triage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "logscan.h"
#include "xmalloc.h"

#define LOGSCAN_CHUNK		(64 * 1024)
#define LINERING_MAX_LINE	1024

void
logscan_init(struct logscan *ls, const char *path, size_t max_line)
{
	memset(ls, 0, sizeof(*ls));
	ls->path = xstrdup(path);
	ls->fd = -1;
	ls->max_line = max_line > 0 ? max_line : LOGSCAN_DEFAULT_MAX_LINE;
	buf_init(&ls->partial);
}

/* Forget the open file and any held bytes; pos is left to the caller. */
static void
logscan_close(struct logscan *ls)
{
	if (ls->fd >= 0)
		close(ls->fd);
	ls->fd = -1;
	buf_reset(&ls->partial);
	ls->skipping = 0;
	ls->fp_len = 0;
	ls->cr_pending = 0;
}

/* Remember the last bytes read, which end at the new rdoff. */
static void
logscan_fp_update(struct logscan *ls, const char *data, size_t n)
{
	size_t keep;

	if (n >= sizeof(ls->fp)) {
		memcpy(ls->fp, data + n - sizeof(ls->fp), sizeof(ls->fp));
		ls->fp_len = sizeof(ls->fp);
		return;
	}
	keep = ls->fp_len + n > sizeof(ls->fp) ? sizeof(ls->fp) - n : ls->fp_len;
	memmove(ls->fp, ls->fp + ls->fp_len - keep, keep);
	memcpy(ls->fp + keep, data, n);
	ls->fp_len = keep + n;
}

/* Take the fingerprint from the file: the bytes just before rdoff, as they are now. */
static void
logscan_fp_load(struct logscan *ls)
{
	char tail[sizeof(ls->fp)];
	size_t want = ls->rdoff < sizeof(tail) ? (size_t)ls->rdoff : sizeof(tail);
	ssize_t n;

	ls->fp_len = 0;
	if (want == 0)
		return;
	do {
		n = pread(ls->fd, tail, want, (off_t)(ls->rdoff - want));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)want)
		logscan_fp_update(ls, tail, want);
}

/* 1 when the file still holds the remembered bytes just before rdoff. */
static int
logscan_fp_ok(struct logscan *ls)
{
	unsigned char now[sizeof(ls->fp)];
	ssize_t n;

	if (ls->fp_len == 0 || ls->rdoff < ls->fp_len)
		return 1;
	do {
		n = pread(ls->fd, now, ls->fp_len, (off_t)(ls->rdoff - ls->fp_len));
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)ls->fp_len && memcmp(now, ls->fp, ls->fp_len) == 0;
}

void
logscan_set_pos(struct logscan *ls, const struct logscan_pos *pos)
{
	logscan_close(ls);
	ls->pos = *pos;
	ls->rdoff = pos->off;
	ls->fp_given = 0;
	if (pos->fp_len > 0 && pos->fp_len <= sizeof(ls->fp)) {
		memcpy(ls->fp, pos->fp, pos->fp_len);
		ls->fp_len = pos->fp_len;
		ls->fp_given = 1;
	}
}

void
logscan_fp_hex(const struct logscan_pos *pos, char *out)
{
	static const char hexd[] = "0123456789abcdef";
	uint32_t i;

	for (i = 0; i < pos->fp_len && i < sizeof(pos->fp); i++) {
		out[2 * i] = hexd[pos->fp[i] >> 4];
		out[2 * i + 1] = hexd[pos->fp[i] & 15];
	}
	out[2 * i] = '\0';
}

int
logscan_fp_parse(struct logscan_pos *pos, const char *hex)
{
	size_t n = strlen(hex), i;
	unsigned int v;

	pos->fp_len = 0;
	if (n % 2 != 0 || n / 2 > sizeof(pos->fp))
		return WK_ERR_PARSE;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return WK_ERR_PARSE;
		pos->fp[i] = (unsigned char)v;
	}
	pos->fp_len = (uint32_t)(n / 2);
	return 0;
}

/*
 * Open the file now at path.  The position in ls->pos is kept only when it
 * names this very (dev, ino) and the file still holds that many bytes;
 * otherwise reading starts at 0.  Returns 1 when open, 0 when there is no
 * file yet, WK_ERR_SYSTEM otherwise.
 */
static int
logscan_open(struct logscan *ls)
{
	struct stat st;
	int fd, saved, r = WK_ERR_SYSTEM;

	if ((fd = open(ls->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0) {
		if (errno == ENOENT)
			r = 0;
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		goto out;
	}
	if ((uint64_t)st.st_dev != ls->pos.dev || (uint64_t)st.st_ino != ls->pos.ino ||
	    (uint64_t)st.st_size < ls->pos.off) {
		ls->pos.off = 0;
		ls->fp_given = 0;
	}
	ls->pos.dev = (uint64_t)st.st_dev;
	ls->pos.ino = (uint64_t)st.st_ino;
	ls->rdoff = ls->pos.off;
	buf_reset(&ls->partial);
	ls->skipping = 0;
	ls->cr_pending = 0;
	ls->fd = fd;
	/*
	 * A kept position is verified like one we read up to: against the
	 * fingerprint saved with it, else against the file as it is now.
	 */
	if (ls->fp_given && ls->pos.off > 0 && !logscan_fp_ok(ls)) {
		ls->rdoff = ls->pos.off = 0;
		ls->fp_len = 0;
	} else if (!ls->fp_given)
		logscan_fp_load(ls);
	ls->fp_given = 0;
	r = 1;
 out:
	return r;
}

static void
logscan_deliver(struct logscan *ls, const char *line, size_t len, int flags,
    logscan_line_fn fn, void *arg)
{
	if (!(flags & LOGSCAN_TRUNCATED) && len > 0 && line[len - 1] == '\r')
		len--;
	if (len > ls->max_line) {
		len = ls->max_line;
		flags |= LOGSCAN_TRUNCATED;
	}
	ls->lines++;
	if (fn != NULL)
		fn(arg, line, len, flags);
}

/* Deliver the held partial line with flags (LOGSCAN_CR or 0) and forget it. */
static void
logscan_deliver_partial(struct logscan *ls, int flags, logscan_line_fn fn, void *arg)
{
	/* An empty segment before a lone '\r' is not a line; before "\r\n" it is. */
	if (!(flags & LOGSCAN_CR) || ls->partial.len > 0 || ls->skipping)
		logscan_deliver(ls, ls->partial.data, ls->partial.len,
		    flags | (ls->skipping ? LOGSCAN_TRUNCATED : 0), fn, arg);
	buf_reset(&ls->partial);
	ls->skipping = 0;
}

/* Keep seg bytes of the line being assembled: max_line + 1, one more tells a cut line. */
static void
logscan_hold(struct logscan *ls, const char *p, size_t seg)
{
	size_t room;

	if (ls->skipping)
		return;
	room = ls->max_line + 1 - ls->partial.len;
	if (seg > room)
		ls->skipping = 1;
	buf_append(&ls->partial, p, seg > room ? room : seg);
}

/*
 * Split data[0..n) into lines; data continues the file at ls->rdoff.
 *
 * A line ends at '\n', at "\r\n", or at a lone '\r': progress bars (tqdm)
 * redraw with '\r' and write no '\n' until the epoch ends, and their
 * progress must not wait for it.  Empty '\r' segments are not lines.  A '\r'
 * that ends one read and a '\n' that starts the next are one "\r\n": such
 * a '\r' holds its line (cr_pending) until the next byte tells which it was;
 * pos.off stays before the held line, as for any partial line.
 */
static void
logscan_feed(struct logscan *ls, const char *data, size_t n, logscan_line_fn fn, void *arg)
{
	const char *p = data, *end = data + n, *nl, *cr, *brk;
	size_t seg, skip;
	int is_cr;

	while (p < end) {
		if (ls->cr_pending) {
			ls->cr_pending = 0;
			if (*p == '\n') {
				p++;
				ls->rdoff++;
				logscan_deliver_partial(ls, 0, fn, arg);
			} else
				logscan_deliver_partial(ls, LOGSCAN_CR, fn, arg);
			ls->pos.off = ls->rdoff;
			continue;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		cr = memchr(p, '\r', (size_t)((nl != NULL ? nl : end) - p));
		is_cr = cr != NULL && cr + 1 != nl;
		brk = is_cr ? cr : nl;
		/* "\r\n": the line is what comes before the '\r'; two bytes end it. */
		seg = (size_t)((brk != NULL ? (cr != NULL && !is_cr ? cr : brk) : end) - p);
		skip = brk == NULL ? 0 : (cr != NULL && !is_cr ? 2 : 1);
		if (is_cr && cr + 1 == end) {
			/* The last byte read is a '\r': the next read says whether "\r\n". */
			logscan_hold(ls, p, seg);
			ls->rdoff += seg + 1;
			ls->cr_pending = 1;
			break;
		}
		if (brk != NULL && ls->partial.len == 0 && !ls->skipping) {
			if (!is_cr || seg > 0)
				logscan_deliver(ls, p, seg, is_cr ? LOGSCAN_CR : 0, fn, arg);
		} else {
			logscan_hold(ls, p, seg);
			if (brk != NULL)
				logscan_deliver_partial(ls, is_cr ? LOGSCAN_CR : 0, fn, arg);
		}
		ls->rdoff += seg;
		if (brk == NULL)
			break;
		ls->rdoff += skip;
		ls->pos.off = ls->rdoff;
		p += seg + skip;
	}
}

/*
 * Read the open file from rdoff up to the size it has now, restarting at 0
 * when it shrank below what we had read.  Returns bytes read or WK_ERR_SYSTEM.
 */
static long
logscan_read(struct logscan *ls, logscan_line_fn fn, void *arg, char *chunk)
{
	struct stat st;
	uint64_t limit;
	ssize_t n;
	long total = 0;

	if (fstat(ls->fd, &st) != 0) {
		total = WK_ERR_SYSTEM;
		goto out;
	}
	limit = (uint64_t)st.st_size;
	if (limit < ls->rdoff || !logscan_fp_ok(ls)) {
		buf_reset(&ls->partial);
		ls->skipping = 0;
		ls->cr_pending = 0;
		ls->rdoff = ls->pos.off = 0;
		ls->fp_len = 0;
	}
	while (ls->rdoff < limit) {
		n = pread(ls->fd, chunk, LOGSCAN_CHUNK, (off_t)ls->rdoff);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			total = WK_ERR_SYSTEM;
			goto out;
		}
		if (n == 0)
			break;
		logscan_feed(ls, chunk, (size_t)n, fn, arg);
		logscan_fp_update(ls, chunk, (size_t)n);
		ls->bytes += (uint64_t)n;
		total += (long)n;
	}
 out:
	return total;
}

long
logscan_poll(struct logscan *ls, logscan_line_fn fn, void *arg)
{
	struct stat st;
	char *chunk;
	long total = 0, n;
	int r = 0;

	chunk = xmalloc(LOGSCAN_CHUNK);
	if (ls->fd >= 0 && stat(ls->path, &st) == 0 &&
	    ((uint64_t)st.st_dev != ls->pos.dev || (uint64_t)st.st_ino != ls->pos.ino)) {
		/*
		 * Rotated by rename: what was written to the old file before the
		 * writer switched is still ours, through the descriptor we hold.
		 * Its unterminated last line will get no newline now: deliver it.
		 */
		if ((n = logscan_read(ls, fn, arg, chunk)) < 0) {
			total = n;
			goto out;
		}
		total += n;
		logscan_flush(ls, fn, arg);
		logscan_close(ls);
		memset(&ls->pos, 0, sizeof(ls->pos));
		ls->rdoff = 0;
	}
	/* A missing path with the file still open (renamed, not yet replaced): keep reading it. */
	if (ls->fd < 0 && (r = logscan_open(ls)) <= 0) {
		if (r < 0)
			total = r;
		goto out;
	}
	if ((n = logscan_read(ls, fn, arg, chunk)) < 0) {
		total = n;
		goto out;
	}
	total += n;
 out:
	free(chunk);
	return total;
}

/*
 * Everything in the file now counts as consumed, including an unterminated
 * last line: if its writer later finishes it, the rest arrives as a line of
 * its own.  With no file at path, the whole file that appears later is new.
 */
int
logscan_seek_end(struct logscan *ls)
{
	struct stat st;
	int r;

	if (ls->fd >= 0 && stat(ls->path, &st) == 0 &&
	    ((uint64_t)st.st_dev != ls->pos.dev || (uint64_t)st.st_ino != ls->pos.ino))
		logscan_close(ls);
	if (ls->fd < 0) {
		memset(&ls->pos, 0, sizeof(ls->pos));
		ls->rdoff = 0;
		if ((r = logscan_open(ls)) <= 0)
			return r;
	}
	if (fstat(ls->fd, &st) != 0)
		return WK_ERR_SYSTEM;
	buf_reset(&ls->partial);
	ls->skipping = 0;
	ls->cr_pending = 0;
	ls->rdoff = ls->pos.off = (uint64_t)st.st_size;
	logscan_fp_load(ls);
	return 0;
}

void
logscan_flush(struct logscan *ls, logscan_line_fn fn, void *arg)
{
	int flags = ls->cr_pending ? LOGSCAN_CR : 0;

	if (ls->partial.len == 0 && !ls->skipping && !ls->cr_pending)
		return;
	ls->cr_pending = 0;
	logscan_deliver_partial(ls, flags, fn, arg);
	ls->pos.off = ls->rdoff;
}

void
logscan_get_pos(const struct logscan *ls, struct logscan_pos *pos)
{
	*pos = ls->pos;
	/* The fingerprint ends at rdoff; it describes pos.off only when they agree. */
	pos->fp_len = 0;
	if (ls->rdoff == ls->pos.off && ls->fp_len > 0) {
		memcpy(pos->fp, ls->fp, ls->fp_len);
		pos->fp_len = (uint32_t)ls->fp_len;
	}
}

void
logscan_free(struct logscan *ls)
{
	logscan_close(ls);
	buf_free(&ls->partial);
	free(ls->path);
	ls->path = NULL;
}

/* Length of the valid UTF-8 sequence starting s[0..len), 0 when invalid. */
static size_t
linering_utf8_len(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;	/* overlong, out of range, or a surrogate */
	return n;
}

char *
linering_sanitize(const char *line, size_t len, size_t max)
{
	const unsigned char *s = (const unsigned char *)line;
	char *out;
	size_t i = 0, o = 0, n;
	int bad;

	out = xmalloc((len < max ? len : max) + 1);
	while (i < len) {
		n = linering_utf8_len(s + i, len - i);
		/* C0 controls but '\t', DEL, C1 controls (U+0080..U+009F), invalid bytes. */
		bad = n == 0 || (n == 1 && ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)) ||
		    (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0);
		if (bad) {
			if (o + 1 > max)
				break;
			out[o++] = '?';
			i += n > 0 ? n : 1;
			continue;
		}
		if (o + n > max)
			break;
		memcpy(out + o, s + i, n);
		o += n;
		i += n;
	}
	out[o] = '\0';
	return out;
}

void
linering_init(struct linering *r, size_t n)
{
	r->lines = n > 0 ? xcalloc(n, sizeof(*r->lines)) : NULL;
	r->n = n;
	r->head = r->count = 0;
}

void
linering_push(struct linering *r, const char *line, size_t len)
{
	if (r->n == 0)
		return;
	free(r->lines[r->head]);
	r->lines[r->head] = linering_sanitize(line, len, LINERING_MAX_LINE);
	r->head = (r->head + 1) % r->n;
	if (r->count < r->n)
		r->count++;
}

const char *
linering_get(const struct linering *r, size_t i)
{
	if (i >= r->count)
		return NULL;
	return r->lines[(r->head + r->n - r->count + i) % r->n];
}

const char *
linering_last(const struct linering *r)
{
	if (r->count == 0)
		return NULL;
	return r->lines[(r->head + r->n - 1) % r->n];
}

void
linering_clear(struct linering *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->lines[i]);
		r->lines[i] = NULL;
	}
	r->head = r->count = 0;
}

void
linering_free(struct linering *r)
{
	linering_clear(r);
	free(r->lines);
	r->lines = NULL;
	r->n = 0;
}
