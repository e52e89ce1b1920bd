/*
 * probe.c: the combined probe script and its strict parser (see probe.h).
 *
 * The script uses only POSIX sh and the tools every image has (awk, sed, tr,
 * tail, head, df, find, ls); the optional ones (tmux, nvidia-smi, timeout)
 * are tested with `command -v` first.  Every path and name in it comes from
 * sshq_append; nothing from the config is ever pasted raw.  The whole
 * output goes through one tr and one awk (two processes a probe, not two a
 * section): a header line is written after a tag made new for each probe,
 * which awk strips; every other line is data and gets its '|' prefix.  awk
 * also terminates a last line that had no newline, and splits a line at
 * the tag, so a log tail can never glue itself to the next header.  NUL
 * bytes are dropped on the box (they would end a C string).
 *
 * The parser checks the framing, stores each section, then (given the
 * run's config) reads the typed views once: the Slurm view, the checkpoint
 * listing, and the tails' triage and progress where decide() can use them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caveats.h"
#include "ckpt.h"
#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "events.h"
#include "jsonfile.h"
#include "layout.h"
#include "pattern.h"
#include "probe.h"
#include "slurm.h"
#include "sshq.h"
#include "triage.h"
#include "xmalloc.h"

/* ---- the script ---- */

/* var=<pre>'val' and a newline: pre is the script's own text ("$W/"), val is quoted. */
static void
put_assign(struct buf *b, const char *var, const char *pre, const char *val)
{
	buf_printf(b, "%s=%s", var, pre);
	sshq_append(b, val);
	buf_putc(b, '\n');
}

/* put_assign's pre for a path of the config: absolute as it is, else under the workdir. */
static const char *
wdir_pre(const char *path)
{
	return path[0] == '/' ? "" : "\"$W/\"";
}

/*
 * The framing the probe and mwait's check share.  Every line of the script's
 * { ... } goes through one tr and one awk at its end (probe_sh_filter): a
 * header is the tag and the header (h), any other line is data and gets its
 * '|'.  The tag is new each script, so no file on the box can hold it; a
 * header that follows data without its last newline is split from it at the
 * tag, the data first.  live PID: lv=1 when the process exists and is not
 * a zombie (killed, its parent gone, not reaped yet: dead), else 0 (a
 * variable, not $(live): each $(...) is a fork on the box, and a tick's
 * probe used to start some 27 processes there; read is a builtin).
 */
void
probe_sh_prelude(struct buf *b)
{
	char tag[2 * PROBE_TAG_BYTES + 1];

	fs_random_hex(tag, PROBE_TAG_BYTES);
	buf_printf(b, "N=wk%s\n"
	    "h() { echo \"$N$1\"; }\n"
	    "live() { lv=0; if [ -n \"$1\" ] && [ \"$1\" != 0 ] && [ -d \"/proc/$1\" ]; then lv=1; "
	    "if read -r zl <\"/proc/$1/stat\"; then zl=${zl##*) }; case $zl in Z*) lv=0 ;; esac; "
	    "fi 2>/dev/null; fi; }\n",
	    tag);
}

/*
 * The alive section's data: onbox's and the stage's pid, and whether each
 * lives.  Each pid is the first integer "onbox_pid" / "stage_pid" of
 * $D/state.json (a key on a line of its own, as onbox writes it), both read
 * by one awk that stops once it has both.  [ \t], not [[:space:]]: mawk
 * before 1.3.4 (Debian 10 and older boxes) has no character classes.
 */
