/*
 * jsonc.c: comment stripping, cJSON parsing and the key-line index (see jsonc.h).
 *
 * cJSON does all value parsing.  The walker below only has to find where
 * things are: it steps over strings (with escapes), numbers, literals and
 * nesting of text cJSON has already accepted, and records the line of each
 * key.  Keys are decoded the way cJSON decodes them so that a path built from
 * cJSON's item->string finds its line here.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "jsonc.h"
#include "xmalloc.h"

#define JSONC_MAX_DEPTH	1000	/* cJSON's CJSON_NESTING_LIMIT */

enum jsonc_state { JS_CODE, JS_STRING, JS_LINE, JS_BLOCK };

int
jsonc_strip(char *text, size_t len, int *errline)
{
	enum jsonc_state st = JS_CODE;
	int line = 1, start = 0, esc = 0;
	size_t i;

	*errline = 0;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		memset(text, ' ', 3);
	for (i = 0; i < len; i++) {
		char c = text[i], next = i + 1 < len ? text[i + 1] : '\0';

		if (c == '\n')
			line++;
		switch (st) {
		case JS_CODE:
			if (c == '"')
				st = JS_STRING;
			else if (c == '/' && next == '/') {
				st = JS_LINE;
				text[i] = ' ';
			} else if (c == '/' && next == '*') {
				st = JS_BLOCK;
				start = line;
				text[i] = text[i + 1] = ' ';
				i++;
			}
			break;
		case JS_STRING:
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				st = JS_CODE;
			break;
		case JS_LINE:
			if (c == '\n')
				st = JS_CODE;
			else if (c != '\r')
				text[i] = ' ';
			break;
		case JS_BLOCK:
			if (c == '*' && next == '/') {
				text[i] = text[i + 1] = ' ';
				i++;
				st = JS_CODE;
			} else if (c != '\n' && c != '\r')
				text[i] = ' ';
			break;
		}
	}
	if (st == JS_BLOCK) {
		*errline = start;
		return WK_ERR_PARSE;
	}
	return 0;
}

int
jsonc_line_at(const char *text, size_t off)
{
	const char *p = text, *end = text + off;
	int line = 1;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		line++;
		p++;
	}
	return line;
}

char *
jsonc_path_key(const char *parent, const char *key)
{
	if (parent == NULL || *parent == '\0')
		return xstrdup(key);
	return xstrfmt("%s.%s", parent, key);
}

char *
jsonc_path_elem(const char *parent, size_t i)
{
	return xstrfmt("%s[%zu]", parent == NULL ? "" : parent, i);
}

/* The structural walker. */

struct jsonc_walk {
	const char	*t;
	size_t		 len;
	size_t		 pos;
	int		 line;
	struct jsonc_index *idx;
	size_t		 cap;
	const char	*file;
	struct diag	*d;
	int		 rc;
};

/* One key of the object being walked, for duplicate detection. */
struct jsonc_member {
	const char	*key;	/* points into an index path */
	int		 line;
	size_t		 order;
};

static int jsonc_walk_value(struct jsonc_walk *w, const char *path, int depth);

static int
jsonc_peek(struct jsonc_walk *w)
{
	return w->pos < w->len ? (unsigned char)w->t[w->pos] : -1;
}

static void
jsonc_advance(struct jsonc_walk *w)
{
	if (w->t[w->pos] == '\n')
		w->line++;
	w->pos++;
}

static void
jsonc_skip_ws(struct jsonc_walk *w)
{
	/* cJSON's skip_whitespace treats every byte <= 32 as space. */
	while (w->pos < w->len && (unsigned char)w->t[w->pos] <= 32)
		jsonc_advance(w);
}

static void
jsonc_record(struct jsonc_walk *w, char *path, int line)
{
	if (w->idx->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 32;
		w->idx->keys = xreallocarray(w->idx->keys, w->cap, sizeof(*w->idx->keys));
	}
	w->idx->keys[w->idx->n].path = path;	/* transferred */
	w->idx->keys[w->idx->n].line = line;
	w->idx->n++;
}

static int
jsonc_hex4(const char *s, size_t avail, unsigned *out)
{
	unsigned v = 0;
	size_t i;

	if (avail < 4)
		return WK_ERR_PARSE;
	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return WK_ERR_PARSE;
	}
	*out = v;
	return 0;
}

