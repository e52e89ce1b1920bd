/*
 * test_spawn.c: the spawn helper's promises: real errno for failures in the
 * child, no leaked descriptors, signals reset, sessions and process groups.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "spawn.h"
#include "xmalloc.h"

static int
run_sh(const char *cmd, const struct spawn_opts *o)
{
	int status;
	pid_t pid = spawn_sh(cmd, o);

	assert_true(pid > 0);
	assert_int_equal(spawn_wait(pid, &status), 0);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static char *
capture_sh(const char *cmd)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL }, *out = NULL;
	int status;

	assert_int_equal(spawn_capture(argv, 65536, 1, &status, &out), 0);
	return out;
}

static void
test_exit_codes(void **state)
{
	struct spawn_opts o;

	(void)state;
	spawn_opts_init(&o);
	assert_int_equal(run_sh("exit 0", &o), 0);
	assert_int_equal(run_sh("exit 3", &o), 3);
	assert_int_equal(run_sh("true && false", &o), 1);
}

static void
test_exec_failure_errno(void **state)
{
	struct spawn_opts o;
	char *argv[] = { "/nonexistent/program-wk", NULL };

	(void)state;
	spawn_opts_init(&o);
	errno = 0;
	assert_int_equal(spawn_argv(argv, &o), WK_ERR_EXEC);
	assert_int_equal(errno, ENOENT);
	o.cwd = "/nonexistent-dir-wk";
	errno = 0;
	assert_int_equal(spawn_sh("true", &o), WK_ERR_EXEC);
	assert_int_equal(errno, ENOENT);
}

static void
test_cwd_and_streams(void **state)
{
	char path[] = "/tmp/wk-spawn-XXXXXX", buf[256] = { 0 };
	struct spawn_opts o;
	int fd;
	ssize_t n;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	spawn_opts_init(&o);
	o.cwd = "/";
	o.fd_out = fd;
	o.fd_err = SPAWN_STDOUT;
	assert_int_equal(run_sh("pwd; echo err >&2", &o), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	assert_string_equal(buf, "/\nerr\n");
	close(fd);
	unlink(path);
}

static void
test_no_leaked_fds(void **state)
{
	int leak = 50, keep = 51, fd = open("/dev/null", O_RDONLY);
	char *cmd, *want;

	(void)state;
	/* High numbers, so a descriptor the listing opens itself cannot be mistaken for them. */
	assert_int_equal(dup2(fd, leak), leak);
	assert_int_equal(dup2(fd, keep), keep);
	close(fd);
	/* Not close-on-exec in the parent: the child must still not see it. */
	cmd = xstrfmt("ls /proc/self/fd | sort -n | tr '\\n' ' '");
	{
		struct spawn_opts o;
		int fds[2], status;
		char buf[256] = { 0 };
		pid_t pid;

		assert_int_equal(pipe(fds), 0);
		spawn_opts_init(&o);
		o.fd_out = fds[1];
		o.keep_fds = &keep;
		o.nkeep = 1;
		pid = spawn_sh(cmd, &o);
		assert_true(pid > 0);
		close(fds[1]);
		assert_true(read(fds[0], buf, sizeof(buf) - 1) > 0);
		spawn_wait(pid, &status);
		close(fds[0]);
		want = xstrfmt(" %d ", keep);
		assert_non_null(strstr(buf, want));
		free(want);
		want = xstrfmt(" %d ", leak);
		assert_null(strstr(buf, want));
		free(want);
	}
	free(cmd);
	close(leak);
	close(keep);
}

static void
test_signals_reset(void **state)
{
	sigset_t set, old;
	char *out;

	(void)state;
	signal(SIGTERM, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &old);
	out = capture_sh("grep -E '^Sig(Blk|Ign)' /proc/self/status | tr -d ' \\t'");
	/* The shell ignores nothing and blocks nothing it inherited from us. */
	assert_non_null(strstr(out, "SigBlk:0000000000000000"));
	assert_null(strstr(out, "SigIgn:0000000000004000"));	/* SIGTERM bit */
	free(out);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGTERM, SIG_DFL);
}

static void
test_new_session(void **state)
{
	struct spawn_opts o;

	(void)state;
	spawn_opts_init(&o);
	o.new_session = 1;
	/* In its own session the shell is the session leader: sid == pid. */
	assert_int_equal(run_sh("[ \"$(ps -o sid= -p $$ | tr -d ' ')\" = \"$$\" ]", &o), 0);
	spawn_opts_init(&o);
	o.new_pgrp = 1;
	assert_int_equal(run_sh("[ \"$(ps -o pgid= -p $$ | tr -d ' ')\" = \"$$\" ]", &o), 0);
}

static void
test_fork_closes_others(void **state)
{
	int leak = open("/dev/null", O_RDONLY), keep = open("/dev/null", O_RDONLY), status;
	struct spawn_opts o;
	pid_t pid;

	(void)state;
	spawn_opts_init(&o);
	o.keep_fds = &keep;
	o.nkeep = 1;
	pid = spawn_fork(&o);
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fcntl(leak, F_GETFD) == -1 && fcntl(keep, F_GETFD) != -1 ? 0 : 1);
	assert_int_equal(spawn_wait(pid, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(leak);
	close(keep);
}

/* started(): what it writes is there before the child's program runs. */
struct started_seen {
	pid_t	 pid;
	char	 path[64];
};

static void
started_write(pid_t pid, void *arg)
{
	struct started_seen *s = arg;
	FILE *fp;

	s->pid = pid;
	usleep(50 * 1000);	/* a slow recorder: the child still waits */
	assert_non_null(fp = fopen(s->path, "w"));
	fprintf(fp, "%ld\n", (long)pid);
	assert_int_equal(fclose(fp), 0);
}

static void
test_started_before_exec(void **state)
{
	struct started_seen seen = { 0, "" };
	struct spawn_opts o;
	char cmd[256];
	pid_t pid;
	int status;

	(void)state;
	snprintf(seen.path, sizeof(seen.path), "/tmp/wk-spawn-started.%ld", (long)getpid());
	unlink(seen.path);
	snprintf(cmd, sizeof(cmd), "test \"$(cat %s)\" = $$", seen.path);
	spawn_opts_init(&o);
	o.started = started_write;
	o.started_arg = &seen;
	pid = spawn_sh(cmd, &o);
	assert_true(pid > 0);
	assert_int_equal(seen.pid, pid);
	assert_int_equal(spawn_wait(pid, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* A failing exec still reports its errno, after started(). */
	seen.pid = 0;
	{
		char *argv[] = { "/nonexistent/wk-no-such-program", NULL };

		errno = 0;
		assert_int_equal(spawn_argv(argv, &o), WK_ERR_EXEC);
		assert_int_equal(errno, ENOENT);
		assert_true(seen.pid > 0);
	}
	unlink(seen.path);
}

static void
test_capture_cap(void **state)
{
	char *argv[] = { "sh", "-c", "yes | head -c 100000", NULL }, *out = NULL;
	int status;

	(void)state;
	assert_int_equal(spawn_capture(argv, 1000, 0, &status, &out), 0);
	assert_int_equal(strlen(out), 1000);
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_exec_failure_errno),
		cmocka_unit_test(test_cwd_and_streams),
		cmocka_unit_test(test_no_leaked_fds),
		cmocka_unit_test(test_signals_reset),
		cmocka_unit_test(test_new_session),
		cmocka_unit_test(test_fork_closes_others),
		cmocka_unit_test(test_started_before_exec),
		cmocka_unit_test(test_capture_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
