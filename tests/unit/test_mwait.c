/*
 * test_mwait.c: the marker check run for real (sh -s, locally) against a
 * prepared workdir whose path is hostile, and the parser's strictness: every
 * strict prefix of a good output is rejected, garbage and forged sections
 * are rejected, a FAILED twin of an older attempt is stale.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "config.h"
#include "mwait.h"
#include "spawn.h"
#include "xmalloc.h"

struct fx {
	char			 dir[64];
	char			*work;
	struct mwait_spec	 spec;
};

static void
putf(struct fx *f, const char *rel, const char *text)
{
	char *p = xstrfmt("%s/.watchkeeper/%s", f->work, rel);

	unit_put(p, text);
	free(p);
}

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	char *json;

	snprintf(f->dir, sizeof(f->dir), "/tmp/wk-mwait-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	/* A workdir whose name would run commands if anything pasted it raw. */
	f->work = xstrfmt("%s/it's a \"run\" $(touch PWNED) `touch PWNED2`; touch PWNED3", f->dir);
	if (mwait_spec_add(&f->spec, "TRAIN_DONE", "train") != 0 ||
	    mwait_spec_add(&f->spec, "EVAL_DONE", "eval") != 0 ||
	    mwait_spec_add(&f->spec, "BARE", NULL) != 0 ||
	    mwait_spec_add(&f->spec, "TOUCHED", NULL) != 0)
		return -1;
	putf(f, "markers/TRAIN_DONE", "{\"stage\": \"train\", \"attempt\": 1}");
	putf(f, "markers/TOUCHED", "");
	/* An old failure of eval, and eval's history says attempt 2 runs now. */
	putf(f, "markers/EVAL_DONE.FAILED", "{\n\t\"class\":\t\"cuda_oom\",\n\t\"attempt\":\t1,\n"
	    "\t\"last_lines\":\t[\"@end\", \"|forged\", \"CUDA out of memory\"]\n}");
	putf(f, "stages/eval.json", "{\n\t\"stage\":\t\"eval\",\n\t\"attempts\":\t[{\n"
	    "\t\t\t\"attempt\":\t1,\n\t\t\t\"kind\":\t\"run\",\n\t\t\t\"result\":\t\"failed\"\n\t\t}, {\n"
	    "\t\t\t\"attempt\":\t2,\n\t\t\t\"kind\":\t\"run\",\n\t\t\t\"result\":\t\"running\"\n\t\t}]\n}");
	json = xstrfmt("{\n\t\"run\":\t\"r\",\n\t\"onbox_pid\":\t%ld,\n\t\"stage_pid\":\t%ld\n}\n",
	    (long)getpid(), (long)getpid());
	putf(f, "state.json", json);
	free(json);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int r = unit_rmrf(f->dir);

	mwait_spec_free(&f->spec);
	free(f->work);
	free(f);
	return r == 0 ? 0 : -1;
}

/* Run the script with sh -s in the fixture's directory; its stdout. */
static char *
run_check(struct fx *f, size_t *len)
{
	char *script = mwait_script(f->work, &f->spec), *out;

	out = unit_sh(script, f->dir, len);
	free(script);
	return out;
}

static int
idx(const struct mwait_spec *spec, const char *m)
{
	size_t i;

	for (i = 0; i < spec->nmarkers; i++)
		if (strcmp(spec->markers[i], m) == 0)
			return (int)i;
	fail_msg("no marker %s", m);
	return -1;
}

