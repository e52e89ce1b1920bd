/*
 * scheduler.h: where patrol's ticks are scheduled on the owner's machine,
 * and what each scheduler is given, built in one place so that `patrol
 * --install-schedule` installs and the handbook prints the same thing.
 *
 *   cron     the crontab line of crontab.h
 *   systemd  a user timer and its service in $XDG_CONFIG_HOME/systemd/user
 *            (default ~/.config/systemd/user): watchkeeper-<run>.timer with
 *            OnCalendar= from patrol.schedule (schedule.h) and
 *            Persistent=true, so that a tick missed while the machine slept
 *            runs when it wakes; watchkeeper-<run>.service runs the tick
 *   launchd  a launch agent ~/Library/LaunchAgents/watchkeeper.patrol.<run>.plist
 *            with StartCalendarInterval (launchd runs a missed calendar job
 *            at wake) and the user's session, so its ssh-agent
 *
 * Each tick's output is appended to the run's cron.log (state directory),
 * whichever scheduler runs it.
 */
#ifndef WK_SCHEDULER_H
#define WK_SCHEDULER_H

#include <stddef.h>

#include "config.h"

enum sched_kind {
	SCHED_CRON,
	SCHED_SYSTEMD,
	SCHED_LAUNCHD,
	SCHED_NKINDS
};

extern const char *const sched_kind_names[SCHED_NKINDS];	/* "cron", "systemd", "launchd" */

/* The kind named s, or -1. */
int sched_kind_parse(const char *s);

/*
 * The owner's scheduler here: launchd on macOS; cron where `crontab -l`
 * works; systemd where it is installed (systemctl on PATH, or booted with
 * it); else -1 with why.
 */
int sched_detect(char *why, size_t whylen);

/* systemd's units: the directory (not created), the timer's and the service's names. */
char *sched_systemd_dir(void);
char *sched_systemd_unit(const struct wk_config *cfg, const char *suffix);	/* "watchkeeper-<run><suffix>" */
/*
 * The service's and the timer's text for patrol at self and the config at
 * cfgpath (both absolute).  NULL with errno EINVAL when patrol.schedule
 * does not parse or a path holds a newline; why (may be NULL) says which.
 */
char *sched_systemd_service(const struct wk_config *cfg, const char *self, const char *cfgpath);
char *sched_systemd_timer(const struct wk_config *cfg, char *why, size_t whylen);

/* launchd's agent: its label, its plist's path (not created) and its text (NULL: errno, why). */
char *sched_launchd_label(const struct wk_config *cfg);
char *sched_launchd_path(const struct wk_config *cfg);
char *sched_launchd_plist(const struct wk_config *cfg, const char *self, const char *cfgpath,
    char *why, size_t whylen);

/*
 * Which schedulers hold this run's entry: bit (1 << kind) for each, 0 for
 * none, or -1 when none was found and the crontab could not be read (so
 * cron's answer is unknown).
 */
int sched_installed(const struct wk_config *cfg);
/* "cron entry", "systemd timer" or "launchd agent": the first in mask (sched_installed's); NULL for none. */
const char *sched_entry_name(int mask);
/* 1 when some scheduler holds this run's entry, 0 none, -1 unknown (sched_installed's -1). */
int sched_is_installed(const struct wk_config *cfg);

#endif
