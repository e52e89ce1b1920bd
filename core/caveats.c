/*
 * caveats.c: what went wrong on the way to a DONE (see caveats.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "caveats.h"
#include "err.h"
#include "events.h"
#include "history.h"
#include "jsonfile.h"
#include "layout.h"
#include "xmalloc.h"

#define CAV_NAME_MAX	48	/* a kind or class name from the box */

/* One stage's attempts in the chain's window. */
struct cav_stage {
	const char	*name;
	int		 first;		/* the chain's first stage: its name is not said */
	long		*att;		/* attempt numbers in the window */
	size_t		 natt;
};

/*
 * A name from the box as a caveat may say it: letters, digits, '_', '-',
 * '.', at most CAV_NAME_MAX; "" when nothing is left.
 */
static void
cav_name(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; s != NULL && *s != '\0' && n + 1 < len && n < CAV_NAME_MAX; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    *s == '_' || *s == '-' || *s == '.')
			out[n++] = *s;
	out[n] = '\0';
}

static int
result_is(const cJSON *a, const char *res)
{
	return strcmp(json_str(a, HIST_KEY_RESULT, ""), res) == 0;
}

/*
 * The first stage's current series: the index after the newest "done"
 * attempt before the last one (0 when none).
 */
static int
series_start(const cJSON *arr)
{
	int n = cJSON_GetArraySize(arr), i;

	for (i = n - 1; i > 0; i--)
		if (result_is(cJSON_GetArrayItem(arr, i - 1), "done"))
			return i;
	return 0;
}

static int
in_window(const struct cav_stage *s, long attempt)
{
	size_t i;

	for (i = 0; i < s->natt; i++)
		if (s->att[i] == attempt)
			return 1;
	return 0;
}

static void
paren_attempt(struct buf *b, const struct cav_stage *s, long attempt)
{
	if (s->first)
		buf_printf(b, "(attempt %ld)", attempt);
	else
		buf_printf(b, "(%s attempt %ld)", s->name, attempt);
}

/* Alerts about the wait, not the result: a capacity wait leaves no mark on what the run made. */
static const char *const cav_not_caveats[] = { "capacity_wait" };

/* The health alert on one events.jsonl line as a caveat, or NULL. */
static cJSON *
cav_alert(const cJSON *ev, const struct cav_stage *st, size_t nst, const cJSON *items)
{
	const char *sev = json_str(ev, "severity", ""), *stage = json_str(ev, "stage", NULL);
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(ev, "alert"), *it;
	long attempt = json_long(ev, "attempt", 0), step;
	char kind[CAV_NAME_MAX + 1];
	const struct cav_stage *s = NULL;
	struct buf b = BUF_INIT;
	cJSON *o;
	size_t i;

	if (strcmp(json_str(ev, "event", ""), "health_alert") != 0 || stage == NULL ||
	    (strcmp(sev, "degraded") != 0 && strcmp(sev, "critical") != 0))
		return NULL;
	cav_name(json_str(ev, "kind", json_str(al, "event", "")), kind, sizeof(kind));
	if (kind[0] == '\0')
		return NULL;
	for (i = 0; i < sizeof(cav_not_caveats) / sizeof(cav_not_caveats[0]); i++)
		if (strcmp(kind, cav_not_caveats[i]) == 0)
			return NULL;
	for (i = 0; i < nst && s == NULL; i++)
		if (strcmp(st[i].name, stage) == 0)
			s = &st[i];
	if (s == NULL || !in_window(s, attempt))
		return NULL;
	cJSON_ArrayForEach(it, items)	/* once per kind per attempt */
		if (strcmp(json_str(it, "kind", ""), kind) == 0 &&
		    strcmp(json_str(it, "stage", ""), s->name) == 0 &&
		    json_long(it, "attempt", 0) == attempt)
			return NULL;
	step = json_long(al, "step", -1);
	buf_puts(&b, kind);
	if (step >= 0)
		buf_printf(&b, " at step %ld", step);
	buf_putc(&b, ' ');
	paren_attempt(&b, s, attempt);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddStringToObject(o, "text", buf_str(&b));
	cJSON_AddStringToObject(o, "stage", s->name);
	cJSON_AddNumberToObject(o, "attempt", (double)attempt);
	if (step >= 0)
		cJSON_AddNumberToObject(o, "step", (double)step);
	cJSON_AddStringToObject(o, "severity", sev);
	buf_free(&b);
	return o;
}

