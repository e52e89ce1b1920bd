/*
 * notify-cmd.c: the command sink.
 *
 * The command runs through spawn.c as `sh -c` in its own process group, so
 * a timeout kills everything it started; the event is its stdin (one JSON
 * line), WATCHKEEPER_EVENT_ID and WATCHKEEPER_EVENT its environment.  Its
 * exit status is judged by one table; its last line of output is quoted
 * (scrubbed) in the why.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "childio.h"
#include "err.h"
#include "jsonfile.h"
#include "monotime.h"
#include "notify-int.h"
#include "portable.h"
#include "spawn.h"
#include "xmalloc.h"

extern char **environ;

/* ---- command delivery ---- */

/*
 * A command's exit status, first match wins; every message takes the status
 * (%d) and a detail (%s: "" or ": <its last line of output>").
 */
static const struct notify_exit_rule {
	int		 code;		/* -1: any */
	enum notify_outcome outcome;
	const char	*fmt;
} notify_exit_rules[] = {
	{ 0, NJ_OK, NULL },
	{ 126, NJ_PERM, "the command cannot be executed (exit %d)%s" },
	{ 127, NJ_PERM, "the command was not found (exit %d)%s" },
	{ -1, NJ_RETRY, "the command exited %d%s" },
};

/* The environment for a command: ours plus the event's id and type (own[], caller frees). */
static char **
notify_command_env(const cJSON *ev, char *own[2])
{
	size_t n, k = 0, i;
	char **env;

	for (n = 0; environ[n] != NULL; n++)
		;
	env = xcalloc(n + 3, sizeof(*env));
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "WATCHKEEPER_EVENT_ID=", 21) != 0 &&
		    strncmp(environ[i], "WATCHKEEPER_EVENT=", 18) != 0)
			env[k++] = environ[i];
	own[0] = xstrfmt("WATCHKEEPER_EVENT_ID=%s", json_str(ev, "id", ""));
	own[1] = xstrfmt("WATCHKEEPER_EVENT=%s", json_str(ev, "event", ""));
	env[k++] = own[0];
	env[k++] = own[1];
	return env;
}

/* The last non-blank line of out, one line, capped, as ": <line>"; "" when none. */
static char *
notify_output_detail(const char *out)
{
	const char *p, *e, *best = NULL, *best_end = NULL;
	char *line, *flat, *cut, *r;

	for (p = out; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		e = p + strcspn(p, "\n");
		if (p + strspn(p, " \t\r") < e) {
			best = p;
			best_end = e;
		}
	}
	if (best == NULL)
		return xstrdup("");
	line = xstrndup(best, (size_t)(best_end - best));
	flat = notify_flat(line);
	cut = notify_cut(flat, NOTIFY_DETAIL_MAX);
	r = xstrfmt(": %s", cut);
	free(line);
	free(flat);
	free(cut);
	return r;
}

static void
notify_read_some(int *fd, struct buf *b)
{
	char chunk[4096];
	ssize_t n;

	while ((n = childio_read(fd, chunk, sizeof(chunk))) > 0)
		childio_keep(b, chunk, (size_t)n, NOTIFY_CMD_OUT_MAX);
}

/* SIGTERM to the group, SIGKILL after a grace.  Returns 1 when SIGKILL was needed. */
static int
notify_kill(pid_t pid, int *status)
{
	struct deadline grace;
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	kill(-pid, SIGTERM);
	deadline_set(&grace, NOTIFY_KILL_GRACE_MS);
	while (!deadline_expired(&grace)) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 0;
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL);
	spawn_wait(pid, status);
	return 1;
}

