/*
 * cmd-status.c: `onbox status [--json]`: where the run stands, from the
 * files alone (state.json, markers, attempt histories, events.jsonl), so it
 * works whether or not an onbox is running and never disturbs one.
 *
 * "Monitor stale" (onbox holds the lock but its heartbeat is older than two
 * heartbeat intervals) is reported apart from the run's own health.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attempt.h"
#include "caveats.h"
#include "ckpt.h"
#include "ckptjson.h"
#include "config.h"
#include "curlcmd.h"
#include "decide.h"
#include "events.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "monotime.h"
#include "notify.h"
#include "outbox.h"
#include "onbox.h"
#include "stop.h"
#include "proc.h"
#include "slurm.h"
#include "xmalloc.h"

#define STATUS_EVENTS	5
#define STATUS_TAIL_MAX	(64 * 1024)

/* The last n lines of events.jsonl as parsed objects, oldest first. */
static cJSON *
status_events(const struct wk_config *cfg, int n)
{
	char *path = layout_path(cfg->workdir, EVENTS_FILE), *s = NULL, *p, *line;
	cJSON *arr = cJSON_CreateArray(), *ev;
	FILE *fp;
	long size, from;
	size_t len;
	int count = 0;

	if ((fp = fopen(path, "re")) == NULL)
		goto out;
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	from = size > STATUS_TAIL_MAX ? size - STATUS_TAIL_MAX : 0;
	fseek(fp, from, SEEK_SET);
	s = xmalloc(STATUS_TAIL_MAX + 1);
	len = fread(s, 1, STATUS_TAIL_MAX, fp);
	s[len] = '\0';
	fclose(fp);
	/* Walk backwards over whole lines. */
	p = s + len;
	while (p > s && count < n) {
		char *end = p;

		if (end > s && end[-1] == '\n')
			end--;
		for (line = end; line > s && line[-1] != '\n'; line--)
			;
		if (line == s && from > 0)
			break;	/* a partial first line */
		if (end > line && (ev = cJSON_ParseWithLength(line, (size_t)(end - line))) != NULL) {
			cJSON_InsertItemInArray(arr, 0, ev);
			count++;
		}
		p = line;
	}
 out:
	free(s);
	free(path);
	return arr;
}

static const char *
stage_state(const struct wk_config *cfg, const struct wk_stage *st, const cJSON *last)
{
	char *m = layout_marker(cfg->workdir, st->marker), *f = layout_failed(cfg->workdir, st->marker);
	const char *res = json_str(last, HIST_KEY_RESULT, NULL), *s;

	if (fs_exists(m))
		s = "done";
	else if (res != NULL && (strcmp(res, "running") == 0 || strcmp(res, "starting") == 0))
		s = "running";
	else if (fs_exists(f))
		s = "failed";
	else
		s = "pending";
	free(m);
	free(f);
	return s;
}

/*
 * Slurm: each stage's job as the queue, the accounting and the controller
 * tell now (the same query patrol's probe runs), into the stages' entries.
 */
static void
status_slurm(const struct wk_config *cfg, cJSON *doc)
{
	struct slurm_view sv;
	char *why = NULL;
	cJSON *st;

	if (slurm_ask(cfg, &sv, &why) != 0) {
		cJSON_AddStringToObject(doc, "slurm_error", why != NULL ? why : "?");
		goto out;
	}
	if (!sv.queue_known)
		cJSON_AddStringToObject(doc, "slurm_error", sv.why != NULL ? sv.why : "squeue said nothing");
	cJSON_ArrayForEach(st, cJSON_GetObjectItem(doc, "stages")) {
		const struct slurm_job *j = slurm_stage_job(&sv, json_str(st, "stage", ""));
		cJSON *o;

		if (j == NULL)
			continue;
		o = cJSON_AddObjectToObject(st, "slurm_job");
		cJSON_AddStringToObject(o, "id", j->id);
		cJSON_AddStringToObject(o, "state", j->state);
		cJSON_AddStringToObject(o, "class", slurm_cls_name(j->cls));
		if (j->reason[0] != '\0' && strcmp(j->reason, "None") != 0) {
			cJSON_AddStringToObject(o, "reason", j->reason);
			cJSON_AddStringToObject(o, "reason_text", slurm_reason_text(j->reason));
		}
		if (j->exit_code >= 0)
			cJSON_AddNumberToObject(o, "exit_code", j->exit_code);
		if (j->restarts >= 0)
			cJSON_AddNumberToObject(o, "restarts", (double)j->restarts);
	}
 out:
	slurm_view_free(&sv);
	free(why);
}

