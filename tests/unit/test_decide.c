/*
 * test_decide.c: one case per row of the decision table, from probes as the
 * box would send them, plus priority between rows and the exit codes.
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
#include "buf.h"
#include "config.h"
#include "decide.h"
#include "diag.h"
#include "fsutil.h"
#include "probe.h"
#include "xmalloc.h"

static struct wk_config *cfg;
static char dir[64];

static int
setup(void **state)
{
	struct diag d = DIAG_INIT;
	char *p;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wk-decide-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	p = fs_join(dir, "wk.json");
	atomic_write_str(p, "{ \"run\": \"r\", \"workdir\": \"/w\", \"heartbeat_s\": 60,\n"
	    "  \"progress\": { \"pattern\": \"step (\\\\d+)/(\\\\d+)\", \"max\": 5155 },\n"
	    "  \"patrol\": { \"stall_ticks\": 2, \"disk_warn_pct\": 90 },\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"x\", \"marker\": \"TRAIN_DONE\" },\n"
	    "              { \"stage\": \"eval\", \"run\": \"y\", \"marker\": \"EVAL_DONE\" } ] }\n");
	if (config_load(p, &cfg, &d) != 0) {
		diag_print(&d, stderr);
		return -1;
	}
	free(p);
	return 0;
}

static int
teardown(void **state)
{
	int r = unit_rmrf(dir);

	(void)state;
	config_free(cfg);
	return r == 0 ? 0 : -1;
}

/* A probe text from parts. */
struct pb {
	const char *alive;	/* lines for @alive */
	const char *markers;
	const char *extra;	/* @failed / @log sections */
	const char *state;	/* state.json, one line */
	int disk, inodes;
	const char *transfer;
};

static void
build(const struct pb *b, struct probe *p)
{
	struct buf t = BUF_INIT;
	char *why = NULL;

	buf_printf(&t, "@probe 1 1795000600\n@alive\n%s@markers\n%s%s@state\n", b->alive,
	    b->markers != NULL ? b->markers : "", b->extra != NULL ? b->extra : "");
	if (b->state != NULL)
		buf_printf(&t, "|%s\n", b->state);
	buf_printf(&t, "@results\n@df\n|Filesystem 1024-blocks Used Available Capacity Mounted on\n"
	    "|/dev/vda 1000 500 500 %d%% /w\n@dfi\n|Filesystem Inodes IUsed IFree IUse%% Mounted on\n"
	    "|/dev/vda 100 10 90 %d%% /w\n@gpu\n@cgroup\n@transfer\n%s@end\n", b->disk, b->inodes,
	    b->transfer != NULL ? b->transfer : "");
	if (probe_parse(t.data, t.len, p, &why) != 0)
		fail_msg("probe: %s\n%s", why, t.data);
	buf_free(&t);
}

#define HB_FRESH "{\"time_unix\": 1795000590, \"stage\": \"train\", \"attempt\": 2, \"progress\": {\"cur\": 4600, \"max\": 5155}}"

static void
run_case(const struct pb *b, long prev, int still, enum verdict want, const char *detail,
    struct decide_out *o)
{
	struct decide_in in;
	struct probe p;

	build(b, &p);
	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.seen = 1;
	in.p = &p;
	in.prev_progress = prev;
	in.still_ticks = still;
	in.local_files = -1;
	in.local_bytes = -1;
	if (b->transfer != NULL) {
		in.local_files = 10;
		in.local_bytes = 1000;
	}
	decide(&in, o);
	if (o->v != want)
		fail_msg("got %s (%s), want %s", verdict_name(o->v), o->details, verdict_name(want));
	if (detail != NULL && strstr(o->details, detail) == NULL)
		fail_msg("details \"%s\" lack \"%s\"", o->details, detail);
	probe_free(&p);
}

static void
test_unseen(void **state)
{
	struct decide_in in;
	struct decide_out o;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.fail = SSH_FAIL_HOSTKEY_MISMATCH;
	in.fail_msg = "the host key CHANGED";
	decide(&in, &o);
	assert_int_equal(o.v, V_HOSTKEY_MISMATCH);
	assert_int_equal(verdict_exit(o.v), 2);
	assert_int_equal(o.action, ACT_NONE);
	in.fail = SSH_FAIL_CONNECT;
	in.fail_msg = "connection refused";
	decide(&in, &o);
	assert_int_equal(o.v, V_SSH_DOWN);
	assert_int_equal(verdict_exit(o.v), 2);
	assert_int_equal(o.action, ACT_NONE);	/* unreachable is not dead */
	assert_non_null(strstr(o.details, "connect: connection refused"));
	in.fail = SSH_OK;
	in.fail_msg = "truncated: no @end";
	decide(&in, &o);
	assert_int_equal(o.v, V_SSH_DOWN);
	assert_non_null(strstr(o.details, "probe: truncated"));
}