void
probe_sh_alive(struct buf *b)
{
	/* The onbox pid must still be an onbox: a reused pid is not our monitor. */
	buf_puts(b, "ob=; sp=\n"
	    "[ -f \"$D/state.json\" ] && for v in $(awk 'function g(k, n,  p) { if (v[k] != \"\" || !match($0, \"^[ \\t]*\\\"\" n \"\\\":[ \\t]*[0-9]\")) return; "
	    "p = substr($0, RLENGTH); sub(/[^0-9].*/, \"\", p); v[k] = p } { g(\"o\", \"onbox_pid\"); g(\"s\", \"stage_pid\") } "
	    "v[\"o\"] != \"\" && v[\"s\"] != \"\" { exit } END { print \"o\" v[\"o\"], \"s\" v[\"s\"] }' "
	    "\"$D/state.json\" 2>/dev/null); do case $v in o*) ob=${v#o} ;; s*) sp=${v#s} ;; esac; done\n"
	    "live \"$ob\"; oa=0; if [ $lv = 1 ]; then case \"$(tr '\\000' ' ' <\"/proc/$ob/cmdline\" 2>/dev/null)\" in "
	    "*onbox*) oa=1 ;; esac; fi\n"
	    "echo \"onbox ${ob:-0} $oa\"\n"
	    "live \"$sp\"; echo \"stage ${sp:-0} $lv\"\n");
}

void
probe_sh_filter(struct buf *b)
{
	buf_puts(b, "} | tr -d '\\000' | awk -v n=\"$N\" '{ i = index($0, n); if (i == 0) { print \"|\" $0; next } "
	    "if (i > 1) print \"|\" substr($0, 1, i - 1); print substr($0, i + length(n)) }'\n");
}

char *
probe_script(const struct wk_config *cfg)
{
	return probe_script_at(cfg, -1);
}

