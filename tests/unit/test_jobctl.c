/*
 * test_jobctl.c: core/jobctl.c against the shipped profiles (ray, iris) and
 * their stand-in CLIs, and against hand-written commands for the contracts.
 *
 * Each profile test loads profiles/<name>.json through a temp config with
 * config_load() ($WATCHKEEPER_PROFILES = the source tree's profiles/), and
 * puts a temp bin/ holding `ray` or `iris` -> tests/e2e/fixtures/fake-* first
 * on PATH.  The fakes keep their cluster in $FAKE_JOB_DIR and have test
 * hooks (_set, _log, _fault, _add) to drive states; the same test body runs
 * for both profiles through struct prof.  The contract tests build their
 * config with cJSON and commands that print what $JT_OUT says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "config.h"
#include "diag.h"
#include "err.h"
#include "jobctl.h"
#include "spawn.h"
#include "unit.h"

#ifndef WK_SRC_PROFILES_DIR
#define WK_SRC_PROFILES_DIR "profiles"
#endif

#define NAME	"wk-r1-train"

struct smap {
	const char	*raw;
	enum job_state	 st;
};

struct prof {
	const char	*name;		/* profiles/<name>.json */
	const char	*cli;		/* the command the profile runs */
	const char	*fake;		/* tests/e2e/fixtures/<fake> */
	const struct smap *states;	/* every state the manager has */
	size_t		 nstates;
	const char	*running, *failed, *weird;
	const char	*stopped;	/* the state `stop` leaves */
	int		 cmd_arg;	/* the recorded entrypoint word holding {command} */
	int		 workdir_arg;	/* ... and {workdir}; 0 none */
	const char *const *resubmit;	/* a hand resubmission of NAME: newer, another id */
	const char	*resubmit_id;
	const char	*log_start;	/* how a line of the job's log starts in `logs` */
	const char	*gen;		/* fake-iris's FAKE_IRIS_GEN; NULL: none */
	void		(*check_id)(const char *name, const char *id);
};

struct fx {
	const struct prof *p;		/* NULL for the contract tests */
	char		 dir[PATH_MAX];	/* realpath of the temp dir */
	char		 jobs[PATH_MAX + 16];
	char		 work[PATH_MAX + 16];
	char		*old_path;
	struct wk_config *cfg;
	struct jobctl	 jc;
};

/* Helpers. */

