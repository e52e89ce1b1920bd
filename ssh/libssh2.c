/*
 * libssh2.c: the libssh2 transport: short, bounded SSH connections on
 * libssh2 1.10 (see ssh.h, transport.h).
 *
 * The session is non-blocking from the first byte: every libssh2 call that
 * says EAGAIN is called again after poll() on the socket in the directions
 * libssh2 is blocked on, and that poll is bounded by the connection's one
 * deadline, so no call outlives it.  When the deadline passes, or the peer
 * stops answering, the socket is shut down: from then on every libssh2 call
 * fails at once instead of wanting more I/O, so freeing always completes.
 *
 * What libssh2 1.10 needs against OpenSSH 9 (../shared/NOTES.md): host-key
 * algorithms ordered from known_hosts before the handshake (it would pick
 * ecdsa and call an ed25519-only host unknown), keepalive configured only
 * after the handshake, TCP_QUICKACK re-armed after every read (our recv
 * callback) against delayed-ACK stalls, TCP_USER_TIMEOUT so that a dead peer
 * becomes a socket error a few seconds after the next unacknowledged send
 * (a keepalive, while we wait for output).
 *
 * known_hosts lines are given to libssh2 one at a time rather than through
 * libssh2_knownhost_readfile(), which stops at the first line it cannot parse
 * (@cert-authority, sk-* keys) and would forget every host below it.  A host
 * is looked up as OpenSSH does: "host" on port 22, "[host]:port" otherwise
 * (libssh2's own port handling also accepts a plain "host" line for any port).
 *
 * libssh2 must never be handed a new packet while part of another is still
 * unsent (it would either refuse or, in 1.10, count the new one as sent), so
 * an operation that leaves output pending is repeated, alone, until it is done.
 *
 * This is one of the two transports behind ssh.h (transport.h); ssh.c, the
 * front, has already cleared the caller's error and result when these run.
 * Here: the session, its socket, waiting, TCP, connect and close; the host
 * key checks are in libssh2-hostkey.c, authentication in libssh2-auth.c,
 * commands and SFTP in libssh2-chan.c (libssh2-int.h is what they share).
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
#include "err.h"
#include "fsutil.h"
#include "log.h"
#include "monotime.h"
#include "libssh2-int.h"
#include "portable.h"
#include "ssh.h"
#include "transport.h"
#include "sshkey.h"
#include "sshq.h"
#include "xmalloc.h"

static void ssh2_close(void *conn);

static const char ssh2_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of n bytes into b, without '=' padding when pad is 0. */
void
ssh2_base64(struct buf *b, const unsigned char *p, size_t n, int pad)
{
	unsigned long v;
	size_t i, k;

	for (i = 0; i < n; i += 3) {
		k = n - i < 3 ? n - i : 3;
		v = (unsigned long)p[i] << 16;
		if (k > 1)
			v |= (unsigned long)p[i + 1] << 8;
		if (k > 2)
			v |= p[i + 2];
		buf_putc(b, ssh2_b64[(v >> 18) & 63]);
		buf_putc(b, ssh2_b64[(v >> 12) & 63]);
		if (k > 1)
			buf_putc(b, ssh2_b64[(v >> 6) & 63]);
		else if (pad)
			buf_putc(b, '=');
		if (k > 2)
			buf_putc(b, ssh2_b64[v & 63]);
		else if (pad)
			buf_putc(b, '=');
	}
}

/* ---- socket I/O under libssh2, and waiting ---- */

static void
ssh2_quickack(int fd)
{
#ifdef TCP_QUICKACK	/* Linux's; elsewhere delayed ACKs stay as the system has them */
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
#else
	(void)fd;
#endif
}

/* libssh2's recv, plus what delayed ACKs and dead peers need us to note. */
static ssize_t
ssh2_recv_cb(libssh2_socket_t fd, void *buffer, size_t length, int flags, void **abstract)
{
	struct ssh2_conn *c = *abstract;
	ssize_t n;

	n = recv(fd, buffer, length, flags);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -EAGAIN;
		c->sock_errno = errno;
		return -errno;
	}
	if (n > 0) {
		c->heard_ms = monotime_ms();
		ssh2_quickack(fd);
	}
	return n;
}

