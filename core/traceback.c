/*
 * traceback.c: where a failure happened (see traceback.h for the rules).
 *
 * One pass splits the lines by rank prefix; a second, per group, walks
 * Python's traceback grammar: a header, frames `File "p", line N, in f`
 * (each followed by its source line and, since 3.11, a caret line, both
 * indented deeper), then the exception line at the header's indentation.
 * Tracebacks joined by "During handling ..." or "... direct cause ..." form
 * one chain whose last member is what ended the program.  Of several chains
 * in one process, the last ended it; but when torchrun's own traceback is in
 * the same stream, the chains are its children's, interleaved, and the first
 * one is the rank that failed first.  Native locations (a C++ `what()`,
 * "Exception raised from F at p:N", "NCCL error in: p:N", "... at k.cu:N")
 * are read from error lines; they beat only a traceback that has no user
 * frame, since the user's line is where a fix starts.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceback.h"
#include "xmalloc.h"

#define TB_MAX_GROUPS	64
#define TB_KEY_LEN	32

struct tb_block {
	size_t		 end;		/* index of its exception line (or where it stopped) */
	int		 linked;	/* a chain separator came before its header */
	int		 has_user;
	struct tb_where	 user;		/* innermost frame in user code */
	struct tb_where	 any;		/* innermost frame */
};

struct tb_group {
	char		 key[TB_KEY_LEN];
	struct tb_block	*blk;
	size_t		 nblk;
	int		 launcher;	/* torchrun's own traceback is in this stream */
};

static const char *const tb_separators[] = {
	"During handling of the above exception, another exception occurred:",
	"The above exception was the direct cause of the following exception:",
};

static const char *const tb_native_ext[] = {
	".cpp", ".cc", ".cxx", ".c", ".hpp", ".hh", ".h", ".cu", ".cuh",
};

/*
 * A cluster job log's line prefix: Iris's `job logs` ("[18:54:53]
 * task=/u/job/0 attempt=0 | ", cli/logs.py:50@2dfb0794; no attempt= before
 * 43ea65e0) keyed by its task, or a Ray worker's "(train_fn pid=4242, ip=
 * 10.0.0.1) " keyed by what the parentheses hold.  Its length, 0 for none.
 */
static size_t
tb_job_prefix(const char *s, char *key, size_t klen)
{
	const char *t, *bar, *close;
	size_t n;

	static const char shape[] = "[99:99:99] task=";	/* 9: a digit */
	size_t i;

	for (i = 0; shape[i] != '\0'; i++)
		if (shape[i] == '9' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			break;
	if (shape[i] == '\0' && (bar = strstr(s + i, " | ")) != NULL) {
		t = s + 16;
		n = strcspn(t, " ");
		snprintf(key, klen, "%.*s", (int)(n < (size_t)(bar - t) ? n : (size_t)(bar - t)), t);
		return (size_t)(bar + 3 - s);
	}
	if (s[0] == '(' && (close = strchr(s, ')')) != NULL && close - s < 200 && close[1] == ' ' &&
	    (t = strstr(s, "pid=")) != NULL && t < close) {
		snprintf(key, klen, "%.*s", (int)(close - s - 1), s + 1);
		return (size_t)(close + 2 - s);
	}
	return 0;
}

/*
 * The rank prefix of s ("[rank1]: ", "[default0]:", "0: ", or a cluster
 * job's: tb_job_prefix): its length, and its key into key; 0 when s has none.
 */
static size_t
tb_prefix(const char *s, char *key, size_t klen)
{
	size_t i = 0, a, d;

	key[0] = '\0';
	if ((i = tb_job_prefix(s, key, klen)) > 0)
		return i;
	if (s[0] == '[') {
		for (i = 1; isalpha((unsigned char)s[i]) || s[i] == '_'; i++)
			;
		a = i - 1;
		for (d = 0; isdigit((unsigned char)s[i]); i++, d++)
			;
		if (a == 0 || d == 0 || s[i] != ']' || s[i + 1] != ':')
			return 0;
		snprintf(key, klen, "%.*s", (int)(i - 1), s + 1);
		i += 2;
	} else {
		while (i < 3 && s[i] == ' ')
			i++;
		a = i;
		for (d = 0; d < 6 && isdigit((unsigned char)s[i]); i++, d++)
			;
		if (d == 0 || s[i] != ':' || (s[i + 1] != ' ' && s[i + 1] != '\0'))
			return 0;
		snprintf(key, klen, "%.*s", (int)(i - a), s + a);
		i++;
	}
	if (s[i] == ' ')
		i++;
	return i;
}

static size_t
tb_indent(const char *s)
{
	size_t i = 0;

	while (s[i] == ' ' || s[i] == '\t')
		i++;
	return i;
}

/* Standard library (".../lib/python3.X/" of any prefix), installed packages, or no file at all. */
static int
tb_is_library(const char *path)
{
	const char *p, *q;

	if (path[0] == '<')
		return 1;
	if (strstr(path, "/site-packages/") != NULL || strstr(path, "/dist-packages/") != NULL)
		return 1;
	for (p = path; (p = strstr(p, "/python")) != NULL; p++) {
		if (!((p - path >= 3 && strncmp(p - 3, "lib", 3) == 0) ||
		    (p - path >= 5 && strncmp(p - 5, "lib64", 5) == 0)))
			continue;
		q = p + strlen("/python");
		if (!isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q) || *q == '.')
			q++;
		if (*q == '/')
			return 1;
	}
	return 0;
}

