/*
 * logbookgit.c: the logbook committed and pushed (logbookgit.h says what).
 *
 * Every git command is one `sh -c` line with its words quoted (sshq), run
 * bounded by jobctl_run (the one bounded runner of commands: stdout and
 * stderr kept, the process group killed past the deadline).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic.h"
#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "jobctl.h"
#include "jobctl-int.h"
#include "logbook.h"
#include "logbookgit.h"
#include "sshq.h"
#include "xmalloc.h"

#define LBG_OUT_CAP	65536
#define LBG_FILE_MAX	(64u << 20)

struct lbg {
	struct jobctl	 jc;
	char		*clone;		/* <statedir>/logbook-repo */
	char		*path;		/* logbook.path in it */
};

int
logbook_git_configured(const struct wk_config *cfg)
{
	const char *g = config_get_str(cfg, "logbook.git");

	return g != NULL && *g != '\0';
}

char *
logbook_git_path(const struct wk_config *cfg)
{
	const char *p = config_get_str(cfg, "logbook.path");

	return p != NULL && *p != '\0' ? xstrdup(p) : xstrfmt("%s/" LOGBOOK_FILE, cfg->run);
}

/*
 * Run `git -C <clone> ARGS` (args: already quoted words); 0, or the code
 * with *why.  out (may be NULL) gets stdout.
 */
static int
lbg_git(struct lbg *g, const char *what, const char *args, struct buf *out, char **why)
{
	struct jobctl_res res;
	struct buf cmd = BUF_INIT;
	int r;

	memset(&res, 0, sizeof(res));
	buf_puts(&cmd, "GIT_TERMINAL_PROMPT=0 git -C ");
	sshq_append(&cmd, g->clone);
	buf_printf(&cmd, " %s", args);
	r = jobctl_run(&g->jc, what, cmd.data, LBG_OUT_CAP, 0, &res, why);
	if (out != NULL && r == 0)
		buf_append(out, res.out.data != NULL ? res.out.data : "", res.out.len);
	jobctl_res_free(&res);
	buf_free(&cmd);
	return r;
}

static void
lbg_free(struct lbg *g)
{
	free(g->clone);
	free(g->path);
}

/* The clone, made when missing; 0 or WK_ERR_REMOTE with *why. */
static int
lbg_open(const struct wk_config *cfg, const char *dir, struct lbg *g, char **why)
{
	struct jobctl_res res;
	struct buf cmd = BUF_INIT;
	char *dotgit;
	struct stat st;
	int r = 0;

	memset(g, 0, sizeof(*g));
	jobctl_init(&g->jc, cfg);
	g->jc.timeout_ms = LOGBOOK_GIT_TIMEOUT_MS;
	g->clone = fs_join(dir, LOGBOOK_GIT_DIR);
	g->path = logbook_git_path(cfg);
	dotgit = fs_join(g->clone, ".git");
	if (stat(dotgit, &st) == 0) {
		free(dotgit);
		return 0;
	}
	free(dotgit);
	memset(&res, 0, sizeof(res));
	buf_puts(&cmd, "GIT_TERMINAL_PROMPT=0 git clone -q ");
	sshq_append(&cmd, config_get_str(cfg, "logbook.git"));
	buf_putc(&cmd, ' ');
	sshq_append(&cmd, g->clone);
	if ((r = jobctl_run(&g->jc, "git clone", cmd.data, LBG_OUT_CAP, 0, &res, why)) != 0)
		r = WK_ERR_REMOTE;
	jobctl_res_free(&res);
	buf_free(&cmd);
	return r;
}

/* An identity for commits when git has none (a bare machine, a cron job). */
static void
lbg_identity(struct lbg *g, struct buf *args)
{
	struct buf out = BUF_INIT;
	char *why = NULL;

	if (lbg_git(g, "git config", "config user.email", &out, &why) != 0 || out.len == 0)
		buf_puts(args, "-c user.name=watchkeeper -c user.email=watchkeeper@localhost ");
	free(why);
	buf_free(&out);
}

