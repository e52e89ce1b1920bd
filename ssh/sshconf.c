/*
 * sshconf.c: what an ssh_config file says about one host (see sshconf.h).
 *
 * patrol must reach the box exactly as `ssh HOST` would, so this follows
 * OpenSSH 9.x readconf.c / ssh.c line by line where it matters, and was
 * checked against `ssh -G`:
 *  - a line is split like readconf's strdelim (keyword, one '=' allowed)
 *    then argv_split (quotes, backslash escapes, '#' starts a comment);
 *  - Host patterns match the alias as typed, case-sensitively; Match
 *    host/originalhost lowercase both sides (match_hostname); a negated
 *    pattern that matches vetoes the block;
 *  - every value is validated even in blocks that do not apply, and the
 *    first value obtained wins; IdentityFile/CertificateFile accumulate
 *    (duplicates dropped); ProxyJump and ProxyCommand lock each other;
 *  - an Include inside a block that does not apply is still read, but
 *    nothing in it applies; Host/Match inside an included file do not leak
 *    out of it; nesting stops at 16 and a file that includes itself is an
 *    error (ssh would recurse until the limit);
 *  - tokens are expanded once, after every value is known: HostName gets
 *    %h (the alias) and the result is lowercased unless it is an address;
 *    path keywords get ~, ${VAR} and %d %h %i %k %l %L %n %p %r %u %%.
 * Match criteria other than all/host/originalhost/user/localuser are never
 * evaluated (Match exec runs nothing): the block is skipped and listed in
 * skipped, so that the caller warns or leaves the host to the system ssh.
 *
 * Keywords are a table of {name, handler, field}; a handler validates its
 * arguments and stores into the field only when the block applies and the
 * field is still unset.  Problems are collected as "file:line: message".
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
#include "sshconf.h"
#include "xmalloc.h"

#define SC_MAX_DEPTH	16		/* readconf.c READCONF_MAX_DEPTH */
#define SC_MAX_FILE	(4 << 20)	/* no real ssh_config comes near this */
#define SC_WS		" \t\r\n"

/* A value with where it was written, for messages about it later. */
struct sc_val {
	char	*v;
	char	*file;
	int	 line;
};

struct sc_list {
	struct sc_val	*v;
	size_t		 n;
};

struct sc_ctx {
	const char	*alias;
	const char	*home;
	const char	*luser;
	struct diag	*d;
	int		 nerr;
	struct {
		dev_t	dev;
		ino_t	ino;
	}		 open[SC_MAX_DEPTH + 1];	/* files being read, outermost first */
	int		 nopen;
	/* Single values: NULL / -1 while unset. */
	struct sc_val	 hostname, user, host_key_alias, strict;
	struct sc_val	 proxy_jump, proxy_command;
	int		 port, connect_timeout, alive_interval, alive_count_max;
	int		 batch_mode, identities_only;
	struct sc_list	 identities, certificates, known_hosts;
	struct sshconf_skip *skipped;	/* Match criteria never evaluated */
	size_t		 nskipped;
};

/* One file being read. */
struct sc_file {
	const char	*path;
	int		 line;
	int		*activep;	/* shared with the including file */
	int		 nevermatch;	/* included from a block that does not apply */
	int		 depth;
};

/* The arguments of one line. */
struct sc_args {
	char	**v;
	size_t	  n;
	size_t	  i;
};

struct sc_kw;
typedef void (*sc_kw_fn)(struct sc_ctx *, struct sc_file *, const struct sc_kw *,
    char *rest, struct sc_args *);

struct sc_kw {
	const char	*name;
	sc_kw_fn	 fn;
	size_t		 off;	/* the field in struct sc_ctx */
};

struct sc_token {
	char		 key;
	const char	*val;
};

static int sc_read_file(struct sc_ctx *, const char *, struct sc_file *, int *, int, int, int);

