/*
 * target.c: the box's ssh target and the run's local state directory.
 *
 * With the openssh transport, ssh itself reads ssh_config, so the resolved
 * fields serve messages only; what the config's own box.* keys set is
 * marked in t->given and passed to ssh as options.
 *
 * box.transport "auto" (the default) is decided here, once, for patrol,
 * sentinel and handbook alike: libssh2 unless the resolved host needs
 * something only the system ssh does (target_cli_reasons[], first match
 * wins), and then the system ssh when it is on PATH.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "layout.h"
#include "sshcli.h"
#include "sshconf.h"
#include "sshkey.h"
#include "target.h"
#include "xmalloc.h"

static char **
strv1(const char *s, size_t *n)
{
	char **v = xcalloc(1, sizeof(*v));

	v[0] = xstrdup(s);
	*n = 1;
	return v;
}

static char **
strv_dup(char *const *src, size_t n)
{
	char **v = xcalloc(n > 0 ? n : 1, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = xstrdup(src[i]);
	return v;
}

/* "~/x" with $HOME; anything else as is. */
static char *
expand_home(const char *p)
{
	const char *home = getenv("HOME");

	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home != NULL)
		return xstrfmt("%s%s", home, p + 1);
	return xstrdup(p);
}

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

/* How long the ssh-agent may take to list its keys. */
#define TARGET_AGENT_MS		1000
/* A ProxyCommand's program name quoted in a reason is cut here. */
#define TARGET_WHY_CMD		60

/* What the decision looks at: the resolved host and the identities libssh2 would offer. */
struct target_in {
	const struct sshconf_host	*h;
	const struct ssh_target		*t;
};

typedef int (*target_reason_fn)(const struct target_in *, char *why, size_t len);

static int
target_why_proxy_jump(const struct target_in *in, char *why, size_t len)
{
	if (in->h->proxy_jump == NULL)
		return 0;
	snprintf(why, len, "ProxyJump %s", in->h->proxy_jump);
	return 1;
}

/* Only the program's name: the rest of a ProxyCommand may carry a token. */
static int
target_why_proxy_command(const struct target_in *in, char *why, size_t len)
{
	const char *cmd = in->h->proxy_command;
	size_t n;

	if (cmd == NULL)
		return 0;
	cmd += strspn(cmd, " \t");
	if (strncmp(cmd, "exec ", 5) == 0)
		cmd += 5 + strspn(cmd + 5, " \t");
	n = strcspn(cmd, " \t");
	snprintf(why, len, "ProxyCommand %.*s", (int)(n < TARGET_WHY_CMD ? n : TARGET_WHY_CMD), cmd);
	return 1;
}

static int
target_why_certificate(const struct target_in *in, char *why, size_t len)
{
	if (in->h->certificate_file == NULL)
		return 0;
	snprintf(why, len, "CertificateFile %s", in->h->certificate_file);
	return 1;
}

static int
target_why_match(const struct target_in *in, char *why, size_t len)
{
	const struct sshconf_skip *k = NULL;
	size_t i;

	for (i = 0; i < in->h->nskipped && k == NULL; i++)
		if (in->h->skipped[i].live)
			k = &in->h->skipped[i];
	if (k == NULL)
		return 0;
	snprintf(why, len, "Match %s at %s:%d (ssh evaluates it; watchkeeper cannot)",
	    k->criterion, k->file != NULL ? k->file : "?", k->line);
	return 1;
}

static int
target_why_host_key_alias(const struct target_in *in, char *why, size_t len)
{
	if (in->h->host_key_alias == NULL)
		return 0;
	snprintf(why, len, "HostKeyAlias %s", in->h->host_key_alias);
	return 1;
}

/* An identity file that exists and that libssh2 cannot sign with (RSA, security keys). */
static int
target_why_key_file(const struct target_in *in, char *why, size_t len)
{
	char type[128];
	size_t i;

	for (i = 0; i < in->t->nidentities; i++) {
		if (sshkey_file_type(in->t->identities[i], type, sizeof(type)) != 0 ||
		    sshkey_type_libssh2(type))
			continue;
		snprintf(why, len, "%s key %s%s", sshkey_type_label(type), in->t->identities[i],
		    strcmp(type, "ssh-rsa") == 0 ? " (libssh2 1.10 cannot sign rsa-sha2)" : "");
		return 1;
	}
	return 0;
}