static ssize_t
ssh2_send_cb(libssh2_socket_t fd, const void *buffer, size_t length, int flags, void **abstract)
{
	struct ssh2_conn *c = *abstract;
	ssize_t n;

	n = send(fd, buffer, length, flags | MSG_NOSIGNAL);
	if (n > 0)
		c->sends++;
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -EAGAIN;
		c->sock_errno = errno;
		return -errno;
	}
	return n;
}

/* Give up on the connection: every later libssh2 call fails at once. */
static void
ssh2_break(struct ssh2_conn *c)
{
	if (c->broken)
		return;
	c->broken = 1;
	if (c->fd >= 0)
		(void)shutdown(c->fd, SHUT_RDWR);
}

/*
 * For loops that may never hear EAGAIN (data keeps flowing): 1 when the
 * deadline has passed, and the connection is then broken like ssh2_wait's.
 */
int
ssh2_expired(struct ssh2_conn *c)
{
	if (!deadline_expired(&c->deadline))
		return 0;
	c->wait_fail = SSH_FAIL_TIMEOUT;
	ssh2_break(c);
	return 1;
}

/*
 * Wait until the socket can move what libssh2 is blocked on.  0 to call
 * again; -1 when the deadline passed or the server stopped answering
 * keepalives (c->wait_fail says which; the connection is then broken).
 */
/*
 * Has the exec's cancel descriptor (ssh_conn_limit) become readable or hung
 * up, within ms?  1 once it has: c->cancelled is set and the descriptor is
 * no longer watched, so that closing the channel can wait as usual.
 */
int
ssh2_cancel_seen(struct ssh2_conn *c, int ms)
{
	struct pollfd pfd;

	if (c->cancelled)
		return 1;
	if (c->cancel_fd < 0)
		return 0;
	pfd.fd = c->cancel_fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	if (poll(&pfd, 1, ms) <= 0 || pfd.revents == 0)
		return 0;
	c->cancelled = 1;
	c->cancel_fd = -1;
	c->wait_fail = SSH_FAIL_EXEC;
	return 1;
}

int
ssh2_wait(struct ssh2_conn *c)
{
	struct pollfd pfd[2];
	uint64_t silent_ms;
	int dir, cap = -1, ms, next = 0, next_ms = 0;
	nfds_t npfd = 1;

	if (c->broken) {
		if (c->wait_fail == SSH_OK)
			c->wait_fail = SSH_FAIL_IO;
		return -1;
	}
	if (ssh2_expired(c))
		return -1;
	dir = libssh2_session_block_directions(c->s);
	pfd[0].fd = c->fd;
	pfd[0].events = 0;
	pfd[0].revents = 0;
	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		pfd[0].events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		pfd[0].events |= POLLOUT;
	/* Never with a packet half-sent: closing the channel would be a packet after it. */
	if (c->cancel_fd >= 0 && !c->cancelled && !(dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)) {
		pfd[1].fd = c->cancel_fd;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		npfd = 2;
	}
	if (pfd[0].events == 0) {
		pfd[0].events = POLLIN;
		cap = SSH_IDLE_POLL_MS;
	}
	/*
	 * Only while waiting for input with nothing half-sent: a keepalive
	 * must not be interleaved with another packet.  Its unacknowledged
	 * bytes are also what lets TCP_USER_TIMEOUT notice a dead peer.
	 */
	if (c->keepalive_s > 0 && dir == LIBSSH2_SESSION_BLOCK_INBOUND) {
		silent_ms = monotime_ms() - c->heard_ms;
		if (silent_ms > (uint64_t)c->keepalive_s * 1000 * (uint64_t)(c->keepalive_max + 1)) {
			c->wait_fail = SSH_FAIL_IO;
			ssh2_break(c);
			return -1;
		}
		/*
		 * Only after keepalive_s of silence: libssh2 would send its first
		 * one at once, and its reply, a second small segment from a server
		 * that has Nagle on (sshd for exec sessions), costs a round trip.
		 */
		if (silent_ms < (uint64_t)c->keepalive_s * 1000)
			next_ms = (int)((uint64_t)c->keepalive_s * 1000 - silent_ms);
		else if (libssh2_keepalive_send(c->s, &next) == 0 && next > 0)
			next_ms = next * 1000;
		if (next_ms > 0 && (cap < 0 || next_ms < cap))
			cap = next_ms;
	}
	ms = deadline_poll_timeout(&c->deadline, 1, cap);
	if (poll(pfd, npfd, ms) < 0 && errno != EINTR) {
		c->sock_errno = errno;
		c->wait_fail = SSH_FAIL_IO;
		ssh2_break(c);
		return -1;
	}
	if (deadline_expired(&c->deadline)) {
		c->wait_fail = SSH_FAIL_TIMEOUT;
		ssh2_break(c);
		return -1;
	}
	if (npfd == 2 && pfd[1].revents != 0 && ssh2_cancel_seen(c, 0))
		return -1;	/* not broken: only the exec ends */
	return 0;
}

