/*
 * tick-act.c: what a patrol tick does on the box when the table says so.
 *
 * A resume (NEEDS_RESUME, CRASHED as the restart policy allows, STOPPED on
 * request): the policy, then a second probe on the same connection, then
 * the notify secrets and `onbox start`, recorded in patrol.json's resumes[].
 * A stop (`patrol stop`, the mcp stop tool): `onbox stop` between two looks.
 * A transfer resume.  Each writes what it did into t->action / t->why for
 * the report line; tick.c records the tick.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "caveats.h"
#include "ckpt.h"
#include "ckptjson.h"
#include "config.h"
#include "crontab.h"
#include "decide.h"
#include "diag.h"
#include "err.h"
#include "events.h"
#include "fsutil.h"
#include "handbook.h"
#include "history.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "logbook.h"
#include "md.h"
#include "monotime.h"
#include "notify.h"
#include "outbox.h"
#include "patrol.h"
#include "policy.h"
#include "probe.h"
#include "remote.h"
#include "slurm.h"
#include "spawn.h"
#include "ssh.h"
#include "sshq.h"
#include "target.h"
#include "triage.h"
#include "xmalloc.h"

#include "tick-int.h"

#define TICK_POLICY_HISTORY 64

/*
 * The restart policy (core/policy.c, the one onbox applies on the box) on
 * the stage's history as the probe brought it.  An attempt the history
 * still calls running is dead by now (nothing runs): it is decided as a
 * lost attempt, or with the class the tail showed.
 */
static int
tick_policy(struct tick *t, struct policy_out *pol)
{
	struct attempt att[TICK_POLICY_HISTORY + 1];
	struct policy_in in;
	const cJSON *h = t->out.stage != NULL ? probe_history(&t->probe, t->out.stage) : NULL;
	const cJSON *last;
	const char *final = t->cfg->chain[t->cfg->nchain - 1].marker;
	size_t n = 0, skipped = 0;

	memset(&in, 0, sizeof(in));
	if (h == NULL)
		return 1;	/* never launched: the first launch is no restart */
	(void)history_attempts(h, att, TICK_POLICY_HISTORY, &n, &skipped);
	last = hist_last(h);
	if (last != NULL && (strcmp(json_str(last, HIST_KEY_RESULT, ""), "running") == 0 ||
	    strcmp(json_str(last, HIST_KEY_RESULT, ""), "starting") == 0)) {
		memset(&att[n], 0, sizeof(att[n]));
		att[n].n = json_long(last, HIST_KEY_ATTEMPT, (long)n + 1);
		att[n].started = (time_t)json_num(last, HIST_KEY_STARTED_UNIX, 0);
		att[n].ended = t->probe.box_time;
		att[n].cls = t->out.v == V_CRASHED ? triage_info(t->out.cls)->name : "lost";
		att[n].exit_code = -1;
		n++;
	}
	in.cfg = t->cfg;
	in.seen = t->have_probe;
	in.finished = probe_has_marker(&t->probe, final);
	in.att = att;
	in.natt = n;
	in.now = t->probe.box_time > 0 ? t->probe.box_time : time(NULL);
	in.stage = t->out.stage;
	policy_decide(&in, pol);
	return pol->action == POLICY_RESTART;
}

/*
 * May the resume be carried out now?  Writes why not into t->action (a
 * refusal, for the report too) or t->why (nothing to resume).  A tick needs
 * patrol.auto_resume, an explicit resume does not; both need the policy.  A
 * run stopped on purpose is started again only on request, without the
 * policy: a stop is no failure, and its owner's start is `onbox start`'s.
 */
