/*
 * jobctl.c: drive a cluster manager's job CLI from the config (see jobctl.h).
 *
 * Three tables carry the knowledge: jobctl_states[] (our state names),
 * jobctl_phs[] (placeholders) and jobctl_ops[] (each operation's config key,
 * which placeholders have a value in it and which its command must use), so
 * jobctl_check() and the operations cannot disagree.  This file holds the
 * tables, the state map, building a command from its template (from the
 * dialect in use, else the job section) and the operations (submit,
 * resubmit, status, find, stop, node, logs) with their output parsing; the
 * dialects, a stage's options and the config check are jobctl-cfg.c's.
 * Every command goes through one runner, jobctl_run() in jobctl-run.c
 * (process group, deadline, bounded output).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "jobctl.h"
#include "jobctl-int.h"
#include "optwords.h"
#include "pattern.h"
#include "portable.h"
#include "sshq.h"
#include "xmalloc.h"

#define JOBCTL_ID_MAX	1024

static const struct {
	const char	*name;
	enum job_state	 st;
} jobctl_states[] = {
	{ "pending", JOB_PENDING },
	{ "running", JOB_RUNNING },
	{ "succeeded", JOB_SUCCEEDED },
	{ "failed", JOB_FAILED },
	{ "stopped", JOB_STOPPED },
	{ "unknown", JOB_UNKNOWN },
};
#define JOBCTL_NSTATES	(sizeof(jobctl_states) / sizeof(jobctl_states[0]))
#define JOBCTL_STATE_LIST "pending, running, succeeded, failed, stopped, unknown"


const char *const jobctl_phs[PH_N] = {
	[PH_ID] = "{id}",
	[PH_NAME] = "{name}",
	[PH_COMMAND] = "{command}",
	[PH_WORKDIR] = "{workdir}",
	[PH_SINCE] = "{since_ms}",
	[PH_OPTIONS] = "{options}",
};

const struct jobctl_op jobctl_ops[OP_N] = {
	[OP_SUBMIT] = { "job.submit", "submit", PH(PH_NAME) | PH(PH_COMMAND) | PH(PH_WORKDIR) |
	    PH(PH_OPTIONS), PH(PH_NAME) | PH(PH_COMMAND) },
	[OP_STATUS] = { "job.status", "status", PH(PH_ID) | PH(PH_WORKDIR), PH(PH_ID) },
	[OP_FIND] = { "job.find", "find", PH(PH_NAME) | PH(PH_WORKDIR), PH(PH_NAME) },
	[OP_STOP] = { "job.stop", "stop", PH(PH_ID) | PH(PH_WORKDIR), PH(PH_ID) },
	[OP_LOGS] = { "job.logs", "logs", PH(PH_ID) | PH(PH_WORKDIR) | PH(PH_SINCE), PH(PH_ID) },
	[OP_NODE] = { "job.node", "name the node of", PH(PH_ID) | PH(PH_WORKDIR), PH(PH_ID) },
};

void
jobctl_init(struct jobctl *jc, const struct wk_config *cfg)
{
	jc->cfg = cfg;
	jc->timeout_ms = JOBCTL_TIMEOUT_MS;
	jc->out_cap = JOBCTL_OUT_CAP;
	jc->dialect = NULL;
}

const char *
job_state_name(enum job_state st)
{
	size_t i;

	for (i = 0; i < JOBCTL_NSTATES; i++)
		if (jobctl_states[i].st == st)
			return jobctl_states[i].name;
	return "unknown";
}

int
job_state_live(enum job_state st)
{
	return st == JOB_PENDING || st == JOB_RUNNING;
}

int
job_state_final(enum job_state st)
{
	return st == JOB_SUCCEEDED || st == JOB_FAILED || st == JOB_STOPPED;
}

char *
jobctl_job_name(const struct wk_config *cfg, const char *stage)
{
	return xstrfmt("wk-%s-%s", cfg->run, stage);
}

/* Text. */

