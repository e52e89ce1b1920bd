/*
 * mcp-info.c: the MCP tools that read only this machine (no ssh): `runs`,
 * every run served with its last verdict from patrol.json, and `handbook`,
 * the run's HANDBOOK.md (rendered from patrol.json as a tick would when the
 * file is not there yet).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "crontab.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "handbook.h"
#include "jsonfile.h"
#include "mcp.h"
#include "patrol.h"
#include "os.h"
#include "pstate.h"
#include "scheduler.h"
#include "xmalloc.h"

#define MCP_HANDBOOK_MAX	(4u << 20)

/* Copy patrol.json's key into o when it is there (a string or a number). */
static void
mcp_copy_key(cJSON *o, const cJSON *ps, const char *from, const char *to)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ps, from);

	if (cJSON_IsString(v) || cJSON_IsNumber(v))
		cJSON_AddItemToObject(o, to, cJSON_Duplicate(v, 1));
	else
		cJSON_AddNullToObject(o, to);
}

/* One run's entry (and its line of text). */
static cJSON *
mcp_run_entry(const struct fleet_run *r, struct buf *text)
{
	/* the fleet's runs come with their state; the -c configs' is read here */
	cJSON *o = cJSON_CreateObject(), *own = r->state == NULL ? pstate_load(r->statedir) : NULL;
	const cJSON *ps = r->state != NULL ? r->state : own;
	struct wk_config *cfg = NULL;
	struct diag d = DIAG_INIT;
	char *box = NULL;

	cJSON_AddStringToObject(o, "name", r->name);
	if (config_load(r->config, &cfg, &d) == 0 && (box = fleet_box_text(cfg)) != NULL)
		cJSON_AddStringToObject(o, "box", box);
	else
		cJSON_AddNullToObject(o, "box");
	mcp_copy_key(o, ps, "verdict", "verdict");
	mcp_copy_key(o, ps, "last_tick", "last_tick");
	mcp_copy_key(o, ps, "details", "details");
	mcp_copy_key(o, ps, "progress", "progress");
	mcp_copy_key(o, ps, "progress_max", "progress_max");
	cJSON_AddStringToObject(o, "config", r->config);
	cJSON_AddStringToObject(o, "state_dir", r->statedir);
	if (cfg == NULL)
		cJSON_AddStringToObject(o, "config_error", d.n > 0 ? d.msgs[0] : "does not load");
	buf_printf(text, "%s %s %s box %s", r->name, json_str(ps, "verdict", "(never ticked)"),
	    json_str(ps, "last_tick", "-"), box != NULL ? box : "(none)");
	if (json_str(ps, "details", NULL) != NULL && json_str(ps, "details", "")[0] != '\0')
		buf_printf(text, ": %s", json_str(ps, "details", ""));
	if (cfg == NULL)
		buf_printf(text, " (config %s does not load)", r->config);
	buf_putc(text, '\n');
	free(box);
	config_free(cfg);
	diag_free(&d);
	cJSON_Delete(own);
	return o;
}

static int
mcp_call_runs(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	struct fleet_run *runs;
	struct buf text = BUF_INIT;
	cJSON *arr;
	size_t n, i;

	(void)args;
	n = mcp_runs(ctx, &runs);
	out->structured = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(out->structured, "runs");
	for (i = 0; i < n; i++) {
		mcp_progress(ctx, (double)i, (double)n, runs[i].name);
		cJSON_AddItemToArray(arr, mcp_run_entry(&runs[i], &text));
	}
	if (n == 0)
		buf_printf(&text, ctx->nconfigs > 0 ? "no runs\n" : "no runs: no state dir under "
		    "$XDG_STATE_HOME/watchkeeper (~/%s/watchkeeper) names its config; "
		    "run `patrol -c FILE` once, or start patrol mcp with -c FILE\n", os_state_home);
	out->text = buf_detach(&text);
	fleet_runs_free(runs, n);
	return 0;
}

#define MCP_RUN_PROP \
	"\"run\":{\"type\":\"string\",\"description\":\"the run's name (see the runs tool)\"}"

