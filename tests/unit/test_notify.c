/*
 * test_notify.c: notification sinks: loading them from a config (secrets
 * from the environment, filters, ids), the request each receiver gets, the
 * one-line message, the results summary, judging answers, scrubbing, and real
 * deliveries: command sinks through sh, HTTP through libcurl against a tiny
 * one-shot receiver on 127.0.0.1.  Every test writes into its own mkdtemp()
 * directory, removed afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>

#include "config.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "monotime.h"
#include "notify.h"
#include "xmalloc.h"

#define SLACK_URL	"https://hooks.slack.com/services/T0001/B0002/SlackSecretXYZ123"
#define TG_TOKEN	"123456:ABC-telegram-secret-token"
#define NTFY_URL	"https://ntfy.example.org/topic-secret-42"

struct fx {
	char	 dir[PATH_MAX];
	struct wk_config *cfg;
	struct notify_sinks sinks;
};

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/wk-notify-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	setenv("WK_T_SLACK", SLACK_URL, 1);
	setenv("WK_T_TG", TG_TOKEN, 1);
	unsetenv("WK_T_UNSET");
	setenv("WK_T_EMPTY", "", 1);
	/* The round trips go to 127.0.0.1 directly. */
	unsetenv("http_proxy");
	unsetenv("HTTP_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	notify_sinks_free(&f->sinks);
	config_free(f->cfg);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* Load a config whose notify[] is notify (JSON) and extra top-level keys, then the sinks. */
static void
load(struct fx *f, const char *notify, const char *extra)
{
	char *path = fs_join(f->dir, "wk.json");
	struct diag d = DIAG_INIT;
	FILE *fp;
	size_t i;

	notify_sinks_free(&f->sinks);
	config_free(f->cfg);
	f->cfg = NULL;
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "{ \"run\": \"llama-ft-1\", \"workdir\": \"%s\",\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"true\" } ],\n"
	    "  %s%s\"notify\": %s }\n", f->dir, extra != NULL ? extra : "",
	    extra != NULL ? ",\n  " : "", notify);
	fclose(fp);
	if (config_load(path, &f->cfg, &d) != 0) {
		for (i = 0; i < d.n; i++)
			fprintf(stderr, "%s\n", d.msgs[i]);
		fail_msg("config did not load");
	}
	diag_free(&d);
	free(path);
	assert_int_equal(notify_sinks_load(f->cfg, &f->sinks), 0);
}

static int
has_secret(const struct notify_sinks *s, const char *v)
{
	size_t i;

	for (i = 0; i < s->nsecrets; i++)
		if (strcmp(s->secrets[i], v) == 0)
			return 1;
	return 0;
}

static cJSON *
event(const char *json)
{
	cJSON *ev = cJSON_Parse(json);

	assert_non_null(ev);
	return ev;
}

static const char *
header(const struct notify_request *r, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < r->nheaders; i++)
		if (strncmp(r->headers[i], name, n) == 0 && r->headers[i][n] == ':')
			return r->headers[i] + n + 2;
	return NULL;
}

