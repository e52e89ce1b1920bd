/*
 * tick.c: one short connection in a child process: connect, run one command,
 * close (a sentinel tick; a patrol mcp wait slice, logs or events call).
 * Where this process family keeps warm connections (ssh/warm.h: patrol mcp),
 * the command is a look over the box's held connection instead, in this
 * process, abandoned when the signal pipe speaks.  A "sh -s" script goes on
 * the command line when it fits (ssh_script_command, printf into sh: a
 * round trip less).
 *
 * The connection lives in a child process (spawn_fork: signals reset, every
 * descriptor but the result pipe closed, so it holds none of our locks).
 * The parent waits on the result pipe and on the signal pipe together: a
 * supersede or a SIGTERM in the middle of a connect or of a --follow window
 * ends the tick at once.  Ending it is SIGKILL to the child's process group,
 * then, for the openssh transport, every ssh process that carries this
 * target's control path (the ControlMaster daemon and any mux client it
 * orphaned) is ended by pid and the socket removed, as sshcli_close would
 * have done; with libssh2 the kernel closes the socket with the child.
 * Either way sshd sees the connection go, and `onbox wait` on the box sees
 * its reader go and exits.
 *
 * The child sends back one fixed-size record, then the command's output.
 * A signal that ends a tick goes back to the caller in its result (tick.h):
 * what it means is the caller's to say (sentinel.c, patrol/mcp-box.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "err.h"
#include "log.h"
#include "monotime.h"
#include "mwait.h"
#include "portable.h"
#include "proc.h"
#include "sigwait.h"
#include "spawn.h"
#include "tick.h"
#include "warm.h"
#include "xmalloc.h"

/* Past the connection's own deadline, how long the parent gives the child. */
#define TICK_GRACE_MS	10000
#define TICK_TERM_MS	300

struct tick_wire {
	int		ok;
	int		kind;		/* enum ssh_fail */
	int		exit_status;
	int		truncated;
	size_t		outlen;
	char		msg[1024];
	char		fingerprint[128];
};

void
tick_res_free(struct tick_res *r)
{
	free(r->out);
	r->out = NULL;
	r->outlen = 0;
}

/* In the child: never returns. */
static _Noreturn void
tick_child(const struct ssh_target *target, const char *command, const char *in, size_t inlen,
    int deadline_ms, int fd)
{
	struct tick_wire wire;
	struct ssh_conn *conn = NULL;
	struct ssh_result res;
	struct ssh_error err;

	int r = 0;

	signal(SIGPIPE, SIG_IGN);	/* a parent gone is seen as a failed write */
	memset(&wire, 0, sizeof(wire));
	memset(&res, 0, sizeof(res));
	memset(&err, 0, sizeof(err));
	if (ssh_connect(target, deadline_ms, &conn, &err) == 0 &&
	    ssh_exec(conn, command, in, inlen, MWAIT_MAX_OUT, &res, &err) == 0) {
		wire.ok = 1;
		wire.exit_status = res.exit_status;
		wire.truncated = res.truncated;
		wire.outlen = res.out_len;
	}
	/* Closed before the result goes back: the parent never sleeps on an open connection. */
	ssh_close(conn);
	wire.kind = (int)err.kind;
	snprintf(wire.msg, sizeof(wire.msg), "%s", err.msg);
	snprintf(wire.fingerprint, sizeof(wire.fingerprint), "%s", err.fingerprint);
	if (write_full(fd, &wire, sizeof(wire)) != 0 ||
	    (wire.ok && write_full(fd, res.out, res.out_len) != 0))
		r = 1;
	ssh_result_free(&res);
	_exit(r);
}

/* The ssh processes of our openssh connection (the master, mux clients), by identity. */
static size_t
tick_ssh_procs(const char *path_arg, struct proc_id *ids, size_t max)
{
	pid_t *pids;
	size_t n = 0, npids, i;

	if ((pids = proc_list(&npids)) == NULL)
		return 0;
	for (i = 0; i < npids && n < max; i++) {
		if (pids[i] == getpid() || !proc_cmdline_pair(pids[i], "-S", path_arg))
			continue;
		if (proc_identify(pids[i], &ids[n]) == 0)
			n++;
	}
	free(pids);
	return n;
}

