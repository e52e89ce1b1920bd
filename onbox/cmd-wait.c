/*
 * cmd-wait.c: `onbox wait`: sentinel's --follow, on the box.
 *
 *   onbox wait --workdir DIR --marker A[,B...] [--stage-of A=STAGE ...]
 *              [--attempt STAGE=N ...] --timeout S [--poll-ms N]
 *
 * Waits, inside one bounded ssh connection, for something a sentinel must
 * hear: a marker, a FAILED twin that is not stale, or a stage whose current
 * attempt is not the one the sentinel knows (--attempt; else the one seen
 * when the wait began).  It then prints the check's output and exits 0; at
 * --timeout it prints the check as it stands and exits 0.  The output is
 * the mwait script's own, run here through sh (core/mwait.c builds both), so
 * sentinel parses one format and the two cannot drift.
 *
 * inotify on .watchkeeper/markers and .watchkeeper/stages wakes it within
 * microseconds of a rename; every --poll-ms (the run's poll_ms) a stat of
 * the files the check reads covers filesystems where inotify is blind and
 * directories that do not exist yet, and the check itself (a few processes)
 * runs only when one of them changed.  It needs no config: the sentinel
 * passes everything.
 *
 * When the ssh client goes away, sshd closes the read end of our stdout: a
 * poll on it (no events asked) reports POLLERR and the wait ends at once
 * rather than at --timeout.  stdin says nothing here: ssh clients send EOF
 * right after their input, so its end is not the peer's departure.
 *
 * Exit: 0 (something to tell, the timeout, or the peer gone), 64 usage,
 * 70 the check could not be run.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "config.h"
#include "err.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "mwait.h"
#include "onbox.h"
#include "spawn.h"
#include "xmalloc.h"

#define WAIT_TIMEOUT_MAX	86400
#define WAIT_POLL_DEFAULT	2000
#define WAIT_EVENTS	(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE | \
	IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

struct wait_ctx {
	const char		*workdir;
	struct mwait_spec	 spec;
	long			*base;		/* per stage: the attempt the waiter knows, 0 none */
	char			*script;
	int			 ifd;
	int			 wd[2];		/* markers/, stages/ */
	char			*out;		/* the last check's output */
	size_t			 outlen;
	struct mwait		 w;
	int			 have_w;
	char			*stamp;		/* wait_stamp() at the last check */
};

/* "NAME=VALUE" with a valid name: 0 and the parts (*name new, *value into arg), else -1. */
static int
wait_pair(const char *arg, char **name, const char **value)
{
	const char *eq = strchr(arg, '=');

	*name = NULL;
	if (eq == NULL || eq == arg || eq[1] == '\0')
		return -1;
	*name = xstrndup(arg, (size_t)(eq - arg));
	*value = eq + 1;
	if (!config_name_ok(*name)) {
		free(*name);
		*name = NULL;
		return -1;
	}
	return 0;
}

/* Watch the directories that exist and are not watched yet. */
static void
wait_watch(struct wait_ctx *c)
{
	static const char *const dirs[] = { "markers", "stages" };
	size_t i;
	char *p;

	if (c->ifd < 0)
		return;
	for (i = 0; i < 2; i++) {
		if (c->wd[i] >= 0)
			continue;
		p = layout_path(c->workdir, dirs[i]);
		c->wd[i] = inotify_add_watch(c->ifd, p, WAIT_EVENTS | IN_ONLYDIR);
		free(p);
	}
}

/* Read what inotify has; forget the watches whose directory went away. */
static void
wait_drain(struct wait_ctx *c)
{
	char ev[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *e;
	ssize_t n;
	size_t i;
	char *p;

	while ((n = read(c->ifd, ev, sizeof(ev))) > 0) {
		for (p = ev; p < ev + n; p += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)p;
			if (!(e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)))
				continue;
			for (i = 0; i < 2; i++)
				if (c->wd[i] == e->wd) {
					if (!(e->mask & IN_IGNORED))
						(void)inotify_rm_watch(c->ifd, e->wd);
					c->wd[i] = -1;
				}
		}
	}
}

/*
 * What the stat-poll compares: every file the check reads that can decide
 * something (markers, FAILED twins, histories), by identity, size and time.
 * Caller frees.
 */
static void
wait_stamp_one(struct buf *b, char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		buf_printf(b, "%lu:%lld:%lld.%09ld ", (unsigned long)st.st_ino, (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	else
		buf_puts(b, "- ");
	free(path);
}

static char *
wait_stamp(const struct wait_ctx *c)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < c->spec.nmarkers; i++) {
		wait_stamp_one(&b, layout_marker(c->workdir, c->spec.markers[i]));
		wait_stamp_one(&b, layout_failed(c->workdir, c->spec.markers[i]));
	}
	for (i = 0; i < c->spec.nstages; i++)
		wait_stamp_one(&b, layout_stage_file(c->workdir, c->spec.stages[i]));
	return buf_detach(&b);
}

