/*
 * monotime.h: time for deadlines (monotonic only, never the wall clock, which
 * jumps) and wall-clock stamps for humans (UTC ISO-8601).
 */
#ifndef WK_MONOTIME_H
#define WK_MONOTIME_H

#include <stdint.h>
#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t monotime_ms(void);
/* Wall-clock milliseconds since the epoch (times shared with other machines). */
int64_t walltime_ms(void);

/* A point in monotonic time; at_ms == 0 means "no deadline". */
struct deadline {
	uint64_t at_ms;
};

void deadline_set(struct deadline *d, uint64_t after_ms);
void deadline_clear(struct deadline *d);
int deadline_isset(const struct deadline *d);
int deadline_expired(const struct deadline *d);
/* Milliseconds left (0 when expired); UINT64_MAX when unset. */
uint64_t deadline_left_ms(const struct deadline *d);
/*
 * A poll(2) timeout honouring every given deadline (unset ones ignored) and
 * cap_ms (< 0: no cap): the smallest, clamped to [0, INT_MAX]; -1 when
 * nothing bounds it.
 */
int deadline_poll_timeout(const struct deadline *ds, int nds, int cap_ms);

/* Wall clock: "2026-11-21T10:00:00Z" into out (at least 21 bytes). */
#define TIMEFMT_LEN 32
void timefmt_utc(time_t t, char *out, size_t outlen);
/* Parse what timefmt_utc writes; 0 or WK_ERR_PARSE. */
int timefmt_parse(const char *s, time_t *t);
/* "3h12m", "45s", "2d4h": a duration for humans. */
void timefmt_duration(long secs, char *out, size_t outlen);

#endif
