/*
 * config.c: load, merge and validate one run's configuration (see config.h).
 *
 * Every key is a row in a static key table, one table per object kind, in the
 * manner of tmux's options-table.c.  Two generic walkers use the tables:
 * cfg_check() validates one document as written (unknown keys, types, bounds,
 * choices, name charsets, regexes) so that a profile's mistakes are reported
 * against the profile file; cfg_fill() copies the merged document into
 * struct wk_config, applies defaults and checks required keys.  A third,
 * cfg_release(), frees what cfg_fill() stored, so adding a key to a table is
 * the whole job.  Rules that span keys (one of run/wait, unique stage and
 * marker names, ...) are written out in cfg_derive().
 *
 * Positions: the run's file is looked up first, then the profile, so a key
 * that came from the profile is reported against the profile file.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "ckpt.h"
#include "complete.h"
#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "jsonc.h"
#include "log.h"
#include "xmalloc.h"

/* Set by the Makefile; empty means "not configured". */
#ifndef WK_PROFILES_DIR
#define WK_PROFILES_DIR ""
#endif
#ifndef WK_SRC_PROFILES_DIR
#define WK_SRC_PROFILES_DIR ""
#endif

enum cfg_type {
	CFG_STR,	/* string */
	CFG_INT,	/* integral number in [min, max] */
	CFG_NUM,	/* any number in [min, max] */
	CFG_BOOL,
	CFG_STRINT,	/* string or integer (chat ids) */
	CFG_STRARR,	/* array of strings */
	CFG_STRMAP,	/* object whose values are strings or arrays of strings */
	CFG_OBJ,	/* object described by sub */
	CFG_OBJARR,	/* array of objects described by sub; min/max bound the count */
	CFG_STROBJ,	/* string, or an object with any keys (sbatch options) */
};

static const char *const cfg_type_names[] = {
	[CFG_STR] = "string",
	[CFG_INT] = "integer",
	[CFG_NUM] = "number",
	[CFG_BOOL] = "boolean",
	[CFG_STRINT] = "string or integer",
	[CFG_STRARR] = "array of strings",
	[CFG_STRMAP] = "object of strings",
	[CFG_OBJ] = "object",
	[CFG_OBJARR] = "array of objects",
	[CFG_STROBJ] = "string or object",
};

#define CFG_REQUIRED	0x01	/* must be present (when its object is) */
#define CFG_REGEX	0x02	/* a PCRE2 pattern; must compile */
#define CFG_GROUP1	0x04	/* ... with at least one capture group */
#define CFG_NAME	0x08	/* [A-Za-z0-9._-]+, not "." or ".." */
#define CFG_SECRET	0x10	/* never printed, never logged */
#define CFG_DERIVED	0x20	/* def describes a computed default, set in cfg_derive() */

/* Offsets are stored plus one so that 0, what a designated initializer leaves, means none. */
#define FIELD(type, member)	(offsetof(type, member) + 1)
#define NO_FIELD		0

#define CFG_BIG		1000000000000000L	/* "no upper bound" that a double holds exactly */
#define CFG_DAY		86400L
#define CFG_TIMEOUT_MAX	(3660L * CFG_DAY)	/* ten years */

struct cfg_table;

struct cfg_key {
	const char	*name;
	enum cfg_type	 type;
	size_t		 field;		/* FIELD() in the C struct, or NO_FIELD */
	size_t		 aux;		/* CFG_OBJARR: the size_t count; CFG_REGEX: the struct pattern * */
	long		 min, max;	/* CFG_INT/CFG_NUM: value bounds; CFG_OBJARR: item count */
	const char	*def;		/* default as text, or NULL */
	const char	*choices;	/* "a|b|c": the only allowed string values */
	unsigned	 flags;
	const struct cfg_table *sub;	/* CFG_OBJ, CFG_OBJARR */
	const char	*help;
};

struct cfg_table {
	const char	*name;
	const struct cfg_key *keys;
	size_t		 nkeys;
	size_t		 size;		/* sizeof one C element, for CFG_OBJARR with a field */
};

#define CFG_TABLE(name, keys, size) { name, keys, sizeof(keys) / sizeof(keys[0]), size }

static const struct cfg_key cfg_wait_keys[] = {
	{ .name = "log", .type = CFG_STR, .field = FIELD(struct wk_wait, log),
	  .help = "file to watch, relative to workdir unless absolute" },
	{ .name = "pattern", .type = CFG_STR, .field = FIELD(struct wk_wait, pattern),
	  .aux = FIELD(struct wk_wait, re), .flags = CFG_REGEX,
	  .help = "PCRE2; the wait ends when a line of log matches" },
	{ .name = "timeout_s", .type = CFG_INT, .field = FIELD(struct wk_wait, timeout_s),
	  .min = 0, .max = CFG_TIMEOUT_MAX, .def = "0",
	  .help = "give up after this many seconds; must be > 0 with log" },
	{ .name = "pid", .type = CFG_INT, .field = FIELD(struct wk_wait, pid),
	  .min = 1, .max = INT_MAX, .help = "wait for this process on the box to exit" },
};
static const struct cfg_table cfg_wait_table = CFG_TABLE("wait", cfg_wait_keys, 0);

static const struct cfg_key cfg_stage_keys[] = {
	{ .name = "stage", .type = CFG_STR, .field = FIELD(struct wk_stage, name),
	  .flags = CFG_REQUIRED | CFG_NAME, .help = "the stage's name, unique in the chain" },
	{ .name = "run", .type = CFG_STR, .field = FIELD(struct wk_stage, run),
	  .help = "shell command, run with sh -c in workdir (a stage has run or wait)" },
	{ .name = "log", .type = CFG_STR, .field = FIELD(struct wk_stage, log),
	  .help = "the program's own log, relative to workdir" },
	{ .name = "done_when", .type = CFG_STR, .field = FIELD(struct wk_stage, done_when),
	  .aux = FIELD(struct wk_stage, done_re), .flags = CFG_REGEX,
	  .help = "PCRE2; a matching log line means the stage succeeded" },
	{ .name = "marker", .type = CFG_STR, .field = FIELD(struct wk_stage, marker),
	  .def = "<STAGE>_DONE", .flags = CFG_NAME | CFG_DERIVED,
	  .help = "file under .watchkeeper/markers/ touched on success" },
	{ .name = "wait", .type = CFG_OBJ, .field = FIELD(struct wk_stage, wait),
	  .sub = &cfg_wait_table, .help = "wait for a log line (log, pattern, timeout_s) or a pid" },
	{ .name = "timeout_s", .type = CFG_INT, .field = FIELD(struct wk_stage, timeout_s),
	  .min = 0, .max = CFG_TIMEOUT_MAX, .def = "0", .help = "kill the stage after this long; 0: none" },
	{ .name = "sbatch", .type = CFG_STROBJ,
	  .help = "sbatch options (string, or object of option: value) with detach slurm" },
};
static const struct cfg_table cfg_stage_table =
    CFG_TABLE("chain[]", cfg_stage_keys, sizeof(struct wk_stage));

