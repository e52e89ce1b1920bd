/*
 * libssh2-chan.c: the libssh2 transport's commands and files (see
 * libssh2.c): an exec channel pumped in one direction at a time under the
 * connection's deadline (stdin fed, stdout kept up to cap and counted past
 * it, stderr bounded), and a file written over SFTP to a temporary name,
 * given its mode, then renamed into place.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "log.h"
#include "monotime.h"
#include "libssh2-int.h"
#include "ssh.h"
#include "transport.h"
#include "sshkey.h"
#include "sshq.h"
#include "xmalloc.h"

/* ---- commands ---- */

struct ssh2_pump {
	const char	*in;
	size_t		 inlen, inoff;
	int		 eof_sent;
	size_t		 cap;
	struct buf	 out, err;
	int		 truncated;
};

enum ssh2_op { SSH_OP_NONE, SSH_OP_WRITE, SSH_OP_EOF, SSH_OP_READ_OUT, SSH_OP_READ_ERR };

/*
 * One step of op.  1 when it moved data, 0 when it would block, -1 when the
 * channel broke (err filled).  A step that leaves output half-sent is
 * remembered in *pending and repeated alone before anything else.
 */
static int
ssh2_pump_op(struct ssh2_conn *c, LIBSSH2_CHANNEL *ch, struct ssh2_pump *p, enum ssh2_op op,
    enum ssh2_op *pending, char *chunk, struct ssh_error *err)
{
	struct buf *into;
	ssize_t n;
	size_t keep, limit;
	int stream;

	switch (op) {
	case SSH_OP_WRITE:
		if (p->inoff >= p->inlen)
			return 0;
		n = libssh2_channel_write_ex(ch, 0, p->in + p->inoff, p->inlen - p->inoff);
		if (ssh2_out_pending(c, n)) {
			*pending = op;
			return 0;
		}
		if (n > 0) {
			p->inoff += (size_t)n;
			return 1;
		}
		if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
			/* The command stopped reading (or exited): the rest of stdin is moot. */
			log_debug("%s: stdin not taken after %zu bytes (%zd)", c->label, p->inoff, n);
			p->inoff = p->inlen;
			p->eof_sent = 1;
		}
		return 0;
	case SSH_OP_EOF:
		if (p->eof_sent || p->inoff < p->inlen)
			return 0;
		n = libssh2_channel_send_eof(ch);
		if (ssh2_out_pending(c, n)) {
			*pending = op;
			return 0;
		}
		if (n != LIBSSH2_ERROR_EAGAIN)
			p->eof_sent = 1;
		return n == 0;
	case SSH_OP_READ_OUT:
	case SSH_OP_READ_ERR:
		stream = op == SSH_OP_READ_OUT ? 0 : SSH_EXTENDED_DATA_STDERR;
		n = libssh2_channel_read_ex(ch, stream, chunk, SSH_CHUNK);
		if (ssh2_out_pending(c, n)) {
			*pending = op;
			return 0;
		}
		if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
			return 0;
		if (n < 0) {
			ssh2_fail_call(c, err, SSH_FAIL_IO, (int)n, "reading the command's output");
			return -1;
		}
		into = stream == 0 ? &p->out : &p->err;
		limit = stream == 0 ? p->cap : SSH_ERR_KEEP;
		keep = into->len < limit ? limit - into->len : 0;
		if (keep > (size_t)n)
			keep = (size_t)n;
		if (keep > 0)
			buf_append(into, chunk, keep);
		if (stream == 0 && keep < (size_t)n)
			p->truncated = 1;
		return 1;
	case SSH_OP_NONE:
		break;
	}
	return 0;
}