static void
jsonc_put_utf8(struct buf *b, unsigned cp)
{
	char u[4];

	if (cp < 0x80) {
		buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		buf_append(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		buf_append(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		buf_append(b, u, 4);
	}
}

/*
 * Step over a string at w->pos; when out is not NULL decode it into out the
 * way cJSON does (which stops a key at an embedded \u0000).
 */
static int
jsonc_walk_string(struct jsonc_walk *w, struct buf *out)
{
	static const char esc_from[] = "\"\\/bfnrt", esc_to[] = "\"\\/\b\f\n\r\t";
	int cut = 0;

	if (jsonc_peek(w) != '"')
		return WK_ERR_PARSE;
	jsonc_advance(w);
	while (w->pos < w->len && w->t[w->pos] != '"') {
		char c = w->t[w->pos];
		const char *e;
		unsigned cp, lo;

		if (c != '\\') {
			if (out != NULL && !cut)
				buf_putc(out, c);
			jsonc_advance(w);
			continue;
		}
		if (w->pos + 1 >= w->len)
			return WK_ERR_PARSE;
		c = w->t[w->pos + 1];
		if (c == 'u') {
			if (jsonc_hex4(w->t + w->pos + 2, w->len - w->pos - 2, &cp) != 0)
				return WK_ERR_PARSE;
			w->pos += 6;
			if (cp >= 0xd800 && cp < 0xdc00 && w->pos + 1 < w->len &&
			    w->t[w->pos] == '\\' && w->t[w->pos + 1] == 'u' &&
			    jsonc_hex4(w->t + w->pos + 2, w->len - w->pos - 2, &lo) == 0 &&
			    lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				w->pos += 6;
			}
			if (cp == 0)
				cut = 1;
			if (out != NULL && !cut)
				jsonc_put_utf8(out, cp);
			continue;
		}
		if (c == '\0' || (e = strchr(esc_from, c)) == NULL)
			return WK_ERR_PARSE;
		if (out != NULL && !cut)
			buf_putc(out, esc_to[e - esc_from]);
		jsonc_advance(w);
		jsonc_advance(w);
	}
	if (w->pos >= w->len)
		return WK_ERR_PARSE;
	jsonc_advance(w);
	return 0;
}

static int
jsonc_member_cmp(const void *a, const void *b)
{
	const struct jsonc_member *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c != 0)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void
jsonc_check_dups(struct jsonc_walk *w, struct jsonc_member *m, size_t n, const char *parent)
{
	size_t i;
	char *path;

	if (n < 2)
		return;
	qsort(m, n, sizeof(*m), jsonc_member_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(m[i - 1].key, m[i].key) != 0)
			continue;
		path = jsonc_path_key(parent, m[i].key);
		diag_add(w->d, w->file, m[i].line, "duplicate key \"%s\" (first at line %d)",
		    path, m[i - 1].line);
		free(path);
		w->rc = WK_ERR_PARSE;
	}
}

static int
jsonc_walk_object(struct jsonc_walk *w, const char *path, int depth)
{
	struct jsonc_member *m = NULL;
	struct buf key = BUF_INIT;
	size_t n = 0, cap = 0, plen = path == NULL ? 0 : strlen(path);
	char *kpath;
	int rc = 0, line;

	jsonc_advance(w);	/* '{' */
	jsonc_skip_ws(w);
	if (jsonc_peek(w) == '}') {
		jsonc_advance(w);
		goto out;
	}
	for (;;) {
		jsonc_skip_ws(w);
		line = w->line;
		buf_reset(&key);
		if ((rc = jsonc_walk_string(w, &key)) != 0)
			goto out;
		kpath = jsonc_path_key(path, buf_str(&key));
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			m = xreallocarray(m, cap, sizeof(*m));
		}
		m[n].key = kpath + (plen > 0 ? plen + 1 : 0);
		m[n].line = line;
		m[n].order = n;
		n++;
		jsonc_record(w, kpath, line);	/* transferred */
		jsonc_skip_ws(w);
		if (jsonc_peek(w) != ':') {
			rc = WK_ERR_PARSE;
			goto out;
		}
		jsonc_advance(w);
		if ((rc = jsonc_walk_value(w, kpath, depth + 1)) != 0)
			goto out;
		jsonc_skip_ws(w);
		if (jsonc_peek(w) == ',') {
			jsonc_advance(w);
			continue;
		}
		if (jsonc_peek(w) == '}') {
			jsonc_advance(w);
			break;
		}
		rc = WK_ERR_PARSE;
		goto out;
	}
	jsonc_check_dups(w, m, n, path);
out:
	buf_free(&key);
	free(m);
	return rc;
}

