/*
 * complete.h: completion.require, the artifacts a finished run must leave.
 *
 * Config: "completion": { "require": [ "results/metrics.json", "eval/?*.csv",
 * "{final_checkpoint}" ] }.  Each entry is a path or a glob(3) pattern
 * relative to the workdir (never absolute, no ".." component, no control
 * characters, no ~ expansion); the token {final_checkpoint} stands alone.
 *
 * The rules (checked by onbox before the chain's LAST stage writes its
 * marker; an unmet entry fails that stage with class missing_artifacts):
 *   - A path or glob is met when at least one match is a regular file of at
 *     least one byte, or a directory that holds at least one entry (its
 *     contents are not looked at).  Symlinks are followed.  Globs are
 *     glob(3), no shell: *, ? and [...] as in sh (a wildcard does not match
 *     a leading '.'), no braces, no ~; matches are not sorted; a directory
 *     on the way that cannot be read (EACCES) makes the entry unmet and says
 *     so; one that does not exist is simply no match.
 *   - {final_checkpoint}: the newest complete checkpoint (ckpt.h's rules)
 *     exists and its step is at least the run's total: progress.max, else
 *     the total the log's progress lines gave.  When neither is known only
 *     a complete checkpoint is required, and the note says so.
 */
#ifndef WK_COMPLETE_H
#define WK_COMPLETE_H

#include "config.h"
#include "reqentry.h"

/* 1 when completion.require has at least one entry. */
int complete_configured(const struct wk_config *cfg);

/*
 * Check every entry against the workdir.  prog_max_log is the total the
 * log's progress lines gave (0 unknown); progress.max wins when set.
 * Returns the number of unmet entries; when > 0, *missing (caller frees) is
 * the evidence, e.g. "missing: results/metrics.json; final checkpoint:
 * newest complete is step_000010, progress.max is 12".  *note (may be NULL;
 * caller frees) is set when something was accepted with a caveat (the total
 * unknown), else NULL.
 */
int complete_check(const struct wk_config *cfg, long prog_max_log, char **missing, char **note);

#endif
