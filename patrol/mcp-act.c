/*
 * mcp-act.c: the MCP tools that look at the box and act on it: status (one
 * tick), resume and stop.
 *
 * Each is tick.c's patrol_tick_run in a mode (patrol.h), so a tool runs the
 * very code patrol runs: status is `patrol --once --json` (TICK_TABLE),
 * resume is the tick's resume on request (TICK_RESUME: the same policy, the
 * same re-check, records and verdict; no patrol.auto_resume needed), stop is
 * `patrol stop` between two looks (TICK_STOP).  Without "confirm": true,
 * resume and stop only look (TICK_LOOK_*): no lock, nothing written, nothing
 * done on the box, and say what they would do.  Nothing is printed: the
 * tick's object is the structuredContent, its report line the text.
 *
 * Results: an unreachable box is a normal result (SSH_DOWN); a box that
 * refused our connection (HOSTKEY_MISMATCH) and a run another patrol is
 * ticking for right now are isError results naming the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "config.h"
#include "decide.h"
#include "exits.h"
#include "mcp.h"
#include "patrol.h"
#include "xmalloc.h"

/* The properties of the tick's object (tick.c's tick_object), for the output schemas. */
#define ACT_TICK_PROPS \
	"\"time\":{\"type\":\"string\",\"description\":\"UTC time of the tick\"}," \
	"\"run\":{\"type\":\"string\"}," \
	"\"verdict\":{\"type\":\"string\",\"description\":\"OK, DONE, STOPPED, CRASHED, " \
	"NEEDS_RESUME, RESUMED, DEGRADED, STALLED, MONITOR_STALE, DISK_LOW, TRANSFER_INCOMPLETE, " \
	"TRANSFER_RESUMED, SSH_DOWN, HOSTKEY_MISMATCH\"}," \
	"\"details\":{\"type\":\"string\"}," \
	"\"exit\":{\"type\":\"integer\",\"description\":\"patrol's exit code for the verdict: 0 " \
	"OK/DONE/STOPPED, 1 others, 2 box unseen\"}," \
	"\"seen\":{\"type\":\"boolean\",\"description\":\"the box answered the probe\"}," \
	"\"progress\":{\"type\":\"number\"},\"progress_max\":{\"type\":\"number\"}," \
	"\"stage\":{\"type\":\"string\"},\"class\":{\"type\":\"string\"," \
	"\"description\":\"CRASHED: the failure class\"},\"where\":{\"type\":\"object\"}," \
	"\"action\":{\"type\":\"string\",\"description\":\"what patrol did\"}," \
	"\"results\":{\"type\":\"string\"},\"caveats\":{},\"caveats_text\":{\"type\":\"string\"}," \
	"\"line\":{\"type\":\"string\",\"description\":\"the one-line report\"}"
#define ACT_TICK_REQUIRED \
	"\"time\",\"run\",\"verdict\",\"details\",\"exit\",\"seen\",\"line\""
#define ACT_WHY_PROPS \
	"\"confirm\":{\"type\":\"boolean\",\"description\":\"the call was confirmed (else " \
	"it only looked)\"}," \
	"\"why\":{\"type\":\"string\",\"description\":\"what was (or would be) done and why, " \
	"or why not\"},"
#define ACT_INPUT_STATUS \
	"{\"type\":\"object\",\"properties\":{\"run\":{\"type\":\"string\",\"description\":" \
	"\"the run's name (see the runs tool)\"}},\"required\":[\"run\"],\"additionalProperties\":false}"
#define ACT_INPUT \
	"{\"type\":\"object\",\"properties\":{\"run\":{\"type\":\"string\",\"description\":" \
	"\"the run's name (see the runs tool)\"},\"confirm\":{\"type\":\"boolean\",\"default\":false," \
	"\"description\":\"true to act; absent or false: change nothing, say what would be " \
	"done\"}},\"required\":[\"run\"],\"additionalProperties\":false}"

/* The tick's result as the tool's, or its isError (the lock, the local state, the host key). */
static int
act_result(const struct wk_config *cfg, struct tick_result *r, struct mcp_out *out)
{
	if (r->rc == WK_EX_TEMPFAIL)
		return mcp_error(out, "run %s: another patrol is ticking right now; try again in a "
		    "few seconds", cfg->run);
	if (r->obj == NULL)
		return mcp_error(out, "run %s: its local state cannot be opened (see patrol's "
		    "stderr)", cfg->run);
	if (r->verdict == V_HOSTKEY_MISMATCH)	/* the tick's object stays the structuredContent */
		mcp_error(out, "run %s: the box refused: HOSTKEY_MISMATCH: %s", cfg->run,
		    cJSON_GetStringValue(cJSON_GetObjectItem(r->obj, "details")));
	out->structured = r->obj;	/* transferred */
	r->obj = NULL;
	return out->is_error ? -1 : 0;
}

static int
mcp_call_status(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	struct wk_config *cfg = NULL;
	struct tick_result r;
	int rc;

	if (mcp_run_config(ctx, args, &cfg, out) != 0)	/* the schema's keys: mcp-proto.c */
		return -1;
	mcp_progress(ctx, 0, 1, "one tick: probing the box");
	(void)patrol_tick_run(cfg, TICK_TABLE, &r);
	if ((rc = act_result(cfg, &r, out)) == 0)
		out->text = xstrdup(r.line);
	tick_result_free(&r);
	config_free(cfg);
	return rc;
}

