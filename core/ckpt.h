/*
 * ckpt.h: checkpoints: which one is the newest COMPLETE one, what the
 * `{checkpoint}` token of a command becomes, and whether checkpoints have
 * stopped advancing while training steps move on.
 *
 * Config (all read with config_get_*; the keys live in config.c's table):
 *   checkpoints.dir            the directory, relative to workdir unless absolute
 *                              (no ~ expansion; "." and ".." folded as text)
 *   checkpoints.pattern        PCRE2 matched (unanchored, as PCRE2 searches)
 *                              against each ENTRY NAME in dir, files and
 *                              directories alike; group 1 = the step
 *   checkpoints.complete_file  default "metadata.json"
 *   checkpoints.fallback       "fresh" | "stop": what to do with no complete one
 *   checkpoints.reject         entry names of a rejected lineage: listed with
 *                              rejected set, counted as neither complete nor
 *                              newest, so nothing resumes from one
 *   checkpoints.none           what {checkpoint} becomes when starting fresh
 *   checkpoints.every_steps    the checkpoint spacing; 0 = learn it
 *
 * The rules, the same on the box (a local scan) and from patrol's probe (a
 * listing made by a POSIX sh fragment, matched here):
 *   - Names: "." and "..", and names that contain a newline, are skipped (a
 *     listing is line based).  Hidden names are looked at like any other.
 *   - Bounds: at most CKPT_MAX_ENTRIES names, and names whose (length + 16)
 *     sum to at most CKPT_LISTING_MAX bytes, are looked at per scan; past
 *     either the scan stops and says `truncated` (which names were looked at
 *     then: in a listing the first ones in byte order, hidden names after
 *     the others; in a local scan an arbitrary subset; report it, do not
 *     trust "newest").
 *   - Sidecars: with a non-empty complete_file without '/', a name ending in
 *     "." complete_file is a completeness file of a plain-file checkpoint and
 *     never a checkpoint itself.
 *   - The step: group 1 of the pattern, all decimal digits (leading zeros
 *     allowed, no sign, no spaces), at most LLONG_MAX.  A name the pattern
 *     does not match, whose group 1 is unset or empty or not all digits, or
 *     whose step overflows, is ignored: it is no entry at all.
 *   - Complete: a directory entry when <entry>/<complete_file> is a regular
 *     file; any other entry (a plain file, say model_1200.pt) when its sibling
 *     "<entry>.<complete_file>" is a regular file.  complete_file "" means
 *     the entry's existence is its completeness (for savers that rename a
 *     finished checkpoint into place).  complete_file must be relative and
 *     must not contain a ".." component or a newline.
 *   - Symlinks are FOLLOWED (stat, and sh's test -d / -f): a link to a
 *     complete checkpoint elsewhere is complete, a dangling link is not.
 *     The path recorded is the link's own path (dir/name), not its target.
 *   - Newest complete: the highest step among complete entries, never by
 *     name or mtime.  Ties (step_1200 and step_001200 both complete): the
 *     entry whose name sorts first in byte order wins, so the choice is
 *     stable from tick to tick.
 *   - mtime: of the completeness file (of the entry itself with
 *     complete_file ""), following symlinks, in unix seconds; 0 for an
 *     incomplete entry and when it could not be read on the box.
 *
 * Nothing here keeps state between calls and nothing must be persisted by
 * the caller: every scan is made from scratch, the stall check works on the
 * current scan and the current progress step.  Debouncing the DEGRADED
 * verdict over ticks, and recording which checkpoint an attempt resumed from
 * (entry path and step from the scan), are the caller's.
 *
 * Errors: functions return 0 or a negative WK_ERR_*; with a why out-pointer
 * they set it (caller frees) on failure and leave it NULL on success.
 */
#ifndef WK_CKPT_H
#define WK_CKPT_H

#include <stddef.h>
#include <time.h>

#include "config.h"
#include "shword.h"

#define CKPT_TOKEN		SHWORD_TOKEN
#define CKPT_MAX_ENTRIES	10000		/* names looked at per scan */
#define CKPT_MAX_ENTRIES_S	"10000"
#define CKPT_LISTING_MAX	262144		/* sum over names of (length + 16) */
#define CKPT_LISTING_MAX_S	"262144"
#define CKPT_NAME_COST		16		/* per-name overhead counted in CKPT_LISTING_MAX */
#define CKPT_SPACING_WINDOW	16		/* learned spacing: the last N differences */