static char *
slurp(const char *path)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_append(&b, chunk, (size_t)n);
	close(fd);
	return buf_detach(&b);
}

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Run the fake CLI with argv (argv[0] is the CLI's name); its stdout.  Asserts exit 0. */
static char *
fake_argv(const char *const *argv)
{
	char *out;
	int status;

	assert_int_equal(spawn_capture((char *const *)argv, 1 << 20, 0, &status, &out), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	return out;
}

static void
fake(const struct fx *f, const char *a1, const char *a2, const char *a3)
{
	const char *argv[] = { f->p->cli, a1, a2, a3, NULL };

	free(fake_argv(argv));
}

/* The word the fake recorded for job id's entrypoint word i. */
static char *
recorded_arg(const struct fx *f, const char *id, int i)
{
	char path[PATH_MAX * 2], *have, *res = NULL;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/jobs", f->jobs);
	assert_non_null(d = opendir(path));
	while (res == NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/jobs/%s/id", f->jobs, de->d_name);
		if ((have = slurp(path)) == NULL)
			continue;
		if (strcmp(have, id) == 0) {
			snprintf(path, sizeof(path), "%s/jobs/%s/arg.%d", f->jobs, de->d_name, i);
			res = slurp(path);
		}
		free(have);
	}
	closedir(d);
	assert_non_null(res);
	return res;
}

/* A pid that is gone or a zombie nobody reaped yet (our reaper may be slow). */
static int
pid_gone(long pid)
{
	char path[64], *stat, *rp;
	int gone;

	if (kill((pid_t)pid, 0) != 0)
		return errno == ESRCH;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((stat = slurp(path)) == NULL)
		return 1;
	rp = strrchr(stat, ')');
	gone = rp != NULL && rp[1] == ' ' && rp[2] == 'Z';
	free(stat);
	return gone;
}

/* Wait (bounded) for pid to go: the kernel may deliver SIGKILL a moment late. */
static int
pid_goes(long pid)
{
	int i;

	for (i = 0; i < 200 && !pid_gone(pid); i++)
		usleep(10000);
	return pid_gone(pid);
}

static int
common_setup(struct fx *f)
{
	char tmpl[] = "/tmp/wk-test-jobctl.XXXXXX", *real, path[PATH_MAX + 64];
	const char *path_env = getenv("PATH");

	if (mkdtemp(tmpl) == NULL || (real = realpath(tmpl, NULL)) == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "%s", real);
	free(real);
	snprintf(f->jobs, sizeof(f->jobs), "%s/jobs", f->dir);
	snprintf(f->work, sizeof(f->work), "%s/work", f->dir);
	snprintf(path, sizeof(path), "%s/bin", f->dir);
	if (mkdir(f->jobs, 0700) != 0 || mkdir(f->work, 0700) != 0 || mkdir(path, 0700) != 0)
		return -1;
	f->old_path = strdup(path_env != NULL ? path_env : "/usr/bin:/bin");
	snprintf(path, sizeof(path), "%s/bin:%s", f->dir, f->old_path);
	setenv("PATH", path, 1);
	setenv("FAKE_JOB_DIR", f->jobs, 1);
	/* The login name, as Iris's getpass finds it (old Iris has no IRIS_USER). */
	setenv("LOGNAME", "alice", 1);
	unsetenv("IRIS_USER");
	unsetenv("IRIS_CONFIG");
	unsetenv("WATCHKEEPER_CONFIG");
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	config_free(f->cfg);
	if (f->old_path != NULL)
		setenv("PATH", f->old_path, 1);
	free(f->old_path);
	unsetenv("FAKE_JOB_DIR");
	unsetenv("FAKE_IRIS_GEN");
	unsetenv("WATCHKEEPER_PROFILES");
	unsetenv("JT_OUT");
	unsetenv("JT_BIG");
	unit_rmrf(f->dir);
	free(f);
	return 0;
}

/* Load a config from the cJSON object doc (consumed) in f->dir. */
static int
load_doc(struct fx *f, cJSON *doc, struct diag *d)
{
	char path[PATH_MAX + 32], *text = cJSON_Print(doc);

	cJSON_Delete(doc);
	snprintf(path, sizeof(path), "%s/watchkeeper.json", f->dir);
	put(path, text);
	free(text);
	config_free(f->cfg);
	f->cfg = NULL;
	if (config_load(path, &f->cfg, d) != 0)
		return -1;
	jobctl_init(&f->jc, f->cfg);
	f->jc.timeout_ms = 30000;	/* generous: sanitizers, a loaded machine */
	return 0;
}

/* A run's config: profile p, or (p NULL) detach job with the given job object. */
static cJSON *
run_doc(const struct fx *f, const char *profile, cJSON *job)
{
	cJSON *doc = cJSON_CreateObject(), *chain = cJSON_AddArrayToObject(doc, "chain");
	cJSON *st = cJSON_CreateObject();

	cJSON_AddStringToObject(doc, "run", "r1");
	if (profile != NULL)
		cJSON_AddStringToObject(doc, "profile", profile);
	else
		cJSON_AddStringToObject(doc, "detach", "job");
	cJSON_AddStringToObject(doc, "workdir", f->work);
	cJSON_AddStringToObject(st, "stage", "train");
	cJSON_AddStringToObject(st, "run", "python train.py");
	cJSON_AddItemToArray(chain, st);
	if (job != NULL)
		cJSON_AddItemToObject(doc, "job", job);
	return doc;
}

static int
prof_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char link[PATH_MAX + 64], target[PATH_MAX * 2], *src, *slash;
	struct diag d = DIAG_INIT;

	if (f == NULL)
		return -1;
	f->p = *state;
	*state = f;
	if (f->p->gen != NULL)
		setenv("FAKE_IRIS_GEN", f->p->gen, 1);
	if (common_setup(f) != 0 || (src = realpath(WK_SRC_PROFILES_DIR, NULL)) == NULL)
		return -1;
	setenv("WATCHKEEPER_PROFILES", src, 1);
	if ((slash = strrchr(src, '/')) != NULL)
		*slash = '\0';
	snprintf(target, sizeof(target), "%s/tests/e2e/fixtures/%s", src, f->p->fake);
	free(src);
	snprintf(link, sizeof(link), "%s/bin/%s", f->dir, f->p->cli);
	if (symlink(target, link) != 0)
		return -1;
	if (load_doc(f, run_doc(f, f->p->name, NULL), &d) != 0) {
		diag_print(&d, stderr);
		diag_free(&d);
		return -1;
	}
	/* The CLI's generation (iris: job.dialects), as onbox finds it once per run. */
	{
		char *name = NULL, *why = NULL;
		int rc = jobctl_dialect(&f->jc, NULL, &name, &why);

		if (rc != 0)
			fprintf(stderr, "jobctl_dialect: %s\n", why);
		free(name);
		free(why);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static int
plain_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	*state = f;
	return common_setup(f);
}

/* Submit the stage's command as NAME; the id. */
static char *
submit(struct fx *f, const char *name)
{
	char *id, *why;

	assert_int_equal(jobctl_submit(&f->jc, name, "python train.py --lr 3e-4", NULL, &id, &why), 0);
	assert_null(why);
	assert_non_null(id);
	return id;
}

static void
expect_status(struct fx *f, const char *id, enum job_state want, const char *raw)
{
	enum job_state st;
	char *r, *why;

	assert_int_equal(jobctl_status(&f->jc, id, &st, &r, &why), 0);
	if (why != NULL && want != JOB_UNKNOWN)
		fail_msg("status %s: %s", raw, why);
	assert_int_equal(st, want);
	assert_string_equal(r, raw);
	free(r);
	free(why);
}

/* Profile tests. */

static void
test_profile_checks(void **state)
{
	struct fx *f = *state;
	struct diag d = DIAG_INIT;

	assert_string_equal(f->cfg->detach, "job");
	if (jobctl_check(f->cfg, &d) != 0)
		diag_print(&d, stderr);
	assert_int_equal(d.n, 0);
	diag_free(&d);
}

static void
test_submit_captures_id(void **state)
{
	struct fx *f = *state;
	const char *cmd = "python train.py --lr 3e-4";
	char *id = submit(f, NAME), *w;

	f->p->check_id(NAME, id);
	w = recorded_arg(f, id, f->p->cmd_arg);
	assert_string_equal(w, cmd);
	free(w);
	if (f->p->workdir_arg > 0) {
		w = recorded_arg(f, id, f->p->workdir_arg);
		assert_string_equal(w, f->work);
		free(w);
	}
	free(id);
}

static void
test_pending_is_pending(void **state)
{
	struct fx *f = *state;
	enum job_state st;
	char *id = submit(f, NAME), *raw, *why;

	/* A job just submitted waits for capacity: pending, live, not final, no why. */
	assert_int_equal(jobctl_status(&f->jc, id, &st, &raw, &why), 0);
	assert_int_equal(st, JOB_PENDING);
	assert_null(why);
	assert_true(job_state_live(st));
	assert_false(job_state_final(st));
	assert_string_equal(job_state_name(st), "pending");
	assert_string_equal(raw, f->p->states[0].raw);
	free(raw);
	free(id);
}

static void
test_status_maps_every_state(void **state)
{
	struct fx *f = *state;
	char *id = submit(f, NAME);
	size_t i;

	for (i = 0; i < f->p->nstates; i++) {
		fake(f, "_set", id, f->p->states[i].raw);
		expect_status(f, id, f->p->states[i].st, f->p->states[i].raw);
	}
	free(id);
}

static void
test_unknown_state(void **state)
{
	struct fx *f = *state;
	enum job_state st;
	char *id = submit(f, NAME), *raw, *why;

	fake(f, "_set", id, f->p->weird);
	assert_int_equal(jobctl_status(&f->jc, id, &st, &raw, &why), 0);
	assert_int_equal(st, JOB_UNKNOWN);
	assert_string_equal(raw, f->p->weird);
	assert_non_null(why);
	assert_non_null(strstr(why, f->p->weird));
	assert_non_null(strstr(why, "job.states"));
	free(raw);
	free(why);
	free(id);
}

static void
test_failing_cli(void **state)
{
	struct fx *f = *state;
	enum job_state st;
	char *id = submit(f, NAME), *id2, *raw, *why, path[PATH_MAX + 32];
	struct stat sb;
	int fd;

	fake(f, "_fault", "fail", NULL);
	assert_int_equal(jobctl_status(&f->jc, id, &st, &raw, &why), WK_ERR_EXEC);
	assert_int_equal(st, JOB_UNKNOWN);
	assert_null(raw);
	assert_non_null(strstr(why, "job.status exited with status 1"));
	assert_non_null(strstr(why, "ConnectionError"));
	free(why);

	assert_int_equal(jobctl_submit(&f->jc, "wk-r1-eval", "x", NULL, &id2, &why), WK_ERR_EXEC);
	assert_null(id2);
	assert_non_null(strstr(why, "job.submit exited with status 1"));
	free(why);
	assert_int_equal(jobctl_find(&f->jc, NAME, &id2, &st, &why), WK_ERR_EXEC);
	assert_null(id2);
	assert_int_equal(st, JOB_UNKNOWN);
	assert_non_null(strstr(why, "job.find exited with status 1"));
	free(why);
	assert_int_equal(jobctl_stop(&f->jc, id, &why), WK_ERR_EXEC);
	assert_non_null(strstr(why, "job.stop exited with status 1"));
	free(why);
	snprintf(path, sizeof(path), "%s/log.out", f->dir);
	assert_true((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0);
	assert_int_equal(jobctl_logs(&f->jc, id, 0, fd, 0, NULL, &why), WK_ERR_EXEC);
	assert_non_null(strstr(why, "job.logs exited with status 1"));
	assert_int_equal(fstat(fd, &sb), 0);
	assert_int_equal(sb.st_size, 0);	/* nothing written on failure */
	close(fd);
	free(why);

	/* The cluster is back but the job is not there: an error, never a state. */
	fake(f, "_fault", "none", NULL);
	assert_true(jobctl_status(&f->jc, "wk-no-such-job", &st, &raw, &why) < 0);
	assert_int_equal(st, JOB_UNKNOWN);
	assert_null(raw);
	assert_non_null(why);
	free(why);
	free(id);
}

/* The pids the hanging fake recorded ("shell sleeper" per line); count of pids. */
static int
hang_pids(const struct fx *f, long *pids, int max)
{
	char path[PATH_MAX + 32], *text, *p, *end;
	int n = 0;
	long v;

	snprintf(path, sizeof(path), "%s/hang.pids", f->jobs);
	assert_non_null(text = slurp(path));
	for (p = text; n < max; p = end) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		pids[n++] = v;
	}
	free(text);
	return n;
}

static void
test_hanging_cli(void **state)
{
	struct fx *f = *state;
	enum job_state st;
	char *id = submit(f, NAME), *raw, *why, path[PATH_MAX + 32];
	long pids[8];
	int n, i;

	/* Long enough for the fake to start and record its pids on a loaded machine. */
	f->jc.timeout_ms = 1000;
	fake(f, "_fault", "hang", NULL);
	assert_int_equal(jobctl_status(&f->jc, id, &st, &raw, &why), WK_ERR_TIMEOUT);
	assert_int_equal(st, JOB_UNKNOWN);
	assert_null(raw);
	assert_non_null(strstr(why, "job.status did not finish within 1 s"));
	assert_non_null(strstr(why, "process group was killed"));
	assert_null(strstr(why, "ignored SIGTERM"));
	free(why);
	/* The CLI and what it started in the background are gone. */
	n = hang_pids(f, pids, 8);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++)
		assert_true(pid_goes(pids[i]));

	/* A CLI deaf to SIGTERM gets SIGKILL after the grace, with what it started. */
	snprintf(path, sizeof(path), "%s/hang.pids", f->jobs);
	unlink(path);
	fake(f, "_fault", "hard", NULL);
	assert_int_equal(jobctl_stop(&f->jc, id, &why), WK_ERR_TIMEOUT);
	assert_non_null(strstr(why, "job.stop did not finish within 1 s"));
	free(why);
	n = hang_pids(f, pids, 8);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++)
		assert_true(pid_goes(pids[i]));
	free(id);
}

