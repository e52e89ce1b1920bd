/*
 * test_policy.c: the restart policy, rule by rule and in order, at the
 * boundaries of every restart.* key, plus the attempt-history reader on
 * JSON as onbox writes it (and on malformed entries).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "policy.h"
#include "triage.h"
#include "xmalloc.h"

#define T0	1795000000L	/* a fixed "now" for every case */

enum { C_DEFAULT, C_TIGHT, C_ONE, C_ZERO, C_NOESC, C_CLASSES, C_NOCLASSES, C_CKPT, C_CKPT3,
    C_CKPT0, C_NOTOKEN, C_RECOV, C_N };

static struct wk_config *cfgs[C_N];
static char dir[64];

/* The restart object of each config, as a run's file would have it. */
static const char *const restart_json[C_N] = {
	[C_DEFAULT] = NULL,	/* max 3, window_s 600, max_in_window 4, escalate_s 600 */
	[C_TIGHT] = "{ \"max\": 2, \"window_s\": 100, \"max_in_window\": 3, \"escalate_s\": 60 }",
	[C_ONE] = "{ \"max\": 1, \"window_s\": 100, \"max_in_window\": 1000, \"escalate_s\": 60 }",
	[C_ZERO] = "{ \"max\": 0, \"window_s\": 100, \"max_in_window\": 1000, \"escalate_s\": 60 }",
	[C_NOESC] = "{ \"max\": 5, \"window_s\": 100, \"max_in_window\": 1000, \"escalate_s\": 0 }",
	[C_CLASSES] = "{ \"retry_classes\": [\"cuda_oom\", \"preempted\", \"no_such_class\", \"none\"] }",
	[C_NOCLASSES] = "{ \"retry_classes\": [] }",
	[C_CKPT] = "{ \"max\": 1, \"escalate_s\": 0 }",	/* no_progress_max 2 */
	[C_CKPT3] = "{ \"max\": 5, \"escalate_s\": 0, \"no_progress_max\": 3 }",
	[C_CKPT0] = "{ \"max\": 5, \"escalate_s\": 0, \"no_progress_max\": 0 }",
	[C_NOTOKEN] = "{ \"max\": 5, \"escalate_s\": 0 }",
	[C_RECOV] = "{ \"recovery_s\": 3 }",
};

/* Checkpoints and the stages, for the configs that have them (else one stage "train" running x). */
static const char *const extra_json[C_N] = {
	[C_CKPT] = "\"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)$\" },\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"python train.py --resume {checkpoint}\" },\n"
	    "    { \"stage\": \"eval\", \"run\": \"python eval.py\" } ] }\n",
	[C_CKPT3] = "\"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)$\" },\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"python train.py --resume {checkpoint}\" } ] }\n",
	[C_CKPT0] = "\"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)$\" },\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"python train.py --resume {checkpoint}\" } ] }\n",
	[C_NOTOKEN] = "\"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)$\" },\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"python train.py --auto-resume\" } ] }\n",
};

static int
setup(void **state)
{
	struct diag d = DIAG_INIT;
	char name[32], *p;
	size_t i;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wk-policy-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	for (i = 0; i < C_N; i++) {
		struct buf b = BUF_INIT;

		buf_printf(&b, "{ \"run\": \"r\", \"workdir\": \"/w\",\n");
		if (restart_json[i] != NULL)
			buf_printf(&b, "  \"restart\": %s,\n", restart_json[i]);
		if (extra_json[i] != NULL)
			buf_printf(&b, "  %s", extra_json[i]);
		else
			buf_printf(&b, "  \"chain\": [ { \"stage\": \"train\", \"run\": \"x\" } ] }\n");
		snprintf(name, sizeof(name), "wk%zu.json", i);
		p = fs_join(dir, name);
		atomic_write_str(p, b.data);
		buf_free(&b);
		if (config_load(p, &cfgs[i], &d) != 0) {
			diag_print(&d, stderr);
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

static int
teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < C_N; i++)
		config_free(cfgs[i]);
	return unit_rmrf(dir) == 0 ? 0 : -1;
}

/* One attempt: number, start and end (unix), class (NULL success), progressed. */
static struct attempt
A(long n, long s, long e, const char *cls, int prog)
{
	struct attempt a;

	memset(&a, 0, sizeof(a));
	a.n = n;
	a.started = (time_t)s;
	a.ended = (time_t)e;
	a.cls = cls;
	a.progressed = prog;
	a.exit_code = -1;
	return a;
}

/* An attempt onbox marked: the newest complete checkpoint at its launch and end (-1 none). */
static struct attempt
AC(long n, long s, long e, const char *cls, long from, long to)
{
	struct attempt a = A(n, s, e, cls, 0);

	a.ckpt_known = 1;
	a.ckpt_from = from;
	a.ckpt_step = to;
	return a;
}

static void
decide_full(int c, int seen, int finished, const struct attempt *att, size_t n,
    struct policy_out *o)
{
	struct policy_in in;

	memset(&in, 0, sizeof(in));
	in.cfg = cfgs[c];
	in.seen = seen;
	in.finished = finished;
	in.att = att;
	in.natt = n;
	in.now = (time_t)T0;
	in.stage = "train";
	policy_decide(&in, o);
	/* Always one line, always a stable rule name that matches the enum. */
	assert_null(strchr(o->reason, '\n'));
	assert_true(strlen(o->reason) > 10);
	assert_string_equal(o->rule_name, policy_rule_name(o->rule));
}

/* Decide on a seen, unfinished run; check the rule and action. */
static void
expect(int c, const struct attempt *att, size_t n, enum policy_rule rule,
    const char *word, struct policy_out *o)
{
	decide_full(c, 1, 0, att, n, o);
	if (o->rule != rule)
		fail_msg("got %s (%s), want %s", o->rule_name, o->reason, policy_rule_name(rule));
	assert_int_equal(o->action, rule == POLICY_RETRY ? POLICY_RESTART : POLICY_STOP);
	if (word != NULL && strstr(o->reason, word) == NULL)
		fail_msg("reason \"%s\" lacks \"%s\"", o->reason, word);
}

/* ---- rules 1 and 2: finished, unseen ---- */

static void
test_finished_and_unseen(void **state)
{
	struct attempt a[] = { A(1, T0 - 5000, T0 - 10, "preempted", 0) };
	struct policy_out o;

	(void)state;
	/* The same retryable failure restarts on a seen, unfinished run... */
	expect(C_DEFAULT, a, 1, POLICY_RETRY, "preempted", &o);
	/* ...never when the run is finished, seen or not (finished outranks unseen)... */
	decide_full(C_DEFAULT, 1, 1, a, 1, &o);
	assert_int_equal(o.rule, POLICY_FINISHED);
	assert_int_equal(o.action, POLICY_STOP);
	assert_string_equal(o.rule_name, "finished");
	decide_full(C_DEFAULT, 0, 1, a, 1, &o);
	assert_int_equal(o.rule, POLICY_FINISHED);
	/* ...and never from a failed probe. */
	decide_full(C_DEFAULT, 0, 0, a, 1, &o);
	assert_int_equal(o.rule, POLICY_UNSEEN);
	assert_int_equal(o.action, POLICY_STOP);
	assert_non_null(strstr(o.reason, "unreachable is not dead"));
	/* Even with nothing recorded, or a class that would never be retried. */
	decide_full(C_DEFAULT, 1, 1, NULL, 0, &o);
	assert_int_equal(o.rule, POLICY_FINISHED);
	a[0].cls = "code_error";
	decide_full(C_DEFAULT, 0, 0, a, 1, &o);
	assert_int_equal(o.rule, POLICY_UNSEEN);
}

static void
test_no_failure(void **state)
{
	struct attempt a[] = {
		A(1, T0 - 500, T0 - 400, "nccl_timeout", 0),
		A(2, T0 - 300, T0 - 10, NULL, 1),
	};
	struct policy_out o;

	(void)state;
	expect(C_DEFAULT, NULL, 0, POLICY_NO_FAILURE, "no ended attempt", &o);
	assert_null(o.cls);
	assert_int_equal(o.counts, 0);
	expect(C_DEFAULT, a, 2, POLICY_NO_FAILURE, "attempt 2 succeeded", &o);
	expect(C_DEFAULT, a, 1, POLICY_RETRY, NULL, &o);
}

/* ---- rule 3: never_retry ---- */

static void
test_never_retry(void **state)
{
	static const char *const never[] = {
		"code_error", "cuda_oom", "hbm_oom", "cgroup_oom", "disk_full", "nan_loss",
		"timeout", "no_done_line", "unknown",
	};
	static const char *const retry[] = {
		"preempted", "node_lost", "nccl_timeout", "bad_accelerator", "lost", "reboot",
	};
	struct attempt a[2];
	struct policy_out o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		enum triage_class c = triage_by_name(never[i]);

		a[0] = A(1, T0 - 5000, T0 - 10, never[i], 0);
		expect(C_DEFAULT, a, 1, POLICY_NEVER_RETRY, never[i], &o);
		/* The class's remediation, word for word, and its title. */
		assert_non_null(strstr(o.reason, triage_info(c)->remediation));
		assert_non_null(strstr(o.reason, triage_info(c)->title));
		assert_int_equal(o.tcls, c);
		assert_int_equal(o.retryable, 0);
		assert_int_equal(o.escalate, 0);
	}
	for (i = 0; i < sizeof(retry) / sizeof(retry[0]); i++) {
		a[0] = A(1, T0 - 5000, T0 - 10, retry[i], 0);
		expect(C_DEFAULT, a, 1, POLICY_RETRY, retry[i], &o);
		assert_int_equal(o.retryable, 1);
		assert_int_equal(o.tcls, triage_by_name(retry[i]));
	}
	/* A name triage does not know is never retried, and reads as "unknown". */
	a[0] = A(1, T0 - 5000, T0 - 10, "martian_rays", 0);
	expect(C_DEFAULT, a, 1, POLICY_NEVER_RETRY, "martian_rays (not a known failure class)", &o);
	assert_int_equal(o.tcls, TRIAGE_UNKNOWN);
	assert_non_null(strstr(o.reason, triage_info(TRIAGE_UNKNOWN)->remediation));
	assert_int_equal(o.counts, 0);	/* never restarted by itself: not a spent restart */
	/* "none" is success's name, not a failure class. */
	a[0].cls = "none";
	expect(C_DEFAULT, a, 1, POLICY_NEVER_RETRY, NULL, &o);
	/* A hostile class name cannot break the line. */
	a[0].cls = "evil\nclass\r";
	expect(C_DEFAULT, a, 1, POLICY_NEVER_RETRY, "evil class", &o);
	/* never_retry comes before escalate: the same code error twice at once. */
	a[0] = A(1, T0 - 100, T0 - 90, "code_error", 0);
	a[1] = A(2, T0 - 50, T0 - 45, "code_error", 0);
	expect(C_DEFAULT, a, 2, POLICY_NEVER_RETRY, NULL, &o);
}

