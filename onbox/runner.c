/*
 * runner.c: `onbox run`: the chain, stage after stage, &&-gated.
 *
 * For each stage: skip it when its marker exists; re-attach to an attempt an
 * earlier onbox left running (its wrapper still holds the attempt lock);
 * finalize an attempt that ended while no onbox watched; otherwise launch a
 * new attempt.  While a stage runs, one poll(2) waits on inotify (the logs'
 * directories), a pidfd (the wrapper or the waited-for process), a signalfd
 * and the next deadline (heartbeat, timeouts, the stat-poll fallback for
 * filesystems where inotify sees nothing).  Nothing sleeps on a fixed beat.
 *
 * A marker is written only when the attempt exited 0 AND its done_when line
 * appeared in this attempt's output; otherwise <MARKER>.FAILED gets the
 * class, the exit status and the last lines, and nothing after it runs.
 *
 * `onbox run --stage NAME` is one Slurm job of a "detach": "slurm" chain
 * (each stage its own job, joined by afterok): the same runner_stage() on
 * that one stage, after checking that every stage before it has its marker,
 * then it stops.  Under Slurm (SLURM_JOB_ID set) every new attempt records
 * its job id, the job's SLURM_RESTART_COUNT and its node.  Slurm runs a
 * requeued job again under the same id with that count raised, having
 * stopped the earlier run's processes, often before its onbox could record
 * anything: the newest attempt, unfinished, of this job id and a lower
 * count was requeued.  That check comes before re-attaching or following
 * a pid, whose records are the earlier run's; it ends the attempt as
 * preempted (infrastructure: free of the restart budget) with no FAILED
 * marker and no policy decision, and a new attempt starts.
 *
 * This file owns the chain: runner_run (lock, signals, inotify, sinks,
 * the exit status), runner_chain and runner_one (stage after stage, policy
 * restarts), and runner_stage, which only picks the way into a stage's
 * attempt (entry.c), has it watched (supervise.c) and judged (finalize.c).
 * The parts and what they share: runner-int.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "layout.h"
#include "outbox.h"
#include "log.h"
#include "onbox.h"
#include "stop.h"
#include "runner-int.h"

static void
runner_stage_reset(struct runner *r)
{
	size_t i;

	for (i = 0; i < r->cur.nsrc; i++)
		source_close(r, &r->cur.src[i]);
	r->cur.nsrc = 0;
	triage_scan_reset(&r->cur.ts);
	r->cur.done_seen = r->cur.wait_seen = 0;
	r->cur.prog_have = 0;
	r->cur.prog_cur = r->cur.prog_max_log = 0;
	r->cur.stage_pid = 0;
}

/* hist_save of the current stage; on failure says which file and why.  0 or -1 (errno kept). */
int
runner_hist_save(struct runner *r, const cJSON *hist)
{
	char *path;
	int e;

	if (hist_save(r->run.cfg->workdir, r->cur.st->name, hist) == 0)
		return 0;
	e = errno;
	path = layout_stage_file(r->run.cfg->workdir, r->cur.st->name);
	log_error("cannot write the history of stage %s, %s: %s", r->cur.st->name, path, strerror(e));
	free(path);
	errno = e;
	return -1;
}

/*
 * Run (or re-attach to, or finish) the stage at idx: pick the way in
 * (runner_entry), take it (runner_enter; a new attempt when it ended or
 * there is none unfinished), watch the stage to its end, then judge it.
 * 0 success, 1 failed, 128+sig stopped, else an exit code.
 */
static int
runner_stage(struct runner *r, size_t idx)
{
	const struct wk_stage *st = &r->run.cfg->chain[idx];
	struct stage_ctx sc;
	enum sup_end end;
	int rc;

	r->cur.st = st;
	r->cur.idx = idx;
	runner_stage_reset(r);
	memset(&sc, 0, sizeof(sc));
	sc.w.pidfd = -1;
	sc.hist = hist_load(r->run.cfg->workdir, st->name);
	sc.a = hist_last(sc.hist);

	rc = runner_enter(r, &sc, runner_entry(r, &sc));
	if (rc == 0 && sc.a == NULL)
		rc = runner_new_attempt(r, &sc);
	if (rc != 0)
		goto out;
	r->cur.stage_pid = sc.rec.pid;
	end = st->has_wait ? runner_watch_wait(r, &sc) : runner_watch_run(r, &sc);
	if (end == SUP_STOP || r->run.stop_asked) {
		/* job backend: the job ended on jobrun_stop (SUP_GONE); else stop the group now */
		if (r->run.job != NULL)
			runner_stop_record(r, st, sc.hist, sc.a,
			    "job.stop: the cluster manager stopped its job");
		else
			runner_stop_stage(r, sc.hist, sc.a, &sc.w);
		rc = 128 + SIGTERM;
	} else if (end == SUP_SIGNAL)
		rc = 128 + r->run.got_signal;
	else
		rc = runner_judge(r, &sc, end);
 out:
	jobrun_detach(r->run.job);	/* it borrowed hist */
	free(sc.lockp);
	cJSON_Delete(sc.hist);
	return rc;
}