/* A stage's restarts (failed or lost attempts another one followed) as a caveat, or NULL. */
static cJSON *
cav_restarts(const struct cav_stage *s, const cJSON *arr, int from)
{
	int n = cJSON_GetArraySize(arr), i;
	long count = 0, last = 0;
	cJSON *o = NULL, *classes = cJSON_CreateArray(), *c;
	struct buf b = BUF_INIT, cl = BUF_INIT;
	char name[CAV_NAME_MAX + 1];
	int dup;

	for (i = from; i + 1 < n; i++) {
		const cJSON *a = cJSON_GetArrayItem(arr, i);

		if (!result_is(a, "failed") && !result_is(a, "lost"))
			continue;
		count++;
		last = json_long(a, HIST_KEY_ATTEMPT, 0);
		cav_name(json_str(a, HIST_KEY_CLASS, result_is(a, "lost") ? "lost" : ""), name,
		    sizeof(name));
		if (name[0] == '\0')
			continue;
		dup = 0;
		cJSON_ArrayForEach(c, classes)
			dup |= strcmp(c->valuestring, name) == 0;
		if (!dup) {
			buf_printf(&cl, "%s%s", cJSON_GetArraySize(classes) > 0 ? ", " : "", name);
			cJSON_AddItemToArray(classes, cJSON_CreateString(name));
		}
	}
	if (count == 0)
		goto out;
	buf_printf(&b, "%ld restart%s", count, count == 1 ? "" : "s");
	if (!s->first)
		buf_printf(&b, " of %s", s->name);
	if (cl.len > 0 && cl.len <= CAVEATS_CLASSES_MAX)
		buf_printf(&b, " (%s)", buf_str(&cl));
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", "restart");
	cJSON_AddStringToObject(o, "text", buf_str(&b));
	cJSON_AddStringToObject(o, "stage", s->name);
	cJSON_AddNumberToObject(o, "attempt", (double)last);
	cJSON_AddNumberToObject(o, "count", (double)count);
	cJSON_AddItemToObject(o, "classes", classes);
	classes = NULL;		/* transferred */
 out:
	cJSON_Delete(classes);
	buf_free(&b);
	buf_free(&cl);
	return o;
}

cJSON *
caveats_from(const char *const *stages, const cJSON *const *hists, size_t nstages,
    const char *events, size_t events_len, size_t max)
{
	struct cav_stage *st = xcalloc(nstages > 0 ? nstages : 1, sizeof(*st));
	cJSON *doc = cJSON_CreateObject(), *alerts = cJSON_CreateArray(), *restarts = cJSON_CreateArray();
	cJSON *items, *o, *ev;
	const char *p = events, *end = events + (events != NULL ? events_len : 0), *nl;
	double chain_start = 0;
	int *from = xcalloc(nstages > 0 ? nstages : 1, sizeof(*from));
	int na, nr, keep_a, keep_r, i, j;
	struct buf text = BUF_INIT;
	size_t k;

	if (max == 0)
		max = CAVEATS_MAX;
	/* The window: the first stage's current series, the others' attempts since it began. */
	for (k = 0; k < nstages; k++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(hists[k], HIST_KEY_ATTEMPTS);
		int n = cJSON_GetArraySize(arr);

		st[k].name = stages[k];
		st[k].first = k == 0;
		st[k].att = xcalloc(n > 0 ? (size_t)n : 1, sizeof(long));
		if (k == 0) {
			from[0] = series_start(arr);
			chain_start = json_num(cJSON_GetArrayItem(arr, from[0]), HIST_KEY_STARTED_UNIX, 0);
		} else {
			/* attempts are appended in time order: the window is a suffix */
			for (from[k] = n; from[k] > 0; from[k]--)
				if (json_num(cJSON_GetArrayItem(arr, from[k] - 1), HIST_KEY_STARTED_UNIX, 0) <
				    chain_start)
					break;
		}
		for (i = from[k]; i < n; i++)
			st[k].att[st[k].natt++] = json_long(cJSON_GetArrayItem(arr, i), HIST_KEY_ATTEMPT, 0);
	}
	/* Health alerts, in the order they happened. */
	for (; p != NULL && p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (memmem(p, (size_t)(nl - p), "\"health_alert\"", 14) == NULL)
			continue;
		if ((ev = cJSON_ParseWithLength(p, (size_t)(nl - p))) == NULL)
			continue;
		if ((o = cav_alert(ev, st, nstages, alerts)) != NULL)
			cJSON_AddItemToArray(alerts, o);
		cJSON_Delete(ev);
	}
	for (k = 0; k < nstages; k++)
		if ((o = cav_restarts(&st[k], cJSON_GetObjectItemCaseSensitive(hists[k], HIST_KEY_ATTEMPTS),
		    from[k])) != NULL)
			cJSON_AddItemToArray(restarts, o);
	/* The bound: restarts first, then the oldest alerts. */
	na = cJSON_GetArraySize(alerts);
	nr = cJSON_GetArraySize(restarts);
	keep_r = nr < (int)max ? nr : (int)max;
	keep_a = na < (int)max - keep_r ? na : (int)max - keep_r;
	items = cJSON_AddArrayToObject(doc, "caveats");
	for (j = 0; j < 2; j++) {
		cJSON *from_arr = j == 0 ? alerts : restarts;
		int keep = j == 0 ? keep_a : keep_r;

		for (i = 0; i < keep; i++) {
			o = cJSON_DetachItemFromArray(from_arr, 0);
			buf_printf(&text, "%s%s", text.len > 0 ? ", " : "", json_str(o, "text", ""));
			cJSON_AddItemToArray(items, o);
		}
	}
	if (na + nr > keep_a + keep_r)
		buf_printf(&text, ", and %d more", na + nr - keep_a - keep_r);
	cJSON_AddStringToObject(doc, "text", buf_str(&text));
	cJSON_AddNumberToObject(doc, "more", (double)(na + nr - keep_a - keep_r));
	cJSON_Delete(alerts);
	cJSON_Delete(restarts);
	for (k = 0; k < nstages; k++)
		free(st[k].att);
	free(st);
	free(from);
	buf_free(&text);
	return doc;
}

