/*
 * notify-types.c: the sink type table: what each receiver wants.
 *
 * notify_types[] holds, per type, the body's shape, the content type, a
 * URL of its own (telegram), extra headers (ntfy), how a 200 can still be
 * a refusal (feishu, lark, dingtalk, wecom) and which refusal code means
 * "slow down".  The code that walks it (building a request, judging an
 * answer) lives in notify.c and notify-http.c, as tmux keeps
 * options-table.c apart from options.c.  A new receiver is a row here and
 * its small functions beside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonfile.h"
#include "notify-int.h"
#include "xmalloc.h"

/* ---- sink types: what each receiver wants ---- */

static char *
notify_body_generic(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	(void)s;
	(void)text;
	return notify_json_line(ev);
}

/* Slack reads &, < and > as markup; its docs ask for these three escapes. */
static char *
notify_body_slack(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	struct buf b = BUF_INIT;
	cJSON *o = cJSON_CreateObject();
	char *r;

	(void)ev;
	for (; *text != '\0'; text++) {
		if (*text == '&')
			buf_puts(&b, "&amp;");
		else if (*text == '<')
			buf_puts(&b, "&lt;");
		else if (*text == '>')
			buf_puts(&b, "&gt;");
		else
			buf_putc(&b, *text);
	}
	/* through a bot token (the Web API's chat.postMessage): the channel too */
	if (s->channel != NULL)
		cJSON_AddStringToObject(o, "channel", s->channel);
	cJSON_AddStringToObject(o, "text", buf_str(&b));
	r = notify_json_line(o);
	cJSON_Delete(o);
	buf_free(&b);
	return r;
}

/* A log line saying "@everyone" must not ping a whole Discord server. */
static char *
notify_body_discord(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	cJSON *o = cJSON_CreateObject(), *am;
	char *r;

	(void)s;
	(void)ev;
	cJSON_AddStringToObject(o, "content", text);
	am = cJSON_AddObjectToObject(o, "allowed_mentions");
	cJSON_AddArrayToObject(am, "parse");
	r = notify_json_line(o);
	cJSON_Delete(o);
	return r;
}

static char *
notify_body_telegram(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	cJSON *o = cJSON_CreateObject();
	char *r;

	(void)ev;
	cJSON_AddStringToObject(o, "chat_id", s->chat_id != NULL ? s->chat_id : "");
	cJSON_AddStringToObject(o, "text", text);
	cJSON_AddTrueToObject(o, "disable_web_page_preview");
	r = notify_json_line(o);
	cJSON_Delete(o);
	return r;
}

static char *
notify_body_plain(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	(void)s;
	(void)ev;
	return xstrdup(text);
}

static char *
notify_body_feishu(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	cJSON *o = cJSON_CreateObject(), *c;
	char *r;

	(void)s;
	(void)ev;
	cJSON_AddStringToObject(o, "msg_type", "text");
	c = cJSON_AddObjectToObject(o, "content");
	cJSON_AddStringToObject(c, "text", text);
	r = notify_json_line(o);
	cJSON_Delete(o);
	return r;
}

static char *
notify_body_dingtalk(const struct notify_sink *s, const cJSON *ev, const char *text)
{
	cJSON *o = cJSON_CreateObject(), *c;
	char *r;

	(void)s;
	(void)ev;
	cJSON_AddStringToObject(o, "msgtype", "text");
	c = cJSON_AddObjectToObject(o, "text");
	cJSON_AddStringToObject(c, "content", text);
	r = notify_json_line(o);
	cJSON_Delete(o);
	return r;
}

void
notify_req_header(struct notify_request *r, char *line /* transferred */)
{
	r->headers = xreallocarray(r->headers, r->nheaders + 1, sizeof(*r->headers));
	r->headers[r->nheaders++] = line;
}

static void
notify_headers_ntfy(const struct notify_sink *s, const cJSON *ev, struct notify_request *r)
{
	const char *prio, *tags;
	char *title = notify_ntfy_look(ev, &prio, &tags), *tok;

	if (*title != '\0')
		notify_req_header(r, xstrfmt("Title: %s", title));
	if (prio != NULL)
		notify_req_header(r, xstrfmt("Priority: %s", prio));
	if (tags != NULL)
		notify_req_header(r, xstrfmt("Tags: %s", tags));
	if (s->token != NULL) {
		tok = notify_header_value(s->token);
		notify_req_header(r, xstrfmt("Authorization: Bearer %s", tok));
		free(tok);
	}
	free(title);
}

