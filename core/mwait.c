/*
 * mwait.c: the marker check script, the follow script around `onbox wait`,
 * and the check's strict parser (see mwait.h).
 *
 * The script reads the markers before the attempt histories: onbox clears a
 * stage's FAILED twin before it records the next attempt, and writes the
 * FAILED twin before it records the attempt as failed, so a FAILED twin
 * read here together with a newer attempt in the history really is stale,
 * and a fresh one is never mistaken for it.  Liveness uses the probe's
 * checks (the heartbeat's pids, /proc, an onbox pid must still be an onbox).
 * Every name and path in the script comes from sshq_append.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "config.h"
#include "history.h"
#include "jsonfile.h"
#include "layout.h"
#include "mwait.h"
#include "probe.h"
#include "sshq.h"
#include "xmalloc.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- the spec ---- */

int
mwait_spec_stage(const struct mwait_spec *spec, const char *stage)
{
	size_t j;

	for (j = 0; stage != NULL && j < spec->nstages; j++)
		if (strcmp(spec->stages[j], stage) == 0)
			return (int)j;
	return -1;
}

/* The distinct stages, in marker order. */
static void
spec_restage(struct mwait_spec *spec)
{
	size_t i;

	for (i = 0; i < spec->nstages; i++)
		free(spec->stages[i]);
	free(spec->stages);
	spec->stages = NULL;
	spec->nstages = 0;
	for (i = 0; i < spec->nmarkers; i++) {
		if (spec->stage_of[i] == NULL || mwait_spec_stage(spec, spec->stage_of[i]) >= 0)
			continue;
		spec->stages = xreallocarray(spec->stages, spec->nstages + 1, sizeof(*spec->stages));
		spec->stages[spec->nstages++] = xstrdup(spec->stage_of[i]);
	}
}

int
mwait_spec_add(struct mwait_spec *spec, const char *marker, const char *stage)
{
	size_t i, at;
	int c;

	if (!config_name_ok(marker) || (stage != NULL && !config_name_ok(stage)))
		return WK_ERR_INVALID;
	for (at = 0; at < spec->nmarkers; at++) {
		if ((c = strcmp(spec->markers[at], marker)) == 0) {
			const char *had = spec->stage_of[at];

			if ((had == NULL) != (stage == NULL) || (had != NULL && strcmp(had, stage) != 0))
				return WK_ERR_INVALID;
			return 0;
		}
		if (c > 0)
			break;
	}
	spec->markers = xreallocarray(spec->markers, spec->nmarkers + 1, sizeof(*spec->markers));
	spec->stage_of = xreallocarray(spec->stage_of, spec->nmarkers + 1, sizeof(*spec->stage_of));
	for (i = spec->nmarkers; i > at; i--) {
		spec->markers[i] = spec->markers[i - 1];
		spec->stage_of[i] = spec->stage_of[i - 1];
	}
	spec->markers[at] = xstrdup(marker);
	spec->stage_of[at] = xstrdup_or_null(stage);
	spec->nmarkers++;
	spec_restage(spec);
	return 0;
}

void
mwait_spec_free(struct mwait_spec *spec)
{
	size_t i;

	for (i = 0; i < spec->nmarkers; i++) {
		free(spec->markers[i]);
		free(spec->stage_of[i]);
	}
	for (i = 0; i < spec->nstages; i++)
		free(spec->stages[i]);
	free(spec->markers);
	free(spec->stage_of);
	free(spec->stages);
	memset(spec, 0, sizeof(*spec));
}

/* ---- the script ---- */