/* Feed stdin, drain stdout and stderr together until the remote end says EOF. */
static int
ssh2_pump_run(struct ssh2_conn *c, LIBSSH2_CHANNEL *ch, struct ssh2_pump *p, struct ssh_error *err)
{
	static const enum ssh2_op order[] = { SSH_OP_WRITE, SSH_OP_EOF, SSH_OP_READ_OUT,
	    SSH_OP_READ_ERR };
	enum ssh2_op pending = SSH_OP_NONE, op;
	unsigned long avail;
	char *chunk;
	size_t i;
	int moved, r, ret = -1;

	chunk = xmalloc(SSH_CHUNK);
	for (;;) {
		moved = 0;
		if (pending != SSH_OP_NONE) {
			op = pending;
			pending = SSH_OP_NONE;
			if ((r = ssh2_pump_op(c, ch, p, op, &pending, chunk, err)) < 0)
				goto out;
			moved |= r;
		}
		for (i = 0; i < nitems(order) && pending == SSH_OP_NONE; i++) {
			if ((r = ssh2_pump_op(c, ch, p, order[i], &pending, chunk, err)) < 0)
				goto out;
			moved |= r;
		}
		if (pending == SSH_OP_NONE && libssh2_channel_eof(ch) == 1)
			break;
		if (moved && !ssh2_expired(c) &&
		    !(pending == SSH_OP_NONE && ssh2_cancel_seen(c, 0)))
			continue;
		avail = 0;
		(void)libssh2_channel_window_read_ex(ch, &avail, NULL);
		if (avail > 0 && pending == SSH_OP_NONE)
			continue;	/* already buffered by libssh2: no need to wait for the socket */
		if (c->broken || (c->cancelled && pending == SSH_OP_NONE) || ssh2_wait(c) != 0) {
			ssh2_fail_call(c, err, SSH_FAIL_TIMEOUT, LIBSSH2_ERROR_EAGAIN,
			    "running the command");
			goto out;
		}
	}
	ret = 0;
out:
	free(chunk);
	return ret;
}

int
ssh2_exec(void *conn, const char *command, const void *in, size_t inlen, size_t cap,
    struct ssh_result *res, struct ssh_error *err)
{
	struct ssh2_conn *c = conn;
	struct ssh2_pump p;
	LIBSSH2_CHANNEL *ch = NULL;
	char *sig = NULL;
	size_t siglen = 0;
	int rc, ret = -1;

	memset(&p, 0, sizeof(p));
	buf_init(&p.out);
	buf_init(&p.err);
	p.in = in;
	p.inlen = in != NULL ? inlen : 0;
	p.cap = cap;
	if (c->broken) {
		ssh_error_set(err, deadline_expired(&c->deadline) ? SSH_FAIL_TIMEOUT : SSH_FAIL_IO,
		    "%s: the connection is no longer usable", c->label);
		err->unsent = 1;
		goto out;
	}
	/* Silence is counted while we wait, not while the caller was busy elsewhere. */
	c->heard_ms = monotime_ms();
	/*
	 * A channel opened ahead (a held connection's) saves the open's round
	 * trip; one whose open is still under way is simply waited for (the
	 * same libssh2 call carries on with it).
	 */
	ch = c->spare;
	c->spare = NULL;
	while (ch == NULL) {
		if ((ch = libssh2_channel_open_session(c->s)) != NULL ||
		    !ssh2_again(c, libssh2_session_last_errno(c->s)))
			break;
	}
	c->opening = 0;
	if (ch == NULL) {
		ssh2_fail_call(c, err, SSH_FAIL_EXEC, libssh2_session_last_errno(c->s),
		    "opening a session channel");
		err->unsent = 1;
		goto out;
	}
	do
		rc = libssh2_channel_exec(ch, command);
	while (ssh2_again(c, rc));
	if (rc != 0) {
		ssh2_fail_call(c, err, SSH_FAIL_EXEC, rc, "starting the command");
		goto out;
	}
	if (ssh2_pump_run(c, ch, &p, err) != 0)
		goto out;
	/* EOF seen; the exit status comes just before the server closes the channel. */
	do
		rc = libssh2_channel_wait_closed(ch);
	while (ssh2_again(c, rc));
	if (rc != 0) {
		ssh2_fail_call(c, err, SSH_FAIL_IO, rc, "waiting for the command to exit");
		goto out;
	}
	res->exit_status = libssh2_channel_get_exit_status(ch);
	if (libssh2_channel_get_exit_signal(ch, &sig, &siglen, NULL, NULL, NULL, NULL) == 0 &&
	    sig != NULL) {
		res->exit_signal = xstrndup(sig, siglen);
		res->exit_status = -1;
	}
	do
		rc = libssh2_channel_close(ch);
	while (ssh2_again(c, rc));
	res->out_len = p.out.len;
	res->out = buf_detach(&p.out);	/* transferred */
	res->err_len = p.err.len;
	res->err = buf_detach(&p.err);	/* transferred */
	res->truncated = p.truncated;
	ret = 0;
out:
	if (sig != NULL)
		libssh2_free(c->s, sig);
	ssh2_channel_release(c, ch);
	buf_free(&p.out);
	buf_free(&p.err);
	if (ret != 0)
		ssh_result_free(res);
	return ret;
}

