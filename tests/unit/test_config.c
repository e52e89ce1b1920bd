/*
 * test_config.c: loading, profile merging, defaults and validation of
 * core/config.c.  Every test writes its configs into its own mkdtemp()
 * directory and removes it afterwards.  Fixtures are written with ' for "
 * to keep them readable; each line of a fixture is one C string so line
 * numbers can be counted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "err.h"

struct fx {
	char	 dir[PATH_MAX];	/* realpath of the temp dir */
	char	 path[PATH_MAX + 32];	/* dir/watchkeeper.json */
	char	*home;		/* $HOME to restore */
	struct diag d;
	struct wk_config *cfg;
};

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/wk-test-config.XXXXXX", *real;
	const char *home = getenv("HOME");

	if (f == NULL || mkdtemp(tmpl) == NULL || (real = realpath(tmpl, NULL)) == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s", real);
	free(real);
	snprintf(f->path, sizeof(f->path), "%s/watchkeeper.json", f->dir);
	f->home = home == NULL ? NULL : strdup(home);
	unsetenv("WATCHKEEPER_PROFILES");
	unsetenv("WATCHKEEPER_CONFIG");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	config_free(f->cfg);
	diag_free(&f->d);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (f->home != NULL)
		setenv("HOME", f->home, 1);
	free(f->home);
	unsetenv("WATCHKEEPER_PROFILES");
	unsetenv("WATCHKEEPER_CONFIG");
	free(f);
	return 0;
}

/* Write text to dir/name (creating one level of subdirectory), ' becoming ". */
static void
put(struct fx *f, const char *name, const char *text)
{
	char path[PATH_MAX + 64], *slash, *t = strdup(text), *p;
	FILE *fp;

	for (p = t; *p != '\0'; p++)
		if (*p == '\'')
			*p = '"';
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	if ((slash = strrchr(path, '/')) != NULL && slash > path + strlen(f->dir)) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(t, fp);
	fclose(fp);
	free(t);
}

/* Write watchkeeper.json and load it. */
static int
load(struct fx *f, const char *text)
{
	config_free(f->cfg);
	f->cfg = NULL;
	diag_free(&f->d);
	put(f, "watchkeeper.json", text);
	return config_load(f->path, &f->cfg, &f->d);
}

/* The diagnostic containing needle, or NULL. */
static const char *
msg(const struct fx *f, const char *needle)
{
	size_t i;

	for (i = 0; i < f->d.n; i++)
		if (strstr(f->d.msgs[i], needle) != NULL)
			return f->d.msgs[i];
	return NULL;
}

/* Assert a diagnostic equal to "<file>:<line>: <text>" exists. */
static void
expect(const struct fx *f, const char *file, int line, const char *text)
{
	char want[PATH_MAX + 512];
	size_t i;

	snprintf(want, sizeof(want), "%s:%d: %s", file, line, text);
	for (i = 0; i < f->d.n; i++)
		if (strcmp(f->d.msgs[i], want) == 0)
			return;
	for (i = 0; i < f->d.n; i++)
		print_message("  have: %s\n", f->d.msgs[i]);
	fail_msg("missing diagnostic: %s", want);
}

#define MINIMAL \
	"{\n" \
	"  'run': 'r1',\n" \
	"  'workdir': '/w/r1',\n" \
	"  'chain': [ { 'stage': 'train', 'run': 'python train.py' } ]\n" \
	"}\n"

static void
test_minimal_defaults(void **state)
{
	struct fx *f = *state;
	const struct wk_config *c;

	assert_int_equal(load(f, MINIMAL), 0);
	assert_int_equal(f->d.n, 0);
	c = f->cfg;
	assert_non_null(c);
	assert_string_equal(c->path, f->path);
	assert_string_equal(c->dir, f->dir);
	assert_string_equal(c->run, "r1");
	assert_string_equal(c->workdir, "/w/r1");
	assert_string_equal(c->detach, "tmux");
	assert_string_equal(c->session, "wk-r1");
	assert_int_equal(c->heartbeat_s, 60);
	assert_int_equal(c->poll_ms, 2000);
	assert_null(c->profile);
	assert_null(c->profile_path);
	assert_null(c->results);
	assert_null(c->box.host);
	assert_int_equal(c->box.port, 0);
	assert_int_equal(c->box.connect_timeout_s, 15);
	assert_string_equal(c->box.transport, "auto");
	assert_int_equal(c->nchain, 1);
	assert_string_equal(c->chain[0].name, "train");
	assert_string_equal(c->chain[0].marker, "TRAIN_DONE");
	assert_string_equal(c->chain[0].run, "python train.py");
	assert_int_equal(c->chain[0].line, 4);
	assert_int_equal(c->chain[0].has_wait, 0);
	assert_int_equal(c->chain[0].timeout_s, 0);
	assert_null(c->chain[0].done_re);
	assert_int_equal(c->has_progress, 0);
	assert_non_null(c->root);
	/* Keys without C fields: table defaults. */
	assert_string_equal(config_get_str(c, "patrol.schedule"), "3,33 * * * *");
	assert_int_equal(config_get_int(c, "patrol.stall_ticks"), 2);
	assert_int_equal(config_get_bool(c, "patrol.auto_resume"), 0);
	assert_int_equal(config_get_int(c, "patrol.disk_warn_pct"), 90);
	assert_int_equal(config_get_int(c, "sentinel.interval_s"), 90);
	assert_int_equal(config_get_int(c, "sentinel.max_ticks"), 120);
	assert_string_equal(config_get_str(c, "checkpoints.complete_file"), "metadata.json");
	assert_null(config_get_str(c, "transfer.local"));
	assert_true(config_get_num(c, "loss.spike_pct") == 50.0);
}

