/*
 * childio.h: talking to a child through pipes, for the notify side.
 *
 * curlcmd.c (the curl command) and notify-cmd.c (a command sink) both write
 * a body into a child's stdin and read what it prints, with non-blocking
 * pipes inside their own poll loop.  What they share is here, once: keeping
 * a child that stops reading from killing us with SIGPIPE (wk_sigpipe_ignore), one write step,
 * one read step, a capped append and closing a pipe's ends.  Spawning is
 * spawn.c's; the loops, deadlines and verdicts stay with the callers.
 */
#ifndef WK_CHILDIO_H
#define WK_CHILDIO_H

#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "portable.h"

/*
 * Write what the non-blocking *fd takes of p[*off..len), advancing *off.
 * When all is written, and on an error other than EAGAIN/EINTR, *fd is
 * closed and set to -1 (EPIPE, the child stopped reading, is noted in g: its
 * exit status decides).  Nothing is written when *fd is -1.
 */
void childio_feed(int *fd, const char *p, size_t len, size_t *off, struct wk_sigpipe *g);

/* Add fd to pf[*np] for events when it is open (>= 0). */
void childio_poll_add(struct pollfd *pf, nfds_t *np, int fd, short events);

/*
 * Read what the non-blocking *fd has, at most size bytes into chunk.  The
 * count, or 0 when there is nothing now (EAGAIN, an error) or at EOF, where
 * *fd is closed and set to -1.  Nothing is read when *fd is -1.
 */
ssize_t childio_read(int *fd, char *chunk, size_t size);

/* Append p[0..n) to b, but never past cap bytes in all. */
void childio_keep(struct buf *b, const char *p, size_t n, size_t cap);

/* Close both ends of a pipe that are open; each becomes -1. */
void childio_close(int p[2]);

#endif
