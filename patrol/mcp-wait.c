/*
 * mcp-wait.c: STUB, replaced by the helper that owns it (see mcp.h).
 */
#include <cJSON.h>

#include "mcp.h"
#include "xmalloc.h"

static int
mcp_call_wait(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	(void)ctx;
	(void)args;
	out->is_error = 1;
	out->text = xstrdup("wait: not implemented yet");
	return -1;
}

const struct mcp_tool mcp_tool_wait_row = {
	"wait", "wait", "wait (stub)",
	"{\"type\":\"object\"}", "{\"type\":\"object\"}", 0, mcp_call_wait
};