static void
test_retry_classes(void **state)
{
	struct attempt a[1];
	struct policy_out o;

	(void)state;
	/* The config's list replaces the triage table's: cuda_oom retried, NCCL not. */
	a[0] = A(1, T0 - 5000, T0 - 10, "cuda_oom", 0);
	expect(C_CLASSES, a, 1, POLICY_RETRY, "restart 1 of restart.max 3", &o);
	assert_int_equal(o.counts, 1);
	a[0].cls = "nccl_timeout";
	expect(C_CLASSES, a, 1, POLICY_NEVER_RETRY, "not in restart.retry_classes", &o);
	assert_non_null(strstr(o.reason, triage_info(TRIAGE_NCCL_TIMEOUT)->remediation));
	a[0].cls = "preempted";
	expect(C_CLASSES, a, 1, POLICY_RETRY, "infrastructure", &o);
	/* A listed name that triage does not know still retries nothing. */
	a[0].cls = "no_such_class";
	expect(C_CLASSES, a, 1, POLICY_NEVER_RETRY, "not a known failure class", &o);
	/* Nor does "none", success's name, even when listed. */
	a[0].cls = "none";
	expect(C_CLASSES, a, 1, POLICY_NEVER_RETRY, "not a known failure class", &o);
	assert_int_equal(o.tcls, TRIAGE_UNKNOWN);
	/* An empty list: nothing is retried, not even a preemption. */
	a[0].cls = "preempted";
	expect(C_NOCLASSES, a, 1, POLICY_NEVER_RETRY, "restart.retry_classes", &o);
	a[0].cls = "cuda_oom";
	expect(C_NOCLASSES, a, 1, POLICY_NEVER_RETRY, NULL, &o);
	/* Without the key, the triage table decides. */
	expect(C_DEFAULT, a, 1, POLICY_NEVER_RETRY, "which a plain retry does not fix", &o);
}

/* ---- rule 4: escalate ---- */

