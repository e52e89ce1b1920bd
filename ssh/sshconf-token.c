/*
 * sshconf-token.c: values after every keyword is known (see sshconf.c): ~
 * and ${VAR} in paths, the %-tokens of each keyword, and HostName as ssh
 * canonicalises it (lowercased, or an address in its numeric form).
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "err.h"
#include "sshconf-int.h"
#include "sshconf.h"
#include "xmalloc.h"

/*
 * One pass over s: %x from toks, ${VAR} from the environment when dollar.
 * NULL with why filled on an unknown token, a lone '%' or an unset variable.
 */
char *
sc_expand(const char *s, const struct sc_token *toks, size_t ntoks, int dollar, char *why,
    size_t whylen)
{
	struct buf b = BUF_INIT;
	char *ret = NULL, *name = NULL;
	const char *end, *val;
	size_t i;

	for (; *s != '\0'; s++) {
		if (dollar && s[0] == '$' && s[1] == '{') {
			if ((end = strchr(s + 2, '}')) == NULL || end == s + 2) {
				snprintf(why, whylen, "malformed ${...}");
				goto out;
			}
			free(name);
			name = xstrndup(s + 2, (size_t)(end - (s + 2)));
			if ((val = getenv(name)) == NULL) {
				snprintf(why, whylen, "environment variable ${%s} is not set", name);
				goto out;
			}
			buf_puts(&b, val);
			s = end;
			continue;
		}
		if (*s != '%') {
			buf_putc(&b, *s);
			continue;
		}
		if (*++s == '\0') {
			snprintf(why, whylen, "'%%' at the end");
			goto out;
		}
		for (i = 0; i < ntoks; i++)
			if (toks[i].key == *s)
				break;
		if (i == ntoks) {
			snprintf(why, whylen, "unknown token %%%c", *s);
			goto out;
		}
		buf_puts(&b, toks[i].val);
	}
	ret = buf_detach(&b);
out:
	free(name);
	buf_free(&b);
	return ret;
}

/* OpenSSH tilde_expand: "~" and "~/x" from our home, "~user/x" from passwd. */
static char *
sc_tilde(const char *home, const char *s, char *why, size_t whylen)
{
	const char *path, *dir = home;
	struct passwd *pw;
	char *user = NULL, *ret = NULL;
	size_t n;

	if (*s != '~')
		return xstrdup(s);
	path = strchr(s, '/');
	if (path == NULL)
		path = s + strlen(s);
	if (path > s + 1) {
		user = xstrndup(s + 1, (size_t)(path - (s + 1)));
		if ((pw = getpwnam(user)) == NULL) {
			snprintf(why, whylen, "no such user %s", user);
			goto out;
		}
		dir = pw->pw_dir;
	}
	path += strspn(path, "/");
	n = strlen(dir);
	ret = xstrfmt("%s%s%s", dir, n == 0 || dir[n - 1] != '/' ? "/" : "", path);
out:
	free(user);
	return ret;
}

/*
 * ssh.c: a name is lowercased; an address is not, and is rewritten in its
 * numeric form when that differs ("127.1" becomes "127.0.0.1").
 */
void
sc_canon_host(char **hostp)
{
	struct addrinfo hints, *ai = NULL;
	char addr[NI_MAXHOST], *h = *hostp;
	int fast;

	fast = strchr(h, '%') != NULL || strchr(h, ':') != NULL ||
	    strspn(h, "0123456789.") == strlen(h);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(h, "22", &hints, &ai) != 0 || ai == NULL) {
		if (!fast)
			sc_lower(h);
		goto out;
	}
	if (ai->ai_next == NULL && getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof(addr),
	    NULL, 0, NI_NUMERICHOST) == 0 && strcasecmp(h, addr) != 0) {
		free(h);
		*hostp = xstrdup(addr);
	}
out:
	if (ai != NULL)
		freeaddrinfo(ai);
}

/* ~, then ${VAR} and %x of a path value; NULL when reported. */
static char *
sc_expand_path(struct sc_ctx *c, const struct sc_val *v, const char *what,
    const struct sc_token *toks, size_t ntoks)
{
	char why[512], *t, *s = NULL;

	why[0] = '\0';
	if ((t = sc_tilde(c->home, v->v, why, sizeof(why))) != NULL)
		s = sc_expand(t, toks, ntoks, 1, why, sizeof(why));
	free(t);
	if (s == NULL) {
		diag_add(c->d, v->file, v->line, "Bad value for %s: '%s': %s", what, v->v, why);
		c->nerr++;
	}
	return s;
}

/* Expand list (skipping "none") into *outp / *np. */
void
sc_expand_list(struct sc_ctx *c, const struct sc_list *l, const char *what,
    const struct sc_token *toks, size_t ntoks, char ***outp, size_t *np)
{
	size_t i;
	char *s;

	for (i = 0; i < l->n; i++) {
		if (strcasecmp(l->v[i].v, "none") == 0)
			continue;
		if ((s = sc_expand_path(c, &l->v[i], what, toks, ntoks)) == NULL)
			continue;
		*outp = xreallocarray(*outp, *np + 1, sizeof(**outp));
		(*outp)[(*np)++] = s;	/* transferred */
	}
}
