/*
 * nanstop.c: loss.on_nan "stop" bookkeeping (see nanstop.h).
 */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "config.h"
#include "nanstop.h"
#include "xmalloc.h"

int
nanstop_enabled(const struct wk_config *cfg)
{
	const char *v = config_get_str(cfg, "loss.on_nan");

	return v != NULL && strcmp(v, "stop") == 0;
}

static void
nanstop_set(struct nanstop *n, const char *stage, long attempt, const char *text)
{
	nanstop_free(n);
	n->stage = xstrdup(stage);
	n->attempt = attempt;
	n->text = xstrdup(text != NULL ? text : "loss became NaN or Inf");
}

int
nanstop_alert(struct nanstop *n, const struct wk_config *cfg, const char *stage, long attempt,
    const char *text)
{
	if (stage == NULL || attempt <= 0 || !nanstop_enabled(cfg))
		return 0;
	if (nanstop_due(n, stage, attempt) == NULL)
		nanstop_set(n, stage, attempt, text);
	return 1;
}

const char *
nanstop_due(const struct nanstop *n, const char *stage, long attempt)
{
	if (n->stage == NULL || stage == NULL || strcmp(n->stage, stage) != 0 ||
	    n->attempt != attempt)
		return NULL;
	return n->text;
}

void
nanstop_save(const struct nanstop *n, cJSON *doc)
{
	cJSON *o;

	if (n->stage == NULL)
		return;
	o = cJSON_AddObjectToObject(doc, "nan_stop");
	cJSON_AddStringToObject(o, "stage", n->stage);
	cJSON_AddNumberToObject(o, "attempt", (double)n->attempt);
	cJSON_AddStringToObject(o, "text", n->text);
}

void
nanstop_load(struct nanstop *n, const cJSON *doc)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, "nan_stop");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "stage");
	const cJSON *at = cJSON_GetObjectItemCaseSensitive(o, "attempt");
	const cJSON *tx = cJSON_GetObjectItemCaseSensitive(o, "text");

	if (cJSON_IsString(st) && cJSON_IsNumber(at) && at->valuedouble >= 1 &&
	    at->valuedouble < 1e9)
		nanstop_set(n, st->valuestring, (long)at->valuedouble,
		    cJSON_IsString(tx) ? tx->valuestring : NULL);
}

void
nanstop_free(struct nanstop *n)
{
	free(n->stage);
	free(n->text);
	n->stage = n->text = NULL;
	n->attempt = 0;
}