/*
 * A line number where it is parsed: decimal digits at s, *end past them.  A
 * log line can carry anything, so only 1..INT_MAX is a line; 0 (none) for
 * more digits than that, so no later cast or sum can overflow.  -1: no digit.
 */
static long
tb_lineno(const char *s, char **end)
{
	long v;

	if (!isdigit((unsigned char)*s)) {
		*end = (char *)s;
		return -1;
	}
	errno = 0;
	v = strtol(s, end, 10);
	return errno == ERANGE || v > INT_MAX ? 0 : v;
}

/* `File "path", line N[, in func]` (leading blanks allowed): 1 parsed. */
static int
tb_frame(const char *s, struct tb_where *w)
{
	const char *p = s + tb_indent(s), *q;
	char *end;
	long line;

	if (strncmp(p, "File \"", 6) != 0)
		return 0;
	p += 6;
	if ((q = strstr(p, "\", line ")) == NULL)
		return 0;
	if ((line = tb_lineno(q + 8, &end)) < 0)
		return 0;
	memset(w, 0, sizeof(*w));
	snprintf(w->file, sizeof(w->file), "%.*s", (int)(q - p), p);
	w->line = line;
	if (strncmp(end, ", in ", 5) == 0)
		snprintf(w->function, sizeof(w->function), "%s", end + 5);
	return 1;
}

static int
tb_is_separator(const char *s)
{
	size_t i;

	s += tb_indent(s);
	for (i = 0; i < sizeof(tb_separators) / sizeof(tb_separators[0]); i++)
		if (strncmp(s, tb_separators[i], strlen(tb_separators[i])) == 0)
			return 1;
	return 0;
}

static struct tb_block *
tb_group_add(struct tb_group *g)
{
	g->blk = xreallocarray(g->blk, g->nblk + 1, sizeof(*g->blk));
	memset(&g->blk[g->nblk], 0, sizeof(*g->blk));
	return &g->blk[g->nblk++];
}

/*
 * Walk one group's lines (body[i] for the i whose gid[i] is gi).  Child
 * tracebacks go to g->blk; torchrun's summary traceback under "Root Cause"
 * to *root (the first one, when *have_root is still 0).
 */
static void
tb_walk(const char *const *body, const int *gid, size_t n, int gi, struct tb_group *g,
    struct tb_block *root, int *have_root)
{
	struct tb_block cur;
	struct tb_where fr;
	size_t i, ind = 0;
	int active = 0, nframes = 0, summary = 0, in_root = 0, linked = 0;
	const char *s, *h;

