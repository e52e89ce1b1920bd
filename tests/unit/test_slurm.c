/*
 * test_slurm.c: core/slurm.c, the Slurm backend's pure parts.
 *
 * The tables (states, reasons), job ids, sbatch's --parsable output, the
 * chain[].sbatch check and the sbatch command line are checked against
 * configs loaded with config_load() from text in a temp dir.  A command
 * line is never compared as text alone: its leading command is replaced by
 * printf and the line is run by /bin/sh, so the words the shell really
 * makes are compared, and hostile values (quotes, blanks, $(touch PWNED),
 * backticks) must arrive as one inert word with no PWNED file left behind.
 *
 * The query fragment is run for real with /bin/sh against stand-ins for
 * squeue, sacct and scontrol placed first on PATH (a temp bin/): each logs
 * its words and prints what the test left for its mode (squeue json|text,
 * sacct db|comp, scontrol show), with the exit status chosen.  The
 * outputs are those captured from Slurm 22.05.8 for a run "t1" whose
 * stage a failed with exit 64, b is stranded and c waits on b (the squeue
 * JSON trimmed to the fields that matter).  slurm_parse() is also fed
 * hand-made texts for the cases a real run cannot produce on demand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "layout.h"
#include "slurm.h"
#include "sshq.h"
#include "xmalloc.h"

/* ---- captured from Slurm 22.05.8 (run t1: a failed 64, b stranded, c waiting) ---- */

/* squeue -a --json --name=wk-t1-a,wk-t1-b,wk-t1-c, trimmed */
#define SQ_JSON \
	"{\n" \
	"  \"meta\": {\n" \
	"    \"plugin\": {\n" \
	"      \"type\": \"openapi\\/v0.0.38\",\n" \
	"      \"name\": \"Slurm OpenAPI v0.0.38\"\n" \
	"    },\n" \
	"    \"Slurm\": {\n" \
	"      \"version\": {\n" \
	"        \"major\": 22,\n" \
	"        \"micro\": 8,\n" \
	"        \"minor\": 5\n" \
	"      },\n" \
	"      \"release\": \"22.05.8\"\n" \
	"    }\n" \
	"  },\n" \
	"  \"errors\": [\n" \
	"  ],\n" \
	"  \"jobs\": [\n" \
	"    {\n" \
	"      \"account\": \"\",\n" \
	"      \"array_job_id\": 0,\n" \
	"      \"array_task_id\": null,\n" \
	"      \"batch_host\": \"wkn16399x1423\",\n" \
	"      \"dependency\": \"\",\n" \
	"      \"derived_exit_code\": 0,\n" \
	"      \"exit_code\": 16384,\n" \
	"      \"job_id\": 549820,\n" \
	"      \"job_state\": \"FAILED\",\n" \
	"      \"name\": \"wk-t1-a\",\n" \
	"      \"nodes\": \"wkn16399x1423\",\n" \
	"      \"partition\": \"debug\",\n" \
	"      \"restart_cnt\": 0,\n" \
	"      \"state_reason\": \"NonZeroExitCode\",\n" \
	"      \"user_name\": \"root\"\n" \
	"    },\n" \
	"    {\n" \
	"      \"account\": \"\",\n" \
	"      \"array_job_id\": 0,\n" \
	"      \"array_task_id\": null,\n" \
	"      \"batch_host\": \"\",\n" \
	"      \"dependency\": \"afterok:549820(failed)\",\n" \
	"      \"derived_exit_code\": 0,\n" \
	"      \"exit_code\": 0,\n" \
	"      \"job_id\": 549821,\n" \
	"      \"job_state\": \"PENDING\",\n" \
	"      \"name\": \"wk-t1-b\",\n" \
	"      \"nodes\": \"\",\n" \
	"      \"partition\": \"debug\",\n" \
	"      \"restart_cnt\": 0,\n" \
	"      \"state_reason\": \"DependencyNeverSatisfied\",\n" \
	"      \"user_name\": \"root\"\n" \
	"    },\n" \
	"    {\n" \
	"      \"account\": \"\",\n" \
	"      \"array_job_id\": 0,\n" \
	"      \"array_task_id\": null,\n" \
	"      \"batch_host\": \"\",\n" \
	"      \"dependency\": \"afterok:549821(unfulfilled)\",\n" \
	"      \"derived_exit_code\": 0,\n" \
	"      \"exit_code\": 0,\n" \
	"      \"job_id\": 549822,\n" \
	"      \"job_state\": \"PENDING\",\n" \
	"      \"name\": \"wk-t1-c\",\n" \
	"      \"nodes\": \"\",\n" \
	"      \"partition\": \"debug\",\n" \
	"      \"restart_cnt\": 0,\n" \
	"      \"state_reason\": \"Dependency\",\n" \
	"      \"user_name\": \"root\"\n" \
	"    }\n" \
	"  ]\n" \
	"}\n"

/* plain sacct without accounting storage (exit 1) */
#define SACCT_DB	"Slurm accounting storage is disabled\n"
/* sacct -c -n -P -o jobid,jobname,state,exitcode */
#define SACCT_COMP	"549820|wk-t1-a|FAILED|64:0\n"
/* scontrol -o show job (each line trimmed of fields nothing reads; note the trailing blank) */
#define SC_A \
	"JobId=549820 JobName=wk-t1-a UserId=root(0) GroupId=root(0) MCS_label=N/A " \
	"Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=FAILED " \
	"Reason=NonZeroExitCode Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 " \
	"ExitCode=64:0 RunTime=00:00:00 TimeLimit=365-00:00:00 TimeMin=N/A " \
	"SubmitTime=2026-11-21T06:41:50 Partition=debug AllocNode:Sid=localhost:2340 " \
	"NodeList=wkn16399x1423 BatchHost=wkn16399x1423 NumNodes=1 ReqB:S:C:T=0:0:*:* " \
	"TRES=cpu=1,node=1,billing=1 WorkDir=/tmp/lead/t.9a0S/work " \
	"StdErr=/tmp/lead/t.9a0S/work/.watchkeeper/logs/a.slurm-549820.out StdIn=/dev/null " \
	"StdOut=/tmp/lead/t.9a0S/work/.watchkeeper/logs/a.slurm-549820.out Power= \n"
#define SC_B \
	"JobId=549821 JobName=wk-t1-b UserId=root(0) GroupId=root(0) MCS_label=N/A " \
	"Priority=4294901758 Nice=0 Account=(null) QOS=(null) JobState=PENDING " \
	"Reason=DependencyNeverSatisfied Dependency=afterok:549820(failed) Requeue=1 Restarts=0 " \
	"BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A " \
	"SubmitTime=2026-11-21T06:41:50 EligibleTime=Unknown Partition=debug " \
	"AllocNode:Sid=localhost:2340 NodeList= NumNodes=1 TRES=cpu=1,mem=1M,node=1,billing=1 " \
	"WorkDir=/tmp/lead/t.9a0S/work StdErr=/tmp/lead/t.9a0S/work/.watchkeeper/logs/b.slurm-549821.out " \
	"StdIn=/dev/null StdOut=/tmp/lead/t.9a0S/work/.watchkeeper/logs/b.slurm-549821.out Power= \n"
#define SC_C \
	"JobId=549822 JobName=wk-t1-c UserId=root(0) GroupId=root(0) MCS_label=N/A " \
	"Priority=4294901757 Nice=0 Account=(null) QOS=(null) JobState=PENDING " \
	"Reason=Dependency Dependency=afterok:549821(unfulfilled) Requeue=1 Restarts=0 " \
	"BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A " \
	"SubmitTime=2026-11-21T06:41:50 EligibleTime=Unknown Partition=debug " \
	"AllocNode:Sid=localhost:2340 NodeList= NumNodes=1 TRES=cpu=1,mem=1M,node=1,billing=1 " \
	"WorkDir=/tmp/lead/t.9a0S/work StdErr=/tmp/lead/t.9a0S/work/.watchkeeper/logs/c.slurm-549822.out " \
	"StdIn=/dev/null StdOut=/tmp/lead/t.9a0S/work/.watchkeeper/logs/c.slurm-549822.out Power= \n"
#define SCONTROL	SC_A SC_B SC_C
/* a job of another run (t10) the controller also knows: never ours */
#define SC_T10 \
	"JobId=549700 JobName=wk-t10-a UserId=root(0) JobState=RUNNING Reason=None " \
	"Dependency=(null) Requeue=1 Restarts=0 ExitCode=0:0 Partition=debug Power= \n"

/* The captured case as the fragment prints it. */
#define CAPTURED \
	"=squeue json 0\n" SQ_JSON \
	"=sacct comp 0\n" SACCT_COMP \
	"=scontrol 0\n" SCONTROL

#define NAMES		"wk-t1-a,wk-t1-b,wk-t1-c"
#define SELF		"/usr/local/bin/onbox"
#define CFGP		"/etc/wk/t1.json"
#define MAXW		64

struct fx {
	char	 dir[PATH_MAX];		/* realpath of the temp dir */
	char	*cfgpath;		/* <dir>/wk.json */
	char	*old_path;
	struct wk_config *cfg;
};

/* The words sh made of a command line. */
struct words {
	char	*out;
	char	*w[MAXW];
	size_t	 n;
};

/* ---- helpers ---- */

/* s as a JSON string literal; caller frees. */
static char *
jstr(const char *s)
{
	cJSON *v = cJSON_CreateString(s);
	char *t = cJSON_PrintUnformatted(v);

	cJSON_Delete(v);
	return t;
}

/*
 * Load the run t1 (stages a, b, c; detach slurm) whose workdir is hostile,
 * stage b (its object on line 7) with "sbatch": sb when sb is not NULL.
 * Replaces f->cfg.
 */
