/*
 * test_card.c: the live card's pure parts (core/card.c): what pings, how
 * events fold into the card, the card's words, and the request each
 * receiver gets to post and to edit it (URL, method, body), the message id
 * read back from each receiver's answer, and which events a card sink takes
 * on the box and in patrol (notify_wants_ev).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "events.h"
#include "jsonfile.h"
#include "notify.h"
#include "xmalloc.h"

#define INST	"00112233aabbccdd"

struct fx {
	char			 dir[64];
	struct wk_config	*cfg;
	struct notify_sinks	 sinks;
};

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	struct diag d = DIAG_INIT;
	char *path;
	FILE *fp;

	snprintf(f->dir, sizeof(f->dir), "/tmp/wk-card-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	setenv("WK_T_SLACKBOT", "xoxb-card-test-token", 1);
	setenv("WK_T_TGTOK", "123456:CARDTOKEN", 1);
	path = fs_join(f->dir, "wk.json");
	fp = fopen(path, "w");
	fprintf(fp, "{ \"run\": \"r1\", \"workdir\": \"%s\",\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"true\" } ],\n"
	    "  \"notify\": [\n"
	    "    { \"type\": \"slack\", \"channel\": \"#runs\", \"token_env\": \"WK_T_SLACKBOT\" },\n"
	    "    { \"type\": \"telegram\", \"token_env\": \"WK_T_TGTOK\", \"chat_id\": 77 },\n"
	    "    { \"type\": \"discord\", \"url\": \"https://discord.com/api/webhooks/9/tok?thread_id=5\" },\n"
	    "    { \"type\": \"slack\", \"url\": \"https://hooks.slack.com/services/T/B/secretpath01\" },\n"
	    "    { \"type\": \"telegram\", \"token_env\": \"WK_T_TGTOK\", \"chat_id\": 1, \"card\": false } ] }\n",
	    f->dir);
	fclose(fp);
	if (config_load(path, &f->cfg, &d) != 0) {
		size_t i;

		for (i = 0; i < d.n; i++)
			fprintf(stderr, "%s\n", d.msgs[i]);
		return -1;
	}
	diag_free(&d);
	free(path);
	/* the box's way: this process keeps the cards */
	notify_sinks_load_box(f->cfg, &f->sinks);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	notify_sinks_free(&f->sinks);
	config_free(f->cfg);
	unit_rmrf(f->dir);
	free(f);
	return 0;
}

static cJSON *
ev_of(const char *type, const char *stage, long attempt)
{
	return events_new(INST, "r1", type, stage, attempt);
}

static void
test_capable(void **state)
{
	struct fx *f = *state;

	assert_int_equal(f->sinks.n, 5);
	assert_true(f->sinks.v[0].card);	/* slack with a channel: the Web API */
	assert_true(f->sinks.v[1].card);
	assert_true(f->sinks.v[2].card);
	assert_false(f->sinks.v[3].card);	/* an incoming webhook cannot edit */
	assert_false(f->sinks.v[4].card);	/* "card": false */
	assert_null(f->sinks.v[0].missing);
	assert_string_equal(f->sinks.v[0].url, "https://slack.com/api");
	assert_int_equal(f->sinks.v[0].card_every_s, CARD_EVERY_DEFAULT_S);
}

