/*
 * policy.c: the restart policy table, the facts it is walked over, and the
 * reader of a stage's attempt history (see policy.h).
 *
 * The facts are worked out once, from the attempts and the restart.* keys,
 * so that each predicate is a comparison and its words; the table is the
 * order of the rules, which is the point: a finished run or an unseen box
 * stops before anything about the failure is weighed, and a class that
 * cannot be helped by a retry stops before counting anything.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ckpt.h"
#include "err.h"
#include "jsonfile.h"
#include "policy.h"
#include "triage.h"

/* Sane bounds for values read from a history file (year 9999, attempt and pid ranges). */
#define POLICY_TIME_MAX		253402300799.0
#define POLICY_STEP_MAX		1e15

/*
 * Classes that never count against the budget besides triage's infra ones:
 * "lost" means the exit status is gone (our wrapper died), so whose fault
 * it was is unknown, and a restart is the only way to learn more.
 */
static const enum triage_class policy_free_classes[] = {
	TRIAGE_LOST,
};

static void
say(struct policy_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
say(struct policy_out *o, const char *fmt, ...)
{
	size_t n = strlen(o->reason);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->reason + n, sizeof(o->reason) - n, fmt, ap);
	va_end(ap);
}

/* The class's words: "nccl_timeout (NCCL collective timeout or error)". */
static void
say_class(struct policy_out *o, const struct policy_facts *f)
{
	if (f->known)
		say(o, "%s (%s)", f->last->cls, f->ci->title);
	else
		say(o, "%.64s (not a known failure class)", f->last->cls);
}

static int
class_free(enum triage_class cls)
{
	size_t i;

	if (triage_info(cls)->infra)
		return 1;
	for (i = 0; i < sizeof(policy_free_classes) / sizeof(policy_free_classes[0]); i++)
		if (policy_free_classes[i] == cls)
			return 1;
	return 0;
}

/* restart.retry_classes, or NULL when it is not set. */
static const cJSON *
retry_classes(const struct wk_config *cfg)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(cfg->root, "restart");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "retry_classes");

	return cJSON_IsArray(a) ? a : NULL;
}

static int
class_listed(const cJSON *list, const char *name)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, list)
		if (cJSON_IsString(it) && strcmp(it->valuestring, name) == 0)
			return 1;
	return 0;
}

/* May a failure of this class be retried: restart.retry_classes, else the triage table. */
static int
class_retryable(const struct wk_config *cfg, const char *name)
{
	enum triage_class cls = triage_by_name(name);
	const cJSON *list = retry_classes(cfg);

	if (cls == TRIAGE_NCLASSES || cls == TRIAGE_NONE)
		return 0;
	return list != NULL ? class_listed(list, name) : triage_info(cls)->retryable;
}

/*
 * Does a failure of this class count against the budget?  Only the ones
 * the policy restarts by itself: retryable and not infrastructure.  A
 * never-retry failure is stopped and fixed by a person; the relaunch that
 * follows is theirs, not a spent automatic restart.
 */
static int
class_counts(const struct wk_config *cfg, const char *name)
{
	return class_retryable(cfg, name) && !class_free(triage_by_name(name));
}

/* ---- predicates, in table order ---- */

static int
pred_finished(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	(void)f;
	if (!in->finished)
		return 0;
	say(o, "the run is finished (its final marker is present): it is never restarted");
	return 1;
}

static int
pred_unseen(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	(void)f;
	if (in->seen)
		return 0;
	say(o, "the box was not seen: unreachable is not dead, and nothing is decided from a "
	    "failed probe");
	return 1;
}

static int
pred_no_failure(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	(void)in;
	if (f->last != NULL && f->last->cls != NULL)
		return 0;
	if (f->last == NULL)
		say(o, "no ended attempt is recorded: there is no failure to restart");
	else
		say(o, "attempt %ld succeeded: there is no failure to restart", f->last->n);
	return 1;
}