char *
probe_script_at(const struct wk_config *cfg, long long events_from)
{
	struct buf b = BUF_INIT;
	const char *remote = config_get_str(cfg, "transfer.remote");
	size_t i;

	buf_puts(&b, "# watchkeeper probe " "1" ": read-only, bounded\n"
	    "export LC_ALL=C\n");
	put_assign(&b, "W", "", cfg->workdir);
	buf_puts(&b, "D=\"$W/" LAYOUT_DIR "\"\n");
	probe_sh_prelude(&b);
	buf_puts(&b, "T=; command -v timeout >/dev/null 2>&1 && T='timeout 10'\n"
	    "{\n"
	    "h \"@probe " "1" " $(date +%s)\"\n"
	    "h @alive\n");
	if (cfg->detach_kind == DETACH_TMUX) {
		buf_puts(&b, "if command -v tmux >/dev/null 2>&1; then if tmux has-session -t ");
		{
			char *target = xstrfmt("=%s", cfg->session);

			sshq_append(&b, target);
			free(target);
		}
		buf_puts(&b, " 2>/dev/null; then echo 'tmux 1'; else echo 'tmux 0'; fi; "
		    "else echo 'tmux -1'; fi\n");
	} else
		buf_puts(&b, "echo 'tmux -1'\n");
	probe_sh_alive(&b);
	buf_puts(&b, "h @markers\n"
	    "for f in \"$D\"/markers/*; do [ -f \"$f\" ] && echo \"${f##*/}\"; done\n");
	for (i = 0; i < cfg->nchain; i++) {
		char *m = xstrfmt("%s.FAILED", cfg->chain[i].marker);

		put_assign(&b, "f", "\"$D/markers/\"", m);
		buf_printf(&b, "if [ -f \"$f\" ]; then h '@failed %s'; head -c 65536 \"$f\"; fi\n",
		    cfg->chain[i].marker);
		free(m);
	}
	buf_puts(&b, "h @state\n"
	    "[ -f \"$D/state.json\" ] && head -c 262144 \"$D/state.json\"\n"
	    /* the run was stopped on purpose (`onbox stop`): its record */
	    "[ -f \"$D/stopped\" ] && { h @stopped; head -c 4096 \"$D/stopped\"; }\n"
	    /* what went wrong on the way to a DONE (caveats.h): onbox writes it at the end */
	    "[ -f \"$D/" CAVEATS_FILE "\" ] && { h @caveats; head -c " CAVEATS_FILE_MAX_S " \"$D/" CAVEATS_FILE "\"; }\n"
	    /* the newest log: ls's first line, cut here (no head: a process less) */
	    "lg=$(ls -t \"$D\"/logs/*.log 2>/dev/null); lg=${lg%%\"\n\"*}\n"
	    "if [ -n \"$lg\" ]; then h \"@log output ${lg##*/}\"; tail -c " "16384" " \"$lg\"; fi\n");
	for (i = 0; i < cfg->nchain; i++) {
		if (cfg->chain[i].log == NULL)
			continue;
		put_assign(&b, "f", wdir_pre(cfg->chain[i].log), cfg->chain[i].log);
		buf_printf(&b, "if [ -f \"$f\" ]; then h '@log %s'; tail -c " "16384" " \"$f\"; fi\n",
		    cfg->chain[i].name);
	}
	/* Each stage's attempt history (the restart policy reads it), then the checkpoints. */
	for (i = 0; i < cfg->nchain; i++) {
		char *hist = xstrfmt("%s.json", cfg->chain[i].name);

		put_assign(&b, "f", "\"$D/stages/\"", hist);
		buf_printf(&b, "[ -f \"$f\" ] && { h '@history %s'; head -c " PROBE_HISTORY_S " \"$f\"; }\n",
		    cfg->chain[i].name);
		free(hist);
	}
	if (cfg->detach_kind == DETACH_SLURM) {
		/* the run's jobs: the queue, the accounting, the controller (core/slurm.h) */
		char *frag = slurm_query_script(cfg);

		buf_puts(&b, "h @slurm\n{\n");
		buf_puts(&b, frag);
		buf_puts(&b, "} 2>&1\n");
		free(frag);
	}
	if (ckpt_configured(cfg)) {
		char *frag = ckpt_probe_fragment(cfg);

		buf_puts(&b, "h @ckpt\n");
		buf_puts(&b, frag);
		buf_puts(&b, "\n");
		free(frag);
	}
	/*
	 * events.jsonl from events_from on (bounded), or its last bytes when
	 * that offset is unknown or beyond the file (it was replaced).
	 */
	buf_printf(&b, "F=%lld; ev=\"$D/" EVENTS_FILE "\"; es=0\n", events_from);
	buf_puts(&b, "[ -f \"$ev\" ] && es=$(($(wc -c <\"$ev\")))\n"
	    "if [ \"$F\" -lt 0 ] || [ \"$es\" -lt \"$F\" ]; then "
	    "F=$((es > " PROBE_EVENTS_S " ? es - " PROBE_EVENTS_S " : 0)); fi\n"
	    "h \"@events $es $F\"\n"
	    "[ \"$es\" -gt \"$F\" ] && tail -c +$((F + 1)) \"$ev\" | head -c " PROBE_EVENTS_S "\n"
	    "h @results\n");
	if (cfg->results != NULL) {
		put_assign(&b, "f", "\"$W/\"", cfg->results);
		buf_puts(&b, "[ -f \"$f\" ] && head -c 65536 \"$f\"\n");
	}
	buf_puts(&b, "h @df\n"
	    "df -P -k \"$W\" 2>/dev/null\n"
	    "h @dfi\n"
	    "df -P -i \"$W\" 2>/dev/null\n"
	    "h @gpu\n"
	    "if command -v nvidia-smi >/dev/null 2>&1; then $T nvidia-smi "
	    "--query-gpu=utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits 2>/dev/null; fi\n"
	    /* read, not $(cat) and sed: no process for a one-line file */
	    "h @cgroup\n"
	    "cg() { v=; read -r v 2>/dev/null <\"$1\"; echo \"current $v\"; v=; read -r v 2>/dev/null <\"$2\"; echo \"max $v\"; "
	    "v=; while read -r k n; do [ \"$k\" = oom_kill ] && v=$n; done 2>/dev/null <\"$3\"; echo \"oom_kill $v\"; }\n"
	    "if [ -f /sys/fs/cgroup/memory.current ]; then\n"
	    "  cg /sys/fs/cgroup/memory.current /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory.events\n"
	    "elif [ -f /sys/fs/cgroup/memory/memory.usage_in_bytes ]; then\n"
	    "  cg /sys/fs/cgroup/memory/memory.usage_in_bytes /sys/fs/cgroup/memory/memory.limit_in_bytes "
	    "/sys/fs/cgroup/memory/memory.oom_control\n"
	    "fi\n"
	    "h @transfer\n");
	if (remote != NULL) {
		put_assign(&b, "d", wdir_pre(remote), remote);
		/* Completeness is a file count and bytes, never `test -d`. */
		buf_puts(&b, "if [ -d \"$d\" ]; then\n"
		    "  echo \"files $(find \"$d\" -type f 2>/dev/null | wc -l)\"\n"
		    "  if find \"$d\" -maxdepth 0 -printf '' >/dev/null 2>&1; then\n"
		    "    echo \"bytes $(find \"$d\" -type f -printf '%s\\n' 2>/dev/null | awk '{ s += $1 } END { printf \"%.0f\", s }')\"\n"
		    "  else echo 'bytes -1'; fi\n"
		    "fi\n");
	}
	buf_puts(&b, "h @end\n");
	probe_sh_filter(&b);
	return buf_detach(&b);
}