static void sc_error(struct sc_ctx *, const struct sc_file *, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static void
sc_error(struct sc_ctx *c, const struct sc_file *f, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_add(c->d, f->path, f->line, "%s", msg);
	c->nerr++;
}

static void
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

/*
 * readconf's strdelim: the next word of *s, split at whitespace, a double
 * quote or one '='; NULL at an unbalanced quote.  Writes into *s.
 */
static char *
sc_strdelim(char **s)
{
	char *old;
	int eq = 0;

	if (*s == NULL)
		return NULL;
	old = *s;
	if ((*s = strpbrk(*s, SC_WS "\"=")) == NULL)
		return old;
	if (**s == '"') {
		memmove(*s, *s + 1, strlen(*s));
		if ((*s = strchr(*s, '"')) == NULL)
			return NULL;
		**s = '\0';
		*s += strspn(*s + 1, SC_WS) + 1;
		return old;
	}
	if (**s == '=')
		eq = 1;
	**s = '\0';
	*s += strspn(*s + 1, SC_WS) + 1;
	if (**s == '=' && !eq)
		*s += strspn(*s + 1, SC_WS) + 1;
	return old;
}

static void
sc_args_free(struct sc_args *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->i = 0;
}

static char *
sc_next(struct sc_args *a)
{
	return a->i < a->n ? a->v[a->i++] : NULL;
}

/*
 * OpenSSH argv_split(s, 1): words separated by blanks; '...' and "..."
 * quote; \' \" \\ and (unquoted) "\ " escape; an unquoted '#' at the start
 * of a word ends the line.  -1 on an unterminated quote.
 */
static int
sc_argv_split(const char *s, struct sc_args *a)
{
	char *arg;
	size_t i, j;
	int quote;

	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == ' ' || s[i] == '\t')
			continue;
		if (s[i] == '#')
			break;
		quote = 0;
		arg = xcalloc(1, strlen(s + i) + 1);
		a->v = xreallocarray(a->v, a->n + 1, sizeof(*a->v));
		a->v[a->n++] = arg;	/* transferred */
		for (j = 0; s[i] != '\0'; i++) {
			if (s[i] == '\\') {
				if (s[i + 1] == '\'' || s[i + 1] == '"' || s[i + 1] == '\\' ||
				    (quote == 0 && s[i + 1] == ' '))
					i++;
				arg[j++] = s[i];
			} else if (quote == 0 && (s[i] == ' ' || s[i] == '\t'))
				break;
			else if (quote == 0 && (s[i] == '"' || s[i] == '\''))
				quote = s[i];
			else if (quote != 0 && s[i] == quote)
				quote = 0;
			else
				arg[j++] = s[i];
		}
		if (s[i] == '\0') {
			if (quote != 0)
				return -1;
			break;
		}
	}
	return 0;
}

static void
sc_val_set(struct sc_val *v, const char *s, const struct sc_file *f)
{
	v->v = xstrdup(s);
	v->file = xstrdup_or_null(f->path);
	v->line = f->line;
}

static void
sc_val_free(struct sc_val *v)
{
	free(v->v);
	free(v->file);
	v->v = v->file = NULL;
}

static void
sc_list_free(struct sc_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		sc_val_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void
sc_list_add(struct sc_list *l, const char *s, const struct sc_file *f)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	sc_val_set(&l->v[l->n++], s, f);
}

/* The single argument of a keyword; NULL (reported) when missing or empty. */
static const char *
sc_arg1(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, struct sc_args *a)
{
	const char *arg = sc_next(a);

	if (arg == NULL || *arg == '\0') {
		sc_error(c, f, "Missing argument for %s", k->name);
		return NULL;
	}
	return arg;
}

#define SC_FIELD(c, k, type)	((type *)(void *)((char *)(c) + (k)->off))

static void
sc_kw_string(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	struct sc_val *v = SC_FIELD(c, k, struct sc_val);
	const char *arg;

	(void)rest;
	if ((arg = sc_arg1(c, f, k, a)) != NULL && *f->activep && v->v == NULL)
		sc_val_set(v, arg, f);
}

