/*
 * mcp-proto.c: the MCP protocol without I/O: one JSON-RPC 2.0 line in, what
 * to do out (answer, run a tool, cancel a call).  It owns the checks on a
 * message (UTF-8, JSON, the envelope, the id), version negotiation in
 * initialize, ping, tools/list (the rows of a tool table as MCP shows them),
 * the tools/call response and the JSON-RPC error codes.  mcp.c does the
 * reading, writing and the children; fuzz/fuzz_mcp.c drives this file alone.
 */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "mcp.h"
#include "xmalloc.h"

#define MCP_INSTRUCTIONS \
	"Watchkeeper keeps long training runs on rented GPU boxes alive. Start with `runs` " \
	"(every run, its last verdict), then `status {run}` for a fresh look at the box. " \
	"Block on `wait {run, marker?, timeout_s}` instead of sleeping; read the box with " \
	"`logs` and `events` (cursors continue where you stopped); `handbook` explains the " \
	"run and what to do for each verdict. `resume` and `stop` act only with confirm: true."

int
mcp_utf8_ok(const char *p, size_t len)
{
	const unsigned char *s = (const unsigned char *)p, *end = s + len;
	unsigned c;
	size_t n, i;

	while (s < end) {
		c = *s;
		if (c == 0)
			return 0;
		if (c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		else
			return 0;
		if ((size_t)(end - s) <= n)
			return 0;
		/* overlongs, surrogates and past U+10FFFF by the second byte's range */
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
		    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
			return 0;
		for (i = 1; i <= n; i++)
			if ((s[i] & 0xc0) != 0x80)
				return 0;
		s += n + 1;
	}
	return 1;
}

/* {"jsonrpc":"2.0","id":id, key: val} as one line; val consumed. */
static char *
mcp_envelope(const cJSON *id, const char *key, cJSON *val)
{
	cJSON *o = cJSON_CreateObject();
	char *s, *line;

	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", id != NULL ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, key, val);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (s == NULL)
		abort();
	line = xstrdup(s);
	cJSON_free(s);
	return line;
}

char *
mcp_error_line(const cJSON *id, int code, const char *msg)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	return mcp_envelope(id, "error", e);
}

char *
mcp_result_line(const struct mcp_session *s, const cJSON *id, struct mcp_out *out)
{
	cJSON *r = cJSON_CreateObject(), *content = cJSON_AddArrayToObject(r, "content"), *c;
	char *json;

	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", out->text != NULL ? out->text : "");
	cJSON_AddItemToArray(content, c);
	if (out->structured != NULL && s->old) {
		/* 2025-03-26 has no structuredContent: the JSON goes in a second text block */
		if ((json = cJSON_PrintUnformatted(out->structured)) == NULL)
			abort();
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "type", "text");
		cJSON_AddStringToObject(c, "text", json);
		cJSON_AddItemToArray(content, c);
		cJSON_free(json);
		cJSON_Delete(out->structured);
	} else if (out->structured != NULL)
		cJSON_AddItemToObject(r, "structuredContent", out->structured);	/* transferred */
	out->structured = NULL;
	cJSON_AddBoolToObject(r, "isError", out->is_error != 0);
	free(out->text);
	out->text = NULL;
	return mcp_envelope(id, "result", r);
}

cJSON *
mcp_tool_json(const struct mcp_tool *t, int old)
{
	static const struct {
		const char	*key;
		unsigned	 bit;
	} hints[] = {
		{ "readOnlyHint", MCP_READ_ONLY },
		{ "destructiveHint", MCP_DESTRUCTIVE },
		{ "idempotentHint", MCP_IDEMPOTENT },
		{ "openWorldHint", MCP_OPEN_WORLD },
	};
	cJSON *o = cJSON_CreateObject(), *in, *outs, *a;
	size_t i;

	in = cJSON_Parse(t->input_schema);
	outs = cJSON_Parse(t->output_schema);
	if (!cJSON_IsObject(in) || !cJSON_IsObject(outs)) {
		cJSON_Delete(in);
		cJSON_Delete(outs);
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddStringToObject(o, "name", t->name);
	cJSON_AddStringToObject(o, "title", t->title);
	cJSON_AddStringToObject(o, "description", t->description);
	cJSON_AddItemToObject(o, "inputSchema", in);
	if (old)
		cJSON_Delete(outs);
	else
		cJSON_AddItemToObject(o, "outputSchema", outs);
	a = cJSON_AddObjectToObject(o, "annotations");
	cJSON_AddStringToObject(a, "title", t->title);
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		cJSON_AddBoolToObject(a, hints[i].key, (t->hints & hints[i].bit) != 0);
	return o;
}

/* 1 when [p, end) is JSON whitespace only. */
static int
mcp_blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (strchr(" \t\r\n", *p) == NULL)
			return 0;
	return 1;
}