static void
test_escalate(void **state)
{
	struct attempt a[4];
	struct policy_out o;

	(void)state;
	/* C_TIGHT: escalate_s 60.  A long first attempt, then the same class at once. */
	a[0] = A(1, T0 - 90000, T0 - 1000, "nccl_timeout", 0);
	a[1] = A(2, T0 - 500, T0 - 440, "nccl_timeout", 0);	/* exactly 60 s */
	expect(C_TIGHT, a, 2, POLICY_ESCALATE, "escalate", &o);
	assert_int_equal(o.escalate, 1);
	assert_non_null(strstr(o.reason, "60s after its start"));
	assert_non_null(strstr(o.reason, "as attempt 1 did"));
	assert_non_null(strstr(o.reason, triage_info(TRIAGE_NCCL_TIMEOUT)->remediation));
	/* One second more is not "right after the restart". */
	a[1].ended = (time_t)(T0 - 439);
	expect(C_TIGHT, a, 2, POLICY_RETRY, NULL, &o);
	assert_int_equal(o.escalate, 0);
	/* A different class is not the same failure again. */
	a[1] = A(2, T0 - 500, T0 - 490, "bad_accelerator", 0);
	expect(C_TIGHT, a, 2, POLICY_RETRY, NULL, &o);
	/* Infrastructure too: a box that reboots after every restart. */
	a[0] = A(1, T0 - 90000, T0 - 1000, "reboot", 0);
	a[1] = A(2, T0 - 500, T0 - 480, "reboot", 0);
	expect(C_TIGHT, a, 2, POLICY_ESCALATE, "reboot", &o);
	assert_int_equal(o.counts, 0);
	/* Real progress in the quick attempt: no escalation (the debounce resets). */
	a[1].progressed = 1;
	expect(C_TIGHT, a, 2, POLICY_RETRY, NULL, &o);
	/* Progress in the attempt before opens the series: its failure still counts as "before". */
	a[0].progressed = 1;
	a[1].progressed = 0;
	expect(C_TIGHT, a, 2, POLICY_ESCALATE, NULL, &o);
	/* The attempt before succeeded: nothing failed "again". */
	a[0] = A(1, T0 - 90000, T0 - 1000, NULL, 1);
	expect(C_TIGHT, a, 2, POLICY_RETRY, NULL, &o);
	/* Only the attempt right before counts, not an older one of the same class. */
	a[0] = A(1, T0 - 90000, T0 - 80000, "reboot", 0);
	a[1] = A(2, T0 - 70000, T0 - 60000, "preempted", 0);
	a[2] = A(3, T0 - 500, T0 - 480, "reboot", 0);
	expect(C_TIGHT, a, 3, POLICY_RETRY, NULL, &o);
	/* The end unknown (a lost attempt): it ended by now, so now - start bounds it. */
	a[0] = A(1, T0 - 90000, T0 - 80000, "lost", 0);
	a[1] = A(2, T0 - 60, 0, "lost", 0);
	expect(C_TIGHT, a, 2, POLICY_ESCALATE, NULL, &o);
	a[1].started = (time_t)(T0 - 61);
	expect(C_TIGHT, a, 2, POLICY_RETRY, NULL, &o);
	/* The start unknown: no duration, no escalation. */
	a[1].started = 0;
	expect(C_TIGHT, a, 2, POLICY_RETRY, NULL, &o);
	/* A clock that went backwards gives no duration either. */
	a[1] = A(2, T0 - 10, T0 - 20, "lost", 0);
	expect(C_TIGHT, a, 2, POLICY_RETRY, NULL, &o);
	/* escalate_s 0 turns the rule off. */
	a[0] = A(1, T0 - 90000, T0 - 1000, "nccl_timeout", 0);
	a[1] = A(2, T0 - 500, T0 - 500, "nccl_timeout", 0);
	expect(C_NOESC, a, 2, POLICY_RETRY, NULL, &o);
	/* Escalate outranks budget (restart.max 1 is spent)... */
	a[0] = A(1, T0 - 90, T0 - 60, "nccl_timeout", 0);
	a[1] = A(2, T0 - 50, T0 - 40, "nccl_timeout", 0);
	expect(C_ONE, a, 2, POLICY_ESCALATE, NULL, &o);
	/* ...and flapping (4 failures in 100 s, more than 3). */
	a[0] = A(1, T0 - 99, T0 - 95, "bad_accelerator", 0);
	a[1] = A(2, T0 - 90, T0 - 85, "preempted", 0);
	a[2] = A(3, T0 - 80, T0 - 70, "nccl_timeout", 0);
	a[3] = A(4, T0 - 60, T0 - 50, "nccl_timeout", 0);
	expect(C_TIGHT, a, 4, POLICY_ESCALATE, NULL, &o);
	assert_int_equal(o.in_window, 4);
	a[3].cls = "bad_accelerator";
	expect(C_TIGHT, a, 4, POLICY_FLAPPING, NULL, &o);
}

/* ---- rule 5: flapping ---- */

static void
test_flapping(void **state)
{
	/* C_TIGHT: more than 3 failures within 100 s; classes alternate so none escalates. */
	struct attempt a[] = {
		A(1, T0 - 9000, T0 - 8000, "nccl_timeout", 0),	/* long ago: outside */
		A(2, T0 - 200, T0 - 90, "preempted", 1),
		A(3, T0 - 90, T0 - 70, "bad_accelerator", 1),
		A(4, T0 - 70, T0 - 30, "reboot", 0),
		A(5, T0 - 30, T0 - 1, "preempted", 0),
	};
	struct policy_out o;

	(void)state;
	/* Exactly max_in_window (3) in the window: still restarted. */
	expect(C_TIGHT, a, 4, POLICY_RETRY, NULL, &o);
	assert_int_equal(o.in_window, 3);
	/* One more: flapping; progress does not excuse it, infra counts too. */
	expect(C_TIGHT, a, 5, POLICY_FLAPPING, "4 failures ended within 100s", &o);
	assert_int_equal(o.in_window, 4);
	assert_int_equal(o.max_in_window, 3);
	assert_int_equal(o.window_s, 100);
	assert_non_null(strstr(o.reason, triage_info(TRIAGE_PREEMPTED)->remediation));
	/* The window's edge: ended exactly window_s ago is inside, a second more is out. */
	a[1].ended = (time_t)(T0 - 100);
	expect(C_TIGHT, a, 5, POLICY_FLAPPING, NULL, &o);
	a[1].ended = (time_t)(T0 - 101);
	expect(C_TIGHT, a, 5, POLICY_RETRY, NULL, &o);
	assert_int_equal(o.in_window, 3);
	/* An earlier attempt without an end is placed at its start (a lower bound). */
	a[1] = A(2, T0 - 99, 0, "lost", 0);
	expect(C_TIGHT, a, 5, POLICY_FLAPPING, NULL, &o);
	a[1] = A(2, T0 - 101, 0, "lost", 0);
	expect(C_TIGHT, a, 5, POLICY_RETRY, NULL, &o);
	/* ... and one with no times at all is not counted. */
	a[1] = A(2, 0, 0, "lost", 0);
	expect(C_TIGHT, a, 5, POLICY_RETRY, NULL, &o);
	/* Successes are not failures. */
	a[1] = A(2, T0 - 99, T0 - 95, NULL, 0);
	expect(C_TIGHT, a, 5, POLICY_RETRY, NULL, &o);
	/* The failure being decided, its end unknown, ended now: it is in the window. */
	a[1] = A(2, T0 - 200, T0 - 90, "preempted", 0);
	a[4] = A(5, T0 - 5000, 0, "preempted", 0);
	expect(C_TIGHT, a, 5, POLICY_FLAPPING, NULL, &o);
	/* Flapping outranks budget: C_TIGHT has max 2, and 3 NCCL failures count. */
	a[1] = A(2, T0 - 99, T0 - 90, "nccl_timeout", 0);
	a[2] = A(3, T0 - 80, T0 - 70, "bad_accelerator", 0);
	a[3] = A(4, T0 - 60, T0 - 50, "nccl_timeout", 0);
	a[4] = A(5, T0 - 40, T0 - 30, "bad_accelerator", 0);
	expect(C_TIGHT, a, 5, POLICY_FLAPPING, NULL, &o);
	/* Default config: more than 4 in 10 minutes; 4 is not flapping (the budget stops it). */
	expect(C_DEFAULT, a, 5, POLICY_BUDGET, NULL, &o);
	assert_int_equal(o.in_window, 4);
	assert_int_equal(o.max_in_window, 4);
	assert_int_equal(o.window_s, 600);
}

/* ---- rule 6: budget ---- */

/* n spaced-out failures of cls (never escalate, never flap), the i-th progressed when prog[i]. */
static void
spaced(struct attempt *a, size_t n, const char *const *cls, const int *prog)
{
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = A((long)i + 1, T0 - 100000 + (long)i * 10000, T0 - 100000 + (long)i * 10000 + 5000,
		    cls[i], prog != NULL ? prog[i] : 0);
}

