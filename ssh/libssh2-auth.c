/*
 * libssh2-auth.c: the libssh2 transport's user authentication (see
 * libssh2.c): ssh-agent first (unless IdentitiesOnly), then the identity
 * files; when none is accepted, one message says what was tried and why
 * each failed (an RSA key libssh2 1.10 cannot sign for OpenSSH 9 ...).
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
#include "fsutil.h"
#include "log.h"
#include "monotime.h"
#include "libssh2-int.h"
#include "ssh.h"
#include "transport.h"
#include "sshkey.h"
#include "sshq.h"
#include "xmalloc.h"

/* ---- authentication ---- */

/* Is this key file an RSA key (sshkey.c tells)? */
static int
ssh2_keyfile_is_rsa(const char *priv)
{
	char type[128];

	return sshkey_file_type(priv, type, sizeof(type)) == 0 && strcmp(type, "ssh-rsa") == 0;
}

/* The key type of an agent identity's blob ("ssh-ed25519" ...) into out. */
static void
ssh2_blob_type(const unsigned char *blob, size_t len, char *out, size_t outlen)
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

struct ssh2_auth_state {
	struct buf	 tried;		/* what was offered, for the message */
	int		 rsa;		/* an RSA key was among them */
	int		 done;		/* accepted */
	int		 fatal;		/* stop: timeout or connection lost */
};

static void
ssh2_auth_note(struct ssh2_auth_state *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
ssh2_auth_note(struct ssh2_auth_state *a, const char *fmt, ...)
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
ssh2_auth_failed(struct ssh2_conn *c, struct ssh2_auth_state *a, int rc, struct ssh_error *err,
    const char *what)
{
	if (rc == LIBSSH2_ERROR_EAGAIN || c->broken || rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
	    rc == LIBSSH2_ERROR_SOCKET_RECV || rc == LIBSSH2_ERROR_SOCKET_SEND) {
		ssh2_fail_call(c, err, SSH_FAIL_AUTH, rc, what);
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
ssh2_auth_agent(struct ssh2_conn *c, struct ssh2_auth_state *a, struct ssh_error *err)
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
		ssh2_blob_type(id->blob, id->blob_len, type, sizeof(type));
		if (strcmp(type, "ssh-rsa") == 0)
			a->rsa = 1;
		do
			rc = libssh2_agent_userauth(agent, c->user, id);
		while (ssh2_again(c, rc));
		ssh2_auth_note(a, "ssh-agent %s key '%s'%s", type,
		    id->comment != NULL ? id->comment : "", rc == 0 ? "" : " (refused)");
		if (rc == 0)
			a->done = 1;
		else
			(void)ssh2_auth_failed(c, a, rc, err, "authenticating with an ssh-agent key");
	}
out:
	(void)libssh2_agent_disconnect(agent);
	libssh2_agent_free(agent);
}

/*
 * One identity file's attempt.  libssh2 asks first whether the server would
 * take the key (one packet, a round trip), then sends the signed request
 * (the second packet).  On the last key there is to try (last), once that
 * second packet is out, the first command's channel is asked for right
 * behind it: sshd answers the open in the same segment as the host keys it
 * sends after a login, where asked after the login's answer the open waits
 * a round trip behind them (sshd has Nagle on).  Were the login refused
 * after all, the connection fails anyway (no key is left), so the early
 * open never meets a session that lives on.
 */
static int
ssh2_auth_file(struct ssh2_conn *c, const char *pub, const char *priv, int last)
{
	unsigned long sends0 = c->sends;
	int rc;

	/* "" not NULL: libssh2 would strlen() a NULL passphrase for a PEM key. */
	for (;;) {
		rc = libssh2_userauth_publickey_fromfile_ex(c->s, c->user,
		    (unsigned int)strlen(c->user), pub, priv, "");
		if (rc != LIBSSH2_ERROR_EAGAIN)
			break;
		if (last && c->sends - sends0 >= 2 && !c->opening && c->spare == NULL &&
		    !ssh2_out_pending(c, rc))
			(void)ssh2_open_ahead(c);
		if (!ssh2_again(c, rc))
			break;
	}
	return rc;
}

/* The index after the last identity file that exists (0: none). */
static size_t
ssh2_files_end(const struct ssh_target *t)
{
	size_t i;

	for (i = t->nidentities; i > 0; i--)
		if (fs_exists(t->identities[i - 1]))
			return i;
	return 0;
}

static void
ssh2_auth_files(struct ssh2_conn *c, const struct ssh_target *t, struct ssh2_auth_state *a,
    struct ssh_error *err)
{
	char *pub = NULL, lib[300];
	const char *priv;
	size_t i, end = ssh2_files_end(t);
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
		if (ssh2_keyfile_is_rsa(priv))
			a->rsa = 1;
		rc = ssh2_auth_file(c, pub, priv, i + 1 == end);
		if (rc == 0) {
			a->done = 1;
			break;
		}
		if (ssh2_auth_failed(c, a, rc, err, "authenticating with an identity file") != 0) {
			ssh2_auth_note(a, "%s", priv);
			break;
		}
		if (rc == LIBSSH2_ERROR_FILE || rc == LIBSSH2_ERROR_KEYFILE_AUTH_FAILED) {
			ssh2_lib_error(c, lib, sizeof(lib));
			ssh2_auth_note(a, "%s (unreadable: %s; a key with a passphrase must be in "
			    "ssh-agent)", priv, lib);
		} else
			ssh2_auth_note(a, "%s (refused)", priv);
	}
	free(pub);
}

/*
 * When no key was accepted: what the server offers, asked only now (the
 * "none" request costs a round trip that a connection that authenticates
 * never needs).  NULL when it cannot be asked.
 */
static const char *
ssh2_auth_methods(struct ssh2_conn *c)
{
	const char *list;

	if (c->broken)
		return NULL;
	do
		list = libssh2_userauth_list(c->s, c->user, (unsigned int)strlen(c->user));
	while (list == NULL && !libssh2_userauth_authenticated(c->s) &&
	    ssh2_again(c, libssh2_session_last_errno(c->s)));
	return list;
}

int
ssh2_auth(struct ssh2_conn *c, const struct ssh_target *t, struct ssh_error *err)
{
	struct ssh2_auth_state a;
	const char *list;
	int ret = -1;

	memset(&a, 0, sizeof(a));
	buf_init(&a.tried);
	/* Keys straight away: the handshake already asked for the ssh-userauth service. */
	if (!t->identities_only)
		ssh2_auth_agent(c, &a, err);
	ssh2_auth_files(c, t, &a, err);
	if (a.done) {
		ret = 0;
		goto out;
	}
	if (a.fatal)
		goto out;
	if ((list = ssh2_auth_methods(c)) != NULL && strstr(list, "publickey") == NULL) {
		ssh_error_set(err, SSH_FAIL_AUTH, "%s: the server does not accept public keys for user "
		    "%s (it offers: %s); watchkeeper authenticates with keys only", c->label,
		    c->user, list);
		goto out;
	}
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
