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
 * deploy.c: check the box (alive run, arch, onbox there, workdir), then send
 * what changed (onbox, config, profile) and, unless !secrets, the notify
 * secrets, then onbox start; an exit code (0, 1 refused or failed, 2 box
 * unreachable, 75 the run is alive).
 * onbox_local: --onbox, or NULL to choose (the box's own, else the portable build).
 */
int patrol_deploy(struct wk_config *cfg, const char *onbox_local, int start, int secrets);

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

/* cron.c: idempotent crontab edits; 0 or an exit code. */
int cron_install(const struct wk_config *cfg, const char *self, const char *cfgpath);
int cron_uninstall(const struct wk_config *cfg, int quiet);

#endif
