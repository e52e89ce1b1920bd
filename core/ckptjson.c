/*
 * ckptjson.c: a checkpoint summary as JSON (see ckptjson.h).
 */
#include <cJSON.h>

#include "ckpt.h"
#include "ckptjson.h"

void
ckptjson_summary(cJSON *obj, const struct ckpt_summary *sum)
{
	if (sum->path != NULL) {
		cJSON_AddStringToObject(obj, "path", sum->path);
		cJSON_AddNumberToObject(obj, "step", (double)sum->step);
		cJSON_AddNumberToObject(obj, "age_s", (double)sum->age_s);
	}
	cJSON_AddNumberToObject(obj, "complete", (double)sum->ncomplete);
	cJSON_AddNumberToObject(obj, "incomplete", (double)sum->nincomplete);
}
