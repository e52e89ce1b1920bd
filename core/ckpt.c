/*
 * ckpt.c: checkpoints (see ckpt.h for the rules).
 *
 * One path for both sources: a local scan (readdir + stat) and a probe
 * listing (made on the box by a sh fragment without regex) both feed names
 * with their completeness and mtime through ckpt_consider(), which applies
 * the bounds, the sidecar rule, the pattern and the step parse.  So the box
 * and patrol cannot disagree about which checkpoint is newest.
 *
 * The `{checkpoint}` substitution quotes the path with sshq and refuses a
 * token that sh would not read as an unquoted word: inside quotes the
 * quoted path would close the user's quote and turn the rest of the path
 * into shell syntax.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ckpt.h"
#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "monotime.h"
#include "pattern.h"
#include "sshq.h"
#include "xmalloc.h"

#define TOKLEN	(sizeof(CKPT_TOKEN) - 1)

/* What one scan needs: compiled once per scan object. */
struct ckpt_ctx {
	char		*dir;
	const char	*cfile;		/* complete_file, "" allowed */
	size_t		 cflen;
	int		 sidecars;	/* the sidecar rule applies */
	struct pattern	*re;
	const cJSON	*reject;	/* checkpoints.reject (borrowed) */
	size_t		 nbytes;	/* the byte bound's running sum */
	size_t		 cap;		/* entries allocated */
};

/* ---- config ---- */

int
ckpt_configured(const struct wk_config *cfg)
{
	return config_get_str(cfg, "checkpoints.dir") != NULL;
}

char *
ckpt_dir(const struct wk_config *cfg)
{
	const char *dir = config_get_str(cfg, "checkpoints.dir");
	char *joined, *abs;

	if (dir == NULL)
		return NULL;
	joined = fs_join(cfg->workdir, dir);
	abs = fs_abspath(joined);
	free(joined);
	return abs;
}

/* complete_file: relative, no ".." component, no newline. */
static int
ckpt_cfile_ok(const char *s)
{
	const char *p = s;
	size_t n;

	if (s[0] == '/' || strchr(s, '\n') != NULL)
		return 0;
	while (*p != '\0') {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

static void
ckpt_ctx_free(struct ckpt_ctx *c)
{
	free(c->dir);
	pattern_free(c->re);
	memset(c, 0, sizeof(*c));
}

static int
ckpt_ctx_init(const struct wk_config *cfg, struct ckpt_ctx *c, char **why)
{
	const char *re = config_get_str(cfg, "checkpoints.pattern");
	char err[256];
	int rc;

	memset(c, 0, sizeof(*c));
	if (!ckpt_configured(cfg) || re == NULL) {
		*why = xstrdup("checkpoints are not configured (checkpoints.dir, checkpoints.pattern)");
		return WK_ERR_INVALID;
	}
	c->cfile = config_get_str(cfg, "checkpoints.complete_file");
	if (c->cfile == NULL)
		c->cfile = "";
	if (!ckpt_cfile_ok(c->cfile)) {
		*why = xstrfmt("checkpoints.complete_file \"%s\": must be a relative path "
		    "without \"..\" or a newline", c->cfile);
		return WK_ERR_INVALID;
	}
	c->cflen = strlen(c->cfile);
	c->sidecars = c->cflen > 0 && strchr(c->cfile, '/') == NULL;
	if ((rc = pattern_compile(re, &c->re, err, sizeof(err))) != 0) {
		*why = xstrfmt("checkpoints.pattern: bad regex: %s", err);
		return rc;
	}
	if (pattern_ngroups(c->re) < 1) {
		ckpt_ctx_free(c);
		*why = xstrdup("checkpoints.pattern: the pattern needs a capture group "
		    "( ... ) around the step");
		return WK_ERR_INVALID;
	}
	c->dir = ckpt_dir(cfg);
	c->reject = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg->root,
	    "checkpoints"), "reject");
	return 0;
}

/* ---- the shared rules ---- */

