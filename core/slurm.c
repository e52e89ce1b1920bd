/*
 * slurm.c: Slurm's states and reasons, the sbatch line, the query fragment
 * and its parser (see slurm.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "jobctl.h"
#include "jsonfile.h"
#include "layout.h"
#include "optwords.h"
#include "slurm.h"
#include "sshq.h"
#include "xmalloc.h"

/* ---- states and reasons: data ---- */

static const char *const slurm_cls_names[SLURM_NCLS] = {
	"unknown", "waiting", "stranded", "running", "completed", "failed", "cancelled", "infra",
};

static const struct {
	const char	*state;
	enum slurm_cls	 cls;
} slurm_states[] = {
	{ "PENDING", SLURM_WAITING },
	{ "REQUEUED", SLURM_WAITING },
	{ "REQUEUE_HOLD", SLURM_WAITING },
	{ "REQUEUE_FED", SLURM_WAITING },
	{ "RESV_DEL_HOLD", SLURM_WAITING },
	{ "SUSPENDED", SLURM_WAITING },
	{ "STOPPED", SLURM_WAITING },
	{ "CONFIGURING", SLURM_RUNNING },
	{ "RUNNING", SLURM_RUNNING },
	{ "COMPLETING", SLURM_RUNNING },
	{ "STAGE_OUT", SLURM_RUNNING },
	{ "SIGNALING", SLURM_RUNNING },
	{ "RESIZING", SLURM_RUNNING },
	{ "COMPLETED", SLURM_COMPLETED },
	{ "FAILED", SLURM_FAILED },
	{ "OUT_OF_MEMORY", SLURM_FAILED },
	{ "TIMEOUT", SLURM_FAILED },
	{ "DEADLINE", SLURM_FAILED },
	{ "CANCELLED", SLURM_CANCELLED },
	{ "NODE_FAIL", SLURM_INFRA },
	{ "PREEMPTED", SLURM_INFRA },
	{ "BOOT_FAIL", SLURM_INFRA },
	/* squeue's and scontrol's short forms */
	{ "PD", SLURM_WAITING },
	{ "R", SLURM_RUNNING },
	{ "CG", SLURM_RUNNING },
	{ "CF", SLURM_RUNNING },
	{ "CD", SLURM_COMPLETED },
	{ "F", SLURM_FAILED },
	{ "CA", SLURM_CANCELLED },
	{ "TO", SLURM_FAILED },
	{ "OOM", SLURM_FAILED },
	{ "NF", SLURM_INFRA },
	{ "PR", SLURM_INFRA },
};

/*
 * Pending reasons people meet.  Anything else is still waiting, said as
 * "pending (<reason>)".  DependencyNeverSatisfied alone strands a job.
 */
static const struct {
	const char	*reason;
	const char	*text;
} slurm_reasons[] = {
	{ "Resources", "waiting for resources" },
	{ "Priority", "waiting behind higher-priority jobs" },
	{ "Dependency", "waiting for the stage before it" },
	{ "DependencyNeverSatisfied", "stranded: the stage before it failed, so it can never start" },
	{ "BeginTime", "waiting for its start time (a requeued job waits here)" },
	{ "JobHeldUser", "held by a user (scontrol release releases it)" },
	{ "JobHeldAdmin", "held by an administrator" },
	{ "launch_failed_requeued_held", "held after a failed launch (scontrol release)" },
	{ "ReqNodeNotAvail", "waiting: a requested node is not available" },
	{ "PartitionDown", "waiting: the partition is down" },
	{ "PartitionInactive", "waiting: the partition is inactive" },
	{ "PartitionTimeLimit", "never starts: its time limit is over the partition's" },
	{ "QOSMaxJobsPerUserLimit", "waiting: the QOS's per-user job limit" },
	{ "AssocGrpGRES", "waiting: the account's GRES limit" },
	{ "Reservation", "waiting for its reservation" },
	{ "None", "pending" },
};

