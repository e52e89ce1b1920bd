/*
 * history.c: stages/<stage>.json, the attempt history: its one parser
 * (history_attempts() into struct attempt, and the typed key readers the
 * policy uses) and its one emitter (hist_load/hist_add/hist_save).  See
 * history.h for the document.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "err.h"
#include "history.h"
#include "jsonfile.h"
#include "layout.h"
#include "monotime.h"

#define HIST_TIME_MAX		253402300799.0
#define HIST_ATTEMPT_MAX	1000000000.0
#define HIST_PID_MAX		2147483647.0
#define HIST_STEP_MAX		1e15

/* ---- the parser ---- */

int
history_num(const cJSON *o, const char *key, double lo, double hi, int integral, double *v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < lo ||
	    it->valuedouble > hi ||
	    (integral && (double)(long long)it->valuedouble != it->valuedouble))
		return WK_ERR_PARSE;
	*v = it->valuedouble;
	return 1;
}

int
history_str(const cJSON *o, const char *key, const char **s)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	*s = NULL;
	if (it == NULL || cJSON_IsNull(it))
		return 1;
	if (!cJSON_IsString(it))
		return WK_ERR_PARSE;
	*s = it->valuestring;
	return 1;
}

/* 1: an ended attempt in *a; 0: not ended yet; -1: malformed. */
static int
hist_entry(const cJSON *e, struct attempt *a)
{
	const char *result, *cls;
	double v;
	int r;

	memset(a, 0, sizeof(*a));
	a->exit_code = -1;
	a->ckpt_step = a->ckpt_from = -1;
	if (!cJSON_IsObject(e))
		return WK_ERR_PARSE;
	if (history_num(e, HIST_KEY_ATTEMPT, 1, HIST_ATTEMPT_MAX, 1, &v) != 1)
		return WK_ERR_PARSE;
	a->n = (long)v;
	if (history_str(e, HIST_KEY_RESULT, &result) < 0 || result == NULL)
		return WK_ERR_PARSE;
	if (history_str(e, HIST_KEY_CLASS, &cls) < 0 ||
	    history_str(e, POLICY_KEY_JOB_ID, &a->job_id) < 0 ||
	    history_str(e, POLICY_KEY_CHECKPOINT, &a->checkpoint) < 0)
		return WK_ERR_PARSE;
	if ((r = history_num(e, HIST_KEY_STARTED_UNIX, 0, HIST_TIME_MAX, 0, &v)) < 0)
		return WK_ERR_PARSE;
	if (r == 1)
		a->started = (time_t)v;
	if ((r = history_num(e, HIST_KEY_ENDED_UNIX, 0, HIST_TIME_MAX, 0, &v)) < 0)
		return WK_ERR_PARSE;
	if (r == 1)
		a->ended = (time_t)v;
	if ((r = history_num(e, HIST_KEY_EXIT_CODE, -1, 255, 1, &v)) < 0)
		return WK_ERR_PARSE;
	if (r == 1)
		a->exit_code = (int)v;
	if ((r = history_num(e, HIST_KEY_SIGNAL, 0, 128, 1, &v)) < 0)
		return WK_ERR_PARSE;
	if (r == 1)
		a->signo = (int)v;
	if ((r = history_num(e, POLICY_KEY_PID, 0, HIST_PID_MAX, 1, &v)) < 0)
		return WK_ERR_PARSE;
	if (r == 0 && (r = history_num(e, HIST_KEY_WRAPPER_PID, 0, HIST_PID_MAX, 1, &v)) < 0)
		return WK_ERR_PARSE;
	if (r == 1)
		a->pid = (long)v;
	if (cJSON_GetObjectItemCaseSensitive(e, POLICY_KEY_PROGRESSED) != NULL) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, POLICY_KEY_PROGRESSED);

		if (!cJSON_IsBool(p))
			return WK_ERR_PARSE;
		a->progressed = cJSON_IsTrue(p);
		a->ckpt_known = 1;	/* policy_mark_progress wrote it, and the checkpoint step with it */
	}
	/* Checkpoint steps out of shape: unknown (no_progress passes over it), not a bad entry. */
	if ((r = history_num(e, POLICY_KEY_CKPT_STEP, 0, HIST_STEP_MAX, 1, &v)) == 1)
		a->ckpt_step = (long)v;
	else if (r < 0)
		a->ckpt_known = 0;
	if ((r = history_num(e, POLICY_KEY_CKPT_FROM, 0, HIST_STEP_MAX, 1, &v)) == 1)
		a->ckpt_from = (long)v;
	else if (r < 0)
		a->ckpt_known = 0;

	if (strcmp(result, "done") == 0)
		a->cls = NULL;
	else if (strcmp(result, "failed") == 0)
		a->cls = cls != NULL ? cls : "unknown";
	else if (strcmp(result, "lost") == 0)
		a->cls = cls != NULL ? cls : "lost";
	else
		return 0;
	return 1;
}

