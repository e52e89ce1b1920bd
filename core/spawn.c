/*
 * spawn.c: fork/exec done carefully, once (see spawn.h).
 *
 * The child's descriptor sweep is the system's (os.h: os_cloexec_fast,
 * os_each_fd), allocating nothing: the child of a process that may have had
 * threads must not call malloc.  PATH is searched by wk_exec_path (portable.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "os.h"
#include "portable.h"
#include "spawn.h"

extern char **environ;

void
spawn_opts_init(struct spawn_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fd_in = o->fd_out = o->fd_err = SPAWN_DEVNULL;
}

static int
spawn_stream(int want, int target, int devnull)
{
	int fd = want == SPAWN_DEVNULL ? devnull : want;

	if (want == SPAWN_INHERIT)
		return 0;
	if (fd == target) {
		/* dup2 to itself keeps FD_CLOEXEC: clear it explicitly. */
		return fcntl(fd, F_SETFD, 0) < 0 ? -1 : 0;
	}
	return dup2(fd, target) < 0 ? -1 : 0;
}

static void
spawn_set_cloexec(int fd, const void *arg)
{
	int flags;

	(void)arg;
	if ((flags = fcntl(fd, F_GETFD)) >= 0)
		fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

/* In the child: everything except exec.  Returns 0 or an errno. */
static int
spawn_child_setup(const struct spawn_opts *o)
{
	struct sigaction sa;
	sigset_t none;
	int sig, devnull = -1, flags;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) != 0)
		return errno;

	if (o->new_session) {
		if (setsid() < 0)
			return errno;
	} else if (o->new_pgrp && setpgid(0, 0) != 0)
		return errno;
	if (o->cwd != NULL && chdir(o->cwd) != 0)
		return errno;

	if (o->fd_in == SPAWN_DEVNULL || o->fd_out == SPAWN_DEVNULL || o->fd_err == SPAWN_DEVNULL) {
		if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
			return errno;
	}
	if (spawn_stream(o->fd_in, 0, devnull) != 0 || spawn_stream(o->fd_out, 1, devnull) != 0)
		return errno;
	if (o->fd_err == SPAWN_STDOUT) {
		if (dup2(1, 2) < 0)
			return errno;
	} else if (spawn_stream(o->fd_err, 2, devnull) != 0)
		return errno;

	if (os_cloexec_fast() != 0)
		os_each_fd(spawn_set_cloexec, NULL);
	for (i = 0; i < o->nkeep; i++) {
		if ((flags = fcntl(o->keep_fds[i], F_GETFD)) < 0 ||
		    fcntl(o->keep_fds[i], F_SETFD, flags & ~FD_CLOEXEC) < 0)
			return errno;
	}
	return 0;
}

static void
spawn_report(int errfd, int err)
{
	ssize_t n;

	do {
		n = write(errfd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	_exit(127);
}

/* In the child: wait for the parent's started() to return (EOF on gate). */
static void
spawn_gate_wait(int gate)
{
	char c;
	ssize_t n;

	do {
		n = read(gate, &c, 1);
	} while (n < 0 && errno == EINTR);
	close(gate);
}

static pid_t
spawn_exec(const char *path, char *const argv[], int use_path, const struct spawn_opts *o)
{
	sigset_t all, old;
	pid_t pid;
	int pfd[2], gate[2] = { -1, -1 }, child_err = 0, saved;
	ssize_t n;

	if (wk_pipe_cloexec(pfd) != 0)
		return WK_ERR_SYSTEM;
	if (o->started != NULL && wk_pipe_cloexec(gate) != 0) {
		saved = errno;
		close(pfd[0]);
		close(pfd[1]);
		errno = saved;
		return WK_ERR_SYSTEM;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		int err;

		close(pfd[0]);
		if (gate[1] >= 0) {
			close(gate[1]);
			spawn_gate_wait(gate[0]);
		}
		if ((err = spawn_child_setup(o)) != 0)
			spawn_report(pfd[1], err);
		if (use_path)
			wk_exec_path(path, argv, o->env != NULL ? o->env : environ);
		else
			execve(path, argv, o->env != NULL ? o->env : environ);
		spawn_report(pfd[1], errno);
	}
	saved = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	if (gate[0] >= 0)
		close(gate[0]);
	if (pid > 0 && gate[1] >= 0)
		o->started(pid, o->started_arg);
	if (gate[1] >= 0)
		close(gate[1]);		/* the child goes on */
	if (pid < 0) {
		close(pfd[0]);
		errno = saved;
		return WK_ERR_SYSTEM;
	}
	do {
		n = read(pfd[0], &child_err, sizeof(child_err));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(child_err)) {
		int status;

		spawn_wait(pid, &status);
		errno = child_err;
		return WK_ERR_EXEC;
	}
	return pid;
}

pid_t
spawn_sh(const char *cmd, const struct spawn_opts *o)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };

	return spawn_exec("/bin/sh", argv, 0, o);
}

pid_t
spawn_argv(char *const argv[], const struct spawn_opts *o)
{
	return spawn_exec(argv[0], argv, 1, o);
}

/* The descriptors spawn_close_others() keeps. */
struct spawn_keep {
	const int	*fds;
	size_t		 n;
};

static void
spawn_close_unkept(int fd, const void *arg)
{
	const struct spawn_keep *k = arg;
	size_t i;

	for (i = 0; i < k->n; i++)
		if (k->fds[i] == fd)
			return;
	close(fd);
}

/*
 * A fork that does not exec must not keep the parent's descriptors: a lock
 * held through one would outlive the parent.  Close every descriptor above 2
 * that is not in keep.
 */
static void
spawn_close_others(const int *keep, size_t nkeep)
{
	const struct spawn_keep k = { keep, nkeep };

	os_each_fd(spawn_close_unkept, &k);
}

pid_t
spawn_fork(const struct spawn_opts *o)
{
	sigset_t all, old;
	pid_t pid;
	int saved;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		if (spawn_child_setup(o) != 0)
			_exit(127);
		spawn_close_others(o->keep_fds, o->nkeep);
		return 0;
	}
	saved = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return pid < 0 ? WK_ERR_SYSTEM : pid;
}

int
spawn_wait(pid_t pid, int *status)
{
	pid_t r;

	do {
		r = waitpid(pid, status, 0);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? WK_ERR_SYSTEM : 0;
}

int
spawn_capture(char *const argv[], size_t cap, int inherit_err, int *status, char **out)
{
	struct spawn_opts o;
	struct buf b = BUF_INIT;
	char chunk[4096];
	int pfd[2], r;
	ssize_t n;
	pid_t pid;

	*out = NULL;
	if (wk_pipe_cloexec(pfd) != 0)
		return WK_ERR_SYSTEM;
	spawn_opts_init(&o);
	o.fd_out = pfd[1];
	o.fd_err = inherit_err ? SPAWN_INHERIT : SPAWN_DEVNULL;
	pid = spawn_argv(argv, &o);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return (int)pid;
	}
	for (;;) {
		n = read(pfd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (b.len < cap)
			buf_append(&b, chunk, (size_t)n > cap - b.len ? cap - b.len : (size_t)n);
	}
	close(pfd[0]);
	r = spawn_wait(pid, status);
	*out = buf_detach(&b);	/* transferred */
	return r;
}