/* 1 when s is well-formed UTF-8. */
static int
utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int k;

	while (*p != '\0') {
		k = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 :
		    (*p & 0xf8) == 0xf0 ? 3 : -1;
		if (k < 0)
			return 0;
		for (p++; k > 0; k--, p++)
			if ((*p & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

static int
ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && strcmp(s + a - b, tail) == 0;
}

/* ---- loading ---- */

static void
test_load(void **state)
{
	struct fx *f = *state;
	const struct notify_sink *v;
	size_t i;

	load(f, "[ { \"type\": \"slack\", \"url_env\": \"WK_T_SLACK\",\n"
	    "    \"events\": [ \"stage_failed\", \"chain_done\" ] },\n"
	    "  { \"type\": \"telegram\", \"token_env\": \"WK_T_TG\", \"chat_id\": -1001234567890 },\n"
	    "  { \"type\": \"ntfy\", \"url\": \"" NTFY_URL "\", \"token_env\": \"WK_T_UNSET\" },\n"
	    "  { \"type\": \"command\", \"command\": \"cat >/dev/null\", \"events\": [] },\n"
	    "  { \"type\": \"discord\", \"url_env\": \"WK_T_UNSET\" },\n"
	    "  { \"type\": \"wecom\", \"url_env\": \"WK_T_EMPTY\" },\n"
	    "  { \"type\": \"generic\", \"url_env\": \"" SLACK_URL "\" },\n"
	    "  { \"type\": \"telegram\", \"token\": \"tok-in-config-1\", \"chat_id\": \"@chan\",\n"
	    "    \"url\": \"http://127.0.0.1:9/\" } ]", NULL);
	/* Everything kept must outlive the config. */
	config_free(f->cfg);
	f->cfg = NULL;

	assert_int_equal(f->sinks.n, 8);
	assert_int_equal(f->sinks.connect_timeout_s, 5);
	assert_int_equal(f->sinks.timeout_s, 15);
	assert_string_equal(f->sinks.v[0].id, "0-slack");
	assert_string_equal(f->sinks.v[1].id, "1-telegram");
	assert_string_equal(f->sinks.v[3].id, "3-command");
	assert_string_equal(f->sinks.v[6].id, "6-generic");
	for (i = 0; i < f->sinks.n; i++)
		assert_int_equal(f->sinks.v[i].index, (int)i);

	v = &f->sinks.v[0];
	assert_string_equal(v->type, "slack");
	assert_string_equal(v->url, SLACK_URL);
	assert_null(v->missing);
	assert_int_equal(v->nevents, 2);
	assert_true(notify_wants(v, "stage_failed"));
	assert_true(notify_wants(v, "chain_done"));
	assert_false(notify_wants(v, "stage_started"));
	assert_true(notify_wants(v, "test"));
	assert_true(has_secret(&f->sinks, SLACK_URL));

	v = &f->sinks.v[1];
	assert_null(v->missing);
	assert_string_equal(v->url, "https://api.telegram.org");
	assert_string_equal(v->token, TG_TOKEN);
	assert_string_equal(v->chat_id, "-1001234567890");
	assert_true(notify_wants(v, "stage_started"));
	assert_true(has_secret(&f->sinks, TG_TOKEN));
	assert_true(has_secret(&f->sinks, "https://api.telegram.org/bot" TG_TOKEN "/sendMessage"));

	v = &f->sinks.v[2];
	assert_string_equal(v->url, NTFY_URL);
	assert_string_equal(v->missing, "environment variable WK_T_UNSET is not set");
	assert_true(has_secret(&f->sinks, NTFY_URL));

	v = &f->sinks.v[3];
	assert_string_equal(v->command, "cat >/dev/null");
	assert_null(v->url);
	assert_null(v->missing);
	assert_false(notify_wants(v, "stage_done"));	/* an empty filter takes nothing */
	assert_true(notify_wants(v, "test"));

	assert_string_equal(f->sinks.v[4].missing, "environment variable WK_T_UNSET is not set");
	assert_null(f->sinks.v[4].url);
	assert_string_equal(f->sinks.v[5].missing, "environment variable WK_T_EMPTY is empty");
	/* A URL pasted into url_env is never echoed. */
	assert_non_null(f->sinks.v[6].missing);
	assert_null(strstr(f->sinks.v[6].missing, "hooks.slack.com"));
	assert_null(strstr(f->sinks.v[6].missing, "SlackSecret"));
	assert_non_null(strstr(f->sinks.v[6].missing, "url_env"));

	v = &f->sinks.v[7];
	assert_string_equal(v->token, "tok-in-config-1");
	assert_string_equal(v->chat_id, "@chan");
	assert_string_equal(v->url, "http://127.0.0.1:9/");
	assert_true(has_secret(&f->sinks, "tok-in-config-1"));
	assert_true(has_secret(&f->sinks, "http://127.0.0.1:9/bottok-in-config-1/sendMessage"));

	/* No missing message carries a secret. */
	for (i = 0; i < f->sinks.n; i++) {
		char *s;

		if (f->sinks.v[i].missing == NULL)
			continue;
		s = notify_scrub(&f->sinks, f->sinks.v[i].missing);
		assert_string_equal(s, f->sinks.v[i].missing);
		free(s);
	}
}

static void
test_load_none_and_timeouts(void **state)
{
	struct fx *f = *state;

	load(f, "[]", "\"outbox\": { \"connect_timeout_s\": 3, \"timeout_s\": 7 }");
	assert_int_equal(f->sinks.n, 0);
	assert_int_equal(f->sinks.nsecrets, 0);
	assert_int_equal(f->sinks.connect_timeout_s, 3);
	assert_int_equal(f->sinks.timeout_s, 7);
}

/* ---- requests ---- */

static const char *failed_ev =
    "{ \"id\": \"0123456789abcdef.stage_failed.train.2\", \"time\": \"2026-01-01T00:00:00Z\",\n"
    "  \"time_unix\": 1767225600, \"run\": \"llama-ft-1\", \"event\": \"stage_failed\",\n"
    "  \"stage\": \"train\", \"attempt\": 2, \"class\": \"cuda_oom\", \"exit_code\": 1,\n"
    "  \"evidence\": \"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.\",\n"
    "  \"last_lines\": [ \"step 10/100\", \"Traceback (most recent call last):\" ] }";

static const char *failed_text = "[llama-ft-1] train FAILED (cuda_oom) attempt 2 \xc2\xb7 last: "
    "torch.OutOfMemoryError: CUDA out of memory \xe2\x80\xa6";

static const char *done_ev =
    "{ \"id\": \"0123456789abcdef.stage_done.eval.1\", \"run\": \"llama-ft-1\",\n"
    "  \"event\": \"stage_done\", \"stage\": \"eval\", \"attempt\": 1,\n"
    "  \"progress\": \"~5155/5155\", \"duration_s\": 11520,\n"
    "  \"results\": \"metric,value\\nacc,0.812\\nf1,0.790\\n\",\n"
    "  \"results_file\": \"results/metrics.csv\" }";

static const char *done_text = "[llama-ft-1] eval DONE \xc2\xb7 ~5155/5155 \xc2\xb7 results: "
    "acc=0.812 f1=0.790 \xc2\xb7 3h12m";

static const struct notify_sink *
sink_of(const struct fx *f, const char *type)
{
	size_t i;

	for (i = 0; i < f->sinks.n; i++)
		if (strcmp(f->sinks.v[i].type, type) == 0)
			return &f->sinks.v[i];
	fail_msg("no sink %s", type);
	return NULL;
}

static void
load_all_types(struct fx *f)
{
	load(f, "[ { \"type\": \"generic\", \"url\": \"https://example.org/hook/generic-secret-1\" },\n"
	    "  { \"type\": \"slack\", \"url_env\": \"WK_T_SLACK\" },\n"
	    "  { \"type\": \"discord\", \"url\": \"https://discord.com/api/webhooks/1/dsecret\" },\n"
	    "  { \"type\": \"telegram\", \"token_env\": \"WK_T_TG\", \"chat_id\": 42 },\n"
	    "  { \"type\": \"ntfy\", \"url\": \"" NTFY_URL "\", \"token\": \"tk_ntfy_secret\" },\n"
	    "  { \"type\": \"feishu\", \"url\": \"https://open.feishu.cn/open-apis/bot/v2/hook/fs1\" },\n"
	    "  { \"type\": \"lark\", \"url\": \"https://open.larksuite.com/open-apis/bot/v2/hook/lk1\" },\n"
	    "  { \"type\": \"dingtalk\", \"url\": \"https://oapi.dingtalk.com/robot/send?access_token=dt1\" },\n"
	    "  { \"type\": \"wecom\", \"url\": \"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=wc1\" },\n"
	    "  { \"type\": \"command\", \"command\": \"cat\" },\n"
	    "  { \"type\": \"slack\", \"url_env\": \"WK_T_UNSET\" } ]", NULL);
}

static void
check_common_headers(const struct notify_request *r, const char *ctype, const char *id)
{
	assert_non_null(header(r, "Content-Type"));
	assert_string_equal(header(r, "Content-Type"), ctype);
	assert_non_null(header(r, "User-Agent"));
	assert_true(strncmp(header(r, "User-Agent"), "watchkeeper/", 12) == 0);
	assert_non_null(header(r, "X-Watchkeeper-Event-Id"));
	assert_string_equal(header(r, "X-Watchkeeper-Event-Id"), id);
}

static void
test_request_shapes(void **state)
{
	struct fx *f = *state;
	struct notify_request r;
	cJSON *ev = event(failed_ev), *done = event(done_ev), *body, *parsed;
	const char *id = "0123456789abcdef.stage_failed.train.2";

	load_all_types(f);

	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "generic"), ev, &r), 0);
	assert_string_equal(r.url, "https://example.org/hook/generic-secret-1");
	check_common_headers(&r, "application/json", id);
	assert_int_equal(r.body_len, strlen(r.body));
	parsed = cJSON_Parse(r.body);
	assert_true(cJSON_Compare(parsed, ev, 1));	/* every field */
	cJSON_Delete(parsed);
	notify_request_free(&r);

	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "slack"), ev, &r), 0);
	assert_string_equal(r.url, SLACK_URL);
	check_common_headers(&r, "application/json", id);
	body = cJSON_Parse(r.body);
	assert_string_equal(json_str(body, "text", ""), failed_text);
	cJSON_Delete(body);
	notify_request_free(&r);

	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "discord"), ev, &r), 0);
	check_common_headers(&r, "application/json", id);
	body = cJSON_Parse(r.body);
	assert_string_equal(json_str(body, "content", ""), failed_text);
	assert_non_null(cJSON_GetObjectItem(body, "allowed_mentions"));
	cJSON_Delete(body);
	notify_request_free(&r);

	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "telegram"), ev, &r), 0);
	assert_string_equal(r.url, "https://api.telegram.org/bot" TG_TOKEN "/sendMessage");
	assert_true(has_secret(&f->sinks, r.url));
	check_common_headers(&r, "application/json", id);
	body = cJSON_Parse(r.body);
	assert_string_equal(json_str(body, "chat_id", ""), "42");
	assert_string_equal(json_str(body, "text", ""), failed_text);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(body, "disable_web_page_preview")));
	cJSON_Delete(body);
	{
		char *s = notify_scrub(&f->sinks, r.url);

		assert_string_equal(s, "***");
		free(s);
	}
	notify_request_free(&r);

	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "ntfy"), ev, &r), 0);
	assert_string_equal(r.url, NTFY_URL);
	check_common_headers(&r, "text/plain; charset=utf-8", id);
	assert_string_equal(r.body, failed_text);
	assert_string_equal(header(&r, "Title"), "llama-ft-1 train FAILED");
	assert_string_equal(header(&r, "Priority"), "high");
	assert_string_equal(header(&r, "Tags"), "warning");
	assert_string_equal(header(&r, "Authorization"), "Bearer tk_ntfy_secret");
	notify_request_free(&r);
	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "ntfy"), done, &r), 0);
	assert_string_equal(header(&r, "Title"), "llama-ft-1 eval DONE");
	assert_null(header(&r, "Priority"));
	assert_string_equal(header(&r, "Tags"), "white_check_mark");
	assert_string_equal(r.body, done_text);
	notify_request_free(&r);

	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "feishu"), ev, &r), 0);
	check_common_headers(&r, "application/json", id);
	body = cJSON_Parse(r.body);
	assert_string_equal(json_str(body, "msg_type", ""), "text");
	assert_string_equal(json_str(cJSON_GetObjectItem(body, "content"), "text", ""), failed_text);
	cJSON_Delete(body);
	notify_request_free(&r);
	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "lark"), ev, &r), 0);
	body = cJSON_Parse(r.body);
	assert_string_equal(json_str(cJSON_GetObjectItem(body, "content"), "text", ""), failed_text);
	cJSON_Delete(body);
	notify_request_free(&r);

	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "dingtalk"), ev, &r), 0);
	assert_string_equal(r.url, "https://oapi.dingtalk.com/robot/send?access_token=dt1");
	body = cJSON_Parse(r.body);
	assert_string_equal(json_str(body, "msgtype", ""), "text");
	assert_string_equal(json_str(cJSON_GetObjectItem(body, "text"), "content", ""), failed_text);
	cJSON_Delete(body);
	notify_request_free(&r);
	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "wecom"), ev, &r), 0);
	body = cJSON_Parse(r.body);
	assert_string_equal(json_str(body, "msgtype", ""), "text");
	assert_string_equal(json_str(cJSON_GetObjectItem(body, "text"), "content", ""), failed_text);
	cJSON_Delete(body);
	notify_request_free(&r);

	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "command"), ev, &r), 0);
	assert_null(r.url);
	assert_int_equal(r.nheaders, 0);
	assert_true(ends_with(r.body, "}\n"));
	assert_null(strchr(r.body, '\n') == r.body + r.body_len - 1 ? NULL : "more than one line");
	parsed = cJSON_Parse(r.body);
	assert_true(cJSON_Compare(parsed, ev, 1));
	cJSON_Delete(parsed);
	notify_request_free(&r);

	/* A sink without its secret builds nothing. */
	assert_int_equal(notify_request_build(&f->sinks, &f->sinks.v[10], ev, &r), WK_ERR_INVALID);
	assert_null(r.url);
	assert_null(r.body);

	cJSON_Delete(ev);
	cJSON_Delete(done);
}