/* readconf a2port: 1..65535, or a service name from /etc/services. */
static void
sc_kw_port(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	int *ip = SC_FIELD(c, k, int);
	const char *arg;
	struct servent *se;
	char *end;
	long v = -1;

	(void)rest;
	if ((arg = sc_arg1(c, f, k, a)) == NULL)
		return;
	if (isdigit((unsigned char)arg[0])) {
		errno = 0;
		v = strtol(arg, &end, 10);
		if (*end != '\0' || errno != 0 || v > 65535)
			v = -1;
	} else if ((se = getservbyname(arg, "tcp")) != NULL)
		v = ntohs((unsigned short)se->s_port);
	if (v <= 0) {
		sc_error(c, f, "Bad value for %s: '%s'", k->name, arg);
		return;
	}
	if (*f->activep && *ip == -1)
		*ip = (int)v;
}

/* Decimal digits to 0..INT_MAX; -1 otherwise. */
static long
sc_uint(const char *s, const char **end)
{
	long v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
	}
	*end = s;
	return v;
}

/* readconf convtime: "90", "1m30s", units s m h d w; -1 when malformed. */
static long
sc_convtime(const char *s)
{
	static const struct {
		char	unit;
		long	mult;
	} units[] = {
		{ 's', 1 }, { 'S', 1 }, { 'm', 60 }, { 'M', 60 }, { 'h', 3600 },
		{ 'H', 3600 }, { 'd', 86400 }, { 'D', 86400 }, { 'w', 604800 },
		{ 'W', 604800 },
	};
	long total = 0, v, mult;
	const char *end;
	size_t i;

	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		if ((v = sc_uint(s, &end)) < 0)
			return -1;
		mult = *end == '\0' ? 1 : 0;
		for (i = 0; i < sizeof(units) / sizeof(units[0]) && *end != '\0'; i++)
			if (units[i].unit == *end)
				mult = units[i].mult;
		if (mult == 0)
			return -1;
		if (*end != '\0')
			end++;
		if (v > INT_MAX / mult || total > INT_MAX - v * mult)
			return -1;
		total += v * mult;
		s = end;
	}
	return total;
}

/* ConnectTimeout, ServerAliveInterval: a time; "none" leaves it unset. */
static void
sc_kw_time(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	int *ip = SC_FIELD(c, k, int);
	const char *arg;
	long v;

	(void)rest;
	if ((arg = sc_arg1(c, f, k, a)) == NULL || strcmp(arg, "none") == 0)
		return;
	if ((v = sc_convtime(arg)) < 0) {
		sc_error(c, f, "Bad value for %s: '%s'", k->name, arg);
		return;
	}
	if (*f->activep && *ip == -1)
		*ip = (int)v;
}

static void
sc_kw_int(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	int *ip = SC_FIELD(c, k, int);
	const char *arg, *end = NULL;
	long v;

	(void)rest;
	if ((arg = sc_arg1(c, f, k, a)) == NULL)
		return;
	if ((v = sc_uint(arg, &end)) < 0 || *end != '\0') {
		sc_error(c, f, "Bad value for %s: '%s'", k->name, arg);
		return;
	}
	if (*f->activep && *ip == -1)
		*ip = (int)v;
}

static void
sc_kw_flag(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	static const struct {
		const char	*word;
		int		 value;
	} words[] = { { "yes", 1 }, { "true", 1 }, { "no", 0 }, { "false", 0 } };
	int *ip = SC_FIELD(c, k, int), v = -1;
	const char *arg;
	size_t i;

	(void)rest;
	if ((arg = sc_arg1(c, f, k, a)) == NULL)
		return;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(arg, words[i].word) == 0)
			v = words[i].value;
	if (v < 0) {
		sc_error(c, f, "Bad value for %s: '%s'", k->name, arg);
		return;
	}
	if (*f->activep && *ip == -1)
		*ip = v;
}

static void
sc_kw_strict(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	static const char *const words[] = {
		"yes", "true", "no", "false", "off", "ask", "accept-new",
	};
	struct sc_val *v = SC_FIELD(c, k, struct sc_val);
	const char *arg;
	size_t i;

	(void)rest;
	if ((arg = sc_arg1(c, f, k, a)) == NULL)
		return;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(arg, words[i]) == 0)
			break;
	if (i == sizeof(words) / sizeof(words[0])) {
		sc_error(c, f, "Bad value for %s: '%s'", k->name, arg);
		return;
	}
	if (*f->activep && v->v == NULL)
		sc_val_set(v, arg, f);
}