const char *
slurm_cls_name(enum slurm_cls c)
{
	return c < SLURM_NCLS ? slurm_cls_names[c] : "unknown";
}

int
slurm_cls_live(enum slurm_cls c)
{
	return c == SLURM_WAITING || c == SLURM_RUNNING;
}

int
slurm_job_live(const struct slurm_job *j)
{
	return slurm_cls_live(j->cls) || (j->cls == SLURM_UNKNOWN && j->in_queue);
}

enum slurm_cls
slurm_classify(const char *state, const char *reason)
{
	size_t i, n = strcspn(state, " +");	/* "CANCELLED by 0", "RUNNING+..." */

	for (i = 0; i < sizeof(slurm_states) / sizeof(slurm_states[0]); i++) {
		if (strlen(slurm_states[i].state) != n || strncmp(slurm_states[i].state, state, n) != 0)
			continue;
		if (slurm_states[i].cls == SLURM_WAITING && reason != NULL &&
		    strcmp(reason, "DependencyNeverSatisfied") == 0)
			return SLURM_STRANDED;
		return slurm_states[i].cls;
	}
	return SLURM_UNKNOWN;
}

const char *
slurm_reason_text(const char *reason)
{
	size_t i;

	for (i = 0; reason != NULL && i < sizeof(slurm_reasons) / sizeof(slurm_reasons[0]); i++)
		if (strcmp(slurm_reasons[i].reason, reason) == 0)
			return slurm_reasons[i].text;
	return "pending";
}

/* ---- sbatch ---- */

/* sbatch's short options that take no argument: others may follow them in one word. */
#define SLURM_NOARG_FLAGS	"HhOQsuVvW"

/* Options watchkeeper sets itself: long name, short letter. */
static const struct {
	const char	*lng;
	char		 shrt;
} slurm_ours[] = {
	{ "job-name", 'J' }, { "dependency", 'd' }, { "output", 'o' }, { "error", 'e' },
	{ "chdir", 'D' }, { "wrap", 0 }, { "parsable", 0 }, { "open-mode", 0 },
};

/* NULL when option word w (with its dashes) is free to use, else the option it collides with. */
static const char *
slurm_reserved(const char *w)
{
	size_t i, n;

	for (i = 0; i < sizeof(slurm_ours) / sizeof(slurm_ours[0]); i++) {
		if (w[0] == '-' && w[1] == '-') {
			/* getopt_long takes any unambiguous prefix: "--job-nam=x" is --job-name */
			n = strcspn(w + 2, "=");
			if (n > 0 && n <= strlen(slurm_ours[i].lng) && strncmp(w + 2, slurm_ours[i].lng, n) == 0)
				return slurm_ours[i].lng;
		} else if (w[0] == '-' && slurm_ours[i].shrt != 0 &&
		    w[1 + strspn(w + 1, SLURM_NOARG_FLAGS)] == slurm_ours[i].shrt)
			return slurm_ours[i].lng;	/* "-Jx", and behind flags: "-vJx" */
	}
	return NULL;
}

static const char *
slurm_reserved_fn(const char *w, void *arg, char **why)
{
	(void)arg;
	(void)why;
	return slurm_reserved(w);
}

static const cJSON *
slurm_stage_opts(const struct wk_config *cfg, size_t idx)
{
	return cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cfg->root, "chain"), (int)idx),
	    "sbatch");
}

/*
 * Append chain[idx].sbatch as words to b (b may be NULL: check only).
 * 0, or WK_ERR_INVALID with *why (caller frees).
 */
static int
slurm_opts(const struct wk_config *cfg, size_t idx, struct buf *b, char **why)
{
	return optwords_append(slurm_stage_opts(cfg, idx), "an sbatch", slurm_reserved_fn, NULL, b, why);
}

