/*
 * monotime.c: monotonic deadlines and UTC stamps (see monotime.h).
 * Deadlines follow OpenSSH misc.c's monotime()/ptimeout_* idea.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "log.h"
#include "monotime.h"

uint64_t
monotime_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		fatal("clock_gettime(CLOCK_MONOTONIC) failed");
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
deadline_set(struct deadline *d, uint64_t after_ms)
{
	d->at_ms = monotime_ms() + after_ms;
	if (d->at_ms == 0)
		d->at_ms = 1;
}

void
deadline_clear(struct deadline *d)
{
	d->at_ms = 0;
}

int
deadline_isset(const struct deadline *d)
{
	return d->at_ms != 0;
}

uint64_t
deadline_left_ms(const struct deadline *d)
{
	uint64_t now;

	if (d->at_ms == 0)
		return UINT64_MAX;
	now = monotime_ms();
	return now >= d->at_ms ? 0 : d->at_ms - now;
}

int
deadline_expired(const struct deadline *d)
{
	return d->at_ms != 0 && deadline_left_ms(d) == 0;
}

int
deadline_poll_timeout(const struct deadline *ds, int nds, int cap_ms)
{
	uint64_t best = UINT64_MAX, left;
	int i;

	for (i = 0; i < nds; i++) {
		left = deadline_left_ms(&ds[i]);
		if (left < best)
			best = left;
	}
	if (cap_ms >= 0 && (uint64_t)cap_ms < best)
		best = (uint64_t)cap_ms;
	if (best == UINT64_MAX)
		return -1;
	return best > INT_MAX ? INT_MAX : (int)best;
}

void
timefmt_utc(time_t t, char *out, size_t outlen)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL || strftime(out, outlen, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, outlen, "%s", "1970-01-01T00:00:00Z");
}

int
timefmt_parse(const char *s, time_t *t)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (end == NULL || *end != '\0')
		return WK_ERR_PARSE;
	*t = timegm(&tm);
	return 0;
}

void
timefmt_duration(long secs, char *out, size_t outlen)
{
	long d, h, m;

	if (secs < 0)
		secs = 0;
	d = secs / 86400;
	h = secs % 86400 / 3600;
	m = secs % 3600 / 60;
	if (d > 0)
		snprintf(out, outlen, "%ldd%ldh", d, h);
	else if (h > 0)
		snprintf(out, outlen, "%ldh%02ldm", h, m);
	else if (m > 0)
		snprintf(out, outlen, "%ldm%02lds", m, secs % 60);
	else
		snprintf(out, outlen, "%lds", secs);
}

int64_t
walltime_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
