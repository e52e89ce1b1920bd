/*
 * render-box.c: the HANDBOOK.md sections about the run and its box: the title,
 * the secrets file, the notify sinks, the ssh transport, what deploy found, the
 * run contract and the first command on reconnect.
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

void
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
	    "sinks) sees it. To change a value: set it in the owner's environment and run this "
	    "again (`--no-secrets` leaves the file as it is):\n\n");
	{
		char *cmd = xstrfmt("%s -c %s deploy\n", h->patrol, h->cfgq);

		md_block(&h->b, "sh", cmd);
		free(cmd);
	}
	free(names);
	free(path);
}

static void
hb_sinks(struct hb *h)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(h->cfg->root, "notify"), *it;
	size_t j;
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
		for (j = 0; j < h->sinks.n; j++)
			if (h->sinks.v[j].index == i && h->sinks.v[j].card)
				buf_printf(&h->b, "; one live card per run, edited in place (its id in "
				    "`.watchkeeper/outbox/%s/card.json` on the box), and a message of its "
				    "own only when a human is needed (`\"card\": false`: one message per "
				    "event)", h->sinks.v[j].id);
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

void
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
	if (cfg->detach_kind == DETACH_TMUX && cfg->session != NULL) {
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

void
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
