/*
 * test_handbook.c: HANDBOOK.md rendered from a real config (written to a
 * temp file, loaded with config_load) and a hand-built patrol state: the
 * sections in order, the decision table row for row as decide_table[],
 * every marker path, the first command and the resume command round-tripped
 * through sh, hostile config values that cannot break a fence, a heading or
 * a table, no secret (a literal URL, a url_env's value) anywhere, the claims
 * line parsed back; and core/crontab.c's line and crontab filtering.
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

#include <cJSON.h>

#include "atomic.h"
#include "buf.h"
#include "config.h"
#include "crontab.h"
#include "decide.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "handbook.h"
#include "jsonfile.h"
#include "policy.h"
#include "remote.h"
#include "triage.h"
#include "xmalloc.h"

#define ENV_SECRET	"https://hooks.slack.example/services/ENV-SECRET-7f3a9c"
#define LIT_SECRET	"https://hooks.example.org/LITERAL-SECRET-2b8d41"
#define HOSTILE_RUN	"python train.py `id` | tee out.log $(whoami)\n```\n# not a heading\n" \
			"| a | b |\n<b>html</b> ```` ~~~\n## nor this"
#define HOSTILE_LOG	"l`o``g|x\n## H2 ```"
#define HOSTILE_DONE	"Training ``` completed \\| ok"
#define WORKDIR		"/w/run one"

static struct wk_config *cfg;
static char dir[64];
static char *cfgpath;
static char *statedir;

static const char *const sections[] = {
	"Run contract", "First command on reconnect", "Current status", "The chain",
	"Marker paths", "Resume", "Decision table", "Cron", "Sentinel", "Triage table", "Logbook", "Run record",
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

static int
setup(void **state)
{
	struct diag d = DIAG_INIT;
	cJSON *root, *box, *chain, *st, *notify, *n;
	char *js, *xdg;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wk-handbook-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	xdg = fs_join(dir, "state");
	setenv("XDG_STATE_HOME", xdg, 1);
	statedir = xstrfmt("%s/watchkeeper/r1", xdg);
	free(xdg);
	if (fs_mkdirs(statedir, 0700) != 0)
		return -1;
	setenv("WK_TEST_HOOK", ENV_SECRET, 1);

	/* Built with cJSON so the hostile values need no hand escaping. */
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "run", "r1");
	cJSON_AddStringToObject(root, "workdir", WORKDIR);
	cJSON_AddStringToObject(root, "dri", "Ana <ana@example.org>");
	box = cJSON_AddObjectToObject(root, "box");
	cJSON_AddStringToObject(box, "host", "gpu1");
	cJSON_AddNumberToObject(box, "port", 2222);
	cJSON_AddStringToObject(box, "user", "root");
	cJSON_AddStringToObject(box, "ssh_config", "/etc/wk ssh/config");
	chain = cJSON_AddArrayToObject(root, "chain");
	st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "stage", "train");
	cJSON_AddStringToObject(st, "run", HOSTILE_RUN);
	cJSON_AddStringToObject(st, "log", HOSTILE_LOG);
	cJSON_AddStringToObject(st, "done_when", HOSTILE_DONE);
	cJSON_AddStringToObject(st, "marker", "TRAIN_DONE");
	cJSON_AddItemToArray(chain, st);
	st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "stage", "eval");
	cJSON_AddStringToObject(st, "run", "python eval.py");
	cJSON_AddItemToArray(chain, st);
	notify = cJSON_AddArrayToObject(root, "notify");
	n = cJSON_CreateObject();
	cJSON_AddStringToObject(n, "type", "slack");
	cJSON_AddStringToObject(n, "url_env", "WK_TEST_HOOK");
	cJSON_AddItemToArray(notify, n);
	n = cJSON_CreateObject();
	cJSON_AddStringToObject(n, "type", "generic");
	cJSON_AddStringToObject(n, "url", LIT_SECRET);
	cJSON_AddItemToArray(notify, n);
	js = cJSON_Print(root);
	cJSON_Delete(root);
	cfgpath = fs_join(dir, "wk.json");
	atomic_write_str(cfgpath, js);
	free(js);
	if (config_load(cfgpath, &cfg, &d) != 0) {
		diag_print(&d, stderr);
		diag_free(&d);
		return -1;
	}
	return 0;
}

