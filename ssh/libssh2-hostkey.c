/*
 * libssh2-hostkey.c: the libssh2 transport's host key checking (see
 * libssh2.c): known_hosts files read line by line into libssh2's
 * collections (a line libssh2 cannot parse costs only that line), the
 * host-key algorithms asked for ordered from what known_hosts holds for the
 * host, and the server's key checked against them and against @revoked
 * lines: an unknown or changed key is refused, known_hosts never written.
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
#include "ssh.h"
#include "transport.h"
#include "sshkey.h"
#include "sshq.h"
#include "xmalloc.h"

/* Host key types: how libssh2's session, its known_hosts code and ssh-keyscan name each. */
static const struct ssh2_keytype {
	int		 hostkey;	/* LIBSSH2_HOSTKEY_TYPE_* */
	int		 known;		/* LIBSSH2_KNOWNHOST_KEY_* */
	const char	*name;		/* as in known_hosts */
	const char	*methods;	/* host-key algorithms to ask for, best first */
	const char	*keyscan;	/* ssh-keyscan -t */
} ssh2_keytypes[] = {
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

/* ---- known_hosts ---- */

static const struct ssh2_keytype *
ssh2_keytype_by_hostkey(int hostkey, size_t *idx)
{
	size_t i;

	for (i = 0; i < nitems(ssh2_keytypes); i++)
		if (ssh2_keytypes[i].hostkey == hostkey) {
			*idx = i;
			return &ssh2_keytypes[i];
		}
	return NULL;
}

/* The ssh2_known types bit of a LIBSSH2_KNOWNHOST_KEY_* type. */
static unsigned int
ssh2_keytype_bit(int known)
{
	size_t i;

	for (i = 0; i < nitems(ssh2_keytypes); i++)
		if (ssh2_keytypes[i].known == known)
			return 1u << i;
	return 0;
}

/* Feed one file's lines to libssh2, skipping (and saying so) those it cannot parse. */
static void
ssh2_known_readfile(struct ssh2_known *k, LIBSSH2_KNOWNHOSTS *kh, const char *path)
{
	LIBSSH2_KNOWNHOSTS *into;
	char *text = NULL, *line, *next, *p, *e;
	int lineno = 0;

	if (fs_read_file(path, SSH_KNOWN_HOSTS_MAX, &text, NULL) != 0) {
		if (errno != ENOENT)
			log_warn("%s: cannot read: %s", path, wk_strerror(WK_ERR_SYSTEM));
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
ssh2_known_types(struct ssh2_conn *c, struct ssh2_known *k)
{
	static const char nokey[] = "AAAA";
	size_t f, i;

	for (f = 0; f < k->nfiles; f++)
		for (i = 0; i < nitems(ssh2_keytypes); i++)
			if (libssh2_knownhost_checkp(k->files[f], c->hostname, -1, nokey,
			    sizeof(nokey) - 1, LIBSSH2_KNOWNHOST_TYPE_PLAIN |
			    LIBSSH2_KNOWNHOST_KEYENC_BASE64 | ssh2_keytypes[i].known, NULL) ==
			    LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
				k->types |= 1u << i;
}

void
ssh2_known_load(struct ssh2_conn *c, const struct ssh_target *t, struct ssh2_known *k)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	k->revoked = libssh2_knownhost_init(c->s);
	k->files = xcalloc(t->nknown_hosts > 0 ? t->nknown_hosts : 1, sizeof(*k->files));
	k->nfiles = t->nknown_hosts;
	for (i = 0; i < k->nfiles; i++) {
		if ((k->files[i] = libssh2_knownhost_init(c->s)) == NULL)
			fatal("libssh2_knownhost_init failed");
		ssh2_known_readfile(k, k->files[i], t->known_hosts[i]);
	}
	if (k->revoked == NULL)
		fatal("libssh2_knownhost_init failed");
	ssh2_known_types(c, k);
}

void
ssh2_known_free(struct ssh2_known *k)
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
void
ssh2_hostkey_prefs(struct ssh2_conn *c, const struct ssh2_known *k)
{
	struct buf pref = BUF_INIT;
	const char **algs = NULL;
	char *methods, *m, *save;
	size_t i, pass;
	int nalgs, j, ok;

	nalgs = libssh2_session_supported_algs(c->s, LIBSSH2_METHOD_HOSTKEY, &algs);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nitems(ssh2_keytypes); i++) {
			if (((k->types >> i) & 1) != (pass == 0 ? 1u : 0u))
				continue;
			methods = xstrdup(ssh2_keytypes[i].methods);
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
ssh2_fingerprint(struct ssh2_conn *c, char *out, size_t outlen)
{
	struct buf b = BUF_INIT;
	const char *h;

	if ((h = libssh2_hostkey_hash(c->s, LIBSSH2_HOSTKEY_HASH_SHA256)) == NULL) {
		snprintf(out, outlen, "SHA256:?");
		return;
	}
	buf_puts(&b, "SHA256:");
	ssh2_base64(&b, (const unsigned char *)h, 32, 0);
	snprintf(out, outlen, "%s", buf_str(&b));
	buf_free(&b);
}

/* Is this key (base64) listed as @revoked, for any host? */
static int
ssh2_known_revoked(const struct ssh2_known *k, const char *b64)
{
	struct libssh2_knownhost *ent, *prev = NULL;

	while (libssh2_knownhost_get(k->revoked, &ent, prev) == 0) {
		prev = ent;
		if (ent->key != NULL && strcmp(ent->key, b64) == 0)
			return 1;
	}
	return 0;
}

int
ssh2_hostkey_verify(struct ssh2_conn *c, const struct ssh_target *t, const struct ssh2_known *k,
    struct ssh_error *err)
{
	const struct ssh2_keytype *kt;
	struct buf b64 = BUF_INIT, files = BUF_INIT;
	const char *key, *mismatch = NULL, *first;
	char fp[128], *qfile = NULL, *qhost = NULL, *quh = NULL, *qname = NULL;
	size_t keylen, i, idx = 0;
	unsigned int other;
	int type, rc, ret = -1, typechange, rsa_only;

	if ((key = libssh2_session_hostkey(c->s, &keylen, &type)) == NULL ||
	    (kt = ssh2_keytype_by_hostkey(type, &idx)) == NULL) {
		ssh_error_set(err, SSH_FAIL_HANDSHAKE, "%s: the server's host key type (%d) is not "
		    "supported by libssh2", c->label, type);
		goto out;
	}
	ssh2_fingerprint(c, fp, sizeof(fp));
	ssh2_base64(&b64, (const unsigned char *)key, keylen, 1);
	for (i = 0; i < k->nfiles; i++) {
		buf_printf(&files, "%s%s", i > 0 ? ", " : "", t->known_hosts[i]);
		rc = libssh2_knownhost_checkp(k->files[i], c->hostname, -1, key, keylen,
		    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | kt->known, NULL);
		if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH && !ssh2_known_revoked(k, buf_str(&b64))) {
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
	if (ssh2_known_revoked(k, buf_str(&b64))) {
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
	rsa_only = mismatch == NULL && other != 0 && (other & ~ssh2_keytype_bit(
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