/*
 * One step of opening the spare channel, without waiting: 1 when it is open
 * (c->spare), 0 while the answer is still on its way, -1 when the open
 * failed (-2: the connection with it).  A request is never left half-sent.
 */
static int
ssh2_spare_step(struct ssh2_conn *c)
{
	LIBSSH2_CHANNEL *ch;
	char lib[400];
	int rc;

	for (;;) {
		if ((ch = libssh2_channel_open_session(c->s)) != NULL) {
			c->spare = ch;
			c->opening = 0;
			return 1;
		}
		rc = libssh2_session_last_errno(c->s);
		if (rc != LIBSSH2_ERROR_EAGAIN)
			break;
		c->opening = 1;
		if (!(libssh2_session_block_directions(c->s) & LIBSSH2_SESSION_BLOCK_OUTBOUND))
			return 0;
		if (ssh2_wait(c) != 0)
			return -2;
	}
	c->opening = 0;
	ssh2_lib_error(c, lib, sizeof(lib));
	log_debug("%s: no channel opened ahead: %s", c->label, lib);
	return rc == LIBSSH2_ERROR_SOCKET_RECV || rc == LIBSSH2_ERROR_SOCKET_SEND ||
	    rc == LIBSSH2_ERROR_SOCKET_DISCONNECT || rc == LIBSSH2_ERROR_SOCKET_TIMEOUT ? -2 : -1;
}

/*
 * Ask for a session channel now without waiting for it (the exec that comes
 * next takes it in): 0, or -1 when the request could not go out.
 */
int
ssh2_open_ahead(struct ssh2_conn *c)
{
	if (c->spare != NULL || c->opening)
		return 0;
	return c->broken || ssh2_spare_step(c) < 0 ? -1 : 0;
}

/* Wait for an open under way to end (before something else opens a channel): 0 or -1. */
int
ssh2_spare_finish(struct ssh2_conn *c)
{
	int r;

	while (c->opening) {
		if ((r = ssh2_spare_step(c)) < 0)
			return -1;
		if (r == 0 && ssh2_wait(c) != 0) {
			c->opening = 0;	/* the connection is broken: nothing more will come */
			return -1;
		}
	}
	return 0;
}

/*
 * ssh_conn_prepare: ask for the next exec's session channel now, between
 * looks, and do not wait for the answer: it is taken in by the next look (or
 * by ssh_conn_idle), so a look that comes at once never waits for it.  0, or
 * -1 (the next exec opens its own).
 */
int
ssh2_prepare(void *conn)
{
	struct ssh2_conn *c = conn;

	return ssh2_open_ahead(c);
}

