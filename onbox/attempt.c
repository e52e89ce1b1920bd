/*
 * attempt.c: the wrapper's process record (attempts/<stage>.<n>.json) and
 * the wrapper itself (see attempt.h for why the two files of an attempt have
 * one writer each).  The attempt history, stages/<stage>.json, is
 * core/history.c's: its one parser and emitter, shared with policy, patrol
 * and the handbook.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attempt.h"
#include "err.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "proc.h"
#include "spawn.h"
#include "xmalloc.h"

static const struct {
	int		 signo;
	const char	*name;
} sig_table[] = {
	{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" },
	{ SIGILL, "SIGILL" }, { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
	{ SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGKILL, "SIGKILL" },
	{ SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
	{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" },
	{ SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" },
};

const char *
signame(int signo, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(sig_table) / sizeof(sig_table[0]); i++)
		if (sig_table[i].signo == signo)
			return sig_table[i].name;
	snprintf(buf, len, "SIG%d", signo);
	return buf;
}

int
attempt_rec_load(const char *workdir, const char *stage, long n, struct attempt_rec *rec)
{
	char *path = layout_attempt_record(workdir, stage, n);
	cJSON *doc = NULL;
	int r;

	memset(rec, 0, sizeof(*rec));
	r = jsonfile_load(path, &doc);
	free(path);
	if (r != 0)
		return WK_ERR_NOTFOUND;
	rec->exited = strcmp(json_str(doc, "state", ""), "exited") == 0;
	rec->pid = json_long(doc, "pid", 0);
	rec->pid_start = (uint64_t)json_num(doc, "pid_start", 0);
	rec->wrapper_pid = json_long(doc, "wrapper_pid", 0);
	rec->wrapper_start = (uint64_t)json_num(doc, "wrapper_start", 0);
	snprintf(rec->boot, sizeof(rec->boot), "%s", json_str(doc, "boot", ""));
	rec->exit_code = (int)json_long(doc, "exit_code", -1);
	rec->signo = (int)json_long(doc, "signal", 0);
	rec->exec_errno = (int)json_long(doc, "exec_errno", 0);
	cJSON_Delete(doc);
	return 0;
}

#define REC_TRIES	5	/* a briefly full disk: the end record is worth a short wait */
#define REC_RETRY_MS	200

/* The wrapper's record, written whole each time (atomically).  0 or -1 (errno set). */
static int
wrapper_record_once(const char *path, const char *stage, long n, const struct proc_id *self,
    const struct proc_id *child, int status, int exec_errno, int exited)
{
	cJSON *doc = cJSON_CreateObject();
	char when[TIMEFMT_LEN];
	int r;

	timefmt_utc(time(NULL), when, sizeof(when));
	cJSON_AddStringToObject(doc, "stage", stage);
	cJSON_AddNumberToObject(doc, "attempt", (double)n);
	cJSON_AddStringToObject(doc, "state", exited ? "exited" : "running");
	cJSON_AddStringToObject(doc, "boot", self->boot);
	cJSON_AddNumberToObject(doc, "wrapper_pid", (double)self->pid);
	cJSON_AddNumberToObject(doc, "wrapper_start", (double)self->start);
	cJSON_AddNumberToObject(doc, "pid", (double)child->pid);
	cJSON_AddNumberToObject(doc, "pid_start", (double)child->start);
	cJSON_AddNumberToObject(doc, "pgid", (double)child->pid);
	if (exited) {
		cJSON_AddStringToObject(doc, "ended", when);
		if (exec_errno != 0) {
			cJSON_AddNumberToObject(doc, "exit_code", 127);
			cJSON_AddNumberToObject(doc, "exec_errno", exec_errno);
			cJSON_AddStringToObject(doc, "exec_error", strerror(exec_errno));
		} else if (WIFSIGNALED(status))
			cJSON_AddNumberToObject(doc, "signal", WTERMSIG(status));
		else
			cJSON_AddNumberToObject(doc, "exit_code", WEXITSTATUS(status));
	}
	r = jsonfile_save(path, doc) == 0 ? 0 : -1;
	cJSON_Delete(doc);
	return r;
}

/*
 * wrapper_record_once, tried REC_TRIES times REC_RETRY_MS apart: a stage
 * that finished fine while the disk was briefly full must not be classed
 * "lost" for want of one small file.  Nobody to report a final failure to:
 * onbox treats a missing end as "lost".
 */
