/*
 * ssh.c: short, bounded SSH connections on libssh2 1.10 (see ssh.h).
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
 * A target with `openssh` set is handed whole to sshcli.c (the system ssh
 * client); struct ssh_conn then only carries that connection.
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

#include <libssh2.h>
#include <libssh2_sftp.h>

#include "buf.h"
#include "fsutil.h"
#include "log.h"
#include "monotime.h"
#include "ssh.h"
#include "sshcli.h"
#include "sshkey.h"
#include "sshq.h"
#include "xmalloc.h"

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

/* Either transport: with cli set (target.openssh), everything else is unused. */
struct ssh_conn {
	struct sshcli_conn *cli;
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
};

/* Host key types: how libssh2's session, its known_hosts code and ssh-keyscan name each. */
static const struct ssh_keytype {
	int		 hostkey;	/* LIBSSH2_HOSTKEY_TYPE_* */
	int		 known;		/* LIBSSH2_KNOWNHOST_KEY_* */
	const char	*name;		/* as in known_hosts */
	const char	*methods;	/* host-key algorithms to ask for, best first */
	const char	*keyscan;	/* ssh-keyscan -t */
} ssh_keytypes[] = {
	{ LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_KNOWNHOST_KEY_ED25519, "ssh-ed25519",
	  "ssh-ed25519", "ed25519" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256, "ecdsa-sha2-nistp256",
	  "ecdsa-sha2-nistp256", "ecdsa" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384, "ecdsa-sha2-nistp384",
	  "ecdsa-sha2-nistp384", "ecdsa" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521, "ecdsa-sha2-nistp521",
	  "ecdsa-sha2-nistp521", "ecdsa" },
	{ LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_KNOWNHOST_KEY_SSHRSA, "ssh-rsa",
	  "rsa-sha2-512,rsa-sha2-256,ssh-rsa", "rsa" },
};

/* The known_hosts files of one connection attempt. */
struct ssh_known {
	LIBSSH2_KNOWNHOSTS	**files;	/* one collection per file given */
	size_t			  nfiles;
	LIBSSH2_KNOWNHOSTS	 *revoked;	/* @revoked lines of every file */
	unsigned int		  types;	/* bit i: this host has an ssh_keytypes[i] entry */
};

static const char ssh_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
ssh_result_free(struct ssh_result *r)
{
	if (r == NULL)
		return;
	free(r->out);
	free(r->err);
	free(r->exit_signal);
	memset(r, 0, sizeof(*r));
	r->exit_status = -1;
}

static void
ssh_err_clear(struct ssh_error *err)
{
	err->kind = SSH_OK;
	err->msg[0] = '\0';
	err->fingerprint[0] = '\0';
}

/* Base64 of n bytes into b, without '=' padding when pad is 0. */
static void
ssh_base64(struct buf *b, const unsigned char *p, size_t n, int pad)
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
		buf_putc(b, ssh_b64[(v >> 18) & 63]);
		buf_putc(b, ssh_b64[(v >> 12) & 63]);
		if (k > 1)
			buf_putc(b, ssh_b64[(v >> 6) & 63]);
		else if (pad)
			buf_putc(b, '=');
		if (k > 2)
			buf_putc(b, ssh_b64[v & 63]);
		else if (pad)
			buf_putc(b, '=');
	}
}

/* ---- socket I/O under libssh2, and waiting ---- */

static void
ssh_quickack(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
}

/* libssh2's recv, plus what delayed ACKs and dead peers need us to note. */
static ssize_t
ssh_recv_cb(libssh2_socket_t fd, void *buffer, size_t length, int flags, void **abstract)
{
	struct ssh_conn *c = *abstract;
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
		ssh_quickack(fd);
	}
	return n;
}

static ssize_t
ssh_send_cb(libssh2_socket_t fd, const void *buffer, size_t length, int flags, void **abstract)
{
	struct ssh_conn *c = *abstract;
	ssize_t n;

	n = send(fd, buffer, length, flags | MSG_NOSIGNAL);
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
ssh_break(struct ssh_conn *c)
{
	if (c->broken)
		return;
	c->broken = 1;
	if (c->fd >= 0)
		(void)shutdown(c->fd, SHUT_RDWR);
}

/*
 * For loops that may never hear EAGAIN (data keeps flowing): 1 when the
 * deadline has passed, and the connection is then broken like ssh_wait's.
 */
static int
ssh_expired(struct ssh_conn *c)
{
	if (!deadline_expired(&c->deadline))
		return 0;
	c->wait_fail = SSH_FAIL_TIMEOUT;
	ssh_break(c);
	return 1;
}

/*
 * Wait until the socket can move what libssh2 is blocked on.  0 to call
 * again; -1 when the deadline passed or the server stopped answering
 * keepalives (c->wait_fail says which; the connection is then broken).
 */
static int
ssh_wait(struct ssh_conn *c)
{
	struct pollfd pfd;
	uint64_t silent_ms;
	int dir, cap = -1, ms, next = 0;

	if (c->broken) {
		if (c->wait_fail == SSH_OK)
			c->wait_fail = SSH_FAIL_IO;
		return -1;
	}
	if (ssh_expired(c))
		return -1;
	dir = libssh2_session_block_directions(c->s);
	pfd.fd = c->fd;
	pfd.events = 0;
	pfd.revents = 0;
	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		pfd.events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		pfd.events |= POLLOUT;
	if (pfd.events == 0) {
		pfd.events = POLLIN;
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
			ssh_break(c);
			return -1;
		}
		if (libssh2_keepalive_send(c->s, &next) == 0 && next > 0 &&
		    (cap < 0 || next * 1000 < cap))
			cap = next * 1000;
	}
	ms = deadline_poll_timeout(&c->deadline, 1, cap);
	if (poll(&pfd, 1, ms) < 0 && errno != EINTR) {
		c->sock_errno = errno;
		c->wait_fail = SSH_FAIL_IO;
		ssh_break(c);
		return -1;
	}
	if (deadline_expired(&c->deadline)) {
		c->wait_fail = SSH_FAIL_TIMEOUT;
		ssh_break(c);
		return -1;
	}
	return 0;
}

/* rc from libssh2: 1 when it was EAGAIN and the call should be made again. */
static int
ssh_again(struct ssh_conn *c, int rc)
{
	return rc == LIBSSH2_ERROR_EAGAIN && ssh_wait(c) == 0;
}

