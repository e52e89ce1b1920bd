/*
 * checkpoints.c: `patrol checkpoints [--prune [--confirm]]`: the box's
 * checkpoints with what must be kept and why (core/ckptkeep.c), and the
 * deletion of the rest only when asked twice.
 *
 * One connection: the probe (its checkpoint listing and each stage's
 * attempt history, for the checkpoints attempts launched from), then, with
 * --prune --confirm, one sh script that removes each candidate (and a plain
 * file's completeness sidecar) and says what it removed.  Without
 * --confirm nothing is written anywhere.  A prune is recorded in the
 * logbook.
 *
 * Exit: 0 listed (pruned), 1 the listing could not be read or a deletion
 * failed, 2 the box could not be seen, 64 usage, 78 no "checkpoints" in the
 * config.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "ckpt.h"
#include "ckptkeep.h"
#include "config.h"
#include "err.h"
#include "gate.h"
#include "history.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "logbook.h"
#include "monotime.h"
#include "patrol.h"
#include "probe.h"
#include "ssh.h"
#include "sshq.h"
#include "target.h"
#include "xmalloc.h"

#define CKPTS_BUDGET_S	300
#define CKPTS_OUT_MAX	(4u << 20)

/* The checkpoints the run's attempts started from, and initialize_from. */
static size_t
ckpts_launches(const struct wk_config *cfg, const struct probe *p, char ***out)
{
	char **v = NULL;
	size_t n = 0, i;
	const cJSON *a;

	for (i = 0; i < p->nhist; i++)
		cJSON_ArrayForEach(a, cJSON_GetObjectItem(p->hist[i].doc, HIST_KEY_ATTEMPTS))
			if (json_str(a, POLICY_KEY_CHECKPOINT, NULL) != NULL) {
				v = xreallocarray(v, n + 1, sizeof(*v));
				v[n++] = xstrdup(json_str(a, POLICY_KEY_CHECKPOINT, ""));
			}
	if ((v = xreallocarray(v, n + 1, sizeof(*v))) != NULL && (v[n] = gate_init_path(cfg)) != NULL)
		n++;
	*out = v;
	return n;
}

/* The removal script: one line "deleted NAME" or "failed NAME" per candidate. */
static char *
ckpts_prune_script(const struct wk_config *cfg, const struct ckpt_scan *s, const unsigned *why)
{
	const char *cfile = config_get_str(cfg, "checkpoints.complete_file");
	struct buf b = BUF_INIT;
	size_t i;

	buf_puts(&b, "LC_ALL=C; export LC_ALL\nd=");
	sshq_append(&b, s->dir);
	buf_puts(&b, "\nc=");
	sshq_append(&b, cfile != NULL && strchr(cfile, '/') == NULL ? cfile : "");
	buf_puts(&b, "\nrm1() {\n"
	    "  if rm -rf -- \"$d/$1\"; then\n"
	    "    if [ -n \"$c\" ] && [ -f \"$d/$1.$c\" ]; then rm -f -- \"$d/$1.$c\"; fi\n"
	    "    if [ -e \"$d/$1\" ] || [ -L \"$d/$1\" ]; then echo \"failed $1\"; else echo \"deleted $1\"; fi\n"
	    "  else echo \"failed $1\"; fi\n"
	    "}\n");
	for (i = 0; i < s->nentries; i++)
		if (why[i] == 0) {
			buf_puts(&b, "rm1 ");
			sshq_append(&b, s->entries[i].name);
			buf_putc(&b, '\n');
		}
	buf_puts(&b, "echo end\n");
	return buf_detach(&b);
}

static void
ckpts_print(const struct wk_config *cfg, const struct probe *p, const struct ckpt_keep_in *in,
    const unsigned *why)
{
	const struct ckpt_scan *s = p->ckpt_scan;
	char keep[160], age[32];
	size_t i;

	printf("checkpoints of run %s in %s: %zu entr%s, %zu complete%s\n", cfg->run, s->dir,
	    s->nentries, s->nentries == 1 ? "y" : "ies", s->ncomplete,
	    s->missing ? " (the directory does not exist)" : s->truncated ?
	    " (the listing was truncated: nothing is a deletion candidate)" : "");
	printf("kept: the newest %ld complete, the recovery one ({checkpoint} now), ", in->newest);
	if (in->final_step > 0)
		printf("the final one (step %lld), ", in->final_step);
	if (in->permanent_every > 0)
		printf("milestones every %lld steps, ", in->permanent_every);
	printf("the ones attempts launched from, newer incomplete ones (in progress) and a "
	    "rejected lineage\n");
	if (s->nentries == 0)
		return;
	printf("  %12s  %-10s  %-9s  %-32s  %s\n", "STEP", "STATE", "AGE", "NAME", "KEEP");
	for (i = 0; i < s->nentries; i++) {
		const struct ckpt_entry *e = &s->entries[i];

		ckpt_keep_text(why[i], keep, sizeof(keep));
		if (e->complete && e->mtime > 0 && p->box_time >= e->mtime)
			timefmt_duration((long)(p->box_time - e->mtime), age, sizeof(age));
		else
			snprintf(age, sizeof(age), "-");
		printf("  %12lld  %-10s  %-9s  %-32s  %s\n", e->step, e->rejected ? "rejected" :
		    e->complete ? "complete" : "incomplete", age, e->name, keep);
	}
}

