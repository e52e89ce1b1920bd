/*
 * jobrun-int.h: what jobrun.c (submit, follow, reconcile, the attempt) and
 * jobwatch.c (the job's log, cluster signals in it, a capacity wait) share;
 * not for callers (they use jobrun.h).
 */
#ifndef WK_JOBRUN_INT_H
#define WK_JOBRUN_INT_H

#include <time.h>

#include <cJSON.h>

#include "config.h"
#include "jobctl.h"
#include "jobrun.h"
#include "monotime.h"
#include "pattern.h"

#define JR_NSIGNALS	3	/* jobwatch.c's jr_signals[] */

enum jobrun_end {
	JR_LIVE,		/* not ended */
	JR_FINAL,		/* the job reached a final state: jr->final */
	JR_SUBMIT_FAILED,	/* no job could be submitted: jr->why */
};

struct jobrun {
	const struct wk_config *cfg;
	const char	*instance;
	const struct notify_sinks *sinks;
	jobrun_emit_fn	 emit;
	void		*arg;
	struct jobctl	 jc;
	int		 has_find;
	long		 unknown_loud_s;
	long		 pending_alert_s;	/* job.pending_alert_s; 0: never */
	long		 logs_poll_ms;	/* job.logs_poll_ms; 0: every poll */
	int		 dialect_ready;	/* jobctl_dialect() answered for this run */
	int		 dialect_redetect;	/* the recorded dialect failed: detect again */
	int		 dialect_said;	/* a failing detection was said (once per streak) */
	struct pattern	*signal_re[JR_NSIGNALS];

	/* the attempt taken up; NULL a: none */
	const struct wk_stage *st;
	long		 n;
	cJSON		*hist;
	cJSON		*a;
	char		*name;
	int		 resubmit;	/* this attempt runs the stage's resubmit, not job.submit */
	struct deadline	 next;		/* the next poll; unset: now */
	struct deadline	 next_log;	/* the next fetch of the log; unset: at the next poll */
	struct deadline	 backoff;	/* no submit before it, after a refusal */
	int		 refused;	/* submits refused in a row */
	int		 launching;	/* inside jobrun_launch(): its caller emits stage_started */
	int		 stop_wanted;	/* timeout_s passed: stop the job */
	int		 find_said;	/* a failing find was said (once per streak) */
	int		 shrink_said;
	time_t		 unknown_since;	/* 0: the state is known */
	int		 unknown_loud;	/* the long unknown was said loudly */
	enum jobrun_end	 end;
	enum job_state	 final;
	char		*why;		/* JR_SUBMIT_FAILED */
};

/* The job followed (the attempt's job_id), or NULL. */
const char *jr_id(const struct jobrun *jr);
/* text through notify_scrub(): a CLI's stderr may quote a secret.  Caller frees. */
char *jr_scrub(const struct jobrun *jr, const char *text);
/* jr_scrub() that consumes text. */
char *jr_scrub_take(const struct jobrun *jr, char *text);
/* The stage's history to disk (a warning when it cannot be written). */
void jr_save(const struct jobrun *jr);

/* jobwatch.c */
void jr_signals_init(struct jobrun *jr);
void jr_signals_free(struct jobrun *jr);
/*
 * The copy went further than job_log_anchor says (onbox died between
 * appending and recording): the anchor from the output log's own end.
 */
void jr_anchor_rebuild(struct jobrun *jr);
/* Append what is new in the job's log to the attempt's output log. */
void jr_fetch_log(struct jobrun *jr);
/* Seconds the job followed has been pending, or -1 when it is not pending. */
long jr_pending_s(const struct jobrun *jr);
/* Pending past job.pending_alert_s: the one capacity_wait alert. */
void jr_capacity(struct jobrun *jr);

#endif
