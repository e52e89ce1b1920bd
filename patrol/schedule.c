/*
 * schedule.c: patrol's ticks in the owner's scheduler, installed and removed
 * idempotently: `patrol --install-schedule` (alias --install-cron) and
 * `--uninstall-schedule` (alias --uninstall-cron); DONE removes them too.
 *
 * What each scheduler is given is core/scheduler.c's and core/crontab.c's
 * (the handbook prints the same); this file writes it and tells the
 * scheduler: crontab(1); systemctl --user daemon-reload and enable --now for
 * the timer; launchctl bootout and bootstrap for the agent.  Which one:
 * --scheduler, else sched_detect() (launchd on macOS, cron where `crontab
 * -l` works, systemd where it is installed).  Removing with no --scheduler
 * removes the run's entry from every scheduler that has one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "config.h"
#include "crontab.h"
#include "err.h"
#include "fsutil.h"
#include "layout.h"
#include "log.h"
#include "patrol.h"
#include "scheduler.h"
#include "spawn.h"
#include "xmalloc.h"

/*
 * Run argv (systemctl, launchctl): 0 when it exited 0, else -1.  What it
 * prints is not shown: patrol says what happened, and why when it failed.
 */
static int
sched_run(char *const argv[])
{
	char *out = NULL;
	int status;

	if (spawn_capture(argv, 64 * 1024, 0, &status, &out) != 0) {
		free(out);
		return -1;
	}
	free(out);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* "run NAME", or what the fleet's pseudo run (fleet.c) stands for. */
static const char *
sched_who(const struct wk_config *cfg)
{
	static char who[128];

	if (cfg->run[0] == ':')
		return "every run patrol knows (patrol --all)";
	snprintf(who, sizeof(who), "run %s", cfg->run);
	return who;
}

/* How to remove what was installed: the run's entry, or the fleet's (cfgpath NULL). */
static void
sched_say_remove(const char *self, const char *cfgpath)
{
	if (cfgpath != NULL)
		printf("remove it with: %s -c %s --uninstall-schedule\n", self, cfgpath);
	else
		printf("remove it with: %s --uninstall-schedule --all\n", self);
}

/* ---- cron ---- */

static int
cron_install(const struct wk_config *cfg, const char *self, const char *cfgpath)
{
	const char *sched = config_get_str(cfg, "patrol.schedule");
	struct buf tabnew = BUF_INIT;
	char *tab = NULL, *rest = NULL, *dir = NULL, *logp = NULL, *line = NULL;
	int had, rc = 0;

	if (!crontab_schedule_ok(sched)) {
		log_error("%s: key \"patrol.schedule\": \"%s\" is not a cron schedule (five fields or @daily ...)",
		    cfg->path, sched);
		return WK_EX_CONFIG;
	}
	if ((dir = statedir_path(cfg, 1)) == NULL) {
		log_error("cannot create the run's state directory: %s", wk_strerror(WK_ERR_SYSTEM));
		return WK_EX_IOERR;
	}
	logp = xstrfmt("%s/cron.log", dir);
	if (crontab_read(&tab) != 0) {
		log_error("cannot read the crontab (is cron installed? `crontab -l` failed)");
		rc = WK_EX_SOFTWARE;
		goto out;
	}
	if ((line = crontab_line(cfg, self, cfgpath)) == NULL) {
		if (errno == EINVAL) {
			/*
			 * The schedule was checked above: a path holds a newline (the
			 * config's, patrol's or the state directory's), which would end
			 * the crontab line.  Not the config's content: exit 1.
			 */
			log_error("cannot install the cron entry: a path in it (patrol %s, the config, "
			    "or the state directory) holds a newline, which would end the crontab line; "
			    "move it to a path without one", self);
			rc = WK_EX_FAIL;
		} else {
			log_error("cannot build the crontab line: %s", wk_strerror(WK_ERR_SYSTEM));
			rc = WK_EX_SOFTWARE;
		}
		goto out;
	}
	rest = crontab_without(tab, cfg->run, &had);
	buf_puts(&tabnew, rest);
	buf_puts(&tabnew, line);
	buf_putc(&tabnew, '\n');
	if (crontab_write(tabnew.data) != 0) {
		log_error("cannot install the crontab (`crontab -` failed)");
		rc = WK_EX_SOFTWARE;
		goto out;
	}
	printf("%s patrol for %s in the crontab: %s (output: %s)\n", had ? "updated" : "installed",
	    sched_who(cfg), sched, logp);
	sched_say_remove(self, cfgpath);
 out:
	buf_free(&tabnew);
	free(tab);
	free(rest);
	free(dir);
	free(logp);
	free(line);
	return rc;
}

/* 1 removed, 0 there was none, <0 failed (an exit code, negated). */
static int
cron_uninstall(const struct wk_config *cfg, int quiet)
{
	char *tab = NULL, *rest = NULL;
	int had = 0, rc = 0;

	if (crontab_read(&tab) != 0) {
		if (!quiet)
			log_error("cannot read the crontab (`crontab -l` failed)");
		return -WK_EX_SOFTWARE;
	}
	rest = crontab_without(tab, cfg->run, &had);
	if (had && crontab_write(rest) != 0) {
		if (!quiet)
			log_error("cannot write the crontab (`crontab -` failed)");
		rc = -WK_EX_SOFTWARE;
	} else
		rc = had;
	free(tab);
	free(rest);
	return rc;
}

/* ---- systemd ---- */

/* The timer's and the service's paths in dir. */
static void
sd_paths(const struct wk_config *cfg, const char *dir, char **timer, char **service, char **wants)
{
	char *t = sched_systemd_unit(cfg, ".timer"), *s = sched_systemd_unit(cfg, ".service");

	*timer = xstrfmt("%s/%s", dir, t);
	*service = xstrfmt("%s/%s", dir, s);
	*wants = xstrfmt("%s/timers.target.wants/%s", dir, t);
	free(t);
	free(s);
}

static int
systemd_install(const struct wk_config *cfg, const char *self, const char *cfgpath)
{
	char *dir = NULL, *timer = NULL, *service = NULL, *wants = NULL, *ttext = NULL, *stext = NULL;
	char *unit = sched_systemd_unit(cfg, ".timer"), *sdir = NULL, *wdir = NULL, why[512] = "";
	char *reload[] = { "systemctl", "--user", "daemon-reload", NULL };
	char *enable[] = { "systemctl", "--user", "enable", "--now", unit, NULL };
	struct stat st;
	int rc = 0, had;

	if ((ttext = sched_systemd_timer(cfg, why, sizeof(why))) == NULL) {
		log_error("%s: %s: a systemd timer cannot say it", cfg->path, why);
		rc = WK_EX_CONFIG;
		goto out;
	}
	if ((sdir = statedir_path(cfg, 1)) == NULL) {
		log_error("cannot create the run's state directory: %s", wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	if ((stext = sched_systemd_service(cfg, self, cfgpath)) == NULL) {
		log_error("cannot write the systemd service: a path in it (patrol %s, the config, or "
		    "the state directory) holds a newline; move it to a path without one", self);
		rc = WK_EX_FAIL;
		goto out;
	}
	if ((dir = sched_systemd_dir()) == NULL) {
		log_error("no systemd user unit directory: neither $XDG_CONFIG_HOME nor $HOME is set");
		rc = WK_EX_IOERR;
		goto out;
	}
	sd_paths(cfg, dir, &timer, &service, &wants);
	had = stat(timer, &st) == 0;
	if (fs_mkdirs(dir, 0755) != 0 || atomic_write(service, stext, strlen(stext), 0644) != 0 ||
	    atomic_write(timer, ttext, strlen(ttext), 0644) != 0) {
		log_error("cannot write the units in %s: %s", dir, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	if (sched_run(reload) == 0 && sched_run(enable) == 0) {
		printf("%s patrol for %s as a systemd user timer: %s (output: %s/cron.log)\n",
		    had ? "updated" : "installed", sched_who(cfg), config_get_str(cfg, "patrol.schedule"), sdir);
		printf("units: %s, %s (`systemctl --user list-timers` shows it)\n", timer, service);
	} else {
		/*
		 * No user manager to tell (none runs now, or no session bus): the
		 * timer is enabled by hand the way `systemctl enable` does it, a
		 * link in timers.target.wants, and starts with the user's manager.
		 */
		wdir = xstrfmt("%s/timers.target.wants", dir);
		(void)unlink(wants);
		if (fs_mkdirs(wdir, 0755) != 0 || symlink(timer, wants) != 0) {
			log_error("cannot enable the timer (%s): %s", wants, wk_strerror(WK_ERR_SYSTEM));
			rc = WK_EX_IOERR;
			goto out;
		}
		printf("%s patrol for %s as a systemd user timer: %s (output: %s/cron.log)\n",
		    had ? "updated" : "installed", sched_who(cfg), config_get_str(cfg, "patrol.schedule"), sdir);
		printf("units: %s, %s; systemd's user manager did not answer `systemctl --user`, so the "
		    "timer is enabled and starts with it (at your next login; `loginctl enable-linger` "
		    "runs it while you are logged out too)\n", timer, service);
	}
	sched_say_remove(self, cfgpath);
 out:
	free(dir);
	free(sdir);
	free(wdir);
	free(timer);
	free(service);
	free(wants);
	free(ttext);
	free(stext);
	free(unit);
	return rc;
}

static int
systemd_uninstall(const struct wk_config *cfg, int quiet)
{
	char *dir = sched_systemd_dir(), *timer, *service, *wants;
	char *unit = sched_systemd_unit(cfg, ".timer");
	char *disable[] = { "systemctl", "--user", "disable", "--now", unit, NULL };
	char *reload[] = { "systemctl", "--user", "daemon-reload", NULL };
	struct stat st;
	int had, rc;

	if (dir == NULL) {
		free(unit);
		return 0;
	}
	sd_paths(cfg, dir, &timer, &service, &wants);
	had = stat(timer, &st) == 0 || stat(service, &st) == 0;
	if (had)
		(void)sched_run(disable);	/* stops it; without a manager the files go anyway */
	(void)unlink(wants);
	rc = (unlink(timer) != 0 && errno != ENOENT) || (unlink(service) != 0 && errno != ENOENT);
	if (rc != 0 && !quiet)
		log_error("cannot remove %s: %s", timer, wk_strerror(WK_ERR_SYSTEM));
	if (had)
		(void)sched_run(reload);
	free(dir);
	free(timer);
	free(service);
	free(wants);
	free(unit);
	return rc != 0 ? -WK_EX_IOERR : had;
}

/* ---- launchd ---- */

static char *
launchd_domain(void)
{
	return xstrfmt("gui/%lu", (unsigned long)getuid());
}

static int
launchd_install(const struct wk_config *cfg, const char *self, const char *cfgpath)
{
	char *path = NULL, *text = NULL, *dir = NULL, *sdir = NULL, *domain = launchd_domain();
	char *label = sched_launchd_label(cfg), *target = xstrfmt("%s/%s", domain, label), why[512] = "";
	char *bootout[] = { "launchctl", "bootout", target, NULL };
	char *bootstrap[] = { "launchctl", "bootstrap", domain, NULL, NULL };
	struct stat st;
	int rc = 0, had;

	if ((text = sched_launchd_plist(cfg, self, cfgpath, why, sizeof(why))) == NULL) {
		if (errno == EINVAL && strncmp(why, "key ", 4) == 0) {
			log_error("%s: %s", cfg->path, why);
			rc = WK_EX_CONFIG;
		} else {
			log_error("cannot write the launch agent: %s", why[0] != '\0' ? why :
			    wk_strerror(WK_ERR_SYSTEM));
			rc = WK_EX_FAIL;
		}
		goto out;
	}
	if ((sdir = statedir_path(cfg, 1)) == NULL) {
		log_error("cannot create the run's state directory: %s", wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	if ((path = sched_launchd_path(cfg)) == NULL) {
		log_error("no ~/Library/LaunchAgents: $HOME is not set");
		rc = WK_EX_IOERR;
		goto out;
	}
	had = stat(path, &st) == 0;
	dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	if (fs_mkdirs(dir, 0755) != 0 || atomic_write(path, text, strlen(text), 0644) != 0) {
		log_error("cannot write %s: %s", path, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	/* A loaded agent keeps its old plist until it is booted out. */
	if (had)
		(void)sched_run(bootout);
	bootstrap[3] = path;
	if (sched_run(bootstrap) != 0) {
		log_error("`launchctl bootstrap %s %s` failed: the agent is written but not loaded "
		    "(it loads at your next login)", domain, path);
		rc = WK_EX_SOFTWARE;
		goto out;
	}
	printf("%s patrol for %s as a launchd agent: %s (output: %s/cron.log)\n",
	    had ? "updated" : "installed", sched_who(cfg), config_get_str(cfg, "patrol.schedule"), sdir);
	printf("agent: %s (label %s)\n", path, label);
	sched_say_remove(self, cfgpath);
 out:
	free(path);
	free(text);
	free(dir);
	free(sdir);
	free(domain);
	free(label);
	free(target);
	return rc;
}

static int
launchd_uninstall(const struct wk_config *cfg, int quiet)
{
	char *path = sched_launchd_path(cfg), *domain = launchd_domain(), *label = sched_launchd_label(cfg);
	char *target = xstrfmt("%s/%s", domain, label);
	char *bootout[] = { "launchctl", "bootout", target, NULL };
	struct stat st;
	int had = 0, rc = 0;

	if (path != NULL && (had = stat(path, &st) == 0)) {
		(void)sched_run(bootout);	/* not loaded is fine: the file goes */
		if (unlink(path) != 0 && errno != ENOENT) {
			if (!quiet)
				log_error("cannot remove %s: %s", path, wk_strerror(WK_ERR_SYSTEM));
			rc = -WK_EX_IOERR;
		}
	}
	free(path);
	free(domain);
	free(label);
	free(target);
	return rc != 0 ? rc : had;
}

/* ---- the table ---- */

static const struct {
	int	(*install)(const struct wk_config *, const char *, const char *);
	int	(*uninstall)(const struct wk_config *, int);
	const char *where;
} sched_ops[SCHED_NKINDS] = {
	[SCHED_CRON] = { cron_install, cron_uninstall, "the crontab" },
	[SCHED_SYSTEMD] = { systemd_install, systemd_uninstall, "the systemd user timer" },
	[SCHED_LAUNCHD] = { launchd_install, launchd_uninstall, "the launchd agent" },
};

int
schedule_install(const struct wk_config *cfg, const char *self, const char *cfgpath, int kind)
{
	char why[256];
	int k, mask;

	if (kind < 0 && (kind = sched_detect(why, sizeof(why))) < 0) {
		log_error("%s", why);
		return WK_EX_SOFTWARE;
	}
	/* One scheduler at a time: an entry in another one would tick twice. */
	if ((mask = sched_installed(cfg)) < 0)
		mask = 0;
	for (k = 0; k < SCHED_NKINDS; k++)
		if (k != kind && (mask & (1 << k)) && sched_ops[k].uninstall(cfg, 1) == 1)
			printf("removed this run's patrol from %s (now in %s)\n", sched_ops[k].where,
			    sched_ops[kind].where);
	return sched_ops[kind].install(cfg, self, cfgpath);
}

int
schedule_uninstall(const struct wk_config *cfg, int quiet, int kind)
{
	int k, r, rc = 0, removed = 0;

	for (k = 0; k < SCHED_NKINDS; k++) {
		if (kind >= 0 && k != kind)
			continue;
		/* without --scheduler, cron only where crontab works: no error for a missing cron */
		if (kind < 0 && k == SCHED_CRON && crontab_installed(cfg) < 0)
			continue;
		if ((r = sched_ops[k].uninstall(cfg, quiet)) < 0)
			rc = -r;
		else if (r == 1) {
			removed++;
			if (!quiet)
				printf("removed this run's patrol from %s\n", sched_ops[k].where);
		}
	}
	if (!quiet && removed == 0 && rc == 0)
		printf("no patrol for this run in %s\n", kind >= 0 ? sched_ops[kind].where :
		    "the crontab, a systemd user timer or a launchd agent");
	return rc;
}