static void
test_find_reconciles(void **state)
{
	struct fx *f = *state;
	enum job_state st;
	char *id1, *id, *why, *other;

	/* Nothing of that name yet. */
	assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), WK_ERR_NOTFOUND);
	assert_null(id);
	assert_non_null(strstr(why, NAME));
	free(why);

	/* Our submission, and a job of another stage whose name starts the same. */
	id1 = submit(f, NAME);
	other = submit(f, NAME "-2");
	fake(f, "_set", other, f->p->running);
	assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), 0);
	assert_string_equal(id, id1);
	assert_int_equal(st, JOB_PENDING);
	assert_null(why);
	free(id);

	if (f->p->resubmit == NULL) {
		/* Iris: one id a name; a finished job is what find gives, unknown states too. */
		fake(f, "_set", id1, f->p->failed);
		assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), 0);
		assert_string_equal(id, id1);
		assert_int_equal(st, JOB_FAILED);
		free(id);
		fake(f, "_set", id1, f->p->weird);
		assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), 0);
		assert_int_equal(st, JOB_UNKNOWN);
		free(why);
		free(id);
		goto other_stage;
	}
	/* It failed, and someone resubmitted it by hand while nobody watched. */
	fake(f, "_set", id1, f->p->failed);
	free(fake_argv(f->p->resubmit));
	fake(f, "_set", f->p->resubmit_id, f->p->running);
	assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), 0);
	assert_string_equal(id, f->p->resubmit_id);
	assert_int_equal(st, JOB_RUNNING);
	free(id);

	/* Two running jobs of the same name: the newest wins. */
	fake(f, "_set", id1, f->p->running);
	assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), 0);
	assert_string_equal(id, f->p->resubmit_id);
	assert_int_equal(st, JOB_RUNNING);
	free(id);

	/* A live job beats a newer finished one: restarting would double-launch. */
	fake(f, "_set", f->p->resubmit_id, f->p->failed);
	assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), 0);
	assert_string_equal(id, id1);
	assert_int_equal(st, JOB_RUNNING);
	free(id);

	/* All finished: the newest. */
	fake(f, "_set", id1, f->p->stopped);
	assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), 0);
	assert_string_equal(id, f->p->resubmit_id);
	assert_int_equal(st, JOB_FAILED);
	assert_null(why);
	free(id);

	/* The newest in a state nobody mapped may be live: it is returned, as unknown. */
	fake(f, "_set", id1, f->p->running);
	fake(f, "_set", f->p->resubmit_id, f->p->weird);
	assert_int_equal(jobctl_find(&f->jc, NAME, &id, &st, &why), 0);
	assert_string_equal(id, f->p->resubmit_id);
	assert_int_equal(st, JOB_UNKNOWN);
	assert_non_null(strstr(why, f->p->weird));
	free(why);
	free(id);

	/* The other stage's job was never taken for ours. */
other_stage:
	assert_int_equal(jobctl_find(&f->jc, NAME "-2", &id, &st, &why), 0);
	assert_string_equal(id, other);
	assert_int_equal(st, JOB_RUNNING);
	free(id);
	free(other);
	free(id1);
}

static void
test_stop(void **state)
{
	struct fx *f = *state;
	char *id = submit(f, NAME), *why;

	fake(f, "_set", id, f->p->running);
	assert_int_equal(jobctl_stop(&f->jc, id, &why), 0);
	assert_null(why);
	expect_status(f, id, JOB_STOPPED, f->p->stopped);
	free(id);
}