/* Push HEAD; rejected because the remote moved on: rebase onto it, push again. */
static int
lbg_push(struct lbg *g, char **why)
{
	char *w2 = NULL;
	int r;

	if ((r = lbg_git(g, "git push", "push -q -u origin HEAD", NULL, why)) == 0)
		return 0;
	/*
	 * Rejected because the remote moved on (git says so over several lines):
	 * rebase onto it and push again.  Unreachable: the pull fails too, and the
	 * push's own words are kept.
	 */
	{
		struct buf a = BUF_INIT;

		struct buf br = BUF_INIT;

		lbg_identity(g, &a);
		buf_puts(&a, "pull -q --rebase origin ");
		if (lbg_git(g, "git rev-parse", "rev-parse --abbrev-ref HEAD", &br, &w2) == 0) {
			br.data[strcspn(br.data, "\n")] = '\0';
			sshq_append(&a, br.data);
		} else
			buf_puts(&a, "HEAD");
		buf_free(&br);
		free(w2);
		w2 = NULL;
		if (lbg_git(g, "git pull --rebase", a.data, NULL, &w2) == 0) {
			free(*why);
			*why = NULL;
			r = lbg_git(g, "git push", "push -q -u origin HEAD", NULL, why);
		} else {
			free(w2);
			w2 = NULL;
			(void)lbg_git(g, "git rebase --abort", "rebase --abort", NULL, &w2);
		}
		buf_free(&a);
	}
	free(w2);
	return r == 0 ? 0 : WK_ERR_REMOTE;
}

/* 1 when HEAD has commits the remote does not (or there is no upstream yet). */
static int
lbg_ahead(struct lbg *g)
{
	struct buf out = BUF_INIT;
	char *why = NULL;
	int ahead = 1;

	if (lbg_git(g, "git rev-list", "rev-list --count '@{upstream}..HEAD'", &out, &why) == 0)
		ahead = atoi(buf_str(&out)) > 0;
	free(why);
	buf_free(&out);
	return ahead;
}

int
logbook_git_sync(const struct wk_config *cfg, const char *dir, const char *msg, char **why)
{
	char *src = fs_join(dir, LOGBOOK_FILE), *dst = NULL, *data = NULL, *slash;
	struct buf args = BUF_INIT, out = BUF_INIT;
	struct lbg g;
	size_t len;
	int r, committed = 0;

	*why = NULL;
	if ((r = lbg_open(cfg, dir, &g, why)) != 0)
		goto out;
	if ((r = fs_read_file(src, LBG_FILE_MAX, &data, &len)) != 0) {
		*why = xstrfmt("cannot read %s: %s", src, wk_strerror(r));
		goto out;
	}
	dst = fs_join(g.clone, g.path);
	if ((slash = strrchr(dst, '/')) != NULL) {
		*slash = '\0';
		(void)fs_mkdirs(dst, 0755);
		*slash = '/';
	}
	if ((r = atomic_write(dst, data, len, 0644)) != 0) {
		*why = xstrfmt("cannot write %s: %s", dst, wk_strerror(r));
		goto out;
	}
	buf_puts(&args, "add -- ");
	sshq_append(&args, g.path);
	if ((r = lbg_git(&g, "git add", args.data, NULL, why)) != 0)
		goto out;
	/* Something staged: one commit for this update. */
	if (lbg_git(&g, "git diff", "diff --cached --quiet", NULL, why) != 0) {
		free(*why);
		*why = NULL;
		buf_reset(&args);
		lbg_identity(&g, &args);
		buf_puts(&args, "commit -q -m ");
		sshq_append(&args, msg);
		if ((r = lbg_git(&g, "git commit", args.data, NULL, why)) != 0)
			goto out;
		committed = 1;
	}
	if (!committed && !lbg_ahead(&g)) {
		r = 1;
		goto out;
	}
	r = lbg_push(&g, why);
	if (r == 0 && !committed)
		r = 0;
 out:
	buf_free(&args);
	buf_free(&out);
	free(data);
	free(dst);
	free(src);
	lbg_free(&g);
	return r;
}

int
logbook_git_tag(const struct wk_config *cfg, const char *dir, const char *tag, const char *msg,
    char **why)
{
	struct buf args = BUF_INIT;
	struct lbg g;
	int r;

	*why = NULL;
	if ((r = lbg_open(cfg, dir, &g, why)) != 0)
		goto out;
	lbg_identity(&g, &args);
	buf_puts(&args, "tag -a -m ");
	sshq_append(&args, msg);
	buf_putc(&args, ' ');
	sshq_append(&args, tag);
	if ((r = lbg_git(&g, "git tag", args.data, NULL, why)) != 0)
		goto out;
	buf_reset(&args);
	buf_puts(&args, "push -q origin ");
	sshq_append(&args, tag);
	if (lbg_git(&g, "git push (tag)", args.data, NULL, why) != 0)
		r = WK_ERR_REMOTE;
 out:
	buf_free(&args);
	lbg_free(&g);
	return r;
}
