/*
 * test_outbox.c: the durable queue's promises, with command sinks (real
 * processes) as receivers: order per sink, a failing sink stops only itself,
 * backoff, force, the size cap's choice of victims, status without secrets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "notify.h"
#include "outbox.h"
#include "xmalloc.h"

struct fx {
	char			 dir[64];
	char			*outbox;
	struct wk_config	*cfg;
	struct notify_sinks	 sinks;
	struct outbox_opts	 o;
};

/* Two command sinks: "a" appends to a.log when a.ok exists, "b" to b.log when b.ok exists. */
static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	struct diag d = DIAG_INIT;
	char *cfgp;
	FILE *fp;

	snprintf(f->dir, sizeof(f->dir), "/tmp/wk-outbox-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	cfgp = fs_join(f->dir, "wk.json");
	fp = fopen(cfgp, "w");
	fprintf(fp, "{ \"run\": \"r\", \"workdir\": \"%s\",\n"
	    "  \"outbox\": { \"retry_base_ms\": 60000, \"max_pending\": 10, \"timeout_s\": 5 },\n"
	    "  \"notify\": [\n"
	    "    { \"type\": \"command\", \"command\": \"test -e %s/a.ok && cat >> %s/a.log\" },\n"
	    "    { \"type\": \"command\", \"command\": \"test -e %s/b.ok && cat >> %s/b.log\",\n"
	    "      \"events\": [\"stage_done\", \"stage_failed\"] } ],\n"
	    "  \"chain\": [ { \"stage\": \"s\", \"run\": \"true\" } ] }\n",
	    f->dir, f->dir, f->dir, f->dir, f->dir);
	fclose(fp);
	if (config_load(cfgp, &f->cfg, &d) != 0) {
		diag_print(&d, stderr);
		return -1;
	}
	free(cfgp);
	notify_sinks_load(f->cfg, &f->sinks);
	outbox_opts_from_config(f->cfg, &f->o);
	f->outbox = fs_join(f->dir, "outbox");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int r = unit_rmrf(f->dir);

	notify_sinks_free(&f->sinks);
	config_free(f->cfg);
	free(f->outbox);
	free(f);
	return r == 0 ? 0 : -1;
}

static void
touch(struct fx *f, const char *name)
{
	char *p = fs_join(f->dir, name);
	FILE *fp = fopen(p, "w");

	assert_non_null(fp);
	fclose(fp);
	free(p);
}

static void
enqueue(struct fx *f, const char *type, long attempt)
{
	cJSON *ev = events_new("0123456789abcdef", "r", type, "s", attempt);

	assert_true(outbox_enqueue(f->outbox, &f->sinks, ev, &f->o) >= 0);
	cJSON_Delete(ev);
}

static int
count_files(struct fx *f, const char *sink)
{
	char *p = fs_join(f->outbox, sink);
	DIR *dp = opendir(p);
	struct dirent *e;
	int n = 0;

	free(p);
	if (dp == NULL)
		return 0;
	while ((e = readdir(dp)) != NULL)
		n += e->d_name[0] == '0' && strstr(e->d_name, ".json") != NULL;
	closedir(dp);
	return n;
}

/* The "attempt" numbers delivered to a sink, in arrival order, as "1,2,3". */
static char *
delivered(struct fx *f, const char *log)
{
	char *p = fs_join(f->dir, log), *s = NULL, *line, *save = NULL;
	char out[256] = "";
	cJSON *ev;

	if (fs_read_file(p, 1 << 20, &s, NULL) == 0) {
		for (line = strtok_r(s, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
			ev = cJSON_Parse(line);
			assert_non_null(ev);
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%ld",
			    out[0] ? "," : "", json_long(ev, "attempt", 0));
			cJSON_Delete(ev);
		}
	}
	free(s);
	free(p);
	return xstrdup(out);
}

static void
test_in_order_and_filtered(void **state)
{
	struct fx *f = *state;
	struct outbox_result res;
	char *got;

	touch(f, "a.ok");
	touch(f, "b.ok");
	enqueue(f, "stage_started", 1);
	enqueue(f, "stage_done", 2);
	enqueue(f, "stage_failed", 3);
	assert_int_equal(count_files(f, "0-command"), 3);
	assert_int_equal(count_files(f, "1-command"), 2);	/* its filter skips started */
	outbox_flush(f->outbox, &f->sinks, &f->o, 0, 0, &res);
	assert_int_equal(res.delivered, 5);
	assert_int_equal(res.pending, 0);
	got = delivered(f, "a.log");
	assert_string_equal(got, "1,2,3");
	free(got);
	got = delivered(f, "b.log");
	assert_string_equal(got, "2,3");
	free(got);
	assert_int_equal(count_files(f, "0-command"), 0);
}

