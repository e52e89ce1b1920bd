/*
 * lock-linux.c: proc.h's locks on Linux, open-file-description locks.
 *
 * F_OFD_SETLK rather than flock(): they behave the same (held by the open
 * file description, inherited across fork, released when its last
 * descriptor closes) and F_OFD_GETLK asks whether a lock is held without
 * taking it, so a status probe can never make a real locker fail (onbox's
 * status and stop ask while a run holds its lock).  Other systems use
 * lock-flock.c; test_core runs both here.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "proc.h"

static void
lock_whole(struct flock *fl, short type)
{
	memset(fl, 0, sizeof(*fl));
	fl->l_type = type;
	fl->l_whence = SEEK_SET;
}

int
lock_try(const char *path)
{
	struct flock fl;
	int fd, saved;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return WK_ERR_SYSTEM;
	lock_whole(&fl, F_WRLCK);
	if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return saved == EAGAIN || saved == EACCES ? WK_ERR_BUSY : WK_ERR_SYSTEM;
	}
	return fd;
}

int
lock_is_held(const char *path)
{
	struct flock fl;
	int fd, r;

	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : WK_ERR_SYSTEM;
	lock_whole(&fl, F_WRLCK);
	if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
		r = WK_ERR_SYSTEM;
	else
		r = fl.l_type != F_UNLCK;
	close(fd);
	return r;
}