/* IdentityFile, CertificateFile: every applying one, in order, once. */
static void
sc_kw_accum(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	struct sc_list *l = SC_FIELD(c, k, struct sc_list);
	const char *arg;
	size_t i;

	(void)rest;
	if ((arg = sc_arg1(c, f, k, a)) == NULL || !*f->activep)
		return;
	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].v, arg) == 0)
			return;
	sc_list_add(l, arg, f);
}

/* UserKnownHostsFile: the first applying line, with all its files. */
static void
sc_kw_files(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	struct sc_list *l = SC_FIELD(c, k, struct sc_list);
	int was_empty = l->n == 0;
	const char *arg;
	size_t first = a->i;

	(void)rest;
	while ((arg = sc_next(a)) != NULL) {
		if (*arg == '\0') {
			sc_error(c, f, "Empty argument for %s", k->name);
			return;
		}
		if (strcasecmp(arg, "none") == 0 && (a->i - 1 > first || a->i < a->n)) {
			sc_error(c, f, "%s: \"none\" must appear alone", k->name);
			return;
		}
		if (*f->activep && was_empty)
			sc_list_add(l, arg, f);
	}
}

/* The rest of the line as written, after blanks and '=' (ssh passes it to sh). */
static char *
sc_raw_rest(char *rest)
{
	return rest + strspn(rest, SC_WS "=");
}

/*
 * ProxyCommand and ProxyJump: whichever applies first wins, and "none"
 * (meaning connect directly) counts as a value.  ProxyJump none does not
 * stop a later ProxyCommand (ssh -G of OpenSSH 9.2 agrees).
 */
static void
sc_kw_proxy_command(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	(void)k;
	a->i = a->n;
	if (*f->activep && c->proxy_command.v == NULL)
		sc_val_set(&c->proxy_command, sc_raw_rest(rest), f);
}

static void
sc_kw_proxy_jump(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	char *s = xstrdup(sc_raw_rest(rest)), *p;
	size_t n;

	(void)k;
	a->i = a->n;
	if ((p = strchr(s, '#')) != NULL)
		*p = '\0';
	for (n = strlen(s); n > 0 && strchr(SC_WS, s[n - 1]) != NULL; n--)
		s[n - 1] = '\0';
	if (*s == '\0')
		sc_error(c, f, "Missing argument for %s", "ProxyJump");
	else if (*f->activep && c->proxy_jump.v == NULL && c->proxy_command.v == NULL) {
		sc_val_set(&c->proxy_jump, s, f);
		if (strcasecmp(s, "none") != 0)
			sc_val_set(&c->proxy_command, "none", f);
	}
	free(s);
}

static void
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

static void
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

/* s with glob's special characters escaped (a home directory is not a pattern). */
static void
sc_glob_escape(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (strchr("*?[]\\", *s) != NULL)
			buf_putc(b, '\\');
		buf_putc(b, *s);
	}
}

static void
sc_kw_include(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	struct buf pat = BUF_INIT;
	const char *arg;
	glob_t gl;
	size_t i;
	int r, oactive;

	(void)k;
	(void)rest;
	while ((arg = sc_next(a)) != NULL) {
		if (*arg == '\0') {
			sc_error(c, f, "Empty argument for %s", "Include");
			break;
		}
		buf_reset(&pat);
		if (arg[0] == '~' && (arg[1] == '\0' || arg[1] == '/')) {
			sc_glob_escape(&pat, c->home);
			buf_puts(&pat, arg + 1);
		} else if (arg[0] == '/' || arg[0] == '~')
			buf_puts(&pat, arg);
		else {
			sc_glob_escape(&pat, c->home);
			buf_puts(&pat, "/.ssh/");
			buf_puts(&pat, arg);
		}
		memset(&gl, 0, sizeof(gl));
		if ((r = glob(buf_str(&pat), GLOB_TILDE, NULL, &gl)) == GLOB_NOMATCH)
			continue;
		if (r != 0) {
			sc_error(c, f, "Include %s: glob failed", arg);
			globfree(&gl);
			continue;
		}
		oactive = *f->activep;
		for (i = 0; i < gl.gl_pathc; i++) {
			(void)sc_read_file(c, gl.gl_pathv[i], f, f->activep,
			    f->nevermatch || !oactive, f->depth + 1, 1);
			/* A Host or Match inside the included file ends with it. */
			*f->activep = oactive;
		}
		globfree(&gl);
	}
	buf_free(&pat);
}

