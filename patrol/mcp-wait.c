/*
 * mcp-wait.c: the MCP tool `wait`: block until a marker (or its FAILED twin)
 * lands, the run's verdict changes, or timeout_s passes; say which.
 *
 * Read-only, like sentinel: it is not a tick and writes no patrol state
 * (patrol.json is read, without the lock, for the stall count the decision
 * table wants).  The first connection probes the box and walks the decision
 * table: the verdict the wait began with, and, without a marker argument,
 * the marker to wait for, the chain's first missing one.  Then it waits in
 * slices of at most WAIT_SLICE_S, one connection each (mcp-box.c, the
 * sentinel's ssh/tick.c): the box's `onbox wait` (mwait_follow_script, the
 * sentinel's --follow: inotify, so a marker is seen within a second), then,
 * in the same connection, the probe again, so a crash, NEEDS_RESUME or
 * STALLED is noticed within a slice.  Where the box has no `onbox wait`
 * the slice is one plain check and the next comes WAIT_POLL_S later.
 *
 * An unreachable box is retried until the timeout, like sentinel: SSH_DOWN
 * is never "the verdict changed", it is the verdict said when the wait ends
 * unseen.  A run stopped on purpose ends the wait at once ("stopped"): no
 * marker comes until it is started again.  A cancel (SIGTERM to the call's
 * process group) ends the slice's connection and with it `onbox wait` on
 * the box (mcp-box.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "decide.h"
#include "jsonfile.h"
#include "layout.h"
#include "mcp-box.h"
#include "mcp.h"
#include "monotime.h"
#include "mwait.h"
#include "notify.h"
#include "probe.h"
#include "pstate.h"
#include "xmalloc.h"

#define WAIT_TIMEOUT_DEF	300
#define WAIT_TIMEOUT_MAX	600
#define WAIT_SLICE_S		30	/* one `onbox wait` window, then a probe */
#define WAIT_PROBE_BUDGET_S	60	/* the probe (and the check), on top of the connect timeout */
#define WAIT_POLL_S		5	/* between slices when the box had no `onbox wait` or was down */

struct waitc {
	struct mcp_ctx		*ctx;
	struct wk_config	*cfg;
	struct mcp_box		 box;
	long			 timeout_s;
	uint64_t		 start_ms;
	struct mwait_spec	 spec;		/* the marker, once known */
	long			*attempt;	/* per spec stage: the attempt last seen, 0 none */
	char			*plain;		/* the plain check (mwait_script) */
	const char		*chosen;	/* how the marker was chosen */
	int			 seen;		/* a verdict was seen: v0 is the baseline */
	double			 progress;	/* the last progress sent (it must grow) */
	enum verdict		 v0, v;
	char			 details[1024];	/* the last decision's details */
	/* the outcome */
	const char		*happened;
	long			 at_attempt;	/* the deciding stage's attempt, 0 unknown */
	cJSON			*failed;	/* {class, last_line, ...} (owned), or NULL */
};

static long
wait_elapsed_ms(const struct waitc *w)
{
	return (long)(monotime_ms() - w->start_ms);
}

/* The probe's output, through the decision table: w->v (and v0 the first time). */
static void
wait_decide(struct waitc *w, const char *text, size_t len, struct probe *p, int *have_p)
{
	struct decide_in in;
	struct decide_out o;
	char *why = NULL, *dir = statedir_path(w->cfg, 0);
	cJSON *st = dir != NULL ? pstate_load(dir) : NULL;

	memset(&in, 0, sizeof(in));
	in.cfg = w->cfg;
	*have_p = probe_parse(w->cfg, text, len, p, &why) == 0;
	in.seen = *have_p;
	in.p = *have_p ? p : NULL;
	in.fail = SSH_OK;
	in.fail_msg = why;
	in.prev_progress = json_long(st, "progress", -1);
	in.still_ticks = (int)json_long(st, "still_ticks", 0);
	in.local_files = -1;	/* a wait does not walk the transfer source */
	in.local_bytes = -1;
	decide(&in, &o);
	w->v = o.v;
	snprintf(w->details, sizeof(w->details), "%s", o.details);
	if (!w->seen && w->v != V_SSH_DOWN) {
		w->v0 = w->v;
		w->seen = 1;
	}
	free(why);
	free(dir);
	cJSON_Delete(st);
}