/* s is one line of printable text (no control characters), 1..max bytes. */
int
jobctl_word_ok(const char *s, size_t max)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

/* The state map. */

static const cJSON *
jobctl_states_obj(const struct wk_config *cfg)
{
	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cfg->root, "job"), "states");
}

/* Our state for a job.states key; 0 when the key is not one of ours. */
static int
jobctl_state_key(const char *key, enum job_state *st)
{
	size_t i;

	for (i = 0; i < JOBCTL_NSTATES; i++)
		if (strcmp(jobctl_states[i].name, key) == 0) {
			*st = jobctl_states[i].st;
			return 1;
		}
	return 0;
}

/* The i-th manager name listed under v (a string or an array of strings), or NULL. */
static const char *
jobctl_states_name(const cJSON *v, int i)
{
	if (cJSON_IsString(v))
		return i == 0 ? v->valuestring : NULL;
	return cJSON_GetStringValue(cJSON_GetArrayItem(v, i));
}

/* Every problem of job.states into d (file cfg->path); the number found. */
int
jobctl_check_states(const struct wk_config *cfg, struct diag *d)
{
	const cJSON *map = jobctl_states_obj(cfg), *a, *b;
	const char *na, *nb;
	enum job_state st;
	int found = 0, i, j;

	if (map == NULL)
		return 0;
	cJSON_ArrayForEach(a, map) {
		if (!jobctl_state_key(a->string, &st)) {
			diag_add(d, cfg->path, 0, "key \"job.states.%s\": \"%s\" is not one of "
			    "our states (" JOBCTL_STATE_LIST ")", a->string, a->string);
			found++;
		}
		for (i = 0; (na = jobctl_states_name(a, i)) != NULL; i++) {
			if (!jobctl_word_ok(na, JOBCTL_STATE_MAX) || strpbrk(na, " \t") != NULL) {
				diag_add(d, cfg->path, 0, "key \"job.states.%s\": \"%s\" can never "
				    "match: a state is one word of printable characters",
				    a->string, na);
				found++;
			}
			/* The same name again, under this key or a later one. */
			for (b = a; b != NULL; b = b->next) {
				for (j = b == a ? i + 1 : 0; (nb = jobctl_states_name(b, j)) != NULL;
				    j++) {
					if (strcmp(na, nb) != 0)
						continue;
					if (b == a)
						diag_add(d, cfg->path, 0, "key \"job.states.%s\": "
						    "\"%s\" is listed twice", a->string, na);
					else
						diag_add(d, cfg->path, 0, "key \"job.states\": \"%s\" "
						    "is listed under both \"%s\" and \"%s\"", na,
						    a->string, b->string);
					found++;
				}
			}
		}
	}
	return found;
}

/*
 * Map the manager's word raw.  0 with *st (JOB_UNKNOWN and *why when job.states
 * does not list it), or WK_ERR_INVALID and *why when job.states is broken.
 */
static int
jobctl_map(const struct wk_config *cfg, const char *raw, enum job_state *st, char **why)
{
	struct diag d = DIAG_INIT;
	const cJSON *map = jobctl_states_obj(cfg), *it;
	const char *n;
	int i, r = 0;

	*st = JOB_UNKNOWN;
	if (jobctl_check_states(cfg, &d) > 0) {
		*why = d.n > 1 ? xstrfmt("%s (and %zu more problems in job.states)", d.msgs[0],
		    d.n - 1) : xstrdup(d.msgs[0]);
		r = WK_ERR_INVALID;
		goto out;
	}
	cJSON_ArrayForEach(it, map) {
		for (i = 0; (n = jobctl_states_name(it, i)) != NULL; i++)
			if (strcmp(n, raw) == 0) {
				(void)jobctl_state_key(it->string, st);
				goto out;
			}
	}
	*why = xstrfmt("the manager's state \"%s\" is not in job.states%s: taken as unknown",
	    raw, map == NULL ? " (job.states is not set)" : "");
out:
	diag_free(&d);
	return r;
}

/* Commands. */

