/*
 * render-status.c: the HANDBOOK.md sections read from patrol's state: current
 * status, the chain, the marker paths, completion and the resume commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "ckpt.h"
#include "config.h"
#include "crontab.h"
#include "decide.h"
#include "err.h"
#include "fsutil.h"
#include "jobctl.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "logbook.h"
#include "md.h"
#include "policy.h"
#include "monotime.h"
#include "notify.h"
#include "remote.h"
#include "slurm.h"
#include "sshq.h"
#include "traceback.h"
#include "triage.h"
#include "xmalloc.h"
#include "render-int.h"

void
hb_status(struct hb *h)
{
	const cJSON *ps = h->ps, *att, *res, *last, *fo, *it, *ck;
	struct buf *b = &h->b;
	const char *v;
	char at[200];
	double cur, max;

	if (ps == NULL) {
		buf_puts(b, "patrol has not ticked yet (no patrol.json): everything below reads "
		    "\"unknown\" until the first command above has run.\n\n");
	}
	buf_puts(b, "- Last verdict: ");
	if ((v = json_str(ps, "verdict", NULL)) != NULL) {
		hb_boxtext(h, v, 0);
		if ((v = json_str(ps, "details", NULL)) != NULL && *v != '\0') {
			buf_puts(b, " — ");
			hb_boxtext(h, v, 0);
		}
	} else
		buf_puts(b, "unknown");
	if ((v = json_str(ps, "caveats_text", NULL)) != NULL && *v != '\0') {
		/* a DONE that went wrong on the way says so (caveats.h) */
		buf_puts(b, "\n- Caveats: ");
		hb_boxtext(h, v, 0);
	}
	buf_puts(b, "\n- Progress: ");
	cur = json_num(ps, "progress", -1);
	max = json_num(ps, "progress_max", -1);
	if (max < 0 && h->cfg->has_progress && h->cfg->progress.max > 0)
		max = (double)h->cfg->progress.max;
	if (cur >= 0) {
		buf_puts(b, "~");
		hb_num(b, cur);
		buf_puts(b, "/");
		if (max >= 0)
			hb_num(b, max);
		else
			buf_puts(b, "?");
	} else
		buf_puts(b, "unknown");
	buf_puts(b, "\n- Last tick: ");
	if ((v = json_str(ps, "last_tick", NULL)) != NULL) {
		hb_boxtext(h, v, 0);
		buf_puts(b, " (");
		hb_num(b, json_num(ps, "ticks", 0));
		buf_puts(b, " ticks in all");
		if (json_num(ps, "unseen_ticks", 0) > 0) {
			buf_puts(b, "; the box unseen for the last ");
			hb_num(b, json_num(ps, "unseen_ticks", 0));
		}
		buf_puts(b, ")");
	} else
		buf_puts(b, "never");
	buf_puts(b, "\n- Box last seen: ");
	if ((v = json_str(ps, "seen_at", NULL)) != NULL)
		hb_boxtext(h, v, 0);
	else
		buf_puts(b, "unknown");
	buf_puts(b, "\n- Stage on the box: ");
	if ((v = json_str(ps, "stage", NULL)) != NULL) {
		hb_boxtext(h, v, 0);
		if (json_num(ps, "attempt", -1) >= 0) {
			buf_puts(b, " attempt ");
			hb_num(b, json_num(ps, "attempt", 0));
		}
	} else
		buf_puts(b, "unknown");
	buf_puts(b, "\n- Attempts: ");
	att = cJSON_GetObjectItemCaseSensitive(ps, "attempts");
	if (cJSON_IsObject(att) && cJSON_GetArraySize(att) > 0) {
		int first = 1;

		cJSON_ArrayForEach(it, att) {
			if (!cJSON_IsNumber(it) || it->string == NULL)
				continue;
			buf_puts(b, first ? "" : ", ");
			hb_boxtext(h, it->string, 0);
			buf_putc(b, ' ');
			hb_num(b, it->valuedouble);
			first = 0;
		}
		if (first)
			buf_puts(b, "unknown");
	} else
		buf_puts(b, "unknown");
	buf_puts(b, "\n- Resumes by patrol: ");
	res = cJSON_GetObjectItemCaseSensitive(ps, "resumes");
	buf_printf(b, "%d of restart.max %ld", cJSON_IsArray(res) ? cJSON_GetArraySize(res) : 0,
	    config_get_int(h->cfg, "restart.max"));
	if (cJSON_IsArray(res) && (last = cJSON_GetArrayItem(res, cJSON_GetArraySize(res) - 1)) != NULL) {
		buf_puts(b, "; the last at ");
		hb_boxtext(h, json_str(last, "time", "?"), 0);
		buf_puts(b, " (was ");
		hb_boxtext(h, json_str(last, "was", "?"), 0);
		if (json_str(last, "class", NULL) != NULL) {
			buf_puts(b, ", ");
			hb_boxtext(h, json_str(last, "class", NULL), 0);
		}
		buf_puts(b, ")");
	}
	buf_puts(b, "\n- Failed stages:");
	fo = cJSON_GetObjectItemCaseSensitive(ps, "failed");
	if (cJSON_IsObject(fo) && cJSON_GetArraySize(fo) > 0) {
		buf_puts(b, "\n");
		cJSON_ArrayForEach(it, fo) {
			const char *cls = json_str(it, "class", NULL);
			const struct triage_class_info *ti;
			char *fn = xstrfmt("%s.FAILED", it->string != NULL ? it->string : "?");

			buf_puts(b, "  - ");
			hb_boxtext(h, fn, 0);
			free(fn);
			buf_puts(b, ": class ");
			hb_boxtext(h, cls != NULL ? cls : "unknown", 0);
			if (cls != NULL && triage_by_name(cls) != TRIAGE_NCLASSES) {
				ti = triage_info(triage_by_name(cls));
				buf_printf(b, " (%s; %s)", ti->title, ti->retryable ? "retryable" : "not retryable");
			}
			if (json_num(it, "attempt", -1) >= 0) {
				buf_puts(b, ", attempt ");
				hb_num(b, json_num(it, "attempt", 0));
			}
			if (tb_where_text(cJSON_GetObjectItemCaseSensitive(it, "where"), at,
			    sizeof(at))) {
				buf_puts(b, ", failed ");
				hb_boxtext(h, at, 0);
			}
			if ((v = json_str(it, "last_line", NULL)) != NULL) {
				buf_puts(b, ", last line ");
				hb_boxtext(h, v, 0);
			}
			buf_puts(b, "\n");
		}
	} else
		buf_puts(b, hb_failed_known(ps) ? " none\n" : " unknown\n");
	buf_puts(b, "- W&B: ");
	if ((v = json_str(ps, "wandb", NULL)) != NULL)
		hb_boxtext(h, v, 0);
	else
		buf_puts(b, "not seen yet");
	buf_puts(b, "\n- Newest complete checkpoint: ");
	ck = cJSON_GetObjectItemCaseSensitive(ps, "checkpoint");
	if (cJSON_IsObject(ck) && json_str(ck, "path", NULL) != NULL) {
		hb_boxtext(h, json_str(ck, "path", NULL), 0);
		if (json_num(ck, "step", -1) >= 0) {
			buf_puts(b, " (step ");
			hb_num(b, json_num(ck, "step", 0));
			if (json_num(ck, "age_s", -1) >= 0) {
				char age[32];

				timefmt_duration(json_long(ck, "age_s", 0), age, sizeof(age));
				buf_printf(b, ", %s old at the last tick", age);
			}
			buf_puts(b, ")");
		}
	} else if (ckpt_configured(h->cfg))
		buf_puts(b, "none complete at the last seen tick");
	else
		buf_puts(b, "no `checkpoints` in the config");
	buf_puts(b, "\n\n");
}