static void
test_request_hostile(void **state)
{
	struct fx *f = *state;
	struct notify_request r;
	cJSON *ev;
	size_t i;

	load_all_types(f);
	/* Header injection through the id, secrets and markup in the text. */
	ev = event("{ \"id\": \"abc\\r\\nX-Evil: 1\", \"run\": \"r\\u00e9n\", \"event\": \"digest\","
	    " \"stage\": \"tr\\nain\", \"message\": \"see " SLACK_URL " & <@here>\" }");
	for (i = 0; i < f->sinks.n - 1; i++) {
		const struct notify_sink *s = &f->sinks.v[i];

		assert_int_equal(notify_request_build(&f->sinks, s, ev, &r), 0);
		assert_null(strstr(r.body, "SlackSecret"));
		if (r.url != NULL) {
			size_t h;

			for (h = 0; h < r.nheaders; h++) {
				assert_null(strchr(r.headers[h], '\r'));
				assert_null(strchr(r.headers[h], '\n'));
			}
			assert_string_equal(header(&r, "X-Watchkeeper-Event-Id"), "abcX-Evil: 1");
			assert_null(header(&r, "X-Evil"));
		}
		if (strcmp(s->type, "ntfy") == 0) {
			const char *t = header(&r, "Title");
			size_t k;

			for (k = 0; t[k] != '\0'; k++)
				assert_true((unsigned char)t[k] >= 0x20 && (unsigned char)t[k] < 0x7f);
		}
		if (strcmp(s->type, "slack") == 0) {
			cJSON *b = cJSON_Parse(r.body);

			assert_non_null(strstr(json_str(b, "text", ""), "&amp; &lt;@here&gt;"));
			cJSON_Delete(b);
		}
		notify_request_free(&r);
	}
	cJSON_Delete(ev);
}

static void
test_cut_discord(void **state)
{
	struct fx *f = *state;
	struct notify_request r;
	char *c, *msg, *big;
	cJSON *ev, *body;
	size_t i;

	/* 3000 bytes of 2-byte characters, with a 1-byte offset so 2000 falls mid-character. */
	big = xmalloc(3002);
	big[0] = 'x';
	for (i = 0; i < 1500; i++)
		memcpy(big + 1 + 2 * i, "\xc3\xa9", 2);
	big[3001] = '\0';
	c = notify_cut(big, 2000);
	assert_true(strlen(c) <= 2000);
	assert_true(strlen(c) >= 1995);
	assert_true(utf8_ok(c));
	assert_true(ends_with(c, "\xe2\x80\xa6"));
	free(c);
	/* 3-byte characters. */
	for (i = 0; i < 1000; i++)
		memcpy(big + 3 * i, "\xe2\x82\xac", 3);
	big[3000] = '\0';
	for (i = 1990; i <= 2003; i++) {
		c = notify_cut(big, i);
		assert_true(strlen(c) <= i);
		assert_true(utf8_ok(c));
		free(c);
	}
	c = notify_cut("short", 2000);
	assert_string_equal(c, "short");
	free(c);
	c = notify_cut("exactly10!", 10);
	assert_string_equal(c, "exactly10!");
	free(c);
	free(big);

	/* The discord body of a long message: within Discord's cap, valid UTF-8. */
	load_all_types(f);
	msg = xmalloc(6001);
	for (i = 0; i < 2000; i++)
		memcpy(msg + 3 * i, "\xe2\x82\xac", 3);
	msg[6000] = '\0';
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "id", "x.digest");
	cJSON_AddStringToObject(ev, "run", "r");
	cJSON_AddStringToObject(ev, "event", "digest");
	cJSON_AddStringToObject(ev, "message", msg);
	assert_int_equal(notify_request_build(&f->sinks, sink_of(f, "discord"), ev, &r), 0);
	body = cJSON_Parse(r.body);
	assert_true(strlen(json_str(body, "content", "")) <= 2000);
	assert_true(utf8_ok(json_str(body, "content", "")));
	assert_true(ends_with(json_str(body, "content", ""), "\xe2\x80\xa6"));
	cJSON_Delete(body);
	notify_request_free(&r);
	cJSON_Delete(ev);
	free(msg);
}

/* ---- text ---- */

static void
expect_text(const char *json, const char *want)
{
	cJSON *ev = event(json);
	char *t = notify_text(ev);

	assert_string_equal(t, want);
	cJSON_Delete(ev);
	free(t);
}

