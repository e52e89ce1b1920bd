/*
 * os-darwin.c: os.h and proc.h's per-system part on macOS (the owner's
 * laptop): libproc for a process's state, group and start time, sysctl for
 * its arguments and the boot's identity, _NSGetExecutablePath for our own.
 *
 * Built on a Mac from the SDK's headers.  zig's macOS headers (make
 * check-macos compiles and links this file here) leave out libproc.h and
 * sys/sysctl.h, so without them the few declarations used are repeated
 * below, as Apple's sources have them:
 *   xnu bsd/sys, header proc_info.h (struct proc_bsdinfo, struct proc_fdinfo,
 *     PROC_PIDLISTFDS 1, PROC_PIDTBSDINFO 3), commit 1031c584a5e3;
 *   xnu libsyscall/wrappers/libproc/libproc.h (proc_pidinfo,
 *     proc_listallpids);
 *   xnu bsd/sys/sysctl.h (sysctl, sysctlbyname, CTL_KERN 1, KERN_ARGMAX 8,
 *     KERN_PROCARGS2 49), and SZOMB 5 (a zombie's status) from the process
 *     header beside it, defined here on every build.
 * Never run here: what it was checked against is the compiler, the
 * linker (libSystem.tbd) and these declarations.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mach-o/dyld.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/types.h>
#include <unistd.h>

#if __has_include(<libproc.h>) && __has_include(<sys/sysctl.h>)
#include <libproc.h>
#include <sys/sysctl.h>
#else
struct proc_bsdinfo {
	uint32_t	pbi_flags;
	uint32_t	pbi_status;
	uint32_t	pbi_xstatus;
	uint32_t	pbi_pid;
	uint32_t	pbi_ppid;
	uid_t		pbi_uid;
	gid_t		pbi_gid;
	uid_t		pbi_ruid;
	gid_t		pbi_rgid;
	uid_t		pbi_svuid;
	gid_t		pbi_svgid;
	uint32_t	rfu_1;
	char		pbi_comm[MAXCOMLEN];
	char		pbi_name[2 * MAXCOMLEN];
	uint32_t	pbi_nfiles;
	uint32_t	pbi_pgid;
	uint32_t	pbi_pjobc;
	uint32_t	e_tdev;
	uint32_t	e_tpgid;
	int32_t		pbi_nice;
	uint64_t	pbi_start_tvsec;
	uint64_t	pbi_start_tvusec;
};
struct proc_fdinfo {
	int32_t		proc_fd;
	uint32_t	proc_fdtype;
};
#define PROC_PIDLISTFDS		1
#define PROC_PIDTBSDINFO	3
#define CTL_KERN		1
#define KERN_ARGMAX		8
#define KERN_PROCARGS2		49
int proc_pidinfo(int pid, int flavor, uint64_t arg, void *buffer, int buffersize);
int proc_listallpids(void *buffer, int buffersize);
int sysctl(int *name, u_int namelen, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
#endif

#ifndef SZOMB
#define SZOMB			5	/* a zombie's pbi_status */
#endif

#include "err.h"
#include "os.h"
#include "proc.h"
#include "xmalloc.h"

const char os_state_home[] = "Library/Application Support";

/* macOS's own libcurl (in the shared cache), then Homebrew's (Apple silicon, Intel). */
const char *const os_curl_libs[] = {
	"/usr/lib/libcurl.4.dylib", "libcurl.4.dylib",
	"/opt/homebrew/opt/curl/lib/libcurl.4.dylib", "/usr/local/opt/curl/lib/libcurl.4.dylib", NULL
};
const char os_curl_missing[] = "libcurl (/usr/lib/libcurl.4.dylib) cannot be loaded on this Mac";

int
os_datasync(int fd)
{
	/* fsync leaves the data in the drive's cache; F_FULLFSYNC puts it on the disk. */
	if (fcntl(fd, F_FULLFSYNC) == 0)
		return 0;
	return fsync(fd);
}

char *
os_self_exe(void)
{
	char buf[PATH_MAX], real[PATH_MAX];
	uint32_t size = sizeof(buf);

	if (_NSGetExecutablePath(buf, &size) != 0)
		return NULL;
	/* It may name a symlink or hold "..": the file itself, as Linux gives it. */
	if (realpath(buf, real) == NULL)
		return NULL;
	return xstrdup(real);
}