static cJSON *
status_build(const struct wk_config *cfg)
{
	cJSON *doc = cJSON_CreateObject(), *state = NULL, *stages, *o, *hist, *last;
	char *p = layout_path(cfg->workdir, "state.json"), *lockp = layout_path(cfg->workdir, "onbox.lock");
	int held = lock_is_held(lockp), ndone = 0;
	time_t now = time(NULL);
	double age = -1;
	size_t i;

	cJSON_AddStringToObject(doc, "run", cfg->run);
	cJSON_AddStringToObject(doc, "workdir", cfg->workdir);
	cJSON_AddStringToObject(doc, "config", cfg->path);
	cJSON_AddBoolToObject(doc, "onbox_running", held == 1);
	if (jsonfile_load(p, &state) == 0) {
		age = difftime(now, (time_t)json_num(state, "time_unix", 0));
		cJSON_AddNumberToObject(doc, "heartbeat_age_s", age);
		cJSON_AddBoolToObject(doc, "monitor_stale",
		    held == 1 && age > (double)heartbeat_stale_s(cfg->heartbeat_s));
		cJSON_AddItemToObject(doc, "state", state);	/* transferred */
	}
	stages = cJSON_AddArrayToObject(doc, "stages");
	for (i = 0; i < cfg->nchain; i++) {
		const struct wk_stage *st = &cfg->chain[i];
		char *mp = layout_marker(cfg->workdir, st->marker);
		const char *s;

		hist = hist_load(cfg->workdir, st->name);
		last = hist_last(hist);
		s = stage_state(cfg, st, last);
		ndone += strcmp(s, "done") == 0;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "stage", st->name);
		cJSON_AddStringToObject(o, "marker", st->marker);
		cJSON_AddStringToObject(o, "marker_path", mp);
		cJSON_AddStringToObject(o, "state", s);
		cJSON_AddNumberToObject(o, "attempts", cJSON_GetArraySize(history_array(hist)));
		if (last != NULL)
			cJSON_AddItemToObject(o, "last_attempt", cJSON_Duplicate(last, 1));
		if (strcmp(s, "failed") == 0) {
			char *fp = layout_failed(cfg->workdir, st->marker);
			cJSON *fm = NULL;

			if (jsonfile_load(fp, &fm) == 0)
				cJSON_AddItemToObject(o, "failed", fm);	/* transferred */
			free(fp);
		}
		cJSON_AddItemToArray(stages, o);
		cJSON_Delete(hist);
		free(mp);
	}
	cJSON_AddBoolToObject(doc, "done", ndone == (int)cfg->nchain);
	if (ndone == (int)cfg->nchain) {
		/* what went wrong on the way, as onbox wrote it when the chain finished */
		cJSON *cav = caveats_load(cfg->workdir);

		caveats_event(doc, cav);
		cJSON_Delete(cav);
	}
	{
		/* `onbox stop`'s record (stop.c): {when, by, stage, attempt, how}, or null */
		cJSON *stopped = stop_record_load(cfg->workdir);

		if (stopped != NULL)
			cJSON_AddItemToObject(doc, "stopped", stopped);	/* transferred */
		else
			cJSON_AddNullToObject(doc, "stopped");
	}
	if (cfg->detach_kind == DETACH_SLURM)
		status_slurm(cfg, doc);
	if (ckpt_configured(cfg)) {
		struct ckpt_scan *scan = NULL;
		struct ckpt_summary sum;
		char *why = NULL, *text;
		cJSON *ck = cJSON_AddObjectToObject(doc, "checkpoint");

		if (ckpt_scan_dir(cfg, &scan, &why) == 0) {
			ckpt_summarize(scan, time(NULL), &sum);
			text = ckpt_summary_text(&sum);
			cJSON_AddStringToObject(ck, "summary", text);
			free(text);
			ckptjson_summary(ck, &sum);
		} else
			cJSON_AddStringToObject(ck, "error", why != NULL ? why : "cannot scan");
		ckpt_scan_free(scan);
		free(why);
	}
	{
		struct notify_sinks sinks;
		struct curlcmd_how how;
		cJSON *http;
		char *od = layout_path(cfg->workdir, "outbox");

		/*
		 * How webhooks leave the box, said where there are webhooks: finding
		 * out loads libcurl and its thirty libraries (some 30 ms).
		 */
		notify_sinks_load_box(cfg, &sinks);
		if (sinks.n > 0) {
			curlcmd_how_get(&how);
			http = cJSON_AddObjectToObject(doc, "http");
			cJSON_AddStringToObject(http, "via", how.via);
			cJSON_AddStringToObject(http, "detail", how.detail);
			curlcmd_how_free(&how);
			cJSON_AddItemToObject(doc, "notify", outbox_status(od, &sinks));
		}
		notify_sinks_free(&sinks);
		free(od);
	}
	cJSON_AddItemToObject(doc, "events", status_events(cfg, STATUS_EVENTS));
	free(p);
	free(lockp);
	return doc;
}