static void
test_budget(void **state)
{
	const char *nccl[] = { "nccl_timeout", "nccl_timeout", "nccl_timeout", "nccl_timeout",
	    "nccl_timeout" };
	struct attempt a[8];
	struct policy_out o;

	(void)state;
	/*
	 * A never-retry failure a person fixed and relaunched is not a spent
	 * automatic restart: with restart.max 1, the NCCL timeout after it is
	 * still restarted.
	 */
	{
		const char *mixed[] = { "cuda_oom", "nccl_timeout" };

		spaced(a, 2, mixed, NULL);
		expect(C_ONE, a, 2, POLICY_RETRY, "restart 1 of restart.max 1", &o);
		assert_int_equal(o.budget_used, 1);
	}
	/* Default restart.max 3: three restarts, the fourth failure stops. */
	spaced(a, 4, nccl, NULL);
	expect(C_DEFAULT, a, 1, POLICY_RETRY, "restart 1 of restart.max 3", &o);
	assert_int_equal(o.budget_used, 1);
	assert_int_equal(o.budget_max, 3);
	assert_int_equal(o.counts, 1);
	expect(C_DEFAULT, a, 2, POLICY_RETRY, "restart 2 of restart.max 3", &o);
	expect(C_DEFAULT, a, 3, POLICY_RETRY, "restart 3 of restart.max 3", &o);
	assert_int_equal(o.budget_used, 3);
	expect(C_DEFAULT, a, 4, POLICY_BUDGET, "restart budget spent (3 of restart.max 3", &o);
	assert_int_equal(o.budget_used, 3);
	assert_int_equal(o.action, POLICY_STOP);
	assert_non_null(strstr(o.reason, triage_info(TRIAGE_NCCL_TIMEOUT)->remediation));
	/* restart.max 1 and 0. */
	expect(C_ONE, a, 1, POLICY_RETRY, NULL, &o);
	expect(C_ONE, a, 2, POLICY_BUDGET, NULL, &o);
	expect(C_ZERO, a, 1, POLICY_BUDGET, "0 of restart.max 0", &o);
	assert_int_equal(o.budget_used, 0);
}

static void
test_infra_free(void **state)
{
	const char *mix[] = { "nccl_timeout", "preempted", "node_lost", "reboot", "lost",
	    "preempted", "nccl_timeout" };
	const char *pre[] = { "preempted", "preempted", "preempted", "preempted", "preempted",
	    "preempted", "preempted" };
	struct attempt a[8];
	struct policy_out o;
	size_t i;

	(void)state;
	/* restart.max 1: one NCCL restart, then infra failures restart without using any. */
	spaced(a, 7, mix, NULL);
	expect(C_ONE, a, 1, POLICY_RETRY, NULL, &o);
	assert_int_equal(o.budget_used, 1);
	for (i = 2; i <= 6; i++) {
		expect(C_ONE, a, i, POLICY_RETRY, "not counted against the budget (1 of 1 used)", &o);
		assert_int_equal(o.counts, 0);
		assert_int_equal(o.budget_used, 1);
	}
	/* The next counting failure finds the budget spent by the first one only. */
	expect(C_ONE, a, 7, POLICY_BUDGET, "1 of restart.max 1", &o);
	/* restart.max 0: no counting failure restarts, a preemption always does. */
	spaced(a, 7, pre, NULL);
	for (i = 1; i <= 7; i++) {
		expect(C_ZERO, a, i, POLICY_RETRY, "infrastructure", &o);
		assert_int_equal(o.budget_used, 0);
	}
}

static void
test_progress_resets(void **state)
{
	const char *nccl[] = { "nccl_timeout", "nccl_timeout", "nccl_timeout", "nccl_timeout",
	    "nccl_timeout", "nccl_timeout" };
	const int prog2[] = { 0, 1, 0, 0, 0, 0 };
	const int prog4[] = { 0, 1, 0, 1, 0, 0 };
	struct attempt a[8];
	struct policy_out o;

	(void)state;
	/* restart.max 1 without progress: the second failure stops. */
	spaced(a, 3, nccl, NULL);
	expect(C_ONE, a, 2, POLICY_BUDGET, NULL, &o);
	/* Attempt 2 made real progress: its failure opens a new series with a fresh budget. */
	spaced(a, 6, nccl, prog2);
	expect(C_ONE, a, 2, POLICY_RETRY, "restart 1 of restart.max 1", &o);
	expect(C_ONE, a, 3, POLICY_BUDGET, "1 of restart.max 1 since the last progress", &o);
	/* And again after attempt 4's progress. */
	spaced(a, 6, nccl, prog4);
	expect(C_ONE, a, 4, POLICY_RETRY, NULL, &o);
	assert_int_equal(o.budget_used, 1);
	expect(C_ONE, a, 5, POLICY_BUDGET, NULL, &o);
	/* Default max 3 with progress at 2: attempts 2, 3, 4 restart, 5 stops. */
	spaced(a, 6, nccl, prog2);
	expect(C_DEFAULT, a, 4, POLICY_RETRY, "restart 3 of restart.max 3", &o);
	expect(C_DEFAULT, a, 5, POLICY_BUDGET, NULL, &o);
	/* Flapping does not reset on progress (test_flapping); escalation does (test_escalate). */
}

/* ---- the table ---- */

static void
test_table(void **state)
{
	static const char *const names[] = { "finished", "unseen", "no_failure", "never_retry", "consent",
	    "escalate", "no_progress", "flapping", "budget", "retry" };
	const struct policy_row *rows;
	size_t n, i;

	(void)state;
	rows = policy_table_rows(&n);
	assert_ptr_equal(rows, policy_table);
	assert_int_equal(n, POLICY_NRULES);
	assert_int_equal(policy_nrows, POLICY_NRULES);
	for (i = 0; i < n; i++) {
		assert_int_equal(rows[i].rule, (enum policy_rule)i);
		assert_string_equal(rows[i].name, names[i]);
		assert_string_equal(policy_rule_name((enum policy_rule)i), names[i]);
		assert_non_null(rows[i].pred);
		assert_true(strlen(rows[i].when) > 10);
		assert_true(strlen(rows[i].then) > 10);
		assert_int_equal(rows[i].action,
		    rows[i].rule == POLICY_RETRY ? POLICY_RESTART : POLICY_STOP);
	}
	assert_string_equal(policy_rule_name(POLICY_NRULES), "?");
	assert_string_equal(policy_action_name(POLICY_STOP), "stop");
	assert_string_equal(policy_action_name(POLICY_RESTART), "restart");
}

static void
test_out_json(void **state)
{
	struct attempt a[] = { A(1, T0 - 5000, T0 - 10, "nccl_timeout", 0) };
	struct policy_out o;
	cJSON *j;

	(void)state;
	expect(C_DEFAULT, a, 1, POLICY_RETRY, NULL, &o);
	j = policy_out_json(&o);
	assert_string_equal(json_str(j, "action", ""), "restart");
	assert_string_equal(json_str(j, "rule", ""), "retry");
	assert_string_equal(json_str(j, "class", ""), "nccl_timeout");
	assert_int_equal(json_bool(j, "counts", 0), 1);
	assert_int_equal(json_long(j, "budget_used", -1), 1);
	assert_int_equal(json_long(j, "budget_max", -1), 3);
	assert_int_equal(json_long(j, "in_window", -1), 1);
	assert_int_equal(json_long(j, "max_in_window", -1), 4);
	assert_int_equal(json_long(j, "window_s", -1), 600);
	assert_int_equal(json_bool(j, "escalate", 1), 0);
	assert_string_equal(json_str(j, "reason", ""), o.reason);
	cJSON_Delete(j);
	expect(C_DEFAULT, NULL, 0, POLICY_NO_FAILURE, NULL, &o);
	j = policy_out_json(&o);
	assert_null(cJSON_GetObjectItem(j, "class"));
	assert_string_equal(json_str(j, "action", ""), "stop");
	cJSON_Delete(j);
}

/* ---- history ---- */