static int
teardown(void **state)
{
	int r = unit_rmrf(dir);

	(void)state;
	config_free(cfg);
	free(cfgpath);
	free(statedir);
	return r == 0 ? 0 : -1;
}

/* The state a patrol tick would leave; text from the box carries a secret and markdown. */
static cJSON *
pstate_sample(void)
{
	cJSON *ps = cJSON_Parse("{\"verdict\": \"CRASHED\", \"last_tick\": \"2026-11-21T03:33:00Z\","
	    " \"ticks\": 7, \"unseen_ticks\": 0, \"seen_at\": \"2026-11-21T03:33:00Z\","
	    " \"progress\": 4600, \"progress_max\": 5155, \"markers\": [\"TRAIN_DONE\"],"
	    " \"stage\": \"eval\", \"attempt\": 2, \"attempts\": {\"train\": 1, \"eval\": 2},"
	    " \"resumes\": [{\"time\": \"2026-11-21T03:03:00Z\", \"was\": \"CRASHED\","
	    " \"class\": \"node_lost\", \"exit_status\": 0}],"
	    " \"wandb\": \"https://wandb.ai/team/proj/runs/abc\"}");
	cJSON *failed = cJSON_AddObjectToObject(ps, "failed");
	cJSON *f = cJSON_AddObjectToObject(failed, "EVAL_DONE");

	cJSON_AddStringToObject(ps, "details", "eval (cuda_oom) attempt 2 · posted to " ENV_SECRET " | x");
	cJSON_AddStringToObject(f, "class", "cuda_oom");
	cJSON_AddNumberToObject(f, "attempt", 2);
	cJSON_AddStringToObject(f, "last_line", "```\n# OOM at " LIT_SECRET "\n| y |");
	return ps;
}

static char *
render(const cJSON *ps, const char *bindir, int cron)
{
	struct handbook_ctx c;

	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.config_path = cfgpath;
	c.bindir = bindir;
	c.statedir = statedir;
	c.pstate = ps;
	c.cron = cron;
	c.generator = "test";
	return handbook_render(&c);
}

/* The text of section title (up to the next section's heading), a new string. */
static char *
section(const char *md, const char *title)
{
	char *h = xstrfmt("\n## %s\n", title), *next;
	const char *s = strstr(md, h), *e = NULL;
	size_t i;

	free(h);
	if (s == NULL)
		fail_msg("no section %s", title);
	s++;
	for (i = 0; i + 1 < NSECTIONS; i++)
		if (strcmp(sections[i], title) == 0) {
			next = xstrfmt("\n## %s\n", sections[i + 1]);
			e = strstr(s, next);
			free(next);
		}
	return xstrndup(s, e != NULL ? (size_t)(e - s + 1) : strlen(s));
}

/* The content of the first ```sh block in text (fence of any length), a new string or NULL. */
static char *
first_sh_block(const char *text)
{
	const char *l = text, *nl, *start = NULL;
	size_t fence = 0, n;
	struct buf b = BUF_INIT;

	for (; *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l);
		for (n = 0; l + n < nl && l[n] == '`'; n++)
			;
		if (start == NULL) {
			if (n >= 3 && (size_t)(nl - l) == n + 2 && strncmp(l + n, "sh", 2) == 0) {
				fence = n;
				start = nl + 1;
			}
			continue;
		}
		if (n >= fence && (size_t)(nl - l) == n)
			return buf_detach(&b);
		buf_append(&b, l, (size_t)(nl - l));
		buf_putc(&b, '\n');
	}
	buf_free(&b);
	return NULL;
}

