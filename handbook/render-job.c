/*
 * render-job.c: the handbook's "Cluster jobs" section, for a run whose
 * stages are a cluster manager's jobs (detach job: the ray, iris and
 * slurm-job profiles): what each stage's job is (ours by name, or adopted),
 * how it is recovered, the CLI's dialects, the commands to look by hand,
 * and the seeds' rules onbox keeps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "jobctl.h"
#include "jsonfile.h"
#include "layout.h"
#include "md.h"
#include "render-int.h"
#include "xmalloc.h"

/* The job section's command key ("status"), or a dialect's, as a code block. */
static void
hb_job_cmd(struct hb *h, const cJSON *src, const char *key, const char *what)
{
	const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, key));

	if (cmd == NULL)
		return;
	buf_printf(&h->b, "%s:\n\n", what);
	md_block(&h->b, "sh", cmd);
}

void
hb_jobs(struct hb *h)
{
	struct buf *b = &h->b;
	const cJSON *job = cJSON_GetObjectItemCaseSensitive(h->cfg->root, "job"), *dl;
	const cJSON *dls = cJSON_GetObjectItemCaseSensitive(job, "dialects");
	char *jf = layout_path(h->cfg->workdir, "job.json");
	size_t i;

	buf_puts(b, "Each stage is a job of the cluster manager, submitted as `wk-<run>-<stage>` "
	    "(found again by that name, never submitted twice while one lives), or a job that "
	    "was already running when watchkeeper started (adopted: `chain[].adopt`). onbox runs where the "
	    "manager's CLI works, polls the job's state, copies its log into the attempt's "
	    "output log, and writes markers and FAILED markers as on a box.");
	hb_table_head(b, " The stages' jobs:", "stage|job|recovery");
	for (i = 0; i < h->cfg->nchain; i++) {
		const struct wk_stage *s = &h->cfg->chain[i];
		char *n = jobctl_job_name(h->cfg, s->name);

		buf_puts(b, "| ");
		md_cell(b, s->name);
		buf_puts(b, " | ");
		if (s->adopt != NULL) {
			buf_puts(b, "adopts ");
			md_code(b, s->adopt);
		} else
			md_code(b, n);
		buf_puts(b, " | ");
		if (s->adopt != NULL && s->resubmit != NULL) {
			buf_puts(b, "the owner's resubmit: ");
			md_code(b, s->resubmit);
		} else if (s->adopt != NULL && s->run == NULL)
			buf_puts(b, "none: a failure is reported to the owner");
		else
			buf_puts(b, "submitted again as its name");
		buf_puts(b, " |\n");
		free(n);
	}
	buf_puts(b, "\n");
	if (cJSON_GetArraySize(dls) > 0) {
		buf_puts(b, "The CLI changed between versions; onbox detects which one this is once per "
		    "run (the first whose detect command exits 0) and records it in ");
		md_code(b, jf);
		buf_puts(b, ":\n\n");
		cJSON_ArrayForEach(dl, dls) {
			buf_puts(b, "- ");
			md_code(b, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dl, "name")));
			buf_puts(b, ": ");
			md_code(b, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dl, "detect")));
			buf_puts(b, "\n");
		}
		buf_puts(b, "\n");
	}
	buf_puts(b, "By hand, where onbox runs ({id} is the job's id, in the attempt record "
	    "`.watchkeeper/attempts/<stage>.<n>.json`; {since_ms} 0 for the whole log; a "
	    "dialect's command replaces the one below):\n\n");
	hb_job_cmd(h, job, "status", "The job's state");
	hb_job_cmd(h, job, "logs", "Its log");
	hb_job_cmd(h, job, "stop", "Stop it");
	cJSON_ArrayForEach(dl, dls) {
		char *what = xstrfmt("Dialect `%s`: the job's state",
		    json_str(dl, "name", "?"));

		hb_job_cmd(h, dl, "status", what);
		free(what);
		what = xstrfmt("Dialect `%s`: stop it", json_str(dl, "name", "?"));
		hb_job_cmd(h, dl, "stop", what);
		free(what);
	}
	buf_printf(b, "The seeds' rules, kept by onbox: pending is waiting, never a failure (past "
	    "job.pending_alert_s, %ld s, one degraded `capacity_wait` alert and nothing changed); "
	    "a job the manager failed with no cause in its log is `cluster_failure` (retried within "
	    "the budget); `bad_accelerator` never goes back onto the same node (Slurm: the next "
	    "submit excludes it; Ray and Iris: the owner is asked, policy rule `consent`); no "
	    "progress with `OwnerDiedError`, a dead node or the autoscaler's unsatisfied resources "
	    "in the job's log is DEGRADED (`cluster_stall`); the cluster itself is never changed "
	    "without the owner's consent.\n\n", config_get_int(h->cfg, "job.pending_alert_s"));
	free(jf);
}