/* stages/train.json as onbox writes it: a done, failed, lost, rebooted and a running attempt. */
static const char realistic[] =
    "{\n"
    "  \"stage\": \"train\",\n"
    "  \"attempts\": [\n"
    "    { \"attempt\": 1, \"kind\": \"run\", \"started\": \"2026-11-19T08:00:00Z\",\n"
    "      \"started_unix\": 1794988800, \"result\": \"failed\", \"oom_kill_base\": 0,\n"
    "      \"log_start\": { \"dev\": 2049, \"ino\": 1311, \"off\": 0, \"fp\": \"\" },\n"
    "      \"wrapper_pid\": 4242, \"ended\": \"2026-11-19T09:10:00Z\",\n"
    "      \"ended_unix\": 1794993000, \"class\": \"nccl_timeout\", \"exit_code\": 1,\n"
    "      \"reported\": true, \"step\": 1200, \"checkpoint_step\": 1000,\n"
    "      \"progressed\": true },\n"
    "    { \"attempt\": 2, \"kind\": \"run\", \"started\": \"2026-11-19T09:11:00Z\",\n"
    "      \"started_unix\": 1794993060, \"result\": \"failed\", \"oom_kill_base\": 0,\n"
    "      \"wrapper_pid\": 5151, \"pid\": 5152, \"ended\": \"2026-11-19T09:11:40Z\",\n"
    "      \"ended_unix\": 1794993100, \"class\": \"preempted\", \"signal\": 15,\n"
    "      \"checkpoint\": \"ckpt/step_1000\", \"progressed\": false, \"reported\": true },\n"
    "    { \"attempt\": 3, \"kind\": \"run\", \"started\": \"2026-11-19T09:12:00Z\",\n"
    "      \"started_unix\": 1794993120, \"result\": \"lost\", \"class\": \"reboot\",\n"
    "      \"wrapper_pid\": 6161, \"reported\": true, \"job_id\": \"raysubmit_abc123\" },\n"
    "    { \"attempt\": 4, \"kind\": \"run\", \"started\": \"2026-11-19T09:20:00Z\",\n"
    "      \"started_unix\": 1794993600, \"result\": \"lost\", \"reported\": true },\n"
    "    { \"attempt\": 5, \"kind\": \"run\", \"started\": \"2026-11-19T09:30:00Z\",\n"
    "      \"started_unix\": 1794994200, \"result\": \"done\", \"ended_unix\": 1794995000,\n"
    "      \"exit_code\": 0, \"wrapper_pid\": 7171 },\n"
    "    { \"attempt\": 6, \"kind\": \"run\", \"started\": \"2026-11-19T10:00:00Z\",\n"
    "      \"started_unix\": 1794996000, \"result\": \"failed\", \"ended_unix\": 1794996100 },\n"
    "    { \"attempt\": 7, \"kind\": \"run\", \"started_unix\": 1794997000,\n"
    "      \"result\": \"running\", \"wrapper_pid\": 8181 }\n"
    "  ]\n"
    "}\n";

static void
test_history_realistic(void **state)
{
	struct attempt a[16];
	struct policy_out o;
	struct policy_in in;
	size_t n = 99, skipped = 99;
	cJSON *h = cJSON_Parse(realistic);

	(void)state;
	assert_non_null(h);
	assert_int_equal(history_attempts(h, a, 16, &n, &skipped), 0);
	assert_int_equal(n, 6);		/* the running attempt 7 is not ended */
	assert_int_equal(skipped, 0);
	assert_int_equal(a[0].n, 1);
	assert_int_equal(a[0].started, 1794988800);
	assert_int_equal(a[0].ended, 1794993000);
	assert_string_equal(a[0].cls, "nccl_timeout");
	assert_int_equal(a[0].exit_code, 1);
	assert_int_equal(a[0].signo, 0);
	assert_int_equal(a[0].pid, 4242);	/* no "pid": the wrapper's */
	assert_int_equal(a[0].progressed, 1);
	assert_null(a[0].checkpoint);
	assert_null(a[0].job_id);
	assert_string_equal(a[1].cls, "preempted");
	assert_int_equal(a[1].signo, 15);
	assert_int_equal(a[1].exit_code, -1);
	assert_int_equal(a[1].pid, 5152);	/* the stage's own pid wins */
	assert_string_equal(a[1].checkpoint, "ckpt/step_1000");
	assert_int_equal(a[1].progressed, 0);
	assert_string_equal(a[2].cls, "reboot");
	assert_int_equal(a[2].ended, 0);
	assert_string_equal(a[2].job_id, "raysubmit_abc123");
	assert_string_equal(a[3].cls, "lost");	/* lost without a class */
	assert_null(a[4].cls);			/* done */
	assert_int_equal(a[4].exit_code, 0);
	assert_string_equal(a[5].cls, "unknown");	/* failed without a class */

	/* Straight into the policy: attempt 6 failed "unknown", never retried. */
	memset(&in, 0, sizeof(in));
	in.cfg = cfgs[C_DEFAULT];
	in.seen = 1;
	in.att = a;
	in.natt = n;
	in.now = (time_t)1794996200;
	policy_decide(&in, &o);
	assert_int_equal(o.rule, POLICY_NEVER_RETRY);
	/* Up to attempt 2: a preemption 40 s after a restart that followed an NCCL timeout. */
	in.natt = 2;
	in.now = (time_t)1794993110;
	policy_decide(&in, &o);
	assert_int_equal(o.rule, POLICY_RETRY);
	assert_int_equal(o.counts, 0);
	assert_int_equal(o.budget_used, 1);	/* attempt 1 opened the series and counted */
	/* Up to attempt 3: the reboot; its end unknown, so 'now'. */
	in.natt = 3;
	in.now = (time_t)1794993590;
	policy_decide(&in, &o);
	assert_int_equal(o.rule, POLICY_RETRY);
	/* The array itself is accepted too. */
	assert_int_equal(history_attempts(cJSON_GetObjectItem(h, "attempts"), a, 16,
	    &n, NULL), 0);
	assert_int_equal(n, 6);
	cJSON_Delete(h);
}

/*
 * A Slurm requeue as onbox records it (stages/<stage>.json): the requeued
 * attempt is preempted and spends nothing, so with restart.max 1 the NCCL
 * timeout after it is still restarted; restart.max 0 stops that one.
 */
static const char requeued[] =
    "{ \"stage\": \"train\", \"attempts\": [\n"
    "  { \"attempt\": 1, \"kind\": \"run\", \"started_unix\": 1794988800, \"result\": \"failed\",\n"
    "    \"class\": \"preempted\", \"requeued\": true, \"ended_unix\": 1794989000,\n"
    "    \"job_id\": \"77\", \"slurm_restart_count\": 0, \"node\": \"n1\" },\n"
    "  { \"attempt\": 2, \"kind\": \"run\", \"started_unix\": 1794989010, \"result\": \"failed\",\n"
    "    \"class\": \"nccl_timeout\", \"ended_unix\": 1794992000, \"exit_code\": 1,\n"
    "    \"job_id\": \"77\", \"slurm_restart_count\": 1, \"node\": \"n1\" } ] }\n";

static void
test_history_requeued(void **state)
{
	struct attempt a[4];
	struct policy_out o;
	struct policy_in in;
	size_t n = 0, skipped = 99;
	cJSON *h = cJSON_Parse(requeued);

	(void)state;
	assert_non_null(h);
	assert_int_equal(history_attempts(h, a, 4, &n, &skipped), 0);
	assert_int_equal(n, 2);
	assert_int_equal(skipped, 0);
	assert_string_equal(a[0].cls, "preempted");
	assert_string_equal(a[0].job_id, "77");
	memset(&in, 0, sizeof(in));
	in.cfg = cfgs[C_ONE];
	in.seen = 1;
	in.att = a;
	in.natt = n;
	in.now = (time_t)1794992100;
	policy_decide(&in, &o);
	assert_int_equal(o.action, POLICY_RESTART);
	assert_int_equal(o.rule, POLICY_RETRY);
	assert_int_equal(o.counts, 1);
	assert_int_equal(o.budget_used, 1);
	in.cfg = cfgs[C_ZERO];
	policy_decide(&in, &o);
	assert_int_equal(o.rule, POLICY_BUDGET);
	cJSON_Delete(h);
}

