/*
 * log.c: stderr diagnostics (see log.h).  One fprintf per message so lines
 * from several processes sharing a terminal or log file do not interleave.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "log.h"

static const char *log_progname = "watchkeeper";
static int log_verbosity;
static int log_tee_fd = -1;

int
log_tee_open(const char *path)
{
	log_tee_close();
	log_tee_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	return log_tee_fd < 0 ? WK_ERR_SYSTEM : 0;
}

void
log_tee_close(void)
{
	if (log_tee_fd >= 0)
		close(log_tee_fd);
	log_tee_fd = -1;
}

int
log_tee_fd_get(void)
{
	return log_tee_fd;
}

void
log_tee_line(const char *line)
{
	char stamp[32], out[4200];
	time_t now = time(NULL);
	struct tm tm;
	int n;
	ssize_t w;

	if (log_tee_fd < 0)
		return;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(out, sizeof(out), "%s [%ld] %s\n", stamp, (long)getpid(), line);
	if (n > (int)sizeof(out) - 1)
		n = (int)sizeof(out) - 1;
	/* One write per line: O_APPEND keeps lines from several processes whole. */
	w = write(log_tee_fd, out, (size_t)n);
	(void)w;
}

void
log_init(const char *prog, int verbosity)
{
	log_progname = prog;
	log_verbosity = verbosity;
}

const char *
log_prog(void)
{
	return log_progname;
}

static void
log_vemit(enum log_level lvl, const char *func, const char *fmt, va_list ap)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_tee_fd >= 0) {
		char line[4200];

		snprintf(line, sizeof(line), "%s%s", prefix[lvl], msg);
		log_tee_line(line);
	}
	if (lvl == LOG_LVL_DEBUG || log_verbosity >= 2)
		fprintf(stderr, "%s: %s%s: %s\n", log_progname, prefix[lvl], func, msg);
	else
		fprintf(stderr, "%s: %s%s\n", log_progname, prefix[lvl], msg);
}

void
wk_log(enum log_level lvl, const char *func, const char *fmt, ...)
{
	va_list ap;

	if (lvl == LOG_LVL_DEBUG && log_verbosity < 1)
		return;
	va_start(ap, fmt);
	log_vemit(lvl, func, fmt, ap);
	va_end(ap);
}

void
wk_fatal(const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vemit(LOG_LVL_ERROR, func, fmt, ap);
	va_end(ap);
	exit(70);	/* EX_SOFTWARE */
}