static void
test_failing_sink_stops_only_itself_and_backs_off(void **state)
{
	struct fx *f = *state;
	struct outbox_result res;
	cJSON *st, *it;
	char *got;
	int64_t due;

	touch(f, "a.ok");	/* b is down */
	enqueue(f, "stage_done", 1);
	enqueue(f, "stage_done", 2);
	outbox_flush(f->outbox, &f->sinks, &f->o, 0, 0, &res);
	assert_int_equal(res.delivered, 2);	/* a got both */
	assert_int_equal(res.failed, 1);	/* b tried its head once, then stopped */
	assert_int_equal(res.pending, 2);
	/* Its retry is in the future (base 60 s, jitter 50..100 %). */
	due = outbox_next_due_ms(f->outbox, &f->sinks);
	assert_true(due > outbox_now_ms() + 25000 && due < outbox_now_ms() + 61000);
	/* Not due: a normal flush does nothing, nothing is reordered. */
	outbox_flush(f->outbox, &f->sinks, &f->o, 0, 0, &res);
	assert_int_equal(res.failed, 0);
	assert_int_equal(res.delivered, 0);
	st = outbox_status(f->outbox, &f->sinks);
	it = cJSON_GetArrayItem(st, 1);
	assert_string_equal(json_str(it, "sink", ""), "1-command");
	assert_int_equal(json_long(it, "pending", 0), 2);
	assert_non_null(json_str(it, "last_error", NULL));
	assert_non_null(json_str(it, "failing_since", NULL));
	cJSON_Delete(st);
	/* The receiver is back: force delivers everything, in order. */
	touch(f, "b.ok");
	outbox_flush(f->outbox, &f->sinks, &f->o, 1, 0, &res);
	assert_int_equal(res.delivered, 2);
	assert_int_equal(res.pending, 0);
	got = delivered(f, "b.log");
	assert_string_equal(got, "1,2");
	free(got);
	assert_int_equal(outbox_next_due_ms(f->outbox, &f->sinks), 0);
	st = outbox_status(f->outbox, &f->sinks);
	assert_null(json_str(cJSON_GetArrayItem(st, 1), "last_error", NULL));
	assert_non_null(json_str(cJSON_GetArrayItem(st, 1), "last_ok", NULL));
	cJSON_Delete(st);
}

static void
test_cap_drops_only_progress_events(void **state)
{
	struct fx *f = *state;
	int i, started = 0, done = 0;
	char *p, **names = NULL;
	DIR *dp;
	struct dirent *e;
	cJSON *doc, *st;

	/* Everything down; max_pending is 10. */
	for (i = 1; i <= 8; i++)
		enqueue(f, "stage_started", i);
	for (i = 1; i <= 12; i++)
		enqueue(f, "stage_done", 100 + i);
	p = fs_join(f->outbox, "0-command");
	dp = opendir(p);
	assert_non_null(dp);
	while ((e = readdir(dp)) != NULL) {
		char *fp;

		if (e->d_name[0] != '0')
			continue;
		fp = fs_join(p, e->d_name);
		assert_int_equal(jsonfile_load(fp, &doc), 0);
		started += strcmp(json_str(cJSON_GetObjectItem(doc, "event"), "event", ""), "stage_started") == 0;
		done += strcmp(json_str(cJSON_GetObjectItem(doc, "event"), "event", ""), "stage_done") == 0;
		cJSON_Delete(doc);
		free(fp);
	}
	closedir(dp);
	free(p);
	free(names);
	/* Every done event kept (the cap is soft for them); started ones made room. */
	assert_int_equal(done, 12);
	assert_int_equal(started, 0);
	st = outbox_status(f->outbox, &f->sinks);
	assert_int_equal(json_long(cJSON_GetArrayItem(st, 0), "dropped", 0), 8);
	cJSON_Delete(st);
}

static void
test_lock_is_exclusive(void **state)
{
	struct fx *f = *state;
	int fd = outbox_lock(f->outbox, 0);

	assert_true(fd >= 0);
	assert_int_equal(outbox_lock(f->outbox, 0), WK_ERR_BUSY);
	assert_int_equal(outbox_lock(f->outbox, 50), WK_ERR_BUSY);
	close(fd);
	fd = outbox_lock(f->outbox, 0);
	assert_true(fd >= 0);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_order_and_filtered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing_sink_stops_only_itself_and_backs_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap_drops_only_progress_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_is_exclusive, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
