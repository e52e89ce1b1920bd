/*
 * test_decide.c: one case per row of the decision table, from probes as the
 * box would send them, plus priority between rows and the exit codes.  Under
 * detach slurm, the same table over the probe with the query fragment's
 * output in @slurm (read by probe_parse, as patrol does): liveness is the first
 * missing stage's job, a pending job is waiting (no heartbeat due, never a
 * stall), a job that ended without its marker is classed by its Slurm state,
 * and an unreadable queue is never dead.
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
#include "slurm.h"
#include "xmalloc.h"

static struct wk_config *cfg;
static struct wk_config *scfg;	/* run t1, detach slurm, stages a, b, c */
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
	p = fs_join(dir, "slurm.json");
	atomic_write_str(p, "{ \"run\": \"t1\", \"workdir\": \"/w\", \"detach\": \"slurm\", \"heartbeat_s\": 60,\n"
	    "  \"patrol\": { \"stall_ticks\": 2, \"disk_warn_pct\": 90 },\n"
	    "  \"chain\": [ { \"stage\": \"a\", \"run\": \"x\", \"marker\": \"A_DONE\" },\n"
	    "              { \"stage\": \"b\", \"run\": \"y\", \"marker\": \"B_DONE\" },\n"
	    "              { \"stage\": \"c\", \"run\": \"z\", \"marker\": \"C_DONE\" } ] }\n");
	if (config_load(p, &scfg, &d) != 0) {
		diag_print(&d, stderr);
		return -1;
	}
	free(p);
	diag_free(&d);
	return 0;
}

static int
teardown(void **state)
{
	int r = unit_rmrf(dir);

	(void)state;
	config_free(cfg);
	config_free(scfg);
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
	const char *slurm;	/* the query fragment's output for @slurm, NULL: no @slurm */
};