static void
wrapper_record(const char *path, const char *stage, long n, const struct proc_id *self,
    const struct proc_id *child, int status, int exec_errno, int exited)
{
	int i;

	for (i = 0; i < REC_TRIES; i++) {
		if (i > 0)
			usleep(REC_RETRY_MS * 1000);
		if (wrapper_record_once(path, stage, n, self, child, status, exec_errno, exited) == 0)
			return;
	}
}

/* The wrapper's record of its stage, written by wrapper_started(). */
struct wrapper_rec {
	const char		*path;
	const char		*stage;
	long			 n;
	const struct proc_id	*self;
	struct proc_id		*child;
};

/*
 * spawn's started() callback: record the stage's process before it runs a
 * single instruction, so whoever sees the stage's first effect (a file it
 * writes, a line it logs) also finds its attempt record: onbox stop and
 * status right after start know its process group.
 */
static void
wrapper_started(pid_t pid, void *arg)
{
	struct wrapper_rec *w = arg;

	proc_identify(pid, w->child);
	wrapper_record(w->path, w->stage, w->n, w->self, w->child, 0, 0, 0);
}

/* In the wrapper process: never returns. */
static _Noreturn void
wrapper_main(const struct wk_config *cfg, const struct wk_stage *st, const char *command, long n,
    int logfd)
{
	struct spawn_opts o;
	struct proc_id self, child;
	char *rec = layout_attempt_record(cfg->workdir, st->name, n);
	struct wrapper_rec w = { rec, st->name, n, &self, &child };
	char num[32];
	int status = 0;
	pid_t pid;

	log_tee_close();	/* spawn_fork closed it; forget the number */
	prctl(PR_SET_NAME, "wk-wrap", 0, 0, 0);
	snprintf(num, sizeof(num), "%ld", n);
	setenv("WATCHKEEPER_RUN", cfg->run, 1);
	setenv("WATCHKEEPER_STAGE", st->name, 1);
	setenv("WATCHKEEPER_ATTEMPT", num, 1);
	setenv("WATCHKEEPER_WORKDIR", cfg->workdir, 1);
	proc_identify(getpid(), &self);
	memset(&child, 0, sizeof(child));

	spawn_opts_init(&o);
	o.cwd = cfg->workdir;
	o.fd_out = logfd;
	o.fd_err = SPAWN_STDOUT;
	o.new_pgrp = 1;		/* so a timeout can stop the whole tree */
	o.started = wrapper_started;
	o.started_arg = &w;
	pid = spawn_sh(command, &o);
	if (pid < 0) {
		wrapper_record(rec, st->name, n, &self, &child, 0, errno ? errno : ENOEXEC, 1);
		free(rec);
		_exit(0);
	}
	close(logfd);
	if (spawn_wait(pid, &status) != 0) {
		free(rec);
		_exit(1);	/* no status to record: onbox reports the attempt as lost */
	}
	wrapper_record(rec, st->name, n, &self, &child, status, 0, 1);
	free(rec);
	_exit(0);
}

pid_t
attempt_launch(const struct wk_config *cfg, const struct wk_stage *st, const char *command, long n,
    char **why)
{
	struct spawn_opts o;
	char *lockp = layout_attempt_lock(cfg->workdir, st->name, n);
	char *logp = layout_attempt_log(cfg->workdir, st->name, n);
	int lockfd = -1, logfd = -1, keep[2];
	pid_t pid = WK_ERR_SYSTEM;

	*why = NULL;
	if ((lockfd = lock_try(lockp)) < 0) {
		*why = xstrfmt("%s: %s", lockp, wk_strerror(lockfd));
		pid = lockfd;
		goto out;
	}
	logfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (logfd < 0) {
		*why = xstrfmt("%s: %s", logp, wk_strerror(WK_ERR_SYSTEM));
		goto out;
	}
	spawn_opts_init(&o);
	o.new_session = 1;	/* survives onbox, its tmux pane and its terminal */
	keep[0] = lockfd;
	keep[1] = logfd;
	o.keep_fds = keep;
	o.nkeep = 2;
	pid = spawn_fork(&o);
	if (pid == 0) {
		/* The wrapper never returns here: what this frame owns goes first. */
		free(lockp);
		free(logp);
		wrapper_main(cfg, st, command, n, logfd);
	}
	if (pid < 0)
		*why = xstrfmt("fork: %s", wk_strerror(WK_ERR_SYSTEM));
 out:
	/* The wrapper holds its own references to the lock and the log. */
	if (lockfd >= 0)
		close(lockfd);
	if (logfd >= 0)
		close(logfd);
	free(lockp);
	free(logp);
	return pid;
}