/* ---- the parser ---- */

enum probe_sec {
	SEC_NONE, SEC_PROBE, SEC_ALIVE, SEC_MARKERS, SEC_FAILED, SEC_STATE, SEC_LOG, SEC_RESULTS,
	SEC_DF, SEC_DFI, SEC_GPU, SEC_CGROUP, SEC_TRANSFER, SEC_EVENTS, SEC_HISTORY, SEC_CKPT,
	SEC_SLURM, SEC_STOPPED, SEC_CAVEATS, SEC_END, SEC_COUNT
};

static const struct {
	const char	*name;
	enum probe_sec	 sec;
	int		 arg;		/* takes a name after it */
	int		 required;
} probe_sections[] = {
	{ "probe", SEC_PROBE, 1, 1 },
	{ "alive", SEC_ALIVE, 0, 1 },
	{ "markers", SEC_MARKERS, 0, 1 },
	{ "failed", SEC_FAILED, 1, 0 },
	{ "state", SEC_STATE, 0, 1 },
	{ "log", SEC_LOG, 1, 0 },
	{ "results", SEC_RESULTS, 0, 1 },
	{ "df", SEC_DF, 0, 1 },
	{ "dfi", SEC_DFI, 0, 1 },
	{ "gpu", SEC_GPU, 0, 1 },
	{ "cgroup", SEC_CGROUP, 0, 1 },
	{ "transfer", SEC_TRANSFER, 0, 1 },
	{ "events", SEC_EVENTS, 1, 0 },
	{ "history", SEC_HISTORY, 1, 0 },
	{ "ckpt", SEC_CKPT, 0, 0 },
	{ "slurm", SEC_SLURM, 0, 0 },
	{ "stopped", SEC_STOPPED, 0, 0 },
	{ "caveats", SEC_CAVEATS, 0, 0 },
	{ "end", SEC_END, 0, 1 },
};

void
probe_free(struct probe *p)
{
	size_t i;

	for (i = 0; i < p->nmarkers; i++)
		free(p->markers[i]);
	free(p->markers);
	for (i = 0; i < p->nfailed; i++) {
		free(p->failed[i].marker);
		cJSON_Delete(p->failed[i].doc);
	}
	free(p->failed);
	for (i = 0; i < p->nlogs; i++) {
		free(p->logs[i].name);
		free(p->logs[i].path);
		free(p->logs[i].tail);
	}
	free(p->logs);
	cJSON_Delete(p->state);
	free(p->results);
	free(p->gpu);
	free(p->events);
	for (i = 0; i < p->nhist; i++) {
		free(p->hist[i].stage);
		cJSON_Delete(p->hist[i].doc);
	}
	free(p->hist);
	free(p->ckpt);
	free(p->slurm);
	cJSON_Delete(p->stopped);
	cJSON_Delete(p->caveats);
	if (p->has_slurm_view)
		slurm_view_free(&p->slurm_view);
	ckpt_scan_free(p->ckpt_scan);
	free(p->tail_evidence);
	memset(p, 0, sizeof(*p));
}