static char *
sh_capture(const char *cmd)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *fp = popen(cmd, "r");

	assert_non_null(fp);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_append(&b, chunk, n);
	assert_int_equal(pclose(fp), 0);
	return buf_detach(&b);
}

static void
test_sections_in_order(void **state)
{
	cJSON *ps = pstate_sample();
	char *md = render(ps, "/opt/wk/bin", 1), *h;
	const char *prev = md, *p;
	size_t i;

	(void)state;
	assert_true(strncmp(md, "# Handbook: r1\n\n", 16) == 0);
	assert_non_null(strstr(md, "by test"));
	for (i = 0; i < NSECTIONS; i++) {
		h = xstrfmt("\n## %s\n", sections[i]);
		p = strstr(md, h);
		if (p == NULL || p < prev)
			fail_msg("section %s missing or out of order", sections[i]);
		prev = p;
		free(h);
	}
	/* Status, from the state. */
	assert_non_null(strstr(md, "~4600/5155"));
	assert_non_null(strstr(md, "https://wandb.ai/team/proj/runs/abc"));
	assert_non_null(strstr(md, "`train` 1, `eval` 2"));
	assert_non_null(strstr(md, "no `checkpoints` in the config"));
	/* The restart policy's rules, from the table the code runs. */
	for (i = 0; i < policy_nrows; i++) {
		char *row = xstrfmt("| %s | %s | ", policy_table[i].name,
		    policy_table[i].action == POLICY_RESTART ? "yes" : "no");

		if (strstr(md, row) == NULL)
			fail_msg("no policy row %s", row);
		free(row);
	}
	assert_non_null(strstr(md, "Installed: yes."));
	assert_non_null(strstr(md, "`Ana <ana@example.org>`"));
	free(md);
	cJSON_Delete(ps);
}

/* The triage table has every class (killed among them) and the classifier's steps in order. */
static void
test_triage_table_and_steps(void **state)
{
	char *md = render(NULL, NULL, -1), *sec = section(md, "Triage table"), *row;
	const char *prev, *p;
	size_t i;

	(void)state;
	for (i = 1; i < TRIAGE_NCLASSES; i++) {
		row = xstrfmt("\n| %s | ", triage_classes[i].name);
		if (strstr(sec, row) == NULL)
			fail_msg("no triage row for %s", triage_classes[i].name);
		free(row);
	}
	assert_non_null(strstr(sec, "| killed | Killed by a signal we did not send | yes | "));
	prev = sec;
	for (i = 0; triage_step_text(i) != NULL; i++) {
		row = xstrfmt("\n%zu. %s\n", i + 1, triage_step_text(i));
		p = strstr(sec, row);
		if (p == NULL || p < prev)
			fail_msg("step %zu missing or out of order", i + 1);
		prev = p;
		free(row);
	}
	assert_non_null(strstr(sec, "readable and unchanged: killed"));
	free(sec);
	free(md);
}

