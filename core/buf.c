/*
 * buf.c: growable NUL-terminated byte buffer (see buf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xmalloc.h"

void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->cap > 0)
		b->data[0] = '\0';
}

void
buf_reserve(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1, cap = b->cap ? b->cap : 64;

	if (need <= b->cap)
		return;
	while (cap < need)
		cap *= 2;
	b->data = xreallocarray(b->data, cap, 1);
	b->cap = cap;
}

void
buf_append(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void
buf_putc(struct buf *b, char c)
{
	buf_append(b, &c, 1);
}

void
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0)
		return;
	buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

char *
buf_detach(struct buf *b)
{
	char *p = b->data;

	if (p == NULL)
		p = xstrdup("");
	buf_init(b);
	return p;
}

const char *
buf_str(struct buf *b)
{
	return b->len == 0 || b->data == NULL ? "" : b->data;
}

int
buf_append_max(struct buf *b, const void *p, size_t n, size_t cap)
{
	size_t k = b->len < cap ? cap - b->len : 0;

	if (k > n)
		k = n;
	if (k > 0)
		buf_append(b, p, k);
	return k < n;
}
