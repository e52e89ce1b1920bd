/*
 * health-int.h: what the health files share (health.c, health-detect.c,
 * health-state.c) and callers never see.
 *
 * The struct splits in two: what the options compiled (patterns and
 * thresholds, fixed for the struct's life) and struct hl_state, every bit of
 * what was learned from the log.  The state holds no pointers, only fixed
 * arrays, so health_load() builds a new one aside and copies it in whole
 * when it parsed, and a torn or hostile state file cannot leave h half
 * loaded.
 */
#ifndef WK_HEALTH_INT_H
#define WK_HEALTH_INT_H

#include <stddef.h>

#include "health.h"
#include "pattern.h"

struct hl_sample {
	long	t;		/* the caller's now */
	long	step;		/* the last step observed at t */
};

struct hl_state {
	long	 attempt;
	/* progress */
	int	 prog_have;		/* ever */
	int	 prog_attempt;		/* in this attempt */
	long	 cur;
	long	 max_log;		/* the log's group 2; 0 none */
	long	 prog_time;
	long	 ws;			/* the attempt's first step (warm-up start for attempts > 1) */
	struct hl_sample samples[HEALTH_RATE_SAMPLES];	/* oldest first */
	size_t	 nsamples;
	/* W&B */
	char	 wb_url[HEALTH_URL_MAX];
	char	 wb_id[HEALTH_ID_MAX];
	char	 wb_name[HEALTH_ID_MAX];	/* the name printed with wb_url's run */
	char	 wb_pending[HEALTH_ID_MAX];	/* the newest "Syncing run NAME" of this attempt */
	char	 wb_seen[HEALTH_WANDB_IDS][HEALTH_ID_MAX];	/* ids reported this attempt */
	size_t	 wb_nseen;
	/* loss */
	long	 loss_n;		/* values this attempt */
	int	 loss_have;
	double	 loss_last;
	long	 loss_step;		/* step of loss_last; -1 unknown */
	double	 trend;
	long	 trend_n;
	long	 spike_run;
	int	 spike_latched;
	int	 nan_latched;
	/* throughput */
	long	 tp_n;			/* values this attempt */
	int	 tp_have;
	double	 tp_last;
	double	 base[HEALTH_TP_BASE_N];
	size_t	 nbase;
	double	 baseline;		/* valid when nbase == HEALTH_TP_BASE_N */
	double	 recent[HEALTH_TP_RECENT];	/* a ring of the values since the last tick */
	size_t	 nrecent;
	size_t	 recent_next;
	int	 tick_have;
	double	 tick_val;
	long	 low_ticks;
	long	 low_since;		/* unix seconds of the first low tick in a row; 0 none */
	int	 tp_latched;
	/* recovery: the attempt watched for its first step (health_expect_step); 0 none */
	long	 rec_attempt;
	long	 rec_since;		/* its launch, unix seconds */
	long	 rec_limit;		/* seconds */
	double	 rec_interval;		/* the step interval before the failure; <= 0 unknown */
	int	 rec_fired;
	/* resume: this attempt's (step, loss) pairs, a ring; the earlier lineage's, by step */
	struct hl_point { long step; double loss; } lr[HEALTH_RESUME_N], prev[HEALTH_RESUME_N];
	size_t	 nlr, lr_next, nprev;
	long	 res_from;		/* the checkpoint step this attempt resumed from; -1 fresh */
	long	 res_first;		/* this attempt's first step with a loss past it; -1 none */
	int	 res_latched;
	char	 res_text[HEALTH_TEXT_MAX];
	/* W&B files */
	int	 wf_seen;		/* in this attempt */
	char	 wf_id[HEALTH_ID_MAX];
	double	 wf_step, wf_ts;
	long long wf_txlog;
	long	 wf_since;		/* when they last moved (or were first seen) */
	long	 wf_prog;		/* the log's step then */
	int	 wf_id_latched;
	int	 wf_stale_latched;
	char	 wf_text[HEALTH_TEXT_MAX];	/* the identity alert's words */
	char	 wf_stale_text[HEALTH_TEXT_MAX];
	/* alerts not yet taken, oldest first */
	struct health_alert alerts[HEALTH_ALERTS_MAX];
	size_t	 nalerts;
	unsigned long seq;
	unsigned long dropped;
};

struct health {
	struct pattern	*progress;	/* NULL: off */
	long		 progress_max;
	struct pattern	*loss;
	double		 spike_pct;
	long		 spike_steps;
	long		 loss_warmup;
	struct pattern	*tp;
	double		 drop_pct;
	long		 tp_ticks;
	long		 tp_window_s;
	long		 tp_warmup;
	long		 resume_warmup;
	char		*wandb_id;	/* owned; NULL any */
	long		 wandb_stale_s;
	int		 wandb;
	struct hl_state	 st;
};

/* health-detect.c: the earlier lineage becomes this attempt's and the ones before. */
void hl_resume_new_attempt(struct hl_state *st);

/* health.c: a state as a new struct has it (nothing learned). */
void hl_state_reset(struct hl_state *st);

/* health-detect.c, for the view and the saved state */
/* A finite double for display: %.4g, or nan/inf. */
const char *hl_fmt(double v, char *buf, size_t len);
double hl_median(const double *vals, size_t n);
/* Steps per second over the window; < 0 unknown. */
double hl_rate(const struct hl_state *st);
/* " (attempt 2; before the failure a step came every 300 s)" into buf. */
const char *hl_rec_words(const struct hl_state *st, char *buf, size_t len);

#endif
