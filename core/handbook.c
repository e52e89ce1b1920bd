/*
 * handbook.c: HANDBOOK.md, layer 4 (see handbook.h).
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
#include "handbook.h"
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

#define HB_LOGBOOK_TAIL		(4 * 1024 * 1024)	/* bytes of LOGBOOK.md read for its last headings */
#define HB_LOGBOOK_ENTRIES	10
#define HB_CELL_MAX		300		/* bytes of box text in one table cell or list item */

/* One rendering. */
struct hb {
	const struct handbook_ctx *c;
	const struct wk_config	*cfg;
	const cJSON		*ps;		/* patrol.json or NULL */
	struct buf		 b;
	struct notify_sinks	 sinks;
	char			*patrol;	/* "<bindir>/patrol", quoted as one word */
	char			*sentinel;
	char			*cfgq;		/* the config path, quoted */
	char			*ssh;		/* "ssh [-F ...] host" quoted words, or NULL (no box.host) */
	char			 now[TIMEFMT_LEN];
};

/* A number as people write it: integral values without a fraction. */
static void
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
static void
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
static char *
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
static int
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
static const cJSON *
hb_failed(const cJSON *ps, const char *marker)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(ps, "failed");

	if (!cJSON_IsObject(f))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(f, marker);
}

static int
hb_failed_known(const cJSON *ps)
{
	return cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(ps, "markers")) ||
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ps, "failed"));
}

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

/* ---- sections ---- */

static void
hb_title(struct hb *h)
{
	const char *gen = h->c->generator != NULL ? h->c->generator : log_prog();

	buf_printf(&h->b, "# Handbook: %s\n\n", h->cfg->run);
	buf_puts(&h->b, "What this is: everything a new person or agent needs to take over run ");
	md_code(&h->b, h->cfg->run);
	buf_printf(&h->b, " from this file alone: the run, the exact command to run first, where it "
	    "stands, its chain and markers, the exact resume commands, and the tables patrol "
	    "decides by. Generated at %s by %s from the config, patrol's last state and the "
	    "tables the programs run on; patrol rewrites it after every tick, so do not edit "
	    "it (`handbook --check` says whether what it claims still holds). No secret is "
	    "written here: only the names of the variables that hold them.\n\n",
	    h->now, gen != NULL ? gen : "watchkeeper");
}

/* The secrets file on the box: where, which names (never a value), how to refresh it. */
static void
hb_secrets(struct hb *h)
{
	char **names = NULL, *path;
	size_t n = 0, i;

	notify_secret_names(h->cfg, 0, &names, &n);
	if (n == 0)
		return;
	path = layout_path(h->cfg->workdir, NOTIFY_SECRETS_FILE);
	buf_puts(&h->b, "  - Secrets on the box: ");
	md_code(&h->b, path);
	buf_puts(&h->b, " (mode 0600) holds the values of ");
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_puts(&h->b, i + 1 == n ? " and " : ", ");
		md_code(&h->b, names[i]);
		free(names[i]);
	}
	buf_puts(&h->b, " as the owner's environment had them at the last `patrol deploy` or "
	    "patrol resume (a variable missing there keeps the value sent before). onbox "
	    "reads it when it starts; a value in it wins over the box's own environment "
	    "variable of the same name, and nothing else on the box (stages, tmux, command "
	    "sinks) sees it. To change a value: set it in the owner's environment and run ");
	buf_printf(&h->b, "`%s -c %s deploy` again (`--no-secrets` leaves the file as it is).\n",
	    h->patrol, h->cfgq);
	free(names);
	free(path);
}

static void
hb_sinks(struct hb *h)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(h->cfg->root, "notify"), *it;
	int i = 0;

	buf_puts(&h->b, "- Notifications:");
	if (cJSON_GetArraySize(arr) == 0) {
		buf_puts(&h->b, " none configured (`notify` in the config)\n");
		return;
	}
	buf_puts(&h->b, "\n");
	cJSON_ArrayForEach(it, arr) {
		const char *type = json_str(it, "type", "generic");
		const char *uenv = json_str(it, "url_env", NULL), *tenv = json_str(it, "token_env", NULL);

		buf_printf(&h->b, "  - sink %d: ", i);
		md_code(&h->b, type);
		if (uenv != NULL) {
			buf_puts(&h->b, "; URL from the environment variable ");
			md_code(&h->b, uenv);
		}
		if (json_str(it, "url", NULL) != NULL)
			buf_puts(&h->b, "; URL: (set in the config; not shown)");
		if (tenv != NULL) {
			buf_puts(&h->b, "; token from the environment variable ");
			md_code(&h->b, tenv);
		}
		if (json_str(it, "token", NULL) != NULL)
			buf_puts(&h->b, "; token: (set in the config; not shown)");
		if (json_str(it, "command", NULL) != NULL)
			buf_puts(&h->b, "; command: (set in the config; not shown)");
		if ((size_t)i < h->sinks.n && h->sinks.v[i].missing != NULL) {
			buf_puts(&h->b, "; cannot send from where this was generated: ");
			hb_boxtext(h, h->sinks.v[i].missing, 0);
		}
		buf_puts(&h->b, "\n");
		i++;
	}
	hb_secrets(h);
}

