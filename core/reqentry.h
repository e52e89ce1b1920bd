/*
 * reqentry.h: the shape of one completion.require entry (complete.h has
 * what the entries mean): relative to the workdir (not absolute, no ".."
 * component, no control characters, no ~), or the token {final_checkpoint}
 * standing alone.  Needs nothing of config or complete.
 */
#ifndef WK_REQENTRY_H
#define WK_REQENTRY_H

#define REQENTRY_FINAL_CKPT	"{final_checkpoint}"

/*
 * One completion.require entry as the config check sees it: 0, or WK_ERR_INVALID and
 * *why (caller frees) saying what is wrong with it.
 */
int reqentry_ok(const char *entry, char **why);

#endif