static struct wk_config *
load(struct fx *f, const char *sb)
{
	struct diag d = DIAG_INIT;
	struct wk_config *cfg = NULL;
	char *wd = jstr("work dir/it's \"q\" $(touch PWNED) `touch PWNED`");
	char *text = xstrfmt(
	    "{\n"
	    "  \"run\": \"t1\",\n"
	    "  \"workdir\": %s,\n"
	    "  \"detach\": \"slurm\",\n"
	    "  \"chain\": [\n"
	    "    { \"stage\": \"a\", \"run\": \"true\" },\n"
	    "    { \"stage\": \"b\", \"run\": \"true\"%s%s },\n"
	    "    { \"stage\": \"c\", \"run\": \"true\" }\n"
	    "  ]\n"
	    "}\n", wd, sb != NULL ? ",\n      \"sbatch\": " : "", sb != NULL ? sb : "");

	unit_put(f->cfgpath, text);
	free(text);
	free(wd);
	if (config_load(f->cfgpath, &cfg, &d) != 0) {
		diag_print(&d, stderr);
		fail_msg("config did not load (sbatch %s)", sb != NULL ? sb : "none");
	}
	diag_free(&d);
	assert_int_equal(cfg->chain[1].line, 7);
	config_free(f->cfg);
	f->cfg = cfg;
	return cfg;
}

/*
 * Run cmd, whose first word must be `first`, with that word replaced by
 * printf: the words sh makes of the rest, split at \036.  No PWNED file may
 * appear.
 */
static void
sh_words(const struct fx *f, const char *cmd, const char *first, struct words *ws)
{
	size_t fl = strlen(first), len;
	char *script, *p, *e, *pw;

	if (strncmp(cmd, first, fl) != 0 || cmd[fl] != ' ')
		fail_msg("\"%s\" does not start with \"%s \"", cmd, first);
	script = xstrfmt("printf '%%s\\036'%s\n", cmd + fl);
	ws->out = unit_sh(script, f->dir, &len);
	free(script);
	ws->n = 0;
	for (p = ws->out; p < ws->out + len; p = e + 1) {
		if ((e = memchr(p, '\036', (size_t)(ws->out + len - p))) == NULL)
			fail_msg("printf's output does not end with a separator: %s", ws->out);
		*e = '\0';
		assert_true(ws->n < MAXW);
		ws->w[ws->n++] = p;
	}
	pw = fs_join(f->dir, "PWNED");
	assert_false(fs_exists(pw));
	free(pw);
}

/* ws's words are exactly want[0..n). */
static void
words_are(const struct words *ws, const char *const *want, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < ws->n; i++)
		if (strcmp(ws->w[i], want[i]) != 0)
			fail_msg("word %zu: \"%s\", want \"%s\"", i, ws->w[i], want[i]);
	if (ws->n != n)
		fail_msg("%zu words, want %zu", ws->n, n);
}

/* The sbatch line for stage idx, split into words by sh; asserts it was made. */
static void
sbatch_words(struct fx *f, size_t idx, const char *self, const char *cfgp, const char *after,
    struct words *ws)
{
	char *why = NULL, *cmd = slurm_sbatch_command(f->cfg, idx, self, cfgp, after, &why);

	if (cmd == NULL)
		fail_msg("no sbatch command: %s", why != NULL ? why : "(no why)");
	assert_null(why);
	sh_words(f, cmd, "sbatch", ws);
	free(cmd);
}

/* The first words every sbatch line has, for stage st; caller frees each. */
static size_t
fixed_words(const struct fx *f, const char *st, char **w)
{
	w[0] = xstrdup("--parsable");
	w[1] = xstrfmt("--job-name=wk-t1-%s", st);
	w[2] = xstrfmt("--chdir=%s", f->cfg->workdir);
	w[3] = xstrfmt("--output=%s/" LAYOUT_DIR "/logs/%s.slurm-%%j.out", f->cfg->workdir, st);
	w[4] = xstrdup("--open-mode=append");
	return 5;
}

/*
 * chain[1].sbatch = sb is refused: one diagnostic naming the config file,
 * stage b's line and chain[1].sbatch, containing needle; no sbatch line for
 * b (its why contains needle), stages a and c unaffected.
 */
static void
refused(struct fx *f, const char *sb, const char *needle)
{
	struct diag d = DIAG_INIT;
	char *why = NULL, *cmd, *where;

	load(f, sb);
	if (slurm_check(f->cfg, &d) != 1 || d.n != 1)
		fail_msg("sbatch %s: %zu diagnostics, want 1", sb, d.n);
	where = xstrfmt("%s:7: chain[1].sbatch (stage b): ", f->cfgpath);
	if (strncmp(d.msgs[0], where, strlen(where)) != 0 || strstr(d.msgs[0], needle) == NULL)
		fail_msg("sbatch %s: diagnostic \"%s\", want \"%s...%s...\"", sb, d.msgs[0], where, needle);
	free(where);
	diag_free(&d);
	cmd = slurm_sbatch_command(f->cfg, 1, SELF, CFGP, "12", &why);
	if (cmd != NULL)
		fail_msg("sbatch %s: made \"%s\"", sb, cmd);
	assert_non_null(why);
	if (strstr(why, needle) == NULL)
		fail_msg("sbatch %s: why \"%s\" lacks \"%s\"", sb, why, needle);
	free(why);
	why = NULL;
	cmd = slurm_sbatch_command(f->cfg, 0, SELF, CFGP, NULL, &why);
	assert_non_null(cmd);
	assert_null(why);
	free(cmd);
}

/* 1 when chain[1].sbatch = sb passes slurm_check() and gives an sbatch line. */
static int
accepted(struct fx *f, const char *sb)
{
	struct diag d = DIAG_INIT;
	char *why = NULL, *cmd;
	int n;

	load(f, sb);
	n = slurm_check(f->cfg, &d);
	diag_free(&d);
	cmd = slurm_sbatch_command(f->cfg, 1, SELF, CFGP, NULL, &why);
	free(why);
	free(cmd);
	return n == 0 && cmd != NULL;
}

/* Leave what the stand-in for cmd prints and exits with in mode. */
static void
fake(const struct fx *f, const char *cmd, const char *mode, const char *out, const char *err, int rc)
{
	char *p, *t;

	p = xstrfmt("%s/%s.%s.out", f->dir, cmd, mode);
	unit_put(p, out != NULL ? out : "");
	free(p);
	p = xstrfmt("%s/%s.%s.err", f->dir, cmd, mode);
	unit_put(p, err != NULL ? err : "");
	free(p);
	p = xstrfmt("%s/%s.%s.rc", f->dir, cmd, mode);
	t = xstrfmt("%d\n", rc);
	unit_put(p, t);
	free(t);
	free(p);
}

/* What the stand-in for cmd was called with, one line per call; "" none.  Caller frees. */
static char *
fake_args(const struct fx *f, const char *cmd)
{
	char *p = xstrfmt("%s/%s.args", f->dir, cmd), *text = NULL;
	size_t len;

	if (fs_read_file(p, 1 << 20, &text, &len) != 0)
		text = xstrdup("");
	free(p);
	return text;
}

/* Run the query fragment for f->cfg with sh, parse what it printed.  *out: its output. */
static int
run_query(struct fx *f, struct slurm_view *sv, char **why, char **out)
{
	char *script = slurm_query_script(f->cfg);
	size_t len;
	int rc;

	*out = unit_sh(script, f->dir, &len);
	free(script);
	rc = slurm_parse(f->cfg, *out, len, sv, why);
	return rc;
}

/* Parse text for f->cfg; asserts it parsed. */
static void
parse_ok(const struct fx *f, const char *text, struct slurm_view *sv)
{
	char *why = NULL;

	if (slurm_parse(f->cfg, text, strlen(text), sv, &why) != 0)
		fail_msg("parse failed: %s\n%s", why, text);
	assert_null(why);
}

static void
job_is(const struct slurm_job *j, const char *id, const char *stage, const char *state,
    const char *reason, enum slurm_cls cls, int exit_code, long restarts)
{
	if (j == NULL)
		fail_msg("no job, want %s", id);
	assert_string_equal(j->id, id);
	assert_string_equal(j->stage, stage);
	assert_string_equal(j->state, state);
	if (reason != NULL)
		assert_string_equal(j->reason, reason);
	if (j->cls != cls)
		fail_msg("job %s: class %s, want %s", id, slurm_cls_name(j->cls), slurm_cls_name(cls));
	assert_int_equal(j->exit_code, exit_code);
	assert_int_equal(j->restarts, restarts);
}