/* The ssh transport in use and why (target_transport_text), as patrol last decided it. */
static void
hb_transport(struct hb *h)
{
	const struct wk_box *x = &h->cfg->box;
	const char *text = h->c->transport != NULL ? h->c->transport :
	    json_str(h->ps, "transport", NULL);

	if (x->host == NULL)
		return;
	buf_puts(&h->b, "\n- SSH transport: ");
	if (text != NULL) {
		md_code(&h->b, text);
		buf_printf(&h->b, " (`box.transport` %s)", x->transport != NULL ? x->transport : "auto");
	} else
		buf_printf(&h->b, "`box.transport` %s, decided when patrol connects",
		    x->transport != NULL ? x->transport : "auto");
}

/* What `patrol deploy` learned about the box (patrol.json "deploy"), after the detach line. */
static void
hb_deployed(struct hb *h)
{
	const cJSON *dp = h->ps != NULL ? cJSON_GetObjectItemCaseSensitive(h->ps, "deploy") : NULL;
	struct buf *b = &h->b;
	const char *v;

	if (!cJSON_IsObject(dp))
		return;
	if (json_bool(dp, "tmux_missing", 0)) {
		buf_puts(b, "; **tmux is not on the box's PATH: onbox runs the chain with nohup "
		    "instead** (watch: ");
		{
			char *w = xstrfmt("tail -f %s/" LAYOUT_DIR "/onbox.out", h->cfg->workdir);

			md_code(b, w);
			free(w);
		}
		buf_puts(b, ")");
	}
	buf_puts(b, "\n- The box as `patrol deploy` found it");
	if ((v = json_str(dp, "at", NULL)) != NULL) {
		buf_puts(b, " (");
		hb_boxtext(h, v, 0);
		buf_puts(b, ")");
	}
	buf_puts(b, ": ");
	hb_boxtext(h, json_str(dp, "arch", "unknown arch"), 0);
	buf_puts(b, ", ");
	hb_boxtext(h, json_str(dp, "onbox_version", "onbox ?"), 0);
	buf_puts(b, " at ");
	md_code(b, json_str(dp, "onbox_path", "?"));
	buf_printf(b, " (%s)", strcmp(json_str(dp, "onbox_source", "box"), "box") == 0 ?
	    "the box's own" : "uploaded by patrol deploy");
	buf_puts(b, "\n- Webhooks from the box: ");
	if ((v = json_str(dp, "http", NULL)) == NULL)
		buf_puts(b, "unknown (its onbox does not say)");
	else {
		hb_boxtext(h, v, 0);
		if (strncmp(v, "http: none", 10) == 0)
			buf_puts(b, " — **the box cannot deliver webhooks: its events wait in "
			    "its outbox**");
	}
}

