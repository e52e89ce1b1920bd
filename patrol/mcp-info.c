/*
 * mcp-info.c: STUB, replaced by the helper that owns it (see mcp.h).
 */
#include <cJSON.h>

#include "mcp.h"
#include "xmalloc.h"

static int
mcp_call_runs(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	out->is_error = 1;
	out->text = xstrdup("runs: not implemented yet");
	return -1;
}

const struct mcp_tool mcp_tool_runs_row = {
	"runs", "runs", "runs: every run this server knows (stub)",
	"{\"type\":\"object\"}", "{\"type\":\"object\"}", 0, mcp_call_runs
};

static int
mcp_call_handbook(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	out->is_error = 1;
	out->text = xstrdup("handbook: not implemented yet");
	return -1;
}

const struct mcp_tool mcp_tool_handbook_row = {
	"handbook", "handbook", "handbook (stub)",
	"{\"type\":\"object\"}", "{\"type\":\"object\"}", 0, mcp_call_handbook
};
