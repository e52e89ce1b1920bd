/*
 * test_caveats.c: the caveats of a DONE (core/caveats.h) from fixture
 * histories and events.jsonl lines as onbox writes them: health alerts of
 * degraded/critical severity once per kind per attempt (a kind no table
 * here knows included), restarts with their classes, the chain's window
 * (the first stage's current series, the other stages since it began),
 * the bound, and the file onbox writes and the probe reads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "caveats.h"
#include "config.h"
#include "diag.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "xmalloc.h"

/* A health_alert event line as runner_health_alerts() writes it. */
static void
alert(struct buf *b, const char *stage, long attempt, const char *kind, const char *sev, long step)
{
	buf_printf(b, "{\"id\":\"i.health_alert.%s.%ld.%s.1\",\"time\":\"2026-11-26T10:00:00Z\","
	    "\"run\":\"r\",\"event\":\"health_alert\",\"stage\":\"%s\",\"attempt\":%ld,"
	    "\"alert\":{\"event\":\"%s\",\"severity\":\"%s\",\"seq\":1,\"time\":1795000000,"
	    "\"attempt\":%ld,\"step\":%ld,\"value\":\"nan\",\"text\":\"x\"},"
	    "\"kind\":\"%s\",\"severity\":\"%s\",\"text\":\"x\"}\n",
	    stage, attempt, kind, stage, attempt, kind, sev, attempt, step, kind, sev);
}

/* One attempt of a history: {"attempt", "result", "class"?, "started_unix"}. */
static const char *
att(struct buf *b, long n, const char *result, const char *cls, long started)
{
	buf_printf(b, "%s{\"attempt\":%ld,\"kind\":\"run\",\"result\":\"%s\",\"started_unix\":%ld%s%s%s}",
	    b->len > 0 ? "," : "", n, result, started, cls != NULL ? ",\"class\":\"" : "",
	    cls != NULL ? cls : "", cls != NULL ? "\"" : "");
	return buf_str(b);
}

static cJSON *
hist(const char *attempts)
{
	char *s = xstrfmt("{\"stage\":\"x\",\"attempts\":[%s]}", attempts);
	cJSON *h = cJSON_Parse(s);

	assert_non_null(h);
	free(s);
	return h;
}

static cJSON *
run2(const cJSON *h0, const cJSON *h1, const struct buf *ev, size_t max)
{
	const char *names[2] = { "train", "eval" };
	const cJSON *h[2] = { h0, h1 };

	return caveats_from(names, h, 2, ev->data, ev->len, max);
}

/* The example: NaN at step 15, finished. */
static void
test_nan_then_done(void **state)
{
	struct buf a = BUF_INIT, e = BUF_INIT, ev = BUF_INIT;
	cJSON *h0, *h1, *doc, *c;

	(void)state;
	h0 = hist(att(&a, 1, "done", NULL, 100));
	h1 = hist(att(&e, 1, "done", NULL, 200));
	buf_puts(&ev, "{\"id\":\"s\",\"event\":\"stage_started\",\"stage\":\"train\",\"attempt\":1}\n");
	alert(&ev, "train", 1, "wandb", "info", 0);
	alert(&ev, "train", 1, "nan_loss", "critical", 15);
	doc = run2(h0, h1, &ev, 0);
	assert_string_equal(caveats_text(doc), "nan_loss at step 15 (attempt 1)");
	assert_int_equal(caveats_count(doc), 1);
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "caveats"), 0);
	assert_string_equal(json_str(c, "kind", ""), "nan_loss");
	assert_string_equal(json_str(c, "stage", ""), "train");
	assert_string_equal(json_str(c, "severity", ""), "critical");
	assert_int_equal(json_long(c, "attempt", 0), 1);
	assert_int_equal(json_long(c, "step", 0), 15);
	assert_int_equal(json_long(doc, "more", -1), 0);
	cJSON_Delete(doc);
	cJSON_Delete(h0);
	cJSON_Delete(h1);
	buf_free(&a);
	buf_free(&e);
	buf_free(&ev);
}