static const struct cfg_key cfg_box_keys[] = {
	{ .name = "host", .type = CFG_STR, .field = FIELD(struct wk_box, host),
	  .help = "an ssh_config alias or a hostname" },
	{ .name = "ssh_config", .type = CFG_STR, .field = FIELD(struct wk_box, ssh_config),
	  .help = "ssh_config file to resolve host with (default ~/.ssh/config)" },
	{ .name = "port", .type = CFG_INT, .field = FIELD(struct wk_box, port),
	  .min = 1, .max = 65535, .help = "overrides ssh_config; else 22" },
	{ .name = "user", .type = CFG_STR, .field = FIELD(struct wk_box, user),
	  .help = "overrides ssh_config" },
	{ .name = "identity", .type = CFG_STR, .field = FIELD(struct wk_box, identity),
	  .help = "private key file (stays on this machine)" },
	{ .name = "known_hosts", .type = CFG_STR, .field = FIELD(struct wk_box, known_hosts),
	  .help = "known_hosts file (default ~/.ssh/known_hosts)" },
	{ .name = "connect_timeout_s", .type = CFG_INT,
	  .field = FIELD(struct wk_box, connect_timeout_s), .min = 1, .max = 600, .def = "15",
	  .help = "bound on connect + authentication" },
	{ .name = "transport", .type = CFG_STR, .field = FIELD(struct wk_box, transport),
	  .def = "auto", .choices = "auto|libssh2|openssh",
	  .help = "auto: libssh2, or the system ssh when the host needs it (RSA key, ProxyJump, "
	  "ProxyCommand, certificate, Match exec, HostKeyAlias); libssh2 or openssh: always that" },
	{ .name = "config", .type = CFG_STR, .field = FIELD(struct wk_box, config),
	  .help = "this config's path on the box" },
};
static const struct cfg_table cfg_box_table = CFG_TABLE("box", cfg_box_keys, 0);

static const struct cfg_key cfg_progress_keys[] = {
	{ .name = "pattern", .type = CFG_STR, .field = FIELD(struct wk_progress, pattern),
	  .aux = FIELD(struct wk_progress, re), .flags = CFG_REQUIRED | CFG_REGEX | CFG_GROUP1,
	  .help = "PCRE2; group 1 = current step, optional group 2 = total" },
	{ .name = "max", .type = CFG_INT, .field = FIELD(struct wk_progress, max),
	  .min = 0, .max = CFG_BIG, .def = "0", .help = "total steps; 0: from group 2" },
};
static const struct cfg_table cfg_progress_table = CFG_TABLE("progress", cfg_progress_keys, 0);

static const struct cfg_key cfg_loss_keys[] = {
	{ .name = "pattern", .type = CFG_STR, .flags = CFG_REQUIRED | CFG_REGEX | CFG_GROUP1,
	  .help = "PCRE2; group 1 = the loss value (NaN/Inf alert at once)" },
	{ .name = "spike_pct", .type = CFG_NUM, .min = 1, .max = 100000, .def = "50",
	  .help = "alert when loss is this % above its trend ..." },
	{ .name = "spike_steps", .type = CFG_INT, .min = 1, .max = 1000000, .def = "10",
	  .help = "... for this many consecutive logged values" },
	{ .name = "warmup_steps", .type = CFG_INT, .min = 0, .max = CFG_BIG, .def = "0",
	  .help = "no spike alerts before this step" },
	{ .name = "on_nan", .type = CFG_STR, .def = "alert", .choices = "alert|stop",
	  .help = "a NaN/Inf loss in a run stage: alert only, or also stop the stage (SIGTERM, "
	  "SIGKILL after the grace) and fail it as nan_loss, so later stages never run" },
};
static const struct cfg_table cfg_loss_table = CFG_TABLE("loss", cfg_loss_keys, 0);

static const struct cfg_key cfg_throughput_keys[] = {
	{ .name = "pattern", .type = CFG_STR, .flags = CFG_REQUIRED | CFG_REGEX | CFG_GROUP1,
	  .help = "PCRE2; group 1 = throughput (e.g. tokens/s)" },
	{ .name = "drop_pct", .type = CFG_NUM, .min = 1, .max = 100, .def = "25",
	  .help = "alert when throughput is this % below its baseline ..." },
	{ .name = "ticks", .type = CFG_INT, .min = 1, .max = 1000, .def = "2",
	  .help = "... for this many patrol ticks in a row" },
	{ .name = "warmup_steps", .type = CFG_INT, .min = 0, .max = CFG_BIG, .def = "0",
	  .help = "baseline starts after this step" },
};
static const struct cfg_table cfg_throughput_table =
    CFG_TABLE("throughput", cfg_throughput_keys, 0);

static const struct cfg_key cfg_checkpoints_keys[] = {
	{ .name = "dir", .type = CFG_STR, .flags = CFG_REQUIRED,
	  .help = "checkpoint directory, relative to workdir unless absolute" },
	{ .name = "pattern", .type = CFG_STR, .flags = CFG_REQUIRED | CFG_REGEX | CFG_GROUP1,
	  .help = "PCRE2 on entry names; group 1 = the step (sorted numerically)" },
	{ .name = "complete_file", .type = CFG_STR, .def = "metadata.json",
	  .help = "a checkpoint is complete when it holds this file" },
	{ .name = "fallback", .type = CFG_STR, .def = "fresh", .choices = "fresh|stop",
	  .help = "no complete checkpoint: start fresh, or stop and say so" },
	{ .name = "none", .type = CFG_STR, .def = "",
	  .help = "what {checkpoint} becomes when starting fresh" },
	{ .name = "every_steps", .type = CFG_INT, .min = 0, .max = CFG_BIG, .def = "0",
	  .help = "steps between checkpoints; 0: learned from their spacing" },
};
static const struct cfg_table cfg_checkpoints_table =
    CFG_TABLE("checkpoints", cfg_checkpoints_keys, 0);

static const struct cfg_key cfg_restart_keys[] = {
	{ .name = "max", .type = CFG_INT, .min = 0, .max = 1000, .def = "3",
	  .help = "restarts of a failed stage in all" },
	{ .name = "window_s", .type = CFG_INT, .min = 1, .max = CFG_TIMEOUT_MAX, .def = "600",
	  .help = "the sliding window for max_in_window (flapping)" },
	{ .name = "max_in_window", .type = CFG_INT, .min = 0, .max = 1000, .def = "4",
	  .help = "failures allowed within window_s; more stops restarting" },
	{ .name = "escalate_s", .type = CFG_INT, .min = 0, .max = CFG_TIMEOUT_MAX, .def = "600",
	  .help = "the same class failing again this soon after a restart escalates" },
	{ .name = "retry_classes", .type = CFG_STRARR,
	  .help = "failure classes that may be retried (default: the triage table's)" },
	{ .name = "no_progress_max", .type = CFG_INT, .min = 0, .max = 1000, .def = "2",
	  .help = "this many failed attempts in a row without a new complete checkpoint stop "
	  "restarting (stages that resume from {checkpoint}); 0 off" },
	{ .name = "recovery_s", .type = CFG_INT, .min = 0, .max = CFG_TIMEOUT_MAX, .def = "0",
	  .help = "alert recovery_stalled when a relaunched attempt shows no step this long; "
	  "0: 3 x the step interval before the failure, at least 600" },
};
static const struct cfg_table cfg_restart_table = CFG_TABLE("restart", cfg_restart_keys, 0);

static const struct cfg_key cfg_completion_keys[] = {
	{ .name = "require", .type = CFG_STRARR,
	  .help = "paths or globs under the workdir that must each match a non-empty file (or a "
	  "directory with an entry) before the last stage's marker is written; "
	  "\"{final_checkpoint}\": the newest complete checkpoint is at the progress total; "
	  "unmet: the last stage fails as missing_artifacts" },
};
static const struct cfg_table cfg_completion_table =
    CFG_TABLE("completion", cfg_completion_keys, 0);

static const struct cfg_key cfg_notify_keys[] = {
	{ .name = "type", .type = CFG_STR, .flags = CFG_REQUIRED,
	  .choices = "generic|slack|discord|telegram|ntfy|feishu|lark|dingtalk|wecom|command",
	  .help = "where to push" },
	{ .name = "url", .type = CFG_STR, .flags = CFG_SECRET,
	  .help = "webhook URL (a secret: prefer url_env)" },
	{ .name = "url_env", .type = CFG_STR, .help = "environment variable holding the URL" },
	{ .name = "token_env", .type = CFG_STR,
	  .help = "environment variable holding a token (telegram bot token, ntfy access token)" },
	{ .name = "token", .type = CFG_STR, .flags = CFG_SECRET,
	  .help = "the token itself (a secret: prefer token_env)" },
	{ .name = "chat_id", .type = CFG_STRINT, .help = "telegram chat id" },
	{ .name = "events", .type = CFG_STRARR, .help = "events to push (default: all)" },
	{ .name = "command", .type = CFG_STR,
	  .help = "type command: shell command fed the event JSON on stdin" },
};
static const struct cfg_table cfg_notify_table = CFG_TABLE("notify[]", cfg_notify_keys, 0);

