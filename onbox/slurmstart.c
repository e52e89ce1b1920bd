/*
 * slurmstart.c: `onbox start` with "detach": "slurm": the chain as Slurm
 * jobs joined by --dependency=afterok, submitted from the login node.
 *
 * Idempotent by the job names (core/slurm.h): the queue is asked first, and
 * for each stage without its marker
 *   - a live job of its name (waiting or running) is adopted, not submitted
 *     again, and the next stage depends on it;
 *   - a stranded job (DependencyNeverSatisfied: the stage before it failed)
 *     is cancelled and replaced;
 *   - a waiting job whose upstream is being resubmitted now depends on a job
 *     that will never succeed: it is cancelled and replaced too;
 *   - otherwise (no job, or only finished ones) a new job is submitted.
 * When the queue cannot be read nothing is submitted: not knowing what is
 * queued is not the same as nothing being queued.  One `onbox start` at a
 * time per run (.watchkeeper/slurm.lock); every submission, adoption and
 * cancellation goes to .watchkeeper/slurm.json (atomically) and to the
 * events, so the attempt history of each stage (attempt -> job id) survives
 * resubmissions.
 *
 * Exit: 0 something was submitted (or every marker is present), 75 every
 * missing stage already has a live job (nothing submitted), or another
 * start holds the lock, or the queue could not be read; 1 sbatch or scancel
 * failed; 74 the state files cannot be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "config.h"
#include "err.h"
#include "events.h"
#include "history.h"
#include "jobctl.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "onbox.h"
#include "proc.h"
#include "slurm.h"
#include "slurmstart.h"
#include "sshq.h"
#include "xmalloc.h"

#define SLURM_STATE	"slurm.json"

/* What start did with one stage. */
enum ss_what { SS_DONE, SS_ADOPTED, SS_SUBMITTED, SS_FAILED };

static const char *const ss_words[] = { "done", "in the queue", "submitted", "not submitted" };

struct ss_stage {
	enum ss_what	 what;
	char		*id;		/* its job (adopted or new), NULL none */
	char		*after;		/* the job it depends on, NULL none */
	char		 state[32];	/* an adopted job's state */
	char		 reason[96];
};

struct ss_cancel {
	char		*id;
	const char	*stage;
	const char	*why;
};

struct slurmstart {
	struct wk_config *cfg;
	const char	*self;
	const char	*cfgpath;
	struct jobctl	 jc;
	char		 instance[17];
	cJSON		*doc;		/* slurm.json */
	struct ss_stage	*st;		/* one per chain stage */
	struct ss_cancel *cancel;	/* jobs to cancel before submitting */
	size_t		 ncancel;
};

/* The stage's record in slurm.json, created when missing. */
static cJSON *
ss_record(struct slurmstart *s, const char *stage)
{
	cJSON *stages = cJSON_GetObjectItem(s->doc, "stages"), *r;

	if (!cJSON_IsObject(stages)) {
		cJSON_DeleteItemFromObject(s->doc, "stages");
		stages = cJSON_AddObjectToObject(s->doc, "stages");
	}
	if (!cJSON_IsObject(r = cJSON_GetObjectItem(stages, stage))) {
		cJSON_DeleteItemFromObject(stages, stage);
		r = cJSON_AddObjectToObject(stages, stage);
	}
	if (!cJSON_IsArray(cJSON_GetObjectItem(r, "jobs"))) {
		cJSON_DeleteItemFromObject(r, "jobs");
		cJSON_AddArrayToObject(r, "jobs");
	}
	return r;
}

/*
 * Note job id of stage in slurm.json (once per id) and say it in the events:
 * how ("submitted", "adopted", "cancelled") and, for a new job, what it waits for.
 */
/*
 * cmd (an sbatch line) keeping stage idx's job off the nodes where an
 * attempt of it failed with bad_accelerator (its "node", SLURMD_NODENAME):
 * the seeds never put a stage back onto a bad accelerator.  Consumes cmd.
 */