/* rc from libssh2: 1 when it was EAGAIN and the call should be made again. */
int
ssh2_again(struct ssh2_conn *c, int rc)
{
	return rc == LIBSSH2_ERROR_EAGAIN && ssh2_wait(c) == 0;
}

/* Did the last call leave part of a packet unsent? */
int
ssh2_out_pending(struct ssh2_conn *c, long rc)
{
	return rc == LIBSSH2_ERROR_EAGAIN &&
	    (libssh2_session_block_directions(c->s) & LIBSSH2_SESSION_BLOCK_OUTBOUND);
}

/* libssh2's last error message, with the socket's errno when there was one. */
void
ssh2_lib_error(struct ssh2_conn *c, char *out, size_t outlen)
{
	char *msg = NULL;
	int code;

	code = libssh2_session_last_error(c->s, &msg, NULL, 0);
	if (c->sock_errno != 0)
		snprintf(out, outlen, "%s (%s)", msg != NULL && *msg != '\0' ? msg : "socket error",
		    strerror(c->sock_errno));
	else
		snprintf(out, outlen, "%s (libssh2 error %d)",
		    msg != NULL && *msg != '\0' ? msg : "unknown error", code);
}

/* A libssh2 call failed or its wait gave up while doing what: fill err. */
void
ssh2_fail_call(struct ssh2_conn *c, struct ssh_error *err, enum ssh_fail kind, int rc,
    const char *what)
{
	char lib[400];

	if (rc == LIBSSH2_ERROR_EAGAIN && c->cancelled) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: cancelled while %s", c->label, what);
		return;
	}
	if (rc == LIBSSH2_ERROR_EAGAIN && c->wait_fail == SSH_FAIL_TIMEOUT) {
		ssh_error_set(err, SSH_FAIL_TIMEOUT,
		    "%s: the connection's time limit of %d ms ran out while %s",
		    c->label, c->deadline_ms, what);
		return;
	}
	if (rc == LIBSSH2_ERROR_EAGAIN) {
		if (c->sock_errno != 0)
			ssh_error_set(err, SSH_FAIL_IO, "%s: the connection broke while %s: %s",
			    c->label, what, strerror(c->sock_errno));
		else
			ssh_error_set(err, SSH_FAIL_IO,
			    "%s: the server stopped answering (no reply to keepalives for %d s) while %s",
			    c->label, c->keepalive_s * (c->keepalive_max + 1), what);
		return;
	}
	ssh2_lib_error(c, lib, sizeof(lib));
	ssh_error_set(err, kind, "%s: %s failed: %s", c->label, what, lib);
}

/* ---- TCP ---- */

static void
ssh2_tcp_options(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
#if defined(TCP_USER_TIMEOUT)
	{
		int ut = SSH_USER_TIMEOUT_MS;

		(void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof(ut));
	}
#elif defined(TCP_RXT_CONNDROPTIME)	/* macOS: the same bound, in seconds */
	{
		int ut = (SSH_USER_TIMEOUT_MS + 999) / 1000;

		(void)setsockopt(fd, IPPROTO_TCP, TCP_RXT_CONNDROPTIME, &ut, sizeof(ut));
	}
#endif
	ssh2_quickack(fd);
}

