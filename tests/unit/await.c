/*
 * await: wait, without polling, until a file exists (an e2e test helper).
 *
 *   await SECONDS PATH...  exit 0 once one of the PATHs exists (stat(2)
 *                          follows a symlink, as `test -e` does), 1 when
 *                          SECONDS (a decimal, e.g. 30 or 0.5) pass first,
 *                          64 on bad usage (at most 16 PATHs)
 *
 * The stage scripts of the e2e tests block until the test creates a "go"
 * file.  A shell loop of `sleep 0.1` forks ten times a second for every
 * waiting stage, and on the 2-core CI machines one fork and exec costs some
 * 10 ms of CPU: with a dozen stages waiting side by side that is most of a
 * core.  Here inotify on each PATH's directory wakes the wait at a create, a
 * rename into it or an attribute change; the watches are set before each
 * check, so a file created between the two is never missed.  While a
 * directory does not exist (yet) it is looked for again every 100 ms, in
 * this process.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { AWAIT_OK = 0, AWAIT_TIMEOUT = 1, AWAIT_USAGE = 64, AWAIT_MAX = 16 };

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* PATH's directory into dir (PATH_MAX bytes). */
static void
dir_of(const char *path, char *dir)
{
	char *slash;

	strcpy(dir, path);
	if ((slash = strrchr(dir, '/')) == NULL)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
}

int
main(int argc, char **argv)
{
	static char dirs[AWAIT_MAX][PATH_MAX];
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	char *end = NULL;
	double secs = -1, deadline, left;
	int fd, wd[AWAIT_MAX], n = argc - 2, i, unwatched, rc = AWAIT_TIMEOUT;
	struct stat st;
	struct pollfd pfd;
	struct inotify_event ev;
	ssize_t got, off;

	if (argc >= 3)
		secs = strtod(argv[1], &end);
	if (argc < 3 || n > AWAIT_MAX || end == argv[1] || *end != '\0' || !(secs >= 0 && secs <= 86400)) {
		fprintf(stderr, "usage: await SECONDS PATH... (0 <= SECONDS <= 86400, at most %d PATHs)\n",
		    AWAIT_MAX);
		return AWAIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		if (argv[i + 2][0] == '\0' || strlen(argv[i + 2]) >= PATH_MAX) {
			fprintf(stderr, "await: an empty or too long PATH\n");
			return AWAIT_USAGE;
		}
		dir_of(argv[i + 2], dirs[i]);
		wd[i] = -1;
	}
	if ((fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0) {
		fprintf(stderr, "await: inotify_init1: %s\n", strerror(errno));
		return AWAIT_USAGE;
	}
	deadline = now() + secs;
	for (;;) {
		unwatched = 0;
		for (i = 0; i < n; i++) {
			if (wd[i] < 0)
				wd[i] = inotify_add_watch(fd, dirs[i],
				    IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_ONLYDIR);
			unwatched |= wd[i] < 0;
		}
		for (i = 0; i < n && rc != AWAIT_OK; i++)
			if (stat(argv[i + 2], &st) == 0)
				rc = AWAIT_OK;
		if (rc == AWAIT_OK || (left = deadline - now()) <= 0)
			break;
		/* A directory with no watch (none there yet): look again in 100 ms. */
		if (unwatched && left > 0.1)
			left = 0.1;
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		while ((got = read(fd, buf, sizeof(buf))) > 0)
			for (off = 0; off + (ssize_t)sizeof(ev) <= got; off += (ssize_t)sizeof(ev) + ev.len) {
				memcpy(&ev, buf + off, sizeof(ev));
				if (ev.mask & IN_IGNORED)	/* a directory went away: watch anew */
					for (i = 0; i < n; i++)
						if (wd[i] == ev.wd)
							wd[i] = -1;
			}
	}
	close(fd);
	return rc;
}
