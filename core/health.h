/*
 * health.h: training health from the run's own log, one line at a time:
 * progress and ETA, W&B run links, NaN/Inf loss, loss spikes, throughput
 * collapse.
 *
 * A struct health consumes each NEW line of the attempt's log exactly once
 * (the caller reads incrementally with logscan.h) and the caller calls
 * health_tick() once per check (onbox's heartbeat, patrol's tick).  Whatever
 * it concludes comes out two ways:
 *   - alerts (health_take_alerts): events that happened, each raised once and
 *     latched, so a condition that persists is not re-announced;
 *   - the view (health_view): where things stand now, including the current
 *     DEGRADED reasons, for the heartbeat, the probe, status and the handbook.
 * Its whole state is a small JSON object (health_save/health_load), so a
 * restarted onbox or patrol continues counting where it stopped and never
 * re-fires an alert.
 *
 * Persistence protocol for callers: keep health_save()'s object and the
 * logscan position (dev, inode, offset, fingerprint) of the same log in ONE
 * atomically written state file, saved after each batch of lines (or each
 * tick).  Then a restart feeds every line exactly once.  Alerts taken but not
 * yet delivered when the process dies are not in the saved state: hand them
 * to something durable (the outbox, events.jsonl) before saving; a crash
 * between the two re-delivers those alerts once, and their seq (strictly
 * increasing for one state, across save/load) lets a consumer drop the
 * duplicates.  Alerts raised but not yet taken are part of the saved state.
 *
 * The detectors (thresholds from the config's key tables; see config.c):
 *   progress  progress.pattern: group 1 = current step, group 2 = total.
 *	The max is progress.max when > 0 (exact, from config), else the log's
 *	last group 2.  Counts must be plain integers ("1,200" allowed): a
 *	rounded display value such as tqdm's "5.16k" is never taken.  Rate:
 *	steps per second between the newest observation and the newest sample
 *	at least HEALTH_RATE_WINDOW_S older (else the oldest kept): samples are
 *	kept at least HEALTH_RATE_SPACING_S apart, HEALTH_RATE_SAMPLES of them,
 *	and carry the caller's `now`, so a backlog fed in one go (a restart,
 *	patrol's 30-minute tick) lands as one sample and the rate stays right.
 *	A step that goes backwards (a resumed run, another progress bar)
 *	restarts the rate.  ETA = (max - cur) / rate, from the last progress line.
 *   W&B       lines with "wandb" or "/runs/": "wandb: 🚀 View run NAME at:
 *	URL", "wandb: Syncing run NAME", "View run at URL", and any bare
 *	http(s) URL with /runs/ID (ANSI colours ignored).  The URL kept ends
 *	at the id (a query string, which could carry a token, is dropped).
 *	Each run id is reported once per attempt (alert "wandb"); a new
 *	attempt reports the link it prints again, new id or the same one
 *	resumed.
 *   loss      loss.pattern group 1 is the value ("2.31", "1.2e-3", "nan",
 *	"-inf", "Infinity", ...); the same value again at the same step is a
 *	progress bar redrawn, not a new value.  NaN/Inf: alert "nan_loss" at
 *	once, once per attempt; it is a reason (CRITICAL) while the last value
 *	is NaN/Inf.  Trend: an EMA (span HEALTH_TREND_SPAN values, a plain
 *	mean for the first ones) of the values that were not counted as
 *	spikes; spikes are counted once the trend has HEALTH_TREND_MIN values.
 *	A value more than loss.spike_pct % above the trend is a spike;
 *	loss.spike_steps logged spike values in a row: alert "loss_spike"
 *	(DEGRADED), latched until a value comes back within half the threshold
 *	of the trend (alert "loss_recovered"); it may then fire again.
 *	A NaN/Inf neither counts as a spike nor breaks a run of them.
 *   throughput  throughput.pattern group 1: a rate where higher is better
 *	(tokens/s, it/s, samples/s).  Baseline: the median of the first
 *	HEALTH_TP_BASE_N values after warm-up.  Each health_tick() judges the
 *	median of the values logged since the previous tick (a tick with no
 *	new value changes nothing: a silent log is patrol's STALLED, not
 *	this); more than throughput.drop_pct % below the baseline is a low
 *	tick; throughput.ticks low ticks in a row: alert "throughput_drop"
 *	(DEGRADED), latched until a tick that is not low ("throughput_recovered").
 *	Note tqdm prints "s/it" instead of "it/s" below 1 it/s: a pattern for
 *	"it/s" alone then goes silent instead of low.
 *   recovery  after a relaunch the caller calls health_expect_step() with
 *	when the attempt started and how long its first step may take; a
 *	health_tick() at or past that limit with no progress line in the
 *	attempt raises "recovery_stalled" (DEGRADED), once per attempt (kept
 *	across save/load), and it is a reason until a progress line comes.
 *   resume    (loss.pattern and progress.pattern) each attempt keeps its last
 *	HEALTH_RESUME_N (step, loss) pairs; an attempt that resumed from a
 *	checkpoint (health_resume_from) has its loss at a step past it that
 *	the earlier lineage logged compared with it: more than
 *	HEALTH_RESUME_ABS apart (loss.resume_warmup_steps 0: a replay from an
 *	exact checkpoint), or, with a post-resume warm-up, more than
 *	HEALTH_RESUME_REL of it once the attempt is that many steps past its
 *	first step (steps inside the warm-up are not judged): alert
 *	"resume_mismatch" (CRITICAL), once per attempt, a reason while latched.
 *   W&B files (health_wandb_files, fed by onbox from the box's wandb/
 *	directory): a run id other than wandb.id (or one in a log line):
 *	"wandb_identity" (CRITICAL), once per attempt; the run's transaction
 *	log not growing (nor its summary moving) for wandb.stale_s while the
 *	log's step advances: "wandb_stale" (DEGRADED), latched until it grows
 *	("wandb_fresh").
 * Warm-up (loss.warmup_steps, throughput.warmup_steps): values logged while
 * the current step is below warmup_steps are not judged (loss values still
 * feed the trend).  In a later attempt (> 1) warm-up counts from the first
 * step that attempt logs, since a resumed run warms up again.  Without a
 * progress line in the attempt, warm-up counts logged values of that metric.
 * A new attempt starts its loss trend and throughput baseline afresh (it may
 * have started from scratch or on other hardware).
 *
 * Bounds: at most HEALTH_LINE_MAX bytes of a line are examined (a line that
 * holds '\r' is judged by its last non-empty '\r' segment within them, as a
 * progress bar redraws); every buffer is fixed; the alert queue holds
 * HEALTH_ALERTS_MAX (the oldest are dropped and counted).  No global state;
 * one struct health must not be used from two threads at once.
 *
 * Time: `now` arguments are wall-clock seconds (time(NULL)) when the caller
 * saw the line or ticked; they are only compared with each other.
 */