char *
mwait_script(const char *workdir, const struct mwait_spec *spec)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_printf(&b, "# watchkeeper mwait %d: read-only, bounded\n"
	    "export LC_ALL=C\n"
	    "W=", MWAIT_VERSION);
	sshq_append(&b, workdir);
	buf_puts(&b, "\nD=\"$W/" LAYOUT_DIR "\"\n");
	probe_sh_prelude(&b);	/* framed as the probe is (probe.c) */
	buf_printf(&b, "mk() {\n"
	    "  if [ -f \"$D/markers/$1\" ]; then h \"@marker $1 present\"; head -c %u \"$D/markers/$1\";\n"
	    "  else h \"@marker $1 absent\"; fi\n"
	    "  if [ -f \"$D/markers/$1.FAILED\" ]; then h \"@failed $1\"; head -c %u \"$D/markers/$1.FAILED\"; fi\n"
	    "}\n"
	    "st() { h \"@stage $1\"; if [ -f \"$D/stages/$1.json\" ]; then head -c %u \"$D/stages/$1.json\"; fi; }\n"
	    "{\n"
	    "h \"@mwait %d $(date +%%s)\"\n"
	    "h @alive\n",
	    MWAIT_DOC_MAX, MWAIT_DOC_MAX, MWAIT_STAGE_MAX, MWAIT_VERSION);
	probe_sh_alive(&b);
	/* Markers first, then the histories (see the comment at the top). */
	for (i = 0; i < spec->nmarkers; i++) {
		buf_puts(&b, "mk ");
		sshq_append(&b, spec->markers[i]);
		buf_putc(&b, '\n');
	}
	for (i = 0; i < spec->nstages; i++) {
		buf_puts(&b, "st ");
		sshq_append(&b, spec->stages[i]);
		buf_putc(&b, '\n');
	}
	buf_printf(&b, "if [ -f \"$D/stopped\" ]; then h @stopped; head -c %u \"$D/stopped\"; fi\n"
	    "h @end\n", MWAIT_DOC_MAX);
	probe_sh_filter(&b);
	return buf_detach(&b);
}

/* ---- the parser ---- */

enum mwait_sec { SEC_NONE, SEC_HEAD, SEC_ALIVE, SEC_MARKER, SEC_FAILED, SEC_STAGE, SEC_STOPPED, SEC_END };

static const struct {
	const char	*name;
	enum mwait_sec	 sec;
	int		 nargs;		/* words after the name */
} mwait_sections[] = {
	{ "mwait", SEC_HEAD, 2 },
	{ "alive", SEC_ALIVE, 0 },
	{ "marker", SEC_MARKER, 2 },
	{ "failed", SEC_FAILED, 1 },
	{ "stage", SEC_STAGE, 1 },
	{ "stopped", SEC_STOPPED, 0 },
	{ "end", SEC_END, 0 },
};

struct mwait_pstate {
	const struct mwait_spec	*spec;
	struct mwait		*w;
	enum mwait_sec		 cur;
	int			 idx;		/* the marker or stage the section is about */
	char			*seen_m;	/* per marker: @marker seen */
	char			*seen_f;	/* per marker: @failed seen */
	char			*seen_s;	/* per stage */
	int			 seen_alive;
	struct buf		 txt;		/* the section's data */
};

void
mwait_free(struct mwait *w)
{
	size_t i;

	for (i = 0; i < w->nm; i++) {
		cJSON_Delete(w->m[i].doc);
		cJSON_Delete(w->m[i].failed_doc);
	}
	cJSON_Delete(w->stopped_doc);
	free(w->m);
	free(w->s);
	memset(w, 0, sizeof(*w));
}

static int
marker_index(const struct mwait_spec *spec, const char *name)
{
	size_t i;

	for (i = 0; i < spec->nmarkers; i++)
		if (strcmp(spec->markers[i], name) == 0)
			return (int)i;
	return -1;
}

/* The last attempt of a history document into st. */
static void
stage_read(struct mwait_stage *st, const char *text)
{
	cJSON *doc = cJSON_Parse(text), *arr, *last;
	int n;

	memset(st, 0, sizeof(*st));
	/* Missing, or cut by the bound: no history known (not a broken check). */
	if (doc == NULL)
		return;
	arr = cJSON_GetObjectItem(doc, HIST_KEY_ATTEMPTS);
	if (cJSON_IsArray(arr)) {
		st->known = 1;
		n = cJSON_GetArraySize(arr);
		if (n > 0 && cJSON_IsObject(last = cJSON_GetArrayItem(arr, n - 1))) {
			st->attempt = json_long(last, HIST_KEY_ATTEMPT, 0);
			snprintf(st->result, sizeof(st->result), "%s", json_str(last, HIST_KEY_RESULT, ""));
		}
	}
	cJSON_Delete(doc);
}

