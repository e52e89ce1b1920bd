/*
 * events.h: watchkeeper's events (stage started/done/failed, chain done, ...)
 * and the append-only events.jsonl they land in.
 *
 * Every event carries a stable id built from the run's instance id, the
 * event type, the stage and the attempt: the same fact re-emitted after a
 * crash gets the same id, so a receiver can drop the duplicate.
 */
#ifndef WK_EVENTS_H
#define WK_EVENTS_H

#include <cJSON.h>

#define EVENTS_FILE "events.jsonl"

/*
 * A new event object {id, time, run, event, stage?, attempt?}; stage may be
 * NULL and attempt 0 for run-level events.  The caller adds fields and owns
 * the result.
 */
cJSON *events_new(const char *instance, const char *run, const char *type,
    const char *stage, long attempt);

/* Append ev as one line to <workdir>/.watchkeeper/events.jsonl; 0 or WK_ERR_SYSTEM. */
int events_append(const char *workdir, const cJSON *ev);

/*
 * The workdir's instance id (16 hex chars), created on first use and kept in
 * .watchkeeper/instance.  out must hold 17 bytes.  0 or WK_ERR_SYSTEM.
 */
int events_instance(const char *workdir, char *out);

#endif
