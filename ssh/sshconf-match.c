/*
 * sshconf-match.c: which blocks of an ssh_config apply (see sshconf.c):
 * OpenSSH's pattern lists (*, ?, !negation) for Host lines, and Match lines
 * with the criteria we evaluate (all, host, originalhost, user, localuser);
 * any other criterion skips its block and is listed for the caller.
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

void
sc_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* *, ? and nothing else (OpenSSH match_pattern). */
static int
sc_glob(const char *s, const char *p)
{
	const char *star_p = NULL, *star_s = NULL;

	while (*s != '\0') {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (*p == '\0')
				return 1;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*p == '?' || *p == *s) {
			p++;
			s++;
			continue;
		}
		if (star_p == NULL)
			return 0;
		p = star_p;
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

/*
 * OpenSSH match_pattern_list: comma-separated, '!' negates.  1 positive,
 * -1 a negated pattern matched, 0 neither.
 */
static int
sc_pattern_list(const char *s, const char *list, int dolower)
{
	char *copy = xstrdup(list), *p = copy, *sub;
	int got = 0, neg, r = 0;

	while (p != NULL) {
		sub = strsep(&p, ",");
		neg = *sub == '!';
		if (neg)
			sub++;
		if (dolower)
			sc_lower(sub);
		if (!sc_glob(s, sub))
			continue;
		if (neg) {
			r = -1;
			goto out;
		}
		got = 1;
	}
	r = got;
out:
	free(copy);
	return r;
}

/* OpenSSH match_hostname: the host is lowercased, and so are the patterns. */
static int
sc_match_hostname(const char *host, const char *list)
{
	char *h = xstrdup(host);
	int r;

	sc_lower(h);
	r = sc_pattern_list(h, list, 1);
	free(h);
	return r;
}

int
sshconf_match_list(const char *patterns, const char *host)
{
	char *copy = xstrdup(patterns), *p = copy, *pat;
	int got = 0, neg;

	while ((pat = strsep(&p, " \t,")) != NULL) {
		if (*pat == '\0')
			continue;
		neg = *pat == '!';
		if (neg)
			pat++;
		if (!sc_glob(host, pat))
			continue;
		if (neg) {
			got = 0;
			break;
		}
		got = 1;
	}
	free(copy);
	return got;
}

void
sc_kw_host(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	const char *arg;
	int neg;

	(void)k;
	(void)rest;
	*f->activep = 0;
	while ((arg = sc_next(a)) != NULL) {
		if (*arg == '\0') {
			sc_error(c, f, "Empty argument for %s", "Host");
			return;
		}
		if (f->nevermatch) {
			a->i = a->n;
			return;
		}
		neg = *arg == '!';
		if (!sc_glob(c->alias, arg + neg))
			continue;
		if (neg) {
			*f->activep = 0;
			a->i = a->n;
			return;
		}
		*f->activep = 1;
	}
}

/* HostName so far with %h expanded, for Match host; raw when it has bad tokens. */
static char *sc_match_host(struct sc_ctx *);

enum sc_crit { SC_CRIT_HOST, SC_CRIT_ORIGINALHOST, SC_CRIT_USER, SC_CRIT_LOCALUSER };

static const struct {
	const char	*name;
	enum sc_crit	 crit;
} sc_criteria[] = {
	{ "host",		SC_CRIT_HOST },
	{ "originalhost",	SC_CRIT_ORIGINALHOST },
	{ "user",		SC_CRIT_USER },
	{ "localuser",		SC_CRIT_LOCALUSER },
};

/*
 * readconf match_cfg_line, without the criteria that need the outside
 * world.  1 applies, 0 does not, -1 malformed (reported).  *condp is left
 * at what was not consumed.
 */
static int
sc_match_line(struct sc_ctx *c, struct sc_file *f, char **condp)
{
	char *cp = *condp, *attrib, *oattrib, *arg = NULL, *host = NULL;
	const char *ruser = c->user.v != NULL ? c->user.v : c->luser;
	int result = 1, attributes = 0, negate, r = 0;
	size_t i, ncrit = sizeof(sc_criteria) / sizeof(sc_criteria[0]);

	host = sc_match_host(c);
	while ((oattrib = attrib = sc_strdelim(&cp)) != NULL && *attrib != '\0') {
		if (*attrib == '#') {
			cp = NULL;
			break;
		}
		if ((negate = *attrib == '!'))
			attrib++;
		if (strcasecmp(attrib, "all") == 0) {
			if (attributes > 1 || ((arg = sc_strdelim(&cp)) != NULL && *arg != '\0' &&
			    *arg != '#')) {
				sc_error(c, f, "'%s' cannot be combined with other Match attributes",
				    oattrib);
				result = -1;
				goto out;
			}
			if (arg != NULL && *arg == '#')
				cp = NULL;
			if (result)
				result = negate ? 0 : 1;
			goto out;
		}
		attributes++;
		for (i = 0; i < ncrit; i++)
			if (strcasecmp(attrib, sc_criteria[i].name) == 0)
				break;
		if (i == ncrit) {
			/* Never evaluated: Match exec must not run anything. */
			c->skipped = xreallocarray(c->skipped, c->nskipped + 1, sizeof(*c->skipped));
			c->skipped[c->nskipped].file = xstrdup_or_null(f->path);
			c->skipped[c->nskipped].line = f->line;
			c->skipped[c->nskipped].criterion = xstrdup(attrib);
			/* ssh evaluates no criterion after one that failed (exec is not run). */
			c->skipped[c->nskipped].live = result == 1 && !f->nevermatch;
			c->nskipped++;
			result = 0;
			cp = NULL;
			goto out;
		}
		if ((arg = sc_strdelim(&cp)) == NULL || *arg == '\0' || *arg == '#') {
			sc_error(c, f, "Missing Match criteria for %s", attrib);
			result = -1;
			goto out;
		}
		switch (sc_criteria[i].crit) {
		case SC_CRIT_HOST:
			r = sc_match_hostname(host, arg) == 1;
			break;
		case SC_CRIT_ORIGINALHOST:
			r = sc_match_hostname(c->alias, arg) == 1;
			break;
		case SC_CRIT_USER:
			r = sc_pattern_list(ruser, arg, 0) == 1;
			break;
		case SC_CRIT_LOCALUSER:
			r = sc_pattern_list(c->luser, arg, 0) == 1;
			break;
		}
		if (r == (negate ? 1 : 0))
			result = 0;
	}
	if (attributes == 0) {
		sc_error(c, f, "One or more attributes required for Match");
		result = -1;
	}
out:
	*condp = cp;
	free(host);
	return result;
}

void
sc_kw_match(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	char *cond = rest;
	int r;

	(void)k;
	if ((r = sc_match_line(c, f, &cond)) < 0)
		return;
	*f->activep = f->nevermatch ? 0 : r;
	if (cond == NULL || *cond == '\0')
		a->i = a->n;
}

static char *
sc_match_host(struct sc_ctx *c)
{
	const struct sc_token toks[] = { { '%', "%" }, { 'h', c->alias } };
	char why[256], *h;

	if (c->hostname.v == NULL)
		return xstrdup(c->alias);
	if ((h = sc_expand(c->hostname.v, toks, 2, 0, why, sizeof(why))) == NULL)
		h = xstrdup(c->hostname.v);
	return h;
}