static const struct sc_kw sc_keywords[] = {
	{ "Host",		sc_kw_host,		0 },
	{ "Match",		sc_kw_match,		0 },
	{ "Include",		sc_kw_include,		0 },
	{ "HostName",		sc_kw_string,		offsetof(struct sc_ctx, hostname) },
	{ "User",		sc_kw_string,		offsetof(struct sc_ctx, user) },
	{ "HostKeyAlias",	sc_kw_string,		offsetof(struct sc_ctx, host_key_alias) },
	{ "Port",		sc_kw_port,		offsetof(struct sc_ctx, port) },
	{ "IdentityFile",	sc_kw_accum,		offsetof(struct sc_ctx, identities) },
	{ "IdentityFile2",	sc_kw_accum,		offsetof(struct sc_ctx, identities) },
	{ "CertificateFile",	sc_kw_accum,		offsetof(struct sc_ctx, certificates) },
	{ "IdentitiesOnly",	sc_kw_flag,		offsetof(struct sc_ctx, identities_only) },
	{ "BatchMode",		sc_kw_flag,		offsetof(struct sc_ctx, batch_mode) },
	{ "UserKnownHostsFile",	sc_kw_files,		offsetof(struct sc_ctx, known_hosts) },
	{ "ConnectTimeout",	sc_kw_time,		offsetof(struct sc_ctx, connect_timeout) },
	{ "ServerAliveInterval", sc_kw_time,		offsetof(struct sc_ctx, alive_interval) },
	{ "ServerAliveCountMax", sc_kw_int,		offsetof(struct sc_ctx, alive_count_max) },
	{ "StrictHostKeyChecking", sc_kw_strict,	offsetof(struct sc_ctx, strict) },
	{ "ProxyCommand",	sc_kw_proxy_command,	0 },
	{ "ProxyJump",		sc_kw_proxy_jump,	0 },
};

/* readconf process_config_line_depth, for one line (modified in place). */
static void
sc_line(struct sc_ctx *c, struct sc_file *f, char *line)
{
	struct sc_args a = { NULL, 0, 0 };
	const struct sc_kw *k = NULL;
	char *rest = line, *kw;
	size_t len, i;
	int nerr;

	for (len = strlen(line); len > 1 && strchr(SC_WS "\f", line[len - 1]) != NULL; len--)
		line[len - 1] = '\0';
	if ((kw = sc_strdelim(&rest)) == NULL)
		return;
	if (*kw == '\0')
		kw = sc_strdelim(&rest);
	if (kw == NULL || *kw == '\0' || *kw == '\n' || *kw == '#')
		return;
	if (rest != NULL)
		rest += strspn(rest, SC_WS);
	if (rest == NULL || *rest == '\0') {
		sc_error(c, f, "no argument after keyword \"%s\"", kw);
		return;
	}
	if (sc_argv_split(rest, &a) != 0) {
		sc_error(c, f, "invalid quotes");
		goto out;
	}
	for (i = 0; i < sizeof(sc_keywords) / sizeof(sc_keywords[0]); i++)
		if (strcasecmp(kw, sc_keywords[i].name) == 0)
			k = &sc_keywords[i];
	if (k == NULL)
		goto out;	/* written for ssh, not for us */
	nerr = c->nerr;
	k->fn(c, f, k, rest, &a);
	if (c->nerr == nerr && a.i < a.n)
		sc_error(c, f, "%s: extra arguments at end of line", k->name);
out:
	sc_args_free(&a);
}

