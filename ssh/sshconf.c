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
 *
 * Here: reading files (Include, depth, loops) and building the result; the
 * line parser and keyword table are in sshconf-parse.c, Host/Match in
 * sshconf-match.c, token expansion in sshconf-token.c (sshconf-int.h).
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

static int sc_read_file(struct sc_ctx *, const char *, struct sc_file *, int *, int, int, int);

void
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

void
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
		diag_add(c->d, path, 0, "%s", wk_strerror(WK_ERR_SYSTEM));
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

void
sshconf_free(struct sshconf_host *h)
{
	if (h == NULL)
		return;
	free(h->alias);
	free(h->hostname);
	free(h->user);
	xfree_strv(h->identities, h->nidentities);
	xfree_strv(h->known_hosts, h->nknown_hosts);
	free(h->proxy_jump);
	free(h->proxy_command);
	free(h->certificate_file);
	xfree_strv(h->certificate_files, h->ncertificate_files);
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