int
slurm_check(const struct wk_config *cfg, struct diag *d)
{
	size_t i;
	int n = 0;
	char *why;

	for (i = 0; i < cfg->nchain; i++) {
		if (slurm_opts(cfg, i, NULL, &why) == 0)
			continue;
		diag_add(d, cfg->path, cfg->chain[i].line, "chain[%zu].sbatch (stage %s): %s", i,
		    cfg->chain[i].name, why);
		free(why);
		n++;
	}
	return n;
}

char *
slurm_sbatch_command(const struct wk_config *cfg, size_t idx, const char *self, const char *cfgpath,
    const char *after, char **why)
{
	const struct wk_stage *st = &cfg->chain[idx];
	struct buf b = BUF_INIT, wrap = BUF_INIT;
	char *name = jobctl_job_name(cfg, st->name), *w;
	char *out = xstrfmt("%s/" LAYOUT_DIR "/logs/%s.slurm-%%j.out", cfg->workdir, st->name);

	buf_puts(&b, "sbatch --parsable ");
	w = xstrfmt("--job-name=%s", name);
	sshq_append(&b, w);
	free(w);
	buf_putc(&b, ' ');
	w = xstrfmt("--chdir=%s", cfg->workdir);
	sshq_append(&b, w);
	free(w);
	buf_putc(&b, ' ');
	w = xstrfmt("--output=%s", out);
	sshq_append(&b, w);
	free(w);
	buf_puts(&b, " --open-mode=append");
	if (after != NULL) {
		w = xstrfmt("--dependency=afterok:%s", after);
		buf_putc(&b, ' ');
		sshq_append(&b, w);
		free(w);
	}
	if (slurm_opts(cfg, idx, &b, why) != 0) {
		buf_free(&b);
		b.data = NULL;
		goto out;
	}
	/* The job's script: exec onbox's stage wrapper (quoted inside, then quoted as one word). */
	buf_puts(&wrap, "exec ");
	sshq_append(&wrap, self);
	buf_puts(&wrap, " -c ");
	sshq_append(&wrap, cfgpath);
	buf_puts(&wrap, " run --stage ");
	sshq_append(&wrap, st->name);
	buf_puts(&b, " --wrap ");
	sshq_append(&b, buf_str(&wrap));
 out:
	buf_free(&wrap);
	free(name);
	free(out);
	return b.data != NULL ? buf_detach(&b) : NULL;
}

int
slurm_id_ok(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || n > 20)
		return 0;
	if (s[n] == '\0')
		return 1;
	if ((s[n] == '_' || s[n] == '+') && strspn(s + n + 1, "0123456789") > 0 &&
	    s[n + 1 + strspn(s + n + 1, "0123456789")] == '\0')
		return strlen(s) <= 40;
	return 0;
}

char *
slurm_parse_sbatch(const char *out)
{
	const char *p = out + strspn(out, " \t\r\n");
	size_t n = strcspn(p, ";\r\n");
	char *id = xstrndup(p, n);

	while (n > 0 && (id[n - 1] == ' ' || id[n - 1] == '\t'))
		id[--n] = '\0';
	if (!slurm_id_ok(id)) {
		free(id);
		return NULL;
	}
	return id;
}

char *
slurm_scancel_command(const char *const *ids, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_puts(&b, "scancel");
	for (i = 0; i < n; i++) {
		buf_putc(&b, ' ');
		sshq_append(&b, ids[i]);
	}
	return buf_detach(&b);
}

/* ---- the query fragment ---- */

void
slurm_grep_names(const struct wk_config *cfg, struct buf *b, const char *pre, const char *post)
{
	size_t i;

	for (i = 0; i < cfg->nchain; i++) {
		char *n = jobctl_job_name(cfg, cfg->chain[i].name);
		char *pat = xstrfmt("%s%s%s", pre, n, post);

		buf_puts(b, " -e ");
		sshq_append(b, pat);
		free(pat);
		free(n);
	}
}

char *
slurm_names(const struct wk_config *cfg)
{
	struct buf names = BUF_INIT;
	size_t i;

	for (i = 0; i < cfg->nchain; i++) {
		char *n = jobctl_job_name(cfg, cfg->chain[i].name);

		buf_printf(&names, "%s%s", i > 0 ? "," : "", n);
		free(n);
	}
	return buf_detach(&names);
}