/* Did the last call leave part of a packet unsent? */
static int
ssh_out_pending(struct ssh_conn *c, long rc)
{
	return rc == LIBSSH2_ERROR_EAGAIN &&
	    (libssh2_session_block_directions(c->s) & LIBSSH2_SESSION_BLOCK_OUTBOUND);
}

/* libssh2's last error message, with the socket's errno when there was one. */
static void
ssh_lib_error(struct ssh_conn *c, char *out, size_t outlen)
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
static void
ssh_fail_call(struct ssh_conn *c, struct ssh_error *err, enum ssh_fail kind, int rc,
    const char *what)
{
	char lib[400];

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
	ssh_lib_error(c, lib, sizeof(lib));
	ssh_error_set(err, kind, "%s: %s failed: %s", c->label, what, lib);
}

/* ---- TCP ---- */

static void
ssh_tcp_options(int fd)
{
	int one = 1, ut = SSH_USER_TIMEOUT_MS;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof(ut));
	ssh_quickack(fd);
}

/* One address: 0 and the connected descriptor in *fdp, or -1 with errno. */
static int
ssh_tcp_try(struct ssh_conn *c, const struct addrinfo *ai, int connect_ms, int *fdp)
{
	struct deadline ds[2];
	struct pollfd pfd;
	socklen_t sl;
	int fd, rc, soerr = 0, saved;

	*fdp = -1;
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    ai->ai_protocol);
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
	ssh_tcp_options(fd);
	*fdp = fd;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

static int
ssh_tcp_connect(struct ssh_conn *c, const struct ssh_target *t, struct ssh_error *err)
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
		    c->host, rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		goto out;
	}
	connect_ms = t->connect_timeout_s > 0 ? t->connect_timeout_s * 1000 : 0;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (deadline_expired(&c->deadline))
			break;
		if (ssh_tcp_try(c, ai, connect_ms, &c->fd) == 0) {
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
			buf_printf(&why, "%s%s: %s", why.len > 0 ? "; " : "", addr, strerror(errno));
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

/* ---- known_hosts ---- */

static const struct ssh_keytype *
ssh_keytype_by_hostkey(int hostkey, size_t *idx)
{
	size_t i;

	for (i = 0; i < nitems(ssh_keytypes); i++)
		if (ssh_keytypes[i].hostkey == hostkey) {
			*idx = i;
			return &ssh_keytypes[i];
		}
	return NULL;
}

/* The ssh_known types bit of a LIBSSH2_KNOWNHOST_KEY_* type. */
static unsigned int
ssh_keytype_bit(int known)
{
	size_t i;

	for (i = 0; i < nitems(ssh_keytypes); i++)
		if (ssh_keytypes[i].known == known)
			return 1u << i;
	return 0;
}

/* Feed one file's lines to libssh2, skipping (and saying so) those it cannot parse. */
static void
ssh_known_readfile(struct ssh_known *k, LIBSSH2_KNOWNHOSTS *kh, const char *path)
{
	LIBSSH2_KNOWNHOSTS *into;
	char *text = NULL, *line, *next, *p, *e;
	int lineno = 0;

	if (fs_read_file(path, SSH_KNOWN_HOSTS_MAX, &text, NULL) != 0) {
		if (errno != ENOENT)
			log_warn("%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	for (line = text; line != NULL; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		for (e = line + strlen(line); e > line && (e[-1] == '\r' || e[-1] == ' ' ||
		    e[-1] == '\t'); e--)
			e[-1] = '\0';
		p = line + strspn(line, " \t");
		if (*p == '\0' || *p == '#')
			continue;
		into = kh;
		if (strncmp(p, "@revoked", 8) == 0 && (p[8] == ' ' || p[8] == '\t')) {
			into = k->revoked;
			p += 8 + strspn(p + 8, " \t");
		} else if (*p == '@') {
			log_debug("%s:%d: marker line not supported by libssh2, skipped", path, lineno);
			continue;
		}
		if (libssh2_knownhost_readline(into, p, strlen(p),
		    LIBSSH2_KNOWNHOST_FILE_OPENSSH) != 0)
			log_debug("%s:%d: libssh2 cannot parse this entry, skipped", path, lineno);
	}
out:
	free(text);
}

/*
 * Which key types does any file record for c->hostname?  (Sets k->types.)
 * Asked with a key that matches nothing: "mismatch" then means an entry of
 * that type exists for the host.  Five lookups per file, whatever its size.
 */
static void
ssh_known_types(struct ssh_conn *c, struct ssh_known *k)
{
	static const char nokey[] = "AAAA";
	size_t f, i;

	for (f = 0; f < k->nfiles; f++)
		for (i = 0; i < nitems(ssh_keytypes); i++)
			if (libssh2_knownhost_checkp(k->files[f], c->hostname, -1, nokey,
			    sizeof(nokey) - 1, LIBSSH2_KNOWNHOST_TYPE_PLAIN |
			    LIBSSH2_KNOWNHOST_KEYENC_BASE64 | ssh_keytypes[i].known, NULL) ==
			    LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
				k->types |= 1u << i;
}

static void
ssh_known_load(struct ssh_conn *c, const struct ssh_target *t, struct ssh_known *k)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	k->revoked = libssh2_knownhost_init(c->s);
	k->files = xcalloc(t->nknown_hosts > 0 ? t->nknown_hosts : 1, sizeof(*k->files));
	k->nfiles = t->nknown_hosts;
	for (i = 0; i < k->nfiles; i++) {
		if ((k->files[i] = libssh2_knownhost_init(c->s)) == NULL)
			fatal("libssh2_knownhost_init failed");
		ssh_known_readfile(k, k->files[i], t->known_hosts[i]);
	}
	if (k->revoked == NULL)
		fatal("libssh2_knownhost_init failed");
	ssh_known_types(c, k);
}

static void
ssh_known_free(struct ssh_known *k)
{
	size_t i;

	for (i = 0; i < k->nfiles; i++)
		if (k->files[i] != NULL)
			libssh2_knownhost_free(k->files[i]);
	free(k->files);
	if (k->revoked != NULL)
		libssh2_knownhost_free(k->revoked);
	memset(k, 0, sizeof(*k));
}

