/*
 * top-fmt.c: the text of `patrol top`, with no terminal in sight (the unit
 * test drives every function here).
 *
 * Everything a row shows comes from a box (a stage name, an event, a log's
 * words in the details), so every cell goes through top_cell: control
 * characters and invalid UTF-8 become '?' (an escape sequence from a log
 * never reaches the terminal), and the cell is exactly its width in display
 * columns, wide (CJK, emoji) and zero-width (combining) characters counted
 * as a terminal counts them (the tables below, after Unicode's East Asian
 * Width; the locale's wcwidth is not asked, so the result is the same on
 * every machine and in the test).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonfile.h"
#include "monotime.h"
#include "top.h"

struct top_range {
	unsigned	lo, hi;
};

/* Two columns wide. */
static const struct top_range top_wide[] = {
	{ 0x1100, 0x115F }, { 0x231A, 0x231B }, { 0x2329, 0x232A }, { 0x23E9, 0x23EC },
	{ 0x23F0, 0x23F0 }, { 0x23F3, 0x23F3 }, { 0x25FD, 0x25FE }, { 0x2614, 0x2615 },
	{ 0x2648, 0x2653 }, { 0x26A1, 0x26A1 }, { 0x26AA, 0x26AB }, { 0x26BD, 0x26BE },
	{ 0x26C4, 0x26C5 }, { 0x26D4, 0x26D4 }, { 0x26EA, 0x26EA }, { 0x26F2, 0x26F5 },
	{ 0x26FA, 0x26FD }, { 0x2705, 0x2705 }, { 0x270A, 0x270B }, { 0x2728, 0x2728 },
	{ 0x274C, 0x274C }, { 0x2753, 0x2755 }, { 0x2757, 0x2757 }, { 0x2795, 0x2797 },
	{ 0x27B0, 0x27B0 }, { 0x27BF, 0x27BF }, { 0x2B1B, 0x2B1C }, { 0x2B50, 0x2B50 },
	{ 0x2B55, 0x2B55 }, { 0x2E80, 0x303E }, { 0x3041, 0x33FF }, { 0x3400, 0x4DBF },
	{ 0x4E00, 0x9FFF }, { 0xA000, 0xA4CF }, { 0xA960, 0xA97F }, { 0xAC00, 0xD7A3 },
	{ 0xF900, 0xFAFF }, { 0xFE10, 0xFE19 }, { 0xFE30, 0xFE6F }, { 0xFF00, 0xFF60 },
	{ 0xFFE0, 0xFFE6 }, { 0x16FE0, 0x18CFF }, { 0x1B000, 0x1B2FF }, { 0x1F004, 0x1F004 },
	{ 0x1F0CF, 0x1F0CF }, { 0x1F18E, 0x1F18E }, { 0x1F191, 0x1F19A }, { 0x1F200, 0x1F2FF },
	{ 0x1F300, 0x1F64F }, { 0x1F680, 0x1F6FF }, { 0x1F7E0, 0x1F7EB }, { 0x1F90C, 0x1F9FF },
	{ 0x1FA70, 0x1FAFF }, { 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
};

/* No column: combining marks, zero-width spaces and joiners, variation selectors. */
static const struct top_range top_zero[] = {
	{ 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD }, { 0x0610, 0x061A },
	{ 0x064B, 0x065F }, { 0x0E31, 0x0E31 }, { 0x0E34, 0x0E3A }, { 0x1AB0, 0x1AFF },
	{ 0x1DC0, 0x1DFF }, { 0x200B, 0x200F }, { 0x2028, 0x202E }, { 0x2060, 0x2064 },
	{ 0x20D0, 0x20FF }, { 0xFE00, 0xFE0F }, { 0xFE20, 0xFE2F }, { 0xFEFF, 0xFEFF },
	{ 0xE0100, 0xE01EF },
};

static int
top_in(const struct top_range *t, size_t n, unsigned c)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c < t[mid].lo)
			hi = mid;
		else if (c > t[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * The character at s (NUL-terminated): its bytes in *len and its code point,
 * or -1 for a byte that does not start valid UTF-8 (overlong, surrogate,
 * past U+10FFFF, cut short), which is then one byte.
 */
static long
top_decode(const unsigned char *s, size_t *len)
{
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned c = s[0];
	size_t n, i;

	*len = 1;
	if (c < 0x80)
		return (long)c;
	n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? (c < 0xF0 ? 3 : 0) : c >= 0xC2 ? 2 : 0;
	if (n == 0)
		return -1;
	c &= 0x7F >> n;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return -1;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return -1;
	*len = n;
	return (long)c;
}

/* Columns of code point c (-1: shown as '?'); control characters are shown as '?' too. */
static size_t
top_cwidth(long c)
{
	if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0))
		return 1;
	if (top_in(top_zero, sizeof(top_zero) / sizeof(top_zero[0]), (unsigned)c))
		return 0;
	if (top_in(top_wide, sizeof(top_wide) / sizeof(top_wide[0]), (unsigned)c))
		return 2;
	return 1;
}