char *
slurm_query_script(const struct wk_config *cfg)
{
	struct buf b = BUF_INIT;
	char *names = slurm_names(cfg);

	buf_puts(&b, "SN=");
	sshq_append(&b, names);
	free(names);
	buf_puts(&b, "\nST=; command -v timeout >/dev/null 2>&1 && ST='timeout " SLURM_CMD_TIMEOUT "'\n"
	    /* the queue: JSON when this squeue has it */
	    "o=$($ST squeue -a --json --name=\"$SN\" 2>/dev/null); r=$?\n"
	    /*
	     * squeue --json lists every job of the cluster whatever the
	     * filters say (22.05): on a busy cluster the text form, which
	     * --name does filter, keeps the probe small.
	     */
	    "if [ $r = 0 ] && [ -n \"$o\" ] && [ ${#o} -le " SLURM_JSON_MAX " ]; then "
	    "echo '=squeue json 0'; printf '%s\\n' \"$o\"; else\n"
	    "o=$($ST squeue -a -h --name=\"$SN\" -o '%i|%j|%T|%r' 2>&1); r=$?\n"
	    "echo \"=squeue text $r\"; printf '%s\\n' \"$o\"; fi\n"
	    /* finished jobs: the accounting database, else the job completion file */
	    "o=$($ST sacct -n -P -X -S now-7days --name=\"$SN\" -o jobid,jobname,state,exitcode 2>&1); r=$?\n"
	    "if [ $r = 0 ]; then echo '=sacct db 0'; printf '%s\\n' \"$o\"; else\n"
	    "o=$($ST sacct -c -n -P -o jobid,jobname,state,exitcode 2>&1); r=$?\n"
	    "echo \"=sacct comp $r\"\n"
	    "if [ $r = 0 ]; then printf '%s\\n' \"$o\" | grep -F");
	slurm_grep_names(cfg, &b, "|", "|");
	/* no line of ours is not a failure of the fragment */
	buf_puts(&b, " | tail -n " SLURM_COMP_LINES " || :; else printf '%s\\n' \"$o\" | tail -n 3; fi; fi\n"
	    /* what the controller still remembers: exit codes, restarts, reasons */
	    "o=$($ST scontrol -o show job 2>&1); r=$?\n"
	    "echo \"=scontrol $r\"\n"
	    "if [ $r = 0 ]; then printf '%s\\n' \"$o\" | grep -F");
	slurm_grep_names(cfg, &b, " JobName=", " ");
	buf_puts(&b, " || :; else printf '%s\\n' \"$o\" | tail -n 3; fi\n");
	return buf_detach(&b);
}

int
slurm_ask(const struct wk_config *cfg, struct slurm_view *sv, char **why)
{
	struct jobctl jc;
	char *script = slurm_query_script(cfg), *out = NULL;
	int rc;

	memset(sv, 0, sizeof(*sv));
	jobctl_init(&jc, cfg);
	if ((rc = jobctl_exec(&jc, "the Slurm query", script, &out, why)) == 0)
		rc = slurm_parse(cfg, out, strlen(out), sv, why);
	free(script);
	free(out);
	return rc;
}

/* ---- parsing ---- */

enum slurm_src { SRC_SQUEUE, SRC_SACCT, SRC_SCONTROL };

static void slurm_why(struct slurm_view *sv, const char *src, int rc, const char *body);

/* The stage a job name names, or NULL when it is not one of the run's. */
static const char *
slurm_name_stage(const struct wk_config *cfg, const char *name, size_t len)
{
	size_t i, pl = strlen(cfg->run) + 4;

	if (len <= pl || strncmp(name, "wk-", 3) != 0 || strncmp(name + 3, cfg->run, pl - 4) != 0 ||
	    name[pl - 1] != '-')
		return NULL;
	for (i = 0; i < cfg->nchain; i++)
		if (strlen(cfg->chain[i].name) == len - pl &&
		    strncmp(cfg->chain[i].name, name + pl, len - pl) == 0)
			return cfg->chain[i].name;
	return NULL;
}