/* The percentage in column col (1-based) of df's data line, or -1. */
static long
df_pct(const char *text, int col)
{
	const char *line = strchr(text, '\n');
	char field[64];
	int n = 0;
	long v = -1;

	if (line == NULL)
		return -1;
	line++;
	while (*line != '\0' && *line != '\n' && n < col) {
		size_t len;

		while (*line == ' ' || *line == '\t')
			line++;
		len = strcspn(line, " \t\n");
		if (++n == col && len < sizeof(field)) {
			memcpy(field, line, len);
			field[len] = '\0';
			if (sscanf(field, "%ld%%", &v) != 1)
				v = -1;
		}
		line += len;
	}
	return v;
}

static long long
df_avail(const char *text)
{
	const char *line = strchr(text, '\n');
	char fs[256];
	long long blocks, used, avail;

	if (line == NULL || sscanf(line + 1, "%255s %lld %lld %lld", fs, &blocks, &used, &avail) != 4)
		return -1;
	return avail;
}

static long long
kv_num(const char *text, const char *key, long long def)
{
	size_t klen = strlen(key);
	const char *l;
	long long v;

	for (l = text; l != NULL && *l != '\0'; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, klen) == 0 && l[klen] == ' ') {
			if (sscanf(l + klen + 1, "%lld", &v) == 1)
				return v;
			return def;
		}
	}
	return def;
}