static void
test_decision_table_is_the_code_table(void **state)
{
	char *md = render(NULL, NULL, -1), *sec = section(md, "Decision table"), *first;
	const char *l, *nl;
	size_t row = 0;
	int header = 0;

	(void)state;
	for (l = sec; *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
		char name[64], when[64];
		int ex;

		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l);
		if (*l != '|')
			continue;
		if (!header) {
			assert_true(strncmp(l, "| verdict | exit | when | then | action |", 41) == 0);
			header = 1;
			continue;
		}
		if (strncmp(l, "|---", 4) == 0)
			continue;
		assert_true(row < decide_nrows);
		assert_int_equal(sscanf(l, "| %63s | %d | %63s", name, &ex, when), 3);
		assert_string_equal(name, decide_table[row].name);
		assert_int_equal(ex, verdict_exit(decide_table[row].v));
		row++;
	}
	assert_int_equal(row, decide_nrows);
	/* The reconnect list is the same table, in order, with its `then` words. */
	free(sec);
	sec = section(md, "First command on reconnect");
	l = sec;
	for (row = 0; row < decide_nrows; row++) {
		char *item = xstrfmt("- `%s` (exit %d): ", decide_table[row].name,
		    verdict_exit(decide_table[row].v));

		l = strstr(l, item);
		if (l == NULL)
			fail_msg("no reconnect item for %s (or out of order)", decide_table[row].name);
		free(item);
	}
	/* Never ticked: no claims about markers, none about cron, and no "present". */
	first = strstr(md, CLAIMS_TAG);
	assert_non_null(first);
	assert_null(strstr(first, "markers"));
	assert_null(strstr(first, "cron"));
	assert_non_null(strstr(md, "patrol has not ticked yet"));
	free(sec);
	free(md);
}

static void
test_marker_paths(void **state)
{
	cJSON *ps = pstate_sample();
	char *md = render(ps, "/opt/wk/bin", 0), *sec = section(md, "Marker paths");

	(void)state;
	assert_non_null(strstr(sec, "`" WORKDIR "/.watchkeeper/markers/TRAIN_DONE` — present"));
	assert_non_null(strstr(sec, "`" WORKDIR "/.watchkeeper/markers/TRAIN_DONE.FAILED` — absent"));
	assert_non_null(strstr(sec, "`" WORKDIR "/.watchkeeper/markers/EVAL_DONE` — absent"));
	assert_non_null(strstr(sec, "`" WORKDIR "/.watchkeeper/markers/EVAL_DONE.FAILED` — present"));
	free(sec);
	sec = section(md, "The chain");
	assert_non_null(strstr(sec, "`" WORKDIR "/.watchkeeper/markers/TRAIN_DONE`"));
	assert_non_null(strstr(sec, "`" WORKDIR "/.watchkeeper/markers/EVAL_DONE`"));
	assert_non_null(strstr(sec, "FAILED, class `cuda_oom`"));
	free(sec);
	free(md);
	cJSON_Delete(ps);
}

/*
 * Walk the markdown as a renderer would: fences open on a line of 3+
 * backticks and close only on a line of at least as many; outside fences,
 * every heading is one of ours, every table row has its column count, and
 * only the claims line is HTML.  Returns the number of fenced blocks whose
 * content equals want (may be NULL).
 */
static int
check_structure(const char *md, const char *want)
{
	const char *l, *nl;
	size_t fence = 0, n, i, cols = 0;
	struct buf blk = BUF_INIT;
	int found = 0;

	for (l = md; *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l);
		for (n = 0; l + n < nl && l[n] == '`'; n++)
			;
		if (fence > 0) {
			if (n >= fence && (size_t)(nl - l) == n) {
				if (want != NULL && strcmp(blk.data != NULL ? blk.data : "", want) == 0)
					found++;
				fence = 0;
				continue;
			}
			buf_append(&blk, l, (size_t)(nl - l));
			buf_putc(&blk, '\n');
			continue;
		}
		if (n >= 3) {
			assert_null(memchr(l + n, '`', (size_t)(nl - l - n)));
			fence = n;
			buf_reset(&blk);
			continue;
		}
		if (*l == '#') {
			int ok = strncmp(l, "# Handbook: r1\n", 15) == 0 ||
			    (strncmp(l, "### ", 4) == 0 && l[4] >= '1' && l[4] <= '9');

			for (i = 0; i < NSECTIONS && !ok; i++) {
				char *h = xstrfmt("## %s\n", sections[i]);

				ok = strncmp(l, h, strlen(h)) == 0;
				free(h);
			}
			if (!ok)
				fail_msg("a heading that is not ours: %.*s", (int)(nl - l), l);
		}
		if (*l == '<' && strncmp(l, CLAIMS_TAG, strlen(CLAIMS_TAG)) != 0)
			fail_msg("an HTML line: %.*s", (int)(nl - l), l);
		if (*l == '|') {
			size_t pipes = 0;

			for (i = 0; l + i < nl; i++)
				if (l[i] == '|' && (i == 0 || l[i - 1] != '\\'))
					pipes++;
			if (strncmp(l, "| verdict |", 11) == 0 || strncmp(l, "| class |", 9) == 0 ||
			    strncmp(l, "| rule |", 8) == 0)
				cols = pipes;
			if (pipes != cols)
				fail_msg("a table row with %zu cells, want %zu: %.*s", pipes, cols,
				    (int)(nl - l), l);
		}
	}
	assert_int_equal(fence, 0);
	buf_free(&blk);
	return found;
}

