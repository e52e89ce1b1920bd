/*
 * probe.h: patrol's one combined probe: the script, and its strict parser.
 *
 * One POSIX sh script, built only with sshq quoting and sent as the stdin of
 * `sh -s` on one exec channel, gathers in one round trip everything the
 * decision table needs: liveness (tmux session, onbox and stage pids from the
 * heartbeat), markers and FAILED markers, the heartbeat itself, the tails of
 * the current attempt's output and of the stages' own logs, a DONE's caveats, the results file,
 * disk bytes and inodes, GPU, cgroup memory and OOM kills, and the transfer
 * target's file count and bytes.
 *
 * Output framing is line based and unambiguous: every line starts with '@'
 * (a section header) or '|' (a data line of the section above), and the last
 * line is "@end".  Any other line, a missing section or a missing "@end"
 * makes the whole probe a failure ("garbled" / "truncated"), never a verdict.
 * Log tails come back raw; patrol classifies them locally with the same
 * PCRE2 triage table onbox uses, so no regex dialect has to exist on the box.
 *
 * The probe is read once: probe_parse() with the run's config also turns
 * the sections that need reading into typed views (the Slurm jobs, the
 * checkpoint listing, the triage and the progress of the tails), so the
 * decision table (decide.h) works on data and parses nothing.
 */
#ifndef WK_PROBE_H
#define WK_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "slurm.h"
#include "triage.h"

#define PROBE_VERSION	1
#define PROBE_TAIL	16384	/* bytes of each log tail */
#define PROBE_MAX_OUT	(1u << 20)
#define PROBE_EVENTS	65536	/* bytes of events.jsonl per probe */
#define PROBE_EVENTS_S	"65536"
#define PROBE_HISTORY_S	"65536"	/* bytes of each stage's history */
#define PROBE_TAG_BYTES	16	/* random bytes of the header tag, new each probe */

/* The script for cfg; caller frees. */
char *probe_script(const struct wk_config *cfg);
/*
 * The same, with events.jsonl read from byte events_from on (at most
 * PROBE_EVENTS bytes); -1: its last PROBE_EVENTS bytes.  probe_script(cfg)
 * is probe_script_at(cfg, -1).
 */
char *probe_script_at(const struct wk_config *cfg, long long events_from);

/*
 * The framing the probe and mwait's check script share (after D=): the
 * header tag N, h HEADER, num KEY and live PID (probe_sh_prelude); the alive
 * section's data (probe_sh_alive); and the tr and awk that end the script's
 * { ... } (probe_sh_filter), which mark every line that is not a header as
 * data ('|').
 */
void probe_sh_prelude(struct buf *b);
void probe_sh_alive(struct buf *b);
void probe_sh_filter(struct buf *b);

struct ckpt_scan;

struct probe_log {
	char	*name;		/* "output" (newest attempt log) or the stage's log path */
	char	*path;		/* as on the box */
	char	*tail;		/* the last bytes, NUL-terminated */
	size_t	 len;
};

struct probe_failed {
	char	*marker;	/* without .FAILED */
	cJSON	*doc;		/* the FAILED marker's JSON, or NULL when unreadable */
};

