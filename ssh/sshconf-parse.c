/*
 * sshconf-parse.c: one line of an ssh_config file (see sshconf.c): split as
 * readconf's strdelim and argv_split do, its keyword looked up in one table
 * of {name, handler, field}, and the handler's validation of the value,
 * stored only where the block applies and the field is still unset.
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
 * readconf's strdelim: the next word of *s, split at whitespace, a double
 * quote or one '='; NULL at an unbalanced quote.  Writes into *s.
 */
char *
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

char *
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

void
sc_val_free(struct sc_val *v)
{
	free(v->v);
	free(v->file);
	v->v = v->file = NULL;
}

void
sc_list_free(struct sc_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		sc_val_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void
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

/* A whole number, nothing after it; -1 when s is not one. */
static long
sc_whole(const char *s)
{
	const char *end = NULL;
	long v = sc_uint(s, &end);

	return v < 0 || *end != '\0' ? -1 : v;
}

/* v into k's int field where the block applies and it is unset; v < 0: arg is bad (reported). */
static void
sc_set_int(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, const char *arg, long v)
{
	int *ip = SC_FIELD(c, k, int);

	if (v < 0)
		sc_error(c, f, "Bad value for %s: '%s'", k->name, arg);
	else if (*f->activep && *ip == -1)
		*ip = (int)v;
}

/* A number (conv: < 0 when arg is not one); with none, the word "none" leaves it unset. */
static void
sc_number(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, struct sc_args *a,
    long (*conv)(const char *), int none)
{
	const char *arg;

	if ((arg = sc_arg1(c, f, k, a)) == NULL || (none && strcmp(arg, "none") == 0))
		return;
	sc_set_int(c, f, k, arg, conv(arg));
}

/* ConnectTimeout, ServerAliveInterval: a time; "none" leaves it unset. */
static void
sc_kw_time(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	(void)rest;
	sc_number(c, f, k, a, sc_convtime, 1);
}

static void
sc_kw_int(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	(void)rest;
	sc_number(c, f, k, a, sc_whole, 0);
}

static void
sc_kw_flag(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a)
{
	static const struct {
		const char	*word;
		int		 value;
	} words[] = { { "yes", 1 }, { "true", 1 }, { "no", 0 }, { "false", 0 } };
	const char *arg;
	size_t i;
	int v = -1;

	(void)rest;
	if ((arg = sc_arg1(c, f, k, a)) == NULL)
		return;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(arg, words[i].word) == 0)
			v = words[i].value;
	sc_set_int(c, f, k, arg, v);
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
void
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