/* All decimal digits, at most LLONG_MAX; 0 or WK_ERR_PARSE. */
static int
ckpt_parse_step(const char *s, size_t len, long long *out)
{
	long long v = 0;
	size_t i;
	int d;

	if (len == 0)
		return WK_ERR_PARSE;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return WK_ERR_PARSE;
		d = s[i] - '0';
		if (v > (LLONG_MAX - d) / 10)
			return WK_ERR_PARSE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/*
 * Count one name against the bounds: 1 when it may be looked at, 0 when a
 * bound is hit (the scan is truncated and stops).
 */
static int
ckpt_budget(struct ckpt_ctx *c, struct ckpt_scan *s, size_t namelen)
{
	if (s->nnames + 1 > CKPT_MAX_ENTRIES ||
	    c->nbytes + namelen + CKPT_NAME_COST > CKPT_LISTING_MAX)
		return 0;
	s->nnames++;
	c->nbytes += namelen + CKPT_NAME_COST;
	return 1;
}

/* 1 when name is a sidecar completeness file ("x.pt.metadata.json"). */
static int
ckpt_is_sidecar(const struct ckpt_ctx *c, const char *name, size_t len)
{
	return c->sidecars && len > c->cflen + 1 && name[len - c->cflen - 1] == '.' &&
	    memcmp(name + len - c->cflen, c->cfile, c->cflen) == 0;
}

/*
 * The pattern and the step: 1 with *step when name is a checkpoint, 0 when
 * it is not, WK_ERR_REGEX when matching failed.
 */
static int
ckpt_match(struct ckpt_ctx *c, const char *name, size_t len, long long *step)
{
	struct pattern_span g[2];
	int m;

	if (ckpt_is_sidecar(c, name, len))
		return 0;
	if ((m = pattern_match_groups(c->re, name, len, g, 2)) != 1)
		return m;
	if (g[1].start < 0 || g[1].end < g[1].start)
		return 0;
	if (ckpt_parse_step(name + g[1].start, (size_t)(g[1].end - g[1].start), step) != 0)
		return 0;
	return 1;
}

static void
ckpt_add(struct ckpt_ctx *c, struct ckpt_scan *s, const char *name, long long step,
    int complete, long long mtime)
{
	struct ckpt_entry *e;
	const cJSON *r;

	if (s->nentries == c->cap) {
		c->cap = c->cap == 0 ? 16 : c->cap * 2;
		s->entries = xreallocarray(s->entries, c->cap, sizeof(*s->entries));
	}
	e = &s->entries[s->nentries++];
	e->name = xstrdup(name);
	e->path = fs_join(s->dir, name);
	e->step = step;
	e->rejected = 0;
	cJSON_ArrayForEach(r, c->reject)
		if (cJSON_IsString(r) && strcmp(r->valuestring, name) == 0)
			e->rejected = 1;
	e->complete = complete && !e->rejected;
	e->mtime = e->complete ? mtime : 0;
}

static int
ckpt_entry_cmp(const void *a, const void *b)
{
	const struct ckpt_entry *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sort, and find the newest complete and incomplete entries. */
static void
ckpt_finish(struct ckpt_scan *s)
{
	const struct ckpt_entry *e;
	size_t i;

	if (s->nentries > 1)
		qsort(s->entries, s->nentries, sizeof(*s->entries), ckpt_entry_cmp);
	s->ncomplete = 0;
	s->newest = s->newest_incomplete = NULL;
	for (i = 0; i < s->nentries; i++) {
		e = &s->entries[i];
		/* Strictly greater: of equal steps the first name wins. */
		if (e->rejected)
			continue;
		if (e->complete) {
			s->ncomplete++;
			if (s->newest == NULL || e->step > s->newest->step)
				s->newest = e;
		} else if (s->newest_incomplete == NULL || e->step > s->newest_incomplete->step)
			s->newest_incomplete = e;
	}
}

static struct ckpt_scan *
ckpt_scan_new(const struct ckpt_ctx *c)
{
	struct ckpt_scan *s = xcalloc(1, sizeof(*s));

	s->dir = xstrdup(c->dir);
	return s;
}

void
ckpt_scan_free(struct ckpt_scan *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nentries; i++) {
		free(s->entries[i].name);
		free(s->entries[i].path);
	}
	free(s->entries);
	free(s->dir);
	free(s);
}

/* ---- the local scan ---- */

/* Completeness and mtime of the entry at path (symlinks followed). */
static void
ckpt_stat_entry(const struct ckpt_ctx *c, const char *path, int *complete, long long *mtime)
{
	struct stat st;
	char *f;
	int exists;

	*complete = 0;
	*mtime = 0;
	exists = stat(path, &st) == 0;
	if (c->cflen == 0)
		f = xstrdup(path);
	else if (exists && S_ISDIR(st.st_mode))
		f = fs_join(path, c->cfile);
	else
		f = xstrfmt("%s.%s", path, c->cfile);
	if (stat(f, &st) == 0 && (c->cflen == 0 || S_ISREG(st.st_mode))) {
		*complete = 1;
		*mtime = (long long)st.st_mtime;
	}
	free(f);
}

int
ckpt_scan_dir(const struct wk_config *cfg, struct ckpt_scan **out, char **why)
{
	struct ckpt_ctx c;
	struct ckpt_scan *s = NULL;
	struct dirent *de;
	DIR *d = NULL;
	char *path;
	long long step, mtime;
	size_t len;
	int rc, complete, m;

	*out = NULL;
	*why = NULL;
	if ((rc = ckpt_ctx_init(cfg, &c, why)) != 0)
		return rc;
	s = ckpt_scan_new(&c);
	if ((d = opendir(c.dir)) == NULL) {
		if (errno == ENOENT || errno == ENOTDIR) {
			s->missing = 1;
			rc = 0;
		} else {
			*why = xstrfmt("checkpoints.dir %s: %s", c.dir, wk_strerror(WK_ERR_SYSTEM));
			rc = WK_ERR_SYSTEM;
		}
		goto out;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0) {
				*why = xstrfmt("checkpoints.dir %s: %s", c.dir, wk_strerror(WK_ERR_SYSTEM));
				rc = WK_ERR_SYSTEM;
				goto out;
			}
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strchr(de->d_name, '\n') != NULL)
			continue;
		len = strlen(de->d_name);
		if (!ckpt_budget(&c, s, len)) {
			s->truncated = 1;
			break;
		}
		if ((m = ckpt_match(&c, de->d_name, len, &step)) < 0) {
			*why = xstrfmt("checkpoints.pattern: matching failed on \"%s\"", de->d_name);
			rc = m;
			goto out;
		}
		if (m == 0)
			continue;
		path = fs_join(c.dir, de->d_name);
		ckpt_stat_entry(&c, path, &complete, &mtime);
		free(path);
		ckpt_add(&c, s, de->d_name, step, complete, mtime);
	}
	ckpt_finish(s);
	rc = 0;