/* The marker to wait for, into w->spec: the argument, else the chain's first missing one. */
static int
wait_spec(struct waitc *w, const char *marker, const struct probe *p, struct mcp_out *out)
{
	const char *stage = NULL;
	long fm;
	size_t i;

	if (marker == NULL) {
		if (p == NULL)
			return 0;	/* unseen: chosen when the box answers */
		fm = probe_first_missing(p, w->cfg);
		if (fm < 0) {
			/* Every marker is there: the last one is the answer, at once. */
			marker = w->cfg->chain[w->cfg->nchain - 1].marker;
			w->happened = "marker";
			w->chosen = "every marker of the chain is there already; the last one";
		} else {
			marker = w->cfg->chain[fm].marker;
			w->chosen = "the chain's first missing marker";
		}
	}
	for (i = 0; i < w->cfg->nchain; i++)
		if (strcmp(w->cfg->chain[i].marker, marker) == 0)
			stage = w->cfg->chain[i].name;
	if (mwait_spec_add(&w->spec, marker, stage) != 0)
		return mcp_error(out, "argument 'marker': '%s' is not a marker name ([A-Za-z0-9._-]+)",
		    marker);
	w->attempt = xcalloc(w->spec.nstages + 1, sizeof(*w->attempt));
	w->plain = mwait_script(w->cfg->workdir, &w->spec);
	return 0;
}

/* The FAILED twin's gist: class, the last line (scrubbed), stage, remediation. */
static cJSON *
wait_failed_gist(const struct waitc *w, const cJSON *doc)
{
	struct notify_sinks sinks;
	const cJSON *arr = cJSON_GetObjectItem(doc, "last_lines");
	const char *tail = json_str(doc, "tail", NULL), *last = NULL, *nl;
	cJSON *g = cJSON_CreateObject();
	char *copy = NULL, *clean;
	int n;

	cJSON_AddStringToObject(g, "class", json_str(doc, "class", "unknown"));
	if (cJSON_IsArray(arr) && (n = cJSON_GetArraySize(arr)) > 0 &&
	    cJSON_IsString(cJSON_GetArrayItem(arr, n - 1)))
		last = cJSON_GetArrayItem(arr, n - 1)->valuestring;
	else if (tail != NULL) {
		copy = xstrdup(tail);
		while ((n = (int)strlen(copy)) > 0 && copy[n - 1] == '\n')
			copy[n - 1] = '\0';
		last = (nl = strrchr(copy, '\n')) != NULL ? nl + 1 : copy;
	}
	if (last != NULL) {
		notify_sinks_load(w->cfg, &sinks);
		clean = notify_scrub(&sinks, last);
		cJSON_AddStringToObject(g, "last_line", clean);
		free(clean);
		notify_sinks_free(&sinks);
	}
	if (json_str(doc, "stage", NULL) != NULL)
		cJSON_AddStringToObject(g, "stage", json_str(doc, "stage", ""));
	if (json_str(doc, "remediation", NULL) != NULL)
		cJSON_AddStringToObject(g, "remediation", json_str(doc, "remediation", ""));
	free(copy);
	return g;
}

