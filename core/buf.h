/*
 * buf.h: a growable byte buffer that is always NUL-terminated.
 * The buffer owns data; buf_detach() hands it to the caller.
 */
#ifndef WK_BUF_H
#define WK_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char	*data;	/* NUL-terminated when cap > 0 */
	size_t	 len;
	size_t	 cap;
};

#define BUF_INIT { NULL, 0, 0 }

void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);
void buf_reserve(struct buf *b, size_t extra);
void buf_append(struct buf *b, const void *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Drop the first n bytes. */
void buf_consume(struct buf *b, size_t n);
/* Append what of p[0..n) fits below cap bytes in b; 1 when some was left out, else 0. */
int buf_append_max(struct buf *b, const void *p, size_t n, size_t cap);
/* Returns the NUL-terminated contents (never NULL) and empties b; caller frees. */
char *buf_detach(struct buf *b);
/* The contents as a C string (never NULL; "" when empty). */
const char *buf_str(struct buf *b);

#endif
