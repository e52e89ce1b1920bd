/*
 * deliver.c: delivery rounds in child processes (see deliver.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "deliver.h"
#include "err.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "outbox.h"
#include "proc.h"
#include "spawn.h"
#include "xmalloc.h"

#define DELIVER_BUSY_RETRY_MS	250	/* the outbox lock is held by another deliverer */

void
deliver_init(struct deliver *d, const struct wk_config *cfg, const struct notify_sinks *sinks)
{
	int64_t due;

	memset(d, 0, sizeof(*d));
	d->sinks = sinks;
	d->pidfd = -1;
	d->dir = layout_path(cfg->workdir, "outbox");
	d->timeout_s = sinks->timeout_s > 0 ? sinks->timeout_s : 15;
	outbox_opts_from_config(cfg, &d->opts);
	deadline_clear(&d->next);
	/*
	 * Events an earlier process could not deliver go first, at once: its
	 * backoff described its own bad luck, and a new process is a new chance.
	 */
	if (sinks->n > 0 && (due = outbox_next_due_ms(d->dir, sinks)) > 0) {
		d->force = 1;
		deadline_set(&d->next, 0);
	}
}

static void
deliver_start(struct deliver *d)
{
	struct spawn_opts o;
	struct outbox_result res;
	int keep[1], fd, force;
	pid_t pid;

	deadline_clear(&d->next);
	d->more = 0;
	force = d->force;
	d->force = 0;
	spawn_opts_init(&o);
	o.fd_in = SPAWN_DEVNULL;
	o.fd_out = SPAWN_INHERIT;
	o.fd_err = SPAWN_INHERIT;
	if ((keep[0] = log_tee_fd_get()) >= 0) {
		o.keep_fds = keep;
		o.nkeep = 1;
	}
	pid = spawn_fork(&o);
	if (pid == 0) {
		fd = outbox_lock(d->dir, 0);
		if (fd == WK_ERR_BUSY)
			_exit(WK_EX_TEMPFAIL);
		if (fd < 0)
			_exit(WK_EX_IOERR);
		outbox_flush(d->dir, d->sinks, &d->opts, force, 0, &res);
		/* Tell the runner whether an attempt failed: it paces the next round (deliver_ended). */
		_exit(res.failed > 0 ? WK_EX_FAIL : 0);
	}
	if (pid < 0) {
		log_warn("cannot start a notification delivery: %s", wk_strerror(WK_ERR_SYSTEM));
		deadline_set(&d->next, 1000);
		return;
	}
	d->pid = pid;
	d->pidfd = proc_pidfd(pid);
}

void
deliver_kick(struct deliver *d)
{
	if (d->sinks->n == 0)
		return;
	if (d->pid > 0) {
		d->more = 1;
		return;
	}
	deliver_start(d);
}

int
deliver_poll_add(struct deliver *d, struct pollfd *pfd, int *n)
{
	if (d->pidfd < 0)
		return -1;
	pfd[*n].fd = d->pidfd;
	pfd[*n].events = POLLIN;
	pfd[*n].revents = 0;
	return (*n)++;
}

/*
 * The child (already waited for) ended with status: forget it, and after a
 * round in which an attempt failed (or that died) hold the next round back by
 * retry_base_ms.  The retry times the round saved in the outbox are the
 * normal pace, but when they could not be saved (ENOSPC: a full disk) the
 * heads still look due at once, and the rounds would follow each other as
 * fast as they fail: hundreds of attempts a second against a receiver that
 * is down.  This hold lives in memory, so a full disk cannot lose it.
 */
static void
deliver_ended(struct deliver *d, int status)
{
	if (d->pidfd >= 0)
		close(d->pidfd);
	d->pidfd = -1;
	d->pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == WK_EX_TEMPFAIL)
		return;		/* another deliverer had the lock: no attempt was made */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		deadline_clear(&d->notbefore);
	else
		deadline_set(&d->notbefore, (uint64_t)d->opts.retry_base_ms);
}

/* Milliseconds until the hold set by deliver_ended passes; 0 when there is none. */
static uint64_t
deliver_hold_ms(const struct deliver *d)
{
	return deadline_isset(&d->notbefore) ? deadline_left_ms(&d->notbefore) : 0;
}

