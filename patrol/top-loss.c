/*
 * top-loss.c: the last TOP_LOSS_N loss values, kept owner-side for
 * `patrol top`'s sparkline.
 *
 * The box keeps no history of the loss anyone can read: its heartbeat
 * (state.json "health") says the last value and the trend, and onbox's own
 * health state holds (step, loss) pairs for its resume check only.  So each
 * tick that sees the box appends the heartbeat's last value to a small ring
 * in patrol.json ("loss_recent": [[step, value], ...], oldest first), saved
 * atomically with the rest of the tick's state.  A value is new when its step
 * differs from the newest entry's (or, without a step, its value): `patrol
 * top` refreshing every few seconds does not fill the ring with one value.
 * NaN and Inf (the heartbeat writes them as "nan", "inf", "-inf") are kept
 * as null, drawn as '!'.
 */
#include <math.h>
#include <string.h>

#include "jsonfile.h"
#include "top.h"

#define TOP_LOSS_KEY	"loss_recent"

void
top_loss_remember(cJSON *doc, const cJSON *health)
{
	const cJSON *loss = cJSON_GetObjectItemCaseSensitive(health, "loss");
	const cJSON *last = cJSON_GetObjectItemCaseSensitive(loss, "last");
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(health, "progress");
	cJSON *ring = cJSON_GetObjectItemCaseSensitive(doc, TOP_LOSS_KEY), *e, *prev;
	double step = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(pr, "cur")) ?
	    json_num(pr, "cur", -1) : -1;
	int finite = cJSON_IsNumber(last) && isfinite(last->valuedouble);

	if (!finite && !cJSON_IsString(last))
		return;		/* no loss value (no loss.pattern, or none logged yet) */
	if (!cJSON_IsArray(ring)) {
		cJSON_DeleteItemFromObjectCaseSensitive(doc, TOP_LOSS_KEY);
		ring = cJSON_AddArrayToObject(doc, TOP_LOSS_KEY);
	}
	prev = cJSON_GetArrayItem(ring, cJSON_GetArraySize(ring) - 1);
	if (cJSON_IsArray(prev)) {
		const cJSON *ps = cJSON_GetArrayItem(prev, 0), *pv = cJSON_GetArrayItem(prev, 1);
		int same_step = cJSON_IsNumber(ps) && ps->valuedouble == step;
		int same_value = finite ? cJSON_IsNumber(pv) && pv->valuedouble == last->valuedouble :
		    cJSON_IsNull(pv);

		if (step >= 0 ? same_step : same_value)
			return;
	}
	e = cJSON_CreateArray();
	cJSON_AddItemToArray(e, cJSON_CreateNumber(step));
	cJSON_AddItemToArray(e, finite ? cJSON_CreateNumber(last->valuedouble) : cJSON_CreateNull());
	cJSON_AddItemToArray(ring, e);
	while (cJSON_GetArraySize(ring) > TOP_LOSS_N)
		cJSON_DeleteItemFromArray(ring, 0);
}

size_t
top_loss_values(const cJSON *doc, double *v, size_t max)
{
	const cJSON *ring = cJSON_GetObjectItemCaseSensitive(doc, TOP_LOSS_KEY), *e, *x;
	size_t n = 0, skip;
	int size = cJSON_GetArraySize(ring);

	if (!cJSON_IsArray(ring))
		return 0;
	skip = (size_t)size > max ? (size_t)size - max : 0;
	cJSON_ArrayForEach(e, ring) {
		if (skip > 0) {
			skip--;
			continue;
		}
		x = cJSON_GetArrayItem(e, 1);
		v[n++] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
	}
	return n;
}
