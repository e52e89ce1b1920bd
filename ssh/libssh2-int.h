/*
 * libssh2-int.h: what the parts of the libssh2 transport share (libssh2.c:
 * the session, socket I/O, waiting, connect and close; libssh2-hostkey.c:
 * known_hosts and host key checking; libssh2-auth.c: authentication;
 * libssh2-chan.c: commands and SFTP).  Private to those four files.
 */
#ifndef WK_SSH_LIBSSH2_INT_H
#define WK_SSH_LIBSSH2_INT_H

#include <stddef.h>
#include <stdint.h>

#include <libssh2.h>
#include <libssh2_sftp.h>

#include "buf.h"
#include "monotime.h"
#include "ssh.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

/* Unacknowledged data for this long and the kernel gives up on the peer. */
#define SSH_USER_TIMEOUT_MS	3000
#define SSH_ERR_KEEP		(64 * 1024)	/* stderr kept per command */
#define SSH_CHUNK		32768
#define SSH_SFTP_WRITE_MAX	(1024 * 1024)	/* bytes handed to one libssh2_sftp_write */
#define SSH_KNOWN_HOSTS_MAX	(16 * 1024 * 1024)
/* libssh2 said EAGAIN without saying which way it is blocked: look again soon. */
#define SSH_IDLE_POLL_MS	10
/* A polite goodbye may take this long on a healthy connection. */
#define SSH_BYE_MS		500
/* After shutdown(), a free that still says EAGAIN is retried at most this often. */
#define SSH_FREE_TRIES		8

/* One libssh2 connection. */
struct ssh2_conn {
	int		 fd;
	LIBSSH2_SESSION	*s;
	struct deadline	 deadline;
	int		 deadline_ms;
	char		*label;		/* "alias (host port N)", for messages */
	char		*host;
	char		*hostname;	/* as known_hosts names it: host or [host]:port */
	int		 port;
	char		*user;
	int		 keepalive_s;	/* 0 until the handshake is done */
	int		 keepalive_max;
	uint64_t	 heard_ms;	/* server last heard from, or the operation began */
	int		 sock_errno;	/* the last socket error seen by libssh2's I/O */
	enum ssh_fail	 wait_fail;	/* why the last wait gave up */
	int		 broken;	/* shut down: only freeing is left */
	int		 cancel_fd;	/* readable or hung up: end the exec (ssh_conn_limit); -1 none */
	int		 cancelled;	/* it did: the exec fails, the connection stays */
	LIBSSH2_CHANNEL	*spare;		/* opened ahead for the next exec (ssh_conn_prepare) */
	int		 opening;	/* its open request is out, the answer not taken in yet */
	unsigned long	 sends;		/* send() calls that moved bytes (libssh2-auth.c counts packets) */
};

/* The known_hosts files of one connection attempt (libssh2-hostkey.c). */
struct ssh2_known {
	LIBSSH2_KNOWNHOSTS	**files;	/* one collection per file given */
	size_t			  nfiles;
	LIBSSH2_KNOWNHOSTS	 *revoked;	/* @revoked lines of every file */
	unsigned int		  types;	/* bit i: this host has an ssh2_keytypes[i] entry */
};

/* libssh2.c: the session, its socket and its one deadline */
void ssh2_base64(struct buf *b, const unsigned char *p, size_t n, int pad);
int ssh2_expired(struct ssh2_conn *c);
int ssh2_wait(struct ssh2_conn *c);
int ssh2_again(struct ssh2_conn *c, int rc);
int ssh2_cancel_seen(struct ssh2_conn *c, int ms);
int ssh2_out_pending(struct ssh2_conn *c, long rc);
void ssh2_lib_error(struct ssh2_conn *c, char *out, size_t outlen);
void ssh2_fail_call(struct ssh2_conn *c, struct ssh_error *err, enum ssh_fail kind, int rc,
    const char *what);
void ssh2_channel_release(struct ssh2_conn *c, LIBSSH2_CHANNEL *ch);

/* libssh2-hostkey.c: known_hosts and the server's key */
void ssh2_known_load(struct ssh2_conn *c, const struct ssh_target *t, struct ssh2_known *k);
void ssh2_known_free(struct ssh2_known *k);
void ssh2_hostkey_prefs(struct ssh2_conn *c, const struct ssh2_known *k);
int ssh2_hostkey_verify(struct ssh2_conn *c, const struct ssh_target *t, const struct ssh2_known *k,
    struct ssh_error *err);

/* libssh2-auth.c: the agent, then the identity files */
int ssh2_auth(struct ssh2_conn *c, const struct ssh_target *t, struct ssh_error *err);

/* libssh2-chan.c: commands and files */
int ssh2_exec(void *conn, const char *command, const void *in, size_t inlen, size_t cap,
    struct ssh_result *res, struct ssh_error *err);
int ssh2_prepare(void *conn);
int ssh2_open_ahead(struct ssh2_conn *c);
int ssh2_spare_finish(struct ssh2_conn *c);
int ssh2_spare_check(struct ssh2_conn *c);
int ssh2_put(void *conn, const char *remote_path, const void *data, size_t len, int mode,
    struct ssh_error *err);

#endif
