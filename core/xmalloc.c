/*
 * xmalloc.c: allocation wrappers; failure is fatal (see xmalloc.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "log.h"
#include "xmalloc.h"

void *
xmalloc(size_t size)
{
	void *p;

	if (size == 0)
		size = 1;
	if ((p = malloc(size)) == NULL)
		fatal("out of memory allocating %zu bytes", size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if (n == 0 || size == 0)
		n = size = 1;
	if ((p = calloc(n, size)) == NULL)
		fatal("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	void *q;

	if (n == 0 || size == 0)
		n = size = 1;
	if (size != 0 && n > SIZE_MAX / size)
		fatal("allocation overflow: %zu x %zu", n, size);
	if ((q = realloc(p, n * size)) == NULL)
		fatal("out of memory allocating %zu x %zu bytes", n, size);
	return q;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xstrdup_or_null(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

static int
xvasprintf(char **out, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		fatal("vsnprintf: %s", wk_strerror(WK_ERR_SYSTEM));
	*out = xmalloc((size_t)n + 1);
	vsnprintf(*out, (size_t)n + 1, fmt, ap);
	return n;
}

int
xasprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = xvasprintf(out, fmt, ap);
	va_end(ap);
	return n;
}

char *
xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	return s;
}

void
xfree_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