/* The captured run as slurm_parse() must read it (whatever sources answered). */
static void
captured_jobs(const struct slurm_view *sv, int in_queue)
{
	assert_int_equal(sv->njobs, 3);
	job_is(&sv->jobs[0], "549822", "c", "PENDING", "Dependency", SLURM_WAITING, -1, 0);
	job_is(&sv->jobs[1], "549821", "b", "PENDING", "DependencyNeverSatisfied", SLURM_STRANDED, -1, 0);
	job_is(&sv->jobs[2], "549820", "a", "FAILED", "NonZeroExitCode", SLURM_FAILED, 64, 0);
	assert_int_equal(sv->jobs[2].signo, 0);
	assert_int_equal(sv->jobs[0].in_queue, in_queue);
	assert_int_equal(sv->jobs[1].in_queue, in_queue);
	assert_int_equal(sv->jobs[2].in_queue, in_queue);
	assert_ptr_equal(slurm_stage_job(sv, "a"), &sv->jobs[2]);
	assert_ptr_equal(slurm_stage_job(sv, "b"), &sv->jobs[1]);
	assert_ptr_equal(slurm_stage_job(sv, "c"), &sv->jobs[0]);
	assert_null(slurm_stage_job(sv, "zz"));
	assert_ptr_equal(slurm_job_by_id(sv, "549821"), &sv->jobs[1]);
	assert_null(slurm_job_by_id(sv, "5498"));
}

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	char tmpl[] = "/tmp/wk-slurm-XXXXXX", *real, *p, *q, *t;
	const char *path_env = getenv("PATH");
	static const struct {
		const char	*cmd;
		const char	*mode;	/* with no --json / -c */
	} fakes[] = { { "squeue", "text" }, { "sacct", "db" }, { "scontrol", "show" } };
	size_t i;

	if (mkdtemp(tmpl) == NULL || (real = realpath(tmpl, NULL)) == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s", real);
	free(real);
	f->cfgpath = fs_join(f->dir, "wk.json");
	/* stand-ins for Slurm's commands, first on PATH */
	for (i = 0; i < sizeof(fakes) / sizeof(fakes[0]); i++) {
		q = sshq_quote(f->dir);
		t = xstrfmt("#!/bin/sh\n"
		    "# a stand-in for %s: logs its words, prints what the test left for its mode\n"
		    "D=%s\n"
		    "printf '%%s\\n' \"$*\" >>\"$D/%s.args\"\n"
		    "m=%s\n"
		    "for a in \"$@\"; do case $a in --json) m=json;; -c) m=comp;; esac; done\n"
		    "[ -f \"$D/%s.$m.out\" ] && cat \"$D/%s.$m.out\"\n"
		    "[ -f \"$D/%s.$m.err\" ] && cat \"$D/%s.$m.err\" >&2\n"
		    "exit \"$(cat \"$D/%s.$m.rc\" 2>/dev/null || echo 0)\"\n",
		    fakes[i].cmd, q, fakes[i].cmd, fakes[i].mode, fakes[i].cmd, fakes[i].cmd,
		    fakes[i].cmd, fakes[i].cmd, fakes[i].cmd);
		p = xstrfmt("%s/bin/%s", f->dir, fakes[i].cmd);
		unit_put(p, t);
		if (chmod(p, 0755) != 0)
			return -1;
		free(p);
		free(t);
		free(q);
	}
	f->old_path = xstrdup(path_env != NULL ? path_env : "/usr/bin:/bin");
	p = xstrfmt("%s/bin:%s", f->dir, f->old_path);
	setenv("PATH", p, 1);
	free(p);
	load(f, NULL);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int r;

	setenv("PATH", f->old_path, 1);
	r = unit_rmrf(f->dir);
	config_free(f->cfg);
	free(f->cfgpath);
	free(f->old_path);
	free(f);
	return r == 0 ? 0 : -1;
}

/* ---- states and reasons ---- */

static void
test_classify_table(void **state)
{
	static const struct {
		const char	*state;
		enum slurm_cls	 cls;
	} want[] = {
		{ "PENDING", SLURM_WAITING }, { "REQUEUED", SLURM_WAITING },
		{ "REQUEUE_HOLD", SLURM_WAITING }, { "REQUEUE_FED", SLURM_WAITING },
		{ "RESV_DEL_HOLD", SLURM_WAITING }, { "SUSPENDED", SLURM_WAITING },
		{ "STOPPED", SLURM_WAITING }, { "CONFIGURING", SLURM_RUNNING },
		{ "RUNNING", SLURM_RUNNING }, { "COMPLETING", SLURM_RUNNING },
		{ "STAGE_OUT", SLURM_RUNNING }, { "SIGNALING", SLURM_RUNNING },
		{ "RESIZING", SLURM_RUNNING }, { "COMPLETED", SLURM_COMPLETED },
		{ "FAILED", SLURM_FAILED }, { "OUT_OF_MEMORY", SLURM_FAILED },
		{ "TIMEOUT", SLURM_FAILED }, { "DEADLINE", SLURM_FAILED },
		{ "CANCELLED", SLURM_CANCELLED }, { "NODE_FAIL", SLURM_INFRA },
		{ "PREEMPTED", SLURM_INFRA }, { "BOOT_FAIL", SLURM_INFRA },
		/* squeue's and scontrol's short forms */
		{ "PD", SLURM_WAITING }, { "R", SLURM_RUNNING }, { "CG", SLURM_RUNNING },
		{ "CF", SLURM_RUNNING }, { "CD", SLURM_COMPLETED }, { "F", SLURM_FAILED },
		{ "CA", SLURM_CANCELLED }, { "TO", SLURM_FAILED }, { "OOM", SLURM_FAILED },
		{ "NF", SLURM_INFRA }, { "PR", SLURM_INFRA },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		enum slurm_cls c = slurm_classify(want[i].state, NULL);

		if (c != want[i].cls)
			fail_msg("%s: %s, want %s", want[i].state, slurm_cls_name(c),
			    slurm_cls_name(want[i].cls));
		/* a reason that is not DependencyNeverSatisfied changes nothing */
		assert_int_equal(slurm_classify(want[i].state, "Resources"), want[i].cls);
		/* DependencyNeverSatisfied strands what waits, and only that */
		assert_int_equal(slurm_classify(want[i].state, "DependencyNeverSatisfied"),
		    want[i].cls == SLURM_WAITING ? SLURM_STRANDED : want[i].cls);
	}
}

static void
test_classify_special(void **state)
{
	static const char *const unknown[] = {
		"", "UNKNOWN", "SPECIAL_EXIT", "pending", "Running", "PENDINGX", "PEND", "RUNNING_",
		" RUNNING", "COMPLETED2", "X",
	};
	size_t i;

	(void)state;
	assert_int_equal(slurm_classify("CANCELLED by 0", NULL), SLURM_CANCELLED);
	assert_int_equal(slurm_classify("CANCELLED by 1000", "None"), SLURM_CANCELLED);
	assert_int_equal(slurm_classify("RUNNING+", NULL), SLURM_RUNNING);
	assert_int_equal(slurm_classify("PENDING", "DependencyNeverSatisfied"), SLURM_STRANDED);
	assert_int_equal(slurm_classify("PD", "DependencyNeverSatisfied"), SLURM_STRANDED);
	assert_int_equal(slurm_classify("PENDING", "Dependency"), SLURM_WAITING);
	assert_int_equal(slurm_classify("PENDING", ""), SLURM_WAITING);
	assert_int_equal(slurm_classify("PENDING", "dependencyneversatisfied"), SLURM_WAITING);
	assert_int_equal(slurm_classify("RUNNING", "DependencyNeverSatisfied"), SLURM_RUNNING);
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		if (slurm_classify(unknown[i], NULL) != SLURM_UNKNOWN)
			fail_msg("\"%s\" is not unknown", unknown[i]);
}

static void
test_cls_live_names(void **state)
{
	static const char *const names[SLURM_NCLS] = {
		"unknown", "waiting", "stranded", "running", "completed", "failed", "cancelled", "infra",
	};
	int c;

	(void)state;
	for (c = 0; c < SLURM_NCLS; c++) {
		assert_string_equal(slurm_cls_name((enum slurm_cls)c), names[c]);
		assert_int_equal(slurm_cls_live((enum slurm_cls)c), c == SLURM_WAITING || c == SLURM_RUNNING);
	}
	assert_string_equal(slurm_cls_name(SLURM_NCLS), "unknown");
	assert_false(slurm_cls_live(SLURM_STRANDED));
	assert_false(slurm_cls_live(SLURM_UNKNOWN));
}

static void
test_reason_text(void **state)
{
	(void)state;
	assert_string_equal(slurm_reason_text("Resources"), "waiting for resources");
	assert_string_equal(slurm_reason_text("Dependency"), "waiting for the stage before it");
	assert_non_null(strstr(slurm_reason_text("DependencyNeverSatisfied"), "stranded"));
	assert_non_null(strstr(slurm_reason_text("Priority"), "higher-priority"));
	assert_non_null(strstr(slurm_reason_text("JobHeldUser"), "scontrol release"));
	assert_non_null(strstr(slurm_reason_text("BeginTime"), "requeued"));
	assert_non_null(strstr(slurm_reason_text("PartitionTimeLimit"), "never starts"));
	assert_string_equal(slurm_reason_text("None"), "pending");
	/* anything else is still waiting; never NULL */
	assert_string_equal(slurm_reason_text("QOSGrpCpuLimit"), "pending");
	assert_string_equal(slurm_reason_text("resources"), "pending");
	assert_string_equal(slurm_reason_text(""), "pending");
	assert_string_equal(slurm_reason_text(NULL), "pending");
}

/* ---- ids and sbatch's output ---- */

static void
test_id_ok(void **state)
{
	static const char *const good[] = {
		"1", "549820", "12_3", "12+0", "00", "12345678901234567890", "1_12345678901234567890",
	};
	static const char *const bad[] = {
		"", "abc", "12a", "a12", "123456789012345678901", "12;c", "-1", "+1", "_1", "12_", "12+",
		"12_3_4", "12_3+0", "12 3", " 12", "12 ", "12\n", "1.5", "12;rm -rf /", "$(id)", "12_-1",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!slurm_id_ok(good[i]))
			fail_msg("\"%s\" refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (slurm_id_ok(bad[i]))
			fail_msg("\"%s\" taken for a job id", bad[i]);
}

static void
test_parse_sbatch(void **state)
{
	static const struct {
		const char	*out;
		const char	*id;	/* NULL: none */
	} cases[] = {
		{ "123\n", "123" }, { "123", "123" }, { "123;cluster\n", "123" },
		{ "123;cluster", "123" }, { "  549820  \r\n", "549820" }, { "12_3\n", "12_3" },
		{ "", NULL }, { "\n", NULL }, { "Submitted batch job 5\n", NULL }, { "abc\n", NULL },
		{ "12 13\n", NULL }, { ";cluster\n", NULL }, { "sbatch: error: Batch job submission failed\n", NULL },
		{ "-1\n", NULL }, { "123456789012345678901\n", NULL },
	};
	size_t i;
	char *id;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		id = slurm_parse_sbatch(cases[i].out);
		if (cases[i].id == NULL && id != NULL)
			fail_msg("\"%s\" gave id \"%s\"", cases[i].out, id);
		if (cases[i].id != NULL && (id == NULL || strcmp(id, cases[i].id) != 0))
			fail_msg("\"%s\" gave %s, want %s", cases[i].out, id != NULL ? id : "NULL",
			    cases[i].id);
		free(id);
	}
}