static void
status_print(const cJSON *doc)
{
	const cJSON *state = cJSON_GetObjectItem(doc, "state"), *st, *ev, *failed, *lines, *l, *job, *w;
	char dur[32];
	double age = json_num(doc, "heartbeat_age_s", -1);

	printf("run %s  (%s)\n", json_str(doc, "run", "?"), json_str(doc, "workdir", "?"));
	if (age >= 0)
		timefmt_duration((long)age, dur, sizeof(dur));
	if (json_bool(doc, "onbox_running", 0))
		printf("onbox: running (pid %ld), heartbeat %s ago%s\n", json_long(state, "onbox_pid", 0),
		    age >= 0 ? dur : "?", json_bool(doc, "monitor_stale", 0) ?
		    "  MONITOR STALE: no heartbeat for 2 intervals" : "");
	else if (state != NULL)
		printf("onbox: not running (last status %s, last heartbeat %s ago)\n",
		    json_str(state, "status", "?"), age >= 0 ? dur : "?");
	else
		printf("onbox: never ran here\n");
	if (state != NULL && json_str(state, "stage", NULL) != NULL &&
	    strcmp(json_str(state, "status", ""), "running") == 0 &&
	    (job = cJSON_GetObjectItem(state, "job")) != NULL)
		/* job backend: the cluster job's id and state instead of a pid */
		printf("stage: %s attempt %ld (job %s, %s%s%s), progress %s\n",
		    json_str(state, "stage", ""), json_long(state, "attempt", 0),
		    json_str(job, "id", json_str(job, "name", "?")), json_str(job, "state", "unknown"),
		    json_str(job, "waiting", NULL) != NULL ? ": " : "", json_str(job, "waiting", ""),
		    json_str(cJSON_GetObjectItem(state, "progress"), "text", "unknown"));
	else if (state != NULL && json_str(state, "stage", NULL) != NULL &&
	    strcmp(json_str(state, "status", ""), "running") == 0)
		printf("stage: %s attempt %ld (pid %ld), progress %s\n", json_str(state, "stage", ""),
		    json_long(state, "attempt", 0), json_long(state, "stage_pid", 0),
		    json_str(cJSON_GetObjectItem(state, "progress"), "text", "unknown"));
	if (state != NULL && json_str(state, "last_line", NULL) != NULL)
		printf("last line: %s\n", json_str(state, "last_line", ""));
	if (cJSON_GetObjectItem(doc, "checkpoint") != NULL) {
		const cJSON *ck = cJSON_GetObjectItem(doc, "checkpoint");

		printf("checkpoints: %s\n", json_str(ck, "summary", json_str(ck, "error", "?")));
	}
	if (json_str(doc, "slurm_error", NULL) != NULL)
		printf("slurm: cannot read the queue: %s\n", json_str(doc, "slurm_error", ""));
	printf("chain:\n");
	cJSON_ArrayForEach(st, cJSON_GetObjectItem(doc, "stages")) {
		printf("  %-12s %-20s %-8s attempts %ld\n", json_str(st, "stage", ""),
		    json_str(st, "marker", ""), json_str(st, "state", ""), json_long(st, "attempts", 0));
		if ((job = cJSON_GetObjectItem(st, "slurm_job")) != NULL)
			printf("      job: %s %s%s%s%s\n", json_str(job, "id", ""), json_str(job, "state", ""),
			    json_str(job, "reason_text", NULL) != NULL ? ": " : "",
			    json_str(job, "reason_text", ""),
			    strcmp(json_str(job, "class", ""), "stranded") == 0 ? " (scancel it, or "
			    "`onbox start` replaces it)" : "");
		else if ((job = cJSON_GetObjectItem(st, "last_attempt")) != NULL &&
		    json_str(job, "job_id", NULL) != NULL)
			printf("      job: %s%s%s%s\n", json_str(job, "job_id", ""),
			    json_str(job, "job_raw_state", json_str(job, "job_state", NULL)) != NULL ? " (" : "",
			    json_str(job, "job_raw_state", json_str(job, "job_state", "")),
			    json_str(job, "job_raw_state", json_str(job, "job_state", NULL)) != NULL ? ")" : "");
		if ((failed = cJSON_GetObjectItem(st, "failed")) != NULL) {
			printf("      FAILED: %s (%s) — %s\n", json_str(failed, "class", "?"),
			    json_str(failed, "title", ""), json_str(failed, "remediation", ""));
			lines = cJSON_GetObjectItem(failed, "last_lines");
			if (json_str(failed, "evidence", NULL) != NULL)
				printf("      evidence: %s\n", json_str(failed, "evidence", ""));
			/* the file as the marker has it (relative to the workdir under it) */
			if ((w = cJSON_GetObjectItem(failed, "where")) != NULL &&
			    json_str(w, "file", NULL) != NULL)
				printf("      where: %s:%ld%s%s\n", json_str(w, "file", ""),
				    json_long(w, "line", 0), json_str(w, "function", NULL) ? " in " : "",
				    json_str(w, "function", ""));
			else if ((l = cJSON_GetArrayItem(lines, cJSON_GetArraySize(lines) - 1)) != NULL &&
			    cJSON_IsString(l))
				printf("      last: %s\n", l->valuestring);
		}
	}
	if (cJSON_GetObjectItem(doc, "http") != NULL)
		printf("http: %s\n", json_str(cJSON_GetObjectItem(doc, "http"), "detail", "?"));
	cJSON_ArrayForEach(ev, cJSON_GetObjectItem(doc, "notify")) {
		long pending = json_long(ev, "pending", 0);

		printf("notify %s: %ld pending", json_str(ev, "sink", "?"), pending);
		if (json_long(ev, "dropped", 0) > 0)
			printf(", %ld dropped (outbox full)", json_long(ev, "dropped", 0));
		if (json_str(ev, "missing", NULL) != NULL)
			printf(", CANNOT SEND: %s", json_str(ev, "missing", ""));
		else if (json_str(ev, "last_error", NULL) != NULL) {
			double next = (json_num(ev, "next_try_ms", 0) - (double)outbox_now_ms()) / 1000.0;
			char nd[32];

			timefmt_duration(next > 0 ? (long)next : 0, nd, sizeof(nd));
			printf(", FAILING since %s: %s%s; next try in %s", json_str(ev, "failing_since", "?"),
			    json_str(ev, "last_error", ""),
			    json_bool(ev, "permanent", 0) ? " (fix the config; events are kept)" : "", nd);
		} else if (json_str(ev, "last_ok", NULL) != NULL)
			printf(", last delivered %s", json_str(ev, "last_ok", ""));
		if (json_str(ev, "card_updated", NULL) != NULL)
			printf("; live card %s, updated %s", json_str(ev, "card_message", "?"),
			    json_str(ev, "card_updated", ""));
		printf("\n");
	}
	printf("events (newest last):\n");
	cJSON_ArrayForEach(ev, cJSON_GetObjectItem(doc, "events")) {
		printf("  %s %s", json_str(ev, "time", ""), json_str(ev, "event", ""));
		if (json_str(ev, "stage", NULL) != NULL)
			printf(" %s#%ld", json_str(ev, "stage", ""), json_long(ev, "attempt", 0));
		if (json_str(ev, "class", NULL) != NULL)
			printf(" (%s)", json_str(ev, "class", ""));
		printf("\n");
	}
	if (json_bool(doc, "done", 0) && json_str(doc, "caveats_text", NULL) != NULL)
		printf("DONE · caveats: %s\n", json_str(doc, "caveats_text", ""));
	else if (json_bool(doc, "done", 0))
		printf("DONE: every marker present\n");
	if (cJSON_IsObject(cJSON_GetObjectItem(doc, "stopped"))) {
		const cJSON *s = cJSON_GetObjectItem(doc, "stopped");

		printf("STOPPED on purpose by %s at %s", json_str(s, "by", "?"), json_str(s, "when", "?"));
		if (json_long(s, "attempt", 0) > 0)
			printf(": %s attempt %ld", json_str(s, "stage", "?"), json_long(s, "attempt", 0));
		printf(" (%s); `onbox start` starts it again from the first missing marker\n",
		    json_str(s, "how", "?"));
	}
}

static int
cmd_status_exec(struct onbox_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	struct wk_config *cfg;
	cJSON *doc;
	char *s;
	int ch, json = 0;

	optind = 0;
	while ((ch = getopt_long(ctx->argc, ctx->argv, "+c:j", longopts, NULL)) != -1) {
		if (ch == 'c')
			ctx->config_opt = optarg;
		else if (ch == 'j')
			json = 1;
		else
			return onbox_usage(&onbox_cmd_status);
	}
	if (optind != ctx->argc)
		return onbox_usage(&onbox_cmd_status);
	if ((cfg = onbox_load_config(ctx)) == NULL)
		return WK_EX_CONFIG;
	doc = status_build(cfg);
	if (json) {
		s = cJSON_Print(doc);
		printf("%s\n", s);
		free(s);
	} else
		status_print(doc);
	cJSON_Delete(doc);
	config_free(cfg);
	return 0;
}

const struct onbox_cmd onbox_cmd_status = {
	.name = "status",
	.args = "[-c FILE] [--json]",
	.help = "where the run stands: onbox, heartbeat, stages, markers, recent events",
	.exec = cmd_status_exec,
};