static void
test_pings(void **state)
{
	static const struct {
		const char	*type;
		const char	*key, *val;	/* a string field, or NULL */
		int		 restarting;	/* -1: not set */
		int		 pings;
	} cases[] = {
		{ "stage_started", NULL, NULL, -1, 0 },
		{ "stage_done", NULL, NULL, -1, 0 },
		{ "stage_failed", NULL, NULL, 1, 0 },
		{ "stage_failed", NULL, NULL, 0, 1 },
		{ "stage_lost", NULL, NULL, 1, 0 },
		{ "stage_lost", NULL, NULL, 0, 1 },
		{ "run_stopped", NULL, NULL, -1, 1 },
		{ "chain_done", NULL, NULL, -1, 1 },
		{ "health_alert", "severity", "degraded", -1, 0 },
		{ "health_alert", "severity", "critical", -1, 1 },
		{ "health_alert", "action", "stop_stage", -1, 1 },
		{ "verdict_changed", "verdict", "OK", -1, 0 },
		{ "verdict_changed", "verdict", "RESUMED", -1, 0 },
		{ "verdict_changed", "verdict", "CRASHED", -1, 1 },
		{ "verdict_changed", "verdict", "HOSTKEY_MISMATCH", -1, 1 },
		{ "verdict_changed", "verdict", "NEEDS_RESUME", -1, 1 },
		{ "verdict_changed", "verdict", "DONE", -1, 1 },
		{ "verdict_changed", "verdict", "MONITOR_STALE", -1, 1 },
		{ "verdict_changed", "verdict", "DEGRADED", -1, 0 },
		{ CARD_EVENT, NULL, NULL, -1, 0 },
		{ "digest", NULL, NULL, -1, 0 },
		{ "test", NULL, NULL, -1, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *ev = ev_of(cases[i].type, "train", 1);

		if (cases[i].key != NULL)
			cJSON_AddStringToObject(ev, cases[i].key, cases[i].val);
		if (cases[i].restarting >= 0)
			cJSON_AddBoolToObject(ev, "restarting", cases[i].restarting);
		if (card_pings(ev) != cases[i].pings)
			fail_msg("case %zu (%s): pings %d, want %d", i, cases[i].type, card_pings(ev),
			    cases[i].pings);
		cJSON_Delete(ev);
	}
}

/* A progress event at cur/max with loss, time t. */
static cJSON *
progress_ev(long cur, long max, double loss, long eta, time_t t)
{
	cJSON *ev = ev_of(CARD_EVENT, "train", 2), *p;

	json_set_num(ev, "time_unix", (double)t);
	p = cJSON_AddObjectToObject(ev, "progress");
	cJSON_AddNumberToObject(p, "cur", (double)cur);
	cJSON_AddNumberToObject(p, "max", (double)max);
	if (eta >= 0)
		cJSON_AddNumberToObject(ev, "eta_s", (double)eta);
	cJSON_AddNumberToObject(ev, "loss", loss);
	return ev;
}

static void
test_fold_and_text(void **state)
{
	cJSON *st = cJSON_CreateObject(), *ev;
	time_t t0 = 1800000000;
	char *text;
	int i;

	(void)state;
	ev = ev_of("stage_started", "train", 1);
	card_fold(st, ev);
	cJSON_Delete(ev);
	assert_string_equal(json_str(st, "status", ""), "RUNNING");
	assert_string_equal(json_str(st, "instance", ""), INST);
	ev = ev_of("stage_failed", "train", 1);
	cJSON_AddBoolToObject(ev, "restarting", 1);
	cJSON_AddStringToObject(ev, "class", "nccl_timeout");
	card_fold(st, ev);
	cJSON_Delete(ev);
	assert_string_equal(json_str(st, "status", ""), "RESTARTING");
	/* the loss ring keeps the last CARD_LOSS_MAX values */
	for (i = 1; i <= CARD_LOSS_MAX + 6; i++) {
		ev = progress_ev(i * 10, 1000, 4.0 / i, 3600, t0);
		card_fold(st, ev);
		cJSON_Delete(ev);
	}
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(st, "loss")), CARD_LOSS_MAX);
	assert_int_equal(json_long(st, "cur", 0), (CARD_LOSS_MAX + 6) * 10);
	/* 15 minutes later: the ETA counts down from the event's time */
	text = card_text(st, t0 + 900);
	assert_non_null(strstr(text, "[r1] RESTARTING \xc2\xb7 train attempt 1\n"));
	assert_non_null(strstr(text, " 30% \xc2\xb7 ~300/1000 \xc2\xb7 ETA 45m"));
	assert_non_null(strstr(text, "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x91"));	/* 6 of 20 full */
	assert_non_null(strstr(text, "\nloss \xe2\x96\x88"));	/* the highest first */
	assert_non_null(strstr(text, "\xe2\x96\x81 0.1333\n"));	/* the lowest last */
	assert_non_null(strstr(text, "\nlast: [r1] train FAILED (nccl_timeout) attempt 1"));
	assert_non_null(strstr(text, "\nupdated 2027-01-15T08:15:00Z"));
	free(text);
	/* past the ETA: none is shown */
	text = card_text(st, t0 + 7200);
	assert_null(strstr(text, "ETA"));
	free(text);
	/* DONE: the bar full */
	ev = ev_of("chain_done", NULL, 0);
	card_fold(st, ev);
	cJSON_Delete(ev);
	text = card_text(st, t0);
	assert_non_null(strstr(text, "[r1] DONE"));
	assert_non_null(strstr(text, " 100% \xc2\xb7 ~1000/1000"));
	free(text);
	/* another instance (a new run in this workdir): a new card */
	json_set_str(st, "message_id", "42");
	ev = events_new("ffffeeeeddddcccc", "r1", "stage_started", "train", 1);
	card_fold(st, ev);
	cJSON_Delete(ev);
	assert_null(json_str(st, "message_id", NULL));
	assert_null(cJSON_GetObjectItem(st, "loss"));
	assert_string_equal(json_str(st, "status", ""), "RUNNING");
	cJSON_Delete(st);
}