static void
test_full_config_accepted(void **state)
{
	struct fx *f = *state;
	const struct wk_config *c;
	const struct wk_stage *s;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'llama-ft-1', 'workdir': '/root/autodl-tmp/run1', 'detach': 'slurm',\n"
	    "  'session': 'mine', 'heartbeat_s': 30, 'poll_ms': 500,\n"
	    "  'results': 'results/metrics.csv', 'dri': 'ana',\n"
	    "  'box': { 'host': 'gpu1', 'ssh_config': '/e/ssh_config', 'port': 2222,\n"
	    "    'user': 'root', 'identity': '/k', 'known_hosts': '/kh',\n"
	    "    'connect_timeout_s': 5, 'transport': 'openssh', 'config': '/w/wk.json' },\n"
	    "  'chain': [\n"
	    "    { 'stage': 'train', 'run': 'python train.py', 'log': 'train.log',\n"
	    "      'done_when': '(?i)training completed', 'marker': 'T_OK', 'timeout_s': 3600,\n"
	    "      'sbatch': { '--gres': 'gpu:1', '--time': '01:00:00' } },\n"
	    "    { 'stage': 'wait-data', 'wait': { 'log': '/data/sync.log',\n"
	    "      'pattern': 'sync \\\\d+ done', 'timeout_s': 600 } },\n"
	    "    { 'stage': 'pid', 'wait': { 'pid': 4242 }, 'sbatch': '--gres=gpu:1' }\n"
	    "  ],\n"
	    "  'progress': { 'pattern': 'step (\\\\d+)/(\\\\d+)', 'max': 5155 },\n"
	    "  'loss': { 'pattern': 'loss=([0-9.]+)', 'spike_pct': 37.5, 'spike_steps': 8,\n"
	    "    'warmup_steps': 100 },\n"
	    "  'throughput': { 'pattern': 'tok/s=(\\\\d+)', 'drop_pct': 30, 'ticks': 2 },\n"
	    "  'checkpoints': { 'dir': 'ckpt', 'pattern': 'step_(\\\\d+)' },\n"
	    "  'restart': { 'max': 5, 'window_s': 600, 'max_in_window': 2,\n"
	    "    'retry_classes': ['oom', 'nccl'] },\n"
	    "  'notify': [ { 'type': 'slack', 'url_env': 'SLACK_WEBHOOK_URL', 'events': ['DONE'] },\n"
	    "    { 'type': 'telegram', 'token_env': 'TG', 'chat_id': -1001234 },\n"
	    "    { 'type': 'command', 'command': 'mail -s wk me' } ],\n"
	    "  'patrol': { 'schedule': '*/10 * * * *', 'stall_ticks': 4, 'auto_resume': true,\n"
	    "    'disk_warn_pct': 80 },\n"
	    "  'sentinel': { 'interval_s': 30, 'max_ticks': 10 },\n"
	    "  'transfer': { 'local': '/l', 'remote': 'out', 'resume': 'rsync -a --partial',\n"
	    "    'auto': true },\n"
	    "  'job': { 'status': 's', 'logs': 'l', 'stop': 'k', 'submit': 'b',\n"
	    "    'id_regex': 'job (\\\\d+)', 'states': { 'done': ['COMPLETED'], 'run': 'RUNNING' } },\n"
	    "  'platform': { 'persistent': '/p', 'scratch': '/s', 'tmux': true, 'systemd': false,\n"
	    "    'notes': 'n' }\n"
	    "}\n"), 0);
	c = f->cfg;
	assert_string_equal(c->detach, "slurm");
	assert_string_equal(c->session, "mine");
	assert_int_equal(c->heartbeat_s, 30);
	assert_int_equal(c->poll_ms, 500);
	assert_string_equal(c->results, "results/metrics.csv");
	assert_string_equal(c->dri, "ana");
	assert_int_equal(c->box.port, 2222);
	assert_int_equal(c->box.connect_timeout_s, 5);
	assert_string_equal(c->box.transport, "openssh");
	assert_string_equal(c->box.config, "/w/wk.json");
	assert_int_equal(c->nchain, 3);
	s = config_stage(c, "train");
	assert_ptr_equal(s, &c->chain[0]);
	assert_string_equal(s->marker, "T_OK");
	assert_int_equal(s->timeout_s, 3600);
	assert_int_equal(s->line, 9);
	assert_non_null(s->done_re);
	assert_int_equal(pattern_match(s->done_re, "TRAINING COMPLETED", 18), 1);
	s = config_stage(c, "wait-data");
	assert_non_null(s);
	assert_null(s->run);
	assert_int_equal(s->has_wait, 1);
	assert_string_equal(s->wait.log, "/data/sync.log");
	assert_int_equal(s->wait.timeout_s, 600);
	assert_non_null(s->wait.re);
	assert_int_equal(pattern_match(s->wait.re, "sync 12 done", 12), 1);
	assert_string_equal(s->marker, "WAIT_DATA_DONE");
	s = config_stage(c, "pid");
	assert_int_equal(s->wait.pid, 4242);
	assert_null(config_stage(c, "nope"));
	assert_int_equal(c->has_progress, 1);
	assert_int_equal(c->progress.max, 5155);
	assert_non_null(c->progress.re);
	assert_int_equal(pattern_ngroups(c->progress.re), 2);
	assert_string_equal(config_get_str(c, "patrol.schedule"), "*/10 * * * *");
	assert_int_equal(config_get_int(c, "patrol.stall_ticks"), 4);
	assert_int_equal(config_get_bool(c, "patrol.auto_resume"), 1);
	assert_true(config_get_num(c, "loss.spike_pct") == 37.5);
	assert_true(config_get_num(c, "throughput.drop_pct") == 30.0);
	assert_int_equal(config_get_int(c, "throughput.warmup_steps"), 0);
	assert_string_equal(config_get_str(c, "checkpoints.complete_file"), "metadata.json");
	assert_int_equal(config_get_bool(c, "transfer.auto"), 1);
	assert_int_equal(config_get_bool(c, "platform.systemd"), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(c->root, "notify")), 3);
}

