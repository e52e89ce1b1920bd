/*
 * logbook.h: LOGBOOK.md, the run's append-only history on the owner's
 * machine, next to HANDBOOK.md: one entry per event that matters (launch
 * with the exact command and the workdir's git state, relaunches, verdict
 * changes, failures with their class, resumes, transfers, final results),
 * each with its UTC time and evidence.
 *
 * Entries are only ever appended (O_APPEND, one write(2) per entry, then
 * fsync); the file is never rewritten.  An entry looks like
 *
 *   ### 2026-11-21T03:04:05Z · verdict CRASHED
 *   train attempt 2 failed: oom (exit 137)
 *
 *   ```
 *   <evidence, fenced; backticks in it cannot close the fence>
 *   ```
 *
 * Callers pass text that holds no secret (scrub with notify_scrub first).
 */
#ifndef WK_LOGBOOK_H
#define WK_LOGBOOK_H

#include <time.h>

#define LOGBOOK_FILE	"LOGBOOK.md"

/*
 * Append one entry to <dir>/LOGBOOK.md (created with a title for run when
 * new).  kind is a short label ("launch", "verdict CRASHED" ...), text one
 * paragraph, evidence NULL or verbatim lines.  0, or WK_ERR_SYSTEM with errno.
 */
int logbook_append(const char *dir, const char *run, time_t when, const char *kind,
    const char *text, const char *evidence);

#endif
