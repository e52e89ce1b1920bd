/*
 * test_gate.c: the launch gate's own pieces: masking secret-looking words
 * in a command, the strict parse of the facts script's output, and the
 * judgement (what is refused, what passes, what is labelled inferred).
 * The script itself runs against real trees in tests/e2e/test_gate.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "config.h"
#include "diag.h"
#include "fsutil.h"
#include "gate.h"
#include "xmalloc.h"

static void
test_scrub(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "python train.py --lr 3e-4", "python train.py --lr 3e-4" },
		{ "WANDB_API_KEY=abc python t.py", "WANDB_API_KEY=*** python t.py" },
		{ "env HF_TOKEN=x  GITHUB_PAT=y cmd", "env HF_TOKEN=***  GITHUB_PAT=*** cmd" },
		{ "t.py --tokenizer gpt2 --max_tokens 4096 --keys-file f --author me",
		  "t.py --tokenizer gpt2 --max_tokens 4096 --keys-file f --author me" },
		{ "t.py --wandb.api_key k AWS_SECRET_ACCESS_KEY=s APIKEY=a",
		  "t.py --wandb.api_key *** AWS_SECRET_ACCESS_KEY=*** APIKEY=***" },
		{ "t.py --token abc --x 1", "t.py --token *** --x 1" },
		{ "t.py --api-key=abc", "t.py --api-key=***" },
		{ "t.py --hf_token=abc --password p", "t.py --hf_token=*** --password ***" },
		{ "t.py --monkey-patch", "t.py --monkey-patch" },	/* "key" in the name, no value after */
		{ "a=b --auth", "a=b --auth" },
		{ "t.py --secret", "t.py --secret" },		/* nothing follows */
		{ "", "" },
		{ "db_password=hunter2 x", "db_password=*** x" },
		{ "-Dkey=v", "-Dkey=v" },		/* a single-dash word is left alone */
	};
	size_t i;
	char *s;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = gate_scrub_command(cases[i].in);
		if (strcmp(s, cases[i].out) != 0)
			fail_msg("case %zu: \"%s\" -> \"%s\", want \"%s\"", i, cases[i].in, s, cases[i].out);
		free(s);
	}
}

struct fx {
	char			*dir;
	struct wk_config	*cfg;
};

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	char tmpl[] = "/tmp/wk-unit-gate.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	f->dir = xstrdup(tmpl);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char *cmd = xstrfmt("rm -rf '%s'", f->dir);

	config_free(f->cfg);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", f->dir);
	free(cmd);
	free(f->dir);
	free(f);
	return 0;
}

/* Load a config with extra top-level keys (JSON text without braces). */
static void
load(struct fx *f, const char *extra)
{
	char *path = fs_join(f->dir, "wk.json");
	char *text = xstrfmt("{\"run\": \"r\", \"workdir\": \"%s/w\", \"detach\": \"nohup\", %s "
	    "\"chain\": [{\"stage\": \"train\", \"run\": \"python t.py\"}]}", f->dir, extra);
	struct diag d = DIAG_INIT;

	assert_int_equal(atomic_write_str(path, text), 0);
	config_free(f->cfg);
	f->cfg = NULL;
	if (config_load(path, &f->cfg, &d) != 0) {
		diag_print(&d, stderr);
		fail_msg("config did not load");
	}
	diag_free(&d);
	free(text);
	free(path);
}

static int
judge(struct fx *f, const char *facts, const struct gate_opts *o, struct gate_result *res)
{
	struct gate_facts g;
	char *why = NULL;
	int n;

	if (gate_parse(f->cfg, facts, strlen(facts), &g, &why) != 0)
		fail_msg("parse: %s", why);
	n = gate_judge(f->cfg, &g, o, res);
	gate_facts_free(&g);
	return n;
}