static char *
ss_exclude(const struct slurmstart *s, size_t idx, char *cmd)
{
	cJSON *hist = hist_load(s->cfg->workdir, s->cfg->chain[idx].name);
	char *nodes = hist_nodes_of_class(hist, NULL, "bad_accelerator", "node"), *w;
	struct buf b = BUF_INIT;

	cJSON_Delete(hist);
	if (nodes == NULL || strncmp(cmd, "sbatch ", 7) != 0) {
		free(nodes);
		return cmd;
	}
	w = xstrfmt("--exclude=%s", nodes);
	buf_puts(&b, "sbatch ");
	sshq_append(&b, w);
	buf_puts(&b, cmd + 6);
	log_warn("stage %s: submitted with %s: an attempt failed with bad_accelerator there",
	    s->cfg->chain[idx].name, w);
	free(w);
	free(nodes);
	free(cmd);
	return buf_detach(&b);
}

static void
ss_note(struct slurmstart *s, const char *stage, const char *id, const char *how,
    const char *after, const char *why)
{
	cJSON *r = ss_record(s, stage), *jobs = cJSON_GetObjectItem(r, "jobs"), *it, *j = NULL, *ev;
	static const struct {
		const char	*how;
		const char	*event;
	} evs[] = {
		{ "submitted", "job_submitted" }, { "adopted", "job_adopted" },
		{ "cancelled", "job_cancelled" },
	};
	size_t i;

	cJSON_ArrayForEach(it, jobs)
		if (strcmp(json_str(it, "job_id", ""), id) == 0)
			j = it;
	if (j == NULL) {
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "job_id", id);
		cJSON_AddNumberToObject(j, "n", (double)cJSON_GetArraySize(jobs) + 1);
		cJSON_AddItemToArray(jobs, j);
	}
	{
		char *k = xstrfmt("%s_unix", how);

		json_set_num(j, k, (double)time(NULL));
		free(k);
	}
	if (after != NULL)
		json_set_str(j, "after", after);
	if (strcmp(how, "cancelled") != 0)
		json_set_str(r, "job_id", id);
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		if (strcmp(evs[i].how, how) != 0)
			continue;
		ev = events_new(s->instance, s->cfg->run, evs[i].event, stage,
		    json_long(j, "n", 1));
		cJSON_AddStringToObject(ev, "job_id", id);
		if (after != NULL)
			cJSON_AddStringToObject(ev, "after", after);
		if (why != NULL)
			cJSON_AddStringToObject(ev, "why", why);
		if (events_append(s->cfg->workdir, ev) != 0)
			log_warn("cannot append to the events: %s", wk_strerror(WK_ERR_SYSTEM));
		cJSON_Delete(ev);
	}
}

static int
ss_save(struct slurmstart *s)
{
	char *p = layout_path(s->cfg->workdir, SLURM_STATE);
	int rc;

	json_set_str(s->doc, "run", s->cfg->run);
	json_set_num(s->doc, "updated_unix", (double)time(NULL));
	rc = jsonfile_save(p, s->doc);
	if (rc != 0)
		log_error("cannot write %s: %s", p, wk_strerror(WK_ERR_SYSTEM));
	free(p);
	return rc;
}

/* Ask the queue.  0 and *sv, or WK_EX_TEMPFAIL (said) when what is queued cannot be known. */
static int
ss_query(struct slurmstart *s, struct slurm_view *sv)
{
	char *why = NULL;
	int rc = 0;

	if (slurm_ask(s->cfg, sv, &why) != 0) {
		log_error("cannot ask Slurm about run %s: %s; not submitting anything", s->cfg->run,
		    why != NULL ? why : "?");
		rc = WK_EX_TEMPFAIL;
	} else if (!sv->queue_known) {
		log_error("cannot tell which jobs of run %s are queued (%s); not submitting anything: "
		    "`onbox start` again once squeue answers", s->cfg->run,
		    sv->why != NULL ? sv->why : "squeue said nothing");
		slurm_view_free(sv);
		rc = WK_EX_TEMPFAIL;
	}
	free(why);
	return rc;
}