static void
test_text(void **state)
{
	(void)state;
	expect_text(done_ev, done_text);
	expect_text(failed_ev, failed_text);
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"stage_failed\", \"stage\": \"train\","
	    " \"attempt\": 1, \"class\": \"nccl\", \"last_lines\": [ \"a\", \"RuntimeError: boom\","
	    " \"  \" ] }",
	    "[llama-ft-1] train FAILED (nccl) attempt 1 \xc2\xb7 last: RuntimeError: boom");
	expect_text("{ \"run\": \"r\", \"event\": \"stage_failed\", \"stage\": \"train\","
	    " \"attempt\": 1, \"exit_code\": 3 }", "[r] train FAILED (exit 3) attempt 1");
	/* where the traceback failed (core/traceback.c), basename:line beside the evidence */
	expect_text("{ \"run\": \"r\", \"event\": \"stage_failed\", \"stage\": \"train\","
	    " \"attempt\": 1, \"class\": \"code_error\", \"evidence\": \"KeyError: 'warmup_steps'\","
	    " \"where\": { \"file\": \"src/train.py\", \"line\": 62, \"function\": \"lr_at\" } }",
	    "[r] train FAILED (code_error) attempt 1 \xc2\xb7 last: KeyError: 'warmup_steps'"
	    " at train.py:62 in lr_at");
	expect_text("{ \"run\": \"r\", \"event\": \"stage_failed\", \"stage\": \"train\","
	    " \"where\": { \"file\": \"kernel_check.cu\", \"line\": 14 } }",
	    "[r] train FAILED \xc2\xb7 at kernel_check.cu:14");
	expect_text("{ \"run\": \"r\", \"event\": \"stage_failed\", \"stage\": \"train\","
	    " \"where\": \"train.py:3\" }", "[r] train FAILED");
	expect_text("{ \"run\": \"r\", \"event\": \"stage_failed\", \"stage\": \"train\","
	    " \"signal\": \"SIGKILL\" }", "[r] train FAILED (SIGKILL)");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"stage_started\", \"stage\": \"train\","
	    " \"attempt\": 1 }", "[llama-ft-1] train started (attempt 1)");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"chain_done\", \"stages\": 2,"
	    " \"results\": \"acc,f1\\n0.812,0.790\\n\" }",
	    "[llama-ft-1] chain DONE \xc2\xb7 results: acc=0.812 f1=0.790");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"chain_done\" }", "[llama-ft-1] chain DONE");
	/* A DONE that went wrong on the way says so first (caveats.h). */
	expect_text("{ \"run\": \"r\", \"event\": \"chain_done\", \"duration_s\": 3720,"
	    " \"caveats\": [{\"kind\": \"nan_loss\"}, {\"kind\": \"restart\"}],"
	    " \"caveats_text\": \"nan_loss at step 15 (attempt 1), 1 restart\","
	    " \"results\": \"acc,f1\\n0.812,0.790\\n\" }",
	    "[r] chain DONE \xc2\xb7 caveats: nan_loss at step 15 (attempt 1), 1 restart \xc2\xb7 results: "
	    "acc=0.812 f1=0.790 \xc2\xb7 1h02m");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"stage_lost\", \"stage\": \"train\","
	    " \"attempt\": 3, \"class\": \"reboot\" }", "[llama-ft-1] train attempt 3 LOST (reboot)");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"run_stopped\", \"stage\": \"train\","
	    " \"attempt\": 2, \"by\": \"patrol stop (alice@laptop)\", \"how\": \"SIGTERM\" }",
	    "[llama-ft-1] train attempt 2 STOPPED on purpose by patrol stop (alice@laptop) \xc2\xb7 "
	    "SIGTERM \xc2\xb7 start it again with `onbox start` or `patrol deploy`");
	expect_text("{ \"run\": \"r\", \"event\": \"run_stopped\", \"stage\": \"eval\","
	    " \"by\": \"onbox stop (root@gpu1)\", \"how\": \"nothing was running\" }",
	    "[r] eval STOPPED on purpose by onbox stop (root@gpu1) \xc2\xb7 nothing was running "
	    "\xc2\xb7 start it again with `onbox start` or `patrol deploy`");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"test\" }",
	    "[llama-ft-1] test notification from watchkeeper");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"test\","
	    " \"message\": \"test notification from watchkeeper\" }",
	    "[llama-ft-1] test notification from watchkeeper");
	expect_text("{ \"run\": \"r\", \"event\": \"test\", \"message\": \"from ana\" }",
	    "[r] test notification from watchkeeper \xc2\xb7 from ana");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"verdict_changed\", \"verdict\": \"CRASHED\","
	    " \"details\": \"train exited 1\" }", "[llama-ft-1] CRASHED train exited 1");
	expect_text("{ \"run\": \"llama-ft-1\", \"event\": \"digest\", \"message\": \"OK\\nstep 10/20\" }",
	    "[llama-ft-1] digest \xc2\xb7 OK step 10/20");
	expect_text("{ \"run\": \"r\", \"event\": \"something_new\", \"stage\": \"eval\" }",
	    "[r] something_new eval");
	/* Absent parts are left out, never "(null)". */
	expect_text("{ \"event\": \"stage_done\" }", "DONE");
	expect_text("{ \"run\": \"r\", \"event\": \"stage_done\", \"stage\": \"eval\","
	    " \"results\": \"\", \"progress\": \"\" }", "[r] eval DONE");
	expect_text("{ \"run\": \"r\", \"event\": \"stage_failed\" }", "[r] FAILED");
	expect_text("{ \"run\": \"r\", \"event\": \"stage_lost\" }", "[r] LOST");
	expect_text("{}", "");
	/* A long first sentence is cut near a word, with " …". */
	expect_text("{ \"run\": \"r\", \"event\": \"stage_failed\", \"stage\": \"s\", \"evidence\":"
	    " \"ValueError: aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo"
	    " pppp qqqq rrrr ssss tttt uuuu vvvv wwww xxxx yyyy zzzz 1111 2222 3333 4444 5555 6666\" }",
	    "[r] s FAILED \xc2\xb7 last: ValueError: aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj"
	    " kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt uuuu vvvv wwww xxxx yyyy zzzz 1111"
	    " 2222 3333 \xe2\x80\xa6");
}

static void
test_text_bounded(void **state)
{
	cJSON *ev = cJSON_CreateObject();
	char *msg = xmalloc(5001), *t;
	size_t i;

	(void)state;
	for (i = 0; i < 2500; i++)
		memcpy(msg + 2 * i, (i % 7) == 0 ? "\n\t" : "\xc3\xa9", 2);
	msg[5000] = '\0';
	cJSON_AddStringToObject(ev, "run", "r");
	cJSON_AddStringToObject(ev, "event", "digest");
	cJSON_AddStringToObject(ev, "message", msg);
	t = notify_text(ev);
	assert_true(strlen(t) <= 1000);
	assert_true(strlen(t) > 900);
	assert_true(utf8_ok(t));
	assert_null(strchr(t, '\n'));
	assert_null(strchr(t, '\t'));
	assert_true(ends_with(t, "\xe2\x80\xa6"));
	free(t);
	cJSON_Delete(ev);
	free(msg);
}

/* ---- results ---- */

static void
expect_summary(const char *csv, const char *want)
{
	char *s = notify_results_summary(csv);

	if (want == NULL)
		assert_null(s);
	else {
		assert_non_null(s);
		assert_string_equal(s, want);
	}
	free(s);
}

static void
test_results_summary(void **state)
{
	char many[1024] = "", *s;
	size_t i;

	(void)state;
	expect_summary("metric,value\nacc,0.812\nf1,0.790\n", "acc=0.812 f1=0.790");
	expect_summary("acc,f1\n0.812,0.790", "acc=0.812 f1=0.790");
	expect_summary("acc,0.812\nf1,0.790", "acc=0.812 f1=0.790");
	expect_summary("metric,value\r\nacc,0.812\r\n\r\n  \r\nf1,0.790\r\n", "acc=0.812 f1=0.790");
	expect_summary("\"metric\",\"value\"\n\"acc\",\"0.812\"\n\"f1 \"\"macro\"\"\",\"0.790\"\n",
	    "acc=0.812 f1 \"macro\"=0.790");
	expect_summary("acc, f1\n 0.812 , 0.790\n", "acc=0.812 f1=0.790");
	expect_summary("epoch,acc,f1\n1,0.70,0.60\n2,0.81,0.79\n", "epoch=2 acc=0.81 f1=0.79");
	expect_summary("name,value\nacc,0.81\nstatus,ok\n", "acc=0.81 status=ok");
	expect_summary("{ \"acc\": 0.812, \"f1\": 0.79, \"ok\": true, \"note\": \"fine\", \"x\": [1] }",
	    "acc=0.812 f1=0.79 ok=true note=fine");
	expect_summary("all good, 3 of 3 passed\nmore text here\n", "all good, 3 of 3 passed");
	expect_summary("just one line", "just one line");
	expect_summary("", NULL);
	expect_summary("\n \r\n", NULL);
	expect_summary(NULL, NULL);

	for (i = 0; i < 20; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "m%zu,0.%zu\n", i, i);
	expect_summary(many, "m0=0.0 m1=0.1 m2=0.2 m3=0.3 m4=0.4 m5=0.5 m6=0.6 m7=0.7 \xe2\x80\xa6");

	memset(many, 'a', sizeof(many) - 1);
	many[sizeof(many) - 1] = '\0';
	s = notify_results_summary(many);
	assert_true(strlen(s) <= 200);
	assert_true(ends_with(s, "\xe2\x80\xa6"));
	free(s);
}

/* ---- judging ---- */

struct judge_case {
	const char	*type;
	int		 curl;
	const char	*curl_error;
	long		 status;
	const char	*answer;
	int		 rc;
	int		 permanent;
	const char	*why;		/* exact, or NULL for "delivered" */
};

