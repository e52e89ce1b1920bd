/*
 * sigwait.c: signals through a self-pipe, read bounded (see sigwait.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "monotime.h"
#include "portable.h"
#include "sigwait.h"

/* One record a signal: written whole by the handler (far below PIPE_BUF). */
struct sigwait_rec {
	long		signo;		/* long, as pid: no padding bytes to write */
	long		pid;
};

#define SIGWAIT_MAX	8	/* signals routed at once */

/*
 * The pipe belongs to the process that made it (owner): a child forked
 * after it (spawn_fork closes what it does not keep) starts afresh, and a
 * signal that reaches a child still holding the parent's handler is not
 * written into the parent's pipe.
 */
static pid_t sigwait_owner;
static int sigwait_pipe[2] = { -1, -1 };
static int sigwait_sigs[SIGWAIT_MAX];
static size_t sigwait_nsigs;

static void
sigwait_handler(int signo, siginfo_t *si, void *uctx)
{
	struct sigwait_rec rec;
	int saved = errno;

	(void)uctx;
	rec.signo = signo;
	rec.pid = si != NULL ? (long)si->si_pid : 0;
	/* A full pipe (thousands unread) drops this one: the reader has plenty. */
	if (sigwait_pipe[1] >= 0 && getpid() == sigwait_owner)
		(void)write(sigwait_pipe[1], &rec, sizeof(rec));
	errno = saved;
}

int
sigwait_open(const int *sigs, size_t n)
{
	struct sigaction sa;
	size_t i, j;

	if (sigwait_pipe[0] >= 0 && sigwait_owner != getpid()) {
		/* the parent's, closed by spawn_fork or not ours to close */
		sigwait_pipe[0] = sigwait_pipe[1] = -1;
		sigwait_nsigs = 0;
	}
	if (sigwait_pipe[0] < 0) {
		if (wk_pipe_cloexec(sigwait_pipe) != 0)
			return -1;
		sigwait_owner = getpid();
		if (wk_fd_flags(sigwait_pipe[0], 1) != 0 || wk_fd_flags(sigwait_pipe[1], 1) != 0) {
			sigwait_close();
			return -1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigwait_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < n; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < n; i++) {
		for (j = 0; j < sigwait_nsigs && sigwait_sigs[j] != sigs[i]; j++)
			;
		if (j == sigwait_nsigs) {
			if (sigwait_nsigs == SIGWAIT_MAX) {
				errno = EINVAL;
				return -1;
			}
			sigwait_sigs[sigwait_nsigs++] = sigs[i];
		}
		if (sigaction(sigs[i], &sa, NULL) != 0)
			return -1;
	}
	return sigwait_pipe[0];
}

void
sigwait_close(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sigwait_nsigs; i++)
		sigaction(sigwait_sigs[i], &sa, NULL);
	sigwait_nsigs = 0;
	for (i = 0; i < 2; i++) {
		if (sigwait_pipe[i] >= 0 && sigwait_owner == getpid())
			close(sigwait_pipe[i]);
		sigwait_pipe[i] = -1;
	}
}

int
sigwait_fd(int fd, int ms, struct sigwait_got *got)
{
	struct sigwait_rec rec;
	struct pollfd pfd;
	struct deadline dl;
	ssize_t n;
	int r;

	if (ms > 0)
		deadline_set(&dl, (uint64_t)ms);
	else
		deadline_clear(&dl);
	for (;;) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		r = poll(&pfd, 1, ms < 0 ? -1 : ms == 0 ? 0 : deadline_poll_timeout(&dl, 1, -1));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0 && ms > 0 && !deadline_expired(&dl))
				continue;
			return 0;
		}
		if ((n = read(fd, &rec, sizeof(rec))) == (ssize_t)sizeof(rec))
			break;
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return 0;
	}
	got->signo = (int)rec.signo;
	got->pid = (unsigned long)rec.pid;
	return 1;
}
