/*
 * scheduler.c: which scheduler, and the systemd units and launchd plist
 * patrol installs (see scheduler.h).  The crontab line is crontab.c's;
 * installing and removing is patrol/schedule.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "crontab.h"
#include "fsutil.h"
#include "layout.h"
#include "schedule.h"
#include "scheduler.h"
#include "xmalloc.h"

const char *const sched_kind_names[SCHED_NKINDS] = { "cron", "systemd", "launchd" };

int
sched_kind_parse(const char *s)
{
	int k;

	for (k = 0; k < SCHED_NKINDS; k++)
		if (strcmp(s, sched_kind_names[k]) == 0)
			return k;
	return -1;
}


int
sched_detect(char *why, size_t whylen)
{
	struct utsname u;
	struct stat st;
	char *tab = NULL;

	if (uname(&u) == 0 && strcmp(u.sysname, "Darwin") == 0)
		return SCHED_LAUNCHD;
	if (crontab_read(&tab) == 0) {
		free(tab);
		return SCHED_CRON;
	}
	if (fs_on_path("systemctl") || (stat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode)))
		return SCHED_SYSTEMD;
	snprintf(why, whylen, "no scheduler here: `crontab -l` does not work and systemd is not "
	    "installed (no systemctl on PATH); install cron, or name one with --scheduler");
	return -1;
}

/* ---- systemd ---- */

char *
sched_systemd_dir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		return xstrfmt("%s/systemd/user", xdg);
	if (home != NULL && home[0] == '/')
		return xstrfmt("%s/.config/systemd/user", home);
	errno = ENOENT;
	return NULL;
}

char *
sched_systemd_unit(const struct wk_config *cfg, const char *suffix)
{
	/*
	 * The fleet's entry (patrol/fleet.c: a name with ':', which no run has)
	 * is "watchkeeper.fleet": a ':' in a unit's file name reads as an alias
	 * to `systemd-analyze verify`, and no run's unit starts "watchkeeper.".
	 */
	if (cfg->run[0] == ':')
		return xstrfmt("watchkeeper.%s%s", cfg->run + 1, suffix);
	return xstrfmt("watchkeeper-%s%s", cfg->run, suffix);
}

/*
 * One word of an Exec line: double quotes, with '\' and '"' escaped, '%'
 * as "%%" (a specifier otherwise) and '$' as "$$" (a variable otherwise).
 */
static void
sched_sd_word(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			buf_putc(b, '\\');
		else if (*s == '%' || *s == '$')
			buf_putc(b, *s);
		buf_putc(b, *s);
	}
	buf_putc(b, '"');
}

/* The run's cron.log, checked for what no unit or plist line may hold; NULL (errno) otherwise. */
static char *
sched_logpath(const struct wk_config *cfg, const char *self, const char *cfgpath)
{
	char *dir, *logp;

	if ((dir = statedir_path(cfg, 0)) == NULL)
		return NULL;
	logp = xstrfmt("%s/cron.log", dir);
	free(dir);
	if ((self != NULL && strpbrk(self, "\r\n") != NULL) ||
	    (cfgpath != NULL && strpbrk(cfgpath, "\r\n") != NULL) || strpbrk(logp, "\r\n") != NULL) {
		free(logp);
		errno = EINVAL;
		return NULL;
	}
	return logp;
}

char *
sched_systemd_service(const struct wk_config *cfg, const char *self, const char *cfgpath)
{
	struct buf b = BUF_INIT;
	char *logp;
	const char *p;

	if ((logp = sched_logpath(cfg, self, cfgpath)) == NULL)
		return NULL;
	buf_printf(&b, "# " CRONTAB_TAG "%s: patrol's ticks, installed by `patrol --install-schedule`\n"
	    "[Unit]\nDescription=watchkeeper: a patrol tick for run %s\n\n"
	    "[Service]\nType=oneshot\nExecStart=", cfg->run, cfg->run);
	sched_sd_word(&b, self);
	if (cfgpath != NULL) {
		buf_puts(&b, " -c ");
		sched_sd_word(&b, cfgpath);
		buf_puts(&b, " --once\nStandardOutput=append:");
	} else
		buf_puts(&b, " --all\nStandardOutput=append:");	/* the fleet's one entry */
	for (p = logp; *p != '\0'; p++) {
		if (*p == '%')
			buf_putc(&b, '%');
		buf_putc(&b, *p);
	}
	buf_puts(&b, "\nStandardError=inherit\n");
	free(logp);
	return buf_detach(&b);
}

char *
sched_systemd_timer(const struct wk_config *cfg, char *why, size_t whylen)
{
	const char *spec = config_get_str(cfg, "patrol.schedule");
	struct buf b = BUF_INIT;
	struct sched s;
	char w[256];

	if (sched_parse(spec, &s, w, sizeof(w)) != 0) {
		if (why != NULL)
			snprintf(why, whylen, "key \"patrol.schedule\": %s", w);
		errno = EINVAL;
		return NULL;
	}
	buf_printf(&b, "# " CRONTAB_TAG "%s: patrol's ticks, installed by `patrol --install-schedule`\n"
	    "[Unit]\nDescription=watchkeeper: patrol ticks for run %s (%s)\n\n[Timer]\n",
	    cfg->run, cfg->run, spec);
	sched_systemd(&s, &b);
	/* A tick missed while the machine was off or asleep runs when it is back. */
	{
		char *svc = sched_systemd_unit(cfg, ".service");

		buf_printf(&b, "Persistent=true\nUnit=%s\n\n[Install]\nWantedBy=timers.target\n", svc);
		free(svc);
	}
	return buf_detach(&b);
}

