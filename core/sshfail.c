/*
 * sshfail.c: names of the ssh failure kinds (sshfail.h), apart from the libssh2
 * code so that everything that reports them (decide.c, the openssh transport,
 * patrol) builds without libssh2.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sshfail.h"

static const struct {
	enum ssh_fail	 kind;
	const char	*name;
} ssh_fail_table[] = {
	{ SSH_OK, "ok" },
	{ SSH_FAIL_RESOLVE, "resolve" },
	{ SSH_FAIL_CONNECT, "connect" },
	{ SSH_FAIL_HANDSHAKE, "handshake" },
	{ SSH_FAIL_HOSTKEY_UNKNOWN, "hostkey_unknown" },
	{ SSH_FAIL_HOSTKEY_MISMATCH, "hostkey_mismatch" },
	{ SSH_FAIL_AUTH, "auth" },
	{ SSH_FAIL_TIMEOUT, "timeout" },
	{ SSH_FAIL_IO, "io" },
	{ SSH_FAIL_EXEC, "exec" },
	{ SSH_FAIL_UNSUPPORTED, "unsupported" },
};

const char *
ssh_fail_name(enum ssh_fail kind)
{
	size_t i;

	for (i = 0; i < sizeof(ssh_fail_table) / sizeof(ssh_fail_table[0]); i++)
		if (ssh_fail_table[i].kind == kind)
			return ssh_fail_table[i].name;
	return "unknown";
}

void
ssh_error_set(struct ssh_error *err, enum ssh_fail kind, const char *fmt, ...)
{
	va_list ap;

	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void
ssh_error_clear(struct ssh_error *err)
{
	err->kind = SSH_OK;
	err->msg[0] = '\0';
	err->fingerprint[0] = '\0';
}
