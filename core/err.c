/*
 * err.c: text for the WK_ERR_* codes (see err.h).
 */
#include <errno.h>
#include <string.h>

#include "err.h"

static const struct {
	int code;
	const char *text;
} err_table[] = {
	{ WK_OK, "success" },
	{ WK_ERR_INVALID, "invalid argument or input" },
	{ WK_ERR_PARSE, "parse error" },
	{ WK_ERR_NOTFOUND, "not found" },
	{ WK_ERR_BUSY, "held by another process" },
	{ WK_ERR_TIMEOUT, "timed out" },
	{ WK_ERR_TOOLONG, "too long" },
	{ WK_ERR_EXEC, "could not start program" },
	{ WK_ERR_REGEX, "regular expression error" },
	{ WK_ERR_STALE, "stale record" },
	{ WK_ERR_REMOTE, "failed on the box" },
	{ WK_ERR_SSH_RESOLVE, "ssh: the host name does not resolve" },
	{ WK_ERR_SSH_CONNECT, "ssh: no connection" },
	{ WK_ERR_SSH_HANDSHAKE, "ssh: the handshake failed" },
	{ WK_ERR_SSH_HOSTKEY_UNKNOWN, "ssh: the host key is not known" },
	{ WK_ERR_SSH_HOSTKEY_MISMATCH, "ssh: the host key does not match" },
	{ WK_ERR_SSH_AUTH, "ssh: no identity was accepted" },
	{ WK_ERR_SSH_IO, "ssh: the connection broke" },
	{ WK_ERR_SSH_UNSUPPORTED, "ssh: not possible with this transport" },
};

const char *
wk_strerror(int code)
{
	size_t i;

	if (code == WK_ERR_SYSTEM)
		return strerror(errno);
	for (i = 0; i < sizeof(err_table) / sizeof(err_table[0]); i++)
		if (err_table[i].code == code)
			return err_table[i].text;
	return "unknown error";
}