#ifndef WK_HEALTH_H
#define WK_HEALTH_H

#include <stddef.h>
#include <time.h>

#include <cJSON.h>

#include "config.h"

#define HEALTH_LINE_MAX		16384	/* bytes of one line examined */
#define HEALTH_RATE_WINDOW_S	600	/* the rate's window */
#define HEALTH_RATE_SPACING_S	60	/* minimum spacing of kept rate samples */
#define HEALTH_RATE_SAMPLES	16	/* kept rate samples (16 x 60 s > the window) */
#define HEALTH_RATE_MIN_S	10	/* no rate over less than this */
#define HEALTH_TREND_SPAN	20	/* EMA span of the loss trend, in values */
#define HEALTH_TREND_MIN	5	/* values in the trend before spikes count */
#define HEALTH_TP_BASE_N	20	/* values after warm-up that make the baseline */
#define HEALTH_TP_RECENT	64	/* values kept between two ticks (the newest) */
#define HEALTH_WANDB_IDS	8	/* W&B ids remembered per attempt */
#define HEALTH_ALERTS_MAX	32	/* alerts raised and not yet taken */
#define HEALTH_REASONS_MAX	6
#define HEALTH_RESUME_N		256	/* (step, loss) pairs kept for the resume check */
#define HEALTH_RESUME_ABS	0.002	/* a replayed step's loss may differ this much ... */
#define HEALTH_RESUME_REL	0.01	/* ... or, after loss.resume_warmup_steps, this fraction */
#define HEALTH_TEXT_MAX		256
#define HEALTH_URL_MAX		512
#define HEALTH_ID_MAX		128