static void
test_history_malformed(void **state)
{
	static const char doc[] =
	    "{ \"attempts\": [\n"
	    "  17, \"x\", null, [], {},\n"
	    "  { \"result\": \"failed\", \"class\": \"cuda_oom\" },\n"
	    "  { \"attempt\": \"2\", \"result\": \"failed\" },\n"
	    "  { \"attempt\": 0, \"result\": \"failed\" },\n"
	    "  { \"attempt\": -3, \"result\": \"failed\" },\n"
	    "  { \"attempt\": 1.5, \"result\": \"failed\" },\n"
	    "  { \"attempt\": 1e300, \"result\": \"failed\" },\n"
	    "  { \"attempt\": 2 },\n"
	    "  { \"attempt\": 2, \"result\": 7 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"class\": 12 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"started_unix\": \"yesterday\" },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"started_unix\": -5 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"ended_unix\": 1e300 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"exit_code\": 1e20 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"exit_code\": 1.25 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"signal\": \"SIGKILL\" },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"signal\": 999 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"pid\": -1 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"wrapper_pid\": 1e12 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"progressed\": \"yes\" },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"checkpoint\": 5 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"job_id\": {} },\n"
	    "  { \"attempt\": 3, \"result\": \"starting\" },\n"
	    "  { \"attempt\": 4, \"result\": \"failed\", \"class\": \"preempted\",\n"
	    "    \"started_unix\": 100, \"ended_unix\": 200, \"exit_code\": null }\n"
	    "] }";
	static const char *const bad[] = { "[]", "{}", "{\"attempts\": 5}", "{\"attempts\": {}}",
	    "\"attempts\"", "3" };
	struct attempt a[4];
	size_t n = 99, skipped = 99, i;
	cJSON *h = cJSON_Parse(doc);

	(void)state;
	assert_non_null(h);
	assert_int_equal(history_attempts(h, a, 4, &n, &skipped), 0);
	assert_int_equal(n, 1);
	assert_int_equal(skipped, 26);
	assert_int_equal(a[0].n, 4);
	assert_string_equal(a[0].cls, "preempted");
	assert_int_equal(a[0].started, 100);
	assert_int_equal(a[0].ended, 200);
	assert_int_equal(a[0].exit_code, -1);
	cJSON_Delete(h);

	/* Not a history at all: an error, no attempts.  "[]" is an empty one. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h = cJSON_Parse(bad[i]);
		assert_non_null(h);
		n = 99;
		assert_int_equal(history_attempts(h, a, 4, &n, &skipped),
		    i == 0 ? 0 : WK_ERR_PARSE);
		assert_int_equal(n, 0);
		cJSON_Delete(h);
	}
	n = 99;
	assert_int_equal(history_attempts(NULL, a, 4, &n, NULL), WK_ERR_PARSE);
	assert_int_equal(n, 0);
}

static void
test_history_bounded(void **state)
{
	struct attempt a[4];
	struct buf b = BUF_INIT;
	size_t n, skipped, i;
	cJSON *h;

	(void)state;
	buf_printf(&b, "{ \"attempts\": [");
	for (i = 1; i <= 10; i++)
		buf_printf(&b, "%s{ \"attempt\": %zu, \"result\": \"failed\", \"class\": \"preempted\","
		    " \"started_unix\": %zu, \"ended_unix\": %zu }", i > 1 ? ", " : "", i,
		    1000 * i, 1000 * i + 10);
	buf_printf(&b, ", { \"attempt\": 11, \"result\": \"running\" }, 5 ] }");
	h = cJSON_Parse(b.data);
	assert_non_null(h);
	/* The newest four are kept, oldest first; the six older ones and the 5 are skipped. */
	assert_int_equal(history_attempts(h, a, 4, &n, &skipped), 0);
	assert_int_equal(n, 4);
	assert_int_equal(skipped, 7);
	for (i = 0; i < 4; i++)
		assert_int_equal(a[i].n, (long)i + 7);
	/* cap 0 reads nothing and writes nothing. */
	assert_int_equal(history_attempts(h, NULL, 0, &n, &skipped), 0);
	assert_int_equal(n, 0);
	assert_int_equal(skipped, 11);
	cJSON_Delete(h);
	buf_free(&b);
}

/* ---- progress ---- */

static void
test_progressed(void **state)
{
	(void)state;
	assert_true(policy_progressed(-1, 1, -1, -1));
	assert_false(policy_progressed(-1, 0, -1, -1));		/* step 0 is no progress */
	assert_false(policy_progressed(-1, -1, -1, -1));	/* nothing known */
	assert_false(policy_progressed(950, 950, -1, -1));	/* only caught up */
	assert_false(policy_progressed(950, 940, 900, 900));	/* redid steps, same checkpoint */
	assert_true(policy_progressed(950, 951, 900, 900));
	assert_true(policy_progressed(950, 940, 900, 1000));	/* a newer complete checkpoint */
	assert_false(policy_progressed(950, -1, -1, 0));	/* a step-0 checkpoint */
	assert_true(policy_progressed(950, -1, -1, 100));
}

static void
test_mark_progress(void **state)
{
	static const char doc[] =
	    "{ \"attempts\": [\n"
	    "  { \"attempt\": 1, \"result\": \"failed\", \"step\": 500, \"checkpoint_step\": 400 },\n"
	    "  { \"attempt\": 2, \"result\": \"failed\", \"step\": 300, \"checkpoint_step\": \"x\" },\n"
	    "  { \"attempt\": 3, \"result\": \"running\" },\n"
	    "  { \"attempt\": 4, \"result\": \"failed\", \"step\": 99999, \"checkpoint_step\": 99999 }\n"
	    "] }";
	cJSON *h = cJSON_Parse(doc), *a3, *fresh;

	(void)state;
	assert_non_null(h);
	a3 = cJSON_GetArrayItem(cJSON_GetObjectItem(h, "attempts"), 2);
	/* Compared with attempts 1 and 2 only (attempt 4 comes after it). */
	assert_int_equal(policy_mark_progress(h, a3, 450, 400), 0);
	assert_int_equal(json_long(a3, POLICY_KEY_STEP, -1), 450);
	assert_int_equal(json_long(a3, POLICY_KEY_CKPT_STEP, -1), 400);
	assert_int_equal(json_bool(a3, POLICY_KEY_PROGRESSED, 1), 0);
	assert_int_equal(policy_mark_progress(h, a3, 501, 400), 1);
	assert_int_equal(json_bool(a3, POLICY_KEY_PROGRESSED, 0), 1);
	assert_int_equal(policy_mark_progress(h, a3, 100, 450), 1);
	/* Unknown step and checkpoint: no keys for them, and no progress. */
	fresh = cJSON_CreateObject();
	assert_int_equal(policy_mark_progress(h, fresh, -1, -1), 0);
	assert_null(cJSON_GetObjectItem(fresh, POLICY_KEY_STEP));
	assert_null(cJSON_GetObjectItem(fresh, POLICY_KEY_CKPT_STEP));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(fresh, POLICY_KEY_PROGRESSED)));
	/* Not in hist: compared with every entry (attempt 4's 99999 included). */
	assert_int_equal(policy_mark_progress(h, fresh, 60000, 60000), 0);
	/* The written flag is what the reader sees once the attempt has ended. */
	json_set_str(a3, "result", "failed");
	{
		struct attempt a[4];
		size_t n;

		assert_int_equal(history_attempts(h, a, 4, &n, NULL), 0);
		assert_int_equal(n, 4);
		assert_int_equal(a[1].progressed, 0);
		assert_int_equal(a[2].n, 3);
		assert_int_equal(a[2].progressed, 1);
		assert_string_equal(a[2].cls, "unknown");
	}
	cJSON_AddItemToArray(cJSON_GetObjectItem(h, "attempts"), fresh);
	assert_int_equal(policy_mark_progress(NULL, NULL, 1, 1), 0);
	cJSON_Delete(h);
}