static const struct cfg_key cfg_outbox_keys[] = {
	{ .name = "connect_timeout_s", .type = CFG_INT, .min = 1, .max = 600, .def = "5",
	  .help = "bound on connecting to a receiver" },
	{ .name = "timeout_s", .type = CFG_INT, .min = 1, .max = 3600, .def = "15",
	  .help = "bound on one delivery, connect included" },
	{ .name = "retry_base_ms", .type = CFG_INT, .min = 10, .max = 3600000, .def = "2000",
	  .help = "first retry delay; doubles per failure, with jitter" },
	{ .name = "retry_max_s", .type = CFG_INT, .min = 1, .max = CFG_DAY, .def = "600",
	  .help = "cap on the retry delay" },
	{ .name = "max_pending", .type = CFG_INT, .min = 10, .max = 1000000, .def = "1000",
	  .help = "per sink; beyond it the oldest digest/started events are dropped (never failures or done)" },
};
static const struct cfg_table cfg_outbox_table = CFG_TABLE("outbox", cfg_outbox_keys, 0);

static const struct cfg_key cfg_patrol_keys[] = {
	{ .name = "schedule", .type = CFG_STR, .def = "3,33 * * * *",
	  .help = "cron schedule patrol is installed with" },
	{ .name = "stall_ticks", .type = CFG_INT, .min = 1, .max = 1000, .def = "2",
	  .help = "ticks without progress before STALLED" },
	{ .name = "auto_resume", .type = CFG_BOOL, .def = "false",
	  .help = "resume a dead run without asking" },
	{ .name = "disk_warn_pct", .type = CFG_INT, .min = 1, .max = 100, .def = "90",
	  .help = "DISK_LOW when the workdir's disk is this full" },
	{ .name = "digest_s", .type = CFG_INT, .min = 0, .max = 7 * CFG_DAY, .def = "0",
	  .help = "push a digest (the current report line) this often; 0: only verdict changes" },
};
static const struct cfg_table cfg_patrol_table = CFG_TABLE("patrol", cfg_patrol_keys, 0);

static const struct cfg_key cfg_sentinel_keys[] = {
	{ .name = "interval_s", .type = CFG_INT, .min = 1, .max = CFG_DAY, .def = "90",
	  .help = "seconds between polls" },
	{ .name = "max_ticks", .type = CFG_INT, .min = 1, .max = 1000000, .def = "120",
	  .help = "polls before giving up" },
	{ .name = "follow_s", .type = CFG_INT, .min = 1, .max = 3600, .def = "60",
	  .help = "--follow: the longest one connection waits on the box (onbox wait)" },
};
static const struct cfg_table cfg_sentinel_table = CFG_TABLE("sentinel", cfg_sentinel_keys, 0);

static const struct cfg_key cfg_transfer_keys[] = {
	{ .name = "local", .type = CFG_STR, .help = "destination on this machine" },
	{ .name = "remote", .type = CFG_STR, .help = "source on the box, relative to workdir" },
	{ .name = "resume", .type = CFG_STR,
	  .help = "command that resumes an interrupted transfer" },
	{ .name = "auto", .type = CFG_BOOL, .def = "false",
	  .help = "patrol resumes an incomplete transfer by itself" },
};
static const struct cfg_table cfg_transfer_table = CFG_TABLE("transfer", cfg_transfer_keys, 0);

static const struct cfg_key cfg_job_keys[] = {
	{ .name = "status", .type = CFG_STR, .help = "command printing a job's state" },
	{ .name = "logs", .type = CFG_STR, .help = "command printing a job's log" },
	{ .name = "stop", .type = CFG_STR, .help = "command stopping a job" },
	{ .name = "submit", .type = CFG_STR, .help = "command submitting a job" },
	{ .name = "find", .type = CFG_STR,
	  .help = "command listing the jobs named {name}, to reconcile a changed id" },
	{ .name = "id_regex", .type = CFG_STR, .flags = CFG_REGEX,
	  .help = "PCRE2 finding the job id in each line of submit's and find's output (group 1, else the match)" },
	{ .name = "states", .type = CFG_STRMAP,
	  .help = "our state -> the manager's state name(s), e.g. \"succeeded\": [\"SUCCEEDED\"]" },
};
static const struct cfg_table cfg_job_table = CFG_TABLE("job", cfg_job_keys, 0);

static const struct cfg_key cfg_platform_keys[] = {
	{ .name = "persistent", .type = CFG_STR, .help = "storage that survives a stop" },
	{ .name = "scratch", .type = CFG_STR, .help = "fast storage that may be lost" },
	{ .name = "tmux", .type = CFG_BOOL, .help = "tmux is usually available" },
	{ .name = "systemd", .type = CFG_BOOL, .help = "systemd is PID 1" },
	{ .name = "notes", .type = CFG_STR, .help = "facts for the handbook" },
};
static const struct cfg_table cfg_platform_table = CFG_TABLE("platform", cfg_platform_keys, 0);

static const struct cfg_key cfg_root_keys[] = {
	{ .name = "run", .type = CFG_STR, .field = FIELD(struct wk_config, run),
	  .flags = CFG_REQUIRED | CFG_NAME, .help = "the run's name" },
	{ .name = "profile", .type = CFG_STR, .field = FIELD(struct wk_config, profile),
	  .flags = CFG_NAME, .help = "merge profiles/<name>.json underneath this file" },
	{ .name = "workdir", .type = CFG_STR, .field = FIELD(struct wk_config, workdir),
	  .flags = CFG_REQUIRED, .help = "the run's directory on the box; stages run here" },
	{ .name = "detach", .type = CFG_STR, .field = FIELD(struct wk_config, detach),
	  .def = "tmux", .choices = "tmux|nohup|slurm|job", .help = "how onbox outlives ssh" },
	{ .name = "session", .type = CFG_STR, .field = FIELD(struct wk_config, session),
	  .def = "wk-<run>", .flags = CFG_DERIVED,
	  .help = "tmux session name, no '.' or ':' (the default turns '.' into '_')" },
	{ .name = "heartbeat_s", .type = CFG_INT, .field = FIELD(struct wk_config, heartbeat_s),
	  .min = 1, .max = CFG_DAY, .def = "60", .help = "seconds between state.json writes" },
	{ .name = "poll_ms", .type = CFG_INT, .field = FIELD(struct wk_config, poll_ms),
	  .min = 50, .max = 600000, .def = "2000",
	  .help = "stat-poll period where inotify is blind (NFS)" },
	{ .name = "stop_grace_s", .type = CFG_INT, .field = FIELD(struct wk_config, stop_grace_s),
	  .min = 0, .max = CFG_DAY, .def = "30",
	  .help = "`onbox stop`/`patrol stop`: seconds between SIGTERM to the stage's process "
	  "group (a training may save a checkpoint) and SIGKILL" },
	{ .name = "results", .type = CFG_STR, .field = FIELD(struct wk_config, results),
	  .help = "the run's result file, relative to workdir" },
	{ .name = "dri", .type = CFG_STR, .field = FIELD(struct wk_config, dri),
	  .help = "the person responsible, for the handbook" },
	{ .name = "box", .type = CFG_OBJ, .field = FIELD(struct wk_config, box),
	  .sub = &cfg_box_table, .help = "how to reach the box" },
	{ .name = "chain", .type = CFG_OBJARR, .field = FIELD(struct wk_config, chain),
	  .aux = FIELD(struct wk_config, nchain), .min = 1, .max = 1000,
	  .flags = CFG_REQUIRED, .sub = &cfg_stage_table,
	  .help = "the stages, run in order, each gated on the one before" },
	{ .name = "progress", .type = CFG_OBJ, .field = FIELD(struct wk_config, progress),
	  .sub = &cfg_progress_table, .help = "how to read progress from the log" },
	{ .name = "loss", .type = CFG_OBJ, .sub = &cfg_loss_table,
	  .help = "loss spike detection" },
	{ .name = "throughput", .type = CFG_OBJ, .sub = &cfg_throughput_table,
	  .help = "throughput collapse detection" },
	{ .name = "checkpoints", .type = CFG_OBJ, .sub = &cfg_checkpoints_table,
	  .help = "checkpoint completeness" },
	{ .name = "restart", .type = CFG_OBJ, .sub = &cfg_restart_table,
	  .help = "bounds on automatic restarts" },
	{ .name = "completion", .type = CFG_OBJ, .sub = &cfg_completion_table,
	  .help = "what a finished run must have left" },
	{ .name = "notify", .type = CFG_OBJARR, .max = 100, .sub = &cfg_notify_table,
	  .help = "webhooks and commands to push events to" },
	{ .name = "outbox", .type = CFG_OBJ, .sub = &cfg_outbox_table,
	  .help = "how notifications are delivered and retried" },
	{ .name = "patrol", .type = CFG_OBJ, .sub = &cfg_patrol_table, .help = "L2 patrol" },
	{ .name = "sentinel", .type = CFG_OBJ, .sub = &cfg_sentinel_table, .help = "L3 sentinel" },
	{ .name = "transfer", .type = CFG_OBJ, .sub = &cfg_transfer_table,
	  .help = "bringing results home" },
	{ .name = "job", .type = CFG_OBJ, .sub = &cfg_job_table,
	  .help = "a cluster manager's CLI, for detach job" },
	{ .name = "platform", .type = CFG_OBJ, .sub = &cfg_platform_table,
	  .help = "facts about the platform (set by profiles)" },
};
static const struct cfg_table cfg_root_table = CFG_TABLE("", cfg_root_keys, 0);

