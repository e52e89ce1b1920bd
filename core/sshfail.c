/*
 * sshfail.c: names and err.h codes of the ssh failure kinds (sshfail.h),
 * apart from the ssh library so that everything that reports them
 * (decide.c, the transports, patrol) builds without it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "sshfail.h"

/* Each kind: its name in reports, and its code in core's one vocabulary (err.h). */
static const struct {
	enum ssh_fail	 kind;
	const char	*name;
	int		 code;
} ssh_fail_table[] = {
	{ SSH_OK, "ok", WK_OK },
	{ SSH_FAIL_RESOLVE, "resolve", WK_ERR_SSH_RESOLVE },
	{ SSH_FAIL_CONNECT, "connect", WK_ERR_SSH_CONNECT },
	{ SSH_FAIL_HANDSHAKE, "handshake", WK_ERR_SSH_HANDSHAKE },
	{ SSH_FAIL_HOSTKEY_UNKNOWN, "hostkey_unknown", WK_ERR_SSH_HOSTKEY_UNKNOWN },
	{ SSH_FAIL_HOSTKEY_MISMATCH, "hostkey_mismatch", WK_ERR_SSH_HOSTKEY_MISMATCH },
	{ SSH_FAIL_AUTH, "auth", WK_ERR_SSH_AUTH },
	{ SSH_FAIL_TIMEOUT, "timeout", WK_ERR_TIMEOUT },
	{ SSH_FAIL_IO, "io", WK_ERR_SSH_IO },
	{ SSH_FAIL_EXEC, "exec", WK_ERR_EXEC },
	{ SSH_FAIL_UNSUPPORTED, "unsupported", WK_ERR_SSH_UNSUPPORTED },
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

int
ssh_fail_code(enum ssh_fail kind)
{
	size_t i;

	for (i = 0; i < sizeof(ssh_fail_table) / sizeof(ssh_fail_table[0]); i++)
		if (ssh_fail_table[i].kind == kind)
			return ssh_fail_table[i].code;
	return WK_ERR_INVALID;
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
	err->unsent = 0;
}