/* Host-key algorithms: the types known_hosts holds for this host first, ed25519 first. */
static void
ssh_hostkey_prefs(struct ssh_conn *c, const struct ssh_known *k)
{
	struct buf pref = BUF_INIT;
	const char **algs = NULL;
	char *methods, *m, *save;
	size_t i, pass;
	int nalgs, j, ok;

	nalgs = libssh2_session_supported_algs(c->s, LIBSSH2_METHOD_HOSTKEY, &algs);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nitems(ssh_keytypes); i++) {
			if (((k->types >> i) & 1) != (pass == 0 ? 1u : 0u))
				continue;
			methods = xstrdup(ssh_keytypes[i].methods);
			for (m = strtok_r(methods, ",", &save); m != NULL;
			    m = strtok_r(NULL, ",", &save)) {
				ok = nalgs <= 0;
				for (j = 0; j < nalgs && !ok; j++)
					ok = strcmp(algs[j], m) == 0;
				if (ok)
					buf_printf(&pref, "%s%s", pref.len > 0 ? "," : "", m);
			}
			free(methods);
		}
	}
	if (nalgs > 0)
		libssh2_free(c->s, (void *)algs);
	if (pref.len > 0 && libssh2_session_method_pref(c->s, LIBSSH2_METHOD_HOSTKEY,
	    buf_str(&pref)) != 0)
		log_debug("libssh2 refused host-key preference %s", buf_str(&pref));
	else
		log_debug("host-key preference %s", buf_str(&pref));
	buf_free(&pref);
}

/* "SHA256:<base64 without padding>" of the server's key, as OpenSSH prints it. */
static void
ssh_fingerprint(struct ssh_conn *c, char *out, size_t outlen)
{
	struct buf b = BUF_INIT;
	const char *h;

	if ((h = libssh2_hostkey_hash(c->s, LIBSSH2_HOSTKEY_HASH_SHA256)) == NULL) {
		snprintf(out, outlen, "SHA256:?");
		return;
	}
	buf_puts(&b, "SHA256:");
	ssh_base64(&b, (const unsigned char *)h, 32, 0);
	snprintf(out, outlen, "%s", buf_str(&b));
	buf_free(&b);
}

/* Is this key (base64) listed as @revoked, for any host? */
static int
ssh_known_revoked(const struct ssh_known *k, const char *b64)
{
	struct libssh2_knownhost *ent, *prev = NULL;

	while (libssh2_knownhost_get(k->revoked, &ent, prev) == 0) {
		prev = ent;
		if (ent->key != NULL && strcmp(ent->key, b64) == 0)
			return 1;
	}
	return 0;
}

static int
ssh_hostkey_verify(struct ssh_conn *c, const struct ssh_target *t, const struct ssh_known *k,
    struct ssh_error *err)
{
	const struct ssh_keytype *kt;
	struct buf b64 = BUF_INIT, files = BUF_INIT;
	const char *key, *mismatch = NULL, *first;
	char fp[128], *qfile = NULL, *qhost = NULL, *quh = NULL, *qname = NULL;
	size_t keylen, i, idx = 0;
	unsigned int other;
	int type, rc, ret = -1, typechange, rsa_only;

	if ((key = libssh2_session_hostkey(c->s, &keylen, &type)) == NULL ||
	    (kt = ssh_keytype_by_hostkey(type, &idx)) == NULL) {
		ssh_error_set(err, SSH_FAIL_HANDSHAKE, "%s: the server's host key type (%d) is not "
		    "supported by libssh2", c->label, type);
		goto out;
	}
	ssh_fingerprint(c, fp, sizeof(fp));
	ssh_base64(&b64, (const unsigned char *)key, keylen, 1);
	for (i = 0; i < k->nfiles; i++) {
		buf_printf(&files, "%s%s", i > 0 ? ", " : "", t->known_hosts[i]);
		rc = libssh2_knownhost_checkp(k->files[i], c->hostname, -1, key, keylen,
		    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | kt->known, NULL);
		if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH && !ssh_known_revoked(k, buf_str(&b64))) {
			log_debug("%s: host key %s %s matches %s", c->label, kt->name, fp,
			    t->known_hosts[i]);
			ret = 0;
			goto out;
		}
		if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH && mismatch == NULL)
			mismatch = t->known_hosts[i];
	}
	snprintf(err->fingerprint, sizeof(err->fingerprint), "%s", fp);
	first = k->nfiles > 0 ? t->known_hosts[0] : "~/.ssh/known_hosts";
	qname = sshq_quote(c->hostname);
	if (ssh_known_revoked(k, buf_str(&b64))) {
		ssh_error_set(err, SSH_FAIL_HOSTKEY_MISMATCH, "%s: the server presents %s key %s, which "
		    "known_hosts marks @revoked. Refused; known_hosts is never changed by "
		    "watchkeeper. Find out why the key was revoked before trusting this host.",
		    c->label, kt->name, fp);
		goto out;
	}
	/*
	 * No entry of this type, only of others.  Only RSA: libssh2 1.10 cannot
	 * ask for rsa-sha2, so it never gets to compare, and the key need not
	 * have changed.  Any other: the server no longer has the key we know.
	 */
	other = k->types & ~(1u << idx);
	rsa_only = mismatch == NULL && other != 0 && (other & ~ssh_keytype_bit(
	    LIBSSH2_KNOWNHOST_KEY_SSHRSA)) == 0;
	if (mismatch != NULL || (other != 0 && !rsa_only)) {
		typechange = mismatch == NULL;
		if (mismatch == NULL)
			mismatch = first;
		qfile = sshq_quote(mismatch);
		ssh_error_set(err, SSH_FAIL_HOSTKEY_MISMATCH, "%s: the host key has CHANGED: the server "
		    "now presents %s key %s, which differs from the key%s recorded for %s in %s. "
		    "Refused; known_hosts is never overwritten. If the box was rebuilt or "
		    "re-rented, confirm the new fingerprint with the provider (web console), then "
		    "remove the old entry (ssh-keygen -R %s -f %s) and add the new one; if nothing "
		    "changed on your side, someone may be intercepting the connection.",
		    c->label, kt->name, fp, typechange ? "s of other types" : "", c->hostname,
		    mismatch, qname, qfile);
		goto out;
	}
	qfile = sshq_quote(first);
	qhost = sshq_quote(c->host);
	quh = xstrfmt("%s@%s", c->user, c->host);
	free(qname);
	qname = sshq_quote(quh);
	ssh_error_set(err, SSH_FAIL_HOSTKEY_UNKNOWN, "%s: the host key is not known: the server "
	    "presents %s key %s and no %sentry for %s is in %s%s. Check that fingerprint "
	    "against the provider's console, then trust it with: ssh-keyscan -p %d -t %s %s >> "
	    "%s (or connect once with: ssh -p %d %s). known_hosts is never written by "
	    "watchkeeper.", c->label, kt->name, fp, rsa_only ? "such " : "", c->hostname,
	    files.len > 0 ? buf_str(&files) : first, rsa_only ? " (only an ssh-rsa key, which "
	    "libssh2 1.10 cannot verify against modern OpenSSH; \"transport\": \"openssh\" "
	    "can)" : "", c->port, kt->keyscan, qhost, qfile, c->port, qname);