static void
hb_stage_state(struct hb *h, const struct wk_stage *s)
{
	const cJSON *f = hb_failed(h->ps, s->marker);
	int st = hb_marker_state(h->ps, s->marker);
	const char *cur = json_str(h->ps, "stage", NULL);
	char at[200];

	if (st == 1)
		buf_puts(&h->b, "done (marker present at the last seen tick)");
	else if (f != NULL) {
		buf_puts(&h->b, "FAILED, class ");
		hb_boxtext(h, json_str(f, "class", "unknown"), 0);
		if (tb_where_text(cJSON_GetObjectItemCaseSensitive(f, "where"), at, sizeof(at))) {
			buf_puts(&h->b, ", ");
			hb_boxtext(h, at, 0);
		}
	} else if (st == 0)
		buf_puts(&h->b, "not done (marker missing at the last seen tick)");
	else
		buf_puts(&h->b, "unknown (no tick has seen the box yet)");
	if (cur != NULL && strcmp(cur, s->name) == 0 && st != 1) {
		buf_puts(&h->b, "; the box's current stage");
		if (json_num(h->ps, "attempt", -1) >= 0) {
			buf_puts(&h->b, ", attempt ");
			hb_num(&h->b, json_num(h->ps, "attempt", 0));
		}
	}
}