/* Keys a profile must not set: they belong to one run. */
static const char *const cfg_profile_forbidden[] = { "run", "chain", "workdir", "profile" };

struct cfg_doc {
	const char	*path;		/* as given, for messages */
	cJSON		*root;
	struct jsonc_index idx;
};

struct cfg_ctx {
	const struct cfg_doc *docs[2];	/* where positions are looked up, in order */
	size_t		 ndocs;
	struct diag	*d;
};

/* Positions and messages. */

static int
cfg_where(const struct cfg_ctx *ctx, const char *path, const char **file)
{
	char *p = xstrdup(path), *cut;
	size_t i;
	int line = 0;

	*file = ctx->docs[0]->path;
	for (;;) {
		for (i = 0; i < ctx->ndocs && line == 0; i++) {
			if ((line = jsonc_index_line(&ctx->docs[i]->idx, p)) > 0)
				*file = ctx->docs[i]->path;
		}
		if (line > 0 || *p == '\0')
			break;
		/* Not written there (a missing or derived key): use its parent. */
		cut = strrchr(p, '.');
		if (strrchr(p, '[') > cut)
			cut = strrchr(p, '[');
		if (cut == NULL)
			cut = p;
		*cut = '\0';
	}
	free(p);
	return line;
}

static void __attribute__((format(printf, 3, 4)))
cfg_error(const struct cfg_ctx *ctx, const char *path, const char *fmt, ...)
{
	const char *file;
	char msg[2048];
	va_list ap;
	int line;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	line = cfg_where(ctx, path, &file);
	diag_add(ctx->d, file, line, "%s", msg);
}

static const char *
cfg_json_type(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsNumber(v))
		return "number";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "array";
	return "object";
}

static void
cfg_type_error(const struct cfg_ctx *ctx, const char *path, const char *want, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		cfg_error(ctx, path, "key \"%s\": expected %s, got number %g", path, want,
		    v->valuedouble);
	else
		cfg_error(ctx, path, "key \"%s\": expected %s, got %s", path, want,
		    cfg_json_type(v));
}

/* Levenshtein distance, for "did you mean"; large when either string is long. */
static size_t
cfg_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[33], cur[33];

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);

			cur[j] = del < ins ? del : ins;
			if (sub < cur[j])
				cur[j] = sub;
		}
		memcpy(prev, cur, sizeof(prev));
	}
	return prev[lb];
}

static const struct cfg_key *
cfg_key_find(const struct cfg_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nkeys; i++)
		if (strcmp(t->keys[i].name, name) == 0)
			return &t->keys[i];
	return NULL;
}

static const char *
cfg_key_nearest(const struct cfg_table *t, const char *name)
{
	size_t i, best = 3, dist;
	const char *found = NULL;

	for (i = 0; i < t->nkeys; i++) {
		if ((dist = cfg_distance(t->keys[i].name, name)) < best) {
			best = dist;
			found = t->keys[i].name;
		}
	}
	return found;
}

/* Value checks: everything that depends on one value alone. */

int
config_name_ok(const char *s)
{
	static const char extra[] = "._-";
	const char *p;

	if (s == NULL || *s == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	/* A name becomes a file name with a suffix (markers, temp files, job names): bounded. */
	if (strlen(s) > CONFIG_NAME_MAX)
		return 0;
	for (p = s; *p != '\0'; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr(extra, *p) != NULL))
			return 0;
	}
	return 1;
}

static int
cfg_choice_ok(const char *choices, const char *s)
{
	size_t n = strlen(s);
	const char *p = choices, *bar;

	for (;;) {
		bar = strchr(p, '|');
		if ((bar == NULL ? strlen(p) : (size_t)(bar - p)) == n && strncmp(p, s, n) == 0)
			return 1;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}

static void
cfg_check_string(const struct cfg_ctx *ctx, const struct cfg_key *k, const char *s,
    const char *path)
{
	struct pattern *re = NULL;
	char err[256];

	if (k->choices != NULL && !cfg_choice_ok(k->choices, s))
		cfg_error(ctx, path, "key \"%s\": \"%s\" is not one of %s", path, s, k->choices);
	if ((k->flags & CFG_NAME) && !config_name_ok(s))
		cfg_error(ctx, path, "key \"%s\": \"%.64s%s\" must match [A-Za-z0-9._-]+, be at most "
		    "%d characters, and not be \".\" or \"..\"", path, s, strlen(s) > 64 ? "..." : "",
		    CONFIG_NAME_MAX);
	if (k->flags & CFG_REGEX) {
		if (pattern_compile(s, &re, err, sizeof(err)) != 0)
			cfg_error(ctx, path, "key \"%s\": bad regex: %s", path, err);
		else if ((k->flags & CFG_GROUP1) && pattern_ngroups(re) < 1)
			cfg_error(ctx, path, "key \"%s\": the pattern needs a capture group "
			    "( ... ) around the value", path);
		pattern_free(re);
	}
}

/* 1 when v is an integral number within k's bounds, with the value in *out. */
static int
cfg_int_value(const struct cfg_key *k, const cJSON *v, long *out)
{
	double x;

	if (!cJSON_IsNumber(v))
		return 0;
	x = v->valuedouble;
	if (!(x >= (double)k->min && x <= (double)k->max) || x != (double)(long)x)
		return 0;
	*out = (long)x;
	return 1;
}

static void
cfg_check_range(const struct cfg_ctx *ctx, const struct cfg_key *k, const cJSON *v,
    const char *path)
{
	double x = v->valuedouble;

	if (x >= (double)k->min && x <= (double)k->max)
		return;
	if (k->max >= CFG_BIG)
		cfg_error(ctx, path, "key \"%s\": %g is out of range (at least %ld)", path, x,
		    k->min);
	else
		cfg_error(ctx, path, "key \"%s\": %g is out of range %ld..%ld", path, x,
		    k->min, k->max);
}

static int
cfg_is_integer(const cJSON *v)
{
	double x = v->valuedouble;

	return cJSON_IsNumber(v) && x >= -9e15 && x <= 9e15 && x == (double)(long)x;
}

static void cfg_check(const struct cfg_ctx *ctx, const struct cfg_table *t, const cJSON *obj,
    const char *path);

static void
cfg_check_strings(const struct cfg_ctx *ctx, const cJSON *arr, const char *path)
{
	const cJSON *it;
	size_t i = 0;
	char *ep;

	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it)) {
			ep = jsonc_path_elem(path, i);
			cfg_type_error(ctx, ep, "string", it);
			free(ep);
		}
		i++;
	}
}

