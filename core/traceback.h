/*
 * traceback.h: where a failure happened, read from an attempt's last lines.
 *
 * The FAILED marker's "last_lines" (already sanitized, oldest first) are
 * searched for the place a person starts a fix from: the innermost frame of
 * a Python traceback that lies in the user's own code (not site-packages,
 * dist-packages, the standard library, <frozen ...> or <string>), or the
 * file:line a C++ `terminate called` / CUDA / NCCL error carries.  Rules, in
 * order (traceback.c says why each):
 *   - lines prefixed by a rank ("[rank1]: ", "[default0]:", "0: ") are
 *     grouped by it; the group whose traceback ended first is the one read;
 *   - in a group, the LAST traceback is the one that ended the program
 *     (chained exceptions print the cause first);
 *   - torchrun's own traceback (ending in ChildFailedError) is never read:
 *     a child's traceback is, else the summary's "Root Cause" traceback
 *     (with @record), else nothing;
 *   - a user frame wins; then a native file:line; then the innermost
 *     library frame.
 * Pure: no I/O.
 */
#ifndef WK_TRACEBACK_H
#define WK_TRACEBACK_H

#include <stddef.h>

#include <cJSON.h>

struct tb_where {
	char	file[512];	/* as printed (truncated to fit) */
	long	line;
	char	function[128];	/* "" when not known */
};

/* Find where; 1 found (*out filled), 0 not (*out zeroed). */
int tb_where_find(const char *const *lines, size_t n, struct tb_where *out);

/*
 * The same from a cJSON array of strings (non-strings skipped).  The file
 * is made relative to workdir when it lies under it (workdir may be NULL).
 * Returns a new {"file","line","function"?} object, or NULL; caller frees.
 */
cJSON *tb_where_json(const cJSON *lines, const char *workdir);

/*
 * Add "where" to obj (a FAILED marker, a stage_failed event) from its own
 * "last_lines", when they say; 1 added.
 */
int tb_add_where(cJSON *obj, const char *workdir);

/*
 * "at train.py:38 in lr_at" (basename:line, " in function" when known) from
 * a "where" object into buf; 1 written, 0 where is not a usable object.
 */
int tb_where_text(const cJSON *where, char *buf, size_t len);

#endif /* WK_TRACEBACK_H */
