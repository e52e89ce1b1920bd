/*
 * render-tables.c: the HANDBOOK.md sections generated from the tables the code
 * runs on (decide_table[], triage_classes[], triage_steps[]) and the commands
 * around them: decision table, cron, sentinel, triage, logbook and Slurm.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "ckpt.h"
#include "config.h"
#include "crontab.h"
#include "decide.h"
#include "err.h"
#include "fsutil.h"
#include "jobctl.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "logbook.h"
#include "md.h"
#include "policy.h"
#include "monotime.h"
#include "notify.h"
#include "remote.h"
#include "scheduler.h"
#include "slurm.h"
#include "sshq.h"
#include "traceback.h"
#include "triage.h"
#include "xmalloc.h"
#include "render-int.h"

#define HB_LOGBOOK_TAIL		(4 * 1024 * 1024)	/* bytes of LOGBOOK.md read for its last headings */
#define HB_LOGBOOK_ENTRIES	10

static const char *
hb_action_name(enum decide_action a)
{
	static const char *const names[] = {
		[ACT_NONE] = "none",
		[ACT_RESUME] = "resume: onbox start (when patrol.auto_resume and the budget allow)",
		[ACT_RESUME_TRANSFER] = "run transfer.resume (when transfer.auto)",
		[ACT_FINISH] = "report the results, remove the cron line",
	};

	return (size_t)a < sizeof(names) / sizeof(names[0]) && names[a] != NULL ? names[a] : "?";
}

void
hb_decide(struct hb *h)
{
	struct buf *b = &h->b;
	size_t i;

	hb_table_head(b, "Each tick patrol walks this table from the top; the first row that holds is "
	    "the verdict. It is generated from the table the code runs (`decide_table[]`).",
	    "verdict|exit|when|then|action");
	for (i = 0; i < decide_nrows; i++) {
		const struct decide_row *r = &decide_table[i];

		buf_printf(b, "| %s | %d | ", r->name, verdict_exit(r->v));
		md_cell(b, r->when);
		buf_puts(b, " | ");
		md_cell(b, r->then);
		buf_puts(b, " | ");
		md_cell(b, hb_action_name(r->action));
		buf_puts(b, " |\n");
	}
	buf_puts(b, "\n");
}

void
hb_cron(struct hb *h)
{
	struct buf *b = &h->b, cmd = BUF_INIT;
	const char *sched = config_get_str(h->cfg, "patrol.schedule");
	char *self = h->c->bindir != NULL ? fs_join(h->c->bindir, "patrol") : xstrdup("patrol");
	char *cfgp = xstrdup(h->c->config_path != NULL ? h->c->config_path : h->cfg->path);
	char *line = crontab_line(h->cfg, self, cfgp);

	char *unitdir = sched_systemd_dir(), *plist = sched_launchd_path(h->cfg);

	buf_puts(b, "patrol ticks on the schedule ");
	md_code(b, sched);
	buf_puts(b, " (patrol.schedule) from the owner's scheduler: `patrol --install-schedule` "
	    "uses cron where `crontab -l` works, a systemd user timer where systemd runs and there "
	    "is no usable crontab (");
	md_code(b, unitdir != NULL ? unitdir : "~/.config/systemd/user");
	buf_printf(b, "/watchkeeper-%s.timer and .service; `Persistent=true`: a tick missed while "
	    "the machine slept runs when it wakes), and a launchd agent on macOS (", h->cfg->run);
	md_code(b, plist != NULL ? plist : "~/Library/LaunchAgents");
	buf_puts(b, "); `--scheduler cron|systemd|launchd` picks one. Each tick's output is appended "
	    "to cron.log in the local state directory. The line `patrol --install-cron` installs:\n\n");
	if (line != NULL)
		md_block(b, "", line);
	else
		buf_puts(b, "(none: patrol.schedule is not a cron schedule, so `--install-cron` refuses it)\n\n");
	buf_printf(b, "Installed: %s.\n\n", h->c->cron == 1 ? "yes" : h->c->cron == 0 ? "no" :
	    "unknown (`crontab -l` could not be read)");
	buf_puts(b, "Install (or update) it (`--install-cron` is the same):\n\n");
	buf_printf(&cmd, "%s -c %s --install-schedule\n", h->patrol, h->cfgq);
	md_block(b, "sh", cmd.data);
	buf_reset(&cmd);
	buf_puts(b, "Remove it, from whichever scheduler has it (patrol also removes it by itself "
	    "once the run is DONE):\n\n");
	buf_printf(&cmd, "%s -c %s --uninstall-schedule\n", h->patrol, h->cfgq);
	md_block(b, "sh", cmd.data);
	buf_printf(b, "By hand: `crontab -e` and delete the line ending in `" CRONTAB_TAG "%s`; "
	    "`systemctl --user disable --now watchkeeper-%s.timer` and delete its two units; "
	    "`launchctl bootout gui/$(id -u)/watchkeeper.patrol.%s` and delete its plist.\n\n",
	    h->cfg->run, h->cfg->run, h->cfg->run);
	buf_puts(b, "Several runs: ONE entry can tick them all instead (`patrol --all`, each run with "
	    "its own lock, a DONE or sealed one left out); installing it removes the runs' own "
	    "entries, and it goes when every run is DONE or sealed:\n\n");
	buf_reset(&cmd);
	buf_printf(&cmd, "%s --install-schedule --all\n%s status --all\n", h->patrol, h->patrol);
	md_block(b, "sh", cmd.data);
	free(unitdir);
	free(plist);
	buf_free(&cmd);
	free(self);
	free(cfgp);
	free(line);
}