static void
hb_contract(struct hb *h)
{
	const struct wk_config *cfg = h->cfg;
	const struct wk_box *x = &cfg->box;
	const char *notes = config_get_str(cfg, "platform.notes");
	char *boxcfg = remote_boxcfg(cfg);
	struct buf *b = &h->b;

	buf_puts(b, "- Run: ");
	md_code(b, cfg->run);
	buf_puts(b, "\n- Box: ");
	if (x->host == NULL)
		buf_puts(b, "not set (`box.host` in the config)");
	else {
		md_code(b, x->host);
		if (x->ssh_config != NULL) {
			buf_puts(b, " as resolved by the ssh config ");
			md_code(b, x->ssh_config);
		}
		if (x->port > 0)
			buf_printf(b, ", port %ld", x->port);
		if (x->user != NULL) {
			buf_puts(b, ", user ");
			md_code(b, x->user);
		}
		if (x->identity != NULL) {
			buf_puts(b, ", key ");
			md_code(b, x->identity);
		}
		if (x->known_hosts != NULL) {
			buf_puts(b, ", known_hosts ");
			md_code(b, x->known_hosts);
		}
		buf_printf(b, "; connect timeout %ld s", x->connect_timeout_s);
	}
	hb_transport(h);
	buf_puts(b, "\n- Workdir on the box: ");
	md_code(b, cfg->workdir);
	buf_puts(b, "\n- Detach primitive: ");
	md_code(b, cfg->detach);
	if (strcmp(cfg->detach, "tmux") == 0 && cfg->session != NULL) {
		buf_puts(b, " (session ");
		md_code(b, cfg->session);
		buf_puts(b, ")");
	}
	hb_deployed(h);
	buf_puts(b, "\n- Config on this machine: ");
	md_code(b, h->c->config_path != NULL ? h->c->config_path : cfg->path);
	buf_puts(b, "\n- Config on the box: ");
	md_code(b, boxcfg);
	if (cfg->profile != NULL) {
		buf_puts(b, "\n- Profile: ");
		md_code(b, cfg->profile);
	}
	if (notes != NULL) {
		buf_puts(b, "\n- Platform notes: ");
		md_code(b, notes);
	}
	buf_puts(b, "\n- DRI: ");
	if (cfg->dri != NULL)
		md_code(b, cfg->dri);
	else
		buf_puts(b, "not set (`dri` in the config)");
	if (cfg->results != NULL) {
		buf_puts(b, "\n- Results file (relative to the workdir): ");
		md_code(b, cfg->results);
	}
	buf_puts(b, "\n- Local state (this file, patrol.json, report.log, LOGBOOK.md): ");
	if (h->c->statedir != NULL)
		md_code(b, h->c->statedir);
	else
		buf_puts(b, "unknown");
	buf_puts(b, "\n");
	hb_sinks(h);
	buf_puts(b, "\n");
	free(boxcfg);
}

static void
hb_first(struct hb *h)
{
	struct buf cmd = BUF_INIT;
	size_t i;

	buf_puts(&h->b, "Run this first: one connection, one probe, and one report line "
	    "`<UTC time> <run> <VERDICT> <details>` (exit 0 OK, DONE or STOPPED, 1 another verdict, 2 the "
	    "box could not be seen).\n\n");
	buf_printf(&cmd, "%s -c %s --once\n", h->patrol, h->cfgq);
	md_block(&h->b, "sh", cmd.data);
	buf_free(&cmd);
	buf_puts(&h->b, "Then, by the verdict it prints:\n\n");
	for (i = 0; i < decide_nrows; i++) {
		buf_printf(&h->b, "- `%s` (exit %d): ", decide_table[i].name,
		    verdict_exit(decide_table[i].v));
		md_cell(&h->b, decide_table[i].then);
		buf_puts(&h->b, "\n");
	}
	buf_puts(&h->b, "\n");
}

