/*
 * mwait.h: "marker wait": one check of a set of markers on the box, the
 * script that makes it and its strict parser, for sentinel (one check per
 * connection) and `onbox wait` (the same check, re-run as inotify sees the
 * markers or the attempt histories change).
 *
 * One POSIX sh script, built only with sshq quoting, reports per marker
 * whether it is there (and its JSON) and whether its .FAILED twin is there
 * (and its JSON); per stage that a marker belongs to, the stage's attempt
 * history (stages/<stage>.json, onbox's record: its last attempt is the
 * current one); and whether onbox and the stage process named by the
 * heartbeat are alive (the same /proc checks as the probe).
 *
 * Output framing is the probe's (probe.h): every line is a '@' section header
 * or a '|' data line, the last line is "@end":
 *
 *   @mwait 1 <box time>
 *   @alive
 *   |onbox <pid> <0|1>
 *   |stage <pid> <0|1>
 *   @marker <M> present|absent      once per marker; data: the marker's content
 *   @failed <M>                     when M.FAILED exists; data: its content
 *   @stage <S>                      once per stage; data: stages/<S>.json
 *   @stopped                        optional, once, last: the run was stopped on
 *                                   purpose; data: .watchkeeper/stopped
 *   @end
 *
 * Anything else, a missing or doubled section, a marker or stage that was not
 * asked about, a missing "@end": the whole output is rejected ("garbled" /
 * "truncated"), never read as a verdict.
 */
#ifndef WK_MWAIT_H
#define WK_MWAIT_H

#include <stddef.h>
#include <time.h>

#include <cJSON.h>

#define MWAIT_VERSION	1
#define MWAIT_DOC_MAX	65536		/* bytes of a marker or FAILED marker read */
#define MWAIT_STAGE_MAX	(1u << 20)	/* bytes of an attempt history read */
#define MWAIT_MAX_OUT	(8u << 20)	/* a check's whole output */

/*
 * What to check: markers (sorted, unique, valid names) and, per marker, its
 * stage or NULL (a bare marker: no attempt history to follow).  stages[] is
 * the distinct stages in the order markers name them.
 */
struct mwait_spec {
	char	**markers;
	char	**stage_of;	/* parallel to markers; entries may be NULL */
	size_t	  nmarkers;
	char	**stages;
	size_t	  nstages;
};

/*
 * Add marker (with stage, or NULL) keeping markers sorted and unique.
 * WK_ERR_INVALID when a name is not valid or the marker is already there
 * with another stage; 0 otherwise.
 */
int mwait_spec_add(struct mwait_spec *spec, const char *marker, const char *stage);
void mwait_spec_free(struct mwait_spec *spec);
/* Index of stage in spec->stages, or -1. */
int mwait_spec_stage(const struct mwait_spec *spec, const char *stage);

/* The check script for workdir (as on the box); caller frees. */
char *mwait_script(const char *workdir, const struct mwait_spec *spec);

/* The follow script's exit when the box has no `onbox wait` and plain ran instead. */
#define MWAIT_FOLLOW_FALLBACK	3
/*
 * The follow script (sentinel --follow, patrol mcp's wait): the box's
 * `onbox wait` for spec (the workdir's own onbox, else the one on PATH),
 * knowing attempt[] (parallel to spec->stages, 0: none; NULL: none at all),
 * bounded by timeout_s and polling every poll_ms; its output is the
 * check's.  Where the box has no `onbox wait`, plain (mwait_script) runs
 * instead and the script exits MWAIT_FOLLOW_FALLBACK.  Caller frees.
 */
char *mwait_follow_script(const char *workdir, const struct mwait_spec *spec, const long *attempt,
    long timeout_s, long poll_ms, const char *plain);

struct mwait_marker {
	int	 present;
	cJSON	*doc;		/* the marker's JSON, or NULL (empty, or not JSON: a bare touch) */
	int	 failed;	/* the .FAILED twin exists */
	cJSON	*failed_doc;	/* its JSON, or NULL when unreadable */
	long	 failed_attempt;	/* its "attempt", 0 unknown */
};

struct mwait_stage {
	int	 known;		/* the history exists and is readable */
	long	 attempt;	/* the current (last) attempt, 0 none */
	char	 result[16];	/* its "result": starting running done failed lost, or "" */
};

struct mwait {
	time_t			 box_time;
	long			 onbox_pid;	/* from the heartbeat, 0 none */
	int			 onbox_alive;	/* and it is an onbox */
	long			 stage_pid;
	int			 stage_alive;
	struct mwait_marker	*m;		/* parallel to spec->markers */
	size_t			 nm;
	struct mwait_stage	*s;		/* parallel to spec->stages */
	size_t			 ns;
	int			 stopped;	/* .watchkeeper/stopped is there (onbox stop) */
	cJSON			*stopped_doc;	/* its content, or NULL */
};

/*
 * Parse one check's stdout strictly against spec.  0 and *w (caller frees
 * with mwait_free), or WK_ERR_PARSE with *why (caller frees).
 */
int mwait_parse(const char *text, size_t len, const struct mwait_spec *spec, struct mwait *w,
    char **why);
void mwait_free(struct mwait *w);

/* The stage record of marker i, or NULL (a bare marker). */
const struct mwait_stage *mwait_stage_of(const struct mwait *w, const struct mwait_spec *spec,
    size_t i);
/*
 * 1 when marker i's FAILED twin is stale: it names an attempt older than the
 * stage's current one (a relaunch replaced the attempt that failed).
 */
int mwait_failed_stale(const struct mwait *w, const struct mwait_spec *spec, size_t i);

enum mwait_outcome {
	MWAIT_PENDING,	/* nothing decided yet */
	MWAIT_FOUND,	/* a marker is there */
	MWAIT_FAILED,	/* a live FAILED twin is there */
	MWAIT_STOPPED,	/* the run was stopped on purpose: no marker will come */
};

/*
 * What this check decides: a present marker first (in spec order), else a
 * run stopped on purpose (patrol's STOPPED ranks above CRASHED too), else a
 * FAILED twin that is not stale.  *which = the deciding marker's index (0
 * for a stop).
 */
enum mwait_outcome mwait_decide(const struct mwait *w, const struct mwait_spec *spec,
    size_t *which);

/*
 * 1 when a waiter must be told now: the check decides something, or a
 * stage's current attempt differs from base[j] (parallel to spec->stages;
 * 0 = no base for that stage; base NULL: none at all).
 */
int mwait_news(const struct mwait *w, const struct mwait_spec *spec, const long *base);

/* 1 when neither onbox nor the stage process is alive. */
int mwait_idle(const struct mwait *w);

#endif