/* The check's part of a slice: what it decides.  0 go on, 1 decided, -1 unreadable. */
static int
wait_check(struct waitc *w, const char *text, size_t len)
{
	struct mwait m;
	enum mwait_outcome o;
	const struct mwait_stage *st;
	char *why = NULL;
	size_t i, j;

	if (mwait_parse(text, len, &w->spec, &m, &why) != 0) {
		snprintf(w->box.down, sizeof(w->box.down), "the check's answer was rejected (%s)", why);
		free(why);
		return -1;
	}
	/* A relaunch: the wait goes on for the new attempt (its FAILED twin, not the old one's). */
	for (j = 0; j < m.ns; j++)
		w->attempt[j] = m.s[j].attempt;
	o = mwait_decide(&m, &w->spec, &i);
	st = mwait_stage_of(&m, &w->spec, i);
	w->at_attempt = st != NULL ? st->attempt : 0;
	if (o == MWAIT_FOUND) {
		w->happened = "marker";
		if (json_long(m.m[i].doc, "attempt", 0) > 0)
			w->at_attempt = json_long(m.m[i].doc, "attempt", 0);
	} else if (o == MWAIT_FAILED) {
		w->happened = "failed";
		w->failed = wait_failed_gist(w, m.m[i].failed_doc);
		if (m.m[i].failed_attempt > 0)
			w->at_attempt = m.m[i].failed_attempt;
	} else if (o == MWAIT_STOPPED)
		w->happened = "stopped";
	mwait_free(&m);
	return w->happened != NULL;
}

/*
 * One slice's script: `onbox wait` bounded by slice_s (or the plain check),
 * its exit kept, then the probe; the check's output ends at its "@end".
 */
static char *
wait_slice_script(const struct waitc *w, long slice_s, const char *probe)
{
	char *follow = mwait_follow_script(w->cfg->workdir, &w->spec, w->attempt, slice_s,
	    w->cfg->poll_ms, w->plain);
	char *s = xstrfmt("(\n%s)\nf=$?\n%sexit $f\n", follow, probe);

	free(follow);
	return s;
}

/* Where the check's output ends in a slice's answer (just past its "@end\n"), or 0. */
static size_t
wait_split(const char *out, size_t len)
{
	const char *p = out;

	while ((p = memmem(p, len - (size_t)(p - out), "@end\n", 5)) != NULL) {
		if (p == out || p[-1] == '\n')
			return (size_t)(p - out) + 5;
		p++;
	}
	return 0;
}

/*
 * One connection: a slice of slice_s, or the probe alone (slice_s 0, or no
 * marker known yet).  0 go on, 1 decided, -1 failed (out set).
 */
static int
wait_round(struct waitc *w, const char *marker, long slice_s, int *pause_s, struct mcp_out *out)
{
	struct tick_res r;
	struct probe p;
	char *probe = probe_script(w->cfg), *script;
	size_t cut = 0;
	int have_p = 0, rc = 0, slice = slice_s > 0 && w->plain != NULL;
	uint64_t t0 = monotime_ms();

	*pause_s = 0;
	script = slice ? wait_slice_script(w, slice_s, probe) : xstrdup(probe);
	switch (mcp_box_run(&w->box, script, WAIT_PROBE_BUDGET_S + (slice ? (int)slice_s : 0), &r,
	    out)) {
	case MCP_BOX_FAILED:
		rc = -1;
		goto out;
	case MCP_BOX_DOWN:
		w->v = V_SSH_DOWN;
		snprintf(w->details, sizeof(w->details), "box unreachable: %s", w->box.down);
		*pause_s = WAIT_POLL_S;
		goto out;
	case MCP_BOX_SEEN:
		break;
	}
	if (slice && (cut = wait_split(r.out, r.outlen)) == 0) {
		snprintf(w->box.down, sizeof(w->box.down), "the check's answer had no @end");
		*pause_s = 1;
	} else if (slice && (rc = wait_check(w, r.out, cut)) != 0) {
		if (rc < 0)
			*pause_s = 1;
		rc = rc > 0;
	}
	wait_decide(w, r.out + cut, r.outlen - cut, &p, &have_p);
	if (!have_p && *pause_s < WAIT_POLL_S)
		*pause_s = WAIT_POLL_S;	/* a probe that did not parse: not at once again */
	if (rc == 0 && !slice && w->spec.nmarkers == 0 && have_p)
		rc = wait_spec(w, marker, &p, out) != 0 ? -1 : w->happened != NULL;
	else if (rc == 0 && w->seen && w->v != V_SSH_DOWN && w->v != w->v0) {
		w->happened = "verdict";
		rc = 1;
	}
	if (rc == 0 && slice && r.exit_status == MWAIT_FOLLOW_FALLBACK)
		*pause_s = WAIT_POLL_S;	/* no `onbox wait` there: poll */
	else if (rc == 0 && slice && monotime_ms() - t0 < 1000 && *pause_s < 1)
		*pause_s = 1;	/* an early answer that decided nothing (a relaunch): not a spin */
	if (have_p)
		probe_free(&p);
	tick_res_free(&r);
 out:
	free(script);
	free(probe);
	return rc;
}