static void
test_scancel(void **state)
{
	struct fx *f = *state;
	const char *ids[] = { "549820", "12_3", "7+0" };
	struct words ws;
	char *cmd = slurm_scancel_command(ids, 3);

	assert_string_equal(cmd, "scancel '549820' '12_3' '7+0'");
	sh_words(f, cmd, "scancel", &ws);
	words_are(&ws, ids, 3);
	free(ws.out);
	free(cmd);
	cmd = slurm_scancel_command(ids, 0);
	assert_string_equal(cmd, "scancel");
	free(cmd);
}

/* ---- chain[].sbatch and the sbatch line ---- */

static void
test_sbatch_plain(void **state)
{
	struct fx *f = *state;
	struct diag d = DIAG_INIT;
	struct words ws;
	char *w[MAXW];
	size_t n, i;

	assert_int_equal(slurm_check(f->cfg, &d), 0);
	assert_int_equal(d.n, 0);
	sbatch_words(f, 0, SELF, CFGP, NULL, &ws);
	n = fixed_words(f, "a", w);
	w[n++] = xstrdup("--wrap");
	w[n++] = xstrdup("exec '" SELF "' -c '" CFGP "' run --stage 'a'");
	words_are(&ws, (const char *const *)w, n);
	for (i = 0; i < n; i++)
		free(w[i]);
	free(ws.out);
	/* the workdir is hostile: --chdir and --output each stayed one word */
	assert_non_null(strstr(f->cfg->workdir, "$(touch PWNED)"));
}

static void
test_sbatch_dependency(void **state)
{
	struct fx *f = *state;
	struct words ws;
	char *w[MAXW];
	size_t n, i;

	/* after given: the dependency right after the fixed words */
	sbatch_words(f, 1, SELF, CFGP, "549820", &ws);
	n = fixed_words(f, "b", w);
	w[n++] = xstrdup("--dependency=afterok:549820");
	w[n++] = xstrdup("--wrap");
	w[n++] = xstrdup("exec '" SELF "' -c '" CFGP "' run --stage 'b'");
	words_are(&ws, (const char *const *)w, n);
	free(ws.out);
	/* no after: no dependency word at all */
	sbatch_words(f, 1, SELF, CFGP, NULL, &ws);
	for (i = 0; i < ws.n; i++) {
		assert_null(strstr(ws.w[i], "dependency"));
		assert_null(strstr(ws.w[i], "afterok"));
	}
	assert_int_equal(ws.n, n - 1);
	free(ws.out);
	for (i = 0; i < n; i++)
		free(w[i]);
}

static void
test_sbatch_string_form(void **state)
{
	struct fx *f = *state;
	const char *payload = "--comment=$(touch${IFS}PWNED);`touch${IFS}PWNED`'\"x\"'|touch${IFS}PWNED&";
	const char *opts[] = {
		"--partition=gpu", "--gres=gpu:8", "--time=12:00:00", payload, "-pdebug", "--requeue",
		"-N1",
	};
	char *raw = xstrfmt("  --partition=gpu  --gres=gpu:8\t--time=12:00:00\n%s -pdebug --requeue -N1 ",
	    payload), *sb = jstr(raw);
	struct words ws;
	char *w[MAXW];
	size_t n, i;

	assert_true(accepted(f, sb));
	sbatch_words(f, 1, SELF, CFGP, "7", &ws);
	n = fixed_words(f, "b", w);
	w[n++] = xstrdup("--dependency=afterok:7");
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		w[n++] = xstrdup(opts[i]);
	w[n++] = xstrdup("--wrap");
	w[n++] = xstrdup("exec '" SELF "' -c '" CFGP "' run --stage 'b'");
	words_are(&ws, (const char *const *)w, n);
	for (i = 0; i < n; i++)
		free(w[i]);
	free(ws.out);
	free(sb);
	free(raw);
	/* blanks only, or nothing: no options */
	assert_true(accepted(f, "\"  \""));
	assert_true(accepted(f, "\"\""));
	sbatch_words(f, 1, SELF, CFGP, NULL, &ws);
	assert_int_equal(ws.n, 7);
	free(ws.out);
}

static void
test_sbatch_object_form(void **state)
{
	struct fx *f = *state;
	const char *payload = "$(touch PWNED); touch PWNED; 'x' \"y\" `touch PWNED` | touch PWNED &";
	char *pj = jstr(payload), *comment = xstrfmt("--comment=%s", payload);
	char *sb = xstrfmt("{ \"partition\": \"gpu\", \"gpus\": 8, \"time\": \"12:00:00\", "
	    "\"requeue\": true, \"exclusive\": false, \"nice\": -5, \"comment\": %s, "
	    "\"mem-per-gpu\": \"80G\", \"gres\": \"gpu:a100:8\", \"x11\": true, \"begin\": 0 }", pj);
	const char *opts[] = {
		"--partition=gpu", "--gpus=8", "--time=12:00:00", "--requeue", "--nice=-5", comment,
		"--mem-per-gpu=80G", "--gres=gpu:a100:8", "--x11", "--begin=0",
	};
	struct words ws;
	char *w[MAXW];
	size_t n, i;

	assert_true(accepted(f, sb));
	sbatch_words(f, 1, SELF, CFGP, NULL, &ws);
	n = fixed_words(f, "b", w);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		w[n++] = xstrdup(opts[i]);
	w[n++] = xstrdup("--wrap");
	w[n++] = xstrdup("exec '" SELF "' -c '" CFGP "' run --stage 'b'");
	words_are(&ws, (const char *const *)w, n);
	for (i = 0; i < n; i++)
		free(w[i]);
	free(ws.out);
	free(sb);
	free(comment);
	free(pj);
	/* an empty object: no options */
	assert_true(accepted(f, "{}"));
	assert_true(accepted(f, "{ \"exclusive\": false }"));
	sbatch_words(f, 1, SELF, CFGP, NULL, &ws);
	assert_int_equal(ws.n, 7);
	free(ws.out);
}

static void
test_sbatch_bad(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char	*sb;
		const char	*needle;
	} cases[] = {
		/* object values */
		{ "{ \"gpus\": 1.5 }", "a value is a string, a whole number, true or false" },
		{ "{ \"gpus\": { \"n\": 8 } }", "a value is a string" },
		{ "{ \"gpus\": [ 8 ] }", "a value is a string" },
		{ "{ \"gpus\": null }", "a value is a string" },
		{ "{ \"gpus\": 1e20 }", "a value is a string" },
		{ "{ \"partition\": \"gpu\", \"gpus\": 0.5 }", "\"gpus\"" },
		/* object option names */
		{ "{ \"Partition\": \"gpu\" }", "not an sbatch option name" },
		{ "{ \"x;y\": \"1\" }", "not an sbatch option name" },
		{ "{ \"\": \"1\" }", "not an sbatch option name" },
		{ "{ \"-p\": \"gpu\" }", "not an sbatch option name" },
		{ "{ \"--partition\": \"gpu\" }", "not an sbatch option name" },
		{ "{ \"1gpu\": \"x\" }", "not an sbatch option name" },
		{ "{ \"part ition\": \"x\" }", "not an sbatch option name" },
		{ "{ \"partition=gpu\": true }", "not an sbatch option name" },
		/* string form: every word is an option (no script, no separate values) */
		{ "\"-p gpu\"", "\"gpu\" is not an option" },
		{ "\"gpu\"", "\"gpu\" is not an option" },
		{ "\"--partition=gpu job.sh\"", "\"job.sh\" is not an option" },
		{ "\"--partition=gpu ;rm\"", "\";rm\" is not an option" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		refused(f, cases[i].sb, cases[i].needle);
}

static void
test_sbatch_reserved(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char	*word;
		const char	*lng;
	} str[] = {
		{ "--job-name=x", "job-name" }, { "--job-name", "job-name" }, { "-J", "job-name" },
		{ "-Jx", "job-name" }, { "--output=/tmp/o", "output" }, { "--output", "output" },
		{ "-o", "output" }, { "-o/tmp/o", "output" }, { "--error=/tmp/e", "error" },
		{ "-e", "error" }, { "-e/tmp/e", "error" }, { "--dependency=afterany:1", "dependency" },
		{ "-d", "dependency" }, { "-dafterok:1", "dependency" }, { "--chdir=/", "chdir" },
		{ "-D", "chdir" }, { "-D/tmp", "chdir" }, { "--wrap=true", "wrap" }, { "--wrap", "wrap" },
		{ "--parsable", "parsable" }, { "--open-mode=truncate", "open-mode" },
		{ "--open-mode", "open-mode" },
	}, obj[] = {
		{ "\"job-name\": \"x\"", "job-name" }, { "\"output\": \"o\"", "output" },
		{ "\"error\": \"e\"", "error" }, { "\"dependency\": \"afterok:1\"", "dependency" },
		{ "\"chdir\": \"/\"", "chdir" }, { "\"wrap\": \"true\"", "wrap" },
		{ "\"parsable\": true", "parsable" }, { "\"open-mode\": \"append\"", "open-mode" },
		{ "\"job-name\": 5", "job-name" },
	};
	size_t i;

	for (i = 0; i < sizeof(str) / sizeof(str[0]); i++) {
		/* among good options, so that every word is looked at */
		char *raw = xstrfmt("--partition=gpu %s --time=1:00", str[i].word);
		char *sb = jstr(raw), *needle = xstrfmt("\"%s\": watchkeeper sets --%s itself",
		    str[i].word, str[i].lng);

		refused(f, sb, needle);
		free(needle);
		free(sb);
		free(raw);
	}
	for (i = 0; i < sizeof(obj) / sizeof(obj[0]); i++) {
		char *sb = xstrfmt("{ \"partition\": \"gpu\", %s }", obj[i].word);
		char *needle = xstrfmt("watchkeeper sets --%s itself", obj[i].lng);

		refused(f, sb, needle);
		free(needle);
		free(sb);
	}
	/* near misses are free to use: other options, and ours only as a value */
	assert_true(accepted(f, "\"--exclusive --export=ALL -pgpu -N1 -c8 --comment=--job-name=x "
	    "--error-free --outputs --jobs --do -E\""));
	assert_true(accepted(f, "{ \"comment\": \"--job-name=x -J y\", \"exclusive\": true, "
	    "\"job-names\": \"x\", \"dependencyx\": 1 }"));
}