out:
	free(qfile);
	free(qhost);
	free(quh);
	free(qname);
	buf_free(&b64);
	buf_free(&files);
	return ret;
}

/* ---- authentication ---- */

/* Is this key file an RSA key (sshkey.c tells)? */
static int
ssh_keyfile_is_rsa(const char *priv)
{
	char type[128];

	return sshkey_file_type(priv, type, sizeof(type)) == 0 && strcmp(type, "ssh-rsa") == 0;
}

/* The key type of an agent identity's blob ("ssh-ed25519" ...) into out. */
static void
ssh_blob_type(const unsigned char *blob, size_t len, char *out, size_t outlen)
{
	uint32_t n;

	snprintf(out, outlen, "?");
	if (len < 4)
		return;
	n = (uint32_t)blob[0] << 24 | (uint32_t)blob[1] << 16 | (uint32_t)blob[2] << 8 | blob[3];
	if (n > len - 4 || n >= outlen)
		return;
	memcpy(out, blob + 4, n);
	out[n] = '\0';
}

struct ssh_auth_state {
	struct buf	 tried;		/* what was offered, for the message */
	int		 rsa;		/* an RSA key was among them */
	int		 done;		/* accepted */
	int		 fatal;		/* stop: timeout or connection lost */
};

static void
ssh_auth_note(struct ssh_auth_state *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
ssh_auth_note(struct ssh_auth_state *a, const char *fmt, ...)
{
	va_list ap;
	char tmp[600];

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_printf(&a->tried, "%s%s", a->tried.len > 0 ? "; " : "", tmp);
}

/* After a failed attempt: is the connection still there to try another key? */
static int
ssh_auth_failed(struct ssh_conn *c, struct ssh_auth_state *a, int rc, struct ssh_error *err,
    const char *what)
{
	if (rc == LIBSSH2_ERROR_EAGAIN || c->broken || rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
	    rc == LIBSSH2_ERROR_SOCKET_RECV || rc == LIBSSH2_ERROR_SOCKET_SEND) {
		ssh_fail_call(c, err, SSH_FAIL_AUTH, rc, what);
		if (rc != LIBSSH2_ERROR_EAGAIN)
			ssh_error_set(err, SSH_FAIL_AUTH, "%s: the server closed the connection during "
			    "authentication (too many keys offered?); tried: %s", c->label,
			    buf_str(&a->tried));
		a->fatal = 1;
		return -1;
	}
	return 0;
}

static void
ssh_auth_agent(struct ssh_conn *c, struct ssh_auth_state *a, struct ssh_error *err)
{
	LIBSSH2_AGENT *agent = NULL;
	struct libssh2_agent_publickey *id, *prev = NULL;
	char type[64];
	int rc;

	if (getenv("SSH_AUTH_SOCK") == NULL || *getenv("SSH_AUTH_SOCK") == '\0')
		return;
	if ((agent = libssh2_agent_init(c->s)) == NULL)
		return;
	/* The agent is a local socket; libssh2 talks to it in blocking mode. */
	if (libssh2_agent_connect(agent) != 0) {
		log_debug("ssh-agent at $SSH_AUTH_SOCK does not answer");
		goto out;
	}
	if (libssh2_agent_list_identities(agent) != 0) {
		log_debug("ssh-agent: cannot list identities");
		goto out;
	}
	while (!a->done && !a->fatal && libssh2_agent_get_identity(agent, &id, prev) == 0) {
		prev = id;
		ssh_blob_type(id->blob, id->blob_len, type, sizeof(type));
		if (strcmp(type, "ssh-rsa") == 0)
			a->rsa = 1;
		do
			rc = libssh2_agent_userauth(agent, c->user, id);
		while (ssh_again(c, rc));
		ssh_auth_note(a, "ssh-agent %s key '%s'%s", type,
		    id->comment != NULL ? id->comment : "", rc == 0 ? "" : " (refused)");
		if (rc == 0)
			a->done = 1;
		else
			(void)ssh_auth_failed(c, a, rc, err, "authenticating with an ssh-agent key");
	}
out:
	(void)libssh2_agent_disconnect(agent);
	libssh2_agent_free(agent);
}

static void
ssh_auth_files(struct ssh_conn *c, const struct ssh_target *t, struct ssh_auth_state *a,
    struct ssh_error *err)
{
	char *pub = NULL, lib[300];
	const char *priv;
	size_t i;
	int rc;

	for (i = 0; i < t->nidentities && !a->done && !a->fatal; i++) {
		priv = t->identities[i];
		free(pub);
		pub = xstrfmt("%s.pub", priv);
		if (!fs_exists(priv)) {
			log_debug("identity %s does not exist", priv);
			continue;
		}
		if (!fs_exists(pub)) {
			free(pub);
			pub = NULL;
		}
		if (ssh_keyfile_is_rsa(priv))
			a->rsa = 1;
		/* "" not NULL: libssh2 would strlen() a NULL passphrase for a PEM key. */
		do
			rc = libssh2_userauth_publickey_fromfile_ex(c->s, c->user,
			    (unsigned int)strlen(c->user), pub, priv, "");
		while (ssh_again(c, rc));
		if (rc == 0) {
			a->done = 1;
			break;
		}
		if (ssh_auth_failed(c, a, rc, err, "authenticating with an identity file") != 0) {
			ssh_auth_note(a, "%s", priv);
			break;
		}
		if (rc == LIBSSH2_ERROR_FILE || rc == LIBSSH2_ERROR_KEYFILE_AUTH_FAILED) {
			ssh_lib_error(c, lib, sizeof(lib));
			ssh_auth_note(a, "%s (unreadable: %s; a key with a passphrase must be in "
			    "ssh-agent)", priv, lib);
		} else
			ssh_auth_note(a, "%s (refused)", priv);
	}
	free(pub);
}

static int
ssh_auth(struct ssh_conn *c, const struct ssh_target *t, struct ssh_error *err)
{
	struct ssh_auth_state a;
	const char *list;
	int ret = -1;

	memset(&a, 0, sizeof(a));
	buf_init(&a.tried);
	do
		list = libssh2_userauth_list(c->s, c->user, (unsigned int)strlen(c->user));
	while (list == NULL && !libssh2_userauth_authenticated(c->s) &&
	    ssh_again(c, libssh2_session_last_errno(c->s)));
	if (libssh2_userauth_authenticated(c->s)) {
		ret = 0;
		goto out;
	}
	if (list == NULL) {
		ssh_fail_call(c, err, SSH_FAIL_AUTH, libssh2_session_last_errno(c->s),
		    "asking which authentication methods the server accepts");
		goto out;
	}
	if (strstr(list, "publickey") == NULL) {
		ssh_error_set(err, SSH_FAIL_AUTH, "%s: the server does not accept public keys for user "
		    "%s (it offers: %s); watchkeeper authenticates with keys only", c->label,
		    c->user, list);
		goto out;
	}
	if (!t->identities_only)
		ssh_auth_agent(c, &a, err);
	ssh_auth_files(c, t, &a, err);
	if (a.done) {
		ret = 0;
		goto out;
	}
	if (a.fatal)
		goto out;
	ssh_error_set(err, SSH_FAIL_AUTH, "%s: no key was accepted for user %s; tried: %s.%s",
	    c->label, c->user, a.tried.len > 0 ? buf_str(&a.tried) :
	    "nothing (no ssh-agent key, no identity file exists)",
	    !a.rsa ? "" : t->cli_missing ? " Some of these are RSA keys: libssh2 1.10 cannot sign "
	    "rsa-sha2 for user authentication, and modern OpenSSH refuses ssh-rsa. Use an ed25519 "
	    "key (ssh-keygen -t ed25519, then add its .pub to the box's authorized_keys) or "
	    "install the OpenSSH client (ssh), which \"transport\": \"auto\" then uses." :
	    " Some of these are RSA keys: libssh2 1.10 cannot sign rsa-sha2 for user "
	    "authentication, and modern OpenSSH refuses ssh-rsa. Use an ed25519 key "
	    "(ssh-keygen -t ed25519, then add its .pub to the box's authorized_keys) or set "
	    "\"transport\": \"openssh\".");
out:
	buf_free(&a.tried);
	return ret;
}

/* ---- connection ---- */

static void
ssh_lib_init(void)
{
	static int done;

	if (done)
		return;
	if (libssh2_init(0) != 0)
		fatal("libssh2_init failed");
	done = 1;
}

static char *
ssh_local_user(void)
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
ssh_handshake(struct ssh_conn *c, const struct ssh_target *t, struct ssh_error *err)
{
	struct ssh_known k;
	char lib[400];
	int rc, ret = -1;

	memset(&k, 0, sizeof(k));
	if ((c->s = libssh2_session_init_ex(NULL, NULL, NULL, c)) == NULL)
		fatal("libssh2_session_init failed");
	libssh2_session_set_blocking(c->s, 0);
	libssh2_session_callback_set(c->s, LIBSSH2_CALLBACK_RECV, (void *)ssh_recv_cb);
	libssh2_session_callback_set(c->s, LIBSSH2_CALLBACK_SEND, (void *)ssh_send_cb);
	ssh_known_load(c, t, &k);
	ssh_hostkey_prefs(c, &k);
	do
		rc = libssh2_session_handshake(c->s, c->fd);
	while (ssh_again(c, rc));
	if (rc != 0) {
		if (rc == LIBSSH2_ERROR_EAGAIN && c->wait_fail == SSH_FAIL_TIMEOUT)
			ssh_error_set(err, SSH_FAIL_HANDSHAKE, "%s: no SSH handshake within the "
			    "connection's time limit of %d ms (is it an SSH server? is it "
			    "overloaded?)", c->label, c->deadline_ms);
		else {
			ssh_lib_error(c, lib, sizeof(lib));
			ssh_error_set(err, SSH_FAIL_HANDSHAKE, "%s: SSH handshake failed: %s", c->label,
			    lib);
		}
		goto out;
	}
	if (ssh_hostkey_verify(c, t, &k, err) != 0)
		goto out;
	/* After the handshake: configured before it, libssh2 1.10 fails the key exchange. */
	c->keepalive_s = t->keepalive_s > 0 ? t->keepalive_s : 10;
	c->keepalive_max = t->keepalive_max > 0 ? t->keepalive_max : 3;
	c->heard_ms = monotime_ms();
	libssh2_keepalive_config(c->s, 1, (unsigned int)c->keepalive_s);
	ret = 0;
out:
	ssh_known_free(&k);
	return ret;
}

int
ssh_connect(const struct ssh_target *t, int deadline_ms, struct ssh_conn **out,
    struct ssh_error *err)
{
	struct ssh_error scratch;
	struct sshcli_conn *cli = NULL;
	struct ssh_conn *c;
	struct deadline full;
	int ret = -1, full_ms;

	if (err == NULL)
		err = &scratch;
	*out = NULL;
	ssh_err_clear(err);
	c = xcalloc(1, sizeof(*c));
	c->fd = -1;
	if (t->openssh) {
		if (sshcli_connect(t, deadline_ms, &cli, err) != 0)
			goto out;
		c->cli = cli;	/* transferred */
		*out = c;
		c = NULL;	/* transferred */
		ret = 0;
		goto out;
	}
	ssh_lib_init();
	c->deadline_ms = deadline_ms > 0 ? deadline_ms : 1;
	deadline_set(&c->deadline, (uint64_t)c->deadline_ms);
	c->host = xstrdup(t->host != NULL ? t->host : "");
	c->port = t->port > 0 ? t->port : 22;
	c->user = t->user != NULL ? xstrdup(t->user) : ssh_local_user();
	c->hostname = c->port == 22 ? xstrdup(c->host) : xstrfmt("[%s]:%d", c->host, c->port);
	if (t->alias != NULL && strcmp(t->alias, c->host) != 0)
		c->label = xstrfmt("%s (%s port %d)", t->alias, c->host, c->port);
	else
		c->label = xstrfmt("%s port %d", c->host, c->port);
	if (*c->host == '\0') {
		ssh_error_set(err, SSH_FAIL_RESOLVE, "no host name given");
		goto out;
	}
	if (ssh_tcp_connect(c, t, err) != 0)
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
	if (ssh_handshake(c, t, err) != 0)
		goto out;
	if (ssh_auth(c, t, err) != 0)
		goto out;
	c->deadline = full;
	c->deadline_ms = full_ms;
	log_debug("%s: connected as %s", c->label, c->user);
	*out = c;
	c = NULL;	/* transferred */
	ret = 0;
out:
	if (c != NULL)
		ssh_break(c);	/* a failed connect gets no polite goodbye */
	ssh_close(c);
	return ret;
}

/* Free a channel; if that would block past the deadline, break the connection first. */
static void
ssh_channel_release(struct ssh_conn *c, LIBSSH2_CHANNEL *ch)
{
	int rc, tries = 0;

	if (ch == NULL)
		return;
	while ((rc = libssh2_channel_free(ch)) == LIBSSH2_ERROR_EAGAIN && tries < SSH_FREE_TRIES) {
		if (c->broken || ssh_wait(c) != 0)
			tries++;
	}
	if (rc != 0)
		log_debug("%s: channel not freed cleanly (%d)", c->label, rc);
}

void
ssh_close(struct ssh_conn *c)
{
	int rc, tries = 0;

	if (c == NULL)
		return;
	sshcli_close(c->cli);
	if (c->s != NULL) {
		if (!c->broken) {
			/* A short goodbye within what is left of the deadline. */
			if (deadline_left_ms(&c->deadline) > SSH_BYE_MS)
				deadline_set(&c->deadline, SSH_BYE_MS);
			c->keepalive_s = 0;
			do
				rc = libssh2_session_disconnect_ex(c->s, SSH_DISCONNECT_BY_APPLICATION,
				    "watchkeeper done", "");
			while (ssh_again(c, rc));
		}
		ssh_break(c);
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

/* ---- commands ---- */

struct ssh_pump {
	const char	*in;
	size_t		 inlen, inoff;
	int		 eof_sent;
	size_t		 cap;
	struct buf	 out, err;
	int		 truncated;
};

enum ssh_op { SSH_OP_NONE, SSH_OP_WRITE, SSH_OP_EOF, SSH_OP_READ_OUT, SSH_OP_READ_ERR };

/*
 * One step of op.  1 when it moved data, 0 when it would block, -1 when the
 * channel broke (err filled).  A step that leaves output half-sent is
 * remembered in *pending and repeated alone before anything else.
 */
static int
ssh_pump_op(struct ssh_conn *c, LIBSSH2_CHANNEL *ch, struct ssh_pump *p, enum ssh_op op,
    enum ssh_op *pending, char *chunk, struct ssh_error *err)
{
	struct buf *into;
	ssize_t n;
	size_t keep, limit;
	int stream;

	switch (op) {
	case SSH_OP_WRITE:
		if (p->inoff >= p->inlen)
			return 0;
		n = libssh2_channel_write_ex(ch, 0, p->in + p->inoff, p->inlen - p->inoff);
		if (ssh_out_pending(c, n)) {
			*pending = op;
			return 0;
		}
		if (n > 0) {
			p->inoff += (size_t)n;
			return 1;
		}
		if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
			/* The command stopped reading (or exited): the rest of stdin is moot. */
			log_debug("%s: stdin not taken after %zu bytes (%zd)", c->label, p->inoff, n);
			p->inoff = p->inlen;
			p->eof_sent = 1;
		}
		return 0;
	case SSH_OP_EOF:
		if (p->eof_sent || p->inoff < p->inlen)
			return 0;
		n = libssh2_channel_send_eof(ch);
		if (ssh_out_pending(c, n)) {
			*pending = op;
			return 0;
		}
		if (n != LIBSSH2_ERROR_EAGAIN)
			p->eof_sent = 1;
		return n == 0;
	case SSH_OP_READ_OUT:
	case SSH_OP_READ_ERR:
		stream = op == SSH_OP_READ_OUT ? 0 : SSH_EXTENDED_DATA_STDERR;
		n = libssh2_channel_read_ex(ch, stream, chunk, SSH_CHUNK);
		if (ssh_out_pending(c, n)) {
			*pending = op;
			return 0;
		}
		if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
			return 0;
		if (n < 0) {
			ssh_fail_call(c, err, SSH_FAIL_IO, (int)n, "reading the command's output");
			return -1;
		}
		into = stream == 0 ? &p->out : &p->err;
		limit = stream == 0 ? p->cap : SSH_ERR_KEEP;
		keep = into->len < limit ? limit - into->len : 0;
		if (keep > (size_t)n)
			keep = (size_t)n;
		if (keep > 0)
			buf_append(into, chunk, keep);
		if (stream == 0 && keep < (size_t)n)
			p->truncated = 1;
		return 1;
	case SSH_OP_NONE:
		break;
	}
	return 0;
}

/* Feed stdin, drain stdout and stderr together until the remote end says EOF. */
static int
ssh_pump_run(struct ssh_conn *c, LIBSSH2_CHANNEL *ch, struct ssh_pump *p, struct ssh_error *err)
{
	static const enum ssh_op order[] = { SSH_OP_WRITE, SSH_OP_EOF, SSH_OP_READ_OUT,
	    SSH_OP_READ_ERR };
	enum ssh_op pending = SSH_OP_NONE, op;
	unsigned long avail;
	char *chunk;
	size_t i;
	int moved, r, ret = -1;

	chunk = xmalloc(SSH_CHUNK);
	for (;;) {
		moved = 0;
		if (pending != SSH_OP_NONE) {
			op = pending;
			pending = SSH_OP_NONE;
			if ((r = ssh_pump_op(c, ch, p, op, &pending, chunk, err)) < 0)
				goto out;
			moved |= r;
		}
		for (i = 0; i < nitems(order) && pending == SSH_OP_NONE; i++) {
			if ((r = ssh_pump_op(c, ch, p, order[i], &pending, chunk, err)) < 0)
				goto out;
			moved |= r;
		}
		if (pending == SSH_OP_NONE && libssh2_channel_eof(ch) == 1)
			break;
		if (moved && !ssh_expired(c))
			continue;
		avail = 0;
		(void)libssh2_channel_window_read_ex(ch, &avail, NULL);
		if (avail > 0 && pending == SSH_OP_NONE)
			continue;	/* already buffered by libssh2: no need to wait for the socket */
		if (c->broken || ssh_wait(c) != 0) {
			ssh_fail_call(c, err, SSH_FAIL_TIMEOUT, LIBSSH2_ERROR_EAGAIN,
			    "running the command");
			goto out;
		}
	}
	ret = 0;
out:
	free(chunk);
	return ret;
}

int
ssh_exec(struct ssh_conn *c, const char *command, const void *in, size_t inlen, size_t cap,
    struct ssh_result *res, struct ssh_error *err)
{
	struct ssh_error scratch;
	struct ssh_pump p;
	LIBSSH2_CHANNEL *ch = NULL;
	char *sig = NULL;
	size_t siglen = 0;
	int rc, ret = -1;

	if (c->cli != NULL)
		return sshcli_exec(c->cli, command, in, inlen, cap, res, err);
	if (err == NULL)
		err = &scratch;
	ssh_err_clear(err);
	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	memset(&p, 0, sizeof(p));
	buf_init(&p.out);
	buf_init(&p.err);
	p.in = in;
	p.inlen = in != NULL ? inlen : 0;
	p.cap = cap;
	if (c->broken) {
		ssh_error_set(err, deadline_expired(&c->deadline) ? SSH_FAIL_TIMEOUT : SSH_FAIL_IO,
		    "%s: the connection is no longer usable", c->label);
		goto out;
	}
	/* Silence is counted while we wait, not while the caller was busy elsewhere. */
	c->heard_ms = monotime_ms();
	do
		ch = libssh2_channel_open_session(c->s);
	while (ch == NULL && ssh_again(c, libssh2_session_last_errno(c->s)));
	if (ch == NULL) {
		ssh_fail_call(c, err, SSH_FAIL_EXEC, libssh2_session_last_errno(c->s),
		    "opening a session channel");
		goto out;
	}
	do
		rc = libssh2_channel_exec(ch, command);
	while (ssh_again(c, rc));
	if (rc != 0) {
		ssh_fail_call(c, err, SSH_FAIL_EXEC, rc, "starting the command");
		goto out;
	}
	if (ssh_pump_run(c, ch, &p, err) != 0)
		goto out;
	/* EOF seen; the exit status comes just before the server closes the channel. */
	do
		rc = libssh2_channel_wait_closed(ch);
	while (ssh_again(c, rc));
	if (rc != 0) {
		ssh_fail_call(c, err, SSH_FAIL_IO, rc, "waiting for the command to exit");
		goto out;
	}
	res->exit_status = libssh2_channel_get_exit_status(ch);
	if (libssh2_channel_get_exit_signal(ch, &sig, &siglen, NULL, NULL, NULL, NULL) == 0 &&
	    sig != NULL) {
		res->exit_signal = xstrndup(sig, siglen);
		res->exit_status = -1;
	}
	do
		rc = libssh2_channel_close(ch);
	while (ssh_again(c, rc));
	res->out_len = p.out.len;
	res->out = buf_detach(&p.out);	/* transferred */
	res->err_len = p.err.len;
	res->err = buf_detach(&p.err);	/* transferred */
	res->truncated = p.truncated;
	ret = 0;
out:
	if (sig != NULL)
		libssh2_free(c->s, sig);
	ssh_channel_release(c, ch);
	buf_free(&p.out);
	buf_free(&p.err);
	if (ret != 0)
		ssh_result_free(res);
	return ret;
}

/* ---- files ---- */

static const char *
ssh_sftp_status(unsigned long st)
{
	static const struct {
		unsigned long	 code;
		const char	*text;
	} table[] = {
		{ LIBSSH2_FX_NO_SUCH_FILE, "no such file or directory" },
		{ LIBSSH2_FX_PERMISSION_DENIED, "permission denied" },
		{ LIBSSH2_FX_FAILURE, "failure" },
		{ LIBSSH2_FX_OP_UNSUPPORTED, "operation not supported" },
		{ LIBSSH2_FX_NO_SUCH_PATH, "no such path" },
		{ LIBSSH2_FX_FILE_ALREADY_EXISTS, "file already exists" },
		{ LIBSSH2_FX_WRITE_PROTECT, "write protected" },
		{ LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM, "no space left on the file system" },
		{ LIBSSH2_FX_QUOTA_EXCEEDED, "quota exceeded" },
		{ LIBSSH2_FX_NOT_A_DIRECTORY, "not a directory" },
	};
	size_t i;

	for (i = 0; i < nitems(table); i++)
		if (table[i].code == st)
			return table[i].text;
	return "error";
}

/* An SFTP call failed: a refusal by the server (EXEC) or a broken connection. */
static void
ssh_sftp_fail(struct ssh_conn *c, LIBSSH2_SFTP *sftp, int rc, struct ssh_error *err,
    const char *what, const char *path)
{
	char buf[300];
	unsigned long st;

	if (rc == LIBSSH2_ERROR_SFTP_PROTOCOL && sftp != NULL) {
		st = libssh2_sftp_last_error(sftp);
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: sftp: cannot %s %s: %s (status %lu)", c->label,
		    what, path, ssh_sftp_status(st), st);
		return;
	}
	snprintf(buf, sizeof(buf), "sftp %s of %s", what, path);
	ssh_fail_call(c, err, rc == LIBSSH2_ERROR_EAGAIN ? SSH_FAIL_TIMEOUT : SSH_FAIL_IO, rc, buf);
}

/* Rename over path with one rename(2) on the box, for servers that refuse SFTP overwrite. */
static int
ssh_put_mv(struct ssh_conn *c, const char *tmp, const char *path, struct ssh_error *err)
{
	struct ssh_result r;
	struct buf cmd = BUF_INIT;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	buf_puts(&cmd, "mv -f -- ");
	sshq_append(&cmd, tmp);
	buf_putc(&cmd, ' ');
	sshq_append(&cmd, path);
	/* The marker: a server that forces its own command (internal-sftp) exits 0 too. */
	buf_puts(&cmd, " && echo wk-mv-done");
	if (ssh_exec(c, buf_str(&cmd), NULL, 0, 4096, &r, err) != 0)
		goto out;
	if (r.exit_status != 0 || strcmp(r.out, "wk-mv-done\n") != 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: mv %s over %s failed (exit %d): %.300s",
		    c->label, tmp, path, r.exit_status, r.err != NULL ? r.err : "");
		goto out;
	}
	ret = 0;
out:
	ssh_result_free(&r);
	buf_free(&cmd);
	return ret;
}

