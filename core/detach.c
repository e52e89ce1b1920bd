/*
 * detach.c: the names of enum detach (see detach.h), one table.
 */
#include <stddef.h>
#include <string.h>

#include "detach.h"

static const char *const detach_names[DETACH_NKINDS] = {
	[DETACH_TMUX] = "tmux",
	[DETACH_NOHUP] = "nohup",
	[DETACH_SLURM] = "slurm",
	[DETACH_JOB] = "job",
};

enum detach
detach_parse(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < DETACH_NKINDS; i++)
		if (strcmp(detach_names[i], name) == 0)
			return (enum detach)i;
	return DETACH_NKINDS;
}

const char *
detach_name(enum detach d)
{
	return (size_t)d < DETACH_NKINDS ? detach_names[d] : "?";
}