	memset(&cur, 0, sizeof(cur));
	for (i = 0; i <= n; i++) {
		if (i < n && gid[i] != gi)
			continue;
		s = i < n ? body[i] : NULL;
		if (active && s != NULL && tb_frame(s, &fr)) {
			cur.any = fr;
			if (!tb_is_library(fr.file)) {
				cur.user = fr;
				cur.has_user = 1;
			}
			nframes++;
			continue;
		}
		if (active && s != NULL && s[tb_indent(s)] != '\0' && (tb_indent(s) > ind || nframes == 0))
			continue;	/* source line, carets, "[Previous line repeated ...]" */
		if (active) {
			/* Its exception line (or the end of what we have). */
			active = 0;
			cur.end = i < n ? i : n - 1;
			if (nframes == 0)
				;
			else if (s != NULL && strstr(s, "ChildFailedError") != NULL)
				g->launcher = 1;
			else if (summary) {
				if (in_root && !*have_root) {
					*root = cur;
					*have_root = 1;
				}
			} else
				*tb_group_add(g) = cur;
			linked = 0;
		}
		if (s == NULL)
			break;
		if (tb_is_separator(s)) {
			linked = 1;
			continue;
		}
		if (strstr(s, "Root Cause (first observed failure):") != NULL)
			in_root = 1;
		else if (strncmp(s, "Failures:", 9) == 0)
			in_root = 0;
		if ((h = strstr(s, "Traceback (most recent call last):")) != NULL) {
			memset(&cur, 0, sizeof(cur));
			cur.linked = linked;
			ind = tb_indent(s);
			/* "  traceback : Traceback ...": torchrun's summary; other text before it is
			 * a progress bar the traceback was printed after */
			summary = strncmp(s + ind, "traceback", 9) == 0 && h != s + ind;
			active = 1;
			nframes = 0;
		} else if (tb_frame(s, &fr)) {
			/* A traceback whose header is older than the lines we have. */
			memset(&cur, 0, sizeof(cur));
			cur.linked = linked;
			ind = tb_indent(s) >= 2 ? tb_indent(s) - 2 : 0;
			summary = 0;
			active = 1;
			nframes = 1;
			cur.any = fr;
			if (!tb_is_library(fr.file)) {
				cur.user = fr;
				cur.has_user = 1;
			}
		}
	}
}

/* The group's answer: the last chain's final traceback, or the first's under torchrun. */
static const struct tb_block *
tb_group_pick(const struct tb_group *g)
{
	size_t i;

	if (g->nblk == 0)
		return NULL;
	if (!g->launcher)
		return &g->blk[g->nblk - 1];
	for (i = 0; i + 1 < g->nblk && g->blk[i + 1].linked; i++)
		;
	return &g->blk[i];
}

static int
tb_has_native_ext(const char *tok, size_t len)
{
	size_t i, el;

	for (i = 0; i < sizeof(tb_native_ext) / sizeof(tb_native_ext[0]); i++) {
		el = strlen(tb_native_ext[i]);
		if (len > el && strncmp(tok + len - el, tb_native_ext[i], el) == 0)
			return 1;
	}
	return 0;
}

static int
tb_path_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_./+-~@", c) != NULL;
}

/* A native file:line in an error line: 1 found. */
static int
tb_native(const char *s, struct tb_where *w)
{
	static const char from[] = "Exception raised from ";
	const char *p, *start, *f = NULL, *fe = NULL;
	char *end;
	long line;
	int errorish = strncmp(s, "[E ", 3) == 0;	/* glog's error level: "[E file.cpp:821] ..." */

	for (p = s; *p != '\0' && !errorish; p++)
		errorish = strncasecmp(p, "error", 5) == 0 || strncasecmp(p, "exception", 9) == 0 ||
		    strncmp(p, "what()", 6) == 0 || strncmp(p, "terminate called", 16) == 0;
	if (!errorish)
		return 0;
	if ((p = strstr(s, from)) != NULL && (fe = strstr(p, " at ")) != NULL) {
		f = p + strlen(from);
		s = fe + 4;
	}
	for (p = strchr(s, ':'); p != NULL; p = strchr(p + 1, ':')) {
		if (!isdigit((unsigned char)p[1]))
			continue;
		for (start = p; start > s && tb_path_char(start[-1]); start--)
			;
		if (!tb_has_native_ext(start, (size_t)(p - start)))
			continue;
		line = tb_lineno(p + 1, &end);
		memset(w, 0, sizeof(*w));
		snprintf(w->file, sizeof(w->file), "%.*s", (int)(p - start), start);
		w->line = line;
		if (f != NULL && fe > f)
			snprintf(w->function, sizeof(w->function), "%.*s", (int)(fe - f), f);
		return 1;
	}
	return 0;
}

