/*
 * top-act.c: what a key in `patrol top` starts that reaches a box, each in
 * a child whose stdout and stderr come back through one pipe, so the screen
 * keeps drawing (and q still quits) while a box answers slowly or not at all.
 *
 *   TOP_ACT_PAGE    the run's page (Enter): the last lines of its current
 *                   attempt's log (the MCP logs tool's code, mcp-read.c),
 *                   then its checkpoints as `patrol checkpoints` lists them
 *   TOP_ACT_FOLLOW  its log followed (l): the logs tool from a cursor, every
 *                   follow_s seconds, until the screen ends it
 *   TOP_ACT_STOP    `patrol stop`'s code (patrol_stop, stop.c)
 *   TOP_ACT_RESUME  `patrol resume`'s code (patrol_resume, tick.c)
 *
 * The child is spawn_fork's (default signals, no descriptor of ours but the
 * pipe) in a process group of its own: ending it ends its ssh processes too.
 * The screen keeps the newest TOP_ACT_KEEP bytes of what it wrote.  A stop
 * or a resume is never cut short: leaving the page or quitting leaves it to
 * finish on its own (SIGPIPE ignored, its words lost); the others end then.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ckpt.h"
#include "config.h"
#include "exits.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "mcp.h"
#include "monotime.h"
#include "patrol.h"
#include "portable.h"
#include "spawn.h"
#include "top.h"
#include "xmalloc.h"

#define TOP_PAGE_LINES	40	/* the page's last lines of the log */
#define TOP_FOLLOW_FIRST 50	/* lines a follow starts with */

/* One call of the logs tool for run: the result's structured object (caller deletes) or NULL with *err. */
static cJSON *
top_logs(const char *run, long lines, const char *cursor, char **text)
{
	struct mcp_ctx ctx;
	struct mcp_out out;
	cJSON *args = cJSON_CreateObject();

	memset(&ctx, 0, sizeof(ctx));
	memset(&out, 0, sizeof(out));
	ctx.out_fd = -1;
	ctx.tool = &mcp_tool_logs_row;
	cJSON_AddStringToObject(args, "run", run);
	if (cursor != NULL)
		cJSON_AddStringToObject(args, "cursor", cursor);
	else
		cJSON_AddNumberToObject(args, "lines", (double)lines);
	(void)mcp_tool_logs_row.call(&ctx, args, &out);
	cJSON_Delete(args);
	*text = out.text;	/* transferred */
	if (out.is_error) {
		cJSON_Delete(out.structured);
		return NULL;
	}
	return out.structured;	/* transferred */
}

static int
top_child_page(const char *name, const char *config)
{
	struct wk_config *cfg = NULL;
	char *text = NULL;
	cJSON *o;
	int rc;

	printf("== the last lines of the log ==\n");
	o = top_logs(name, TOP_PAGE_LINES, NULL, &text);
	printf("%s\n", text != NULL ? text : "(no answer)");
	cJSON_Delete(o);
	free(text);
	printf("\n== checkpoints (patrol checkpoints) ==\n");
	fflush(stdout);
	if (config_load_report("patrol", config, &cfg) != 0)
		return WK_EX_CONFIG;
	if (ckpt_configured(cfg))
		rc = patrol_checkpoints(cfg, 0, 0);
	else {
		printf("none configured (no \"checkpoints\" in %s)\n", config);
		rc = 0;
	}
	config_free(cfg);
	return rc;
}

static int
top_child_follow(const char *name, int follow_s)
{
	const cJSON *l;
	char *text = NULL, *cursor = NULL;
	cJSON *o;
	int more;

	for (;;) {
		o = top_logs(name, TOP_FOLLOW_FIRST, cursor, &text);
		if (o == NULL)
			printf("(%s)\n", text != NULL ? text : "no answer");
		else if (json_str(o, "verdict", NULL) != NULL)
			printf("(the box is not seen: %s)\n", json_str(o, "verdict", ""));
		cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(o, "lines"))
			if (cJSON_IsString(l))
				printf("%s\n", l->valuestring);
		if (json_str(o, "next_cursor", NULL) != NULL) {
			free(cursor);
			cursor = xstrdup(json_str(o, "next_cursor", ""));
		}
		fflush(stdout);
		more = json_bool(o, "more", 0);
		cJSON_Delete(o);
		free(text);
		text = NULL;
		/* More to read now: no pause.  The screen ends this child (top_act_end). */
		if (!more)
			(void)poll(NULL, 0, follow_s * 1000);
	}
	return 0;
}