/* Only the health_alert lines of events.jsonl (a long run's file can be big). */
static char *
cav_read_alerts(const char *workdir, size_t *len)
{
	char *path = layout_path(workdir, EVENTS_FILE), *line = NULL;
	struct buf b = BUF_INIT;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;

	if ((fp = fopen(path, "re")) != NULL) {
		while ((n = getline(&line, &cap, fp)) > 0)
			if (memmem(line, (size_t)n, "\"health_alert\"", 14) != NULL) {
				buf_append(&b, line, (size_t)n);
				if (line[n - 1] != '\n')
					buf_putc(&b, '\n');
			}
		fclose(fp);
	}
	free(line);
	free(path);
	*len = b.len;
	return buf_detach(&b);
}

cJSON *
caveats_build(const struct wk_config *cfg)
{
	const char **names = xcalloc(cfg->nchain > 0 ? cfg->nchain : 1, sizeof(*names));
	cJSON **hists = xcalloc(cfg->nchain > 0 ? cfg->nchain : 1, sizeof(*hists));
	char *events, *path;
	size_t i, len = 0;
	cJSON *doc;

	for (i = 0; i < cfg->nchain; i++) {
		names[i] = cfg->chain[i].name;
		path = layout_stage_file(cfg->workdir, cfg->chain[i].name);
		if (jsonfile_load(path, &hists[i]) != 0)
			hists[i] = NULL;
		free(path);
	}
	events = cav_read_alerts(cfg->workdir, &len);
	doc = caveats_from(names, (const cJSON *const *)hists, cfg->nchain, events, len, 0);
	for (i = 0; i < cfg->nchain; i++)
		cJSON_Delete(hists[i]);
	free(hists);
	free(names);
	free(events);
	return doc;
}

int
caveats_count(const cJSON *doc)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "caveats");

	return cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
}

const char *
caveats_text(const cJSON *doc)
{
	const char *t = json_str(doc, "text", NULL);

	return caveats_count(doc) > 0 && t != NULL && *t != '\0' ? t : NULL;
}

int
caveats_save(const char *workdir, const cJSON *doc)
{
	char *path = layout_path(workdir, CAVEATS_FILE), *s = NULL;
	int r = 0;

	if (caveats_count(doc) == 0) {
		if (unlink(path) != 0 && errno != ENOENT)
			r = WK_ERR_SYSTEM;
		goto out;
	}
	s = cJSON_PrintUnformatted(doc);
	r = atomic_write(path, s, strlen(s), 0644);
 out:
	free(s);
	free(path);
	return r;
}

void
caveats_clear(const char *workdir)
{
	char *path = layout_path(workdir, CAVEATS_FILE);

	(void)unlink(path);
	free(path);
}

cJSON *
caveats_load(const char *workdir)
{
	char *path = layout_path(workdir, CAVEATS_FILE);
	cJSON *doc = NULL;

	if (jsonfile_load(path, &doc) != 0 || caveats_count(doc) == 0) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	free(path);
	return doc;
}

void
caveats_event(cJSON *ev, const cJSON *doc)
{
	if (caveats_text(doc) == NULL)
		return;
	cJSON_AddItemToObject(ev, "caveats",
	    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(doc, "caveats"), 1));
	cJSON_AddStringToObject(ev, "caveats_text", caveats_text(doc));
}
