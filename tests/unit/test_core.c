/*
 * test_core.c: the small core helpers: deadlines and time stamps, locks and
 * process identity, filesystem helpers, buffers, events and the layout, and
 * shell words (shword_assign).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "monotime.h"
#include "proc.h"
#include "shword.h"
#include "xmalloc.h"

static void
test_deadlines(void **state)
{
	struct deadline d[3];
	uint64_t t0 = monotime_ms();

	(void)state;
	deadline_clear(&d[0]);
	assert_false(deadline_isset(&d[0]));
	assert_false(deadline_expired(&d[0]));
	assert_true(deadline_left_ms(&d[0]) == UINT64_MAX);
	assert_int_equal(deadline_poll_timeout(d, 1, -1), -1);
	assert_int_equal(deadline_poll_timeout(d, 1, 250), 250);
	deadline_set(&d[1], 100000);
	deadline_set(&d[2], 0);
	assert_true(deadline_expired(&d[2]));
	assert_int_equal(deadline_poll_timeout(d, 3, 5000), 0);
	assert_true(deadline_poll_timeout(d, 2, 5000) == 5000);
	assert_true(deadline_poll_timeout(d, 2, -1) > 99000);
	assert_true(monotime_ms() >= t0);
}

static void
test_timefmt(void **state)
{
	char out[TIMEFMT_LEN];
	time_t t;

	(void)state;
	timefmt_utc(0, out, sizeof(out));
	assert_string_equal(out, "1970-01-01T00:00:00Z");
	timefmt_utc(1795000000, out, sizeof(out));
	assert_int_equal(timefmt_parse(out, &t), 0);
	assert_int_equal(t, 1795000000);
	assert_int_equal(timefmt_parse("2026-11-21 10:00", &t), WK_ERR_PARSE);
	timefmt_duration(45, out, sizeof(out));
	assert_string_equal(out, "45s");
	timefmt_duration(3 * 3600 + 12 * 60 + 5, out, sizeof(out));
	assert_string_equal(out, "3h12m");
	timefmt_duration(2 * 86400 + 4 * 3600, out, sizeof(out));
	assert_string_equal(out, "2d4h");
	timefmt_duration(-5, out, sizeof(out));
	assert_string_equal(out, "0s");
}

static char tdir[64];

static int
write_str_for_test(const char *path, const char *s)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL)
		return -1;
	fputs(s, fp);
	return fclose(fp);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tdir, sizeof(tdir), "/tmp/wk-core-XXXXXX");
	return mkdtemp(tdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	int r = unit_rmrf(tdir);

	(void)state;
	return r == 0 ? 0 : -1;
}

/*
 * lock-flock.c, the locks a Mac builds, under other names so that the same
 * contract runs here beside lock-linux.c's.
 */
int flk_lock_try(const char *path);
int flk_lock_is_held(const char *path);
#define lock_try flk_lock_try
#define lock_is_held flk_lock_is_held
#include "lock-flock.c"
#undef lock_try
#undef lock_is_held

