/*
 * diag.c: collected diagnostics (see diag.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "buf.h"
#include "diag.h"
#include "xmalloc.h"

void
diag_add(struct diag *d, const char *file, int line, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (file != NULL && line > 0)
		buf_printf(&b, "%s:%d: %s", file, line, msg);
	else if (file != NULL)
		buf_printf(&b, "%s: %s", file, msg);
	else
		buf_puts(&b, msg);
	d->msgs = xreallocarray(d->msgs, d->n + 1, sizeof(*d->msgs));
	d->msgs[d->n++] = buf_detach(&b);
}

void
diag_print(const struct diag *d, FILE *fp)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		fprintf(fp, "%s\n", d->msgs[i]);
}

void
diag_free(struct diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->msgs[i]);
	free(d->msgs);
	d->msgs = NULL;
	d->n = 0;
}