static void
test_mwait_real(void **state)
{
	struct fx *f = *state;
	struct mwait w;
	const struct mwait_stage *st;
	char *out, *why = NULL, *pw;
	size_t len, k, which;
	int tr, ev, bare, touched;
	long base[2];

	out = run_check(f, &len);
	if (mwait_parse(out, len, &f->spec, &w, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	tr = idx(&f->spec, "TRAIN_DONE");
	ev = idx(&f->spec, "EVAL_DONE");
	bare = idx(&f->spec, "BARE");
	touched = idx(&f->spec, "TOUCHED");
	assert_true(w.box_time > 1700000000);
	assert_int_equal(w.stage_pid, (long)getpid());
	assert_int_equal(w.stage_alive, 1);
	assert_int_equal(w.onbox_alive, 0);	/* alive, but not an onbox */
	assert_false(mwait_idle(&w));
	assert_true(w.m[tr].present);
	assert_int_equal(json_long(w.m[tr].doc, "attempt", 0), 1);
	assert_false(w.m[tr].failed);
	assert_false(w.m[ev].present);
	assert_true(w.m[ev].failed);
	assert_int_equal(w.m[ev].failed_attempt, 1);
	/* The forged lines inside the FAILED marker stayed data. */
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(w.m[ev].failed_doc, "last_lines"), 1)->valuestring,
	    "|forged");
	assert_false(w.m[bare].present);
	assert_false(w.m[bare].failed);
	assert_true(w.m[touched].present);	/* an empty, touched marker is a marker */
	assert_null(w.m[touched].doc);
	st = mwait_stage_of(&w, &f->spec, (size_t)ev);
	assert_non_null(st);
	assert_true(st->known);
	assert_int_equal(st->attempt, 2);
	assert_string_equal(st->result, "running");
	st = mwait_stage_of(&w, &f->spec, (size_t)tr);
	assert_non_null(st);
	assert_false(st->known);	/* no history of train */
	assert_int_equal(st->attempt, 0);
	assert_null(mwait_stage_of(&w, &f->spec, (size_t)bare));
	/* eval's FAILED twin is of attempt 1 while attempt 2 runs: stale. */
	assert_true(mwait_failed_stale(&w, &f->spec, (size_t)ev));
	assert_int_equal(mwait_decide(&w, &f->spec, &which), MWAIT_FOUND);
	/* The first present marker in sorted order decides. */
	assert_string_equal(f->spec.markers[which], "TOUCHED");
	mwait_free(&w);

	/* Every strict prefix is a failure, never a verdict. */
	for (k = 0; k < len; k++) {
		assert_int_not_equal(mwait_parse(out, k, &f->spec, &w, &why), 0);
		assert_non_null(why);
		free(why);
		why = NULL;
	}
	free(out);

	/* Without the markers: pending; the stale FAILED twin decides nothing. */
	pw = xstrfmt("%s/.watchkeeper/markers/TRAIN_DONE", f->work);
	unlink(pw);
	free(pw);
	pw = xstrfmt("%s/.watchkeeper/markers/TOUCHED", f->work);
	unlink(pw);
	free(pw);
	out = run_check(f, &len);
	assert_int_equal(mwait_parse(out, len, &f->spec, &w, &why), 0);
	assert_int_equal(mwait_decide(&w, &f->spec, &which), MWAIT_PENDING);
	/* News: a stage attempt unlike the base, none without a base. */
	assert_false(mwait_news(&w, &f->spec, NULL));
	base[0] = base[1] = 0;
	base[mwait_spec_stage(&f->spec, "eval")] = 2;
	assert_false(mwait_news(&w, &f->spec, base));
	base[mwait_spec_stage(&f->spec, "eval")] = 1;
	assert_true(mwait_news(&w, &f->spec, base));
	mwait_free(&w);
	free(out);

	/* The history says attempt 1 failed: now the FAILED twin is live. */
	putf(f, "stages/eval.json", "{\"stage\": \"eval\", \"attempts\": [{\"attempt\": 1, \"result\": \"failed\"}]}");
	out = run_check(f, &len);
	assert_int_equal(mwait_parse(out, len, &f->spec, &w, &why), 0);
	assert_false(mwait_failed_stale(&w, &f->spec, (size_t)ev));
	assert_int_equal(mwait_decide(&w, &f->spec, &which), MWAIT_FAILED);
	assert_int_equal((int)which, ev);
	assert_true(mwait_news(&w, &f->spec, NULL));
	mwait_free(&w);
	free(out);

	/* Nothing in the hostile path ran. */
	for (k = 0; k < 3; k++) {
		pw = xstrfmt("%s/PWNED%s", f->dir, k == 0 ? "" : k == 1 ? "2" : "3");
		assert_false(fs_exists(pw));
		free(pw);
	}
}

