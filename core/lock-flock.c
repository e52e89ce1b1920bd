/*
 * lock-flock.c: proc.h's locks where there are no OFD locks (macOS): flock.
 *
 * Held by the open file description like lock-linux.c's.  flock cannot ask
 * without taking: lock_is_held takes the lock for an instant, so a locker
 * trying at that very instant is told busy.  Only onbox asks, on the Linux
 * box (lock-linux.c); the owner's side only takes and waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "err.h"
#include "proc.h"

int
lock_try(const char *path)
{
	int fd, saved;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return WK_ERR_SYSTEM;
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EINTR)
			continue;
		saved = errno;
		close(fd);
		errno = saved;
		return saved == EWOULDBLOCK || saved == EAGAIN ? WK_ERR_BUSY : WK_ERR_SYSTEM;
	}
	return fd;
}

int
lock_is_held(const char *path)
{
	int fd, r;

	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : WK_ERR_SYSTEM;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		r = 0;		/* closing the descriptor lets it go */
	else
		r = errno == EWOULDBLOCK || errno == EAGAIN ? 1 : WK_ERR_SYSTEM;
	close(fd);
	return r;
}
