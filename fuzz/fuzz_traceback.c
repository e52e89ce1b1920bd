/*
 * fuzz_traceback.c: where a failure happened (core/traceback.c) on arbitrary
 * last lines.
 *
 * The input is split at '\n' into lines (as the FAILED marker's last_lines
 * hold them) and read by tb_where_find, then through tb_where_json (a cJSON
 * array of the same lines, a workdir of "/w") and tb_where_text.  A found
 * place must be one of the input's own: its file is a substring of a line,
 * its line number non-negative; the JSON's file is the same or its part
 * after "/w/"; the text starts "at ".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "traceback.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1), *p, *nl, buf[256];
	const char **v = xcalloc(size + 1, sizeof(*v));
	cJSON *arr = cJSON_CreateArray(), *w;
	struct tb_where where;
	size_t n = 0, i;
	int found, inside = 0;

	memcpy(text, data, size);
	text[size] = '\0';
	for (p = text; ; p = nl + 1) {
		v[n++] = p;
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		*nl = '\0';
	}
	found = tb_where_find(v, n, &where);
	if (found) {
		if (where.line < 0 || where.file[0] == '\0')
			abort();
		for (i = 0; i < n && !inside; i++)
			inside = strstr(v[i], where.file) != NULL ||
			    strlen(where.file) == sizeof(where.file) - 1;
		if (!inside)
			abort();
	}
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[i]));
	w = tb_where_json(arr, "/w");
	if ((w != NULL) != found)
		abort();
	if (w != NULL) {
		const char *f = cJSON_GetObjectItem(w, "file")->valuestring;

		if (strcmp(f, where.file) != 0 && !(strncmp(where.file, "/w/", 3) == 0 &&
		    strcmp(f, where.file + 3) == 0))
			abort();
		if (!tb_where_text(w, buf, sizeof(buf)) || strncmp(buf, "at ", 3) != 0)
			abort();
	}
	cJSON_Delete(w);
	cJSON_Delete(arr);
	free(v);
	free(text);
	return 0;
}