static void
hb_status(struct hb *h)
{
	const cJSON *ps = h->ps, *att, *res, *last, *fo, *it, *ck;
	struct buf *b = &h->b;
	const char *v;
	char at[200];
	double cur, max;

	if (ps == NULL) {
		buf_puts(b, "patrol has not ticked yet (no patrol.json): everything below reads "
		    "\"unknown\" until the first command above has run.\n\n");
	}
	buf_puts(b, "- Last verdict: ");
	if ((v = json_str(ps, "verdict", NULL)) != NULL) {
		hb_boxtext(h, v, 0);
		if ((v = json_str(ps, "details", NULL)) != NULL && *v != '\0') {
			buf_puts(b, " — ");
			hb_boxtext(h, v, 0);
		}
	} else
		buf_puts(b, "unknown");
	if ((v = json_str(ps, "caveats_text", NULL)) != NULL && *v != '\0') {
		/* a DONE that went wrong on the way says so (caveats.h) */
		buf_puts(b, "\n- Caveats: ");
		hb_boxtext(h, v, 0);
	}
	buf_puts(b, "\n- Progress: ");
	cur = json_num(ps, "progress", -1);
	max = json_num(ps, "progress_max", -1);
	if (max < 0 && h->cfg->has_progress && h->cfg->progress.max > 0)
		max = (double)h->cfg->progress.max;
	if (cur >= 0) {
		buf_puts(b, "~");
		hb_num(b, cur);
		buf_puts(b, "/");
		if (max >= 0)
			hb_num(b, max);
		else
			buf_puts(b, "?");
	} else
		buf_puts(b, "unknown");
	buf_puts(b, "\n- Last tick: ");
	if ((v = json_str(ps, "last_tick", NULL)) != NULL) {
		hb_boxtext(h, v, 0);
		buf_puts(b, " (");
		hb_num(b, json_num(ps, "ticks", 0));
		buf_puts(b, " ticks in all");
		if (json_num(ps, "unseen_ticks", 0) > 0) {
			buf_puts(b, "; the box unseen for the last ");
			hb_num(b, json_num(ps, "unseen_ticks", 0));
		}
		buf_puts(b, ")");
	} else
		buf_puts(b, "never");
	buf_puts(b, "\n- Box last seen: ");
	if ((v = json_str(ps, "seen_at", NULL)) != NULL)
		hb_boxtext(h, v, 0);
	else
		buf_puts(b, "unknown");
	buf_puts(b, "\n- Stage on the box: ");
	if ((v = json_str(ps, "stage", NULL)) != NULL) {
		hb_boxtext(h, v, 0);
		if (json_num(ps, "attempt", -1) >= 0) {
			buf_puts(b, " attempt ");
			hb_num(b, json_num(ps, "attempt", 0));
		}
	} else
		buf_puts(b, "unknown");
	buf_puts(b, "\n- Attempts: ");
	att = cJSON_GetObjectItemCaseSensitive(ps, "attempts");
	if (cJSON_IsObject(att) && cJSON_GetArraySize(att) > 0) {
		int first = 1;

		cJSON_ArrayForEach(it, att) {
			if (!cJSON_IsNumber(it) || it->string == NULL)
				continue;
			buf_puts(b, first ? "" : ", ");
			hb_boxtext(h, it->string, 0);
			buf_putc(b, ' ');
			hb_num(b, it->valuedouble);
			first = 0;
		}
		if (first)
			buf_puts(b, "unknown");
	} else
		buf_puts(b, "unknown");
	buf_puts(b, "\n- Resumes by patrol: ");
	res = cJSON_GetObjectItemCaseSensitive(ps, "resumes");
	buf_printf(b, "%d of restart.max %ld", cJSON_IsArray(res) ? cJSON_GetArraySize(res) : 0,
	    config_get_int(h->cfg, "restart.max"));
	if (cJSON_IsArray(res) && (last = cJSON_GetArrayItem(res, cJSON_GetArraySize(res) - 1)) != NULL) {
		buf_puts(b, "; the last at ");
		hb_boxtext(h, json_str(last, "time", "?"), 0);
		buf_puts(b, " (was ");
		hb_boxtext(h, json_str(last, "was", "?"), 0);
		if (json_str(last, "class", NULL) != NULL) {
			buf_puts(b, ", ");
			hb_boxtext(h, json_str(last, "class", NULL), 0);
		}
		buf_puts(b, ")");
	}
	buf_puts(b, "\n- Failed stages:");
	fo = cJSON_GetObjectItemCaseSensitive(ps, "failed");
	if (cJSON_IsObject(fo) && cJSON_GetArraySize(fo) > 0) {
		buf_puts(b, "\n");
		cJSON_ArrayForEach(it, fo) {
			const char *cls = json_str(it, "class", NULL);
			const struct triage_class_info *ti;
			char *fn = xstrfmt("%s.FAILED", it->string != NULL ? it->string : "?");

			buf_puts(b, "  - ");
			hb_boxtext(h, fn, 0);
			free(fn);
			buf_puts(b, ": class ");
			hb_boxtext(h, cls != NULL ? cls : "unknown", 0);
			if (cls != NULL && triage_by_name(cls) != TRIAGE_NCLASSES) {
				ti = triage_info(triage_by_name(cls));
				buf_printf(b, " (%s; %s)", ti->title, ti->retryable ? "retryable" : "not retryable");
			}
			if (json_num(it, "attempt", -1) >= 0) {
				buf_puts(b, ", attempt ");
				hb_num(b, json_num(it, "attempt", 0));
			}
			if (tb_where_text(cJSON_GetObjectItemCaseSensitive(it, "where"), at,
			    sizeof(at))) {
				buf_puts(b, ", failed ");
				hb_boxtext(h, at, 0);
			}
			if ((v = json_str(it, "last_line", NULL)) != NULL) {
				buf_puts(b, ", last line ");
				hb_boxtext(h, v, 0);
			}
			buf_puts(b, "\n");
		}
	} else
		buf_puts(b, hb_failed_known(ps) ? " none\n" : " unknown\n");
	buf_puts(b, "- W&B: ");
	if ((v = json_str(ps, "wandb", NULL)) != NULL)
		hb_boxtext(h, v, 0);
	else
		buf_puts(b, "not seen yet");
	buf_puts(b, "\n- Newest complete checkpoint: ");
	ck = cJSON_GetObjectItemCaseSensitive(ps, "checkpoint");
	if (cJSON_IsObject(ck) && json_str(ck, "path", NULL) != NULL) {
		hb_boxtext(h, json_str(ck, "path", NULL), 0);
		if (json_num(ck, "step", -1) >= 0) {
			buf_puts(b, " (step ");
			hb_num(b, json_num(ck, "step", 0));
			if (json_num(ck, "age_s", -1) >= 0) {
				char age[32];

				timefmt_duration(json_long(ck, "age_s", 0), age, sizeof(age));
				buf_printf(b, ", %s old at the last tick", age);
			}
			buf_puts(b, ")");
		}
	} else if (ckpt_configured(h->cfg))
		buf_puts(b, "none complete at the last seen tick");
	else
		buf_puts(b, "no `checkpoints` in the config");
	buf_puts(b, "\n\n");
}

