/*
 * mcp-read.c: the MCP tools `logs` and `events`: read the box's attempt logs
 * and events.jsonl in bounded windows with a cursor, one connection a call
 * (mcp-box.c), one bounded POSIX sh command on the box (tail -c / head -c /
 * wc, every name quoted with sshq).
 *
 * Both return whole lines only: a last line without its '\n' yet is held
 * back (the cursor stops before it) until it ends, unless one line alone
 * fills the byte window (then it comes cut, and the cursor moves past it).
 *
 *   logs   a cursor is "STAGE.ATTEMPT:OFFSET" (the log it belongs to and a
 *          byte offset in it); a bare integer is an offset in the log the
 *          other arguments name.  grep (PCRE2, core/pattern.h) filters the
 *          lines of the window here, on the owner's side.
 *   events a cursor is a byte offset in events.jsonl; a cursor past the end
 *          of a shorter file (rotated, truncated) restarts at 0: reset true.
 *          Each line is parsed with cJSON; a garbled one comes as {"raw": ...}.
 *
 * An unreachable box is a normal result: verdict "SSH_DOWN", no lines.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "layout.h"
#include "logscan.h"
#include "mcp-box.h"
#include "mcp.h"
#include "pattern.h"
#include "portable.h"
#include "sshq.h"
#include "xmalloc.h"

#define READ_BYTES_MAX	(1u << 20)	/* bytes of log or events one call reads */
#define LOGS_LINES_MAX	2000
#define LOGS_LINES_DEF	200
#define EVENTS_MAX	1000
#define READ_BUDGET_S	30		/* the command, on top of the connect timeout */
#define CURSOR_MAX	1000000000000000L	/* 1e15: exact in a JSON number */

/* One line of a window: data[off .. off+len), without its '\n'. */
struct rline {
	size_t	off, len;
};

/*
 * The whole lines of data[from..len): *n of them (at most max, the rest
 * left: *left 1), and the bytes they take, '\n's included.  A last line
 * without its '\n' is not one, unless it is all of a full window (full).
 */
static size_t
read_lines(const char *data, size_t from, size_t len, size_t max, int full, struct rline **out,
    size_t *n, int *left)
{
	const char *nl;
	size_t pos = from, cap = 0;

	*out = NULL;
	*n = 0;
	*left = 0;
	while (pos < len) {
		nl = memchr(data + pos, '\n', len - pos);
		if (nl == NULL && !(full && pos == from))
			break;
		if (*n == max) {
			*left = 1;
			break;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = xreallocarray(*out, cap, sizeof(**out));
		}
		(*out)[*n].off = pos;
		(*out)[(*n)++].len = (nl != NULL ? (size_t)(nl - data) : len) - pos;
		pos = nl != NULL ? (size_t)(nl - data) + 1 : len;
	}
	return pos - from;
}

/* The first line of a box's answer, "@TAG a b c d": the numbers read; the data after it. */
static int
read_header(const struct tick_res *r, const char *tag, char *name, long long *v, size_t nv,
    const char **data, size_t *len)
{
	const char *nl = memchr(r->out, '\n', r->outlen);
	char line[512], fmt[64];
	size_t taglen = strlen(tag), hl;
	int got;

	if (nl == NULL || (hl = (size_t)(nl - r->out)) >= sizeof(line))
		return -1;
	memcpy(line, r->out, hl);
	line[hl] = '\0';
	*data = nl + 1;
	*len = r->outlen - hl - 1;
	if (strncmp(line, tag, taglen) != 0 || (line[taglen] != ' ' && line[taglen] != '\0'))
		return -1;
	if (name != NULL) {
		snprintf(fmt, sizeof(fmt), "%%%ds %%lld %%lld %%lld", CONFIG_NAME_MAX * 2);
		got = sscanf(line + taglen, fmt, name, &v[0], &v[1], &v[2]);
		return got == (int)nv + 1 ? 0 : -1;
	}
	got = sscanf(line + taglen, "%lld %lld %lld", &v[0], &v[1], &v[2]);
	return got == (int)nv ? 0 : -1;
}

