/*
 * diag.h: a list of diagnostics, "file:line: message", collected while parsing
 * so that every problem is shown at once before the program fails (OpenSSH's
 * readconf.c and tmux's cfg.c do the same).
 */
#ifndef WK_DIAG_H
#define WK_DIAG_H

#include <stddef.h>
#include <stdio.h>

struct diag {
	char	**msgs;		/* owned */
	size_t	  n;
};

#define DIAG_INIT { NULL, 0 }

/* line <= 0 means "no line known": "file: message". */
void diag_add(struct diag *d, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_print(const struct diag *d, FILE *fp);
void diag_free(struct diag *d);

#endif
