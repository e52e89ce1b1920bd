/*
 * os-linux.c: os.h and proc.h's per-system part on Linux, from /proc.
 *
 * The box side's Linux-only helpers (proc_group_alive, proc_has_open,
 * proc_pidfd: onbox alone calls them) are here too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "os.h"
#include "proc.h"
#include "xmalloc.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

const char os_state_home[] = ".local/state";
const char *const os_curl_libs[] = { "libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", NULL };
const char os_curl_missing[] = "libcurl (libcurl.so.4) is not installed on this machine";

int
os_datasync(int fd)
{
	return fdatasync(fd);
}

char *
os_self_exe(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	return xstrdup(path);
}

void
proc_boot_id(char *out, size_t len)
{
	char s[128];
	ssize_t n;
	int fd;

	out[0] = '\0';
	if ((fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	if (n <= 0)
		return;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	s[n] = '\0';
	snprintf(out, len, "%s", s);
}

/*
 * /proc/PID/stat: "pid (comm) S ppid pgrp session ... starttime(22) ...".
 * comm may hold anything, ')' too: the fields start after the last ')'.
 */
int
proc_info(pid_t pid, struct proc_info *pi)
{
	char path[64], buf[1024], *p;
	unsigned long long v;
	ssize_t n;
	int fd, field;

	memset(pi, 0, sizeof(*pi));
	if (pid <= 0)
		return WK_ERR_NOTFOUND;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return WK_ERR_NOTFOUND;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return WK_ERR_NOTFOUND;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == '\0')
		return WK_ERR_PARSE;
	pi->state = p[2];
	p += 3;
	for (field = 4; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9') {
			if (*p != '-')
				return WK_ERR_PARSE;
		}
		v = strtoull(p, &p, 10);
		if (field == 5)
			pi->pgrp = (pid_t)v;
		else if (field == 6)
			pi->sid = (pid_t)v;
		else if (field == 22)
			pi->start = v;
	}
	return 0;
}

pid_t *
proc_list(size_t *n)
{
	DIR *d;
	struct dirent *de;
	pid_t *pids = NULL, pid;
	size_t cap = 0;
	char *end;

	*n = 0;
	if ((d = opendir("/proc")) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		pid = (pid_t)strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end != '\0')
			continue;
		if (*n == cap) {
			cap = cap == 0 ? 256 : cap * 2;
			pids = xreallocarray(pids, cap, sizeof(*pids));
		}
		pids[(*n)++] = pid;
	}
	closedir(d);
	if (pids == NULL)
		pids = xcalloc(1, sizeof(*pids));
	return pids;
}

size_t
proc_cmdline(pid_t pid, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	size_t len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	close(fd);
	return len;
}

/* ---- in a child after fork ---- */

struct linux_dirent64 {
	unsigned long long d_ino;
	long long	d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

/*
 * Every descriptor above 2 listed in /proc/self/fd (not the listing's own),
 * read with getdents64 on a stack buffer: no malloc after fork.
 */
void
os_each_fd(void (*fn)(int fd, const void *arg), const void *arg)
{
	char dents[1024];
	long n, pos;
	int dfd, fd;

	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	while ((n = syscall(SYS_getdents64, dfd, dents, sizeof(dents))) > 0) {
		for (pos = 0; pos < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(dents + pos);

			pos += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			fd = atoi(d->d_name);
			if (fd > 2 && fd != dfd)
				fn(fd, arg);
		}
	}
	close(dfd);
}

/* close_range(CLOSE_RANGE_CLOEXEC) where the kernel has it (5.11+); rented boxes run older ones. */
int
os_cloexec_fast(void)
{
	return syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0 ? 0 : -1;
}

/* ---- the box's (onbox) ---- */

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