struct health;

enum health_kind {
	HEALTH_WANDB,			/* a W&B run link, first seen in this attempt */
	HEALTH_NAN_LOSS,		/* loss was NaN or Inf */
	HEALTH_LOSS_SPIKE,		/* loss above its trend for spike_steps values */
	HEALTH_LOSS_RECOVERED,		/* ... and back near it */
	HEALTH_THROUGHPUT_DROP,		/* throughput below its baseline for `ticks` ticks */
	HEALTH_THROUGHPUT_RECOVERED,	/* ... and back */
	HEALTH_RECOVERY_STALLED,	/* no step in a relaunched attempt within its limit */
	HEALTH_CAPACITY_WAIT,		/* a cluster job pending past job.pending_alert_s (onbox/jobrun.c) */
	HEALTH_CLUSTER_STALL,		/* no progress with a cluster signature in the job's log (patrol) */
	HEALTH_RESUME_MISMATCH,		/* a resumed attempt's loss departs from the earlier lineage's */
	HEALTH_WANDB_IDENTITY,		/* the W&B run logged to is not wandb.id */
	HEALTH_WANDB_STALE,		/* W&B's summary stands still while the log advances */
	HEALTH_WANDB_FRESH,		/* ... and moves again */
	HEALTH_NKINDS
};

enum health_severity {
	HEALTH_INFO,		/* for the record (links, recoveries) */
	HEALTH_DEGRADED,	/* patrol's DEGRADED */
	HEALTH_CRITICAL,	/* look now: the run is likely lost (DEGRADED as a verdict) */
};

struct health_kind_info {
	enum health_kind kind;
	const char	*name;		/* "wandb", "nan_loss", ...: events, notify filters */
	enum health_severity severity;
	const char	*title;		/* "loss spike" */
};

/* Indexed by kind; one row per kind. */
extern const struct health_kind_info health_kinds[HEALTH_NKINDS];
const char *health_kind_name(enum health_kind kind);
/* HEALTH_NKINDS when name is unknown. */
enum health_kind health_kind_by_name(const char *name);
const char *health_severity_name(enum health_severity sev);	/* "info", "degraded", "critical" */

/*
 * What a struct health watches for.  A NULL pattern switches its detector
 * off (W&B detection has no pattern: wandb != 0 switches it on).
 */
struct health_opts {
	const char	*progress_re;	/* progress.pattern */
	long		 progress_max;	/* progress.max; 0: from the log's group 2 */
	const char	*loss_re;	/* loss.pattern */
	double		 spike_pct;	/* loss.spike_pct */
	long		 spike_steps;	/* loss.spike_steps */
	long		 loss_warmup;	/* loss.warmup_steps */
	const char	*tp_re;		/* throughput.pattern */
	double		 drop_pct;	/* throughput.drop_pct */
	long		 tp_ticks;	/* throughput.ticks */
	long		 tp_window_s;	/* throughput.window_s (0 in the config: 3 patrol intervals) */
	long		 tp_warmup;	/* throughput.warmup_steps */
	long		 resume_warmup;	/* loss.resume_warmup_steps */
	const char	*wandb_id;	/* wandb.id: the run W&B must log to; NULL any */
	long		 wandb_stale_s;	/* wandb.stale_s */
	int		 wandb;
};

