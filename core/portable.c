/*
 * portable.c: POSIX versions of glibc's conveniences (see portable.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "portable.h"

/* A socket's SIGPIPE off where send(2) has no MSG_NOSIGNAL (portable.h). */
static int
wk_nosigpipe(int fd)
{
#ifdef SO_NOSIGPIPE
	int one = 1;

	return setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#else
	(void)fd;
	return 0;
#endif
}

int
wk_fd_flags(int fd, int nonblock)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFD)) < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0)
		return -1;
	if (nonblock && ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0))
		return -1;
	return 0;
}

/* Close both of fds keeping errno; -1. */
static int
wk_close2(int fds[2])
{
	int saved = errno;

	close(fds[0]);
	close(fds[1]);
	fds[0] = fds[1] = -1;
	errno = saved;
	return -1;
}

int
wk_pipe_cloexec(int fds[2])
{
	if (pipe(fds) != 0)
		return -1;
	if (wk_fd_flags(fds[0], 0) != 0 || wk_fd_flags(fds[1], 0) != 0)
		return wk_close2(fds);
	return 0;
}

int
wk_socket(int domain, int type, int protocol, int nonblock)
{
	int fd, saved;

	if ((fd = socket(domain, type, protocol)) < 0)
		return -1;
	if (wk_fd_flags(fd, nonblock) != 0 || wk_nosigpipe(fd) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int
wk_socketpair(int domain, int type, int protocol, int sv[2])
{
	if (socketpair(domain, type, protocol, sv) != 0)
		return -1;
	if (wk_fd_flags(sv[0], 0) != 0 || wk_fd_flags(sv[1], 0) != 0 ||
	    wk_nosigpipe(sv[0]) != 0 || wk_nosigpipe(sv[1]) != 0)
		return wk_close2(sv);
	return 0;
}

void *
wk_memlast(const void *s, int c, size_t n)
{
	const unsigned char *p = (const unsigned char *)s + n;

	while (n-- > 0)
		if (*--p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

/* Called through a volatile pointer: the compiler cannot prove the stores dead. */
static void *(*const volatile wk_memset_v)(void *, int, size_t) = memset;

void
wk_bzero_secret(void *p, size_t n)
{
	wk_memset_v(p, 0, n);
}

/* execve, and for a file the kernel will not run (no "#!"), sh with it. */
static void
wk_exec_one(const char *path, char *const argv[], char *const envp[])
{
	char *sh[64];
	size_t i;

	execve(path, argv, envp);
	if (errno != ENOEXEC)
		return;
	sh[0] = "sh";
	sh[1] = (char *)path;
	for (i = 1; argv[i] != NULL && i + 2 < sizeof(sh) / sizeof(sh[0]); i++)
		sh[i + 1] = argv[i];
	if (argv[i] != NULL) {
		errno = E2BIG;
		return;
	}
	sh[i + 1] = NULL;
	execve("/bin/sh", sh, envp);
	errno = ENOEXEC;
}

int
wk_exec_path(const char *file, char *const argv[], char *const envp[])
{
	char path[PATH_MAX];
	const char *dirs, *p, *end;
	size_t dlen, flen = strlen(file);
	int seen_eacces = 0;

	if (flen == 0) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/') != NULL) {
		wk_exec_one(file, argv, envp);
		return -1;
	}
	if ((dirs = getenv("PATH")) == NULL)
		dirs = "/usr/bin:/bin";
	for (p = dirs;; p = end + 1) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		dlen = (size_t)(end - p);
		if (dlen + 1 + flen + 1 > sizeof(path)) {
			errno = ENAMETOOLONG;
		} else {
			/* An empty entry is the current directory, as execvp has it. */
			if (dlen == 0)
				path[0] = '.', dlen = 1;
			else
				memcpy(path, p, dlen);
			path[dlen] = '/';
			memcpy(path + dlen + 1, file, flen + 1);
			wk_exec_one(path, argv, envp);
		}
		if (errno == EACCES)
			seen_eacces = 1;
		else if (errno != ENOENT && errno != ENOTDIR && errno != ENAMETOOLONG && errno != ELOOP &&
		    errno != ENODEV && errno != ETIMEDOUT && errno != ESTALE)
			return -1;	/* found, and it cannot run: say why */
		if (*end == '\0')
			break;
	}
	if (seen_eacces)
		errno = EACCES;
	return -1;
}

void
wk_sigpipe_ignore(struct wk_sigpipe *g)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	g->epipe = 0;
	sigaction(SIGPIPE, &sa, &g->old);
}

void
wk_sigpipe_restore(struct wk_sigpipe *g)
{
	sigaction(SIGPIPE, &g->old, NULL);
}