static void
test_parse_strict(void **state)
{
	static const char *const bad[] = {
		"git 0123456789\n",			/* no end */
		"bogus 1\nend\n",
		"dirty -3\nend\n",
		"dirty x\nend\n",
		"out maybe\nend\n",
		"init ok\nend\n",
		"init ok 12x\nend\n",
		"ckpt\n0 0 step_1\nend\n",		/* the listing never ends */
	};
	struct fx *f = *state;
	struct gate_facts g;
	const char *text;
	char *why;
	size_t i;

	load(f, "\"checkpoints\": {\"dir\": \"ck\", \"pattern\": \"^step_(\\\\d+)$\"},");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (gate_parse(f->cfg, bad[i], strlen(bad[i]), &g, &why) == 0)
			fail_msg("case %zu parsed", i);
		assert_non_null(why);
		free(why);
	}
	why = NULL;
	text = "git 0123456789abcdef\ndirty 2\ndf  M a.py\ndf  M b.py\n"
	    "dsha 3333333333333333333333333333333333333333333333333333333333333333\nout new\n"
	    "init ok 14\nm {\"step\":\nm  7}\n\nckpt\n1 100 step_5\n0 0 step_9\n. ok\nend\n";
	assert_int_equal(gate_parse(f->cfg, text, strlen(text), &g, &why), 0);
	assert_int_equal(g.git, 1);
	assert_string_equal(g.git_sha, "0123456789abcdef");
	assert_int_equal(g.dirty, 2);
	assert_string_equal(g.dirty_files, " M a.py\n M b.py\n");
	assert_string_equal(g.diff_sha, "3333333333333333333333333333333333333333333333333333333333333333");
	assert_int_equal(g.out, GATE_OUT_NEW);
	assert_int_equal(g.init, GATE_INIT_OK);
	assert_string_equal(g.meta, "{\"step\":\n 7}\n");
	assert_non_null(g.ckpt);
	assert_non_null(g.ckpt->newest);
	assert_int_equal(g.ckpt->newest->step, 5);
	gate_facts_free(&g);
	/* A sha256sum that printed nothing is "unknown", not an error. */
	text = "git 0123456789\ndirty 1\ndsha \nend\n";
	assert_int_equal(gate_parse(f->cfg, text, strlen(text), &g, &why), 0);
	assert_null(g.diff_sha);
	gate_facts_free(&g);
}