static void
wait_result(struct waitc *w, struct mcp_out *out)
{
	cJSON *o = cJSON_CreateObject();
	const char *marker = w->spec.nmarkers > 0 ? w->spec.markers[0] : NULL;
	const char *vn = verdict_name(w->v), *pn = w->seen ? verdict_name(w->v0) : "SSH_DOWN";
	long waited = wait_elapsed_ms(w) / 1000;
	char what[300];

	cJSON_AddStringToObject(o, "run", w->cfg->run);
	cJSON_AddStringToObject(o, "happened", w->happened);
	if (marker != NULL)
		cJSON_AddStringToObject(o, "marker", marker);
	else
		cJSON_AddNullToObject(o, "marker");
	if (w->chosen != NULL)
		cJSON_AddStringToObject(o, "marker_chosen", w->chosen);
	cJSON_AddStringToObject(o, "verdict", vn);
	cJSON_AddStringToObject(o, "previous_verdict", pn);
	cJSON_AddNumberToObject(o, "waited_s", (double)waited);
	cJSON_AddNumberToObject(o, "timeout_s", (double)w->timeout_s);
	if (w->at_attempt > 0)
		cJSON_AddNumberToObject(o, "attempt", (double)w->at_attempt);
	cJSON_AddStringToObject(o, "details", w->details);
	if (w->failed != NULL) {
		cJSON_AddItemToObject(o, "failed", w->failed);
		w->failed = NULL;	/* transferred */
	}
	if (strcmp(w->happened, "marker") == 0)
		snprintf(what, sizeof(what), "%s is there", marker);
	else if (strcmp(w->happened, "failed") == 0)
		snprintf(what, sizeof(what), "%s FAILED (%s)", marker,
		    json_str(cJSON_GetObjectItem(o, "failed"), "class", "unknown"));
	else if (strcmp(w->happened, "stopped") == 0)
		snprintf(what, sizeof(what), "the run was stopped on purpose: %s will not come until "
		    "it is started again", marker != NULL ? marker : "no marker");
	else if (strcmp(w->happened, "verdict") == 0)
		snprintf(what, sizeof(what), "the verdict changed from %s to %s", pn, vn);
	else
		snprintf(what, sizeof(what), "timeout: %s not yet", marker != NULL ? marker : "no marker");
	out->text = xstrfmt("run '%s': %s after %ld s (verdict %s: %s)", w->cfg->run, what, waited, vn,
	    w->details);
	out->structured = o;
}