/*
 * opts from cfg: the progress, loss and throughput keys (with the key
 * tables' defaults) and wandb = 1.  Strings point into cfg.
 */
void health_opts_from_config(const struct wk_config *cfg, struct health_opts *o);

/*
 * Compile the patterns once.  On success 0 and *out (free with
 * health_free()); on failure *out = NULL, WK_ERR_REGEX or WK_ERR_INVALID,
 * and errbuf (may be NULL) names the key ("loss.pattern: missing closing
 * parenthesis at offset 5", "throughput.pattern: needs a capture group").
 * Thresholds out of range (<= 0, drop_pct > 100) take the key tables'
 * defaults.  The struct keeps no pointer into o or cfg.  The state starts
 * empty at attempt 0.
 */
int health_new_opts(const struct health_opts *o, struct health **out, char *errbuf,
    size_t errlen);
int health_new(const struct wk_config *cfg, struct health **out, char *errbuf, size_t errlen);
void health_free(struct health *h);

/*
 * The attempt whose log follows (onbox's attempt number, 1 for the first).
 * The same number again is a no-op, so a restarted onbox that re-attaches to
 * a running attempt may call it after health_load().  Another number starts
 * the per-attempt state afresh: W&B ids reported, NaN and spike latches, the
 * loss trend, the throughput baseline and ticks, the rate, warm-up.  Pending
 * alerts, the last values and the last W&B link stay.
 */
void health_new_attempt(struct health *h, long attempt);
long health_attempt(const struct health *h);

/* One new line of the log (without its '\n'; not NUL-terminated; any bytes). */
void health_line(struct health *h, const char *line, size_t len, time_t now);

/* One check: judges throughput and recovery (see the top of the file). */
void health_tick(struct health *h, time_t now);

/*
 * Watch the current attempt (health_new_attempt's) for its first progress
 * line: started is when it was launched (unix seconds), limit_s how long
 * that may take (> 0), interval_s the step interval before the failure for
 * the alert's words (<= 0 unknown).  Called again for the same attempt (a
 * restarted onbox re-attaching) it updates the numbers and never fires a
 * second time.  Needs progress.pattern (else it is a no-op).
 */
void health_expect_step(struct health *h, time_t started, long limit_s, double interval_s);

/*
 * The current attempt resumed from a checkpoint at step (onbox: the
 * attempt's checkpoint_step_from): only then are its losses compared with
 * the earlier lineage's (a fresh start is another lineage).  Kept across
 * save/load; a new attempt forgets it.
 */
void health_resume_from(struct health *h, long step);

/*
 * What the box's wandb directory says now (onbox reads it every heartbeat
 * when the config has a "wandb" section): seen 0 while no run directory of
 * this attempt exists yet.  The client (wandb-core, 0.18 and later) appends
 * every logged record to the run's transaction log run-<id>.wandb, in 32 KiB
 * blocks, and writes files/wandb-summary.json only when the run finishes:
 * txlog is the former's size, step and ts the latter's _step and
 * _timestamp (NAN until it exists).
 */
struct health_wandb_files {
	int	 seen;
	char	 id[HEALTH_ID_MAX];	/* run-<id>.wandb's id (else the directory name's) */
	char	 dir[HEALTH_URL_MAX];	/* the run directory, for messages */
	long long txlog;		/* bytes; -1 no transaction log */
	double	 step;
	double	 ts;
};
void health_wandb_files(struct health *h, const struct health_wandb_files *f, time_t now);

/*
 * Seconds per step in the current attempt from its progress lines: from
 * the first kept sample to the newest (at most HEALTH_RATE_SAMPLES x
 * HEALTH_RATE_SPACING_S back); < 0 when unknown (fewer than two samples at
 * different seconds, or no step advanced).
 */
double health_step_interval(const struct health *h);

