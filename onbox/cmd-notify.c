/*
 * cmd-notify.c: `onbox notify --test | --flush`.
 *
 * --test sends a test event straight to every sink (not through the outbox:
 * it is a question about the sinks, not an event to keep) and reports each
 * result.  --flush delivers everything in the outbox now, ignoring retry
 * times, under the outbox lock (a running onbox's delivery waits for it).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "curlcmd.h"
#include "err.h"
#include "events.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "notify.h"
#include "onbox.h"
#include "outbox.h"

static int
notify_test(const struct wk_config *cfg, const struct notify_sinks *sinks)
{
	char instance[17] = "0000000000000000", *why;
	struct curlcmd_how how;
	size_t i;
	int failed = 0, permanent;
	cJSON *ev;

	curlcmd_how_get(&how);
	printf("http: %s\n", how.detail);
	curlcmd_how_free(&how);

	(void)events_instance(cfg->workdir, instance);
	ev = events_new(instance, cfg->run, "test", NULL, 0);
	cJSON_AddStringToObject(ev, "message", "test notification from watchkeeper");
	for (i = 0; i < sinks->n; i++) {
		why = NULL;
		permanent = 0;
		if (notify_send(sinks, &sinks->v[i], ev, &why, &permanent) == 0)
			printf("%-16s delivered\n", sinks->v[i].id);
		else {
			printf("%-16s FAILED: %s\n", sinks->v[i].id, why != NULL ? why : "failed");
			failed++;
		}
		free(why);
	}
	cJSON_Delete(ev);
	return failed > 0 ? WK_EX_FAIL : 0;
}

static int
notify_flush(const struct wk_config *cfg, const struct notify_sinks *sinks)
{
	char *dir = layout_path(cfg->workdir, "outbox");
	struct outbox_opts o;
	struct outbox_result res;
	int fd, rc = 0;

	outbox_opts_from_config(cfg, &o);
	if ((fd = outbox_lock(dir, (int)(sinks->timeout_s + 2) * 1000)) < 0) {
		if (fd == WK_ERR_BUSY)
			log_error("another process is delivering from %s right now; try again", dir);
		else
			log_error("cannot lock %s: %s", dir, wk_strerror(WK_ERR_SYSTEM));
		free(dir);
		return fd == WK_ERR_BUSY ? WK_EX_TEMPFAIL : WK_EX_IOERR;
	}
	outbox_flush(dir, sinks, &o, 1, 1, &res);
	close(fd);
	printf("delivered %d, failed %d, pending %d\n", res.delivered, res.failed, res.pending);
	if (res.pending > 0)
		rc = WK_EX_FAIL;
	free(dir);
	return rc;
}

static int
cmd_notify_exec(struct onbox_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "test", no_argument, NULL, 't' },
		{ "flush", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	struct notify_sinks sinks;
	struct wk_config *cfg;
	int ch, mode = 0, rc;

	optind = 0;
	while ((ch = getopt_long(ctx->argc, ctx->argv, "+c:", longopts, NULL)) != -1) {
		if (ch == 'c')
			ctx->config_opt = optarg;
		else if ((ch == 't' || ch == 'f') && mode == 0)
			mode = ch;
		else
			return onbox_usage(&onbox_cmd_notify);
	}
	if (optind != ctx->argc || mode == 0)
		return onbox_usage(&onbox_cmd_notify);
	if ((cfg = onbox_load_config(ctx)) == NULL)
		return WK_EX_CONFIG;
	notify_sinks_load_box(cfg, &sinks);
	if (sinks.n == 0) {
		fprintf(stderr, "onbox: %s has no \"notify\" sinks\n", cfg->path);
		rc = WK_EX_CONFIG;
	} else
		rc = mode == 't' ? notify_test(cfg, &sinks) : notify_flush(cfg, &sinks);
	notify_sinks_free(&sinks);
	config_free(cfg);
	return rc;
}

const struct onbox_cmd onbox_cmd_notify = {
	.name = "notify",
	.args = "--test | --flush",
	.help = "send a test event to every sink, or deliver the outbox now",
	.exec = cmd_notify_exec,
};
