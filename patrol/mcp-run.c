/*
 * mcp-run.c: what every MCP tool shares: which runs this server serves (the
 * -c configs, or every local state dir whose patrol.json names the config
 * patrol ticked with), the run a call names loaded as its config, the typed
 * arguments (mcp_arg_*), the isError result (mcp_error) and progress
 * notifications written by the call's child (mcp_progress).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "diag.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "mcp.h"
#include "patrol.h"
#include "pstate.h"
#include "xmalloc.h"

int
mcp_error(struct mcp_out *out, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	cJSON_Delete(out->structured);
	out->structured = NULL;
	free(out->text);
	out->text = xstrdup(s);
	free(s);
	out->is_error = 1;
	return -1;
}

int
mcp_arg_int(const cJSON *args, const char *key, long min, long max, long def, long *v,
    struct mcp_out *out)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, key);

	*v = def;
	if (a == NULL || cJSON_IsNull(a))
		return 0;
	/* an integer in range; the bounds are checked as doubles first, before any conversion */
	if (!cJSON_IsNumber(a) || !(a->valuedouble >= (double)min && a->valuedouble <= (double)max) ||
	    a->valuedouble != (double)(long)a->valuedouble)
		return mcp_error(out, "argument '%s': must be an integer from %ld to %ld", key, min,
		    max);
	*v = (long)a->valuedouble;
	return 0;
}

int
mcp_arg_str(const cJSON *args, const char *key, const char **v, struct mcp_out *out)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, key);

	*v = NULL;
	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsString(a))
		return mcp_error(out, "argument '%s': must be a string", key);
	*v = a->valuestring;
	return 0;
}

int
mcp_arg_bool(const cJSON *args, const char *key, int def, int *v, struct mcp_out *out)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, key);

	*v = def;
	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsBool(a))
		return mcp_error(out, "argument '%s': must be true or false", key);
	*v = cJSON_IsTrue(a);
	return 0;
}

void
mcp_progress(struct mcp_ctx *ctx, double progress, double total, const char *message)
{
	cJSON *o, *p;
	char *s, *line;
	size_t len, off = 0;
	ssize_t n;

	if (ctx->progress_token == NULL)
		return;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddStringToObject(o, "method", "notifications/progress");
	p = cJSON_AddObjectToObject(o, "params");
	cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(ctx->progress_token, 1));
	cJSON_AddNumberToObject(p, "progress", progress);
	if (total > 0)
		cJSON_AddNumberToObject(p, "total", total);
	if (message != NULL)
		cJSON_AddStringToObject(p, "message", message);
	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		abort();
	/* 'P': a progress line (mcp.c copies it out as it comes) */
	line = xstrfmt("P%s\n", s);
	len = strlen(line);
	while (off < len) {
		if ((n = write(ctx->out_fd, line + off, len - off)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(line);
	cJSON_free(s);
	cJSON_Delete(o);
}

size_t
mcp_runs(const struct mcp_ctx *ctx, struct fleet_run **out)
{
	struct fleet_run *v;
	char *base;
	size_t i;

	if (ctx->configs == NULL || ctx->nconfigs == 0)
		return fleet_runs(out);
	base = statedir_base();
	v = xcalloc(ctx->nconfigs, sizeof(*v));
	for (i = 0; i < ctx->nconfigs; i++) {
		v[i].name = xstrdup(ctx->run_names[i]);
		v[i].config = xstrdup(ctx->configs[i]);
		v[i].statedir = base != NULL ? fs_join(base, ctx->run_names[i]) : xstrdup("");
	}
	free(base);
	fleet_runs_sort(v, ctx->nconfigs);
	*out = v;
	return ctx->nconfigs;
}

int
mcp_run_config(struct mcp_ctx *ctx, const cJSON *args, struct wk_config **cfg,
    struct mcp_out *out)
{
	struct diag d = DIAG_INIT;
	struct fleet_run *runs;
	struct buf known = BUF_INIT;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, "run");
	size_t n, i;
	int rc = -1;

	*cfg = NULL;
	if (!cJSON_IsString(a))
		return mcp_error(out, "argument 'run': %s", a == NULL ? "required (a run's name, "
		    "see the runs tool)" : "must be a string");
	n = mcp_runs(ctx, &runs);
	for (i = 0; i < n; i++)
		if (strcmp(runs[i].name, a->valuestring) == 0)
			break;
	if (i == n) {
		for (i = 0; i < n; i++)
			buf_printf(&known, "%s%s", i > 0 ? ", " : "", runs[i].name);
		mcp_error(out, "unknown run '%s' (known: %s)", a->valuestring,
		    n > 0 ? buf_str(&known) : "none");
		goto out;
	}
	if (config_load(runs[i].config, cfg, &d) != 0) {
		mcp_error(out, "run '%s': the config %s does not load: %s", runs[i].name,
		    runs[i].config, d.n > 0 ? d.msgs[0] : "unreadable");
		goto out;
	}
	rc = 0;
out:
	diag_free(&d);
	buf_free(&known);
	fleet_runs_free(runs, n);
	return rc;
}