/* The placeholder p starts with (an index into jobctl_phs), or -1. */
static int
jobctl_ph_at(const char *p)
{
	size_t i;

	if (*p != '{')
		return -1;
	for (i = 0; i < PH_N; i++)
		if (strncmp(p, jobctl_phs[i], strlen(jobctl_phs[i])) == 0)
			return (int)i;
	return -1;
}

/* The placeholders tmpl uses, as a PH() mask. */
unsigned
jobctl_uses(const char *tmpl)
{
	unsigned mask = 0;
	int k;

	for (; *tmpl != '\0'; tmpl++)
		if ((k = jobctl_ph_at(tmpl)) >= 0)
			mask |= PH(k);
	return mask;
}

/* The dialect's own value of key ("job.status"), else the job section's; NULL when neither. */
static const char *
jobctl_key(const struct jobctl *jc, const char *key)
{
	const char *v = jc->dialect != NULL ? cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(jc->dialect, key + strlen("job."))) : NULL;

	return v != NULL ? v : config_get_str(jc->cfg, key);
}

int
jobctl_has(const struct jobctl *jc, const char *key)
{
	return jobctl_key(jc, key) != NULL;
}

/*
 * The command for op with its placeholders replaced by the quoted vals[].
 * 0 and *out (caller frees), or WK_ERR_INVALID and *why.
 */
static int
jobctl_command(const struct jobctl *jc, enum jobctl_opi op, const char *const vals[PH_N],
    char **out, char **why)
{
	const struct jobctl_op *o = &jobctl_ops[op];
	const char *tmpl = jobctl_key(jc, o->key), *p;
	struct buf b = BUF_INIT;
	int k;

	*out = NULL;
	if (tmpl == NULL || *tmpl == '\0') {
		*why = xstrfmt("%s is not set in %s%s%s: cannot %s a job", o->key, jc->cfg->path,
		    jc->cfg->profile != NULL ? " or its profile " : "",
		    jc->cfg->profile != NULL ? jc->cfg->profile : "", o->verb);
		return WK_ERR_INVALID;
	}
	for (p = tmpl; *p != '\0';) {
		if ((k = jobctl_ph_at(p)) < 0) {
			buf_putc(&b, *p++);
			continue;
		}
		if (!(o->have & PH(k)) || vals[k] == NULL) {
			*why = xstrfmt("%s uses %s, which %s has no value for", o->key,
			    jobctl_phs[k], o->verb);
			buf_free(&b);
			return WK_ERR_INVALID;
		}
		if (PH(k) & PH_RAW)
			buf_puts(&b, vals[k]);
		else
			sshq_append(&b, vals[k]);
		p += strlen(jobctl_phs[k]);
	}
	*out = buf_detach(&b);
	return 0;
}

/* Build and run op's command with vals.  0, or a negative code and *why. */
static int
jobctl_op(const struct jobctl *jc, enum jobctl_opi op, const char *const vals[PH_N], size_t cap,
    int keep_tail, struct jobctl_res *r, char **why)
{
	char *cmd = NULL;
	int ret;

	if ((ret = jobctl_command(jc, op, vals, &cmd, why)) == 0)
		ret = jobctl_run(jc, jobctl_ops[op].key, cmd, cap, keep_tail, r, why);
	free(cmd);
	return ret;
}

static size_t
jobctl_cap(const struct jobctl *jc)
{
	return jc->out_cap > 0 ? jc->out_cap : JOBCTL_OUT_CAP;
}

/* Output parsing. */

static int
jobctl_id_regex(const struct jobctl *jc, enum jobctl_opi op, struct pattern **re, char **why)
{
	const char *src = jobctl_key(jc, "job.id_regex");
	char err[256];

	*re = NULL;
	if (src == NULL) {
		*why = xstrfmt("job.id_regex is not set: cannot read job ids from %s's output",
		    jobctl_ops[op].key);
		return WK_ERR_INVALID;
	}
	if (pattern_compile(src, re, err, sizeof(err)) != 0) {
		*why = xstrfmt("job.id_regex does not compile: %s", err);
		return WK_ERR_REGEX;
	}
	return 0;
}