static void
test_judge(void **state)
{
	static const struct judge_case cases[] = {
	{ "generic", 0, NULL, 200, "ok", 0, 0, NULL },
	{ "discord", 0, NULL, 204, "", 0, 0, NULL },
	{ "generic", 0, NULL, 200, "{\"code\": 5}", 0, 0, NULL },
	{ "generic", 0, NULL, 404, "Not Found", WK_ERR_INVALID, 1,
	  "HTTP 404: the URL is wrong (the receiver says this address does not exist)" },
	{ "slack", 0, NULL, 410, "", WK_ERR_INVALID, 1, "the webhook was deleted (HTTP 410)" },
	{ "slack", 0, NULL, 401, "", WK_ERR_INVALID, 1,
	  "HTTP 401: not authorised: the token or URL is wrong or revoked" },
	{ "slack", 0, NULL, 403, "invalid_token", WK_ERR_INVALID, 1,
	  "HTTP 403: not authorised: the token or URL is wrong or revoked" },
	{ "slack", 0, NULL, 400, "invalid_payload", WK_ERR_INVALID, 1,
	  "HTTP 400: the receiver rejected the message: invalid_payload" },
	{ "telegram", 0, NULL, 400,
	  "{\"ok\":false,\"error_code\":400,\"description\":\"Bad Request: chat not found\"}",
	  WK_ERR_INVALID, 1, "HTTP 400: the receiver rejected the message: Bad Request: chat not found" },
	{ "generic", 0, NULL, 422, "line one\nline two\r\n", WK_ERR_INVALID, 1,
	  "HTTP 422: the receiver rejected the message: line one line two" },
	{ "generic", 0, NULL, 413, "", WK_ERR_INVALID, 1, "HTTP 413: the receiver rejected the message" },
	{ "generic", 0, NULL, 400, "bad hook " SLACK_URL, WK_ERR_INVALID, 1,
	  "HTTP 400: the receiver rejected the message: bad hook ***" },
	{ "generic", 0, NULL, 429, "", WK_ERR_SYSTEM, 0, "HTTP 429: rate limited; will retry" },
	{ "generic", 0, NULL, 408, "", WK_ERR_SYSTEM, 0,
	  "HTTP 408: the receiver timed out reading the message; will retry" },
	{ "generic", 0, NULL, 503, "<html>", WK_ERR_SYSTEM, 0,
	  "HTTP 503: the receiver is failing; will retry" },
	{ "generic", 0, NULL, 500, "", WK_ERR_SYSTEM, 0, "HTTP 500: the receiver is failing; will retry" },
	{ "generic", 0, NULL, 302, "", WK_ERR_INVALID, 1,
	  "HTTP 302: the receiver redirects; set the final URL" },
	{ "generic", 0, NULL, 301, "", WK_ERR_INVALID, 1,
	  "HTTP 301: the receiver redirects; set the final URL" },
	{ "feishu", 0, NULL, 200, "{\"code\":19021,\"msg\":\"sign match fail\",\"data\":{}}",
	  WK_ERR_INVALID, 1, "HTTP 200 but the receiver refused: 19021 sign match fail" },
	{ "feishu", 0, NULL, 200,
	  "{\"StatusCode\":0,\"StatusMessage\":\"success\",\"code\":0,\"data\":{},\"msg\":\"success\"}",
	  0, 0, NULL },
	{ "feishu", 0, NULL, 200, "not json", 0, 0, NULL },
	{ "feishu", 0, NULL, 200, "{\"code\":11232,\"msg\":\"frequency limited psm\"}", WK_ERR_SYSTEM,
	  0, "HTTP 200 but the receiver refused: 11232 frequency limited psm; will retry" },
	{ "lark", 0, NULL, 200, "{\"StatusCode\":9499,\"StatusMessage\":\"Bad Request\"}",
	  WK_ERR_INVALID, 1, "HTTP 200 but the receiver refused: 9499 Bad Request" },
	{ "dingtalk", 0, NULL, 200, "{\"errcode\":310000,\"errmsg\":\"keywords not in content\"}",
	  WK_ERR_INVALID, 1, "HTTP 200 but the receiver refused: 310000 keywords not in content" },
	{ "dingtalk", 0, NULL, 200, "{\"errcode\":0,\"errmsg\":\"ok\"}", 0, 0, NULL },
	{ "wecom", 0, NULL, 200, "{\"errcode\":93000,\"errmsg\":\"invalid webhook url\"}",
	  WK_ERR_INVALID, 1, "HTTP 200 but the receiver refused: 93000 invalid webhook url" },
	{ "wecom", 0, NULL, 200, "{\"errcode\":45009,\"errmsg\":\"api freq out of limit\"}",
	  WK_ERR_SYSTEM, 0, "HTTP 200 but the receiver refused: 45009 api freq out of limit; will retry" },
	{ "generic", CURLE_OPERATION_TIMEDOUT,
	  "Operation timed out after 15001 milliseconds with 0 bytes received", 0, NULL,
	  WK_ERR_TIMEOUT, 0, "no answer within 15 s (timeout); will retry" },
	{ "generic", CURLE_OPERATION_TIMEDOUT, "Connection timed out after 5001 milliseconds", 0, NULL,
	  WK_ERR_TIMEOUT, 0, "no answer within 5 s (timeout); will retry" },
	{ "generic", CURLE_COULDNT_CONNECT,
	  "Failed to connect to 127.0.0.1 port 9 after 0 ms: Connection refused", 0, NULL,
	  WK_ERR_SYSTEM, 0, "connection refused: the receiver is down; will retry" },
	{ "generic", CURLE_COULDNT_RESOLVE_HOST, "Could not resolve host: hooks.example", 0, NULL,
	  WK_ERR_SYSTEM, 0, "cannot resolve the host (DNS); will retry" },
	{ "generic", CURLE_SSL_CONNECT_ERROR, "OpenSSL SSL_connect: SSL_ERROR_SYSCALL", 0, NULL,
	  WK_ERR_SYSTEM, 0,
	  "TLS handshake with the receiver failed; will retry: OpenSSL SSL_connect: SSL_ERROR_SYSCALL" },
	{ "slack", CURLE_PEER_FAILED_VERIFICATION, "SSL: no alternative certificate subject name "
	  "matches target host name in " SLACK_URL, 0, NULL, WK_ERR_INVALID, 1,
	  "TLS: the receiver's certificate does not verify: SSL: no alternative certificate subject "
	  "name matches target host name in ***" },
	{ "generic", CURLE_URL_MALFORMAT, "", 0, NULL, WK_ERR_INVALID, 1, "the URL is malformed" },
	{ "generic", CURLE_UNSUPPORTED_PROTOCOL, "Protocol \"file\" not supported", 0, NULL,
	  WK_ERR_INVALID, 1, "the URL is not http:// or https://" },
	{ "generic", CURLE_GOT_NOTHING, "Empty reply from server", 0, NULL, WK_ERR_SYSTEM, 0,
	  "the receiver closed the connection without answering; will retry" },
	};
	struct fx *f = *state;
	struct notify_sink s;
	size_t i;
	char *why;
	int perm, rc;

	load(f, "[ { \"type\": \"slack\", \"url_env\": \"WK_T_SLACK\" } ]", NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct judge_case *c = &cases[i];

		memset(&s, 0, sizeof(s));
		s.type = (char *)c->type;
		errno = 0;
		rc = notify_judge(&f->sinks, &s, c->curl, c->curl_error, c->status, c->answer, &why,
		    &perm);
		if (rc != c->rc || (c->why == NULL) != (why == NULL) ||
		    (why != NULL && strcmp(why, c->why) != 0) || perm != c->permanent)
			fail_msg("case %zu (%s %d %ld): rc %d perm %d why \"%s\"", i, c->type, c->curl,
			    c->status, rc, perm, why != NULL ? why : "(none)");
		if (rc == WK_ERR_SYSTEM)
			assert_true(errno == EAGAIN || errno == ECONNREFUSED);
		free(why);
	}
	/* Anything else libcurl says is passed on, scrubbed. */
	memset(&s, 0, sizeof(s));
	s.type = "generic";
	rc = notify_judge(&f->sinks, &s, CURLE_WRITE_ERROR, "oops at " SLACK_URL, 0, NULL, &why, &perm);
	assert_int_equal(rc, WK_ERR_SYSTEM);
	assert_false(perm);
	assert_true(strncmp(why, "delivery failed; will retry (", 29) == 0);
	assert_non_null(strstr(why, "oops at ***"));
	assert_null(strstr(why, "SlackSecret"));
	free(why);
}

