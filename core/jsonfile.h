/*
 * jsonfile.h: JSON state files (on cJSON) read whole and written atomically,
 * and typed getters that tolerate missing keys.
 */
#ifndef WK_JSONFILE_H
#define WK_JSONFILE_H

#include <stddef.h>

#include <cJSON.h>

#define JSONFILE_MAX (16u << 20)

/* 0 and *out (caller cJSON_Delete()s), WK_ERR_SYSTEM (errno ENOENT when missing), WK_ERR_PARSE, WK_ERR_TOOLONG. */
int jsonfile_load(const char *path, cJSON **out);
/* Pretty-printed, atomically (atomic_write); 0 or WK_ERR_SYSTEM. */
int jsonfile_save(const char *path, const cJSON *doc);

const char *json_str(const cJSON *obj, const char *key, const char *def);
double json_num(const cJSON *obj, const char *key, double def);
long json_long(const cJSON *obj, const char *key, long def);
int json_bool(const cJSON *obj, const char *key, int def);
/* Replace (or add) key in obj. */
void json_set_str(cJSON *obj, const char *key, const char *val);
void json_set_num(cJSON *obj, const char *key, double val);
void json_set_bool(cJSON *obj, const char *key, int val);
void json_set(cJSON *obj, const char *key, cJSON *val);	/* val transferred */

#endif