int
notify_command(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev,
    const struct notify_request *rq, char **why, int *permanent)
{
	const struct notify_exit_rule *x;
	struct spawn_opts o;
	struct deadline dl;
	struct buf out = BUF_INIT, msg = BUF_INIT;
	struct wk_sigpipe pg;
	char **env = NULL, *own[2] = { NULL, NULL }, *detail = NULL;
	int in[2] = { -1, -1 }, outp[2] = { -1, -1 }, status = 0, exited = 0, killed = 0, r;
	int hard = 0, lost = 0;
	size_t off = 0;
	pid_t pid, w;

	*permanent = 0;
	/* A command that exits without reading stdin must not kill us with SIGPIPE. */
	wk_sigpipe_ignore(&pg);
	if (wk_pipe_cloexec(in) != 0 || wk_pipe_cloexec(outp) != 0) {
		buf_printf(&msg, "cannot run the command: %s; will retry", wk_strerror(WK_ERR_SYSTEM));
		r = WK_ERR_SYSTEM;
		goto out;
	}
	env = notify_command_env(ev, own);
	spawn_opts_init(&o);
	o.fd_in = in[0];
	o.fd_out = outp[1];
	o.fd_err = SPAWN_STDOUT;
	o.new_pgrp = 1;
	o.env = env;
	pid = spawn_sh(s->command, &o);
	close(in[0]);
	close(outp[1]);
	in[0] = outp[1] = -1;
	if (pid < 0) {
		buf_printf(&msg, "cannot run the command: %s; will retry", wk_strerror(WK_ERR_SYSTEM));
		r = WK_ERR_EXEC;
		goto out;
	}
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(outp[0], F_SETFL, O_NONBLOCK);
	deadline_set(&dl, (uint64_t)(all->timeout_s > 0 ? all->timeout_s : 1) * 1000);
	while (!exited && !killed) {
		struct pollfd pf[2];
		nfds_t np = 0;

		childio_poll_add(pf, &np, outp[0], POLLIN);
		childio_poll_add(pf, &np, in[1], POLLOUT);
		if (poll(pf, np, deadline_poll_timeout(&dl, 1, NOTIFY_POLL_SLICE_MS)) < 0 &&
		    errno != EINTR)
			break;
		notify_read_some(&outp[0], &out);
		childio_feed(&in[1], rq->body, rq->body_len, &off, &pg);
		if ((w = waitpid(pid, &status, WNOHANG)) == pid)
			exited = 1;
		else if (w < 0 && errno == ECHILD) {
			/* Someone else reaped it (a SIGCHLD handler): its verdict is lost. */
			lost = exited = 1;
		} else if (deadline_expired(&dl)) {
			hard = notify_kill(pid, &status);
			killed = 1;
		}
	}
	if (!exited && !killed) {
		hard = notify_kill(pid, &status);
		killed = 1;
	}
	/* What it wrote before exiting; a background child holding the pipe is not waited for. */
	notify_read_some(&outp[0], &out);
	if (killed) {
		buf_printf(&msg, "the command did not finish within %ld s; killed%s; will retry",
		    all->timeout_s, hard ? " (it ignored SIGTERM)" : "");
		r = WK_ERR_TIMEOUT;
		goto out;
	}
	detail = notify_output_detail(buf_str(&out));
	if (lost) {
		buf_printf(&msg, "the command's exit status was taken by another waiter%s; will retry",
		    detail);
		r = WK_ERR_SYSTEM;
		goto out;
	}
	if (WIFSIGNALED(status)) {
		buf_printf(&msg, "the command was killed by signal %d%s; will retry", WTERMSIG(status),
		    detail);
		errno = EAGAIN;
		r = WK_ERR_SYSTEM;
		goto out;
	}
	for (x = notify_exit_rules; x->code != -1 && x->code != WEXITSTATUS(status); x++)
		;
	if (x->outcome != NJ_OK)
		buf_printf(&msg, x->fmt, WEXITSTATUS(status), detail);
	*permanent = x->outcome == NJ_PERM;
	r = notify_code_of(x->outcome, 0);
 out:
	childio_close(in);
	childio_close(outp);
	wk_sigpipe_restore(&pg);
	if (msg.len > 0)
		*why = notify_scrub(all, buf_str(&msg));
	free(own[0]);
	free(own[1]);
	free(env);
	free(detail);
	buf_free(&out);
	buf_free(&msg);
	if (r == WK_ERR_SYSTEM)
		errno = EAGAIN;
	return r;
}