/* An SSH_DOWN result: the box was not seen; no lines, the cursor unmoved. */
static int
read_down(struct mcp_box *b, const char *what, struct mcp_out *out)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "run", b->cfg->run);
	cJSON_AddStringToObject(o, "verdict", "SSH_DOWN");
	cJSON_AddStringToObject(o, "message", b->down);
	cJSON_AddItemToObject(o, what, cJSON_CreateArray());
	cJSON_AddBoolToObject(o, "more", 0);
	out->structured = o;
	out->text = xstrfmt("run '%s': SSH_DOWN: the box was not seen (%s); no %s", b->cfg->run,
	    b->down, what);
	return 0;
}

/* What a call makes of the box's answer: its result, 0 or -1 with out set. */
typedef int (*read_result_fn)(const struct wk_config *, const void *req, const struct tick_res *,
    struct mcp_out *);

/* One connection, script on the box, the answer through fn (what: the empty list when down). */
static int
read_box(const struct wk_config *cfg, const char *script, const char *what, read_result_fn fn,
    const void *req, struct mcp_out *out)
{
	struct mcp_box box;
	struct tick_res r;
	int rc = -1;

	if (mcp_box_open(&box, cfg, out) == 0) {
		switch (mcp_box_run(&box, script, READ_BUDGET_S, &r, out)) {
		case MCP_BOX_SEEN:
			rc = fn(cfg, req, &r, out);
			tick_res_free(&r);
			break;
		case MCP_BOX_DOWN:
			rc = read_down(&box, what, out);
			break;
		case MCP_BOX_FAILED:
			break;
		}
	}
	mcp_box_close(&box);
	return rc;
}

/* ---- logs ---- */

struct logs_req {
	const char	*stage;		/* NULL: the newest attempt log's */
	long		 attempt;	/* 0: the stage's current one */
	long long	 cursor;	/* -1: the last lines */
	long		 lines;
	struct pattern	*grep;
	char		*cstage;	/* the cursor's stage (owned), or NULL */
};

/* "STAGE.ATTEMPT:OFFSET" or an integer into q; 0 or -1 with out set. */
static int
logs_cursor(const cJSON *c, struct logs_req *q, struct mcp_out *out)
{
	const char *s, *colon, *dot;
	char *end;

	if (c == NULL)
		return 0;
	if (cJSON_IsNumber(c)) {
		if (c->valuedouble < 0 || c->valuedouble > (double)CURSOR_MAX ||
		    c->valuedouble != (double)(long long)c->valuedouble)
			return mcp_error(out, "argument 'cursor': must be a byte offset >= 0 or a "
			    "cursor string from an earlier call");
		q->cursor = (long long)c->valuedouble;
		return 0;
	}
	s = cJSON_IsString(c) ? c->valuestring : NULL;
	if (s == NULL || (colon = strrchr(s, ':')) == NULL ||
	    (dot = wk_memlast(s, '.', (size_t)(colon - s))) == NULL || dot == s)
		goto bad;
	q->cstage = xstrndup(s, (size_t)(dot - s));
	q->attempt = strtol(dot + 1, &end, 10);
	if (end != colon || q->attempt < 1 || !config_name_ok(q->cstage))
		goto bad;
	q->cursor = strtoll(colon + 1, &end, 10);
	if (*end != '\0' || colon[1] == '\0' || q->cursor < 0 || q->cursor > CURSOR_MAX)
		goto bad;
	if (q->stage != NULL && strcmp(q->stage, q->cstage) != 0)
		return mcp_error(out, "argument 'cursor': it belongs to stage '%s', not '%s'",
		    q->cstage, q->stage);
	q->stage = q->cstage;
	return 0;
 bad:
	return mcp_error(out, "argument 'cursor': not a cursor from an earlier logs call "
	    "(\"STAGE.ATTEMPT:OFFSET\") or a byte offset");
}

