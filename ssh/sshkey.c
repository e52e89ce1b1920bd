/*
 * sshkey.c: the type of a user key, from a file or the ssh-agent (see
 * sshkey.h).  Nothing secret is kept: only the unencrypted head of a key
 * file is read, and wiped after.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monotime.h"
#include "portable.h"
#include "sshkey.h"
#include "xmalloc.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

#define SSHKEY_HEAD_MAX		4096		/* enough of a key file to see its type */
#define SSHKEY_AGENT_MAX	(256 * 1024)	/* an agent's answer, bounded */
#define SSH_AGENTC_REQUEST_IDENTITIES	11
#define SSH_AGENT_IDENTITIES_ANSWER	12

/* PEM headers that name the key type. */
static const struct {
	const char	*header;
	const char	*type;
} sshkey_pem[] = {
	{ "-----BEGIN RSA PRIVATE KEY-----", "ssh-rsa" },
	{ "-----BEGIN DSA PRIVATE KEY-----", "ssh-dss" },
	{ "-----BEGIN EC PRIVATE KEY-----", "ecdsa-sha2-nistp256" },
};

/* Types libssh2 1.10 signs with, accepted by OpenSSH 9 (NOTES.md). */
static const char *const sshkey_libssh2_types[] = {
	"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
};

static const struct {
	const char	*prefix;
	const char	*label;
} sshkey_labels[] = {
	{ "ssh-rsa-cert", "RSA certificate" },
	{ "ssh-ed25519-cert", "ed25519 certificate" },
	{ "ecdsa-sha2-nistp256-cert", "ECDSA certificate" },
	{ "sk-", "security-key" },
	{ "ssh-rsa", "RSA" },
	{ "ssh-dss", "DSA" },
	{ "ssh-ed25519", "ed25519" },
	{ "ecdsa-", "ECDSA" },
};

static const char sshkey_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 (whitespace skipped) up to '=', '-' or the end, at most max bytes. */
static size_t
sshkey_unbase64(const char *s, unsigned char *out, size_t max)
{
	const char *q;
	unsigned long v = 0;
	size_t n = 0;
	int bits = 0;

	for (; *s != '\0' && *s != '=' && *s != '-' && n < max; s++) {
		if ((q = strchr(sshkey_b64, *s)) == NULL)
			continue;
		v = (v << 6) | (unsigned long)(q - sshkey_b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(v >> bits);
		}
	}
	return n;
}

static uint32_t
sshkey_u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An SSH string at *off in [0, len): its start and length; -1 when it does not fit. */
static int
sshkey_string(const unsigned char *b, size_t len, size_t *off, const unsigned char **s,
    size_t *slen)
{
	uint32_t n;

	if (len - *off < 4)
		return -1;
	n = sshkey_u32(b + *off);
	if (n > len - *off - 4)
		return -1;
	*s = b + *off + 4;
	*slen = n;
	*off += 4 + n;
	return 0;
}

/* The type name at the start of a public key blob into type; -1 when it is not one. */
static int
sshkey_blob_type(const unsigned char *blob, size_t len, char *type, size_t tlen)
{
	const unsigned char *s;
	size_t off = 0, n, i;

	if (sshkey_string(blob, len, &off, &s, &n) != 0 || n == 0 || n >= tlen)
		return -1;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 0x7f)
			return -1;
	memcpy(type, s, n);
	type[n] = '\0';
	return 0;
}

/* "openssh-key-v1\0", cipher, kdf, kdf options, count, then the first public key. */
static int
sshkey_openssh_type(const char *b64, char *type, size_t tlen)
{
	static const char magic[] = "openssh-key-v1";
	unsigned char raw[SSHKEY_HEAD_MAX];
	const unsigned char *s;
	size_t len, off = sizeof(magic), n;
	int i, r = -1;

	len = sshkey_unbase64(b64, raw, sizeof(raw));
	if (len < sizeof(magic) || memcmp(raw, magic, sizeof(magic)) != 0)
		goto out;
	for (i = 0; i < 3; i++)
		if (sshkey_string(raw, len, &off, &s, &n) != 0)
			goto out;
	if (len - off < 4 || sshkey_u32(raw + off) < 1)
		goto out;
	off += 4;
	if (sshkey_string(raw, len, &off, &s, &n) != 0)
		goto out;
	r = sshkey_blob_type(s, n, type, tlen);
out:
	wk_bzero_secret(raw, sizeof(raw));
	return r;
}