/*
 * Read one file.  parent is the including file (NULL at the top); a
 * missing top file is WK_ERR_SYSTEM only when it was named explicitly.
 */
static int
sc_read_file(struct sc_ctx *c, const char *path, struct sc_file *parent, int *activep,
    int nevermatch, int depth, int checkperm)
{
	struct sc_file f = { path, 0, activep, nevermatch, depth };
	struct buf b = BUF_INIT;
	struct stat st;
	char chunk[8192], *line, *next, *end;
	ssize_t n;
	int fd = -1, i, r = 0, saved;

	if (depth > SC_MAX_DEPTH) {
		sc_error(c, parent, "Include %s: nested more than %d deep", path,
		    SC_MAX_DEPTH);
		goto out;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 || fstat(fd, &st) != 0) {
		saved = errno;
		if (parent != NULL) {
			/* A glob match that vanished is fine, as in readconf. */
			if (saved != ENOENT)
				sc_error(c, parent, "Include %s: %s", path, strerror(saved));
		} else if (!checkperm) {
			diag_add(c->d, path, 0, "%s", strerror(saved));
			r = WK_ERR_SYSTEM;
		} else if (saved != ENOENT) {
			/* ssh skips an unreadable ~/.ssh/config without a word; we say it. */
			diag_add(c->d, path, 0, "%s; ignored, as ssh does", strerror(saved));
		}
		errno = saved;
		goto out;
	}
	for (i = 0; i < c->nopen; i++) {
		if (c->open[i].dev == st.st_dev && c->open[i].ino == st.st_ino) {
			sc_error(c, parent, "Include loop: %s is already being read", path);
			goto out;
		}
	}
	if (checkperm && ((st.st_uid != 0 && st.st_uid != getuid()) || (st.st_mode & 022) != 0)) {
		diag_add(c->d, path, 0, "Bad owner or permissions (ssh refuses to use it)");
		c->nerr++;
		goto out;
	}
	for (;;) {
		if ((n = read(fd, chunk, sizeof(chunk))) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (b.len + (size_t)n > SC_MAX_FILE) {
			diag_add(c->d, path, 0, "larger than %d bytes", SC_MAX_FILE);
			c->nerr++;
			goto out;
		}
		buf_append(&b, chunk, (size_t)n);
	}
	if (n < 0) {
		diag_add(c->d, path, 0, "%s", strerror(errno));
		c->nerr++;
		goto out;
	}
	c->open[c->nopen].dev = st.st_dev;
	c->open[c->nopen].ino = st.st_ino;
	c->nopen++;
	end = (char *)buf_str(&b) + b.len;
	for (line = (char *)buf_str(&b); line < end; line = next) {
		if ((next = memchr(line, '\n', (size_t)(end - line))) != NULL)
			*next++ = '\0';
		else
			next = end;
		f.line++;
		sc_line(c, &f, line);
	}
	c->nopen--;
out:
	saved = errno;
	if (fd >= 0)
		close(fd);
	buf_free(&b);
	errno = saved;
	return r;
}

/*
 * One pass over s: %x from toks, ${VAR} from the environment when dollar.
 * NULL with why filled on an unknown token, a lone '%' or an unset variable.
 */
static char *
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

/*
 * ssh.c: a name is lowercased; an address is not, and is rewritten in its
 * numeric form when that differs ("127.1" becomes "127.0.0.1").
 */
static void
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
static void
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

/* Defaults, then every token, into h. */
static void
sc_finish(struct sc_ctx *c, struct sshconf_host *h)
{
	static const char *const def_ids[] = {
		"~/.ssh/id_rsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ed25519",
	};
	static const char *const def_kh[] = { "~/.ssh/known_hosts", "~/.ssh/known_hosts2" };
	const struct sc_token htoks[] = { { '%', "%" }, { 'h', c->alias } };
	struct sc_list defs = { NULL, 0 };
	struct sc_file nofile = { NULL, 0, NULL, 0, 0 };
	char portstr[16], uidstr[32], thishost[256], shorthost[256], why[256];
	size_t i;

	h->alias = xstrdup(c->alias);
	h->port = c->port > 0 ? c->port : 22;
	h->user = xstrdup(c->user.v != NULL ? c->user.v : c->luser);
	if (c->hostname.v == NULL)
		h->hostname = xstrdup(c->alias);
	else if ((h->hostname = sc_expand(c->hostname.v, htoks, 2, 0, why, sizeof(why))) == NULL) {
		diag_add(c->d, c->hostname.file, c->hostname.line, "Bad value for HostName: '%s': %s",
		    c->hostname.v, why);
		c->nerr++;
		h->hostname = xstrdup(c->hostname.v);
	}
	sc_canon_host(&h->hostname);

	if (gethostname(thishost, sizeof(thishost)) != 0)
		thishost[0] = '\0';
	thishost[sizeof(thishost) - 1] = '\0';
	memcpy(shorthost, thishost, sizeof(shorthost));
	shorthost[strcspn(shorthost, ".")] = '\0';
	snprintf(portstr, sizeof(portstr), "%d", h->port);
	snprintf(uidstr, sizeof(uidstr), "%lu", (unsigned long)getuid());
	{
		char *keyalias = xstrdup(c->host_key_alias.v != NULL ?
		    c->host_key_alias.v : h->hostname);
		const struct sc_token toks[] = {
			{ '%', "%" }, { 'd', c->home }, { 'h', h->hostname }, { 'i', uidstr },
			{ 'k', keyalias }, { 'l', thishost }, { 'L', shorthost },
			{ 'n', c->alias }, { 'p', portstr }, { 'r', h->user }, { 'u', c->luser },
		};
		size_t nt = sizeof(toks) / sizeof(toks[0]);

		sc_lower(keyalias);
		h->identities_given = c->identities.n > 0;
		if (h->identities_given)
			sc_expand_list(c, &c->identities, "IdentityFile", toks, nt,
			    &h->identities, &h->nidentities);
		else {
			for (i = 0; i < sizeof(def_ids) / sizeof(def_ids[0]); i++)
				sc_list_add(&defs, def_ids[i], &nofile);
			sc_expand_list(c, &defs, "IdentityFile", toks, nt, &h->identities,
			    &h->nidentities);
			sc_list_free(&defs);
		}
		if (c->known_hosts.n > 0)
			sc_expand_list(c, &c->known_hosts, "UserKnownHostsFile", toks, nt,
			    &h->known_hosts, &h->nknown_hosts);
		else {
			for (i = 0; i < sizeof(def_kh) / sizeof(def_kh[0]); i++)
				sc_list_add(&defs, def_kh[i], &nofile);
			sc_expand_list(c, &defs, "UserKnownHostsFile", toks, nt, &h->known_hosts,
			    &h->nknown_hosts);
			sc_list_free(&defs);
		}
		sc_expand_list(c, &c->certificates, "CertificateFile", toks, nt,
		    &h->certificate_files, &h->ncertificate_files);
		free(keyalias);
	}
	if (h->ncertificate_files > 0)
		h->certificate_file = xstrdup(h->certificate_files[0]);

	h->identities_only = c->identities_only == 1;
	h->batch_mode = c->batch_mode == 1;
	h->connect_timeout_s = c->connect_timeout > 0 ? c->connect_timeout : 0;
	/* readconf fill_default_options: BatchMode implies keepalives every 300s. */
	if (c->alive_interval >= 0)
		h->server_alive_interval = c->alive_interval;
	else
		h->server_alive_interval = h->batch_mode ? 300 : 0;
	h->server_alive_count_max = c->alive_count_max >= 0 ? c->alive_count_max : 3;
	if (c->proxy_jump.v != NULL && strcasecmp(c->proxy_jump.v, "none") != 0)
		h->proxy_jump = xstrdup(c->proxy_jump.v);
	else if (c->proxy_command.v != NULL && strcasecmp(c->proxy_command.v, "none") != 0)
		h->proxy_command = xstrdup(c->proxy_command.v);
	h->strict_host_key_checking = xstrdup_or_null(c->strict.v);
	h->host_key_alias = xstrdup_or_null(c->host_key_alias.v);
	h->skipped = c->skipped;	/* transferred */
	h->nskipped = c->nskipped;
	c->skipped = NULL;
	c->nskipped = 0;
}

static void
sc_free_skipped(struct sshconf_skip *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].file);
		free(v[i].criterion);
	}
	free(v);
}

