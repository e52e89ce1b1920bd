/*
 * xmalloc.h: allocation that cannot fail.  Out of memory is fatal here, once,
 * so callers never check for NULL (tmux's xmalloc.c shape).
 */
#ifndef WK_XMALLOC_H
#define WK_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* NULL in, NULL out. */
char *xstrdup_or_null(const char *s);
int xasprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns the new string; convenient in expressions. Caller frees. */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Free v[0..n) and v. */
void xfree_strv(char **v, size_t n);

#endif