/*
 * Find the id on one line: 1 with *id_start and *id_end (group 1 when it took
 * part, else the whole match), 0 no match, WK_ERR_REGEX.
 */
static int
jobctl_line_id(struct pattern *re, const char *line, size_t len, size_t *id_start, size_t *id_end)
{
	struct pattern_span g[2];
	int m;

	if ((m = pattern_match_groups(re, line, len, g, 2)) != 1)
		return m;
	if (g[1].start < 0)
		g[1] = g[0];
	if (g[1].end <= g[1].start)
		return 0;	/* an empty id is no id */
	*id_start = (size_t)g[1].start;
	*id_end = (size_t)g[1].end;
	return 1;
}

/* Next line of s (from *pos): its start and length without the newline or a trailing \r. */
static int
jobctl_next_line(const char *s, size_t len, size_t *pos, const char **line, size_t *llen)
{
	const char *nl;
	size_t n;

	if (*pos >= len)
		return 0;
	*line = s + *pos;
	nl = memchr(*line, '\n', len - *pos);
	n = nl != NULL ? (size_t)(nl - *line) : len - *pos;
	*pos += n + (nl != NULL);
	if (n > 0 && (*line)[n - 1] == '\r')
		n--;
	*llen = n;
	return 1;
}

int
jobctl_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Validate a caller's argument: one line of printable text. */
static int
jobctl_arg(const char *what, const char *s, size_t max, char **why)
{
	if (s != NULL && jobctl_word_ok(s, max))
		return 0;
	*why = xstrfmt("the job %s is %s", what, s == NULL || *s == '\0' ? "empty" :
	    "not one line of printable text");
	return WK_ERR_INVALID;
}

/* The operations. */

/*
 * Run a submit: op's command with vals, or cmd as it is (label names it),
 * then the first line of its stdout that job.id_regex matches is *id.  what
 * names the job in a why.  0 and *id, or a negative code and *why.
 */
static int
jobctl_submit_run(const struct jobctl *jc, const char *what, const char *label, const char *cmd,
    const char *const vals[PH_N], char **id, char **why)
{
	struct jobctl_res r = { BUF_INIT, BUF_INIT, 0 };
	struct pattern *re = NULL;
	const char *line;
	char *last = NULL;
	size_t pos = 0, llen, s = 0, e = 0;
	int ret, m;

	/* The regex first: a job submitted whose id cannot be read is the worst outcome. */
	if ((ret = jobctl_id_regex(jc, OP_SUBMIT, &re, why)) != 0)
		goto out;
	ret = cmd != NULL ? jobctl_run(jc, label, cmd, jobctl_cap(jc), 0, &r, why) :
	    jobctl_op(jc, OP_SUBMIT, vals, jobctl_cap(jc), 0, &r, why);
	if (ret != 0)
		goto out;
	while (jobctl_next_line(buf_str(&r.out), r.out.len, &pos, &line, &llen)) {
		if ((m = jobctl_line_id(re, line, llen, &s, &e)) < 0) {
			*why = xstrfmt("job %s: job.id_regex failed to match", what);
			ret = WK_ERR_REGEX;
			goto out;
		}
		if (m == 0)
			continue;
		*id = xstrndup(line + s, e - s);
		if (jobctl_word_ok(*id, JOBCTL_ID_MAX))
			goto out;
		free(*id);
		*id = NULL;
		*why = xstrfmt("job %s: the id job.id_regex found in %s's output is "
		    "not one line of printable text", what, label);
		ret = WK_ERR_PARSE;
		goto out;
	}
	last = jobctl_last_line(&r.out);
	if (last != NULL)
		*why = xstrfmt("job %s: %s exited 0 but no line of its output matches "
		    "job.id_regex (its last line: %s); the job may exist: reconcile by name "
		    "before submitting again", what, label, last);
	else
		*why = xstrfmt("job %s: %s exited 0 but printed nothing; the job may "
		    "exist: reconcile by name before submitting again", what, label);
	ret = WK_ERR_PARSE;
out:
	pattern_free(re);
	jobctl_res_free(&r);
	free(last);
	return ret;
}

