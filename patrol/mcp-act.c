/*
 * mcp-act.c: STUB, replaced by the helper that owns it (see mcp.h).
 */
#include <cJSON.h>

#include "mcp.h"
#include "xmalloc.h"

static int
mcp_call_status(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	out->is_error = 1;
	out->text = xstrdup("status: not implemented yet");
	return -1;
}

const struct mcp_tool mcp_tool_status_row = {
	"status", "status", "status (stub)",
	"{\"type\":\"object\"}", "{\"type\":\"object\"}", 0, mcp_call_status
};

static int
mcp_call_resume(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	out->is_error = 1;
	out->text = xstrdup("resume: not implemented yet");
	return -1;
}

const struct mcp_tool mcp_tool_resume_row = {
	"resume", "resume", "resume (stub)",
	"{\"type\":\"object\"}", "{\"type\":\"object\"}", 0, mcp_call_resume
};

static int
mcp_call_stop(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	out->is_error = 1;
	out->text = xstrdup("stop: not implemented yet");
	return -1;
}

const struct mcp_tool mcp_tool_stop_row = {
	"stop", "stop", "stop (stub)",
	"{\"type\":\"object\"}", "{\"type\":\"object\"}", 0, mcp_call_stop
};