static void
hb_stage_state(struct hb *h, const struct wk_stage *s)
{
	const cJSON *f = hb_failed(h->ps, s->marker);
	int st = hb_marker_state(h->ps, s->marker);
	const char *cur = json_str(h->ps, "stage", NULL);
	char at[200];

	if (st == 1)
		buf_puts(&h->b, "done (marker present at the last seen tick)");
	else if (f != NULL) {
		buf_puts(&h->b, "FAILED, class ");
		hb_boxtext(h, json_str(f, "class", "unknown"), 0);
		if (tb_where_text(cJSON_GetObjectItemCaseSensitive(f, "where"), at, sizeof(at))) {
			buf_puts(&h->b, ", ");
			hb_boxtext(h, at, 0);
		}
	} else if (st == 0)
		buf_puts(&h->b, "not done (marker missing at the last seen tick)");
	else
		buf_puts(&h->b, "unknown (no tick has seen the box yet)");
	if (cur != NULL && strcmp(cur, s->name) == 0 && st != 1) {
		buf_puts(&h->b, "; the box's current stage");
		if (json_num(h->ps, "attempt", -1) >= 0) {
			buf_puts(&h->b, ", attempt ");
			hb_num(&h->b, json_num(h->ps, "attempt", 0));
		}
	}
}

static void
hb_chain(struct hb *h)
{
	struct buf *b = &h->b;
	size_t i;

	buf_puts(b, "The stages run in this order in the workdir, each only after the one before "
	    "succeeded (`&&`); a stage's marker is touched only on its success, and a restarted "
	    "onbox resumes at the first missing marker.\n\n");
	for (i = 0; i < h->cfg->nchain; i++) {
		const struct wk_stage *s = &h->cfg->chain[i];
		char *mp = layout_marker(h->cfg->workdir, s->marker);
		long na = json_long(cJSON_GetObjectItem(h->ps, "attempts"), s->name, 1);
		char *lr = layout_attempt_log_rel(s->name, na > 0 ? na : 1);

		buf_printf(b, "### %zu. %s\n\n", i + 1, s->name);
		buf_puts(b, "- State: ");
		hb_stage_state(h, s);
		buf_puts(b, "\n- Marker: ");
		md_code(b, mp);
		buf_puts(b, "\n- Log: ");
		if (s->log != NULL) {
			md_code(b, s->log);
			buf_puts(b, " (relative to the workdir)");
		} else
			buf_puts(b, "none of its own");
		buf_puts(b, "; each attempt's output: ");
		md_code(b, lr);
		buf_printf(b, " (attempt %ld, the newest known)\n- Done when: ", na > 0 ? na : 1);
		if (s->done_when != NULL) {
			md_code(b, s->done_when);
			buf_puts(b, " matches a line of its output or log, and it exits 0");
		} else
			buf_puts(b, "it exits 0");
		if (s->has_wait) {
			buf_puts(b, "\n- Waits for: ");
			if (s->wait.pid > 0)
				buf_printf(b, "process %ld on the box to exit", s->wait.pid);
			else {
				md_code(b, s->wait.pattern);
				buf_puts(b, " in ");
				md_code(b, s->wait.log);
			}
			if (s->wait.timeout_s > 0)
				buf_printf(b, " (at most %ld s)", s->wait.timeout_s);
		}
		if (s->timeout_s > 0)
			buf_printf(b, "\n- Timeout: %ld s", s->timeout_s);
		buf_puts(b, "\n\n");
		if (s->run != NULL) {
			buf_puts(b, "Command (`sh -c`, in the workdir):\n\n");
			md_block(b, "sh", s->run);
		}
		free(mp);
		free(lr);
	}
}