static int
top_child_act(enum top_act_kind kind, const char *config)
{
	struct wk_config *cfg = NULL;
	int rc;

	if (config_load_report("patrol", config, &cfg) != 0)
		return WK_EX_CONFIG;
	rc = kind == TOP_ACT_STOP ? patrol_stop(cfg) : patrol_resume(cfg, 0, 0);
	config_free(cfg);
	return rc;
}

int
top_act_start(struct top_act *a, enum top_act_kind kind, const char *name, const char *config,
    int follow_s)
{
	struct spawn_opts o;
	int pfd[2], rc;
	pid_t pid;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->rc = -1;
	a->kind = kind;
	a->run = xstrdup(name);
	a->out = xstrdup("");
	if (wk_pipe_cloexec(pfd) != 0)
		return -1;
	spawn_opts_init(&o);
	o.fd_out = pfd[1];
	o.fd_err = SPAWN_STDOUT;
	o.new_pgrp = 1;
	fflush(NULL);
	if ((pid = spawn_fork(&o)) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		/* A stop or resume outlives a screen that quit: its words then go nowhere. */
		if (kind == TOP_ACT_STOP || kind == TOP_ACT_RESUME)
			(void)signal(SIGPIPE, SIG_IGN);
		setvbuf(stdout, NULL, _IOLBF, 0);
		if (kind == TOP_ACT_PAGE)
			rc = top_child_page(name, config);
		else if (kind == TOP_ACT_FOLLOW)
			rc = top_child_follow(name, follow_s);
		else
			rc = top_child_act(kind, config);
		fflush(NULL);
		_exit(rc);
	}
	close(pfd[1]);
	(void)fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);
	a->fd = pfd[0];
	a->pid = pid;
	return 0;
}

/* Keep the newest TOP_ACT_KEEP bytes, cut at a line. */
static void
top_act_keep(struct top_act *a, const char *data, size_t n)
{
	char *nl;
	size_t drop;

	a->out = xreallocarray(a->out, a->len + n + 1, 1);
	memcpy(a->out + a->len, data, n);
	a->len += n;
	a->out[a->len] = '\0';
	if (a->len <= TOP_ACT_KEEP)
		return;
	drop = a->len - TOP_ACT_KEEP;
	if ((nl = memchr(a->out + drop, '\n', a->len - drop)) != NULL)
		drop = (size_t)(nl - a->out) + 1;
	memmove(a->out, a->out + drop, a->len - drop + 1);
	a->len -= drop;
}

int
top_act_read(struct top_act *a)
{
	char chunk[8192];
	int changed = 0, status;
	ssize_t n;

	while (a->fd >= 0) {
		n = read(a->fd, chunk, sizeof(chunk));
		if (n > 0) {
			top_act_keep(a, chunk, (size_t)n);
			changed = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		close(a->fd);	/* the end of its output */
		a->fd = -1;
		changed = 1;
	}
	if (a->fd < 0 && a->pid > 0 && waitpid(a->pid, &status, WNOHANG) == a->pid) {
		a->rc = WIFEXITED(status) ? WEXITSTATUS(status) : WK_EX_SIGNAL + WTERMSIG(status);
		a->pid = 0;
		changed = 1;
	}
	return changed;
}

void
top_act_end(struct top_act *a)
{
	unsigned long long until = monotime_ms() + 1000;
	int status;

	/* A stop or resume is let finish (see top_act_start); the rest end now. */
	if (a->pid > 0 && a->kind != TOP_ACT_STOP && a->kind != TOP_ACT_RESUME) {
		(void)kill(-a->pid, SIGTERM);
		while (waitpid(a->pid, &status, WNOHANG) == 0) {
			if (monotime_ms() >= until) {
				(void)kill(-a->pid, SIGKILL);
				(void)waitpid(a->pid, &status, 0);
				break;
			}
			(void)poll(NULL, 0, 10);
		}
	}
	if (a->fd >= 0)
		close(a->fd);
	free(a->run);
	free(a->out);
	memset(a, 0, sizeof(*a));
	a->fd = -1;
}