static void
test_marker_derivation(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{ 'run': 'r', 'workdir': '/w', 'chain': [\n"
	    "  { 'stage': 'eval-2.x', 'run': 'a' }, { 'stage': 'Fine_tune9', 'run': 'b' } ] }\n"), 0);
	assert_string_equal(f->cfg->chain[0].marker, "EVAL_2_X_DONE");
	assert_string_equal(f->cfg->chain[1].marker, "FINE_TUNE9_DONE");
	assert_int_equal(f->cfg->chain[1].line, 2);
}

static void
test_session_name(void **state)
{
	struct fx *f = *state;

	/* tmux takes '.' in a target for a window separator: the default avoids it. */
	assert_int_equal(load(f, "{ 'run': 'llama.v2-1', 'workdir': '/w', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
	assert_string_equal(f->cfg->session, "wk-llama_v2-1");
	assert_int_equal(load(f, "{ 'run': 'r',\n 'session': 'a.b', 'workdir': '/w', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), WK_ERR_PARSE);
	expect(f, f->path, 2, "key \"session\": \"a.b\": a tmux session name cannot contain "
	    "'.' or ':'");
}

static void
test_unknown_key(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'chain': [\n"
	    "    { 'stage': 'a', 'run': 'x',\n"
	    "      'dne_when': 'y' }\n"
	    "  ],\n"
	    "  'box': { 'hots': 'h' },\n"
	    "  'colour': 'blue'\n"
	    "}\n"), WK_ERR_PARSE);
	assert_null(f->cfg);
	expect(f, f->path, 5, "unknown key \"chain[0].dne_when\" (did you mean \"done_when\"?)");
	expect(f, f->path, 7, "unknown key \"box.hots\" (did you mean \"host\"?)");
	expect(f, f->path, 8, "unknown key \"colour\"");
	assert_int_equal(f->d.n, 3);
}

static void
test_wrong_type(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'heartbeat_s': '60',\n"
	    "  'poll_ms': 2.5,\n"
	    "  'chain': [ { 'stage': 'a', 'run': ['x'] }, 'b' ],\n"
	    "  'patrol': { 'auto_resume': 'yes' },\n"
	    "  'box': 'gpu1',\n"
	    "  'notify': [ { 'type': 'slack', 'url_env': 'U', 'events': ['DONE', 3] } ]\n"
	    "}\n"), WK_ERR_PARSE);
	expect(f, f->path, 3, "key \"heartbeat_s\": expected integer, got string");
	expect(f, f->path, 4, "key \"poll_ms\": expected integer, got number 2.5");
	expect(f, f->path, 5, "key \"chain[0].run\": expected string, got array");
	expect(f, f->path, 5, "key \"chain[1]\": expected object, got string");
	expect(f, f->path, 6, "key \"patrol.auto_resume\": expected boolean (true or false), "
	    "got string");
	expect(f, f->path, 7, "key \"box\": expected object, got string");
	expect(f, f->path, 8, "key \"notify[0].events[1]\": expected string, got number 3");
}

static void
test_out_of_range(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'box': { 'port': 70000, 'connect_timeout_s': 0 },\n"
	    "  'poll_ms': 10,\n"
	    "  'progress': { 'pattern': '(\\\\d+)', 'max': -1 },\n"
	    "  'patrol': { 'disk_warn_pct': 101 },\n"
	    "  'chain': [ { 'stage': 'a', 'wait': { 'pid': 0 } } ]\n"
	    "}\n"), WK_ERR_PARSE);
	expect(f, f->path, 3, "key \"box.port\": 70000 is out of range 1..65535");
	expect(f, f->path, 3, "key \"box.connect_timeout_s\": 0 is out of range 1..600");
	expect(f, f->path, 4, "key \"poll_ms\": 10 is out of range 50..600000");
	expect(f, f->path, 5, "key \"progress.max\": -1 is out of range (at least 0)");
	expect(f, f->path, 6, "key \"patrol.disk_warn_pct\": 101 is out of range 1..100");
	expect(f, f->path, 7, "key \"chain[0].wait.pid\": 0 is out of range 1..2147483647");
}

static void
test_duplicate_stage_and_key(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'chain': [\n"
	    "    { 'stage': 'train', 'run': 'a' },\n"
	    "    { 'stage': 'eval', 'run': 'b' },\n"
	    "    { 'stage': 'train', 'run': 'c' }\n"
	    "  ]\n"
	    "}\n"), WK_ERR_PARSE);
	expect(f, f->path, 6, "key \"chain[2].stage\": duplicate stage name \"train\" "
	    "(also chain[0])");
	assert_int_equal(f->d.n, 1);

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'chain': [ { 'stage': 'a', 'run': 'x' } ],\n"
	    "  'run': 'r2'\n"
	    "}\n"), WK_ERR_PARSE);
	expect(f, f->path, 4, "duplicate key \"run\" (first at line 2)");
}

