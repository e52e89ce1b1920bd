/*
 * render.c: HANDBOOK.md, layer 4 (see handbook.h): the section table, the
 * helpers the sections share, the claims line and the document itself.
 * The sections live in render-box.c (the run and its box), render-status.c
 * (state, chain, markers, resume) and render-tables.c (the tables the code
 * runs on, cron, sentinel, logbook, Slurm); render-int.h is what they share.
 *
 * The document is rendered section by section from a table (hb_sections[]),
 * each section a function over one rendering context.  Everything it states
 * comes from the config, patrol's state and the same tables the programs run
 * on: the decision table is decide_table[], the triage table
 * triage_classes[], the cron line crontab_line(), the commands run on the
 * box remote_onbox_command().  Nothing is written by hand twice.
 *
 * Markdown safety.  A config value can hold backticks, pipes, newlines,
 * `$()` or HTML; a value from the box can hold anything.  Every such value
 * goes into a code span or a fenced block whose backtick fence is longer
 * than any backtick run inside it (so nothing inside can close it); inline,
 * newlines become "⏎" (so no value starts a line, a heading or a fence), and
 * in table cells '|' is escaped.  Secrets: notify sinks are shown by type
 * and variable name only, text from the state goes through notify_scrub(),
 * and the finished document goes through it once more.
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
#include "slurm.h"
#include "sshq.h"
#include "traceback.h"
#include "triage.h"
#include "xmalloc.h"
#include "render-int.h"

/* A number as people write it: integral values without a fraction. */
void
hb_num(struct buf *b, double v)
{
	if (!isfinite(v))
		buf_puts(b, "?");
	else if (v == floor(v) && fabs(v) < 1e15)
		buf_printf(b, "%.0f", v);
	else
		buf_printf(b, "%g", v);
}

/* Box or state text: scrubbed, bounded, as a code span. */
void
hb_boxtext(struct hb *h, const char *s, int cell)
{
	char *sc = notify_scrub(&h->sinks, s), *cut = notify_cut(sc, HB_CELL_MAX);

	md_code_x(&h->b, cut, cell);
	free(cut);
	free(sc);
}

/* "~/x" with $HOME (ssh -F does not expand it). */
static char *
hb_home(const char *p)
{
	const char *home = getenv("HOME");

	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home != NULL)
		return xstrfmt("%s%s", home, p + 1);
	return xstrdup(p);
}

static void
hb_opt_word(struct buf *b, const char *opt, const char *prefix, const char *val)
{
	char *v, *w;

	if (val == NULL)
		return;
	v = hb_home(val);
	w = xstrfmt("%s%s", prefix, v);
	buf_printf(b, " %s ", opt);
	sshq_append(b, w);
	free(w);
	free(v);
}

/* `ssh [-F cfg] [-p port] [-l user] [-i id] [-o UserKnownHostsFile=kh] host`, or NULL. */
static char *
hb_ssh_prefix(const struct wk_config *cfg)
{
	const struct wk_box *x = &cfg->box;
	struct buf b = BUF_INIT;

	if (x->host == NULL)
		return NULL;
	buf_puts(&b, "ssh");
	hb_opt_word(&b, "-F", "", x->ssh_config);
	if (x->port > 0)
		buf_printf(&b, " -p %ld", x->port);
	if (x->user != NULL) {
		buf_puts(&b, " -l ");
		sshq_append(&b, x->user);
	}
	hb_opt_word(&b, "-i", "", x->identity);
	hb_opt_word(&b, "-o", "UserKnownHostsFile=", x->known_hosts);
	buf_putc(&b, ' ');
	sshq_append(&b, x->host);
	return buf_detach(&b);
}

/* The ssh command that runs remote (one line of sh) on the box, or NULL. */
char *
hb_ssh_cmd(const struct hb *h, const char *remote)
{
	struct buf b = BUF_INIT;

	if (h->ssh == NULL)
		return NULL;
	buf_puts(&b, h->ssh);
	buf_putc(&b, ' ');
	sshq_append(&b, remote);
	return buf_detach(&b);
}

/* ---- what the state says ---- */

/* 1 present, 0 absent at the last seen tick, -1 unknown. */
int
hb_marker_state(const cJSON *ps, const char *marker)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(ps, "markers"), *m;

	if (!cJSON_IsArray(arr))
		return -1;
	cJSON_ArrayForEach(m, arr)
		if (cJSON_IsString(m) && strcmp(m->valuestring, marker) == 0)
			return 1;
	return 0;
}

/* The FAILED record for marker, or NULL. */
const cJSON *
hb_failed(const cJSON *ps, const char *marker)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(ps, "failed");

	if (!cJSON_IsObject(f))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(f, marker);
}

int
hb_failed_known(const cJSON *ps)
{
	return cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(ps, "markers")) ||
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ps, "failed"));
}

/* The table intro, then a header row "| a | b |" and its rule, from "a|b". */
void
hb_table_head(struct buf *b, const char *intro, const char *cols)
{
	const char *c;
	size_t n = 1;

	buf_printf(b, "%s\n\n| ", intro);
	for (c = cols; *c != '\0'; c++) {
		if (*c == '|') {
			buf_puts(b, " | ");
			n++;
		} else
			buf_printf(b, "%c", *c);
	}
	buf_puts(b, " |\n|");
	while (n-- > 0)
		buf_puts(b, "---|");
	buf_puts(b, "\n");
}

