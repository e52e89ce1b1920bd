/*
 * seal.c: `patrol seal`: the end of a hero run, made once and on the record.
 *
 * Over one connection: the probe (the markers, the checkpoint listing, the
 * results, the caveats), then one read-only script for the final
 * checkpoint's metadata and W&B's final state (latest-run, its transaction
 * log's name, files/wandb-summary.json: wandb-core writes the summary when
 * the run finishes).  Every check must pass, or the seal is blocked and
 * each missing piece named (exit 1, nothing written):
 *   - terminal success: every marker of the chain present;
 *   - the final checkpoint (checkpoints configured): the newest complete one
 *     is at the final step (progress.max) and its metadata is a JSON object;
 *   - W&B (a "wandb" section): the latest run is wandb.id's, its summary
 *     exists and parses with a _step;
 *   - the results file (results set) was read.
 * Then the seal entry (final metrics, final step, W&B id and name, output
 * root, final checkpoint, caveats) goes to the logbook, the logbook is
 * committed and pushed and tagged seal/<run> (logbook.git), and the schedule
 * is removed.  patrol.json keeps how far the seal got ("seal"), so a seal
 * whose push failed is finished by running `patrol seal` again, never
 * written twice.
 *
 * Exit: 0 sealed (or already), 1 blocked or a step failed (said), 2 the box
 * could not be seen, 78 config error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "ckpt.h"
#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "gate.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "logbook.h"
#include "logbookgit.h"
#include "monotime.h"
#include "patrol.h"
#include "probe.h"
#include "pstate.h"
#include "ssh.h"
#include "sshq.h"
#include "target.h"
#include "xmalloc.h"

#define SEAL_BUDGET_S	120
#define SEAL_READ_MAX	65536

struct seal {
	const struct wk_config *cfg;
	struct probe	 p;
	int		 parsed;
	char		*meta;		/* the final checkpoint's metadata text, or NULL */
	char		*wb_run;	/* latest-run's target, or NULL */
	char		*wb_id;		/* run-<id>.wandb's id, or NULL */
	char		*summary;	/* files/wandb-summary.json, or NULL */
	struct buf	 blocked;	/* one line a missing piece */
	struct buf	 entry;		/* the seal entry's text */
};

/* entry: the final checkpoint (its metadata inside a directory, else beside it), or NULL. */
static char *
seal_script(const struct wk_config *cfg, const char *entry)
{
	struct buf b = BUF_INIT;
	char *j = fs_join(cfg->workdir, config_get_str(cfg, "wandb.dir")), *wd = fs_abspath(j);
	const char *c = ckpt_configured(cfg) ? config_get_str(cfg, "checkpoints.complete_file") : NULL;

	buf_puts(&b, "LC_ALL=C; export LC_ALL\nE=");
	sshq_append(&b, entry != NULL && c != NULL && *c != '\0' ? entry : "");
	buf_puts(&b, "\nC=");
	sshq_append(&b, c != NULL ? c : "");
	buf_puts(&b, "\nL=");
	sshq_append(&b, wd);
	buf_puts(&b, "/latest-run\nM=\n"
	    "if [ -n \"$E\" ]; then if [ -d \"$E\" ]; then M=$E/$C; else M=$E.$C; fi; fi\n"
	    "if [ -n \"$M\" ] && [ -f \"$M\" ]; then echo '@meta'; dd if=\"$M\" bs=65536 count=1 2>/dev/null | sed 's/^/| /'; echo; fi\n"
	    "if [ -L \"$L\" ]; then echo \"@run $(readlink \"$L\")\"\n"
	    "  for f in \"$L\"/run-*.wandb; do [ -f \"$f\" ] && echo \"@tx ${f##*/}\"; done\n"
	    "  if [ -f \"$L/files/wandb-summary.json\" ]; then echo '@sum'; dd if=\"$L/files/wandb-summary.json\" bs=65536 count=1 2>/dev/null | sed 's/^/| /'; echo; fi\n"
	    "fi\necho '@end'\n");
	free(wd);
	free(j);
	return buf_detach(&b);
}

