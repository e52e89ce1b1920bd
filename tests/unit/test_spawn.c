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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "portable.h"
#include "sigwait.h"
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

/* wk_exec_path (through spawn_argv): PATH in order, past what cannot run, sh for a script without #!. */
static void
test_path_search(void **state)
{
	char dir[64], a[96], b[96], path[512], *old, *argv[] = { "wk-t-prog", NULL };
	struct spawn_opts o;
	FILE *fp;
	pid_t pid;
	int status;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wk-spawn-path.%ld", (long)getpid());
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(a, 0755), 0);
	assert_int_equal(mkdir(b, 0755), 0);
	/* a/ has one that cannot run (no x bit); b/ a script without "#!" that exits 7 */
	snprintf(path, sizeof(path), "%s/wk-t-prog", a);
	assert_non_null(fp = fopen(path, "w"));
	fputs("exit 3\n", fp);
	fclose(fp);
	chmod(path, 0644);
	snprintf(path, sizeof(path), "%s/wk-t-prog", b);
	assert_non_null(fp = fopen(path, "w"));
	fputs("exit 7\n", fp);
	fclose(fp);
	chmod(path, 0755);
	old = getenv("PATH") != NULL ? xstrdup(getenv("PATH")) : NULL;
	snprintf(path, sizeof(path), "/nonexistent:%s:%s", a, b);
	setenv("PATH", path, 1);
	spawn_opts_init(&o);
	pid = spawn_argv(argv, &o);
	assert_true(pid > 0);
	assert_int_equal(spawn_wait(pid, &status), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
	/* only the one that cannot run: EACCES, as execvp says */
	snprintf(path, sizeof(path), "/nonexistent:%s", a);
	setenv("PATH", path, 1);
	errno = 0;
	assert_int_equal(spawn_argv(argv, &o), WK_ERR_EXEC);
	assert_int_equal(errno, EACCES);
	/* nowhere: ENOENT */
	setenv("PATH", "/nonexistent", 1);
	errno = 0;
	assert_int_equal(spawn_argv(argv, &o), WK_ERR_EXEC);
	assert_int_equal(errno, ENOENT);
	if (old != NULL)
		setenv("PATH", old, 1);
	free(old);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

static void
test_portable_bits(void **state)
{
	const char s[] = "a.b.c";
	char secret[16] = "hunter2";
	int p[2];

	(void)state;
	assert_ptr_equal(wk_memlast(s, '.', 5), s + 3);
	assert_ptr_equal(wk_memlast(s, '.', 3), s + 1);
	assert_null(wk_memlast(s, '.', 1));
	assert_null(wk_memlast(s, 'x', 0));
	wk_bzero_secret(secret, sizeof(secret));
	assert_int_equal(secret[0] | secret[6], 0);
	assert_int_equal(wk_pipe_cloexec(p), 0);
	assert_true(fcntl(p[0], F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(p[1], F_GETFD) & FD_CLOEXEC);
	close(p[0]);
	close(p[1]);
}

/*
 * The self-pipe (sigwait.h): a signal comes back with its sender; a child
 * forked through spawn has the default disposition and none of the pipe.
 */
static void
test_sigwait_pipe(void **state)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2 };
	struct sigwait_got got;
	struct spawn_opts o;
	pid_t pid;
	int fd, status;

	(void)state;
	assert_true((fd = sigwait_open(sigs, 2)) >= 0);
	assert_int_equal(sigwait_fd(fd, 0, &got), 0);	/* nothing yet */
	kill(getpid(), SIGUSR2);
	assert_int_equal(sigwait_fd(fd, 5000, &got), 1);
	assert_int_equal(got.signo, SIGUSR2);
	assert_int_equal(got.pid, (unsigned long)getpid());
	spawn_opts_init(&o);
	pid = spawn_fork(&o);
	assert_true(pid >= 0);
	if (pid == 0) {
		kill(getpid(), SIGUSR1);	/* default: it ends the child */
		_exit(0);
	}
	assert_int_equal(spawn_wait(pid, &status), 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGUSR1);
	assert_int_equal(sigwait_fd(fd, 100, &got), 0);	/* nothing of the child's came */
	/* A second open adds to the same pipe. */
	assert_int_equal(sigwait_open(sigs, 1), fd);
	sigwait_close();
	/* Closed: SIGUSR1 is back to its default (checked without raising it). */
	{
		struct sigaction sa;

		assert_int_equal(sigaction(SIGUSR1, NULL, &sa), 0);
		assert_true(sa.sa_handler == SIG_DFL);
	}
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
		cmocka_unit_test(test_path_search),
		cmocka_unit_test(test_portable_bits),
		cmocka_unit_test(test_sigwait_pipe),
		cmocka_unit_test(test_capture_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
