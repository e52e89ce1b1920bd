/*
 * crontab.c: reading and writing the user's crontab through crontab(1), and
 * patrol's line in it (see crontab.h).  patrol/cron.c installs and removes
 * the line; the handbook prints it and checks whether it is there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "crontab.h"
#include "err.h"
#include "layout.h"
#include "portable.h"
#include "spawn.h"
#include "sshq.h"
#include "xmalloc.h"

static const char *const crontab_keywords[] = {
	"@reboot", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
};

int
crontab_schedule_ok(const char *s)
{
	size_t i, fields = 0;
	const char *p;

	if (s == NULL)
		return 0;
	for (i = 0; i < sizeof(crontab_keywords) / sizeof(crontab_keywords[0]); i++)
		if (strcmp(s, crontab_keywords[i]) == 0)
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

int
crontab_read(char **out)
{
	char *argv[] = { "crontab", "-l", NULL };
	int status;

	*out = NULL;
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

int
crontab_write(const char *text)
{
	char *argv[] = { "crontab", "-", NULL };
	struct spawn_opts o;
	int fds[2], status = -1;
	pid_t pid;

	if (wk_pipe_cloexec(fds) != 0)
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

/* Calls fn for each line of tab (without its newline); stops when fn returns nonzero. */
static int
crontab_lines(const char *tab, int (*fn)(const char *, size_t, void *), void *arg)
{
	const char *l, *nl;
	int r;

	for (l = tab; *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l);
		if ((r = fn(l, (size_t)(nl - l), arg)) != 0)
			return r;
	}
	return 0;
}

struct crontab_filter {
	const char	*tag;
	size_t		 tl;
	struct buf	*keep;		/* NULL: only look */
	int		 had;
};

static int
crontab_filter_line(const char *l, size_t n, void *arg)
{
	struct crontab_filter *f = arg;

	if (n >= f->tl && strncmp(l + n - f->tl, f->tag, f->tl) == 0) {
		f->had = 1;
		return f->keep == NULL;
	}
	if (f->keep != NULL) {
		buf_append(f->keep, l, n);
		buf_putc(f->keep, '\n');
	}
	return 0;
}

char *
crontab_without(const char *tab, const char *run, int *had)
{
	struct buf b = BUF_INIT;
	struct crontab_filter f;
	char *tag = xstrfmt(CRONTAB_TAG "%s", run);

	f.tag = tag;
	f.tl = strlen(tag);
	f.keep = &b;
	f.had = 0;
	(void)crontab_lines(tab, crontab_filter_line, &f);
	if (had != NULL)
		*had = f.had;
	free(tag);
	return buf_detach(&b);
}

int
crontab_has(const char *tab, const char *run)
{
	struct crontab_filter f;
	char *tag = xstrfmt(CRONTAB_TAG "%s", run);

	f.tag = tag;
	f.tl = strlen(tag);
	f.keep = NULL;
	f.had = 0;
	(void)crontab_lines(tab, crontab_filter_line, &f);
	free(tag);
	return f.had;
}

static void
crontab_escape(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '%')
			buf_putc(b, '\\');
		buf_putc(b, *s);
	}
}

char *
crontab_line(const struct wk_config *cfg, const char *self, const char *cfgpath)
{
	const char *sched = config_get_str(cfg, "patrol.schedule");
	struct buf line = BUF_INIT, word = BUF_INIT;
	char *dir, *logp;

	if (!crontab_schedule_ok(sched)) {
		errno = EINVAL;
		return NULL;
	}
	if ((dir = statedir_path(cfg, 0)) == NULL)
		return NULL;
	logp = xstrfmt("%s/cron.log", dir);
	/*
	 * A crontab entry is one line: a newline in a path would end it and
	 * make the rest a line of its own (a job cron runs).  Refused.
	 */
	if (strpbrk(self, "\r\n") != NULL || (cfgpath != NULL && strpbrk(cfgpath, "\r\n") != NULL) ||
	    strpbrk(logp, "\r\n") != NULL) {
		free(dir);
		free(logp);
		errno = EINVAL;
		return NULL;
	}
	buf_printf(&line, "%s ", sched);
	sshq_append(&word, self);
	if (cfgpath != NULL) {
		buf_puts(&word, " -c ");
		sshq_append(&word, cfgpath);
		buf_puts(&word, " --once >> ");
	} else
		buf_puts(&word, " --all >> ");	/* the fleet's one entry (fleet.c) */
	sshq_append(&word, logp);
	buf_puts(&word, " 2>&1");
	crontab_escape(&line, word.data);
	buf_printf(&line, " " CRONTAB_TAG "%s", cfg->run);
	buf_free(&word);
	free(dir);
	free(logp);
	return buf_detach(&line);
}

int
crontab_installed(const struct wk_config *cfg)
{
	char *tab = NULL;
	int r;

	if ((r = crontab_read(&tab)) != 0)
		return r;
	r = crontab_has(tab, cfg->run);
	free(tab);
	return r;
}
