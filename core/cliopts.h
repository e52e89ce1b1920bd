/*
 * cliopts.h: the long options every watchkeeper program takes, spelled once.
 *
 * onbox, patrol, sentinel and handbook all read -c/--config FILE and answer
 * -v/--verbose, -V/--version and -h/--help the same way; their getopt_long
 * tables end with WK_LONGOPTS_COMMON (which ends the table too), so the
 * four cannot drift apart between programs.  The short letters stay in each
 * program's own optstring ("c:vVh" plus its own), and cli_common() is the
 * switch's default: it handles the four (and an unknown option) the same
 * way in every program.
 */
#ifndef WK_CLIOPTS_H
#define WK_CLIOPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#define WK_LONGOPTS_COMMON \
	{ "config", required_argument, NULL, 'c' }, \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "version", no_argument, NULL, 'V' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ NULL, 0, NULL, 0 }

/* What the common options said. */
struct cli_common {
	const char	*prog;		/* "patrol": --version prints "patrol <version>" */
	void		(*usage)(FILE *);
	const char	*config;	/* -c FILE, the last one given; NULL: none */
	int		 verbose;	/* how many -v */
};

#define CLI_NEXT	(-1)	/* the option loop goes on */

/*
 * The default of a getopt_long switch: c, v, V and h as every program takes
 * them (V prints "<prog> <version>", h the usage on stdout), anything else
 * (an unknown option, a missing argument) the usage on stderr.  Returns
 * CLI_NEXT, or the exit code main returns now: 0 after -V or -h,
 * WK_EX_USAGE after a wrong option.
 */
int cli_common(struct cli_common *c, int ch);

#endif