static int
pred_never_retry(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	if (f->retryable)
		return 0;
	say(o, "attempt %ld failed with ", f->last->n);
	say_class(o, f);
	if (f->known && retry_classes(in->cfg) != NULL)
		say(o, ", not in restart.retry_classes: not restarted");
	else
		say(o, ", which a plain retry does not fix: not restarted");
	say(o, ". %s", f->ci->remediation);
	return 1;
}

/*
 * A bad accelerator on a cluster job: relaunched in place, the manager may put
 * it back on the same worker.  The seeds replace the node first (000) or
 * escalate (001), and never change a cluster without the owner's consent.
 */
static int
pred_consent(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	if (in->cfg->detach_kind != DETACH_JOB || !f->known ||
	    triage_by_name(f->last->cls) != TRIAGE_BAD_ACCELERATOR)
		return 0;
	/* A manager that can keep a job off a node (Slurm's --exclude): resubmitted elsewhere. */
	if (config_get_str(in->cfg, "job.exclude") != NULL && config_get_str(in->cfg, "job.node") != NULL)
		return 0;
	o->escalate = 1;
	say(o, "attempt %ld failed with ", f->last->n);
	say_class(o, f);
	say(o, " on a cluster job: not relaunched onto the same worker; the worker named in the "
	    "evidence line must be replaced or drained, which needs the owner's consent (the "
	    "cluster is never changed without it), then onbox start");
	return 1;
}

static int
pred_escalate(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	(void)in;
	if (f->escalate_s <= 0 || f->last->progressed || f->prev == NULL || f->prev->cls == NULL ||
	    strcmp(f->prev->cls, f->last->cls) != 0 || f->duration < 0 || f->duration > f->escalate_s)
		return 0;
	say(o, "attempt %ld failed with ", f->last->n);
	say_class(o, f);
	say(o, " %lds after its start without progress, as attempt %ld did: restarting does not "
	    "fix it, escalate (restart.escalate_s %ld). %s", f->duration, f->prev->n, f->escalate_s,
	    f->ci->remediation);
	return 1;
}

static int
pred_no_progress(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	const struct attempt *first;

	(void)in;
	if (f->np_max <= 0 || f->np_run < f->np_max)
		return 0;
	first = f->last - (f->np_max - 1);
	if (f->np_max == 1)
		say(o, "attempt %ld failed", f->last->n);
	else if (f->np_max == 2)
		say(o, "attempts %ld and %ld both failed", first->n, f->last->n);
	else
		say(o, "the last %ld attempts (%ld to %ld) all failed", f->np_max, first->n,
		    f->last->n);
	say(o, " without a new complete checkpoint (");
	if (f->last->ckpt_step >= 0)
		say(o, "newest still step %ld", f->last->ckpt_step);
	else
		say(o, "still none");
	say(o, "): a restart would repeat them, not restarted (restart.no_progress_max %ld). "
	    "Newest: attempt %ld, ", f->np_max, f->last->n);
	say_class(o, f);
	say(o, ". Find why it fails before its next checkpoint (its last lines), fix the cause, "
	    "then onbox start");
	return 1;
}

static int
pred_flapping(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	(void)in;
	if (f->in_window <= f->max_in_window)
		return 0;
	say(o, "%ld failures ended within %lds, more than restart.max_in_window %ld: flapping, "
	    "not restarted. Newest: attempt %ld, ", f->in_window, f->window_s, f->max_in_window,
	    f->last->n);
	say_class(o, f);
	say(o, ". %s", f->ci->remediation);
	return 1;
}

static int
pred_budget(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	(void)in;
	if (!f->counts || f->used_before < f->max)
		return 0;
	say(o, "attempt %ld failed with ", f->last->n);
	say_class(o, f);
	say(o, ": restart budget spent (%ld of restart.max %ld since the last progress), not "
	    "restarted. %s", f->used_before, f->max, f->ci->remediation);
	return 1;
}

static int
pred_retry(const struct policy_in *in, const struct policy_facts *f, struct policy_out *o)
{
	(void)in;
	say(o, "attempt %ld failed with ", f->last->n);
	say_class(o, f);
	if (f->counts)
		say(o, ", retryable: restart %ld of restart.max %ld", f->used_before + 1, f->max);
	else
		say(o, ", infrastructure: restart, not counted against the budget (%ld of %ld used)",
		    f->used_before, f->max);
	return 1;
}

