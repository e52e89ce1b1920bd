/*
 * mcp.c: `patrol mcp`'s I/O: reads message lines from stdin (bounded: a
 * line over MCP_LINE_MAX is dropped up to its newline and answered -32700),
 * hands each to mcp-proto.c, writes its answer, and runs every tools/call
 * in a child of its own (spawn_fork, its own process group, stdout on
 * /dev/null) that writes its progress and its response as lines to a pipe:
 * "P<json>" a progress notification, "R<json>" the response.  One poll loop
 * over stdin and every child's pipe, so a `wait` never holds up a ping or a
 * second call; only whole lines reach stdout.  notifications/cancelled
 * SIGTERMs the child's group and nothing is answered for it; a child that
 * ends without a response gets -32603.  At stdin EOF (or SIGTERM, SIGINT,
 * or stdout gone) the children are signalled and reaped, exit 0.
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

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "exits.h"
#include "log.h"
#include "mcp.h"
#include "monotime.h"
#include "portable.h"
#include "proc.h"
#include "sigwait.h"
#include "spawn.h"
#include "warm.h"
#include "xmalloc.h"

#define MCP_MAX_CALLS	16	/* calls in flight; the next gets an isError result */
#define MCP_KILL_MS	3000	/* SIGTERM, then SIGKILL to the group after this */
#define MCP_REAP_MS	100	/* poll timeout while a child is being reaped */

struct mcp_child {
	pid_t		 pid;
	int		 fd;		/* the pipe's read end; -1 after its EOF */
	struct buf	 in;		/* a partial line from it */
	cJSON		*id;
	int		 answered;	/* its response went out */
	int		 cancelled;	/* cancelled (or the server ends): nothing more goes out */
	uint64_t	 term_ms;	/* when SIGTERM went to its group; 0 not yet */
};

struct mcp_server {
	struct mcp_session s;
	struct mcp_ctx	 ctx;
	struct mcp_child kids[MCP_MAX_CALLS];
	size_t		 nkids;
	struct buf	 in;		/* stdin's partial line */
	int		 discarding;	/* the line is over MCP_LINE_MAX: drop up to its newline */
	int		 eof;		/* stdin ended (or a signal asked us to end) */
	int		 broken;	/* stdout is gone */
};

static int mcp_stop;		/* SIGTERM or SIGINT came: end like EOF */
static int mcp_sigfd = -1;	/* the self-pipe they come through (sigwait.h) */

/* Write line and a newline to stdout whole (or note that stdout is gone). */
static void
mcp_write(struct mcp_server *srv, const char *line, size_t len)
{
	struct buf b = BUF_INIT;
	size_t off = 0;
	ssize_t n;

	if (srv->broken)
		return;
	buf_append(&b, line, len);
	buf_putc(&b, '\n');
	while (off < b.len) {
		n = write(STDOUT_FILENO, b.data + off, b.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("stdout: %s: ending", n < 0 ? strerror(errno) : "closed");
			srv->broken = 1;
			break;
		}
		off += (size_t)n;
	}
	buf_free(&b);
}

static void
mcp_write_str(struct mcp_server *srv, char *line)
{
	mcp_write(srv, line, strlen(line));
	free(line);
}

/* The child: run the tool, write its response line, _exit. */
static void
mcp_child_run(struct mcp_server *srv, struct mcp_call *call, int fd)
{
	struct mcp_out out;
	sigset_t late;
	char *line, *r;
	size_t len, off = 0;
	ssize_t n;
	int rc;

	memset(&out, 0, sizeof(out));
	srv->ctx.progress_token = call->progress_token;
	srv->ctx.out_fd = fd;
	srv->ctx.tool = call->tool;
	rc = call->tool->call(&srv->ctx, call->args, &out);
	if (rc != 0)
		out.is_error = 1;
	if (out.text == NULL)
		out.text = xstrdup(out.is_error ? "the tool failed" : "");
	r = mcp_result_line(&srv->s, call->id, &out);	/* consumes out */
	line = xstrfmt("R%s\n", r);
	free(r);
	len = strlen(line);
	rc = 0;
	/*
	 * The answer is made: a cancel or the server's end now changes nothing
	 * but would kill us mid-write with the line unfreed.  A server that no
	 * longer reads gives EPIPE, not a death; SIGKILL still ends a stuck write.
	 */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&late);
	sigaddset(&late, SIGTERM);
	sigaddset(&late, SIGINT);
	sigaddset(&late, SIGHUP);
	(void)sigprocmask(SIG_BLOCK, &late, NULL);
	while (off < len) {
		if ((n = write(fd, line + off, len - off)) < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = 1;
			break;
		}
		off += (size_t)n;
	}
	free(line);
	_exit(rc);
}