/* Nothing went wrong: no items, no text, and an event gets nothing. */
static void
test_clean(void **state)
{
	struct buf a = BUF_INIT, e = BUF_INIT, ev = BUF_INIT;
	cJSON *h0, *h1, *doc, *o;

	(void)state;
	h0 = hist(att(&a, 1, "done", NULL, 100));
	h1 = hist(att(&e, 1, "done", NULL, 200));
	alert(&ev, "train", 1, "loss_recovered", "info", 40);
	alert(&ev, "train", 1, "wandb", "info", -1);
	doc = run2(h0, h1, &ev, 0);
	assert_int_equal(caveats_count(doc), 0);
	assert_null(caveats_text(doc));
	assert_string_equal(json_str(doc, "text", "?"), "");
	o = cJSON_CreateObject();
	caveats_event(o, doc);
	assert_null(o->child);
	cJSON_Delete(o);
	cJSON_Delete(doc);
	/* No history at all, no events: still a document. */
	doc = run2(NULL, NULL, &ev, 0);
	assert_int_equal(caveats_count(doc), 0);
	cJSON_Delete(doc);
	cJSON_Delete(h0);
	cJSON_Delete(h1);
	buf_free(&a);
	buf_free(&e);
	buf_free(&ev);
}

/*
 * Once per kind per attempt; severity decides, not the name (a kind added
 * later, recovery_stalled, is one); no step when the alert had none; the
 * restarts with their classes, in order, once each.
 */
static void
test_alerts_and_restarts(void **state)
{
	struct buf a = BUF_INIT, e = BUF_INIT, ev = BUF_INIT;
	cJSON *h0, *h1, *doc, *c, *o;

	(void)state;
	att(&a, 1, "failed", "killed", 100);
	att(&a, 2, "failed", "preempted", 200);
	att(&a, 3, "failed", "killed", 300);
	h0 = hist(att(&a, 4, "done", NULL, 400));
	h1 = hist(att(&e, 1, "done", NULL, 500));
	alert(&ev, "train", 1, "nan_loss", "critical", 15);
	alert(&ev, "train", 1, "nan_loss", "critical", 16);	/* same kind, same attempt */
	alert(&ev, "train", 2, "loss_spike", "degraded", 230);
	alert(&ev, "train", 2, "loss_recovered", "info", 240);
	alert(&ev, "train", 2, "loss_spike", "degraded", 260);	/* again after recovering */
	alert(&ev, "train", 3, "recovery_stalled", "degraded", -1);
	alert(&ev, "train", 4, "nan_loss", "critical", 15);	/* another attempt: said again */
	alert(&ev, "other", 1, "nan_loss", "critical", 1);	/* not a stage of this chain */
	buf_puts(&ev, "not json \"health_alert\"\n{\"event\":\"health_alert\"}\n\n");
	doc = run2(h0, h1, &ev, 0);
	assert_string_equal(caveats_text(doc), "nan_loss at step 15 (attempt 1), "
	    "loss_spike at step 230 (attempt 2), recovery_stalled (attempt 3), "
	    "nan_loss at step 15 (attempt 4), 3 restarts (killed, preempted)");
	assert_int_equal(caveats_count(doc), 5);
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "caveats"), 2);
	assert_string_equal(json_str(c, "kind", ""), "recovery_stalled");
	assert_null(cJSON_GetObjectItem(c, "step"));
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "caveats"), 4);
	assert_string_equal(json_str(c, "kind", ""), "restart");
	assert_int_equal(json_long(c, "count", 0), 3);
	assert_int_equal(json_long(c, "attempt", 0), 3);	/* the last one restarted */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(c, "classes")), 2);
	/* An event gets the items and the text. */
	o = cJSON_CreateObject();
	caveats_event(o, doc);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "caveats")), 5);
	assert_string_equal(json_str(o, "caveats_text", ""), caveats_text(doc));
	cJSON_Delete(o);
	cJSON_Delete(doc);
	cJSON_Delete(h0);
	cJSON_Delete(h1);
	buf_free(&a);
	buf_free(&e);
	buf_free(&ev);
}

/* A later stage is named; a lost attempt counts; one restart is singular; long class lists are left out. */
static void
test_later_stage_and_classes(void **state)
{
	struct buf a = BUF_INIT, e = BUF_INIT, ev = BUF_INIT;
	cJSON *h0, *h1, *doc;

	(void)state;
	att(&a, 1, "lost", NULL, 100);
	h0 = hist(att(&a, 2, "done", NULL, 200));
	att(&e, 1, "failed", "code_error", 300);
	h1 = hist(att(&e, 2, "done", NULL, 400));
	alert(&ev, "eval", 2, "throughput_drop", "degraded", 7);
	doc = run2(h0, h1, &ev, 0);
	assert_string_equal(caveats_text(doc), "throughput_drop at step 7 (eval attempt 2), "
	    "1 restart (lost), 1 restart of eval (code_error)");
	cJSON_Delete(doc);
	cJSON_Delete(h0);
	buf_reset(&a);
	att(&a, 1, "failed", "a_very_long_class_name_number_one", 100);
	att(&a, 2, "failed", "a_very_long_class_name_number_two", 150);
	h0 = hist(att(&a, 3, "done", NULL, 200));
	buf_reset(&ev);
	doc = run2(h0, h1, &ev, 0);
	assert_string_equal(caveats_text(doc), "2 restarts, 1 restart of eval (code_error)");
	/* ...the JSON still names them. */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(doc, "caveats"), 0), "classes")), 2);
	cJSON_Delete(doc);
	cJSON_Delete(h0);
	cJSON_Delete(h1);
	buf_free(&a);
	buf_free(&e);
	buf_free(&ev);
}