/* The head of path, NUL-terminated, or -1. */
static ssize_t
sshkey_head(const char *path, char *head, size_t max)
{
	ssize_t n, got = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return -1;
	while ((size_t)got < max - 1) {
		if ((n = read(fd, head + got, max - 1 - (size_t)got)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	head[got] = '\0';
	return got;
}

int
sshkey_file_type(const char *priv, char *type, size_t len)
{
	char head[SSHKEY_HEAD_MAX + 1], *p, *pub = NULL;
	size_t i, n;
	int r = -1;

	if (sshkey_head(priv, head, sizeof(head)) > 0) {
		for (i = 0; i < nitems(sshkey_pem); i++) {
			if (strstr(head, sshkey_pem[i].header) != NULL) {
				snprintf(type, len, "%s", sshkey_pem[i].type);
				r = 0;
				goto out;
			}
		}
		if ((p = strstr(head, "-----BEGIN OPENSSH PRIVATE KEY-----")) != NULL &&
		    sshkey_openssh_type(p + 35, type, len) == 0) {
			r = 0;
			goto out;
		}
	}
	/* PKCS#8 and the like: the .pub beside it says. */
	pub = xstrfmt("%s.pub", priv);
	if (sshkey_head(pub, head, sizeof(head)) > 0) {
		n = strcspn(head, " \t\r\n");
		if (n > 0 && n < len && head[n] != '\0') {
			memcpy(type, head, n);
			type[n] = '\0';
			r = 0;
		}
	}
out:
	wk_bzero_secret(head, sizeof(head));
	free(pub);
	return r;
}

int
sshkey_type_libssh2(const char *type)
{
	size_t i;

	for (i = 0; i < nitems(sshkey_libssh2_types); i++)
		if (strcmp(type, sshkey_libssh2_types[i]) == 0)
			return 1;
	return 0;
}

const char *
sshkey_type_label(const char *type)
{
	size_t i;

	if (strstr(type, "-cert-") != NULL && strncmp(type, "ssh-rsa", 7) != 0 &&
	    strncmp(type, "ssh-ed25519", 11) != 0)
		return "certificate";
	for (i = 0; i < nitems(sshkey_labels); i++)
		if (strncmp(type, sshkey_labels[i].prefix, strlen(sshkey_labels[i].prefix)) == 0)
			return sshkey_labels[i].label;
	return type;
}

/* Move all of [p, p+len) through fd (write or read) before the deadline; -1 otherwise. */
static int
sshkey_io(int fd, unsigned char *p, size_t len, int writing, const struct deadline *dl)
{
	struct pollfd pfd;
	ssize_t n;
	size_t off = 0;

	while (off < len) {
		pfd.fd = fd;
		pfd.events = writing ? POLLOUT : POLLIN;
		if (deadline_expired(dl) || poll(&pfd, 1, deadline_poll_timeout(dl, 1, -1)) < 0) {
			if (errno == EINTR && !deadline_expired(dl))
				continue;
			return -1;
		}
		if (pfd.revents == 0)
			continue;
		n = writing ? send(fd, p + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT) :
		    recv(fd, p + off, len - off, MSG_DONTWAIT);
		if (n == 0)
			return -1;
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

int
sshkey_agent_types(const char *sock, int timeout_ms, size_t *usable, size_t *unusable,
    char *first, size_t firstlen)
{
	static const unsigned char req[5] = { 0, 0, 0, 1, SSH_AGENTC_REQUEST_IDENTITIES };
	struct sockaddr_un sa;
	struct deadline dl;
	unsigned char hdr[4], *msg = NULL;
	const unsigned char *blob, *comment;
	char type[128];
	size_t len, off, bloblen, commentlen;
	uint32_t nkeys, i;
	int fd = -1, r = -1;

	*usable = *unusable = 0;
	if (first != NULL && firstlen > 0)
		first[0] = '\0';
	if (sock == NULL || *sock == '\0' || strlen(sock) >= sizeof(sa.sun_path))
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sock, strlen(sock));
	deadline_set(&dl, (uint64_t)(timeout_ms > 0 ? timeout_ms : 1));
	if ((fd = wk_socket(AF_UNIX, SOCK_STREAM, 0, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		goto out;
	if (sshkey_io(fd, (unsigned char *)req, sizeof(req), 1, &dl) != 0 ||
	    sshkey_io(fd, hdr, sizeof(hdr), 0, &dl) != 0)
		goto out;
	len = sshkey_u32(hdr);
	if (len < 5 || len > SSHKEY_AGENT_MAX)
		goto out;
	msg = xmalloc(len);
	if (sshkey_io(fd, msg, len, 0, &dl) != 0 || msg[0] != SSH_AGENT_IDENTITIES_ANSWER)
		goto out;
	nkeys = sshkey_u32(msg + 1);
	off = 5;
	for (i = 0; i < nkeys; i++) {
		if (sshkey_string(msg, len, &off, &blob, &bloblen) != 0 ||
		    sshkey_string(msg, len, &off, &comment, &commentlen) != 0)
			goto out;
		if (sshkey_blob_type(blob, bloblen, type, sizeof(type)) != 0)
			snprintf(type, sizeof(type), "?");
		else if (sshkey_type_libssh2(type)) {
			(*usable)++;
			continue;
		}
		if (*unusable == 0 && first != NULL && firstlen > 0)
			snprintf(first, firstlen, "%s", type);
		(*unusable)++;
	}
	r = 0;
out:
	if (r != 0)
		*usable = *unusable = 0;
	if (fd >= 0)
		close(fd);
	free(msg);
	return r;
}
