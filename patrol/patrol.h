/*
 * patrol.h: what patrol's files share.
 *
 * patrol is layer 2: run from cron on the owner's machine, each tick opens ONE
 * ssh connection, sends ONE combined probe, walks the decision table, acts
 * only when the table (and policy) says so and never twice, and prints a
 * one-line report every tick even when nothing changed.
 */
#ifndef WK_PATROL_H
#define WK_PATROL_H

#include <stdio.h>

#include <cJSON.h>

#include "config.h"
#include "pstate.h"

/* Create the directory, take the lock (WK_ERR_BUSY when another patrol ticks), load the state. */
int pstate_open(const struct wk_config *cfg, struct pstate *s);
/* Append one line to <statedir>/report.log. */
void pstate_report(struct pstate *s, const char *line);
struct ssh_target;
/*
 * Remember the transport in use and why (patrol.json "transport", as
 * target_transport_text says it) and append "<time> <run> transport <text>"
 * to report.log when it differs from the one remembered, or, the first
 * time, when "auto" had a reason for the system ssh.
 */
void pstate_transport(struct pstate *s, const struct wk_config *cfg, const struct ssh_target *t);

/* tick.c: one tick; returns the exit code (0 OK/DONE, 1 other verdicts, 2 box unseen). */
int patrol_tick(struct wk_config *cfg, int json);

/*
 * What patrol_tick_run does after the probe and the decision.  TICK_TABLE and
 * TICK_RESUME are ticks: patrol.lock, the report line, the logbook,
 * patrol.json, the handbook, the notifications.  The others take no lock and
 * write nothing on this machine: TICK_LOOK and TICK_LOOK_* only probe and
 * decide (TICK_LOOK_*: and say what the act would do), TICK_STOP is `patrol
 * stop` (which records no patrol state) between two looks over one connection.
 */
enum tick_mode {
	TICK_TABLE,		/* the table's action when the table and policy allow (cron, --once, mcp status) */
	TICK_RESUME,		/* an explicit resume: the policy, not patrol.auto_resume; a STOPPED run too */
	TICK_LOOK_RESUME,	/* what TICK_RESUME would do */
	TICK_STOP,		/* onbox stop (stop.c), then look again */
	TICK_LOOK_STOP,		/* what TICK_STOP would stop */
	TICK_LOOK,		/* patrol top's refresh: TICK_TABLE's probe and decision, nothing
				   acted; r->state: patrol.json as the tick would have left it */
};

/* What the mode's act came to (TICK_TABLE: what the table's resume came to). */
enum tick_did {
	TICK_DID_NOTHING,	/* nothing to do (alive, DONE, already STOPPED, box unseen) */
	TICK_DID_REFUSED,	/* the policy, the re-check or the box said no, or it failed */
	TICK_DID_ACTED,		/* resumed / stopped (LOOK: would be) */
};

struct tick_result {
	cJSON		*obj;	/* the tick's object, what --json prints; NULL when rc is 75 or 74 */
	char		*line;	/* the report line (recorded only by TICK_TABLE, TICK_RESUME) */
	int		 rc;	/* verdict_exit, or WK_EX_TEMPFAIL (another patrol ticks), WK_EX_IOERR */
	int		 verdict; /* enum verdict (decide.h) */
	enum tick_did	 did;
	char		*why;	/* one line: what was (or would be) done and why, or why not */
	char		*said;	/* TICK_STOP: onbox stop's own words, or NULL */
	cJSON		*state;	/* TICK_LOOK: the state a tick would have saved (nothing was); else NULL */
};

/*
 * One tick of mode for cfg, printing nothing; r filled (tick_result_free).
 * Returns r->rc.  The object of every mode but TICK_TABLE also has confirm,
 * did ("nothing", "refused", "resumed"/"stopped"; a look's is "nothing"),
 * would (a look's: "nothing", "refused", "resume"/"stop"), why and, for
 * TICK_STOP, said.
 */
int patrol_tick_run(struct wk_config *cfg, enum tick_mode mode, struct tick_result *r);
void tick_result_free(struct tick_result *r);
/* `patrol resume [--dry-run]`: TICK_RESUME (TICK_LOOK_RESUME), printed like a tick and its why. */
int patrol_resume(struct wk_config *cfg, int dry, int json);

/*
 * deploy.c: check the box (alive run, arch, onbox there, workdir), then send
 * what changed (onbox, config, profile) and, unless !secrets, the notify
 * secrets, then onbox start; an exit code (0, 1 refused or failed, 2 box
 * unreachable, 75 the run is alive).
 * onbox_local: --onbox, or NULL to choose (the box's own, else the portable build).
 */
/* deploy's flags */
#define DEPLOY_START		0x1	/* start onbox (else --no-start) */
#define DEPLOY_SECRETS		0x2	/* send the secrets (else --no-secrets) */
#define DEPLOY_CHECK		0x4	/* --check: the launch contract only; nothing uploaded or started */
#define DEPLOY_ALLOW_DIRTY	0x8	/* --allow-dirty */
int patrol_deploy(struct wk_config *cfg, const char *onbox_local, int flags);
/*
 * boxprobe.c: connect (t filled, *conn set) and probe into *p (free with
 * probe_free).  0, or the exit code with the message said, ending with
 * nothing ("nothing was sealed"): WK_EX_UNSEEN (no box, no answer),
 * WK_EX_FAIL (the probe did not parse).  The caller closes *conn and frees
 * t either way.
 */