/* Read the script's sections into s; 0, or -1 when it did not finish. */
static int
seal_read(struct seal *s, char *out)
{
	struct buf *cur = NULL, meta = BUF_INIT, sum = BUF_INIT;
	char *line, *nl;
	int end = 0;

	for (line = out; *line != '\0' && !end; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		else
			nl = line + strlen(line);
		if (strncmp(line, "| ", 2) == 0 && cur != NULL) {
			buf_puts(cur, line + 2);
			buf_putc(cur, '\n');
		} else if (strcmp(line, "|") == 0 && cur != NULL)
			buf_putc(cur, '\n');
		else if (strcmp(line, "@meta") == 0) {
			cur = &meta;
			buf_puts(&meta, "");
		} else if (strcmp(line, "@sum") == 0) {
			cur = &sum;
			buf_puts(&sum, "");
		} else if (strncmp(line, "@run ", 5) == 0) {
			free(s->wb_run);
			s->wb_run = xstrdup(line + 5);
		} else if (strncmp(line, "@tx run-", 8) == 0 && strlen(line) > 14 &&
		    strcmp(line + strlen(line) - 6, ".wandb") == 0) {
			free(s->wb_id);
			s->wb_id = xstrndup(line + 8, strlen(line) - 14);
		} else if (strcmp(line, "@end") == 0)
			end = 1;
	}
	if (meta.data != NULL)
		s->meta = buf_detach(&meta);
	if (sum.data != NULL)
		s->summary = buf_detach(&sum);
	buf_free(&meta);
	buf_free(&sum);
	return end ? 0 : -1;
}

static void
seal_block(struct seal *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
seal_block(struct seal *s, const char *fmt, ...)
{
	va_list ap;

	buf_puts(&s->blocked, "SEAL BLOCKED: ");
	va_start(ap, fmt);
	buf_vprintf(&s->blocked, fmt, ap);
	va_end(ap);
	buf_putc(&s->blocked, '\n');
}

/* Every check; the entry's text as it goes. */
static void
seal_judge(struct seal *s, const struct ckpt_entry *fin)
{
	const struct wk_config *cfg = s->cfg;
	const char *wid = config_get_str(cfg, "wandb.id"), *wname = config_get_str(cfg, "wandb.name");
	char *out = gate_output_root(cfg);
	cJSON *doc;
	size_t i, n = 0;

	for (i = 0; i < cfg->nchain; i++) {
		size_t k;

		for (k = 0; k < s->p.nmarkers; k++)
			if (strcmp(s->p.markers[k], cfg->chain[i].marker) == 0)
				break;
		if (k == s->p.nmarkers)
			seal_block(s, "stage %s has not succeeded (no marker %s): the run is not done",
			    cfg->chain[i].name, cfg->chain[i].marker);
		else
			n++;
	}
	buf_printf(&s->entry, "Run %s sealed: %zu of %zu stages succeeded. ", cfg->run, n,
	    cfg->nchain);
	if (cfg->has_progress && cfg->progress.max > 0)
		buf_printf(&s->entry, "Final step %ld (progress.max). ", cfg->progress.max);
	buf_printf(&s->entry, "Output root: %s. ", out != NULL ? out : "not pinned");
	free(out);
	if (ckpt_configured(cfg)) {
		if (s->p.ckpt_scan == NULL)
			seal_block(s, "the checkpoint listing could not be read");
		else if (fin == NULL)
			seal_block(s, "no complete checkpoint in %s", s->p.ckpt_scan->dir);
		else if (cfg->has_progress && cfg->progress.max > 0 && fin->step != cfg->progress.max)
			seal_block(s, "the newest complete checkpoint %s is at step %lld, not the final "
			    "step %ld", fin->path, fin->step, cfg->progress.max);
		else if (s->meta == NULL)
			seal_block(s, "the final checkpoint %s has no %s", fin->path,
			    config_get_str(cfg, "checkpoints.complete_file"));
		else if ((doc = cJSON_Parse(s->meta)) == NULL || !cJSON_IsObject(doc)) {
			cJSON_Delete(doc);
			seal_block(s, "the final checkpoint's metadata (%s) is not a JSON object",
			    fin->path);
		} else {
			cJSON_Delete(doc);
			buf_printf(&s->entry, "Final checkpoint: %s (step %lld, metadata present). ",
			    fin->path, fin->step);
		}
	}
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(cfg->root, "wandb"))) {
		const cJSON *st;

		if (s->wb_run == NULL)
			seal_block(s, "no W&B run on the box (%s/latest-run)", config_get_str(cfg, "wandb.dir"));
		else if (wid != NULL && (s->wb_id == NULL || strcmp(s->wb_id, wid) != 0))
			seal_block(s, "the latest W&B run (%s) is %s, not wandb.id %s", s->wb_run,
			    s->wb_id != NULL ? s->wb_id : "of unknown id", wid);
		else if (s->summary == NULL)
			seal_block(s, "the W&B run %s has no files/wandb-summary.json: it did not finish "
			    "(the client writes it at the end), or ran offline", s->wb_run);
		else if ((doc = cJSON_Parse(s->summary)) == NULL || !cJSON_IsObject(doc) ||
		    !cJSON_IsNumber(st = cJSON_GetObjectItemCaseSensitive(doc, "_step"))) {
			seal_block(s, "the W&B summary of %s is not a JSON object with _step (NaN in it?)",
			    s->wb_run);
			cJSON_Delete(doc);
		} else {
			buf_printf(&s->entry, "W&B run %s%s%s%s: final _step %.0f. ", s->wb_id != NULL ?
			    s->wb_id : s->wb_run, wname != NULL ? " (" : "", wname != NULL ? wname : "",
			    wname != NULL ? ")" : "", st->valuedouble);
			cJSON_Delete(doc);
		}
	}
	if (cfg->results != NULL && s->p.results == NULL)
		seal_block(s, "the results file %s could not be read on the box", cfg->results);
	if (json_str(s->p.caveats, "text", NULL) != NULL)
		buf_printf(&s->entry, "Caveats: %s. ", json_str(s->p.caveats, "text", ""));
	else
		buf_puts(&s->entry, "No caveats. ");
}