/* ssh loads "<identity>-cert.pub" by itself; libssh2 never does. */
static int
target_why_key_cert(const struct target_in *in, char *why, size_t len)
{
	struct stat st;
	size_t i;
	char *p;
	int r = 0;

	for (i = 0; i < in->t->nidentities && r == 0; i++) {
		if (stat(in->t->identities[i], &st) != 0)
			continue;
		p = xstrfmt("%s-cert.pub", in->t->identities[i]);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			snprintf(why, len, "certificate %s", p);
			r = 1;
		}
		free(p);
	}
	return r;
}

static int
target_why_agent(const struct target_in *in, char *why, size_t len)
{
	size_t usable, unusable;
	char first[128];

	if (in->t->identities_only ||
	    sshkey_agent_types(getenv("SSH_AUTH_SOCK"), TARGET_AGENT_MS, &usable, &unusable, first,
	    sizeof(first)) != 0 || usable > 0 || unusable == 0)
		return 0;
	snprintf(why, len, "ssh-agent holds only %s keys%s", sshkey_type_label(first),
	    strcmp(first, "ssh-rsa") == 0 ? " (libssh2 1.10 cannot sign rsa-sha2)" : "");
	return 1;
}

/*
 * What libssh2 cannot do, in the order they are looked for.  fatal: with
 * libssh2 there is no way at all (an error before connecting); the others
 * only risk a refusal the system ssh would not get, so libssh2 still tries.
 */
static const struct {
	target_reason_fn	 fn;
	const char		*what;		/* for the libssh2 error */
	int			 fatal;
} target_cli_reasons[] = {
	{ target_why_proxy_jump,	"ProxyJump",		1 },
	{ target_why_proxy_command,	"ProxyCommand",		1 },
	{ target_why_certificate,	"CertificateFile",	1 },
	{ target_why_match,		NULL,			0 },
	{ target_why_host_key_alias,	NULL,			0 },
	{ target_why_key_file,		NULL,			0 },
	{ target_why_key_cert,		NULL,			0 },
	{ target_why_agent,		NULL,			0 },
};

/* Is there an executable `ssh` on PATH (as spawn's PATH search would find it)? */
static int
target_have_ssh(void)
{
	return fs_on_path("ssh");
}

const char *
target_transport_name(const struct ssh_target *t)
{
	return t->openssh ? "openssh" : "libssh2";
}

char *
target_transport_text(const struct ssh_target *t)
{
	if (!t->transport_auto)
		return xstrfmt("%s: set by box.transport", target_transport_name(t));
	if (t->openssh)
		return xstrfmt("openssh: %s", t->transport_why);
	if (t->cli_missing)
		return xstrfmt("libssh2: %s needs the system ssh, which is not installed (no ssh on PATH)",
		    t->transport_why);
	return xstrdup("libssh2: nothing in the ssh config or keys needs the system ssh");
}

/*
 * Set t->openssh, transport_auto, cli_missing, transport_why from
 * box.transport and what the host needs.  -1 with err when libssh2 must be
 * used and cannot reach this host at all.
 */
static int
target_choose(const struct wk_box *b, const struct sshconf_host *h, struct ssh_target *t,
    struct ssh_error *err, struct diag *d)
{
	struct target_in in = { h, t };
	char why[600];
	size_t i;
	int explicit_cli = b->transport != NULL && strcmp(b->transport, "openssh") == 0;
	int explicit_lib = b->transport != NULL && strcmp(b->transport, "libssh2") == 0;
	int r = 0;

	t->transport_auto = !explicit_cli && !explicit_lib;
	t->openssh = explicit_cli;
	for (i = 0; i < nitems(target_cli_reasons) && !explicit_cli; i++) {
		why[0] = '\0';
		if ((explicit_lib && !target_cli_reasons[i].fatal) ||
		    !target_cli_reasons[i].fn(&in, why, sizeof(why)))
			continue;
		if (t->transport_auto) {
			t->transport_why = xstrdup(why);
			if (target_have_ssh()) {
				t->openssh = 1;
				goto out;
			}
			t->cli_missing = 1;
		}
		if (!target_cli_reasons[i].fatal)
			break;
		err->kind = SSH_FAIL_UNSUPPORTED;
		if (explicit_lib)
			snprintf(err->msg, sizeof(err->msg), "%s uses %s, which the libssh2 transport "
			    "cannot do: set \"box\": {\"transport\": \"openssh\"}", b->host,
			    target_cli_reasons[i].what);
		else
			snprintf(err->msg, sizeof(err->msg), "%s uses %s, which the libssh2 transport "
			    "cannot do, and the system ssh client that \"transport\": \"auto\" "
			    "uses for it is not installed (no ssh on PATH): install the OpenSSH client",
			    b->host, target_cli_reasons[i].what);
		r = -1;
		goto out;
	}
	/* libssh2 skips those blocks, and an explicit openssh said so too before "auto". */
	sshconf_warn_skipped(h, d);
out:
	return r;
}