/*
 * Between looks: take in what arrived (the spare's answer, keepalive
 * replies, a close), without waiting.  0 when the spare (if any) is still
 * good; -1 when the connection is gone.  A spare the server closed (or one
 * it refused) is dropped; the next exec opens its own.
 */
int
ssh2_spare_check(struct ssh2_conn *c)
{
	char byte;
	ssize_t n;

	if (c->opening && ssh2_spare_step(c) == -2)
		return -1;
	if (c->spare == NULL)
		return 0;
	n = libssh2_channel_read_ex(c->spare, 0, &byte, 1);
	if (n == LIBSSH2_ERROR_EAGAIN && !libssh2_channel_eof(c->spare))
		return 0;
	if (n == LIBSSH2_ERROR_SOCKET_RECV || n == LIBSSH2_ERROR_SOCKET_SEND ||
	    n == LIBSSH2_ERROR_SOCKET_DISCONNECT || n == LIBSSH2_ERROR_SOCKET_TIMEOUT ||
	    n == LIBSSH2_ERROR_TIMEOUT)
		return -1;
	/* Data or end of file on a channel that runs nothing: not ours to use. */
	ssh2_channel_release(c, c->spare);
	c->spare = NULL;
	return 0;
}

/* ---- files ---- */

static const char *
ssh2_sftp_status(unsigned long st)
{
	static const struct {
		unsigned long	 code;
		const char	*text;
	} table[] = {
		{ LIBSSH2_FX_NO_SUCH_FILE, "no such file or directory" },
		{ LIBSSH2_FX_PERMISSION_DENIED, "permission denied" },
		{ LIBSSH2_FX_FAILURE, "failure" },
		{ LIBSSH2_FX_OP_UNSUPPORTED, "operation not supported" },
		{ LIBSSH2_FX_NO_SUCH_PATH, "no such path" },
		{ LIBSSH2_FX_FILE_ALREADY_EXISTS, "file already exists" },
		{ LIBSSH2_FX_WRITE_PROTECT, "write protected" },
		{ LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM, "no space left on the file system" },
		{ LIBSSH2_FX_QUOTA_EXCEEDED, "quota exceeded" },
		{ LIBSSH2_FX_NOT_A_DIRECTORY, "not a directory" },
	};
	size_t i;

	for (i = 0; i < nitems(table); i++)
		if (table[i].code == st)
			return table[i].text;
	return "error";
}

/* An SFTP call failed: a refusal by the server (EXEC) or a broken connection. */
static void
ssh2_sftp_fail(struct ssh2_conn *c, LIBSSH2_SFTP *sftp, int rc, struct ssh_error *err,
    const char *what, const char *path)
{
	char buf[300];
	unsigned long st;

	if (rc == LIBSSH2_ERROR_SFTP_PROTOCOL && sftp != NULL) {
		st = libssh2_sftp_last_error(sftp);
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: sftp: cannot %s %s: %s (status %lu)", c->label,
		    what, path, ssh2_sftp_status(st), st);
		return;
	}
	snprintf(buf, sizeof(buf), "sftp %s of %s", what, path);
	ssh2_fail_call(c, err, rc == LIBSSH2_ERROR_EAGAIN ? SSH_FAIL_TIMEOUT : SSH_FAIL_IO, rc, buf);
}

/* Rename over path with one rename(2) on the box, for servers that refuse SFTP overwrite. */
static int
ssh2_put_mv(struct ssh2_conn *c, const char *tmp, const char *path, struct ssh_error *err)
{
	struct ssh_result r;
	struct buf cmd = BUF_INIT;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	buf_puts(&cmd, "mv -f -- ");
	sshq_append(&cmd, tmp);
	buf_putc(&cmd, ' ');
	sshq_append(&cmd, path);
	/* The marker: a server that forces its own command (internal-sftp) exits 0 too. */
	buf_puts(&cmd, " && echo wk-mv-done");
	if (ssh2_exec(c, buf_str(&cmd), NULL, 0, 4096, &r, err) != 0)
		goto out;
	if (r.exit_status != 0 || strcmp(r.out, "wk-mv-done\n") != 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: mv %s over %s failed (exit %d): %.300s",
		    c->label, tmp, path, r.exit_status, r.err != NULL ? r.err : "");
		goto out;
	}
	ret = 0;