static void
test_logs(void **state)
{
	struct fx *f = *state;
	char *id = submit(f, NAME), *why, *text, path[PATH_MAX + 32], line[64];
	int fd, i, pfd[2];
	size_t len;

	fake(f, "_log", id, "step 1/10 loss 2.5");
	fake(f, "_log", id, "Traceback (most recent call last):");
	snprintf(path, sizeof(path), "%s/log.out", f->dir);
	assert_true((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0);
	assert_int_equal(jobctl_logs(&f->jc, id, 0, fd, 0, NULL, &why), 0);
	assert_null(why);
	close(fd);
	text = slurp(path);
	assert_non_null(strstr(text, "step 1/10 loss 2.5\n"));
	assert_non_null(strstr(text, "Traceback (most recent call last):\n"));
	free(text);

	/* A long log: only its end, from a line boundary, at most cap bytes. */
	for (i = 0; i < 200; i++) {
		snprintf(line, sizeof(line), "line %03d", i);
		fake(f, "_log", id, line);
	}
	assert_true((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0);
	assert_int_equal(jobctl_logs(&f->jc, id, 0, fd, 200, NULL, &why), 0);
	close(fd);
	text = slurp(path);
	len = strlen(text);
	assert_true(len > 0 && len <= 200);
	assert_int_equal(strncmp(text, f->p->log_start, strlen(f->p->log_start)), 0);
	assert_string_equal(text + len - strlen("line 199\n"), "line 199\n");
	assert_null(strstr(text, "line 000"));
	free(text);

	/* A reader that went away is an error, not a SIGPIPE that kills us. */
	assert_int_equal(pipe(pfd), 0);
	close(pfd[0]);
	assert_int_equal(jobctl_logs(&f->jc, id, 0, pfd[1], 0, NULL, &why), WK_ERR_SYSTEM);
	assert_non_null(strstr(why, "cannot write"));
	free(why);
	close(pfd[1]);
	free(id);
}

/* No file named PWNED* in dir. */
static void
assert_no_pwned(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "PWNED", 5) == 0)
			fail_msg("%s/%s was created: a name or command ran as shell", dir, de->d_name);
	closedir(d);
}

static void
test_hostile_stays_data(void **state)
{
	struct fx *f = *state;
	/* No ' " / \ or space in the name: the managers' own id syntax has no room for them. */
	const char *name = "wk-r1-$(touch${IFS}PWNED1);`touch${IFS}PWNED2`|&<x>*";
	const char *cmd = "echo 'it'\\''s' \"$(touch PWNED3)\" `touch PWNED4`; touch PWNED5 | cat\n"
	    "printf %s\\\\n {id} {name} '{command}' ${HOME} * ? [a] ~ # done";
	enum job_state st;
	char *id, *id2, *why, *w, cwd[PATH_MAX];

	assert_int_equal(jobctl_submit(&f->jc, name, cmd, NULL, &id, &why), 0);
	assert_null(why);
	w = recorded_arg(f, id, f->p->cmd_arg);
	assert_string_equal(w, cmd);
	free(w);
	assert_non_null(strstr(id, name));
	expect_status(f, id, JOB_PENDING, f->p->states[0].raw);
	assert_int_equal(jobctl_find(&f->jc, name, &id2, &st, &why), 0);
	assert_string_equal(id2, id);
	assert_int_equal(st, JOB_PENDING);
	free(id2);
	assert_int_equal(jobctl_stop(&f->jc, id, &why), 0);
	expect_status(f, id, JOB_STOPPED, f->p->stopped);
	assert_no_pwned(f->dir);
	assert_no_pwned(f->work);
	assert_no_pwned(f->jobs);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_no_pwned(cwd);
	free(id);
}

/* Contract tests: commands written here, config built with cJSON. */

/* Load a config whose job object has these commands (NULL: leave out). */
static void
load_job(struct fx *f, const char *submit_cmd, const char *status, const char *find,
    const char *id_regex, cJSON *states)
{
	cJSON *job = cJSON_CreateObject();
	struct diag d = DIAG_INIT;

	cJSON_AddStringToObject(job, "submit", submit_cmd != NULL ? submit_cmd : "echo job-1");
	cJSON_AddStringToObject(job, "status", status != NULL ? status : "printf '%s' \"$JT_OUT\"");
	if (find != NULL)
		cJSON_AddStringToObject(job, "find", find);
	if (id_regex != NULL)
		cJSON_AddStringToObject(job, "id_regex", id_regex);
	if (states == NULL) {
		states = cJSON_CreateObject();
		cJSON_AddStringToObject(states, "running", "R");
		cJSON_AddItemToObject(states, "pending", cJSON_CreateStringArray(
		    (const char *[]){ "Q", "HOLD" }, 2));
		cJSON_AddStringToObject(states, "failed", "F");
	}
	cJSON_AddItemToObject(job, "states", states);
	if (load_doc(f, run_doc(f, NULL, job), &d) != 0)
		diag_print(&d, stderr);
	assert_int_equal(d.n, 0);
	diag_free(&d);
}

static void
test_status_output_contract(void **state)
{
	static const struct {
		const char	*out;
		int		 ret;
		enum job_state	 st;
		const char	*why;	/* in *why, or NULL for none */
	} cases[] = {
		{ "R", 0, JOB_RUNNING, NULL },
		{ "  HOLD \n\n", 0, JOB_PENDING, NULL },	/* whitespace is stripped */
		{ "F\r\n", 0, JOB_FAILED, NULL },
		{ "r", 0, JOB_UNKNOWN, "\"r\" is not in job.states" },	/* case-sensitive */
		{ "RUNNING", 0, JOB_UNKNOWN, "\"RUNNING\"" },
		{ "", WK_ERR_PARSE, JOB_UNKNOWN, "printed no state" },
		{ " \n ", WK_ERR_PARSE, JOB_UNKNOWN, "printed no state" },
		{ "R\nF", WK_ERR_PARSE, JOB_UNKNOWN, "not one state word" },
		{ "Status: R", WK_ERR_PARSE, JOB_UNKNOWN, "not one state word" },
		{ "R\001", WK_ERR_PARSE, JOB_UNKNOWN, "control characters" },
	};
	struct fx *f = *state;
	enum job_state st;
	char *raw, *why;
	size_t i;
	int r;

	load_job(f, NULL, NULL, NULL, "job-[0-9]+", NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("JT_OUT", cases[i].out, 1);
		r = jobctl_status(&f->jc, "job-1", &st, &raw, &why);
		if (r != cases[i].ret || st != cases[i].st)
			fail_msg("case %zu: ret %d st %d why %s", i, r, st, why ? why : "-");
		if (cases[i].why == NULL)
			assert_null(why);
		else if (why == NULL || strstr(why, cases[i].why) == NULL)
			fail_msg("case %zu: why %s, want %s", i, why ? why : "NULL", cases[i].why);
		if (r == 0)
			assert_non_null(raw);
		else
			assert_null(raw);
		free(raw);
		free(why);
	}

	/* A state longer than JOBCTL_STATE_MAX is not a state. */
	{
		char big[JOBCTL_STATE_MAX + 2];

		memset(big, 'A', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		setenv("JT_OUT", big, 1);
		assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), WK_ERR_PARSE);
		free(why);
	}
}

