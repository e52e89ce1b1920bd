/*
 * ckptjson.h: a checkpoint summary (ckpt.h) as JSON, in the one shape that
 * `onbox status --json` ("checkpoint") and patrol.json ("checkpoint", read
 * by the handbook) both carry.
 */
#ifndef WK_CKPTJSON_H
#define WK_CKPTJSON_H

#include <cJSON.h>

#include "ckpt.h"

/*
 * Add to obj: "path", "step" and "age_s" when there is a complete
 * checkpoint, then "complete" and "incomplete" (the counts).
 */
void ckptjson_summary(cJSON *obj, const struct ckpt_summary *sum);

#endif