const struct policy_row policy_table[] = {
	{ POLICY_FINISHED, "finished", pred_finished, POLICY_STOP,
	  "the run's final marker is present",
	  "never restart what is finished, even when its session or job is gone" },
	{ POLICY_UNSEEN, "unseen", pred_unseen, POLICY_STOP,
	  "the box (or the job's status) could not be seen",
	  "unreachable is not dead: nothing is restarted from a failed probe; look again next tick" },
	{ POLICY_NO_FAILURE, "no_failure", pred_no_failure, POLICY_STOP,
	  "the stage's newest ended attempt did not fail (or none is recorded)",
	  "there is no failure to restart" },
	{ POLICY_NEVER_RETRY, "never_retry", pred_never_retry, POLICY_STOP,
	  "the failure's class is not retryable (restart.retry_classes when set, else the triage "
	  "table: code errors, OOM, HBM exhaustion, disk full, NaN loss, timeouts, unknown)",
	  "reported with the class's remediation; fix the cause, then onbox start" },
	{ POLICY_CONSENT, "consent", pred_consent, POLICY_STOP,
	  "bad_accelerator on a cluster job (detach job: Ray, Iris) whose manager cannot keep the "
	  "next job off that node (Slurm can: job.exclude, and the retry excludes the node)",
	  "not relaunched in place: the worker named in the evidence is reported and the owner's "
	  "consent asked before the cluster is changed (a node replaced or drained)" },
	{ POLICY_ESCALATE, "escalate", pred_escalate, POLICY_STOP,
	  "the same class as the attempt before, and it failed within restart.escalate_s of its "
	  "start without real progress (infrastructure classes too)",
	  "the restart did not help: a person looks at it (a box that reboots after every restart "
	  "is not fixed by restarting)" },
	{ POLICY_NO_PROGRESS, "no_progress", pred_no_progress, POLICY_STOP,
	  "the last restart.no_progress_max failed attempts in a row (retryable classes, "
	  "infrastructure too) added no new complete checkpoint; only for a stage whose command "
	  "resumes from {checkpoint}",
	  "a restart would repeat them from the same checkpoint: stopped and reported; fix the "
	  "cause, then onbox start" },
	{ POLICY_FLAPPING, "flapping", pred_flapping, POLICY_STOP,
	  "more than restart.max_in_window failures (any class) ended within restart.window_s",
	  "the run is flapping: stopped and reported instead of restarted again" },
	{ POLICY_BUDGET, "budget", pred_budget, POLICY_STOP,
	  "the failure counts and restart.max counting failures were already restarted since the "
	  "last real progress (preempted, node_lost, reboot and lost never count)",
	  "the restart budget is spent: stopped and reported; real progress resets it" },
	{ POLICY_RETRY, "retry", pred_retry, POLICY_RESTART,
	  "none of the above",
	  "restart the stage (from the newest complete checkpoint); a counting failure uses one "
	  "restart of the budget" },
};
const size_t policy_nrows = sizeof(policy_table) / sizeof(policy_table[0]);

const struct policy_row *
policy_table_rows(size_t *n)
{
	*n = policy_nrows;
	return policy_table;
}

const char *
policy_rule_name(enum policy_rule rule)
{
	size_t i;

	for (i = 0; i < policy_nrows; i++)
		if (policy_table[i].rule == rule)
			return policy_table[i].name;
	return "?";
}

const char *
policy_action_name(enum policy_action action)
{
	return action == POLICY_RESTART ? "restart" : "stop";
}

/* ---- facts ---- */

/* Does the stage decided about resume from checkpoints ({checkpoint} in its command)? */
static int
stage_resumes(const struct policy_in *in)
{
	size_t i;

	if (in->stage == NULL || !ckpt_configured(in->cfg))
		return 0;
	for (i = 0; i < in->cfg->nchain; i++)
		if (strcmp(in->cfg->chain[i].name, in->stage) == 0)
			return in->cfg->chain[i].run != NULL && shword_uses_token(in->cfg->chain[i].run);
	return 0;
}