/* ---- no_progress ---- */

/*
 * Two failed attempts in a row without a new complete checkpoint stop
 * (restart.no_progress_max 2), whatever the budget says; infrastructure
 * classes too (a preemption that always comes first).
 */
static void
test_no_progress(void **state)
{
	struct attempt none[] = {
		AC(1, T0 - 400, T0 - 300, "preempted", -1, -1),
		AC(2, T0 - 200, T0 - 100, "preempted", -1, -1),
	};
	struct attempt four[] = {
		AC(1, T0 - 900, T0 - 700, "preempted", -1, 4),	/* made step 4 */
		AC(2, T0 - 600, T0 - 500, "preempted", 4, 4),
		AC(3, T0 - 400, T0 - 300, "preempted", 4, 4),
	};
	struct attempt newer[] = {
		AC(1, T0 - 400, T0 - 300, "preempted", -1, -1),
		AC(2, T0 - 200, T0 - 100, "preempted", -1, 3),	/* a new one: no stop */
	};
	struct attempt resumed[] = {
		AC(1, T0 - 400, T0 - 300, "preempted", -1, 3),
		AC(2, T0 - 200, T0 - 100, "preempted", 3, 6),
		AC(3, T0 - 90, T0 - 50, "preempted", 6, 9),
	};
	struct attempt counting[] = {
		AC(1, T0 - 4000, T0 - 3000, "nccl_timeout", 10, 10),
		AC(2, T0 - 2000, T0 - 1000, "nccl_timeout", 10, 10),
	};
	struct policy_out o;

	(void)state;
	/* One failure: restarted. */
	expect(C_CKPT, none, 1, POLICY_RETRY, NULL, &o);
	expect(C_CKPT, none, 2, POLICY_NO_PROGRESS, "attempts 1 and 2 both failed without a new "
	    "complete checkpoint (still none): a restart would repeat them, not restarted "
	    "(restart.no_progress_max 2). Newest: attempt 2, preempted (", &o);
	assert_non_null(strstr(o.reason, "fix the cause, then onbox start"));
	assert_int_equal(o.escalate, 0);
	/* Attempt 1 made a checkpoint; 2 and 3 did not. */
	expect(C_CKPT, four, 2, POLICY_RETRY, NULL, &o);
	expect(C_CKPT, four, 3, POLICY_NO_PROGRESS, "attempts 2 and 3 both failed without a new "
	    "complete checkpoint (newest still step 4)", &o);
	/* A new complete checkpoint in the newest attempt: restarted. */
	expect(C_CKPT, newer, 2, POLICY_RETRY, NULL, &o);
	expect(C_CKPT, resumed, 3, POLICY_RETRY, NULL, &o);
	/* Before budget: restart.max 1 would stop attempt 2 too; no_progress says why. */
	expect(C_CKPT, counting, 2, POLICY_NO_PROGRESS, "nccl_timeout", &o);
	counting[1].ckpt_step = 20;
	expect(C_CKPT, counting, 2, POLICY_BUDGET, NULL, &o);
}

/* restart.no_progress_max 3 needs three; 0 switches the rule off. */
static void
test_no_progress_max(void **state)
{
	struct attempt a[] = {
		AC(1, T0 - 900, T0 - 800, "preempted", -1, 5),
		AC(2, T0 - 700, T0 - 600, "preempted", 5, 5),
		AC(3, T0 - 500, T0 - 400, "node_lost", 5, 5),
		AC(4, T0 - 300, T0 - 200, "preempted", 5, 5),
	};
	struct policy_out o;

	(void)state;
	expect(C_CKPT3, a, 3, POLICY_RETRY, NULL, &o);
	expect(C_CKPT3, a, 4, POLICY_NO_PROGRESS, "the last 3 attempts (2 to 4) all failed without "
	    "a new complete checkpoint (newest still step 5)", &o);
	expect(C_CKPT0, a, 4, POLICY_RETRY, NULL, &o);
}

/*
 * What ends the count: a success, a never-retry failure (a person relaunched
 * after it), an attempt whose checkpoints are unknown (ended while no onbox
 * watched).  And where the rule does not apply: no checkpoints configured,
 * a command without {checkpoint} (a restart starts over: no steps instead),
 * another stage, an unknown stage.
 */
static void
test_no_progress_scope(void **state)
{
	struct attempt ok[] = {
		AC(1, T0 - 900, T0 - 800, "preempted", -1, -1),
		AC(2, T0 - 700, T0 - 600, NULL, -1, -1),
		AC(3, T0 - 300, T0 - 200, "preempted", -1, -1),
	};
	struct attempt fixed[] = {
		AC(1, T0 - 900, T0 - 800, "code_error", -1, -1),
		AC(2, T0 - 300, T0 - 200, "preempted", -1, -1),
	};
	struct attempt unknown[] = {
		AC(1, T0 - 900, T0 - 800, "preempted", -1, -1),
		A(2, T0 - 700, T0 - 600, "lost", 0),
		AC(3, T0 - 300, T0 - 200, "preempted", -1, -1),
	};
	struct attempt two[] = {
		AC(1, T0 - 900, T0 - 800, "preempted", -1, -1),
		AC(2, T0 - 300, T0 - 200, "preempted", -1, -1),
	};
	struct policy_out o;
	struct policy_in in;

	(void)state;
	expect(C_CKPT, ok, 3, POLICY_RETRY, NULL, &o);
	expect(C_CKPT, fixed, 2, POLICY_RETRY, NULL, &o);
	expect(C_CKPT, unknown, 3, POLICY_RETRY, NULL, &o);
	expect(C_CKPT, two, 2, POLICY_NO_PROGRESS, NULL, &o);
	expect(C_NOESC, two, 2, POLICY_RETRY, NULL, &o);	/* no checkpoints configured */
	expect(C_NOTOKEN, two, 2, POLICY_RETRY, NULL, &o);	/* no {checkpoint} in the command */
	memset(&in, 0, sizeof(in));
	in.cfg = cfgs[C_CKPT];
	in.seen = 1;
	in.att = two;
	in.natt = 2;
	in.now = (time_t)T0;
	policy_decide(&in, &o);			/* stage unknown: off */
	assert_int_equal(o.rule, POLICY_RETRY);
	in.stage = "eval";			/* a stage that does not resume */
	policy_decide(&in, &o);
	assert_int_equal(o.rule, POLICY_RETRY);
	in.stage = "nope";
	policy_decide(&in, &o);
	assert_int_equal(o.rule, POLICY_RETRY);
	in.stage = "train";
	policy_decide(&in, &o);
	assert_int_equal(o.rule, POLICY_NO_PROGRESS);
}

/*
 * The history as onbox writes it (progressed, checkpoint_step,
 * checkpoint_step_from), read as onbox and patrol both read it: the same
 * answer, and patrol's running-but-dead attempt (no progress record)
 * decided as unknown, which never stops on no_progress.
 */
