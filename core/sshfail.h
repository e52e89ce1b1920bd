/*
 * sshfail.h: how an ssh connection to the box failed, as both sides of the
 * house name it: the ssh stack (../ssh/) sets it, patrol's decision table
 * (decide.c) and the reports read it.  Here in core/ so that those build
 * without the ssh library; ssh/ssh.h includes it.
 */
#ifndef WK_SSHFAIL_H
#define WK_SSHFAIL_H

enum ssh_fail {
	SSH_OK = 0,
	SSH_FAIL_RESOLVE,	/* the host name does not resolve */
	SSH_FAIL_CONNECT,	/* refused, unreachable, or no answer within connect_timeout */
	SSH_FAIL_HANDSHAKE,	/* the SSH handshake failed or timed out */
	SSH_FAIL_HOSTKEY_UNKNOWN,	/* no known_hosts entry for this host[:port] */
	SSH_FAIL_HOSTKEY_MISMATCH,	/* an entry exists and the key differs: never accepted */
	SSH_FAIL_AUTH,		/* no identity was accepted */
	SSH_FAIL_TIMEOUT,	/* the connection's total deadline passed */
	SSH_FAIL_IO,		/* the connection broke mid-command */
	SSH_FAIL_EXEC,		/* the channel or command could not be started */
	SSH_FAIL_UNSUPPORTED,	/* e.g. ProxyJump with libssh2: use transport openssh */
};

struct ssh_error {
	enum ssh_fail	kind;
	char		msg[1024];	/* what happened and what to do, for a person */
	char		fingerprint[128];	/* SHA256:... of the server key (hostkey errors) */
	/*
	 * An exec that failed before its channel opened: the command never
	 * reached the box, so running it again on a new connection is safe
	 * (ssh/warm.c's retry).
	 */
	int		unsent;
};

const char *ssh_fail_name(enum ssh_fail kind);	/* "hostkey_mismatch" ... */
/*
 * kind as a code of core's one vocabulary (err.h: WK_OK, WK_ERR_SSH_*,
 * WK_ERR_TIMEOUT, WK_ERR_EXEC), for wk_strerror; the message a person
 * reads stays in struct ssh_error.
 */
int ssh_fail_code(enum ssh_fail kind);
/* Set err's kind and message (both transports use it). */
void ssh_error_set(struct ssh_error *err, enum ssh_fail kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* No failure: SSH_OK, empty message and fingerprint. */
void ssh_error_clear(struct ssh_error *err);

#endif
