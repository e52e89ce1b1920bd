/*
 * sigwait.c: read one signal from a waiter's signalfd, bounded (see sigwait.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "monotime.h"
#include "sigwait.h"

int
sigwait_fd(int fd, int ms, struct sigwait_got *got)
{
	struct signalfd_siginfo si;
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
		if ((n = read(fd, &si, sizeof(si))) == (ssize_t)sizeof(si))
			break;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return 0;
	}
	got->signo = (int)si.ssi_signo;
	got->pid = (unsigned long)si.ssi_pid;
	return 1;
}