/* Decide every stage: adopt, replace or submit (nothing is run yet). */
static void
ss_plan(struct slurmstart *s, const struct slurm_view *sv)
{
	size_t i;
	int upstream_new = 0;		/* a stage before this one gets a new job now */

	for (i = 0; i < s->cfg->nchain; i++) {
		struct ss_stage *t = &s->st[i];
		const struct slurm_job *j;

		if (runner_has_marker(s->cfg, i)) {
			t->what = SS_DONE;
			continue;	/* a done stage leaves nothing to wait for */
		}
		j = slurm_stage_job(sv, s->cfg->chain[i].name);
		if (j != NULL && j->cls == SLURM_RUNNING && upstream_new)
			log_warn("stage %s: job %s runs although the stage before it is not done; "
			    "leaving it alone", s->cfg->chain[i].name, j->id);
		/* in the queue in a state we do not know: it may run, never submit beside it */
		if (j != NULL && (j->cls == SLURM_RUNNING || (j->cls == SLURM_UNKNOWN && j->in_queue) ||
		    (j->cls == SLURM_WAITING && !upstream_new))) {
			t->what = SS_ADOPTED;
			t->id = xstrdup(j->id);
			snprintf(t->state, sizeof(t->state), "%s", j->state);
			snprintf(t->reason, sizeof(t->reason), "%s", j->reason);
		} else {
			size_t k;

			/* stranded, or waiting on a job being replaced: it would never start */
			for (k = 0; k < sv->njobs; k++) {
				const struct slurm_job *o = &sv->jobs[k];

				if (strcmp(o->stage, s->cfg->chain[i].name) != 0 ||
				    !(o->cls == SLURM_STRANDED || o->cls == SLURM_WAITING))
					continue;
				s->cancel = xreallocarray(s->cancel, s->ncancel + 1, sizeof(*s->cancel));
				s->cancel[s->ncancel].id = xstrdup(o->id);
				s->cancel[s->ncancel].stage = s->cfg->chain[i].name;
				s->cancel[s->ncancel++].why = o->cls == SLURM_STRANDED ?
				    "stranded: the stage before it failed" :
				    "it waited for a job that is being replaced";
			}
			t->what = SS_SUBMITTED;	/* to be */
			upstream_new = 1;
		}
	}
}

/* Cancel, then submit in chain order.  0, or 1 (said) when Slurm refused. */
static int
ss_carry_out(struct slurmstart *s)
{
	char *cmd, *out = NULL, *why = NULL, *prev = NULL;
	size_t i;
	int rc = 0;

	if (s->ncancel > 0) {
		const char **ids = xcalloc(s->ncancel, sizeof(*ids));

		for (i = 0; i < s->ncancel; i++)
			ids[i] = s->cancel[i].id;
		cmd = slurm_scancel_command(ids, s->ncancel);
		free(ids);
		if (jobctl_exec(&s->jc, "scancel", cmd, &out, &why) != 0) {
			log_error("cannot cancel the jobs that can never start: %s", why);
			rc = 1;
		}
		for (i = 0; i < s->ncancel && rc == 0; i++)
			ss_note(s, s->cancel[i].stage, s->cancel[i].id, "cancelled", NULL, s->cancel[i].why);
		free(cmd);
		free(out);
		free(why);
		out = why = NULL;
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < s->cfg->nchain; i++) {
		struct ss_stage *t = &s->st[i];

		if (t->what == SS_DONE) {
			prev = NULL;
			continue;
		}
		if (t->what == SS_ADOPTED) {
			ss_note(s, s->cfg->chain[i].name, t->id, "adopted", NULL, NULL);
			prev = t->id;
			continue;
		}
		if (rc != 0) {
			t->what = SS_FAILED;
			continue;
		}
		free(t->after);
		t->after = prev != NULL ? xstrdup(prev) : NULL;
		if ((cmd = slurm_sbatch_command(s->cfg, i, s->self, s->cfgpath, t->after, &why)) == NULL ||
		    (cmd = ss_exclude(s, i, cmd)) == NULL ||
		    jobctl_exec(&s->jc, "sbatch", cmd, &out, &why) != 0 ||
		    (t->id = slurm_parse_sbatch(out)) == NULL) {
			log_error("stage %s: sbatch failed: %s", s->cfg->chain[i].name,
			    why != NULL ? why : "its output has no job id");
			/* a timed-out sbatch may have created the job all the same (NOTES) */
			log_error("a job may have been submitted all the same: `onbox start` again "
			    "finds it by its name before submitting anything");
			t->what = SS_FAILED;
			rc = 1;
		} else
			ss_note(s, s->cfg->chain[i].name, t->id, "submitted", t->after, NULL);
		free(cmd);
		free(out);
		free(why);
		out = why = NULL;
		prev = t->id;
	}
	return rc;
}