static const char np_hist[] =
    "{ \"stage\": \"train\", \"attempts\": [\n"
    "  { \"attempt\": 1, \"kind\": \"run\", \"started_unix\": 1794999000, \"result\": \"failed\",\n"
    "    \"class\": \"preempted\", \"ended_unix\": 1794999100, \"signal\": 15, \"step\": 6,\n"
    "    \"checkpoint_step\": 4, \"progressed\": true, \"step_interval_s\": 12.5 },\n"
    "  { \"attempt\": 2, \"kind\": \"run\", \"started_unix\": 1794999200, \"result\": \"failed\",\n"
    "    \"class\": \"preempted\", \"ended_unix\": 1794999300, \"signal\": 15, \"step\": 6,\n"
    "    \"checkpoint\": \"/w/ckpt/step_000004\", \"checkpoint_step_from\": 4,\n"
    "    \"checkpoint_step\": 4, \"progressed\": false },\n"
    "  { \"attempt\": 3, \"kind\": \"run\", \"started_unix\": 1794999400, \"result\": \"failed\",\n"
    "    \"class\": \"preempted\", \"ended_unix\": 1794999500, \"signal\": 15, \"step\": 6,\n"
    "    \"checkpoint\": \"/w/ckpt/step_000004\", \"checkpoint_step_from\": 4,\n"
    "    \"checkpoint_step\": 4, \"progressed\": false },\n"
    "  { \"attempt\": 4, \"kind\": \"run\", \"started_unix\": 1794999600, \"result\": \"running\",\n"
    "    \"checkpoint_step_from\": 4 } ] }\n";

static void
test_no_progress_history(void **state)
{
	struct attempt a[8];
	struct policy_out onbox, patrol;
	struct policy_in in;
	size_t n = 0, skipped = 99;
	cJSON *h = cJSON_Parse(np_hist), *e;

	(void)state;
	assert_non_null(h);
	assert_int_equal(history_attempts(h, a, 8, &n, &skipped), 0);
	assert_int_equal(n, 3);
	assert_int_equal(skipped, 0);
	assert_int_equal(a[0].ckpt_known, 1);
	assert_int_equal(a[0].ckpt_from, -1);
	assert_int_equal(a[0].ckpt_step, 4);
	assert_int_equal(a[2].ckpt_from, 4);
	memset(&in, 0, sizeof(in));
	in.cfg = cfgs[C_CKPT];
	in.seen = 1;
	in.att = a;
	in.natt = 2;
	in.now = (time_t)1794999310;
	in.stage = "train";
	policy_decide(&in, &onbox);
	assert_int_equal(onbox.rule, POLICY_RETRY);
	in.natt = 3;
	in.now = (time_t)1794999510;
	policy_decide(&in, &onbox);
	assert_int_equal(onbox.rule, POLICY_NO_PROGRESS);
	assert_non_null(strstr(onbox.reason, "attempts 2 and 3 both failed without a new complete "
	    "checkpoint (newest still step 4)"));
	/* Patrol: the same history through its probe, a moment later: the same answer. */
	in.now = (time_t)1794999600;
	policy_decide(&in, &patrol);
	assert_int_equal(patrol.rule, onbox.rule);
	assert_int_equal(patrol.action, onbox.action);
	assert_string_equal(patrol.reason, onbox.reason);
	/* Patrol's dead "running" attempt 4 as tick_policy adds it: checkpoints unknown. */
	a[3] = A(4, 1794999600, 1794999700, "lost", 0);
	in.natt = 4;
	in.now = (time_t)1794999700;
	policy_decide(&in, &patrol);
	assert_int_equal(patrol.rule, POLICY_RETRY);
	/* A checkpoint step out of shape is unknown, not a bad entry. */
	e = cJSON_GetArrayItem(cJSON_GetObjectItem(h, "attempts"), 1);
	cJSON_ReplaceItemInObject(e, "checkpoint_step", cJSON_CreateString("4"));
	assert_int_equal(history_attempts(h, a, 8, &n, &skipped), 0);
	assert_int_equal(n, 3);
	assert_int_equal(skipped, 0);
	assert_int_equal(a[1].ckpt_known, 0);
	in.natt = 3;
	in.now = (time_t)1794999510;
	policy_decide(&in, &onbox);
	assert_int_equal(onbox.rule, POLICY_RETRY);
	cJSON_Delete(h);
}

/* recovery_stalled's limit from the history (policy_recovery). */
static void
test_recovery_limit(void **state)
{
	static const char doc[] =
	    "{ \"attempts\": [\n"
	    "  { \"attempt\": 1, \"result\": \"failed\", \"step_interval_s\": 300 },\n"
	    "  { \"attempt\": 2, \"result\": \"lost\", \"step_interval_s\": 100.5 },\n"
	    "  { \"attempt\": 3, \"result\": \"failed\" },\n"
	    "  { \"attempt\": 4, \"result\": \"done\", \"step_interval_s\": 300 },\n"
	    "  { \"attempt\": 5, \"result\": \"stopped\" },\n"
	    "  { \"attempt\": 6, \"result\": \"running\" }\n"
	    "] }";
	cJSON *h = cJSON_Parse(doc), *arr = cJSON_GetObjectItem(h, "attempts");
	double iv;
	long lim;

	(void)state;
	assert_non_null(h);
	/* The first attempt is no relaunch. */
	assert_int_equal(policy_recovery(cfgs[C_DEFAULT], h, cJSON_GetArrayItem(arr, 0), &lim, &iv), 0);
	/* After a failure with a step every 300 s: 900 s. */
	assert_int_equal(policy_recovery(cfgs[C_DEFAULT], h, cJSON_GetArrayItem(arr, 1), &lim, &iv), 1);
	assert_int_equal(lim, 900);
	assert_true(iv == 300);
	/* After a lost one with 100.5 s: 301.5 s is below the floor, 600. */
	assert_int_equal(policy_recovery(cfgs[C_DEFAULT], h, cJSON_GetArrayItem(arr, 2), &lim, &iv), 1);
	assert_int_equal(lim, POLICY_RECOVERY_MIN_S);
	assert_true(iv == 100.5);
	/* Interval unknown: the floor. */
	assert_int_equal(policy_recovery(cfgs[C_DEFAULT], h, cJSON_GetArrayItem(arr, 3), &lim, &iv), 1);
	assert_int_equal(lim, 600);
	assert_true(iv < 0);
	/* restart.recovery_s set: it, however small. */
	assert_int_equal(policy_recovery(cfgs[C_RECOV], h, cJSON_GetArrayItem(arr, 1), &lim, &iv), 1);
	assert_int_equal(lim, 3);
	assert_true(iv == 300);
	/* After a success or a stop on purpose: not watched. */
	assert_int_equal(policy_recovery(cfgs[C_DEFAULT], h, cJSON_GetArrayItem(arr, 4), &lim, &iv), 0);
	assert_int_equal(policy_recovery(cfgs[C_DEFAULT], h, cJSON_GetArrayItem(arr, 5), &lim, &iv), 0);
	/* Not in the history: not watched. */
	assert_int_equal(policy_recovery(cfgs[C_DEFAULT], h, h, &lim, &iv), 0);
	assert_int_equal(policy_recovery(cfgs[C_DEFAULT], NULL, h, &lim, &iv), 0);
	cJSON_Delete(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finished_and_unseen),
		cmocka_unit_test(test_no_failure),
		cmocka_unit_test(test_never_retry),
		cmocka_unit_test(test_retry_classes),
		cmocka_unit_test(test_escalate),
		cmocka_unit_test(test_flapping),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_infra_free),
		cmocka_unit_test(test_progress_resets),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_out_json),
		cmocka_unit_test(test_history_realistic),
		cmocka_unit_test(test_history_requeued),
		cmocka_unit_test(test_history_malformed),
		cmocka_unit_test(test_history_bounded),
		cmocka_unit_test(test_progressed),
		cmocka_unit_test(test_mark_progress),
		cmocka_unit_test(test_no_progress),
		cmocka_unit_test(test_no_progress_max),
		cmocka_unit_test(test_no_progress_scope),
		cmocka_unit_test(test_no_progress_history),
		cmocka_unit_test(test_recovery_limit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
