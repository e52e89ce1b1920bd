/*
 * crontab.h: the user's crontab and patrol's line in it, built in one place
 * so that `patrol --install-cron` installs and the handbook prints (and
 * `handbook --check` looks for) byte for byte the same line.
 *
 * One line per run, ending in "# watchkeeper:<run>", with absolute paths and
 * its output appended to the run's cron.log:
 *
 *   <schedule> '<patrol>' -c '<config>' --once >> '<statedir>/cron.log' 2>&1 # watchkeeper:<run>
 *
 * The schedule comes from the config (patrol.schedule) and is checked before
 * it reaches the crontab: five fields of cron syntax or an @keyword, nothing
 * else, so a config value cannot add a line of its own.  '%' is special to
 * cron (a newline) and is escaped in the command.
 */
#ifndef WK_CRONTAB_H
#define WK_CRONTAB_H

#include "config.h"

#define CRONTAB_TAG	"# watchkeeper:"

/* 1 when s is five cron fields (digits, letters, * , / -) or one @keyword. */
int crontab_schedule_ok(const char *s);

/*
 * `crontab -l`: 0 and *out (caller frees; "" when the user has no crontab),
 * or WK_ERR_EXEC (*out NULL) when crontab cannot be run or fails otherwise.
 */
int crontab_read(char **out);
/* `crontab -` fed text; 0, WK_ERR_SYSTEM (pipe) or WK_ERR_EXEC. */
int crontab_write(const char *text);

/*
 * This run's line, without the newline, for patrol at self (absolute) and
 * the config at cfgpath (absolute).  NULL when patrol.schedule is not a cron
 * schedule or a path holds a newline (errno EINVAL: a crontab entry is one
 * line), or (errno set) when the run's state directory has no path.
 * Caller frees.  Creates nothing.
 */
char *crontab_line(const struct wk_config *cfg, const char *self, const char *cfgpath);

/* tab without this run's lines; *had (may be NULL) tells whether it had one.  Caller frees. */
char *crontab_without(const char *tab, const char *run, int *had);

/* 1 when tab holds a line tagged for run, else 0. */
int crontab_has(const char *tab, const char *run);

/*
 * 1 when this run's line is in the user's crontab, 0 when not, crontab_read's
 * WK_ERR_* code when it cannot be read.
 */
int crontab_installed(const struct wk_config *cfg);

#endif