/* Start call in a child; the call's id moves to the child slot. */
static void
mcp_start(struct mcp_server *srv, struct mcp_call *call)
{
	struct mcp_out out = { NULL, NULL, 0 };
	struct spawn_opts o;
	struct mcp_child *k;
	char *cause;
	int p[2];
	pid_t pid;

	if ((cause = mcp_args_check(call->tool, call->args)) != NULL) {
		mcp_error(&out, "%s", cause);
		free(cause);
		mcp_write_str(srv, mcp_result_line(&srv->s, call->id, &out));
		return;
	}
	if (srv->nkids == MCP_MAX_CALLS) {
		mcp_error(&out, "too many calls in flight (%d): let one finish or cancel one",
		    MCP_MAX_CALLS);
		mcp_write_str(srv, mcp_result_line(&srv->s, call->id, &out));
		return;
	}
	if (wk_pipe_cloexec(p) != 0) {
		mcp_write_str(srv, mcp_error_line(call->id, MCP_EINTERNAL, strerror(errno)));
		return;
	}
	spawn_opts_init(&o);
	o.fd_err = SPAWN_INHERIT;
	o.new_pgrp = 1;
	o.keep_fds = &p[1];
	o.nkeep = 1;
	if ((pid = spawn_fork(&o)) == 0)
		mcp_child_run(srv, call, p[1]);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		mcp_write_str(srv, mcp_error_line(call->id, MCP_EINTERNAL, "cannot fork"));
		return;
	}
	log_info("call %s: child %ld", call->tool->name, (long)pid);
	k = &srv->kids[srv->nkids++];
	memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->fd = p[0];
	k->id = call->id;	/* transferred */
	call->id = NULL;
}

/* SIGTERM k's group; nothing of it goes out any more. */
static void
mcp_cancel(struct mcp_child *k)
{
	k->cancelled = 1;
	if (k->term_ms == 0) {
		(void)kill(-k->pid, SIGTERM);
		k->term_ms = monotime_ms();
	}
	if (k->fd >= 0) {
		close(k->fd);
		k->fd = -1;
	}
}

static void
mcp_line(struct mcp_server *srv, const char *line, size_t len)
{
	struct mcp_call call;
	char *reply;
	size_t i;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return;
	switch (mcp_handle(&srv->s, line, len, &reply, &call)) {
	case MCP_ACT_REPLY:
		mcp_write_str(srv, reply);
		break;
	case MCP_ACT_CALL:
		mcp_start(srv, &call);
		break;
	case MCP_ACT_CANCEL:
		for (i = 0; i < srv->nkids; i++)
			if (!srv->kids[i].cancelled && cJSON_Compare(srv->kids[i].id, call.id, 1))
				mcp_cancel(&srv->kids[i]);
		break;
	case MCP_ACT_NONE:
		break;
	}
	mcp_call_free(&call);
}

/* Bytes from stdin: whole lines to mcp_line, an overlong one dropped and answered -32700. */
static void
mcp_feed(struct mcp_server *srv, const char *p, size_t n)
{
	const char *nl;
	size_t take;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		take = nl != NULL ? (size_t)(nl - p) : n;
		if (!srv->discarding && srv->in.len + take > MCP_LINE_MAX) {
			log_warn("a message line over %u bytes: dropped", MCP_LINE_MAX);
			srv->discarding = 1;
			buf_reset(&srv->in);
		}
		if (!srv->discarding)
			buf_append(&srv->in, p, take);
		if (nl != NULL) {
			if (srv->discarding)
				mcp_write_str(srv, mcp_error_line(NULL, MCP_EPARSE,
				    "parse error: message line too long"));
			else
				mcp_line(srv, srv->in.data, srv->in.len);
			srv->discarding = 0;
			buf_reset(&srv->in);
			take++;
		}
		p += take;
		n -= take;
	}
}

/* A child's whole lines: progress and its response, copied out unless it was cancelled. */
static void
mcp_child_lines(struct mcp_server *srv, struct mcp_child *k)
{
	char *nl;
	size_t len;

	while (k->in.len > 0 && (nl = memchr(k->in.data, '\n', k->in.len)) != NULL) {
		len = (size_t)(nl - k->in.data);
		if (!k->cancelled && !k->answered && len > 1 &&
		    (k->in.data[0] == 'P' || k->in.data[0] == 'R')) {
			mcp_write(srv, k->in.data + 1, len - 1);
			k->answered = k->in.data[0] == 'R';
		}
		buf_consume(&k->in, len + 1);
	}
}

static void
mcp_child_read(struct mcp_server *srv, struct mcp_child *k)
{
	char chunk[65536];
	ssize_t n;

	n = read(k->fd, chunk, sizeof(chunk));
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(k->fd);
		k->fd = -1;
		return;
	}
	buf_append(&k->in, chunk, (size_t)n);
	mcp_child_lines(srv, k);
}

