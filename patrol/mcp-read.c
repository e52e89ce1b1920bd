/*
 * mcp-read.c: STUB, replaced by the helper that owns it (see mcp.h).
 */
#include <cJSON.h>

#include "mcp.h"
#include "xmalloc.h"

static int
mcp_call_logs(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	out->is_error = 1;
	out->text = xstrdup("logs: not implemented yet");
	return -1;
}

const struct mcp_tool mcp_tool_logs_row = {
	"logs", "logs", "logs (stub)",
	"{\"type\":\"object\"}", "{\"type\":\"object\"}", 0, mcp_call_logs
};

static int
mcp_call_events(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	out->is_error = 1;
	out->text = xstrdup("events: not implemented yet");
	return -1;
}

const struct mcp_tool mcp_tool_events_row = {
	"events", "events", "events (stub)",
	"{\"type\":\"object\"}", "{\"type\":\"object\"}", 0, mcp_call_events
};
