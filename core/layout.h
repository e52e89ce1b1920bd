/*
 * layout.h: where everything of watchkeeper's lives under <workdir>/.watchkeeper/
 * (a contract: DESIGN.md; the probe, the handbook and tests rely on it).
 *
 *   markers/<MARKER>            a stage succeeded (and every stage before it)
 *   markers/<MARKER>.FAILED     the stage failed: class, exit, last lines
 *   logs/<stage>.<attempt>.log  stdout+stderr of one attempt
 *   state.json                  onbox's heartbeat
 *   events.jsonl                append-only event log
 *   caveats.json                the DONE chain's caveats (health alerts, restarts; caveats.h),
 *                               written when it finishes with some, removed when it starts again
 *   outbox/                     notifications not yet delivered
 *   stages/<stage>.json         the stage's attempt history (onbox writes)
 *   attempts/<stage>.<n>.json   one attempt's process record (its wrapper writes)
 *   attempts/<stage>.<n>.lock   held by the attempt's wrapper while it lives
 *   attempts/<stage>.<n>.config.json  the effective config the attempt launched with
 *   onbox.lock                  held by the one `onbox run` of this run
 *   onbox.log                   onbox's own diagnostics
 *   stop.request                `onbox stop` asks the running onbox to stop the run (who, when)
 *   stopped                     the run was stopped on purpose (when, by, stage, attempt);
 *                               nothing resumes it until `onbox start`/`onbox run` removes it
 *   instance                    random id of this workdir's run, for event ids
 *   scan.json                   how far the current attempt's logs were read, and what
 *                               they showed (done line, progress, crash signatures, health)
 *   secrets                     url_env/token_env values patrol sent (0600; notify.h);
 *                               read by onbox only, never copied
 * All functions return new strings; the caller frees.
 */
#ifndef WK_LAYOUT_H
#define WK_LAYOUT_H

#define LAYOUT_DIR	".watchkeeper"

struct wk_config;

char *layout_root(const char *workdir);
/* <root>/<sub> for a fixed file or directory name ("state.json", "markers"). */
char *layout_path(const char *workdir, const char *sub);
char *layout_marker(const char *workdir, const char *marker);
char *layout_failed(const char *workdir, const char *marker);
char *layout_attempt_log(const char *workdir, const char *stage, long attempt);
/* Relative to the workdir, for records and messages: ".watchkeeper/logs/train.2.log". */
char *layout_attempt_log_rel(const char *stage, long attempt);
char *layout_stage_file(const char *workdir, const char *stage);
char *layout_attempt_record(const char *workdir, const char *stage, long attempt);
char *layout_attempt_config(const char *workdir, const char *stage, long attempt);
char *layout_attempt_lock(const char *workdir, const char *stage, long attempt);
/* Create the directory tree; 0 or WK_ERR_SYSTEM (errno set, *failed = the path). */
int layout_create(const char *workdir, char **failed);

/*
 * On the owner's machine: $XDG_STATE_HOME/watchkeeper/<run> (default ~/.local/state/... on
 * Linux, ~/Library/Application Support/... on macOS: os.h os_state_home), created
 * (0700) when create is set.  Returns a new string, or NULL with errno.
 */
char *statedir_path(const struct wk_config *cfg, int create);
/* $XDG_STATE_HOME/watchkeeper (default ~/<os_state_home>/watchkeeper), not created; NULL with errno. */
char *statedir_base(void);

#endif