struct ckpt_entry {
	char		*name;		/* the entry name in dir, as on disk */
	char		*path;		/* dir "/" name: absolute */
	long long	 step;		/* >= 0 */
	int		 complete;	/* 0 also for a rejected one */
	int		 rejected;	/* named in checkpoints.reject: never newest, complete or not */
	long long	 mtime;		/* unix seconds of the completeness file; 0: incomplete or unknown */
};

struct ckpt_scan {
	char		*dir;		/* absolute checkpoint directory */
	int		 missing;	/* dir does not exist or is not a directory */
	int		 truncated;	/* a bound was hit: not every name was looked at */
	size_t		 nnames;	/* names looked at (within the bounds) */
	struct ckpt_entry *entries;	/* the matching entries, by step, then name (byte order) */
	size_t		 nentries;
	size_t		 ncomplete;
	const struct ckpt_entry *newest;		/* newest complete, or NULL */
	const struct ckpt_entry *newest_incomplete;	/* highest-step incomplete, or NULL */
};

/* 1 when checkpoints.dir is set (the checkpoints object exists), else 0. */
int ckpt_configured(const struct wk_config *cfg);

/* The absolute checkpoint directory (workdir-relative unless absolute); caller frees; NULL when not configured. */
char *ckpt_dir(const struct wk_config *cfg);

/*
 * Scan the checkpoint directory on the local filesystem (onbox on the box).
 * A missing directory is not an error: *out has missing = 1 and no entries.
 * 0 and *out (free with ckpt_scan_free), or a negative code with *why:
 * WK_ERR_INVALID (not configured, bad complete_file, pattern without a
 * group), WK_ERR_REGEX (the pattern does not compile or a match failed),
 * WK_ERR_SYSTEM (the directory cannot be read, e.g. EACCES).
 */
int ckpt_scan_dir(const struct wk_config *cfg, struct ckpt_scan **out, char **why);

/*
 * The POSIX sh fragment for patrol's probe; caller frees; NULL when
 * checkpoints are not configured.  It is one compound command "( ... )"
 * without a trailing newline, so the probe writes `<fragment> | p`.  It runs
 * no regex: it prints every name (within the bounds) as one line
 *     "<complete 0|1> <mtime unix seconds> <name>"
 * (incomplete entries "0 0 <name>"; the name is the rest of the line,
 * spaces included; names with a newline are skipped), then one last line
 *     ". ok" | ". truncated" | ". missing"
 * ("missing" alone when the directory does not exist).  Its output is at
 * most CKPT_LISTING_MAX bytes plus ~3 per line.  The directory and
 * complete_file reach the shell only through sshq_append; it sets LC_ALL=C
 * and changes no variable outside its subshell ( ... ); besides that
 * subshell it forks only for complete entries: one $(stat -L -c %Y) each
 * (falling back to `date -r`), so a directory of 10000 incomplete names
 * costs no process at all.
 */
char *ckpt_probe_fragment(const struct wk_config *cfg);

/*
 * Parse what the fragment printed (the probe section's lines without their
 * '|', joined with '\n'; a final '\n' is optional) and apply the pattern
 * here.  Strict: any line that is not an entry line of the exact shape
 * above, a missing or misplaced last line, an entry after ". missing", an
 * incomplete entry with a non-zero mtime, a name that is empty, "." or "..",
 * or holds '/' or NUL, a repeated matching name, or more than the bounds
 * allow make it WK_ERR_PARSE with *why ("checkpoint listing line 3: ...").
 * Otherwise as ckpt_scan_dir (other codes as there).
 */
int ckpt_parse_listing(const struct wk_config *cfg, const char *text, size_t len,
    struct ckpt_scan **out, char **why);

void ckpt_scan_free(struct ckpt_scan *s);

/*
 * For reports.  now: the clock the mtimes come from (the box's: time(NULL)
 * on the box, the probe's box_time in patrol), so clock skew between owner
 * and box does not age a checkpoint.
 */