static void
test_hostile_values_stay_inert(void **state)
{
	cJSON *ps = pstate_sample();
	char *md = render(ps, "/opt/wk `bin`|x", 1);

	(void)state;
	/* The stage command is one fenced block, verbatim. */
	assert_int_equal(check_structure(md, HOSTILE_RUN "\n"), 1);
	/* Inline values: on their line, in a span longer than their backtick runs. */
	assert_non_null(strstr(md, "``` l`o``g|x\xe2\x8f\x8e## H2 ``` ```"));
	assert_non_null(strstr(md, "````Training ``` completed \\| ok````"));
	free(md);
	/* And without any state. */
	md = render(NULL, NULL, 0);
	assert_int_equal(check_structure(md, HOSTILE_RUN "\n"), 1);
	free(md);
	cJSON_Delete(ps);
}

static void
test_no_secret(void **state)
{
	cJSON *ps = pstate_sample();
	char *md = render(ps, "/opt/wk/bin", 1), *sec;

	(void)state;
	assert_null(strstr(md, ENV_SECRET));
	assert_null(strstr(md, LIT_SECRET));
	assert_null(strstr(md, "ENV-SECRET"));
	assert_null(strstr(md, "LITERAL-SECRET"));
	sec = section(md, "Run contract");
	assert_non_null(strstr(sec, "sink 0: `slack`; URL from the environment variable `WK_TEST_HOOK`"));
	assert_non_null(strstr(sec, "sink 1: `generic`; URL: (set in the config; not shown)"));
	free(sec);
	/* The state's text went through the scrubber, not around it. */
	assert_non_null(strstr(md, "posted to ***"));
	free(md);
	cJSON_Delete(ps);
}

static void
test_claims_parse_back(void **state)
{
	cJSON *ps = pstate_sample(), *cl = NULL, *m, *f;
	char *md = render(ps, "/opt/wk/bin", 1), *last, *cut;
	size_t len = strlen(md);

	(void)state;
	/* The claims line is the file's last line. */
	assert_true(len > 1 && md[len - 1] == '\n');
	for (last = md + len - 2; last > md && last[-1] != '\n'; last--)
		;
	assert_true(strncmp(last, CLAIMS_TAG "{", strlen(CLAIMS_TAG) + 1) == 0);
	assert_int_equal(handbook_claims_parse(md, &cl), 0);
	m = cJSON_GetObjectItemCaseSensitive(cl, "markers");
	f = cJSON_GetObjectItemCaseSensitive(cl, "failed");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "TRAIN_DONE")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(m, "EVAL_DONE")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(f, "TRAIN_DONE")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "EVAL_DONE")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cl, "cron")));
	assert_non_null(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cl, "generated")));
	cJSON_Delete(cl);
	/* Cut short or garbled: refused. */
	cut = xstrndup(md, (size_t)(last - md) + strlen(CLAIMS_TAG) + 8);
	assert_int_equal(handbook_claims_parse(cut, &cl), WK_ERR_PARSE);
	assert_null(cl);
	free(cut);
	cut = xstrndup(md, (size_t)(last - md));
	assert_int_equal(handbook_claims_parse(cut, &cl), WK_ERR_NOTFOUND);
	free(cut);
	assert_int_equal(handbook_claims_parse(CLAIMS_TAG "[1,2] -->\n", &cl), WK_ERR_PARSE);
	assert_int_equal(handbook_claims_parse(CLAIMS_TAG "{\"cron\":false} -->", &cl), 0);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cl, "cron")));
	cJSON_Delete(cl);
	free(md);
	cJSON_Delete(ps);
}

