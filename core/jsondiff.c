/*
 * jsondiff.c: flatten two documents to (path, value) leaves and compare
 * them (see jsondiff.h).  Configs are small (a few hundred leaves), so a
 * linear lookup per leaf is plenty; the output is bounded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsondiff.h"
#include "xmalloc.h"

#define VALUE_MAX	160	/* characters of a value shown */

struct leaf {
	char	*path;
	char	*value;		/* compact JSON */
	int	 seen;		/* matched in the other document */
};

struct leaves {
	struct leaf	*v;
	size_t		 n;
};

static void
leaves_add(struct leaves *l, const char *path, const cJSON *item)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].path = xstrdup(path);
	l->v[l->n].value = cJSON_PrintUnformatted(item);
	if (l->v[l->n].value == NULL)
		l->v[l->n].value = xstrdup("?");
	l->v[l->n].seen = 0;
	l->n++;
}

static void
flatten(struct leaves *l, const char *path, const cJSON *item)
{
	const cJSON *c;
	char *p;
	int i = 0;

	if ((cJSON_IsObject(item) || cJSON_IsArray(item)) && item->child != NULL) {
		cJSON_ArrayForEach(c, item) {
			if (cJSON_IsArray(item))
				p = xstrfmt("%s[%d]", path, i++);
			else
				p = xstrfmt("%s%s%s", path, path[0] != '\0' ? "." : "", c->string);
			flatten(l, p, c);
			free(p);
		}
		return;
	}
	leaves_add(l, path[0] != '\0' ? path : "(document)", item);
}

static void
leaves_free(struct leaves *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].value);
	}
	free(l->v);
}

static void
put_value(struct buf *b, const char *v)
{
	size_t n = strlen(v);

	if (n <= VALUE_MAX)
		buf_puts(b, v);
	else
		buf_printf(b, "%.*s...", VALUE_MAX, v);
}

/* Every scalar under item replaced by a digest of its text: a change shows, the value never. */
static void
redact(cJSON *item)
{
	cJSON *c;
	char *text, tag[48];
	const unsigned char *p;
	uint64_t h = 1469598103934665603ULL;

	if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
		cJSON_ArrayForEach(c, item)
			redact(c);
		return;
	}
	if ((text = cJSON_PrintUnformatted(item)) == NULL)
		return;
	for (p = (const unsigned char *)text; *p != '\0'; p++)
		h = (h ^ *p) * 1099511628211ULL;
	free(text);
	snprintf(tag, sizeof(tag), "(hidden #%016llx)", (unsigned long long)h);
	/* Strings, numbers and booleans alike become the tag (a duplicate owns its strings). */
	free(item->valuestring);
	item->type = cJSON_String;
	item->valuestring = xstrdup(tag);
}

cJSON *
jsondiff_redacted(const cJSON *doc)
{
	cJSON *copy = cJSON_Duplicate(doc, 1), *n;

	if (copy != NULL && (n = cJSON_GetObjectItemCaseSensitive(copy, "notify")) != NULL)
		redact(n);
	return copy;
}

int
jsondiff_hide_secrets(const char *path)
{
	return strncmp(path, "notify[", 7) == 0 || strncmp(path, "notify.", 7) == 0 ||
	    strcmp(path, "notify") == 0;
}

char *
jsondiff_text(const cJSON *old, const cJSON *new, size_t max_lines,
    int (*hide)(const char *path))
{
	struct leaves a = { NULL, 0 }, b = { NULL, 0 };
	struct buf out = BUF_INIT;
	size_t i, j, lines = 0, more = 0;

	flatten(&a, "", old);
	flatten(&b, "", new);
	for (i = 0; i < b.n; i++) {
		struct leaf *was = NULL;
		int hidden = hide != NULL && hide(b.v[i].path);

		for (j = 0; j < a.n && was == NULL; j++)
			if (!a.v[j].seen && strcmp(a.v[j].path, b.v[i].path) == 0)
				was = &a.v[j];
		if (was != NULL) {
			was->seen = 1;
			if (strcmp(was->value, b.v[i].value) == 0)
				continue;
		}
		if (lines++ >= max_lines) {
			more++;
			continue;
		}
		if (was == NULL)
			buf_printf(&out, "+ %s", b.v[i].path);
		else
			buf_printf(&out, "%s", b.v[i].path);
		if (hidden)
			buf_puts(&out, was == NULL ? " (value not shown)\n" : ": changed (value not shown)\n");
		else if (was == NULL) {
			buf_puts(&out, ": ");
			put_value(&out, b.v[i].value);
			buf_putc(&out, '\n');
		} else {
			buf_puts(&out, ": ");
			put_value(&out, was->value);
			buf_puts(&out, " -> ");
			put_value(&out, b.v[i].value);
			buf_putc(&out, '\n');
		}
	}
	for (j = 0; j < a.n; j++) {
		if (a.v[j].seen)
			continue;
		if (lines++ >= max_lines) {
			more++;
			continue;
		}
		buf_printf(&out, "- %s\n", a.v[j].path);
	}
	if (more > 0)
		buf_printf(&out, "... and %zu more\n", more);
	leaves_free(&a);
	leaves_free(&b);
	if (out.len == 0) {
		buf_free(&out);
		return NULL;
	}
	return buf_detach(&out);
}