static struct slurm_job *
slurm_job_get(struct slurm_view *sv, const char *id, const char *stage)
{
	size_t i;

	for (i = 0; i < sv->njobs; i++)
		if (strcmp(sv->jobs[i].id, id) == 0)
			return &sv->jobs[i];
	sv->jobs = xreallocarray(sv->jobs, sv->njobs + 1, sizeof(*sv->jobs));
	memset(&sv->jobs[sv->njobs], 0, sizeof(sv->jobs[0]));
	sv->jobs[sv->njobs].id = xstrdup(id);
	sv->jobs[sv->njobs].stage = xstrdup(stage);
	sv->jobs[sv->njobs].exit_code = -1;
	sv->jobs[sv->njobs].restarts = -1;
	return &sv->jobs[sv->njobs++];
}

/*
 * Record what src says of job id.  The queue's state stands for a job in the
 * queue; otherwise scontrol's beats sacct's (sacct -c may lag the controller).
 */
static void
slurm_note(struct slurm_view *sv, enum slurm_src src, const char *id, const char *stage,
    const char *state, const char *reason, int exit_code, int signo, long restarts)
{
	struct slurm_job *j;

	if (!slurm_id_ok(id))
		return;
	j = slurm_job_get(sv, id, stage);
	if (state != NULL && *state != '\0' &&
	    (src == SRC_SQUEUE || (!j->in_queue && (src == SRC_SCONTROL || j->state[0] == '\0')))) {
		snprintf(j->state, sizeof(j->state), "%.*s", (int)strcspn(state, " "), state);
		if (reason != NULL)
			snprintf(j->reason, sizeof(j->reason), "%s", reason);
	}
	if (src == SRC_SQUEUE)
		j->in_queue = 1;
	if (reason != NULL && *reason != '\0' && j->reason[0] == '\0')
		snprintf(j->reason, sizeof(j->reason), "%s", reason);
	if (exit_code >= 0 && (j->exit_code < 0 || src == SRC_SCONTROL)) {
		j->exit_code = exit_code;
		j->signo = signo;
	}
	if (restarts >= 0 && restarts > j->restarts)
		j->restarts = restarts;
}

/* "3:0" (code:signal). */
static void
slurm_exitcode(const char *s, int *code, int *signo)
{
	int c, sg;

	*code = -1;
	*signo = 0;
	if (sscanf(s, "%d:%d", &c, &sg) == 2 && c >= 0 && c < 256 && sg >= 0 && sg < 128) {
		*code = c;
		*signo = sg;
	}
}