static void
test_bad_run_name(void **state)
{
	struct fx *f = *state;
	static const char *const bad[] = { "my run", "..", ".", "", "a/b", "r\\u00e9" };
	char text[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "{\n'run': '%s',\n'workdir': '/w',\n"
		    "'chain': [ { 'stage': 's', 'run': 'x' } ] }\n", bad[i]);
		assert_int_equal(load(f, text), WK_ERR_PARSE);
		assert_null(f->cfg);
		assert_non_null(msg(f, "key \"run\": \""));
		assert_non_null(strstr(msg(f, "key \"run\""), ":2: "));
		assert_non_null(msg(f, "must match [A-Za-z0-9._-]+"));
	}
	assert_int_equal(load(f, "{ 'run': 'a.B-9_z', 'workdir': '/w', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
}

static void
test_bad_markers(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'chain': [\n"
	    "    { 'stage': 'a', 'run': 'x', 'marker': 'A.FAILED' },\n"
	    "    { 'stage': 'b', 'run': 'x', 'marker': 'bad/marker' },\n"
	    "    { 'stage': 'c', 'run': 'x', 'marker': 'SAME' },\n"
	    "    { 'stage': 'd', 'run': 'x', 'marker': 'SAME' },\n"
	    "    { 'stage': 'e', 'run': 'x', 'marker': 'F_DONE' },\n"
	    "    { 'stage': 'f', 'run': 'x' }\n"
	    "  ]\n"
	    "}\n"), WK_ERR_PARSE);
	expect(f, f->path, 4, "key \"chain[0].marker\": \"A.FAILED\" must not end in \".FAILED\" "
	    "(reserved for failure markers)");
	expect(f, f->path, 5, "key \"chain[1].marker\": \"bad/marker\" must match "
	    "[A-Za-z0-9._-]+, be at most 128 characters, and not be \".\" or \"..\"");
	expect(f, f->path, 7, "key \"chain[3].marker\": duplicate marker \"SAME\" (also chain[2])");
	/* A derived marker collides with an explicit one: reported at the stage. */
	expect(f, f->path, 9, "key \"chain[5].marker\": duplicate marker \"F_DONE\" "
	    "(also chain[4])");
	assert_int_equal(f->d.n, 4);
}

static void
test_bad_regex(void **state)
{
	struct fx *f = *state;
	const char *m;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'chain': [ { 'stage': 'a', 'run': 'x',\n"
	    "     'done_when': 'Training (completed' } ],\n"
	    "  'progress': { 'pattern': 'step \\\\d+' },\n"
	    "  'job': { 'id_regex': '[' }\n"
	    "}\n"), WK_ERR_PARSE);
	m = msg(f, "chain[0].done_when");
	assert_non_null(m);
	assert_non_null(strstr(m, ":4: key \"chain[0].done_when\": bad regex: "));
	assert_non_null(strstr(m, "missing closing parenthesis"));
	assert_non_null(strstr(m, "offset"));
	expect(f, f->path, 5, "key \"progress.pattern\": the pattern needs a capture group "
	    "( ... ) around the value");
	m = msg(f, "job.id_regex");
	assert_non_null(m);
	assert_non_null(strstr(m, ":6: key \"job.id_regex\": bad regex: "));
	assert_int_equal(f->d.n, 3);
}

static void
test_missing_file(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/nope.json", f->dir);
	assert_int_equal(config_load(path, &f->cfg, &f->d), WK_ERR_SYSTEM);
	assert_null(f->cfg);
	assert_int_equal(f->d.n, 1);
	assert_non_null(strstr(f->d.msgs[0], path));
	assert_non_null(strstr(f->d.msgs[0], "No such file or directory"));
}

static void
test_syntax_error(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f, "{\n  // comment\n  'run': 'r1'\n  'workdir': '/w'\n}\n"),
	    WK_ERR_PARSE);
	expect(f, f->path, 4, "syntax error near '\"workdir\": \"/w\"'");
	assert_int_equal(load(f, "[1, 2]\n"), WK_ERR_PARSE);
	assert_non_null(msg(f, "must be a JSON object"));
}

static void
test_crlf_lines(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\r\n"
	    "  /* a\r\n   block */ 'run': 'r1', 'workdir': '/w',\r\n"
	    "  'chain': [ { 'stage': 'a', 'run': 'x' } ],\r\n"
	    "  'bogus': 1\r\n"
	    "}\r\n"), WK_ERR_PARSE);
	expect(f, f->path, 5, "unknown key \"bogus\"");
}

static void
test_required_keys(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f, "{\n  'chain': [\n    { 'run': 'x' }\n  ]\n}\n"), WK_ERR_PARSE);
	assert_non_null(msg(f, ": missing required key \"run\""));
	assert_non_null(msg(f, ": missing required key \"workdir\""));
	expect(f, f->path, 3, "missing required key \"chain[0].stage\"");
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '/w' }"), WK_ERR_PARSE);
	assert_non_null(msg(f, "missing required key \"chain\""));
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '/w',\n 'chain': [] }"), WK_ERR_PARSE);
	expect(f, f->path, 2, "key \"chain\": needs at least 1 entry");
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '/w', 'chain': [ { 'stage': 's', "
	    "'run': 'x' } ],\n 'checkpoints': { 'complete_file': 'm' } }"), WK_ERR_PARSE);
	expect(f, f->path, 2, "missing required key \"checkpoints.dir\"");
	expect(f, f->path, 2, "missing required key \"checkpoints.pattern\"");
}