static int
tick_may_resume(struct tick *t)
{
	struct policy_out pol;

	if (t->mode == TICK_TABLE && !config_get_bool(t->cfg, "patrol.auto_resume"))
		return 0;
	if (t->out.v == V_STOPPED && t->mode != TICK_TABLE) {
		snprintf(t->allowed, sizeof(t->allowed), "stopped on purpose, no failure for the "
		    "policy to judge");
		return 1;
	}
	if (t->out.action != ACT_RESUME) {
		snprintf(t->why, sizeof(t->why), "run %s is %s: nothing to resume", t->cfg->run,
		    verdict_name(t->out.v));
		return 0;
	}
	t->did = TICK_DID_REFUSED;
	memset(&pol, 0, sizeof(pol));
	if (!tick_policy(t, &pol)) {
		/* The report already carries a crash's class and remediation. */
		if (pol.rule == POLICY_NEVER_RETRY && pol.cls != NULL)
			snprintf(t->action, sizeof(t->action), "not resumed (never_retry): %.64s is not "
			    "retried automatically", pol.cls);
		else
			snprintf(t->action, sizeof(t->action), "not resumed (%s): %.1200s", pol.rule_name,
			    pol.reason);
		return 0;
	}
	if (pol.rule_name != NULL)
		snprintf(t->allowed, sizeof(t->allowed), "the policy allows it (%s): %.800s",
		    pol.rule_name, pol.reason);
	else
		snprintf(t->allowed, sizeof(t->allowed), "never launched: the first launch is no "
		    "restart for the policy");
	return 1;
}

void
tick_resume(struct tick *t)
{
	struct ssh_result res;
	enum verdict was = t->out.v;
	char *cmd, when[TIMEFMT_LEN], secrets_why[400] = "";
	const char *how = t->mode == TICK_TABLE ? "" : ", on request";
	cJSON *arr, *rec;

	if (!tick_may_resume(t))
		return;
	t->did = TICK_DID_ACTED;
	if (t->dry) {
		snprintf(t->why, sizeof(t->why), "would resume %s (was %s%s): onbox start, after "
		    "looking again on the same connection; %s", t->out.stage != NULL ? t->out.stage :
		    "the run", verdict_name(was), how, t->allowed);
		return;
	}
	t->did = TICK_DID_REFUSED;
	/* Right before acting, look again on the same connection. */
	if (tick_probe(t) != 0) {
		snprintf(t->action, sizeof(t->action), "not resumed: the re-check failed (%.1000s)",
		    t->probe_why != NULL ? t->probe_why : t->err.msg);
		return;
	}
	tick_decide(t);
	if (t->out.v != was) {
		snprintf(t->action, sizeof(t->action), "not resumed: the re-check says %s",
		    verdict_name(t->out.v));
		return;
	}
	/* The owner's current values for the sinks; a failure does not stop the resume. */
	if (secrets_send(t->cfg, t->conn, &t->err) != 0) {
		snprintf(secrets_why, sizeof(secrets_why), "; the notification secrets could not "
		    "be refreshed (%.300s)", t->err.msg);
		log_warn("the notification secrets could not be refreshed: %s", t->err.msg);
	}
	cmd = remote_onbox_command(t->cfg, "start");
	memset(&res, 0, sizeof(res));
	if (ssh_exec(t->conn, cmd, NULL, 0, 64 * 1024, &res, &t->err) != 0) {
		snprintf(t->action, sizeof(t->action), "resume failed: %.900s%s", t->err.msg,
		    secrets_why);
		free(cmd);
		return;
	}
	timefmt_utc(time(NULL), when, sizeof(when));
	if (!cJSON_IsArray(arr = cJSON_GetObjectItem(t->st.doc, "resumes")))
		arr = cJSON_AddArrayToObject(t->st.doc, "resumes");
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "time", when);
	cJSON_AddStringToObject(rec, "was", verdict_name(was));
	if (was == V_CRASHED)
		cJSON_AddStringToObject(rec, "class", triage_info(t->out.cls)->name);
	cJSON_AddNumberToObject(rec, "exit_status", res.exit_status);
	if (t->mode != TICK_TABLE)
		cJSON_AddBoolToObject(rec, "requested", 1);
	cJSON_AddItemToArray(arr, rec);
	if (res.exit_status == 0) {
		t->out.v = V_RESUMED;
		t->did = TICK_DID_ACTED;
		snprintf(t->action, sizeof(t->action), "resumed %s (was %s%s): onbox start%s",
		    t->out.stage != NULL ? t->out.stage : "the run", verdict_name(was), how, secrets_why);
	} else
		snprintf(t->action, sizeof(t->action), "resume refused on the box (exit %d): "
		    "%.200s%s", res.exit_status, res.err != NULL ? res.err : "", secrets_why);
	ssh_result_free(&res);
	free(cmd);
}

