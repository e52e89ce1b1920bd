/*
 * sshcli-log.c: the openssh transport's failures (see sshcli.c): ssh's own
 * lines, read from its log, matched against one table of what ssh says,
 * what happened and what to do, into an ssh_error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "monotime.h"
#include "spawn.h"
#include "sshcli-int.h"
#include "sshcli.h"
#include "sshq.h"
#include "transport.h"
#include "xmalloc.h"

/* ssh's words -> what happened and what to do; the first row found in the log wins. */
enum sshcli_hint { HINT_NONE, HINT_KEYGEN, HINT_TRUST, HINT_BYHAND };

static const struct sshcli_fail_row {
	const char	*needle;	/* in ssh's own lines */
	const char	*quote;		/* the line to quote when another than the needle's */
	enum ssh_fail	 kind;
	const char	*what;
	const char	*todo;		/* %s: per hint */
	enum sshcli_hint hint;
} sshcli_fail_table[] = {
	{ "REVOKED HOST KEY", "was revoked", SSH_FAIL_HOSTKEY_MISMATCH,
	  "the server presents a host key that known_hosts marks @revoked",
	  "Refused; known_hosts is never changed by watchkeeper. Find out why the key was "
	  "revoked before trusting this host.", HINT_NONE },
	{ "REMOTE HOST IDENTIFICATION HAS CHANGED", "has changed and you have requested",
	  SSH_FAIL_HOSTKEY_MISMATCH, "the host key has CHANGED",
	  "Refused; known_hosts is never overwritten. If the box was rebuilt or re-rented, "
	  "confirm the new fingerprint with the provider (web console), then remove the old "
	  "entry (%s) and add the new one; if nothing changed on your side, someone may be "
	  "intercepting the connection.", HINT_KEYGEN },
	{ "has changed and you have requested", NULL, SSH_FAIL_HOSTKEY_MISMATCH,
	  "the host key has CHANGED",
	  "Refused; known_hosts is never overwritten. Confirm the new fingerprint with the "
	  "provider (web console) before replacing the entry (%s).", HINT_KEYGEN },
	{ "host key is known for", NULL, SSH_FAIL_HOSTKEY_UNKNOWN, "the host key is not known",
	  "Check the server's fingerprint against the provider's console, then trust it by "
	  "connecting once by hand and answering yes: %s. known_hosts is never written by "
	  "watchkeeper.", HINT_TRUST },
	{ "Host key verification failed", NULL, SSH_FAIL_HOSTKEY_MISMATCH,
	  "the host key could not be verified",
	  "Refused; known_hosts is never changed by watchkeeper. See why with: %s",
	  HINT_BYHAND },
	{ "Permission denied", NULL, SSH_FAIL_AUTH, "no key was accepted",
	  "Check that the key's .pub is in the box's authorized_keys (box.identity, the "
	  "IdentityFile of ssh_config, or a key in ssh-agent); see with: %s", HINT_BYHAND },
	{ "Too many authentication failures", NULL, SSH_FAIL_AUTH,
	  "the server gave up after too many keys were offered",
	  "Set box.identity (or IdentitiesOnly yes with one IdentityFile).", HINT_NONE },
	{ "Could not resolve hostname", NULL, SSH_FAIL_RESOLVE, "cannot resolve the host name",
	  "Check box.host and the HostName that ssh_config gives it.", HINT_NONE },
	{ "Connection refused", NULL, SSH_FAIL_CONNECT, "the connection was refused",
	  "Is the box up, sshd running there, and the port right?", HINT_NONE },
	{ "timed out", NULL, SSH_FAIL_CONNECT, "no answer",
	  "Is the box up? Is the address or port wrong, or a firewall dropping it?", HINT_NONE },
	{ "No route to host", NULL, SSH_FAIL_CONNECT, "no route to the box",
	  "Is the box up, and the address right?", HINT_NONE },
	{ "Network is unreachable", NULL, SSH_FAIL_CONNECT, "the network is unreachable",
	  "Is this machine online?", HINT_NONE },
	{ "Unable to negotiate", NULL, SSH_FAIL_HANDSHAKE, "no algorithm both sides accept",
	  "See with: %s", HINT_BYHAND },
	{ "kex_exchange_identification", NULL, SSH_FAIL_HANDSHAKE,
	  "the server closed the connection before the SSH handshake",
	  "Is it an SSH server? Is it overloaded (MaxStartups)?", HINT_NONE },
	{ "Connection reset", NULL, SSH_FAIL_HANDSHAKE, "the connection was reset",
	  "Is it an SSH server? Is it overloaded (MaxStartups)?", HINT_NONE },
	{ "Connection closed by", NULL, SSH_FAIL_HANDSHAKE, "the server closed the connection",
	  "See with: %s", HINT_BYHAND },
	{ "ad configuration option", NULL, SSH_FAIL_UNSUPPORTED,
	  "ssh rejects the configuration", "Fix the ssh_config file it names.", HINT_NONE },
	{ "too long for Unix domain socket", NULL, SSH_FAIL_EXEC,
	  "the control socket's path is too long", "Use a shorter $XDG_STATE_HOME.", HINT_NONE },
};