void
hb_sentinel(struct hb *h)
{
	struct buf *b = &h->b, cmd = BUF_INIT, any = BUF_INIT;
	size_t i;

	buf_printf(b, "Between patrol ticks a sentinel waits for one marker and always exits: it "
	    "polls every %ld s at most %ld times (sentinel.interval_s, sentinel.max_ticks); "
	    "`--follow` has onbox wait on the box instead (faster). A newer sentinel for the "
	    "same marker supersedes the older one. On a run stopped on purpose (STOPPED) it "
	    "gives up at once (exit 1): no marker lands until the run is started again.\n\n",
	    config_get_int(h->cfg, "sentinel.interval_s"), config_get_int(h->cfg, "sentinel.max_ticks"));
	for (i = 0; i < h->cfg->nchain; i++) {
		const char *m = h->cfg->chain[i].marker;

		buf_printf(b, "`%s` (stage %s):\n\n", m, h->cfg->chain[i].name);
		buf_reset(&cmd);
		buf_printf(&cmd, "%s -c %s --marker ", h->sentinel, h->cfgq);
		sshq_append(&cmd, m);
		buf_puts(&cmd, "\n");
		md_block(b, "sh", cmd.data);
		buf_reset(&cmd);
		buf_printf(&cmd, "%s -c %s --marker ", h->sentinel, h->cfgq);
		sshq_append(&cmd, m);
		buf_puts(&cmd, " --follow\n");
		md_block(b, "sh", cmd.data);
		buf_printf(&any, "%s%s", any.len > 0 ? "," : "", m);
	}
	buf_puts(b, "The first of all markers to land:\n\n");
	buf_reset(&cmd);
	buf_printf(&cmd, "%s -c %s --any ", h->sentinel, h->cfgq);
	sshq_append(&cmd, any.data);
	buf_puts(&cmd, "\n");
	md_block(b, "sh", cmd.data);
	buf_puts(b, "Its exit status: 0 the marker is there; 3 its `.FAILED` twin appeared; 1 it gave "
	    "up after its ticks; 2 the box refused (authentication, host key); 75 superseded by a "
	    "newer sentinel; 74 the local state directory is unusable; 64 usage; 78 config "
	    "error.\n\n");
	buf_free(&cmd);
	buf_free(&any);
}

void
hb_triage(struct hb *h)
{
	struct buf *b = &h->b;
	size_t i;

	hb_table_head(b, "The failure classes onbox and patrol assign (`triage_classes[]`); the class "
	    "of a failed stage is in its `.FAILED` marker.", "class|title|retryable|remediation");
	for (i = 0; i < TRIAGE_NCLASSES; i++) {
		const struct triage_class_info *t = &triage_classes[i];

		if (t->cls == TRIAGE_NONE)
			continue;
		buf_printf(b, "| %s | ", t->name);
		md_cell(b, t->title);
		buf_printf(b, " | %s | ", t->retryable ? "yes" : "no");
		md_cell(b, t->remediation);
		buf_puts(b, " |\n");
	}
	buf_puts(b, "\nHow onbox picks the class (`triage_steps[]`, in order; the first that decides "
	    "wins, none: unknown). The counter is the oom_kill counter of the stage's own memory "
	    "cgroup (`oom_cgroup` in the attempt's history), read at the launch and at the end; a "
	    "class that rests on a guess carries `guess` in the `.FAILED` marker and the "
	    "`stage_failed` event, saying why.\n\n");
	for (i = 0; triage_step_text(i) != NULL; i++)
		buf_printf(b, "%zu. %s\n", i + 1, triage_step_text(i));
	buf_puts(b, "\n");
}

