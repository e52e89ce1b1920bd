/*
 * test_top.c: `patrol top`'s text without a terminal (patrol/top-fmt.c) and
 * the loss ring a tick keeps (patrol/top-loss.c): display widths of UTF-8
 * (wide, zero-width, invalid, control characters), cells cut and padded to
 * exactly their width, the progress bar, the sparkline, the verdict colours,
 * and a whole row of exactly the screen's width at every width; and the rows
 * from state directories (patrol/top-model.c): the newer of patrol.json and
 * top.json, a run that appears and one that goes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonfile.h"
#include "top.h"
#include "unit.h"

static void
test_width(void **state)
{
	(void)state;
	assert_int_equal(top_width(""), 0);
	assert_int_equal(top_width("abc"), 3);
	assert_int_equal(top_width("\xc3\xa9t\xc3\xa9"), 3);		/* été */
	assert_int_equal(top_width("\xe4\xb8\xad\xe6\x96\x87"), 4);	/* 中文 */
	assert_int_equal(top_width("e\xcc\x81"), 1);			/* e + combining acute */
	assert_int_equal(top_width("\xf0\x9f\x9a\x80"), 2);		/* 🚀 */
	assert_int_equal(top_width("\xe2\x96\x88"), 1);			/* █ */
	assert_int_equal(top_width("a\x1b[31mb"), 7);			/* ESC shown as '?' */
	assert_int_equal(top_width("\xff\xfe"), 2);			/* invalid bytes: '?' each */
	assert_int_equal(top_width("\xc0\xaf"), 2);			/* overlong '/' */
	assert_int_equal(top_width("\xed\xa0\x80"), 3);			/* a surrogate */
	assert_int_equal(top_width("\xe4\xb8"), 2);			/* cut short */
}

static void
test_cell(void **state)
{
	char c[64];

	(void)state;
	assert_int_equal(top_cell(c, sizeof(c), "ab", 5, 1), 5);
	assert_string_equal(c, "ab   ");
	top_cell(c, sizeof(c), "abcdef", 4, 1);
	assert_string_equal(c, "abc\xe2\x80\xa6");
	assert_int_equal(top_width(c), 4);
	top_cell(c, sizeof(c), "abcdef", 4, 0);
	assert_string_equal(c, "abc~");
	top_cell(c, sizeof(c), "abcd", 4, 1);
	assert_string_equal(c, "abcd");
	/* a wide character that would straddle the edge is left out, the gap padded */
	top_cell(c, sizeof(c), "a\xe4\xb8\xad\xe6\x96\x87", 4, 1);
	assert_string_equal(c, "a\xe4\xb8\xad\xe2\x80\xa6");
	assert_int_equal(top_width(c), 4);
	top_cell(c, sizeof(c), "\xe4\xb8\xad\xe6\x96\x87x", 4, 1);
	assert_string_equal(c, "\xe4\xb8\xad\xe2\x80\xa6 ");
	assert_int_equal(top_width(c), 4);
	/* control characters and escape sequences never reach the terminal */
	top_cell(c, sizeof(c), "\x1b]0;pwned\x07\r\n\t", 16, 1);
	assert_null(strchr(c, '\x1b'));
	assert_null(strchr(c, '\x07'));
	assert_null(strchr(c, '\r'));
	assert_int_equal(top_width(c), 16);
	top_cell(c, sizeof(c), "\xc2\x9b" "31m", 6, 1);		/* C1 CSI */
	assert_string_equal(c, "?31m  ");
	top_cell(c, sizeof(c), "\xff", 2, 1);
	assert_string_equal(c, "? ");
	/* width 0, NULL text, a small buffer */
	top_cell(c, sizeof(c), "abc", 0, 1);
	assert_string_equal(c, "");
	top_cell(c, sizeof(c), NULL, 3, 1);
	assert_string_equal(c, "   ");
	assert_true(top_cell(c, 4, "abcdef", 10, 1) <= 3);
	assert_int_equal(strlen(c), 3);
}