static void
test_command_failures(void **state)
{
	struct fx *f = *state;
	enum job_state st;
	char *raw, *why, *id, path[PATH_MAX + 64], cmd[PATH_MAX * 2], *text;
	long bg;

	load_job(f, NULL, "echo partial; echo 'Error: no such job' >&2; exit 3", NULL,
	    "job-[0-9]+", NULL);
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), WK_ERR_EXEC);
	assert_non_null(strstr(why, "job.status exited with status 3: Error: no such job"));
	free(why);

	load_job(f, NULL, "exit 4", NULL, "job-[0-9]+", NULL);
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), WK_ERR_EXEC);
	assert_non_null(strstr(why, "exited with status 4 and said nothing"));
	free(why);

	load_job(f, NULL, "echo dying >&2; kill -9 $$", NULL, "job-[0-9]+", NULL);
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), WK_ERR_EXEC);
	assert_non_null(strstr(why, "killed by signal 9: dying"));
	free(why);

	load_job(f, NULL, "no-such-cli-wk status {id}", NULL, "job-[0-9]+", NULL);
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), WK_ERR_EXEC);
	assert_non_null(strstr(why, "status 127"));
	assert_non_null(strstr(why, "not found"));
	free(why);

	/*
	 * The CLI is done but left something in the background holding stdout:
	 * the call returns with the state, well before its timeout.
	 */
	snprintf(path, sizeof(path), "%s/bg.pid", f->dir);
	snprintf(cmd, sizeof(cmd), "sleep 60 & echo $! > '%s'; echo R", path);
	load_job(f, NULL, cmd, NULL, "job-[0-9]+", NULL);
	f->jc.timeout_ms = 10000;
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), 0);
	assert_int_equal(st, JOB_RUNNING);
	free(raw);
	assert_non_null(text = slurp(path));
	bg = strtol(text, NULL, 10);
	free(text);
	assert_true(bg > 0);
	kill((pid_t)bg, SIGKILL);

	/* A command the config does not have. */
	assert_int_equal(jobctl_stop(&f->jc, "job-1", &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "job.stop is not set"));
	free(why);
	assert_int_equal(jobctl_find(&f->jc, "n", &id, &st, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "job.find is not set"));
	free(why);
	/* Arguments that are not one line of text. */
	assert_int_equal(jobctl_status(&f->jc, "", &st, &raw, &why), WK_ERR_INVALID);
	free(why);
	assert_int_equal(jobctl_status(&f->jc, "a\nb", &st, &raw, &why), WK_ERR_INVALID);
	free(why);
	assert_int_equal(jobctl_submit(&f->jc, "n", "", NULL, &id, &why), WK_ERR_INVALID);
	assert_null(id);
	free(why);
}

static void
test_submit_contract(void **state)
{
	struct fx *f = *state;
	char *id, *why;

	/* Group 1 when the regex has one. */
	load_job(f, "echo 'Job submission server'; echo \"Job 'x-{name}-7' submitted\"", NULL,
	    NULL, "Job '(.+)' submitted", NULL);
	assert_int_equal(jobctl_submit(&f->jc, "n1", "true", NULL, &id, &why), 0);
	/* {name} reached the shell quoted, inside the echo's own quotes: printed verbatim. */
	assert_string_equal(id, "x-'n1'-7");
	free(id);

	/* The whole match without a group; the first line that matches wins. */
	load_job(f, "printf 'queued\\njob-42 accepted\\njob-43\\n'", NULL, NULL, "job-[0-9]+",
	    NULL);
	assert_int_equal(jobctl_submit(&f->jc, "n1", "true", NULL, &id, &why), 0);
	assert_string_equal(id, "job-42");
	free(id);

	/* Exit 0 without an id: the job may exist, and the why says so. */
	load_job(f, "echo 'Submitted (no id today)'", NULL, NULL, "job-[0-9]+", NULL);
	assert_int_equal(jobctl_submit(&f->jc, "n1", "true", NULL, &id, &why), WK_ERR_PARSE);
	assert_null(id);
	assert_non_null(strstr(why, "may exist"));
	assert_non_null(strstr(why, "Submitted (no id today)"));
	free(why);

	/* No id_regex: nothing is submitted at all. */
	load_job(f, "touch submitted", NULL, NULL, NULL, NULL);
	assert_int_equal(jobctl_submit(&f->jc, "n1", "true", NULL, &id, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "job.id_regex is not set"));
	free(why);
	assert_int_equal(access("submitted", F_OK), -1);

	/* {id} has no value in submit: refused before anything runs. */
	load_job(f, "echo job-1 {id}", NULL, NULL, "job-[0-9]+", NULL);
	assert_int_equal(jobctl_submit(&f->jc, "n1", "true", NULL, &id, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "uses {id}"));
	free(why);
}

static void
test_placeholders(void **state)
{
	struct fx *f = *state;
	enum job_state st;
	char *raw, *why, *id, cmd[PATH_MAX * 2];

	/* Braces that are not placeholders stay; {workdir} is the absolute workdir. */
	snprintf(cmd, sizeof(cmd), "[ {workdir} = '%s' ] && printf '%%s' {id} | "
	    "awk '{ print \"S\" $0 }'", f->work);
	load_job(f, NULL, cmd, NULL, "job-[0-9]+", NULL);
	setenv("JT_OUT", "", 1);
	assert_int_equal(jobctl_status(&f->jc, "R", &st, &raw, &why), 0);
	assert_string_equal(raw, "SR");
	assert_int_equal(st, JOB_UNKNOWN);
	free(raw);
	free(why);

	/* find gives no {id} and no {command}. */
	load_job(f, NULL, NULL, "echo job-1 R {command}", "job-[0-9]+", NULL);
	assert_int_equal(jobctl_find(&f->jc, "n", &id, &st, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "job.find uses {command}"));
	free(why);
}