/* The child ended: reap it and decide when the next round is. */
static void
deliver_reaped(struct deliver *d, int status)
{
	uint64_t hold;
	int64_t due, wait;

	deliver_ended(d, status);
	if (WIFEXITED(status) && WEXITSTATUS(status) == WK_EX_TEMPFAIL) {
		deadline_set(&d->next, DELIVER_BUSY_RETRY_MS);
		return;
	}
	hold = deliver_hold_ms(d);
	if (d->more && hold == 0) {
		deliver_start(d);
		return;
	}
	if (d->more)
		deadline_set(&d->next, hold);
	else if ((due = outbox_next_due_ms(d->dir, d->sinks)) > 0) {
		wait = due - outbox_now_ms();
		deadline_set(&d->next, wait > 0 && (uint64_t)wait > hold ? (uint64_t)wait : hold);
	}
}

void
deliver_after_poll(struct deliver *d, short revents)
{
	int status;

	if (d->pid > 0) {
		/* Without a pidfd (old kernel) check on every wake-up. */
		if ((d->pidfd >= 0 && (revents & (POLLIN | POLLHUP)) == 0) ||
		    waitpid(d->pid, &status, WNOHANG) != d->pid)
			return;
		deliver_reaped(d, status);
	}
	if (d->pid == 0 && deadline_expired(&d->next))
		deliver_start(d);
}

/* Events still queued, all sinks together. */
static int
deliver_pending(const struct deliver *d)
{
	cJSON *st = outbox_status(d->dir, d->sinks), *it;
	int pending = 0;

	cJSON_ArrayForEach(it, st)
		pending += (int)json_num(it, "pending", 0);
	cJSON_Delete(st);
	return pending;
}

int
deliver_drain(struct deliver *d, int max_ms)
{
	struct deadline end;
	int status, left, now_left, progress = 0;
	int64_t due, now;
	uint64_t wait;

	if (d->sinks->n == 0)
		return 0;
	deadline_set(&end, (uint64_t)max_ms);
	left = deliver_pending(d);
	/*
	 * Deliver what falls due within the bound; give up on the rest (it
	 * stays queued).  A round that delivered something earns the next one
	 * its own bound: a slow but working receiver (a loaded box, a far
	 * network) still gets the last events, chain_done among them, before
	 * onbox exits; a round that delivered nothing (a sink down, hanging)
	 * ends the drain at the first bound.  Each extension needs fewer events
	 * queued than the last, so the drain ends.
	 */
	while (!deadline_expired(&end)) {
		if (d->pid > 0) {
			if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
				deliver_ended(d, status);
				now_left = deliver_pending(d);
				progress = now_left < left;
				left = now_left;
				if (WIFEXITED(status) && WEXITSTATUS(status) == WK_EX_TEMPFAIL)
					usleep(DELIVER_BUSY_RETRY_MS * 1000);
				continue;
			}
			usleep(10000);
			continue;
		}
		if ((due = outbox_next_due_ms(d->dir, d->sinks)) == 0)
			break;
		now = outbox_now_ms();
		wait = due > now ? (uint64_t)(due - now) : 0;
		if (wait < deliver_hold_ms(d))
			wait = deliver_hold_ms(d);	/* the last round failed: keep the pace */
		/* Start a round only if it can finish, at its bound, within ours (or it earned one). */
		if (wait + (uint64_t)d->timeout_s * 1000 > deadline_left_ms(&end)) {
			if (!progress)
				break;
			progress = 0;
			deadline_set(&end, wait + (uint64_t)d->timeout_s * 1000 + 2000);
		}
		if (wait > 0)
			usleep((useconds_t)wait * 1000);
		deliver_start(d);
	}
	if (d->pid > 0)
		log_warn("notification delivery still running at the drain's bound (%d ms, longer while "
		    "rounds delivered); leaving it", max_ms);
	return deliver_pending(d);
}

void
deliver_free(struct deliver *d)
{
	if (d->pidfd >= 0)
		close(d->pidfd);
	free(d->dir);
	memset(d, 0, sizeof(*d));
	d->pidfd = -1;
}
