/*
 * sshcli-proc.c: the openssh transport's processes (see sshcli.c): one ssh
 * run in a process group of its own with stdin, stdout and stderr on pipes
 * read together and bounded, ended (TERM, then KILL) and reaped at the
 * deadline; and the processes of a connection recognised by (pid, start
 * time) and their command lines (proc.h), so that only ours are ever signalled.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "log.h"
#include "monotime.h"
#include "portable.h"
#include "proc.h"
#include "spawn.h"
#include "sshcli-int.h"
#include "sshcli.h"
#include "sshq.h"
#include "transport.h"
#include "xmalloc.h"

/* ---- processes ---- */

/* Is (pid, start) still that process, and not a zombie? */
int
sshcli_proc_alive(const struct sshcli_proc *pr)
{
	struct proc_info pi;

	if (pr->pid <= 0 || proc_info(pr->pid, &pi) != 0)
		return 0;
	return pi.start == pr->start && pi.state != 'Z' && pi.state != 'X';
}

/*
 * Processes in group pgrp (> 0) of our session, or, with pgrp 0, processes
 * carrying this connection's control path: added to out with their start
 * times.
 */
void
sshcli_proc_find(const struct sshcli_conn *c, pid_t pgrp, struct sshcli_procs *out)
{
	struct proc_info pi;
	pid_t *pids, pid, mysid = getsid(0);
	size_t n, i;

	if ((pids = proc_list(&n)) == NULL)
		return;
	for (i = 0; i < n && out->n < SSHCLI_PROCS_MAX; i++) {
		if ((pid = pids[i]) == getpid())
			continue;
		if (proc_info(pid, &pi) != 0 || pi.state == 'Z')
			continue;
		if (pgrp > 0 ? pi.pgrp != pgrp || pi.sid != mysid : !proc_cmdline_pair(pid, "-S", c->path_arg))
			continue;
		out->p[out->n].pid = pid;
		out->p[out->n].start = pi.start;
		out->n++;
	}
	free(pids);
}

/* Wait up to ms for every process in ps to be gone; 1 when they are. */
int
sshcli_procs_wait(const struct sshcli_procs *ps, uint64_t ms)
{
	struct deadline dl;
	size_t i;
	int left;

	deadline_set(&dl, ms);
	for (;;) {
		for (i = 0, left = 0; i < ps->n; i++)
			left += sshcli_proc_alive(&ps->p[i]);
		if (left == 0)
			return 1;
		if (deadline_expired(&dl))
			return 0;
		(void)poll(NULL, 0, 5);
	}
}

/* End what is left of ps (not our children): a grace of grace_ms, SIGTERM, SIGKILL. */
void
sshcli_procs_end(const struct sshcli_procs *ps, uint64_t grace_ms)
{
	size_t i;
	int sig;

	if (sshcli_procs_wait(ps, grace_ms))
		return;
	for (sig = SIGTERM;; sig = SIGKILL) {
		for (i = 0; i < ps->n; i++)
			if (sshcli_proc_alive(&ps->p[i])) {
				log_debug("sending signal %d to ssh process %ld", sig, (long)ps->p[i].pid);
				(void)kill(ps->p[i].pid, sig);
			}
		if (sshcli_procs_wait(ps, SSHCLI_TERM_MS) || sig == SIGKILL)
			break;
	}
}

/* End our child pid and its group: SIGTERM, a grace, SIGKILL; then reap it. */
static void
sshcli_kill(pid_t pid, int *status)
{
	struct deadline dl;

	(void)kill(-pid, SIGTERM);
	deadline_set(&dl, SSHCLI_TERM_MS);
	/* proc_exited: pid stays unreaped meanwhile, so the group's id stays its own. */
	while (!proc_exited(pid) && !deadline_expired(&dl))
		(void)poll(NULL, 0, SSHCLI_REAP_POLL_MS);
	/* Also whatever it started in its group (a ProxyCommand) that outlived it. */
	(void)kill(-pid, SIGKILL);
	(void)spawn_wait(pid, status);
}