void
hb_chain(struct hb *h)
{
	struct buf *b = &h->b;
	size_t i;

	buf_puts(b, "The stages run in this order in the workdir, each only after the one before "
	    "succeeded (`&&`); a stage's marker is touched only on its success, and a restarted "
	    "onbox resumes at the first missing marker.\n\n");
	for (i = 0; i < h->cfg->nchain; i++) {
		const struct wk_stage *s = &h->cfg->chain[i];
		char *mp = layout_marker(h->cfg->workdir, s->marker);
		long na = json_long(cJSON_GetObjectItem(h->ps, "attempts"), s->name, 1);
		char *lr = layout_attempt_log_rel(s->name, na > 0 ? na : 1);

		buf_printf(b, "### %zu. %s\n\n", i + 1, s->name);
		buf_puts(b, "- State: ");
		hb_stage_state(h, s);
		buf_puts(b, "\n- Marker: ");
		md_code(b, mp);
		buf_puts(b, "\n- Log: ");
		if (s->log != NULL) {
			md_code(b, s->log);
			buf_puts(b, " (relative to the workdir)");
		} else
			buf_puts(b, "none of its own");
		buf_puts(b, "; each attempt's output: ");
		md_code(b, lr);
		buf_printf(b, " (attempt %ld, the newest known)\n- Done when: ", na > 0 ? na : 1);
		if (s->done_when != NULL) {
			md_code(b, s->done_when);
			buf_puts(b, " matches a line of its output or log, and it exits 0");
		} else
			buf_puts(b, "it exits 0");
		if (s->has_wait) {
			buf_puts(b, "\n- Waits for: ");
			if (s->wait.pid > 0)
				buf_printf(b, "process %ld on the box to exit", s->wait.pid);
			else {
				md_code(b, s->wait.pattern);
				buf_puts(b, " in ");
				md_code(b, s->wait.log);
			}
			if (s->wait.timeout_s > 0)
				buf_printf(b, " (at most %ld s)", s->wait.timeout_s);
		}
		if (s->timeout_s > 0)
			buf_printf(b, "\n- Timeout: %ld s", s->timeout_s);
		buf_puts(b, "\n\n");
		if (s->run != NULL) {
			buf_puts(b, "Command (`sh -c`, in the workdir):\n\n");
			md_block(b, "sh", s->run);
		}
		free(mp);
		free(lr);
	}
}

