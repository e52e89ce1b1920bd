/*
 * target.c: the box's ssh target and the run's local state directory.
 *
 * With the openssh transport, ssh itself reads ssh_config, so the resolved
 * fields serve messages only; what the config's own box.* keys set is
 * marked in t->given and passed to ssh as options.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "sshcli.h"
#include "sshconf.h"
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
	if (b->transport == NULL || strcmp(b->transport, "libssh2") == 0) {
		const char *what = h.proxy_jump != NULL ? "ProxyJump" :
		    h.proxy_command != NULL ? "ProxyCommand" :
		    h.certificate_file != NULL ? "CertificateFile" : NULL;

		if (what != NULL) {
			err->kind = SSH_FAIL_UNSUPPORTED;
			snprintf(err->msg, sizeof(err->msg), "%s uses %s, which the libssh2 transport "
			    "cannot do: set \"box\": {\"transport\": \"openssh\"}", b->host, what);
			goto out;
		}
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
	if (b->transport != NULL && strcmp(b->transport, "openssh") == 0) {
		t->openssh = 1;
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
			    (unsigned long)getuid(), strerror(errno));
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
	memset(t, 0, sizeof(*t));
}

char *
statedir_path(const struct wk_config *cfg, int create)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *p;

	if (xdg != NULL && xdg[0] == '/')
		p = xstrfmt("%s/watchkeeper/%s", xdg, cfg->run);
	else if (home != NULL)
		p = xstrfmt("%s/.local/state/watchkeeper/%s", home, cfg->run);
	else {
		errno = ENOENT;
		return NULL;
	}
	if (create && fs_mkdirs(p, 0700) != 0) {
		free(p);
		return NULL;
	}
	return p;
}
