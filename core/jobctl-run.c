/*
 * jobctl-run.c: the one runner of a job CLI's commands (see jobctl.h,
 * jobctl-int.h).
 *
 * jobctl_run() starts a command with spawn_sh() in its own process group,
 * keeps stdout's head (or tail) and stderr's tail through non-blocking pipes,
 * and bounds it by a deadline on the monotonic clock; the exit is noticed
 * by proc_exited (a zombie, not reaped) so that the group id stays reserved until the group
 * has been killed (SIGTERM, a grace, SIGKILL: the same shape as sshcli.c).
 * Its why names the command's config key and quotes the CLI's last line.
 * jobctl_exec() is the same runner for a caller's own command.  The tables
 * and the operations built on this are jobctl.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "jobctl.h"
#include "jobctl-int.h"
#include "monotime.h"
#include "portable.h"
#include "proc.h"
#include "spawn.h"
#include "xmalloc.h"

#define JOBCTL_POLL_MS	100	/* pipes open: also look for an exit this often */
#define JOBCTL_REAP_MS	10	/* pipes closed: waiting for the exit itself */
#define JOBCTL_CHUNK	16384
#define JOBCTL_DRAIN_READS 64	/* per drain: 1 MiB, more than a pipe holds */
#define JOBCTL_WHY_MAX	240	/* bytes of a CLI's own words quoted in a why */

/* A bounded, printable copy of s[0..n) for a why: control characters become '?'. */
char *
jobctl_quote_text(const char *s, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n && i < JOBCTL_WHY_MAX; i++)
		buf_putc(&b, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i]);
	if (n > JOBCTL_WHY_MAX)
		buf_puts(&b, "...");
	return buf_detach(&b);
}

/* The last non-blank line of b, quoted for a why; NULL when there is none. */
char *
jobctl_last_line(const struct buf *b)
{
	const char *s = b->data, *end, *start;

	if (s == NULL || b->len == 0)
		return NULL;
	end = s + b->len;
	while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' ||
	    end[-1] == '\t'))
		end--;
	if (end == s)
		return NULL;
	for (start = end; start > s && start[-1] != '\n'; start--)
		;
	while (start < end && (*start == ' ' || *start == '\t'))
		start++;
	return jobctl_quote_text(start, (size_t)(end - start));
}

/* "60 s" or "250 ms". */
static void
jobctl_fmt_ms(long ms, char *out, size_t len)
{
	if (ms % 1000 == 0)
		snprintf(out, len, "%ld s", ms / 1000);
	else
		snprintf(out, len, "%ld ms", ms);
}

/*
 * Keep what fd has into b: its head up to cap (keep_tail 0) or its last cap
 * bytes.  At most JOBCTL_DRAIN_READS reads, so a writer faster than us cannot
 * keep us from the deadline.  1 at EOF (or an error), else 0.
 */
static int
jobctl_drain(int fd, struct buf *b, size_t cap, int keep_tail, int *truncated, char *chunk)
{
	ssize_t n;
	int i;

	for (i = 0; i < JOBCTL_DRAIN_READS; i++) {
		if ((n = fs_read_nb(fd, chunk, JOBCTL_CHUNK)) <= 0)
			return n < 0;
		if (keep_tail) {
			buf_append(b, chunk, (size_t)n);
			/* Trim to cap only past 2 * cap, so the cost stays linear. */
			if (b->len > 2 * cap) {
				buf_consume(b, b->len - cap);
				*truncated = 1;
			}
			continue;
		}
		if (buf_append_max(b, chunk, (size_t)n, cap))
			*truncated = 1;
	}
	return 0;
}

static void
jobctl_closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* End pid's process group: SIGTERM, a grace, SIGKILL.  1 when pid itself needed SIGKILL. */
static int
jobctl_kill(pid_t pid)
{
	struct deadline grace;
	int hard;

	(void)kill(-pid, SIGTERM);
	deadline_set(&grace, JOBCTL_KILL_GRACE_MS);
	/* proc_exited: pid stays unreaped meanwhile, so the group's id stays its own. */
	while (!proc_exited(pid) && !deadline_expired(&grace))
		(void)poll(NULL, 0, JOBCTL_REAP_MS);
	hard = !proc_exited(pid);
	/* Also whatever it started in its group that outlived the SIGTERM. */
	(void)kill(-pid, SIGKILL);
	return hard;
}

/*
 * Run cmd (the command of key) under jc's deadline, keeping stdout per cap
 * and keep_tail and stderr's tail in r.  0 when it exited 0; otherwise a
 * negative code and *why: WK_ERR_EXEC (could not start, or exited non-zero,
 * or was killed), WK_ERR_TIMEOUT, WK_ERR_SYSTEM.
 */
int
jobctl_run(const struct jobctl *jc, const char *key, const char *cmd, size_t cap, int keep_tail,
    struct jobctl_res *r, char **why)
{
	struct spawn_opts o;
	struct deadline dl;
	struct pollfd pfd[2];
	char *chunk = NULL, *line = NULL, tbuf[32];
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, status = 0, ex = 0, hard = 0;
	int timed_out = 0, err_trunc = 0, ret, saved;
	long timeout_ms = jc->timeout_ms > 0 ? jc->timeout_ms : JOBCTL_TIMEOUT_MS;
	nfds_t n;
	pid_t pid;