/* A finished section's data goes where it belongs. */
static int
mwait_store(struct mwait_pstate *ps, char **why)
{
	const char *t = buf_str(&ps->txt), *l;
	struct mwait *w = ps->w;
	int have_onbox = 0, have_stage = 0;

	switch (ps->cur) {
	case SEC_HEAD:
		if (ps->txt.len > 0) {
			*why = xstrdup("garbled: data in the @mwait header");
			return WK_ERR_PARSE;
		}
		break;
	case SEC_ALIVE:
		for (l = t; *l != '\0'; l = strchr(l, '\n') + 1) {
			char line[64], word[8], extra;
			size_t n = strcspn(l, "\n");
			long pid, alive;

			snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), l);
			if (n >= sizeof(line) || sscanf(line, "%7s %ld %ld %c", word, &pid, &alive, &extra) != 3 ||
			    pid < 0 || (alive != 0 && alive != 1)) {
				*why = xstrdup("garbled: a line of @alive is not \"<what> <pid> <0|1>\"");
				return WK_ERR_PARSE;
			}
			if (strcmp(word, "onbox") == 0 && !have_onbox) {
				w->onbox_pid = pid;
				w->onbox_alive = (int)alive;
				have_onbox = 1;
			} else if (strcmp(word, "stage") == 0 && !have_stage) {
				w->stage_pid = pid;
				w->stage_alive = (int)alive;
				have_stage = 1;
			} else {
				*why = xstrfmt("garbled: unexpected \"%s\" in @alive", word);
				return WK_ERR_PARSE;
			}
		}
		if (!have_onbox || !have_stage) {
			*why = xstrdup("garbled: @alive lacks the onbox or the stage line");
			return WK_ERR_PARSE;
		}
		break;
	case SEC_MARKER:
		if (w->m[ps->idx].present && ps->txt.len > 0)
			w->m[ps->idx].doc = cJSON_Parse(t);
		else if (ps->txt.len > 0) {
			*why = xstrfmt("garbled: data under an absent marker %s", ps->spec->markers[ps->idx]);
			return WK_ERR_PARSE;
		}
		break;
	case SEC_FAILED:
		w->m[ps->idx].failed = 1;
		if ((w->m[ps->idx].failed_doc = cJSON_Parse(t)) != NULL)
			w->m[ps->idx].failed_attempt = json_long(w->m[ps->idx].failed_doc, "attempt", 0);
		break;
	case SEC_STAGE:
		stage_read(&w->s[ps->idx], t);
		break;
	case SEC_STOPPED:
		w->stopped = 1;
		w->stopped_doc = cJSON_Parse(t);
		break;
	default:
		break;
	}
	return 0;
}

/* A section header (the line without '@'): checked and made current. */
static int
mwait_header(struct mwait_pstate *ps, const char *l, size_t n, int lineno, char **why)
{
	enum mwait_sec prev = ps->cur;
	char *line = NULL, *words[4], *p;
	int nw = 0, r = WK_ERR_PARSE, previdx = ps->idx;
	size_t i;

	/* Words with single spaces between them, nothing around: anything else is not ours. */
	if (n == 0 || l[0] == ' ' || l[n - 1] == ' ' || memmem(l, n, "  ", 2) != NULL) {
		*why = xstrfmt("garbled: line %d is not a section header", lineno);
		goto out;
	}
	line = xstrndup(l, n);
	for (p = line; p != NULL && nw < (int)nitems(words); nw++) {
		words[nw] = p;
		if ((p = strchr(p, ' ')) != NULL)
			*p++ = '\0';
	}
	if (p != NULL) {
		*why = xstrfmt("garbled: line %d has too many words for a section header", lineno);
		goto out;
	}
	for (i = 0; i < nitems(mwait_sections); i++)
		if (strcmp(mwait_sections[i].name, words[0]) == 0)
			break;
	if (i == nitems(mwait_sections) || mwait_sections[i].nargs != nw - 1) {
		*why = xstrfmt("garbled: unknown section \"@%.20s\" (line %d)", words[0], lineno);
		goto out;
	}
	if ((ps->cur == SEC_NONE) != (mwait_sections[i].sec == SEC_HEAD)) {
		*why = xstrfmt(ps->cur == SEC_NONE ? "garbled: does not start with @mwait" :
		    "garbled: a second @mwait header (line %d)", lineno);
		goto out;
	}
	ps->cur = mwait_sections[i].sec;
	ps->idx = -1;
	switch (ps->cur) {
	case SEC_HEAD: {
		char *end;
		long ver = strtol(words[1], &end, 10);
		long long t;

		if (*end != '\0' || ver != MWAIT_VERSION || (t = strtoll(words[2], &end, 10)) <= 0 ||
		    *end != '\0') {
			*why = xstrfmt("garbled: header version \"%.20s\" (want version %d)", words[1], MWAIT_VERSION);
			goto out;
		}
		ps->w->box_time = (time_t)t;
		break;
	}
	case SEC_ALIVE:
		if (ps->seen_alive++) {
			*why = xstrfmt("garbled: section @alive twice (line %d)", lineno);
			goto out;
		}
		break;
	case SEC_MARKER:
	case SEC_FAILED:
		if (ps->w->stopped) {
			*why = xstrfmt("garbled: @%s after @stopped (line %d)", words[0], lineno);
			goto out;
		}
		if ((ps->idx = marker_index(ps->spec, words[1])) < 0) {
			*why = xstrfmt("garbled: a marker not asked about (line %d)", lineno);
			goto out;
		}
		if (ps->cur == SEC_MARKER) {
			if (ps->seen_m[ps->idx]++ || ps->seen_f[ps->idx]) {
				*why = xstrfmt("garbled: @marker %s out of place (line %d)", words[1], lineno);
				goto out;
			}
			if (strcmp(words[2], "present") == 0)
				ps->w->m[ps->idx].present = 1;
			else if (strcmp(words[2], "absent") != 0) {
				*why = xstrfmt("garbled: @marker %s is neither present nor absent (line %d)",
				    words[1], lineno);
				goto out;
			}
		} else if (prev != SEC_MARKER || previdx != ps->idx || ps->seen_f[ps->idx]++) {
			/* @failed M belongs right after @marker M, once. */
			*why = xstrfmt("garbled: @failed %s out of place (line %d)", words[1], lineno);
			goto out;
		}
		break;
	case SEC_STOPPED:
		/* Once, after every marker and stage section (the script's order). */
		if (ps->w->stopped || prev == SEC_HEAD || prev == SEC_STOPPED) {
			*why = xstrfmt("garbled: @stopped out of place (line %d)", lineno);
			goto out;
		}
		ps->w->stopped = 1;
		break;
	case SEC_STAGE:
		if (ps->w->stopped) {
			*why = xstrfmt("garbled: @stage after @stopped (line %d)", lineno);
			goto out;
		}
		if ((ps->idx = mwait_spec_stage(ps->spec, words[1])) < 0 || ps->seen_s[ps->idx]++) {
			*why = xstrfmt("garbled: @stage %.60s not asked about or twice (line %d)", words[1],
			    lineno);
			goto out;
		}
		break;
	default:
		break;
	}
	r = 0;
 out:
	free(line);
	return r;
}