/* job.dialects: the first whose detect exits 0 is used, a recorded one without asking. */
static void
test_dialects_options_since(void **state)
{
	struct fx *f = *state;
	struct diag d = DIAG_INIT;
	enum job_state st;
	char *raw, *why, *name, *id, *opts, path[PATH_MAX + 32], *text;
	int fd;
	cJSON *job = cJSON_Parse("{\"submit\": \"echo job-1 {options}; : {name} {command}\", \"id_regex\": \"job-[0-9]+\","
	    "\"states\": {\"running\": [\"R\", \"B\"]}, \"options\": [\"gpu\", \"mem\"],"
	    "\"reserved\": [\"name\"], \"logs\": \"echo since={since_ms} {id}\","
	    "\"dialects\": [{\"name\": \"a\", \"detect\": \"exit 2\", \"status\": \"echo A; : {id}\"},"
	    "{\"name\": \"b\", \"detect\": \"true\", \"status\": \"echo B; : {id}\"},"
	    "{\"name\": \"c\", \"detect\": \"true\", \"status\": \"echo R; : {id}\"}]}");
	cJSON *doc = run_doc(f, NULL, job);

	cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "chain"), 0), "job",
	    cJSON_Parse("{\"gpu\": \"H100:8\", \"mem\": 64}"));
	assert_int_equal(load_doc(f, doc, &d), 0);
	if (jobctl_check(f->cfg, &d) != 0)
		diag_print(&d, stderr);
	assert_int_equal(d.n, 0);
	/* Detected: a's detect fails, b's answers (c is never asked). */
	assert_int_equal(jobctl_dialect(&f->jc, NULL, &name, &why), 0);
	assert_string_equal(name, "b");
	free(name);
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), 0);
	assert_string_equal(raw, "B");
	free(raw);
	free(why);
	/* Recorded: c, with no detect run. */
	assert_int_equal(jobctl_dialect(&f->jc, "c", &name, &why), 0);
	assert_string_equal(name, "c");
	free(name);
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), 0);
	assert_string_equal(raw, "R");
	assert_int_equal(st, JOB_RUNNING);
	free(raw);
	free(why);
	/* The stage's options, quoted, in {options}. */
	assert_int_equal(jobctl_options(f->cfg, 0, &opts, &why), 0);
	assert_string_equal(opts, " '--gpu=H100:8' '--mem=64'");
	assert_int_equal(jobctl_submit(&f->jc, NAME, "true", opts, &id, &why), 0);
	assert_string_equal(id, "job-1");
	free(id);
	free(opts);
	/* A resubmit: the owner's command, the id from its output. */
	assert_int_equal(jobctl_resubmit(&f->jc, "chain[0].resubmit", "echo 'Job job-77 submitted'",
	    &id, &why), 0);
	assert_string_equal(id, "job-77");
	free(id);
	assert_int_equal(jobctl_resubmit(&f->jc, "chain[0].resubmit", "echo nothing", &id, &why),
	    WK_ERR_PARSE);
	assert_non_null(strstr(why, "chain[0].resubmit exited 0 but no line"));
	free(why);
	/* {since_ms}: the number given, 0 for none. */
	snprintf(path, sizeof(path), "%s/log.out", f->dir);
	assert_true((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0);
	assert_int_equal(jobctl_logs(&f->jc, "job-1", 1795000000123LL, fd, 0, NULL, &why), 0);
	assert_int_equal(jobctl_logs(&f->jc, "job-1", -5, fd, 0, NULL, &why), 0);
	close(fd);
	text = slurp(path);
	assert_string_equal(text, "since=1795000000123 job-1\nsince=0 job-1\n");
	free(text);
	/* None answers: an error naming each. */
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(f->cfg->root, "job") ?
	    cJSON_GetObjectItem(cJSON_GetObjectItem(f->cfg->root, "job"), "dialects") : NULL, 1),
	    "detect", cJSON_CreateString("echo no >&2; exit 1"));
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    f->cfg->root, "job"), "dialects"), 2), "detect", cJSON_CreateString("false"));
	assert_int_equal(jobctl_dialect(&f->jc, "gone", &name, &why), WK_ERR_NOTFOUND);
	assert_null(name);
	assert_non_null(strstr(why, "no dialect of job.dialects (a, b, c) matches the CLI"));
	free(why);
	diag_free(&d);
}

/* chain[].job: a reserved or unlisted option, a bad name; {options} must be used. */
static void
test_options_checked(void **state)
{
	static const struct {
		const char	*opts;
		const char	*why;
	} cases[] = {
		{ "{\"name\": \"x\"}", "\"name\": watchkeeper sets --name itself" },
		{ "\"--name=x\"", "\"--name=x\": watchkeeper sets --name itself" },
		{ "{\"gpux\": 1}", "\"--gpux\" is not an option job.options lists (gpu)" },
		{ "{\"Gpu\": 1}", "\"Gpu\" is not a job option name" },
		{ "{\"gpu\": 1.5}", "\"gpu\": a value is a string, a whole number, true or false" },
		{ "\"gpu\"", "\"gpu\" is not an option" },
	};
	struct fx *f = *state;
	struct diag d = DIAG_INIT;
	size_t i;
	cJSON *doc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		doc = run_doc(f, NULL, cJSON_Parse("{\"submit\": \"echo job-1 {options}; : {name} "
		    "{command}\", \"status\": \"echo R; : {id}\", \"id_regex\": \"job-[0-9]+\", \"options\": [\"gpu\"], "
		    "\"reserved\": [\"name\"]}"));
		cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "chain"), 0), "job",
		    cJSON_Parse(cases[i].opts));
		assert_int_equal(load_doc(f, doc, &d), 0);
		assert_int_equal(jobctl_check(f->cfg, &d), 1);
		if (strstr(d.msgs[0], cases[i].why) == NULL)
			fail_msg("case %zu: %s", i, d.msgs[0]);
		assert_non_null(strstr(d.msgs[0], "chain[0].job (stage train): "));
		diag_free(&d);
	}
	/* A submit without {options} while a stage sets chain[].job. */
	doc = run_doc(f, NULL, cJSON_Parse("{\"submit\": \"echo job-1 {name} {command}\", "
	    "\"status\": \"echo R {id}\", "
	    "\"id_regex\": \"job-1\"}"));
	cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "chain"), 0), "job",
	    cJSON_Parse("{\"gpu\": 1}"));
	assert_int_equal(load_doc(f, doc, &d), 0);
	assert_int_equal(jobctl_check(f->cfg, &d), 1);
	assert_non_null(strstr(d.msgs[0], "\"job.submit\": does not use {options}"));
	diag_free(&d);
}