char *
notify_url_telegram_method(const struct notify_sink *s, const char *method)
{
	size_t n = strlen(s->url);

	while (n > 0 && s->url[n - 1] == '/')
		n--;
	return xstrfmt("%.*s/bot%s/%s", (int)n, s->url, s->token != NULL ? s->token : "", method);
}

char *
notify_url_telegram(const struct notify_sink *s)
{
	return notify_url_telegram_method(s, "sendMessage");
}

/*
 * slack: an incoming webhook's URL as it is; with a channel, the Web API
 * (url is its base): chat.postMessage.
 */
char *
notify_url_slack(const struct notify_sink *s, const char *method)
{
	size_t n = strlen(s->url);

	if (s->channel == NULL)
		return xstrdup(s->url);
	while (n > 0 && s->url[n - 1] == '/')
		n--;
	return xstrfmt("%.*s/%s", (int)n, s->url, method);
}

static char *
notify_url_slack_post(const struct notify_sink *s)
{
	return notify_url_slack(s, "chat.postMessage");
}

static void
notify_headers_slack(const struct notify_sink *s, const cJSON *ev, struct notify_request *r)
{
	char *tok;

	(void)ev;
	if (s->channel == NULL || s->token == NULL)
		return;
	tok = notify_header_value(s->token);
	notify_req_header(r, xstrfmt("Authorization: Bearer %s", tok));
	free(tok);
}

/* The Web API answers 200 with {"ok": false, "error": "channel_not_found"}. */
static int
notify_refused_slack(const cJSON *a, long *code, const char **msg)
{
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(a, "ok");

	if (!cJSON_IsFalse(ok))
		return 0;
	*code = 0;
	*msg = json_str(a, "error", "ok: false");
	return 1;
}

/* feishu/lark answer 200 with {"code": 19021, "msg": "sign match fail"}. */
static int
notify_refused_feishu(const cJSON *a, long *code, const char **msg)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(a, "code");

	if (!cJSON_IsNumber(c))
		c = cJSON_GetObjectItemCaseSensitive(a, "StatusCode");
	if (!cJSON_IsNumber(c) || c->valuedouble == 0)
		return 0;
	*code = (long)c->valuedouble;
	*msg = json_str(a, "msg", json_str(a, "StatusMessage", ""));
	return 1;
}

/* dingtalk/wecom answer 200 with {"errcode": 310000, "errmsg": "..."}. */
static int
notify_refused_errcode(const cJSON *a, long *code, const char **msg)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(a, "errcode");

	if (!cJSON_IsNumber(c) || c->valuedouble == 0)
		return 0;
	*code = (long)c->valuedouble;
	*msg = json_str(a, "errmsg", "");
	return 1;
}

static const struct notify_type notify_types[] = {
	{ "generic", "application/json", notify_body_generic, NULL, NULL, NULL, 0, 0 },
	{ "slack", "application/json", notify_body_slack, notify_url_slack_post,
	  notify_headers_slack, notify_refused_slack, 0, 0 },
	{ "discord", "application/json", notify_body_discord, NULL, NULL, NULL, 0,
	  NOTIFY_DISCORD_MAX },
	{ "telegram", "application/json", notify_body_telegram, notify_url_telegram, NULL, NULL,
	  0, 0 },
	{ "ntfy", "text/plain; charset=utf-8", notify_body_plain, NULL, notify_headers_ntfy, NULL,
	  0, 0 },
	{ "feishu", "application/json", notify_body_feishu, NULL, NULL, notify_refused_feishu,
	  11232, 0 },
	{ "lark", "application/json", notify_body_feishu, NULL, NULL, notify_refused_feishu,
	  11232, 0 },
	{ "dingtalk", "application/json", notify_body_dingtalk, NULL, NULL,
	  notify_refused_errcode, 130101, 0 },
	{ "wecom", "application/json", notify_body_dingtalk, NULL, NULL, notify_refused_errcode,
	  45009, 0 },
	{ "command", NULL, NULL, NULL, NULL, NULL, 0, 0 },
};

const struct notify_type *
notify_type_find(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof(notify_types) / sizeof(notify_types[0]); i++)
		if (strcmp(notify_types[i].name, name) == 0)
			return &notify_types[i];
	return NULL;
}
