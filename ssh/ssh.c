/*
 * ssh.c: the front of the ssh stack (see ssh.h): picks the transport of a
 * target (transport.h: libssh2, or the system ssh for target->openssh) and
 * does what every call shares before handing it over, so that the two
 * transports only do what differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ssh.h"
#include "transport.h"
#include "xmalloc.h"

const struct ssh_transport *ssh_transport_held;

struct ssh_conn {
	const struct ssh_transport	*ops;
	void				*tc;	/* the transport's own connection */
};

int
ssh_connect(const struct ssh_target *t, int deadline_ms, struct ssh_conn **out,
    struct ssh_error *err)
{
	struct ssh_error scratch;
	struct ssh_conn *c;
	int ret = -1;

	if (err == NULL)
		err = &scratch;
	*out = NULL;
	ssh_error_clear(err);
	c = xcalloc(1, sizeof(*c));
	/* A held connection first (either transport, held by its holder), else the target's own. */
	c->ops = t->warm && ssh_transport_held != NULL ? ssh_transport_held : t->openssh ?
	    &ssh_transport_openssh : &ssh_transport_libssh2;
	if (c->ops->connect(t, deadline_ms > 0 ? deadline_ms : 1, &c->tc, err) != 0) {
		/* A tick from cron or a timer: say why a key in an agent could not help. */
		if (err->kind == SSH_FAIL_AUTH && ssh_agent_find() == SSH_AGENT_NONE) {
			size_t n = strlen(err->msg);

			snprintf(err->msg + n, sizeof(err->msg) - n, " (no ssh-agent reached: "
			    "SSH_AUTH_SOCK is not set, as under cron or a systemd timer, and no agent "
			    "socket is in %s)", ssh_agent_where());
		}
		goto out;
	}
	*out = c;
	c = NULL;	/* transferred */
	ret = 0;
out:
	ssh_close(c);
	return ret;
}

int
ssh_exec(struct ssh_conn *c, const char *command, const void *in, size_t inlen, size_t cap,
    struct ssh_result *res, struct ssh_error *err)
{
	struct ssh_error scratch;

	if (err == NULL)
		err = &scratch;
	ssh_error_clear(err);
	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	return c->ops->exec(c->tc, command, in, inlen, cap, res, err);
}

int
ssh_put(struct ssh_conn *c, const char *remote_path, const void *data, size_t len, int mode,
    struct ssh_error *err)
{
	struct ssh_error scratch;

	if (err == NULL)
		err = &scratch;
	ssh_error_clear(err);
	return c->ops->put(c->tc, remote_path, data, len, mode, err);
}

void
ssh_close(struct ssh_conn *c)
{
	if (c == NULL)
		return;
	c->ops->close(c->tc);
	free(c);
}

void
ssh_conn_limit(struct ssh_conn *c, int deadline_ms, int cancel_fd)
{
	if (c->ops->limit != NULL)
		c->ops->limit(c->tc, deadline_ms > 0 ? deadline_ms : 1, cancel_fd);
}

int
ssh_conn_idle(struct ssh_conn *c, int keepalive)
{
	return c->ops->idle != NULL ? c->ops->idle(c->tc, keepalive) : -1;
}

int
ssh_conn_prepare(struct ssh_conn *c)
{
	return c->ops->prepare != NULL ? c->ops->prepare(c->tc) : -1;
}

char *
ssh_script_command(const char *script)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.,:/=+@";
	struct buf b = BUF_INIT;
	const unsigned char *p;

	/*
	 * printf '<script, every other byte as \ooo>' | sh: the login shell
	 * (bash, dash, zsh, fish, even csh, which takes no newline or '!' in
	 * quotes) parses one quoted word of letters, digits and backslashes, and
	 * sh reads the script on its stdin exactly as with "sh -s".
	 */
	buf_puts(&b, "printf '");
	for (p = (const unsigned char *)script; *p != '\0' && b.len <= SSH_SCRIPT_CMD_MAX; p++) {
		if (*p != '\0' && strchr(safe, *p) != NULL)
			buf_putc(&b, (char)*p);
		else
			buf_printf(&b, "\\%03o", (unsigned int)*p);
	}
	buf_puts(&b, "' | sh");
	if (b.len > SSH_SCRIPT_CMD_MAX) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b);
}