/*
 * Failed attempts of retryable classes, newest back, that added no new
 * complete checkpoint (see policy.h); stops at the first that did, or
 * whose checkpoints are unknown, or that succeeded or was not retryable.
 */
static long
no_progress_run(const struct policy_in *in, size_t n)
{
	const struct attempt *x, *att = in->att;
	long run = 0, before;
	size_t i;

	for (i = n; i > 0; i--) {
		x = &att[i - 1];
		if (x->cls == NULL || !x->ckpt_known || !class_retryable(in->cfg, x->cls))
			break;
		before = x->ckpt_from;
		if (i >= 2 && att[i - 2].ckpt_known && att[i - 2].ckpt_step > before)
			before = att[i - 2].ckpt_step;
		if (x->ckpt_step > before)
			break;
		run++;
	}
	return run;
}

/* When an earlier attempt ended, as a lower bound; 0 unknown. */
static time_t
end_of(const struct attempt *a)
{
	return a->ended > 0 ? a->ended : a->started;
}

static void
facts(const struct policy_in *in, struct policy_facts *f)
{
	const struct attempt *att = in->att;
	size_t n = att != NULL ? in->natt : 0, i;
	enum triage_class tcls;
	time_t end;

	memset(f, 0, sizeof(*f));
	f->duration = -1;
	f->ci = triage_info(TRIAGE_UNKNOWN);
	f->max = config_get_int(in->cfg, "restart.max");
	f->window_s = config_get_int(in->cfg, "restart.window_s");
	f->max_in_window = config_get_int(in->cfg, "restart.max_in_window");
	f->escalate_s = config_get_int(in->cfg, "restart.escalate_s");
	if (n == 0)
		return;
	if (stage_resumes(in))
		f->np_max = config_get_int(in->cfg, "restart.no_progress_max");
	f->last = &att[n - 1];
	f->prev = n >= 2 ? &att[n - 2] : NULL;
	if (f->last->cls == NULL)
		return;

	tcls = triage_by_name(f->last->cls);
	f->known = tcls != TRIAGE_NCLASSES && tcls != TRIAGE_NONE;
	f->ci = triage_info(f->known ? tcls : TRIAGE_UNKNOWN);
	f->retryable = class_retryable(in->cfg, f->last->cls);
	f->counts = class_counts(in->cfg, f->last->cls);

	for (i = n; i > 0; i--)
		if (att[i - 1].progressed) {
			f->series = i - 1;
			break;
		}
	for (i = f->series; i + 1 < n; i++)
		if (att[i].cls != NULL && class_counts(in->cfg, att[i].cls))
			f->used_before++;
	if (f->np_max > 0)
		f->np_run = no_progress_run(in, n);

	/* The failure being decided ended by now at the latest. */
	end = f->last->ended > 0 ? f->last->ended : in->now;
	if (f->last->started > 0 && end >= f->last->started)
		f->duration = (long)(end - f->last->started);
	for (i = 0; i < n; i++) {
		if (att[i].cls == NULL)
			continue;
		end = i + 1 == n ? (att[i].ended > 0 ? att[i].ended : in->now) : end_of(&att[i]);
		if (end > 0 && (long long)end >= (long long)in->now - f->window_s)
			f->in_window++;
	}
}

/* One line: no control characters from a class name or a remediation reach it. */
static void
one_line(char *s)
{
	for (; *s != '\0'; s++)
		if (iscntrl((unsigned char)*s))
			*s = ' ';
}

void
policy_decide(const struct policy_in *in, struct policy_out *out)
{
	struct policy_facts f;
	size_t i;

	memset(out, 0, sizeof(*out));
	facts(in, &f);
	out->cls = f.last != NULL ? f.last->cls : NULL;
	out->tcls = out->cls != NULL ? f.ci->cls : TRIAGE_NONE;
	out->retryable = f.retryable;
	out->counts = out->cls != NULL && f.counts;
	out->budget_used = f.used_before;
	out->budget_max = f.max;
	out->in_window = f.in_window;
	out->max_in_window = f.max_in_window;
	out->window_s = f.window_s;
	for (i = 0; i < policy_nrows; i++) {
		out->reason[0] = '\0';
		if (policy_table[i].pred(in, &f, out)) {
			out->rule = policy_table[i].rule;
			out->rule_name = policy_table[i].name;
			out->action = policy_table[i].action;
			break;
		}
	}
	if (out->action == POLICY_RESTART && out->counts)
		out->budget_used++;
	out->escalate = out->rule == POLICY_ESCALATE;
	one_line(out->reason);
}