/*
 * The chain as it last ran: the first stage's attempts after its previous
 * "done" one, the other stages' attempts since then.  What an earlier run of
 * the chain went through is not this DONE's caveat.
 */
static void
test_window(void **state)
{
	struct buf a = BUF_INIT, e = BUF_INIT, ev = BUF_INIT;
	cJSON *h0, *h1, *doc;

	(void)state;
	att(&a, 1, "failed", "killed", 100);
	att(&a, 2, "done", NULL, 200);		/* the earlier chain ended here */
	att(&a, 3, "failed", "preempted", 1000);
	h0 = hist(att(&a, 4, "done", NULL, 1100));
	att(&e, 1, "failed", "code_error", 300);
	att(&e, 2, "done", NULL, 400);
	h1 = hist(att(&e, 3, "done", NULL, 1200));
	alert(&ev, "train", 1, "nan_loss", "critical", 5);	/* earlier chain */
	alert(&ev, "train", 2, "loss_spike", "degraded", 50);	/* earlier chain */
	alert(&ev, "eval", 2, "loss_spike", "degraded", 3);	/* earlier chain */
	alert(&ev, "train", 4, "loss_spike", "degraded", 90);
	alert(&ev, "eval", 3, "nan_loss", "critical", 2);
	doc = run2(h0, h1, &ev, 0);
	assert_string_equal(caveats_text(doc), "loss_spike at step 90 (attempt 4), "
	    "nan_loss at step 2 (eval attempt 3), 1 restart (preempted)");
	cJSON_Delete(doc);
	cJSON_Delete(h0);
	cJSON_Delete(h1);
	buf_free(&a);
	buf_free(&e);
	buf_free(&ev);
}

/* At most max items: restarts kept first, then the oldest alerts; "and K more". */
static void
test_bound(void **state)
{
	struct buf a = BUF_INIT, e = BUF_INIT, ev = BUF_INIT;
	cJSON *h0, *h1, *doc;
	long i;

	(void)state;
	for (i = 1; i <= 5; i++)
		att(&a, i, "failed", "killed", 100 * i);
	h0 = hist(att(&a, 6, "done", NULL, 700));
	att(&e, 1, "failed", "code_error", 800);
	h1 = hist(att(&e, 2, "done", NULL, 900));
	for (i = 1; i <= 6; i++)
		alert(&ev, "train", i, "loss_spike", "degraded", 10 * i);
	doc = run2(h0, h1, &ev, 4);
	assert_string_equal(caveats_text(doc), "loss_spike at step 10 (attempt 1), "
	    "loss_spike at step 20 (attempt 2), 5 restarts (killed), 1 restart of eval (code_error), "
	    "and 4 more");
	assert_int_equal(caveats_count(doc), 4);
	assert_int_equal(json_long(doc, "more", 0), 4);
	cJSON_Delete(doc);
	/* The default bound. */
	buf_reset(&ev);
	for (i = 1; i <= 6; i++) {
		alert(&ev, "train", i, "loss_spike", "degraded", 10 * i);
		alert(&ev, "train", i, "throughput_drop", "degraded", 10 * i);
	}
	doc = run2(h0, h1, &ev, 0);
	assert_int_equal(caveats_count(doc), CAVEATS_MAX);
	assert_int_equal(json_long(doc, "more", 0), 12 + 2 - CAVEATS_MAX);
	assert_non_null(strstr(caveats_text(doc), ", and 6 more"));
	cJSON_Delete(doc);
	cJSON_Delete(h0);
	cJSON_Delete(h1);
	buf_free(&a);
	buf_free(&e);
	buf_free(&ev);
}

