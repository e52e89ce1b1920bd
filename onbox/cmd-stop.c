/*
 * cmd-stop.c: `onbox stop`: end the run on purpose.
 *
 * The stage's whole process group gets SIGTERM, then SIGKILL after
 * stop_grace_s (a training may save a checkpoint on SIGTERM).  Whoever holds
 * the run's lock does it, so two processes never judge one attempt:
 *  - an onbox runs the chain (it holds onbox.lock): stop writes
 *    stop.request (atomic), then sends SIGUSR1 to that onbox, the pid from
 *    state.json checked to be the very process holding the lock file open
 *    (never a pid taken on trust); the runner stops its stage, records the
 *    attempt as stopped, the stopped record and run_stopped, and exits.  We
 *    wait, bounded by stop_grace_s and a margin, for its lock to go.
 *  - no onbox holds the lock: we take it and do the same ourselves for a
 *    stage left running without its onbox (its pgid from the attempt's
 *    record, checked against the wrapper's lock or the process's identity),
 *    or record "nothing was running", so nothing resumes the run.
 *  - detach slurm: the stage runs on a compute node; the request reaches
 *    its onbox through Slurm (stop_slurm), and the run's other queued jobs
 *    are cancelled.
 * A stopped attempt is not a failure: no FAILED marker, no class, no policy
 * decision.  `onbox start`/`onbox run` remove the stopped record.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attempt.h"
#include "config.h"
#include "err.h"
#include "events.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "notify.h"
#include "onbox.h"
#include "outbox.h"
#include "jobctl.h"
#include "proc.h"
#include "slurm.h"
#include "stop.h"
#include "xmalloc.h"

#define STOP_FIND_MS	5000	/* a runner names itself in state.json right after taking the lock */
#define STOP_MARGIN_MS	30000	/* beyond the grace: the runner's records and last deliveries */
#define STOP_WRAP_MS	5000	/* a wrapper records its stage's end and exits */

/* "stopped run R: stage S attempt N (how) by WHO at WHEN" from the stopped record. */
static void
stop_say(const struct wk_config *cfg, const cJSON *rec)
{
	const char *stage = json_str(rec, "stage", NULL);
	long n = json_long(rec, "attempt", 0);

	if (stage != NULL && n > 0)
		printf("stopped run %s: stage %s attempt %ld (%s), by %s at %s\n", cfg->run, stage,
		    n, json_str(rec, "how", "?"), json_str(rec, "by", "?"), json_str(rec, "when", "?"));
	else
		printf("stopped run %s before stage %s (%s), by %s at %s\n", cfg->run,
		    stage != NULL ? stage : "?", json_str(rec, "how", "?"), json_str(rec, "by", "?"),
		    json_str(rec, "when", "?"));
	printf("  it stays stopped (patrol reports STOPPED, auto_resume leaves it); start it again "
	    "from the first missing marker with `onbox start` or `patrol deploy`\n");
}

/*
 * The pid of the onbox holding lockp: state.json's onbox_pid, only once that
 * process really has the lock file open.  0 when the lock went free; -1 when
 * no holder could be named within STOP_FIND_MS.
 */
static long
stop_find_runner(const struct wk_config *cfg, const char *lockp)
{
	char *sp = layout_path(cfg->workdir, "state.json");
	struct deadline d;
	cJSON *doc;
	long pid = -1, cand;

	deadline_set(&d, STOP_FIND_MS);
	while (!deadline_expired(&d)) {
		if (lock_is_held(lockp) != 1) {
			pid = 0;
			break;
		}
		doc = NULL;
		cand = jsonfile_load(sp, &doc) == 0 ? json_long(doc, "onbox_pid", 0) : 0;
		cJSON_Delete(doc);
		if (cand > 0 && cand != (long)getpid() && proc_has_open((pid_t)cand, lockp)) {
			pid = cand;
			break;
		}
		usleep(20000);
	}
	free(sp);
	return pid;
}