/* The evidence block: the final metrics and summary. */
static char *
seal_evidence(const struct seal *s)
{
	struct buf b = BUF_INIT;

	if (s->p.results != NULL)
		buf_printf(&b, "results (%s):\n%s\n", s->cfg->results, s->p.results);
	if (s->summary != NULL)
		buf_printf(&b, "W&B summary:\n%s", s->summary);
	return b.len > 0 ? buf_detach(&b) : (buf_free(&b), NULL);
}

int
patrol_seal(struct wk_config *cfg)
{
	struct ssh_target t;
	struct ssh_conn *conn = NULL;
	struct ssh_error err;
	struct ssh_result res;
	struct pstate st;
	struct seal s;
	const struct ckpt_entry *fin = NULL;
	char *script = NULL, *why = NULL, *ev = NULL, *tag = NULL, now[TIMEFMT_LEN];
	cJSON *sd;
	int rc = WK_EX_FAIL, r, have_st = 0;

	memset(&t, 0, sizeof(t));
	memset(&res, 0, sizeof(res));
	memset(&err, 0, sizeof(err));
	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	if ((r = pstate_open(cfg, &st)) != 0) {
		log_error("cannot open patrol's state: %s", r == WK_ERR_BUSY ?
		    "a patrol tick holds it; try again in a moment" : wk_strerror(r));
		return r == WK_ERR_BUSY ? WK_EX_TEMPFAIL : WK_EX_IOERR;
	}
	have_st = 1;
	sd = cJSON_GetObjectItemCaseSensitive(st.doc, "seal");
	if (json_bool(sd, "done", 0)) {
		printf("run %s was sealed at %s\n", cfg->run, json_str(sd, "at", "?"));
		rc = 0;
		goto out;
	}
	tag = xstrfmt("seal/%s", cfg->run);
	if (!json_bool(sd, "entry", 0)) {
		if ((rc = patrol_box_probe(cfg, SEAL_BUDGET_S, "nothing was sealed", &t, &conn,
		    &s.p)) != 0)
			goto out;
		rc = WK_EX_FAIL;
		s.parsed = 1;
		fin = s.p.ckpt_scan != NULL ? s.p.ckpt_scan->newest : NULL;
		script = seal_script(cfg, fin != NULL ? fin->path : NULL);
		if (ssh_exec(conn, "sh -s", script, strlen(script), 4 * SEAL_READ_MAX, &res, &err) != 0 ||
		    seal_read(&s, res.out) != 0) {
			log_error("the box did not answer the seal's reads: %s; nothing was sealed",
			    err.msg[0] != '\0' ? err.msg : "no @end");
			rc = WK_EX_UNSEEN;
			goto out;
		}
		seal_judge(&s, fin);
		if (s.blocked.len > 0) {
			fputs(buf_str(&s.blocked), stdout);
			printf("run %s is not sealed: fix what is named above, then run `patrol -c %s "
			    "seal` again\n", cfg->run, cfg->path);
			goto out;
		}
		ev = seal_evidence(&s);
		if ((r = logbook_append(st.dir, cfg->run, time(NULL), "SEAL", buf_str(&s.entry), ev)) != 0) {
			log_error("cannot write the seal to %s/" LOGBOOK_FILE ": %s", st.dir, wk_strerror(r));
			goto out;
		}
		timefmt_utc(time(NULL), now, sizeof(now));
		sd = cJSON_CreateObject();
		json_set_bool(sd, "entry", 1);
		json_set_str(sd, "at", now);
		json_set_str(sd, "text", buf_str(&s.entry));
		json_set(st.doc, "seal", sd);	/* transferred */
		github_queue(&st, cfg, "SEAL", buf_str(&s.entry));
		(void)pstate_save(&st);
		printf("%s\n", buf_str(&s.entry));
	}
	/* The record: committed, pushed and tagged (logbook.git), then the schedule goes. */
	if (logbook_git_configured(cfg)) {
		char *msg = xstrfmt("%s: SEAL", cfg->run);

		r = logbook_git_sync(cfg, st.dir, msg, &why);
		free(msg);
		if (r < 0) {
			log_error("the seal is in the logbook but not pushed: %s; run `patrol seal` "
			    "again to push and tag it", why);
			goto out;
		}
		free(why);
		why = NULL;
		if (!json_bool(cJSON_GetObjectItemCaseSensitive(st.doc, "seal"), "tagged", 0)) {
			char *msg2 = xstrfmt("%s sealed", cfg->run);

			r = logbook_git_tag(cfg, st.dir, tag, msg2, &why);
			free(msg2);
			if (r != 0 && (why == NULL || strstr(why, "already exists") == NULL)) {
				log_error("the seal is pushed but the tag %s is not: %s; run `patrol "
				    "seal` again", tag, why != NULL ? why : wk_strerror(r));
				goto out;
			}
			json_set_bool(cJSON_GetObjectItemCaseSensitive(st.doc, "seal"), "tagged", 1);
			(void)pstate_save(&st);
			printf("logbook: committed, pushed and tagged %s\n", tag);
		}
	}
	github_flush(&st, cfg, NULL);	/* the issue gets the seal (what waits stays for a retry) */
	if (schedule_uninstall(cfg, 1, -1) != 0)
		log_warn("the schedule could not be removed: remove it with `patrol -c %s "
		    "--uninstall-schedule`", cfg->path);
	json_set_bool(cJSON_GetObjectItemCaseSensitive(st.doc, "seal"), "done", 1);
	if (pstate_save(&st) != 0)
		log_warn("cannot save the patrol state in %s", st.dir);
	printf("run %s is sealed%s; its schedule is removed\n", cfg->run,
	    logbook_git_configured(cfg) ? " (logbook pushed, tagged)" : "");
	rc = 0;
 out:
	if (s.parsed)
		probe_free(&s.p);
	free(s.meta);
	free(s.wb_run);
	free(s.wb_id);
	free(s.summary);
	buf_free(&s.blocked);
	buf_free(&s.entry);
	free(ev);
	free(tag);
	free(script);
	free(why);
	ssh_result_free(&res);
	if (conn != NULL)
		ssh_close(conn);
	target_free(&t);
	if (have_st)
		pstate_close(&st);
	return rc;
}