static int
top_shown(long c)
{
	return !(c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0));
}

size_t
top_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0, len;

	while (*p != '\0') {
		w += top_cwidth(top_decode(p, &len));
		p += len;
	}
	return w;
}

/* Append n bytes of s to dst at *at when they fit (room for the NUL kept); 0 when they do not. */
static int
top_put(char *dst, size_t dstsz, size_t *at, const char *s, size_t n)
{
	if (*at + n + 1 > dstsz)
		return 0;
	memcpy(dst + *at, s, n);
	*at += n;
	dst[*at] = '\0';
	return 1;
}

size_t
top_cell(char *dst, size_t dstsz, const char *src, size_t width, int utf8)
{
	const unsigned char *p = (const unsigned char *)(src != NULL ? src : "");
	const char *ell = utf8 ? "\xe2\x80\xa6" : "~";
	size_t at = 0, used = 0, len, w, room;
	int cut = top_width((const char *)p) > width;
	long c;

	if (dstsz == 0)
		return 0;
	dst[0] = '\0';
	/* Cut: the text takes all but the ellipsis's column. */
	room = cut ? (width > 0 ? width - 1 : 0) : width;
	while (*p != '\0') {
		c = top_decode(p, &len);
		w = top_cwidth(c);
		if (used + w > room)
			break;
		if (top_shown(c) && c >= 0) {
			if (!top_put(dst, dstsz, &at, (const char *)p, len))
				break;
		} else if (!top_put(dst, dstsz, &at, "?", 1))
			break;
		used += w;
		p += len;
	}
	if (cut && width > 0 && top_put(dst, dstsz, &at, ell, strlen(ell)))
		used++;
	while (used < width && top_put(dst, dstsz, &at, " ", 1))
		used++;
	return at;
}

void
top_bar(char *dst, size_t dstsz, long cur, long max, size_t width, int utf8)
{
	/* eighths of a cell: "", U+258F .. U+2589 */
	static const char *const part[] = { "", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
	    "\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89" };
	const char *full = utf8 ? "\xe2\x96\x88" : "#", *empty = utf8 ? "\xe2\x96\x91" : ".";
	size_t at = 0, i, eighths, cells;

	if (dstsz == 0)
		return;
	dst[0] = '\0';
	if (max <= 0 || cur < 0) {
		for (i = 0; i < width; i++)
			(void)top_put(dst, dstsz, &at, " ", 1);
		return;
	}
	if (cur > max)
		cur = max;
	eighths = (size_t)((double)cur / (double)max * (double)(width * 8) + 0.5);
	if (eighths > width * 8)
		eighths = width * 8;
	if (!utf8)	/* whole cells only */
		eighths = eighths / 8 * 8;
	cells = eighths / 8;
	for (i = 0; i < cells; i++)
		(void)top_put(dst, dstsz, &at, full, strlen(full));
	if (cells < width && eighths % 8 != 0) {
		(void)top_put(dst, dstsz, &at, part[eighths % 8], strlen(part[eighths % 8]));
		cells++;
	}
	for (i = cells; i < width; i++)
		(void)top_put(dst, dstsz, &at, empty, strlen(empty));
}