out:
	if (d != NULL)
		closedir(d);
	if (rc == 0) {
		*out = s;
		s = NULL;	/* transferred */
	}
	ckpt_scan_free(s);
	ckpt_ctx_free(&c);
	return rc;
}

/* ---- the probe fragment and its listing ---- */

char *
ckpt_probe_fragment(const struct wk_config *cfg)
{
	struct buf b = BUF_INIT;
	const char *cfile = config_get_str(cfg, "checkpoints.complete_file");
	char *dir;

	if ((dir = ckpt_dir(cfg)) == NULL)
		return NULL;
	if (cfile == NULL)
		cfile = "";
	buf_puts(&b, "(\nLC_ALL=C; export LC_ALL\n");
	shword_assign(&b, "d", dir);
	shword_assign(&b, "c", cfile);
	buf_puts(&b, "nl='\n'\n"
	    "if [ -d \"$d\" ]; then\n"
	    "  st=ok; n=0; b=0\n"
	    "  for e in \"$d\"/* \"$d\"/.[!.]* \"$d\"/..?*; do\n"
	    "    [ -e \"$e\" ] || [ -L \"$e\" ] || continue\n"
	    "    x=${e##*/}\n"
	    "    case $x in *\"$nl\"*) continue ;; esac\n"
	    "    n=$((n + 1)); b=$((b + ${#x} + 16))\n"
	    "    if [ \"$n\" -gt " CKPT_MAX_ENTRIES_S " ] || [ \"$b\" -gt " CKPT_LISTING_MAX_S " ]; "
	    "then st=truncated; break; fi\n");
	/* Keep this in step with ckpt_stat_entry(). */
	if (cfile[0] == '\0')
		buf_puts(&b, "    f=$e\n"
		    "    if [ -e \"$f\" ]; then\n");
	else
		buf_puts(&b, "    if [ -d \"$e\" ]; then f=$e/$c; else f=$e.$c; fi\n"
		    "    if [ -f \"$f\" ]; then\n");
	buf_puts(&b, "      t=$(stat -L -c %Y \"$f\" 2>/dev/null || date -r \"$f\" +%s 2>/dev/null)\n"
	    "      case $t in ''|*[!0-9]*) t=0 ;; esac\n"
	    "      printf '1 %s %s\\n' \"$t\" \"$x\"\n"
	    "    else\n"
	    "      printf '0 0 %s\\n' \"$x\"\n"
	    "    fi\n"
	    "  done\n"
	    "  echo \". $st\"\n"
	    "else\n"
	    "  echo '. missing'\n"
	    "fi\n"
	    ")");
	free(dir);
	return buf_detach(&b);
}