static void
test_requests(void **state)
{
	struct fx *f = *state;
	struct notify_request rq;
	cJSON *st = cJSON_CreateObject(), *b;

	/* slack: chat.postMessage with the configured channel and the bot token */
	assert_int_equal(card_request(&f->sinks, &f->sinks.v[0], st, "[r1] RUNNING", 0, &rq), 0);
	assert_string_equal(rq.url, "https://slack.com/api/chat.postMessage");
	assert_null(rq.method);
	assert_string_equal(rq.headers[2], "Authorization: Bearer xoxb-card-test-token");
	b = cJSON_Parse(rq.body);
	assert_string_equal(json_str(b, "channel", ""), "#runs");
	assert_string_equal(json_str(b, "text", ""), "[r1] RUNNING");
	cJSON_Delete(b);
	notify_request_free(&rq);
	/* the answer names the channel's id and the ts: chat.update uses both */
	assert_int_equal(card_take_id(&f->sinks.v[0],
	    "{\"ok\":true,\"channel\":\"C024BE91L\",\"ts\":\"1401383885.000061\"}", st), 0);
	assert_int_equal(card_request(&f->sinks, &f->sinks.v[0], st, "[r1] DONE", 1, &rq), 0);
	assert_string_equal(rq.url, "https://slack.com/api/chat.update");
	b = cJSON_Parse(rq.body);
	assert_string_equal(json_str(b, "channel", ""), "C024BE91L");
	assert_string_equal(json_str(b, "ts", ""), "1401383885.000061");
	assert_string_equal(json_str(b, "text", ""), "[r1] DONE");
	cJSON_Delete(b);
	notify_request_free(&rq);
	assert_int_equal(card_take_id(&f->sinks.v[0], "{\"ok\":false,\"error\":\"not_in_channel\"}", st), -1);
	cJSON_Delete(st);

	/* telegram: sendMessage, then editMessageText with chat_id and message_id */
	st = cJSON_CreateObject();
	assert_int_equal(card_request(&f->sinks, &f->sinks.v[1], st, "x", 1, &rq), WK_ERR_INVALID);
	assert_int_equal(card_request(&f->sinks, &f->sinks.v[1], st, "x", 0, &rq), 0);
	assert_string_equal(rq.url, "https://api.telegram.org/bot123456:CARDTOKEN/sendMessage");
	notify_request_free(&rq);
	assert_int_equal(card_take_id(&f->sinks.v[1],
	    "{\"ok\":true,\"result\":{\"message_id\":4711,\"chat\":{\"id\":77}}}", st), 0);
	assert_string_equal(json_str(st, "message_id", ""), "4711");
	assert_int_equal(card_request(&f->sinks, &f->sinks.v[1], st, "y", 1, &rq), 0);
	assert_string_equal(rq.url, "https://api.telegram.org/bot123456:CARDTOKEN/editMessageText");
	b = cJSON_Parse(rq.body);
	assert_string_equal(json_str(b, "chat_id", ""), "77");
	assert_int_equal(json_long(b, "message_id", 0), 4711);
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(b, "message_id")));
	assert_string_equal(json_str(b, "text", ""), "y");
	cJSON_Delete(b);
	notify_request_free(&rq);
	cJSON_Delete(st);

	/* discord: ?wait=true (after its own query), then PATCH .../messages/<id>?thread_id= */
	st = cJSON_CreateObject();
	assert_int_equal(card_request(&f->sinks, &f->sinks.v[2], st, "z", 0, &rq), 0);
	assert_string_equal(rq.url, "https://discord.com/api/webhooks/9/tok?thread_id=5&wait=true");
	assert_null(rq.method);
	notify_request_free(&rq);
	assert_int_equal(card_take_id(&f->sinks.v[2], "{\"id\":\"1180000000000000001\",\"type\":0}", st), 0);
	assert_int_equal(card_request(&f->sinks, &f->sinks.v[2], st, "w", 1, &rq), 0);
	assert_string_equal(rq.url,
	    "https://discord.com/api/webhooks/9/tok/messages/1180000000000000001?thread_id=5");
	assert_string_equal(rq.method, "PATCH");
	b = cJSON_Parse(rq.body);
	assert_string_equal(json_str(b, "content", ""), "w");
	assert_non_null(cJSON_GetObjectItem(b, "allowed_mentions"));
	cJSON_Delete(b);
	notify_request_free(&rq);
	assert_int_equal(card_take_id(&f->sinks.v[2], "ok", st), -1);
	cJSON_Delete(st);

	/* not a card sink */
	st = cJSON_CreateObject();
	assert_int_equal(card_request(&f->sinks, &f->sinks.v[3], st, "x", 0, &rq), WK_ERR_INVALID);
	cJSON_Delete(st);
}