/* The arguments besides run.  0 or -1 with out set. */
static int
logs_args(const struct wk_config *cfg, const cJSON *args, struct logs_req *q, struct mcp_out *out)
{
	const char *re = NULL;
	const cJSON *ca = cJSON_GetObjectItem(args, "attempt");
	char errbuf[256];
	long att;
	size_t i;

	memset(q, 0, sizeof(*q));
	q->cursor = -1;
	if (mcp_arg_str(args, "stage", &q->stage, out) != 0 ||
	    mcp_arg_int(args, "attempt", 1, INT_MAX, 0, &att, out) != 0 ||
	    mcp_arg_int(args, "lines", 1, LOGS_LINES_MAX, LOGS_LINES_DEF, &q->lines, out) != 0 ||
	    mcp_arg_str(args, "grep", &re, out) != 0)
		return -1;
	if (q->stage != NULL) {
		for (i = 0; i < cfg->nchain && strcmp(cfg->chain[i].name, q->stage) != 0; i++)
			;
		if (i == cfg->nchain)
			return mcp_error(out, "argument 'stage': run '%s' has no stage '%s'", cfg->run,
			    q->stage);
	}
	if (logs_cursor(cJSON_GetObjectItem(args, "cursor"), q, out) != 0)
		return -1;
	if (ca != NULL && q->cstage != NULL && att != q->attempt)
		return mcp_error(out, "argument 'cursor': it belongs to attempt %ld, not %ld", q->attempt,
		    att);
	if (ca != NULL)
		q->attempt = att;
	if (re != NULL && pattern_compile(re, &q->grep, errbuf, sizeof(errbuf)) != 0)
		return mcp_error(out, "argument 'grep': %s", errbuf);
	return 0;
}

/* The box's side: find the log, say "@log NAME SIZE START RESET", send the window. */
static char *
logs_script(const struct wk_config *cfg, const struct logs_req *q)
{
	struct buf b = BUF_INIT;
	char *root = layout_root(cfg->workdir);

	buf_puts(&b, "D=");
	sshq_append(&b, root);
	buf_puts(&b, "\nS=");
	sshq_append(&b, q->stage != NULL ? q->stage : "");
	buf_printf(&b, "\nA=%ld\nC=%lld\nN=%u\nr=0\n", q->attempt, q->cursor, READ_BYTES_MAX);
	buf_puts(&b,
	    "if [ -z \"$S\" ]; then\n"
	    "  lg=$(ls -t \"$D\"/logs/*.log 2>/dev/null | head -n 1)\n"
	    "  if [ -n \"$lg\" ] && [ \"$A\" -gt 0 ]; then b=${lg##*/}; b=${b%.log}; "
	    "lg=\"$D/logs/${b%.*}.$A.log\"; fi\n"
	    "elif [ \"$A\" -gt 0 ]; then lg=\"$D/logs/$S.$A.log\"\n"
	    "else\n"
	    "  for f in \"$D/logs/$S\".*.log; do n=${f#\"$D/logs/$S.\"}; n=${n%.log}\n"
	    "    case $n in ''|*[!0-9]*) continue ;; esac\n"
	    "    [ \"$n\" -gt \"$A\" ] && A=$n\n"
	    "  done\n"
	    "  lg=; [ \"$A\" -gt 0 ] && lg=\"$D/logs/$S.$A.log\"\n"
	    "fi\n"
	    "if [ -z \"$lg\" ] || [ ! -f \"$lg\" ]; then echo @none; exit 0; fi\n"
	    "sz=$(wc -c <\"$lg\" | tr -d ' ')\n"
	    "if [ \"$C\" -lt 0 ]; then s=$((sz - N)); [ \"$s\" -lt 0 ] && s=0\n"
	    "elif [ \"$C\" -gt \"$sz\" ]; then s=0; r=1\n"
	    "else s=$C; fi\n"
	    "echo \"@log ${lg##*/} $sz $s $r\"\n"
	    "n=$((sz - s)); [ \"$n\" -gt \"$N\" ] && n=$N\n"
	    "if [ \"$n\" -gt 0 ]; then tail -c +$((s + 1)) \"$lg\" | head -c \"$n\"; fi\n"
	    "exit 0\n");
	free(root);
	return buf_detach(&b);
}

/* "train.2.log" into its stage and attempt; 0 or -1. */
static int
logs_name(const char *name, char *stage, size_t len, long *attempt)
{
	const char *ext = strrchr(name, '.'), *dot;
	char *end;

	if (ext == NULL || strcmp(ext, ".log") != 0 ||
	    (dot = wk_memlast(name, '.', (size_t)(ext - name))) == NULL || (size_t)(dot - name) >= len)
		return -1;
	*attempt = strtol(dot + 1, &end, 10);
	if (end != ext || *attempt < 1)
		return -1;
	memcpy(stage, name, (size_t)(dot - name));
	stage[dot - name] = '\0';
	return 0;
}

/* The result from the box's answer; 0 or -1 with out set. */
static int
logs_result(const struct wk_config *cfg, const void *req, const struct tick_res *r,
    struct mcp_out *out)
{
	const struct logs_req *q = req;
	char name[CONFIG_NAME_MAX * 2 + 1], stage[CONFIG_NAME_MAX * 2 + 1], *clean, *rel;
	long long v[3], start, size;
	const char *data;
	struct rline *ln = NULL;
	struct buf text = BUF_INIT;
	size_t len, from = 0, used, n, i, first, kept = 0;
	long attempt;
	int left, full, m;
	cJSON *o, *arr;