int
sshconf_resolve(const char *file, const char *alias, struct sshconf_host *out, struct diag *d)
{
	struct sc_ctx c;
	struct sshconf_host h;
	struct passwd *pw;
	const char *env;
	char *home = NULL, *luser = NULL, *path = NULL;
	int r, active = 1, saved = 0;

	memset(out, 0, sizeof(*out));
	memset(&h, 0, sizeof(h));
	memset(&c, 0, sizeof(c));
	c.port = c.connect_timeout = c.alive_interval = c.alive_count_max = -1;
	c.batch_mode = c.identities_only = -1;
	c.d = d;
	if (alias == NULL || *alias == '\0') {
		diag_add(d, NULL, 0, "ssh_config: empty host alias");
		r = WK_ERR_INVALID;
		goto out;
	}
	c.alias = alias;
	pw = getpwuid(getuid());
	if ((env = getenv("HOME")) != NULL && *env != '\0')
		home = xstrdup(env);
	else if (pw != NULL && pw->pw_dir != NULL && *pw->pw_dir != '\0')
		home = xstrdup(pw->pw_dir);
	if (pw != NULL && pw->pw_name != NULL && *pw->pw_name != '\0')
		luser = xstrdup(pw->pw_name);
	else if ((env = getenv("USER")) != NULL && *env != '\0')
		luser = xstrdup(env);
	if (home == NULL || luser == NULL) {
		diag_add(d, NULL, 0, "ssh_config: cannot tell the local %s",
		    home == NULL ? "home directory" : "user name");
		r = WK_ERR_INVALID;
		goto out;
	}
	c.home = home;
	c.luser = luser;
	path = file != NULL ? xstrdup(file) : xstrfmt("%s/.ssh/config", home);
	if ((r = sc_read_file(&c, path, NULL, &active, 0, 0, file == NULL)) != 0) {
		saved = errno;
		goto out;
	}
	sc_finish(&c, &h);
	if (c.nerr > 0) {
		r = WK_ERR_PARSE;
		goto out;
	}
	*out = h;	/* transferred */
	memset(&h, 0, sizeof(h));
	r = 0;
out:
	sshconf_free(&h);
	sc_val_free(&c.hostname);
	sc_val_free(&c.user);
	sc_val_free(&c.host_key_alias);
	sc_val_free(&c.strict);
	sc_val_free(&c.proxy_jump);
	sc_val_free(&c.proxy_command);
	sc_list_free(&c.identities);
	sc_list_free(&c.certificates);
	sc_list_free(&c.known_hosts);
	sc_free_skipped(c.skipped, c.nskipped);
	free(path);
	free(home);
	free(luser);
	if (r == WK_ERR_SYSTEM)
		errno = saved;
	return r;
}

static void
sc_free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
sshconf_free(struct sshconf_host *h)
{
	if (h == NULL)
		return;
	free(h->alias);
	free(h->hostname);
	free(h->user);
	sc_free_strv(h->identities, h->nidentities);
	sc_free_strv(h->known_hosts, h->nknown_hosts);
	free(h->proxy_jump);
	free(h->proxy_command);
	free(h->certificate_file);
	sc_free_strv(h->certificate_files, h->ncertificate_files);
	free(h->strict_host_key_checking);
	free(h->host_key_alias);
	sc_free_skipped(h->skipped, h->nskipped);
	memset(h, 0, sizeof(*h));
}

void
sshconf_warn_skipped(const struct sshconf_host *h, struct diag *d)
{
	size_t i;

	for (i = 0; i < h->nskipped; i++)
		diag_add(d, h->skipped[i].file, h->skipped[i].line,
		    "Match criterion %s is not supported; block skipped", h->skipped[i].criterion);
}