	if (wk_pipe_cloexec(outp) != 0 || wk_pipe_cloexec(errp) != 0) {
		*why = xstrfmt("%s: cannot make a pipe: %s", key, wk_strerror(WK_ERR_SYSTEM));
		ret = WK_ERR_SYSTEM;
		goto out;
	}
	spawn_opts_init(&o);
	o.fd_out = outp[1];
	o.fd_err = errp[1];
	o.new_pgrp = 1;		/* so a timeout ends the CLI and everything it started */
	pid = spawn_sh(cmd, &o);
	saved = errno;
	jobctl_closefd(&outp[1]);
	jobctl_closefd(&errp[1]);
	if (pid < 0) {
		*why = xstrfmt("%s: cannot start /bin/sh: %s", key, strerror(saved));
		ret = WK_ERR_EXEC;
		goto out;
	}
	(void)fcntl(outp[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(errp[0], F_SETFL, O_NONBLOCK);
	chunk = xmalloc(JOBCTL_CHUNK);
	deadline_set(&dl, (uint64_t)timeout_ms);
	for (;;) {
		if ((ex = proc_exited(pid)) != 0)
			break;
		if (deadline_expired(&dl)) {
			timed_out = 1;
			break;
		}
		n = 0;
		if (outp[0] >= 0)
			pfd[n++] = (struct pollfd){ .fd = outp[0], .events = POLLIN };
		if (errp[0] >= 0)
			pfd[n++] = (struct pollfd){ .fd = errp[0], .events = POLLIN };
		(void)poll(pfd, n, deadline_poll_timeout(&dl, 1,
		    n > 0 ? JOBCTL_POLL_MS : JOBCTL_REAP_MS));
		if (outp[0] >= 0 && jobctl_drain(outp[0], &r->out, cap, keep_tail,
		    &r->out_truncated, chunk))
			jobctl_closefd(&outp[0]);
		if (errp[0] >= 0 && jobctl_drain(errp[0], &r->err, JOBCTL_ERR_KEEP, 1,
		    &err_trunc, chunk))
			jobctl_closefd(&errp[0]);
	}
	if (timed_out)
		hard = jobctl_kill(pid);
	if (spawn_wait(pid, &status) != 0)
		ex = -1;	/* reaped by someone else: no status */
	/*
	 * What the exited processes wrote (it is in the pipes); a leftover in
	 * the background that still holds them is not waited for.
	 */
	if (outp[0] >= 0)
		(void)jobctl_drain(outp[0], &r->out, cap, keep_tail, &r->out_truncated, chunk);
	if (errp[0] >= 0)
		(void)jobctl_drain(errp[0], &r->err, JOBCTL_ERR_KEEP, 1, &err_trunc, chunk);
	if (keep_tail && r->out.len > cap) {
		buf_consume(&r->out, r->out.len - cap);
		r->out_truncated = 1;
	}
	if (r->err.len > JOBCTL_ERR_KEEP)
		buf_consume(&r->err, r->err.len - JOBCTL_ERR_KEEP);

	line = jobctl_last_line(&r->err);
	if (timed_out) {
		jobctl_fmt_ms(timeout_ms, tbuf, sizeof(tbuf));
		*why = xstrfmt("%s did not finish within %s: its process group was killed%s%s%s",
		    key, tbuf, hard ? " (it ignored SIGTERM)" : "", line != NULL ? "; it said: " : "",
		    line != NULL ? line : "");
		ret = WK_ERR_TIMEOUT;
	} else if (ex < 0) {
		*why = xstrfmt("%s: its exit status was taken by another waiter", key);
		ret = WK_ERR_SYSTEM;
	} else if (WIFSIGNALED(status)) {
		*why = xstrfmt("%s was killed by signal %d%s%s", key, WTERMSIG(status),
		    line != NULL ? ": " : "", line != NULL ? line : "");
		ret = WK_ERR_EXEC;
	} else if (WEXITSTATUS(status) != 0) {
		if (line == NULL)
			line = jobctl_last_line(&r->out);
		*why = xstrfmt("%s exited with status %d%s%s", key, WEXITSTATUS(status),
		    line != NULL ? ": " : " and said nothing", line != NULL ? line : "");
		ret = WK_ERR_EXEC;
	} else
		ret = 0;
out:
	jobctl_closefd(&outp[0]);
	jobctl_closefd(&outp[1]);
	jobctl_closefd(&errp[0]);
	jobctl_closefd(&errp[1]);
	free(chunk);
	free(line);
	return ret;
}

void
jobctl_res_free(struct jobctl_res *r)
{
	buf_free(&r->out);
	buf_free(&r->err);
}

int
jobctl_exec(const struct jobctl *jc, const char *label, const char *cmd, char **out, char **why)
{
	struct jobctl_res r = { BUF_INIT, BUF_INIT, 0 };
	size_t cap = jc->out_cap > 0 ? jc->out_cap : JOBCTL_OUT_CAP;
	int ret;

	*out = NULL;
	*why = NULL;
	ret = jobctl_run(jc, label, cmd, cap, 0, &r, why);
	if (ret == 0 && r.out_truncated) {
		*why = xstrfmt("%s printed more than %zu bytes", label, cap);
		ret = WK_ERR_TOOLONG;
	}
	if (ret == 0)
		*out = xstrdup(buf_str(&r.out));
	jobctl_res_free(&r);
	return ret;
}