const struct mcp_tool mcp_tool_runs_row = {
	"runs", "List runs",
	"Every run this server watches: name, box, the last verdict patrol recorded and when "
	"(UTC), its details, progress, config path and local state dir. Reads this machine only "
	"(no ssh), so it is instant. Use it first, to learn the run names the other tools take; "
	"the verdict may be up to one cron period old: call status for a fresh one.",
	"{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	"{\"type\":\"object\",\"required\":[\"runs\"],\"properties\":{\"runs\":{\"type\":\"array\","
	"\"items\":{\"type\":\"object\",\"required\":[\"name\",\"config\",\"state_dir\"],"
	"\"properties\":{\"name\":{\"type\":\"string\"},\"box\":{\"type\":[\"string\",\"null\"]},"
	"\"verdict\":{\"type\":[\"string\",\"null\"]},\"last_tick\":{\"type\":[\"string\",\"null\"]},"
	"\"details\":{\"type\":[\"string\",\"null\"]},\"progress\":{\"type\":[\"number\",\"null\"]},"
	"\"progress_max\":{\"type\":[\"number\",\"null\"]},\"config\":{\"type\":\"string\"},"
	"\"state_dir\":{\"type\":\"string\"},\"config_error\":{\"type\":\"string\"}}}}}}",
	MCP_READ_ONLY | MCP_IDEMPOTENT, mcp_call_runs
};

/* The markdown a tick would write now, from patrol.json (the file was not there). */
static char *
mcp_handbook_render(const struct wk_config *cfg, const char *config, const char *statedir)
{
	char *self = fs_self_dir(), *md;
	cJSON *ps = pstate_load(statedir);

	md = handbook_render(&(struct handbook_ctx){ .cfg = cfg, .config_path = config,
	    .bindir = self, .statedir = statedir, .pstate = ps, .cron = sched_is_installed(cfg) });
	cJSON_Delete(ps);
	free(self);
	return md;
}

static int
mcp_call_handbook(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	struct wk_config *cfg = NULL;
	struct fleet_run *runs;
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "run"));
	char *path = NULL, *md = NULL;
	size_t n, i;
	int rc = -1, r;

	if (mcp_run_config(ctx, args, &cfg, out) != 0)
		return -1;
	n = mcp_runs(ctx, &runs);
	for (i = 0; i < n && strcmp(runs[i].name, name) != 0; i++)
		;
	if (i == n || runs[i].statedir[0] != '/') {
		mcp_error(out, "run '%s': no local state dir (neither $XDG_STATE_HOME nor $HOME)",
		    name);
		goto out;
	}
	path = fs_join(runs[i].statedir, HANDBOOK_FILE);
	r = fs_read_file(path, MCP_HANDBOOK_MAX, &md, NULL);
	if (r != 0 && !(r == WK_ERR_SYSTEM && errno == ENOENT)) {
		mcp_error(out, "run '%s': cannot read %s: %s", cfg->run, path, strerror(errno));
		goto out;
	}
	out->structured = cJSON_CreateObject();
	cJSON_AddStringToObject(out->structured, "run", name);
	cJSON_AddStringToObject(out->structured, "path", path);
	cJSON_AddBoolToObject(out->structured, "rendered", md == NULL);
	if (md == NULL)
		md = mcp_handbook_render(cfg, runs[i].config, runs[i].statedir);
	cJSON_AddStringToObject(out->structured, "markdown", md);
	out->text = md;		/* transferred */
	md = NULL;
	rc = 0;
out:
	free(md);
	free(path);
	fleet_runs_free(runs, n);
	config_free(cfg);
	return rc;
}

const struct mcp_tool mcp_tool_handbook_row = {
	"handbook", "Read the run's handbook",
	"The run's HANDBOOK.md (markdown): its contract, the chain of stages and their markers, "
	"current status, exact resume commands, what each verdict means and the one thing to do, "
	"the cron line, the triage table. Use it when you take a run over (after a context reset), "
	"or when a verdict is new to you. Reads this machine only (the copy the last patrol tick "
	"wrote; rendered from its state when there is none yet: rendered is true).",
	"{\"type\":\"object\",\"properties\":{" MCP_RUN_PROP "},\"required\":[\"run\"],"
	"\"additionalProperties\":false}",
	"{\"type\":\"object\",\"required\":[\"run\",\"path\",\"markdown\"],\"properties\":{"
	"\"run\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},\"rendered\":"
	"{\"type\":\"boolean\"},\"markdown\":{\"type\":\"string\"}}}",
	MCP_READ_ONLY | MCP_IDEMPOTENT, mcp_call_handbook
};