static int
jsonc_walk_array(struct jsonc_walk *w, const char *path, int depth)
{
	size_t i;
	char *epath;
	int rc;

	jsonc_advance(w);	/* '[' */
	jsonc_skip_ws(w);
	if (jsonc_peek(w) == ']') {
		jsonc_advance(w);
		return 0;
	}
	for (i = 0;; i++) {
		jsonc_skip_ws(w);
		epath = jsonc_path_elem(path, i);
		jsonc_record(w, epath, w->line);	/* transferred */
		if ((rc = jsonc_walk_value(w, epath, depth + 1)) != 0)
			return rc;
		jsonc_skip_ws(w);
		if (jsonc_peek(w) == ',') {
			jsonc_advance(w);
			continue;
		}
		if (jsonc_peek(w) == ']') {
			jsonc_advance(w);
			return 0;
		}
		return WK_ERR_PARSE;
	}
}

static int
jsonc_walk_value(struct jsonc_walk *w, const char *path, int depth)
{
	int c;

	if (depth > JSONC_MAX_DEPTH)
		return WK_ERR_PARSE;
	jsonc_skip_ws(w);
	c = jsonc_peek(w);
	if (c == '{')
		return jsonc_walk_object(w, path, depth);
	if (c == '[')
		return jsonc_walk_array(w, path, depth);
	if (c == '"')
		return jsonc_walk_string(w, NULL);
	if (c < 0)
		return WK_ERR_PARSE;
	/* A number or a literal: cJSON has checked it; step to its end. */
	while ((c = jsonc_peek(w)) > 32 && c != ',' && c != ']' && c != '}')
		jsonc_advance(w);
	return 0;
}

static int
jsonc_key_cmp(const void *a, const void *b)
{
	const struct jsonc_key *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c != 0)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

int
jsonc_index_build(const char *text, size_t len, struct jsonc_index *idx,
    const char *file, struct diag *d)
{
	struct jsonc_walk w;
	int rc;

	idx->keys = NULL;
	idx->n = 0;
	memset(&w, 0, sizeof(w));
	w.t = text;
	w.len = len;
	w.line = 1;
	w.idx = idx;
	w.file = file;
	w.d = d;
	rc = jsonc_walk_value(&w, "", 0);
	if (rc != 0)
		diag_add(d, file, w.line, "cannot index keys (internal error)");
	else
		rc = w.rc;
	if (idx->n > 1)
		qsort(idx->keys, idx->n, sizeof(*idx->keys), jsonc_key_cmp);
	return rc;
}

int
jsonc_index_line(const struct jsonc_index *idx, const char *path)
{
	size_t lo = 0, hi = idx->n, mid;

	/* Lower bound, so that of two equal paths the earlier line wins. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(idx->keys[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < idx->n && strcmp(idx->keys[lo].path, path) == 0)
		return idx->keys[lo].line;
	return 0;
}

void
jsonc_index_free(struct jsonc_index *idx)
{
	size_t i;

	if (idx == NULL)
		return;
	for (i = 0; i < idx->n; i++)
		free(idx->keys[i].path);
	free(idx->keys);
	idx->keys = NULL;
	idx->n = 0;
}

/* Parsing. */

static void
jsonc_syntax_error(const char *name, const char *text, size_t len, const char *end,
    struct diag *d)
{
	char near[32];
	size_t off, from, n = 0;

	if (end == NULL || end < text || end > text + len) {
		diag_add(d, name, 0, "syntax error");
		return;
	}
	off = (size_t)(end - text);
	while (off + n < len && n < 24 && text[off + n] != '\n' && text[off + n] != '\r' &&
	    text[off + n] != '\0')
		n++;
	from = off;
	if (n == 0) {
		/* cJSON stopped just past the culprit at the end of a line: show what ends it. */
		while (from > 0 && off - from < 24 && text[from - 1] != '\n' && text[from - 1] != '\r')
			from--;
		n = off - from;
	}
	while (n > 0 && (unsigned char)text[from] <= 32) {
		from++;
		n--;
	}
	while (n > 0 && (unsigned char)text[from + n - 1] <= 32)
		n--;
	if (n == 0) {
		diag_add(d, name, jsonc_line_at(text, off), "syntax error near end of file");
		return;
	}
	memcpy(near, text + from, n);
	near[n] = '\0';
	diag_add(d, name, jsonc_line_at(text, off), "syntax error near '%s'", near);
}

/*
 * The offset of the first byte that cannot be in a config's text: a NUL
 * (which would cut a string short without a word) or a byte that is not
 * part of well-formed UTF-8 (which would make every JSON written from it
 * invalid).  len when there is none.
 */
static size_t
jsonc_bad_byte(const unsigned char *t, size_t len)
{
	size_t i = 0, n, k;
	unsigned c, lo, hi;

	while (i < len) {
		c = t[i];
		if (c == 0)
			return i;
		if (c < 0x80) {
			i++;
			continue;
		}
		/* RFC 3629: lead byte, continuation count, the second byte's range */
		lo = 0x80;
		hi = 0xBF;
		if (c >= 0xC2 && c <= 0xDF)
			n = 1;
		else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			lo = c == 0xE0 ? 0xA0 : 0x80;	/* no overlong */
			hi = c == 0xED ? 0x9F : 0xBF;	/* no surrogate */
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			lo = c == 0xF0 ? 0x90 : 0x80;
			hi = c == 0xF4 ? 0x8F : 0xBF;	/* nothing above U+10FFFF */
		} else
			return i;
		if (i + n >= len)
			return i;
		if (t[i + 1] < lo || t[i + 1] > hi)
			return i;
		for (k = 2; k <= n; k++)
			if (t[i + k] < 0x80 || t[i + k] > 0xBF)
				return i;
		i += n + 1;
	}
	return len;
}