static void
test_bar(void **state)
{
	char b[128];

	(void)state;
	top_bar(b, sizeof(b), 5, 10, 10, 0);
	assert_string_equal(b, "#####.....");
	top_bar(b, sizeof(b), 10, 10, 4, 0);
	assert_string_equal(b, "####");
	top_bar(b, sizeof(b), 99, 10, 4, 0);		/* past max: full */
	assert_string_equal(b, "####");
	top_bar(b, sizeof(b), 0, 10, 4, 0);
	assert_string_equal(b, "....");
	top_bar(b, sizeof(b), 3, 0, 4, 0);		/* unknown max: blank */
	assert_string_equal(b, "    ");
	top_bar(b, sizeof(b), -1, 10, 3, 1);
	assert_string_equal(b, "   ");
	/* eighths in UTF-8: 1/16 of 4 cells is two eighths of the first */
	top_bar(b, sizeof(b), 1, 16, 4, 1);
	assert_string_equal(b, "\xe2\x96\x8e\xe2\x96\x91\xe2\x96\x91\xe2\x96\x91");
	assert_int_equal(top_width(b), 4);
	top_bar(b, sizeof(b), 1, 2, 4, 1);
	assert_string_equal(b, "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x91\xe2\x96\x91");
	for (long cur = 0; cur <= 1000; cur += 7) {
		top_bar(b, sizeof(b), cur, 1000, 12, 1);
		assert_int_equal(top_width(b), 12);
	}
}

