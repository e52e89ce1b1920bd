/*
 * transport.h: what an ssh transport is, for the front (ssh.c) and the two
 * that exist: libssh2 (libssh2.c and its parts) and the system `ssh` client
 * (sshcli.c, for ProxyJump, certificates, RSA keys).  Private to ssh/:
 * callers use ssh.h, which picks the transport from target->openssh.
 *
 * The front does what both share before calling in: the caller's error is
 * cleared (never NULL here), *out is NULL, deadline_ms is at least 1, an
 * exec's result is zeroed with exit_status -1.  Each function then behaves
 * as its ssh.h namesake; close takes NULL and frees the connection.
 */
#ifndef WK_SSH_TRANSPORT_H
#define WK_SSH_TRANSPORT_H

#include <stddef.h>

/* ssh.h's types; not included, so that the interface depends on nothing of the front. */
struct ssh_error;
struct ssh_result;
struct ssh_target;

struct ssh_transport {
	const char	*name;		/* "libssh2", "openssh" */
	int		(*connect)(const struct ssh_target *t, int deadline_ms, void **out,
			    struct ssh_error *err);
	int		(*exec)(void *conn, const char *command, const void *in, size_t inlen,
			    size_t cap, struct ssh_result *res, struct ssh_error *err);
	int		(*put)(void *conn, const char *remote_path, const void *data, size_t len,
			    int mode, struct ssh_error *err);
	void		(*close)(void *conn);
	/* ssh.h's ssh_conn_limit, ssh_conn_idle, ssh_conn_prepare; NULL where unsupported. */
	void		(*limit)(void *conn, int deadline_ms, int cancel_fd);
	int		(*idle)(void *conn, int keepalive);
	int		(*prepare)(void *conn);
};

extern const struct ssh_transport ssh_transport_libssh2;	/* libssh2.c */
extern const struct ssh_transport ssh_transport_openssh;	/* sshcli.c */
/*
 * The transport ssh_connect takes for a target with ->warm set: NULL (then
 * libssh2) unless warm looks are on in this process (warm.c sets it at
 * warm_init, so that the front never has to know them).
 */
extern const struct ssh_transport *ssh_transport_held;	/* ssh.c's; warm.c sets it */

#endif