/* ---- launchd ---- */

char *
sched_launchd_label(const struct wk_config *cfg)
{
	/* the fleet's entry: "watchkeeper.fleet" (see sched_systemd_unit) */
	if (cfg->run[0] == ':')
		return xstrfmt("watchkeeper.%s", cfg->run + 1);
	return xstrfmt("watchkeeper.patrol.%s", cfg->run);
}

char *
sched_launchd_path(const struct wk_config *cfg)
{
	const char *home = getenv("HOME");

	if (home == NULL || home[0] != '/') {
		errno = ENOENT;
		return NULL;
	}
	{
		char *label = sched_launchd_label(cfg), *p;

		p = xstrfmt("%s/Library/LaunchAgents/%s.plist", home, label);
		free(label);
		return p;
	}
}

/* <string>s</string>, XML-escaped. */
static void
sched_plist_string(struct buf *b, const char *s)
{
	buf_puts(b, "<string>");
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&': buf_puts(b, "&amp;"); break;
		case '<': buf_puts(b, "&lt;"); break;
		case '>': buf_puts(b, "&gt;"); break;
		default: buf_putc(b, *s);
		}
	}
	buf_puts(b, "</string>");
}

char *
sched_launchd_plist(const struct wk_config *cfg, const char *self, const char *cfgpath,
    char *why, size_t whylen)
{
	const char *spec = config_get_str(cfg, "patrol.schedule");
	struct buf b = BUF_INIT, times = BUF_INIT;
	struct sched s;
	char w[256], *logp;

	if (sched_parse(spec, &s, w, sizeof(w)) != 0) {
		if (why != NULL)
			snprintf(why, whylen, "key \"patrol.schedule\": %s", w);
		errno = EINVAL;
		return NULL;
	}
	if (sched_launchd(&s, &times, 2) < 0) {
		if (why != NULL)
			snprintf(why, whylen, "key \"patrol.schedule\": \"%s\" is more than %d times a "
			    "day, week or year for launchd's StartCalendarInterval; a shorter list "
			    "(every 30 minutes is 2 entries) does the same", spec, SCHED_LAUNCHD_MAX);
		buf_free(&times);
		errno = EINVAL;
		return NULL;
	}
	if ((logp = sched_logpath(cfg, self, cfgpath)) == NULL) {
		if (why != NULL && errno == EINVAL)
			snprintf(why, whylen, "a path (patrol, the config or the state directory) holds a newline");
		buf_free(&times);
		return NULL;
	}
	buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
	    "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n");
	/* (no two hyphens in a row inside an XML comment) */
	buf_printf(&b, "<!-- " CRONTAB_TAG "%s: patrol's ticks for this run; patrol's uninstall-schedule removes them -->\n"
	    "<plist version=\"1.0\">\n<dict>\n\t<key>Label</key>", cfg->run);
	{
		char *label = sched_launchd_label(cfg);

		sched_plist_string(&b, label);
		free(label);
	}
	buf_puts(&b, "\n\t<key>ProgramArguments</key>\n\t<array>\n\t\t");
	sched_plist_string(&b, self);
	if (cfgpath != NULL) {
		buf_puts(&b, "\n\t\t<string>-c</string>\n\t\t");
		sched_plist_string(&b, cfgpath);
		buf_puts(&b, "\n\t\t<string>--once</string>");
	} else
		buf_puts(&b, "\n\t\t<string>--all</string>");	/* the fleet's one entry */
	buf_puts(&b, "\n\t</array>\n"
	    "\t<key>StartCalendarInterval</key>\n\t<array>\n");
	buf_append(&b, times.data, times.len);
	buf_puts(&b, "\t</array>\n\t<key>StandardOutPath</key>");
	sched_plist_string(&b, logp);
	buf_puts(&b, "\n\t<key>StandardErrorPath</key>");
	sched_plist_string(&b, logp);
	buf_puts(&b, "\n\t<key>ProcessType</key><string>Background</string>\n</dict>\n</plist>\n");
	buf_free(&times);
	free(logp);
	return buf_detach(&b);
}

/* ---- installed? ---- */

int
sched_installed(const struct wk_config *cfg)
{
	struct stat st;
	char *dir, *p, *unit;
	int mask = 0, cron;

	if ((cron = crontab_installed(cfg)) == 1)
		mask |= 1 << SCHED_CRON;
	if ((dir = sched_systemd_dir()) != NULL) {
		unit = sched_systemd_unit(cfg, ".timer");
		p = xstrfmt("%s/%s", dir, unit);
		if (stat(p, &st) == 0)
			mask |= 1 << SCHED_SYSTEMD;
		free(p);
		free(unit);
		free(dir);
	}
	if ((p = sched_launchd_path(cfg)) != NULL) {
		if (stat(p, &st) == 0)
			mask |= 1 << SCHED_LAUNCHD;
		free(p);
	}
	return mask == 0 && cron < 0 ? -1 : mask;
}

const char *
sched_entry_name(int mask)
{
	static const char *const names[SCHED_NKINDS] = { "cron entry", "systemd timer", "launchd agent" };
	int k;

	for (k = 0; mask > 0 && k < SCHED_NKINDS; k++)
		if (mask & (1 << k))
			return names[k];
	return NULL;
}

int
sched_is_installed(const struct wk_config *cfg)
{
	int m = sched_installed(cfg);

	return m < 0 ? -1 : m != 0;
}