int
jobctl_submit(const struct jobctl *jc, const char *name, const char *command, const char *options,
    char **id, char **why)
{
	const char *vals[PH_N] = { NULL };
	int ret;

	*id = NULL;
	*why = NULL;
	if ((ret = jobctl_arg("name", name, JOBCTL_ID_MAX, why)) != 0)
		return ret;
	if (command == NULL || *command == '\0') {
		*why = xstrfmt("job %s: the command to submit is empty", name);
		return WK_ERR_INVALID;
	}
	vals[PH_NAME] = name;
	vals[PH_COMMAND] = command;
	vals[PH_WORKDIR] = jc->cfg->workdir;
	vals[PH_OPTIONS] = options != NULL ? options : "";
	return jobctl_submit_run(jc, name, jobctl_ops[OP_SUBMIT].key, NULL, vals, id, why);
}

int
jobctl_resubmit(const struct jobctl *jc, const char *label, const char *command, char **id,
    char **why)
{
	*id = NULL;
	*why = NULL;
	if (command == NULL || *command == '\0') {
		*why = xstrfmt("%s is empty", label);
		return WK_ERR_INVALID;
	}
	return jobctl_submit_run(jc, label, label, command, NULL, id, why);
}

int
jobctl_status(const struct jobctl *jc, const char *id, enum job_state *st, char **raw_state,
    char **why)
{
	struct jobctl_res r = { BUF_INIT, BUF_INIT, 0 };
	const char *vals[PH_N] = { NULL };
	char *word = NULL, *q = NULL, *p, *end;
	size_t i;
	int ret;

	*st = JOB_UNKNOWN;
	*raw_state = NULL;
	*why = NULL;
	if ((ret = jobctl_arg("id", id, JOBCTL_ID_MAX, why)) != 0)
		goto out;
	vals[PH_ID] = id;
	vals[PH_WORKDIR] = jc->cfg->workdir;
	if ((ret = jobctl_op(jc, OP_STATUS, vals, JOBCTL_STATE_MAX + 64, 0, &r, why)) != 0)
		goto out;
	p = r.out.data != NULL ? r.out.data : "";
	end = p + r.out.len;
	while (p < end && jobctl_is_space(*p))
		p++;
	while (end > p && jobctl_is_space(end[-1]))
		end--;
	if (p == end) {
		*why = xstrfmt("job %s: job.status printed no state (the profile's status "
		    "command must print the bare state)", id);
		ret = WK_ERR_PARSE;
		goto out;
	}
	q = jobctl_quote_text(p, (size_t)(end - p));
	for (i = 0; p + i < end; i++)
		if (jobctl_is_space(p[i]))
			break;
	if (r.out_truncated || p + i < end || (size_t)(end - p) > JOBCTL_STATE_MAX) {
		*why = xstrfmt("job %s: job.status printed \"%s\", not one state word (the "
		    "profile's status command must print the bare state)", id, q);
		ret = WK_ERR_PARSE;
		goto out;
	}
	word = xstrndup(p, (size_t)(end - p));
	if (!jobctl_word_ok(word, JOBCTL_STATE_MAX)) {
		*why = xstrfmt("job %s: job.status printed \"%s\", which has control characters",
		    id, q);
		ret = WK_ERR_PARSE;
		goto out;
	}
	if ((ret = jobctl_map(jc->cfg, word, st, why)) != 0)
		goto out;
	if (*why != NULL) {
		char *w = xstrfmt("job %s: %s", id, *why);

		free(*why);
		*why = w;
	}
	*raw_state = word;
	word = NULL;	/* transferred */
out:
	jobctl_res_free(&r);
	free(word);
	free(q);
	return ret;
}