int
policy_progressed(long best_before, long step, long ckpt_before, long ckpt_step)
{
	return (step > 0 && step > best_before) || (ckpt_step > 0 && ckpt_step > ckpt_before);
}

int
policy_mark_progress(const cJSON *hist, cJSON *a, long step, long ckpt_step)
{
	const cJSON *arr = history_array(hist), *e;
	long best = -1, bestc = -1;
	double v;
	int p;

	if (!cJSON_IsObject(a))
		return 0;
	cJSON_ArrayForEach(e, arr) {
		if (e == a)
			break;
		if (history_num(e, POLICY_KEY_STEP, 0, POLICY_STEP_MAX, 0, &v) == 1 && (long)v > best)
			best = (long)v;
		if (history_num(e, POLICY_KEY_CKPT_STEP, 0, POLICY_STEP_MAX, 0, &v) == 1 && (long)v > bestc)
			bestc = (long)v;
	}
	p = policy_progressed(best, step, bestc, ckpt_step);
	if (step >= 0)
		json_set_num(a, POLICY_KEY_STEP, (double)step);
	if (ckpt_step >= 0)
		json_set_num(a, POLICY_KEY_CKPT_STEP, (double)ckpt_step);
	json_set_bool(a, POLICY_KEY_PROGRESSED, p);
	return p;
}

int
policy_recovery(const struct wk_config *cfg, const cJSON *hist, const cJSON *a,
    long *limit_s, double *interval_s)
{
	const cJSON *arr = history_array(hist), *e, *prev = NULL;
	const char *res;
	long set = config_get_int(cfg, "restart.recovery_s");
	double v, lim;

	*limit_s = POLICY_RECOVERY_MIN_S;
	*interval_s = -1;
	cJSON_ArrayForEach(e, arr) {
		if (e == a)
			break;
		prev = e;
	}
	if (e == NULL || prev == NULL || history_str(prev, HIST_KEY_RESULT, &res) < 0 || res == NULL ||
	    (strcmp(res, "failed") != 0 && strcmp(res, "lost") != 0))
		return 0;
	if (history_num(prev, POLICY_KEY_STEP_INTERVAL, 0, POLICY_TIME_MAX, 0, &v) == 1 && v > 0)
		*interval_s = v;
	if (set > 0)
		*limit_s = set;
	else if (*interval_s > 0) {
		lim = ceil(POLICY_RECOVERY_FACTOR * *interval_s);
		*limit_s = lim > POLICY_RECOVERY_MIN_S ? (lim < POLICY_TIME_MAX ? (long)lim :
		    (long)POLICY_TIME_MAX) : POLICY_RECOVERY_MIN_S;
	}
	return 1;
}

cJSON *
policy_out_json(const struct policy_out *out)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "action", policy_action_name(out->action));
	cJSON_AddStringToObject(o, "rule", out->rule_name != NULL ? out->rule_name : "?");
	if (out->cls != NULL)
		cJSON_AddStringToObject(o, "class", out->cls);
	cJSON_AddBoolToObject(o, "counts", out->counts);
	cJSON_AddNumberToObject(o, "budget_used", (double)out->budget_used);
	cJSON_AddNumberToObject(o, "budget_max", (double)out->budget_max);
	cJSON_AddNumberToObject(o, "in_window", (double)out->in_window);
	cJSON_AddNumberToObject(o, "max_in_window", (double)out->max_in_window);
	cJSON_AddNumberToObject(o, "window_s", (double)out->window_s);
	cJSON_AddBoolToObject(o, "escalate", out->escalate);
	cJSON_AddStringToObject(o, "reason", out->reason);
	return o;
}