/* Queue run_stopped for the sinks, log it, and try to deliver it now (bounded by the sinks' timeout). */
static void
stop_emit(const struct wk_config *cfg, const char *stage, long attempt, const char *by,
    const char *how)
{
	struct notify_sinks sinks;
	struct outbox_opts o;
	struct outbox_result res;
	char instance[17] = "0000000000000000", *od = layout_path(cfg->workdir, "outbox");
	cJSON *ev;
	int fd;

	if (events_instance(cfg->workdir, instance) != 0)
		log_warn("cannot read the instance id in %s: %s", cfg->workdir, wk_strerror(WK_ERR_SYSTEM));
	ev = events_new(instance, cfg->run, "run_stopped", stage, attempt);
	cJSON_AddStringToObject(ev, "by", by);
	cJSON_AddStringToObject(ev, "how", how);
	/* the box's sinks: the secrets file patrol sent, and the runs' live cards */
	notify_sinks_load_box(cfg, &sinks);
	outbox_opts_from_config(cfg, &o);
	/* The outbox first (as the runner does): killed in between, it is still sent. */
	if (sinks.n > 0 && outbox_enqueue(od, &sinks, ev, &o) < 0)
		log_error("cannot queue run_stopped in %s: %s", od, wk_strerror(WK_ERR_SYSTEM));
	if (events_append(cfg->workdir, ev) != 0)
		log_warn("cannot append to %s/.watchkeeper/%s: %s", cfg->workdir, EVENTS_FILE,
		    wk_strerror(WK_ERR_SYSTEM));
	if (sinks.n > 0 && (fd = outbox_lock(od, (int)(sinks.timeout_s + 2) * 1000)) >= 0) {
		outbox_flush(od, &sinks, &o, 0, 0, &res);
		close(fd);
		if (res.pending > 0)
			printf("  %d notification(s) not delivered yet: kept in %s; the next onbox or "
			    "`onbox notify --flush` sends them\n", res.pending, od);
	}
	cJSON_Delete(ev);
	notify_sinks_free(&sinks);
	free(od);
}

/* state.json says "stopped" (no onbox runs to write it again). */
static void
stop_state(const struct wk_config *cfg)
{
	char *sp = layout_path(cfg->workdir, "state.json");
	cJSON *doc = NULL;

	if (jsonfile_load(sp, &doc) == 0) {
		json_set_str(doc, "status", "stopped");
		json_set_num(doc, "stage_pid", 0);
		(void)jsonfile_save(sp, doc);
	}
	cJSON_Delete(doc);
	free(sp);
}

/*
 * We hold the run's lock: stop a stage left running without its onbox, or
 * record that nothing ran.  Returns an exit code.
 */