/*
 * A run outside the platform's persistent disk is lost with the container
 * (RunPod wipes everything but /workspace on stop): say so loudly, once.
 * A "<name>" part of the profile's path matches anything from there on.
 */
static void
runner_check_persistent(const struct wk_config *cfg)
{
	const char *pers = config_get_str(cfg, "platform.persistent");
	size_t n;

	if (pers == NULL || *pers == '\0')
		return;
	n = strcspn(pers, "<");
	while (n > 1 && pers[n - 1] == '/')
		n--;
	if (strncmp(cfg->workdir, pers, n) != 0 || (cfg->workdir[n] != '\0' && cfg->workdir[n] != '/' &&
	    pers[n] != '<'))
		log_warn("workdir %s is not under %s, this platform's persistent disk (profile %s): "
		    "it may not survive a stop or restart of the instance", cfg->workdir, pers,
		    cfg->profile != NULL ? cfg->profile : "?");
}

static int
runner_setup_signals(struct runner *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);	/* `onbox stop` (with a stop request on disk) */
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	r->run.sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return r->run.sfd < 0 ? -1 : 0;
}

/* 1 when the marker of stage idx is present. */
int
runner_has_marker(const struct wk_config *cfg, size_t idx)
{
	char *m = layout_marker(cfg->workdir, cfg->chain[idx].marker);
	int have = fs_exists(m);

	free(m);
	return have;
}

/* The first stage without its marker, or nchain when every marker is present. */
size_t
runner_first_missing(const struct wk_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nchain && runner_has_marker(cfg, i); i++)
		;
	return i;
}

/*
 * `onbox run --stage`: every stage before idx must have its marker (Slurm's
 * afterok dependency sees to it; a job submitted or run by hand may not).
 * 0, or -1 after naming the first one missing.
 */
static int
runner_stage_ready(const struct wk_config *cfg, size_t idx)
{
	const struct wk_stage *b;
	size_t i = runner_first_missing(cfg);
	char *f;

	if (i >= idx)
		return 0;
	b = &cfg->chain[i];
	f = layout_failed(cfg->workdir, b->marker);
	log_error("stage %s has no marker %s%s: %s's job must run after %s's "
	    "(sbatch --dependency=afterok)", b->name, b->marker,
	    fs_exists(f) ? " (it failed: see its .FAILED marker)" : "", cfg->chain[idx].name, b->name);
	free(f);
	return -1;
}

/* The whole chain from the first missing marker: 0 every marker present, else the stage's code. */
static int
runner_chain(struct runner *r)
{
	size_t i;
	int stage_rc;

	for (i = 0; i < r->run.cfg->nchain; i++) {
		if (runner_has_marker(r->run.cfg, i)) {
			runner_catch_up(r, i);
			continue;
		}
		r->cur.restart = 0;
		if (runner_stop_requested(r)) {
			/* asked between two stages: the next one is not started */
			r->cur.st = &r->run.cfg->chain[i];
			r->cur.idx = i;
			r->run.stop_asked = 1;
			runner_stop_record(r, r->cur.st, NULL, NULL, "between stages: nothing was running");
			return 128 + SIGTERM;
		}
		stage_rc = runner_stage(r, i);
		if (stage_rc == 1 && r->cur.restart) {
			/* The policy restarts it: the same stage again, as a new attempt. */
			i--;
			continue;
		}
		if (stage_rc != 0)
			return stage_rc;
	}
	return 0;
}

/*
 * Exactly stage idx (`onbox run --stage`): 0 its marker is there (now or
 * already: then nothing is launched), else the stage's code.  Policy
 * restarts happen here, in this process, as in runner_chain().
 */
