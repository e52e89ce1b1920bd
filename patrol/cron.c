/*
 * cron.c: patrol's crontab line, installed and removed idempotently.
 *
 * The line itself, and reading and writing the crontab, live in
 * core/crontab.c, so that the handbook prints exactly the line installed
 * here.  One line per run, marked "# watchkeeper:<run>"; installing again
 * replaces it, removing a line that is not there is not an error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "crontab.h"
#include "err.h"
#include "layout.h"
#include "log.h"
#include "patrol.h"
#include "xmalloc.h"

int
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
	printf("%s patrol for run %s: %s (output: %s)\n", had ? "updated" : "installed", cfg->run,
	    sched, logp);
	printf("remove it with: %s -c %s --uninstall-cron\n", self, cfgpath);
 out:
	buf_free(&tabnew);
	free(tab);
	free(rest);
	free(dir);
	free(logp);
	free(line);
	return rc;
}

int
cron_uninstall(const struct wk_config *cfg, int quiet)
{
	char *tab = NULL, *rest = NULL;
	int had = 0, rc = 0;

	if (crontab_read(&tab) != 0) {
		if (!quiet)
			log_error("cannot read the crontab (`crontab -l` failed)");
		return WK_EX_SOFTWARE;
	}
	rest = crontab_without(tab, cfg->run, &had);
	if (had && crontab_write(rest) != 0) {
		if (!quiet)
			log_error("cannot write the crontab (`crontab -` failed)");
		rc = WK_EX_SOFTWARE;
	} else if (!quiet)
		printf("%s\n", had ? "removed this run's patrol from the crontab" :
		    "no patrol line for this run in the crontab");
	free(tab);
	free(rest);
	return rc;
}