static void
test_spark(void **state)
{
	const double up[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, flat[] = { 2, 2, 2 };
	const double odd[] = { 3, NAN, 1, INFINITY };
	double many[40];
	char s[256];
	size_t i;

	(void)state;
	top_spark(s, sizeof(s), up, 8, 8, 0);
	assert_string_equal(s, "_.-~=+*#");
	top_spark(s, sizeof(s), up, 8, 8, 1);
	assert_string_equal(s, "\xe2\x96\x81\xe2\x96\x82\xe2\x96\x83\xe2\x96\x84\xe2\x96\x85"
	    "\xe2\x96\x86\xe2\x96\x87\xe2\x96\x88");
	top_spark(s, sizeof(s), up, 8, 10, 0);		/* right-aligned */
	assert_string_equal(s, "  _.-~=+*#");
	top_spark(s, sizeof(s), up, 8, 4, 0);		/* the newest 4, scaled among themselves */
	assert_string_equal(s, "_-+#");
	top_spark(s, sizeof(s), flat, 3, 3, 0);
	assert_string_equal(s, "~~~");
	top_spark(s, sizeof(s), odd, 4, 4, 0);
	assert_string_equal(s, "#!_!");
	top_spark(s, sizeof(s), NULL, 0, 3, 1);
	assert_string_equal(s, "   ");
	for (i = 0; i < 40; i++)
		many[i] = (double)((i * 7) % 11) - 3.5;
	for (i = 0; i <= 40; i++) {
		top_spark(s, sizeof(s), many, i, 12, 1);
		assert_int_equal(top_width(s), 12);
	}
}

static void
test_colours(void **state)
{
	(void)state;
	assert_int_equal(top_verdict_colour("OK"), TOP_C_GOOD);
	assert_int_equal(top_verdict_colour("DONE"), TOP_C_GOOD);
	assert_int_equal(top_verdict_colour("SSH_DOWN"), TOP_C_BAD);
	assert_int_equal(top_verdict_colour("CRASHED"), TOP_C_BAD);
	assert_int_equal(top_verdict_colour("STALLED"), TOP_C_WARN);
	assert_int_equal(top_verdict_colour("STOPPED"), TOP_C_INFO);
	assert_int_equal(top_verdict_colour("what"), TOP_C_NONE);
	assert_int_equal(top_verdict_colour(NULL), TOP_C_NONE);
}

static const char state_json[] =
	"{\"verdict\": \"OK\", \"stage\": \"train\", \"attempt\": 2, \"progress\": 300,"
	" \"progress_max\": 1000, \"eta_s\": 3725, \"heartbeat_age_s\": 4,"
	" \"seen_at\": \"2026-01-01T00:00:00Z\", \"details\": \"stage train#2 \\u001b[31m ok\","
	" \"last_event\": {\"event\": \"stage_started\", \"stage\": \"train\", \"attempt\": 2},"
	" \"loss_recent\": [[1, 3.5], [2, 3.0], [3, null], [4, 2.0]]}";

static void
test_row(void **state)
{
	struct top_row r;
	struct top_span v;
	char line[4 * 400 + 1];
	cJSON *s = cJSON_Parse(state_json);
	time_t now;
	size_t cols;

	(void)state;
	assert_non_null(s);
	top_row_from_state(&r, "run-\xe4\xb8\xad", s);
	assert_string_equal(r.verdict, "OK");
	assert_int_equal(r.cur, 300);
	assert_int_equal(r.max, 1000);
	assert_int_equal(r.nloss, 4);
	assert_true(isnan(r.loss[2]));
	assert_false(r.finished);
	now = r.seen + 90;
	top_line(&r, now, 1, 200, line, sizeof(line), &v);
	assert_int_equal(top_width(line), 200);
	assert_null(strchr(line, '\x1b'));
	assert_memory_equal(line + v.off, "OK ", 3);
	assert_non_null(strstr(line, "train#2"));
	assert_non_null(strstr(line, "~300/1000"));
	assert_non_null(strstr(line, "1h02m"));		/* ETA */
	assert_non_null(strstr(line, "1m30s"));		/* seen */
	assert_non_null(strstr(line, "stage_started train#2"));
	/* every width, narrow to wide, in both encodings: exactly that many columns */
	for (cols = 0; cols <= 400; cols++) {
		top_line(&r, now, (int)(cols & 1), cols, line, sizeof(line), &v);
		assert_int_equal(top_width(line), cols);
		top_line(NULL, now, 1, cols, line, sizeof(line), &v);
		assert_int_equal(top_width(line), cols);
	}
	top_line(NULL, now, 1, 120, line, sizeof(line), &v);
	assert_memory_equal(line, "RUN ", 4);
	assert_memory_equal(line + v.off, "VERDICT", 7);
	/* the refresh's column */
	r.look = TOP_LOOK_SLOW;
	r.look_s = 12;
	top_line(&r, now, 1, 200, line, sizeof(line), &v);
	assert_non_null(strstr(line, "slow 12s"));
	/* an empty state */
	cJSON_Delete(s);
	s = cJSON_CreateObject();
	top_row_from_state(&r, "x", s);
	assert_string_equal(r.verdict, "unknown");
	assert_int_equal(r.eta_s, -1);
	assert_int_equal(r.hb_age_s, -1);
	top_line(&r, now, 1, 150, line, sizeof(line), &v);
	assert_int_equal(top_width(line), 150);
	assert_non_null(strstr(line, "never"));
	cJSON_Delete(s);
	/* DONE or sealed: out of the refreshes */
	s = cJSON_Parse("{\"verdict\": \"DONE\"}");
	top_row_from_state(&r, "x", s);
	assert_true(r.finished);
	cJSON_Delete(s);
	s = cJSON_Parse("{\"verdict\": \"OK\", \"seal\": {\"done\": true}}");
	top_row_from_state(&r, "x", s);
	assert_true(r.finished);
	cJSON_Delete(s);
}

/* A heartbeat's health view with the given step (< 0: none) and loss JSON text. */
static cJSON *
health(long step, const char *loss)
{
	char t[256];

	if (step >= 0)
		snprintf(t, sizeof(t), "{\"progress\": {\"cur\": %ld}, \"loss\": {\"last\": %s}}", step, loss);
	else
		snprintf(t, sizeof(t), "{\"loss\": {\"last\": %s}}", loss);
	return cJSON_Parse(t);
}

static void
test_loss_ring(void **state)
{
	cJSON *doc = cJSON_CreateObject(), *h;
	double v[TOP_LOSS_N + 8];
	long i;

	(void)state;
	/* no loss: nothing kept */
	h = cJSON_Parse("{\"progress\": {\"cur\": 1}}");
	top_loss_remember(doc, h);
	cJSON_Delete(h);
	assert_null(cJSON_GetObjectItem(doc, "loss_recent"));
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), 0);
	/* one a step: the same step again (a refresh) adds nothing */
	for (i = 1; i <= 3; i++) {
		h = health(i * 10, i == 2 ? "\"nan\"" : "2.5");
		top_loss_remember(doc, h);
		top_loss_remember(doc, h);
		cJSON_Delete(h);
	}
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), 3);
	assert_true(v[0] == 2.5 && isnan(v[1]) && v[2] == 2.5);
	/* no step: a new value is new, the same one is not */
	h = health(-1, "1.5");
	top_loss_remember(doc, h);
	top_loss_remember(doc, h);
	cJSON_Delete(h);
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), 4);
	/* bounded: the oldest go */
	for (i = 100; i < 200; i++) {
		char num[32];

		snprintf(num, sizeof(num), "%ld", i);
		h = health(i, num);
		top_loss_remember(doc, h);
		cJSON_Delete(h);
	}
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "loss_recent")), TOP_LOSS_N);
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), TOP_LOSS_N);
	assert_true(v[0] == 200 - TOP_LOSS_N && v[TOP_LOSS_N - 1] == 199);
	assert_int_equal(top_loss_values(doc, v, 4), 4);	/* the newest 4 */
	assert_true(v[0] == 196 && v[3] == 199);
	/* a garbled ring is replaced, not trusted */
	cJSON_ReplaceItemInObject(doc, "loss_recent", cJSON_CreateString("x"));
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), 0);
	h = health(5, "1");
	top_loss_remember(doc, h);
	cJSON_Delete(h);
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), 1);
	cJSON_Delete(doc);
}

