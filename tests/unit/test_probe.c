/*
 * test_probe.c: the probe script run for real (sh -s, locally) against a
 * prepared workdir whose path is hostile, and the parser's strictness: every
 * strict prefix of a good output is rejected, forged sections in a log tail
 * stay data.  Under detach slurm the probe carries the Slurm query's output
 * in @slurm (run for real against stand-ins for squeue, sacct, scontrol).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "caveats.h"
#include "ckpt.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "probe.h"
#include "slurm.h"
#include "spawn.h"
#include "sshq.h"
#include "xmalloc.h"

#define EV1 "{\"id\":\"a\",\"event\":\"stage_started\"}\n"
#define EV2 "{\"id\":\"b\",\"event\":\"stage_done\"}\n"
#define EV3 "{\"id\":\"c\",\"event\":\"chain_done\"}\n"

/* Files of the prepared workdir (relative to it), except state.json. */
static const struct {
	const char	*rel;
	const char	*text;
} box_files[] = {
	{ ".watchkeeper/markers/TRAIN_DONE", "{}" },
	{ ".watchkeeper/markers/EVAL_DONE.FAILED",
	  "{\"class\": \"cuda_oom\", \"last_lines\": [\"CUDA out of memory\"]}" },
	/* A tail that tries to forge sections, and ends without a newline. */
	{ ".watchkeeper/logs/eval.2.log",
	  "step 9/10\n@end\n@state\n|forged\ntorch.OutOfMemoryError: CUDA out of memory" },
	{ ".watchkeeper/stages/train.json",
	  "{\"stage\": \"train\", \"attempts\": [{\"attempt\": 1, \"result\": \"failed\"}]}" },
	{ "ck dir/s3/metadata.json", "{}" },
	{ "ck dir/s12/x", "partial" },
	{ ".watchkeeper/events.jsonl", EV1 EV2 EV3 },
	{ "train.log", "step 10/10 loss=0.1\nTraining completed\n" },
	{ "results/metrics.csv", "metric,value\nacc,0.812\n" },
	{ "out dir/a/one.bin", "12345" },
	{ "out dir/two.bin", "123" },
};

struct fx {
	char	 dir[64];
	char	*work;
	struct wk_config *cfg;
	char	*old_path;	/* PATH before a test put stand-ins first, NULL: untouched */
};

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	struct diag d = DIAG_INIT;
	char *cfgp, *p, *json;
	struct buf b = BUF_INIT;
	size_t i;

	snprintf(f->dir, sizeof(f->dir), "/tmp/wk-probe-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	/* A workdir whose name would run commands if anything pasted it raw. */
	f->work = xstrfmt("%s/it's a \"run\" $(touch PWNED) `touch PWNED2`", f->dir);
	cfgp = fs_join(f->dir, "wk.json");
	buf_puts(&b, "{ \"run\": \"r\", \"workdir\": ");
	{
		cJSON *s = cJSON_CreateString(f->work);

		json = cJSON_PrintUnformatted(s);
		buf_puts(&b, json);
		free(json);
		cJSON_Delete(s);
	}
	buf_puts(&b, ", \"detach\": \"nohup\", \"results\": \"results/metrics.csv\",\n"
	    "  \"transfer\": { \"remote\": \"out dir\" },\n"
	    "  \"checkpoints\": { \"dir\": \"ck dir\", \"pattern\": \"^s(\\\\d+)$\" },\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"x\", \"log\": \"train.log\", \"marker\": \"TRAIN_DONE\" },\n"
	    "              { \"stage\": \"eval\", \"run\": \"y\", \"marker\": \"EVAL_DONE\" } ] }\n");
	unit_put(cfgp, b.data);
	buf_free(&b);
	if (config_load(cfgp, &f->cfg, &d) != 0) {
		diag_print(&d, stderr);
		return -1;
	}
	free(cfgp);

	/* The box as the probe finds it; state.json names this (live) process. */
	for (i = 0; i < sizeof(box_files) / sizeof(box_files[0]); i++) {
		p = xstrfmt("%s/%s", f->work, box_files[i].rel);
		unit_put(p, box_files[i].text);
		free(p);
	}
	p = xstrfmt("%s/.watchkeeper/state.json", f->work);
	json = xstrfmt("{\n\t\"run\":\t\"r\",\n\t\"onbox_pid\":\t%ld,\n\t\"stage_pid\":\t%ld,\n\t\"status\":\t\"running\"\n}\n",
	    (long)getpid(), (long)getpid());
	unit_put(p, json);
	free(json);
	free(p);
	diag_free(&d);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int r = unit_rmrf(f->dir);

	if (f->old_path != NULL)
		setenv("PATH", f->old_path, 1);
	free(f->old_path);
	config_free(f->cfg);
	free(f->work);
	free(f);
	return r == 0 ? 0 : -1;
}