int
tb_where_find(const char *const *lines, size_t n, struct tb_where *out)
{
	struct tb_group groups[TB_MAX_GROUPS];
	const char **body = xcalloc(n + 1, sizeof(*body));
	int *gid = xcalloc(n + 1, sizeof(*gid));
	const struct tb_block *best = NULL, *b;
	struct tb_block root;
	struct tb_where nat;
	char key[TB_KEY_LEN];
	size_t i, ngroups = 1, plen;
	int have_root = 0, have_nat = 0, found = 0, gi;

	memset(out, 0, sizeof(*out));
	memset(groups, 0, sizeof(groups));
	memset(&root, 0, sizeof(root));
	for (i = 0; i < n; i++) {
		const char *s = lines[i] != NULL ? lines[i] : "";

		plen = tb_prefix(s, key, sizeof(key));
		body[i] = s + plen;
		gid[i] = 0;
		if (plen == 0)
			continue;
		for (gi = 1; gi < (int)ngroups && strcmp(groups[gi].key, key) != 0; gi++)
			;
		if (gi == (int)ngroups && ngroups < TB_MAX_GROUPS)
			snprintf(groups[ngroups++].key, TB_KEY_LEN, "%s", key);
		if (gi < (int)ngroups)
			gid[i] = gi;
	}
	for (gi = 0; gi < (int)ngroups; gi++) {
		tb_walk(body, gid, n, gi, &groups[gi], &root, &have_root);
		if ((b = tb_group_pick(&groups[gi])) != NULL && (best == NULL || b->end < best->end))
			best = b;
	}
	if (best == NULL && have_root)
		best = &root;
	for (i = 0; i < n && !have_nat; i++)
		have_nat = tb_native(body[i], &nat);

	if (best != NULL && best->has_user)
		*out = best->user;
	else if (have_nat)
		*out = nat;
	else if (best != NULL)
		*out = best->any;
	found = out->file[0] != '\0';
	for (gi = 0; gi < (int)ngroups; gi++)
		free(groups[gi].blk);
	free(body);
	free(gid);
	return found;
}

cJSON *
tb_where_json(const cJSON *lines, const char *workdir)
{
	const char **v = NULL;
	const cJSON *it;
	struct tb_where w;
	cJSON *o = NULL;
	const char *file;
	size_t n = 0, wl;

	if (!cJSON_IsArray(lines))
		return NULL;
	v = xcalloc((size_t)cJSON_GetArraySize(lines) + 1, sizeof(*v));
	cJSON_ArrayForEach(it, lines)
		if (cJSON_IsString(it))
			v[n++] = it->valuestring;
	if (tb_where_find(v, n, &w)) {
		file = w.file;
		wl = workdir != NULL ? strlen(workdir) : 0;
		while (wl > 1 && workdir[wl - 1] == '/')
			wl--;
		if (wl > 0 && strncmp(file, workdir, wl) == 0 && file[wl] == '/' && file[wl + 1] != '\0')
			file += wl + 1;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "file", file);
		cJSON_AddNumberToObject(o, "line", (double)w.line);
		if (w.function[0] != '\0')
			cJSON_AddStringToObject(o, "function", w.function);
	}
	free(v);
	return o;
}

int
tb_add_where(cJSON *obj, const char *workdir)
{
	cJSON *w = tb_where_json(cJSON_GetObjectItemCaseSensitive(obj, "last_lines"), workdir);

	if (w == NULL)
		return 0;
	cJSON_DeleteItemFromObjectCaseSensitive(obj, "where");
	cJSON_AddItemToObject(obj, "where", w);	/* transferred */
	return 1;
}

int
tb_where_text(const cJSON *where, char *buf, size_t len)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(where, "file");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(where, "line");
	const cJSON *fn = cJSON_GetObjectItemCaseSensitive(where, "function");
	const char *base;

	if (!cJSON_IsObject(where) || !cJSON_IsString(f) || f->valuestring[0] == '\0' ||
	    len == 0)
		return 0;
	base = strrchr(f->valuestring, '/') != NULL ? strrchr(f->valuestring, '/') + 1 : f->valuestring;
	/* The marker is read back from disk: a line is 1..INT_MAX or none. */
	if (cJSON_IsNumber(l) && l->valuedouble >= 1 && l->valuedouble <= INT_MAX)
		snprintf(buf, len, "at %s:%d%s%s", base, (int)l->valuedouble,
		    cJSON_IsString(fn) && fn->valuestring[0] != '\0' ? " in " : "",
		    cJSON_IsString(fn) ? fn->valuestring : "");
	else
		snprintf(buf, len, "at %s%s%s", base,
		    cJSON_IsString(fn) && fn->valuestring[0] != '\0' ? " in " : "",
		    cJSON_IsString(fn) ? fn->valuestring : "");
	return 1;
}