int
mwait_parse(const char *text, size_t len, const struct mwait_spec *spec, struct mwait *w,
    char **why)
{
	struct mwait_pstate ps;
	const char *l = text, *end = text + len, *nl;
	int lineno = 0, r = WK_ERR_PARSE;
	size_t i, n;

	memset(w, 0, sizeof(*w));
	memset(&ps, 0, sizeof(ps));
	*why = NULL;
	ps.spec = spec;
	ps.w = w;
	ps.seen_m = xcalloc(spec->nmarkers + 1, 1);
	ps.seen_f = xcalloc(spec->nmarkers + 1, 1);
	ps.seen_s = xcalloc(spec->nstages + 1, 1);
	w->nm = spec->nmarkers;
	w->m = xcalloc(w->nm + 1, sizeof(*w->m));
	w->ns = spec->nstages;
	w->s = xcalloc(w->ns + 1, sizeof(*w->s));
	if (memchr(text, '\0', len) != NULL) {
		*why = xstrdup("garbled: a NUL byte in the output");
		goto out;
	}
	while (l < end) {
		lineno++;
		if ((nl = memchr(l, '\n', (size_t)(end - l))) == NULL) {
			*why = xstrfmt("truncated: line %d has no end", lineno);
			goto out;
		}
		n = (size_t)(nl - l);
		if (ps.cur == SEC_END) {
			*why = xstrfmt("garbled: data after @end (line %d)", lineno);
			goto out;
		}
		if (n > 0 && l[0] == '|') {
			if (ps.cur == SEC_NONE) {
				*why = xstrfmt("garbled: data outside a section (line %d)", lineno);
				goto out;
			}
			buf_append(&ps.txt, l + 1, n - 1);
			buf_putc(&ps.txt, '\n');
		} else if (n > 1 && l[0] == '@') {
			if (ps.cur != SEC_NONE && mwait_store(&ps, why) != 0)
				goto out;
			buf_reset(&ps.txt);
			if (mwait_header(&ps, l + 1, n - 1, lineno, why) != 0)
				goto out;
		} else {
			*why = xstrfmt("garbled: line %d is neither a section nor data", lineno);
			goto out;
		}
		l = nl + 1;
	}
	if (ps.cur != SEC_END) {
		*why = xstrdup(ps.cur == SEC_NONE ? "truncated: no output" : "truncated: no @end");
		goto out;
	}
	if (!ps.seen_alive) {
		*why = xstrdup("garbled: missing section @alive");
		goto out;
	}
	for (i = 0; i < spec->nmarkers; i++)
		if (!ps.seen_m[i]) {
			*why = xstrfmt("garbled: missing section @marker %s", spec->markers[i]);
			goto out;
		}
	for (i = 0; i < spec->nstages; i++)
		if (!ps.seen_s[i]) {
			*why = xstrfmt("garbled: missing section @stage %s", spec->stages[i]);
			goto out;
		}
	r = 0;
 out:
	if (r != 0)
		mwait_free(w);
	free(ps.seen_m);
	free(ps.seen_f);
	free(ps.seen_s);
	buf_free(&ps.txt);
	return r;
}