/* Run the check; 0 (c->out set; c->w when it parses), or -1. */
static int
wait_check(struct wait_ctx *c)
{
	char *argv[] = { "sh", "-c", c->script, NULL };
	char *why = NULL;
	int status;

	free(c->out);
	c->out = NULL;
	if (c->have_w)
		mwait_free(&c->w);
	c->have_w = 0;
	if (spawn_capture(argv, MWAIT_MAX_OUT + 1, 1, &status, &c->out) != 0) {
		log_error("cannot run the check: %s", wk_strerror(WK_ERR_SYSTEM));
		return -1;
	}
	c->outlen = strlen(c->out);	/* the script drops NUL bytes */
	free(c->stamp);
	c->stamp = wait_stamp(c);
	if (mwait_parse(c->out, c->outlen, &c->spec, &c->w, &why) == 0)
		c->have_w = 1;
	else
		log_debug("the check's output does not parse: %s", why);
	free(why);
	return 0;
}

static int
wait_print(const struct wait_ctx *c)
{
	if (write_full(STDOUT_FILENO, c->out, c->outlen) != 0 && errno != EPIPE)
		log_warn("cannot write the check: %s", wk_strerror(WK_ERR_SYSTEM));
	return 0;
}

static int
wait_run(struct wait_ctx *c, long timeout_s, long poll_ms)
{
	struct deadline end;
	struct pollfd pfd[2];
	size_t j;
	int n;

	deadline_set(&end, (uint64_t)timeout_s * 1000);
	c->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (c->ifd < 0)
		log_debug("no inotify (%s): polling every %ld ms", wk_strerror(WK_ERR_SYSTEM), poll_ms);
	wait_watch(c);
	/* Watches first, then the first look: nothing can land unseen in between. */
	if (wait_check(c) != 0)
		return WK_EX_SOFTWARE;
	/* Unparsable here is unparsable for the sentinel too: tell it now, not at the timeout. */
	if (!c->have_w)
		return wait_print(c);
	for (j = 0; j < c->spec.nstages; j++)
		if (c->base[j] <= 0)
			c->base[j] = c->w.s[j].attempt;
	for (;;) {
		if (!c->have_w || mwait_news(&c->w, &c->spec, c->base) || deadline_expired(&end))
			return wait_print(c);
		pfd[0].fd = c->ifd;
		pfd[0].events = POLLIN;
		pfd[1].fd = STDOUT_FILENO;
		pfd[1].events = 0;	/* POLLERR / POLLHUP: the reader is gone */
		n = poll(pfd, 2, deadline_poll_timeout(&end, 1, (int)poll_ms));
		if (n < 0 && errno != EINTR) {
			log_error("poll: %s", wk_strerror(WK_ERR_SYSTEM));
			return WK_EX_SOFTWARE;
		}
		if (n > 0 && (pfd[1].revents & (POLLERR | POLLHUP | POLLNVAL))) {
			log_debug("the reader of our output is gone");
			return 0;
		}
		if (n > 0 && (pfd[0].revents & POLLIN))
			wait_drain(c);
		else if (!deadline_expired(&end)) {
			/* The stat-poll: the check (a few processes) only when a file changed. */
			char *now = wait_stamp(c);
			int same = strcmp(now, c->stamp) == 0;

			free(now);
			wait_watch(c);
			if (same)
				continue;
		}
		wait_watch(c);
		if (wait_check(c) != 0)
			return WK_EX_SOFTWARE;
	}
}