/* One address: 0 and the connected descriptor in *fdp, or -1 with errno. */
static int
ssh2_tcp_try(struct ssh2_conn *c, const struct addrinfo *ai, int connect_ms, int *fdp)
{
	struct deadline ds[2];
	struct pollfd pfd;
	socklen_t sl;
	int fd, rc, soerr = 0, saved;

	*fdp = -1;
	fd = wk_socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol, 1);
	if (fd < 0)
		return -1;
	ds[0] = c->deadline;
	deadline_clear(&ds[1]);
	if (connect_ms > 0)
		deadline_set(&ds[1], (uint64_t)connect_ms);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		if (errno != EINPROGRESS)
			goto fail;
		for (;;) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			pfd.revents = 0;
			rc = poll(&pfd, 1, deadline_poll_timeout(ds, 2, -1));
			if (rc < 0 && errno == EINTR)
				continue;
			if (rc < 0)
				goto fail;
			if (rc > 0)
				break;
			if (deadline_expired(&ds[0]) || deadline_expired(&ds[1])) {
				errno = ETIMEDOUT;
				goto fail;
			}
		}
		sl = sizeof(soerr);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
			goto fail;
		if (soerr != 0) {
			errno = soerr;
			goto fail;
		}
	}
	/* Only now: on the SYN itself this would cut connect_timeout short. */
	ssh2_tcp_options(fd);
	*fdp = fd;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