static void
test_run_wait_rules(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'chain': [\n"
	    "    { 'stage': 'both', 'run': 'x', 'wait': { 'pid': 12 } },\n"
	    "    { 'stage': 'neither', 'log': 'l' },\n"
	    "    { 'stage': 'forever', 'wait': { 'log': 'a.log', 'pattern': 'ok' } },\n"
	    "    { 'stage': 'mixed', 'wait': { 'pid': 3, 'log': 'a.log', 'pattern': 'ok',\n"
	    "      'timeout_s': 5 } },\n"
	    "    { 'stage': 'half', 'wait': { 'log': 'a.log', 'timeout_s': 5 } },\n"
	    "    { 'stage': 'ok', 'wait': { 'log': 'a.log', 'pattern': 'ok', 'timeout_s': 5 } }\n"
	    "  ]\n"
	    "}\n"), WK_ERR_PARSE);
	expect(f, f->path, 4, "key \"chain[0]\": has both \"run\" and \"wait\"; a stage does "
	    "exactly one of them (make the wait its own stage)");
	expect(f, f->path, 5, "key \"chain[1]\": needs \"run\" (a command), \"adopt\" (a job that already runs) or \"wait\"");
	expect(f, f->path, 6, "key \"chain[2].wait.timeout_s\": must be > 0 with a log: "
	    "a wait never waits forever");
	expect(f, f->path, 7, "key \"chain[3].wait\": wait for either a pid or a log line "
	    "(log + pattern), not both");
	expect(f, f->path, 9, "key \"chain[4].wait\": needs \"pid\", or \"log\" and \"pattern\"");
	assert_int_equal(f->d.n, 5);
}

static void
test_choices_and_notify(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w', 'detach': 'screen',\n"
	    "  'box': { 'transport': 'putty' },\n"
	    "  'chain': [ { 'stage': 'a', 'run': 'x' } ],\n"
	    "  'notify': [ { 'type': 'pager' }, { 'type': 'slack' },\n"
	    "    { 'type': 'telegram', 'token_env': 'T' } ]\n"
	    "}\n"), WK_ERR_PARSE);
	expect(f, f->path, 2, "key \"detach\": \"screen\" is not one of tmux|nohup|slurm|job");
	expect(f, f->path, 3, "key \"box.transport\": \"putty\" is not one of auto|libssh2|openssh");
	assert_non_null(msg(f, ":5: key \"notify[0].type\": \"pager\" is not one of generic|"));
	expect(f, f->path, 5, "key \"notify[1]\": type slack needs \"url_env\" (or \"url\")");
	expect(f, f->path, 6, "key \"notify[2]\": type telegram needs \"token_env\" (or \"token\") and "
	    "\"chat_id\"");
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '/w', 'detach': 'job',\n"
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), WK_ERR_PARSE);
	expect(f, f->path, 1, "key \"detach\": \"job\" needs \"job.submit\" and \"job.status\" (in \"job\", or in every entry of \"job.dialects\")");
	/* a live card where the receiver cannot edit; a slack channel without a bot token */
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '/w',\n"
	    "'chain': [ { 'stage': 's', 'run': 'x' } ],\n"
	    "'notify': [ { 'type': 'slack', 'url_env': 'U', 'card': true },\n"
	    "  { 'type': 'slack', 'channel': '#runs' },\n"
	    "  { 'type': 'slack', 'channel': '#runs', 'token_env': 'B', 'card': true } ] }"),
	    WK_ERR_PARSE);
	expect(f, f->path, 3, "key \"notify[0].card\": a live card needs a receiver that can edit "
	    "what it sent: telegram, discord, or slack through a bot token (\"channel\" and "
	    "\"token_env\"; an incoming webhook cannot edit)");
	expect(f, f->path, 4, "key \"notify[1]\": type slack with a \"channel\" posts through a "
	    "bot token: it needs \"token_env\" (or \"token\")");
	assert_int_equal(f->d.n, 2);
}

static void
test_completion_and_on_nan(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'workdir': '/w',\n"
	    "  'chain': [ { 'stage': 'a', 'run': 'x' } ],\n"
	    "  'loss': { 'pattern': 'loss=(\\\\S+)', 'on_nan': 'halt' },\n"
	    "  'completion': { 'require': [\n"
	    "    '/etc/passwd',\n"
	    "    'results/../../x',\n"
	    "    '..',\n"
	    "    'ckpt/{final_checkpoint}',\n"
	    "    '{final_checkpoint}',\n"
	    "    '',\n"
	    "    7,\n"
	    "    '~/r.json',\n"
	    "    'results/..x/ok.json', 'a/*.json', 'dir/'\n"
	    "  ] }\n"
	    "}\n"), WK_ERR_PARSE);
	expect(f, f->path, 4, "key \"loss.on_nan\": \"halt\" is not one of alert|stop");
	expect(f, f->path, 6, "key \"completion.require[0]\": \"/etc/passwd\" is absolute: "
	    "entries are relative to the workdir");
	expect(f, f->path, 7, "key \"completion.require[1]\": \"results/../../x\" leaves the "
	    "workdir (a \"..\" component)");
	expect(f, f->path, 8, "key \"completion.require[2]\": \"..\" leaves the workdir (a \"..\" "
	    "component)");
	expect(f, f->path, 9, "key \"completion.require[3]\": {final_checkpoint} must be an entry "
	    "of its own, not part of a path");
	expect(f, f->path, 10, "key \"completion.require[4]\": {final_checkpoint} needs "
	    "\"checkpoints\" (dir, pattern) to find the newest complete checkpoint");
	expect(f, f->path, 11, "key \"completion.require[5]\": empty: name a file, directory or glob "
	    "under the workdir");
	expect(f, f->path, 12, "key \"completion.require[6]\": expected string, got number 7");
	expect(f, f->path, 13, "key \"completion.require[7]\": \"~/r.json\": no ~ expansion here: "
	    "entries are relative to the workdir");
	assert_int_equal(f->d.n, 9);
	assert_null(msg(f, "require[8]"));
	assert_null(msg(f, "require[9]"));
	assert_null(msg(f, "require[10]"));

	/* Accepted: defaults, and every kind of entry with checkpoints configured. */
	assert_int_equal(load(f,
	    "{ 'run': 'r1', 'workdir': '/w', 'chain': [ { 'stage': 'a', 'run': 'x' } ],\n"
	    "  'loss': { 'pattern': 'loss=(\\\\S+)' } }\n"), 0);
	assert_string_equal(config_get_str(f->cfg, "loss.on_nan"), "alert");
	assert_int_equal(load(f,
	    "{ 'run': 'r1', 'workdir': '/w', 'chain': [ { 'stage': 'a', 'run': 'x' } ],\n"
	    "  'loss': { 'pattern': 'loss=(\\\\S+)', 'on_nan': 'stop' },\n"
	    "  'checkpoints': { 'dir': 'ckpt', 'pattern': '^step_(\\\\d+)$' },\n"
	    "  'completion': { 'require': [ 'results/metrics.json', 'eval/*.csv', 'out/',\n"
	    "    '{final_checkpoint}' ] } }\n"), 0);
	assert_string_equal(config_get_str(f->cfg, "loss.on_nan"), "stop");
	/* not an array */
	assert_int_equal(load(f,
	    "{ 'run': 'r1', 'workdir': '/w', 'chain': [ { 'stage': 'a', 'run': 'x' } ],\n"
	    "  'completion': { 'require': 'results/metrics.json', 'requires': [] } }\n"), WK_ERR_PARSE);
	expect(f, f->path, 2, "key \"completion.require\": expected array of strings, got string");
	expect(f, f->path, 2, "unknown key \"completion.requires\" (did you mean \"require\"?)");
}