char *
mcp_args_check(const struct mcp_tool *t, const cJSON *args)
{
	cJSON *schema = cJSON_Parse(t->input_schema);
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties"), *a, *r;
	struct buf known = BUF_INIT;
	char *cause = NULL;

	cJSON_ArrayForEach(a, props)
		buf_printf(&known, "%s%s", known.len > 0 ? ", " : "", a->string);
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties")))
		cJSON_ArrayForEach(a, args)
			if (cause == NULL && cJSON_GetObjectItemCaseSensitive(props, a->string) == NULL)
				cause = xstrfmt("argument '%s': unknown (%s takes %s)", a->string,
				    t->name, known.len > 0 ? buf_str(&known) : "none");
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(schema, "required"))
		if (cause == NULL && cJSON_IsString(r) &&
		    cJSON_GetObjectItemCaseSensitive(args, r->valuestring) == NULL)
			cause = xstrfmt("argument '%s': required", r->valuestring);
	buf_free(&known);
	cJSON_Delete(schema);
	return cause;
}

/* One request's context while it is handled. */
struct mcp_req {
	struct mcp_session *s;
	const cJSON	*id;
	const cJSON	*params;	/* an object, or NULL */
	struct mcp_call	*call;
	char		*reply;
};

static enum mcp_act
mcp_reply_error(struct mcp_req *r, int code, const char *msg)
{
	r->reply = mcp_error_line(r->id, code, msg);
	return MCP_ACT_REPLY;
}

static enum mcp_act
mcp_reply(struct mcp_req *r, cJSON *result)
{
	r->reply = mcp_envelope(r->id, "result", result);
	return MCP_ACT_REPLY;
}

static enum mcp_act
mcp_m_initialize(struct mcp_req *r)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->params,
	    "protocolVersion"));
	cJSON *res = cJSON_CreateObject(), *o;

	r->s->old = v != NULL && strcmp(v, MCP_VERSION_OLD) == 0;
	r->s->initialized = 1;
	cJSON_AddStringToObject(res, "protocolVersion",
	    r->s->old ? MCP_VERSION_OLD : MCP_VERSION_LATEST);
	o = cJSON_AddObjectToObject(cJSON_AddObjectToObject(res, "capabilities"), "tools");
	cJSON_AddBoolToObject(o, "listChanged", 0);
	o = cJSON_AddObjectToObject(res, "serverInfo");
	cJSON_AddStringToObject(o, "name", "watchkeeper");
	cJSON_AddStringToObject(o, "version", WK_VERSION);
	cJSON_AddStringToObject(res, "instructions", MCP_INSTRUCTIONS);
	return mcp_reply(r, res);
}

static enum mcp_act
mcp_m_ping(struct mcp_req *r)
{
	return mcp_reply(r, cJSON_CreateObject());
}

static enum mcp_act
mcp_m_tools_list(struct mcp_req *r)
{
	cJSON *res = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(res, "tools"), *t;
	size_t i;

	for (i = 0; i < r->s->ntools; i++)
		if ((t = mcp_tool_json(r->s->tools[i], r->s->old)) != NULL)
			cJSON_AddItemToArray(arr, t);
	return mcp_reply(r, res);
}

static enum mcp_act
mcp_m_tools_call(struct mcp_req *r)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(r->params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(r->params, "arguments");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(r->params, "_meta");
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	const struct mcp_tool *tool = NULL;
	size_t i;

	if (!cJSON_IsString(name))
		return mcp_reply_error(r, MCP_EPARAMS, "tools/call: params.name must be a string");
	for (i = 0; i < r->s->ntools && tool == NULL; i++)
		if (strcmp(r->s->tools[i]->name, name->valuestring) == 0)
			tool = r->s->tools[i];
	if (tool == NULL)
		return mcp_reply_error(r, MCP_EPARAMS, "tools/call: unknown tool");
	if (args != NULL && !cJSON_IsObject(args) && !cJSON_IsNull(args))
		return mcp_reply_error(r, MCP_EPARAMS, "tools/call: params.arguments must be an object");
	r->call->tool = tool;
	r->call->id = cJSON_Duplicate(r->id, 1);
	r->call->args = cJSON_IsObject(args) ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
	if (cJSON_IsString(tok) || cJSON_IsNumber(tok))
		r->call->progress_token = cJSON_Duplicate(tok, 1);
	return MCP_ACT_CALL;
}

/* Notifications: never answered. */
static enum mcp_act
mcp_n_initialized(struct mcp_req *r)
{
	(void)r;
	return MCP_ACT_NONE;
}

static enum mcp_act
mcp_n_cancelled(struct mcp_req *r)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(r->params, "requestId");

	if (!cJSON_IsString(id) && !cJSON_IsNumber(id))
		return MCP_ACT_NONE;
	r->call->id = cJSON_Duplicate(id, 1);
	return MCP_ACT_CANCEL;
}