static void
test_first_command_and_resume_run(void **state)
{
	char *md = render(NULL, "/opt/wk bin", 0), *sec, *blk, *want, *cmd, *out, *start;

	(void)state;
	sec = section(md, "First command on reconnect");
	blk = first_sh_block(sec);
	assert_non_null(blk);
	want = xstrfmt("'/opt/wk bin/patrol' -c '%s' --once\n", cfgpath);
	assert_string_equal(blk, want);
	free(want);
	free(blk);
	free(sec);
	free(md);
	md = render(NULL, NULL, 0);
	sec = section(md, "First command on reconnect");
	blk = first_sh_block(sec);
	want = xstrfmt("patrol -c '%s' --once\n", cfgpath);
	assert_string_equal(blk, want);
	free(want);
	free(blk);
	free(sec);

	/* The resume command: the words sh hands to ssh, the last one the exact onbox command. */
	sec = section(md, "Resume");
	blk = first_sh_block(sec);
	assert_non_null(blk);
	assert_true(strncmp(blk, "ssh ", 4) == 0);
	cmd = xstrfmt("printf '%%s\\n' %s", blk + 4);
	out = sh_capture(cmd);
	start = remote_onbox_command(cfg, "start");
	want = xstrfmt("-F\n/etc/wk ssh/config\n-p\n2222\n-l\nroot\ngpu1\n%s\n", start);
	assert_string_equal(out, want);
	/* ...and the on-box one is that command as is. */
	assert_non_null(strstr(sec, start));
	/* completion.require and loss.on_nan, with this config's values (neither set: the defaults) */
	assert_non_null(strstr(sec, "6. Completion: the last stage's marker is written only when"));
	assert_non_null(strstr(sec, "Required here: nothing (no `completion.require` in the config)"));
	assert_non_null(strstr(sec, "(`loss.on_nan` alert): a `health_alert` only"));
	free(want);
	free(start);
	free(out);
	free(cmd);
	free(blk);
	free(sec);
	free(md);
}

