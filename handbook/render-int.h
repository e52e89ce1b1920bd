/*
 * render-int.h: what the handbook renderer's files share (private to
 * handbook/render*.c): one rendering's context, the helpers every section
 * uses, and the sections that render.c's hb_sections[] walks.
 */
#ifndef WK_HANDBOOK_RENDER_INT_H
#define WK_HANDBOOK_RENDER_INT_H

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "handbook.h"
#include "monotime.h"
#include "notify.h"

#define HB_CELL_MAX		300		/* bytes of box text in one table cell or list item */

/* One rendering. */
struct hb {
	const struct handbook_ctx *c;
	const struct wk_config	*cfg;
	const cJSON		*ps;		/* patrol.json or NULL */
	struct buf		 b;
	struct notify_sinks	 sinks;
	char			*patrol;	/* "<bindir>/patrol", quoted as one word */
	char			*sentinel;
	char			*cfgq;		/* the config path, quoted */
	char			*ssh;		/* "ssh [-F ...] host" quoted words, or NULL (no box.host) */
	char			 now[TIMEFMT_LEN];
};

/* render.c: helpers. */
/* A number as people write it: integral values without a fraction. */
void hb_num(struct buf *b, double v);
/* Box or state text: scrubbed, bounded, as a code span. */
void hb_boxtext(struct hb *h, const char *s, int cell);
/* The ssh command that runs remote (one line of sh) on the box, or NULL. */
char *hb_ssh_cmd(const struct hb *h, const char *remote);
/* 1 present, 0 absent at the last seen tick, -1 unknown. */
int hb_marker_state(const cJSON *ps, const char *marker);
/* The FAILED record for marker, or NULL. */
const cJSON *hb_failed(const cJSON *ps, const char *marker);
int hb_failed_known(const cJSON *ps);
/* The table intro, then a header row "| a | b |" and its rule, from "a|b". */
void hb_table_head(struct buf *b, const char *intro, const char *cols);

/* render-box.c */
void hb_title(struct hb *h);
void hb_contract(struct hb *h);
void hb_first(struct hb *h);
/* render-status.c */
void hb_status(struct hb *h);
void hb_chain(struct hb *h);
void hb_markers(struct hb *h);
void hb_resume(struct hb *h);
/* render-tables.c */
void hb_decide(struct hb *h);
void hb_cron(struct hb *h);
void hb_sentinel(struct hb *h);
void hb_triage(struct hb *h);
void hb_logbook(struct hb *h);
/* render-record.c */
void hb_record(struct hb *h);
void hb_slurm(struct hb *h);
/* render-job.c */
void hb_jobs(struct hb *h);

#endif