	if (strncmp(r->out, "@none\n", 6) == 0) {
		if (q->attempt > 0)
			return mcp_error(out, "argument 'attempt': %s%s%s has no attempt %ld on the box",
			    q->stage != NULL ? "stage '" : "the current stage", q->stage != NULL ? q->stage : "",
			    q->stage != NULL ? "'" : "", q->attempt);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "run", cfg->run);
		if (q->stage != NULL)
			cJSON_AddStringToObject(o, "stage", q->stage);
		cJSON_AddNullToObject(o, "path");
		cJSON_AddItemToObject(o, "lines", cJSON_CreateArray());
		cJSON_AddBoolToObject(o, "more", 0);
		out->structured = o;
		out->text = xstrfmt("run '%s': no attempt log%s%s yet", cfg->run,
		    q->stage != NULL ? " of stage " : "", q->stage != NULL ? q->stage : "");
		return 0;
	}
	if (read_header(r, "@log", name, v, 3, &data, &len) != 0 ||
	    logs_name(name, stage, sizeof(stage), &attempt) != 0)
		return mcp_error(out, "run '%s': the box's answer was garbled", cfg->run);
	size = v[0];
	start = v[1];
	full = len == READ_BYTES_MAX;
	if (q->cursor < 0 && start > 0) {
		/* The window starts inside a line: that line begins before it. */
		const char *nl = memchr(data, '\n', len);

		if (nl != NULL)
			from = (size_t)(nl - data) + 1;
	}
	/* Without a cursor, the last lines: every whole line of the window, then the last q->lines. */
	used = read_lines(data, from, len, q->cursor < 0 ? (size_t)-1 : (size_t)q->lines, full, &ln,
	    &n, &left);
	first = q->cursor < 0 && n > (size_t)q->lines ? n - (size_t)q->lines : 0;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "run", cfg->run);
	cJSON_AddStringToObject(o, "stage", stage);
	cJSON_AddNumberToObject(o, "attempt", (double)attempt);
	rel = layout_attempt_log_rel(stage, attempt);
	cJSON_AddStringToObject(o, "path", rel);
	free(rel);
	arr = cJSON_AddArrayToObject(o, "lines");
	for (i = first; i < n; i++) {
		clean = linering_sanitize(data + ln[i].off, ln[i].len, READ_BYTES_MAX);
		m = q->grep == NULL ? 1 : pattern_match(q->grep, clean, strlen(clean));
		if (m == 1) {
			cJSON_AddItemToArray(arr, cJSON_CreateString(clean));
			buf_printf(&text, "\n%s", clean);
			kept++;
		}
		free(clean);
	}
	{
		long long c0 = start + (long long)(first < n ? ln[first].off : from + used);
		long long c1 = start + (long long)(from + used);
		char *cs = xstrfmt("%s.%ld:%lld", stage, attempt, c0);
		char *ns = xstrfmt("%s.%ld:%lld", stage, attempt, c1);
		int more = left || start + (long long)len < size;

		cJSON_AddStringToObject(o, "cursor", cs);
		cJSON_AddStringToObject(o, "next_cursor", ns);
		cJSON_AddBoolToObject(o, "more", more);
		cJSON_AddBoolToObject(o, "truncated", first > 0 || (q->cursor < 0 && from + start > 0));
		cJSON_AddBoolToObject(o, "reset", v[2] != 0);
		cJSON_AddNumberToObject(o, "size", (double)size);
		if (q->grep != NULL)
			cJSON_AddNumberToObject(o, "matched", (double)kept);
		out->text = xstrfmt("run '%s': %s attempt %ld, %zu line%s%s (bytes %lld..%lld of %lld)%s; "
		    "next_cursor %s%s", cfg->run, stage, attempt, kept, kept == 1 ? "" : "s",
		    q->grep != NULL ? " matching grep" : "", c0, c1, size, v[2] ? ", cursor reset" : "", ns,
		    more ? ", more" : "");
		if (text.len > 0) {
			char *t = xstrfmt("%s%s", out->text, buf_str(&text));

			free(out->text);
			out->text = t;
		}
		free(cs);
		free(ns);
	}
	out->structured = o;
	free(ln);
	buf_free(&text);
	return 0;
}