/* Reap the children whose pipe ended; -32603 for one that said nothing. */
static void
mcp_reap(struct mcp_server *srv)
{
	struct mcp_child *k;
	size_t i = 0;
	int status;

	while (i < srv->nkids) {
		k = &srv->kids[i];
		if (k->term_ms != 0 && monotime_ms() - k->term_ms > MCP_KILL_MS)
			(void)kill(-k->pid, SIGKILL);
		/* exited? (not reaped yet: its pid, the group's id, cannot be reused meanwhile) */
		if (k->fd >= 0 || !proc_exited(k->pid)) {
			i++;
			continue;
		}
		/* a grandchild may live on in the group: it goes with the child */
		(void)kill(-k->pid, SIGKILL);
		(void)spawn_wait(k->pid, &status);
		log_info("child %ld reaped%s", (long)k->pid, k->cancelled ? " (cancelled)" : "");
		if (!k->cancelled && !k->answered)
			mcp_write_str(srv, mcp_error_line(k->id, MCP_EINTERNAL,
			    "the tool's process ended without an answer"));
		cJSON_Delete(k->id);
		buf_free(&k->in);
		srv->kids[i] = srv->kids[--srv->nkids];
	}
}

/* One round: poll stdin and the children's pipes, handle what came. */
static void
mcp_round(struct mcp_server *srv)
{
	struct pollfd pfd[MCP_MAX_CALLS + 2];
	struct mcp_child *who[MCP_MAX_CALLS + 2];
	struct sigwait_got got;
	char chunk[65536];
	size_t i, n = 0;
	int reaping = 0;
	ssize_t r;

	pfd[n].fd = mcp_sigfd;
	pfd[n].events = POLLIN;
	who[n++] = NULL;
	if (!srv->eof) {
		pfd[n].fd = STDIN_FILENO;
		pfd[n].events = POLLIN;
		who[n++] = NULL;
	}
	for (i = 0; i < srv->nkids; i++) {
		if (srv->kids[i].fd < 0) {
			reaping = 1;
			continue;
		}
		if (srv->kids[i].term_ms != 0)
			reaping = 1;
		pfd[n].fd = srv->kids[i].fd;
		pfd[n].events = POLLIN;
		who[n++] = &srv->kids[i];
	}
	if (poll(pfd, n, reaping ? MCP_REAP_MS : -1) < 0) {
		if (errno != EINTR)
			fatal("poll: %s", strerror(errno));
		return;
	}
	if (pfd[0].revents != 0 && sigwait_fd(mcp_sigfd, 0, &got))
		mcp_stop = 1;
	for (i = 1; i < n; i++) {
		if ((pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
			continue;
		if (who[i] != NULL) {
			if (who[i]->fd >= 0)
				mcp_child_read(srv, who[i]);
			continue;
		}
		r = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			srv->eof = 1;
			/* a last line without its newline still counts */
			if (!srv->discarding && srv->in.len > 0)
				mcp_line(srv, srv->in.data, srv->in.len);
			buf_reset(&srv->in);
			continue;
		}
		mcp_feed(srv, chunk, (size_t)r);
	}
}

/* Each config's run name (loaded and checked now); -1 after the usual config error report. */
static int
mcp_names(char *const *configs, size_t n, char ***names)
{
	struct wk_config *cfg;
	size_t i, j;
	int rc = 0;

	*names = xcalloc(n + 1, sizeof(**names));
	for (i = 0; i < n && rc == 0; i++) {
		if (config_load_report("patrol", configs[i], &cfg) != 0) {
			rc = -1;
			break;
		}
		(*names)[i] = xstrdup(cfg->run);
		config_free(cfg);
		for (j = 0; j < i; j++)
			if (strcmp((*names)[j], (*names)[i]) == 0) {
				fprintf(stderr, "%s: run '%s' is %s's too\npatrol: config error "
				    "(exit 78)\n", configs[i], (*names)[i], configs[j]);
				rc = -1;
			}
	}
	return rc;
}

int
mcp_serve(char *const *configs, size_t nconfigs)
{
	static const int sigs[] = { SIGTERM, SIGINT };
	struct mcp_server srv;
	struct sigaction sa;
	char **names;
	size_t i;

	if (mcp_names(configs, nconfigs, &names) != 0) {
		xfree_strv(names, nconfigs);
		return WK_EX_CONFIG;
	}
	memset(&srv, 0, sizeof(srv));
	srv.s.tools = mcp_tools;
	srv.s.ntools = mcp_ntools;
	srv.ctx.configs = nconfigs > 0 ? configs : NULL;
	srv.ctx.nconfigs = nconfigs;
	srv.ctx.run_names = names;
	srv.ctx.out_fd = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* SIGTERM and SIGINT end the server like EOF */
	if ((mcp_sigfd = sigwait_open(sigs, sizeof(sigs) / sizeof(sigs[0]))) < 0)
		fatal("the signal pipe: %s", strerror(errno));
	/* Every call's looks share one held connection per box (warm.h). */
	if (warm_init(0) != 0)
		log_warn("warm looks are off (every look connects): %s", strerror(errno));
	while (!(srv.eof || srv.broken) || srv.nkids > 0) {
		if (mcp_stop)
			srv.eof = 1;
		if (srv.eof || srv.broken)
			for (i = 0; i < srv.nkids; i++)
				mcp_cancel(&srv.kids[i]);
		if (srv.nkids > 0 || !(srv.eof || srv.broken))
			mcp_round(&srv);
		mcp_reap(&srv);
	}
	sigwait_close();
	mcp_sigfd = -1;
	warm_shutdown();
	buf_free(&srv.in);
	xfree_strv(names, nconfigs);
	return 0;
}
