/*
 * childio.c: talking to a child through pipes (see childio.h).
 *
 * Shared by the two places that feed a child a body on stdin and read its
 * answer: the curl command (curlcmd.c) and the command sink (notify-cmd.c).
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "childio.h"

void
childio_feed(int *fd, const char *p, size_t len, size_t *off, struct wk_sigpipe *g)
{
	ssize_t n;

	if (*fd < 0)
		return;
	if (*off < len) {
		n = write(*fd, p + *off, len - *off);
		if (n > 0)
			*off += (size_t)n;
		else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			/* EPIPE: the child stopped reading; its exit status decides. */
			g->epipe |= errno == EPIPE;
			close(*fd);
			*fd = -1;
			return;
		}
	}
	if (*off == len) {
		/* all written: the child sees EOF */
		close(*fd);
		*fd = -1;
	}
}

void
childio_poll_add(struct pollfd *pf, nfds_t *np, int fd, short events)
{
	if (fd >= 0)
		pf[(*np)++] = (struct pollfd){ .fd = fd, .events = events };
}

ssize_t
childio_read(int *fd, char *chunk, size_t size)
{
	ssize_t n;

	while (*fd >= 0) {
		n = read(*fd, chunk, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;	/* EAGAIN: later */
		if (n == 0) {
			close(*fd);
			*fd = -1;
			return 0;
		}
		return n;
	}
	return 0;
}

void
childio_keep(struct buf *b, const char *p, size_t n, size_t cap)
{
	if (b->len < cap)
		buf_append(b, p, n > cap - b->len ? cap - b->len : n);
}

void
childio_close(int p[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		if (p[i] >= 0)
			close(p[i]);
		p[i] = -1;
	}
}