static void
test_find_contract(void **state)
{
	struct fx *f = *state;
	enum job_state st;
	char *id, *why;

	/* Headers are skipped; the newest live job wins; pending counts as live. */
	load_job(f, NULL, NULL, "printf 'ID STATE\\njob-9 F\\njob-8 Q\\njob-7 R\\n'",
	    "job-[0-9]+", NULL);
	assert_int_equal(jobctl_find(&f->jc, "n", &id, &st, &why), 0);
	assert_string_equal(id, "job-8");
	assert_int_equal(st, JOB_PENDING);
	assert_null(why);
	free(id);

	/* A line naming a job without a state after it: an error, not a guess. */
	load_job(f, NULL, NULL, "printf 'job-9 F\\njob-8\\n'", "job-[0-9]+", NULL);
	assert_int_equal(jobctl_find(&f->jc, "n", &id, &st, &why), WK_ERR_PARSE);
	assert_null(id);
	assert_non_null(strstr(why, "line 2"));
	free(why);

	/* Only headers: no job of that name. */
	load_job(f, NULL, NULL, "echo 'No jobs found.'", "job-[0-9]+", NULL);
	assert_int_equal(jobctl_find(&f->jc, "n", &id, &st, &why), WK_ERR_NOTFOUND);
	free(why);

	/* A listing cut at out_cap cannot tell the newest. */
	load_job(f, NULL, NULL, "i=0; while [ $i -lt 500 ]; do echo job-$i F; i=$((i+1)); done",
	    "job-[0-9]+", NULL);
	f->jc.out_cap = 1000;
	assert_int_equal(jobctl_find(&f->jc, "n", &id, &st, &why), WK_ERR_TOOLONG);
	free(why);
	f->jc.out_cap = JOBCTL_OUT_CAP;
	assert_int_equal(jobctl_find(&f->jc, "n", &id, &st, &why), 0);
	assert_string_equal(id, "job-0");
	assert_int_equal(st, JOB_FAILED);
	free(id);
}

/* Write job-1's log through jobctl_logs with cap; what was written. */
static char *
logs_of(struct fx *f, size_t cap)
{
	char path[PATH_MAX + 32], *why, *text;
	int fd;

	snprintf(path, sizeof(path), "%s/log.out", f->dir);
	assert_true((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0);
	assert_int_equal(jobctl_logs(&f->jc, "job-1", 0, fd, cap, NULL, &why), 0);
	assert_null(why);
	close(fd);
	assert_non_null(text = slurp(path));
	return text;
}

static void
test_logs_contract(void **state)
{
	struct fx *f = *state;
	cJSON *job = cJSON_CreateObject();
	struct diag d = DIAG_INIT;
	char *text;

	cJSON_AddStringToObject(job, "submit", "echo job-1");
	cJSON_AddStringToObject(job, "status", "echo R");
	cJSON_AddStringToObject(job, "logs", "[ {id} = job-1 ] && printf '%s' \"$JT_OUT\" && "
	    "[ -z \"$JT_BIG\" ] || { yes 'a line of log' | head -c 5000000; echo; echo END; }");
	cJSON_AddStringToObject(job, "id_regex", "job-[0-9]+");
	assert_int_equal(load_doc(f, run_doc(f, NULL, job), &d), 0);

	/* Shorter than cap: all of it, as it was. */
	setenv("JT_OUT", "first\nsecond\nno newline at the end", 1);
	text = logs_of(f, 1000);
	assert_string_equal(text, "first\nsecond\nno newline at the end");
	free(text);
	/* Cut: the last cap bytes, from the first whole line among them. */
	text = logs_of(f, 24);
	assert_string_equal(text, "no newline at the end");
	free(text);
	/* Megabytes through a small cap: the end, bounded. */
	setenv("JT_BIG", "1", 1);
	text = logs_of(f, 100);
	assert_true(strlen(text) <= 100);
	assert_int_equal(strncmp(text, "a line of log\n", 14), 0);
	assert_string_equal(text + strlen(text) - 4, "END\n");
	free(text);
	unsetenv("JT_BIG");
}

static void
test_states_map_checked(void **state)
{
	struct fx *f = *state;
	struct diag d = DIAG_INIT;
	cJSON *states = cJSON_CreateObject();
	enum job_state st;
	char *raw, *why;
	size_t i;
	int n, seen_done = 0, seen_twice = 0, seen_both = 0;

	cJSON_AddItemToObject(states, "done", cJSON_CreateStringArray((const char *[]){ "D" }, 1));
	cJSON_AddItemToObject(states, "running", cJSON_CreateStringArray(
	    (const char *[]){ "R", "R" }, 2));
	cJSON_AddStringToObject(states, "failed", "R");
	cJSON_AddStringToObject(states, "stopped", "TWO WORDS");
	load_job(f, "echo job-1 {name}", NULL, NULL, "job-[0-9]+", states);
	n = jobctl_check(f->cfg, &d);
	assert_int_equal((size_t)n, d.n);
	for (i = 0; i < d.n; i++) {
		seen_done |= strstr(d.msgs[i], "\"job.states.done\": \"done\" is not one of") != NULL;
		seen_twice |= strstr(d.msgs[i], "\"R\" is listed twice") != NULL;
		seen_both |= strstr(d.msgs[i], "under both \"running\" and \"failed\"") != NULL;
		assert_non_null(strstr(d.msgs[i], f->cfg->path));
	}
	assert_true(seen_done && seen_twice && seen_both);
	/* submit without {command}; no find, so no complaint about it. */
	for (i = 0, n = 0; i < d.n; i++)
		n += strstr(d.msgs[i], "\"job.submit\": does not use {command}") != NULL;
	assert_int_equal(n, 1);
	diag_free(&d);

	/* A broken map refuses to map anything. */
	setenv("JT_OUT", "R", 1);
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), WK_ERR_INVALID);
	assert_null(raw);
	assert_non_null(strstr(why, "job.states"));
	free(why);

	/* No map at all: every state is unknown, and says so. */
	load_job(f, NULL, NULL, NULL, "job-[0-9]+", cJSON_CreateObject());
	assert_int_equal(jobctl_status(&f->jc, "job-1", &st, &raw, &why), 0);
	assert_int_equal(st, JOB_UNKNOWN);
	assert_non_null(strstr(why, "\"R\" is not in job.states"));
	free(raw);
	free(why);
}

static void
test_names(void **state)
{
	struct fx *f = *state;
	char *n;

	load_job(f, NULL, NULL, NULL, "job-[0-9]+", NULL);
	n = jobctl_job_name(f->cfg, "train");
	assert_string_equal(n, "wk-r1-train");
	free(n);
	assert_string_equal(job_state_name(JOB_PENDING), "pending");
	assert_string_equal(job_state_name(JOB_RUNNING), "running");
	assert_string_equal(job_state_name(JOB_SUCCEEDED), "succeeded");
	assert_string_equal(job_state_name(JOB_FAILED), "failed");
	assert_string_equal(job_state_name(JOB_STOPPED), "stopped");
	assert_string_equal(job_state_name(JOB_UNKNOWN), "unknown");
	assert_true(job_state_live(JOB_RUNNING) && !job_state_live(JOB_UNKNOWN));
	assert_true(job_state_final(JOB_STOPPED) && !job_state_final(JOB_PENDING));
	assert_false(job_state_final(JOB_UNKNOWN));
}

