/*
 * slurmstart.h: `onbox start` for "detach": "slurm" (slurmstart.c).
 */
#ifndef WK_SLURMSTART_H
#define WK_SLURMSTART_H

#include "config.h"

/*
 * Submit the stages of cfg that have neither their marker nor a live job,
 * as jobs running onbox `self` with config `cfgpath` (absolute paths the
 * compute nodes see).  Prints what it did; returns the exit code.
 */
int slurmstart_run(struct wk_config *cfg, const char *self, const char *cfgpath);

#endif