static int
mcp_call_logs(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	struct wk_config *cfg = NULL;
	struct logs_req q;
	char *script;
	int rc = -1;

	memset(&q, 0, sizeof(q));
	if (mcp_run_config(ctx, args, &cfg, out) == 0 && logs_args(cfg, args, &q, out) == 0) {
		script = logs_script(cfg, &q);
		rc = read_box(cfg, script, "lines", logs_result, &q, out);
		free(script);
	}
	free(q.cstage);
	pattern_free(q.grep);
	if (cfg != NULL)
		config_free(cfg);
	return rc;
}

const struct mcp_tool mcp_tool_logs_row = {
	"logs", "Read a run's attempt log",
	"The current (or a named stage/attempt) attempt's stdout+stderr log from the box, in a "
	"bounded window (at most 2,000 lines and 1 MiB a call). Without cursor: the last `lines` "
	"(default 200). With cursor (next_cursor of an earlier call, \"STAGE.ATTEMPT:OFFSET\", or a "
	"byte offset): the whole lines after it, and a next_cursor to continue from; more says "
	"there is more to read now. `grep` is a PCRE2 pattern applied to the window's lines (use it "
	"to find tracebacks, errors, NaN). Use this to diagnose a CRASHED or STALLED run, or to "
	"follow a run's output without re-reading it. An unreachable box is verdict SSH_DOWN with "
	"no lines.",
	"{\"type\":\"object\",\"properties\":{"
	"\"run\":{\"type\":\"string\",\"description\":\"the run's name (see the runs tool)\"},"
	"\"stage\":{\"type\":\"string\",\"description\":\"a stage of the run's chain; default: the "
	"stage of the newest attempt log\"},"
	"\"attempt\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"default: the current "
	"(highest) attempt\"},"
	"\"lines\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2000,\"default\":200},"
	"\"cursor\":{\"type\":[\"string\",\"integer\"],\"description\":\"next_cursor of an earlier "
	"call, or a byte offset\"},"
	"\"grep\":{\"type\":\"string\",\"description\":\"PCRE2 pattern; only matching lines of the "
	"window are returned\"}},"
	"\"required\":[\"run\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{"
	"\"run\":{\"type\":\"string\"},\"stage\":{\"type\":\"string\"},"
	"\"attempt\":{\"type\":\"integer\"},\"path\":{\"type\":[\"string\",\"null\"]},"
	"\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
	"\"cursor\":{\"type\":\"string\"},\"next_cursor\":{\"type\":\"string\"},"
	"\"more\":{\"type\":\"boolean\"},\"truncated\":{\"type\":\"boolean\"},"
	"\"reset\":{\"type\":\"boolean\"},\"size\":{\"type\":\"integer\"},"
	"\"matched\":{\"type\":\"integer\"},\"verdict\":{\"type\":\"string\"},"
	"\"message\":{\"type\":\"string\"}},"
	"\"required\":[\"run\",\"lines\",\"more\"]}",
	MCP_READ_ONLY | MCP_OPEN_WORLD, mcp_call_logs
};

/* ---- events ---- */

static char *
events_script(const struct wk_config *cfg, long long cursor)
{
	struct buf b = BUF_INIT;
	char *path = layout_path(cfg->workdir, "events.jsonl");

	buf_puts(&b, "E=");
	sshq_append(&b, path);
	buf_printf(&b, "\nC=%lld\nN=%u\nr=0\n", cursor, READ_BYTES_MAX);
	buf_puts(&b,
	    "if [ ! -f \"$E\" ]; then echo '@events 0 0 0'; exit 0; fi\n"
	    "sz=$(wc -c <\"$E\" | tr -d ' ')\n"
	    "if [ \"$C\" -gt \"$sz\" ]; then C=0; r=1; fi\n"
	    "echo \"@events $sz $C $r\"\n"
	    "n=$((sz - C)); [ \"$n\" -gt \"$N\" ] && n=$N\n"
	    "if [ \"$n\" -gt 0 ]; then tail -c +$((C + 1)) \"$E\" | head -c \"$n\"; fi\n"
	    "exit 0\n");
	free(path);
	return buf_detach(&b);
}