int
target_from_config(const struct wk_config *cfg, struct ssh_target *t, struct ssh_error *err,
    struct diag *d)
{
	struct sshconf_host h;
	const struct wk_box *b = &cfg->box;
	char *file = NULL, *dir = NULL;
	int r = -1;

	memset(t, 0, sizeof(*t));
	memset(&h, 0, sizeof(h));
	memset(err, 0, sizeof(*err));
	(void)ssh_agent_find();	/* a scheduled tick has no SSH_AUTH_SOCK: the session's agent */
	if (b->host == NULL) {
		err->kind = SSH_FAIL_UNSUPPORTED;
		snprintf(err->msg, sizeof(err->msg), "%s: no \"box\": {\"host\": ...} in the config", cfg->path);
		return -1;
	}
	file = b->ssh_config != NULL ? expand_home(b->ssh_config) : NULL;
	if (sshconf_resolve(file, b->host, &h, d) != 0) {
		err->kind = SSH_FAIL_UNSUPPORTED;
		snprintf(err->msg, sizeof(err->msg), "cannot read the ssh config %s",
		    file != NULL ? file : "~/.ssh/config");
		goto out;
	}
	t->alias = xstrdup(b->host);
	t->host = xstrdup(h.hostname);
	t->port = b->port > 0 ? (int)b->port : h.port;
	t->user = xstrdup(b->user != NULL ? b->user : h.user);
	if (b->identity != NULL) {
		char *id = expand_home(b->identity);

		t->identities = strv1(id, &t->nidentities);
		t->identities_only = 1;
		free(id);
	} else {
		t->identities = strv_dup(h.identities, h.nidentities);
		t->nidentities = h.nidentities;
		t->identities_only = h.identities_only;
	}
	if (b->known_hosts != NULL) {
		char *kh = expand_home(b->known_hosts);

		t->known_hosts = strv1(kh, &t->nknown_hosts);
		free(kh);
	} else {
		t->known_hosts = strv_dup(h.known_hosts, h.nknown_hosts);
		t->nknown_hosts = h.nknown_hosts;
	}
	/* The config's bound wins; else ssh_config's; else the key table's default. */
	t->connect_timeout_s = config_get_int(cfg, "box.connect_timeout_s");
	if (cJSON_GetObjectItem(cJSON_GetObjectItem(cfg->root, "box"), "connect_timeout_s") == NULL &&
	    h.connect_timeout_s > 0)
		t->connect_timeout_s = h.connect_timeout_s;
	t->keepalive_s = h.server_alive_interval;
	t->keepalive_max = h.server_alive_count_max;
	if (target_choose(b, &h, t, err, d) != 0)
		goto out;
	if (t->openssh) {
		t->ssh_config_file = file;
		file = NULL;	/* transferred */
		t->given = (b->port > 0 ? SSH_GIVEN_PORT : 0) | (b->user != NULL ? SSH_GIVEN_USER : 0) |
		    (b->identity != NULL ? SSH_GIVEN_IDENTITY | SSH_GIVEN_IDENTITIES_ONLY : 0) |
		    (b->known_hosts != NULL ? SSH_GIVEN_KNOWN_HOSTS : 0);
		/* In the run's state dir when the socket's path fits there, else under /tmp. */
		dir = statedir_path(cfg, 1);
		if ((t->control_path = sshcli_control_path(dir)) == NULL) {
			err->kind = SSH_FAIL_EXEC;
			snprintf(err->msg, sizeof(err->msg), "no directory for ssh's control socket "
			    "(%s, /tmp/wk-%lu): %s", dir != NULL ? dir : "no state directory",
			    (unsigned long)getuid(), wk_strerror(WK_ERR_SYSTEM));
			goto out;
		}
	}
	r = 0;
 out:
	if (r != 0)
		target_free(t);
	sshconf_free(&h);
	free(file);
	free(dir);
	return r;
}

void
target_free(struct ssh_target *t)
{
	size_t i;

	for (i = 0; i < t->nidentities; i++)
		free(t->identities[i]);
	free(t->identities);
	for (i = 0; i < t->nknown_hosts; i++)
		free(t->known_hosts[i]);
	free(t->known_hosts);
	free(t->host);
	free(t->user);
	free(t->alias);
	free(t->ssh_config_file);
	free(t->control_path);
	free(t->transport_why);
	memset(t, 0, sizeof(*t));
}
