/*
 * triage.h: failure classes, their fixed remediations, and the classifier.
 *
 * Two tables, both data (monit keeps its event wording in one table):
 *   triage_classes[]: every class with its name (used in FAILED markers,
 *     events and notifications), remediation, and whether a retry can help;
 *   triage_rules[]: log patterns in priority order, each naming its class.
 * The classifier combines what the log showed with how the process ended
 * (exit code, signal, the cgroup's oom_kill counter, our own timeout).
 */
#ifndef WK_TRIAGE_H
#define WK_TRIAGE_H

#include <stddef.h>

#include <cJSON.h>

#include "pattern.h"

enum triage_class {
	TRIAGE_NONE = 0,	/* success */
	TRIAGE_DISK_FULL,
	TRIAGE_CGROUP_OOM,
	TRIAGE_CUDA_OOM,
	TRIAGE_HBM_OOM,
	TRIAGE_NODE_LOST,
	TRIAGE_NCCL_TIMEOUT,
	TRIAGE_BAD_ACCELERATOR,
	TRIAGE_NAN_LOSS,
	TRIAGE_CODE_ERROR,
	TRIAGE_PREEMPTED,
	TRIAGE_KILLED,		/* a SIGKILL we did not send, the cgroup's oom_kill counter unchanged */
	TRIAGE_TIMEOUT,		/* our stage or wait timeout ran out */
	TRIAGE_NO_DONE_LINE,	/* exit 0 but done_when never appeared */
	TRIAGE_LOST,		/* the exit status was lost (wrapper killed) */
	TRIAGE_REBOOT,		/* the box rebooted under the stage */
	TRIAGE_MISSING_ARTIFACTS, /* the last stage ended well but completion.require is not met */
	TRIAGE_CLUSTER_FAILURE,	/* a cluster job failed with no cause in its log, or resources never came */
	TRIAGE_UNKNOWN,		/* failed, nothing recognised */
	TRIAGE_NCLASSES
};

struct triage_class_info {
	enum triage_class cls;
	const char	*name;		/* e.g. "cuda_oom" */
	const char	*title;		/* e.g. "CUDA out of memory" */
	const char	*remediation;
	int		 retryable;	/* a plain retry can succeed */
	int		 infra;		/* not the run's fault (preemption, node loss, reboot) */
};

/* Ray's autoscaler that cannot place a request: a triage rule, and a cluster signal of onbox's. */
#define TRIAGE_AUTOSCALER_RE	"(?i)autoscaler.{0,80}unsatisfied|unsatisfied resource demand|" \
	"No available node types can fulfill resource request"

struct triage_rule {
	enum triage_class cls;
	const char	*pattern;	/* PCRE2 */
	int		 crash;		/* a crash signature: fails a `wait` stage at once */
};

/*
 * crash == TRIAGE_SIGKILL_EVIDENCE: a crash signature that is evidence of a
 * SIGKILL, not of its cause (what sh and bash print for any SIGKILL of a
 * child): the stage cgroup's oom_kill counter decides between the rule's
 * class and TRIAGE_KILLED (triage_steps[]).
 */
#define TRIAGE_SIGKILL_EVIDENCE	2

extern const struct triage_class_info triage_classes[TRIAGE_NCLASSES];
extern const struct triage_rule triage_rules[];
extern const size_t triage_nrules;

const struct triage_class_info *triage_info(enum triage_class cls);
/* TRIAGE_NCLASSES when name is unknown. */
enum triage_class triage_by_name(const char *name);

/*
 * Incremental scan state: feed it every line of the current attempt's output.
 * Remembers, per rule, the first line that matched (bounded copy).
 */
struct triage_scan {
	struct patset	*set;
	unsigned char	*hits;		/* triage_nrules entries */
	char		**first_line;	/* triage_nrules entries, owned, NULL until hit */
	int		 crash_seen;	/* a rule with crash=1 matched */
	int		 traceback_seen;
};

int triage_scan_init(struct triage_scan *ts);
void triage_scan_line(struct triage_scan *ts, const char *line, size_t len);
void triage_scan_reset(struct triage_scan *ts);
void triage_scan_free(struct triage_scan *ts);
/*
 * The scan's hits as JSON (rule number -> its first line, and a digest of the
 * rule table), so a restarted onbox continues an attempt without reading its
 * log again.  Caller deletes.  triage_scan_load replaces ts's hits with saved
 * ones: 0, or WK_ERR_PARSE (ts unchanged) when doc is not one, or is from
 * another rule table.
 */
cJSON *triage_scan_save(const struct triage_scan *ts);
int triage_scan_load(struct triage_scan *ts, const cJSON *doc);

/* How the attempt ended. */
struct triage_input {
	int	exited;		/* 1: exit_code valid; 0: killed by signo */
	int	exit_code;
	int	signo;
	int	we_timed_out;	/* we killed it because timeout_s passed */
	int	we_stopped;	/* we sent the signal for another reason (never preempted) */
	long	oom_kills;	/* increase of the cgroup oom_kill counter, -1 unknown */
	int	oom_known;	/* 1: the stage cgroup's counter was read at launch and at the end */
	const char *oom_why;	/* !oom_known: why not (for the guess text), or NULL */
	int	done_required;	/* the stage has done_when */
	int	done_seen;
	int	status_lost;
	int	rebooted;
	const char *nan_stopped; /* loss.on_nan stop ended it: the alert's text, else NULL */
	const char *missing;	/* completion.require unmet for the last stage: what, else NULL */
};

/*
 * Classify.  TRIAGE_NONE means success (exit 0 and done_when satisfied).
 * *evidence (may be NULL) receives the log line that decided it, or NULL;
 * it points into ts and lives as long as ts.
 */
enum triage_class triage_classify(const struct triage_input *in, const struct triage_scan *ts,
    const char **evidence);
/*
 * triage_classify, and *guess (caller frees; NULL when the class is not a
 * guess): why the class rests on a guess, e.g. a foreign SIGKILL called
 * cgroup_oom with no oom_kill counter readable for the stage's cgroup.
 */
enum triage_class triage_classify_guess(const struct triage_input *in,
    const struct triage_scan *ts, const char **evidence, char **guess);
/* The text of the classifier's step i (triage_steps[], walked in order), NULL past the last. */
const char *triage_step_text(size_t i);

#endif
