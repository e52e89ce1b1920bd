/*
 * supervise.c: watching a running stage, and stopping it.
 *
 * Owns: runner_supervise(), the one poll(2) loop while a stage runs (the
 * signalfd, inotify, the wrapper's pidfd, the delivery pipe, and the next
 * deadline: heartbeat, timeout_s, the kill grace); the timeout and
 * loss.on_nan stops (SIGTERM to the stage's group, SIGKILL after
 * KILL_GRACE_MS); signals (runner_check_signal: SIGUSR1 counts only with a
 * stop request on disk); `onbox stop`'s stop of the running stage
 * (runner_stop_stage) and its record (runner_stop_record); and the watch a
 * run stage (runner_watch_run) or a wait stage (runner_watch_wait) gets
 * once runner_stage has its attempt.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "spawn.h"
#include "stop.h"
#include "xmalloc.h"
#include "runner-int.h"

/* 1 when stop.request exists: `onbox stop` asks this onbox to stop the run. */
int
runner_stop_requested(const struct runner *r)
{
	char *p = layout_path(r->run.cfg->workdir, STOP_REQUEST);
	int have = fs_exists(p);

	free(p);
	return have;
}

/*
 * A pending SIGTERM/SIGINT/SIGHUP: remember it; the caller stops.  SIGUSR1
 * is `onbox stop`'s knock: it counts only with a stop request on disk
 * (r->run.stop_asked), so a stray SIGUSR1 stops nothing.
 */
