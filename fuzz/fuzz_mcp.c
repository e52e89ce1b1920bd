/*
 * fuzz_mcp.c: `patrol mcp`'s request parser (patrol/mcp-proto.c) on
 * arbitrary message lines, with a two-row tool table of its own (the real
 * rows would pull in ssh and the tick).
 *
 * The input is split at '\n' into lines, handed one after the other to
 * mcp_handle in one session (so initialize changes what follows).  Every
 * answer must be one JSON-RPC 2.0 object with an id (a string, a number or
 * null) and exactly one of result and error; a call must name a row of the
 * table, with an object for arguments and an id, go through the arguments
 * check against the row's inputSchema, and its result line (built
 * from its own arguments) must parse back; a cancel must carry an id.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "mcp.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
fz_call(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	(void)out;
	return 0;
}

static const struct mcp_tool fz_a = {
	"a", "A", "tool a", "{\"type\":\"object\",\"properties\":{\"run\":{\"type\":\"string\"}},"
	"\"required\":[\"run\"],\"additionalProperties\":false}",
	"{\"type\":\"object\"}", MCP_READ_ONLY, fz_call
};
static const struct mcp_tool fz_b = {
	"b", "B", "tool b", "{\"type\":\"object\"}", "not json", MCP_DESTRUCTIVE, fz_call
};
static const struct mcp_tool *const fz_tools[] = { &fz_a, &fz_b };

static void
fz_check_reply(const char *reply)
{
	cJSON *o = cJSON_Parse(reply), *id;

	if (!cJSON_IsObject(o) || strchr(reply, '\n') != NULL ||
	    strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "jsonrpc")), "2.0") != 0)
		abort();
	id = cJSON_GetObjectItemCaseSensitive(o, "id");
	if (!cJSON_IsString(id) && !cJSON_IsNumber(id) && !cJSON_IsNull(id))
		abort();
	if ((cJSON_GetObjectItemCaseSensitive(o, "result") != NULL) ==
	    (cJSON_GetObjectItemCaseSensitive(o, "error") != NULL))
		abort();
	cJSON_Delete(o);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_session s;
	struct mcp_call call;
	struct mcp_out out;
	const char *p = (const char *)data, *end = p + size, *nl;
	char *reply;
	size_t len;

	memset(&s, 0, sizeof(s));
	s.tools = fz_tools;
	s.ntools = 2;
	while (p <= end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		switch (mcp_handle(&s, p, len, &reply, &call)) {
		case MCP_ACT_REPLY:
			fz_check_reply(reply);
			break;
		case MCP_ACT_CALL:
			if ((call.tool != &fz_a && call.tool != &fz_b) || !cJSON_IsObject(call.args) ||
			    call.id == NULL || reply != NULL)
				abort();
			free(mcp_args_check(call.tool, call.args));
			memset(&out, 0, sizeof(out));
			out.structured = cJSON_Duplicate(call.args, 1);
			out.text = xstrdup("text");
			out.is_error = len & 1;
			free(reply);
			reply = mcp_result_line(&s, call.id, &out);
			fz_check_reply(reply);
			break;
		case MCP_ACT_CANCEL:
			if (call.id == NULL)
				abort();
			break;
		case MCP_ACT_NONE:
			if (reply != NULL)
				abort();
			break;
		}
		free(reply);
		mcp_call_free(&call);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return 0;
}