static void
test_rows(void **state)
{
	struct decide_out o;
	struct pb b;

	(void)state;
	/* CRASHED from the FAILED marker. */
	memset(&b, 0, sizeof(b));
	b.alive = "|tmux 0\n|onbox 0 0\n|stage 0 0\n";
	b.markers = "|TRAIN_DONE\n|EVAL_DONE.FAILED\n";
	b.extra = "@failed EVAL_DONE\n|{\"class\": \"cuda_oom\", \"attempt\": 2, \"evidence\": \"CUDA out of memory\"}\n";
	b.state = HB_FRESH;
	b.disk = 50;
	b.inodes = 10;
	run_case(&b, -1, 0, V_CRASHED, "eval (cuda_oom) attempt 2", &o);
	assert_int_equal(o.cls, TRIAGE_CUDA_OOM);
	assert_int_equal(o.action, ACT_RESUME);
	assert_int_equal(verdict_exit(o.v), 1);
	/* CRASHED from the output tail when no FAILED marker was written (onbox died too). */
	b.markers = "";
	b.extra = "@log output train.2.log\n|step 4600/5155\n|Traceback (most recent call last):\n"
	    "|RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout\n";
	run_case(&b, -1, 0, V_CRASHED, "train (nccl_timeout)", &o);
	/* NEEDS_RESUME: dead, clean tail. */
	b.extra = "@log output train.2.log\n|step 4600/5155\n";
	run_case(&b, -1, 0, V_NEEDS_RESUME, "train: nothing is running and TRAIN_DONE is missing", &o);
	assert_int_equal(o.action, ACT_RESUME);
	/* The contract's order: a full disk outranks DONE (the box still needs a person)... */
	b.markers = "|TRAIN_DONE\n|EVAL_DONE\n";
	b.disk = 95;
	run_case(&b, -1, 0, V_DISK_LOW, "95% used", &o);
	/* ...and DONE outranks OK, alive or not. */
	b.disk = 50;
	run_case(&b, -1, 0, V_DONE, "every marker present", &o);
	assert_int_equal(verdict_exit(o.v), 0);
	assert_int_equal(o.action, ACT_FINISH);
	/* STALLED: alive, progress unchanged for stall_ticks ticks. */
	b.alive = "|tmux 1\n|onbox 7 1\n|stage 8 1\n";
	b.markers = "";
	b.disk = 50;
	run_case(&b, 4600, 1, V_STALLED, "no progress for 2 ticks ~4600/5155", &o);
	/* One tick without progress is not yet a stall. */
	run_case(&b, 4600, 0, V_OK, "~4600/5155 (+0 since last tick)", &o);
	/* OK with the delta. */
	run_case(&b, 4500, 3, V_OK, "train attempt 2 ~4600/5155 (+100 since last tick)", &o);
	assert_int_equal(o.progress, 4600);
	assert_int_equal(o.progress_max, 5155);
	/* MONITOR_STALE: the stage lives, onbox does not. */
	b.alive = "|tmux 1\n|onbox 7 0\n|stage 8 1\n";
	run_case(&b, 4500, 0, V_MONITOR_STALE, "onbox is not running", &o);
	/* MONITOR_STALE: onbox lives but its heartbeat is 600 s old (interval 60). */
	b.alive = "|tmux 1\n|onbox 7 1\n|stage 8 1\n";
	b.state = "{\"time_unix\": 1795000000, \"stage\": \"train\"}";
	run_case(&b, -1, 0, V_MONITOR_STALE, "600s old", &o);
	b.state = HB_FRESH;
	/* DISK_LOW by bytes, and by inodes. */
	b.disk = 93;
	run_case(&b, 4500, 0, V_DISK_LOW, "93% used", &o);
	b.disk = 50;
	b.inodes = 91;
	run_case(&b, 4500, 0, V_DISK_LOW, "inodes 91% used", &o);
	b.inodes = 10;
	/* TRANSFER_INCOMPLETE: fewer files on the box than here (10 local). */
	b.transfer = "|files 9\n|bytes 900\n";
	run_case(&b, 4500, 0, V_TRANSFER_INCOMPLETE, "box has 9 of 10 files, 900 of 1000 bytes", &o);
	assert_int_equal(o.action, ACT_RESUME_TRANSFER);
	b.transfer = "|files 10\n|bytes 999\n";
	run_case(&b, 4500, 0, V_TRANSFER_INCOMPLETE, "10 of 10 files, 999 of 1000 bytes", &o);
	b.transfer = "|files 10\n|bytes 1000\n";
	run_case(&b, 4500, 0, V_OK, NULL, &o);
	/* Progress read from the tail with the configured pattern when onbox has none. */
	b.state = "{\"time_unix\": 1795000590, \"stage\": \"train\", \"attempt\": 1}";
	b.extra = "@log train\n|step 77/5155 loss=2.1\n|step 78/5155 loss=2.0\n";
	b.transfer = NULL;
	run_case(&b, -1, 0, V_OK, "~78/5155", &o);
}

static void
test_table_shape(void **state)
{
	size_t i;
	int seen[V_COUNT] = { 0 };

	(void)state;
	/* Every verdict once, in the contract's priority order, with words for the handbook. */
	assert_int_equal(decide_nrows, V_COUNT);
	for (i = 0; i < decide_nrows; i++) {
		assert_int_equal(decide_table[i].v, (enum verdict)i);
		assert_false(seen[decide_table[i].v]);
		seen[decide_table[i].v] = 1;
		assert_true(strlen(decide_table[i].when) > 10);
		assert_true(strlen(decide_table[i].then) > 10);
	}
	assert_string_equal(verdict_name(V_TRANSFER_INCOMPLETE), "TRANSFER_INCOMPLETE");
	assert_int_equal(verdict_exit(V_DONE), 0);
	assert_int_equal(verdict_exit(V_OK), 0);
	assert_int_equal(verdict_exit(V_STALLED), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unseen),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_table_shape),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