/*
 * The last HB_LOGBOOK_ENTRIES entry headings ("### " lines outside fenced
 * evidence) of the logbook at path; -1 when it cannot be read.  A logbook
 * larger than HB_LOGBOOK_TAIL is read from a line start that far from its
 * end (a fence open there is then missed: the headings are best effort).
 */
static int
hb_logbook_heads(const char *path, char **heads, size_t *n)
{
	struct stat sb;
	char *data;
	const char *l, *nl;
	off_t off;
	ssize_t got;
	size_t len = 0, fence = 0, k;
	int fd;

	*n = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return -1;
	}
	off = sb.st_size > HB_LOGBOOK_TAIL ? sb.st_size - HB_LOGBOOK_TAIL : 0;
	data = xmalloc(HB_LOGBOOK_TAIL + 1);
	while (len < HB_LOGBOOK_TAIL &&
	    (got = pread(fd, data + len, HB_LOGBOOK_TAIL - len, off + (off_t)len)) > 0)
		len += (size_t)got;
	close(fd);
	data[len] = '\0';
	l = data;
	if (off > 0 && (l = strchr(data, '\n')) != NULL)
		l++;	/* a cut first line */
	for (; l != NULL && *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l);
		for (k = 0; l + k < nl && l[k] == '`'; k++)
			;
		if (fence > 0) {
			if (k >= fence && l + k == nl)
				fence = 0;
			continue;
		}
		if (k >= 3) {
			fence = k;
			continue;
		}
		if (strncmp(l, "### ", 4) != 0)
			continue;
		if (*n == HB_LOGBOOK_ENTRIES) {
			free(heads[0]);
			memmove(heads, heads + 1, (HB_LOGBOOK_ENTRIES - 1) * sizeof(*heads));
			(*n)--;
		}
		heads[(*n)++] = xstrndup(l + 4, (size_t)(nl - l - 4));
	}
	free(data);
	return 0;
}

void
hb_logbook(struct hb *h)
{
	char *heads[HB_LOGBOOK_ENTRIES], *path;
	size_t n = 0, i;

	if (h->c->statedir == NULL) {
		buf_puts(&h->b, "The run's logbook (" LOGBOOK_FILE ") lives in the local state "
		    "directory, which is unknown here.\n\n");
		return;
	}
	path = fs_join(h->c->statedir, LOGBOOK_FILE);
	buf_puts(&h->b, "The run's append-only history, next to this file: ");
	md_code(&h->b, path);
	if (hb_logbook_heads(path, heads, &n) != 0)
		buf_puts(&h->b, " (not written yet: it starts with the first event that matters).\n\n");
	else if (n == 0)
		buf_puts(&h->b, " (no entries yet).\n\n");
	else {
		buf_printf(&h->b, ". Its last %zu entries:\n\n", n);
		for (i = 0; i < n; i++) {
			buf_puts(&h->b, "- ");
			hb_boxtext(h, heads[i], 0);
			buf_puts(&h->b, "\n");
			free(heads[i]);
		}
		buf_puts(&h->b, "\n");
	}
	free(path);
}

/*
 * Slurm: the run's jobs as patrol last saw them, and the Slurm forms of the
 * commands (squeue, sacct, scontrol, scancel, the resubmission).
 */