const cJSON *
history_array(const cJSON *hist)
{
	const cJSON *arr = cJSON_IsArray(hist) ? hist :
	    cJSON_GetObjectItemCaseSensitive(hist, HIST_KEY_ATTEMPTS);

	return cJSON_IsArray(arr) ? arr : NULL;
}

int
history_attempts(const cJSON *hist, struct attempt *out, size_t cap, size_t *n,
    size_t *skipped)
{
	const cJSON *arr = history_array(hist), *e;
	struct attempt a;
	size_t good = 0, bad = 0, drop, seen = 0;
	int r;

	*n = 0;
	if (skipped != NULL)
		*skipped = 0;
	if (arr == NULL)
		return WK_ERR_PARSE;
	cJSON_ArrayForEach(e, arr) {
		if ((r = hist_entry(e, &a)) == 1)
			good++;
		else if (r < 0)
			bad++;
	}
	drop = good > cap ? good - cap : 0;
	cJSON_ArrayForEach(e, arr) {
		if (hist_entry(e, &a) != 1)
			continue;
		if (seen++ < drop)
			continue;
		out[(*n)++] = a;
	}
	if (skipped != NULL)
		*skipped = bad + drop;
	return 0;
}

/* ---- the emitter ---- */

cJSON *
hist_load(const char *workdir, const char *stage)
{
	char *path = layout_stage_file(workdir, stage);
	cJSON *doc = NULL;

	if (jsonfile_load(path, &doc) != 0 ||
	    !cJSON_IsArray(cJSON_GetObjectItem(doc, HIST_KEY_ATTEMPTS))) {
		cJSON_Delete(doc);
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, HIST_KEY_STAGE, stage);
		cJSON_AddItemToObject(doc, HIST_KEY_ATTEMPTS, cJSON_CreateArray());
	}
	free(path);
	return doc;
}

int
hist_save(const char *workdir, const char *stage, const cJSON *hist)
{
	char *path = layout_stage_file(workdir, stage);
	int r = jsonfile_save(path, hist);

	free(path);
	return r;
}

cJSON *
hist_last(const cJSON *hist)
{
	const cJSON *arr = cJSON_GetObjectItem(hist, HIST_KEY_ATTEMPTS);
	int n = cJSON_GetArraySize(arr);

	return n > 0 ? cJSON_GetArrayItem(arr, n - 1) : NULL;
}

long
hist_n(const cJSON *a)
{
	return json_long(a, HIST_KEY_ATTEMPT, 1);
}

long
hist_last_n(const cJSON *hist)
{
	const cJSON *last = hist_last(hist);

	return last != NULL ? json_long(last, HIST_KEY_ATTEMPT, 0) : 0;
}

cJSON *
hist_add(cJSON *hist, long n, const char *kind)
{
	cJSON *a = cJSON_CreateObject();
	char when[TIMEFMT_LEN];
	time_t now = time(NULL);

	timefmt_utc(now, when, sizeof(when));
	cJSON_AddNumberToObject(a, HIST_KEY_ATTEMPT, (double)n);
	cJSON_AddStringToObject(a, HIST_KEY_KIND, kind);
	cJSON_AddStringToObject(a, HIST_KEY_STARTED, when);
	cJSON_AddNumberToObject(a, HIST_KEY_STARTED_UNIX, (double)now);
	cJSON_AddStringToObject(a, HIST_KEY_RESULT, "starting");
	cJSON_AddItemToArray(cJSON_GetObjectItem(hist, HIST_KEY_ATTEMPTS), a);
	return a;
}

char *
hist_nodes_of_class(const cJSON *hist, const cJSON *stop, const char *cls, const char *node_key)
{
	struct buf nodes = BUF_INIT;
	const cJSON *e;
	const char *node;

	cJSON_ArrayForEach(e, history_array(hist)) {
		if (e == stop)
			break;
		node = json_str(e, node_key, NULL);
		if (node != NULL && strcmp(json_str(e, HIST_KEY_CLASS, ""), cls) == 0)
			buf_printf(&nodes, "%s%s", nodes.len > 0 ? "," : "", node);
	}
	return buf_detach(&nodes);
}