/* What sshcli_close would have done for a connection whose owner was killed. */
static void
tick_openssh_cleanup(const struct ssh_target *t)
{
	struct proc_id ids[32];
	struct buf arg = BUF_INIT;
	struct stat st;
	const char *p;
	size_t n, i;
	char *log;

	if (!t->openssh || t->control_path == NULL)
		return;
	/* ssh takes the path with '%' doubled (sshcli.c does the same). */
	for (p = t->control_path; *p != '\0'; p++) {
		if (*p == '%')
			buf_putc(&arg, '%');
		buf_putc(&arg, *p);
	}
	n = tick_ssh_procs(buf_str(&arg), ids, sizeof(ids) / sizeof(ids[0]));
	for (i = 0; i < n; i++)
		(void)kill(ids[i].pid, SIGTERM);
	(void)proc_wait_gone(ids, n, TICK_TERM_MS);
	for (i = 0; i < n; i++)
		if (proc_alive(&ids[i]))
			(void)kill(ids[i].pid, SIGKILL);
	if (lstat(t->control_path, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)unlink(t->control_path);
	log = xstrfmt("%s.log", t->control_path);
	(void)unlink(log);
	free(log);
	buf_free(&arg);
}

void
tick_abort(struct tick_conn *tc)
{
	int status;

	if (tc->child <= 0)
		return;
	(void)kill(-tc->child, SIGKILL);
	(void)kill(tc->child, SIGKILL);
	(void)spawn_wait(tc->child, &status);
	tc->child = 0;
	if (tc->target != NULL)
		tick_openssh_cleanup(tc->target);
}

static int
tick_refusal(enum ssh_fail kind)
{
	return kind == SSH_FAIL_AUTH || kind == SSH_FAIL_HOSTKEY_MISMATCH ||
	    kind == SSH_FAIL_HOSTKEY_UNKNOWN || kind == SSH_FAIL_UNSUPPORTED;
}

/*
 * The look through a warm connection (warm.h), in this process: the signal
 * pipe abandons it (the holder closes its channel; the connection stays).
 * 1 when there is no warm way and the tick must connect itself.
 */
static int
tick_warm(struct tick_conn *tc, const char *command, const char *in, size_t inlen,
    int deadline_ms, struct tick_res *r)
{
	struct ssh_result res;

	switch (warm_exec(tc->target, command, in, inlen, MWAIT_MAX_OUT, deadline_ms, tc->sigfd,
	    &res, &r->err)) {
	case WARM_NONE:
		return 1;
	case WARM_WATCH:
		if (sigwait_fd(tc->sigfd, 0, &r->sig))
			r->kind = TICK_STOPPED;
		else
			ssh_error_set(&r->err, SSH_FAIL_EXEC, "the look was abandoned");
		return 0;
	case WARM_FAIL:
		r->kind = tick_refusal(r->err.kind) ? TICK_REFUSED : TICK_UNREACHABLE;
		return 0;
	case WARM_DONE:
		break;
	}
	if (res.truncated) {
		ssh_error_set(&r->err, SSH_FAIL_IO, "the check's output was larger than its bound");
	} else {
		r->kind = TICK_SEEN;
		r->exit_status = res.exit_status;
		r->outlen = res.out_len;
		r->out = res.out;	/* transferred */
		res.out = NULL;
	}
	ssh_result_free(&res);
	return 0;
}

enum tick_kind
tick_run(struct tick_conn *tc, const char *command, const char *in, size_t inlen, int deadline_ms,
    struct tick_res *r)
{
	struct spawn_opts o;
	struct tick_wire wire;
	struct deadline dl;
	struct pollfd pfd[2];
	struct buf got = BUF_INIT;
	char chunk[65536];
	int pipefd[2] = { -1, -1 }, status, n, eof = 0;
	char *line = NULL;
	ssize_t k;

	memset(r, 0, sizeof(*r));
	r->kind = TICK_UNREACHABLE;
	/* A script on stdin goes on the command line when it fits: a round trip less. */
	if (strcmp(command, "sh -s") == 0 && in != NULL && strlen(in) == inlen &&
	    (line = ssh_script_command(in)) != NULL) {
		command = line;
		in = NULL;
		inlen = 0;
	}
	if (tick_warm(tc, command, in, inlen, deadline_ms, r) == 0)
		goto out;
	if (wk_pipe_cloexec(pipefd) != 0) {
		ssh_error_set(&r->err, SSH_FAIL_EXEC, "pipe: %s", wk_strerror(WK_ERR_SYSTEM));
		goto out;
	}
	spawn_opts_init(&o);
	o.fd_err = SPAWN_INHERIT;
	o.new_pgrp = 1;		/* everything of the tick can be ended together */
	o.keep_fds = &pipefd[1];
	o.nkeep = 1;
	fflush(NULL);
	tc->child = spawn_fork(&o);
	if (tc->child == 0)
		tick_child(tc->target, command, in, inlen, deadline_ms, pipefd[1]);
	close(pipefd[1]);
	if (tc->child < 0) {
		tc->child = 0;
		ssh_error_set(&r->err, SSH_FAIL_EXEC, "fork: %s", wk_strerror(WK_ERR_SYSTEM));
		goto out;
	}
	deadline_set(&dl, (uint64_t)deadline_ms + TICK_GRACE_MS);
	for (;;) {
		pfd[0].fd = pipefd[0];
		pfd[0].events = POLLIN;
		pfd[1].fd = tc->sigfd;
		pfd[1].events = POLLIN;
		n = poll(pfd, 2, deadline_poll_timeout(&dl, 1, -1));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ssh_error_set(&r->err, SSH_FAIL_EXEC, "poll: %s", wk_strerror(WK_ERR_SYSTEM));
			break;
		}
		if (n > 0 && (pfd[1].revents & POLLIN) && sigwait_fd(tc->sigfd, 0, &r->sig)) {
			tick_abort(tc);
			r->kind = TICK_STOPPED;
			break;
		}
		if (n == 0 && deadline_expired(&dl)) {
			ssh_error_set(&r->err, SSH_FAIL_TIMEOUT, "the connection did not end within %d ms",
			    deadline_ms + TICK_GRACE_MS);
			break;
		}
		if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			if ((k = read(pipefd[0], chunk, sizeof(chunk))) > 0) {
				if (got.len <= sizeof(wire) + MWAIT_MAX_OUT)
					buf_append(&got, chunk, (size_t)k);
				continue;
			}
			if (k < 0 && errno == EINTR)
				continue;
			eof = k == 0;	/* the child is done */
			if (!eof)
				ssh_error_set(&r->err, SSH_FAIL_EXEC, "read: %s", wk_strerror(WK_ERR_SYSTEM));
			break;
		}
	}
	if (!eof || got.len < sizeof(wire)) {
		tick_abort(tc);
		if (r->kind != TICK_STOPPED && r->err.kind == SSH_OK)
			ssh_error_set(&r->err, SSH_FAIL_EXEC, "the connection's process ended without a result");
		goto out;
	}
	(void)spawn_wait(tc->child, &status);
	tc->child = 0;
	memcpy(&wire, got.data, sizeof(wire));
	if (!wire.ok) {
		r->err.kind = (enum ssh_fail)wire.kind;
		snprintf(r->err.msg, sizeof(r->err.msg), "%s", wire.msg);
		snprintf(r->err.fingerprint, sizeof(r->err.fingerprint), "%s", wire.fingerprint);
		r->kind = tick_refusal(r->err.kind) ? TICK_REFUSED : TICK_UNREACHABLE;
		goto out;
	}
	if (wire.truncated || got.len - sizeof(wire) != wire.outlen) {
		ssh_error_set(&r->err, SSH_FAIL_IO, "the check's output was %s",
		    wire.truncated ? "larger than its bound" : "cut short");
		goto out;
	}
	r->kind = TICK_SEEN;
	r->exit_status = wire.exit_status;
	r->outlen = wire.outlen;
	r->out = xmalloc(wire.outlen + 1);
	memcpy(r->out, got.data + sizeof(wire), wire.outlen);
	r->out[wire.outlen] = '\0';
 out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	buf_free(&got);
	free(line);
	return r->kind;
}
