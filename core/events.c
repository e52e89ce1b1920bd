/*
 * events.c: event objects and events.jsonl (see events.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "layout.h"
#include "monotime.h"
#include "xmalloc.h"

cJSON *
events_new(const char *instance, const char *run, const char *type, const char *stage,
    long attempt)
{
	cJSON *ev = cJSON_CreateObject();
	char when[TIMEFMT_LEN], *id;
	time_t now = time(NULL);

	if (ev == NULL)
		abort();
	if (stage != NULL)
		id = xstrfmt("%s.%s.%s.%ld", instance, type, stage, attempt);
	else
		id = xstrfmt("%s.%s", instance, type);
	timefmt_utc(now, when, sizeof(when));
	cJSON_AddStringToObject(ev, "id", id);
	cJSON_AddStringToObject(ev, "time", when);
	cJSON_AddNumberToObject(ev, "time_unix", (double)now);
	cJSON_AddStringToObject(ev, "run", run);
	cJSON_AddStringToObject(ev, "event", type);
	if (stage != NULL) {
		cJSON_AddStringToObject(ev, "stage", stage);
		cJSON_AddNumberToObject(ev, "attempt", (double)attempt);
	}
	free(id);
	return ev;
}

int
events_append(const char *workdir, const cJSON *ev)
{
	char *line, *path;
	struct buf b = BUF_INIT;
	int r;

	if ((line = cJSON_PrintUnformatted(ev)) == NULL)
		abort();
	buf_puts(&b, line);
	buf_putc(&b, '\n');
	path = layout_path(workdir, EVENTS_FILE);
	r = append_record(path, b.data, b.len);
	free(path);
	free(line);
	buf_free(&b);
	return r;
}

int
events_instance(const char *workdir, char *out)
{
	char *path = layout_path(workdir, "instance"), *s = NULL;
	size_t n = 0;
	int r = 0;

	if (fs_read_file(path, 64, &s, &n) == 0 && n >= 16) {
		memcpy(out, s, 16);
		out[16] = '\0';
		goto out;
	}
	fs_random_hex(out, 8);
	r = atomic_write_str(path, out);
 out:
	free(s);
	free(path);
	return r;
}