/* Remove the candidates; 0 all removed, WK_EX_FAIL some not (said). */
static int
ckpts_prune(const struct wk_config *cfg, struct ssh_conn *conn, const struct probe *p,
    const unsigned *why, size_t ncand)
{
	char *script = ckpts_prune_script(cfg, p->ckpt_scan, why), *line, *nl, *sd;
	struct buf done = BUF_INIT;
	struct ssh_result res;
	struct ssh_error err;
	size_t ndel = 0, nfail = 0;
	int rc = WK_EX_FAIL, end = 0;

	memset(&res, 0, sizeof(res));
	if (ssh_exec(conn, "sh -s", script, strlen(script), CKPTS_OUT_MAX, &res, &err) != 0) {
		log_error("the removal did not finish: %s; list again to see what is left", err.msg);
		goto out;
	}
	for (line = res.out; line != NULL && *line != '\0'; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		if (strncmp(line, "deleted ", 8) == 0) {
			printf("deleted %s/%s\n", p->ckpt_scan->dir, line + 8);
			buf_printf(&done, "%s\n", line + 8);
			ndel++;
		} else if (strncmp(line, "failed ", 7) == 0) {
			log_error("could not delete %s/%s", p->ckpt_scan->dir, line + 7);
			nfail++;
		} else if (strcmp(line, "end") == 0)
			end = 1;
	}
	printf("%zu of %zu deletion candidate%s deleted\n", ndel, ncand, ncand == 1 ? "" : "s");
	if (ndel > 0 && (sd = statedir_path(cfg, 1)) != NULL) {
		char *text = xstrfmt("`patrol checkpoints --prune --confirm` deleted %zu checkpoint%s "
		    "of %s (kept: the newest %ld, recovery, final, launch, milestone, in progress):",
		    ndel, ndel == 1 ? "" : "s", p->ckpt_scan->dir, config_get_int(cfg, "checkpoints.keep"));

		(void)logbook_append(sd, cfg->run, time(NULL), "CHECKPOINTS PRUNED", text, done.data);
		free(text);
		free(sd);
	}
	rc = end && nfail == 0 && ndel == ncand ? 0 : WK_EX_FAIL;
	if (!end)
		log_error("the box did not finish the removal (exit %d); list again to see what is "
		    "left", res.exit_status);
 out:
	ssh_result_free(&res);
	buf_free(&done);
	free(script);
	return rc;
}

int
patrol_checkpoints(struct wk_config *cfg, int prune, int confirm)
{
	struct ssh_target t;
	struct ssh_conn *conn = NULL;
	struct ckpt_keep_in in;
	struct probe p;
	char **launch = NULL;
	unsigned *keep = NULL;
	size_t nlaunch = 0, ncand, i;
	int rc, parsed = 0;

	memset(&t, 0, sizeof(t));
	if (!ckpt_configured(cfg)) {
		log_error("%s has no \"checkpoints\" (dir, pattern): there is nothing to list", cfg->path);
		return WK_EX_CONFIG;
	}
	if ((rc = patrol_box_probe(cfg, CKPTS_BUDGET_S, "nothing was listed or deleted", &t, &conn,
	    &p)) != 0)
		goto out;
	parsed = 1;
	if (p.ckpt_scan == NULL) {
		log_error("the box's checkpoint listing of %s could not be read", config_get_str(cfg,
		    "checkpoints.dir"));
		rc = WK_EX_FAIL;
		goto out;
	}
	nlaunch = ckpts_launches(cfg, &p, &launch);
	memset(&in, 0, sizeof(in));
	in.newest = config_get_int(cfg, "checkpoints.keep");
	in.permanent_every = config_get_int(cfg, "checkpoints.permanent_every");
	in.final_step = cfg->has_progress ? cfg->progress.max : 0;
	in.launch = (const char *const *)launch;
	in.nlaunch = nlaunch;
	keep = xcalloc(p.ckpt_scan->nentries + 1, sizeof(*keep));
	ncand = ckpt_keep(p.ckpt_scan, &in, keep);
	ckpts_print(cfg, &p, &in, keep);
	rc = 0;
	if (!prune)
		goto out;
	if (ncand == 0) {
		printf("nothing to prune: every checkpoint is kept\n");
		goto out;
	}
	if (!confirm) {
		printf("%zu deletion candidate%s:", ncand, ncand == 1 ? "" : "s");
		for (i = 0; i < p.ckpt_scan->nentries; i++)
			if (keep[i] == 0)
				printf(" %s", p.ckpt_scan->entries[i].name);
		printf("\nnothing was deleted: `patrol -c %s checkpoints --prune --confirm` deletes "
		    "them\n", cfg->path);
		goto out;
	}
	rc = ckpts_prune(cfg, conn, &p, keep, ncand);
 out:
	if (parsed)
		probe_free(&p);
	xfree_strv(launch, nlaunch);
	free(keep);
	if (conn != NULL)
		ssh_close(conn);
	target_free(&t);
	return rc;
}