int
jsonc_parse(const char *name, const char *text, size_t len, cJSON **root,
    struct jsonc_index *idx, struct diag *d)
{
	const char *end = NULL;
	char *s = NULL;
	cJSON *doc = NULL;
	int rc, line;

	*root = NULL;
	idx->keys = NULL;
	idx->n = 0;
	if (len > JSONC_MAX_SIZE) {
		diag_add(d, name, 0, "larger than %d bytes", JSONC_MAX_SIZE);
		rc = WK_ERR_TOOLONG;
		goto out;
	}
	{
		size_t bad = jsonc_bad_byte((const unsigned char *)text, len);

		if (bad < len) {
			diag_add(d, name, jsonc_line_at(text, bad), text[bad] == '\0' ?
			    "a NUL byte (byte %zu): a config is text" :
			    "byte %zu is not UTF-8: a config is UTF-8 text", bad + 1);
			rc = WK_ERR_PARSE;
			goto out;
		}
	}
	s = xstrndup(text, len);
	if ((rc = jsonc_strip(s, len, &line)) != 0) {
		diag_add(d, name, line, "unterminated /* comment");
		goto out;
	}
	/* The length includes the NUL: cJSON's require_null_terminated looks for it. */
	if ((doc = cJSON_ParseWithLengthOpts(s, len + 1, &end, 1)) == NULL) {
		jsonc_syntax_error(name, s, len, end, d);
		rc = WK_ERR_PARSE;
		goto out;
	}
	if ((rc = jsonc_index_build(s, len, idx, name, d)) != 0)
		goto out;
	*root = doc;
	doc = NULL;	/* transferred */
out:
	if (rc != 0)
		jsonc_index_free(idx);
	cJSON_Delete(doc);
	free(s);
	return rc;
}

int
jsonc_load(const char *file, cJSON **root, struct jsonc_index *idx, struct diag *d)
{
	struct buf b = BUF_INIT;
	FILE *fp = NULL;
	char chunk[8192];
	size_t n;
	int rc = 0, saved;

	*root = NULL;
	idx->keys = NULL;
	idx->n = 0;
	if ((fp = fopen(file, "r")) == NULL) {
		rc = WK_ERR_SYSTEM;
		goto out;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		buf_append(&b, chunk, n);
		if (b.len > JSONC_MAX_SIZE)
			break;
	}
	if (ferror(fp)) {
		rc = WK_ERR_SYSTEM;
		goto out;
	}
	rc = jsonc_parse(file, buf_str(&b), b.len, root, idx, d);
out:
	saved = errno;
	if (rc == WK_ERR_SYSTEM)
		diag_add(d, file, 0, "cannot read: %s", wk_strerror(rc));
	if (fp != NULL)
		fclose(fp);
	buf_free(&b);
	errno = saved;
	return rc;
}