static void
test_judge(void **state)
{
	static const char dirty[] = "git 0123456789abcdef\ndirty 1\ndf  M a.py\n"
	    "dsha aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nout dir\nend\n";
	struct fx *f = *state;
	struct gate_opts o = { 0, NULL, NULL };
	struct gate_result res;

	/* An ordinary run: a dirty tree is shown, never refused; the DRI inferred is labelled. */
	load(f, "");
	o.who = "bob";
	assert_int_equal(judge(f, dirty, &o, &res), 0);
	assert_non_null(strstr(buf_str(&res.text), "DRI:             bob (inferred: the login user"));
	assert_null(res.approve_sha);
	gate_result_free(&res);
	/* A hero run refuses it ... */
	load(f, "\"hero\": true, \"output_root\": \"o\", \"progress\": {\"pattern\": \"s(\\\\d+)\", "
	    "\"max\": 9}, \"dri\": \"al\",");
	/* (a hero run's patrol looks every 15 minutes unless told otherwise) */
	assert_string_equal(config_get_str(f->cfg, "patrol.schedule"), CFG_HERO_SCHEDULE);
	assert_int_equal(judge(f, dirty, &o, &res), 1);
	assert_non_null(strstr(buf_str(&res.text), "REFUSED: the code in "));
	assert_non_null(strstr(buf_str(&res.text), "DRI:             al\n"));
	gate_result_free(&res);
	/* ... lets it through with --allow-dirty, to be kept ... */
	o.allow_dirty = 1;
	assert_int_equal(judge(f, dirty, &o, &res), 0);
	assert_string_equal(res.approve_sha, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	gate_result_free(&res);
	/* ... and with that diff approved before, but not another. */
	o.allow_dirty = 0;
	o.approved = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	assert_int_equal(judge(f, dirty, &o, &res), 0);
	gate_result_free(&res);
	o.approved = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
	assert_int_equal(judge(f, dirty, &o, &res), 1);
	assert_non_null(strstr(buf_str(&res.text), "not the diff approved before"));
	gate_result_free(&res);
	/* Dirty with no sha256sum: never matches an approval. */
	o.approved = "unknown";
	assert_int_equal(judge(f, "git 0123456789\ndirty 1\nout dir\nend\n", &o, &res), 1);
	gate_result_free(&res);
	/* Not a git tree: refused, and "no-git" approved passes it. */
	o.approved = NULL;
	assert_int_equal(judge(f, "gitno not a git repository\nout dir\nend\n", &o, &res), 1);
	gate_result_free(&res);
	o.approved = "no-git";
	assert_int_equal(judge(f, "gitno not a git repository\nout dir\nend\n", &o, &res), 0);
	gate_result_free(&res);
	/* Every output_root refusal, each alone. */
	o.approved = NULL;
	assert_int_equal(judge(f, "git 0123456789\ndirty 0\nout no /x\nend\n", &o, &res), 1);
	assert_non_null(strstr(buf_str(&res.text), "cannot be created: /x is not a directory"));
	gate_result_free(&res);
	assert_int_equal(judge(f, "git 0123456789\ndirty 0\nout nowrite /o\nend\n", &o, &res), 1);
	gate_result_free(&res);
	assert_int_equal(judge(f, "git 0123456789\ndirty 0\nout notdir /o\nend\n", &o, &res), 1);
	gate_result_free(&res);
	assert_int_equal(judge(f, "git 0123456789\ndirty 0\nout new\nend\n", &o, &res), 0);
	assert_non_null(strstr(buf_str(&res.text), "final step:      9 (progress.max)"));
	gate_result_free(&res);
}

/* wandb.resume never with a run of wandb.id on the box already: refused; allow: a resume. */
static void
test_wandb_resume(void **state)
{
	static const char facts[] = "git 0123456789\ndirty 0\nwbrun run-20261128_101500-r7a1\nend\n";
	struct fx *f = *state;
	struct gate_opts o = { 0, NULL, NULL };
	struct gate_result res;

	load(f, "\"wandb\": {\"id\": \"r7a1\", \"resume\": \"never\"},");
	assert_int_equal(judge(f, facts, &o, &res), 1);
	assert_non_null(strstr(buf_str(&res.text), "REFUSED: wandb.resume is never but the box has "
	    "W&B run r7a1 already (run-20261128_101500-r7a1)"));
	gate_result_free(&res);
	load(f, "\"wandb\": {\"id\": \"r7a1\"},");
	assert_int_equal(judge(f, facts, &o, &res), 0);
	assert_non_null(strstr(buf_str(&res.text), "this launch resumes it"));
	gate_result_free(&res);
}

static void
test_initialize_from(void **state)
{
	struct fx *f = *state;
	struct gate_opts o = { 0, NULL, NULL };
	struct gate_result res;

	load(f, "\"initialize_from\": \"/b/step_40\", \"checkpoints\": {\"dir\": \"ck\", "
	    "\"pattern\": \"^step_(\\\\d+)$\"},");
	assert_int_equal(judge(f, "init missing\nckpt\n. missing\nend\n", &o, &res), 1);
	gate_result_free(&res);
	assert_int_equal(judge(f, "init nometa\nckpt\n. missing\nend\n", &o, &res), 1);
	gate_result_free(&res);
	assert_int_equal(judge(f, "init ok 3\nm [1]\nckpt\n. missing\nend\n", &o, &res), 1);
	assert_non_null(strstr(buf_str(&res.text), "is not a JSON object"));
	gate_result_free(&res);
	assert_int_equal(judge(f, "init ok 99999999\nm {}\nckpt\n. missing\nend\n", &o, &res), 1);
	assert_non_null(strstr(buf_str(&res.text), "over 64 KiB"));
	gate_result_free(&res);
	assert_int_equal(judge(f, "init ok 14\nm {\"iteration\": 41}\nckpt\n. missing\nend\n", &o,
	    &res), 0);
	assert_non_null(strstr(buf_str(&res.text), "(step 41 from metadata.json \"iteration\")"));
	gate_result_free(&res);
	assert_int_equal(judge(f, "init ok 2\nm {}\nckpt\n. missing\nend\n", &o, &res), 0);
	assert_non_null(strstr(buf_str(&res.text), "(step 40, inferred from its name"));
	assert_non_null(strstr(buf_str(&res.text), "does not exist"));	/* the checkpoint dir */
	gate_result_free(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scrub),
		cmocka_unit_test_setup_teardown(test_parse_strict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_initialize_from, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wandb_resume, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