void
hb_slurm(struct hb *h)
{
	struct buf *b = &h->b, cmd = BUF_INIT, grep = BUF_INIT;
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(h->ps, "slurm");
	char *start = remote_onbox_command(h->cfg, "start"), *boxcfg = remote_boxcfg(h->cfg), *w;
	char *names = slurm_names(h->cfg);
	size_t i;

	slurm_grep_names(h->cfg, &grep, "|", "|");
	buf_puts(b, "Each stage is one Slurm job named `wk-<run>-<stage>`, joined to the stage before "
	    "it by `--dependency=afterok`; the job runs `onbox run --stage <stage>`, so markers, "
	    "FAILED markers, triage and notifications are the same as under tmux. Job ids change "
	    "when a job is resubmitted: the NAME finds a stage's job, and `onbox start` never "
	    "submits a stage whose job is already queued or running.\n\n");
	buf_puts(b, "| stage | job name | last seen job | state |\n|---|---|---|---|\n");
	for (i = 0; i < h->cfg->nchain; i++) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(all, h->cfg->chain[i].name);
		char *n = jobctl_job_name(h->cfg, h->cfg->chain[i].name);

		buf_puts(b, "| ");
		md_cell(b, h->cfg->chain[i].name);
		buf_puts(b, " | ");
		md_code(b, n);
		buf_puts(b, " | ");
		hb_boxtext(h, json_str(r, "job_id", "none seen"), 1);
		buf_puts(b, " | ");
		if (json_str(r, "state", NULL) != NULL) {
			hb_boxtext(h, json_str(r, "state", ""), 1);
			if (json_str(r, "reason", "")[0] != '\0' && strcmp(json_str(r, "reason", ""), "None") != 0) {
				buf_puts(b, " ");
				md_cell(b, slurm_reason_text(json_str(r, "reason", "")));
			}
		} else
			buf_puts(b, "unknown");
		buf_puts(b, " |\n");
		free(n);
	}
	buf_puts(b, "\nOn the login node (or through ssh, as in the first command above). The run's "
	    "jobs in the queue, with why each one waits (`DependencyNeverSatisfied`: the stage "
	    "before it failed, it will never start):\n\n");
	buf_puts(&cmd, "squeue --name=");
	sshq_append(&cmd, names);
	buf_puts(&cmd, " -o '%i %j %T %r'\n");
	md_block(b, "sh", cmd.data);
	buf_reset(&cmd);
	buf_puts(b, "Finished jobs and their exit codes: from the accounting database, or, when the "
	    "cluster has none (`sacct` says accounting storage is disabled), from the job "
	    "completion file:\n\n");
	buf_puts(&cmd, "sacct -X -S now-7days --name=");
	sshq_append(&cmd, names);
	buf_puts(&cmd, " -o jobid,jobname,state,exitcode,elapsed\nsacct -c -n -P -o "
	    "jobid,jobname,state,exitcode | grep -F");
	buf_puts(&cmd, buf_str(&grep));
	buf_puts(&cmd, "\n");
	md_block(b, "sh", cmd.data);
	buf_reset(&cmd);
	buf_puts(b, "One job in full (its state, reason, dependency, restarts, exit code), while the "
	    "controller still remembers it:\n\n");
	md_block(b, "sh", "scontrol show job <JOBID>\n");
	buf_puts(b, "Cancel a stage's job (every job of that name), or the whole run:\n\n");
	for (i = 0; i < h->cfg->nchain; i++) {
		char *n = jobctl_job_name(h->cfg, h->cfg->chain[i].name);

		w = xstrfmt("--name=%s", n);
		buf_puts(&cmd, "scancel ");
		sshq_append(&cmd, w);
		buf_puts(&cmd, "\n");
		free(w);
		free(n);
	}
	md_block(b, "sh", cmd.data);
	buf_reset(&cmd);
	buf_puts(b, "Resubmit: `onbox start` submits every stage that has neither its marker nor a "
	    "live job, adopts the jobs already queued or running, and cancels and replaces the "
	    "stranded ones (exit 0 submitted, 75 nothing to submit: everything missing is "
	    "already queued):\n\n");
	md_block(b, "sh", start);
	buf_puts(b, "A requeued job (preemption, node failure, `scontrol requeue`) keeps its job id and "
	    "restarts with `SLURM_RESTART_COUNT` one higher: onbox records the requeued attempt as "
	    "`preempted` (an infrastructure failure, outside restart.max) and starts the next one.\n\n");
	buf_puts(b, "Config on the box: ");
	md_code(b, boxcfg);
	buf_puts(b, "\n\n");
	free(names);
	buf_free(&cmd);
	buf_free(&grep);
	free(start);
	free(boxcfg);
}
