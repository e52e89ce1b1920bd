/*
 * detach.h: how onbox outlives ssh ("detach" in the config), as an enum.
 *
 * The config key table (config.c, key "detach": its choices and default)
 * stays the source of the key; this is the one table of its names, so no
 * file compares the "detach" string itself.
 */
#ifndef WK_DETACH_H
#define WK_DETACH_H

enum detach {
	DETACH_TMUX,	/* a tmux session (the default) */
	DETACH_NOHUP,	/* setsid + nohup */
	DETACH_SLURM,	/* the chain as Slurm jobs (onbox/slurmstart.c) */
	DETACH_JOB,	/* each run stage's attempt a cluster job (onbox/jobrun.c) */
	DETACH_NKINDS	/* not a name of the table */
};

/* "tmux" -> DETACH_TMUX, ...; DETACH_NKINDS for NULL or a name not in the table. */
enum detach detach_parse(const char *name);
/* DETACH_TMUX -> "tmux", ...; "?" out of range. */
const char *detach_name(enum detach d);

#endif