static const struct {
	const char	*method;
	int		 notification;	/* 1: a notification's method (no id) */
	int		 early;		/* 1: allowed before initialize */
	enum mcp_act	(*fn)(struct mcp_req *);
} mcp_methods[] = {
	{ "initialize", 0, 1, mcp_m_initialize },
	{ "ping", 0, 1, mcp_m_ping },
	{ "tools/list", 0, 0, mcp_m_tools_list },
	{ "tools/call", 0, 0, mcp_m_tools_call },
	{ "notifications/initialized", 1, 1, mcp_n_initialized },
	{ "notifications/cancelled", 1, 1, mcp_n_cancelled },
};

/* The message's id when it is a valid one (a string or an integer-valued number), else NULL. */
static const cJSON *
mcp_valid_id(const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");

	if (cJSON_IsString(id) || cJSON_IsNumber(id))
		return id;
	return NULL;
}

/* 1 when msg says "jsonrpc": "2.0". */
static int
mcp_jsonrpc_ok(const cJSON *msg)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc"));

	return v != NULL && strcmp(v, "2.0") == 0;
}

enum mcp_act
mcp_handle(struct mcp_session *s, const char *line, size_t len, char **reply,
    struct mcp_call *call)
{
	struct mcp_req r;
	cJSON *msg = NULL;
	const cJSON *method, *params, *rawid;
	const char *end = NULL;
	enum mcp_act act;
	size_t i;
	int isnote;

	memset(&r, 0, sizeof(r));
	memset(call, 0, sizeof(*call));
	*reply = NULL;
	r.s = s;
	r.call = call;
	if (!mcp_utf8_ok(line, len) ||
	    (msg = cJSON_ParseWithLengthOpts(line, len, &end, 0)) == NULL ||
	    !mcp_blank(end, line + len)) {
		act = mcp_reply_error(&r, MCP_EPARSE, "parse error");
		goto out;
	}
	if (!cJSON_IsObject(msg)) {
		act = mcp_reply_error(&r, MCP_EINVALID, "invalid request: not a JSON object");
		goto out;
	}
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	rawid = cJSON_GetObjectItemCaseSensitive(msg, "id");
	r.id = mcp_valid_id(msg);
	isnote = rawid == NULL && cJSON_IsString(method);
	/* a response to a request of ours (we send none): nothing to say */
	if (method == NULL && r.id != NULL && (cJSON_GetObjectItemCaseSensitive(msg, "result") ||
	    cJSON_GetObjectItemCaseSensitive(msg, "error"))) {
		act = MCP_ACT_NONE;
		goto out;
	}
	if (isnote) {
		act = MCP_ACT_NONE;
		params = cJSON_GetObjectItemCaseSensitive(msg, "params");
		r.params = cJSON_IsObject(params) ? params : NULL;
		if (!mcp_jsonrpc_ok(msg))
			goto out;
		for (i = 0; i < sizeof(mcp_methods) / sizeof(mcp_methods[0]); i++)
			if (mcp_methods[i].notification &&
			    strcmp(mcp_methods[i].method, method->valuestring) == 0)
				act = mcp_methods[i].fn(&r);
		goto out;
	}
	if (r.id == NULL) {
		act = mcp_reply_error(&r, MCP_EINVALID, "invalid request: bad id");
		goto out;
	}
	if (!mcp_jsonrpc_ok(msg)) {
		act = mcp_reply_error(&r, MCP_EINVALID, "invalid request: jsonrpc must be \"2.0\"");
		goto out;
	}
	if (!cJSON_IsString(method)) {
		act = mcp_reply_error(&r, MCP_EINVALID, "invalid request: no method");
		goto out;
	}
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (params != NULL && !cJSON_IsObject(params)) {
		act = mcp_reply_error(&r, MCP_EPARAMS, "invalid params: not an object");
		goto out;
	}
	r.params = params;
	for (i = 0; i < sizeof(mcp_methods) / sizeof(mcp_methods[0]); i++)
		if (!mcp_methods[i].notification &&
		    strcmp(mcp_methods[i].method, method->valuestring) == 0)
			break;
	if (i == sizeof(mcp_methods) / sizeof(mcp_methods[0]))
		act = mcp_reply_error(&r, MCP_EMETHOD, "method not found");
	else if (!s->initialized && !mcp_methods[i].early)
		act = mcp_reply_error(&r, MCP_EINVALID, "server not initialized");
	else
		act = mcp_methods[i].fn(&r);
out:
	*reply = r.reply;
	cJSON_Delete(msg);
	return act;
}

void
mcp_call_free(struct mcp_call *call)
{
	cJSON_Delete(call->id);
	cJSON_Delete(call->args);
	cJSON_Delete(call->progress_token);
	memset(call, 0, sizeof(*call));
}