static void
cfg_check_value(const struct cfg_ctx *ctx, const struct cfg_key *k, const cJSON *v,
    const char *path)
{
	const cJSON *it;
	size_t i, n;
	char *ep;

	switch (k->type) {
	case CFG_STR:
		if (!cJSON_IsString(v))
			cfg_type_error(ctx, path, "string", v);
		else
			cfg_check_string(ctx, k, v->valuestring, path);
		break;
	case CFG_INT:
		if (!cfg_is_integer(v))
			cfg_type_error(ctx, path, "integer", v);
		else
			cfg_check_range(ctx, k, v, path);
		break;
	case CFG_NUM:
		if (!cJSON_IsNumber(v))
			cfg_type_error(ctx, path, "number", v);
		else
			cfg_check_range(ctx, k, v, path);
		break;
	case CFG_BOOL:
		if (!cJSON_IsBool(v))
			cfg_type_error(ctx, path, "boolean (true or false)", v);
		break;
	case CFG_STRINT:
		if (!cJSON_IsString(v) && !cfg_is_integer(v))
			cfg_type_error(ctx, path, "string or integer", v);
		break;
	case CFG_STRARR:
		if (!cJSON_IsArray(v))
			cfg_type_error(ctx, path, "array of strings", v);
		else
			cfg_check_strings(ctx, v, path);
		break;
	case CFG_STRMAP:
		if (!cJSON_IsObject(v)) {
			cfg_type_error(ctx, path, "object", v);
			break;
		}
		cJSON_ArrayForEach(it, v) {
			ep = jsonc_path_key(path, it->string);
			if (cJSON_IsArray(it))
				cfg_check_strings(ctx, it, ep);
			else if (!cJSON_IsString(it))
				cfg_type_error(ctx, ep, "string or array of strings", it);
			free(ep);
		}
		break;
	case CFG_OBJ:
		if (!cJSON_IsObject(v))
			cfg_type_error(ctx, path, "object", v);
		else
			cfg_check(ctx, k->sub, v, path);
		break;
	case CFG_OBJARR:
		if (!cJSON_IsArray(v)) {
			cfg_type_error(ctx, path, "array of objects", v);
			break;
		}
		n = (size_t)cJSON_GetArraySize(v);
		if (n < (size_t)k->min)
			cfg_error(ctx, path, "key \"%s\": needs at least %ld entr%s", path, k->min,
			    k->min == 1 ? "y" : "ies");
		else if (k->max > 0 && n > (size_t)k->max)
			cfg_error(ctx, path, "key \"%s\": at most %ld entries", path, k->max);
		i = 0;
		cJSON_ArrayForEach(it, v) {
			ep = jsonc_path_elem(path, i++);
			if (!cJSON_IsObject(it))
				cfg_type_error(ctx, ep, "object", it);
			else
				cfg_check(ctx, k->sub, it, ep);
			free(ep);
		}
		break;
	case CFG_STROBJ:
		if (!cJSON_IsString(v) && !cJSON_IsObject(v))
			cfg_type_error(ctx, path, "string or object", v);
		break;
	}
}

/* Validate one document as written: every key known, every value well-formed. */
static void
cfg_check(const struct cfg_ctx *ctx, const struct cfg_table *t, const cJSON *obj,
    const char *path)
{
	const struct cfg_key *k;
	const cJSON *it;
	const char *near;
	char *kp;

	cJSON_ArrayForEach(it, obj) {
		kp = jsonc_path_key(path, it->string);
		if ((k = cfg_key_find(t, it->string)) != NULL)
			cfg_check_value(ctx, k, it, kp);
		else if ((near = cfg_key_nearest(t, it->string)) != NULL)
			cfg_error(ctx, kp, "unknown key \"%s\" (did you mean \"%s\"?)", kp, near);
		else
			cfg_error(ctx, kp, "unknown key \"%s\"", kp);
		free(kp);
	}
}

/* Filling the C structs from the merged document. */

#define CFG_AT(base, off, type)	((type *)(void *)((char *)(base) + (off) - 1))

static void
cfg_fill_default(const struct cfg_key *k, void *base)
{
	if (base == NULL || k->field == NO_FIELD || k->def == NULL || (k->flags & CFG_DERIVED))
		return;
	switch (k->type) {
	case CFG_STR:
		*CFG_AT(base, k->field, char *) = xstrdup(k->def);
		break;
	case CFG_INT:
		*CFG_AT(base, k->field, long) = strtol(k->def, NULL, 10);
		break;
	case CFG_BOOL:
		*CFG_AT(base, k->field, int) = strcmp(k->def, "true") == 0;
		break;
	default:
		break;
	}
}

static void cfg_fill(const struct cfg_ctx *ctx, const struct cfg_table *t, const cJSON *obj,
    void *base, const char *path);

static void
cfg_fill_array(const struct cfg_ctx *ctx, const struct cfg_key *k, const cJSON *v, void *base,
    const char *path)
{
	const cJSON *it;
	char *elems = NULL, *ep;
	size_t i = 0, n = (size_t)cJSON_GetArraySize(v);

	if (base != NULL && k->field != NO_FIELD) {
		elems = xcalloc(n, k->sub->size);
		*CFG_AT(base, k->field, void *) = elems;
		*CFG_AT(base, k->aux, size_t) = n;
	}
	cJSON_ArrayForEach(it, v) {
		ep = jsonc_path_elem(path, i);
		cfg_fill(ctx, k->sub, cJSON_IsObject(it) ? it : NULL,
		    elems == NULL ? NULL : elems + i * k->sub->size, ep);
		free(ep);
		i++;
	}
}

static void
cfg_fill_value(const struct cfg_ctx *ctx, const struct cfg_key *k, const cJSON *v, void *base,
    const char *path)
{
	struct pattern *re = NULL;
	char err[256];
	long n;

	switch (k->type) {
	case CFG_STR:
		if (!cJSON_IsString(v) || base == NULL || k->field == NO_FIELD)
			break;
		*CFG_AT(base, k->field, char *) = xstrdup(v->valuestring);
		/* A bad regex was reported by cfg_check(); here it only stays unset. */
		if (k->aux != NO_FIELD && pattern_compile(v->valuestring, &re, err, sizeof(err)) == 0)
			*CFG_AT(base, k->aux, struct pattern *) = re;	/* transferred */
		break;
	case CFG_INT:
		if (base != NULL && k->field != NO_FIELD) {
			if (cfg_int_value(k, v, &n))
				*CFG_AT(base, k->field, long) = n;
			else
				cfg_fill_default(k, base);
		}
		break;
	case CFG_BOOL:
		if (base != NULL && k->field != NO_FIELD) {
			if (cJSON_IsBool(v))
				*CFG_AT(base, k->field, int) = cJSON_IsTrue(v);
			else
				cfg_fill_default(k, base);
		}
		break;
	case CFG_OBJ:
		cfg_fill(ctx, k->sub, cJSON_IsObject(v) ? v : NULL,
		    base == NULL || k->field == NO_FIELD ? NULL : CFG_AT(base, k->field, char), path);
		break;
	case CFG_OBJARR:
		if (cJSON_IsArray(v))
			cfg_fill_array(ctx, k, v, base, path);
		break;
	default:
		break;
	}
}