/*
 * sbatch parses its options with glibc's getopt_long, which takes any
 * unambiguous prefix of a long option ("--job-nam=x" is --job-name) and
 * short options clustered behind flags that take no argument ("-vJx" is -v
 * -J x, "-Hdafterok:1" is --hold --dependency=afterok:1).  These set
 * watchkeeper's own options all the same and must be refused.
 */
static void
test_sbatch_reserved_abbrev(void **state)
{
	struct fx *f = *state;
	static const char *const sbs[] = {
		"\"--job-nam=x\"", "\"--outpu=/tmp/o\"", "\"--dependenc=afterok:1\"", "\"--wra=true\"",
		"\"--chdi=/\"", "\"--parsabl\"", "\"--open-mod=truncate\"", "\"--erro=/tmp/e\"",
		"\"-vJx\"", "\"-Hdafterok:1\"", "\"-vo/tmp/o\"",
		"{ \"job-nam\": \"x\" }", "{ \"dependenc\": \"afterok:1\" }", "{ \"outpu\": \"/tmp/o\" }",
	};
	struct buf taken = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(sbs) / sizeof(sbs[0]); i++)
		if (accepted(f, sbs[i]))
			buf_printf(&taken, " %s", sbs[i]);
	if (taken.len > 0) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", buf_str(&taken));
		buf_free(&taken);
		fail_msg("accepted, though sbatch reads them as watchkeeper's own options:%s", msg);
	}
	buf_free(&taken);
}

static void
test_sbatch_wrap_hostile(void **state)
{
	struct fx *f = *state;
	char *self = xstrfmt("%s/bin dir/it's \"on\" $(touch PWNED)/onbox", f->dir);
	char *cfgp = xstrfmt("%s/cfg `touch PWNED` 'x'\n; touch PWNED.json", f->dir);
	const char *inner[] = { self, "-c", cfgp, "run", "--stage", "c" };
	struct words ws, wr;

	sbatch_words(f, 2, self, cfgp, "549821", &ws);
	assert_true(ws.n >= 2);
	assert_string_equal(ws.w[ws.n - 2], "--wrap");
	/* the job's script is one exec of onbox's stage wrapper, every word intact */
	sh_words(f, ws.w[ws.n - 1], "exec", &wr);
	words_are(&wr, inner, sizeof(inner) / sizeof(inner[0]));
	free(wr.out);
	free(ws.out);
	free(cfgp);
	free(self);
}

static void
test_check_counts(void **state)
{
	struct fx *f = *state;
	struct diag d = DIAG_INIT;
	struct wk_config *cfg = NULL;
	char *cfgp = fs_join(f->dir, "two.json"), *l7, *l9;

	/* two bad stages: one diagnostic each, each on its own stage's line */
	unit_put(cfgp,
	    "{\n"
	    "  \"run\": \"t1\",\n"
	    "  \"workdir\": \"w\",\n"
	    "  \"detach\": \"slurm\",\n"
	    "  \"chain\": [\n"
	    "    { \"stage\": \"a\", \"run\": \"true\", \"sbatch\": \"--partition=gpu\" },\n"
	    "    { \"stage\": \"b\", \"run\": \"true\",\n"
	    "      \"sbatch\": \"-J b\" },\n"
	    "    { \"stage\": \"c\", \"run\": \"true\",\n"
	    "      \"sbatch\": { \"gpus\": 2.5 } }\n"
	    "  ]\n"
	    "}\n");
	if (config_load(cfgp, &cfg, &d) != 0) {
		diag_print(&d, stderr);
		fail_msg("two.json did not load");
	}
	diag_free(&d);
	assert_int_equal(slurm_check(cfg, &d), 2);
	assert_int_equal(d.n, 2);
	l7 = xstrfmt("%s:7: chain[1].sbatch (stage b): ", cfgp);
	l9 = xstrfmt("%s:9: chain[2].sbatch (stage c): ", cfgp);
	if (strncmp(d.msgs[0], l7, strlen(l7)) != 0 || strncmp(d.msgs[1], l9, strlen(l9)) != 0)
		fail_msg("diagnostics:\n%s\n%s", d.msgs[0], d.msgs[1]);
	assert_non_null(strstr(d.msgs[0], "--job-name"));
	assert_non_null(strstr(d.msgs[1], "\"gpus\""));
	free(l9);
	free(l7);
	diag_free(&d);
	config_free(cfg);
	free(cfgp);
}

/* ---- the query fragment ---- */

static void
test_query_script_shape(void **state)
{
	struct fx *f = *state;
	char *s = slurm_query_script(f->cfg);
	const char *p;
	int sq = 0, dq = 0, names = 0;

	assert_non_null(strstr(s, "SN='" NAMES "'"));
	assert_non_null(strstr(s, "-e ' JobName=wk-t1-a '"));
	assert_non_null(strstr(s, "-e ' JobName=wk-t1-b '"));
	assert_non_null(strstr(s, "-e ' JobName=wk-t1-c '"));
	assert_non_null(strstr(s, "-e '|wk-t1-a|' -e '|wk-t1-b|' -e '|wk-t1-c|'"));
	assert_non_null(strstr(s, "squeue -a --json"));
	assert_non_null(strstr(s, "sacct -c"));
	assert_non_null(strstr(s, "scontrol -o show job"));
	assert_non_null(strstr(s, "timeout " SLURM_CMD_TIMEOUT));
	assert_non_null(strstr(s, "tail -n " SLURM_COMP_LINES));
	/* every job name (and the run's name) stands inside single quotes */
	for (p = s; *p != '\0'; p++) {
		if (!sq && *p == '\\' && p[1] != '\0') {
			p++;
			continue;
		}
		if (!dq && *p == '\'')
			sq = !sq;
		else if (!sq && *p == '"')
			dq = !dq;
		else if (strncmp(p, "t1", 2) == 0) {
			if (!sq)
				fail_msg("the run's name outside single quotes at: %.40s", p);
			names++;
		}
	}
	assert_false(sq);
	assert_false(dq);
	assert_int_equal(names, 9);	/* SN's three, and three for each grep (sacct -c, scontrol) */
	free(s);
}

/* The captured case: squeue --json works, sacct's database does not, sacct -c does. */
static void
test_query_captured(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;
	char *why = NULL, *out, *a;

	fake(f, "squeue", "json", SQ_JSON, NULL, 0);
	fake(f, "squeue", "text", NULL, "text mode must not be asked\n", 1);
	fake(f, "sacct", "db", SACCT_DB, NULL, 1);
	/* the job completion file holds every job of the cluster */
	fake(f, "sacct", "comp", "549700|wk-t10-a|COMPLETED|0:0\n" SACCT_COMP "549701|wk-t1-ab|FAILED|1:0\n",
	    NULL, 0);
	fake(f, "scontrol", "show", SCONTROL SC_T10, NULL, 0);
	if (run_query(f, &sv, &why, &out) != 0)
		fail_msg("parse: %s\n%s", why, out);
	assert_null(why);
	assert_non_null(strstr(out, "=squeue json 0\n"));
	assert_non_null(strstr(out, "=sacct comp 0\n"));
	assert_non_null(strstr(out, "=scontrol 0\n"));
	/* grep kept the cluster's other jobs out */
	assert_null(strstr(out, "wk-t10-a"));
	assert_null(strstr(out, "wk-t1-ab"));
	assert_int_equal(sv.queue_known, 1);
	assert_int_equal(sv.final_known, 1);
	assert_null(sv.why);
	captured_jobs(&sv, 1);
	slurm_view_free(&sv);
	assert_null(sv.jobs);
	assert_int_equal(sv.njobs, 0);
	free(out);
	/* what the commands were asked: the run's names, all three */
	a = fake_args(f, "squeue");
	assert_string_equal(a, "-a --json --name=" NAMES "\n");
	free(a);
	a = fake_args(f, "sacct");
	assert_non_null(strstr(a, "--name=" NAMES " -o jobid,jobname,state,exitcode\n"));
	assert_non_null(strstr(a, "\n-c -n -P -o jobid,jobname,state,exitcode\n"));
	free(a);
	a = fake_args(f, "scontrol");
	assert_string_equal(a, "-o show job\n");
	free(a);
}