struct ssh_target;
struct ssh_conn;
struct probe;
int patrol_box_probe(const struct wk_config *cfg, long budget_s, const char *nothing,
    struct ssh_target *t, struct ssh_conn **conn, struct probe *p);
/*
 * fleet.c: every run patrol knows (the state directories whose patrol.json
 * records its config), sorted by name; free with fleet_runs_free.
 */
struct fleet_run {
	char	*name;
	char	*config;	/* absolute */
	char	*statedir;
	cJSON	*state;		/* its patrol.json */
};
size_t fleet_runs(struct fleet_run **out);
void fleet_runs_free(struct fleet_run *v, size_t n);
void fleet_runs_sort(struct fleet_run *v, size_t n);	/* by name */
/* The box as the config names it: "user@host:port" (the parts set); NULL without box.host. */
char *fleet_box_text(const struct wk_config *cfg);
/* `patrol --install-schedule --all` (install 1) / `--uninstall-schedule --all`; kind as schedule_*. */
int patrol_fleet_schedule(int install, int kind);
/* `patrol --all`: a tick of each run, jobs at a time; quiet: no report lines.  The exit code. */
int patrol_fleet_tick(int jobs, int quiet);
/*
 * `patrol status --all [--json] [--refresh]`: the fleet's table (only: that
 * run alone, `patrol -c FILE status`).  The exit code.
 */
int patrol_fleet_status(int json, int refresh, int jobs, const char *only);
/* `patrol seal` (seal.c); returns the exit code. */
int patrol_seal(struct wk_config *cfg);
/* `patrol checkpoints [--prune [--confirm]]` (checkpoints.c); returns the exit code. */
int patrol_checkpoints(struct wk_config *cfg, int prune, int confirm);

/*
 * secrets.c: write the values of the url_env/token_env variables cfg names,
 * from this environment, to <workdir>/.watchkeeper/secrets on the box
 * (0600, atomically, through the channel's stdin; core/notify.h).  A
 * variable missing or empty here is warned about by name and not sent (the
 * box keeps the value it was sent before for it).
 * 0 sent or nothing to send, else WK_ERR_REMOTE with err set.
 */
struct ssh_conn;
struct ssh_error;
int secrets_send(const struct wk_config *cfg, struct ssh_conn *conn, struct ssh_error *err);

/*
 * stop.c: `onbox stop` on the box over one ssh connection; its exit code
 * (0 stopped), 2 when the box could not be reached (nothing recorded).
 */
int patrol_stop(struct wk_config *cfg);
/* A connection's budget beyond connect_timeout_s for a stop: stop_grace_s and onbox stop's margin. */
#define PATROL_STOP_BUDGET_S	90
/*
 * onbox stop on the open connection, its words in res (ssh_result_free),
 * nothing printed: onbox stop's exit code (0 stopped, also when nothing ran;
 * 127 no onbox there), or -1 when it did not finish (err set).
 */
struct ssh_result;
int patrol_stop_exec(const struct wk_config *cfg, struct ssh_conn *conn, struct ssh_result *res,
    struct ssh_error *err);

/*
 * watch.c: `patrol watch --job ID ...` (argv from the word "watch" on):
 * write a config whose one stage adopts a cluster job that already runs,
 * validated before it replaces -o FILE.  An exit code (0 written, 1 FILE
 * exists, 64 usage, 74 cannot write, 78 does not validate).
 */
int patrol_watch(int argc, char **argv);

/*
 * journal.c: LOGBOOK.md entries.  journal_box logs the box's events the
 * probe brought (and moves patrol.json's events_offset past them);
 * journal_tick logs a verdict change (prev NULL: the first tick), the
 * results when the run is DONE, and what patrol did (action, may be "").
 */
struct notify_sinks;
struct probe;
void journal_box(struct pstate *st, const struct wk_config *cfg, const struct notify_sinks *sinks,
    const struct probe *p);
void journal_tick(struct pstate *st, const struct wk_config *cfg, const struct notify_sinks *sinks,
    const char *prev, const char *verdict, const char *line, const char *action,
    const char *results);
/*
 * logbook.git (core/logbookgit.h): commit LOGBOOK.md when it changed and
 * push what is unpushed; the outcome kept in patrol.json ("logbook_git").
 * Never fails the caller: a failure is said once and retried next time.
 */
void journal_push(struct pstate *st, const struct wk_config *cfg);
/*
 * github.c: the run record on GitHub (a notify[] entry of type github):
 * github_queue keeps a comment for a significant logbook entry (kind, text
 * scrubbed), github_flush creates the issue when needed and sends what
 * waits, plus the 24 h digest (line: the current report line, NULL none).
 */
void github_queue(struct pstate *st, const struct wk_config *cfg, const char *kind,
    const char *text);
void github_flush(struct pstate *st, const struct wk_config *cfg, const char *line);

/*
 * schedule.c: this run's ticks in the owner's scheduler (scheduler.h), kind
 * a sched_kind or -1 (install: the one sched_detect finds; uninstall: every
 * one holding an entry); idempotent.  0 or an exit code.
 */
int schedule_install(const struct wk_config *cfg, const char *self, const char *cfgpath, int kind);
int schedule_uninstall(const struct wk_config *cfg, int quiet, int kind);

#endif