/* No .watchkeeper at all: a valid check that sees nothing. */
static void
test_mwait_empty_workdir(void **state)
{
	struct fx *f = *state;
	struct mwait w;
	char *out, *why = NULL;
	size_t len, which, i;

	free(f->work);
	f->work = xstrfmt("%s/nowhere", f->dir);
	out = run_check(f, &len);
	if (mwait_parse(out, len, &f->spec, &w, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_true(mwait_idle(&w));
	assert_int_equal(w.onbox_pid, 0);
	for (i = 0; i < w.nm; i++)
		assert_false(w.m[i].present || w.m[i].failed);
	for (i = 0; i < w.ns; i++)
		assert_false(w.s[i].known);
	assert_int_equal(mwait_decide(&w, &f->spec, &which), MWAIT_PENDING);
	mwait_free(&w);
	free(out);
}

static void
test_mwait_garbled(void **state)
{
	static const char *const bad[] = {
		"",
		"hello\n",
		"@mwait 1 1795000000\n",					/* truncated */
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n",	/* no @end */
		"@mwait 2 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",	/* version */
		"@mwait 1 x\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",
		"@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",	/* no header */
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\nmore\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@stage s\n@end\n",		/* no @marker A */
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@end\n",	/* no @stage s */
		"@mwait 1 1795000000\n@marker A absent\n@stage s\n@end\n",				/* no @alive */
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n@marker A absent\n@stage s\n@end\n",		/* no stage line */
		"@mwait 1 1795000000\n@alive\n|onbox 0 2\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox -3 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 1 1 x\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A maybe\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n|data\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker B absent\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@failed A\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@failed A\n@failed A\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@failed A\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage t\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker  A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent \n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@bogus\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n\n@stage s\n@end\n",
		"@mwait 1 1795000000\n|data\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@mwait 1 5\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end",	/* no newline */
		/* @stopped: once, after the markers and stages, no words */
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@stopped\n@stopped\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@stopped\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stopped\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@stopped\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@end\n",
		"@mwait 1 1795000000\n@alive\n|onbox 0 0\n|stage 0 0\n@marker A absent\n@stage s\n@stopped now\n@end\n",
	};
	static const char good[] = "@mwait 1 1795000000\n@alive\n|onbox 12 1\n|stage 13 0\n"
	    "@marker A present\n|{\"attempt\": 3}\n@failed A\n|not json\n@stage s\n|{\"attempts\": [{\"attempt\": 3, "
	    "\"result\": \"done\"}]}\n@end\n";
	struct mwait_spec spec;
	struct mwait w;
	char *why = NULL;
	size_t i;

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(mwait_spec_add(&spec, "A", "s"), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (mwait_parse(bad[i], strlen(bad[i]), &spec, &w, &why) == 0)
			fail_msg("accepted bad output %zu", i);
		assert_non_null(why);
		free(why);
		why = NULL;
	}
	assert_int_equal(mwait_parse("@mwait 1 1\n\0@end\n", 17, &spec, &w, &why), WK_ERR_PARSE);
	assert_non_null(strstr(why, "NUL"));
	free(why);
	assert_int_equal(mwait_parse(good, strlen(good), &spec, &w, &why), 0);
	assert_int_equal(w.box_time, 1795000000);
	assert_int_equal(w.onbox_pid, 12);
	assert_int_equal(w.onbox_alive, 1);
	assert_int_equal(w.stage_pid, 13);
	assert_int_equal(w.stage_alive, 0);
	assert_true(w.m[0].present);
	assert_int_equal(json_long(w.m[0].doc, "attempt", 0), 3);
	assert_true(w.m[0].failed);
	assert_null(w.m[0].failed_doc);		/* unreadable: still a FAILED twin */
	assert_int_equal(w.m[0].failed_attempt, 0);
	assert_int_equal(w.s[0].attempt, 3);
	assert_string_equal(w.s[0].result, "done");
	mwait_free(&w);
	mwait_spec_free(&spec);
}

/*
 * A run stopped on purpose: the real script reports the record, and it
 * decides after a present marker but before a FAILED twin.
 */
static void
test_mwait_stopped(void **state)
{
	struct fx *f = *state;
	struct mwait w;
	char *out, *why = NULL, *p;
	size_t len, which;
	int ev = idx(&f->spec, "EVAL_DONE");

	/* The fixture's present markers decide first, whatever else is there. */
	putf(f, "stopped", "{\"run\": \"r\", \"by\": \"patrol stop (me@laptop)\", \"when\": "
	    "\"2026-11-26T14:00:00Z\", \"stage\": \"eval\", \"attempt\": 2}");
	out = run_check(f, &len);
	if (mwait_parse(out, len, &f->spec, &w, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_true(w.stopped);
	assert_string_equal(json_str(w.stopped_doc, "by", ""), "patrol stop (me@laptop)");
	assert_int_equal(mwait_decide(&w, &f->spec, &which), MWAIT_FOUND);
	mwait_free(&w);
	free(out);
	/* Without them: the stop, not eval's FAILED twin (made live here). */
	p = xstrfmt("%s/.watchkeeper/markers/TRAIN_DONE", f->work);
	assert_int_equal(unlink(p), 0);
	free(p);
	p = xstrfmt("%s/.watchkeeper/markers/TOUCHED", f->work);
	assert_int_equal(unlink(p), 0);
	free(p);
	putf(f, "markers/EVAL_DONE.FAILED", "{\"class\": \"cuda_oom\", \"attempt\": 2}");
	out = run_check(f, &len);
	if (mwait_parse(out, len, &f->spec, &w, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_true(w.m[ev].failed);
	assert_int_equal(mwait_decide(&w, &f->spec, &which), MWAIT_STOPPED);
	assert_true(mwait_news(&w, &f->spec, NULL));
	mwait_free(&w);
	free(out);
	/* Started again (the record removed): the FAILED twin decides. */
	p = xstrfmt("%s/.watchkeeper/stopped", f->work);
	assert_int_equal(unlink(p), 0);
	free(p);
	out = run_check(f, &len);
	if (mwait_parse(out, len, &f->spec, &w, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_false(w.stopped);
	assert_null(w.stopped_doc);
	assert_int_equal(mwait_decide(&w, &f->spec, &which), MWAIT_FAILED);
	assert_int_equal((int)which, ev);
	mwait_free(&w);
	free(out);
}

static void
test_mwait_spec(void **state)
{
	struct mwait_spec spec;
	char *script;

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(mwait_spec_add(&spec, "Z_DONE", "z"), 0);
	assert_int_equal(mwait_spec_add(&spec, "A_DONE", "a"), 0);
	assert_int_equal(mwait_spec_add(&spec, "M", NULL), 0);
	assert_int_equal(mwait_spec_add(&spec, "A_DONE", "a"), 0);		/* again: fine */
	assert_int_equal(mwait_spec_add(&spec, "A_DONE", "b"), WK_ERR_INVALID);	/* another stage */
	assert_int_equal(mwait_spec_add(&spec, "A_DONE", NULL), WK_ERR_INVALID);
	assert_int_equal(mwait_spec_add(&spec, "a b", NULL), WK_ERR_INVALID);
	assert_int_equal(mwait_spec_add(&spec, "..", NULL), WK_ERR_INVALID);
	assert_int_equal(mwait_spec_add(&spec, "x'y", NULL), WK_ERR_INVALID);
	assert_int_equal(mwait_spec_add(&spec, "", NULL), WK_ERR_INVALID);
	assert_int_equal(mwait_spec_add(&spec, "OK", "bad/stage"), WK_ERR_INVALID);
	assert_int_equal((int)spec.nmarkers, 3);
	assert_string_equal(spec.markers[0], "A_DONE");
	assert_string_equal(spec.markers[1], "M");
	assert_string_equal(spec.markers[2], "Z_DONE");
	assert_null(spec.stage_of[1]);
	assert_int_equal((int)spec.nstages, 2);
	assert_string_equal(spec.stages[0], "a");
	assert_string_equal(spec.stages[1], "z");
	assert_int_equal(mwait_spec_stage(&spec, "z"), 1);
	assert_int_equal(mwait_spec_stage(&spec, "q"), -1);
	assert_true(config_name_ok("TRAIN.done-2_x"));
	assert_false(config_name_ok("."));
	assert_false(config_name_ok("a$b"));
	/* Names reach the script quoted, one check each, markers before histories. */
	script = mwait_script("/w", &spec);
	assert_non_null(strstr(script, "mk 'A_DONE'\nmk 'M'\nmk 'Z_DONE'\nst 'a'\nst 'z'\n"
	    "if [ -f \"$D/stopped\" ]; then h @stopped;"));
	assert_non_null(strstr(script, "\nh @end\n} | tr -d "));
	assert_non_null(strstr(script, "W='/w'\n"));
	free(script);
	mwait_spec_free(&spec);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mwait_real, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mwait_empty_workdir, setup, teardown),
		cmocka_unit_test(test_mwait_garbled),
		cmocka_unit_test_setup_teardown(test_mwait_stopped, setup, teardown),
		cmocka_unit_test(test_mwait_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
