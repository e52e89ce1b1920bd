/*
 * test_probe.c: the probe script run for real (sh -s, locally) against a
 * prepared workdir whose path is hostile, and the parser's strictness: every
 * strict prefix of a good output is rejected, forged sections in a log tail
 * stay data.
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
#include "ckpt.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "probe.h"
#include "spawn.h"
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
	if (probe_parse(out, len, &p, &why) != 0)
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
		assert_int_not_equal(probe_parse(out, k, &p, &why), 0);
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
	if (probe_parse(out, len, &p, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, out);
	assert_int_equal(p.events_from, (long long)strlen(EV1));
	assert_string_equal(p.events, EV2 EV3);
	probe_free(&p);
	free(out);

	out = run_probe_at(f, size, &len);
	assert_int_equal(probe_parse(out, len, &p, &why), 0);
	assert_int_equal(p.events_from, size);
	assert_string_equal(p.events, "");
	probe_free(&p);
	free(out);

	out = run_probe_at(f, size + 1000, &len);
	assert_int_equal(probe_parse(out, len, &p, &why), 0);
	assert_int_equal(p.events_from, 0);
	assert_string_equal(p.events, EV1 EV2 EV3);
	probe_free(&p);
	free(out);

	/* A header that does not add up is garbled. */
	{
		const char *bad = "@probe 1 5\n@events 10 20\n@end\n";

		assert_int_not_equal(probe_parse(bad, strlen(bad), &p, &why), 0);
	}
	assert_non_null(strstr(why, "events header"));
	free(why);
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
		if (probe_parse(bad[i], strlen(bad[i]), &p, &why) == 0)
			fail_msg("accepted bad probe %zu", i);
		assert_non_null(why);
		free(why);
	}
	assert_int_equal(probe_parse("@probe 1 1\n\0@end\n", 17, &p, &why), WK_ERR_PARSE);
	free(why);
	assert_int_equal(probe_parse(good, strlen(good), &p, &why), 0);
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
	probe_free(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probe_real, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_events, setup, teardown),
		cmocka_unit_test(test_probe_garbled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