/* A JSON value that is a string, or an array whose first item is (newer Slurm's flag lists). */
static const char *
slurm_json_word(const cJSON *v)
{
	if (cJSON_IsArray(v))
		v = cJSON_GetArrayItem(v, 0);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number, or {"set": true, "number": N} (newer Slurm), else def. */
static double
slurm_json_num(const cJSON *v, double def)
{
	if (cJSON_IsNumber(v))
		return v->valuedouble;
	if (cJSON_IsObject(v) && cJSON_IsNumber(cJSON_GetObjectItem(v, "number")) &&
	    !cJSON_IsFalse(cJSON_GetObjectItem(v, "set")))
		return cJSON_GetObjectItem(v, "number")->valuedouble;
	return def;
}

/* slurm_json_num() as a whole number in [lo, hi], else def (an out-of-range cast is undefined). */
static long
slurm_json_long(const cJSON *v, long def, long lo, long hi)
{
	double d = slurm_json_num(v, (double)def);

	return d >= (double)lo && d <= (double)hi ? (long)d : def;
}

static int
slurm_parse_squeue_json(const struct wk_config *cfg, struct slurm_view *sv, const char *t)
{
	cJSON *doc = cJSON_Parse(t), *jobs, *it, *err;

	if (doc == NULL || !cJSON_IsArray(jobs = cJSON_GetObjectItem(doc, "jobs"))) {
		cJSON_Delete(doc);
		slurm_why(sv, "squeue --json", 0, "printed what is not JSON");
		return WK_ERR_PARSE;
	}
	/* With the controller down it still exits 0, with "jobs": [] and the errors. */
	if ((err = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "errors"), 0)) != NULL) {
		char *e = xstrfmt("%s: %s (%s)", json_str(err, "source", "squeue"),
		    json_str(err, "description", "?"), json_str(err, "error", "?"));

		slurm_why(sv, "squeue --json", 0, e);
		free(e);
		cJSON_Delete(doc);
		return WK_ERR_PARSE;
	}
	cJSON_ArrayForEach(it, jobs) {
		const char *name = json_str(it, "name", NULL), *stage, *st;
		const cJSON *ec = cJSON_GetObjectItem(it, "exit_code");
		double id = slurm_json_num(cJSON_GetObjectItem(it, "job_id"), -1);
		int code = -1, sig = 0;
		char idbuf[32];

		if (name == NULL || id < 0 || (stage = slurm_name_stage(cfg, name, strlen(name))) == NULL)
			continue;
		st = slurm_json_word(cJSON_GetObjectItem(it, "job_state"));
		if (cJSON_IsObject(ec)) {
			/* newer Slurm: {"status": [...], "return_code": N|{number}, "signal": {...}} */
			code = (int)slurm_json_long(cJSON_GetObjectItem(ec, "return_code"), -1, 0, 255);
			sig = (int)slurm_json_long(cJSON_GetObjectItem(cJSON_GetObjectItem(ec, "signal"),
			    "id"), 0, 0, 127);
		} else if (cJSON_IsNumber(ec) && st != NULL && slurm_classify(st, NULL) != SLURM_WAITING &&
		    slurm_classify(st, NULL) != SLURM_RUNNING) {
			/* a wait status (exit code << 8 | signal) */
			code = (ec->valueint >> 8) & 0xff;
			sig = ec->valueint & 0x7f;
		}
		snprintf(idbuf, sizeof(idbuf), "%.0f", id);
		slurm_note(sv, SRC_SQUEUE, idbuf, stage, st != NULL ? st : "UNKNOWN",
		    json_str(it, "state_reason", NULL), code, sig,
		    slurm_json_long(cJSON_GetObjectItem(it, "restart_cnt"), -1, 0, 1000000000L));
	}
	cJSON_Delete(doc);
	return 0;
}

/* Split line l at '|' into at most n fields (pointers into copy).  Returns the count. */
static size_t
slurm_fields(char *copy, char **f, size_t n)
{
	size_t k = 0;
	char *p = copy;

	while (k < n) {
		f[k++] = p;
		if ((p = strchr(p, '|')) == NULL)
			break;
		*p++ = '\0';
	}
	return k;
}

/* The value of "Key=" in scontrol's one-line form (up to the next blank), into out. */
static int
slurm_kv(const char *line, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " \n");

			snprintf(out, len, "%.*s", (int)n, p + kl + 1);
			return 1;
		}
		p += kl;
	}
	return 0;
}