void
top_spark(char *dst, size_t dstsz, const double *v, size_t n, size_t width, int utf8)
{
	static const char *const blocks[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
	    "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
	static const char ascii[] = "_.-~=+*#";
	size_t at = 0, i, first = n > width ? n - width : 0, lvl;
	double lo = INFINITY, hi = -INFINITY;
	char one[2] = { 0, 0 };

	if (dstsz == 0)
		return;
	dst[0] = '\0';
	for (i = first; i < n; i++)
		if (isfinite(v[i])) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
	for (i = n - first; i < width; i++)
		(void)top_put(dst, dstsz, &at, " ", 1);
	for (i = first; i < n; i++) {
		if (!isfinite(v[i])) {
			(void)top_put(dst, dstsz, &at, "!", 1);
			continue;
		}
		lvl = hi > lo ? (size_t)((v[i] - lo) / (hi - lo) * 7.0 + 0.5) : 3;
		if (lvl > 7)
			lvl = 7;
		if (utf8)
			(void)top_put(dst, dstsz, &at, blocks[lvl], strlen(blocks[lvl]));
		else {
			one[0] = ascii[lvl];
			(void)top_put(dst, dstsz, &at, one, 1);
		}
	}
}

/* Each verdict's colour: good news, a state on purpose, something to look at, trouble. */
static const struct {
	const char		*verdict;
	enum top_colour		 colour;
} top_colours[] = {
	{ "HOSTKEY_MISMATCH", TOP_C_BAD },	{ "SSH_DOWN", TOP_C_BAD },
	{ "CRASHED", TOP_C_BAD },		{ "NEEDS_RESUME", TOP_C_WARN },
	{ "RESUMED", TOP_C_INFO },		{ "DEGRADED", TOP_C_WARN },
	{ "STALLED", TOP_C_WARN },		{ "MONITOR_STALE", TOP_C_WARN },
	{ "DISK_LOW", TOP_C_WARN },		{ "TRANSFER_INCOMPLETE", TOP_C_WARN },
	{ "TRANSFER_RESUMED", TOP_C_INFO },	{ "STOPPED", TOP_C_INFO },
	{ "DONE", TOP_C_GOOD },			{ "OK", TOP_C_GOOD },
	{ "CONFIG_ERROR", TOP_C_BAD },
};

enum top_colour
top_verdict_colour(const char *verdict)
{
	size_t i;

	for (i = 0; verdict != NULL && i < sizeof(top_colours) / sizeof(top_colours[0]); i++)
		if (strcmp(top_colours[i].verdict, verdict) == 0)
			return top_colours[i].colour;
	return TOP_C_NONE;
}

void
top_row_from_state(struct top_row *r, const char *name, const cJSON *s)
{
	const cJSON *le = cJSON_GetObjectItemCaseSensitive(s, "last_event");
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(s, "progress");
	time_t seen;

	memset(r, 0, sizeof(*r));
	snprintf(r->run, sizeof(r->run), "%s", name);
	snprintf(r->verdict, sizeof(r->verdict), "%s", json_str(s, "verdict", "unknown"));
	snprintf(r->stage, sizeof(r->stage), "%s", json_str(s, "stage", ""));
	r->attempt = json_long(s, "attempt", 0);
	r->has_cur = cJSON_IsNumber(pr);
	r->cur = r->has_cur ? (long)pr->valuedouble : 0;
	r->max = json_long(s, "progress_max", 0);
	r->eta_s = json_num(s, "eta_s", -1) >= 0 ? json_long(s, "eta_s", 0) : -1;
	r->hb_age_s = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s, "heartbeat_age_s")) ?
	    json_long(s, "heartbeat_age_s", 0) : -1;
	if (timefmt_parse(json_str(s, "seen_at", ""), &seen) == 0)
		r->seen = seen;
	if (cJSON_IsObject(le) && json_str(le, "stage", NULL) != NULL)
		snprintf(r->event, sizeof(r->event), "%.40s %.30s#%ld", json_str(le, "event", "?"),
		    json_str(le, "stage", ""), json_long(le, "attempt", 0));
	else if (cJSON_IsObject(le))
		snprintf(r->event, sizeof(r->event), "%.60s", json_str(le, "event", "?"));
	snprintf(r->details, sizeof(r->details), "%s", json_str(s, "details", ""));
	r->nloss = top_loss_values(s, r->loss, TOP_LOSS_N);
	/* as fleet.c's fleet_finished */
	r->finished = strcmp(r->verdict, "DONE") == 0 ||
	    json_bool(cJSON_GetObjectItemCaseSensitive(s, "seal"), "done", 0);
}

/* ---- the row's columns: a table of {title, width, text} ---- */

typedef void (*top_text_fn)(const struct top_row *, time_t now, int utf8, size_t width, char *,
    size_t);

static void
top_t_run(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now, (void)utf8, (void)w;
	snprintf(d, n, "%s", r->run);
}

static void
top_t_verdict(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now, (void)utf8, (void)w;
	snprintf(d, n, "%s", r->verdict);
}