int
runner_check_signal(struct runner *r)
{
	struct signalfd_siginfo si;

	while (read(r->run.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if ((int)si.ssi_signo == SIGUSR1) {
			if (runner_stop_requested(r)) {
				r->run.stop_asked = 1;
				return 1;
			}
			log_warn("SIGUSR1 from pid %u without %s/.watchkeeper/%s: ignored",
			    si.ssi_pid, r->run.cfg->workdir, STOP_REQUEST);
			continue;
		}
		r->run.got_signal = (int)si.ssi_signo;
		return 1;
	}
	return 0;
}

static int
watch_gone(struct watch *w, int pidfd_ready)
{
	if (w->pid <= 0)
		return 0;
	if (w->pidfd >= 0)
		return pidfd_ready;
	if (w->own) {
		int status;

		return waitpid(w->pid, &status, WNOHANG) == w->pid;
	}
	return !proc_alive(&w->id);
}

static enum sup_end
runner_supervise(struct runner *r, cJSON *hist, cJSON *a, struct watch *w)
{
	struct deadline dl[4];	/* heartbeat, timeout, kill grace, next delivery */
	struct pollfd pfd[4];
	int killed = 0, cap, n, gone, pidfd_at, dfd_at, stop_sent = 0, nan_sent = 0;
	const char *nan;
	enum sup_end end;

	dl[0] = r->run.hb;
	deadline_clear(&dl[1]);
	deadline_clear(&dl[2]);
	if (w->timeout_at > 0) {
		time_t now = time(NULL);

		deadline_set(&dl[1], w->timeout_at > now ? (uint64_t)(w->timeout_at - now) * 1000 : 0);
	}
	w->pidfd = w->pid > 0 ? proc_pidfd(w->pid) : -1;
	for (;;) {
		/* The wrapper records the stage's pid just after starting it. */
		if (!w->wait_stage && w->job == NULL && w->kill_pgid <= 0) {
			struct attempt_rec rec;

			if (attempt_rec_load(r->run.cfg->workdir, r->cur.st->name, r->cur.attempt, &rec) == 0 &&
			    rec.pid > 0) {
				w->kill_pgid = (pid_t)rec.pid;
				r->cur.stage_pid = rec.pid;
				runner_heartbeat(r);
			}
		}
		/* job backend: one poll per poll_ms; the job's end is a process gone. */
		if (w->job != NULL && jobrun_tick(w->job)) {
			end = SUP_GONE;
			break;
		}
		runner_scan(r);
		if (w->wait_stage && r->cur.wait_seen) {
			end = SUP_WAIT_HIT;
			break;
		}
		if (w->wait_stage && r->cur.ts.crash_seen) {
			end = SUP_CRASH;
			break;
		}
		if (deadline_expired(&r->run.hb))
			runner_heartbeat(r);
		dl[0] = r->run.hb;
		if (deadline_expired(&dl[1])) {
			deadline_clear(&dl[1]);
			if (w->wait_stage) {
				end = SUP_TIMEOUT;
				break;
			}
			if (w->kill_pgid > 0 || w->job != NULL) {
				json_set_bool(a, HIST_KEY_TIMED_OUT, 1);
				(void)runner_hist_save(r, hist);
				log_warn("stage %s ran past timeout_s=%ld: stopping it", r->cur.st->name,
				    r->cur.st->timeout_s);
				if (w->job != NULL) {
					jobrun_stop(w->job);	/* the manager stops it; polled to its end */
				} else {
					kill(-w->kill_pgid, SIGTERM);
					killed = 1;
					deadline_set(&dl[2], KILL_GRACE_MS);
				}
			} else
				deadline_set(&dl[1], 50);	/* its pid is not recorded yet */
		}
		/* loss.on_nan stop: as a timeout, SIGTERM to the group, SIGKILL after the grace */
		if (!nan_sent && !w->wait_stage && (w->kill_pgid > 0 || w->job != NULL) &&
		    (nan = nanstop_due(&r->run.nan, r->cur.st->name, r->cur.attempt)) != NULL) {
			nan_sent = 1;
			json_set_str(a, HIST_KEY_NAN_STOP, nan);
			(void)runner_hist_save(r, hist);
			log_warn("stage %s attempt %ld: %s: loss.on_nan is stop: stopping it",
			    r->cur.st->name, r->cur.attempt, nan);
			if (w->job != NULL)
				jobrun_stop(w->job);
			else if (!killed) {
				kill(-w->kill_pgid, SIGTERM);
				killed = 1;
				deadline_set(&dl[2], KILL_GRACE_MS);
			}
		}
		if (killed && deadline_expired(&dl[2])) {
			deadline_clear(&dl[2]);
			kill(-w->kill_pgid, SIGKILL);
		}

		n = 0;
		pfd[n].fd = r->run.sfd;
		pfd[n].revents = 0;
		pfd[n++].events = POLLIN;
		pfd[n].fd = r->run.ifd;
		pfd[n].revents = 0;
		pfd[n++].events = POLLIN;
		pidfd_at = -1;
		if (w->pidfd >= 0) {
			pidfd_at = n;
			pfd[n].fd = w->pidfd;
			pfd[n].revents = 0;
			pfd[n++].events = POLLIN;
		}
		dfd_at = deliver_poll_add(&r->note.dl, pfd, &n);
		dl[3] = r->note.dl.next;
		cap = jobrun_poll_cap(w->job, (int)r->run.cfg->poll_ms);
		if (w->pid > 0 && w->pidfd < 0 && cap > NOPIDFD_POLL_MS)
			cap = NOPIDFD_POLL_MS;
		/* Check a process that may already be gone before sleeping at all. */
		if (w->pid > 0 && w->pidfd < 0 && watch_gone(w, 0)) {
			end = SUP_GONE;
			break;
		}
		if (poll(pfd, (nfds_t)n, deadline_poll_timeout(dl, 4, cap)) < 0 && errno != EINTR)
			fatal("poll: %s", wk_strerror(WK_ERR_SYSTEM));
		deliver_after_poll(&r->note.dl, dfd_at >= 0 ? pfd[dfd_at].revents : 0);
		if ((pfd[0].revents & POLLIN) && runner_check_signal(r)) {
			if (!r->run.stop_asked) {
				end = SUP_SIGNAL;
				break;
			}
			if (w->job == NULL) {
				end = SUP_STOP;
				break;
			}
			if (!stop_sent) {
				/* the manager stops the job; polled to its end like any other */
				log_info("stop requested: stopping stage %s's job", r->cur.st->name);
				jobrun_stop(w->job);
				stop_sent = 1;
			}
		}
		if (pfd[1].revents & POLLIN)
			runner_drain_inotify(r);
		gone = pidfd_at >= 0 ? (pfd[pidfd_at].revents & (POLLIN | POLLHUP)) != 0 : 0;
		if (watch_gone(w, gone)) {
			end = SUP_GONE;
			break;
		}
	}
	if (end == SUP_GONE && w->own && w->pidfd >= 0) {
		int status;

		(void)spawn_wait(w->pid, &status);
	}
	if (w->pidfd >= 0)
		close(w->pidfd);
	w->pidfd = -1;
	runner_scan_final(r);
	return end;
}

/* While a stopped stage's group winds down: the heartbeat goes on. */
static void
runner_stop_tick(void *arg)
{
	struct runner *r = arg;

	if (deadline_expired(&r->run.hb))
		runner_heartbeat(r);
}

/*
 * Record the stop `onbox stop` asked for: the stopped record (stop.c),
 * attempt a (NULL: between stages, nothing running) ended "stopped" (not a
 * failure: no FAILED marker, no class, no policy decision, so nothing
 * restarts it), and event run_stopped.
 */
void
runner_stop_record(struct runner *r, const struct wk_stage *st, cJSON *hist, cJSON *a,
    const char *how)
{
	cJSON *req = stop_request_load(r->run.cfg->workdir), *ev;
	char *by = xstrdup(json_str(req, "by", "onbox stop"));
	char human[512];
	long n = a != NULL ? r->cur.attempt : 0;

	/*
	 * The record first: a kill between the two then leaves a stopped run with
	 * a lost attempt (nothing resumes it), never an attempt ended "stopped"
	 * without the record (patrol would resume it); and `onbox wait`, woken
	 * by the history's change, already finds the record.
	 */
	if (stop_record_write(r->run.cfg->workdir, r->run.cfg->run, by, json_str(req, "nonce", NULL),
	    st->name, n, how) != 0)
		log_error("cannot write %s/.watchkeeper/%s: %s", r->run.cfg->workdir, STOP_RECORD,
		    wk_strerror(WK_ERR_SYSTEM));
	if (a != NULL) {
		stop_mark_attempt(a, by, how);
		(void)runner_hist_save(r, hist);
	}
	ev = events_new(r->run.instance, r->run.cfg->run, "run_stopped", st->name, n);
	cJSON_AddStringToObject(ev, "by", by);
	cJSON_AddStringToObject(ev, "how", how);
	if (n > 0)
		snprintf(human, sizeof(human), "%s STOPPED on purpose (attempt %ld) by %s: %s",
		    st->name, n, by, how);
	else
		snprintf(human, sizeof(human), "STOPPED on purpose before stage %s by %s: %s",
		    st->name, by, how);
	r->run.stopped = 1;
	r->run.status = "stopped";
	runner_emit(r, ev, human);
	free(by);
	cJSON_Delete(req);
}

/*
 * Stop the stage being supervised (SUP_STOP): SIGTERM to its process group,
 * SIGKILL after stop_grace_s, then its wrapper's end (bounded), then the record.
 */
void
runner_stop_stage(struct runner *r, cJSON *hist, cJSON *a, struct watch *w)
{
	struct attempt_rec rec;
	struct deadline d;
	char how[160];
	int killed = 0, group_gone = 0;

	/* The wrapper records the stage's pid just after starting it. */
	if (w->kill_pgid <= 0 && w->pid > 0 && !w->wait_stage &&
	    runner_rec_wait(r, REC_STAGE_PID, &rec) == 0)
		w->kill_pgid = (pid_t)rec.pid;
	if (w->wait_stage || w->kill_pgid <= 0) {
		snprintf(how, sizeof(how), "%s", w->wait_stage ? "a wait: nothing of ours to signal" :
		    "its process had already ended");
	} else {
		group_gone = stop_group(w->kill_pgid, r->run.cfg->stop_grace_s, runner_stop_tick, r,
		    &killed) == 0;
		if (killed)
			snprintf(how, sizeof(how), "SIGTERM, then SIGKILL after stop_grace_s=%lds",
			    r->run.cfg->stop_grace_s);
		else
			snprintf(how, sizeof(how), "SIGTERM; it ended within stop_grace_s=%lds",
			    r->run.cfg->stop_grace_s);
		if (!group_gone)
			snprintf(how + strlen(how), sizeof(how) - strlen(how),
			    "; some of process group %ld survived SIGKILL", (long)w->kill_pgid);
	}
	/* Its wrapper writes the exit status and lets go of the attempt's lock. */
	deadline_set(&d, REC_WAIT_MS);
	while (w->pid > 0 && !w->wait_stage && !watch_gone(w, 0) && !deadline_expired(&d))
		usleep(20000);
	r->cur.stage_pid = 0;
	runner_stop_record(r, r->cur.st, hist, a, how);
}

/* Watch a run stage's attempt sc->a (launched, re-attached, followed, or ended unwatched) to its end. */
enum sup_end
runner_watch_run(struct runner *r, struct stage_ctx *sc)
{
	const struct wk_stage *st = r->cur.st;
	struct watch *w = &sc->w;
	enum sup_end end;

	runner_sources_run(r, sc->a);
	runner_scan_restore(r);
	runner_watch_recovery(r, sc->hist, sc->a);
	if (st->timeout_s > 0)
		w->timeout_at = (time_t)json_num(sc->a, HIST_KEY_STARTED_UNIX, 0) + st->timeout_s;
	if (w->pid > 0) {
		/* The stage's process group, for a timeout stop. */
		struct attempt_rec cur;

		if (attempt_rec_load(r->run.cfg->workdir, st->name, r->cur.attempt, &cur) == 0)
			r->cur.stage_pid = cur.pid;
	}
	w->kill_pgid = (pid_t)r->cur.stage_pid;
	w->job = r->run.job;
	runner_heartbeat(r);
	if (w->pid > 0 || w->job != NULL) {
		end = runner_supervise(r, sc->hist, sc->a, w);
		if (end == SUP_GONE && runner_slurm_stopping(r))
			end = SUP_SIGNAL;
	} else {
		runner_scan_final(r);
		end = SUP_GONE;
	}
	return end;
}

/*
 * Watch a wait stage (a process onbox did not start, or a log line): its
 * log read from the start for the pattern, then followed; announced once.
 */
enum sup_end
runner_watch_wait(struct runner *r, struct stage_ctx *sc)
{
	const struct wk_stage *st = r->cur.st;
	const char *wl = st->wait.log != NULL ? st->wait.log : st->log;
	struct watch *w = &sc->w;
	cJSON *a = sc->a;
	struct line_ctx lc;

	if (wl != NULL) {
		char *p = stage_log_path(r->run.cfg, wl);
		struct logscan catchup;

		/*
		 * A training that finished before we attached has its done line
		 * already in the log: look for the pattern from the start, but
		 * count crash signatures only from where the wait began (earlier
		 * text may belong to an earlier run sharing the log).
		 */
		source_open(r, &r->cur.src[0], "log", p);
		r->cur.nsrc = 1;
		logscan_init(&catchup, p, LOGSCAN_DEFAULT_MAX_LINE);
		lc.r = r;
		lc.s = &r->cur.src[0];
		lc.catchup = 1;
		(void)logscan_poll(&catchup, runner_line, &lc);
		logscan_free(&catchup);
		source_from(&r->cur.src[0], cJSON_GetObjectItem(a, HIST_KEY_LOG_START));
		free(p);
	}
	if (st->wait.pid > 0) {
		w->pid = (pid_t)st->wait.pid;
		if (proc_identify(w->pid, &w->id) != 0)
			w->pid = 0;	/* already gone */
	}
	if (st->wait.timeout_s > 0)
		w->timeout_at = (time_t)json_num(a, HIST_KEY_STARTED_UNIX, 0) + st->wait.timeout_s;
	w->wait_stage = 1;
	if (json_num(a, HIST_KEY_WAIT_ANNOUNCED, 0) == 0) {
		cJSON *ev = events_new(r->run.instance, r->run.cfg->run, "stage_started", st->name,
		    r->cur.attempt);
		char human[256];

		json_set_str(a, HIST_KEY_RESULT, "running");
		json_set_num(a, HIST_KEY_WAIT_ANNOUNCED, 1);
		(void)runner_hist_save(r, sc->hist);	/* else the next onbox announces it again */
		if (st->wait.pid > 0)
			cJSON_AddNumberToObject(ev, "wait_pid", (double)st->wait.pid);
		else
			cJSON_AddStringToObject(ev, "wait_log", st->wait.log);
		snprintf(human, sizeof(human), "%s waiting (attempt %ld)", st->name, r->cur.attempt);
		runner_emit(r, ev, human);
	}
	runner_heartbeat(r);
	if (r->cur.wait_seen)
		return SUP_WAIT_HIT;
	if (st->wait.pid > 0 && w->pid == 0) {
		runner_scan_final(r);
		return SUP_GONE;
	}
	return runner_supervise(r, sc->hist, a, w);
}