static void
slurm_parse_line(const struct wk_config *cfg, struct slurm_view *sv, enum slurm_src src,
    const char *l, size_t len)
{
	char *copy = xstrndup(l, len), *f[6];
	const char *stage;
	int code, sig;

	if (src == SRC_SCONTROL) {
		char id[48], name[256], state[48], reason[128], ec[32], rs[32];

		if (slurm_kv(copy, "JobId", id, sizeof(id)) && slurm_kv(copy, "JobName", name, sizeof(name)) &&
		    slurm_kv(copy, "JobState", state, sizeof(state)) &&
		    (stage = slurm_name_stage(cfg, name, strlen(name))) != NULL) {
			if (!slurm_kv(copy, "Reason", reason, sizeof(reason)))
				reason[0] = '\0';
			code = -1;
			sig = 0;
			if (slurm_kv(copy, "ExitCode", ec, sizeof(ec)) &&
			    slurm_classify(state, NULL) != SLURM_WAITING &&
			    slurm_classify(state, NULL) != SLURM_RUNNING)
				slurm_exitcode(ec, &code, &sig);
			if (!slurm_kv(copy, "Restarts", rs, sizeof(rs)))
				snprintf(rs, sizeof(rs), "-1");
			slurm_note(sv, src, id, stage, state, reason, code, sig, strtol(rs, NULL, 10));
		}
	} else if (slurm_fields(copy, f, 4) == 4 &&
	    (stage = slurm_name_stage(cfg, f[1], strlen(f[1]))) != NULL) {
		if (src == SRC_SQUEUE)
			slurm_note(sv, src, f[0], stage, f[2], f[3], -1, 0, -1);
		else {
			code = -1;
			sig = 0;
			if (slurm_classify(f[2], NULL) != SLURM_WAITING &&
			    slurm_classify(f[2], NULL) != SLURM_RUNNING)
				slurm_exitcode(f[3], &code, &sig);
			slurm_note(sv, src, f[0], stage, f[2], NULL, code, sig, -1);
		}
	}
	free(copy);
}

static int
slurm_id_cmp(const void *a, const void *b)
{
	const struct slurm_job *x = a, *y = b;
	unsigned long long u = strtoull(x->id, NULL, 10), v = strtoull(y->id, NULL, 10);

	return u < v ? 1 : u > v ? -1 : strcmp(y->id, x->id);
}

static void
slurm_why(struct slurm_view *sv, const char *src, int rc, const char *body)
{
	const char *last = body, *p;
	size_t n;
	char *w;

	/* the last non-empty line of what it said */
	for (p = body; *p != '\0'; p++)
		if (*p == '\n' && p[1] != '\0' && p[1] != '\n')
			last = p + 1;
	n = strcspn(last, "\n");
	w = xstrfmt("%s%s%s: exit %d%s%.*s", sv->why != NULL ? sv->why : "", sv->why != NULL ? "; " : "",
	    src, rc, n > 0 ? ": " : "", (int)(n > 200 ? 200 : n), last);
	free(sv->why);
	sv->why = w;
}

struct slurm_sec {
	int		 src;		/* enum slurm_src, -1 before the first header */
	int		 rc;		/* the command's exit status */
	int		 json;		/* squeue's JSON form */
	struct buf	 body;		/* JSON, or what a failed command said */
};

static const char *const slurm_srcs[] = { "squeue", "sacct", "scontrol" };

/* The section in sec has ended: take in what it said. */
static void
slurm_sec_end(const struct wk_config *cfg, struct slurm_view *sv, struct slurm_sec *sec)
{
	if (sec->src < 0)
		return;
	if (sec->rc != 0)
		slurm_why(sv, slurm_srcs[sec->src], sec->rc, buf_str(&sec->body));
	else if (sec->src != SRC_SQUEUE)
		sv->final_known = 1;
	else if (!sec->json || slurm_parse_squeue_json(cfg, sv, buf_str(&sec->body)) == 0)
		sv->queue_known = 1;	/* else slurm_parse_squeue_json() said why */
	buf_reset(&sec->body);
}

