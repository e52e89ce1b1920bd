/*
 * test_logbook.c: LOGBOOK.md only grows, entries stay whole under concurrent
 * writers, and text cannot forge structure (a heading from a newline, a fence
 * closed by backticks in the evidence).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "logbook.h"
#include "xmalloc.h"

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wk-logbook-XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	int r = unit_rmrf(dir);

	(void)state;
	return r == 0 ? 0 : -1;
}

static char *
slurp(size_t *n)
{
	char *p = fs_join(dir, LOGBOOK_FILE), *text = NULL;

	assert_int_equal(fs_read_file(p, 16 << 20, &text, n), 0);
	free(p);
	return text;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void
test_logbook_grows(void **state)
{
	char *a, *b;
	size_t na, nb;
	struct stat sb;
	char *p = fs_join(dir, LOGBOOK_FILE);

	(void)state;
	assert_int_equal(logbook_append(dir, "run-1", 1700000000, "launch train (attempt 1)",
	    "in /w", "python train.py"), 0);
	a = slurp(&na);
	assert_non_null(strstr(a, "# Logbook: run-1\n"));
	assert_non_null(strstr(a, "### 2023-11-14T22:13:20Z · launch train (attempt 1)\nin /w\n\n```\npython train.py\n```\n"));
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(logbook_append(dir, "run-1", 1700000060, "verdict OK", NULL, NULL), 0);
	b = slurp(&nb);
	/* The first version is a prefix of the second; the title is written once. */
	assert_true(nb > na);
	assert_memory_equal(a, b, na);
	assert_int_equal(count(b, "# Logbook:"), 1);
	assert_non_null(strstr(b + na, "### 2023-11-14T22:14:20Z · verdict OK\n\n"));
	free(a);
	free(b);
	free(p);
}

/* A newline in a kind or text cannot start a heading; backticks cannot close the fence. */
static void
test_logbook_no_forged_structure(void **state)
{
	char *t;
	size_t n;

	(void)state;
	assert_int_equal(logbook_append(dir, "r\n# Forged title", 1700000000, "x\n### forged heading",
	    "para\n\n### forged too", "line 1\n```\n### evidence heading\n````` five\n"), 0);
	t = slurp(&n);
	assert_null(strstr(t, "\n# Forged title"));
	assert_null(strstr(t, "\n### forged heading"));
	assert_null(strstr(t, "\n### forged too"));
	/* One heading, plus the evidence's line, which sits inside the fence. */
	assert_int_equal(count(t, "\n### "), 2);
	/* The fence is six backticks: longer than the five-run inside. */
	assert_non_null(strstr(t, "\n``````\nline 1\n```\n### evidence heading\n````` five\n``````\n"));
	free(t);
}

/* Four writers, 100 entries each: every entry arrives whole. */
static void
test_logbook_concurrent(void **state)
{
	char *t, kind[64];
	size_t n;
	int w, i, status;
	pid_t pids[4];

	(void)state;
	for (w = 0; w < 4; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			for (i = 0; i < 100; i++) {
				snprintf(kind, sizeof(kind), "writer %d entry %d", w, i);
				if (logbook_append(dir, "r", 1700000000, kind, "text text text",
				    "evidence line one\nevidence line two\n") != 0)
					_exit(1);
			}
			_exit(0);
		}
	}
	for (w = 0; w < 4; w++) {
		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	t = slurp(&n);
	assert_int_equal(count(t, "# Logbook: r\n"), 1);
	assert_int_equal(count(t, "\n### "), 400);
	assert_int_equal(count(t, " · writer "), 400);
	assert_int_equal(count(t, "\ntext text text\n\n```\nevidence line one\nevidence line two\n```\n\n"), 400);
	for (w = 0; w < 4; w++)
		for (i = 0; i < 100; i++) {
			snprintf(kind, sizeof(kind), " · writer %d entry %d\n", w, i);
			assert_non_null(strstr(t, kind));
		}
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_logbook_grows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_logbook_no_forged_structure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_logbook_concurrent, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