static void
sshcli_nonblock(int fd)
{
	int fl;

	if (fd >= 0 && (fl = fcntl(fd, F_GETFL)) >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void
sshcli_closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read what fd has into b, keeping up to keep bytes in all. 0 more may come, 1 EOF. */
static int
sshcli_drain(int fd, struct buf *b, size_t keep, int *truncated, char *chunk)
{
	ssize_t n;

	for (;;) {
		if ((n = fs_read_nb(fd, chunk, SSHCLI_CHUNK)) <= 0)
			return n < 0;
		if (buf_append_max(b, chunk, (size_t)n, keep) && truncated != NULL)
			*truncated = 1;
	}
}

/*
 * Run argv with r's input, collecting stdout (r->cap) and stderr (64 KiB)
 * together until both end and it exits, or until dl: then its group is
 * ended (r->timed_out).  0 with r->status, or -1 when it could not be
 * started (err).
 */
int
sshcli_run(const struct sshcli_conn *c, char *const argv[], const struct deadline *dl,
    struct sshcli_run *r, struct ssh_error *err)
{
	struct spawn_opts o;
	struct pollfd pfd[4];
	char *chunk = NULL;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int ret = -1, n, rc, i_in, i_out, i_err, i_cancel;
	size_t off = 0;
	ssize_t w;
	pid_t pid;

	r->status = 255 << 8;	/* as ssh's own failure, should waitpid have nothing to say */
	r->timed_out = 0;
	r->cancelled = 0;
	r->pid = 0;
	/* A socket, not a pipe: send() with MSG_NOSIGNAL needs no SIGPIPE handling. */
	if (r->inlen > 0 && wk_socketpair(AF_UNIX, SOCK_STREAM, 0, in) != 0)
		goto sysfail;
	if (wk_pipe_cloexec(out) != 0 || (r->err_fd < 0 && wk_pipe_cloexec(ep) != 0))
		goto sysfail;
	spawn_opts_init(&o);
	o.fd_in = in[1] >= 0 ? in[1] : SPAWN_DEVNULL;
	o.fd_out = out[1];
	o.fd_err = r->err_fd >= 0 ? r->err_fd : ep[1];
	o.new_pgrp = 1;
	pid = spawn_argv(argv, &o);
	sshcli_closefd(&in[1]);
	sshcli_closefd(&out[1]);
	sshcli_closefd(&ep[1]);
	if (pid < 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: cannot run ssh: %s (install the OpenSSH client, "
		    "or use \"transport\": \"libssh2\")", c->label, wk_strerror(WK_ERR_SYSTEM));
		goto out;
	}
	r->pid = pid;
	sshcli_nonblock(in[0]);
	sshcli_nonblock(out[0]);
	sshcli_nonblock(ep[0]);
	chunk = xmalloc(SSHCLI_CHUNK);
	while (in[0] >= 0 || out[0] >= 0 || ep[0] >= 0) {
		n = 0;
		i_in = i_out = i_err = -1;
		if (in[0] >= 0) {
			pfd[n].fd = in[0];
			pfd[n].events = POLLOUT;
			i_in = n++;
		}
		if (out[0] >= 0) {
			pfd[n].fd = out[0];
			pfd[n].events = POLLIN;
			i_out = n++;
		}
		if (ep[0] >= 0) {
			pfd[n].fd = ep[0];
			pfd[n].events = POLLIN;
			i_err = n++;
		}
		i_cancel = -1;
		if (c->cancel_fd >= 0) {
			pfd[n].fd = c->cancel_fd;
			pfd[n].events = POLLIN;
			i_cancel = n++;
		}
		if (deadline_expired(dl)) {
			r->timed_out = 1;
			break;
		}
		rc = poll(pfd, (nfds_t)n, deadline_poll_timeout(dl, 1, -1));
		if (rc > 0 && i_cancel >= 0 && pfd[i_cancel].revents != 0) {
			/* the look was cancelled: its client ends now (its session with it) */
			r->timed_out = r->cancelled = 1;
			break;
		}
		if (rc < 0 && errno != EINTR) {
			r->timed_out = 1;	/* cannot wait: end it like a deadline */
			break;
		}
		if (rc <= 0)
			continue;
		if (i_in >= 0 && pfd[i_in].revents != 0) {
			w = send(in[0], r->in + off, r->inlen - off < SSHCLI_CHUNK ?
			    r->inlen - off : SSHCLI_CHUNK, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0)
				off += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				/* The command stopped reading (or ended): the rest is moot. */
				log_debug("stdin not taken after %zu bytes: %s", off, wk_strerror(WK_ERR_SYSTEM));
				off = r->inlen;
			}
			if (off >= r->inlen)
				sshcli_closefd(&in[0]);	/* EOF for the command */
		}
		if (i_out >= 0 && pfd[i_out].revents != 0 &&
		    sshcli_drain(out[0], &r->out, r->cap, &r->truncated, chunk))
			sshcli_closefd(&out[0]);
		if (i_err >= 0 && pfd[i_err].revents != 0 &&
		    sshcli_drain(ep[0], &r->err, SSHCLI_ERR_KEEP, NULL, chunk))
			sshcli_closefd(&ep[0]);
	}
	/* Its streams are closed: it is exiting. */
	while (!r->timed_out && !proc_exited(pid)) {
		if (deadline_expired(dl))
			r->timed_out = 1;
		else
			(void)poll(NULL, 0, deadline_poll_timeout(dl, 1, SSHCLI_REAP_POLL_MS));
	}
	if (r->timed_out)
		sshcli_kill(pid, &r->status);
	else
		(void)spawn_wait(pid, &r->status);
	ret = 0;
	goto out;
sysfail:
	ssh_error_set(err, SSH_FAIL_EXEC, "%s: cannot start ssh: %s", c->label, wk_strerror(WK_ERR_SYSTEM));
out:
	sshcli_closefd(&in[0]);
	sshcli_closefd(&in[1]);
	sshcli_closefd(&out[0]);
	sshcli_closefd(&out[1]);
	sshcli_closefd(&ep[0]);
	sshcli_closefd(&ep[1]);
	free(chunk);
	return ret;
}

void
sshcli_run_init(struct sshcli_run *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->out);
	buf_init(&r->err);
	r->err_fd = -1;
}

void
sshcli_run_free(struct sshcli_run *r)
{
	buf_free(&r->out);
	buf_free(&r->err);
}