static void
ss_report(const struct slurmstart *s, int submitted)
{
	char *names;
	size_t i;
	const char *sep = "";

	printf("run %s on Slurm:", s->cfg->run);
	for (i = 0; i < s->cfg->nchain; i++) {
		const struct ss_stage *t = &s->st[i];

		printf("%s %s ", sep, s->cfg->chain[i].name);
		sep = ",";
		if (t->id != NULL)
			printf("job %s ", t->id);
		printf("(%s", ss_words[t->what]);
		if (t->what == SS_ADOPTED && t->reason[0] != '\0' && strcmp(t->reason, "None") != 0)
			printf(": %s, %s", t->state, slurm_reason_text(t->reason));
		else if (t->what == SS_ADOPTED)
			printf(": %s", t->state);
		if (t->after != NULL && t->what == SS_SUBMITTED)
			printf(", after %s", t->after);
		printf(")");
	}
	printf("\n");
	if (!submitted)
		printf("  nothing submitted: every missing stage already has a job in the queue\n");
	names = slurm_names(s->cfg);
	printf("  watch:  squeue --name=%s\n  status: %s -c %s status\n", names, s->self, s->cfgpath);
	free(names);
}

int
slurmstart_run(struct wk_config *cfg, const char *self, const char *cfgpath)
{
	struct slurmstart s;
	struct slurm_view sv;
	struct diag d = DIAG_INIT;
	char *lockp = NULL, *statep = NULL, *failed = NULL;
	size_t i;
	int rc = 0, lockfd = -1, submitted = 0, missing = 0;

	memset(&s, 0, sizeof(s));
	memset(&sv, 0, sizeof(sv));
	s.cfg = cfg;
	s.self = self;
	s.cfgpath = cfgpath;
	jobctl_init(&s.jc, cfg);
	if (slurm_check(cfg, &d) != 0) {
		diag_print(&d, stderr);
		rc = WK_EX_CONFIG;
		goto out;
	}
	for (i = 0; i < cfg->nchain; i++)
		if (cfg->chain[i].has_wait) {
			log_error("%s: stage %s is a wait: with \"detach\": \"slurm\" every stage is a job "
			    "with a \"run\" command", cfg->path, cfg->chain[i].name);
			rc = WK_EX_CONFIG;
			goto out;
		}
	if (layout_create(cfg->workdir, &failed) != 0) {
		log_error("cannot create %s: %s", failed, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	lockp = layout_path(cfg->workdir, "slurm.lock");
	if ((lockfd = lock_try(lockp)) < 0) {
		log_error(lockfd == WK_ERR_BUSY ? "another `onbox start` is submitting run %s (%s held)" :
		    "cannot lock run %s's %s", cfg->run, lockp);
		rc = lockfd == WK_ERR_BUSY ? WK_EX_TEMPFAIL : WK_EX_IOERR;
		goto out;
	}
	if (events_instance(cfg->workdir, s.instance) != 0) {
		log_error("cannot write the instance id in %s: %s", cfg->workdir, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	for (i = 0; i < cfg->nchain; i++)
		missing += !runner_has_marker(cfg, i);
	if (missing == 0) {
		printf("run %s: nothing to do, every marker is already present\n", cfg->run);
		goto out;
	}
	statep = layout_path(cfg->workdir, SLURM_STATE);
	if (jsonfile_load(statep, &s.doc) != 0 || !cJSON_IsObject(s.doc)) {
		cJSON_Delete(s.doc);
		s.doc = cJSON_CreateObject();
	}
	if ((rc = ss_query(&s, &sv)) != 0)
		goto out;
	s.st = xcalloc(cfg->nchain, sizeof(*s.st));
	ss_plan(&s, &sv);
	rc = ss_carry_out(&s);
	for (i = 0; i < cfg->nchain; i++)
		submitted += s.st[i].what == SS_SUBMITTED;
	if (ss_save(&s) != 0 && rc == 0)
		rc = WK_EX_IOERR;
	ss_report(&s, submitted);
	if (rc == 0 && submitted == 0)
		rc = WK_EX_TEMPFAIL;	/* as `onbox start` says of a run that already runs */
 out:
	for (i = 0; s.st != NULL && i < cfg->nchain; i++) {
		free(s.st[i].id);
		free(s.st[i].after);
	}
	free(s.st);
	for (i = 0; i < s.ncancel; i++)
		free(s.cancel[i].id);
	free(s.cancel);
	cJSON_Delete(s.doc);
	slurm_view_free(&sv);
	diag_free(&d);
	if (lockfd >= 0)
		close(lockfd);
	free(lockp);
	free(statep);
	free(failed);
	return rc;
}