static const struct hb_section {
	const char	*title;
	void		(*fn)(struct hb *);
	enum detach	 only;		/* only with this detach; DETACH_NKINDS: always */
} hb_sections[] = {
	{ "Run contract", hb_contract, DETACH_NKINDS },
	{ "First command on reconnect", hb_first, DETACH_NKINDS },
	{ "Current status", hb_status, DETACH_NKINDS },
	{ "The chain", hb_chain, DETACH_NKINDS },
	{ "Marker paths", hb_markers, DETACH_NKINDS },
	{ "Resume", hb_resume, DETACH_NKINDS },
	{ "Slurm", hb_slurm, DETACH_SLURM },
	{ "Cluster jobs", hb_jobs, DETACH_JOB },
	{ "Decision table", hb_decide, DETACH_NKINDS },
	{ "Cron", hb_cron, DETACH_NKINDS },
	{ "Sentinel", hb_sentinel, DETACH_NKINDS },
	{ "Triage table", hb_triage, DETACH_NKINDS },
	{ "Logbook", hb_logbook, DETACH_NKINDS },
	{ "Run record", hb_record, DETACH_NKINDS },
};

/* ---- claims ---- */

cJSON *
handbook_claims(const struct handbook_ctx *c, const char *generated)
{
	const struct wk_config *cfg = c->cfg;
	cJSON *o = cJSON_CreateObject(), *m, *f;
	size_t i;

	if (hb_marker_state(c->pstate, cfg->chain[0].marker) >= 0) {
		m = cJSON_AddObjectToObject(o, "markers");
		for (i = 0; i < cfg->nchain; i++)
			if (cJSON_GetObjectItemCaseSensitive(m, cfg->chain[i].marker) == NULL)
				cJSON_AddBoolToObject(m, cfg->chain[i].marker,
				    hb_marker_state(c->pstate, cfg->chain[i].marker) == 1);
	}
	if (hb_failed_known(c->pstate)) {
		f = cJSON_AddObjectToObject(o, "failed");
		for (i = 0; i < cfg->nchain; i++)
			if (cJSON_GetObjectItemCaseSensitive(f, cfg->chain[i].marker) == NULL)
				cJSON_AddBoolToObject(f, cfg->chain[i].marker,
				    hb_failed(c->pstate, cfg->chain[i].marker) != NULL);
	}
	if (c->cron == 0 || c->cron == 1)
		cJSON_AddBoolToObject(o, "cron", c->cron);
	cJSON_AddStringToObject(o, "generated", generated);
	return o;
}

int
handbook_claims_parse(const char *text, cJSON **out)
{
	const char *l, *nl, *last = NULL, *end, *js;
	size_t tl = strlen(CLAIMS_TAG);
	char *json;

	*out = NULL;
	for (l = text; *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l);
		if ((size_t)(nl - l) >= tl && strncmp(l, CLAIMS_TAG, tl) == 0)
			last = l;
	}
	if (last == NULL)
		return WK_ERR_NOTFOUND;
	js = last + tl;
	end = strchr(js, '\n');
	if (end == NULL)
		end = js + strlen(js);
	while (end > js && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	if ((size_t)(end - js) < 3 || strncmp(end - 3, "-->", 3) != 0)
		return WK_ERR_PARSE;
	json = xstrndup(js, (size_t)(end - 3 - js));
	*out = cJSON_Parse(json);
	free(json);
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		return WK_ERR_PARSE;
	}
	return 0;
}

/* ---- the document ---- */

char *
handbook_render(const struct handbook_ctx *c)
{
	struct hb h;
	struct buf w = BUF_INIT;
	cJSON *claims;
	char *js, *out;
	size_t i;

	memset(&h, 0, sizeof(h));
	h.c = c;
	h.cfg = c->cfg;
	h.ps = cJSON_IsObject(c->pstate) ? c->pstate : NULL;
	notify_sinks_load(c->cfg, &h.sinks);
	timefmt_utc(time(NULL), h.now, sizeof(h.now));
	if (c->bindir != NULL) {
		char *p = fs_join(c->bindir, "patrol"), *s = fs_join(c->bindir, "sentinel");

		h.patrol = sshq_quote(p);
		h.sentinel = sshq_quote(s);
		free(p);
		free(s);
	} else {
		h.patrol = xstrdup("patrol");
		h.sentinel = xstrdup("sentinel");
	}
	sshq_append(&w, c->config_path != NULL ? c->config_path : c->cfg->path);
	h.cfgq = buf_detach(&w);
	h.ssh = hb_ssh_prefix(c->cfg);

	hb_title(&h);
	for (i = 0; i < sizeof(hb_sections) / sizeof(hb_sections[0]); i++) {
		if (hb_sections[i].only != DETACH_NKINDS && hb_sections[i].only != c->cfg->detach_kind)
			continue;
		buf_printf(&h.b, "## %s\n\n", hb_sections[i].title);
		hb_sections[i].fn(&h);
	}
	claims = handbook_claims(c, h.now);
	js = cJSON_PrintUnformatted(claims);
	buf_printf(&h.b, CLAIMS_TAG "%s -->\n", js);
	free(js);
	cJSON_Delete(claims);

	/* Whatever slipped through (a secret inside a config value) goes here. */
	out = notify_scrub(&h.sinks, buf_str(&h.b));
	buf_free(&h.b);
	notify_sinks_free(&h.sinks);
	free(h.patrol);
	free(h.sentinel);
	free(h.cfgq);
	free(h.ssh);
	return out;
}

int
handbook_write(const struct handbook_ctx *c, const char *path)
{
	char *md = handbook_render(c);
	int r = atomic_write(path, md, strlen(md), 0600);

	free(md);
	return r;
}