int
slurm_parse(const struct wk_config *cfg, const char *text, size_t len, struct slurm_view *sv,
    char **why)
{
	struct slurm_sec sec = { -1, 0, 0, BUF_INIT };
	const char *l, *end = text + len, *nl;
	int seen[3] = { 0, 0, 0 }, ret = 0;
	size_t i;

	memset(sv, 0, sizeof(*sv));
	*why = NULL;
	for (l = text; l < end && ret == 0; l = nl < end ? nl + 1 : end) {
		char name[16], mode[16], hdr[64];
		int used = 0;

		if ((nl = memchr(l, '\n', (size_t)(end - l))) == NULL)
			nl = end;
		if (*l != '=') {
			if (sec.src < 0)
				continue;
			if (sec.json || sec.rc != 0)
				buf_append(&sec.body, l, (size_t)(nl - l) + (nl < end));
			else if (nl > l)
				slurm_parse_line(cfg, sv, (enum slurm_src)sec.src, l, (size_t)(nl - l));
			continue;
		}
		slurm_sec_end(cfg, sv, &sec);
		sec.src = -1;
		mode[0] = '\0';
		/* the header alone: never the next line, never past len */
		snprintf(hdr, sizeof(hdr), "%.*s", (int)((nl - l - 1) < 63 ? (nl - l - 1) : 63), l + 1);
		if ((sscanf(hdr, "%15s %15s %d%n", name, mode, &sec.rc, &used) == 3 && hdr[used] == '\0') ||
		    (mode[0] = '\0', sscanf(hdr, "%15s %d%n", name, &sec.rc, &used) == 2 && hdr[used] == '\0')) {
			for (i = 0; i < 3; i++)
				if (strcmp(name, slurm_srcs[i]) == 0)
					sec.src = (int)i;
		}
		if (sec.src < 0) {
			*why = xstrfmt("slurm query: garbled header \"%.*s\"",
			    (int)((nl - l) > 40 ? 40 : (nl - l)), l);
			ret = WK_ERR_PARSE;
			break;
		}
		sec.json = sec.src == SRC_SQUEUE && strcmp(mode, "json") == 0;
		seen[sec.src] = 1;
	}
	if (ret == 0)
		slurm_sec_end(cfg, sv, &sec);
	buf_free(&sec.body);
	for (i = 0; i < 3 && ret == 0; i++) {
		if (!seen[i]) {
			*why = xstrfmt("slurm query: no %s section", slurm_srcs[i]);
			ret = WK_ERR_PARSE;
		}
	}
	if (ret != 0) {
		slurm_view_free(sv);
		return ret;
	}
	for (i = 0; i < sv->njobs; i++) {
		struct slurm_job *j = &sv->jobs[i];

		/*
		 * Live by another source but not in the queue that answered
		 * first: submitted after squeue answered, or an accounting
		 * record that lags.  Unknown: not live by the queue's word (so
		 * a resume asks again, and `onbox start` adopts it by name),
		 * and never taken for a failure.
		 */
		if (sv->queue_known && !j->in_queue && slurm_cls_live(slurm_classify(j->state, NULL)))
			snprintf(j->state, sizeof(j->state), "UNKNOWN");
		j->cls = slurm_classify(j->state, j->reason);
	}
	if (sv->njobs > 1)
		qsort(sv->jobs, sv->njobs, sizeof(*sv->jobs), slurm_id_cmp);
	return 0;
}

void
slurm_view_free(struct slurm_view *sv)
{
	size_t i;

	for (i = 0; i < sv->njobs; i++) {
		free(sv->jobs[i].id);
		free(sv->jobs[i].stage);
	}
	free(sv->jobs);
	free(sv->why);
	memset(sv, 0, sizeof(*sv));
}

const struct slurm_job *
slurm_stage_job(const struct slurm_view *sv, const char *stage)
{
	const struct slurm_job *any = NULL;
	size_t i;

	for (i = 0; i < sv->njobs; i++) {
		if (strcmp(sv->jobs[i].stage, stage) != 0)
			continue;
		if (slurm_cls_live(sv->jobs[i].cls))
			return &sv->jobs[i];
		if (any == NULL)
			any = &sv->jobs[i];
	}
	return any;
}

const struct slurm_job *
slurm_job_by_id(const struct slurm_view *sv, const char *id)
{
	size_t i;

	for (i = 0; i < sv->njobs; i++)
		if (strcmp(sv->jobs[i].id, id) == 0)
			return &sv->jobs[i];
	return NULL;
}