/*
 * The stop's act: what runs is said from the probe (the stage, its pid, its
 * onbox); onbox stop does the work and is idempotent itself; a last look on
 * the same connection gives the verdict after it.  No patrol state, as for
 * `patrol stop`.
 */
void
tick_stop(struct tick *t)
{
	struct ssh_result res;
	const struct probe *p = &t->probe;
	const char *stage = json_str(p->state, "stage", NULL);
	char running[400] = "";
	int rc;

	if (t->out.v == V_DONE || (t->out.v == V_STOPPED && !t->out.alive)) {
		snprintf(t->why, sizeof(t->why), "run %s is %s: nothing runs, nothing to stop",
		    t->cfg->run, verdict_name(t->out.v));
		return;
	}
	if (t->out.alive && stage != NULL && p->stage_alive)
		snprintf(running, sizeof(running), "stage %.100s attempt %ld (pid %ld%s)", stage,
		    json_long(p->state, "attempt", 0), p->stage_pid, p->onbox_alive ? ", under its onbox" : "");
	else if (t->out.alive)
		snprintf(running, sizeof(running), "what is alive of the run%s",
		    p->onbox_alive ? " (its onbox)" : "");
	t->did = TICK_DID_ACTED;
	if (t->dry) {
		if (running[0] != '\0')
			snprintf(t->why, sizeof(t->why), "would stop %s: SIGTERM to its process group, "
			    "SIGKILL after stop_grace_s=%lds; the run stays STOPPED", running,
			    t->cfg->stop_grace_s);
		else
			snprintf(t->why, sizeof(t->why), "nothing runs (%s); onbox stop would record "
			    "the run as stopped so that nothing resumes it", verdict_name(t->out.v));
		return;
	}
	if ((rc = patrol_stop_exec(t->cfg, t->conn, &res, &t->err)) < 0) {
		t->did = TICK_DID_REFUSED;
		snprintf(t->why, sizeof(t->why), "onbox stop on the box did not finish: %.1000s",
		    t->err.msg);
		ssh_result_free(&res);
		return;
	}
	t->said = xstrdup(res.out != NULL ? res.out : "");
	if (rc != 0) {
		t->did = TICK_DID_REFUSED;
		snprintf(t->why, sizeof(t->why), "onbox stop refused (exit %d): %.1000s", rc,
		    rc == 127 ? "no onbox on the box" : res.err != NULL ? res.err : t->said);
	} else
		snprintf(t->why, sizeof(t->why), "stopped %s", running[0] != '\0' ? running :
		    "the run (nothing was running: recorded as stopped so that nothing resumes it)");
	ssh_result_free(&res);
	(void)tick_probe(t);
	tick_decide(t);	/* a failed look is said as it is (SSH_DOWN and why) */
}

void
tick_resume_transfer(struct tick *t)
{
	const char *cmd = config_get_str(t->cfg, "transfer.resume");
	struct spawn_opts o;
	int status = -1;
	pid_t pid;

	if (!config_get_bool(t->cfg, "transfer.auto") || cmd == NULL)
		return;
	spawn_opts_init(&o);
	o.new_session = 1;	/* a long transfer outlives the tick */
	o.cwd = t->st.dir;
	pid = spawn_sh(cmd, &o);
	if (pid < 0) {
		snprintf(t->action, sizeof(t->action), "transfer resume could not start: %s", wk_strerror(WK_ERR_SYSTEM));
		return;
	}
	(void)status;
	t->out.v = V_TRANSFER_RESUMED;
	snprintf(t->action, sizeof(t->action), "started transfer.resume (pid %ld)", (long)pid);
}

/* Queue ev for the run's sinks and deliver what is due now; 0 when queued. */
