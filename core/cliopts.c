/*
 * cliopts.c: the options every program takes, handled once (cliopts.h).
 */
#include <stdio.h>

#include "cliopts.h"
#include "exits.h"

int
cli_common(struct cli_common *c, int ch)
{
	switch (ch) {
	case 'c':
		c->config = optarg;
		return CLI_NEXT;
	case 'v':
		c->verbose++;
		return CLI_NEXT;
	case 'V':
		printf("%s %s\n", c->prog, WK_VERSION);
		return 0;
	case 'h':
		c->usage(stdout);
		return 0;
	default:
		c->usage(stderr);
		return WK_EX_USAGE;
	}
}