/* On the box a card sink takes every event and the progress; in patrol only pings. */
static void
test_wants(void **state)
{
	struct fx *f = *state;
	struct notify_sinks patrol;
	cJSON *prog = ev_of(CARD_EVENT, "train", 1), *ok = ev_of("verdict_changed", NULL, 0);
	cJSON *crash = ev_of("verdict_changed", NULL, 0), *digest = ev_of("digest", NULL, 0);
	cJSON *started = ev_of("stage_started", "train", 1);

	cJSON_AddStringToObject(ok, "verdict", "OK");
	cJSON_AddStringToObject(crash, "verdict", "CRASHED");
	assert_true(notify_wants_ev(&f->sinks, &f->sinks.v[1], prog));
	assert_true(notify_wants_ev(&f->sinks, &f->sinks.v[1], started));
	assert_false(notify_wants_ev(&f->sinks, &f->sinks.v[3], prog));	/* no card */
	assert_true(notify_wants_ev(&f->sinks, &f->sinks.v[3], started));
	assert_int_equal(notify_sinks_load(f->cfg, &patrol), 0);
	assert_false(patrol.cards);
	assert_false(notify_wants_ev(&patrol, &patrol.v[1], prog));
	assert_false(notify_wants_ev(&patrol, &patrol.v[1], ok));
	assert_false(notify_wants_ev(&patrol, &patrol.v[1], digest));
	assert_true(notify_wants_ev(&patrol, &patrol.v[1], crash));
	assert_true(notify_wants_ev(&patrol, &patrol.v[3], ok));	/* one message per event */
	assert_true(notify_wants_ev(&patrol, &patrol.v[4], digest));
	notify_sinks_free(&patrol);
	cJSON_Delete(prog);
	cJSON_Delete(ok);
	cJSON_Delete(crash);
	cJSON_Delete(digest);
	cJSON_Delete(started);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_capable, setup, teardown),
		cmocka_unit_test(test_pings),
		cmocka_unit_test(test_fold_and_text),
		cmocka_unit_test_setup_teardown(test_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wants, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
