/*
 * mcp-tools.c: the MCP tools, one row each: mcp_tools[] is what tools/list
 * answers and what tools/call dispatches on.  Each row lives with its call
 * (mcp-info.c, mcp-read.c, mcp-act.c, mcp-wait.c); this file only orders them.
 */
#include <stddef.h>

#include "mcp.h"

const struct mcp_tool *const mcp_tools[] = {
	&mcp_tool_runs_row,
	&mcp_tool_status_row,
	&mcp_tool_wait_row,
	&mcp_tool_logs_row,
	&mcp_tool_events_row,
	&mcp_tool_handbook_row,
	&mcp_tool_resume_row,
	&mcp_tool_stop_row,
};

const size_t mcp_ntools = sizeof(mcp_tools) / sizeof(mcp_tools[0]);