static void
hb_markers(struct hb *h)
{
	struct buf *b = &h->b;
	char *dir = layout_path(h->cfg->workdir, "markers"), *ls, *cmd;
	static const char *const files[][2] = {
		{ "state.json", "onbox's heartbeat: time, stage, attempt, pids, progress, last lines" },
		{ "logs", "one log per stage attempt, `<stage>.<attempt>.log`" },
		{ "events.jsonl", "append-only event log" },
		{ "caveats.json", "only after a DONE that went wrong on the way: its health alerts and restarts" },
		{ "outbox", "notifications not yet delivered" },
		{ "onbox.log", "onbox's own diagnostics" },
	};
	size_t i;

	buf_puts(b, "On the box. A marker is a small JSON file (stage, attempt, times, exit) written "
	    "atomically when its stage succeeded; "
	    "its `.FAILED` twin holds the failure's class and last lines. As of the last seen "
	    "tick:\n\n");
	for (i = 0; i < h->cfg->nchain; i++) {
		const char *m = h->cfg->chain[i].marker;
		char *mp = layout_marker(h->cfg->workdir, m), *fp = layout_failed(h->cfg->workdir, m);
		int st = hb_marker_state(h->ps, m);

		buf_puts(b, "- ");
		md_code(b, mp);
		buf_puts(b, st == 1 ? " — present" : st == 0 ? " — absent" : " — unknown");
		buf_puts(b, "\n- ");
		md_code(b, fp);
		if (hb_failed(h->ps, m) != NULL)
			buf_puts(b, " — present");
		else
			buf_puts(b, hb_failed_known(h->ps) ? " — absent" : " — unknown");
		buf_puts(b, "\n");
		free(mp);
		free(fp);
	}
	buf_puts(b, "\nAlso under ");
	ls = layout_root(h->cfg->workdir);
	md_code(b, ls);
	free(ls);
	buf_puts(b, ":\n\n");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = layout_path(h->cfg->workdir, files[i][0]);

		buf_puts(b, "- ");
		md_code(b, p);
		buf_printf(b, ": %s\n", files[i][1]);
		free(p);
	}
	{
		struct buf r = BUF_INIT;

		buf_puts(&r, "ls -la -- ");
		sshq_append(&r, dir);
		if ((cmd = hb_ssh_cmd(h, r.data)) != NULL) {
			buf_puts(b, "\nTo list the markers from this machine:\n\n");
			md_block(b, "sh", cmd);
			free(cmd);
		} else
			buf_puts(b, "\n");
		buf_free(&r);
	}
	free(dir);
}

/* completion.require and loss.on_nan: what DONE needs, and whether a NaN stops the stage. */
static void
hb_completion(struct hb *h)
{
	struct buf *b = &h->b;
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(h->cfg->root, "completion"), "require"), *it;
	int first = 1;

	buf_puts(b, "6. Completion: the last stage's marker is written only when every "
	    "`completion.require` entry matches a non-empty file (or a directory with an entry) "
	    "under the workdir, `{final_checkpoint}` meaning the newest complete checkpoint is at "
	    "the progress total; else that stage fails as `missing_artifacts` (not retryable), "
	    "naming what is missing. Required here: ");
	cJSON_ArrayForEach(it, req) {
		if (!cJSON_IsString(it))
			continue;
		buf_puts(b, first ? "" : ", ");
		hb_boxtext(h, it->valuestring, 0);
		first = 0;
	}
	if (first)
		buf_puts(b, "nothing (no `completion.require` in the config)");
	buf_printf(b, ". A NaN/Inf loss (`loss.on_nan` %s): %s\n\n",
	    config_get_str(h->cfg, "loss.on_nan"),
	    strcmp(config_get_str(h->cfg, "loss.on_nan"), "stop") == 0 ?
	    "the stage is stopped as a timeout is (SIGTERM, then SIGKILL) and fails as `nan_loss`, "
	    "not retried, so the later stages never run on a diverged model." :
	    "a `health_alert` only; the stage runs on.");
}

