/*
 * err.h: the one error-code enum of watchkeeper's core.
 *
 * Core functions return 0 on success or a negative WK_ERR_* code; wk_strerror()
 * is the only place that turns a code into text.  WK_ERR_SYSTEM means "look at
 * errno", which the failing function leaves set (OpenSSH's ssherr.h shape).
 */
#ifndef WK_ERR_H
#define WK_ERR_H

enum wk_err {
	WK_OK = 0,
	WK_ERR_SYSTEM = -1,	/* errno holds the cause */
	WK_ERR_INVALID = -2,	/* bad argument or malformed input */
	WK_ERR_PARSE = -3,	/* a parser rejected its input */
	WK_ERR_NOTFOUND = -4,
	WK_ERR_BUSY = -5,	/* a lock is held by another process */
	WK_ERR_TIMEOUT = -6,
	WK_ERR_TOOLONG = -7,	/* input larger than the bound we accept */
	WK_ERR_EXEC = -8,	/* a spawned program could not be started */
	WK_ERR_REGEX = -9,	/* a pattern did not compile or matching failed */
	WK_ERR_STALE = -10,	/* a record refers to a process or boot that is gone */
	/* The ssh failures (enum ssh_fail, sshfail.c maps them; struct ssh_error has the message). */
	WK_ERR_SSH_RESOLVE = -11,
	WK_ERR_SSH_CONNECT = -12,
	WK_ERR_SSH_HANDSHAKE = -13,
	WK_ERR_SSH_HOSTKEY_UNKNOWN = -14,
	WK_ERR_SSH_HOSTKEY_MISMATCH = -15,
	WK_ERR_SSH_AUTH = -16,
	WK_ERR_SSH_IO = -17,
	WK_ERR_SSH_UNSUPPORTED = -18,
};

/* Text for a WK_ERR_* code; for WK_ERR_SYSTEM the current errno's text. */
const char *wk_strerror(int code);

#endif
