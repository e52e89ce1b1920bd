/*
 * err.h: the one error-code enum of watchkeeper's core (OpenSSH's ssherr.h shape).
 *
 * The convention, for every core and patrol module that fails:
 * - a function that can fail returns 0 (or a count / a descriptor >= 0) on
 *   success and a negative WK_ERR_* code on failure, never a bare -1 that means
 *   "something";
 * - WK_ERR_SYSTEM means "look at errno": the failing function leaves errno set
 *   to the cause (saving and restoring it around its cleanup), so
 *   wk_strerror(WK_ERR_SYSTEM) reads exactly as strerror(errno) did;
 * - wk_strerror() is the only place that turns a code into text;
 * - who prints: the library returns the code (and, where it has more to say, a
 *   "why" string or a diag entry); the caller that owns the user's terminal
 *   (a command, patrol's tick, a main()) prints "<what>: wk_strerror(code)" and
 *   picks the exit code (exits.h).  A library function never picks an exit code.
 * A -1 that is a value rather than a failure ("no timeout" for poll(), "not
 * known" for a counter) stays -1 and is said so where the function is declared.
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
	WK_ERR_REMOTE = -11,	/* a command on the box failed or did not answer as asked
				   (the message printed says what the box said) */
	/* The ssh failures (enum ssh_fail, sshfail.c maps them; struct ssh_error has the message). */
	WK_ERR_SSH_RESOLVE = -12,
	WK_ERR_SSH_CONNECT = -13,
	WK_ERR_SSH_HANDSHAKE = -14,
	WK_ERR_SSH_HOSTKEY_UNKNOWN = -15,
	WK_ERR_SSH_HOSTKEY_MISMATCH = -16,
	WK_ERR_SSH_AUTH = -17,
	WK_ERR_SSH_IO = -18,
	WK_ERR_SSH_UNSUPPORTED = -19,
};

/* Text for a WK_ERR_* code; for WK_ERR_SYSTEM the current errno's text. */
const char *wk_strerror(int code);

#endif