/* ---- scrubbing ---- */

static void
expect_scrub(const struct notify_sinks *s, const char *in, const char *want)
{
	char *out = notify_scrub(s, in);

	assert_string_equal(out, want);
	free(out);
}

static void
test_scrub(void **state)
{
	char *secrets[] = { "SECRETTOKEN123", "abc", "TOKEN123XYZ", "zzzzzz" };
	struct notify_sinks s;

	(void)state;
	memset(&s, 0, sizeof(s));
	expect_scrub(&s, "nothing to hide SECRETTOKEN123", "nothing to hide SECRETTOKEN123");
	s.secrets = secrets;
	s.nsecrets = 4;
	expect_scrub(&s, "x SECRETTOKEN123 y", "x *** y");
	expect_scrub(&s, "SECRETTOKEN123", "***");
	expect_scrub(&s, "a SECRETTOKEN123 b SECRETTOKEN123 c", "a *** b *** c");
	expect_scrub(&s, "SECRETTOKEN123SECRETTOKEN123!", "***!");
	/* Overlapping secrets: no fragment of either survives. */
	expect_scrub(&s, "<SECRETTOKEN123XYZ>", "<***>");
	expect_scrub(&s, "<TOKEN123XYZ SECRETTOKEN12>", "<*** SECRETTOKEN12>");
	/* Repeats that overlap themselves. */
	expect_scrub(&s, "zzzzzzzz.", "***.");
	/* Too short to be treated as a secret. */
	expect_scrub(&s, "abc abcd", "abc abcd");
	expect_scrub(&s, "", "");
	assert_null(notify_scrub(&s, NULL));
	expect_scrub(NULL, "SECRETTOKEN123", "SECRETTOKEN123");
}

/* ---- delivery ---- */

static void
test_send_missing(void **state)
{
	struct fx *f = *state;
	cJSON *ev = event(failed_ev);
	char *why;
	int perm = 0;

	load(f, "[ { \"type\": \"slack\", \"url_env\": \"WK_T_UNSET\" } ]", NULL);
	assert_int_equal(notify_send(&f->sinks, &f->sinks.v[0], ev, &why, &perm), WK_ERR_INVALID);
	assert_string_equal(why, "environment variable WK_T_UNSET is not set");
	assert_true(perm);
	free(why);
	cJSON_Delete(ev);
}

/* Not inlined: gcc's -Wdangling-pointer mistakes the result for a pointer to its local. */
static __attribute__((noinline)) char *
slurp(const char *path)
{
	char *s = NULL;
	int r = fs_read_file(path, 1 << 20, &s, NULL);

	if (r != 0)
		fail_msg("cannot read %s", path);
	return s;
}

static void
test_command_delivers(void **state)
{
	struct fx *f = *state;
	char notify[2 * PATH_MAX + 256], *got, *why = (char *)"unset";
	cJSON *ev = event(failed_ev), *parsed;
	int perm = 7;

	snprintf(notify, sizeof(notify),
	    "[ { \"type\": \"command\", \"command\": \"cat > '%s/got.json' && "
	    "printf '%%s %%s' \\\"$WATCHKEEPER_EVENT_ID\\\" \\\"$WATCHKEEPER_EVENT\\\" > '%s/env.txt'\" } ]",
	    f->dir, f->dir);
	setenv("WATCHKEEPER_EVENT", "stale-from-parent", 1);
	load(f, notify, NULL);
	assert_int_equal(notify_send(&f->sinks, &f->sinks.v[0], ev, &why, &perm), 0);
	assert_null(why);
	assert_false(perm);
	unsetenv("WATCHKEEPER_EVENT");
	got = fs_join(f->dir, "got.json");
	free(why);
	why = slurp(got);
	assert_true(ends_with(why, "}\n"));
	parsed = cJSON_Parse(why);
	assert_true(cJSON_Compare(parsed, ev, 1));
	cJSON_Delete(parsed);
	free(why);
	free(got);
	got = fs_join(f->dir, "env.txt");
	why = slurp(got);
	assert_string_equal(why, "0123456789abcdef.stage_failed.train.2 stage_failed");
	free(why);
	free(got);
	cJSON_Delete(ev);
}

/* 1 when the process whose pid is in dir/name is gone (or a zombie) within a second. */
static int
gone_soon(const struct fx *f, const char *name)
{
	char *path = fs_join(f->dir, name), *txt = slurp(path), proc[64], *st = NULL;
	long pid = strtol(txt, NULL, 10);
	int i, gone = 0;

	assert_true(pid > 1);
	snprintf(proc, sizeof(proc), "/proc/%ld/stat", pid);
	for (i = 0; i < 100 && !gone; i++) {
		free(st);
		st = NULL;
		gone = fs_read_file(proc, 4096, &st, NULL) != 0 ||
		    (strrchr(st, ')') != NULL && strrchr(st, ')')[2] == 'Z');
		if (!gone)
			usleep(10000);
	}
	if (!gone)
		kill((pid_t)pid, SIGKILL);
	free(st);
	free(txt);
	free(path);
	return gone;
}

static void
test_command_failures(void **state)
{
	struct fx *f = *state;
	cJSON *ev = event(failed_ev);
	uint64_t t0;
	char *why;
	int perm, rc;

	load(f, "[ { \"type\": \"command\", \"command\": \"echo 'mail: relay refused' >&2; exit 3\" },\n"
	    "  { \"type\": \"command\", \"command\": \"wk-no-such-command-here\" },\n"
	    "  { \"type\": \"command\", \"command\": \"sleep 30 & echo $! > kid1; wait\" },\n"
	    "  { \"type\": \"command\", \"command\": \"trap '' TERM; sleep 30 & echo $! > kid2; wait\" },\n"
	    "  { \"type\": \"command\", \"command\": \"echo \\\"$WK_T_SLACK\\\"; exit 1\" },\n"
	    "  { \"type\": \"command\", \"command\": \"exit 0\" },\n"
	    "  { \"type\": \"command\", \"command\": \"sleep 3 & exit 0\" },\n"
	    "  { \"type\": \"command\", \"command\": \"kill -9 $$\" },\n"
	    "  { \"type\": \"slack\", \"url_env\": \"WK_T_SLACK\" } ]", NULL);
	f->sinks.timeout_s = 1;

	rc = notify_send(&f->sinks, &f->sinks.v[0], ev, &why, &perm);
	assert_true(rc < 0);
	assert_false(perm);
	assert_string_equal(why, "the command exited 3: mail: relay refused");
	free(why);

	rc = notify_send(&f->sinks, &f->sinks.v[1], ev, &why, &perm);
	assert_true(rc < 0);
	assert_true(perm);
	assert_non_null(strstr(why, "not found (exit 127)"));
	free(why);

	/* Too slow: killed with everything it started. */
	assert_int_equal(chdir(f->dir), 0);
	t0 = monotime_ms();
	rc = notify_send(&f->sinks, &f->sinks.v[2], ev, &why, &perm);
	assert_int_equal(rc, WK_ERR_TIMEOUT);
	assert_true(monotime_ms() - t0 < 3000);
	assert_true(monotime_ms() - t0 >= 900);
	assert_false(perm);
	assert_string_equal(why, "the command did not finish within 1 s; killed; will retry");
	free(why);
	assert_true(gone_soon(f, "kid1"));

	/* Ignoring SIGTERM earns SIGKILL for the whole group after the grace. */
	t0 = monotime_ms();
	rc = notify_send(&f->sinks, &f->sinks.v[3], ev, &why, &perm);
	assert_int_equal(rc, WK_ERR_TIMEOUT);
	assert_true(monotime_ms() - t0 < 5000);
	assert_non_null(strstr(why, "ignored SIGTERM"));
	free(why);
	assert_true(gone_soon(f, "kid2"));
	assert_int_equal(chdir("/"), 0);

	/* Its output is scrubbed. */
	rc = notify_send(&f->sinks, &f->sinks.v[4], ev, &why, &perm);
	assert_true(rc < 0);
	assert_string_equal(why, "the command exited 1: ***");
	free(why);

	/* A command that never reads stdin, fed more than a pipe holds: no SIGPIPE for us. */
	{
		char *big = xmalloc(300001);

		memset(big, 'x', 300000);
		big[300000] = '\0';
		cJSON_AddStringToObject(ev, "results", big);
		free(big);
	}
	rc = notify_send(&f->sinks, &f->sinks.v[5], ev, &why, &perm);
	assert_int_equal(rc, 0);
	assert_null(why);

	/* A background child holding stdout does not hold us. */
	t0 = monotime_ms();
	rc = notify_send(&f->sinks, &f->sinks.v[6], ev, &why, &perm);
	assert_int_equal(rc, 0);
	assert_true(monotime_ms() - t0 < 1500);

	rc = notify_send(&f->sinks, &f->sinks.v[7], ev, &why, &perm);
	assert_true(rc < 0);
	assert_non_null(strstr(why, "killed by signal 9"));
	free(why);
	cJSON_Delete(ev);
}

