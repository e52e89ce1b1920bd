/*
 * jobctl-int.h: what jobctl.c (tables, operations, output parsing),
 * jobctl-cfg.c (dialects, stage options, the config check) and jobctl-run.c
 * (the runner of commands) share; not for callers.
 */
#ifndef WK_JOBCTL_INT_H
#define WK_JOBCTL_INT_H

#include <stddef.h>

#include "buf.h"
#include "diag.h"
#include "jobctl.h"

/* Placeholders (jobctl_phs[] has their text). */
enum jobctl_ph { PH_ID, PH_NAME, PH_COMMAND, PH_WORKDIR, PH_SINCE, PH_OPTIONS, PH_N };
#define PH(x)	(1U << (x))
/* Placeholders whose value is inserted as it is: already quoted words (or none). */
#define PH_RAW	PH(PH_OPTIONS)

/* The operations: each one's config key, and the placeholders it has and needs. */
enum jobctl_opi { OP_SUBMIT, OP_STATUS, OP_FIND, OP_STOP, OP_LOGS, OP_NODE, OP_N };

struct jobctl_op {
	const char	*key;	/* config key of the command */
	const char	*verb;	/* for messages */
	unsigned	 have;	/* placeholders with a value in this operation */
	unsigned	 need;	/* placeholders its command must use */
};

extern const char *const jobctl_phs[PH_N];
extern const struct jobctl_op jobctl_ops[OP_N];

/* The placeholders tmpl uses, as a PH() mask. */
unsigned jobctl_uses(const char *tmpl);
/* Every problem of job.states into d (file cfg->path); the number found. */
int jobctl_check_states(const struct wk_config *cfg, struct diag *d);
/* s is one line of printable text (no control characters), 1..max bytes. */
int jobctl_word_ok(const char *s, size_t max);
int jobctl_is_space(char c);

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
