/*
 * mcp.h: `patrol mcp`, the Model Context Protocol over stdio, and its tools.
 *
 * mcp.c speaks the protocol (JSON-RPC 2.0, one message a line; initialize,
 * ping, tools/list, tools/call, notifications/cancelled, progress) and runs
 * every tools/call in a child of its own (spawn_fork), so a `wait` never
 * blocks a second call and a cancel is a signal to that child.  The tools
 * are a table, mcp_tools[] (mcp-tools.c), one row a tool; a row's call runs
 * in the child, fills a struct mcp_out and returns.  Nothing but protocol
 * goes to stdout: a tool never prints (diagnostics go to stderr).
 *
 * The tools' files: mcp-run.c (the run a call names, arguments, results),
 * mcp-info.c (runs, handbook), mcp-read.c (logs, events), mcp-act.c
 * (status, resume, stop), mcp-wait.c (wait).
 */
#ifndef WK_MCP_H
#define WK_MCP_H

#include <stddef.h>

#include <cJSON.h>

struct wk_config;

/* What one tools/call runs with. */
struct mcp_ctx {
	char *const	*configs;	/* the -c FILEs given, absolute; NULL: every run with state */
	size_t		 nconfigs;
	const cJSON	*progress_token; /* params._meta.progressToken, or NULL */
	int		 out_fd;	/* where the child writes (mcp_progress) */
	char *const	*run_names;	/* with configs: each one's run name (loaded at start) */
	const struct mcp_tool *tool;	/* the row being called (one call may serve rows) */
};

/*
 * What a tool returns: structured is the structuredContent object (owned,
 * may be NULL only with is_error), text the short rendering (owned,
 * never NULL on return), is_error 1 for an isError result whose text is the
 * one-line cause naming the run or the argument.
 */
struct mcp_out {
	cJSON	*structured;
	char	*text;
	int	 is_error;
};

/* Tool annotations (MCP ToolAnnotations hints). */
#define MCP_READ_ONLY	0x1
#define MCP_DESTRUCTIVE	0x2
#define MCP_IDEMPOTENT	0x4
#define MCP_OPEN_WORLD	0x8

struct mcp_tool {
	const char	*name;
	const char	*title;
	const char	*description;	/* when an agent should use it */
	const char	*input_schema;	/* JSON Schema text (an object) */
	const char	*output_schema;	/* JSON Schema text (an object) */
	unsigned	 hints;		/* MCP_* */
	/* 0, or -1 with out->is_error set (the call ran and failed) */
	int		(*call)(struct mcp_ctx *, const cJSON *args, struct mcp_out *);
};

extern const struct mcp_tool *const mcp_tools[];
extern const size_t mcp_ntools;

/* mcp.c: serve on stdin/stdout until EOF; the exit code (0). */
int mcp_serve(char *const *configs, size_t nconfigs);

/*
 * mcp-run.c: the run named by args' "run" (a string, required): its config
 * loaded into *cfg (caller frees with config_free).  0, or -1 with out set
 * to the isError result ("unknown run 'x'", "argument 'run': ...").
 */
int mcp_run_config(struct mcp_ctx *ctx, const cJSON *args, struct wk_config **cfg,
    struct mcp_out *out);
/*
 * Optional integer argument key in [min, max], def when absent.  0, or -1
 * with out set ("argument 'timeout_s': must be an integer from 1 to 600").
 */
int mcp_arg_int(const cJSON *args, const char *key, long min, long max, long def, long *v,
    struct mcp_out *out);
