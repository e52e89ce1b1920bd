/*
 * mcp.c: STUB, replaced by the helper that owns it (see mcp.h).
 */
#include <stdio.h>

#include "mcp.h"

int
mcp_serve(char *const *configs, size_t nconfigs)
{
	(void)configs;
	(void)nconfigs;
	fprintf(stderr, "patrol mcp: not implemented yet (%zu tools)\n", mcp_ntools);
	return 70;
}