struct probe {
	time_t		 box_time;
	int		 tmux;		/* 1 session exists, 0 not, -1 tmux missing or not used */
	long		 onbox_pid;	/* from state.json, 0 none */
	int		 onbox_alive;
	long		 stage_pid;
	int		 stage_alive;
	char		**markers;	/* present markers (no .FAILED ones) */
	size_t		 nmarkers;
	struct probe_failed *failed;
	size_t		 nfailed;
	cJSON		*state;		/* state.json, or NULL */
	struct probe_log *logs;
	size_t		 nlogs;
	char		*results;	/* results file content, or NULL */
	long		 disk_used_pct;	/* -1 unknown */
	long		 inode_used_pct;
	long long	 disk_avail_kb;
	char		*gpu;		/* nvidia-smi csv lines, or NULL */
	long long	 mem_current;	/* cgroup bytes, -1 unknown */
	long long	 mem_max;	/* -1 unknown or "max" */
	long		 oom_kills;	/* -1 unknown */
	long		 transfer_files;	/* -1 not configured or missing */
	long long	 transfer_bytes;
	/*
	 * events.jsonl: its size, the offset the lines start at, and the lines
	 * (each as on the box, '\n'-terminated; the last one may be cut short by
	 * the bound).  -1 / NULL when the box sent no @events section.
	 */
	long long	 events_size;
	long long	 events_from;
	char		*events;
	size_t		 events_len;
	struct probe_hist {
		char	*stage;
		cJSON	*doc;		/* stages/<stage>.json, or NULL when unreadable */
	}		*hist;		/* the stages that have a history */
	size_t		 nhist;
	char		*ckpt;		/* the checkpoint listing (ckpt_parse_listing), NULL: none */
	size_t		 ckpt_len;
	char		*slurm;		/* detach slurm: the query's output (slurm_parse), NULL: none */
	size_t		 slurm_len;
	/* .watchkeeper/stopped (`onbox stop`): {when, by, stage, attempt, how}; NULL: not stopped */
	cJSON		*stopped;
	/*
	 * .watchkeeper/caveats.json (caveats.h): what went wrong on the way to
	 * the DONE, {caveats: [...], text, more}; NULL: none (or unreadable).
	 */
	cJSON		*caveats;

	/*
	 * The typed views, read by probe_parse() with the run's config (all
	 * empty when it had none).  Each is read once, and only where the
	 * decision table can use it.
	 */
	/*
	 * detach slurm: the run's jobs as @slurm tells (slurm_parse).  A probe
	 * without a readable @slurm has a view with queue_known 0 and why said:
	 * the queue unseen, never "no job".
	 */
	struct slurm_view slurm_view;
	int		 has_slurm_view;
	struct ckpt_scan *ckpt_scan;	/* @ckpt read (ckpt_parse_listing), NULL: none or unreadable */
	/*
	 * The newest output tail through the triage rules, read only when the
	 * tail can tell why a run died: nothing of it lives (probe_alive), the
	 * chain is not done and its first missing stage left no FAILED marker.
	 * tail_crash: a crash signature was there; tail_cls is then what
	 * triage_classify makes of it as an exit 1, tail_evidence (owned) its line.
	 */
	int		 tail_crash;
	enum triage_class tail_cls;
	char		*tail_evidence;
	/*
	 * progress.pattern over the tails when the heartbeat has no
	 * progress.cur: the last match's step, and the first match's total
	 * (its second group); -1 none or not read.
	 */
	long		 tail_progress;
	long		 tail_progress_max;
};

/*
 * Parse a probe's stdout strictly.  0 and *p (caller frees with probe_free),
 * or WK_ERR_PARSE with *why (caller frees): "truncated: no @end", "garbled
 * line 12", "missing section @alive" ...  With cfg (the run's config) the
 * typed views are read too; NULL: the sections only (a look at the box
 * that decides nothing: deploy's idle check, the handbook's --check).
 */
int probe_parse(const struct wk_config *cfg, const char *text, size_t len, struct probe *p,
    char **why);
void probe_free(struct probe *p);

/* 1 when marker is present. */
int probe_has_marker(const struct probe *p, const char *marker);
/* The FAILED marker's document for marker, or NULL. */
const cJSON *probe_failed(const struct probe *p, const char *marker);
/* The attempt history of stage, or NULL. */
const cJSON *probe_history(const struct probe *p, const char *stage);
/* The tail named name ("output", or a stage log path), or NULL. */
const struct probe_log *probe_log(const struct probe *p, const char *name);
/* The index in cfg's chain of the first stage without its marker, -1 when every marker is there. */
long probe_first_missing(const struct probe *p, const struct wk_config *cfg);
/*
 * Whether something of the run lives, stage fm being the first missing one:
 * under Slurm its job waits or runs (slurm_job_live; an unreadable queue is
 * not alive, and says why in slurm_view.why), else the tmux session, onbox
 * or the stage process.  The decision table's liveness (decide.c).
 */
int probe_alive(const struct probe *p, const struct wk_config *cfg, long fm);

#endif
