/*
 * top-look.c: `patrol top`'s refreshes.
 *
 * A refresh of a run is a look: the tick's own code (patrol_tick_run,
 * TICK_LOOK: one connection, the probe, the decision table) with nothing
 * acted and nothing recorded as a tick, in a child of its own (spawn_fork:
 * default signals, no descriptors of ours, its output on /dev/null, its own
 * process group so its ssh processes end with it).  A tick would not do:
 * patrol.stall_ticks counts ticks, so a screen ticking every run every 10 s
 * made every healthy run whose heartbeat (heartbeat_s, 60 s) had not moved
 * STALLED within 20 s, and its webhooks said so.  What the look saw is the
 * state the tick would have saved, written apart as <statedir>/top.json
 * (atomically; the loss ring carried on from the last one, top-loss.c);
 * top-model.c shows whichever of it and patrol.json is newer.  A look takes
 * no lock: cron's tick goes on beside it.  At most jobs run at once; the
 * rest wait their turn.  A run that is DONE or sealed is not refreshed (as
 * `patrol --all` leaves it out).  The screen never waits for one: it reads
 * the state files, which are replaced atomically.
 *
 * A look that runs past slow_ms shows as "slow" (a box that takes the
 * connection and never answers, a link that crawls); past kill_ms it is
 * ended (SIGTERM to its group, SIGKILL a second later), so a box that hangs
 * holds one of the jobs for a bounded time, never the screen.  A look bounds
 * its own waits (connect_timeout_s, its budget): kill_ms is the backstop.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "exits.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "monotime.h"
#include "patrol.h"
#include "spawn.h"
#include "top.h"

/*
 * What top.json keeps of the state a look would have saved: what a row and
 * the run's page show, no more (a frame parses every top.json that moved:
 * patrol.json's day of progress history and the rest would triple it).
 */
static const char *const top_look_keys[] = {
	"run", "config", "last_tick", "seen_at", "verdict", "details", "stage", "attempt",
	"attempts", "progress", "progress_max", "eta_s", "heartbeat_age_s", "last_event",
	"loss_recent", "failed", "checkpoint", "wandb", "caveats_text", "seal", "markers",
};

static cJSON *
top_look_doc(const cJSON *state)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *v;
	size_t i;

	for (i = 0; i < sizeof(top_look_keys) / sizeof(top_look_keys[0]); i++)
		if ((v = cJSON_GetObjectItemCaseSensitive(state, top_look_keys[i])) != NULL)
			cJSON_AddItemToObject(o, top_look_keys[i], cJSON_Duplicate(v, 1));
	json_set_str(o, "looked_by", "patrol top");
	return o;
}

/* In the child: look at the run and save what was seen as its top.json; the exit code. */
static int
top_look_run(const struct top_run *r)
{
	struct wk_config *cfg = NULL;
	struct diag d = DIAG_INIT;
	struct tick_result res;
	cJSON *older = NULL, *doc = NULL;
	char *path = fs_join(r->statedir, TOP_LOOK_FILE);
	int rc = WK_EX_CONFIG;

	memset(&res, 0, sizeof(res));
	if (config_load(r->config, &cfg, &d) != 0)
		goto out;
	rc = patrol_tick_run(cfg, TICK_LOOK, &res);
	if (res.state == NULL)
		goto out;
	doc = top_look_doc(res.state);
	if (jsonfile_load(path, &older) == 0)
		top_loss_merge(doc, older);
	if (jsonfile_save(path, doc) != 0)
		rc = WK_EX_IOERR;
 out:
	cJSON_Delete(doc);
	cJSON_Delete(older);
	tick_result_free(&res);
	config_free(cfg);
	diag_free(&d);
	free(path);
	return rc;
}

void
top_look_all(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->runs[i].pid <= 0 && !m->runs[i].queued && !m->runs[i].row.finished &&
		    !m->runs[i].hold) {
			m->runs[i].queued = 1;
			m->runs[i].row.look = TOP_LOOK_QUEUED;
		}
}

static void
top_look_start(struct top_looks *l, struct top_run *r)
{
	struct spawn_opts o;
	pid_t pid;

	spawn_opts_init(&o);
	o.new_pgrp = 1;
	r->queued = 0;
	if ((pid = spawn_fork(&o)) < 0) {
		r->row.look = TOP_LOOK_IDLE;
		return;		/* the next refresh tries again */
	}
	if (pid == 0)
		_exit(top_look_run(r));
	r->pid = pid;
	r->started_ms = monotime_ms();
	r->row.look = TOP_LOOK_BUSY;
	r->row.look_s = 0;
	l->running++;
}

/* The look of r ended: its row shows what the state files say again. */
static void
top_look_done(struct top_looks *l, struct top_run *r)
{
	r->pid = 0;
	r->row.look = TOP_LOOK_IDLE;
	r->row.look_s = 0;
	l->running--;
}

int
top_look_pump(struct top_looks *l, struct top_model *m)
{
	unsigned long long now = monotime_ms(), took;
	int ended = 0, status;
	size_t i;
	pid_t w;

	for (i = 0; i < m->n; i++) {
		struct top_run *r = &m->runs[i];

		if (r->pid <= 0)
			continue;
		while ((w = waitpid(r->pid, &status, WNOHANG)) < 0 && errno == EINTR)
			;
		if (w == r->pid || (w < 0 && errno == ECHILD)) {
			top_look_done(l, r);
			ended = 1;
			continue;
		}
		took = now - r->started_ms;
		r->row.look_s = (long)(took / 1000);
		if (took >= l->slow_ms)
			r->row.look = TOP_LOOK_SLOW;
		if (took >= l->kill_ms)
			(void)kill(-r->pid, took >= (unsigned long long)l->kill_ms + 1000 ? SIGKILL : SIGTERM);
	}
	for (i = 0; i < m->n && l->running < (size_t)l->jobs; i++)
		if (m->runs[i].queued && !m->runs[i].hold)
			top_look_start(l, &m->runs[i]);
	return ended;
}

void
top_look_stop(struct top_looks *l, struct top_model *m)
{
	unsigned long long until;
	size_t i;
	int status;

	for (i = 0; i < m->n; i++) {
		m->runs[i].queued = 0;
		if (m->runs[i].pid > 0)
			(void)kill(-m->runs[i].pid, SIGTERM);
	}
	/* A look ends at SIGTERM (default disposition); a second, then SIGKILL. */
	until = monotime_ms() + 1000;
	while (l->running > 0) {
		for (i = 0; i < m->n; i++) {
			if (m->runs[i].pid <= 0)
				continue;
			if (monotime_ms() >= until)
				(void)kill(-m->runs[i].pid, SIGKILL);
			if (waitpid(m->runs[i].pid, &status, monotime_ms() >= until ? 0 : WNOHANG) != 0)
				top_look_done(l, &m->runs[i]);
		}
		if (l->running > 0)
			(void)poll(NULL, 0, 20);
	}
}