const struct mcp_tool mcp_tool_status_row = {
	"status", "One patrol tick of a run",
	"Look at a run now: one patrol tick, exactly `patrol --once --json` (the same lock, "
	"report line in report.log, LOGBOOK.md, HANDBOOK.md, patrol.json, notifications; with "
	"patrol.auto_resume it resumes a dead run when the policy allows, as cron's tick would). "
	"Returns the tick's object: verdict, details, progress, stage, the one-line report. Use "
	"it for the current state of a run; to wait for a change use wait, not repeated status "
	"calls. SSH_DOWN (box unreachable) is a normal result; HOSTKEY_MISMATCH is an error.",
	ACT_INPUT_STATUS, "{\"type\":\"object\",\"properties\":{" ACT_TICK_PROPS
	"},\"required\":[" ACT_TICK_REQUIRED "]}",
	MCP_OPEN_WORLD, mcp_call_status
};

/* resume and stop, by the row's name: what a confirmed call does, and the look without confirm. */
static const struct {
	const char	*tool;
	enum tick_mode	 act;
	enum tick_mode	 look;
} act_modes[] = {
	{ "resume", TICK_RESUME, TICK_LOOK_RESUME },
	{ "stop", TICK_STOP, TICK_LOOK_STOP },
};

/* resume and stop: look without confirm, act with it; the tick's object says what came of it. */
static int
mcp_call_act(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	struct wk_config *cfg = NULL;
	struct tick_result r;
	size_t i;
	int confirm = 0, rc;

	for (i = 0; strcmp(act_modes[i].tool, ctx->tool->name) != 0; i++)
		;	/* every row that calls this is in the table */
	if (mcp_arg_bool(args, "confirm", 0, &confirm, out) != 0 ||
	    mcp_run_config(ctx, args, &cfg, out) != 0)
		return -1;
	mcp_progress(ctx, 0, 1, confirm ? "looking at the box, then acting" : "looking at the box");
	(void)patrol_tick_run(cfg, confirm ? act_modes[i].act : act_modes[i].look, &r);
	if ((rc = act_result(cfg, &r, out)) == 0)
		out->text = xstrfmt("run %s %s: %s%s", cfg->run, verdict_name((enum verdict)r.verdict),
		    r.why, confirm ? "" : " (nothing done: confirm is not true)");
	tick_result_free(&r);
	config_free(cfg);
	return rc;
}

/* verbs: what "did" may say; would: what "would" may say. */
#define ACT_OUTPUT(verbs, would) \
	"{\"type\":\"object\",\"properties\":{" ACT_TICK_PROPS "," ACT_WHY_PROPS \
	"\"did\":{\"type\":\"string\",\"enum\":[" verbs "],\"description\":\"what came of the " \
	"call; always nothing without confirm\"}," \
	"\"would\":{\"type\":\"string\",\"enum\":[" would "],\"description\":\"without confirm: " \
	"what a confirmed call would do now\"}," \
	"\"said\":{\"type\":\"string\",\"description\":\"the box's own words (onbox start or " \
	"stop)\"}},\"required\":[" ACT_TICK_REQUIRED ",\"confirm\",\"did\",\"why\"]}"

const struct mcp_tool mcp_tool_resume_row = {
	"resume", "Resume a dead or stopped run",
	"Start a run again on its box (`onbox start`, from the first missing marker) when the "
	"last tick says NEEDS_RESUME or CRASHED, or STOPPED after a stop. The same code, policy "
	"and idempotence as patrol's own resume: the restart policy (never_retry classes, "
	"max_restarts, no progress ...) still decides, the box is probed again right before, and "
	"a run that is alive or DONE is left alone. It does not need patrol.auto_resume: it is "
	"an explicit request. Without confirm: true it changes nothing and says what it would do "
	"and why (the verdict, the policy's answer); call it that way first, then with confirm: "
	"true. Confirmed, it is recorded like a tick (report line, logbook, patrol.json).",
	ACT_INPUT,
	ACT_OUTPUT("\"nothing\",\"refused\",\"resumed\"", "\"nothing\",\"refused\",\"resume\""),
	MCP_DESTRUCTIVE | MCP_IDEMPOTENT | MCP_OPEN_WORLD, mcp_call_act
};

const struct mcp_tool mcp_tool_stop_row = {
	"stop", "Stop a run on purpose",
	"Stop a run on its box on purpose (`patrol stop`, `onbox stop` there): SIGTERM to the "
	"stage's process group, SIGKILL after stop_grace_s; the run stays STOPPED, never resumed "
	"automatically, until resume (or patrol deploy). Use it when the owner wants the run "
	"ended, not to fix a crash. Without confirm: true it changes nothing and says what it "
	"would stop (the stage and its pid, or that nothing runs). A second stop changes "
	"nothing. An unreachable box is a normal result (SSH_DOWN): nothing stopped. Writes no "
	"patrol state; 'said' is onbox stop's own words.",
	ACT_INPUT,
	ACT_OUTPUT("\"nothing\",\"refused\",\"stopped\"", "\"nothing\",\"refused\",\"stop\""),
	MCP_DESTRUCTIVE | MCP_IDEMPOTENT | MCP_OPEN_WORLD, mcp_call_act
};