/* The listing's last line. */
static const struct {
	const char	*text;
	int		 truncated;
	int		 missing;
} ckpt_trailers[] = {
	{ ". ok", 0, 0 },
	{ ". truncated", 1, 0 },
	{ ". missing", 0, 1 },
};

/* "0" or [1-9][0-9]*, fitting a long long; 0 or WK_ERR_PARSE. */
static int
ckpt_parse_mtime(const char *s, size_t len, long long *out)
{
	if (len == 0 || (len > 1 && s[0] == '0'))
		return WK_ERR_PARSE;
	return ckpt_parse_step(s, len, out);
}

/*
 * One entry line "<0|1> <mtime> <name>": 0 with its parts, or WK_ERR_PARSE with
 * *what saying why not.
 */
static int
ckpt_parse_line(const char *l, size_t len, int *complete, long long *mtime,
    const char **name, size_t *namelen, const char **what)
{
	const char *sp;

	if (len < 2 || (l[0] != '0' && l[0] != '1') || l[1] != ' ') {
		*what = "not an entry line";
		return WK_ERR_PARSE;
	}
	*complete = l[0] == '1';
	if ((sp = memchr(l + 2, ' ', len - 2)) == NULL) {
		*what = "no name";
		return WK_ERR_PARSE;
	}
	if (ckpt_parse_mtime(l + 2, (size_t)(sp - (l + 2)), mtime) != 0) {
		*what = "bad mtime";
		return WK_ERR_PARSE;
	}
	if (!*complete && *mtime != 0) {
		*what = "an incomplete entry with an mtime";
		return WK_ERR_PARSE;
	}
	*name = sp + 1;
	*namelen = len - (size_t)(*name - l);
	if (*namelen == 0 || memchr(*name, '/', *namelen) != NULL ||
	    memchr(*name, '\0', *namelen) != NULL ||
	    (*namelen == 1 && (*name)[0] == '.') ||
	    (*namelen == 2 && (*name)[0] == '.' && (*name)[1] == '.')) {
		*what = "bad name";
		return WK_ERR_PARSE;
	}
	return 0;
}

int
ckpt_parse_listing(const struct wk_config *cfg, const char *text, size_t len,
    struct ckpt_scan **out, char **why)
{
	struct ckpt_ctx c;
	struct ckpt_scan *s = NULL;
	const char *p, *end, *nl, *name, *what;
	char *nm = NULL;
	size_t llen, namelen, lineno = 0, i;
	long long step, mtime;
	int rc, complete, m, done = 0;