/* detach slurm: a Slurm section after Resume, with the run's job names and last seen jobs. */
static void
test_slurm_section(void **state)
{
	struct diag d = DIAG_INIT;
	struct wk_config *scfg = NULL;
	struct handbook_ctx c;
	char *p = fs_join(dir, "slurm.json"), *md, *want;
	const char *sl, *dt;
	cJSON *ps = cJSON_Parse("{\"slurm\": {\"train\": {\"job_id\": \"4242\", \"state\": \"PENDING\","
	    " \"reason\": \"Resources\", \"jobs\": [\"4241\", \"4242\"]}}}");

	(void)state;
	atomic_write_str(p, "{\"run\": \"r2\", \"workdir\": \"/w/r2\", \"detach\": \"slurm\","
	    " \"box\": {\"host\": \"login1\"}, \"chain\": [{\"stage\": \"train\", \"run\": \"t\"},"
	    " {\"stage\": \"eval\", \"run\": \"e\", \"sbatch\": {\"partition\": \"gpu\"}}]}\n");
	if (config_load(p, &scfg, &d) != 0) {
		diag_print(&d, stderr);
		fail();
	}
	memset(&c, 0, sizeof(c));
	c.cfg = scfg;
	c.config_path = p;
	c.statedir = statedir;
	c.pstate = ps;
	c.generator = "test";
	md = handbook_render(&c);
	sl = strstr(md, "\n## Slurm\n");
	dt = strstr(md, "\n## Decision table\n");
	assert_non_null(sl);
	assert_non_null(dt);
	assert_true(sl > strstr(md, "\n## Resume\n") && sl < dt);
	assert_non_null(strstr(sl, "| train | `wk-r2-train` | `4242` | `PENDING` waiting for resources |"));
	assert_non_null(strstr(sl, "| eval | `wk-r2-eval` | `none seen` | unknown |"));
	assert_non_null(strstr(sl, "squeue --name='wk-r2-train,wk-r2-eval' -o '%i %j %T %r'\n"));
	assert_non_null(strstr(sl, "sacct -X -S now-7days --name='wk-r2-train,wk-r2-eval' -o "
	    "jobid,jobname,state,exitcode,elapsed\n"));
	assert_non_null(strstr(sl, "sacct -c -n -P -o jobid,jobname,state,exitcode | grep -F -e "
	    "'|wk-r2-train|' -e '|wk-r2-eval|'\n"));
	assert_non_null(strstr(sl, "scancel '--name=wk-r2-train'\nscancel '--name=wk-r2-eval'\n"));
	want = remote_onbox_command(scfg, "start");
	assert_true(strstr(sl, want) != NULL && strstr(sl, want) < dt);
	free(want);
	free(md);
	/* no Slurm section for a run that is not on Slurm */
	md = render(NULL, NULL, 0);
	assert_null(strstr(md, "## Slurm"));
	free(md);
	cJSON_Delete(ps);
	config_free(scfg);
	free(p);
}

static void
test_cron_line(void **state)
{
	char *line = crontab_line(cfg, "/opt/wk bin/patrol", "/etc/x%y.json"), *want, *md, *sec;
	char *rest;
	int had;

	(void)state;
	want = xstrfmt("3,33 * * * * '/opt/wk bin/patrol' -c '/etc/x\\%%y.json' --once >> "
	    "'%s/cron.log' 2>&1 # watchkeeper:r1", statedir);
	assert_string_equal(line, want);
	free(want);
	free(line);
	/* The handbook prints the very line patrol would install. */
	line = crontab_line(cfg, "/opt/wk/bin/patrol", cfgpath);
	md = render(NULL, "/opt/wk/bin", 0);
	sec = section(md, "Cron");
	want = xstrfmt("\n```\n%s\n```\n", line);
	assert_non_null(strstr(sec, want));
	assert_non_null(strstr(sec, "Installed: no."));
	assert_non_null(strstr(sec, "--uninstall-schedule\n"));
	free(want);
	free(sec);
	free(md);
	/* Filtering: only this run's line goes, a similar run's stays. */
	want = xstrfmt("0 1 * * * other # watchkeeper:r1x\n%s\nMAILTO=x\n", line);
	assert_int_equal(crontab_has(want, "r1"), 1);
	assert_int_equal(crontab_has(want, "r1x"), 1);
	assert_int_equal(crontab_has(want, "r"), 0);
	rest = crontab_without(want, "r1", &had);
	assert_int_equal(had, 1);
	assert_string_equal(rest, "0 1 * * * other # watchkeeper:r1x\nMAILTO=x\n");
	free(rest);
	free(want);
	free(line);
	assert_true(crontab_schedule_ok("3,33 * * * *"));
	assert_true(crontab_schedule_ok("@daily"));
	assert_false(crontab_schedule_ok("* * * *"));
	assert_false(crontab_schedule_ok("* * * * * rm -rf /;"));
	assert_false(crontab_schedule_ok("* * * * *\n* * * * * evil"));
}