static int
ssh_put_rename(struct ssh_conn *c, LIBSSH2_SFTP *sftp, const char *tmp, const char *path,
    struct ssh_error *err)
{
	unsigned long st;
	int rc;

	do
		rc = libssh2_sftp_rename_ex(sftp, tmp, (unsigned int)strlen(tmp), path,
		    (unsigned int)strlen(path), LIBSSH2_SFTP_RENAME_OVERWRITE |
		    LIBSSH2_SFTP_RENAME_ATOMIC | LIBSSH2_SFTP_RENAME_NATIVE);
	while (ssh_again(c, rc));
	if (rc == 0)
		return 0;
	if (rc != LIBSSH2_ERROR_SFTP_PROTOCOL) {
		ssh_sftp_fail(c, sftp, rc, err, "rename", tmp);
		return -1;
	}
	st = libssh2_sftp_last_error(sftp);
	if (st != LIBSSH2_FX_FAILURE && st != LIBSSH2_FX_FILE_ALREADY_EXISTS &&
	    st != LIBSSH2_FX_OP_UNSUPPORTED) {
		ssh_sftp_fail(c, sftp, rc, err, "rename", tmp);
		return -1;
	}
	/*
	 * SFTP v3 (OpenSSH) will not rename over an existing file.  A shell's
	 * mv is still one atomic rename(2); only a server without a shell gets
	 * remove-then-rename, which leaves a moment with no file at path.
	 */
	if (ssh_put_mv(c, tmp, path, err) == 0)
		return 0;
	if (c->broken)
		return -1;
	log_warn("%s; replacing %s non-atomically", err->msg, path);
	ssh_err_clear(err);
	do
		rc = libssh2_sftp_unlink_ex(sftp, path, (unsigned int)strlen(path));
	while (ssh_again(c, rc));
	if (rc != 0 && !(rc == LIBSSH2_ERROR_SFTP_PROTOCOL &&
	    libssh2_sftp_last_error(sftp) == LIBSSH2_FX_NO_SUCH_FILE)) {
		ssh_sftp_fail(c, sftp, rc, err, "remove", path);
		return -1;
	}
	do
		rc = libssh2_sftp_rename_ex(sftp, tmp, (unsigned int)strlen(tmp), path,
		    (unsigned int)strlen(path), 0);
	while (ssh_again(c, rc));
	if (rc != 0) {
		ssh_sftp_fail(c, sftp, rc, err, "rename", tmp);
		return -1;
	}
	return 0;
}