/* An old Slurm: squeue has no --json, its text form answers; sacct's database answers. */
static void
test_query_old_squeue(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;
	char *why = NULL, *out, *a;

	fake(f, "squeue", "json", NULL, "squeue: unrecognized option '--json'\n"
	    "Try \"squeue --help\" for more information\n", 1);
	fake(f, "squeue", "text", "549822|wk-t1-c|PENDING|Dependency\n"
	    "549821|wk-t1-b|PENDING|DependencyNeverSatisfied\n"
	    "549820|wk-t1-a|FAILED|NonZeroExitCode\n", NULL, 0);
	fake(f, "sacct", "db", "549820|wk-t1-a|FAILED|64:0\n", NULL, 0);
	fake(f, "sacct", "comp", NULL, "comp must not be asked\n", 1);
	fake(f, "scontrol", "show", SCONTROL, NULL, 0);
	if (run_query(f, &sv, &why, &out) != 0)
		fail_msg("parse: %s\n%s", why, out);
	assert_non_null(strstr(out, "=squeue text 0\n"));
	assert_non_null(strstr(out, "=sacct db 0\n"));
	assert_null(strstr(out, "unrecognized"));	/* --json's complaint is not data */
	assert_int_equal(sv.queue_known, 1);
	assert_int_equal(sv.final_known, 1);
	assert_null(sv.why);
	captured_jobs(&sv, 1);
	slurm_view_free(&sv);
	free(out);
	a = fake_args(f, "squeue");
	assert_string_equal(a, "-a --json --name=" NAMES "\n-a -h --name=" NAMES " -o %i|%j|%T|%r\n");
	free(a);
	/* sacct was asked once: its database answered */
	a = fake_args(f, "sacct");
	assert_non_null(strstr(a, "--name=" NAMES " "));
	assert_non_null(strchr(a, '\n'));
	assert_int_equal(strchr(a, '\n')[1], '\0');
	free(a);
}

/* squeue does not answer at all: nothing can be said about what is live. */
static void
test_query_squeue_down(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;
	char *why = NULL, *out;

	fake(f, "squeue", "json", NULL, "slurm_load_jobs error: Unable to contact slurm controller\n", 1);
	fake(f, "squeue", "text", NULL, "squeue: error: Invalid user for SlurmUser slurm, ignored\n"
	    "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n", 1);
	fake(f, "sacct", "db", SACCT_DB, NULL, 1);
	fake(f, "sacct", "comp", SACCT_COMP, NULL, 0);
	fake(f, "scontrol", "show", SCONTROL, NULL, 0);
	if (run_query(f, &sv, &why, &out) != 0)
		fail_msg("parse: %s\n%s", why, out);
	assert_non_null(strstr(out, "=squeue text 1\n"));
	assert_int_equal(sv.queue_known, 0);
	assert_int_equal(sv.final_known, 1);
	assert_non_null(sv.why);
	assert_string_equal(sv.why,
	    "squeue: exit 1: slurm_load_jobs error: Unable to contact slurm controller (connect failure)");
	/* what sacct and scontrol said still counts */
	captured_jobs(&sv, 0);
	slurm_view_free(&sv);
	free(out);
}

/* Nothing answers: no jobs, and the why names each source with its last line. */
static void
test_query_all_fail(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;
	char *why = NULL, *out;

	fake(f, "squeue", "json", NULL, "squeue: error: no json\n", 1);
	fake(f, "squeue", "text", NULL, "slurm_load_jobs error: Unable to contact slurm controller\n", 1);
	fake(f, "sacct", "db", SACCT_DB, NULL, 1);
	fake(f, "sacct", "comp", NULL, "sacct: error: Job completion logging is disabled\n", 2);
	fake(f, "scontrol", "show", "one\ntwo\n", "three\nfour\nslurm_load_jobs error: Socket timed out\n", 1);
	if (run_query(f, &sv, &why, &out) != 0)
		fail_msg("parse: %s\n%s", why, out);
	assert_int_equal(sv.njobs, 0);
	assert_null(sv.jobs);
	assert_int_equal(sv.queue_known, 0);
	assert_int_equal(sv.final_known, 0);
	assert_non_null(sv.why);
	assert_string_equal(sv.why,
	    "squeue: exit 1: slurm_load_jobs error: Unable to contact slurm controller; "
	    "sacct: exit 2: sacct: error: Job completion logging is disabled; "
	    "scontrol: exit 1: slurm_load_jobs error: Socket timed out");
	assert_null(slurm_stage_job(&sv, "a"));
	slurm_view_free(&sv);
	free(out);
}

/* ---- slurm_parse ---- */

static void
test_parse_captured(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;

	parse_ok(f, CAPTURED, &sv);
	assert_int_equal(sv.queue_known, 1);
	assert_int_equal(sv.final_known, 1);
	assert_null(sv.why);
	captured_jobs(&sv, 1);
	slurm_view_free(&sv);
	/* without the last newline, and with the controller's other jobs */
	parse_ok(f, "=squeue json 0\n" SQ_JSON "=sacct comp 0\n" SACCT_COMP "=scontrol 0\n" SC_T10 SCONTROL
	    "JobId=549830 JobName=wk-t1-zz JobState=RUNNING Reason=None", &sv);
	captured_jobs(&sv, 1);
	slurm_view_free(&sv);
}

/* Each source alone gives a's exit 64: squeue's 16384, sacct's 64:0, scontrol's 64:0. */
static void
test_parse_each_source(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;

	parse_ok(f, "=squeue json 0\n" SQ_JSON "=sacct comp 1\nno\n=scontrol 1\nno\n", &sv);
	assert_int_equal(sv.queue_known, 1);
	assert_int_equal(sv.final_known, 0);
	assert_string_equal(sv.why, "sacct: exit 1: no; scontrol: exit 1: no");
	captured_jobs(&sv, 1);
	slurm_view_free(&sv);

	parse_ok(f, "=squeue text 1\nno\n=sacct comp 0\n" SACCT_COMP "=scontrol 1\nno\n", &sv);
	assert_int_equal(sv.queue_known, 0);
	assert_int_equal(sv.final_known, 1);
	assert_int_equal(sv.njobs, 1);
	job_is(&sv.jobs[0], "549820", "a", "FAILED", "", SLURM_FAILED, 64, -1);
	slurm_view_free(&sv);

	parse_ok(f, "=squeue text 1\nno\n=sacct db 1\nno\n=scontrol 0\n" SCONTROL, &sv);
	assert_int_equal(sv.queue_known, 0);
	assert_int_equal(sv.final_known, 1);
	captured_jobs(&sv, 0);
	slurm_view_free(&sv);

	/* signals: sacct's "CANCELLED by 0" and 0:15, scontrol's NODE_FAIL 0:9, squeue's wait status 9 */
	parse_ok(f, "=squeue json 0\n{\"jobs\": [{\"job_id\": 30, \"name\": \"wk-t1-c\", "
	    "\"job_state\": \"FAILED\", \"state_reason\": \"NonZeroExitCode\", \"exit_code\": 9}]}\n"
	    "=sacct db 0\n10|wk-t1-a|CANCELLED by 0|0:15\n"
	    "=scontrol 0\nJobId=20 JobName=wk-t1-b JobState=NODE_FAIL Reason=NodeDown Restarts=1 "
	    "ExitCode=0:9 Power= \n", &sv);
	assert_int_equal(sv.njobs, 3);
	job_is(&sv.jobs[0], "30", "c", "FAILED", "NonZeroExitCode", SLURM_FAILED, 0, -1);
	assert_int_equal(sv.jobs[0].signo, 9);
	job_is(&sv.jobs[1], "20", "b", "NODE_FAIL", "NodeDown", SLURM_INFRA, 0, 1);
	assert_int_equal(sv.jobs[1].signo, 9);
	job_is(&sv.jobs[2], "10", "a", "CANCELLED", "", SLURM_CANCELLED, 0, -1);
	assert_int_equal(sv.jobs[2].signo, 15);
	slurm_view_free(&sv);

	/* scontrol's and squeue's exit codes of a live job are no exit codes */
	parse_ok(f, "=squeue json 0\n{\"jobs\": [{\"job_id\": 41, \"name\": \"wk-t1-b\", "
	    "\"job_state\": \"RUNNING\", \"state_reason\": \"None\", \"exit_code\": 256}]}\n"
	    "=sacct db 1\nno\n"
	    "=scontrol 0\nJobId=40 JobName=wk-t1-a JobState=PENDING Reason=BeginTime Restarts=1 "
	    "ExitCode=1:0 Power= \n"
	    "JobId=41 JobName=wk-t1-b JobState=RUNNING Reason=None Restarts=0 ExitCode=1:0 Power= \n", &sv);
	assert_int_equal(sv.njobs, 2);
	job_is(&sv.jobs[0], "41", "b", "RUNNING", "None", SLURM_RUNNING, -1, 0);
	/* scontrol says it is pending: not in the answering queue, so not known live */
	job_is(&sv.jobs[1], "40", "a", "UNKNOWN", "BeginTime", SLURM_UNKNOWN, -1, 1);
	slurm_view_free(&sv);

	/* the queue's state stands for a job in the queue, whatever the order of the sections */
	parse_ok(f, "=sacct db 0\n5|wk-t1-a|COMPLETED|0:0\n"
	    "=scontrol 0\nJobId=5 JobName=wk-t1-a JobState=COMPLETED Reason=None Restarts=0 ExitCode=0:0 \n"
	    "=squeue text 0\n5|wk-t1-a|COMPLETING|None\n", &sv);
	assert_int_equal(sv.njobs, 1);
	job_is(&sv.jobs[0], "5", "a", "COMPLETING", "None", SLURM_RUNNING, 0, 0);
	assert_int_equal(sv.jobs[0].in_queue, 1);
	slurm_view_free(&sv);
}