static void
test_logbook_tail(void **state)
{
	struct buf b = BUF_INIT;
	char *p = fs_join(statedir, "LOGBOOK.md"), *md, *sec;
	int i;

	(void)state;
	md = render(NULL, NULL, 0);
	sec = section(md, "Logbook");
	assert_non_null(strstr(sec, "not written yet"));
	free(sec);
	free(md);
	buf_puts(&b, "# Logbook: r1\n\n");
	for (i = 1; i <= 12; i++)
		buf_printf(&b, "### 2026-11-21T03:%02d:00Z · entry %d\ntext\n\n```\n### fenced %d\n```\n\n",
		    i, i, i);
	atomic_write_str(p, b.data);
	md = render(NULL, NULL, 0);
	sec = section(md, "Logbook");
	assert_non_null(strstr(sec, p));
	assert_null(strstr(sec, "entry 2`"));
	for (i = 3; i <= 12; i++) {
		char *e = xstrfmt("- `2026-11-21T03:%02d:00Z · entry %d`\n", i, i);

		assert_non_null(strstr(sec, e));
		free(e);
	}
	assert_null(strstr(sec, "fenced"));
	unlink(p);
	free(sec);
	free(md);
	free(p);
	buf_free(&b);
}

/* The FAILED marker's "where" (core/traceback.c) in the status and the chain. */
static void
test_failed_where(void **state)
{
	cJSON *ps = pstate_sample(), *f;
	char *md, *sec;

	(void)state;
	f = cJSON_GetObjectItem(cJSON_GetObjectItem(ps, "failed"), "EVAL_DONE");
	cJSON_AddItemToObject(f, "where", cJSON_Parse("{\"file\": \"src/eval.py\", \"line\": 88,"
	    " \"function\": \"score\"}"));
	md = render(ps, "/opt/wk/bin", 0);
	sec = section(md, "Current status");
	assert_non_null(strstr(sec, "EVAL_DONE.FAILED`: class `cuda_oom`"));
	assert_non_null(strstr(sec, ", failed `at eval.py:88 in score`"));
	free(sec);
	sec = section(md, "The chain");
	assert_non_null(strstr(sec, "FAILED, class `cuda_oom`, `at eval.py:88 in score`"));
	free(sec);
	assert_int_equal(check_structure(md, NULL) >= 0, 1);
	free(md);
	cJSON_Delete(ps);
}

/* A DONE's caveats (caveats.h) are in the status; without them the status is as ever. */
static void
test_status_caveats(void **state)
{
	cJSON *ps = pstate_sample();
	char *md, *sec;

	(void)state;
	md = render(ps, NULL, 0);
	sec = section(md, "Current status");
	assert_null(strstr(sec, "Caveats"));
	free(sec);
	free(md);
	json_set_str(ps, "verdict", "DONE");
	json_set_str(ps, "details", "every marker present \xc2\xb7 caveats: nan_loss at step 15 (attempt 1), 1 restart");
	json_set_str(ps, "caveats_text", "nan_loss at step 15 (attempt 1), 1 restart");
	md = render(ps, NULL, 0);
	sec = section(md, "Current status");
	if (strstr(sec, "\n- Caveats: ") == NULL || strstr(strstr(sec, "\n- Caveats: "),
	    "nan_loss at step 15 (attempt 1), 1 restart") == NULL)
		fail_msg("no caveats line in:\n%s", sec);
	free(sec);
	free(md);
	cJSON_Delete(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_in_order),
		cmocka_unit_test(test_decision_table_is_the_code_table),
		cmocka_unit_test(test_triage_table_and_steps),
		cmocka_unit_test(test_marker_paths),
		cmocka_unit_test(test_failed_where),
		cmocka_unit_test(test_hostile_values_stay_inert),
		cmocka_unit_test(test_no_secret),
		cmocka_unit_test(test_claims_parse_back),
		cmocka_unit_test(test_first_command_and_resume_run),
		cmocka_unit_test(test_slurm_section),
		cmocka_unit_test(test_cron_line),
		cmocka_unit_test(test_logbook_tail),
		cmocka_unit_test(test_status_caveats),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