static int
stop_local(const struct wk_config *cfg, const char *by)
{
	const struct wk_stage *st;
	struct attempt_rec rec;
	struct proc_id child;
	struct deadline d;
	cJSON *hist = NULL, *a, *req = stop_request_load(cfg->workdir), *srec = NULL;
	cJSON *before = stop_record_load(cfg->workdir);
	char *lockp = NULL, how[200];
	size_t i;
	long n = 0;
	int rc = 0, alive = 0, killed = 0, mark = 0;

	if (req != NULL)
		by = json_str(req, "by", by);
	if ((i = runner_first_missing(cfg)) == cfg->nchain) {
		char *rq = layout_path(cfg->workdir, STOP_REQUEST);

		(void)unlink(rq);
		free(rq);
		printf("run %s is done (every marker is present): nothing to stop, not recorded as "
		    "stopped\n", cfg->run);
		goto out;
	}
	st = &cfg->chain[i];
	hist = hist_load(cfg->workdir, st->name);
	a = hist_last(hist);
	snprintf(how, sizeof(how), "nothing was running");
	if (a != NULL && (strcmp(json_str(a, HIST_KEY_RESULT, ""), "starting") == 0 ||
	    strcmp(json_str(a, HIST_KEY_RESULT, ""), "running") == 0)) {
		n = hist_n(a);
		if (strcmp(json_str(a, HIST_KEY_KIND, ""), "wait") == 0) {
			snprintf(how, sizeof(how), "a wait: nothing of ours to signal");
			mark = 1;
		} else if (cfg->detach_kind == DETACH_JOB) {
			log_error("stage %s attempt %ld runs as a cluster job (\"detach\": \"job\") and no "
			    "onbox watches it: start onbox again (`onbox start`), then `onbox stop` (it "
			    "runs the profile's job.stop), or stop the job yourself", st->name, n);
			rc = WK_EX_CONFIG;
			goto out;
		} else {
			lockp = layout_attempt_lock(cfg->workdir, st->name, n);
			memset(&rec, 0, sizeof(rec));
			(void)attempt_rec_load(cfg->workdir, st->name, n, &rec);
			child.pid = (pid_t)rec.pid;
			child.start = rec.pid_start;
			snprintf(child.boot, sizeof(child.boot), "%s", rec.boot);
			/* The wrapper's lock vouches for the record's pgid; else the process's own identity. */
			alive = rec.pid > 0 && !rec.exited &&
			    (lock_is_held(lockp) == 1 || proc_alive(&child) || proc_group_alive(child.pid));
		}
	}
	if (alive) {
		printf("stage %s attempt %ld (process group %ld) runs without its onbox: SIGTERM, "
		    "SIGKILL after %ld s\n", st->name, n, rec.pid, cfg->stop_grace_s);
		fflush(stdout);
		if (stop_group((pid_t)rec.pid, cfg->stop_grace_s, NULL, NULL, &killed) != 0)
			rc = WK_EX_SOFTWARE;
		if (killed)
			snprintf(how, sizeof(how), "SIGTERM, then SIGKILL after stop_grace_s=%lds "
			    "(no onbox watched it)", cfg->stop_grace_s);
		else
			snprintf(how, sizeof(how), "SIGTERM; it ended within stop_grace_s=%lds (no "
			    "onbox watched it)", cfg->stop_grace_s);
		deadline_set(&d, STOP_WRAP_MS);
		while (lock_is_held(lockp) == 1 && !deadline_expired(&d))
			usleep(20000);
		mark = 1;
	} else if (n > 0 && !mark)
		n = 0;	/* it ended unwatched: the next onbox judges it as it is */
	if (!alive && !mark && before != NULL) {
		/* stopped already and nothing runs: the first record (and its event) stands */
		char *rq = layout_path(cfg->workdir, STOP_REQUEST);

		(void)unlink(rq);
		free(rq);
		printf("run %s was already stopped and nothing runs:\n", cfg->run);
		stop_say(cfg, before);
		goto out;
	}
	if (mark) {
		stop_mark_attempt(a, by, how);
		if (hist_save(cfg->workdir, st->name, hist) != 0)
			log_error("cannot write the history of stage %s: %s", st->name, wk_strerror(WK_ERR_SYSTEM));
	}
	if (stop_record_write(cfg->workdir, cfg->run, by, json_str(req, "nonce", NULL), st->name, n,
	    how) != 0) {
		log_error("cannot write %s/.watchkeeper/%s: %s", cfg->workdir, STOP_RECORD,
		    wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	stop_state(cfg);
	stop_emit(cfg, st->name, n, by, how);
	if (!alive && !mark)
		printf("run %s: nothing was running; recorded as stopped so that nothing resumes it\n",
		    cfg->run);
	if ((srec = stop_record_load(cfg->workdir)) != NULL)
		stop_say(cfg, srec);
 out:
	cJSON_Delete(srec);
	cJSON_Delete(before);
	cJSON_Delete(req);
	cJSON_Delete(hist);
	free(lockp);
	return rc;
}

#define STOP_SLURM_MAX	256	/* live jobs of one run: one per stage, and a few by hand */

/*
 * The run's jobs still in the queue, at most STOP_SLURM_MAX; running ones into
 * run too.  Stranded ones count: a later stage's job whose dependency can no
 * longer be met (the stage before it was just stopped) stays pending for ever
 * unless it is cancelled, and Slurm may call it stranded before the second
 * look at the queue or after it.
 */
static size_t
stop_slurm_live(const struct slurm_view *sv, const char **ids, const char **run, size_t *nrun)
{
	size_t i, n = 0;

	*nrun = 0;
	for (i = 0; i < sv->njobs && n < STOP_SLURM_MAX; i++) {
		const struct slurm_job *j = &sv->jobs[i];

		if (!j->in_queue || !(slurm_cls_live(j->cls) || j->cls == SLURM_UNKNOWN ||
		    j->cls == SLURM_STRANDED))
			continue;
		ids[n++] = j->id;
		if (j->cls == SLURM_RUNNING)
			run[(*nrun)++] = j->id;
	}
	return n;
}

/* `scancel [--batch --signal=USR1] ids`; 0 or -1 (said). */
static int
stop_scancel(const struct wk_config *cfg, const char *opts, const char **ids, size_t n)
{
	struct jobctl jc;
	char *base = slurm_scancel_command(ids, n), *cmd, *out = NULL, *why = NULL;
	int r = 0;

	jobctl_init(&jc, cfg);
	cmd = xstrfmt("scancel%s%s", opts, base + strlen("scancel"));
	if (jobctl_exec(&jc, "scancel", cmd, &out, &why) != 0) {
		log_error("%s failed: %s", cmd, why != NULL ? why : "?");
		r = -1;
	}
	free(base);
	free(cmd);
	free(out);
	free(why);
	return r;
}

/*
 * detach slurm: the stage runs on a compute node as `onbox run --stage`
 * (the job's batch shell execs it), so the stop goes through Slurm: the
 * request is written in the (shared) workdir, SIGUSR1 reaches that onbox
 * (`scancel --batch --signal=USR1`), which stops its stage as everywhere
 * (SIGTERM, SIGKILL after stop_grace_s), records it and exits; then every
 * job of the run still in the queue (later stages waiting on it) is
 * cancelled.  With nothing running, the jobs are cancelled and the stop is
 * recorded here.
 */
static int
stop_slurm(const struct wk_config *cfg, const char *by)
{
	struct slurm_view sv;
	struct deadline d;
	const char *ids[STOP_SLURM_MAX], *run[STOP_SLURM_MAX];
	char *why = NULL, nonce[17], how[200];
	cJSON *rec = NULL;
	size_t n, nrun = 0, i, first;
	int rc = 0;

	memset(&sv, 0, sizeof(sv));
	if (slurm_ask(cfg, &sv, &why) != 0 || !sv.queue_known) {
		log_error("cannot read the Slurm queue (%s): nothing cancelled, nothing recorded",
		    why != NULL ? why : sv.why != NULL ? sv.why : "?");
		rc = WK_EX_TEMPFAIL;
		goto out;
	}
	n = stop_slurm_live(&sv, ids, run, &nrun);
	if (stop_request_write(cfg->workdir, by, nonce) != 0) {
		log_error("cannot write %s/.watchkeeper/%s: %s", cfg->workdir, STOP_REQUEST,
		    wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	if (nrun > 0) {
		printf("asking the onbox of Slurm job%s", nrun > 1 ? "s" : "");
		for (i = 0; i < nrun; i++)
			printf(" %s", run[i]);
		printf(" to stop run %s: SIGTERM to the stage's process group, SIGKILL after %ld s\n",
		    cfg->run, cfg->stop_grace_s);
		fflush(stdout);
		if (stop_scancel(cfg, " --batch --signal=USR1", run, nrun) != 0) {
			rc = WK_EX_SOFTWARE;
			goto out;
		}
		deadline_set(&d, (uint64_t)cfg->stop_grace_s * 1000 + STOP_MARGIN_MS);
		while (!deadline_expired(&d)) {
			cJSON_Delete(rec);
			rec = stop_record_load(cfg->workdir);
			if (rec != NULL && strcmp(json_str(rec, "nonce", ""), nonce) == 0)
				break;
			usleep(100000);
		}
	}
	/* Whatever is still queued (the later stages' jobs, a job that never started): cancelled. */
	slurm_view_free(&sv);
	free(why);
	why = NULL;
	memset(&sv, 0, sizeof(sv));
	if (slurm_ask(cfg, &sv, &why) == 0 && sv.queue_known) {
		if ((n = stop_slurm_live(&sv, ids, run, &nrun)) > 0) {
			printf("cancelling the run's job%s still in the queue:", n > 1 ? "s" : "");
			for (i = 0; i < n; i++)
				printf(" %s", ids[i]);
			printf("\n");
			if (stop_scancel(cfg, "", ids, n) != 0)
				rc = WK_EX_SOFTWARE;
		}
	} else
		log_error("cannot read the Slurm queue again (%s): cancel the run's jobs by hand "
		    "(squeue --name wk-%s-<stage>)", why != NULL ? why : sv.why != NULL ? sv.why : "?",
		    cfg->run);
	cJSON_Delete(rec);
	rec = stop_record_load(cfg->workdir);
	if (rec == NULL || strcmp(json_str(rec, "nonce", ""), nonce) != 0) {
		/* no onbox recorded it: nothing ran (or it could not be reached); recorded here */
		if ((first = runner_first_missing(cfg)) == cfg->nchain) {
			printf("run %s is done (every marker is present): not recorded as stopped\n",
			    cfg->run);
			goto out;
		}
		snprintf(how, sizeof(how), "%s", nrun > 0 ? "its Slurm jobs were cancelled; no onbox "
		    "recorded the stop" : n > 0 ? "its waiting Slurm jobs were cancelled" :
		    "nothing was running");
		if (stop_record_write(cfg->workdir, cfg->run, by, nonce, cfg->chain[first].name, 0,
		    how) != 0) {
			log_error("cannot write %s/.watchkeeper/%s: %s", cfg->workdir, STOP_RECORD,
			    wk_strerror(WK_ERR_SYSTEM));
			rc = WK_EX_IOERR;
			goto out;
		}
		stop_emit(cfg, cfg->chain[first].name, 0, by, how);
		cJSON_Delete(rec);
		rec = stop_record_load(cfg->workdir);
	}
	if (rec != NULL)
		stop_say(cfg, rec);
 out:
	cJSON_Delete(rec);
	slurm_view_free(&sv);
	free(why);
	return rc;
}

/*
 * An onbox holds the lock: ask it (stop.request + SIGUSR1) and wait for it
 * to let go.  0 it recorded our stop (printed); 1 the lock went free without
 * it (the caller takes over); else an exit code.
 */
static int
stop_ask(const struct wk_config *cfg, const char *lockp, const char *by)
{
	char nonce[17];
	time_t asked = time(NULL);
	struct deadline d;
	cJSON *rec;
	long pid;
	int rc = 1;

	if (stop_request_write(cfg->workdir, by, nonce) != 0) {
		log_error("cannot write %s/.watchkeeper/%s: %s", cfg->workdir, STOP_REQUEST,
		    wk_strerror(WK_ERR_SYSTEM));
		return WK_EX_IOERR;
	}
	if ((pid = stop_find_runner(cfg, lockp)) < 0) {
		log_error("an onbox holds %s but none could be named (state.json's onbox_pid does not "
		    "hold it); nothing signalled; the stop request stays in %s/.watchkeeper/%s for "
		    "it", lockp, cfg->workdir, STOP_REQUEST);
		return WK_EX_TEMPFAIL;
	}
	if (pid > 0) {
		if (kill((pid_t)pid, SIGUSR1) != 0 && errno != ESRCH) {
			log_error("cannot signal onbox pid %ld: %s", pid, wk_strerror(WK_ERR_SYSTEM));
			return WK_EX_SOFTWARE;
		}
		printf("asked onbox (pid %ld) to stop run %s: SIGTERM to the stage's process group, "
		    "SIGKILL after %ld s\n", pid, cfg->run, cfg->stop_grace_s);
		fflush(stdout);
		deadline_set(&d, (uint64_t)cfg->stop_grace_s * 1000 + STOP_MARGIN_MS);
		while (lock_is_held(lockp) == 1 && !deadline_expired(&d))
			usleep(50000);
		if (lock_is_held(lockp) == 1) {
			log_error("onbox (pid %ld) still holds %s %ld s after the request; see %s/"
			    ".watchkeeper/onbox.log", pid, lockp,
			    cfg->stop_grace_s + STOP_MARGIN_MS / 1000, cfg->workdir);
			return WK_EX_TEMPFAIL;
		}
	}
	rec = stop_record_load(cfg->workdir);
	/* ours, or another `onbox stop`'s that came at the same time: the run is stopped either way */
	if (rec != NULL && (strcmp(json_str(rec, "nonce", ""), nonce) == 0 ||
	    json_num(rec, "time_unix", 0) >= (double)asked)) {
		stop_say(cfg, rec);
		printf("  onbox (pid %ld) exited\n", pid);
		rc = 0;
	}
	cJSON_Delete(rec);
	return rc;
}

static int
cmd_stop_exec(struct onbox_ctx *ctx)
{
	struct wk_config *cfg = NULL;
	char *lockp = NULL, *failed = NULL, *by = NULL;
	const char *from;
	int rc, lockfd = -1;

	if ((rc = onbox_args_config(ctx, &onbox_cmd_stop, "by", &from, &cfg)) != 0)
		return rc;
	if (layout_create(cfg->workdir, &failed) != 0) {
		log_error("cannot create %s: %s", failed, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	by = stop_who(from);
	if (cfg->detach_kind == DETACH_SLURM) {
		rc = stop_slurm(cfg, by);
		goto out;
	}
	lockp = layout_path(cfg->workdir, "onbox.lock");
	if ((lockfd = lock_try(lockp)) == WK_ERR_BUSY) {
		if ((rc = stop_ask(cfg, lockp, by)) != 1)
			goto out;
		rc = 0;
		lockfd = lock_try(lockp);	/* it let go without recording our stop: ours now */
	}
	if (lockfd == WK_ERR_BUSY) {
		log_error("another onbox took run %s's lock (%s) meanwhile: run `onbox stop` again",
		    cfg->run, lockp);
		rc = WK_EX_TEMPFAIL;
		goto out;
	}
	if (lockfd < 0) {
		log_error("cannot lock %s: %s", lockp, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	rc = stop_local(cfg, by);
 out:
	if (lockfd >= 0)
		close(lockfd);
	free(lockp);
	free(failed);
	free(by);
	config_free(cfg);
	return rc;
}

const struct onbox_cmd onbox_cmd_stop = {
	.name = "stop",
	.args = "[-c FILE]",
	.help = "stop the run on purpose: SIGTERM to the stage's process group, SIGKILL after "
	    "stop_grace_s; it stays stopped until `onbox start`",
	.exec = cmd_stop_exec,
};