/* A finished section's text goes where it belongs. */
static int
probe_store(struct probe *p, enum probe_sec sec, const char *arg, struct buf *txt, char **why)
{
	const char *t = buf_str(txt), *l;
	char word[64];

	switch (sec) {
	case SEC_ALIVE:
		p->tmux = (int)kv_num(t, "tmux", -1);
		for (l = t; l != NULL && *l != '\0'; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			long pid, alive;

			if (sscanf(l, "%63s %ld %ld", word, &pid, &alive) != 3)
				continue;
			if (strcmp(word, "onbox") == 0) {
				p->onbox_pid = pid;
				p->onbox_alive = alive == 1;
			} else if (strcmp(word, "stage") == 0) {
				p->stage_pid = pid;
				p->stage_alive = alive == 1;
			}
		}
		break;
	case SEC_MARKERS:
		for (l = t; l != NULL && *l != '\0'; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			size_t len = strcspn(l, "\n");

			if (len == 0 || (len > 7 && strncmp(l + len - 7, ".FAILED", 7) == 0))
				continue;
			p->markers = xreallocarray(p->markers, p->nmarkers + 1, sizeof(*p->markers));
			p->markers[p->nmarkers++] = xstrndup(l, len);
		}
		break;
	case SEC_FAILED:
		p->failed = xreallocarray(p->failed, p->nfailed + 1, sizeof(*p->failed));
		p->failed[p->nfailed].marker = xstrdup(arg);
		p->failed[p->nfailed].doc = cJSON_Parse(t);
		p->nfailed++;
		break;
	case SEC_STATE:
		if (txt->len > 0 && (p->state = cJSON_Parse(t)) == NULL) {
			/* A heartbeat is written atomically: unparsable means not ours. */
			*why = xstrdup("state.json on the box is not valid JSON");
			return WK_ERR_PARSE;
		}
		break;
	case SEC_LOG: {
		const char *sp = strchr(arg, ' ');

		p->logs = xreallocarray(p->logs, p->nlogs + 1, sizeof(*p->logs));
		p->logs[p->nlogs].name = sp != NULL ? xstrndup(arg, (size_t)(sp - arg)) : xstrdup(arg);
		p->logs[p->nlogs].path = xstrdup(sp != NULL ? sp + 1 : "");
		p->logs[p->nlogs].len = txt->len;
		p->logs[p->nlogs].tail = xstrdup(t);
		p->nlogs++;
		break;
	}
	case SEC_RESULTS:
		if (txt->len > 0)
			p->results = xstrdup(t);
		break;
	case SEC_DF:
		p->disk_used_pct = df_pct(t, 5);
		p->disk_avail_kb = df_avail(t);
		break;
	case SEC_DFI:
		p->inode_used_pct = df_pct(t, 5);
		break;
	case SEC_GPU:
		if (txt->len > 0)
			p->gpu = xstrdup(t);
		break;
	case SEC_CGROUP:
		p->mem_current = kv_num(t, "current", -1);
		p->mem_max = kv_num(t, "max", -1);
		p->oom_kills = (long)kv_num(t, "oom_kill", -1);
		break;
	case SEC_TRANSFER:
		p->transfer_files = (long)kv_num(t, "files", -1);
		p->transfer_bytes = kv_num(t, "bytes", -1);
		break;
	case SEC_HISTORY:
		p->hist = xreallocarray(p->hist, p->nhist + 1, sizeof(*p->hist));
		p->hist[p->nhist].stage = xstrdup(arg);
		p->hist[p->nhist].doc = cJSON_Parse(t);	/* written atomically: NULL means not ours */
		p->nhist++;
		break;
	case SEC_CKPT:
		p->ckpt = xstrdup(t);
		p->ckpt_len = txt->len;
		break;
	case SEC_STOPPED:
		/* written atomically; a record we cannot read still means "stopped" */
		if ((p->stopped = cJSON_Parse(t)) == NULL || !cJSON_IsObject(p->stopped)) {
			cJSON_Delete(p->stopped);
			p->stopped = cJSON_CreateObject();
		}
		break;
	case SEC_CAVEATS:
		/* written atomically and bounded; one we cannot read says nothing */
		cJSON_Delete(p->caveats);
		if ((p->caveats = cJSON_Parse(t)) != NULL && caveats_text(p->caveats) == NULL) {
			cJSON_Delete(p->caveats);
			p->caveats = NULL;
		}
		break;
	case SEC_SLURM:
		p->slurm = xstrdup(t);
		p->slurm_len = txt->len;
		break;
	case SEC_EVENTS:
		if (sscanf(arg, "%lld %lld", &p->events_size, &p->events_from) != 2 ||
		    p->events_size < 0 || p->events_from < 0 || p->events_from > p->events_size) {
			*why = xstrfmt("garbled: events header \"%.40s\"", arg);
			return WK_ERR_PARSE;
		}
		p->events = xstrdup(t);
		p->events_len = txt->len;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- the typed views ---- */

/* detach slurm: the jobs, or a view that says why the queue is unseen. */
static void
probe_read_slurm(const struct wk_config *cfg, struct probe *p)
{
	char *why = NULL;

	if (cfg->detach_kind != DETACH_SLURM)
		return;
	if (p->slurm == NULL || slurm_parse(cfg, p->slurm, p->slurm_len, &p->slurm_view, &why) != 0) {
		memset(&p->slurm_view, 0, sizeof(p->slurm_view));
		p->slurm_view.why = why != NULL ? why : xstrdup("the probe brought no @slurm section");
		why = NULL;
	}
	p->has_slurm_view = 1;
	free(why);
}

static void
probe_read_ckpt(const struct wk_config *cfg, struct probe *p)
{
	char *why = NULL;

	if (p->ckpt == NULL)
		return;
	if (ckpt_parse_listing(cfg, p->ckpt, p->ckpt_len, &p->ckpt_scan, &why) != 0)
		p->ckpt_scan = NULL;
	free(why);
}

/* progress.pattern over every tail, only when onbox's heartbeat has no progress. */
static void
probe_read_progress(const struct wk_config *cfg, struct probe *p)
{
	const cJSON *prog = p->state != NULL ? cJSON_GetObjectItem(p->state, "progress") : NULL;
	struct pattern_span g[3];
	size_t i;

	if (json_long(prog, "cur", -1) >= 0 || !cfg->has_progress)
		return;
	for (i = 0; i < p->nlogs; i++) {
		const char *t = p->logs[i].tail, *l, *nl;

		for (l = t; *l != '\0'; l = nl + 1) {
			nl = strchr(l, '\n');
			if (nl == NULL)
				nl = l + strlen(l);
			if (pattern_match_groups(cfg->progress.re, l, (size_t)(nl - l), g, 3) == 1 &&
			    g[1].start >= 0) {
				p->tail_progress = strtol(l + g[1].start, NULL, 10);
				if (g[2].start >= 0 && p->tail_progress_max < 0)
					p->tail_progress_max = strtol(l + g[2].start, NULL, 10);
			}
			if (*nl == '\0')
				break;
		}
	}
}

/* The newest output tail through the triage rules, when it can tell why the run died (probe.h). */
static void
probe_read_triage(const struct wk_config *cfg, struct probe *p)
{
	const struct probe_log *lg = probe_log(p, "output");
	long fm = probe_first_missing(p, cfg);
	struct triage_scan ts;
	struct triage_input ti;
	const char *l, *nl, *ev = NULL;

	if (lg == NULL || fm < 0 || probe_alive(p, cfg, fm) ||
	    probe_failed(p, cfg->chain[fm].marker) != NULL || triage_scan_init(&ts) != 0)
		return;
	for (l = lg->tail; *l != '\0'; l = nl + 1) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l);
		triage_scan_line(&ts, l, (size_t)(nl - l));
		if (*nl == '\0')
			break;
	}
	if (ts.crash_seen) {
		memset(&ti, 0, sizeof(ti));
		ti.exited = 1;
		ti.exit_code = 1;
		ti.oom_kills = -1;	/* patrol never sees the stage's cgroup: a "Killed" line stays a guess */
		p->tail_crash = 1;
		p->tail_cls = triage_classify(&ti, &ts, &ev);
		p->tail_evidence = ev != NULL ? xstrdup(ev) : NULL;
	}
	triage_scan_free(&ts);
}