out:
	ssh_result_free(&r);
	buf_free(&cmd);
	return ret;
}

static int
ssh2_put_rename(struct ssh2_conn *c, LIBSSH2_SFTP *sftp, const char *tmp, const char *path,
    struct ssh_error *err)
{
	unsigned long st;
	int rc;

	do
		rc = libssh2_sftp_rename_ex(sftp, tmp, (unsigned int)strlen(tmp), path,
		    (unsigned int)strlen(path), LIBSSH2_SFTP_RENAME_OVERWRITE |
		    LIBSSH2_SFTP_RENAME_ATOMIC | LIBSSH2_SFTP_RENAME_NATIVE);
	while (ssh2_again(c, rc));
	if (rc == 0)
		return 0;
	if (rc != LIBSSH2_ERROR_SFTP_PROTOCOL) {
		ssh2_sftp_fail(c, sftp, rc, err, "rename", tmp);
		return -1;
	}
	st = libssh2_sftp_last_error(sftp);
	if (st != LIBSSH2_FX_FAILURE && st != LIBSSH2_FX_FILE_ALREADY_EXISTS &&
	    st != LIBSSH2_FX_OP_UNSUPPORTED) {
		ssh2_sftp_fail(c, sftp, rc, err, "rename", tmp);
		return -1;
	}
	/*
	 * SFTP v3 (OpenSSH) will not rename over an existing file.  A shell's
	 * mv is still one atomic rename(2); only a server without a shell gets
	 * remove-then-rename, which leaves a moment with no file at path.
	 */
	if (ssh2_put_mv(c, tmp, path, err) == 0)
		return 0;
	if (c->broken)
		return -1;
	log_warn("%s; replacing %s non-atomically", err->msg, path);
	ssh_error_clear(err);
	do
		rc = libssh2_sftp_unlink_ex(sftp, path, (unsigned int)strlen(path));
	while (ssh2_again(c, rc));
	if (rc != 0 && !(rc == LIBSSH2_ERROR_SFTP_PROTOCOL &&
	    libssh2_sftp_last_error(sftp) == LIBSSH2_FX_NO_SUCH_FILE)) {
		ssh2_sftp_fail(c, sftp, rc, err, "remove", path);
		return -1;
	}
	do
		rc = libssh2_sftp_rename_ex(sftp, tmp, (unsigned int)strlen(tmp), path,
		    (unsigned int)strlen(path), 0);
	while (ssh2_again(c, rc));
	if (rc != 0) {
		ssh2_sftp_fail(c, sftp, rc, err, "rename", tmp);
		return -1;
	}
	return 0;
}

int
ssh2_put(void *conn, const char *remote_path, const void *data, size_t len, int mode,
    struct ssh_error *err)
{
	struct ssh2_conn *c = conn;
	LIBSSH2_SFTP_ATTRIBUTES attrs;
	LIBSSH2_SFTP *sftp = NULL;
	LIBSSH2_SFTP_HANDLE *h = NULL;
	char *tmp = NULL;
	const char *p = data;
	size_t off = 0;
	ssize_t n;
	int rc, ret = -1, created = 0, tries = 0;