void
hb_markers(struct hb *h)
{
	struct buf *b = &h->b;
	char *dir = layout_path(h->cfg->workdir, "markers"), *ls, *cmd;
	static const char *const files[][2] = {
		{ "state.json", "onbox's heartbeat: time, stage, attempt, pids, progress, last lines" },
		{ "logs", "one log per stage attempt, `<stage>.<attempt>.log`" },
		{ "events.jsonl", "append-only event log" },
		{ "caveats.json", "only after a DONE that went wrong on the way: its health alerts and restarts" },
		{ "outbox", "notifications not yet delivered" },
		{ "onbox.log", "onbox's own diagnostics" },
	};
	size_t i;

	buf_puts(b, "On the box. A marker is a small JSON file (stage, attempt, times, exit) written "
	    "atomically when its stage succeeded; "
	    "its `.FAILED` twin holds the failure's class and last lines. As of the last seen "
	    "tick:\n\n");
	for (i = 0; i < h->cfg->nchain; i++) {
		const char *m = h->cfg->chain[i].marker;
		char *mp = layout_marker(h->cfg->workdir, m), *fp = layout_failed(h->cfg->workdir, m);
		int st = hb_marker_state(h->ps, m);

		buf_puts(b, "- ");
		md_code(b, mp);
		buf_puts(b, st == 1 ? " — present" : st == 0 ? " — absent" : " — unknown");
		buf_puts(b, "\n- ");
		md_code(b, fp);
		if (hb_failed(h->ps, m) != NULL)
			buf_puts(b, " — present");
		else
			buf_puts(b, hb_failed_known(h->ps) ? " — absent" : " — unknown");
		buf_puts(b, "\n");
		free(mp);
		free(fp);
	}
	buf_puts(b, "\nAlso under ");
	ls = layout_root(h->cfg->workdir);
	md_code(b, ls);
	free(ls);
	buf_puts(b, ":\n\n");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = layout_path(h->cfg->workdir, files[i][0]);

		buf_puts(b, "- ");
		md_code(b, p);
		buf_printf(b, ": %s\n", files[i][1]);
		free(p);
	}
	{
		struct buf r = BUF_INIT;

		buf_puts(&r, "ls -la -- ");
		sshq_append(&r, dir);
		if ((cmd = hb_ssh_cmd(h, r.data)) != NULL) {
			buf_puts(b, "\nTo list the markers from this machine:\n\n");
			md_block(b, "sh", cmd);
			free(cmd);
		} else
			buf_puts(b, "\n");
		buf_free(&r);
	}
	free(dir);
}

/* completion.require and loss.on_nan: what DONE needs, and whether a NaN stops the stage. */
static void
hb_completion(struct hb *h)
{
	struct buf *b = &h->b;
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(h->cfg->root, "completion"), "require"), *it;
	int first = 1;

	buf_puts(b, "6. Completion: the last stage's marker is written only when every "
	    "`completion.require` entry matches a non-empty file (or a directory with an entry) "
	    "under the workdir, `{final_checkpoint}` meaning the newest complete checkpoint is at "
	    "the progress total; else that stage fails as `missing_artifacts` (not retryable), "
	    "naming what is missing. Required here: ");
	cJSON_ArrayForEach(it, req) {
		if (!cJSON_IsString(it))
			continue;
		buf_puts(b, first ? "" : ", ");
		hb_boxtext(h, it->valuestring, 0);
		first = 0;
	}
	if (first)
		buf_puts(b, "nothing (no `completion.require` in the config)");
	buf_printf(b, ". A NaN/Inf loss (`loss.on_nan` %s): %s\n\n",
	    config_get_str(h->cfg, "loss.on_nan"),
	    strcmp(config_get_str(h->cfg, "loss.on_nan"), "stop") == 0 ?
	    "the stage is stopped as a timeout is (SIGTERM, then SIGKILL) and fails as `nan_loss`, "
	    "not retried, so the later stages never run on a diverged model." :
	    "a `health_alert` only; the stage runs on.");
}

