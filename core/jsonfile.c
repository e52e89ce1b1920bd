/*
 * jsonfile.c: JSON state files and getters (see jsonfile.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"

int
jsonfile_load(const char *path, cJSON **out)
{
	char *s = NULL;
	size_t n;
	int r;

	*out = NULL;
	if ((r = fs_read_file(path, JSONFILE_MAX, &s, &n)) != 0)
		return r;
	*out = cJSON_ParseWithLength(s, n);
	free(s);
	return *out == NULL ? WK_ERR_PARSE : 0;
}

int
jsonfile_save(const char *path, const cJSON *doc)
{
	struct buf b = BUF_INIT;
	char *s;
	int r;

	if ((s = cJSON_Print(doc)) == NULL)
		abort();
	buf_puts(&b, s);
	buf_putc(&b, '\n');
	r = atomic_write(path, b.data, b.len, 0644);
	buf_free(&b);
	free(s);
	return r;
}

const char *
json_str(const cJSON *obj, const char *key, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : def;
}

double
json_num(const cJSON *obj, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

long
json_long(const cJSON *obj, const char *key, long def)
{
	double v = json_num(obj, key, (double)def);

	/* A double outside long's range does not convert (undefined): saturate. */
	if (v != v)
		return def;
	if (v >= (double)LONG_MAX)
		return LONG_MAX;
	if (v <= (double)LONG_MIN)
		return LONG_MIN;
	return (long)v;
}

int
json_bool(const cJSON *obj, const char *key, int def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}

void
json_set(cJSON *obj, const char *key, cJSON *val)
{
	if (val == NULL)
		abort();
	if (cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, val);
	else
		cJSON_AddItemToObject(obj, key, val);
}

void
json_set_str(cJSON *obj, const char *key, const char *val)
{
	json_set(obj, key, cJSON_CreateString(val));
}

void
json_set_num(cJSON *obj, const char *key, double val)
{
	json_set(obj, key, cJSON_CreateNumber(val));
}

void
json_set_bool(cJSON *obj, const char *key, int val)
{
	json_set(obj, key, cJSON_CreateBool(val));
}