/* Optional string argument key, NULL when absent; -1 with out set when not a string. */
int mcp_arg_str(const cJSON *args, const char *key, const char **v, struct mcp_out *out);
/* Optional boolean argument key, def when absent; -1 with out set when not a boolean. */
int mcp_arg_bool(const cJSON *args, const char *key, int def, int *v, struct mcp_out *out);
/* Set out to an isError result with a printf-formatted one-line cause; returns -1. */
int mcp_error(struct mcp_out *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A notifications/progress for this call, when it has a progress token (else nothing). */
void mcp_progress(struct mcp_ctx *ctx, double progress, double total, const char *message);

/*
 * mcp-run.c: the runs served now, sorted by name (patrol.h's struct
 * fleet_run): the -c configs (state NULL), or the fleet, every state dir
 * whose patrol.json names a config (found again at each call, so a run
 * deployed after the server started is there).  *out: caller frees with
 * fleet_runs_free.  The count.
 */
struct fleet_run;
size_t mcp_runs(const struct mcp_ctx *ctx, struct fleet_run **out);

/* The rows, each defined with its call (see above); mcp-tools.c orders them. */
extern const struct mcp_tool mcp_tool_runs_row, mcp_tool_status_row, mcp_tool_wait_row,
    mcp_tool_logs_row, mcp_tool_events_row, mcp_tool_handbook_row, mcp_tool_resume_row,
    mcp_tool_stop_row;

/*
 * mcp-proto.c: the protocol without I/O, one line in, what to do out (the
 * fuzz target and the unit test drive it; mcp.c does the I/O).
 */
#define MCP_LINE_MAX		(4u << 20)	/* a longer line is discarded: -32700 */
#define MCP_VERSION_LATEST	"2025-06-18"
#define MCP_VERSION_OLD		"2025-03-26"	/* no outputSchema, no structuredContent */

#define MCP_EPARSE	(-32700)
#define MCP_EINVALID	(-32600)
#define MCP_EMETHOD	(-32601)
#define MCP_EPARAMS	(-32602)
#define MCP_EINTERNAL	(-32603)

struct mcp_session {
	const struct mcp_tool *const *tools;
	size_t		 ntools;
	int		 initialized;	/* an initialize was answered */
	int		 old;		/* 1: the negotiated version is MCP_VERSION_OLD */
};

enum mcp_act {
	MCP_ACT_NONE,		/* nothing to answer (a notification) */
	MCP_ACT_REPLY,		/* write *reply */
	MCP_ACT_CALL,		/* run call->tool (mcp.c: in a child) */
	MCP_ACT_CANCEL		/* notifications/cancelled: call->id is the request to cancel */
};

/* A tools/call to run, or the request a cancel names; every member owned (mcp_call_free). */
struct mcp_call {
	const struct mcp_tool *tool;
	cJSON		*id;
	cJSON		*args;		/* an object (empty when absent) */
	cJSON		*progress_token; /* or NULL */
};

/*
 * One message line (without its newline; any bytes): what to do, with
 * *reply (a JSON line without newline; caller frees) for MCP_ACT_REPLY and
 * *call filled for MCP_ACT_CALL and MCP_ACT_CANCEL.
 */
enum mcp_act mcp_handle(struct mcp_session *s, const char *line, size_t len, char **reply,
    struct mcp_call *call);
void mcp_call_free(struct mcp_call *call);
/* A JSON-RPC error response line for id (NULL: null); caller frees. */
char *mcp_error_line(const cJSON *id, int code, const char *msg);
/* The tools/call response line for out (consumed) under s's version; caller frees. */
char *mcp_result_line(const struct mcp_session *s, const cJSON *id, struct mcp_out *out);
/*
 * The arguments against t's inputSchema: a key it does not list (when
 * additionalProperties is false), a required key missing.  NULL, or the
 * one-line cause naming the argument (caller frees).  Types are the tool's
 * to check (mcp_arg_*).
 */
char *mcp_args_check(const struct mcp_tool *t, const cJSON *args);
/* 1 when p[0..len) is valid UTF-8 without NUL. */
int mcp_utf8_ok(const char *p, size_t len);
/* A tool row as tools/list shows it (NULL when its schema text does not parse). */
cJSON *mcp_tool_json(const struct mcp_tool *t, int old);

#endif