void
hb_resume(struct hb *h)
{
	struct buf *b = &h->b, cls = BUF_INIT;
	char *start = remote_onbox_command(h->cfg, "start");
	char *status = remote_onbox_command(h->cfg, "status");
	char *cmd;
	const cJSON *ck = cJSON_GetObjectItemCaseSensitive(h->ps, "checkpoint");
	const char *tres = config_get_str(h->cfg, "transfer.resume");
	size_t i;

	buf_puts(b, "Look first (the first command above): never restart blind. `onbox start` "
	    "itself refuses when the run is alive, and a restarted onbox re-attaches to a stage "
	    "that still runs and resumes at the first missing marker.\n\n");
	buf_puts(b, "1. Rebuild layer 1 from this machine:\n\n");
	if ((cmd = hb_ssh_cmd(h, start)) != NULL) {
		md_block(b, "sh", cmd);
		free(cmd);
	} else
		buf_puts(b, "(no `box.host` in the config: set it, then generate this again)\n\n");
	buf_puts(b, "2. The same, when already on the box:\n\n");
	md_block(b, "sh", start);
	buf_puts(b, "3. What onbox says about the run (from this machine, then on the box):\n\n");
	if ((cmd = hb_ssh_cmd(h, status)) != NULL) {
		md_block(b, "sh", cmd);
		free(cmd);
	}
	md_block(b, "sh", status);
	for (i = 0; i < TRIAGE_NCLASSES; i++)
		if (triage_classes[i].retryable)
			buf_printf(&cls, "%s%s", cls.len > 0 ? ", " : "", triage_classes[i].name);
	buf_printf(b, "4. Automatic restarts: onbox on the box relaunches a failed stage, and patrol "
	    "resumes a dead run when patrol.auto_resume is true (here: %s), only as the restart "
	    "policy below allows (the same table in both; the first rule that holds decides). "
	    "restart.max %ld, restart.window_s %ld, restart.max_in_window %ld, "
	    "restart.escalate_s %ld, restart.no_progress_max %ld; retryable classes: %s.\n\n",
	    config_get_bool(h->cfg, "patrol.auto_resume") ? "true" : "false",
	    config_get_int(h->cfg, "restart.max"), config_get_int(h->cfg, "restart.window_s"),
	    config_get_int(h->cfg, "restart.max_in_window"), config_get_int(h->cfg, "restart.escalate_s"),
	    config_get_int(h->cfg, "restart.no_progress_max"),
	    cJSON_GetObjectItemCaseSensitive(h->cfg->root, "restart") != NULL &&
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h->cfg->root, "restart"),
	    "retry_classes") != NULL ? "restart.retry_classes" : buf_str(&cls));
	buf_puts(b, "| rule | restart? | when | then |\n|---|---|---|---|\n");
	for (i = 0; i < policy_nrows; i++) {
		buf_printf(b, "| %s | %s | ", policy_table[i].name,
		    policy_table[i].action == POLICY_RESTART ? "yes" : "no");
		md_cell(b, policy_table[i].when);
		buf_puts(b, " | ");
		md_cell(b, policy_table[i].then);
		buf_puts(b, " |\n");
	}
	buf_puts(b, "\n5. Checkpoints: every `{checkpoint}` in a stage's command becomes the newest "
	    "complete checkpoint (by step number, with its completeness file) at each launch, "
	    "so the commands above resume from it. Newest complete: ");
	if (cJSON_IsObject(ck) && json_str(ck, "path", NULL) != NULL) {
		hb_boxtext(h, json_str(ck, "path", NULL), 0);
		if (json_num(ck, "step", -1) >= 0) {
			buf_puts(b, " (step ");
			hb_num(b, json_num(ck, "step", 0));
			buf_puts(b, ")");
		}
	} else if (ckpt_configured(h->cfg))
		buf_printf(b, "none at the last seen tick (checkpoints.fallback %s)",
		    config_get_str(h->cfg, "checkpoints.fallback"));
	else
		buf_puts(b, "no `checkpoints` in the config");
	buf_puts(b, "\n\n");
	hb_completion(h);
	if (tres != NULL) {
		buf_puts(b, "An interrupted transfer resumes with (transfer.resume, on this machine):\n\n");
		md_block(b, "sh", tres);
	}
	{
		char *stop = remote_onbox_command(h->cfg, "stop");

		buf_printf(b, "To stop the run on purpose (SIGTERM to the stage's process group, SIGKILL "
		    "after stop_grace_s = %ld s; a training may save a checkpoint on SIGTERM), from "
		    "this machine, then on the box:\n\n", h->cfg->stop_grace_s);
		cmd = xstrfmt("%s -c %s stop\n", h->patrol, h->cfgq);
		md_block(b, "sh", cmd);
		free(cmd);
		md_block(b, "sh", stop);
		buf_puts(b, "A stopped run is reported `STOPPED` every tick (exit 0; the cron entry stays) "
		    "and is never resumed, not even with patrol.auto_resume. `onbox start` on the box "
		    "or `patrol deploy` starts it again from the first missing marker.\n\n");
		free(stop);
	}
	buf_free(&cls);
	free(start);
	free(status);
}