	*out = NULL;
	*why = NULL;
	if ((rc = ckpt_ctx_init(cfg, &c, why)) != 0)
		return rc;
	s = ckpt_scan_new(&c);
	rc = WK_ERR_PARSE;
	if (len == 0) {
		*why = xstrdup("checkpoint listing: empty");
		goto out;
	}
	if (text[len - 1] == '\n')
		len--;
	end = text + len;
	for (p = text; !done; p = nl + 1) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		llen = (size_t)(nl - p);
		if (llen > 0 && p[0] == '.') {
			for (i = 0; i < sizeof(ckpt_trailers) / sizeof(ckpt_trailers[0]); i++)
				if (llen == strlen(ckpt_trailers[i].text) &&
				    memcmp(p, ckpt_trailers[i].text, llen) == 0)
					break;
			if (i == sizeof(ckpt_trailers) / sizeof(ckpt_trailers[0])) {
				*why = xstrfmt("checkpoint listing line %zu: unknown status line", lineno);
				goto out;
			}
			if (nl != end) {
				*why = xstrfmt("checkpoint listing line %zu: lines after the status line",
				    lineno);
				goto out;
			}
			if (ckpt_trailers[i].missing && lineno != 1) {
				*why = xstrfmt("checkpoint listing line %zu: entries of a missing "
				    "directory", lineno);
				goto out;
			}
			s->truncated = ckpt_trailers[i].truncated;
			s->missing = ckpt_trailers[i].missing;
			done = 1;
			continue;
		}
		if (ckpt_parse_line(p, llen, &complete, &mtime, &name, &namelen, &what) != 0) {
			*why = xstrfmt("checkpoint listing line %zu: %s", lineno, what);
			goto out;
		}
		if (!ckpt_budget(&c, s, namelen)) {
			*why = xstrfmt("checkpoint listing line %zu: more than the bounds allow",
			    lineno);
			goto out;
		}
		free(nm);
		nm = xstrndup(name, namelen);
		if ((m = ckpt_match(&c, nm, namelen, &step)) < 0) {
			*why = xstrfmt("checkpoints.pattern: matching failed on \"%s\"", nm);
			rc = m;
			goto out;
		}
		if (m == 1)
			ckpt_add(&c, s, nm, step, complete, mtime);
		if (nl == end)
			break;
	}
	if (!done) {
		*why = xstrdup("checkpoint listing: truncated: no status line");
		goto out;
	}
	ckpt_finish(s);
	for (i = 1; i < s->nentries; i++) {
		if (s->entries[i].step == s->entries[i - 1].step &&
		    strcmp(s->entries[i].name, s->entries[i - 1].name) == 0) {
			*why = xstrfmt("checkpoint listing: \"%s\" listed twice", s->entries[i].name);
			goto out;
		}
	}
	rc = 0;
out:
	if (rc == 0) {
		*out = s;
		s = NULL;	/* transferred */
	}
	free(nm);
	ckpt_scan_free(s);
	ckpt_ctx_free(&c);
	return rc;
}

/* ---- the summary ---- */

void
ckpt_summarize(const struct ckpt_scan *s, time_t now, struct ckpt_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->dir = s->dir;
	out->missing = s->missing;
	out->truncated = s->truncated;
	out->nnames = s->nnames;
	out->step = -1;
	out->age_s = -1;
	out->incomplete_step = -1;
	out->ncomplete = s->ncomplete;
	out->nincomplete = s->nentries - s->ncomplete;
	if (s->newest != NULL) {
		out->step = s->newest->step;
		out->name = s->newest->name;
		out->path = s->newest->path;
		if (s->newest->mtime > 0)
			out->age_s = (long long)now > s->newest->mtime ?
			    (long)((long long)now - s->newest->mtime) : 0;
	}
	if (s->newest_incomplete != NULL)
		out->incomplete_step = s->newest_incomplete->step;
}