static void
top_t_stage(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now, (void)utf8, (void)w;
	if (r->stage[0] != '\0')
		snprintf(d, n, "%s#%ld", r->stage, r->attempt);
	else
		snprintf(d, n, "-");
}

static void
top_t_bar(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now;
	top_bar(d, n, r->has_cur ? r->cur : -1, r->max, w, utf8);
}

static void
top_t_progress(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now, (void)utf8, (void)w;
	if (r->has_cur && r->max > 0)
		snprintf(d, n, "~%ld/%ld", r->cur, r->max);
	else if (r->has_cur)
		snprintf(d, n, "~%ld", r->cur);
	else
		snprintf(d, n, "-");
}

static void
top_t_eta(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now, (void)utf8, (void)w;
	if (r->eta_s >= 0)
		timefmt_duration(r->eta_s, d, n);
	else
		snprintf(d, n, "-");
}

static void
top_t_loss(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now;
	top_spark(d, n, r->loss, r->nloss, w, utf8);
}

static void
top_t_hb(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now, (void)utf8, (void)w;
	if (r->hb_age_s >= 0)
		timefmt_duration(r->hb_age_s, d, n);
	else
		snprintf(d, n, "-");
}

static void
top_t_seen(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)utf8, (void)w;
	if (r->seen > 0)
		timefmt_duration(now > r->seen ? (long)(now - r->seen) : 0, d, n);
	else
		snprintf(d, n, "never");
}

/* The refresh: "-" idle, "wait" queued, "look Ns" running, "slow Ns" past its bound. */
static void
top_t_look(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	static const char *const words[] = { "-", "look", "slow", "wait" };

	(void)now, (void)utf8, (void)w;
	if (r->look == TOP_LOOK_BUSY || r->look == TOP_LOOK_SLOW)
		snprintf(d, n, "%s %lds", words[r->look], r->look_s);
	else
		snprintf(d, n, "%s", words[r->look]);
}

static void
top_t_event(const struct top_row *r, time_t now, int utf8, size_t w, char *d, size_t n)
{
	(void)now, (void)utf8, (void)w;
	if (r->event[0] != '\0' && r->details[0] != '\0')
		snprintf(d, n, "%s: %s", r->event, r->details);
	else
		snprintf(d, n, "%s", r->event[0] != '\0' ? r->event : r->details);
}

#define TOP_VERDICT_COL	1
static const struct {
	const char	*title;
	size_t		 width;		/* 0: what is left */
	top_text_fn	 text;
} top_cols[] = {
	{ "RUN", 16, top_t_run },
	{ "VERDICT", 13, top_t_verdict },
	{ "STAGE", 12, top_t_stage },
	{ "PROGRESS", 10, top_t_bar },
	{ "~CUR/MAX", 13, top_t_progress },
	{ "ETA", 7, top_t_eta },
	{ "LOSS", 12, top_t_loss },
	{ "HB", 6, top_t_hb },
	{ "SEEN", 6, top_t_seen },
	{ "LOOK", 8, top_t_look },
	{ "LAST EVENT", 0, top_t_event },
};
#define TOP_NCOLS	(sizeof(top_cols) / sizeof(top_cols[0]))

void
top_line(const struct top_row *r, time_t now, int utf8, size_t cols, char *dst, size_t dstsz,
    struct top_span *verdict)
{
	char text[512], cell[4 * 256 + 1];
	size_t i, used = 0, at = 0, w, len;

	verdict->off = verdict->len = 0;
	if (dstsz == 0)
		return;
	dst[0] = '\0';
	for (i = 0; i < TOP_NCOLS && used < cols; i++) {
		if (i > 0) {	/* the gap */
			(void)top_put(dst, dstsz, &at, " ", 1);
			used++;
		}
		w = top_cols[i].width == 0 || top_cols[i].width > cols - used ? cols - used :
		    top_cols[i].width;
		if (w > 256)
			w = 256;
		if (r == NULL)
			snprintf(text, sizeof(text), "%s", top_cols[i].title);
		else
			top_cols[i].text(r, now, utf8, w, text, sizeof(text));
		len = top_cell(cell, sizeof(cell), text, w, utf8);
		if (i == TOP_VERDICT_COL) {
			verdict->off = at;
			verdict->len = len;
		}
		(void)top_put(dst, dstsz, &at, cell, len);
		used += w;
	}
	while (used < cols && top_put(dst, dstsz, &at, " ", 1))
		used++;
}
