/*
 * schedule.h: patrol.schedule (cron syntax) read into sets of times, and
 * written out for the schedulers that are not cron: a systemd timer's
 * OnCalendar= lines and a launchd agent's StartCalendarInterval entries.
 *
 * The same five fields cron reads -- minute, hour, day of month, month,
 * day of week -- each "*", a number, a range "a-b", a step "*\/n" or
 * "a-b/n", or a list of those; months and days may be named (jan, mon);
 * day 7 is Sunday too; and the @hourly, @daily (@midnight), @weekly,
 * @monthly, @yearly (@annually) shorthands.  As in cron, when both the day
 * of month and the day of week are restricted, a day matching either runs.
 */
#ifndef WK_SCHEDULE_H
#define WK_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct sched {
	uint64_t	minute;		/* bit m: minute m, 0-59 */
	uint32_t	hour;		/* bits 0-23 */
	uint32_t	dom;		/* bits 1-31 */
	uint32_t	month;		/* bits 1-12 */
	uint32_t	dow;		/* bits 0-6, Sunday 0 */
	int		dom_star;	/* the field was "*" (cron's day rule needs to know) */
	int		dow_star;
};

/* The most launchd entries a schedule may expand to (each is one dict). */
#define SCHED_LAUNCHD_MAX	1024

/*
 * Parse spec into s.  0, or -1 with why (a sentence naming the field) in
 * why[0..whylen).
 */
int sched_parse(const char *spec, struct sched *s, char *why, size_t whylen);

/*
 * The longest gap between two consecutive runs on a day the schedule runs,
 * in seconds, from the minute and hour fields alone (around midnight
 * included; 86400 when it runs once a day): "3,33 * * * *" is 1800,
 * "*\/15 * * * *" 900, "0 9 * * 1-5" 86400.
 */
long sched_interval_s(const struct sched *s);

/*
 * systemd: one "OnCalendar=..." line (newline-terminated) per calendar
 * expression into b, two when both day fields are restricted (cron runs on
 * either; one OnCalendar would need both).
 */
void sched_systemd(const struct sched *s, struct buf *b);

/*
 * launchd: the StartCalendarInterval array's <dict> entries into b (each
 * on its lines, indented by indent tabs), the restricted fields' every
 * combination.  The number of entries, or -1 when there would be more than
 * SCHED_LAUNCHD_MAX (nothing is written then).
 */
int sched_launchd(const struct sched *s, struct buf *b, int indent);

#endif