	if (c->broken) {
		ssh_error_set(err, deadline_expired(&c->deadline) ? SSH_FAIL_TIMEOUT : SSH_FAIL_IO,
		    "%s: the connection is no longer usable", c->label);
		goto out;
	}
	/* Silence is counted while we wait, not while the caller was busy elsewhere. */
	c->heard_ms = monotime_ms();
	tmp = xstrfmt("%s.wk-tmp.%ld", remote_path, (long)getpid());
	/* libssh2 opens one channel at a time per session: an open under way ends first. */
	(void)ssh2_spare_finish(c);
	do
		sftp = libssh2_sftp_init(c->s);
	while (sftp == NULL && ssh2_again(c, libssh2_session_last_errno(c->s)));
	if (sftp == NULL) {
		ssh2_fail_call(c, err, SSH_FAIL_EXEC, libssh2_session_last_errno(c->s),
		    "starting the sftp subsystem");
		goto out;
	}
	do
		h = libssh2_sftp_open_ex(sftp, tmp, (unsigned int)strlen(tmp), LIBSSH2_FXF_WRITE |
		    LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC, mode, LIBSSH2_SFTP_OPENFILE);
	while (h == NULL && ssh2_again(c, libssh2_session_last_errno(c->s)));
	if (h == NULL) {
		ssh2_sftp_fail(c, sftp, libssh2_session_last_errno(c->s), err, "create", tmp);
		goto out;
	}
	created = 1;
	while (off < len) {
		/* Bounded: libssh2 1.10 copies the whole buffer into packets in one call. */
		n = libssh2_sftp_write(h, p + off, len - off < SSH_SFTP_WRITE_MAX ?
		    len - off : SSH_SFTP_WRITE_MAX);
		if (n > 0 && ssh2_expired(c))
			n = LIBSSH2_ERROR_EAGAIN;
		if (n > 0)
			off += (size_t)n;
		else if (!ssh2_again(c, (int)n)) {
			ssh2_sftp_fail(c, sftp, n == 0 ? LIBSSH2_ERROR_SOCKET_SEND : (int)n, err,
			    "write", tmp);
			goto out;
		}
	}
	/* Exactly mode: the server's umask applied to the create. */
	memset(&attrs, 0, sizeof(attrs));
	attrs.flags = LIBSSH2_SFTP_ATTR_PERMISSIONS;
	attrs.permissions = (unsigned long)mode & 07777;
	do
		rc = libssh2_sftp_fsetstat(h, &attrs);
	while (ssh2_again(c, rc));
	if (rc != 0) {
		ssh2_sftp_fail(c, sftp, rc, err, "chmod", tmp);
		goto out;
	}
	do
		rc = libssh2_sftp_fsync(h);
	while (ssh2_again(c, rc));
	if (rc != 0 && (rc != LIBSSH2_ERROR_SFTP_PROTOCOL ||
	    libssh2_sftp_last_error(sftp) != LIBSSH2_FX_OP_UNSUPPORTED)) {
		ssh2_sftp_fail(c, sftp, rc, err, "fsync", tmp);
		goto out;
	}
	do
		rc = libssh2_sftp_close_handle(h);
	while (ssh2_again(c, rc));
	h = NULL;
	if (rc != 0) {
		ssh2_sftp_fail(c, sftp, rc, err, "close", tmp);
		goto out;
	}
	if (ssh2_put_rename(c, sftp, tmp, remote_path, err) != 0)
		goto out;
	created = 0;
	ret = 0;
out:
	if (h != NULL) {
		while (libssh2_sftp_close_handle(h) == LIBSSH2_ERROR_EAGAIN &&
		    tries < SSH_FREE_TRIES)
			if (c->broken || ssh2_wait(c) != 0)
				tries++;
	}
	if (created && !c->broken) {
		do
			rc = libssh2_sftp_unlink_ex(sftp, tmp, (unsigned int)strlen(tmp));
		while (ssh2_again(c, rc));
	}
	tries = 0;
	if (sftp != NULL) {
		while (libssh2_sftp_shutdown(sftp) == LIBSSH2_ERROR_EAGAIN && tries < SSH_FREE_TRIES)
			if (c->broken || ssh2_wait(c) != 0)
				tries++;
	}
	free(tmp);
	return ret;
}
