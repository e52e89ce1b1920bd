/*
 * cron.c: patrol's crontab line, installed and removed idempotently.
 *
 * One line per run, marked "# watchkeeper:<run>", with absolute paths and
 * its output appended to the run's cron.log.  The schedule comes from the
 * config and is checked before it reaches the crontab: five fields of cron
 * syntax or an @keyword, nothing else, so a config value cannot add a line
 * of its own.  '%' is special to cron (a newline) and is escaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "err.h"
#include "log.h"
#include "patrol.h"
#include "spawn.h"
#include "sshq.h"
#include "target.h"
#include "xmalloc.h"

#define CRON_TAG "# watchkeeper:"

static const char *const cron_keywords[] = {
	"@reboot", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
};

/* 1 when s is five cron fields (digits, letters, * , / -) or one @keyword. */
static int
cron_schedule_ok(const char *s)
{
	size_t i, fields = 0;
	const char *p;

	for (i = 0; i < sizeof(cron_keywords) / sizeof(cron_keywords[0]); i++)
		if (strcmp(s, cron_keywords[i]) == 0)
			return 1;
	for (p = s; *p != '\0'; p++)
		if (strchr("0123456789*,/-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ", *p) == NULL)
			return 0;
	for (p = s; *p != '\0';) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		fields++;
		while (*p != '\0' && *p != ' ')
			p++;
	}
	return fields == 5;
}

static int
crontab_read(char **out)
{
	char *argv[] = { "crontab", "-l", NULL };
	int status;

	if (spawn_capture(argv, 1 << 20, 0, &status, out) != 0)
		return WK_ERR_EXEC;
	/* "no crontab for user" exits 1: an empty crontab. */
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1)) {
		free(*out);
		*out = NULL;
		return WK_ERR_EXEC;
	}
	if (WEXITSTATUS(status) == 1)
		(*out)[0] = '\0';
	return 0;
}

static int
crontab_write(const char *text)
{
	char *argv[] = { "crontab", "-", NULL };
	struct spawn_opts o;
	int fds[2], status = -1;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return WK_ERR_SYSTEM;
	spawn_opts_init(&o);
	o.fd_in = fds[0];
	o.fd_err = SPAWN_INHERIT;
	pid = spawn_argv(argv, &o);
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		return WK_ERR_EXEC;
	}
	if (write(fds[1], text, strlen(text)) != (ssize_t)strlen(text))
		status = -1;
	close(fds[1]);
	spawn_wait(pid, &status);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : WK_ERR_EXEC;
}

/* The crontab without this run's lines; *had tells whether it had one. */
static char *
cron_without(const char *tab, const char *run, int *had)
{
	struct buf b = BUF_INIT;
	char *tag = xstrfmt(CRON_TAG "%s", run);
	const char *l, *nl;
	size_t n, tl = strlen(tag);

	*had = 0;
	for (l = tab; *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l);
		n = (size_t)(nl - l);
		if (n >= tl && strncmp(l + n - tl, tag, tl) == 0) {
			*had = 1;
			continue;
		}
		buf_append(&b, l, n);
		buf_putc(&b, '\n');
	}
	free(tag);
	return buf_detach(&b);
}

static void
cron_escape(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '%')
			buf_putc(b, '\\');
		buf_putc(b, *s);
	}
}

int
cron_install(const struct wk_config *cfg, const char *self, const char *cfgpath)
{
	const char *sched = config_get_str(cfg, "patrol.schedule");
	struct buf line = BUF_INIT, word = BUF_INIT;
	char *tab = NULL, *rest = NULL, *dir = NULL, *logp = NULL;
	int had, rc = 0;

	if (!cron_schedule_ok(sched)) {
		log_error("%s: key \"patrol.schedule\": \"%s\" is not a cron schedule (five fields or @daily ...)",
		    cfg->path, sched);
		return WK_EX_CONFIG;
	}
	if ((dir = statedir_path(cfg, 1)) == NULL) {
		log_error("cannot create the run's state directory: %s", strerror(errno));
		return WK_EX_IOERR;
	}
	logp = xstrfmt("%s/cron.log", dir);
	if (crontab_read(&tab) != 0) {
		log_error("cannot read the crontab (is cron installed? `crontab -l` failed)");
		rc = WK_EX_SOFTWARE;
		goto out;
	}
	rest = cron_without(tab, cfg->run, &had);
	buf_puts(&line, rest);
	buf_printf(&line, "%s ", sched);
	sshq_append(&word, self);
	buf_puts(&word, " -c ");
	sshq_append(&word, cfgpath);
	buf_puts(&word, " --once >> ");
	sshq_append(&word, logp);
	buf_puts(&word, " 2>&1");
	cron_escape(&line, word.data);
	buf_printf(&line, " " CRON_TAG "%s\n", cfg->run);
	if (crontab_write(line.data) != 0) {
		log_error("cannot install the crontab (`crontab -` failed)");
		rc = WK_EX_SOFTWARE;
		goto out;
	}
	printf("%s patrol for run %s: %s (output: %s)\n", had ? "updated" : "installed", cfg->run,
	    sched, logp);
	printf("remove it with: %s -c %s --uninstall-cron\n", self, cfgpath);
 out:
	buf_free(&line);
	buf_free(&word);
	free(tab);
	free(rest);
	free(dir);
	free(logp);
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
	rest = cron_without(tab, cfg->run, &had);
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