static void
test_multiple_errors(void **state)
{
	struct fx *f = *state;

	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'bad name',\n"
	    "  'workdir': '/w',\n"
	    "  'heartbeat_s': 0,\n"
	    "  'chain': [ { 'stage': 'a', 'run': 'x', 'done_when': '(' },\n"
	    "             { 'stage': 'a', 'run': 'y' } ],\n"
	    "  'typo': true\n"
	    "}\n"), WK_ERR_PARSE);
	assert_int_equal(f->d.n, 5);
	assert_non_null(msg(f, ":2: key \"run\""));
	assert_non_null(msg(f, ":4: key \"heartbeat_s\": 0 is out of range 1..86400"));
	assert_non_null(msg(f, ":5: key \"chain[0].done_when\": bad regex"));
	assert_non_null(msg(f, ":6: key \"chain[1].stage\": duplicate stage name"));
	assert_non_null(msg(f, ":7: unknown key \"typo\""));
}

static void
test_workdir_expansion(void **state)
{
	struct fx *f = *state;
	char want[PATH_MAX + 64];

	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': 'runs/../r1/./x/', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
	snprintf(want, sizeof(want), "%s/r1/x", f->dir);
	assert_string_equal(f->cfg->workdir, want);

	setenv("HOME", "/home/tester/", 1);
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '~', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
	assert_string_equal(f->cfg->workdir, "/home/tester");
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '~/runs//r1/', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
	assert_string_equal(f->cfg->workdir, "/home/tester/runs/r1");
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '/a//b/./c/../d/', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
	assert_string_equal(f->cfg->workdir, "/a/b/d");
	assert_int_equal(load(f, "{ 'run': 'r', 'workdir': '/../..', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
	assert_string_equal(f->cfg->workdir, "/");

	assert_int_equal(load(f, "{ 'run': 'r',\n 'workdir': '~bob/x', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), WK_ERR_PARSE);
	expect(f, f->path, 2, "key \"workdir\": only \"~\" and \"~/\" are expanded, not \"~user\"");
	unsetenv("HOME");
	assert_int_equal(load(f, "{ 'run': 'r',\n 'workdir': '~/x', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), WK_ERR_PARSE);
	assert_non_null(msg(f, "$HOME is not set"));
}

static void
test_relative_config_path(void **state)
{
	struct fx *f = *state;
	char cwd[PATH_MAX], want[PATH_MAX + 64];

	put(f, "sub/wk.json", "{ 'run': 'r', 'workdir': 'w', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(f->dir), 0);
	assert_int_equal(config_load("sub/wk.json", &f->cfg, &f->d), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(f->cfg->path, "sub/wk.json");
	snprintf(want, sizeof(want), "%s/sub", f->dir);
	assert_string_equal(f->cfg->dir, want);
	snprintf(want, sizeof(want), "%s/sub/w", f->dir);
	assert_string_equal(f->cfg->workdir, want);
}

#define PROFILE \
	"// a test platform\n" \
	"{\n" \
	"  'detach': 'nohup',\n" \
	"  'heartbeat_s': 30,\n" \
	"  'box': { 'user': 'root', 'port': 2200, 'connect_timeout_s': 7 },\n" \
	"  'patrol': { 'stall_ticks': 5 },\n" \
	"  'notify': [ { 'type': 'ntfy', 'url': 'https://ntfy.sh/a' },\n" \
	"              { 'type': 'ntfy', 'url': 'https://ntfy.sh/b' } ],\n" \
	"  'platform': { 'persistent': '/workspace', 'systemd': false }\n" \
	"}\n"

static void
test_profile_merge(void **state)
{
	struct fx *f = *state;
	const struct wk_config *c;
	const cJSON *notify;
	char want[PATH_MAX + 64];

	put(f, "profiles/plat.json", PROFILE);
	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'profile': 'plat', 'workdir': '/w', 'detach': 'tmux',\n"
	    "  'box': { 'host': 'gpu', 'port': 2222 },\n"
	    "  'patrol': { 'auto_resume': true },\n"
	    "  'notify': [ { 'type': 'slack', 'url_env': 'S' } ],\n"
	    "  'chain': [ { 'stage': 's', 'run': 'x' } ]\n"
	    "}\n"), 0);
	c = f->cfg;
	snprintf(want, sizeof(want), "%s/profiles/plat.json", f->dir);
	assert_string_equal(c->profile, "plat");
	assert_string_equal(c->profile_path, want);
	/* Scalars: the run's file wins; profile-only keys come through. */
	assert_string_equal(c->detach, "tmux");
	assert_int_equal(c->heartbeat_s, 30);
	/* Objects merge key by key. */
	assert_string_equal(c->box.host, "gpu");
	assert_int_equal(c->box.port, 2222);
	assert_string_equal(c->box.user, "root");
	assert_int_equal(c->box.connect_timeout_s, 7);
	assert_int_equal(config_get_int(c, "patrol.stall_ticks"), 5);
	assert_int_equal(config_get_bool(c, "patrol.auto_resume"), 1);
	assert_string_equal(config_get_str(c, "platform.persistent"), "/workspace");
	/* Arrays are replaced. */
	notify = cJSON_GetObjectItem(c->root, "notify");
	assert_int_equal(cJSON_GetArraySize(notify), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(notify, 0), "type")->valuestring,
	    "slack");
}

static void
test_profile_errors_name_profile_file(void **state)
{
	struct fx *f = *state;
	char prof[PATH_MAX + 64];

	put(f, "profiles/plat.json",
	    "{\n"
	    "  'box': { 'port': 99999 },\n"
	    "  'job': { 'id_regex': '(' },\n"
	    "  'patrol': { 'stall_tick': 1 },\n"
	    "  'run': 'x', 'workdir': '/p',\n"
	    "  'chain': []\n"
	    "}\n");
	snprintf(prof, sizeof(prof), "%s/profiles/plat.json", f->dir);
	assert_int_equal(load(f,
	    "{\n"
	    "  'run': 'r1', 'profile': 'plat', 'workdir': '/w',\n"
	    "  'box': { 'port': 22 },\n"
	    "  'chain': [ { 'stage': 's', 'run': 'x' } ]\n"
	    "}\n"), WK_ERR_PARSE);
	/* Reported even though the run's file overrides it. */
	expect(f, prof, 2, "key \"box.port\": 99999 is out of range 1..65535");
	assert_non_null(msg(f, ":3: key \"job.id_regex\": bad regex"));
	assert_non_null(strstr(msg(f, "job.id_regex"), prof));
	expect(f, prof, 4, "unknown key \"patrol.stall_tick\" (did you mean \"stall_ticks\"?)");
	expect(f, prof, 5, "key \"run\" is not allowed in a profile (it belongs to one run)");
	expect(f, prof, 5, "key \"workdir\" is not allowed in a profile (it belongs to one run)");
	expect(f, prof, 6, "key \"chain\" is not allowed in a profile (it belongs to one run)");
	assert_int_equal(f->d.n, 6);
}

static void
test_profile_semantic_error_position(void **state)
{
	struct fx *f = *state;
	char prof[PATH_MAX + 64];

	/* Valid on its own, wrong once merged: blamed on the file the key came from. */
	put(f, "profiles/plat.json", "{\n  'detach': 'job'\n}\n");
	snprintf(prof, sizeof(prof), "%s/profiles/plat.json", f->dir);
	assert_int_equal(load(f, "{ 'run': 'r1', 'profile': 'plat', 'workdir': '/w',\n"
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), WK_ERR_PARSE);
	expect(f, prof, 2, "key \"detach\": \"job\" needs \"job.submit\" and \"job.status\" (in \"job\", or in every entry of \"job.dialects\")");

	/* With a profile merged, the run's own keys still point into the run's file. */
	put(f, "profiles/plat.json", "{\n  'box': { 'user': 'u' }\n}\n");
	assert_int_equal(load(f, "{ 'run': 'r1', 'profile': 'plat', 'workdir': '/w',\n"
	    "'box': { 'host': 'h' },\n"
	    "'chain': [ { 'stage': 's', 'run': 'x' },\n"
	    "  { 'stage': 's', 'run': 'y' } ] }"), WK_ERR_PARSE);
	expect(f, f->path, 4, "key \"chain[1].stage\": duplicate stage name \"s\" (also chain[0])");
	assert_int_equal(f->d.n, 1);
}

static void
test_profile_missing(void **state)
{
	struct fx *f = *state;
	char env[PATH_MAX + 64], text[PATH_MAX + 128];
	const char *m;

	snprintf(env, sizeof(env), "%s/env-profiles", f->dir);
	setenv("WATCHKEEPER_PROFILES", env, 1);
	assert_int_equal(load(f, "{\n'run': 'r1',\n'profile': 'nosuchplatform', 'workdir': '/w',\n"
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), WK_ERR_PARSE);
	assert_null(f->cfg);
	m = msg(f, "profile \"nosuchplatform\" not found");
	assert_non_null(m);
	assert_non_null(strstr(m, ":3: key \"profile\""));
	assert_non_null(strstr(m, env));
	snprintf(text, sizeof(text), "%s/profiles", f->dir);
	assert_non_null(strstr(m, text));
	assert_int_equal(f->d.n, 1);

	assert_int_equal(load(f, "{ 'run': 'r1', 'profile': '../x', 'workdir': '/w',\n"
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), WK_ERR_PARSE);
	expect(f, f->path, 1, "key \"profile\": \"../x\" must match [A-Za-z0-9._-]+, be at most "
	    "128 characters, and not be \".\" or \"..\"");
	assert_int_equal(f->d.n, 1);
}

static void
test_profile_syntax_error(void **state)
{
	struct fx *f = *state;
	char prof[PATH_MAX + 64];

	put(f, "profiles/plat.json", "{\n  'heartbeat_s': 5,\n  /* unterminated\n}\n");
	snprintf(prof, sizeof(prof), "%s/profiles/plat.json", f->dir);
	assert_int_equal(load(f, "{ 'run': 'r1', 'profile': 'plat', 'workdir': '/w',\n"
	    "'chain': [ { 'stage': 's', 'run': 'x' } ], 'bogus': 1 }"), WK_ERR_PARSE);
	expect(f, prof, 3, "unterminated /* comment");
	expect(f, f->path, 2, "unknown key \"bogus\"");
}

static void
test_profile_search_order(void **state)
{
	struct fx *f = *state;
	char env[PATH_MAX + 64];
	const char *run = "{ 'run': 'r1', 'profile': 'p', 'workdir': '/w',\n"
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }";

	put(f, "profiles/p.json", "{ 'heartbeat_s': 11 }");
	put(f, "env/p.json", "{ 'heartbeat_s': 22 }");
	assert_int_equal(load(f, run), 0);
	assert_int_equal(f->cfg->heartbeat_s, 11);

	snprintf(env, sizeof(env), "%s/env", f->dir);
	setenv("WATCHKEEPER_PROFILES", env, 1);
	assert_int_equal(load(f, run), 0);
	assert_int_equal(f->cfg->heartbeat_s, 22);
	snprintf(env, sizeof(env), "%s/env/p.json", f->dir);
	assert_string_equal(f->cfg->profile_path, env);
}

#ifndef WK_SRC_PROFILES_DIR
#define WK_SRC_PROFILES_DIR "profiles"
#endif

static void
test_shipped_profiles(void **state)
{
	static const char *const names[] = { "generic", "autodl", "runpod", "vast", "lambda",
	    "slurm", "ray", "iris" };
	struct fx *f = *state;
	char text[512], *real;
	size_t i;

	if ((real = realpath(WK_SRC_PROFILES_DIR, NULL)) == NULL)
		skip();
	setenv("WATCHKEEPER_PROFILES", real, 1);
	free(real);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(text, sizeof(text), "{ 'run': 'r1', 'profile': '%s', 'workdir': '/w', "
		    "'box': { 'host': 'h' }, 'chain': [ { 'stage': 's', 'run': 'x' } ] }",
		    names[i]);
		if (load(f, text) != 0)
			diag_print(&f->d, stderr);
		assert_int_equal(f->d.n, 0);
		assert_non_null(f->cfg);
		assert_non_null(f->cfg->detach);
	}
	assert_int_equal(load(f, "{ 'run': 'r1', 'profile': 'slurm', 'workdir': '/w', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
	assert_string_equal(f->cfg->detach, "slurm");
	assert_int_equal(config_get_bool(f->cfg, "platform.tmux"), 0);
	assert_int_equal(load(f, "{ 'run': 'r1', 'profile': 'lambda', 'workdir': '/w', "
	    "'chain': [ { 'stage': 's', 'run': 'x' } ] }"), 0);
	assert_string_equal(f->cfg->box.user, "ubuntu");
	assert_int_equal(f->cfg->box.port, 22);
}

static void
test_config_find(void **state)
{
	char *p;

	(void)state;
	setenv("WATCHKEEPER_CONFIG", "/env/wk.json", 1);
	p = config_find("/opt/wk.json");
	assert_string_equal(p, "/opt/wk.json");
	free(p);
	p = config_find(NULL);
	assert_string_equal(p, "/env/wk.json");
	free(p);
	setenv("WATCHKEEPER_CONFIG", "", 1);
	p = config_find(NULL);
	assert_string_equal(p, "./watchkeeper.json");
	free(p);
	unsetenv("WATCHKEEPER_CONFIG");
	p = config_find(NULL);
	assert_string_equal(p, "./watchkeeper.json");
	free(p);
}

static void
test_free_null(void **state)
{
	(void)state;
	config_free(NULL);
}

static void
test_print_keys(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	(void)state;
	assert_non_null(fp);
	config_print_keys(fp);
	fclose(fp);
	assert_non_null(strstr(text, "  box.port "));
	assert_non_null(strstr(text, "integer 1..65535"));
	assert_non_null(strstr(text, "  chain[].done_when "));
	assert_non_null(strstr(text, "  notify[].url_env "));
	assert_non_null(strstr(text, "default 3,33 * * * *"));
	assert_non_null(strstr(text, "tmux|nohup|slurm|job"));
	assert_non_null(strstr(text, "  completion.require "));
	assert_non_null(strstr(text, "{final_checkpoint}"));
	assert_non_null(strstr(text, "  loss.on_nan "));
	assert_non_null(strstr(text, "alert|stop"));
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_minimal_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_config_accepted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marker_derivation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_stage_and_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_run_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_markers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_regex, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syntax_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crlf_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_required_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_wait_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choices_and_notify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_completion_and_on_nan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multiple_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workdir_expansion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_config_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_errors_name_profile_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_profile_semantic_error_position, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_profile_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_syntax_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_search_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shipped_profiles, setup, teardown),
		cmocka_unit_test(test_config_find),
		cmocka_unit_test(test_free_null),
		cmocka_unit_test(test_print_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
