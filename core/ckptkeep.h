/*
 * ckptkeep.h: checkpoint retention (seed 004): which of a run's checkpoints
 * must be kept and which may be deleted (`patrol checkpoints --prune`).
 *
 * Kept, each for a reason the listing names:
 *   newest      the newest checkpoints.keep complete ones (default 3)
 *   recovery    the newest complete one: what {checkpoint} resumes from now
 *   final       a complete one at the final step (progress.max)
 *   launch      one an attempt started from (its history's "checkpoint"),
 *               or initialize_from when it lies in the directory
 *   milestone   a complete one whose step is a multiple of
 *               checkpoints.permanent_every
 *   in progress an incomplete one newer than the newest complete one: it
 *               may be being written right now
 *   rejected    of a rejected lineage (checkpoints.reject): kept for the
 *               post-mortem; deleted by hand only
 * Everything else is a deletion candidate: complete ones older than all of
 * the above, incomplete leftovers older than the newest complete one.  A
 * truncated listing (KEEP_UNSURE on what nothing else keeps) or one with no
 * complete checkpoint yields none.
 */
#ifndef WK_CKPTKEEP_H
#define WK_CKPTKEEP_H

#include <stddef.h>

#include "ckpt.h"

enum {
	KEEP_NEWEST	= 1 << 0,
	KEEP_RECOVERY	= 1 << 1,
	KEEP_FINAL	= 1 << 2,
	KEEP_LAUNCH	= 1 << 3,
	KEEP_MILESTONE	= 1 << 4,
	KEEP_INPROGRESS	= 1 << 5,
	KEEP_REJECTED	= 1 << 6,
	KEEP_UNSURE	= 1 << 7,	/* the listing was truncated: nothing is judged */
};

struct ckpt_keep_in {
	long		 newest;	/* checkpoints.keep */
	long long	 permanent_every; /* 0: none */
	long long	 final_step;	/* progress.max; 0: unknown */
	const char *const *launch;	/* paths an attempt started from */
	size_t		 nlaunch;
};

/*
 * why[i] for each of s->entries (an array of s->nentries): the KEEP_* bits,
 * 0 for a deletion candidate.  Returns the number of candidates.
 */
size_t ckpt_keep(const struct ckpt_scan *s, const struct ckpt_keep_in *in, unsigned *why);

/* "newest 3, recovery" and the like into out; "delete candidate" for 0. */
void ckpt_keep_text(unsigned why, char *out, size_t n);

#endif
