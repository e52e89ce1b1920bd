/*
 * test_schedule.c: patrol.schedule read as cron reads it, and written as a
 * systemd timer's OnCalendar= and a launchd agent's StartCalendarInterval.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "schedule.h"

static void
parse_ok(const char *spec, struct sched *s)
{
	char why[256] = "";

	if (sched_parse(spec, s, why, sizeof(why)) != 0)
		fail_msg("\"%s\": %s", spec, why);
}

static void
parse_bad(const char *spec, const char *want)
{
	struct sched s;
	char why[256] = "";

	assert_int_equal(sched_parse(spec, &s, why, sizeof(why)), -1);
	if (strstr(why, want) == NULL)
		fail_msg("\"%s\": \"%s\" does not say \"%s\"", spec, why, want);
}

static char *
systemd_of(const char *spec)
{
	static char out[1024];
	struct buf b = BUF_INIT;
	struct sched s;

	parse_ok(spec, &s);
	sched_systemd(&s, &b);
	snprintf(out, sizeof(out), "%s", buf_str(&b));
	buf_free(&b);
	return out;
}

/* The longest gap between runs, for throughput.window_s's default. */
static void
test_interval(void **state)
{
	static const struct { const char *spec; long want; } cases[] = {
		{ "3,33 * * * *", 1800 }, { "*/15 * * * *", 900 }, { "3,18,33,48 * * * *", 900 },
		{ "0 9 * * 1-5", 86400 }, { "0 */6 * * *", 21600 }, { "0,5 * * * *", 3300 },
		{ "59 23 * * *", 86400 }, { "0 0,1 * * *", 82800 }, { "* * * * *", 60 },
		{ "@hourly", 3600 },
	};
	struct sched s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].spec, &s);
		if (sched_interval_s(&s) != cases[i].want)
			fail_msg("\"%s\": %ld, want %ld", cases[i].spec, sched_interval_s(&s), cases[i].want);
	}
}

static void
test_parse(void **state)
{
	struct sched s;

	(void)state;
	parse_ok("3,33 * * * *", &s);
	assert_true(s.minute == ((1ULL << 3) | (1ULL << 33)));
	assert_int_equal(s.hour, 0xffffff);
	assert_int_equal(s.dom, 0xfffffffeu);
	assert_int_equal(s.month, 0x1ffe);
	assert_int_equal(s.dow, 0x7f);
	assert_true(s.dom_star && s.dow_star);
	parse_ok("*/15 9-17/4 1,15 jan-MAR mon-fri", &s);
	assert_true(s.minute == ((1ULL << 0) | (1ULL << 15) | (1ULL << 30) | (1ULL << 45)));
	assert_int_equal(s.hour, (1 << 9) | (1 << 13) | (1 << 17));
	assert_int_equal(s.dom, (1 << 1) | (1 << 15));
	assert_int_equal(s.month, (1 << 1) | (1 << 2) | (1 << 3));
	assert_int_equal(s.dow, 0x3e);
	assert_false(s.dom_star || s.dow_star);
	parse_ok("0 0 * * 7", &s);	/* 7 is Sunday */
	assert_int_equal(s.dow, 1);
	parse_ok("5/20 * * * *", &s);	/* a/n: from a to the end */
	assert_true(s.minute == ((1ULL << 5) | (1ULL << 25) | (1ULL << 45)));
	parse_ok("  @weekly", &s);
	assert_true(s.minute == 1 && s.hour == 1 && s.dow == 1);
	parse_ok("0 0 */2 * mon", &s);	/* "*\/2" counts as "*" for cron's day rule */
	assert_true(s.dom_star && !s.dow_star);

	parse_bad("3,33 * * *", "has 4 fields");
	parse_bad("3 * * * * *", "has 6 fields");
	parse_bad("60 * * * *", "the minute field \"60\"");
	parse_bad("* 24 * * *", "the hour field");
	parse_bad("* * 0 * *", "the day of month field");
	parse_bad("* * * 13 *", "the month field");
	parse_bad("* * * * 8", "the day of week field");
	parse_bad("5-1 * * * *", "the minute field");
	parse_bad("*/0 * * * *", "the minute field");
	parse_bad("1,,2 * * * *", "the minute field");
	parse_bad("* * * foo *", "the month field");
	parse_bad("* * * * monday", "the day of week field");
	parse_bad("@reboot", "is not one of @hourly");
	parse_bad("", "has 0 fields");
}

static void
test_systemd(void **state)
{
	(void)state;
	assert_string_equal(systemd_of("3,33 * * * *"), "OnCalendar=*-*-* *:03,33:00\n");
	assert_string_equal(systemd_of("@daily"), "OnCalendar=*-*-* 00:00:00\n");
	assert_string_equal(systemd_of("*/30 8-9 * jun mon,fri"),
	    "OnCalendar=Mon,Fri *-06-* 08,09:00,30:00\n");
	/* both days restricted: either matches, two expressions */
	assert_string_equal(systemd_of("0 12 1 * sun"),
	    "OnCalendar=*-*-01 12:00:00\nOnCalendar=Sun *-*-* 12:00:00\n");
	/* "*\/2" days with a weekday: both must match, as cron has it */
	assert_string_equal(systemd_of("0 0 */15 * 1"), "OnCalendar=Mon *-*-01,16,31 00:00:00\n");
}

static void
test_launchd(void **state)
{
	struct buf b = BUF_INIT;
	struct sched s;

	(void)state;
	parse_ok("3,33 * * * *", &s);
	assert_int_equal(sched_launchd(&s, &b, 1), 2);
	assert_string_equal(buf_str(&b),
	    "\t<dict><key>Minute</key><integer>3</integer></dict>\n"
	    "\t<dict><key>Minute</key><integer>33</integer></dict>\n");
	buf_reset(&b);
	parse_ok("0 0 * * *", &s);
	assert_int_equal(sched_launchd(&s, &b, 0), 1);
	assert_string_equal(buf_str(&b),
	    "<dict><key>Hour</key><integer>0</integer><key>Minute</key><integer>0</integer></dict>\n");
	buf_reset(&b);
	/* both days restricted: the day entries, then the weekday entries */
	parse_ok("0 6 1,15 * 0", &s);
	assert_int_equal(sched_launchd(&s, &b, 0), 3);
	assert_string_equal(buf_str(&b),
	    "<dict><key>Day</key><integer>1</integer><key>Hour</key><integer>6</integer>"
	    "<key>Minute</key><integer>0</integer></dict>\n"
	    "<dict><key>Day</key><integer>15</integer><key>Hour</key><integer>6</integer>"
	    "<key>Minute</key><integer>0</integer></dict>\n"
	    "<dict><key>Weekday</key><integer>0</integer><key>Hour</key><integer>6</integer>"
	    "<key>Minute</key><integer>0</integer></dict>\n");
	buf_reset(&b);
	/* every minute of every hour is a wildcard dict: launchd runs it every minute */
	parse_ok("* * * * *", &s);
	assert_int_equal(sched_launchd(&s, &b, 0), 1);
	assert_string_equal(buf_str(&b), "<dict></dict>\n");
	buf_reset(&b);
	/* 30 minutes x 12 hours x 5 days = 1800 entries: too many, nothing written */
	parse_ok("*/2 */2 * * 1-5", &s);
	assert_int_equal(sched_launchd(&s, &b, 0), -1);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_systemd),
		cmocka_unit_test(test_launchd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