static void
hb_resume(struct hb *h)
{
	struct buf *b = &h->b, cls = BUF_INIT;
	char *start = remote_onbox_command(h->cfg, "start");
	char *status = remote_onbox_command(h->cfg, "status");
	char *cmd;
	const cJSON *ck = cJSON_GetObjectItemCaseSensitive(h->ps, "checkpoint");
	const char *tres = config_get_str(h->cfg, "transfer.resume");
	size_t i;

	buf_puts(b, "Look first (the first command above): never restart blind. `onbox start` "
	    "itself refuses when the run is alive, and a restarted onbox re-attaches to a stage "
	    "that still runs and resumes at the first missing marker.\n\n");
	buf_puts(b, "1. Rebuild layer 1 from this machine:\n\n");
	if ((cmd = hb_ssh_cmd(h, start)) != NULL) {
		md_block(b, "sh", cmd);
		free(cmd);
	} else
		buf_puts(b, "(no `box.host` in the config: set it, then generate this again)\n\n");
	buf_puts(b, "2. The same, when already on the box:\n\n");
	md_block(b, "sh", start);
	buf_puts(b, "3. What onbox says about the run (from this machine, then on the box):\n\n");
	if ((cmd = hb_ssh_cmd(h, status)) != NULL) {
		md_block(b, "sh", cmd);
		free(cmd);
	}
	md_block(b, "sh", status);
	for (i = 0; i < TRIAGE_NCLASSES; i++)
		if (triage_classes[i].retryable)
			buf_printf(&cls, "%s%s", cls.len > 0 ? ", " : "", triage_classes[i].name);
	buf_printf(b, "4. Automatic restarts: onbox on the box relaunches a failed stage, and patrol "
	    "resumes a dead run when patrol.auto_resume is true (here: %s), only as the restart "
	    "policy below allows (the same table in both; the first rule that holds decides). "
	    "restart.max %ld, restart.window_s %ld, restart.max_in_window %ld, "
	    "restart.escalate_s %ld, restart.no_progress_max %ld; retryable classes: %s.\n\n",
	    config_get_bool(h->cfg, "patrol.auto_resume") ? "true" : "false",
	    config_get_int(h->cfg, "restart.max"), config_get_int(h->cfg, "restart.window_s"),
	    config_get_int(h->cfg, "restart.max_in_window"), config_get_int(h->cfg, "restart.escalate_s"),
	    config_get_int(h->cfg, "restart.no_progress_max"),
	    cJSON_GetObjectItemCaseSensitive(h->cfg->root, "restart") != NULL &&
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h->cfg->root, "restart"),
	    "retry_classes") != NULL ? "restart.retry_classes" : buf_str(&cls));
	buf_puts(b, "| rule | restart? | when | then |\n|---|---|---|---|\n");
	for (i = 0; i < policy_nrows; i++) {
		buf_printf(b, "| %s | %s | ", policy_table[i].name,
		    policy_table[i].action == POLICY_RESTART ? "yes" : "no");
		md_cell(b, policy_table[i].when);
		buf_puts(b, " | ");
		md_cell(b, policy_table[i].then);
		buf_puts(b, " |\n");
	}
	buf_puts(b, "\n5. Checkpoints: every `{checkpoint}` in a stage's command becomes the newest "
	    "complete checkpoint (by step number, with its completeness file) at each launch, "
	    "so the commands above resume from it. Newest complete: ");
	if (cJSON_IsObject(ck) && json_str(ck, "path", NULL) != NULL) {
		hb_boxtext(h, json_str(ck, "path", NULL), 0);
		if (json_num(ck, "step", -1) >= 0) {
			buf_puts(b, " (step ");
			hb_num(b, json_num(ck, "step", 0));
			buf_puts(b, ")");
		}
	} else if (ckpt_configured(h->cfg))
		buf_printf(b, "none at the last seen tick (checkpoints.fallback %s)",
		    config_get_str(h->cfg, "checkpoints.fallback"));
	else
		buf_puts(b, "no `checkpoints` in the config");
	buf_puts(b, "\n\n");
	hb_completion(h);
	if (tres != NULL) {
		buf_puts(b, "An interrupted transfer resumes with (transfer.resume, on this machine):\n\n");
		md_block(b, "sh", tres);
	}
	{
		char *stop = remote_onbox_command(h->cfg, "stop");

		buf_printf(b, "To stop the run on purpose (SIGTERM to the stage's process group, SIGKILL "
		    "after stop_grace_s = %ld s; a training may save a checkpoint on SIGTERM), from "
		    "this machine, then on the box:\n\n", h->cfg->stop_grace_s);
		cmd = xstrfmt("%s -c %s stop\n", h->patrol, h->cfgq);
		md_block(b, "sh", cmd);
		free(cmd);
		md_block(b, "sh", stop);
		buf_puts(b, "A stopped run is reported `STOPPED` every tick (exit 0; the cron entry stays) "
		    "and is never resumed, not even with patrol.auto_resume. `onbox start` on the box "
		    "or `patrol deploy` starts it again from the first missing marker.\n\n");
		free(stop);
	}
	buf_free(&cls);
	free(start);
	free(status);
}