/* ---- HTTP round trips against a one-shot receiver ---- */

struct receiver {
	pid_t	 pid;
	int	 port;
};

/*
 * Fork a receiver on 127.0.0.1 that accepts one connection, saves the whole
 * request to path, answers with response (after delay_s) and exits.
 */
static void
receiver_start(struct receiver *rv, const char *path, const char *response, int delay_s)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	int ls, one = 1;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(ls >= 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(ls, 4), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&a, &alen), 0);
	rv->port = ntohs(a.sin_port);
	rv->pid = fork();
	assert_true(rv->pid >= 0);
	if (rv->pid == 0) {
		char req[65536], *hdr_end;
		size_t got = 0;
		ssize_t n;
		long clen = -1;
		int c = accept(ls, NULL, NULL);
		FILE *fp;

		if (c < 0)
			_exit(1);
		for (;;) {
			n = read(c, req + got, sizeof(req) - 1 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
			req[got] = '\0';
			if ((hdr_end = strstr(req, "\r\n\r\n")) != NULL) {
				char *cl = strcasestr(req, "\r\nContent-Length:");

				if (cl != NULL && cl < hdr_end)
					clen = strtol(cl + 17, NULL, 10);
				if (clen >= 0 && got >= (size_t)(hdr_end + 4 - req) + (size_t)clen)
					break;
			}
		}
		if ((fp = fopen(path, "w")) != NULL) {
			fwrite(req, 1, got, fp);
			fclose(fp);
		}
		sleep((unsigned)delay_s);
		if (write(c, response, strlen(response)) < 0)
			_exit(1);
		close(c);
		_exit(0);
	}
	close(ls);
}

static void
receiver_stop(struct receiver *rv)
{
	int st;

	kill(rv->pid, SIGKILL);
	waitpid(rv->pid, &st, 0);
}

static void
http_load(struct fx *f, int port)
{
	char notify[512];

	snprintf(notify, sizeof(notify), "[ { \"type\": \"generic\", "
	    "\"url\": \"http://127.0.0.1:%d/hook/generic-secret-77\" } ]", port);
	load(f, notify, NULL);
}

static void
test_http_round_trip(void **state)
{
	struct fx *f = *state;
	struct receiver rv;
	cJSON *ev = event(done_ev), *parsed;
	char *path = fs_join(f->dir, "req.txt"), *req, *body, *why;
	int perm;

	receiver_start(&rv, path, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
	    0);
	http_load(f, rv.port);
	assert_int_equal(notify_send(&f->sinks, &f->sinks.v[0], ev, &why, &perm), 0);
	assert_null(why);
	receiver_stop(&rv);
	req = slurp(path);
	assert_true(strncmp(req, "POST /hook/generic-secret-77 HTTP/1.1\r\n", 39) == 0);
	assert_non_null(strstr(req, "\r\nX-Watchkeeper-Event-Id: 0123456789abcdef.stage_done.eval.1\r\n"));
	assert_non_null(strstr(req, "\r\nContent-Type: application/json\r\n"));
	assert_non_null(strstr(req, "\r\nUser-Agent: watchkeeper/"));
	assert_null(strcasestr(req, "\r\nExpect:"));
	body = strstr(req, "\r\n\r\n");
	assert_non_null(body);
	parsed = cJSON_Parse(body + 4);
	assert_true(cJSON_Compare(parsed, ev, 1));
	cJSON_Delete(parsed);
	free(req);

	receiver_start(&rv, path, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n"
	    "Connection: close\r\n\r\nnot found", 0);
	http_load(f, rv.port);
	assert_int_equal(notify_send(&f->sinks, &f->sinks.v[0], ev, &why, &perm), WK_ERR_INVALID);
	assert_string_equal(why,
	    "HTTP 404: the URL is wrong (the receiver says this address does not exist)");
	assert_true(perm);
	free(why);
	receiver_stop(&rv);

	receiver_start(&rv, path, "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\n"
	    "Content-Length: 0\r\nConnection: close\r\n\r\n", 0);
	http_load(f, rv.port);
	assert_int_equal(notify_send(&f->sinks, &f->sinks.v[0], ev, &why, &perm), WK_ERR_INVALID);
	assert_string_equal(why, "HTTP 302: the receiver redirects; set the final URL");
	free(why);
	receiver_stop(&rv);

	/* Answers late: bounded by timeout_s. */
	receiver_start(&rv, path, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 5);
	http_load(f, rv.port);
	f->sinks.timeout_s = 1;
	assert_int_equal(notify_send(&f->sinks, &f->sinks.v[0], ev, &why, &perm), WK_ERR_TIMEOUT);
	assert_string_equal(why, "no answer within 1 s (timeout); will retry");
	assert_false(perm);
	free(why);
	receiver_stop(&rv);

	/* Nobody listening (the last receiver's port is closed now). */
	assert_int_equal(notify_send(&f->sinks, &f->sinks.v[0], ev, &why, &perm), WK_ERR_SYSTEM);
	assert_string_equal(why, "connection refused: the receiver is down; will retry");
	assert_null(strstr(why, "generic-secret-77"));
	free(why);

	cJSON_Delete(ev);
	free(path);
}

/* ---- the secrets file ---- */

#define FILE_URL	"https://file.example.org/hooks/file-secret-value-123"
#define EXTRA_VAL	"extra-secret-value-456"

/* Write <dir>/.watchkeeper/secrets with text and mode; the path (caller frees). */
static char *
secrets_file(struct fx *f, const char *text, mode_t mode)
{
	char *d = xstrfmt("%s/.watchkeeper", f->dir), *p = xstrfmt("%s/secrets", d);
	FILE *fp;

	(void)mkdir(d, 0700);
	(void)unlink(p);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(p, mode), 0);
	free(d);
	return p;
}