/* ---- ssh's words ---- */

/* Up to the last SSHCLI_LOG_KEEP bytes of the file at fd, without \r (and debug lines). */
void
sshcli_log_read(int fd, int debug, struct buf *b)
{
	struct stat st;
	struct buf raw = BUF_INIT;
	char *line, *next;
	off_t from = 0;
	ssize_t n;
	size_t want;

	buf_reset(b);
	if (fd < 0 || fstat(fd, &st) != 0)
		return;
	if (st.st_size > SSHCLI_LOG_KEEP)
		from = st.st_size - SSHCLI_LOG_KEEP;
	want = (size_t)(st.st_size - from);
	buf_reserve(&raw, want + 1);
	while (raw.len < want) {
		n = pread(fd, raw.data + raw.len, want - raw.len, from + (off_t)raw.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		raw.len += (size_t)n;
	}
	raw.data[raw.len] = '\0';
	for (line = raw.data; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		if (*line == '\0' || (!debug && strncmp(line, "debug", 5) == 0))
			continue;
		buf_printf(b, "%s\n", line);
	}
	buf_free(&raw);
}

/* The log's line holding needle (NULL: the last line), cut, into out; 0 or -1 none. */
int
sshcli_log_line(const char *log, const char *needle, char *out, size_t outlen)
{
	const char *p, *s, *e;

	out[0] = '\0';
	if (needle != NULL) {
		if ((p = strstr(log, needle)) == NULL)
			return -1;
		for (s = p; s > log && s[-1] != '\n'; s--)
			;
	} else {
		e = log + strlen(log);
		while (e > log && e[-1] == '\n')
			e--;
		if (e == log)
			return -1;
		for (s = e; s > log && s[-1] != '\n'; s--)
			;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	e = strchr(s, '\n');
	if (e == NULL)
		e = s + strlen(s);
	if ((size_t)(e - s) > SSHCLI_LINE_MAX)
		e = s + SSHCLI_LINE_MAX;
	snprintf(out, outlen, "%.*s", (int)(e - s), s);
	return 0;
}

/* The line after the one holding needle (ssh prints the fingerprint and the fix on their own). */
static void
sshcli_log_next(const char *log, const char *needle, char *out, size_t outlen)
{
	const char *p;

	out[0] = '\0';
	if ((p = strstr(log, needle)) != NULL && (p = strchr(p, '\n')) != NULL)
		(void)sshcli_log_line(p + 1, "", out, outlen);
}

/* Fill err from ssh's log: the first table row found, ssh's line, what to do. */
void
sshcli_classify(struct sshcli_conn *c, const char *log, enum ssh_fail dflt, const char *doing,
    struct ssh_error *err)
{
	const struct sshcli_fail_row *row = NULL;
	char line[SSHCLI_LINE_MAX + 8], extra[SSHCLI_LINE_MAX + 8], todo[900], *cmd = NULL;
	const char *hint = "";
	size_t i;

	for (i = 0; i < nitems(sshcli_fail_table) && row == NULL; i++)
		if (strstr(log, sshcli_fail_table[i].needle) != NULL)
			row = &sshcli_fail_table[i];
	if (row == NULL) {
		if (sshcli_log_line(log, NULL, line, sizeof(line)) != 0)
			snprintf(line, sizeof(line), "it said nothing");
		cmd = sshcli_byhand(c, NULL);
		ssh_error_set(err, dflt, "%s: ssh failed while %s (ssh: %s); see with: %s", c->label,
		    doing, line, cmd);
		free(cmd);
		return;
	}
	if (row->quote == NULL || sshcli_log_line(log, row->quote, line, sizeof(line)) != 0)
		(void)sshcli_log_line(log, row->needle, line, sizeof(line));
	switch (row->hint) {
	case HINT_KEYGEN:
		sshcli_log_next(log, "remove with:", extra, sizeof(extra));
		hint = extra[0] != '\0' ? extra : "ssh-keygen -R HOST -f KNOWN_HOSTS";
		break;
	case HINT_TRUST:
		hint = cmd = sshcli_byhand(c, "-o BatchMode=no -o StrictHostKeyChecking=ask");
		break;
	case HINT_BYHAND:
		hint = cmd = sshcli_byhand(c, NULL);
		break;
	case HINT_NONE:
		break;
	}
	snprintf(todo, sizeof(todo), row->todo, hint);
	ssh_error_set(err, row->kind, "%s: %s (ssh: %s). %s", c->label, row->what, line, todo);
	if (row->kind == SSH_FAIL_HOSTKEY_MISMATCH) {
		sshcli_log_next(log, "key sent by the remote host is", extra, sizeof(extra));
		extra[strcspn(extra, " .")] = '\0';
		if (strncmp(extra, "SHA256:", 7) == 0)
			snprintf(err->fingerprint, sizeof(err->fingerprint), "%.100s", extra);
	}
	free(cmd);
}