int
jobctl_find(const struct jobctl *jc, const char *name, char **id, enum job_state *st,
    char **why)
{
	struct jobctl_res r = { BUF_INIT, BUF_INIT, 0 };
	struct pattern *re = NULL;
	const char *vals[PH_N] = { NULL }, *line;
	char *cwhy = NULL, *word = NULL, *q;
	size_t pos = 0, llen, s = 0, e = 0, ws, we, lineno = 0, njobs = 0;
	enum job_state cst;
	int ret, m;

	*id = NULL;
	*st = JOB_UNKNOWN;
	*why = NULL;
	if ((ret = jobctl_arg("name", name, JOBCTL_ID_MAX, why)) != 0)
		goto out;
	if ((ret = jobctl_id_regex(jc, OP_FIND, &re, why)) != 0)
		goto out;
	vals[PH_NAME] = name;
	vals[PH_WORKDIR] = jc->cfg->workdir;
	if ((ret = jobctl_op(jc, OP_FIND, vals, jobctl_cap(jc), 0, &r, why)) != 0)
		goto out;
	if (r.out_truncated) {
		*why = xstrfmt("job %s: job.find printed more than %zu bytes: the listing was "
		    "cut, so the newest job cannot be told", name, jobctl_cap(jc));
		ret = WK_ERR_TOOLONG;
		goto out;
	}
	/*
	 * Newest first.  Stop at the first job that is live or whose state is
	 * unknown (it may be live); a listing of only finished jobs gives its first.
	 */
	while (jobctl_next_line(buf_str(&r.out), r.out.len, &pos, &line, &llen)) {
		lineno++;
		if ((m = jobctl_line_id(re, line, llen, &s, &e)) < 0) {
			free(*why);
			*why = xstrfmt("job %s: job.id_regex failed to match", name);
			ret = WK_ERR_REGEX;
			goto out;
		}
		if (m == 0)
			continue;
		for (we = llen; we > e && jobctl_is_space(line[we - 1]); we--)
			;
		for (ws = we; ws > e && !jobctl_is_space(line[ws - 1]); ws--)
			;
		if (we == ws || ws == e) {
			q = jobctl_quote_text(line, llen);
			free(*why);
			*why = xstrfmt("job %s: line %zu of job.find's output names a job but no "
			    "state after it: \"%s\"", name, lineno, q);
			free(q);
			ret = WK_ERR_PARSE;
			goto out;
		}
		free(word);
		word = xstrndup(line + ws, we - ws);
		free(cwhy);
		cwhy = NULL;
		if ((ret = jobctl_map(jc->cfg, word, &cst, &cwhy)) != 0) {
			free(*why);
			*why = cwhy;
			cwhy = NULL;	/* transferred */
			goto out;
		}
		if (njobs++ == 0 || job_state_live(cst) || cst == JOB_UNKNOWN) {
			free(*id);
			*id = xstrndup(line + s, e - s);
			*st = cst;
			free(*why);
			*why = cwhy == NULL ? NULL : xstrfmt("job %s: %s", *id, cwhy);
			if (!jobctl_word_ok(*id, JOBCTL_ID_MAX)) {
				free(*why);
				*why = xstrfmt("job %s: an id in job.find's output is not one line "
				    "of printable text", name);
				ret = WK_ERR_PARSE;
				goto out;
			}
		}
		if (job_state_live(cst) || cst == JOB_UNKNOWN)
			break;
	}
	if (njobs == 0) {
		*why = xstrfmt("job.find lists no job named %s", name);
		ret = WK_ERR_NOTFOUND;
	}
out:
	if (ret != 0) {
		free(*id);
		*id = NULL;
		*st = JOB_UNKNOWN;
	}
	pattern_free(re);
	jobctl_res_free(&r);
	free(cwhy);
	free(word);
	return ret;
}