static void
build(const struct pb *b, const struct wk_config *c, struct probe *p)
{
	struct buf t = BUF_INIT;
	char *why = NULL;
	const char *l;

	buf_printf(&t, "@probe 1 1795000600\n@alive\n%s@markers\n%s%s@state\n", b->alive,
	    b->markers != NULL ? b->markers : "", b->extra != NULL ? b->extra : "");
	if (b->state != NULL)
		buf_printf(&t, "|%s\n", b->state);
	if (b->slurm != NULL) {
		buf_puts(&t, "@slurm\n");
		for (l = b->slurm; *l != '\0'; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0'))
			buf_printf(&t, "|%.*s\n", (int)strcspn(l, "\n"), l);
	}
	buf_printf(&t, "@results\n@df\n|Filesystem 1024-blocks Used Available Capacity Mounted on\n"
	    "|/dev/vda 1000 500 500 %d%% /w\n@dfi\n|Filesystem Inodes IUsed IFree IUse%% Mounted on\n"
	    "|/dev/vda 100 10 90 %d%% /w\n@gpu\n@cgroup\n@transfer\n%s@end\n", b->disk, b->inodes,
	    b->transfer != NULL ? b->transfer : "");
	if (probe_parse(c, t.data, t.len, p, &why) != 0)
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

	build(b, cfg, &p);
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
	assert_null(o->job);	/* tmux: no job */
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

#define STOPPED_REC "@stopped\n|{\"run\": \"r\", \"when\": \"2026-11-26T12:00:00Z\", " \
	"\"by\": \"patrol stop (alice@laptop), on the box as root@box\", \"stage\": \"train\", " \
	"\"attempt\": 2, \"how\": \"SIGTERM; it ended within stop_grace_s=30s\"}\n"

/*
 * STOPPED: the run was stopped on purpose.  It outranks CRASHED and
 * NEEDS_RESUME (a stopped stage looks dead, and may have left a crash line
 * or FAILED marker), exits 0, and its action is none: nothing resumes it,
 * whatever auto_resume says.  An unseen box is still SSH_DOWN.
 */
static void
test_stopped(void **state)
{
	struct decide_in in;
	struct decide_out o;
	struct pb b;
	size_t i, row_ssh = 99, row_stop = 99, row_crash = 99;

	(void)state;
	for (i = 0; i < decide_nrows; i++) {
		if (decide_table[i].v == V_SSH_DOWN)
			row_ssh = i;
		if (decide_table[i].v == V_STOPPED)
			row_stop = i;
		if (decide_table[i].v == V_CRASHED)
			row_crash = i;
	}
	assert_true(row_ssh < row_stop && row_stop < row_crash && row_crash == row_stop + 1);
	assert_string_equal(verdict_name(V_STOPPED), "STOPPED");
	assert_int_equal(verdict_exit(V_STOPPED), 0);
	assert_int_equal(decide_table[row_stop].action, ACT_NONE);

	memset(&b, 0, sizeof(b));
	b.alive = "|tmux 0\n|onbox 0 0\n|stage 0 0\n";
	b.state = HB_FRESH;
	b.disk = 50;
	b.inodes = 10;
	/* dead, clean tail: NEEDS_RESUME without the record, STOPPED with it */
	b.extra = "@log output train.2.log\n|step 4600/5155\n";
	run_case(&b, -1, 0, V_NEEDS_RESUME, NULL, &o);
	assert_int_equal(o.action, ACT_RESUME);
	b.extra = "@log output train.2.log\n|step 4600/5155\n" STOPPED_REC;
	run_case(&b, -1, 0, V_STOPPED, "stopped on purpose by patrol stop (alice@laptop)", &o);
	assert_int_equal(o.action, ACT_NONE);
	assert_int_equal(verdict_exit(o.v), 0);
	assert_non_null(strstr(o.details, "at 2026-11-26T12:00:00Z"));
	assert_non_null(strstr(o.details, "train attempt 2 (SIGTERM"));
	assert_non_null(strstr(o.details, "start again: onbox start"));
	assert_string_equal(o.stage, "train");
	/* a crash line in the tail (SIGTERM'd trainings often print one): still STOPPED */
	b.extra = "@log output train.2.log\n|Traceback (most recent call last):\n"
	    "|RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout\n";
	run_case(&b, -1, 0, V_CRASHED, NULL, &o);
	b.extra = "@log output train.2.log\n|Traceback (most recent call last):\n"
	    "|RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout\n"
	    STOPPED_REC;
	run_case(&b, -1, 0, V_STOPPED, "stopped on purpose", &o);
	assert_int_equal(o.action, ACT_NONE);
	/* a FAILED marker too */
	b.markers = "|TRAIN_DONE.FAILED\n";
	b.extra = "@failed TRAIN_DONE\n|{\"class\": \"cuda_oom\", \"attempt\": 2}\n" STOPPED_REC;
	run_case(&b, -1, 0, V_STOPPED, NULL, &o);
	/* stopped with nothing running: "before <stage>" */
	b.markers = "";
	b.extra = "@stopped\n|{\"by\": \"onbox stop (root@box)\", \"when\": \"2026-11-26T12:00:00Z\", "
	    "\"stage\": \"eval\", \"attempt\": 0, \"how\": \"nothing was running\"}\n";
	run_case(&b, -1, 0, V_STOPPED, "before eval (nothing was running)", &o);
	/* a record that cannot be read still means stopped */
	b.extra = "@stopped\n|not json\n";
	run_case(&b, -1, 0, V_STOPPED, "by ? at ?", &o);
	/* something alive on a stopped run is said, still no action */
	b.alive = "|tmux 1\n|onbox 7 1\n|stage 8 1\n";
	b.extra = STOPPED_REC;
	run_case(&b, -1, 0, V_STOPPED, "yet something of the run is alive", &o);
	assert_int_equal(o.action, ACT_NONE);
	/* the ssh rows come first: an unseen box is SSH_DOWN, never STOPPED */
	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.fail = SSH_FAIL_CONNECT;
	in.fail_msg = "connection refused";
	decide(&in, &o);
	assert_int_equal(o.v, V_SSH_DOWN);
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
	assert_null(o.where);
	/* Where the traceback failed, beside the evidence (the marker's "where"). */
	b.extra = "@failed EVAL_DONE\n|{\"class\": \"code_error\", \"attempt\": 1, \"evidence\": "
	    "\"KeyError: 'warmup_steps'\", \"where\": {\"file\": \"src/train.py\", \"line\": 62, "
	    "\"function\": \"lr_at\"}}\n";
	run_case(&b, -1, 0, V_CRASHED, "eval (code_error) attempt 1", &o);
	assert_non_null(strstr(o.details, " \xc2\xb7 last: KeyError: 'warmup_steps' at train.py:62 in lr_at"));
	assert_non_null(o.where);	/* into the probe, freed by run_case: not read here */
	/* ...and without evidence, its own part; a malformed one is left out. */
	b.extra = "@failed EVAL_DONE\n|{\"class\": \"unknown\", \"attempt\": 1, "
	    "\"where\": {\"file\": \"kernel_check.cu\", \"line\": 14}}\n";
	run_case(&b, -1, 0, V_CRASHED, "eval (unknown) attempt 1", &o);
	assert_non_null(strstr(o.details, " \xc2\xb7 at kernel_check.cu:14"));
	b.extra = "@failed EVAL_DONE\n|{\"class\": \"unknown\", \"attempt\": 1, \"where\": 3}\n";
	run_case(&b, -1, 0, V_CRASHED, "eval (unknown) attempt 1", &o);
	assert_null(strstr(o.details, " at "));
	assert_null(o.where);
	b.extra = "@failed EVAL_DONE\n|{\"class\": \"cuda_oom\", \"attempt\": 2, \"evidence\": \"CUDA out of memory\"}\n";
	/* CRASHED from the output tail when no FAILED marker was written (onbox died too). */
	b.markers = "";
	b.extra = "@log output train.2.log\n|step 4600/5155\n|Traceback (most recent call last):\n"
	    "|RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout\n";
	run_case(&b, -1, 0, V_CRASHED, "train (nccl_timeout)", &o);
	/*
	 * The shell's "Killed" is evidence of a SIGKILL, not of an OOM: patrol cannot read
	 * the stage's cgroup, so onbox's class in the history wins over its guess.
	 */
	b.extra = "@log output train.2.log\n|step 4600/5155\n|Killed\n";
	run_case(&b, -1, 0, V_CRASHED, "train (cgroup_oom)", &o);
	b.extra = "@history train\n|{\"stage\": \"train\", \"attempts\": [{\"attempt\": 2, "
	    "\"result\": \"failed\", \"class\": \"killed\"}]}\n"
	    "@log output train.2.log\n|step 4600/5155\n|Killed\n";
	run_case(&b, -1, 0, V_CRASHED, "train (killed)", &o);
	assert_int_equal(o.cls, TRIAGE_KILLED);
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
	assert_string_equal(o.details, "every marker present");	/* no caveats: as ever */
	/* A DONE that went wrong on the way says so (caveats.h), nothing else changes. */
	b.extra = "@caveats\n|{\"caveats\":[{\"kind\":\"nan_loss\",\"text\":\"nan_loss at step 15 (attempt 1)\","
	    "\"stage\":\"train\",\"attempt\":1,\"step\":15},{\"kind\":\"restart\",\"text\":\"1 restart (killed)\","
	    "\"stage\":\"train\",\"attempt\":1,\"count\":1}],\"text\":\"nan_loss at step 15 (attempt 1), "
	    "1 restart (killed)\",\"more\":0}\n";
	run_case(&b, -1, 0, V_DONE, NULL, &o);
	assert_string_equal(o.details,
	    "every marker present \xc2\xb7 caveats: nan_loss at step 15 (attempt 1), 1 restart (killed)");
	assert_int_equal(verdict_exit(o.v), 0);
	assert_int_equal(o.action, ACT_FINISH);
	/* An unreadable or empty caveats file says nothing. */
	b.extra = "@caveats\n|{\"caveats\":[\n";
	run_case(&b, -1, 0, V_DONE, NULL, &o);
	assert_string_equal(o.details, "every marker present");
	b.extra = "@caveats\n|{\"caveats\":[],\"text\":\"\"}\n";
	run_case(&b, -1, 0, V_DONE, NULL, &o);
	assert_string_equal(o.details, "every marker present");
	b.extra = "@log output train.2.log\n|step 4600/5155\n";	/* as before */
	/* STALLED: alive, progress unchanged for stall_ticks ticks. */
	b.alive = "|tmux 1\n|onbox 7 1\n|stage 8 1\n";
	b.markers = "";
	b.disk = 50;
	run_case(&b, 4600, 1, V_STALLED, "no progress for 2 ticks ~4600/5155", &o);
	/* A stall with a cluster signal in the job's log (seeds 000/001): DEGRADED, naming it. */
	b.state = "{\"time_unix\": 1795000590, \"stage\": \"train\", \"attempt\": 2, "
	    "\"progress\": {\"cur\": 4600, \"max\": 5155}, \"job\": {\"cluster_signal\": "
	    "{\"signal\": \"OwnerDiedError\", \"line\": \"ray.exceptions.OwnerDiedError: x\"}}}";
	run_case(&b, 4600, 1, V_DEGRADED, "cluster_stall: no progress for 2 ticks and the job's log "
	    "shows OwnerDiedError (ray.exceptions.OwnerDiedError: x)", &o);
	/* The signal alone, progress moving: OK. */
	run_case(&b, 4500, 1, V_OK, NULL, &o);
	b.state = HB_FRESH;
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
	/*
	 * OK: a heartbeat written after the probe read the box's clock (2 s
	 * "from the future" on a loaded box) is fresh, not missing.
	 */
	b.state = "{\"time_unix\": 1795000602, \"stage\": \"train\", \"attempt\": 2, "
	    "\"progress\": {\"cur\": 4600, \"max\": 5155}}";
	run_case(&b, 4500, 0, V_OK, "train attempt 2 ~4600/5155", &o);
	/*
	 * MONITOR_STALE: an hour ahead is no slow probe: the clock was set
	 * back (or the file is not onbox's), and the heartbeat proves nothing.
	 * At the bound (120 s, interval 60) it is still the race.
	 */
	b.state = "{\"time_unix\": 1795004200, \"stage\": \"train\"}";
	run_case(&b, -1, 0, V_MONITOR_STALE, "3600s ahead of the box's clock (interval 60s)", &o);
	b.state = "{\"time_unix\": 1795000720, \"stage\": \"train\", \"attempt\": 2, "
	    "\"progress\": {\"cur\": 4600, \"max\": 5155}}";
	run_case(&b, 4500, 0, V_OK, "train attempt 2 ~4600/5155", &o);
	b.state = "{\"time_unix\": 1795000721, \"stage\": \"train\"}";
	run_case(&b, -1, 0, V_MONITOR_STALE, "121s ahead", &o);
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

/* ---- detach slurm ---- */

/* Nothing of ours lives on the login node: under Slurm, onbox runs inside the job. */
#define S_DEAD		"|tmux -1\n|onbox 0 0\n|stage 0 0\n"
/* A pid in state.json that happens to live on the login node. */
#define S_PIDLIVE	"|tmux -1\n|onbox 7 1\n|stage 8 1\n"

/* Heartbeats of stage a (box time 1795000600, interval 60 s). */
#define S_HB(t, extra)	"{\"time_unix\": " #t ", \"stage\": \"a\", \"attempt\": 3, " \
	"\"progress\": {\"cur\": 40, \"max\": 100}" extra "}"
#define S_HB_FRESH	S_HB(1795000590, "")
#define S_HB_OLD	S_HB(1795000000, "")
#define S_DEGRADED	", \"health\": {\"degraded\": [{\"kind\": \"loss\", \"text\": \"loss spiked to 9.1\"}]}"

/* The query fragment's sections (core/slurm.h), each with its lines. */
#define S_Q(l)		"=squeue text 0\n" l
#define S_A(l)		"=sacct db 0\n" l
#define S_C(l)		"=scontrol 0\n" l
#define S_QDOWN		"=squeue text 1\n" \
	"slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n" \
	"=sacct comp 1\nsacct: error: Problem talking to the database: Connection refused\n" \
	"=scontrol 1\nslurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"
#define S_QDOWN_WHY	"slurm: the queue could not be read: squeue: exit 1: " \
	"slurm_load_jobs error: Unable to contact slurm controller (connect failure)"
/* squeue --json of Slurm 23.x with the controller down: exit 0, no jobs, the error. */
#define S_QJSON_DOWN	"=squeue json 0\n{\"jobs\": [], \"errors\": [{\"description\": " \
	"\"Unable to contact slurm controller (connect failure)\", \"source\": \"slurm_load_jobs\", " \
	"\"error\": \"Unable to contact slurm controller (connect failure)\", \"error_number\": 1007}]}\n" \
	S_A("") S_C("")

/* One job of a that ended without its marker, known from sacct only. */
#define S_ENDED(state, ec)	S_Q("") S_A("12|wk-t1-a|" state "|" ec "\n") S_C("")

#define S_FAILED_A	"@failed A_DONE\n|{\"class\": \"unknown\", \"attempt\": 1, \"evidence\": \"exit 1\"}\n"
#define S_FAILED_B	"@failed B_DONE\n|{\"class\": \"cuda_oom\", \"attempt\": 2, \"evidence\": \"CUDA out of memory\"}\n"

/* One tick under Slurm and what it must decide. */
struct sc {
	const char	*name;
	const char	*alive;		/* @alive lines; NULL: S_DEAD */
	const char	*markers;
	const char	*extra;		/* @failed / @log sections */
	const char	*state;		/* state.json, NULL: none */
	const char	*slurm;		/* the fragment's output */
	long		 prev;		/* last tick's progress; 0: unknown (no case's progress is 0) */
	int		 still;
	enum verdict	 want;
	const char	*detail;	/* in the details */
	const char	*detail2;	/* in the details too */
	const char	*absent;	/* not in the details */
	const char	*stage;		/* out->stage; NULL: none */
	const char	*job;		/* out->job's id; NULL: none */
	enum triage_class cls;		/* out->cls when CRASHED */
};

/* What one decision said, copied out before the probe and the view it points into are freed. */
struct got {
	enum verdict	 v;
	enum decide_action action;
	enum triage_class cls;
	int		 alive;
	char		 details[1024];
	char		 stage[32];	/* "" none */
	char		 job[32];	/* "" none */
};

static void
sc_decide(const struct sc *c, struct got *g)
{
	struct pb b;
	struct probe p;
	struct decide_in in;
	struct decide_out o;

	memset(&b, 0, sizeof(b));
	b.alive = c->alive != NULL ? c->alive : S_DEAD;
	b.markers = c->markers;
	b.extra = c->extra;
	b.state = c->state;
	b.disk = 50;
	b.inodes = 10;
	b.slurm = c->slurm;
	{
		struct slurm_view sv;
		char *why = NULL;

		if (slurm_parse(scfg, c->slurm, strlen(c->slurm), &sv, &why) != 0)
			fail_msg("%s: the slurm text does not parse: %s", c->name, why);
		slurm_view_free(&sv);
	}
	build(&b, scfg, &p);
	memset(&in, 0, sizeof(in));
	in.cfg = scfg;
	in.seen = 1;
	in.p = &p;
	in.prev_progress = c->prev != 0 ? c->prev : -1;
	in.still_ticks = c->still;
	in.local_files = -1;
	in.local_bytes = -1;
	decide(&in, &o);
	memset(g, 0, sizeof(*g));
	g->v = o.v;
	g->action = o.action;
	g->cls = o.cls;
	g->alive = o.alive;
	snprintf(g->details, sizeof(g->details), "%s", o.details);
	snprintf(g->stage, sizeof(g->stage), "%s", o.stage != NULL ? o.stage : "");
	snprintf(g->job, sizeof(g->job), "%s", o.job != NULL ? o.job->id : "");
	probe_free(&p);
}

static void
sc_check(const struct sc *c)
{
	struct got g;

	sc_decide(c, &g);
	if (g.v != c->want)
		fail_msg("%s: got %s (%s), want %s", c->name, verdict_name(g.v), g.details,
		    verdict_name(c->want));
	if (g.action != decide_table[c->want].action)
		fail_msg("%s: action %d, want %d", c->name, (int)g.action, (int)decide_table[c->want].action);
	if (c->detail != NULL && strstr(g.details, c->detail) == NULL)
		fail_msg("%s: details \"%s\" lack \"%s\"", c->name, g.details, c->detail);
	if (c->detail2 != NULL && strstr(g.details, c->detail2) == NULL)
		fail_msg("%s: details \"%s\" lack \"%s\"", c->name, g.details, c->detail2);
	if (c->absent != NULL && strstr(g.details, c->absent) != NULL)
		fail_msg("%s: details \"%s\" say \"%s\"", c->name, g.details, c->absent);
	if (strcmp(g.stage, c->stage != NULL ? c->stage : "") != 0)
		fail_msg("%s: stage \"%s\", want \"%s\"", c->name, g.stage, c->stage != NULL ? c->stage : "");
	if (strcmp(g.job, c->job != NULL ? c->job : "") != 0)
		fail_msg("%s: job \"%s\", want \"%s\"", c->name, g.job, c->job != NULL ? c->job : "");
	if (c->want == V_CRASHED && g.cls != c->cls)
		fail_msg("%s: class %s, want %s", c->name, triage_info(g.cls)->name, triage_info(c->cls)->name);
}

static const struct sc slurm_cases[] = {
	/* A pending job is waiting: alive, no heartbeat due, never a stall. */
	{ .name = "pending for resources, old heartbeat, onbox not running",
	  .state = S_HB_OLD, .slurm = S_Q("12|wk-t1-a|PENDING|Resources\n") S_A("12|wk-t1-a|PENDING|0:0\n") S_C(""),
	  .want = V_OK, .detail = "a job 12 PENDING: waiting for resources", .absent = "attempt",
	  .stage = "a", .job = "12" },
	{ .name = "pending while a pid on the login node looks like onbox",
	  .alive = S_PIDLIVE, .state = S_HB_OLD, .slurm = S_Q("12|wk-t1-a|PENDING|Resources\n") S_A("") S_C(""),
	  .want = V_OK, .detail = "a job 12 PENDING: waiting for resources", .stage = "a", .job = "12" },
	{ .name = "pending with the same progress for 6 ticks: no stall",
	  .state = S_HB_OLD, .slurm = S_Q("12|wk-t1-a|PENDING|Resources\n") S_A("") S_C(""), .prev = 40, .still = 5,
	  .want = V_OK, .detail = "a job 12 PENDING: waiting for resources ~40/100 (+0 since last tick)",
	  .stage = "a", .job = "12" },
	{ .name = "running with the same progress for 2 ticks: a stall",
	  .state = S_HB_FRESH, .slurm = S_Q("12|wk-t1-a|RUNNING|None\n") S_A("") S_C(""), .prev = 40, .still = 1,
	  .want = V_STALLED, .detail = "no progress for 2 ticks ~40/100", .stage = "a", .job = "12" },
	{ .name = "pending with an old degraded heartbeat: not degraded",
	  .state = S_HB(1795000000, S_DEGRADED), .slurm = S_Q("12|wk-t1-a|PENDING|Priority\n") S_A("") S_C(""),
	  .want = V_OK, .detail = "a job 12 PENDING: waiting behind higher-priority jobs", .stage = "a", .job = "12" },
	{ .name = "running with a fresh degraded heartbeat",
	  .state = S_HB(1795000590, S_DEGRADED), .slurm = S_Q("12|wk-t1-a|RUNNING|None\n") S_A("") S_C(""),
	  .want = V_DEGRADED, .detail = "loss spiked to 9.1 ~40/100", .stage = "a", .job = "12" },

	/* A running job expects onbox's heartbeat: at most 2 intervals old. */
	{ .name = "running, fresh heartbeat",
	  .state = S_HB_FRESH, .slurm = S_Q("12|wk-t1-a|RUNNING|None\n") S_A("12|wk-t1-a|RUNNING|0:0\n") S_C(""),
	  .prev = 30, .want = V_OK, .detail = "a job 12 RUNNING attempt 3 ~40/100 (+10 since last tick)",
	  .stage = "a", .job = "12" },
	{ .name = "running, heartbeat exactly 2 intervals old",
	  .state = S_HB(1795000480, ""), .slurm = S_Q("12|wk-t1-a|RUNNING|None\n") S_A("") S_C(""),
	  .want = V_OK, .detail = "a job 12 RUNNING attempt 3", .stage = "a", .job = "12" },
	{ .name = "running, heartbeat 1 s over 2 intervals",
	  .state = S_HB(1795000479, ""), .slurm = S_Q("12|wk-t1-a|RUNNING|None\n") S_A("") S_C(""),
	  .want = V_MONITOR_STALE, .detail = "onbox's heartbeat is 121s old (interval 60s)", .stage = "a", .job = "12" },
	{ .name = "running, heartbeat 600 s old",
	  .state = S_HB_OLD, .slurm = S_Q("12|wk-t1-a|RUNNING|None\n") S_A("") S_C(""),
	  .want = V_MONITOR_STALE, .detail = "onbox's heartbeat is 600s old (interval 60s)", .stage = "a", .job = "12" },
	{ .name = "b's job runs, the heartbeat is still a's: no attempt of a's said",
	  .markers = "|A_DONE\n", .state = S_HB_FRESH,
	  .slurm = S_Q("13|wk-t1-b|RUNNING|None\n14|wk-t1-c|PENDING|Dependency\n") S_A("12|wk-t1-a|COMPLETED|0:0\n") S_C(""),
	  .want = V_OK, .detail = "b job 13 RUNNING ~40/100", .absent = "attempt", .stage = "b", .job = "13" },

	/* Failures: the FAILED marker first, then the job's own state. */
	{ .name = "b failed, its job FAILED, c stranded",
	  .markers = "|A_DONE\n|B_DONE.FAILED\n", .extra = S_FAILED_B, .state = S_HB_OLD,
	  .slurm = S_Q("14|wk-t1-c|PENDING|DependencyNeverSatisfied\n")
	  S_A("12|wk-t1-a|COMPLETED|0:0\n13|wk-t1-b|FAILED|1:0\n14|wk-t1-c|PENDING|0:0\n") S_C(""),
	  .want = V_CRASHED, .detail = "b (cuda_oom) attempt 2",
	  .detail2 = " · c job 14 stranded (DependencyNeverSatisfied)", .stage = "b", .job = "13",
	  .cls = TRIAGE_CUDA_OOM },
	{ .name = "a failed, a newer job of a pending: resubmitted, not crashed",
	  .markers = "|A_DONE.FAILED\n", .extra = S_FAILED_A, .state = S_HB_OLD,
	  .slurm = S_Q("15|wk-t1-a|PENDING|BeginTime\n") S_A("12|wk-t1-a|FAILED|1:0\n15|wk-t1-a|PENDING|0:0\n") S_C(""),
	  .want = V_OK, .detail = "a job 15 PENDING: waiting for its start time", .stage = "a", .job = "15" },
	{ .name = "a failed, a newer job of a running",
	  .markers = "|A_DONE.FAILED\n", .extra = S_FAILED_A, .state = S_HB_FRESH,
	  .slurm = S_Q("15|wk-t1-a|RUNNING|None\n") S_A("12|wk-t1-a|FAILED|1:0\n") S_C(""),
	  .want = V_OK, .detail = "a job 15 RUNNING", .stage = "a", .job = "15" },
	{ .name = "a failed, its only job FAILED",
	  .markers = "|A_DONE.FAILED\n", .extra = S_FAILED_A, .state = S_HB_OLD,
	  .slurm = S_ENDED("FAILED", "1:0"),
	  .want = V_CRASHED, .detail = "a (unknown) attempt 1", .stage = "a", .job = "12", .cls = TRIAGE_UNKNOWN },
	{ .name = "no marker, job NODE_FAIL", .state = S_HB_OLD, .slurm = S_ENDED("NODE_FAIL", "0:0"),
	  .want = V_CRASHED, .detail = "a (node_lost): job 12 NODE_FAIL exit 0:0: ", .stage = "a", .job = "12",
	  .cls = TRIAGE_NODE_LOST },
	{ .name = "no marker, job BOOT_FAIL", .state = S_HB_OLD, .slurm = S_ENDED("BOOT_FAIL", "0:0"),
	  .want = V_CRASHED, .detail = "a (node_lost): job 12 BOOT_FAIL", .stage = "a", .job = "12",
	  .cls = TRIAGE_NODE_LOST },
	{ .name = "no marker, job TIMEOUT", .state = S_HB_OLD, .slurm = S_ENDED("TIMEOUT", "0:15"),
	  .want = V_CRASHED, .detail = "a (timeout): job 12 TIMEOUT exit 0:15", .stage = "a", .job = "12",
	  .cls = TRIAGE_TIMEOUT },
	{ .name = "no marker, job DEADLINE", .state = S_HB_OLD, .slurm = S_ENDED("DEADLINE", "0:0"),
	  .want = V_CRASHED, .detail = "a (timeout): job 12 DEADLINE", .stage = "a", .job = "12",
	  .cls = TRIAGE_TIMEOUT },
	{ .name = "no marker, job OUT_OF_MEMORY", .state = S_HB_OLD, .slurm = S_ENDED("OUT_OF_MEMORY", "0:125"),
	  .want = V_CRASHED, .detail = "a (cgroup_oom): job 12 OUT_OF_MEMORY exit 0:125", .stage = "a",
	  .job = "12", .cls = TRIAGE_CGROUP_OOM },
	{ .name = "no marker, job PREEMPTED", .state = S_HB_OLD, .slurm = S_ENDED("PREEMPTED", "0:0"),
	  .want = V_CRASHED, .detail = "a (preempted): job 12 PREEMPTED", .stage = "a", .job = "12",
	  .cls = TRIAGE_PREEMPTED },
	{ .name = "no marker, job FAILED", .state = S_HB_OLD, .slurm = S_ENDED("FAILED", "1:0"),
	  .want = V_CRASHED, .detail = "a (unknown): job 12 FAILED exit 1:0", .stage = "a", .job = "12",
	  .cls = TRIAGE_UNKNOWN },
	{ .name = "b's job lost its node, c stranded", .markers = "|A_DONE\n", .state = S_HB_OLD,
	  .slurm = S_Q("14|wk-t1-c|PENDING|DependencyNeverSatisfied\n")
	  S_A("12|wk-t1-a|COMPLETED|0:0\n13|wk-t1-b|NODE_FAIL|0:0\n") S_C(""),
	  .want = V_CRASHED, .detail = "b (node_lost): job 13 NODE_FAIL",
	  .detail2 = " · c job 14 stranded (DependencyNeverSatisfied)", .stage = "b", .job = "13",
	  .cls = TRIAGE_NODE_LOST },
	{ .name = "a crash signature in the output tail outranks the job's state",
	  .state = S_HB_OLD, .extra = "@log output a.1.log\n|torch.OutOfMemoryError: CUDA out of memory\n",
	  .slurm = S_ENDED("FAILED", "1:0"),
	  .want = V_CRASHED, .detail = "a (cuda_oom), nothing running", .stage = "a", .job = "12",
	  .cls = TRIAGE_CUDA_OOM },

	/* Nothing queued or running and no failure: resume. */
	{ .name = "job CANCELLED by a person", .state = S_HB_OLD, .slurm = S_ENDED("CANCELLED by 1000", "0:15"),
	  .want = V_NEEDS_RESUME, .detail = "a: nothing is queued or running and A_DONE is missing",
	  .detail2 = "(its last job 12: CANCELLED)", .stage = "a", .job = "12" },
	{ .name = "no job at all", .state = S_HB_OLD, .slurm = S_Q("") S_A("") S_C(""),
	  .want = V_NEEDS_RESUME, .detail = "a: nothing is queued or running and A_DONE is missing ~40/100",
	  .absent = "its last job", .stage = "a" },
	/*
	 * sacct says RUNNING, the queue (asked first) did not list it: UNKNOWN,
	 * and not live (slurm.h: a job the queue did not list is not live).  A
	 * runaway accounting record is dead indeed; a job submitted between the
	 * two questions is adopted by onbox start's own query, never doubled.
	 */
	{ .name = "sacct says running, the queue does not list it", .state = S_HB_OLD,
	  .slurm = S_Q("") S_A("12|wk-t1-a|RUNNING|0:0\n") S_C(""),
	  .want = V_NEEDS_RESUME, .detail = "(its last job 12: UNKNOWN)", .stage = "a", .job = "12" },
	{ .name = "job COMPLETED, no marker", .state = S_HB_OLD, .slurm = S_ENDED("COMPLETED", "0:0"),
	  .want = V_NEEDS_RESUME, .detail = "(its last job 12: COMPLETED)", .stage = "a", .job = "12" },
	{ .name = "b's own job stranded although A_DONE is there", .markers = "|A_DONE\n", .state = S_HB_OLD,
	  .slurm = S_Q("13|wk-t1-b|PENDING|DependencyNeverSatisfied\n") S_A("12|wk-t1-a|FAILED|1:0\n") S_C(""),
	  .want = V_NEEDS_RESUME, .detail = "b: nothing is queued or running and B_DONE is missing (its last job 13: PENDING)",
	  .stage = "b", .job = "13" },
	{ .name = "queue read, sacct and scontrol down, nothing in the queue", .state = S_HB_OLD,
	  .slurm = S_Q("") "=sacct comp 1\nsacct: error: no job completion file\n=scontrol 1\nerror\n",
	  .want = V_NEEDS_RESUME, .detail = "a: nothing is queued or running", .stage = "a" },
	{ .name = "queue read, sacct and scontrol down, a pending job", .state = S_HB_OLD,
	  .slurm = S_Q("12|wk-t1-a|PENDING|Resources\n") "=sacct comp 1\nsacct: error\n=scontrol 1\nerror\n",
	  .want = V_OK, .detail = "a job 12 PENDING: waiting for resources", .stage = "a", .job = "12" },

	/* The queue unread: not seen, whatever the markers say. */
	{ .name = "queue unreadable", .state = S_HB_OLD, .slurm = S_QDOWN,
	  .want = V_SSH_DOWN, .detail = S_QDOWN_WHY },
	{ .name = "queue unreadable while a's job was pending", .state = S_HB_OLD,
	  .slurm = "=squeue text 1\nslurm_load_jobs error: Socket timed out on send/recv operation\n"
	  S_A("12|wk-t1-a|PENDING|0:0\n") S_C("JobId=12 JobName=wk-t1-a JobState=PENDING Reason=Resources\n"),
	  .want = V_SSH_DOWN, .detail = "squeue: exit 1: slurm_load_jobs error: Socket timed out" },
	{ .name = "queue unreadable while b's FAILED marker is there",
	  .markers = "|A_DONE\n|B_DONE.FAILED\n", .extra = S_FAILED_B, .state = S_HB_OLD, .slurm = S_QDOWN,
	  .want = V_SSH_DOWN, .detail = S_QDOWN_WHY },
	{ .name = "squeue --json with errors (exit 0)", .state = S_HB_OLD, .slurm = S_QJSON_DOWN,
	  .want = V_SSH_DOWN,
	  .detail = "slurm: the queue could not be read: squeue --json: exit 0: slurm_load_jobs: "
	  "Unable to contact slurm controller (connect failure)" },

	/* Every marker: DONE, whatever the queue holds. */
	{ .name = "every marker, queue read", .markers = "|A_DONE\n|B_DONE\n|C_DONE\n", .state = S_HB_OLD,
	  .slurm = S_Q("") S_A("12|wk-t1-a|COMPLETED|0:0\n13|wk-t1-b|COMPLETED|0:0\n14|wk-t1-c|COMPLETED|0:0\n") S_C(""),
	  .want = V_DONE, .detail = "every marker present" },
};

static void
test_slurm_rows(void **state)
{
	static const struct sc unread = {
		.name = "queue unreadable, b failed", .markers = "|A_DONE\n|B_DONE.FAILED\n", .extra = S_FAILED_B,
		.state = S_HB_OLD, .slurm = S_QDOWN,
	};
	struct got g;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(slurm_cases) / sizeof(slurm_cases[0]); i++)
		sc_check(&slurm_cases[i]);
	/* The unread queue is the unseen box's exit code, and never an action. */
	sc_decide(&unread, &g);
	assert_int_equal(g.v, V_SSH_DOWN);
	assert_int_equal(verdict_exit(g.v), 2);
	assert_int_equal(g.action, ACT_NONE);
	assert_false(g.alive);
	/* A pending job is alive. */
	sc_decide(&slurm_cases[0], &g);
	assert_true(g.alive);
	assert_int_equal(verdict_exit(g.v), 0);
}

/*
 * DONE needs no queue: the markers alone say it (with the queue read, the
 * jobs are not looked at), so a controller that is down or gone after the
 * run finished must not keep the run unseen for ever.
 */
static void
test_slurm_done_needs_no_queue(void **state)
{
	static const struct sc c = {
		.name = "every marker, queue unreadable", .markers = "|A_DONE\n|B_DONE\n|C_DONE\n",
		.state = S_HB_OLD, .slurm = S_QDOWN, .want = V_DONE, .detail = "every marker present",
	};

	(void)state;
	sc_check(&c);
}

/*
 * A job the queue lists in a state the table does not know (slurm.h: "never
 * read as dead") is no reason to resume: the controller still holds it, and
 * a resubmission would run the stage twice once it is released.
 */
static void
test_slurm_unknown_not_dead(void **state)
{
	static const struct sc c = {
		.name = "SPECIAL_EXIT in the queue", .state = S_HB_OLD,
		.slurm = S_Q("12|wk-t1-a|SPECIAL_EXIT|None\n") S_A("11|wk-t1-a|FAILED|1:0\n") S_C(""),
	};
	struct got g;

	(void)state;
	sc_decide(&c, &g);
	if (g.v == V_NEEDS_RESUME || g.v == V_CRASHED || g.action != ACT_NONE)
		fail_msg("%s: got %s (%s): a job in the queue read as dead", c.name, verdict_name(g.v),
		    g.details);
	if (strstr(g.details, "job 12 SPECIAL_EXIT") == NULL)
		fail_msg("%s: details \"%s\" do not name the job and its state", c.name, g.details);
}

/*
 * CONFIGURING: the job has its nodes and waits for them to boot (minutes on
 * a cloud cluster); onbox has not started, so no heartbeat is due yet.
 */
static void
test_slurm_configuring(void **state)
{
	static const struct sc c = {
		.name = "configuring, old heartbeat", .state = S_HB_OLD,
		.slurm = S_Q("12|wk-t1-a|CONFIGURING|None\n") S_A("") S_C(""),
		.want = V_OK, .detail = "a job 12 CONFIGURING", .stage = "a", .job = "12",
	};

	(void)state;
	sc_check(&c);
}

/*
 * A running job and no heartbeat at all (a first stage's first seconds, or
 * an onbox that never started in the job): MONITOR_STALE, said as such, not
 * as a heartbeat "-1s old".
 */
static void
test_slurm_no_heartbeat(void **state)
{
	static const struct sc c = {
		.name = "running, no state.json", .slurm = S_Q("12|wk-t1-a|RUNNING|None\n") S_A("") S_C(""),
		.want = V_MONITOR_STALE, .absent = "-1s", .stage = "a", .job = "12",
	};

	(void)state;
	sc_check(&c);
}

/* Two intervals, never under 10 s: a 1 s heartbeat 3 s old is a slow write, not a lost onbox. */
static void
test_heartbeat_stale_floor(void **state)
{
	(void)state;
	assert_int_equal(heartbeat_stale_s(1), HEARTBEAT_STALE_MIN_S);
	assert_int_equal(heartbeat_stale_s(5), 10);
	assert_int_equal(heartbeat_stale_s(6), 12);
	assert_int_equal(heartbeat_stale_s(60), 120);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unseen),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_table_shape),
		cmocka_unit_test(test_stopped),
		cmocka_unit_test(test_slurm_rows),
		cmocka_unit_test(test_slurm_done_needs_no_queue),
		cmocka_unit_test(test_slurm_unknown_not_dead),
		cmocka_unit_test(test_slurm_configuring),
		cmocka_unit_test(test_slurm_no_heartbeat),
		cmocka_unit_test(test_heartbeat_stale_floor),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
