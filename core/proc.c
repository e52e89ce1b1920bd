/*
 * proc.c: process identity and lock probes (see proc.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "fsutil.h"
#include "proc.h"
#include "xmalloc.h"

#define PROC_CMDLINE_MAX	(16 * 1024)	/* of /proc/<pid>/cmdline, read to match */

void
proc_boot_id(char *out, size_t len)
{
	char *s = NULL;
	size_t n;

	out[0] = '\0';
	if (fs_read_file("/proc/sys/kernel/random/boot_id", 128, &s, &n) != 0)
		return;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	snprintf(out, len, "%s", s);
	free(s);
}

/* Fields after the ")" that ends comm: state is field 3, starttime field 22. */
static int
proc_stat(pid_t pid, char *state, uint64_t *start)
{
	char path[64], *s = NULL, *p;
	unsigned long long st;
	int field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (fs_read_file(path, 4096, &s, NULL) != 0)
		return WK_ERR_NOTFOUND;
	if ((p = strrchr(s, ')')) == NULL || p[1] != ' ') {
		free(s);
		return WK_ERR_PARSE;
	}
	p += 2;
	*state = *p;
	for (field = 3; field < 22 && p != NULL; field++)
		if ((p = strchr(p, ' ')) != NULL)
			p++;
	if (p == NULL || sscanf(p, "%llu", &st) != 1) {
		free(s);
		return WK_ERR_PARSE;
	}
	*start = st;
	free(s);
	return 0;
}

int
proc_identify(pid_t pid, struct proc_id *id)
{
	char state;

	memset(id, 0, sizeof(*id));
	id->pid = pid;
	proc_boot_id(id->boot, sizeof(id->boot));
	if (pid <= 0 || proc_stat(pid, &state, &id->start) != 0)
		return WK_ERR_NOTFOUND;
	return 0;
}

int
proc_alive(const struct proc_id *id)
{
	char boot[40], state;
	uint64_t start;

	if (id->pid <= 0)
		return 0;
	proc_boot_id(boot, sizeof(boot));
	if (id->boot[0] != '\0' && strcmp(boot, id->boot) != 0)
		return 0;
	if (proc_stat(id->pid, &state, &start) != 0)
		return 0;
	if (state == 'Z' || state == 'X')
		return 0;
	return id->start == 0 || start == id->start;
}

/*
 * Open-file-description locks (F_OFD_SETLK) rather than flock(): they behave
 * the same (held by the open file description, inherited across fork,
 * released when its last descriptor closes) and F_OFD_GETLK can ask whether
 * a lock is held without taking it, so a status probe can never make a real
 * locker fail.
 */
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
lock_wait(const char *path, int max_ms)
{
	int fd, waited = 0;

	/* Short sections only: a 1 ms step keeps this simple and bounded. */
	while ((fd = lock_try(path)) == WK_ERR_BUSY && waited < max_ms) {
		usleep(1000);
		waited++;
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

int
proc_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return WK_ERR_SYSTEM;
#endif
}

int
proc_group_alive(pid_t pgid)
{
	DIR *d;
	struct dirent *de;
	char path[300], buf[512], *rp;
	ssize_t n;
	long grp;
	int fd, alive = 0;

	if (pgid <= 1)
		return 0;
	if ((d = opendir("/proc")) == NULL)
		return kill(-pgid, 0) == 0 || errno == EPERM;
	while (!alive && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses */
		if ((rp = strrchr(buf, ')')) == NULL || rp[1] != ' ' || rp[2] == '\0')
			continue;
		if (rp[2] == 'Z' || rp[2] == 'X')
			continue;
		if (sscanf(rp + 3, "%*d %ld", &grp) == 1 && grp == (long)pgid)
			alive = 1;
	}
	closedir(d);
	return alive;
}

int
proc_has_open(pid_t pid, const char *path)
{
	struct stat want, got;
	DIR *d;
	struct dirent *de;
	char dir[64], fp[400];
	int found = 0;

	if (pid <= 0 || stat(path, &want) != 0)
		return 0;
	snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(fp, sizeof(fp), "%s/%s", dir, de->d_name);
		if (stat(fp, &got) == 0 && got.st_dev == want.st_dev && got.st_ino == want.st_ino)
			found = 1;
	}
	closedir(d);
	return found;
}

int
proc_cmdline_pair(pid_t pid, const char *opt, const char *val)
{
	char path[64], *buf, *p, *end, *prev = NULL;
	ssize_t n;
	size_t len = 0;
	int fd, found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	buf = xmalloc(PROC_CMDLINE_MAX + 1);
	while (len < PROC_CMDLINE_MAX && (n = read(fd, buf + len, PROC_CMDLINE_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	end = buf + len;
	for (p = buf; p < end && !found; p += strlen(p) + 1) {
		found = prev != NULL && strcmp(prev, opt) == 0 && strcmp(p, val) == 0;
		prev = p;
	}
	free(buf);
	return found;
}