static int
runner_one(struct runner *r, size_t idx)
{
	size_t i;
	int rc;

	/* Again under the run's lock: an onbox rerunning an earlier stage removes later markers. */
	if (runner_stage_ready(r->run.cfg, idx) != 0)
		return WK_EX_FAIL;
	for (i = 0; i < idx; i++)
		runner_catch_up(r, i);
	if (runner_has_marker(r->run.cfg, idx)) {
		log_info("stage %s: its marker %s is already there: nothing to run",
		    r->run.cfg->chain[idx].name, r->run.cfg->chain[idx].marker);
		runner_catch_up(r, idx);
		return 0;
	}
	do {
		r->cur.restart = 0;
		rc = runner_stage(r, idx);
	} while (rc == 1 && r->cur.restart);
	return rc;
}

int
runner_run(struct wk_config *cfg, const char *stage, int allow_dirty)
{
	struct runner r;
	char *lockp = NULL, *failed = NULL;
	size_t i = 0, only = 0;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.note.dl.pidfd = -1;
	r.run.cfg = cfg;
	r.run.lockfd = r.run.ifd = r.run.sfd = -1;
	r.run.status = "running";
	triage_scan_init(&r.cur.ts);

	if (stage != NULL) {
		for (only = 0; only < cfg->nchain && strcmp(cfg->chain[only].name, stage) != 0; only++)
			;
		if (only == cfg->nchain) {
			log_error("%s has no stage %s", cfg->path, stage);
			rc = WK_EX_USAGE;
			goto out;
		}
		/* Before anything is created or written: a job that ran too early leaves no trace. */
		if (runner_stage_ready(cfg, only) != 0) {
			rc = WK_EX_FAIL;
			goto out;
		}
	}
	if (layout_create(cfg->workdir, &failed) != 0) {
		log_error("cannot create %s: %s", failed, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	lockp = layout_path(cfg->workdir, "onbox.lock");
	if ((r.run.lockfd = lock_try(lockp)) < 0) {
		if (r.run.lockfd == WK_ERR_BUSY) {
			log_error("another onbox is already running run %s in %s (lock %s held)",
			    cfg->run, cfg->workdir, lockp);
			rc = WK_EX_TEMPFAIL;
		} else {
			log_error("cannot lock %s: %s", lockp, wk_strerror(WK_ERR_SYSTEM));
			rc = WK_EX_IOERR;
		}
		goto out;
	}
	{
		char *lp = layout_path(cfg->workdir, "onbox.log");

		if (log_tee_open(lp) != 0)
			log_warn("cannot open %s: %s", lp, wk_strerror(WK_ERR_SYSTEM));
		free(lp);
	}
	runner_check_persistent(cfg);
	/* Before anything launches (and a stop is undone): the contract, checked (gate.h). */
	if (stage == NULL && (rc = onbox_gate(cfg, allow_dirty, 0, &r.run.gate)) != 0)
		goto out;
	/* Started by hand (`onbox start`/`onbox run`, or `patrol deploy`): a stop is undone. */
	if (stop_clear(cfg->workdir))
		log_info("run %s was stopped on purpose: started again from the first missing marker",
		    cfg->run);
	if (events_instance(cfg->workdir, r.run.instance) != 0) {
		log_error("cannot write the instance id in %s: %s", cfg->workdir, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	notify_sinks_load_box(cfg, &r.note.sinks);
	runner_slurm_env(&r);
	/* detach "job": each run stage's attempt is a job in a cluster manager (jobrun.c). */
	if (cfg->detach_kind == DETACH_JOB &&
	    (r.run.job = jobrun_new(cfg, r.run.instance, &r.note.sinks, runner_job_emit, &r)) == NULL) {
		rc = WK_EX_CONFIG;
		goto out;
	}
	outbox_opts_from_config(cfg, &r.note.outbox);
	deliver_init(&r.note.dl, cfg, &r.note.sinks);
	if (r.note.sinks.n > 0) {
		/* Room kept for the events a disk that fills up could not take (runner_pend_last). */
		char *od = layout_path(cfg->workdir, "outbox");

		(void)outbox_reserve_make(od);
		free(od);
	}
	for (i = 0; i < r.note.sinks.n; i++)
		if (r.note.sinks.v[i].missing != NULL)
			log_warn("notify %s cannot send: %s; its events are kept in the outbox",
			    r.note.sinks.v[i].id, r.note.sinks.v[i].missing);
	if (runner_setup_signals(&r) != 0)
		fatal("signalfd: %s", wk_strerror(WK_ERR_SYSTEM));
	/* WATCHKEEPER_NO_INOTIFY=1 behaves as on NFS, where inotify sees nothing. */
	if (getenv("WATCHKEEPER_NO_INOTIFY") != NULL && strcmp(getenv("WATCHKEEPER_NO_INOTIFY"), "1") == 0) {
		r.run.ifd = -1;
		errno = ENOSYS;
	} else
		r.run.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (r.run.ifd < 0)
		log_warn("inotify unavailable (%s): falling back to polling every %ld ms",
		    wk_strerror(WK_ERR_SYSTEM), cfg->poll_ms);
	{
		/*
		 * The markers directory (a marker written by hand wakes us too) and
		 * the attempts directory (a wrapper's record landing wakes us).
		 */
		static const char *const dirs[] = { "markers", "attempts" };
		size_t k;

		for (k = 0; k < sizeof(dirs) / sizeof(dirs[0]) && r.run.ifd >= 0; k++) {
			char *md = layout_path(cfg->workdir, dirs[k]);

			(void)inotify_add_watch(r.run.ifd, md, IN_CREATE | IN_MOVED_TO | IN_DELETE);
			free(md);
		}
	}
	runner_scan_init(&r);
	runner_heartbeat(&r);

	rc = stage != NULL ? runner_one(&r, only) : runner_chain(&r);
	if (rc == 0 && (stage == NULL || (i = runner_first_missing(cfg)) == cfg->nchain)) {
		r.run.status = "done";
		runner_chain_done(&r);
	} else if (rc == 0) {
		/*
		 * This stage is done, a later one is not: the chain waits for the
		 * job that runs it.  Not "done" (that is the whole chain, as `onbox
		 * start` reads it), not "stopped" (a signal, a stage left running).
		 */
		r.run.status = "waiting";
		log_info("stage %s done; the chain continues with %s, in its own job",
		    cfg->chain[only].name, cfg->chain[i].name);
	} else if (r.run.stopped) {
		r.run.status = "stopped";
		log_info("run %s stopped on purpose; `onbox start` starts it again from the first "
		    "missing marker", cfg->run);
	} else if (rc == 1)
		r.run.status = "failed";
	else if (rc == WK_EX_IOERR) {
		/* Not "failed": no FAILED marker says so; the next onbox takes it up. */
		r.run.status = "stopped";
		log_error("stopped: the workdir %s cannot be written (see above); once it can, "
		    "`onbox run%s%s` continues", cfg->workdir, stage != NULL ? " --stage " : "",
		    stage != NULL ? stage : "");
	} else {
		r.run.status = "stopped";
		if (r.cur.st != NULL && r.cur.stage_pid > 0 && r.run.slurm.job)
			log_info("stopped by signal %d; stage %s (pid %ld) is Slurm's to stop with job %s: "
			    "the job's next run (a requeue) ends or re-attaches to it", r.run.got_signal,
			    r.cur.st->name, r.cur.stage_pid, r.run.slurm.job_id);
		else if (r.cur.st != NULL && r.cur.stage_pid > 0)
			log_info("stopped by signal %d; stage %s (pid %ld) keeps running: "
			    "`onbox run%s%s` re-attaches to it", r.run.got_signal, r.cur.st->name, r.cur.stage_pid,
			    stage != NULL ? " --stage " : "", stage != NULL ? stage : "");
	}
	runner_pend_last(&r);	/* the last chance for events held in memory */
	if (r.note.sinks.n > 0) {
		int pending = deliver_drain(&r.note.dl, (int)(r.note.sinks.timeout_s + 2) * 1000);

		if (pending > 0)
			log_warn("%d notification(s) not delivered yet: kept in %s/.watchkeeper/outbox; "
			    "the next onbox or `onbox notify --flush` sends them", pending, cfg->workdir);
	}
	runner_heartbeat(&r);
 out:
	runner_pend_free(&r);
	jobrun_free(r.run.job);
	deliver_free(&r.note.dl);
	notify_sinks_free(&r.note.sinks);
	health_free(r.run.health);
	nanstop_free(&r.run.nan);
	cJSON_Delete(r.run.saved);
	cJSON_Delete(r.run.gate);
	runner_stage_reset(&r);
	log_tee_close();
	triage_scan_free(&r.cur.ts);
	cJSON_Delete(r.note.last_event);
	if (r.run.ifd >= 0)
		close(r.run.ifd);
	if (r.run.sfd >= 0)
		close(r.run.sfd);
	if (r.run.lockfd >= 0)
		close(r.run.lockfd);
	free(lockp);
	free(failed);
	return rc;
}