static void
test_secrets_read(void **state)
{
	struct fx *f = *state;
	cJSON *doc = NULL;
	char *why = NULL, *p, *link;

	p = xstrfmt("%s/none", f->dir);
	assert_int_equal(notify_secrets_read(p, &doc, &why), 1);
	assert_null(doc);
	assert_null(why);
	free(p);

	p = secrets_file(f, "{\"WK_T_SLACK\": \"" FILE_URL "\", \"X_2\": \"" EXTRA_VAL "\"}", 0600);
	assert_int_equal(notify_secrets_read(p, &doc, &why), 0);
	assert_string_equal(json_str(doc, "WK_T_SLACK", ""), FILE_URL);
	assert_string_equal(json_str(doc, "X_2", ""), EXTRA_VAL);
	cJSON_Delete(doc);

	/* Readable by the group: refused, and the message says the mode, not a value. */
	assert_int_equal(chmod(p, 0640), 0);
	assert_int_equal(notify_secrets_read(p, &doc, &why), WK_ERR_INVALID);
	assert_null(doc);
	assert_non_null(strstr(why, "0640"));
	assert_null(strstr(why, "file-secret"));
	free(why);
	assert_int_equal(chmod(p, 0604), 0);
	assert_int_equal(notify_secrets_read(p, &doc, &why), WK_ERR_INVALID);
	free(why);
	assert_int_equal(chmod(p, 0600), 0);

	/* Owned by someone else (only root can make one). */
	if (geteuid() == 0) {
		assert_int_equal(chown(p, 1, (gid_t)-1), 0);
		assert_int_equal(notify_secrets_read(p, &doc, &why), WK_ERR_INVALID);
		assert_non_null(strstr(why, "not by this user"));
		free(why);
		assert_int_equal(chown(p, 0, (gid_t)-1), 0);
	}

	/* A symlink to it, and a directory: never followed, never read. */
	link = xstrfmt("%s/link", f->dir);
	assert_int_equal(symlink(p, link), 0);
	assert_int_equal(notify_secrets_read(link, &doc, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "symbolic link"));
	free(why);
	free(link);
	link = xstrfmt("%s/.watchkeeper", f->dir);
	assert_int_equal(notify_secrets_read(link, &doc, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "not a regular file"));
	free(why);
	free(link);
	free(p);

	/* Malformed: the line, never the text. */
	p = secrets_file(f, "{\n  \"A\": \"" EXTRA_VAL "\",\n  \"B\" \"oops\"\n}\n", 0600);
	assert_int_equal(notify_secrets_read(p, &doc, &why), WK_ERR_PARSE);
	assert_null(doc);
	assert_non_null(strstr(why, "line 3"));
	assert_null(strstr(why, EXTRA_VAL));
	free(why);
	free(p);
	p = secrets_file(f, "{\"A\": 5}", 0600);
	assert_int_equal(notify_secrets_read(p, &doc, &why), WK_ERR_PARSE);
	assert_non_null(strstr(why, "\"A\": the value is not a string"));
	free(why);
	free(p);
	p = secrets_file(f, "{\"" EXTRA_VAL "-x\": \"v\"}", 0600);
	assert_int_equal(notify_secrets_read(p, &doc, &why), WK_ERR_PARSE);
	assert_null(strstr(why, EXTRA_VAL));
	free(why);
	free(p);
	p = secrets_file(f, "[\"" EXTRA_VAL "\"]", 0600);
	assert_int_equal(notify_secrets_read(p, &doc, &why), WK_ERR_PARSE);
	assert_null(strstr(why, EXTRA_VAL));
	free(why);
	free(p);
	p = secrets_file(f, "", 0600);
	assert_int_equal(notify_secrets_read(p, &doc, &why), WK_ERR_PARSE);
	assert_non_null(strstr(why, "line 1"));
	free(why);
	free(p);
}

static void
test_load_box(void **state)
{
	struct fx *f = *state;
	char *p;

	load(f, "[ { \"type\": \"slack\", \"url_env\": \"WK_T_SLACK\" },\n"
	    "  { \"type\": \"discord\", \"url_env\": \"WK_T_UNSET\" },\n"
	    "  { \"type\": \"generic\", \"url\": \"" NTFY_URL "\" },\n"
	    "  { \"type\": \"telegram\", \"token_env\": \"WK_T_TG\", \"chat_id\": 5 } ]", NULL);
	/* No file: the environment, as everywhere else. */
	notify_sinks_free(&f->sinks);
	assert_int_equal(notify_sinks_load_box(f->cfg, &f->sinks), 0);
	assert_string_equal(f->sinks.v[0].url, SLACK_URL);
	assert_non_null(strstr(f->sinks.v[1].missing, "WK_T_UNSET is not set"));
	assert_non_null(strstr(f->sinks.v[1].missing, "patrol deploy"));

	/* The file wins over the environment; a name only it has resolves; nothing is exported. */
	p = secrets_file(f, "{\"WK_T_SLACK\": \"" FILE_URL "\", \"WK_T_UNSET\": \"http://127.0.0.1:9/"
	    "only-in-file\", \"OTHER\": \"" EXTRA_VAL "\"}", 0600);
	notify_sinks_free(&f->sinks);
	assert_int_equal(notify_sinks_load_box(f->cfg, &f->sinks), 0);
	assert_string_equal(f->sinks.v[0].url, FILE_URL);
	assert_null(f->sinks.v[0].missing);
	assert_string_equal(f->sinks.v[1].url, "http://127.0.0.1:9/only-in-file");
	assert_null(f->sinks.v[1].missing);
	assert_string_equal(f->sinks.v[3].token, TG_TOKEN);	/* not in the file: the environment */
	assert_null(getenv("WK_T_UNSET"));
	assert_string_equal(getenv("WK_T_SLACK"), SLACK_URL);
	/* Every value in it is scrubbed, used or not. */
	assert_true(has_secret(&f->sinks, FILE_URL));
	assert_true(has_secret(&f->sinks, EXTRA_VAL));
	{
		char *t = notify_scrub(&f->sinks, "a " EXTRA_VAL " b " FILE_URL);

		assert_string_equal(t, "a *** b ***");
		free(t);
	}
	/* The owner's side never reads it. */
	notify_sinks_free(&f->sinks);
	assert_int_equal(notify_sinks_load(f->cfg, &f->sinks), 0);
	assert_string_equal(f->sinks.v[0].url, SLACK_URL);
	assert_false(has_secret(&f->sinks, EXTRA_VAL));

	/* Readable by others: refused; sinks by name are held, a URL in the config is not. */
	assert_int_equal(chmod(p, 0644), 0);
	notify_sinks_free(&f->sinks);
	assert_int_equal(notify_sinks_load_box(f->cfg, &f->sinks), 0);
	assert_null(f->sinks.v[0].url);
	assert_non_null(strstr(f->sinks.v[0].missing, "cannot be used"));
	assert_non_null(strstr(f->sinks.v[0].missing, p));
	assert_null(strstr(f->sinks.v[0].missing, "file-secret"));
	assert_non_null(f->sinks.v[1].missing);
	assert_null(f->sinks.v[2].missing);
	assert_non_null(f->sinks.v[3].missing);
	free(p);

	/* Malformed: the same, with the line. */
	p = secrets_file(f, "{\"WK_T_SLACK\": \"" FILE_URL "\",\n}", 0600);
	notify_sinks_free(&f->sinks);
	assert_int_equal(notify_sinks_load_box(f->cfg, &f->sinks), 0);
	assert_non_null(strstr(f->sinks.v[0].missing, "line 2"));
	assert_null(strstr(f->sinks.v[0].missing, "file-secret"));
	assert_null(f->sinks.v[0].url);
	free(p);
}

static void
test_secret_names(void **state)
{
	struct fx *f = *state;
	char **names;
	size_t n, i;

	load(f, "[ { \"type\": \"slack\", \"url_env\": \"WK_A\" },\n"
	    "  { \"type\": \"ntfy\", \"url_env\": \"WK_B\", \"token_env\": \"WK_C\" },\n"
	    "  { \"type\": \"generic\", \"url_env\": \"WK_A\" },\n"
	    "  { \"type\": \"generic\", \"url\": \"http://127.0.0.1:9/\", \"url_env\": \"WK_D\" },\n"
	    "  { \"type\": \"command\", \"command\": \"true\", \"url_env\": \"WK_E\", "
	    "\"token_env\": \"WK_F\" },\n"
	    "  { \"type\": \"generic\", \"url_env\": \"" SLACK_URL "\" },\n"
	    "  { \"type\": \"telegram\", \"token\": \"t\", \"token_env\": \"WK_G\", \"chat_id\": 1 } ]",
	    NULL);
	notify_secret_names(f->cfg, 0, &names, &n);
	assert_int_equal(n, 4);
	assert_string_equal(names[0], "WK_A");
	assert_string_equal(names[1], "WK_B");
	assert_string_equal(names[2], "WK_C");
	assert_string_equal(names[3], "WK_F");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	load(f, "[]", NULL);
	notify_secret_names(f->cfg, 0, &names, &n);
	assert_int_equal(n, 0);
	assert_null(names);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_none_and_timeouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_request_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_request_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_discord, setup, teardown),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_bounded),
		cmocka_unit_test(test_results_summary),
		cmocka_unit_test_setup_teardown(test_judge, setup, teardown),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test_setup_teardown(test_send_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_delivers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secrets_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_box, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secret_names, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
