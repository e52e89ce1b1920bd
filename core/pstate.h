/*
 * pstate.h: patrol's state file, <statedir>/patrol.json: the one module that
 * reads and writes it.  patrol writes it (patrol/tick.c every tick,
 * patrol/deploy.c after a deploy, under patrol.lock); the handbook reads it
 * (the renderer, linked into patrol and the handbook binary, and `handbook`
 * without the lock).  It lives in core, below both, so that neither needs
 * the other to read it.
 *
 * The document: one JSON object.  Keys (patrol writes them every tick):
 *   run, instance (this machine's id for the run's events),
 *   verdict, details, last_tick (UTC ISO), ticks, unseen_ticks,
 *   config (the absolute path of the config file the last tick ran with; patrol mcp),
 *   caveats_text "nan_loss at step 15 (attempt 1), 1 restart"  a DONE's caveats (caveats.h)
 *   seen_at (UTC ISO of the last tick that saw the box),
 *   progress, progress_max (numbers; absent when unknown),
 *   markers   ["TRAIN_DONE", ...]      present at the last seen tick
 *   failed    {"TRAIN_DONE": {"class": "oom", "attempt": 2, "last_line": "..."}}
 *   stage, attempt                     the box's current stage and attempt (state.json)
 *   attempts  {"train": 2, ...}        attempts per stage, when known
 *   resumes   [{time, was, class?, exit_status}]
 *   wandb     "https://wandb.ai/..."   when seen
 *   checkpoint {"path":..., "step":..., "age_s":...}
 *   slurm     each stage's job as last seen (tick.c)
 *   events_offset  how far the box's events.jsonl has been read (journal.c)
 *   transport "openssh: ProxyJump bastion"  the ssh transport and why (target_transport_text)
 *   deploy    {"at", "arch", "onbox_version", "onbox_path", "onbox_source": "uploaded"|
 *             "--onbox"|"box", "http": onbox --version's line 2, "tmux_missing": bool}
 *             what the last `patrol deploy` learned about the box (deploy writes it)
 */
#ifndef WK_PSTATE_H
#define WK_PSTATE_H

#include <cJSON.h>

#define PSTATE_FILE	"patrol.json"
#define PSTATE_LOCK	"patrol.lock"

/* The run's local state: <statedir>/patrol.json, report.log, outbox/, patrol.lock. */
struct pstate {
	char	*dir;
	cJSON	*doc;		/* patrol.json; never NULL after pstate_open */
	int	 lockfd;
};

/*
 * Take dir's lock (WK_ERR_BUSY when another patrol ticks) and load the state
 * (a fresh {"run": run} when missing or garbled), with an "instance" id.
 * s->dir is a copy of dir.  0 or a WK_ERR_* code.
 */
int pstate_open_dir(const char *dir, const char *run, struct pstate *s);
/* Write the state atomically.  0, or WK_ERR_SYSTEM with errno. */
int pstate_save(struct pstate *s);
void pstate_close(struct pstate *s);

/* patrol.json in statedir, read without the lock; NULL when missing or unreadable (warned). */
cJSON *pstate_load(const char *statedir);

#endif
