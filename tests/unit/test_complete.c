/*
 * test_complete.c: completion.require (core/complete.c) against a real
 * temporary workdir: literal paths, globs (and a workdir whose own name
 * holds glob characters), empty files and directories, symlinks, and
 * {final_checkpoint} against progress.max or the log's total.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "complete.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "unit.h"

struct fx {
	char	 dir[PATH_MAX];		/* the workdir: its name holds '[', ']' and '*' */
	struct wk_config *cfg;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/wk-complete[a]*.XXXXXX", *real;

	if (f == NULL || mkdtemp(tmpl) == NULL || (real = realpath(tmpl, NULL)) == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s", real);
	free(real);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	config_free(f->cfg);
	(void)unit_rmrf(f->dir);
	free(f);
	return 0;
}

/* dir/name with content (NULL: a directory); parents made as needed. */
static void
mk(struct fx *f, const char *name, const char *content)
{
	char path[PATH_MAX + 128], *p;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	for (p = path + strlen(f->dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	if (content == NULL) {
		mkdir(path, 0700);
		return;
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(content, fp);
	fclose(fp);
}

/* Load a config for workdir "." with require (JSON array text) and extra top-level keys. */
static void
load(struct fx *f, const char *require, const char *extra)
{
	char path[PATH_MAX + 32];
	struct diag d;
	FILE *fp;
	int rc;

	config_free(f->cfg);
	f->cfg = NULL;
	snprintf(path, sizeof(path), "%s/wk.json", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "{ \"run\": \"r\", \"workdir\": \".\", \"chain\": [ { \"stage\": \"a\", "
	    "\"run\": \"x\" } ],\n %s%s \"completion\": { \"require\": %s } }\n", extra,
	    *extra != '\0' ? "," : "", require);
	fclose(fp);
	memset(&d, 0, sizeof(d));
	rc = config_load(path, &f->cfg, &d);
	if (rc != 0 && d.n > 0)
		print_message("%s\n", d.msgs[0]);
	diag_free(&d);
	assert_int_equal(rc, 0);
}

/* complete_check's count, its evidence (or NULL) compared with want. */
static void
check(struct fx *f, long max_log, int want_n, const char *want)
{
	char *missing = NULL, *note = NULL;
	int n = complete_check(f->cfg, max_log, &missing, &note);

	if (want == NULL)
		assert_null(missing);
	else {
		assert_non_null(missing);
		assert_string_equal(missing, want);
	}
	assert_int_equal(n, want_n);
	free(missing);
	free(note);
}

static void
test_entry_rules(void **state)
{
	static const char *const good[] = {
		"results/metrics.json", "eval/*.csv", "out/", "a..b", "x/..y/z", "{final_checkpoint}",
		"./r.json",
	};
	static const char *const bad[] = {
		"", "/abs", "..", "../x", "a/../b", "a/..", "~/x", "ckpt/{final_checkpoint}",
		"{final_checkpoint}/", "a\nb",
	};
	char *why;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(reqentry_ok(good[i], &why), 0);
		assert_null(why);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(reqentry_ok(bad[i], &why), WK_ERR_INVALID);
		assert_non_null(why);
		free(why);
	}
}

static void
test_paths_and_empty_files(void **state)
{
	struct fx *f = *state;

	load(f, "[ \"results/metrics.json\" ]", "");
	assert_true(complete_configured(f->cfg));
	check(f, 0, 1, "missing: results/metrics.json");
	mk(f, "results/metrics.json", "");
	check(f, 0, 1, "missing: results/metrics.json (empty)");
	mk(f, "results/metrics.json", "{}");
	check(f, 0, 0, NULL);
	/* a symlink counts as what it points to; a dangling one is missing */
	load(f, "[ \"link.json\", \"dangling.json\" ]", "");
	check(f, 0, 2, "missing: link.json, dangling.json");
	{
		char l[PATH_MAX + 32], d[PATH_MAX + 32];

		snprintf(l, sizeof(l), "%s/link.json", f->dir);
		snprintf(d, sizeof(d), "%s/dangling.json", f->dir);
		assert_int_equal(symlink("results/metrics.json", l), 0);
		assert_int_equal(symlink("results/nothing.json", d), 0);
	}
	check(f, 0, 1, "missing: dangling.json");
	load(f, "[]", "");
	assert_false(complete_configured(f->cfg));
	check(f, 0, 0, NULL);
}

static void
test_globs_and_dirs(void **state)
{
	struct fx *f = *state;

	load(f, "[ \"eval/*.csv\", \"out\" ]", "");
	check(f, 0, 2, "missing: eval/*.csv, out");
	mk(f, "eval/a.txt", "x");
	mk(f, "eval/.hidden.csv", "x");	/* a wildcard does not match a leading dot */
	mk(f, "out", NULL);
	check(f, 0, 2, "missing: eval/*.csv, out (empty directory)");
	mk(f, "eval/b.csv", "");
	mk(f, "out/sub", NULL);
	check(f, 0, 1, "missing: eval/*.csv (empty)");
	mk(f, "eval/c.csv", "1,2\n");	/* one non-empty match is enough */
	check(f, 0, 0, NULL);
	/* the workdir's own '[a]*' is literal: a sibling that would match it as a glob does not */
	load(f, "[ \"eval/[bc].csv\", \"e?al/c.csv\", \"eval/[!c].csv\" ]", "");
	check(f, 0, 1, "missing: eval/[!c].csv (empty)");
}

#define CKPT_KEYS "\"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)$\" }"

static void
test_final_checkpoint(void **state)
{
	struct fx *f = *state;
	char *missing = NULL, *note = NULL, want[PATH_MAX + 128];

	load(f, "[ \"{final_checkpoint}\" ]",
	    CKPT_KEYS ", \"progress\": { \"pattern\": \"step (\\\\d+)/(\\\\d+)\", \"max\": 10 }");
	snprintf(want, sizeof(want), "final checkpoint: no complete checkpoint in %s/ckpt "
	    "(the directory does not exist)", f->dir);
	check(f, 0, 1, want);
	mk(f, "ckpt/step_000005/metadata.json", "{}");
	mk(f, "ckpt/step_000010/model.pt", "x");	/* incomplete: no metadata.json */
	check(f, 0, 1, "final checkpoint: newest complete is step_000005, progress.max is 10");
	check(f, 99, 1, "final checkpoint: newest complete is step_000005, progress.max is 10");
	mk(f, "ckpt/step_000010/metadata.json", "{}");
	check(f, 0, 0, NULL);

	/* no progress.max: the log's total, and when none, any complete checkpoint (with a note) */
	load(f, "[ \"{final_checkpoint}\", \"results/m.json\" ]", CKPT_KEYS);
	check(f, 12, 2, "missing: results/m.json; final checkpoint: newest complete is "
	    "step_000010, the log's progress total is 12");
	mk(f, "results/m.json", "{}");
	check(f, 10, 0, NULL);
	assert_int_equal(complete_check(f->cfg, 0, &missing, &note), 0);
	assert_null(missing);
	assert_non_null(note);
	assert_non_null(strstr(note, "the total is unknown"));
	assert_non_null(strstr(note, "step_000010"));
	free(note);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_rules),
		cmocka_unit_test_setup_teardown(test_paths_and_empty_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_globs_and_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_final_checkpoint, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