int
ssh_put(struct ssh_conn *c, const char *remote_path, const void *data, size_t len, int mode,
    struct ssh_error *err)
{
	struct ssh_error scratch;
	LIBSSH2_SFTP_ATTRIBUTES attrs;
	LIBSSH2_SFTP *sftp = NULL;
	LIBSSH2_SFTP_HANDLE *h = NULL;
	char *tmp = NULL;
	const char *p = data;
	size_t off = 0;
	ssize_t n;
	int rc, ret = -1, created = 0, tries = 0;

	if (c->cli != NULL)
		return sshcli_put(c->cli, remote_path, data, len, mode, err);
	if (err == NULL)
		err = &scratch;
	ssh_err_clear(err);
	if (c->broken) {
		ssh_error_set(err, deadline_expired(&c->deadline) ? SSH_FAIL_TIMEOUT : SSH_FAIL_IO,
		    "%s: the connection is no longer usable", c->label);
		goto out;
	}
	/* Silence is counted while we wait, not while the caller was busy elsewhere. */
	c->heard_ms = monotime_ms();
	tmp = xstrfmt("%s.wk-tmp.%ld", remote_path, (long)getpid());
	do
		sftp = libssh2_sftp_init(c->s);
	while (sftp == NULL && ssh_again(c, libssh2_session_last_errno(c->s)));
	if (sftp == NULL) {
		ssh_fail_call(c, err, SSH_FAIL_EXEC, libssh2_session_last_errno(c->s),
		    "starting the sftp subsystem");
		goto out;
	}
	do
		h = libssh2_sftp_open_ex(sftp, tmp, (unsigned int)strlen(tmp), LIBSSH2_FXF_WRITE |
		    LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC, mode, LIBSSH2_SFTP_OPENFILE);
	while (h == NULL && ssh_again(c, libssh2_session_last_errno(c->s)));
	if (h == NULL) {
		ssh_sftp_fail(c, sftp, libssh2_session_last_errno(c->s), err, "create", tmp);
		goto out;
	}
	created = 1;
	while (off < len) {
		/* Bounded: libssh2 1.10 copies the whole buffer into packets in one call. */
		n = libssh2_sftp_write(h, p + off, len - off < SSH_SFTP_WRITE_MAX ?
		    len - off : SSH_SFTP_WRITE_MAX);
		if (n > 0 && ssh_expired(c))
			n = LIBSSH2_ERROR_EAGAIN;
		if (n > 0)
			off += (size_t)n;
		else if (!ssh_again(c, (int)n)) {
			ssh_sftp_fail(c, sftp, n == 0 ? LIBSSH2_ERROR_SOCKET_SEND : (int)n, err,
			    "write", tmp);
			goto out;
		}
	}
	/* Exactly mode: the server's umask applied to the create. */
	memset(&attrs, 0, sizeof(attrs));
	attrs.flags = LIBSSH2_SFTP_ATTR_PERMISSIONS;
	attrs.permissions = (unsigned long)mode & 07777;
	do
		rc = libssh2_sftp_fsetstat(h, &attrs);
	while (ssh_again(c, rc));
	if (rc != 0) {
		ssh_sftp_fail(c, sftp, rc, err, "chmod", tmp);
		goto out;
	}
	do
		rc = libssh2_sftp_fsync(h);
	while (ssh_again(c, rc));
	if (rc != 0 && (rc != LIBSSH2_ERROR_SFTP_PROTOCOL ||
	    libssh2_sftp_last_error(sftp) != LIBSSH2_FX_OP_UNSUPPORTED)) {
		ssh_sftp_fail(c, sftp, rc, err, "fsync", tmp);
		goto out;
	}
	do
		rc = libssh2_sftp_close_handle(h);
	while (ssh_again(c, rc));
	h = NULL;
	if (rc != 0) {
		ssh_sftp_fail(c, sftp, rc, err, "close", tmp);
		goto out;
	}
	if (ssh_put_rename(c, sftp, tmp, remote_path, err) != 0)
		goto out;
	created = 0;
	ret = 0;
out:
	if (h != NULL) {
		while (libssh2_sftp_close_handle(h) == LIBSSH2_ERROR_EAGAIN &&
		    tries < SSH_FREE_TRIES)
			if (c->broken || ssh_wait(c) != 0)
				tries++;
	}
	if (created && !c->broken) {
		do
			rc = libssh2_sftp_unlink_ex(sftp, tmp, (unsigned int)strlen(tmp));
		while (ssh_again(c, rc));
	}
	tries = 0;
	if (sftp != NULL) {
		while (libssh2_sftp_shutdown(sftp) == LIBSSH2_ERROR_EAGAIN && tries < SSH_FREE_TRIES)
			if (c->broken || ssh_wait(c) != 0)
				tries++;
	}
	free(tmp);
	return ret;
}
