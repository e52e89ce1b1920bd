/*
 * nanstop.h: loss.on_nan "stop": which run stage attempt must be stopped
 * because the health checker saw a NaN/Inf loss in it.
 *
 * The decision is taken once, from the nan_loss alert (core/health.c raises
 * it once per attempt), and kept in scan.json beside the health state that
 * raised it (saved together, atomically), so an onbox restarted between the
 * alert and the stage's end still stops the attempt and fails it as
 * nan_loss.  An entry for another stage or attempt is inert.
 */
#ifndef WK_NANSTOP_H
#define WK_NANSTOP_H

#include <cJSON.h>

#include "config.h"

struct nanstop {
	char	*stage;		/* NULL: nothing to stop */
	long	 attempt;
	char	*text;		/* the alert's line: the FAILED marker's evidence */
};

/* 1 when loss.on_nan is "stop". */
int nanstop_enabled(const struct wk_config *cfg);
/*
 * A nan_loss alert for stage's attempt (stage NULL: unknown, ignored):
 * with on_nan stop, remember it (the first one wins).  1 when the attempt
 * is now to be stopped.
 */
int nanstop_alert(struct nanstop *n, const struct wk_config *cfg, const char *stage,
    long attempt, const char *text);
/* The alert's text when this stage attempt is to be stopped, else NULL. */
const char *nanstop_due(const struct nanstop *n, const char *stage, long attempt);
/* Into / from scan.json's top level ("nan_stop": {stage, attempt, text}). */
void nanstop_save(const struct nanstop *n, cJSON *doc);
void nanstop_load(struct nanstop *n, const cJSON *doc);
void nanstop_free(struct nanstop *n);

#endif