struct health_alert {
	enum health_kind kind;
	enum health_severity severity;
	unsigned long	 seq;		/* 1, 2, ...: strictly increasing per state */
	time_t		 time;		/* the `now` of the line or tick that raised it */
	long		 attempt;
	long		 step;		/* current step then; -1 unknown */
	double		 value;		/* the loss / throughput (NAN for wandb) */
	double		 ref;		/* the trend / baseline (NAN when none) */
	char		 text[HEALTH_TEXT_MAX];	/* one printable line */
	char		 url[HEALTH_URL_MAX];	/* wandb: the run's URL; else "" */
	char		 id[HEALTH_ID_MAX];	/* wandb: the run id; else "" */
};

/*
 * Alerts raised since the last take, oldest first.  Returns their number;
 * *out is a new array (caller free()s it; NULL when 0).
 */
size_t health_take_alerts(struct health *h, struct health_alert **out);
/*
 * {event, severity, seq, time, attempt, step, [value,] [ref,] text[, url, id]}
 * (value: not for wandb; ref: when known; NaN/Inf as "nan"/"inf"/"-inf").
 * Caller deletes.
 */
cJSON *health_alert_json(const struct health_alert *a);

struct health_reason {
	enum health_kind kind;	/* HEALTH_NAN_LOSS, HEALTH_LOSS_SPIKE, HEALTH_THROUGHPUT_DROP */
	char	 text[HEALTH_TEXT_MAX];	/* "loss_spike: loss 4.1 is 86% above its trend 2.2 ..." */
};

/* Where things stand; a plain value the caller owns (no pointers into h). */
struct health_view {
	long	 attempt;
	/* progress */
	int	 have_progress;	/* a progress line was seen */
	long	 cur;
	long	 max;		/* 0: unknown */
	int	 max_from_config;	/* max is progress.max (exact), not the log's */
	char	 text[64];	/* "~cur/max", "~cur/unknown" or "unknown", as the heartbeat says */
	time_t	 progress_time;	/* `now` of the last progress line; 0 none */
	double	 rate;		/* steps/s; < 0 unknown */
	long	 eta_s;		/* seconds after progress_time; 0 when cur >= max; -1 unknown */
	/* W&B: the newest link ("" none) */
	char	 wandb_url[HEALTH_URL_MAX];
	char	 wandb_id[HEALTH_ID_MAX];
	char	 wandb_name[HEALTH_ID_MAX];
	/* loss */
	int	 have_loss;
	double	 loss;		/* the last value; may be NaN or Inf */
	double	 loss_trend;	/* NAN until it has HEALTH_TREND_MIN values */
	long	 spike_run;	/* spike values in a row now */
	/* throughput */
	int	 have_throughput;
	double	 throughput;	/* the last value */
	double	 tp_tick;	/* the median the last tick judged; NAN none */
	double	 tp_baseline;	/* NAN until it is set */
	long	 low_ticks;	/* low ticks in a row now */
	/* what is wrong now, worst first */
	size_t	 nreasons;
	struct health_reason reasons[HEALTH_REASONS_MAX];
	unsigned long alerts_dropped;	/* alerts lost to a full queue (never taken) */
};

void health_view(const struct health *h, struct health_view *v);
/*
 * {attempt, progress: {text, cur, max, max_source, rate, eta_s, time},
 *  wandb: {url, id, name}, loss: {last, trend, spike_run},
 *  throughput: {last, tick, baseline, low_ticks}, degraded: [{kind, text}]}:
 * absent members are unknown; NaN/Inf are written as "nan"/"inf"/"-inf".
 * Caller deletes.
 */
cJSON *health_view_json(const struct health_view *v);

/*
 * The whole state (not the options) as a new JSON object; caller deletes.
 * It is bounded (a few kB plus the pending alerts).
 */
cJSON *health_save(const struct health *h);
/*
 * Replace h's state with a saved one.  Missing members take their empty
 * values and out-of-range ones are clamped, so any object loads; 0, or
 * WK_ERR_PARSE (h unchanged) when doc is not an object or comes from a newer
 * format.
 */
int health_load(struct health *h, const cJSON *doc);

#endif