struct ckpt_summary {
	const char	*dir;		/* points into the scan */
	int		 missing;
	int		 truncated;
	size_t		 nnames;	/* names looked at */
	long long	 step;		/* newest complete step; -1: none */
	const char	*name;		/* its name and path (into the scan); NULL: none */
	const char	*path;
	long		 age_s;		/* now - its mtime, >= 0 (0 when in the future); -1 unknown */
	size_t		 ncomplete;
	size_t		 nincomplete;
	long long	 incomplete_step;	/* newest incomplete step; -1: none */
};

void ckpt_summarize(const struct ckpt_scan *s, time_t now, struct ckpt_summary *out);
/*
 * One line for a report; caller frees:
 *   "newest complete checkpoint step 1200 (checkpoint-1200, 3h12m old); 2 complete, 1 incomplete (newest step 1300)"
 *   "no complete checkpoint in /w/ckpt (1 incomplete, newest step 1300)"
 *   "no complete checkpoint: /w/ckpt does not exist"
 * with "; only the first N entries were looked at" when truncated (N: nnames).
 */
char *ckpt_summary_text(const struct ckpt_summary *sum);

/*
 * Replace every "{checkpoint}" in command (run under sh -c) by path,
 * sshq-quoted: one word whatever the path holds.  path NULL: no complete
 * checkpoint, so checkpoints.fallback decides: "fresh" puts the sshq-quoted
 * checkpoints.none instead (default "" -> ''), "stop" fails with
 * WK_ERR_NOTFOUND and *why "no complete checkpoint in DIR;
 * checkpoints.fallback is stop".  A command without the token comes back
 * unchanged (a copy), and then neither path nor fallback matters.  Other
 * failures (WK_ERR_INVALID): a misplaced token (shword_check_token), a
 * replacement holding a newline, the token with path NULL and no
 * checkpoints configured.  0 and *out (caller frees), else *out NULL.
 */
int ckpt_subst(const char *command, const char *path, const struct wk_config *cfg,
    char **out, char **why);

/*
 * The same with the scan's newest complete checkpoint; on "stop" *why says
 * what was there: "no complete checkpoint in DIR (2 entries, newest
 * incomplete: step 1300); checkpoints.fallback is stop" (or "(DIR does not
 * exist)").
 */
int ckpt_subst_scan(const char *command, const struct ckpt_scan *scan,
    const struct wk_config *cfg, char **out, char **why);

/*
 * Stall: checkpoints that stop advancing while steps move, caught before the
 * rollback window closes.  The spacing is every_steps when > 0, else learned:
 * the median of the differences between consecutive distinct complete steps
 * (the last CKPT_SPACING_WINDOW of them; an even count takes the mean of the
 * middle two, rounded down), which needs >= 2 distinct complete steps; else
 * it is unknown and nothing is ever stalled.  Stalled when
 *     current - newest > 2 * spacing.
 * With no complete checkpoint, or current < 0 (unknown), nothing is stalled
 * (there is no baseline to be behind of).  Steps and current are the same
 * counter: the progress step the checkpoint names carry.
 */
struct ckpt_stall {
	int		 stalled;
	int		 known;		/* a spacing and a newest step exist, current >= 0 */
	int		 learned;	/* the spacing was learned, not configured */
	long long	 newest;	/* newest complete step; -1 none */
	long long	 current;
	long long	 behind;	/* current - newest (may be < 0); 0 when not known */
	long long	 spacing;	/* 0: unknown */
};

/* Over any steps (unsorted, duplicates allowed, negative ones ignored); returns out->stalled. */
int ckpt_stalled(const long long *steps, size_t n, long long current, long long every_steps,
    struct ckpt_stall *out);
/* Over a scan's complete entries with checkpoints.every_steps; returns out->stalled. */
int ckpt_scan_stalled(const struct ckpt_scan *s, const struct wk_config *cfg, long long current,
    struct ckpt_stall *out);
/*
 * The message; caller frees:
 *   "newest complete checkpoint step 1200 is 2650 steps behind progress 3850; they land every ~1000 steps"
 * ("every 1000 steps (checkpoints.every_steps)" when configured).
 */
char *ckpt_stall_text(const struct ckpt_stall *st);

#endif
