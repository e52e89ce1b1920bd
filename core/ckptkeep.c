/*
 * ckptkeep.c: which checkpoints must be kept (ckptkeep.h says why each).
 */
#include <stdio.h>
#include <string.h>

#include "ckptkeep.h"

static const struct {
	unsigned	 bit;
	const char	*word;
} keep_words[] = {
	{ KEEP_RECOVERY, "recovery" },
	{ KEEP_FINAL, "final" },
	{ KEEP_LAUNCH, "launch" },
	{ KEEP_NEWEST, "newest" },
	{ KEEP_MILESTONE, "milestone" },
	{ KEEP_INPROGRESS, "in progress" },
	{ KEEP_REJECTED, "rejected lineage" },
	{ KEEP_UNSURE, "listing truncated" },
};

size_t
ckpt_keep(const struct ckpt_scan *s, const struct ckpt_keep_in *in, unsigned *why)
{
	const struct ckpt_entry *e;
	size_t i, k, ncand = 0;
	long seen = 0;
	int trust = !s->truncated && s->newest != NULL;

	/* Entries run by step ascending: the newest complete ones are counted from the end. */
	for (i = s->nentries; i-- > 0;) {
		e = &s->entries[i];
		why[i] = 0;
		if (e->rejected)
			why[i] |= KEEP_REJECTED;
		if (e->complete && seen++ < in->newest)
			why[i] |= KEEP_NEWEST;
		if (e == s->newest)
			why[i] |= KEEP_RECOVERY;
		if (e->complete && in->final_step > 0 && e->step == in->final_step)
			why[i] |= KEEP_FINAL;
		if (e->complete && in->permanent_every > 0 && e->step > 0 &&
		    e->step % in->permanent_every == 0)
			why[i] |= KEEP_MILESTONE;
		for (k = 0; k < in->nlaunch; k++)
			if (in->launch[k] != NULL && strcmp(in->launch[k], e->path) == 0)
				why[i] |= KEEP_LAUNCH;
		if (!e->complete && !e->rejected && (s->newest == NULL || e->step > s->newest->step))
			why[i] |= KEEP_INPROGRESS;
		if (!trust && why[i] == 0)
			why[i] |= KEEP_UNSURE;	/* nothing is judged on a partial picture */
		ncand += why[i] == 0;
	}
	return ncand;
}

void
ckpt_keep_text(unsigned why, char *out, size_t n)
{
	size_t i, len = 0;

	out[0] = '\0';
	if (why == 0) {
		snprintf(out, n, "delete candidate");
		return;
	}
	for (i = 0; i < sizeof(keep_words) / sizeof(keep_words[0]) && len < n; i++)
		if (why & keep_words[i].bit) {
			snprintf(out + len, n - len, "%s%s", len > 0 ? ", " : "", keep_words[i].word);
			len = strlen(out);
		}
}