void
proc_boot_id(char *out, size_t len)
{
	char uuid[64];
	size_t n = sizeof(uuid);

	out[0] = '\0';
	if (sysctlbyname("kern.bootsessionuuid", uuid, &n, NULL, 0) != 0 || n == 0)
		return;
	uuid[n < sizeof(uuid) ? n : sizeof(uuid) - 1] = '\0';
	snprintf(out, len, "%s", uuid);
}

int
proc_info(pid_t pid, struct proc_info *pi)
{
	struct proc_bsdinfo bi;
	pid_t sid;

	memset(pi, 0, sizeof(*pi));
	if (pid <= 0 ||
	    proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, (int)sizeof(bi)) != (int)sizeof(bi))
		return WK_ERR_NOTFOUND;
	pi->state = bi.pbi_status == SZOMB ? 'Z' : 'S';
	pi->pgrp = (pid_t)bi.pbi_pgid;
	pi->sid = (sid = getsid(pid)) < 0 ? 0 : sid;
	/* Microseconds since the epoch: only ever compared with itself. */
	pi->start = bi.pbi_start_tvsec * 1000000u + bi.pbi_start_tvusec;
	return 0;
}

pid_t *
proc_list(size_t *n)
{
	pid_t *pids = NULL;
	int want, got, cap;

	*n = 0;
	/* The count grows between the two calls: room for more, and retry when full. */
	for (cap = 1024; cap <= 1 << 20; cap *= 4) {
		free(pids);
		pids = xcalloc((size_t)cap, sizeof(*pids));
		want = cap * (int)sizeof(*pids);
		if ((got = proc_listallpids(pids, want)) < 0) {
			free(pids);
			return NULL;
		}
		if (got < cap) {
			*n = (size_t)got;
			return pids;
		}
	}
	*n = (size_t)(cap / 4);
	return pids;
}

/*
 * KERN_PROCARGS2: argc (an int), the executable's path, NULs up to the
 * arguments, then argc NUL-terminated arguments (and the environment).
 */
size_t
proc_cmdline(pid_t pid, char *buf, size_t cap)
{
	int mib[3] = { CTL_KERN, KERN_ARGMAX, 0 }, argmax, argc;
	size_t size = sizeof(argmax), len = 0;
	char *raw, *p, *end;

	if (sysctl(mib, 2, &argmax, &size, NULL, 0) != 0 || argmax <= 0)
		return 0;
	raw = xmalloc((size_t)argmax);
	mib[1] = KERN_PROCARGS2;
	mib[2] = (int)pid;
	size = (size_t)argmax;
	if (sysctl(mib, 3, raw, &size, NULL, 0) != 0 || size < sizeof(argc)) {
		free(raw);
		return 0;
	}
	memcpy(&argc, raw, sizeof(argc));
	end = raw + size;
	p = raw + sizeof(argc);
	p += strnlen(p, (size_t)(end - p));	/* the executable's path */
	while (p < end && *p == '\0')
		p++;
	for (; argc > 0 && p < end && len < cap; argc--) {
		size_t a = strnlen(p, (size_t)(end - p)) + 1;

		if (a > cap - len)
			a = cap - len;
		memcpy(buf + len, p, a);
		len += a;
		p += a;
	}
	free(raw);
	return len;
}

/* ---- in a child after fork ---- */

void
os_each_fd(void (*fn)(int fd, const void *arg), const void *arg)
{
	struct proc_fdinfo fds[512];
	int n, i, fd, max;

	n = proc_pidinfo(getpid(), PROC_PIDLISTFDS, 0, fds, (int)sizeof(fds));
	if (n > 0 && (size_t)n < sizeof(fds)) {
		for (i = 0; i < n / (int)sizeof(fds[0]); i++)
			if (fds[i].proc_fd > 2)
				fn(fds[i].proc_fd, arg);
		return;
	}
	/* More than the stack buffer holds (or no answer): every possible number. */
	max = (int)sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = 3; fd < max; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			fn(fd, arg);
}

/* No way to mark them all at once on macOS: the caller walks os_each_fd. */
int
os_cloexec_fast(void)
{
	return -1;
}
