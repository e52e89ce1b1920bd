/*
 * handbook.h: layer 4, HANDBOOK.md: everything a brand-new person or agent
 * needs to take the run over, generated from the same config, state and
 * tables the code runs on (the decision table is decide_table[], the triage
 * table triage_classes[]), so the document cannot drift from the program.
 *
 * Sections: the run contract; first command on reconnect (and what to do
 * for each verdict); current status; the chain; every marker path; exact
 * resume commands; the patrol decision table; the cron line and how to
 * remove it; the sentinel commands to arm; the triage table.  Secrets are
 * never written: only names (url_env, token_env) appear, never values, and
 * every text taken from the box or the state goes through notify_scrub().
 *
 * The end of the file carries what it claims in machine-readable form, one
 * HTML comment line:
 *   <!-- watchkeeper:claims {"markers":{"TRAIN_DONE":true,...},"failed":{...},"cron":true} -->
 * `handbook --check` reads that line back and compares it with the box and
 * the crontab (drift).
 */
#ifndef WK_HANDBOOK_H
#define WK_HANDBOOK_H

#include <cJSON.h>

#include "config.h"

#define HANDBOOK_FILE	"HANDBOOK.md"
#define CLAIMS_TAG	"<!-- watchkeeper:claims "

struct handbook_ctx {
	const struct wk_config *cfg;
	const char	*config_path;	/* the config on this machine, absolute */
	const char	*bindir;	/* absolute dir holding patrol, sentinel, handbook; NULL: bare names */
	const char	*statedir;	/* the run's local state dir */
	const cJSON	*pstate;	/* patrol.json (pstate_load(), pstate.h), or NULL: never ticked */
	int		 cron;		/* 1 this run's crontab line is installed, 0 not, -1 unknown */
	const char	*generator;	/* who writes it, for the note ("patrol"); NULL: log_prog() */
	const char	*transport;	/* target_transport_text; NULL: pstate's "transport" */
};

/* patrol.json's keys the handbook reads: see pstate.h (its one reader and writer). */

/* The markdown; caller frees.  Never fails (missing state reads "unknown"). */
char *handbook_render(const struct handbook_ctx *c);
/* Render and write atomically to path (0600).  0, or WK_ERR_SYSTEM with errno. */
int handbook_write(const struct handbook_ctx *c, const char *path);

/*
 * The claims a handbook rendered now makes (what its last line holds):
 * {"markers": {M: bool} for every chain marker, only when the state lists
 * the markers the last seen tick found; "failed": {M: bool} likewise, when
 * it lists them or the FAILED ones; "cron": bool unless unknown;
 * "generated": generated}.  Caller cJSON_Delete()s.
 */
cJSON *handbook_claims(const struct handbook_ctx *c, const char *generated);
/*
 * Find the claims line in a handbook's text (the last line starting with
 * CLAIMS_TAG) and parse it: 0 and *out (an object; caller cJSON_Delete()s),
 * or WK_ERR_NOTFOUND (no such line) / WK_ERR_PARSE (garbled) with *out NULL.
 */
int handbook_claims_parse(const char *text, cJSON **out);

#endif