/* A look carries the last look's ring on with what it saw; nothing to carry: its own stands. */
static void
test_loss_merge(void **state)
{
	cJSON *older = cJSON_Parse("{\"loss_recent\": [[1, 3], [2, 2.5]]}");
	cJSON *doc = cJSON_Parse("{\"loss_recent\": [[1, 3], [5, 2]]}");
	cJSON *same = cJSON_Parse("{\"loss_recent\": [[2, 2.5]]}");
	cJSON *none = cJSON_CreateObject(), *e;
	double v[TOP_LOSS_N];
	int i;

	(void)state;
	top_loss_merge(doc, older);
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), 3);
	assert_true(v[0] == 3 && v[1] == 2.5 && v[2] == 2);
	top_loss_merge(same, older);		/* the same step again: nothing new */
	assert_int_equal(top_loss_values(same, v, TOP_LOSS_N), 2);
	top_loss_merge(none, older);		/* the look saw no loss: the older ring goes on */
	assert_int_equal(top_loss_values(none, v, TOP_LOSS_N), 2);
	cJSON_Delete(doc);
	doc = cJSON_Parse("{\"loss_recent\": [[9, 1]]}");
	top_loss_merge(doc, none);		/* (none now holds older's ring) */
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), 3);
	cJSON_Delete(none);
	none = cJSON_CreateObject();
	top_loss_merge(doc, none);		/* nothing older: doc's own */
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), 3);
	/* bounded */
	e = cJSON_GetObjectItem(older, "loss_recent");
	for (i = 10; i < 10 + TOP_LOSS_N; i++) {
		cJSON *p = cJSON_CreateArray();

		cJSON_AddItemToArray(p, cJSON_CreateNumber(i));
		cJSON_AddItemToArray(p, cJSON_CreateNumber(i));
		cJSON_AddItemToArray(e, p);
	}
	cJSON_Delete(doc);
	doc = cJSON_Parse("{\"loss_recent\": [[1000, 7]]}");
	top_loss_merge(doc, older);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "loss_recent")), TOP_LOSS_N);
	assert_int_equal(top_loss_values(doc, v, TOP_LOSS_N), TOP_LOSS_N);
	assert_true(v[TOP_LOSS_N - 1] == 7);
	cJSON_Delete(doc);
	cJSON_Delete(same);
	cJSON_Delete(none);
	cJSON_Delete(older);
}