int
jobctl_stop(const struct jobctl *jc, const char *id, char **why)
{
	struct jobctl_res r = { BUF_INIT, BUF_INIT, 0 };
	const char *vals[PH_N] = { NULL };
	int ret;

	*why = NULL;
	if ((ret = jobctl_arg("id", id, JOBCTL_ID_MAX, why)) != 0)
		return ret;
	vals[PH_ID] = id;
	vals[PH_WORKDIR] = jc->cfg->workdir;
	ret = jobctl_op(jc, OP_STOP, vals, 4096, 0, &r, why);
	jobctl_res_free(&r);
	return ret;
}

int
jobctl_node(const struct jobctl *jc, const char *id, char **node, char **why)
{
	struct jobctl_res r = { BUF_INIT, BUF_INIT, 0 };
	const char *vals[PH_N] = { NULL };
	char *p, *e;
	int ret;

	*node = NULL;
	*why = NULL;
	if ((ret = jobctl_arg("id", id, JOBCTL_ID_MAX, why)) != 0)
		return ret;
	vals[PH_ID] = id;
	vals[PH_WORKDIR] = jc->cfg->workdir;
	if ((ret = jobctl_op(jc, OP_NODE, vals, 4096, 0, &r, why)) != 0)
		goto out;
	for (p = r.out.data != NULL ? r.out.data : ""; jobctl_is_space(*p); p++)
		;
	for (e = p; *e != '\0' && !jobctl_is_space(*e); e++)
		;
	if (e == p || (size_t)(e - p) > JOBCTL_ID_MAX) {
		*why = xstrfmt("job %s: job.node printed no node name", id);
		ret = WK_ERR_PARSE;
		goto out;
	}
	*node = xstrndup(p, (size_t)(e - p));
	if (!jobctl_word_ok(*node, JOBCTL_ID_MAX)) {
		free(*node);
		*node = NULL;
		*why = xstrfmt("job %s: job.node printed control characters", id);
		ret = WK_ERR_PARSE;
	}
out:
	jobctl_res_free(&r);
	return ret;
}

/* Write all of p; a reader that went away is EPIPE, never a SIGPIPE that kills us. */
static int
jobctl_write_all(int fd, const char *p, size_t n)
{
	struct wk_sigpipe g;
	ssize_t w;
	int ret = 0, saved = 0;

	wk_sigpipe_ignore(&g);
	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			saved = errno;
			ret = WK_ERR_SYSTEM;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	wk_sigpipe_restore(&g);
	errno = saved;
	return ret;
}

int
jobctl_logs(const struct jobctl *jc, const char *id, long long since_ms, int out_fd, size_t cap,
    int *cut, char **why)
{
	struct jobctl_res r = { BUF_INIT, BUF_INIT, 0 };
	const char *vals[PH_N] = { NULL }, *p, *nl;
	char since[32];
	size_t n;
	int ret;

	*why = NULL;
	if (cut != NULL)
		*cut = 0;
	snprintf(since, sizeof(since), "%lld", since_ms > 0 ? since_ms : 0LL);
	vals[PH_SINCE] = since;
	if ((ret = jobctl_arg("id", id, JOBCTL_ID_MAX, why)) != 0)
		return ret;
	if (cap == 0)
		cap = JOBCTL_LOGS_CAP;
	vals[PH_ID] = id;
	vals[PH_WORKDIR] = jc->cfg->workdir;
	if ((ret = jobctl_op(jc, OP_LOGS, vals, cap, 1, &r, why)) != 0)
		goto out;
	p = buf_str(&r.out);
	n = r.out.len;
	if (cut != NULL)
		*cut = r.out_truncated;
	/* A cut log starts at its first whole line, when it has one. */
	if (r.out_truncated && (nl = memchr(p, '\n', n)) != NULL && (size_t)(nl - p) + 1 < n) {
		n -= (size_t)(nl - p) + 1;
		p = nl + 1;
	}
	if (jobctl_write_all(out_fd, p, n) != 0) {
		*why = xstrfmt("job %s: cannot write its log: %s", id, wk_strerror(WK_ERR_SYSTEM));
		ret = WK_ERR_SYSTEM;
	}
out:
	jobctl_res_free(&r);
	return ret;
}