static void
test_stage_job(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;
	size_t i;
	static const char *const order[] = { "110", "108", "105", "100", "95", "93", "90" };

	parse_ok(f,
	    "=squeue text 0\n"
	    "100|wk-t1-a|RUNNING|None\n"
	    "105|wk-t1-a|FAILED|NonZeroExitCode\n"
	    "110|wk-t1-c|PENDING|DependencyNeverSatisfied\n"
	    "108|wk-t1-c|PENDING|Priority\n"
	    "=sacct db 0\n"
	    "90|wk-t1-b|COMPLETED|0:0\n"
	    "95|wk-t1-b|FAILED|1:0\n"
	    "93|wk-t1-b|CANCELLED by 0|0:15\n"
	    "105|wk-t1-a|FAILED|2:0\n"
	    "=scontrol 0\n", &sv);
	assert_int_equal(sv.njobs, 7);
	for (i = 0; i < sv.njobs; i++)
		assert_string_equal(sv.jobs[i].id, order[i]);	/* newest first */
	/* a live job beats a newer finished one */
	assert_string_equal(slurm_stage_job(&sv, "a")->id, "100");
	assert_int_equal(slurm_stage_job(&sv, "a")->cls, SLURM_RUNNING);
	/* among finished ones, the newest */
	assert_string_equal(slurm_stage_job(&sv, "b")->id, "95");
	assert_int_equal(slurm_stage_job(&sv, "b")->exit_code, 1);
	/* a waiting job beats a newer stranded one (stranded is not live) */
	assert_string_equal(slurm_stage_job(&sv, "c")->id, "108");
	assert_int_equal(slurm_job_by_id(&sv, "110")->cls, SLURM_STRANDED);
	/* the queue's state stands for a job in the queue; sacct's exit code is taken */
	job_is(slurm_job_by_id(&sv, "105"), "105", "a", "FAILED", "NonZeroExitCode", SLURM_FAILED, 2, -1);
	slurm_view_free(&sv);

	/* only a stranded job: it counts */
	parse_ok(f, "=squeue text 0\n7|wk-t1-c|PENDING|DependencyNeverSatisfied\n=sacct db 0\n=scontrol 0\n",
	    &sv);
	assert_string_equal(slurm_stage_job(&sv, "c")->id, "7");
	assert_null(slurm_stage_job(&sv, "a"));
	slurm_view_free(&sv);
}

/* Jobs of another run, or not naming a stage, are not ours, whatever source lists them. */
static void
test_parse_foreign(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;

	parse_ok(f,
	    "=squeue json 0\n{\"jobs\": ["
	    "{\"job_id\": 600, \"name\": \"wk-t10-a\", \"job_state\": \"RUNNING\", \"state_reason\": \"None\"},"
	    "{\"job_id\": 601, \"name\": \"wk-t1-zz\", \"job_state\": \"RUNNING\", \"state_reason\": \"None\"},"
	    "{\"job_id\": 603, \"name\": \"wk-t1-\", \"job_state\": \"RUNNING\", \"state_reason\": \"None\"},"
	    "{\"job_id\": 611, \"name\": \"wk-t1-a\", \"job_state\": \"RUNNING\", \"state_reason\": \"None\"},"
	    "{\"job_id\": 612, \"job_state\": \"RUNNING\"},"
	    "{\"name\": \"wk-t1-a\", \"job_state\": \"RUNNING\"}"
	    "]}\n"
	    "=sacct comp 0\n"
	    "604|wk-t10-a|FAILED|1:0\n"
	    "605|wk-t1-zz|FAILED|1:0\n"
	    "606|wk-t1|FAILED|1:0\n"
	    "607|xwk-t1-a|FAILED|1:0\n"
	    "608|wk-t1-a-b|FAILED|1:0\n"
	    "609|wk-t1-ab|FAILED|1:0\n"
	    "610|wk-t2-a|FAILED|1:0\n"
	    "abc|wk-t1-a|FAILED|1:0\n"
	    "613;x|wk-t1-b|FAILED|1:0\n"
	    "614|wk-t1-b\n"
	    "garbage\n"
	    "=scontrol 0\n"
	    "JobId=620 JobName=wk-t10-a JobState=RUNNING Reason=None Restarts=0 ExitCode=0:0 Power= \n"
	    "JobId=621 JobName=wk-t1-zz JobState=RUNNING Reason=None Restarts=0 ExitCode=0:0 Power= \n"
	    "JobId=622 JobName=wk-t1-aa JobState=RUNNING Reason=None Restarts=0 ExitCode=0:0 Power= \n"
	    "JobId=623 ArrayJobId=5 JobName=wk-t1 JobState=RUNNING Reason=None Power= \n"
	    "JobName=wk-t1-a JobState=RUNNING Reason=None Power= \n", &sv);
	assert_int_equal(sv.njobs, 1);
	job_is(&sv.jobs[0], "611", "a", "RUNNING", "None", SLURM_RUNNING, -1, -1);
	slurm_view_free(&sv);
}

/* Live by scontrol or sacct, but not in the queue that answered: unknown, never live nor dead. */
static void
test_parse_gone_from_queue(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;
	const char *rest =
	    "=sacct db 0\n"
	    "700|wk-t1-a|RUNNING|0:0\n"
	    "=scontrol 0\n"
	    "JobId=701 JobName=wk-t1-b JobState=RUNNING Reason=None Restarts=0 ExitCode=0:0 Power= \n"
	    "JobId=702 JobName=wk-t1-c JobState=COMPLETED Reason=None Restarts=0 ExitCode=0:0 Power= \n";
	char *t;

	t = xstrfmt("=squeue json 0\n{\"errors\": [], \"jobs\": []}\n%s", rest);
	parse_ok(f, t, &sv);
	free(t);
	assert_int_equal(sv.queue_known, 1);
	assert_int_equal(sv.njobs, 3);
	assert_string_equal(slurm_job_by_id(&sv, "701")->state, "UNKNOWN");
	assert_int_equal(slurm_job_by_id(&sv, "701")->cls, SLURM_UNKNOWN);
	assert_int_equal(slurm_job_by_id(&sv, "700")->cls, SLURM_UNKNOWN);
	assert_false(slurm_cls_live(slurm_stage_job(&sv, "b")->cls));
	assert_false(slurm_cls_live(slurm_stage_job(&sv, "a")->cls));
	/* a finished job needs no queue */
	assert_int_equal(slurm_job_by_id(&sv, "702")->cls, SLURM_COMPLETED);
	slurm_view_free(&sv);

	/* the same with squeue's text form answering with nothing */
	t = xstrfmt("=squeue text 0\n\n%s", rest);
	parse_ok(f, t, &sv);
	free(t);
	assert_int_equal(slurm_job_by_id(&sv, "701")->cls, SLURM_UNKNOWN);
	slurm_view_free(&sv);

	/* squeue did not answer: nothing to hold against them, they stay running */
	t = xstrfmt("=squeue text 1\nslurm_load_jobs error\n%s", rest);
	parse_ok(f, t, &sv);
	free(t);
	assert_int_equal(sv.queue_known, 0);
	assert_int_equal(slurm_job_by_id(&sv, "701")->cls, SLURM_RUNNING);
	assert_int_equal(slurm_job_by_id(&sv, "700")->cls, SLURM_RUNNING);
	slurm_view_free(&sv);

	/* listed by the queue: running */
	t = xstrfmt("=squeue text 0\n701|wk-t1-b|RUNNING|None\n%s", rest);
	parse_ok(f, t, &sv);
	free(t);
	job_is(slurm_job_by_id(&sv, "701"), "701", "b", "RUNNING", "None", SLURM_RUNNING, -1, 0);
	assert_int_equal(slurm_job_by_id(&sv, "701")->in_queue, 1);
	assert_int_equal(slurm_job_by_id(&sv, "700")->cls, SLURM_UNKNOWN);
	slurm_view_free(&sv);
}

static void
test_parse_framing(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char	*text;
		const char	*why;
	} bad[] = {
		{ "=squeue text 0\n=foo 1\n=sacct db 0\n=scontrol 0\n", "garbled header \"=foo 1\"" },
		{ "=foo 1\n", "garbled header \"=foo 1\"" },
		{ "=squeue text 0\n1|wk-t1-a|RUNNING|None\n=sacct db 0\n=scontrol\n", "garbled header" },
		{ "=squeue json\n{}\n=sacct db 0\n=scontrol 0\n", "garbled header" },
		{ "=\n=squeue text 0\n=sacct db 0\n=scontrol 0\n", "garbled header" },
		{ "=squeue text zero\n=sacct db 0\n=scontrol 0\n", "garbled header" },
		{ "=squeue text 0\n=sacct db 0\n", "no scontrol section" },
		{ "=squeue text 0\n1|wk-t1-a|RUNNING|None\n=scontrol 0\n", "no sacct section" },
		{ "=sacct db 0\n=scontrol 0\nJobId=1 JobName=wk-t1-a JobState=RUNNING \n", "no squeue section" },
		{ "", "no squeue section" },
		{ "1|wk-t1-a|RUNNING|None\n", "no squeue section" },
	};
	struct slurm_view sv;
	char *why;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (slurm_parse(f->cfg, bad[i].text, strlen(bad[i].text), &sv, &why) != WK_ERR_PARSE)
			fail_msg("accepted: %s", bad[i].text);
		if (why == NULL || strstr(why, bad[i].why) == NULL)
			fail_msg("%s: why \"%s\", want \"%s\"", bad[i].text, why, bad[i].why);
		/* nothing left to free */
		assert_null(sv.jobs);
		assert_int_equal(sv.njobs, 0);
		assert_null(sv.why);
		free(why);
	}
}