/* The locks' contract, for either implementation. */
static void
lock_contract(int (*try)(const char *), int (*is_held)(const char *), const char *name)
{
	char *p = fs_join(tdir, name);
	int fd, fd2, status;
	pid_t pid;

	assert_int_equal(is_held(p), 0);	/* missing file: free */
	fd = try(p);
	assert_true(fd >= 0);
	assert_int_equal(is_held(p), 1);
	/* A second open file description conflicts, even in the same process. */
	assert_int_equal(try(p), WK_ERR_BUSY);
	/* After a probe, a locker still wins (OFD: the probe never takes it; flock: it let go). */
	close(fd);
	assert_int_equal(is_held(p), 0);
	fd = try(p);
	assert_true(fd >= 0);
	/* Inherited across fork: held while the child lives after the parent closes. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		usleep(300000);
		_exit(0);
	}
	close(fd);
	assert_int_equal(is_held(p), 1);
	waitpid(pid, &status, 0);
	assert_int_equal(is_held(p), 0);
	fd2 = try(p);
	assert_true(fd2 >= 0);
	close(fd2);
	free(p);
}

static void
test_locks(void **state)
{
	(void)state;
	lock_contract(lock_try, lock_is_held, "run.lock");
}

static void
test_locks_flock(void **state)
{
	(void)state;
	lock_contract(flk_lock_try, flk_lock_is_held, "flock.lock");
}

/* proc_info, proc_list, proc_cmdline and proc_exited: the system's part of proc.h. */
static void
test_proc_system(void **state)
{
	struct proc_info pi;
	char buf[4096], *argv[] = { "sh", "-c", "sleep 30; :", "-S", "/tmp/wk-ctl path", NULL };
	pid_t *pids, pid;
	size_t n, i, len;
	int status, found = 0, tries;

	(void)state;
	assert_int_equal(proc_info(getpid(), &pi), 0);
	assert_int_equal(pi.pgrp, getpgrp());
	assert_int_equal(pi.sid, getsid(0));
	assert_true(pi.start > 0);
	assert_true(pi.state != 'Z');
	assert_int_equal(proc_info(-1, &pi), WK_ERR_NOTFOUND);

	assert_non_null(pids = proc_list(&n));
	for (i = 0; i < n; i++)
		found |= pids[i] == getpid();
	free(pids);
	assert_true(found);

	len = proc_cmdline(getpid(), buf, sizeof(buf));
	assert_true(len > 0 && buf[len - 1] == '\0');
	assert_non_null(strstr(buf, "test_core"));

	/* A child with "-S" and a path (holding a space) among its arguments. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execv("/bin/sh", argv);
		_exit(127);
	}
	for (tries = 0; tries < 2000 && !proc_cmdline_pair(pid, "-S", "/tmp/wk-ctl path"); tries++)
		usleep(1000);
	assert_true(proc_cmdline_pair(pid, "-S", "/tmp/wk-ctl path"));
	assert_false(proc_cmdline_pair(pid, "-S", "/tmp/wk-ctl"));
	assert_false(proc_cmdline_pair(pid, "-c", "/tmp/wk-ctl path"));
	assert_false(proc_exited(pid));
	kill(pid, SIGKILL);
	/* exited, not reaped: a zombie, its pid still ours */
	for (tries = 0; tries < 2000 && !proc_exited(pid); tries++)
		usleep(1000);
	assert_true(proc_exited(pid));
	assert_int_equal(proc_info(pid, &pi), 0);
	assert_int_equal(pi.state, 'Z');
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(proc_exited(pid));
}

static void
test_proc_identity(void **state)
{
	struct proc_id self, child, fake;
	pid_t pid;
	int status, pfd;

	(void)state;
	assert_int_equal(proc_identify(getpid(), &self), 0);
	assert_true(self.start > 0);
	assert_true(strlen(self.boot) > 0);
	assert_true(proc_alive(&self));
	fake = self;
	fake.start = self.start + 12345;	/* same pid, another process */
	assert_false(proc_alive(&fake));
	snprintf(fake.boot, sizeof(fake.boot), "another-boot");
	fake.start = self.start;
	assert_false(proc_alive(&fake));

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	assert_int_equal(proc_identify(pid, &child), 0);
	assert_true(proc_alive(&child));
	pfd = proc_pidfd(pid);
	kill(pid, SIGKILL);
	/* A zombie is not alive. */
	usleep(50000);
	assert_false(proc_alive(&child));
	waitpid(pid, &status, 0);
	assert_false(proc_alive(&child));
	assert_int_equal(proc_identify(pid, &child), WK_ERR_NOTFOUND);
	if (pfd >= 0)
		close(pfd);
}

static void
test_fsutil(void **state)
{
	char *p, *s = NULL;
	size_t n;

	(void)state;
	/* fs_on_path: PATH in order, an empty entry is ".". */
	assert_true(fs_on_path("sh"));
	assert_false(fs_on_path("wk-no-such-program"));
	p = getenv("PATH") != NULL ? xstrdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent:", 1);
	assert_false(fs_on_path("sh"));
	if (p != NULL)
		setenv("PATH", p, 1);
	free(p);
	p = xstrfmt("%s/a/b/c", tdir);
	assert_int_equal(fs_mkdirs(p, 0755), 0);
	assert_int_equal(fs_mkdirs(p, 0755), 0);	/* idempotent */
	assert_true(fs_exists(p));
	free(p);
	p = xstrfmt("%s/file", tdir);
	assert_int_equal(write_str_for_test(p, "12345"), 0);
	assert_int_equal(fs_read_file(p, 5, &s, &n), 0);
	assert_int_equal(n, 5);
	free(s);
	assert_int_equal(fs_read_file(p, 4, &s, &n), WK_ERR_TOOLONG);
	assert_null(s);
	free(p);
	p = xstrfmt("%s/file/sub", tdir);
	assert_int_equal(fs_mkdirs(p, 0755), WK_ERR_SYSTEM);	/* a file is in the way */
	free(p);
	assert_int_equal(fs_read_file("/nonexistent-wk", 10, &s, &n), WK_ERR_SYSTEM);
	assert_int_equal(errno, ENOENT);

	p = fs_join("/a/", "b");
	assert_string_equal(p, "/a/b");
	free(p);
	p = fs_join("/a", "/abs");
	assert_string_equal(p, "/abs");
	free(p);
	p = fs_abspath("/a/./b//c/../d/");
	assert_string_equal(p, "/a/b/d");
	free(p);
	p = fs_abspath("/..");
	assert_string_equal(p, "/");
	free(p);
	p = fs_abspath("rel");
	assert_true(p[0] == '/');
	free(p);
}

static void
test_buf(void **state)
{
	struct buf b = BUF_INIT;
	char *s;
	int i;

	(void)state;
	assert_string_equal(buf_str(&b), "");
	for (i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	assert_int_equal(strncmp(b.data, "0,1,2,", 6), 0);
	buf_consume(&b, 2);
	assert_int_equal(strncmp(b.data, "1,2,", 4), 0);
	buf_consume(&b, 1u << 30);
	assert_int_equal(b.len, 0);
	buf_append(&b, "a\0b", 3);
	assert_int_equal(b.len, 3);
	s = buf_detach(&b);
	assert_memory_equal(s, "a\0b", 4);
	assert_null(b.data);
	free(s);
}

static void
test_events_and_layout(void **state)
{
	char inst[17], inst2[17], *p, *s = NULL;
	char *fail = NULL;
	cJSON *ev, *line;
	size_t n;

	(void)state;
	assert_int_equal(layout_create(tdir, &fail), 0);
	assert_int_equal(events_instance(tdir, inst), 0);
	assert_int_equal(strlen(inst), 16);
	assert_int_equal(events_instance(tdir, inst2), 0);
	assert_string_equal(inst, inst2);	/* stable */
	ev = events_new(inst, "r1", "stage_done", "train", 2);
	p = xstrfmt("%s.stage_done.train.2", inst);
	assert_string_equal(json_str(ev, "id", ""), p);
	free(p);
	assert_int_equal(events_append(tdir, ev), 0);
	assert_int_equal(events_append(tdir, ev), 0);
	cJSON_Delete(ev);
	p = layout_path(tdir, EVENTS_FILE);
	assert_int_equal(fs_read_file(p, 1 << 20, &s, &n), 0);
	line = cJSON_ParseWithLength(s, (size_t)(strchr(s, '\n') - s));
	assert_non_null(line);
	assert_string_equal(json_str(line, "event", ""), "stage_done");
	assert_int_equal(json_long(line, "attempt", 0), 2);
	cJSON_Delete(line);
	free(s);
	free(p);
	p = layout_attempt_log_rel("train", 3);
	assert_string_equal(p, ".watchkeeper/logs/train.3.log");
	free(p);
	p = layout_failed("/w", "TRAIN_DONE");
	assert_string_equal(p, "/w/.watchkeeper/markers/TRAIN_DONE.FAILED");
	free(p);
}

/* NAME=VALUE lines keep any value one word: hostile values come back byte for byte from sh. */
static void
test_shword_assign(void **state)
{
	static const char *const vals[] = { "", "plain", "a b", "it's", "$(echo pwned)", "`id`",
	    "x\\y", "\"q\"", "semi;colon && rm -rf /nonexistent", "new\nline", "'\\''" };
	struct buf b = BUF_INIT;
	size_t i, len;
	char *out;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		buf_reset(&b);
		shword_assign(&b, "v", vals[i]);
		assert_int_equal(b.data[b.len - 1], '\n');
		buf_puts(&b, "printf '%s' \"$v\"\n");
		out = unit_sh(buf_str(&b), "/", &len);
		assert_int_equal(len, strlen(vals[i]));
		assert_memory_equal(out, vals[i], len);
		free(out);
	}
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadlines),
		cmocka_unit_test(test_timefmt),
		cmocka_unit_test(test_locks),
		cmocka_unit_test(test_locks_flock),
		cmocka_unit_test(test_proc_system),
		cmocka_unit_test(test_proc_identity),
		cmocka_unit_test(test_fsutil),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_events_and_layout),
		cmocka_unit_test(test_shword_assign),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
