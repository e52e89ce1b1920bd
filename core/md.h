/*
 * md.h: markdown pieces that text from configs, logs and boxes cannot break
 * out of, for HANDBOOK.md and LOGBOOK.md.
 *
 * A code span or fence is one backtick longer than the longest run of
 * backticks inside it, so no value can close it early; one-line forms turn
 * newlines into ⏎ (or spaces) so no value can start a heading of its own.
 */
#ifndef WK_MD_H
#define WK_MD_H

#include "buf.h"

/* s as one code span ("(empty)" for NULL or ""); cell: inside a table row ('|' escaped). */
void md_code_x(struct buf *b, const char *s, int cell);
void md_code(struct buf *b, const char *s);
/* Our own words in a table cell: one line, '|' escaped, '<' as &lt;. */
void md_cell(struct buf *b, const char *s);
/* s in a fenced block with info string info ("sh" or ""), followed by a blank line. */
void md_block(struct buf *b, const char *info, const char *s);
/* s on one line: newlines, tabs and other control bytes become spaces. */
void md_flat(struct buf *b, const char *s);

#endif
