/*
 * config-table.c: every configuration key, once (see config.h, config-int.h).
 *
 * One static table of struct cfg_key per object kind, in the manner of tmux's
 * options-table.c: name, type, C field, bounds, default, allowed choices,
 * flags and help.  The walkers in config-check.c and config.c read these
 * tables for validation, defaults and filling struct wk_config; the help
 * printer at the end of this file prints them for --help-config and the
 * handbook, so the docs cannot drift from what is checked.  Adding a key is
 * a row here (and a field in config.h when C code reads it directly).
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "config-int.h"
#include "xmalloc.h"

const char *const cfg_type_names[] = {
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
	{ .name = "job", .type = CFG_STROBJ,
	  .help = "the job manager's submit options for this stage (string, or object of option: "
	  "value; job.options lists the names, job.reserved those watchkeeper sets) with detach job" },
	{ .name = "adopt", .type = CFG_STR, .field = FIELD(struct wk_stage, adopt),
	  .help = "the id of a job that already runs (Ray submission id, Iris /<user>/<job>): "
	  "watched as this stage's first attempt instead of a submit, with detach job" },
	{ .name = "resubmit", .type = CFG_STR, .field = FIELD(struct wk_stage, resubmit),
	  .help = "an adopted stage's recovery: the owner's own submit command (with --no-wait "
	  "where the profile's submit has it); job.id_regex reads the new id from its output" },
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
	{ .name = "resume_warmup_steps", .type = CFG_INT, .min = 0, .max = CFG_BIG, .def = "0",
	  .help = "after a resume the loss at a step the earlier attempt logged must match it: "
	  "within 0.002 (0: an exact replay), or, with a post-resume warm-up of this many steps, "
	  "within 1% once past it; else alert resume_mismatch" },
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
	  .help = "... for at least this many of onbox's throughput checks in a row (one per "
	  "heartbeat_s, not patrol's ticks) ..." },
	{ .name = "window_s", .type = CFG_INT, .min = 0, .max = CFG_TIMEOUT_MAX, .def = "0",
	  .help = "... and for this long without a check back near the baseline: a sustained "
	  "drop, never one dip; 0: three patrol intervals (3 x the longest gap of "
	  "patrol.schedule: 90 min for the default, 45 min for a hero run)" },
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
	{ .name = "keep", .type = CFG_INT, .min = 1, .max = 100000, .def = "3",
	  .help = "patrol checkpoints --prune keeps this many newest complete checkpoints (and "
	  "the final, launch, recovery and milestone ones)" },
	{ .name = "permanent_every", .type = CFG_INT, .min = 0, .max = CFG_BIG, .def = "0",
	  .help = "a complete checkpoint whose step is a multiple of this is a milestone: never "
	  "a deletion candidate; 0: none" },
	{ .name = "reject", .type = CFG_STRARR,
	  .help = "entry names in dir of a rejected lineage: never resumed from, however new "
	  "(a seed 004 rule)" },
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
	  .choices = "generic|slack|discord|telegram|ntfy|feishu|lark|dingtalk|wecom|command|github",
	  .help = "where to push (github: the run's issue, commented by patrol on this machine)" },
	{ .name = "repo", .type = CFG_STR, .help = "type github: owner/name of the repository" },
	{ .name = "issue", .type = CFG_INT, .min = 1, .max = CFG_BIG,
	  .help = "type github: the run's issue (default: created at the first delivery)" },
	{ .name = "api", .type = CFG_STR,
	  .help = "type github: the REST API's base URL (default https://api.github.com)" },
	{ .name = "url", .type = CFG_STR, .flags = CFG_SECRET,
	  .help = "webhook URL (a secret: prefer url_env)" },
	{ .name = "url_env", .type = CFG_STR, .help = "environment variable holding the URL" },
	{ .name = "token_env", .type = CFG_STR,
	  .help = "environment variable holding a token (telegram bot token, ntfy access token, "
	  "slack bot token)" },
	{ .name = "token", .type = CFG_STR, .flags = CFG_SECRET,
	  .help = "the token itself (a secret: prefer token_env)" },
	{ .name = "chat_id", .type = CFG_STRINT, .help = "telegram chat id" },
	{ .name = "channel", .type = CFG_STR,
	  .help = "type slack through a bot token (token_env): the channel to post in, by the "
	  "Web API (chat.postMessage, chat.update; url: the API's base, default https://slack.com/api)" },
	{ .name = "card", .type = CFG_BOOL, .def = "true",
	  .help = "one live message per run, edited as the run moves (telegram, discord, slack with "
	  "a channel), plus a message that pings only when a human is needed; false: one message "
	  "per event" },
	{ .name = "card_every_s", .type = CFG_INT, .min = 1, .max = CFG_DAY, .def = "60",
	  .help = "the card's progress edits at most this often" },
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
	  .help = "cron schedule patrol is installed with (a hero run: \"" CFG_HERO_SCHEDULE
	  "\", every 15 minutes)" },
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

static const struct cfg_key cfg_dialect_keys[] = {
	{ .name = "name", .type = CFG_STR, .flags = CFG_REQUIRED | CFG_NAME,
	  .help = "the dialect's name, recorded in .watchkeeper/job.json once detected" },
	{ .name = "detect", .type = CFG_STR, .flags = CFG_REQUIRED,
	  .help = "command that exits 0 when the CLI speaks this dialect (tried in order)" },
	{ .name = "status", .type = CFG_STR, .help = "this dialect's job.status" },
	{ .name = "logs", .type = CFG_STR, .help = "this dialect's job.logs" },
	{ .name = "stop", .type = CFG_STR, .help = "this dialect's job.stop" },
	{ .name = "submit", .type = CFG_STR, .help = "this dialect's job.submit" },
	{ .name = "find", .type = CFG_STR, .help = "this dialect's job.find" },
	{ .name = "id_regex", .type = CFG_STR, .flags = CFG_REGEX,
	  .help = "this dialect's job.id_regex" },
};
static const struct cfg_table cfg_dialect_table = CFG_TABLE("job.dialects[]", cfg_dialect_keys, 0);

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
	{ .name = "dialects", .type = CFG_OBJARR, .max = 16, .sub = &cfg_dialect_table,
	  .help = "generations of the CLI: the first whose detect exits 0 is used for the run "
	  "(its commands replace the ones above), found once and recorded" },
	{ .name = "options", .type = CFG_STRARR,
	  .help = "the option names (without --) a stage's chain[].job may set" },
	{ .name = "reserved", .type = CFG_STRARR,
	  .help = "option names watchkeeper sets itself: refused in chain[].job" },
	{ .name = "node", .type = CFG_STR,
	  .help = "command printing the node a job ran on (with job.exclude: a bad accelerator's "
	  "node is excluded from the stage's next submit)" },
	{ .name = "exclude", .type = CFG_STR,
	  .help = "the submit option (without --) that keeps a job off nodes, e.g. sbatch's "
	  "\"exclude\": a stage that failed with bad_accelerator is resubmitted with it" },
	{ .name = "logs_poll_ms", .type = CFG_INT, .min = 0, .max = 3600000, .def = "0",
	  .help = "fetch a live job's log at most this often (a CLI that sends the whole log "
	  "each time: ray); 0: every poll.  The log is always fetched once more at the end" },
	{ .name = "pending_alert_s", .type = CFG_INT, .min = 0, .max = CFG_TIMEOUT_MAX,
	  .def = "1800", .help = "pending this long: one degraded capacity_wait alert (0: never)" },
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

static const struct cfg_key cfg_logbook_keys[] = {
	{ .name = "git", .type = CFG_STR,
	  .help = "a git repository (URL or path) the logbook is committed to and pushed after "
	  "each update: git history is the durability layer; a failed push is retried" },
	{ .name = "path", .type = CFG_STR, .help = "the logbook's path in it (default <run>/LOGBOOK.md)" },
};
static const struct cfg_table cfg_logbook_table = CFG_TABLE("logbook", cfg_logbook_keys, 0);

static const struct cfg_key cfg_wandb_keys[] = {
	{ .name = "id", .type = CFG_STR, .help = "the W&B run id the training logs to" },
	{ .name = "name", .type = CFG_STR, .help = "its display name" },
	{ .name = "resume", .type = CFG_STR, .def = "allow", .choices = "allow|never",
	  .help = "the resume policy the training passes to wandb.init" },
	{ .name = "dir", .type = CFG_STR, .def = "wandb",
	  .help = "where the wandb client writes its runs (run-<time>-<id>/, latest-run), relative "
	  "to workdir unless absolute: onbox watches latest-run for the run id (alert "
	  "wandb_identity) and its transaction log's growth (alert wandb_stale)" },
	{ .name = "stale_s", .type = CFG_INT, .min = 1, .max = CFG_TIMEOUT_MAX, .def = "3600",
	  .help = "wandb_stale when the run's transaction log (run-<id>.wandb, written in 32 KiB "
	  "blocks) has not grown this long while the log's step advances: longer than the run "
	  "takes to log 32 KiB" },
};
static const struct cfg_table cfg_wandb_table = CFG_TABLE("wandb", cfg_wandb_keys, 0);

static const struct cfg_key cfg_root_keys[] = {
	{ .name = "run", .type = CFG_STR, .field = FIELD(struct wk_config, run),
	  .flags = CFG_REQUIRED | CFG_NAME, .help = "the run's name" },
	{ .name = "profile", .type = CFG_STR, .field = FIELD(struct wk_config, profile),
	  .flags = CFG_NAME, .help = "merge profiles/<name>.json underneath this file" },
	{ .name = "workdir", .type = CFG_STR, .field = FIELD(struct wk_config, workdir),
	  .flags = CFG_REQUIRED, .help = "the run's directory on the box; stages run here" },
	{ .name = "hero", .type = CFG_BOOL, .def = "false",
	  .help = "a run too costly to guess (seed 004): progress.max and output_root are "
	  "required (the final step from the config, never a progress bar's text), the launch "
	  "gate refuses code that is not committed (refuse_dirty), and a relaunch with no "
	  "complete checkpoint stops and escalates instead of starting over from step 0" },
	{ .name = "output_root", .type = CFG_STR,
	  .help = "the run's pinned output directory on the box, relative to workdir unless "
	  "absolute: the launch gate refuses one that cannot be created or written (required "
	  "for a hero run)" },
	{ .name = "initialize_from", .type = CFG_STR,
	  .help = "a checkpoint the run starts from, relative to workdir unless absolute: the "
	  "launch gate refuses it without its metadata (checkpoints.complete_file, default "
	  "metadata.json) and shows the step that names" },
	{ .name = "refuse_dirty", .type = CFG_BOOL, .def = "false",
	  .help = "the launch gate refuses code (the workdir's git tree) with uncommitted changes "
	  "to tracked files unless launched with --allow-dirty (the diff's sha256 is recorded; the "
	  "same diff passes later launches); a hero run always refuses" },
	{ .name = "logbook", .type = CFG_OBJ, .sub = &cfg_logbook_table,
	  .help = "where LOGBOOK.md is kept besides patrol's state directory" },
	{ .name = "wandb", .type = CFG_OBJ, .sub = &cfg_wandb_table,
	  .help = "the W&B run this run must log to (shown and checked at launch)" },
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
const struct cfg_table cfg_root_table = CFG_TABLE("", cfg_root_keys, 0);

/* Keys a profile must not set: they belong to one run. */
const char *const cfg_profile_forbidden[] = { "run", "chain", "workdir", "profile" };
const size_t cfg_nprofile_forbidden =
    sizeof(cfg_profile_forbidden) / sizeof(cfg_profile_forbidden[0]);

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