static void
hb_decide(struct hb *h)
{
	struct buf *b = &h->b;
	size_t i;

	buf_puts(b, "Each tick patrol walks this table from the top; the first row that holds is "
	    "the verdict. It is generated from the table the code runs (`decide_table[]`).\n\n");
	buf_puts(b, "| verdict | exit | when | then | action |\n|---|---|---|---|---|\n");
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

static void
hb_cron(struct hb *h)
{
	struct buf *b = &h->b, cmd = BUF_INIT;
	const char *sched = config_get_str(h->cfg, "patrol.schedule");
	char *self = h->c->bindir != NULL ? fs_join(h->c->bindir, "patrol") : xstrdup("patrol");
	char *cfgp = xstrdup(h->c->config_path != NULL ? h->c->config_path : h->cfg->path);
	char *line = crontab_line(h->cfg, self, cfgp);

	buf_puts(b, "patrol runs from the user's crontab on the schedule ");
	md_code(b, sched);
	buf_puts(b, " (patrol.schedule). The line `patrol --install-cron` installs:\n\n");
	if (line != NULL)
		md_block(b, "", line);
	else
		buf_puts(b, "(none: patrol.schedule is not a cron schedule, so `--install-cron` refuses it)\n\n");
	buf_printf(b, "Installed: %s.\n\n", h->c->cron == 1 ? "yes" : h->c->cron == 0 ? "no" :
	    "unknown (`crontab -l` could not be read)");
	buf_puts(b, "Install (or update) it:\n\n");
	buf_printf(&cmd, "%s -c %s --install-cron\n", h->patrol, h->cfgq);
	md_block(b, "sh", cmd.data);
	buf_reset(&cmd);
	buf_puts(b, "Remove it (patrol also removes it by itself once the run is DONE):\n\n");
	buf_printf(&cmd, "%s -c %s --uninstall-cron\n", h->patrol, h->cfgq);
	md_block(b, "sh", cmd.data);
	buf_printf(b, "By hand: `crontab -e` and delete the line ending in `" CRONTAB_TAG "%s`.\n\n",
	    h->cfg->run);
	buf_free(&cmd);
	free(self);
	free(cfgp);
	free(line);
}

static void
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

static void
hb_triage(struct hb *h)
{
	struct buf *b = &h->b;
	size_t i;

	buf_puts(b, "The failure classes onbox and patrol assign (`triage_classes[]`); the class of "
	    "a failed stage is in its `.FAILED` marker.\n\n");
	buf_puts(b, "| class | title | retryable | remediation |\n|---|---|---|---|\n");
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

static void
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
static void
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

static const struct hb_section {
	const char	*title;
	void		(*fn)(struct hb *);
	const char	*detach;	/* only with this detach; NULL: always */
} hb_sections[] = {
	{ "Run contract", hb_contract, NULL },
	{ "First command on reconnect", hb_first, NULL },
	{ "Current status", hb_status, NULL },
	{ "The chain", hb_chain, NULL },
	{ "Marker paths", hb_markers, NULL },
	{ "Resume", hb_resume, NULL },
	{ "Slurm", hb_slurm, "slurm" },
	{ "Decision table", hb_decide, NULL },
	{ "Cron", hb_cron, NULL },
	{ "Sentinel", hb_sentinel, NULL },
	{ "Triage table", hb_triage, NULL },
	{ "Logbook", hb_logbook, NULL },
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
		if (hb_sections[i].detach != NULL && strcmp(hb_sections[i].detach, c->cfg->detach) != 0)
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
