/*
 * atomic.c: crash-safe file replacement and appends (see atomic.h).
 *
 * OpenSSH's hostfile.c renames without fsync and monit rewrites its state in
 * place; either can leave a torn or empty file after a power loss.  Here the
 * data is fsynced before the rename and the directory after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "err.h"
#include "os.h"
#include "xmalloc.h"

int
write_full(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return WK_ERR_SYSTEM;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
fsync_parent(const char *path)
{
	char *copy = xstrdup(path);
	int fd, r = 0, saved;

	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0)
		r = WK_ERR_SYSTEM;
	saved = errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	errno = saved;
	return r;
}

int
atomic_write(const char *path, const void *data, size_t len, mode_t mode)
{
	char *tmp = NULL;
	int fd = -1, r = WK_ERR_SYSTEM, saved;
	unsigned attempt;

	/* O_EXCL on a name unique to this pid; retry if a stale one is in the way. */
	for (attempt = 0; attempt < 100; attempt++) {
		free(tmp);
		tmp = xstrfmt("%s.tmp.%ld.%u", path, (long)getpid(), attempt);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		goto out;
	if (write_full(fd, data, len) != 0 || fsync(fd) != 0)
		goto out;
	if (close(fd) != 0) {
		fd = -1;
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto out;
	free(tmp);
	tmp = NULL;	/* renamed: nothing to clean up */
	r = fsync_parent(path);
 out:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (tmp != NULL) {
		unlink(tmp);
		free(tmp);
	}
	errno = saved;
	return r;
}

int
atomic_write_str(const char *path, const char *s)
{
	return atomic_write(path, s, strlen(s), 0644);
}

int
append_record(const char *path, const void *data, size_t len)
{
	int fd, r = 0, saved;

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return WK_ERR_SYSTEM;
	if (write_full(fd, data, len) != 0 || os_datasync(fd) != 0)
		r = WK_ERR_SYSTEM;
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}