/*
 * Fill base (may be NULL: validate only) from obj.  obj NULL means the object
 * is absent: only defaults are applied and nothing inside it is required.
 */
static void
cfg_fill(const struct cfg_ctx *ctx, const struct cfg_table *t, const cJSON *obj, void *base,
    const char *path)
{
	const struct cfg_key *k;
	const cJSON *v;
	char *kp;
	size_t i;

	for (i = 0; i < t->nkeys; i++) {
		k = &t->keys[i];
		v = obj == NULL ? NULL : cJSON_GetObjectItemCaseSensitive(obj, k->name);
		kp = jsonc_path_key(path, k->name);
		if (v != NULL)
			cfg_fill_value(ctx, k, v, base, kp);
		else {
			if (obj != NULL && (k->flags & CFG_REQUIRED))
				cfg_error(ctx, kp, "missing required key \"%s\"", kp);
			if (k->type == CFG_OBJ && k->field != NO_FIELD && base != NULL)
				cfg_fill(ctx, k->sub, NULL, CFG_AT(base, k->field, char), kp);
			else
				cfg_fill_default(k, base);
		}
		free(kp);
	}
}

/* Free what cfg_fill() stored in base. */
static void
cfg_release(const struct cfg_table *t, void *base)
{
	const struct cfg_key *k;
	char *elems;
	size_t i, j, n;

	for (i = 0; i < t->nkeys; i++) {
		k = &t->keys[i];
		if (k->field == NO_FIELD)
			continue;
		switch (k->type) {
		case CFG_STR:
			free(*CFG_AT(base, k->field, char *));
			if (k->aux != NO_FIELD)
				pattern_free(*CFG_AT(base, k->aux, struct pattern *));
			break;
		case CFG_OBJ:
			cfg_release(k->sub, CFG_AT(base, k->field, char));
			break;
		case CFG_OBJARR:
			elems = *CFG_AT(base, k->field, char *);
			n = *CFG_AT(base, k->aux, size_t);
			for (j = 0; elems != NULL && j < n; j++)
				cfg_release(k->sub, elems + j * k->sub->size);
			free(elems);
			break;
		default:
			break;
		}
	}
}

/* Paths. */

/* Lexically normalize an absolute path: no "//", ".", "..", or trailing '/'. */
static char *
cfg_path_normalize(const char *abs)
{
	struct buf b = BUF_INIT;
	const char *p = abs, *e;
	size_t n, cut;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		n = e == NULL ? strlen(p) : (size_t)(e - p);
		if (n == 1 && p[0] == '.')
			;
		else if (n == 2 && p[0] == '.' && p[1] == '.') {
			for (cut = b.len; cut > 0 && b.data[cut - 1] != '/'; cut--)
				;
			b.len = cut > 0 ? cut - 1 : 0;
			if (b.cap > 0)
				b.data[b.len] = '\0';
		} else {
			buf_putc(&b, '/');
			buf_append(&b, p, n);
		}
		p += n;
	}
	if (b.len == 0)
		buf_putc(&b, '/');
	return buf_detach(&b);
}

/* The absolute directory of path. */
static char *
cfg_dir_of(const char *path)
{
	char *dir, *slash, *real, *abs, cwd[PATH_MAX];

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if ((real = realpath(dir, NULL)) != NULL) {
		abs = xstrdup(real);
		free(real);
	} else if (dir[0] == '/')
		abs = cfg_path_normalize(dir);
	else {
		char *joined = xstrfmt("%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : "/", dir);

		abs = cfg_path_normalize(joined);
		free(joined);
	}
	free(dir);
	return abs;
}

static void
cfg_workdir(const struct cfg_ctx *ctx, struct wk_config *cfg)
{
	const char *w = cfg->workdir, *home = getenv("HOME");
	char *joined;

	if (w == NULL)
		return;
	if (*w == '\0') {
		cfg_error(ctx, "workdir", "key \"workdir\": must not be empty");
		return;
	}
	if (w[0] == '~' && w[1] != '\0' && w[1] != '/') {
		cfg_error(ctx, "workdir", "key \"workdir\": only \"~\" and \"~/\" are expanded, "
		    "not \"~user\"");
		return;
	}
	if (w[0] == '~' && (home == NULL || *home != '/')) {
		cfg_error(ctx, "workdir", "key \"workdir\": $HOME is not set to an absolute "
		    "path, cannot expand \"~\"");
		return;
	}
	if (w[0] == '~')
		joined = xstrfmt("%s/%s", home, w + 1);
	else if (w[0] == '/')
		joined = xstrdup(w);
	else
		joined = xstrfmt("%s/%s", cfg->dir, w);
	free(cfg->workdir);
	cfg->workdir = cfg_path_normalize(joined);
	free(joined);
}

/* Rules that span keys, and derived defaults. */

static char *
cfg_default_marker(const char *stage)
{
	struct buf b = BUF_INIT;
	const char *p;

	for (p = stage; *p != '\0'; p++) {
		char c = *p;

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		buf_putc(&b, c);
	}
	buf_puts(&b, "_DONE");
	return buf_detach(&b);
}

static int
cfg_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void
cfg_derive_wait(const struct cfg_ctx *ctx, const struct wk_stage *st, size_t i)
{
	const struct wk_wait *w = &st->wait;
	char *p = xstrfmt("chain[%zu].wait", i);

	if (w->pid > 0 && (w->log != NULL || w->pattern != NULL))
		cfg_error(ctx, p, "key \"%s\": wait for either a pid or a log line "
		    "(log + pattern), not both", p);
	else if (w->pid == 0 && (w->log == NULL || w->pattern == NULL))
		cfg_error(ctx, p, "key \"%s\": needs \"pid\", or \"log\" and \"pattern\"", p);
	else if (w->log != NULL && w->timeout_s <= 0)
		cfg_error(ctx, p, "key \"%s.timeout_s\": must be > 0 with a log: "
		    "a wait never waits forever", p);
	free(p);
}

static void
cfg_derive_stages(const struct cfg_ctx *ctx, struct wk_config *cfg, const cJSON *chain)
{
	struct wk_stage *st, *o;
	const char *file;
	char *p;
	size_t i, j;

	for (i = 0; i < cfg->nchain; i++) {
		st = &cfg->chain[i];
		p = xstrfmt("chain[%zu]", i);
		st->line = cfg_where(ctx, p, &file);
		st->has_wait = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetArrayItem(chain, (int)i), "wait"));
		if (st->marker == NULL && st->name != NULL)
			st->marker = cfg_default_marker(st->name);
		if (st->run != NULL && st->has_wait)
			cfg_error(ctx, p, "key \"%s\": has both \"run\" and \"wait\"; a stage "
			    "does exactly one of them (make the wait its own stage)", p);
		else if (st->run == NULL && !st->has_wait)
			cfg_error(ctx, p, "key \"%s\": needs \"run\" (a command) or \"wait\"", p);
		if (st->has_wait)
			cfg_derive_wait(ctx, st, i);
		free(p);
		if (st->marker != NULL && cfg_has_suffix(st->marker, ".FAILED")) {
			p = xstrfmt("chain[%zu].marker", i);
			cfg_error(ctx, p, "key \"%s\": \"%s\" must not end in \".FAILED\" "
			    "(reserved for failure markers)", p, st->marker);
			free(p);
		}
		for (j = 0; j < i; j++) {
			o = &cfg->chain[j];
			if (st->name != NULL && o->name != NULL && strcmp(st->name, o->name) == 0) {
				p = xstrfmt("chain[%zu].stage", i);
				cfg_error(ctx, p, "key \"%s\": duplicate stage name \"%s\" "
				    "(also chain[%zu])", p, st->name, j);
				free(p);
			}
			else if (st->marker != NULL && o->marker != NULL &&
			    strcmp(st->marker, o->marker) == 0) {
				p = xstrfmt("chain[%zu].marker", i);
				cfg_error(ctx, p, "key \"%s\": duplicate marker \"%s\" "
				    "(also chain[%zu])", p, st->marker, j);
				free(p);
			}
		}
	}
}