static int
mcp_call_wait(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	struct waitc w;
	const char *marker = NULL;
	char msg[200];
	long left_ms, slice_s;
	int rc = -1, opened = 0, pause_s = 0, r;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.v = V_SSH_DOWN;
	w.start_ms = monotime_ms();
	if (mcp_run_config(ctx, args, &w.cfg, out) != 0 ||
	    mcp_arg_int(args, "timeout_s", 1, WAIT_TIMEOUT_MAX, WAIT_TIMEOUT_DEF, &w.timeout_s, out) != 0 ||
	    mcp_arg_str(args, "marker", &marker, out) != 0)
		goto out;
	if (marker != NULL) {
		if (!config_name_ok(marker)) {
			mcp_error(out, "argument 'marker': '%s' is not a marker name ([A-Za-z0-9._-]+)",
			    marker);
			goto out;
		}
		w.chosen = "given";
	}
	if (mcp_box_open(&w.box, w.cfg, out) != 0)
		goto out;
	opened = 1;
	/* The baseline: a probe, the verdict, the marker (without a marker argument). */
	if (marker != NULL && wait_spec(&w, marker, NULL, out) != 0)
		goto out;
	r = wait_round(&w, marker, 0, &pause_s, out);	/* slice_s 0: the probe alone */
	while (r == 0) {
		left_ms = w.timeout_s * 1000 - wait_elapsed_ms(&w);
		if (pause_s > 0 && left_ms > 0 &&
		    mcp_box_sleep(&w.box, (int)(left_ms < pause_s * 1000L ? left_ms : pause_s * 1000L),
		    out) != 0) {
			r = -1;
			break;
		}
		left_ms = w.timeout_s * 1000 - wait_elapsed_ms(&w);
		if (left_ms <= 0) {
			w.happened = "timeout";
			break;
		}
		slice_s = (left_ms + 999) / 1000;
		if (slice_s > WAIT_SLICE_S)
			slice_s = WAIT_SLICE_S;
		snprintf(msg, sizeof(msg), "%s: %s not yet", verdict_name(w.v),
		    w.spec.nmarkers > 0 ? w.spec.markers[0] : "the marker");
		if ((double)wait_elapsed_ms(&w) / 1000.0 > w.progress) {
			w.progress = (double)wait_elapsed_ms(&w) / 1000.0;
			mcp_progress(ctx, w.progress, (double)w.timeout_s, msg);
		}
		r = wait_round(&w, marker, slice_s, &pause_s, out);
	}
	if (r < 0)
		goto out;
	wait_result(&w, out);
	rc = 0;
 out:
	if (opened)
		mcp_box_close(&w.box);
	cJSON_Delete(w.failed);
	mwait_spec_free(&w.spec);
	free(w.attempt);
	free(w.plain);
	if (w.cfg != NULL)
		config_free(w.cfg);
	return rc;
}

const struct mcp_tool mcp_tool_wait_row = {
	"wait", "Wait for a marker or a verdict change",
	"Block until the marker lands on the box (happened \"marker\"), its FAILED twin does "
	"(\"failed\", with the class and last line), the run's verdict changes (\"verdict\": a crash, "
	"NEEDS_RESUME, STALLED ...), the run is stopped on purpose (\"stopped\"), or timeout_s passes "
	"(\"timeout\"; default 300, at most 600). Use it instead of sleep loops: on the box it uses "
	"inotify (onbox wait), so it returns within a second of the marker, and it re-probes every "
	"30 s. Without marker it waits for the chain's first missing marker. Read-only (no patrol "
	"tick); an unreachable box is retried until the timeout and reported as verdict SSH_DOWN. "
	"Call it again after a timeout to keep waiting.",
	"{\"type\":\"object\",\"properties\":{"
	"\"run\":{\"type\":\"string\",\"description\":\"the run's name (see the runs tool)\"},"
	"\"marker\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z0-9._-]+$\",\"description\":\"the "
	"marker to wait for; default: the chain's first missing marker\"},"
	"\"timeout_s\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":600,\"default\":300,"
	"\"description\":\"seconds to wait at most\"}},"
	"\"required\":[\"run\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{"
	"\"run\":{\"type\":\"string\"},"
	"\"happened\":{\"type\":\"string\",\"enum\":[\"marker\",\"failed\",\"verdict\",\"stopped\","
	"\"timeout\"]},"
	"\"marker\":{\"type\":[\"string\",\"null\"]},\"marker_chosen\":{\"type\":\"string\"},"
	"\"verdict\":{\"type\":\"string\"},\"previous_verdict\":{\"type\":\"string\"},"
	"\"waited_s\":{\"type\":\"number\"},\"timeout_s\":{\"type\":\"integer\"},"
	"\"attempt\":{\"type\":\"integer\"},\"details\":{\"type\":\"string\"},"
	"\"failed\":{\"type\":\"object\",\"properties\":{\"class\":{\"type\":\"string\"},"
	"\"last_line\":{\"type\":\"string\"},\"stage\":{\"type\":\"string\"},"
	"\"remediation\":{\"type\":\"string\"}}}},"
	"\"required\":[\"run\",\"happened\",\"marker\",\"verdict\",\"previous_verdict\",\"waited_s\"]}",
	MCP_READ_ONLY | MCP_OPEN_WORLD, mcp_call_wait
};