/* A truncated JSON answer is no answer: the queue is unknown, the rest still counts. */
static void
test_parse_bad_json(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;
	char *half = xstrndup(SQ_JSON, strlen(SQ_JSON) / 2), *t;

	t = xstrfmt("=squeue json 0\n%s\n=sacct comp 0\n" SACCT_COMP "=scontrol 0\n" SCONTROL, half);
	parse_ok(f, t, &sv);
	free(t);
	assert_int_equal(sv.queue_known, 0);
	assert_int_equal(sv.final_known, 1);
	assert_non_null(sv.why);
	assert_non_null(strstr(sv.why, "squeue --json"));
	captured_jobs(&sv, 0);
	slurm_view_free(&sv);

	/* JSON, but without a jobs array */
	parse_ok(f, "=squeue json 0\n{\"errors\": [{\"error\": \"x\"}]}\n=sacct db 0\n=scontrol 0\n", &sv);
	assert_int_equal(sv.queue_known, 0);
	assert_non_null(strstr(sv.why, "squeue --json"));
	slurm_view_free(&sv);

	/* the controller is down: squeue --json exits 0 with "jobs": [] and the errors */
	parse_ok(f, "=squeue json 0\n{\"errors\": [{\"description\": \"Failed while looking for jobs\", "
	    "\"error_number\": -1, \"error\": \"Unspecified error\", \"source\": \"slurm_load_jobs\"}],"
	    " \"jobs\": []}\n=sacct db 0\n=scontrol 0\n", &sv);
	assert_int_equal(sv.queue_known, 0);
	assert_non_null(strstr(sv.why, "slurm_load_jobs: Failed while looking for jobs"));
	slurm_view_free(&sv);

	/* nothing at all after the header */
	parse_ok(f, "=sacct db 0\n=scontrol 0\n=squeue json 0\n", &sv);
	assert_int_equal(sv.queue_known, 0);
	assert_int_equal(sv.final_known, 1);
	assert_non_null(sv.why);
	slurm_view_free(&sv);
	free(half);
}

static void
test_parse_restarts(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;

	parse_ok(f,
	    "=squeue json 0\n{\"jobs\": ["
	    "{\"job_id\": 10, \"name\": \"wk-t1-a\", \"job_state\": \"RUNNING\", \"state_reason\": \"None\","
	    " \"restart_cnt\": 1, \"exit_code\": 0},"
	    "{\"job_id\": 11, \"name\": \"wk-t1-b\", \"job_state\": \"PENDING\", \"state_reason\": \"BeginTime\","
	    " \"restart_cnt\": 3, \"exit_code\": 0}"
	    "]}\n"
	    "=sacct db 0\n12|wk-t1-c|COMPLETED|0:0\n10|wk-t1-a|RUNNING|0:0\n"
	    "=scontrol 0\n"
	    "JobId=10 JobName=wk-t1-a JobState=RUNNING Reason=None Requeue=1 Restarts=2 ExitCode=0:0 Power= \n"
	    "JobId=11 JobName=wk-t1-b JobState=PENDING Reason=BeginTime Requeue=1 Restarts=2 ExitCode=0:0 Power= \n",
	    &sv);
	assert_int_equal(sv.njobs, 3);
	assert_int_equal(slurm_job_by_id(&sv, "10")->restarts, 2);	/* scontrol's 2 over JSON's 1 */
	assert_int_equal(slurm_job_by_id(&sv, "11")->restarts, 3);	/* JSON's 3 over scontrol's 2 */
	assert_int_equal(slurm_job_by_id(&sv, "12")->restarts, -1);	/* sacct does not say */
	job_is(slurm_job_by_id(&sv, "11"), "11", "b", "PENDING", "BeginTime", SLURM_WAITING, -1, 3);
	slurm_view_free(&sv);
}

/* Newer Slurm's JSON: flag lists for states, {"set", "number"} for numbers, exit_code an object. */
static void
test_parse_newer_json(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;

	parse_ok(f,
	    "=squeue json 0\n{\"jobs\": ["
	    "{\"job_id\": 50, \"name\": \"wk-t1-a\", \"job_state\": [\"FAILED\"],"
	    " \"state_reason\": \"NonZeroExitCode\","
	    " \"restart_cnt\": {\"set\": true, \"infinite\": false, \"number\": 2},"
	    " \"exit_code\": {\"status\": [\"ERROR\"], \"return_code\": {\"set\": true, \"infinite\": false,"
	    " \"number\": 64}, \"signal\": {\"id\": {\"set\": false, \"infinite\": false, \"number\": 0},"
	    " \"name\": \"\"}}},"
	    "{\"job_id\": {\"set\": true, \"infinite\": false, \"number\": 51}, \"name\": \"wk-t1-b\","
	    " \"job_state\": [\"CANCELLED\"], \"state_reason\": \"None\","
	    " \"exit_code\": {\"status\": [\"SIGNALED\"], \"return_code\": {\"set\": true, \"number\": 0},"
	    " \"signal\": {\"id\": {\"set\": true, \"number\": 15}, \"name\": \"TERM\"}}},"
	    "{\"job_id\": 52, \"name\": \"wk-t1-c\", \"job_state\": [\"PENDING\", \"REQUEUED\"],"
	    " \"state_reason\": \"Dependency\", \"restart_cnt\": {\"set\": false, \"number\": 7}}"
	    "]}\n=sacct db 0\n=scontrol 0\n", &sv);
	assert_int_equal(sv.queue_known, 1);
	assert_int_equal(sv.njobs, 3);
	job_is(&sv.jobs[0], "52", "c", "PENDING", "Dependency", SLURM_WAITING, -1, -1);
	job_is(&sv.jobs[1], "51", "b", "CANCELLED", "None", SLURM_CANCELLED, 0, -1);
	assert_int_equal(sv.jobs[1].signo, 15);
	job_is(&sv.jobs[2], "50", "a", "FAILED", "NonZeroExitCode", SLURM_FAILED, 64, 2);
	slurm_view_free(&sv);
}

/*
 * A header is read from its own line, within len: "=scontrol 1" followed by
 * a line starting with a number, or followed in memory (past len) by more
 * digits, is still exit status 1 (0).
 */
static void
test_parse_header_bounds(void **state)
{
	struct fx *f = *state;
	static const char text1[] = "=squeue text 0\n=sacct db 0\n=scontrol 1\n42 jobs could not be read\n";
	static const char text2[] = "=squeue text 0\n=sacct db 0\n=scontrol 0" "1\n";
	struct slurm_view sv;
	char *why = NULL, why1[256] = "", why2[256] = "";
	int rc1, rc2, final2 = -1;

	rc1 = slurm_parse(f->cfg, text1, strlen(text1), &sv, &why);
	if (rc1 == 0) {
		snprintf(why1, sizeof(why1), "%s", sv.why != NULL ? sv.why : "(none)");
		slurm_view_free(&sv);
	}
	free(why);
	why = NULL;
	/* len ends right after "=scontrol 0": the "1\n" beyond it is not the text's */
	rc2 = slurm_parse(f->cfg, text2, strlen(text2) - 2, &sv, &why);
	if (rc2 == 0) {
		snprintf(why2, sizeof(why2), "%s", sv.why != NULL ? sv.why : "(none)");
		final2 = sv.final_known;
		slurm_view_free(&sv);
	}
	free(why);
	assert_int_equal(rc1, 0);
	assert_string_equal(why1, "scontrol: exit 1: 42 jobs could not be read");
	assert_int_equal(rc2, 0);
	assert_string_equal(why2, "(none)");
	assert_int_equal(final2, 1);
}

/*
 * sacct's exit code of a job still pending or running is no exit code
 * (sacct prints 0:0), as scontrol's and squeue's are not: exit_code stays -1.
 */
static void
test_parse_sacct_live_exit(void **state)
{
	struct fx *f = *state;
	struct slurm_view sv;
	int e800, e801, e802;

	parse_ok(f,
	    "=squeue text 0\n800|wk-t1-a|RUNNING|None\n801|wk-t1-b|PENDING|Dependency\n"
	    "=sacct db 0\n800|wk-t1-a|RUNNING|0:0\n801|wk-t1-b|PENDING|0:0\n802|wk-t1-c|FAILED|3:0\n"
	    "=scontrol 1\nslurm_load_jobs error\n", &sv);
	e800 = slurm_job_by_id(&sv, "800") != NULL ? slurm_job_by_id(&sv, "800")->exit_code : -2;
	e801 = slurm_job_by_id(&sv, "801") != NULL ? slurm_job_by_id(&sv, "801")->exit_code : -2;
	e802 = slurm_job_by_id(&sv, "802") != NULL ? slurm_job_by_id(&sv, "802")->exit_code : -2;
	slurm_view_free(&sv);
	assert_int_equal(e802, 3);
	assert_int_equal(e800, -1);
	assert_int_equal(e801, -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_table),
		cmocka_unit_test(test_classify_special),
		cmocka_unit_test(test_cls_live_names),
		cmocka_unit_test(test_reason_text),
		cmocka_unit_test(test_id_ok),
		cmocka_unit_test(test_parse_sbatch),
		cmocka_unit_test_setup_teardown(test_scancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sbatch_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sbatch_dependency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sbatch_string_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sbatch_object_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sbatch_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sbatch_reserved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sbatch_reserved_abbrev, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sbatch_wrap_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_script_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_captured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_old_squeue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_squeue_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_all_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_captured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_each_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stage_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_gone_from_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_framing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_bad_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_restarts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_newer_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_header_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_sacct_live_exit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