/* The profiles' data. */

static void
check_ray_id(const char *name, const char *id)
{
	size_t n = strlen(name), i;

	/* <name>-YYYYMMDD-HHMMSS */
	assert_int_equal(strncmp(id, name, n), 0);
	assert_int_equal(strlen(id), n + 16);
	assert_int_equal(id[n], '-');
	assert_int_equal(id[n + 9], '-');
	for (i = n + 1; i < n + 16; i++)
		if (i != n + 9)
			assert_true(isdigit((unsigned char)id[i]));
}

static void
check_iris_id(const char *name, const char *id)
{
	char want[256];

	snprintf(want, sizeof(want), "/alice/%s", name);
	assert_string_equal(id, want);
}

static const struct smap ray_states[] = {
	{ "PENDING", JOB_PENDING },	/* first: the state after submit */
	{ "RUNNING", JOB_RUNNING },
	{ "SUCCEEDED", JOB_SUCCEEDED },
	{ "FAILED", JOB_FAILED },
	{ "STOPPED", JOB_STOPPED },
	{ "PENDING", JOB_PENDING },	/* back from a terminal state's other output shape */
};

static const char *const ray_resubmit[] = { "ray", "job", "submit", "--submission-id",
	NAME "-29991231-235959", "--no-wait", "--", "python", "train.py", NULL };

static const struct prof prof_ray = {
	.name = "ray", .cli = "ray", .fake = "fake-ray",
	.states = ray_states, .nstates = sizeof(ray_states) / sizeof(ray_states[0]),
	.running = "RUNNING", .failed = "FAILED", .weird = "RESCHEDULING", .stopped = "STOPPED",
	.cmd_arg = 6, .workdir_arg = 5,
	.resubmit = ray_resubmit, .resubmit_id = NAME "-29991231-235959",
	.log_start = "line ", .check_id = check_ray_id,
};

/* The seed's Iris (FAKE_IRIS_GEN old): `job list --json`, JOB_STATE_* words. */
static const struct smap iris_json_states[] = {
	{ "JOB_STATE_PENDING", JOB_PENDING },
	{ "JOB_STATE_BUILDING", JOB_PENDING },
	{ "JOB_STATE_RUNNING", JOB_RUNNING },
	{ "JOB_STATE_SUCCEEDED", JOB_SUCCEEDED },
	{ "JOB_STATE_FAILED", JOB_FAILED },
	{ "JOB_STATE_KILLED", JOB_STOPPED },
	{ "JOB_STATE_WORKER_FAILED", JOB_FAILED },
	{ "JOB_STATE_UNSCHEDULABLE", JOB_FAILED },
};

/* Today's Iris (mid, new): lowercase JobState values (resources/state.py:9-18@2dfb0794). */
static const struct smap iris_states[] = {
	{ "pending", JOB_PENDING },
	{ "building", JOB_PENDING },
	{ "running", JOB_RUNNING },
	{ "succeeded", JOB_SUCCEEDED },
	{ "failed", JOB_FAILED },
	{ "killed", JOB_STOPPED },
	{ "worker_failed", JOB_FAILED },
	{ "unschedulable", JOB_FAILED },
};

/*
 * Iris gives a name one id per user (a finished job's is reused), and find
 * narrows `job list` by /<user>/<name>: no second job of one name to find.
 */
#define IRIS_PROF(g_, st_, run_, fail_, weird_, kill_) { \
	.name = "iris", .cli = "iris", .fake = "fake-iris", .gen = g_, \
	.states = st_, .nstates = sizeof(st_) / sizeof(st_[0]), \
	.running = run_, .failed = fail_, .weird = weird_, .stopped = kill_, \
	.cmd_arg = 3, .workdir_arg = 0, .resubmit = NULL, .resubmit_id = NULL, \
	.log_start = "[", .check_id = check_iris_id, \
}
static const struct prof prof_iris_json = IRIS_PROF("old", iris_json_states, "JOB_STATE_RUNNING",
    "JOB_STATE_FAILED", "JOB_STATE_UNSPECIFIED", "JOB_STATE_KILLED");
static const struct prof prof_iris_summary = IRIS_PROF("mid", iris_states, "running", "failed",
    "unspecified", "killed");
static const struct prof prof_iris = IRIS_PROF("new", iris_states, "running", "failed",
    "unspecified", "killed");

/* Iris only: a fixed name is reused once its job is terminal; child jobs are not ours. */
static void
test_iris_reuses_id(void **state)
{
	struct fx *f = *state;
	static const char *const again[] = { "iris", "job", "run", "--no-wait", "--job-name",
		NAME, "--", "python", "train.py", NULL };
	enum job_state st;
	char *id = submit(f, NAME), *id2, *why;

	fake(f, "_add", "/alice/" NAME "/eval", f->p->running);
	fake(f, "_set", id, f->p->failed);
	expect_status(f, id, JOB_FAILED, f->p->failed);
	free(fake_argv(again));
	assert_int_equal(jobctl_find(&f->jc, NAME, &id2, &st, &why), 0);
	assert_string_equal(id2, id);
	assert_int_equal(st, JOB_PENDING);
	free(id2);
	expect_status(f, id, JOB_PENDING, f->p->states[0].raw);
	free(id);
}

#define PROF_TESTS(p) \
	cmocka_unit_test_prestate_setup_teardown(test_profile_checks, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_submit_captures_id, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_pending_is_pending, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_status_maps_every_state, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_unknown_state, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_failing_cli, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_hanging_cli, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_find_reconciles, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_stop, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_logs, prof_setup, teardown, (void *)&p), \
	cmocka_unit_test_prestate_setup_teardown(test_hostile_stays_data, prof_setup, teardown, (void *)&p)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		PROF_TESTS(prof_ray),
		PROF_TESTS(prof_iris_json),
		PROF_TESTS(prof_iris_summary),
		PROF_TESTS(prof_iris),
		cmocka_unit_test_prestate_setup_teardown(test_iris_reuses_id, prof_setup, teardown,
		    (void *)&prof_iris_json),
		cmocka_unit_test_prestate_setup_teardown(test_iris_reuses_id, prof_setup, teardown,
		    (void *)&prof_iris),
		cmocka_unit_test_setup_teardown(test_status_output_contract, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_failures, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_contract, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_placeholders, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_contract, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_dialects_options_since, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_options_checked, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_logs_contract, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_states_map_checked, plain_setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, plain_setup, teardown),
	};

	/* A CLI that dies mid-write must not take the test runner with it. */
	signal(SIGPIPE, SIG_DFL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