long
probe_first_missing(const struct probe *p, const struct wk_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nchain; i++)
		if (!probe_has_marker(p, cfg->chain[i].marker))
			return (long)i;
	return -1;
}

int
probe_alive(const struct probe *p, const struct wk_config *cfg, long fm)
{
	const struct slurm_job *j;

	if (!p->has_slurm_view)
		return p->tmux == 1 || p->onbox_alive || p->stage_alive;
	if (!p->slurm_view.queue_known || fm < 0)
		return 0;
	j = slurm_stage_job(&p->slurm_view, cfg->chain[fm].name);
	return j != NULL && slurm_job_live(j);
}


int
probe_parse(const struct wk_config *cfg, const char *text, size_t len, struct probe *p, char **why)
{
	struct buf txt = BUF_INIT;
	const char *l = text, *end = text + len, *nl;
	char *arg = NULL, name[32];
	enum probe_sec cur = SEC_NONE;
	int seen[SEC_COUNT] = { 0 }, lineno = 0, r = WK_ERR_PARSE;
	size_t i, n;

	memset(p, 0, sizeof(*p));
	p->tmux = -1;
	p->disk_used_pct = p->inode_used_pct = -1;
	p->disk_avail_kb = p->mem_current = p->mem_max = p->transfer_bytes = -1;
	p->oom_kills = p->transfer_files = -1;
	p->events_size = p->events_from = -1;
	p->tail_progress = p->tail_progress_max = -1;
	*why = NULL;
	if (memchr(text, '\0', len) != NULL) {
		*why = xstrdup("garbled: a NUL byte in the probe output");
		goto out;
	}
	while (l < end) {
		lineno++;
		nl = memchr(l, '\n', (size_t)(end - l));
		if (nl == NULL) {
			*why = xstrfmt("truncated: line %d has no end", lineno);
			goto out;
		}
		n = (size_t)(nl - l);
		if (cur == SEC_END) {
			*why = xstrfmt("garbled: data after @end (line %d)", lineno);
			goto out;
		}
		if (n > 0 && l[0] == '|') {
			if (cur == SEC_NONE || cur == SEC_PROBE) {
				*why = xstrfmt("garbled: data outside a section (line %d)", lineno);
				goto out;
			}
			buf_append(&txt, l + 1, n - 1);
			buf_putc(&txt, '\n');
		} else if (n > 0 && l[0] == '@') {
			const char *sp = memchr(l, ' ', n);
			size_t nlen = sp != NULL ? (size_t)(sp - l) - 1 : n - 1;

			if (cur != SEC_NONE && (r = probe_store(p, cur, arg, &txt, why)) != 0)
				goto out;
			r = WK_ERR_PARSE;
			buf_reset(&txt);
			free(arg);
			arg = sp != NULL ? xstrndup(sp + 1, (size_t)(l + n - sp - 1)) : NULL;
			for (i = 0; i < sizeof(probe_sections) / sizeof(probe_sections[0]); i++)
				if (strlen(probe_sections[i].name) == nlen &&
				    strncmp(probe_sections[i].name, l + 1, nlen) == 0)
					break;
			if (i == sizeof(probe_sections) / sizeof(probe_sections[0]) ||
			    (probe_sections[i].arg && arg == NULL) || (!probe_sections[i].arg && arg != NULL)) {
				snprintf(name, sizeof(name), "%.*s", (int)(nlen < 20 ? nlen : 20), l + 1);
				*why = xstrfmt("garbled: unknown section \"@%s\" (line %d)", name, lineno);
				goto out;
			}
			cur = probe_sections[i].sec;
			if (seen[cur] && (cur != SEC_FAILED && cur != SEC_LOG && cur != SEC_HISTORY)) {
				*why = xstrfmt("garbled: section @%s twice (line %d)", probe_sections[i].name, lineno);
				goto out;
			}
			if (!seen[SEC_PROBE] && cur != SEC_PROBE) {
				*why = xstrdup("garbled: does not start with @probe");
				goto out;
			}
			seen[cur] = 1;
			if (cur == SEC_PROBE) {
				int ver;
				long long t;

				if (sscanf(arg, "%d %lld", &ver, &t) != 2 || ver != PROBE_VERSION) {
					*why = xstrfmt("garbled: probe header \"%s\" (want version %d)", arg, PROBE_VERSION);
					goto out;
				}
				p->box_time = (time_t)t;
			}
		} else {
			*why = xstrfmt("garbled: line %d is neither a section nor data", lineno);
			goto out;
		}
		l = nl + 1;
	}
	for (i = 0; i < sizeof(probe_sections) / sizeof(probe_sections[0]); i++) {
		if (probe_sections[i].required && !seen[probe_sections[i].sec]) {
			*why = xstrfmt("%s: missing section @%s",
			    seen[SEC_END] ? "garbled" : "truncated", probe_sections[i].name);
			goto out;
		}
	}
	if (cfg != NULL) {
		probe_read_slurm(cfg, p);
		probe_read_ckpt(cfg, p);
		probe_read_progress(cfg, p);
		probe_read_triage(cfg, p);
	}
	r = 0;
 out:
	if (r != 0)
		probe_free(p);
	free(arg);
	buf_free(&txt);
	return r;
}

int
probe_has_marker(const struct probe *p, const char *marker)
{
	size_t i;

	for (i = 0; i < p->nmarkers; i++)
		if (strcmp(p->markers[i], marker) == 0)
			return 1;
	return 0;
}

const cJSON *
probe_failed(const struct probe *p, const char *marker)
{
	size_t i;

	for (i = 0; i < p->nfailed; i++)
		if (strcmp(p->failed[i].marker, marker) == 0)
			return p->failed[i].doc;
	return NULL;
}

const cJSON *
probe_history(const struct probe *p, const char *stage)
{
	size_t i;

	for (i = 0; i < p->nhist; i++)
		if (strcmp(p->hist[i].stage, stage) == 0)
			return p->hist[i].doc;
	return NULL;
}

const struct probe_log *
probe_log(const struct probe *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nlogs; i++)
		if (strcmp(p->logs[i].name, name) == 0)
			return &p->logs[i];
	return NULL;
}
