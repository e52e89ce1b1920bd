/*
 * test_atomic.c: atomic replacement never shows a torn file, leaves no temp
 * files, fails cleanly; appends keep records whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "err.h"
#include "fsutil.h"
#include "xmalloc.h"

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wk-atomic-XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	int r = unit_rmrf(dir);

	(void)state;
	return r == 0 ? 0 : -1;
}

static int
count_entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(dp);
	return n;
}

static void
test_write_and_replace(void **state)
{
	char *p = fs_join(dir, "state.json"), *s = NULL;
	struct stat st;
	size_t n;

	(void)state;
	assert_int_equal(atomic_write(p, "one", 3, 0600), 0);
	assert_int_equal(fs_read_file(p, 100, &s, &n), 0);
	assert_string_equal(s, "one");
	free(s);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(atomic_write_str(p, "two, longer"), 0);
	assert_int_equal(fs_read_file(p, 100, &s, &n), 0);
	assert_string_equal(s, "two, longer");
	assert_int_equal(n, 11);
	free(s);
	assert_int_equal(count_entries(dir), 1);	/* no temp file left */
	unlink(p);
	free(p);
}

static void
test_write_fails_cleanly(void **state)
{
	char *p = fs_join(dir, "missing/sub/file");

	(void)state;
	assert_int_equal(atomic_write_str(p, "x"), WK_ERR_SYSTEM);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(count_entries(dir), 0);
	free(p);
}

static void
test_no_torn_reads(void **state)
{
	char *p = fs_join(dir, "big"), *s = NULL;
	size_t len = 256 * 1024, n;
	char *a = xmalloc(len), *b = xmalloc(len);
	pid_t pid;
	int i, status;

	(void)state;
	memset(a, 'A', len);
	memset(b, 'B', len);
	assert_int_equal(atomic_write(p, a, len, 0644), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rc = 0;

		for (i = 0; i < 200 && rc == 0; i++)
			rc = atomic_write(p, i % 2 ? a : b, len, 0644) != 0;
		free(p);	/* the child's copies: valgrind checks it too */
		free(a);
		free(b);
		_exit(rc);
	}
	for (i = 0; i < 400; i++) {
		assert_int_equal(fs_read_file(p, len * 2, &s, &n), 0);
		assert_int_equal(n, len);
		/* Wholly one version or wholly the other. */
		assert_true(memcmp(s, a, len) == 0 || memcmp(s, b, len) == 0);
		free(s);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(count_entries(dir), 1);
	unlink(p);
	free(p);
	free(a);
	free(b);
}

static void
test_append_records(void **state)
{
	char *p = fs_join(dir, "events.jsonl"), *s = NULL;
	size_t n;

	(void)state;
	assert_int_equal(append_record(p, "{\"a\":1}\n", 8), 0);
	assert_int_equal(append_record(p, "{\"b\":2}\n", 8), 0);
	assert_int_equal(fs_read_file(p, 100, &s, &n), 0);
	assert_string_equal(s, "{\"a\":1}\n{\"b\":2}\n");
	free(s);
	unlink(p);
	free(p);
}

static void
test_fsync_parent_missing(void **state)
{
	(void)state;
	assert_int_equal(fsync_parent("/nonexistent-dir-wk/x"), WK_ERR_SYSTEM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_replace),
		cmocka_unit_test(test_write_fails_cleanly),
		cmocka_unit_test(test_no_torn_reads),
		cmocka_unit_test(test_append_records),
		cmocka_unit_test(test_fsync_parent_missing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