/* ---- judging a check ---- */

const struct mwait_stage *
mwait_stage_of(const struct mwait *w, const struct mwait_spec *spec, size_t i)
{
	int j;

	if (i >= spec->nmarkers || (j = mwait_spec_stage(spec, spec->stage_of[i])) < 0 ||
	    (size_t)j >= w->ns)
		return NULL;
	return &w->s[j];
}

int
mwait_failed_stale(const struct mwait *w, const struct mwait_spec *spec, size_t i)
{
	const struct mwait_stage *st = mwait_stage_of(w, spec, i);

	return i < w->nm && w->m[i].failed && w->m[i].failed_attempt > 0 && st != NULL &&
	    st->attempt > w->m[i].failed_attempt;
}

enum mwait_outcome
mwait_decide(const struct mwait *w, const struct mwait_spec *spec, size_t *which)
{
	size_t i;

	*which = 0;
	for (i = 0; i < w->nm; i++)
		if (w->m[i].present) {
			*which = i;
			return MWAIT_FOUND;
		}
	if (w->stopped)
		return MWAIT_STOPPED;
	for (i = 0; i < w->nm; i++)
		if (w->m[i].failed && !mwait_failed_stale(w, spec, i)) {
			*which = i;
			return MWAIT_FAILED;
		}
	return MWAIT_PENDING;
}

int
mwait_news(const struct mwait *w, const struct mwait_spec *spec, const long *base)
{
	size_t i;

	if (mwait_decide(w, spec, &i) != MWAIT_PENDING)
		return 1;
	for (i = 0; base != NULL && i < w->ns; i++)
		if (base[i] > 0 && w->s[i].attempt != base[i])
			return 1;
	return 0;
}

int
mwait_idle(const struct mwait *w)
{
	return !w->onbox_alive && !w->stage_alive;
}

char *
mwait_follow_script(const char *workdir, const struct mwait_spec *spec, const long *attempt,
    long timeout_s, long poll_ms, const char *plain)
{
	struct buf b = BUF_INIT, m = BUF_INIT;
	char *arg;
	size_t i;

	buf_puts(&b, "W=");
	sshq_append(&b, workdir);
	buf_puts(&b, "\nO=\"$W/" LAYOUT_DIR "/bin/onbox\"; [ -x \"$O\" ] || O=onbox\n"
	    "\"$O\" wait --workdir \"$W\" --marker ");
	for (i = 0; i < spec->nmarkers; i++)
		buf_printf(&m, "%s%s", i > 0 ? "," : "", spec->markers[i]);
	sshq_append(&b, buf_str(&m));
	buf_free(&m);
	for (i = 0; i < spec->nmarkers; i++) {
		if (spec->stage_of[i] == NULL)
			continue;
		arg = xstrfmt("%s=%s", spec->markers[i], spec->stage_of[i]);
		buf_puts(&b, " --stage-of ");
		sshq_append(&b, arg);
		free(arg);
	}
	for (i = 0; attempt != NULL && i < spec->nstages; i++) {
		if (attempt[i] <= 0)
			continue;
		arg = xstrfmt("%s=%ld", spec->stages[i], attempt[i]);
		buf_puts(&b, " --attempt ");
		sshq_append(&b, arg);
		free(arg);
	}
	buf_printf(&b, " --timeout %ld --poll-ms %ld </dev/null\n"
	    "rc=$?\n"
	    "case $rc in 64|126|127) ;; *) exit $rc ;; esac\n", timeout_s, poll_ms);
	buf_puts(&b, plain);
	buf_printf(&b, "exit %d\n", MWAIT_FOLLOW_FALLBACK);
	return buf_detach(&b);
}
