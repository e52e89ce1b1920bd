/*
 * render-record.c: the handbook's "Run record" section: where the run's
 * history lives for others (the logbook, its git repository, the GitHub
 * issue), whether the last push and comments went out, the launch gate a
 * hero run passes at every launch, and the seal.  From the config and
 * patrol.json ("logbook_git", "github", "seal"); nothing is fetched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "jsonfile.h"
#include "logbook.h"
#include "logbookgit.h"
#include "md.h"
#include "render-int.h"
#include "xmalloc.h"

void
hb_record(struct hb *h)
{
	struct buf *b = &h->b;
	const cJSON *lg = cJSON_GetObjectItemCaseSensitive(h->ps, "logbook_git");
	const cJSON *gh = cJSON_GetObjectItemCaseSensitive(h->ps, "github");
	const cJSON *seal = cJSON_GetObjectItemCaseSensitive(h->ps, "seal"), *it;
	int hero = config_get_bool(h->cfg, "hero"), has_gh = 0;

	buf_puts(b, "- Logbook: " LOGBOOK_FILE " beside this handbook (every launch with its "
	    "command, git state and checkpoint, every failure, verdict change and act).\n");
	if (logbook_git_configured(h->cfg)) {
		char *p = logbook_git_path(h->cfg);

		buf_puts(b, "- Also committed and pushed after each update to ");
		md_code(b, config_get_str(h->cfg, "logbook.git"));
		buf_puts(b, ", file ");
		md_code(b, p);
		if (cJSON_IsObject(lg)) {
			buf_printf(b, "; the last try (%s) ", json_str(lg, "at", "?"));
			if (json_bool(lg, "pushed", 0))
				buf_puts(b, "pushed");
			else {
				buf_puts(b, "did NOT push: ");
				hb_boxtext(h, json_str(lg, "why", "unknown"), 0);
				buf_puts(b, " (the commit is kept; the next tick pushes it)");
			}
		}
		buf_puts(b, ".\n");
		free(p);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(h->cfg->root, "notify"))
		if (strcmp(json_str(it, "type", ""), "github") == 0 && !has_gh) {
			has_gh = 1;
			buf_puts(b, "- GitHub issue of ");
			md_code(b, json_str(it, "repo", "?"));
			if (json_str(gh, "url", NULL) != NULL) {
				buf_puts(b, ": ");
				hb_boxtext(h, json_str(gh, "url", ""), 0);
			} else if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(gh, "issue")) ||
			    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(it, "issue")))
				buf_printf(b, " #%ld", json_long(gh, "issue", json_long(it, "issue", 0)));
			else
				buf_puts(b, " (created by patrol at its first delivery)");
			buf_printf(b, "; patrol comments each launch, relaunch, failure, verdict change "
			    "and the seal (🤖), and a digest every 24 h; %d comment(s) wait now.\n",
			    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(gh, "pending")));
		}
	if (hero)
		buf_puts(b, "- A hero run: every launch (`patrol deploy`, `onbox start`, a resume) "
		    "passes the launch gate first: the contract printed, uncommitted code refused "
		    "unless `--allow-dirty` (its diff's sha256 recorded), output_root and "
		    "initialize_from checked; `patrol deploy --check` shows it and starts nothing. A "
		    "relaunch never starts over from step 0.\n");
	if (json_bool(seal, "done", 0)) {
		buf_printf(b, "- SEALED at %s: ", json_str(seal, "at", "?"));
		hb_boxtext(h, json_str(seal, "text", ""), 0);
		buf_puts(b, "\n");
	} else {
		char *cmd = xstrfmt("%s -c %s seal\n", h->patrol, h->cfgq);

		if (json_bool(seal, "entry", 0))
			buf_printf(b, "- The seal is written (%s) but not finished (push, tag): run it "
			    "again:\n\n", json_str(seal, "at", "?"));
		else
			buf_printf(b, "- Not sealed. When the run is done, this verifies the markers, "
			    "the final checkpoint, W&B's final summary and the results, then writes, "
			    "pushes and tags (seal/<run>) the record and removes the schedule:\n\n");
		md_block(b, "sh", cmd);
		free(cmd);
	}
	buf_puts(b, "\n");
}