/* Run the script with sh -s in dir, return stdout. */
static char *
run_probe_at(struct fx *f, long long from, size_t *len)
{
	char *script = probe_script_at(f->cfg, from), *out;

	out = unit_sh(script, f->dir, len);
	free(script);
	return out;
}

static char *
run_probe(struct fx *f, size_t *len)
{
	return run_probe_at(f, -1, len);
}

static void
test_probe_real(void **state)
{
	struct fx *f = *state;
	struct probe p;
	char *out, *why = NULL, *pw;
	const struct probe_log *lg;
	size_t len;

	out = run_probe(f, &len);
	if (probe_parse(f->cfg, out, len, &p, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_true(p.box_time > 1700000000);
	assert_int_equal(p.tmux, -1);	/* detach nohup */
	assert_int_equal(p.stage_pid, (long)getpid());
	assert_int_equal(p.stage_alive, 1);
	assert_int_equal(p.onbox_alive, 0);	/* alive, but not an onbox */
	assert_true(probe_has_marker(&p, "TRAIN_DONE"));
	assert_false(probe_has_marker(&p, "EVAL_DONE"));
	assert_false(probe_has_marker(&p, "EVAL_DONE.FAILED"));
	assert_non_null(probe_failed(&p, "EVAL_DONE"));
	assert_string_equal(json_str(probe_failed(&p, "EVAL_DONE"), "class", ""), "cuda_oom");
	assert_null(probe_failed(&p, "TRAIN_DONE"));
	assert_non_null(p.state);
	assert_string_equal(json_str(p.state, "status", ""), "running");
	lg = probe_log(&p, "output");
	assert_non_null(lg);
	assert_string_equal(lg->path, "eval.2.log");
	/* The forged lines are data of the tail, and its unterminated last line arrived. */
	assert_non_null(strstr(lg->tail, "@end\n@state\n|forged\ntorch.OutOfMemoryError"));
	lg = probe_log(&p, "train");
	assert_non_null(lg);
	assert_non_null(strstr(lg->tail, "Training completed"));
	assert_null(probe_log(&p, "eval"));	/* no log configured */
	assert_null(p.slurm);	/* detach nohup: no @slurm */
	assert_null(p.caveats);	/* no caveats.json: no @caveats */
	assert_string_equal(p.results, "metric,value\nacc,0.812\n");
	assert_true(p.disk_used_pct >= 0 && p.disk_used_pct <= 100);
	assert_true(p.inode_used_pct >= -1 && p.inode_used_pct <= 100);
	assert_true(p.disk_avail_kb > 0);
	assert_int_equal(p.transfer_files, 2);
	assert_int_equal(p.transfer_bytes, 8);
	assert_int_equal(p.events_size, (long long)strlen(EV1 EV2 EV3));
	assert_int_equal(p.events_from, 0);
	assert_string_equal(p.events, EV1 EV2 EV3);
	/* Every stage's history that exists; the checkpoints, applied here with PCRE2. */
	assert_non_null(probe_history(&p, "train"));
	assert_int_equal(json_long(cJSON_GetArrayItem(cJSON_GetObjectItem(probe_history(&p, "train"),
	    "attempts"), 0), "attempt", 0), 1);
	assert_null(probe_history(&p, "eval"));
	assert_non_null(p.ckpt);
	{
		struct ckpt_scan *sc = NULL;
		char *cwhy = NULL;

		if (ckpt_parse_listing(f->cfg, p.ckpt, p.ckpt_len, &sc, &cwhy) != 0)
			fail_msg("listing: %s\n%s", cwhy, p.ckpt);
		assert_non_null(sc->newest);
		assert_int_equal(sc->newest->step, 3);
		assert_non_null(sc->newest_incomplete);
		assert_int_equal(sc->newest_incomplete->step, 12);
		ckpt_scan_free(sc);
	}
	/* ...and read once by probe_parse itself, the same. */
	assert_non_null(p.ckpt_scan);
	assert_int_equal(p.ckpt_scan->newest->step, 3);
	assert_int_equal(p.ckpt_scan->newest_incomplete->step, 12);
	assert_false(p.has_slurm_view);	/* detach nohup */
	probe_free(&p);
	/* Nothing in the hostile path ran. */
	pw = fs_join(f->dir, "PWNED");
	assert_false(fs_exists(pw));
	free(pw);
	pw = fs_join(f->dir, "PWNED2");
	assert_false(fs_exists(pw));
	free(pw);

	/* Every strict prefix is a failure, never a verdict. */
	for (size_t k = 0; k < len; k++) {
		assert_int_not_equal(probe_parse(f->cfg, out, k, &p, &why), 0);
		assert_non_null(why);
		free(why);
	}
	free(out);
}

/* events.jsonl is read from an offset on; an offset past the end (a new file) starts over. */
static void
test_probe_events(void **state)
{
	struct fx *f = *state;
	struct probe p;
	char *out, *why = NULL;
	size_t len;
	long long size = (long long)strlen(EV1 EV2 EV3);

	out = run_probe_at(f, (long long)strlen(EV1), &len);
	if (probe_parse(NULL, out, len, &p, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_int_equal(p.events_from, (long long)strlen(EV1));
	assert_string_equal(p.events, EV2 EV3);
	probe_free(&p);
	free(out);

	out = run_probe_at(f, size, &len);
	assert_int_equal(probe_parse(NULL, out, len, &p, &why), 0);
	assert_int_equal(p.events_from, size);
	assert_string_equal(p.events, "");
	probe_free(&p);
	free(out);

	out = run_probe_at(f, size + 1000, &len);
	assert_int_equal(probe_parse(NULL, out, len, &p, &why), 0);
	assert_int_equal(p.events_from, 0);
	assert_string_equal(p.events, EV1 EV2 EV3);
	probe_free(&p);
	free(out);

	/* A header that does not add up is garbled. */
	{
		const char *bad = "@probe 1 5\n@events 10 20\n@end\n";

		assert_int_not_equal(probe_parse(NULL, bad, strlen(bad), &p, &why), 0);
	}
	assert_non_null(strstr(why, "events header"));
	free(why);
}

/* .watchkeeper/caveats.json (caveats.h) rides in @caveats; unreadable or empty: none. */
static void
test_probe_caveats(void **state)
{
	struct fx *f = *state;
	struct probe p;
	char *out, *why = NULL, *path = xstrfmt("%s/.watchkeeper/" CAVEATS_FILE, f->work);
	cJSON *doc = cJSON_Parse("{\"caveats\": [{\"kind\": \"nan_loss\", \"text\": "
	    "\"nan_loss at step 15 (attempt 1)\", \"stage\": \"train\", \"attempt\": 1, \"step\": 15},"
	    "{\"kind\": \"restart\", \"text\": \"1 restart (killed)\", \"stage\": \"train\", "
	    "\"attempt\": 1, \"count\": 1}], \"text\": \"nan_loss at step 15 (attempt 1), 1 restart (killed)\", "
	    "\"more\": 0}");
	size_t len;

	assert_int_equal(caveats_save(f->work, doc), 0);
	assert_true(fs_exists(path));
	out = run_probe(f, &len);
	if (probe_parse(NULL, out, len, &p, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_non_null(p.caveats);
	assert_string_equal(caveats_text(p.caveats), "nan_loss at step 15 (attempt 1), 1 restart (killed)");
	assert_int_equal(caveats_count(p.caveats), 2);
	assert_int_equal(json_long(cJSON_GetArrayItem(cJSON_GetObjectItem(p.caveats, "caveats"), 0),
	    "step", 0), 15);
	probe_free(&p);
	/* Every strict prefix is still a failure. */
	for (size_t k = 0; k < len; k++) {
		assert_int_not_equal(probe_parse(NULL, out, k, &p, &why), 0);
		free(why);
	}
	free(out);
	/* Not JSON, or no items: the probe parses, and says no caveats. */
	unit_put(path, "{\"caveats\": [");
	out = run_probe(f, &len);
	assert_int_equal(probe_parse(NULL, out, len, &p, &why), 0);
	assert_null(p.caveats);
	probe_free(&p);
	free(out);
	unit_put(path, "{\"caveats\": [], \"text\": \"\"}");
	out = run_probe(f, &len);
	assert_int_equal(probe_parse(NULL, out, len, &p, &why), 0);
	assert_null(p.caveats);
	probe_free(&p);
	free(out);
	/* Saving none removes the file. */
	cJSON_DeleteItemFromObject(doc, "caveats");
	assert_int_equal(caveats_save(f->work, doc), 0);
	assert_false(fs_exists(path));
	cJSON_Delete(doc);
	free(path);
}

static void
test_probe_garbled(void **state)
{
	static const char *const bad[] = {
		"",
		"@probe 1 1795000000\n@alive\n|tmux -1\n",				/* truncated */
		"hello\n",
		"@alive\n@end\n",							/* no @probe first */
		"@probe 2 1795000000\n@end\n",						/* version */
		"@probe 1 1795000000\n@alive\n@markers\n@state\n@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\nmore\n",
		"@probe 1 1795000000\n@alive\n@alive\n@markers\n@state\n@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\n",
		"@probe 1 1795000000\n@alive\n@bogus\n@end\n",
		"@probe 1 1795000000\n|data\n@end\n",
		"@probe 1 1795000000\n@alive\n@markers\n@state\n|{not json\n@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\n",
		"@probe 1 1795000000\n@alive\n\n@markers\n@state\n@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\n",
		/* @slurm takes no name, and comes once */
		"@probe 1 1795000000\n@alive\n@markers\n@state\n@slurm x\n@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\n",
		"@probe 1 1795000000\n@alive\n@markers\n@state\n@slurm\n|=squeue text 0\n@slurm\n|=squeue text 0\n"
		"@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\n",
		/* @caveats takes no name, and comes once */
		"@probe 1 1795000000\n@alive\n@markers\n@state\n@caveats x\n@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\n",
		"@probe 1 1795000000\n@alive\n@markers\n@state\n@caveats\n|{}\n@caveats\n|{}\n"
		"@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\n",
	};
	static const char good[] = "@probe 1 1795000000\n@alive\n|tmux 0\n|onbox 12 1\n|stage 0 0\n"
	    "@markers\n@state\n@results\n@df\n|Filesystem 1024-blocks Used Available Capacity Mounted on\n"
	    "|/dev/vda 1000 930 70 93% /\n@dfi\n|Filesystem Inodes IUsed IFree IUse% Mounted on\n"
	    "|/dev/vda 100 41 59 41% /\n@gpu\n|97, 70000, 81920\n@cgroup\n|current 100\n|max max\n"
	    "|oom_kill 2\n@transfer\n@end\n";
	struct probe p;
	char *why = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (probe_parse(NULL, bad[i], strlen(bad[i]), &p, &why) == 0)
			fail_msg("accepted bad probe %zu", i);
		assert_non_null(why);
		free(why);
	}
	assert_int_equal(probe_parse(NULL, "@probe 1 1\n\0@end\n", 17, &p, &why), WK_ERR_PARSE);
	free(why);
	assert_int_equal(probe_parse(NULL, good, strlen(good), &p, &why), 0);
	assert_int_equal(p.tmux, 0);
	assert_int_equal(p.onbox_pid, 12);
	assert_int_equal(p.onbox_alive, 1);
	assert_int_equal(p.disk_used_pct, 93);
	assert_int_equal(p.disk_avail_kb, 70);
	assert_int_equal(p.inode_used_pct, 41);
	assert_int_equal(p.mem_current, 100);
	assert_int_equal(p.mem_max, -1);
	assert_int_equal(p.oom_kills, 2);
	assert_int_equal(p.transfer_files, -1);
	assert_string_equal(p.gpu, "97, 70000, 81920\n");
	assert_null(p.state);
	assert_null(p.slurm);	/* no @slurm section */
	probe_free(&p);
}

/* ---- detach slurm: the @slurm section ---- */

/*
 * The run t1 (stages a, b, c) in f's hostile workdir with detach `detach`.
 * Caller frees.
 */
static struct wk_config *
load_t1(struct fx *f, const char *detach)
{
	struct diag d = DIAG_INIT;
	struct wk_config *cfg = NULL;
	struct buf b = BUF_INIT;
	char *p = xstrfmt("%s/t1-%s.json", f->dir, detach);
	cJSON *s = cJSON_CreateString(f->work);
	char *json = cJSON_PrintUnformatted(s);

	buf_printf(&b, "{ \"run\": \"t1\", \"workdir\": %s, \"detach\": \"%s\",\n"
	    "  \"chain\": [ { \"stage\": \"a\", \"run\": \"x\", \"marker\": \"A_DONE\" },\n"
	    "              { \"stage\": \"b\", \"run\": \"y\", \"marker\": \"B_DONE\" },\n"
	    "              { \"stage\": \"c\", \"run\": \"z\", \"marker\": \"C_DONE\" } ] }\n", json, detach);
	free(json);
	cJSON_Delete(s);
	unit_put(p, b.data);
	buf_free(&b);
	if (config_load(p, &cfg, &d) != 0) {
		diag_print(&d, stderr);
		fail_msg("%s does not load", p);
	}
	diag_free(&d);
	free(p);
	return cfg;
}

/* The @slurm section is there for detach slurm only, with the query for the run's job names. */
/* The header tag is new each probe (no file on the box can hold it) and only hex. */
static void
test_probe_tag_new_each_probe(void **state)
{
	struct fx *f = *state;
	char *a = probe_script(f->cfg), *b = probe_script(f->cfg), *ta, *tb;
	size_t n;

	ta = strstr(a, "\nN=wk");
	tb = strstr(b, "\nN=wk");
	assert_non_null(ta);
	assert_non_null(tb);
	ta += 5;
	tb += 5;
	n = strspn(ta, "0123456789abcdef");
	assert_int_equal(n, 2 * PROBE_TAG_BYTES);
	assert_int_equal(ta[n], '\n');
	assert_int_equal(strspn(tb, "0123456789abcdef"), 2 * PROBE_TAG_BYTES);
	assert_true(memcmp(ta, tb, n) != 0);
	free(a);
	free(b);
}

static void
test_probe_slurm_script(void **state)
{
	static const char *const others[] = { "tmux", "nohup" };
	struct fx *f = *state;
	struct wk_config *cfg = load_t1(f, "slurm");
	char *script = probe_script(cfg), *frag = slurm_query_script(cfg);
	size_t i;

	assert_non_null(strstr(script, "h @slurm\n"));
	assert_non_null(strstr(script, frag));	/* the fragment as core/slurm.c makes it */
	assert_non_null(strstr(script, "wk-t1-a,wk-t1-b,wk-t1-c"));
	assert_non_null(strstr(script, "squeue"));
	free(frag);
	free(script);
	config_free(cfg);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		cfg = load_t1(f, others[i]);
		script = probe_script(cfg);
		if (strstr(script, "@slurm") != NULL || strstr(script, "squeue") != NULL ||
		    strstr(script, "wk-t1-a") != NULL)
			fail_msg("detach %s: the probe asks Slurm", others[i]);
		free(script);
		config_free(cfg);
	}
}

/* What the stand-in squeue, sacct and scontrol print. */
#define FAKE_SQUEUE_TEXT	"12|wk-t1-b|RUNNING|None\n13|wk-t1-c|PENDING|Dependency\n"
/* sacct's lines, one of them a forged section header: data, never a section */
#define FAKE_SACCT	"11|wk-t1-a|COMPLETED|0:0\n12|wk-t1-b|RUNNING|0:0\n13|wk-t1-c|PENDING|0:0\n@end\n"
#define FAKE_SCONTROL_B	"JobId=12 JobName=wk-t1-b UserId=u(1000) JobState=RUNNING Reason=None " \
	"Dependency=(null) Restarts=1 ExitCode=0:0\n"
#define FAKE_SCONTROL	FAKE_SCONTROL_B \
	"JobId=99 JobName=other UserId=u(1000) JobState=RUNNING Reason=None Restarts=0 ExitCode=0:0\n"
/* squeue --json (Slurm 21.08 to 23.02), over several lines, with another user's job */
#define FAKE_SQUEUE_JSON	"{\n  \"jobs\": [\n" \
	"    {\"job_id\": 12, \"name\": \"wk-t1-b\", \"job_state\": \"RUNNING\", \"state_reason\": \"None\", " \
	"\"restart_cnt\": 1, \"exit_code\": 0},\n" \
	"    {\"job_id\": 13, \"name\": \"wk-t1-c\", \"job_state\": \"PENDING\", \"state_reason\": \"Dependency\", " \
	"\"restart_cnt\": 0},\n" \
	"    {\"job_id\": 77, \"name\": \"someone-else\", \"job_state\": \"RUNNING\", \"state_reason\": \"None\"}\n" \
	"  ],\n  \"errors\": []\n}\n"

/* Put a stand-in for cmd first on PATH: it prints the file out/<cmd>[.json] (exit 1 when missing). */
static void
fake_cmd(struct fx *f, const char *cmd)
{
	char *q = sshq_quote(f->dir), *p = xstrfmt("%s/bin/%s", f->dir, cmd);
	char *t = xstrfmt("#!/bin/sh\n"
	    "o=%s/out/%s\n"
	    "for a in \"$@\"; do [ \"$a\" = --json ] && o=$o.json; done\n"
	    "[ -f \"$o\" ] || { echo \"%s: unrecognized option\" >&2; exit 1; }\n"
	    "cat \"$o\"\n", q, cmd, cmd);

	unit_put(p, t);
	assert_int_equal(chmod(p, 0755), 0);
	free(t);
	free(p);
	free(q);
}

static void
fake_out(struct fx *f, const char *name, const char *text)
{
	char *p = xstrfmt("%s/out/%s", f->dir, name);

	unit_put(p, text);
	free(p);
}

/* The jobs the stand-ins describe, as slurm_parse() must read them from the probe. */
static void
fake_jobs_are(const struct wk_config *cfg, const struct probe *p)
{
	struct slurm_view sv;
	char *why = NULL;

	assert_non_null(p->slurm);
	assert_int_equal(p->slurm_len, strlen(p->slurm));
	if (slurm_parse(cfg, p->slurm, p->slurm_len, &sv, &why) != 0)
		fail_msg("slurm_parse: %s\n%s", why, p->slurm);
	assert_true(sv.queue_known);
	assert_true(sv.final_known);
	assert_null(sv.why);
	assert_int_equal(sv.njobs, 3);
	assert_string_equal(sv.jobs[0].id, "13");
	assert_string_equal(sv.jobs[0].stage, "c");
	assert_string_equal(sv.jobs[0].state, "PENDING");
	assert_string_equal(sv.jobs[0].reason, "Dependency");
	assert_int_equal(sv.jobs[0].cls, SLURM_WAITING);
	assert_string_equal(sv.jobs[1].id, "12");
	assert_string_equal(sv.jobs[1].stage, "b");
	assert_int_equal(sv.jobs[1].cls, SLURM_RUNNING);
	assert_int_equal(sv.jobs[1].restarts, 1);
	assert_true(sv.jobs[1].in_queue);
	assert_string_equal(sv.jobs[2].id, "11");
	assert_string_equal(sv.jobs[2].state, "COMPLETED");
	assert_int_equal(sv.jobs[2].exit_code, 0);
	assert_false(sv.jobs[2].in_queue);
	slurm_view_free(&sv);
}

/*
 * The probe for real (sh -s, the hostile workdir) with stand-ins for
 * squeue, sacct and scontrol first on PATH: the query runs inside the probe,
 * its output comes back in @slurm without the '|' prefixes, and
 * slurm_parse() reads it.  First an squeue without --json (the text form),
 * then one with it.
 */
static void
test_probe_slurm_real(void **state)
{
	static const char text_want[] = "=squeue text 0\n" FAKE_SQUEUE_TEXT "=sacct db 0\n" FAKE_SACCT
	    "=scontrol 0\n" FAKE_SCONTROL_B;
	static const char *const cmds[] = { "squeue", "sacct", "scontrol" };
	struct fx *f = *state;
	struct wk_config *cfg = load_t1(f, "slurm");
	const char *path_env = getenv("PATH");
	struct probe p;
	char *script = probe_script(cfg), *out, *why = NULL, *pw;
	size_t len, i, k;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fake_cmd(f, cmds[i]);
	fake_out(f, "squeue", FAKE_SQUEUE_TEXT);
	fake_out(f, "sacct", FAKE_SACCT);
	fake_out(f, "scontrol", FAKE_SCONTROL);
	f->old_path = xstrdup(path_env != NULL ? path_env : "/usr/bin:/bin");
	pw = xstrfmt("%s/bin:%s", f->dir, f->old_path);
	setenv("PATH", pw, 1);
	free(pw);

	out = unit_sh(script, f->dir, &len);
	if (probe_parse(cfg, out, len, &p, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_string_equal(p.slurm, text_want);
	fake_jobs_are(cfg, &p);
	assert_true(probe_has_marker(&p, "TRAIN_DONE"));	/* the rest of the probe is there */
	assert_non_null(p.state);
	probe_free(&p);
	for (k = 0; k < len; k++) {
		assert_int_not_equal(probe_parse(cfg, out, k, &p, &why), 0);
		free(why);
	}
	free(out);

	fake_out(f, "squeue.json", FAKE_SQUEUE_JSON);
	out = unit_sh(script, f->dir, &len);
	if (probe_parse(cfg, out, len, &p, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	if (strncmp(p.slurm, "=squeue json 0\n" FAKE_SQUEUE_JSON "=sacct db 0\n",
	    strlen("=squeue json 0\n" FAKE_SQUEUE_JSON "=sacct db 0\n")) != 0)
		fail_msg("@slurm does not start with squeue's JSON:\n%s", p.slurm);
	fake_jobs_are(cfg, &p);
	probe_free(&p);
	free(out);

	/* Nothing in the hostile path ran. */
	pw = fs_join(f->dir, "PWNED");
	assert_false(fs_exists(pw));
	free(pw);
	pw = fs_join(f->dir, "PWNED2");
	assert_false(fs_exists(pw));
	free(pw);
	free(script);
	config_free(cfg);
}

/* probe_parse keeps @slurm's text without the '|' prefixes; no @slurm, no text. */
static void
test_probe_slurm_parse(void **state)
{
	static const char text[] = "@probe 1 1795000000\n@alive\n|tmux -1\n|onbox 0 0\n|stage 0 0\n"
	    "@markers\n|A_DONE\n@state\n@slurm\n"
	    "|=squeue json 0\n"
	    "|{\"jobs\": [{\"job_id\": 13, \"name\": \"wk-t1-b\", \"job_state\": [\"PENDING\"], "
	    "\"state_reason\": \"Resources\", \"restart_cnt\": {\"set\": true, \"number\": 0}}], \"errors\": []}\n"
	    "|=sacct db 0\n"
	    "|12|wk-t1-a|COMPLETED|0:0\n"
	    "|=scontrol 0\n"
	    "|\n"
	    "@results\n@df\n@dfi\n@gpu\n@cgroup\n@transfer\n@end\n";
	static const char want[] = "=squeue json 0\n"
	    "{\"jobs\": [{\"job_id\": 13, \"name\": \"wk-t1-b\", \"job_state\": [\"PENDING\"], "
	    "\"state_reason\": \"Resources\", \"restart_cnt\": {\"set\": true, \"number\": 0}}], \"errors\": []}\n"
	    "=sacct db 0\n"
	    "12|wk-t1-a|COMPLETED|0:0\n"
	    "=scontrol 0\n"
	    "\n";
	struct fx *f = *state;
	struct wk_config *cfg = load_t1(f, "slurm");
	struct slurm_view sv;
	struct probe p;
	char *why = NULL;

	if (probe_parse(cfg, text, strlen(text), &p, &why) != 0)
		fail_msg("parse failed: %s", why);
	assert_string_equal(p.slurm, want);
	assert_int_equal(p.slurm_len, strlen(want));
	assert_true(probe_has_marker(&p, "A_DONE"));
	if (slurm_parse(cfg, p.slurm, p.slurm_len, &sv, &why) != 0)
		fail_msg("slurm_parse: %s", why);
	assert_true(sv.queue_known);
	assert_int_equal(sv.njobs, 2);
	assert_string_equal(sv.jobs[0].id, "13");
	assert_string_equal(sv.jobs[0].stage, "b");
	assert_string_equal(sv.jobs[0].reason, "Resources");
	assert_int_equal(sv.jobs[0].cls, SLURM_WAITING);
	assert_string_equal(sv.jobs[1].id, "12");
	assert_int_equal(sv.jobs[1].cls, SLURM_COMPLETED);
	assert_int_equal(sv.jobs[1].exit_code, 0);
	/* probe_parse read the same view itself */
	assert_true(p.has_slurm_view);
	assert_true(p.slurm_view.queue_known);
	assert_int_equal(p.slurm_view.njobs, 2);
	assert_string_equal(p.slurm_view.jobs[0].id, "13");
	slurm_view_free(&sv);
	probe_free(&p);
	config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probe_real, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_caveats, setup, teardown),
		cmocka_unit_test(test_probe_garbled),
		cmocka_unit_test_setup_teardown(test_probe_tag_new_each_probe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_slurm_script, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_slurm_real, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_slurm_parse, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
