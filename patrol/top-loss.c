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

/*
 * Entry b ([step, value]) says nothing new after a: the same step (b has
 * one), or the same value (b has none: -1).
 */
static int
top_loss_same(const cJSON *a, const cJSON *b)
{
	const cJSON *as = cJSON_GetArrayItem(a, 0), *av = cJSON_GetArrayItem(a, 1);
	const cJSON *bs = cJSON_GetArrayItem(b, 0), *bv = cJSON_GetArrayItem(b, 1);

	if (!cJSON_IsArray(a) || !cJSON_IsNumber(bs))
		return 0;
	if (bs->valuedouble >= 0)
		return cJSON_IsNumber(as) && as->valuedouble == bs->valuedouble;
	return cJSON_IsNumber(bv) ? cJSON_IsNumber(av) && av->valuedouble == bv->valuedouble :
	    cJSON_IsNull(av);
}

/* e appended to doc's ring (made when missing or garbled) unless it is not new; the oldest go. */
static void
top_loss_push(cJSON *doc, cJSON *e)
{
	cJSON *ring = cJSON_GetObjectItemCaseSensitive(doc, TOP_LOSS_KEY);

	if (!cJSON_IsArray(ring)) {
		cJSON_DeleteItemFromObjectCaseSensitive(doc, TOP_LOSS_KEY);
		ring = cJSON_AddArrayToObject(doc, TOP_LOSS_KEY);
	}
	if (top_loss_same(cJSON_GetArrayItem(ring, cJSON_GetArraySize(ring) - 1), e)) {
		cJSON_Delete(e);
		return;
	}
	cJSON_AddItemToArray(ring, e);	/* transferred */
	while (cJSON_GetArraySize(ring) > TOP_LOSS_N)
		cJSON_DeleteItemFromArray(ring, 0);
}

void
top_loss_remember(cJSON *doc, const cJSON *health)
{
	const cJSON *loss = cJSON_GetObjectItemCaseSensitive(health, "loss");
	const cJSON *last = cJSON_GetObjectItemCaseSensitive(loss, "last");
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(health, "progress");
	double step = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(pr, "cur")) ?
	    json_num(pr, "cur", -1) : -1;
	int finite = cJSON_IsNumber(last) && isfinite(last->valuedouble);
	cJSON *e;

	if (!finite && !cJSON_IsString(last))
		return;		/* no loss value (no loss.pattern, or none logged yet) */
	e = cJSON_CreateArray();
	cJSON_AddItemToArray(e, cJSON_CreateNumber(step));
	cJSON_AddItemToArray(e, finite ? cJSON_CreateNumber(last->valuedouble) : cJSON_CreateNull());
	top_loss_push(doc, e);
}

void
top_loss_merge(cJSON *doc, const cJSON *older)
{
	const cJSON *old = cJSON_GetObjectItemCaseSensitive(older, TOP_LOSS_KEY);
	cJSON *ring = cJSON_GetObjectItemCaseSensitive(doc, TOP_LOSS_KEY), *newest;

	if (!cJSON_IsArray(old) || cJSON_GetArraySize(old) == 0)
		return;		/* nothing to carry on: doc's ring stands */
	newest = cJSON_IsArray(ring) ? cJSON_DetachItemFromArray(ring,
	    cJSON_GetArraySize(ring) - 1) : NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(doc, TOP_LOSS_KEY);
	cJSON_AddItemToObject(doc, TOP_LOSS_KEY, cJSON_Duplicate(old, 1));
	if (cJSON_IsArray(newest))
		top_loss_push(doc, newest);	/* transferred */
	else
		cJSON_Delete(newest);
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