/* {checkpoint} in a stage's command: checkpoints must exist, the token sit where a quoted word may. */
static void
cfg_derive_ckpt(const struct cfg_ctx *ctx, const struct wk_config *cfg, const cJSON *root)
{
	size_t i;
	char *p, *why;

	for (i = 0; i < cfg->nchain; i++) {
		const char *run = cfg->chain[i].run;

		if (run == NULL || !ckpt_uses_token(run))
			continue;
		why = NULL;
		p = xstrfmt("chain[%zu].run", i);
		if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "checkpoints")))
			cfg_error(ctx, p, "key \"%s\": uses {checkpoint} but the config has no "
			    "\"checkpoints\" (dir, pattern) to take it from", p);
		else if (ckpt_check_command(run, &why) != 0)
			cfg_error(ctx, p, "key \"%s\": %s", p, why);
		free(why);
		free(p);
	}
}

/* completion.require: relative entries that stay in the workdir; {final_checkpoint} needs checkpoints. */
static void
cfg_derive_complete(const struct cfg_ctx *ctx, const cJSON *root)
{
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(root, "completion"), "require"), *it;
	char *p, *why;
	size_t i = 0;

	cJSON_ArrayForEach(it, req) {
		p = jsonc_path_elem("completion.require", i++);
		why = NULL;
		if (!cJSON_IsString(it))
			;	/* the type check said so */
		else if (complete_entry_ok(it->valuestring, &why) != 0)
			cfg_error(ctx, p, "key \"%s\": %s", p, why);
		else if (strcmp(it->valuestring, COMPLETE_FINAL_CKPT) == 0 &&
		    !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "checkpoints")))
			cfg_error(ctx, p, "key \"%s\": " COMPLETE_FINAL_CKPT " needs \"checkpoints\" "
			    "(dir, pattern) to find the newest complete checkpoint", p);
		free(why);
		free(p);
	}
}

static void
cfg_derive_notify(const struct cfg_ctx *ctx, const cJSON *notify)
{
	const cJSON *it;
	const char *type;
	char *p;
	size_t i = 0;

	cJSON_ArrayForEach(it, notify) {
		type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "type"));
		p = jsonc_path_elem("notify", i++);
		if (type == NULL || !cJSON_IsObject(it))
			;
		else if (strcmp(type, "command") == 0) {
			if (!cJSON_HasObjectItem(it, "command"))
				cfg_error(ctx, p, "key \"%s\": type command needs \"command\"", p);
		} else if (strcmp(type, "telegram") == 0) {
			if ((!cJSON_HasObjectItem(it, "token_env") && !cJSON_HasObjectItem(it, "token")) ||
			    !cJSON_HasObjectItem(it, "chat_id"))
				cfg_error(ctx, p, "key \"%s\": type telegram needs \"token_env\" "
				    "(or \"token\") and \"chat_id\"", p);
		} else if (!cJSON_HasObjectItem(it, "url") && !cJSON_HasObjectItem(it, "url_env"))
			cfg_error(ctx, p, "key \"%s\": type %s needs \"url_env\" (or \"url\")", p, type);
		free(p);
	}
}

static void
cfg_derive(const struct cfg_ctx *ctx, struct wk_config *cfg, const cJSON *root)
{
	const cJSON *job = cJSON_GetObjectItemCaseSensitive(root, "job");
	char *p;

	/* tmux reads '.' and ':' in a target as window and pane separators. */
	if (cfg->session != NULL && strpbrk(cfg->session, ".:") != NULL)
		cfg_error(ctx, "session", "key \"session\": \"%s\": a tmux session name "
		    "cannot contain '.' or ':'", cfg->session);
	if (cfg->session == NULL && cfg->run != NULL) {
		cfg->session = xstrfmt("wk-%s", cfg->run);
		for (p = cfg->session; (p = strchr(p, '.')) != NULL; p++)
			*p = '_';
	}
	cfg_workdir(ctx, cfg);
	cfg->has_progress = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "progress"));
	cfg_derive_stages(ctx, cfg, cJSON_GetObjectItemCaseSensitive(root, "chain"));
	cfg_derive_ckpt(ctx, cfg, root);
	cfg_derive_complete(ctx, root);
	cfg_derive_notify(ctx, cJSON_GetObjectItemCaseSensitive(root, "notify"));
	if ((cfg->detach_kind = detach_parse(cfg->detach)) == DETACH_JOB &&
	    (!cJSON_IsObject(job) || !cJSON_HasObjectItem(job, "submit") ||
	    !cJSON_HasObjectItem(job, "status")))
		cfg_error(ctx, "detach", "key \"detach\": \"job\" needs \"job.submit\" and "
		    "\"job.status\"");
}

/* Profiles. */

static void
cfg_merge(cJSON *base, const cJSON *over)
{
	const cJSON *it;
	cJSON *b, *dup;

	cJSON_ArrayForEach(it, over) {
		b = cJSON_GetObjectItemCaseSensitive(base, it->string);
		if (b != NULL && cJSON_IsObject(b) && cJSON_IsObject(it)) {
			cfg_merge(b, it);
			continue;
		}
		if ((dup = cJSON_Duplicate(it, 1)) == NULL)
			fatal("out of memory");
		if (b != NULL)
			cJSON_ReplaceItemInObjectCaseSensitive(base, it->string, dup);
		else
			cJSON_AddItemToObject(base, it->string, dup);	/* transferred */
	}
}

/* The profile file for name, or NULL with the directories searched in *searched. */
static char *
cfg_profile_find(const struct wk_config *cfg, const char *name, struct buf *searched)
{
	const char *dirs[5];
	char *local = xstrfmt("%s/profiles", cfg->dir), *file = NULL, *exe, *beside = NULL;
	size_t i;

	/* Installed next to the binary: <prefix>/bin/onbox -> <prefix>/share/watchkeeper/profiles. */
	if ((exe = fs_self_exe()) != NULL) {
		char *slash = strrchr(exe, '/');

		if (slash != NULL) {
			*slash = '\0';
			beside = xstrfmt("%s/../share/watchkeeper/profiles", exe);
		}
		free(exe);
	}
	dirs[0] = getenv("WATCHKEEPER_PROFILES");
	dirs[1] = local;
	dirs[2] = beside;
	dirs[3] = WK_PROFILES_DIR;
	dirs[4] = WK_SRC_PROFILES_DIR;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (dirs[i] == NULL || *dirs[i] == '\0')
			continue;
		file = xstrfmt("%s/%s.json", dirs[i], name);
		if (access(file, F_OK) == 0)
			break;
		free(file);
		file = NULL;
		buf_printf(searched, "%s%s", searched->len > 0 ? ", " : "", dirs[i]);
	}
	free(local);
	free(beside);
	return file;
}

/* Load and check the profile the run's file names, into prof (left empty on failure). */
static void
cfg_profile_load(const struct cfg_ctx *runctx, struct wk_config *cfg, const char *name,
    struct cfg_doc *prof)
{
	struct cfg_ctx ctx = { { prof, NULL }, 1, runctx->d };
	struct buf searched = BUF_INIT;
	size_t i;

