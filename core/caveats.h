/*
 * caveats.h: what went wrong on the way to a DONE.
 *
 * A chain that finished after health alerts or restarts says so wherever
 * DONE is said: "chain DONE · caveats: nan_loss at step 15 (attempt 1),
 * 1 restart (preempted)".  The caveats come from the workdir alone:
 *
 *   the chain as it last ran: the first stage's current series (its
 *	attempts after the newest "done" attempt before its last one) and,
 *	for every other stage, its attempts started since that series began;
 *   health alerts: health_alert events (events.jsonl) of those attempts
 *	whose severity is "degraded" or "critical", once per kind per attempt,
 *	in the order they happened: "<kind> at step N (attempt A)" (no step
 *	when the alert had none; "(eval attempt A)" for a stage other than
 *	the first).  Driven by the event's severity and kind, not a list of
 *	names: a kind added later is a caveat without a change here;
 *   restarts: per stage, its failed or lost attempts that another attempt
 *	followed: "1 restart (killed)", "2 restarts of eval (preempted,
 *	lost)" (the classes only when short).
 *
 * At most CAVEATS_MAX items (restarts are kept first when cutting, then the
 * oldest alerts); the text then ends with "and K more".
 *
 * onbox writes the result to .watchkeeper/caveats.json (CAVEATS_FILE,
 * atomically, compact, at most CAVEATS_FILE_MAX bytes) when the chain is
 * done and there are caveats, and removes it when a new chain attempt
 * starts; `onbox status` and patrol's probe read that file.
 */
#ifndef WK_CAVEATS_H
#define WK_CAVEATS_H

#include <stddef.h>

#include <cJSON.h>

#include "config.h"

#define CAVEATS_FILE		"caveats.json"
#define CAVEATS_MAX		8	/* items kept */
#define CAVEATS_FILE_MAX	32768	/* bytes of caveats.json the probe reads */
#define CAVEATS_FILE_MAX_S	"32768"
#define CAVEATS_CLASSES_MAX	40	/* a restart's classes are named up to this many chars */

/*
 * The caveats from data: the chain's stage names in order, each one's
 * history document ({"attempts": [...]} as stages/<stage>.json; NULL: none)
 * and the text of events.jsonl (any lines; only health_alert ones are read).
 * Returns {"caveats": [{kind, text, stage, attempt, step?, severity?,
 * count?, classes?}], "text": "a, b", "more": K}; with no caveats the array
 * is empty and text "".  max 0 means CAVEATS_MAX.  Caller deletes.
 */
cJSON *caveats_from(const char *const *stages, const cJSON *const *hists, size_t nstages,
    const char *events, size_t events_len, size_t max);
/* The same from cfg's workdir (stages/<stage>.json, events.jsonl).  Caller deletes. */
cJSON *caveats_build(const struct wk_config *cfg);
/* The number of items in a caveats document (0 for NULL). */
int caveats_count(const cJSON *doc);
/*
 * Write doc to .watchkeeper/caveats.json when it has items, else remove
 * the file.  0 or WK_ERR_SYSTEM.
 */
int caveats_save(const char *workdir, const cJSON *doc);
/* Remove .watchkeeper/caveats.json (a new chain attempt starts). */
void caveats_clear(const char *workdir);
/* The saved document when it has items, else NULL.  Caller deletes. */
cJSON *caveats_load(const char *workdir);
/* Add "caveats" (a copy of the items) and "caveats_text" to ev when doc has items. */
void caveats_event(cJSON *ev, const cJSON *doc);
/* A parsed document's text when it has items (for a DONE line), else NULL. */
const char *caveats_text(const cJSON *doc);

#endif