static int
events_result(const struct wk_config *cfg, const void *req, const struct tick_res *r,
    struct mcp_out *out)
{
	long long v[3];
	const char *data;
	struct rline *ln = NULL;
	struct buf text = BUF_INIT;
	size_t len, used, n, i;
	int left, more;
	cJSON *o, *arr, *ev;
	char *line, *s;

	(void)req;
	if (read_header(r, "@events", NULL, v, 3, &data, &len) != 0)
		return mcp_error(out, "run '%s': the box's answer was garbled", cfg->run);
	used = read_lines(data, 0, len, EVENTS_MAX, len == READ_BYTES_MAX, &ln, &n, &left);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "run", cfg->run);
	arr = cJSON_AddArrayToObject(o, "events");
	for (i = 0; i < n; i++) {
		line = xstrndup(data + ln[i].off, ln[i].len);
		if ((ev = cJSON_Parse(line)) == NULL || !cJSON_IsObject(ev)) {
			cJSON_Delete(ev);
			s = linering_sanitize(data + ln[i].off, ln[i].len, READ_BYTES_MAX);
			ev = cJSON_CreateObject();
			cJSON_AddStringToObject(ev, "raw", s);
			free(s);
		}
		s = cJSON_PrintUnformatted(ev);
		buf_printf(&text, "\n%s", s);
		free(s);
		cJSON_AddItemToArray(arr, ev);
		free(line);
	}
	more = left || v[1] + (long long)len < v[0];
	cJSON_AddNumberToObject(o, "cursor", (double)v[1]);
	cJSON_AddNumberToObject(o, "next_cursor", (double)(v[1] + (long long)used));
	cJSON_AddBoolToObject(o, "more", more);
	cJSON_AddBoolToObject(o, "reset", v[2] != 0);
	cJSON_AddNumberToObject(o, "size", (double)v[0]);
	out->structured = o;
	out->text = xstrfmt("run '%s': %zu event%s (bytes %lld..%lld of %lld)%s; next_cursor %lld%s%s",
	    cfg->run, n, n == 1 ? "" : "s", v[1], v[1] + (long long)used, v[0],
	    v[2] ? ", cursor reset: the file is shorter than the cursor" : "", v[1] + (long long)used,
	    more ? ", more" : "", buf_str(&text));
	free(ln);
	buf_free(&text);
	return 0;
}

static int
mcp_call_events(struct mcp_ctx *ctx, const cJSON *args, struct mcp_out *out)
{
	struct wk_config *cfg = NULL;
	char *script;
	long cursor;
	int rc = -1;

	if (mcp_run_config(ctx, args, &cfg, out) == 0 &&
	    mcp_arg_int(args, "cursor", 0, CURSOR_MAX, 0, &cursor, out) == 0) {
		script = events_script(cfg, cursor);
		rc = read_box(cfg, script, "events", events_result, NULL, out);
		free(script);
	}
	if (cfg != NULL)
		config_free(cfg);
	return rc;
}

const struct mcp_tool mcp_tool_events_row = {
	"events", "Read a run's events since a cursor",
	"The box's event log (.watchkeeper/events.jsonl: stage started/done/failed, restarts, "
	"health alerts, stops) from a byte cursor on, at most 1,000 events or 1 MiB a call, each "
	"parsed (a garbled line comes as {\"raw\": ...}). Call without cursor to read from the "
	"start, then pass next_cursor; keep the cursor in your notes so that after a context reset "
	"you catch up with only what happened since. A cursor past the end of a shorter file "
	"(rotated) restarts at 0 with reset true. An unreachable box is verdict SSH_DOWN with no "
	"events.",
	"{\"type\":\"object\",\"properties\":{"
	"\"run\":{\"type\":\"string\",\"description\":\"the run's name (see the runs tool)\"},"
	"\"cursor\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"next_cursor of an earlier "
	"call; 0 or absent: from the start\"}},"
	"\"required\":[\"run\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{"
	"\"run\":{\"type\":\"string\"},\"events\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
	"\"cursor\":{\"type\":\"integer\"},\"next_cursor\":{\"type\":\"integer\"},"
	"\"more\":{\"type\":\"boolean\"},\"reset\":{\"type\":\"boolean\"},"
	"\"size\":{\"type\":\"integer\"},\"verdict\":{\"type\":\"string\"},"
	"\"message\":{\"type\":\"string\"}},"
	"\"required\":[\"run\",\"events\",\"more\"]}",
	MCP_READ_ONLY | MCP_OPEN_WORLD, mcp_call_events
};