	if ((cfg->profile_path = cfg_profile_find(cfg, name, &searched)) == NULL) {
		cfg_error(runctx, "profile", "key \"profile\": profile \"%s\" not found "
		    "(looked for %s.json in %s)", name, name, buf_str(&searched));
		goto out;
	}
	prof->path = cfg->profile_path;
	if (jsonc_load(prof->path, &prof->root, &prof->idx, runctx->d) != 0)
		goto out;
	if (!cJSON_IsObject(prof->root)) {
		diag_add(runctx->d, prof->path, 0, "a profile must be an object");
		cJSON_Delete(prof->root);
		prof->root = NULL;
		goto out;
	}
	for (i = 0; i < sizeof(cfg_profile_forbidden) / sizeof(cfg_profile_forbidden[0]); i++) {
		if (!cJSON_HasObjectItem(prof->root, cfg_profile_forbidden[i]))
			continue;
		cfg_error(&ctx, cfg_profile_forbidden[i], "key \"%s\" is not allowed in a "
		    "profile (it belongs to one run)", cfg_profile_forbidden[i]);
		cJSON_DeleteItemFromObjectCaseSensitive(prof->root, cfg_profile_forbidden[i]);
	}
	cfg_check(&ctx, &cfg_root_table, prof->root, "");
out:
	buf_free(&searched);
}

/* API. */

char *
config_find(const char *opt)
{
	const char *env;

	if (opt != NULL)
		return xstrdup(opt);
	if ((env = getenv("WATCHKEEPER_CONFIG")) != NULL && *env != '\0')
		return xstrdup(env);
	return xstrdup("./watchkeeper.json");
}

int
config_load(const char *path, struct wk_config **out, struct diag *d)
{
	struct cfg_doc run, prof;
	struct cfg_ctx ctx = { { &run, NULL }, 1, d };
	struct wk_config *cfg;
	const cJSON *pv;
	cJSON *merged = NULL;
	size_t nerr = d->n;
	int rc;

	*out = NULL;
	memset(&run, 0, sizeof(run));
	memset(&prof, 0, sizeof(prof));
	cfg = xcalloc(1, sizeof(*cfg));
	cfg->path = xstrdup(path);
	cfg->dir = cfg_dir_of(path);
	run.path = cfg->path;
	if ((rc = jsonc_load(path, &run.root, &run.idx, d)) != 0) {
		if (rc != WK_ERR_SYSTEM)
			rc = WK_ERR_PARSE;
		goto out;
	}
	if (!cJSON_IsObject(run.root)) {
		diag_add(d, path, 0, "the configuration must be a JSON object { ... }");
		rc = WK_ERR_PARSE;
		goto out;
	}
	cfg_check(&ctx, &cfg_root_table, run.root, "");

	pv = cJSON_GetObjectItemCaseSensitive(run.root, "profile");
	if (cJSON_IsString(pv) && config_name_ok(pv->valuestring))
		cfg_profile_load(&ctx, cfg, pv->valuestring, &prof);
	if (prof.root != NULL) {
		if ((merged = cJSON_Duplicate(prof.root, 1)) == NULL)
			fatal("out of memory");
		cfg_merge(merged, run.root);
		ctx.docs[ctx.ndocs++] = &prof;
	} else {
		merged = run.root;
		run.root = NULL;	/* transferred */
	}

	cfg_fill(&ctx, &cfg_root_table, merged, cfg, "");
	cfg_derive(&ctx, cfg, merged);
	cfg->root = merged;
	merged = NULL;	/* transferred */
	rc = d->n > nerr ? WK_ERR_PARSE : 0;
out:
	if (rc != 0) {
		config_free(cfg);
		cfg = NULL;
	}
	*out = cfg;
	cJSON_Delete(run.root);
	cJSON_Delete(prof.root);
	cJSON_Delete(merged);
	jsonc_index_free(&run.idx);
	jsonc_index_free(&prof.idx);
	return rc;
}

void
config_free(struct wk_config *cfg)
{
	if (cfg == NULL)
		return;
	cfg_release(&cfg_root_table, cfg);
	free(cfg->path);
	free(cfg->dir);
	free(cfg->profile_path);
	cJSON_Delete(cfg->root);
	free(cfg);
}

const struct wk_stage *
config_stage(const struct wk_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nchain; i++)
		if (cfg->chain[i].name != NULL && strcmp(cfg->chain[i].name, name) == 0)
			return &cfg->chain[i];
	return NULL;
}

/* Typed access to keys without a C field, with the table's default. */

static const struct cfg_key *
cfg_lookup(const struct wk_config *cfg, const char *path, enum cfg_type type, const cJSON **v)
{
	const struct cfg_table *t = &cfg_root_table;
	const struct cfg_key *k = NULL;
	const cJSON *obj = cfg->root;
	char *copy = xstrdup(path), *name, *next, *save = NULL;

	*v = NULL;
	for (name = strtok_r(copy, ".", &save); name != NULL; name = next) {
		next = strtok_r(NULL, ".", &save);
		if (t == NULL || (k = cfg_key_find(t, name)) == NULL)
			fatal("no config key \"%s\"", path);
		obj = cJSON_GetObjectItemCaseSensitive(obj, name);
		if (next != NULL && k->type != CFG_OBJ)
			fatal("config key \"%s\": \"%s\" is not an object", path, name);
		t = k->sub;
	}
	free(copy);
	if (k == NULL || k->type != type)
		fatal("config key \"%s\" is not a %s", path, cfg_type_names[type]);
	*v = obj;
	return k;
}

const char *
config_get_str(const struct wk_config *cfg, const char *path)
{
	const cJSON *v;
	const struct cfg_key *k = cfg_lookup(cfg, path, CFG_STR, &v);

	if (cJSON_IsString(v))
		return v->valuestring;
	return (k->flags & CFG_DERIVED) ? NULL : k->def;
}

long
config_get_int(const struct wk_config *cfg, const char *path)
{
	const cJSON *v;
	const struct cfg_key *k = cfg_lookup(cfg, path, CFG_INT, &v);
	long n;

	if (v != NULL && cfg_int_value(k, v, &n))
		return n;
	return k->def == NULL ? 0 : strtol(k->def, NULL, 10);
}

double
config_get_num(const struct wk_config *cfg, const char *path)
{
	const cJSON *v;
	const struct cfg_key *k = cfg_lookup(cfg, path, CFG_NUM, &v);

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	return k->def == NULL ? 0 : strtod(k->def, NULL);
}

int
config_get_bool(const struct wk_config *cfg, const char *path)
{
	const cJSON *v;
	const struct cfg_key *k = cfg_lookup(cfg, path, CFG_BOOL, &v);

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	return k->def != NULL && strcmp(k->def, "true") == 0;
}

/* Help. */

static void
cfg_print_table(FILE *fp, const struct cfg_table *t, const char *prefix)
{
	const struct cfg_key *k;
	char *name, type[128];
	size_t i;

	for (i = 0; i < t->nkeys; i++) {
		k = &t->keys[i];
		name = k->type == CFG_OBJARR ? xstrfmt("%s%s[]", prefix, k->name) :
		    xstrfmt("%s%s", prefix, k->name);
		if (k->choices != NULL)
			snprintf(type, sizeof(type), "%s", k->choices);
		else if ((k->type == CFG_INT || k->type == CFG_NUM) && k->max >= CFG_BIG)
			snprintf(type, sizeof(type), "%s >= %ld", cfg_type_names[k->type], k->min);
		else if (k->type == CFG_INT || k->type == CFG_NUM)
			snprintf(type, sizeof(type), "%s %ld..%ld", cfg_type_names[k->type],
			    k->min, k->max);
		else
			snprintf(type, sizeof(type), "%s", cfg_type_names[k->type]);
		fprintf(fp, "  %-30s %-24s %s%s%s%s%s%s\n", name, type,
		    (k->flags & CFG_REQUIRED) ? "required. " : "",
		    (k->flags & CFG_REGEX) ? "regex. " : "",
		    (k->flags & CFG_NAME) ? "[A-Za-z0-9._-]+. " : "", k->help,
		    k->def != NULL ? "; default " : "", k->def != NULL ? k->def : "");
		if (k->sub != NULL) {
			char *sub = xstrfmt("%s.", name);

			cfg_print_table(fp, k->sub, sub);
			free(sub);
		}
		free(name);
	}
}

void
config_print_keys(FILE *fp)
{
	cfg_print_table(fp, &cfg_root_table, "");
}