/* dir/name/file holding a state with verdict and last_tick (cfg: its config, NULL none). */
static void
put_state(const char *base, const char *name, const char *file, const char *verdict,
    const char *tick, const char *cfg)
{
	char path[512], text[512];

	snprintf(path, sizeof(path), "%s/watchkeeper/%s/%s", base, name, file);
	snprintf(text, sizeof(text), "{\"verdict\": \"%s\", \"last_tick\": \"%s\"%s%s%s}", verdict,
	    tick, cfg != NULL ? ", \"config\": \"" : "", cfg != NULL ? cfg : "", cfg != NULL ? "\"" : "");
	unit_put(path, text);
}

static void
test_model(void **state)
{
	char tmpl[] = "/tmp/wk-test-top.XXXXXX", *base = mkdtemp(tmpl), path[512];
	struct top_model m;
	cJSON *doc;

	(void)state;
	assert_non_null(base);
	setenv("XDG_STATE_HOME", base, 1);
	put_state(base, "r1", "patrol.json", "OK", "2026-01-01T00:00:00Z", "/x/r1.json");
	put_state(base, "r0", "patrol.json", "OK", "2026-01-01T00:00:00Z", NULL);	/* no config: no run */
	put_state(base, "bad name", "patrol.json", "OK", "2026-01-01T00:00:00Z", "/x/b.json");
	top_model_init(&m);
	top_model_scan(&m);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.runs[0].name, "r1");
	assert_string_equal(m.runs[0].config, "/x/r1.json");
	assert_string_equal(m.runs[0].row.verdict, "OK");
	/* a look newer than the tick: its verdict */
	put_state(base, "r1", "top.json", "SSH_DOWN", "2026-01-01T00:00:10Z", "/x/r1.json");
	top_model_scan(&m);
	assert_string_equal(m.runs[0].row.verdict, "SSH_DOWN");
	/* a tick newer than the look: the tick's */
	put_state(base, "r1", "patrol.json", "STALLED", "2026-01-01T00:00:20Z", "/x/r1.json");
	top_model_scan(&m);
	assert_string_equal(m.runs[0].row.verdict, "STALLED");
	doc = top_model_doc(m.runs[0].statedir);
	assert_string_equal(json_str(doc, "verdict", ""), "STALLED");
	cJSON_Delete(doc);
	/* the look again newer, then gone: back to the tick's */
	put_state(base, "r1", "top.json", "OK", "2026-01-01T00:00:30Z", "/x/r1.json");
	top_model_scan(&m);
	assert_string_equal(m.runs[0].row.verdict, "OK");
	doc = top_model_doc(m.runs[0].statedir);
	assert_string_equal(json_str(doc, "verdict", ""), "OK");
	cJSON_Delete(doc);
	snprintf(path, sizeof(path), "%s/watchkeeper/r1/top.json", base);
	assert_int_equal(unlink(path), 0);
	top_model_scan(&m);
	assert_string_equal(m.runs[0].row.verdict, "STALLED");
	/* a second run, sorted in; the first gone */
	put_state(base, "a0", "patrol.json", "DONE", "2026-01-01T00:00:00Z", "/x/a0.json");
	top_model_scan(&m);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.runs[0].name, "a0");
	assert_true(m.runs[0].row.finished);
	snprintf(path, sizeof(path), "%s/watchkeeper/r1/patrol.json", base);
	assert_int_equal(unlink(path), 0);
	top_model_scan(&m);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.runs[0].name, "a0");
	top_model_free(&m);
	assert_int_equal(unit_rmrf(base), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_cell),
		cmocka_unit_test(test_bar),
		cmocka_unit_test(test_spark),
		cmocka_unit_test(test_colours),
		cmocka_unit_test(test_row),
		cmocka_unit_test(test_loss_ring),
		cmocka_unit_test(test_loss_merge),
		cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
