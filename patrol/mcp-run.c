/*
 * mcp-run.c: STUB, replaced by the helper that owns it (see mcp.h).
 */
#include "mcp.h"
