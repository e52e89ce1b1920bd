/* md.c: markdown that values cannot break out of (see md.h). */
#include <string.h>

#include "buf.h"
#include "md.h"

static size_t
md_longest_run(const char *s, char c)
{
	size_t n = 0, best = 0;

	for (; *s != '\0'; s++) {
		n = *s == c ? n + 1 : 0;
		if (n > best)
			best = n;
	}
	return best;
}

static void
md_ticks(struct buf *b, size_t n)
{
	while (n-- > 0)
		buf_putc(b, '`');
}

/*
 * s as one code span.  cell: it sits in a table row ('|' escaped).
 * Newlines become ⏎ and other control bytes spaces, so the span stays on
 * its line; padded with a space each side when s starts or ends with a
 * backtick or a space (CommonMark strips exactly one each side).
 */
void
md_code_x(struct buf *b, const char *s, int cell)
{
	size_t n, len;
	int pad;

	if (s == NULL || *s == '\0') {
		buf_puts(b, "(empty)");
		return;
	}
	len = strlen(s);
	n = md_longest_run(s, '`') + 1;
	pad = s[0] == '`' || s[0] == ' ' || s[len - 1] == '`' || s[len - 1] == ' ';
	md_ticks(b, n);
	if (pad)
		buf_putc(b, ' ');
	for (; *s != '\0'; s++) {
		if (*s == '\n')
			buf_puts(b, "\xe2\x8f\x8e");	/* ⏎ */
		else if (*s == '|' && cell)
			buf_puts(b, "\\|");
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			buf_putc(b, ' ');
		else
			buf_putc(b, *s);
	}
	if (pad)
		buf_putc(b, ' ');
	md_ticks(b, n);
}

void
md_code(struct buf *b, const char *s)
{
	md_code_x(b, s, 0);
}

/* Our own words in a table cell: one line, '|' escaped, no HTML. */
void
md_cell(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			buf_puts(b, "\\|");
		else if (*s == '<')
			buf_puts(b, "&lt;");
		else if (*s == '\n' || *s == '\r')
			buf_putc(b, ' ');
		else
			buf_putc(b, *s);
	}
}

/* s in a fenced block, info string info ("sh" or ""). */
void
md_block(struct buf *b, const char *info, const char *s)
{
	size_t n = md_longest_run(s, '`') + 1;

	if (n < 3)
		n = 3;
	md_ticks(b, n);
	buf_puts(b, info);
	buf_putc(b, '\n');
	buf_puts(b, s);
	if (*s == '\0' || s[strlen(s) - 1] != '\n')
		buf_putc(b, '\n');
	md_ticks(b, n);
	buf_puts(b, "\n\n");
}

void
md_flat(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		buf_putc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
}
