/*
 * sshq.c: POSIX sh single-quote quoting (see sshq.h).
 *
 * Single quotes are the only sh quoting in which no character is special, so
 * the only thing to handle is the quote itself: close, emit an escaped quote,
 * reopen.  Nothing is left unquoted, not even "safe" words, so there is no
 * judgement about which characters are safe to get wrong.
 */
#include <string.h>

#include "buf.h"
#include "sshq.h"

void
sshq_append(struct buf *b, const char *s)
{
	const char *q;

	buf_putc(b, '\'');
	while ((q = strchr(s, '\'')) != NULL) {
		buf_append(b, s, (size_t)(q - s));
		buf_puts(b, "'\\''");
		s = q + 1;
	}
	buf_puts(b, s);
	buf_putc(b, '\'');
}

char *
sshq_quote(const char *s)
{
	struct buf b = BUF_INIT;

	sshq_append(&b, s);
	return buf_detach(&b);
}

void
sshq_append_argv(struct buf *b, const char *const *argv)
{
	size_t i;

	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			buf_putc(b, ' ');
		sshq_append(b, argv[i]);
	}
}
