/*
 * jobctl-int.h: what jobctl.c (tables, operations, output parsing, config
 * check) and jobctl-run.c (the runner of commands) share; not for callers.
 */
#ifndef WK_JOBCTL_INT_H
#define WK_JOBCTL_INT_H

#include <stddef.h>

#include "buf.h"
#include "jobctl.h"

/* What one command left behind. */
struct jobctl_res {
	struct buf	 out;		/* stdout: the head, or the tail when keep_tail */
	struct buf	 err;		/* stderr: the tail */
	int		 out_truncated;
};

/*
 * Run cmd (the command of key) under jc's deadline, keeping stdout per cap
 * and keep_tail and stderr's tail in r.  0 when it exited 0; otherwise a
 * negative code and *why: WK_ERR_EXEC (could not start, or exited non-zero,
 * or was killed), WK_ERR_TIMEOUT, WK_ERR_SYSTEM.
 */
int jobctl_run(const struct jobctl *jc, const char *key, const char *cmd, size_t cap,
    int keep_tail, struct jobctl_res *r, char **why);
void jobctl_res_free(struct jobctl_res *r);

/* A bounded, printable copy of s[0..n) for a why: control characters become '?'. */
char *jobctl_quote_text(const char *s, size_t n);
/* The last non-blank line of b, quoted for a why; NULL when there is none. */
char *jobctl_last_line(const struct buf *b);

#endif