char *
ckpt_summary_text(const struct ckpt_summary *sum)
{
	struct buf b = BUF_INIT;
	char age[64];

	if (sum->missing)
		buf_printf(&b, "no complete checkpoint: %s does not exist", sum->dir);
	else if (sum->name == NULL && sum->nincomplete == 0)
		buf_printf(&b, "no complete checkpoint in %s (no matching entries)", sum->dir);
	else if (sum->name == NULL)
		buf_printf(&b, "no complete checkpoint in %s (%zu incomplete, newest step %lld)",
		    sum->dir, sum->nincomplete, sum->incomplete_step);
	else {
		if (sum->age_s >= 0)
			timefmt_duration(sum->age_s, age, sizeof(age));
		else
			snprintf(age, sizeof(age), "age unknown");
		buf_printf(&b, "newest complete checkpoint step %lld (%s, %s%s); "
		    "%zu complete, %zu incomplete", sum->step, sum->name, age,
		    sum->age_s >= 0 ? " old" : "", sum->ncomplete, sum->nincomplete);
		if (sum->incomplete_step >= 0)
			buf_printf(&b, " (newest step %lld)", sum->incomplete_step);
	}
	if (sum->truncated)
		buf_printf(&b, "; only the first %zu entries were looked at", sum->nnames);
	return buf_detach(&b);
}

/* ---- {checkpoint} (where it may stand: shword.c) ---- */

/* The shared body of ckpt_subst and ckpt_subst_scan. */
static int
ckpt_subst_common(const char *command, const char *path, const struct wk_config *cfg,
    const struct ckpt_scan *scan, char **out, char **why)
{
	struct buf b = BUF_INIT;
	const char *repl, *p, *q, *what;
	char *dir = NULL;
	int rc;

	*out = NULL;
	*why = NULL;
	if (command == NULL) {
		*why = xstrdup("no command");
		return WK_ERR_INVALID;
	}
	if (!shword_uses_token(command)) {
		*out = xstrdup(command);
		return 0;
	}
	if ((rc = shword_check_token(command, why)) != 0)
		return rc;
	if (path != NULL) {
		repl = path;
		what = "the checkpoint path";
	} else if ((dir = ckpt_dir(cfg)) == NULL) {
		*why = xstrdup("the command uses " CKPT_TOKEN " but no checkpoints are "
		    "configured (checkpoints.dir)");
		return WK_ERR_INVALID;
	} else if (strcmp(config_get_str(cfg, "checkpoints.fallback"), "stop") == 0) {
		if (scan == NULL)
			*why = xstrfmt("no complete checkpoint in %s; checkpoints.fallback is stop",
			    dir);
		else if (scan->missing)
			*why = xstrfmt("no complete checkpoint in %s (%s does not exist); "
			    "checkpoints.fallback is stop", scan->dir, scan->dir);
		else if (scan->newest_incomplete != NULL)
			*why = xstrfmt("no complete checkpoint in %s (%zu entries, newest "
			    "incomplete: step %lld); checkpoints.fallback is stop", scan->dir,
			    scan->nentries, scan->newest_incomplete->step);
		else
			*why = xstrfmt("no complete checkpoint in %s (no matching entries); "
			    "checkpoints.fallback is stop", scan->dir);
		free(dir);
		return WK_ERR_NOTFOUND;
	} else {
		repl = config_get_str(cfg, "checkpoints.none");
		if (repl == NULL)
			repl = "";
		what = "checkpoints.none";
	}
	free(dir);
	if (strchr(repl, '\n') != NULL) {
		*why = xstrfmt("%s holds a newline; refusing to put it into a command", what);
		return WK_ERR_INVALID;
	}
	for (p = command; (q = strstr(p, CKPT_TOKEN)) != NULL; p = q + TOKLEN) {
		buf_append(&b, p, (size_t)(q - p));
		sshq_append(&b, repl);
	}
	buf_puts(&b, p);
	*out = buf_detach(&b);
	return 0;
}