static int
ssh2_tcp_connect(struct ssh2_conn *c, const struct ssh_target *t, struct ssh_error *err)
{
	struct addrinfo hints, *res = NULL, *ai;
	struct buf why = BUF_INIT;
	char port[16], addr[INET6_ADDRSTRLEN + 8];
	int rc, ret = -1, connect_ms, timed_out = 0;
	const void *sa;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%d", c->port);
	/* getaddrinfo cannot be bounded; resolv.conf's timeout bounds it. */
	if ((rc = getaddrinfo(c->host, port, &hints, &res)) != 0) {
		ssh_error_set(err, SSH_FAIL_RESOLVE, "%s: cannot resolve host name %s: %s", c->label,
		    c->host, rc == EAI_SYSTEM ? wk_strerror(WK_ERR_SYSTEM) : gai_strerror(rc));
		goto out;
	}
	connect_ms = t->connect_timeout_s > 0 ? t->connect_timeout_s * 1000 : 0;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (deadline_expired(&c->deadline))
			break;
		if (ssh2_tcp_try(c, ai, connect_ms, &c->fd) == 0) {
			ret = 0;
			goto out;
		}
		sa = ai->ai_family == AF_INET6 ?
		    (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr :
		    (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr;
		if (inet_ntop(ai->ai_family, sa, addr, sizeof(addr)) == NULL)
			snprintf(addr, sizeof(addr), "?");
		if (errno == ETIMEDOUT) {
			timed_out = 1;
			buf_printf(&why, "%s%s: no answer", why.len > 0 ? "; " : "", addr);
		} else
			buf_printf(&why, "%s%s: %s", why.len > 0 ? "; " : "", addr, wk_strerror(WK_ERR_SYSTEM));
	}
	if (timed_out && connect_ms > 0)
		buf_printf(&why, " (within the connect timeout of %d s)", t->connect_timeout_s);
	else if (timed_out)
		buf_printf(&why, " (within the connection's time limit of %d ms)", c->deadline_ms);
	ssh_error_set(err, SSH_FAIL_CONNECT, "%s: cannot connect: %s", c->label,
	    why.len > 0 ? buf_str(&why) : "time limit reached before connecting");
out:
	if (res != NULL)
		freeaddrinfo(res);
	buf_free(&why);
	return ret;
}

/* ---- connection ---- */

static void
ssh2_lib_init(void)
{
	static int done;

	if (done)
		return;
	if (libssh2_init(0) != 0)
		fatal("libssh2_init failed");
	done = 1;
}

static char *
ssh2_local_user(void)
{
	struct passwd *pw;
	const char *u;

	if ((pw = getpwuid(getuid())) != NULL && pw->pw_name != NULL)
		return xstrdup(pw->pw_name);
	if ((u = getenv("USER")) != NULL && *u != '\0')
		return xstrdup(u);
	return xstrdup("root");
}

static int
ssh2_handshake(struct ssh2_conn *c, const struct ssh_target *t, struct ssh_error *err)
{
	struct ssh2_known k;
	char lib[400];
	int rc, ret = -1;

	memset(&k, 0, sizeof(k));
	if ((c->s = libssh2_session_init_ex(NULL, NULL, NULL, c)) == NULL)
		fatal("libssh2_session_init failed");
	libssh2_session_set_blocking(c->s, 0);
	libssh2_session_callback_set(c->s, LIBSSH2_CALLBACK_RECV, (void *)ssh2_recv_cb);
	libssh2_session_callback_set(c->s, LIBSSH2_CALLBACK_SEND, (void *)ssh2_send_cb);
	ssh2_known_load(c, t, &k);
	ssh2_hostkey_prefs(c, &k);
	do
		rc = libssh2_session_handshake(c->s, c->fd);
	while (ssh2_again(c, rc));
	if (rc != 0) {
		if (rc == LIBSSH2_ERROR_EAGAIN && c->wait_fail == SSH_FAIL_TIMEOUT)
			ssh_error_set(err, SSH_FAIL_HANDSHAKE, "%s: no SSH handshake within the "
			    "connection's time limit of %d ms (is it an SSH server? is it "
			    "overloaded?)", c->label, c->deadline_ms);
		else {
			ssh2_lib_error(c, lib, sizeof(lib));
			ssh_error_set(err, SSH_FAIL_HANDSHAKE, "%s: SSH handshake failed: %s", c->label,
			    lib);
		}
		goto out;
	}
	if (ssh2_hostkey_verify(c, t, &k, err) != 0)
		goto out;
	/* After the handshake: configured before it, libssh2 1.10 fails the key exchange. */
	c->keepalive_s = t->keepalive_s > 0 ? t->keepalive_s : 10;
	c->keepalive_max = t->keepalive_max > 0 ? t->keepalive_max : 3;
	c->heard_ms = monotime_ms();
	libssh2_keepalive_config(c->s, 1, (unsigned int)c->keepalive_s);
	ret = 0;
out:
	ssh2_known_free(&k);
	return ret;
}

static int
ssh2_connect(const struct ssh_target *t, int deadline_ms, void **out, struct ssh_error *err)
{
	struct ssh2_conn *c;
	struct deadline full;
	int ret = -1, full_ms;

	c = xcalloc(1, sizeof(*c));
	c->fd = -1;
	c->cancel_fd = -1;
	ssh2_lib_init();
	c->deadline_ms = deadline_ms;
	deadline_set(&c->deadline, (uint64_t)c->deadline_ms);
	c->host = xstrdup(t->host != NULL ? t->host : "");
	c->port = t->port > 0 ? t->port : 22;
	c->user = t->user != NULL ? xstrdup(t->user) : ssh2_local_user();
	c->hostname = c->port == 22 ? xstrdup(c->host) : xstrfmt("[%s]:%d", c->host, c->port);
	if (t->alias != NULL && strcmp(t->alias, c->host) != 0)
		c->label = xstrfmt("%s (%s port %d)", t->alias, c->host, c->port);
	else
		c->label = xstrfmt("%s port %d", c->host, c->port);
	if (*c->host == '\0') {
		ssh_error_set(err, SSH_FAIL_RESOLVE, "no host name given");
		goto out;
	}
	if (ssh2_tcp_connect(c, t, err) != 0)
		goto out;
	/*
	 * The handshake and the authentication are part of connecting: a
	 * server that accepts and then never speaks must not hold us for the
	 * whole connection's time, only for connect_timeout_s.
	 */
	full = c->deadline;
	full_ms = c->deadline_ms;
	if (t->connect_timeout_s > 0 &&
	    (uint64_t)t->connect_timeout_s * 1000 < deadline_left_ms(&c->deadline)) {
		c->deadline_ms = t->connect_timeout_s * 1000;
		deadline_set(&c->deadline, (uint64_t)c->deadline_ms);
	}
	if (ssh2_handshake(c, t, err) != 0)
		goto out;
	if (ssh2_auth(c, t, err) != 0)
		goto out;
	c->deadline = full;
	c->deadline_ms = full_ms;
	log_debug("%s: connected as %s", c->label, c->user);
	*out = c;
	c = NULL;	/* transferred */
	ret = 0;
out:
	if (c != NULL)
		ssh2_break(c);	/* a failed connect gets no polite goodbye */
	ssh2_close(c);
	return ret;
}

/* Free a channel; if that would block past the deadline, break the connection first. */
void
ssh2_channel_release(struct ssh2_conn *c, LIBSSH2_CHANNEL *ch)
{
	int rc, tries = 0;

	if (ch == NULL)
		return;
	while ((rc = libssh2_channel_free(ch)) == LIBSSH2_ERROR_EAGAIN && tries < SSH_FREE_TRIES) {
		if (c->broken || ssh2_wait(c) != 0)
			tries++;
	}
	if (rc != 0)
		log_debug("%s: channel not freed cleanly (%d)", c->label, rc);
}

static void
ssh2_close(void *conn)
{
	struct ssh2_conn *c = conn;
	int rc, tries = 0;

	if (c == NULL)
		return;
	if (c->s != NULL) {
		if (c->spare != NULL) {
			if (!c->broken && deadline_left_ms(&c->deadline) > SSH_BYE_MS)
				deadline_set(&c->deadline, SSH_BYE_MS);
			ssh2_channel_release(c, c->spare);
			c->spare = NULL;
		}
		/* An open still under way: the goodbye below ends it with the session. */
		if (!c->broken) {
			/* A short goodbye within what is left of the deadline. */
			if (deadline_left_ms(&c->deadline) > SSH_BYE_MS)
				deadline_set(&c->deadline, SSH_BYE_MS);
			c->keepalive_s = 0;
			do
				rc = libssh2_session_disconnect_ex(c->s, SSH_DISCONNECT_BY_APPLICATION,
				    "watchkeeper done", "");
			while (ssh2_again(c, rc));
		}
		ssh2_break(c);
		while (libssh2_session_free(c->s) == LIBSSH2_ERROR_EAGAIN && tries < SSH_FREE_TRIES)
			tries++;
	}
	if (c->fd >= 0)
		close(c->fd);
	free(c->label);
	free(c->host);
	free(c->hostname);
	free(c->user);
	free(c);
}

/* ssh_conn_limit: a new deadline from now, and what cancels an exec. */
static void
ssh2_limit(void *conn, int deadline_ms, int cancel_fd)
{
	struct ssh2_conn *c = conn;

	c->deadline_ms = deadline_ms;
	deadline_set(&c->deadline, (uint64_t)deadline_ms);
	c->cancel_fd = cancel_fd;
	c->cancelled = 0;
	if (c->wait_fail == SSH_FAIL_EXEC)
		c->wait_fail = SSH_OK;
}

/*
 * ssh_conn_idle: between looks nothing reads the socket, so a peer that
 * hung up shows as end of file or an error on a peek; a keepalive when due
 * leaves unacknowledged bytes, so that TCP_USER_TIMEOUT can notice a dead
 * peer too.  Its reply waits in the socket for the next look's reads.
 */
static int
ssh2_idle(void *conn, int keepalive)
{
	struct ssh2_conn *c = conn;
	char byte;
	ssize_t n;
	int next = 0;

	if (c->broken)
		return -1;
	if (ssh2_spare_check(c) != 0) {
		ssh2_break(c);
		return -1;
	}
	n = recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
		ssh2_break(c);
		return -1;
	}
	if (keepalive && c->keepalive_s > 0 && libssh2_keepalive_send(c->s, &next) != 0) {
		ssh2_break(c);
		return -1;
	}
	return 0;
}

const struct ssh_transport ssh_transport_libssh2 = {
	"libssh2", ssh2_connect, ssh2_exec, ssh2_put, ssh2_close, ssh2_limit, ssh2_idle,
	ssh2_prepare
};