/* Names from the box are cut to a safe alphabet: no quote, newline or markup reaches a line. */
static void
test_hostile_names(void **state)
{
	struct buf a = BUF_INIT, e = BUF_INIT, ev = BUF_INIT;
	cJSON *h0, *h1, *doc;

	(void)state;
	h0 = hist(att(&a, 1, "done", NULL, 100));
	h1 = hist(att(&e, 1, "done", NULL, 200));
	buf_puts(&ev, "{\"event\":\"health_alert\",\"stage\":\"train\",\"attempt\":1,\"kind\":\"bad\\n`x`<b>\","
	    "\"severity\":\"critical\",\"alert\":{\"step\":3}}\n");
	buf_puts(&ev, "{\"event\":\"health_alert\",\"stage\":\"train\",\"attempt\":1,\"kind\":\"!!!\","
	    "\"severity\":\"critical\",\"alert\":{\"step\":3}}\n");
	doc = run2(h0, h1, &ev, 0);
	assert_string_equal(caveats_text(doc), "badxb at step 3 (attempt 1)");
	cJSON_Delete(doc);
	cJSON_Delete(h0);
	cJSON_Delete(h1);
	buf_free(&a);
	buf_free(&e);
	buf_free(&ev);
}

/* caveats_build from a workdir, caveats_save / caveats_load / caveats_clear. */
static void
test_workdir(void **state)
{
	char dir[] = "/tmp/wk-caveats-XXXXXX", *p;
	struct wk_config *cfg = NULL;
	struct diag d = DIAG_INIT;
	struct buf ev = BUF_INIT;
	cJSON *doc, *back;

	(void)state;
	assert_non_null(mkdtemp(dir));
	p = xstrfmt("%s/wk.json", dir);
	{
		char *text = xstrfmt("{ \"run\": \"r\", \"workdir\": \"%s/work\", \"detach\": \"nohup\",\n"
		    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"x\", \"marker\": \"TRAIN_DONE\" },\n"
		    "              { \"stage\": \"eval\", \"run\": \"y\", \"marker\": \"EVAL_DONE\" } ] }\n", dir);

		unit_put(p, text);
		free(text);
	}
	if (config_load(p, &cfg, &d) != 0) {
		diag_print(&d, stderr);
		fail_msg("config");
	}
	free(p);
	p = xstrfmt("%s/work/.watchkeeper/stages/train.json", dir);
	unit_put(p, "{\"stage\": \"train\", \"attempts\": [{\"attempt\": 1, \"result\": \"failed\", "
	    "\"class\": \"killed\", \"started_unix\": 100}, {\"attempt\": 2, \"result\": \"done\", "
	    "\"started_unix\": 200}]}");
	free(p);
	p = xstrfmt("%s/work/.watchkeeper/stages/eval.json", dir);
	unit_put(p, "{\"stage\": \"eval\", \"attempts\": [{\"attempt\": 1, \"result\": \"done\", "
	    "\"started_unix\": 300}]}");
	free(p);
	buf_puts(&ev, "{\"id\":\"a\",\"event\":\"stage_started\",\"stage\":\"train\",\"attempt\":1}\n");
	alert(&ev, "train", 1, "nan_loss", "critical", 15);
	buf_puts(&ev, "{\"id\":\"b\",\"event\":\"stage_done\",\"stage\":\"train\",\"attempt\":2}");	/* no '\n' */
	p = xstrfmt("%s/work/.watchkeeper/events.jsonl", dir);
	unit_put(p, ev.data);
	free(p);

	doc = caveats_build(cfg);
	assert_string_equal(caveats_text(doc), "nan_loss at step 15 (attempt 1), 1 restart (killed)");
	assert_null(caveats_load(cfg->workdir));
	assert_int_equal(caveats_save(cfg->workdir, doc), 0);
	back = caveats_load(cfg->workdir);
	assert_non_null(back);
	assert_string_equal(caveats_text(back), caveats_text(doc));
	/* Compact and within what the probe reads. */
	p = xstrfmt("%s/work/.watchkeeper/" CAVEATS_FILE, dir);
	{
		char *s = cJSON_PrintUnformatted(back);

		assert_true(strlen(s) < CAVEATS_FILE_MAX);
		free(s);
	}
	caveats_clear(cfg->workdir);
	assert_false(fs_exists(p));
	assert_null(caveats_load(cfg->workdir));
	caveats_clear(cfg->workdir);	/* twice: fine */
	free(p);
	cJSON_Delete(back);
	cJSON_Delete(doc);
	config_free(cfg);
	diag_free(&d);
	buf_free(&ev);
	assert_int_equal(unit_rmrf(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nan_then_done),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_alerts_and_restarts),
		cmocka_unit_test(test_later_stage_and_classes),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_workdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