int
ckpt_subst(const char *command, const char *path, const struct wk_config *cfg,
    char **out, char **why)
{
	return ckpt_subst_common(command, path, cfg, NULL, out, why);
}

int
ckpt_subst_scan(const char *command, const struct ckpt_scan *scan,
    const struct wk_config *cfg, char **out, char **why)
{
	return ckpt_subst_common(command, scan->newest != NULL ? scan->newest->path : NULL,
	    cfg, scan, out, why);
}

/* ---- stall ---- */

static int
ckpt_ll_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int
ckpt_stalled(const long long *steps, size_t n, long long current, long long every_steps,
    struct ckpt_stall *out)
{
	long long *v = NULL, *diff = NULL, mid;
	size_t i, nu = 0, nd, from;

	memset(out, 0, sizeof(*out));
	out->newest = -1;
	out->current = current;
	if (n > 0) {
		v = xreallocarray(NULL, n, sizeof(*v));
		for (i = 0; i < n; i++)
			if (steps[i] >= 0)
				v[nu++] = steps[i];
		qsort(v, nu, sizeof(*v), ckpt_ll_cmp);
		n = nu;
		for (i = nu = 0; i < n; i++)
			if (nu == 0 || v[i] != v[nu - 1])
				v[nu++] = v[i];
		if (nu > 0)
			out->newest = v[nu - 1];
	}
	if (every_steps > 0)
		out->spacing = every_steps;
	else if (nu >= 2) {
		from = nu - 1 > CKPT_SPACING_WINDOW ? nu - 1 - CKPT_SPACING_WINDOW : 0;
		nd = nu - 1 - from;
		diff = xreallocarray(NULL, nd, sizeof(*diff));
		for (i = 0; i < nd; i++)
			diff[i] = v[from + i + 1] - v[from + i];
		qsort(diff, nd, sizeof(*diff), ckpt_ll_cmp);
		if (nd % 2 == 1)
			mid = diff[nd / 2];
		else	/* both positive: no overflow in a + (b - a) / 2 */
			mid = diff[nd / 2 - 1] + (diff[nd / 2] - diff[nd / 2 - 1]) / 2;
		out->spacing = mid;
		out->learned = 1;
	}
	if (out->spacing > 0 && out->newest >= 0 && current >= 0) {
		out->known = 1;
		out->behind = current - out->newest;
		/* behind > 2 * spacing, without overflowing 2 * spacing. */
		out->stalled = out->behind > out->spacing &&
		    out->behind - out->spacing > out->spacing;
	}
	free(v);
	free(diff);
	return out->stalled;
}

int
ckpt_scan_stalled(const struct ckpt_scan *s, const struct wk_config *cfg, long long current,
    struct ckpt_stall *out)
{
	long long *steps = NULL;
	size_t i, n = 0;
	int r;

	if (s->ncomplete > 0)
		steps = xreallocarray(NULL, s->ncomplete, sizeof(*steps));
	for (i = 0; i < s->nentries; i++)
		if (s->entries[i].complete)
			steps[n++] = s->entries[i].step;
	r = ckpt_stalled(steps, n, current, config_get_int(cfg, "checkpoints.every_steps"), out);
	free(steps);
	return r;
}

char *
ckpt_stall_text(const struct ckpt_stall *st)
{
	if (st->newest < 0)
		return xstrfmt("no complete checkpoint yet (progress %lld)", st->current);
	if (!st->known)
		return xstrfmt("newest complete checkpoint step %lld, progress %lld; "
		    "checkpoint spacing unknown (needs checkpoints.every_steps or 2 complete "
		    "checkpoints)", st->newest, st->current);
	if (st->learned)
		return xstrfmt("newest complete checkpoint step %lld is %lld steps behind "
		    "progress %lld; they land every ~%lld steps", st->newest, st->behind,
		    st->current, st->spacing);
	return xstrfmt("newest complete checkpoint step %lld is %lld steps behind progress "
	    "%lld; they land every %lld steps (checkpoints.every_steps)", st->newest, st->behind,
	    st->current, st->spacing);
}
