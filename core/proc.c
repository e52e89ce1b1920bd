/*
 * proc.c: process identity over the system's proc_info (see proc.h).
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "err.h"
#include "monotime.h"
#include "proc.h"
#include "xmalloc.h"

#define PROC_CMDLINE_MAX	(16 * 1024)	/* of a command line, read to match */

int
proc_identify(pid_t pid, struct proc_id *id)
{
	struct proc_info pi;

	memset(id, 0, sizeof(*id));
	id->pid = pid;
	proc_boot_id(id->boot, sizeof(id->boot));
	if (pid <= 0 || proc_info(pid, &pi) != 0)
		return WK_ERR_NOTFOUND;
	id->start = pi.start;
	return 0;
}

int
proc_alive(const struct proc_id *id)
{
	struct proc_info pi;
	char boot[40];

	if (id->pid <= 0)
		return 0;
	proc_boot_id(boot, sizeof(boot));
	if (id->boot[0] != '\0' && strcmp(boot, id->boot) != 0)
		return 0;
	if (proc_info(id->pid, &pi) != 0 || pi.state == 'Z' || pi.state == 'X')
		return 0;
	return id->start == 0 || pi.start == id->start;
}

size_t
proc_wait_gone(const struct proc_id *ids, size_t n, uint64_t ms)
{
	struct deadline dl;
	size_t i, left;

	deadline_set(&dl, ms);
	do {
		for (i = 0, left = 0; i < n; i++)
			left += (size_t)proc_alive(&ids[i]);
		if (left > 0)
			(void)poll(NULL, 0, 5);
	} while (left > 0 && !deadline_expired(&dl));
	return left;
}

int
proc_exited(pid_t pid)
{
	struct proc_info pi;

	return proc_info(pid, &pi) != 0 || pi.state == 'Z' || pi.state == 'X';
}

int
proc_cmdline_pair(pid_t pid, const char *opt, const char *val)
{
	char *buf, *p, *end, *prev = NULL;
	size_t len;
	int found = 0;

	buf = xmalloc(PROC_CMDLINE_MAX + 1);
	len = proc_cmdline(pid, buf, PROC_CMDLINE_MAX);
	buf[len] = '\0';
	end = buf + len;
	for (p = buf; p < end && !found; p += strlen(p) + 1) {
		found = prev != NULL && strcmp(prev, opt) == 0 && strcmp(p, val) == 0;
		prev = p;
	}
	free(buf);
	return found;
}

int
lock_wait(const char *path, int max_ms)
{
	int fd, waited = 0;

	/* Short sections only: a 1 ms step keeps this simple and bounded. */
	while ((fd = lock_try(path)) == WK_ERR_BUSY && waited < max_ms) {
		(void)poll(NULL, 0, 1);
		waited++;
	}
	return fd;
}