static int
cmd_wait_exec(struct onbox_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "workdir", required_argument, NULL, 'w' },
		{ "marker", required_argument, NULL, 'm' },
		{ "stage-of", required_argument, NULL, 's' },
		{ "attempt", required_argument, NULL, 'a' },
		{ "timeout", required_argument, NULL, 't' },
		{ "poll-ms", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct wait_ctx c;
	char **stage_m = NULL, **stage_s = NULL, **att_s = NULL, *name, *list = NULL, *tok, *save;
	long *att_n = NULL, timeout_s = 0, poll_ms = WAIT_POLL_DEFAULT, v;
	size_t nstage = 0, natt = 0, i, j;
	const char *val;
	char *end;
	int ch, rc = WK_EX_USAGE, k;

	memset(&c, 0, sizeof(c));
	c.ifd = c.wd[0] = c.wd[1] = -1;
	optind = 0;
	while ((ch = getopt_long(ctx->argc, ctx->argv, "+", longopts, NULL)) != -1) {
		switch (ch) {
		case 'w':
			c.workdir = optarg;
			break;
		case 'm':
			free(list);
			list = xstrdup(optarg);
			break;
		case 's':
		case 'a':
			if (wait_pair(optarg, &name, &val) != 0) {
				fprintf(stderr, "onbox wait: --%s %s: want NAME=%s\n",
				    ch == 's' ? "stage-of" : "attempt", optarg, ch == 's' ? "STAGE" : "N");
				goto out;
			}
			if (ch == 's') {
				stage_m = xreallocarray(stage_m, nstage + 1, sizeof(*stage_m));
				stage_s = xreallocarray(stage_s, nstage + 1, sizeof(*stage_s));
				stage_m[nstage] = name;
				stage_s[nstage++] = xstrdup(val);
				if (!config_name_ok(val)) {
					fprintf(stderr, "onbox wait: --stage-of %s: not a stage name\n", optarg);
					goto out;
				}
			} else {
				v = strtol(val, &end, 10);
				att_s = xreallocarray(att_s, natt + 1, sizeof(*att_s));
				att_n = xreallocarray(att_n, natt + 1, sizeof(*att_n));
				att_s[natt] = name;
				att_n[natt++] = v;
				if (*end != '\0' || v < 1) {
					fprintf(stderr, "onbox wait: --attempt %s: N is a number >= 1\n", optarg);
					goto out;
				}
			}
			break;
		case 't':
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end != '\0' || (ch == 't' ? v < 1 || v > WAIT_TIMEOUT_MAX : v < 50 || v > 600000)) {
				fprintf(stderr, "onbox wait: --%s %s: out of range (%s)\n",
				    ch == 't' ? "timeout" : "poll-ms", optarg,
				    ch == 't' ? "1..86400 s" : "50..600000 ms");
				goto out;
			}
			if (ch == 't')
				timeout_s = v;
			else
				poll_ms = v;
			break;
		default:
			goto usage;
		}
	}
	if (optind != ctx->argc || c.workdir == NULL || c.workdir[0] != '/' || list == NULL ||
	    timeout_s == 0)
		goto usage;
	for (tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		const char *stage = NULL;

		for (i = 0; i < nstage; i++)
			if (strcmp(stage_m[i], tok) == 0)
				stage = stage_s[i];
		if (mwait_spec_add(&c.spec, tok, stage) != 0) {
			fprintf(stderr, "onbox wait: --marker: \"%s\" is not a marker name\n", tok);
			goto out;
		}
	}
	if (c.spec.nmarkers == 0)
		goto usage;
	for (i = 0; i < nstage; i++) {
		for (j = 0; j < c.spec.nmarkers && strcmp(c.spec.markers[j], stage_m[i]) != 0; j++)
			;
		if (j == c.spec.nmarkers) {
			fprintf(stderr, "onbox wait: --stage-of %s: not one of the markers\n", stage_m[i]);
			goto out;
		}
	}
	c.base = xcalloc(c.spec.nstages + 1, sizeof(*c.base));
	for (i = 0; i < natt; i++) {
		if ((k = mwait_spec_stage(&c.spec, att_s[i])) < 0) {
			fprintf(stderr, "onbox wait: --attempt %s: no marker of that stage\n", att_s[i]);
			goto out;
		}
		c.base[k] = att_n[i];
	}
	c.script = mwait_script(c.workdir, &c.spec);
	rc = wait_run(&c, timeout_s, poll_ms);
	goto out;
 usage:
	rc = onbox_usage(&onbox_cmd_wait);
 out:
	for (j = 0; j < nstage; j++) {
		free(stage_m[j]);
		free(stage_s[j]);
	}
	for (j = 0; j < natt; j++)
		free(att_s[j]);
	free(stage_m);
	free(stage_s);
	free(att_s);
	free(att_n);
	free(list);
	free(c.base);
	free(c.script);
	free(c.out);
	free(c.stamp);
	if (c.have_w)
		mwait_free(&c.w);
	mwait_spec_free(&c.spec);
	if (c.ifd >= 0)
		close(c.ifd);
	return rc;
}

const struct onbox_cmd onbox_cmd_wait = {
	.name = "wait",
	.args = "--workdir DIR --marker A[,B...] [--stage-of M=STAGE ...] [--attempt STAGE=N ...] "
	    "--timeout S [--poll-ms N]",
	.help = "wait (inotify, bounded) until a marker, a FAILED twin or a relaunch; print the check",
	.exec = cmd_wait_exec,
};
