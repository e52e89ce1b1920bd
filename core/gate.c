/*
 * gate.c: the launch gate: the facts script, its parser, the judgement and
 * the contract's text (gate.h says what and why).
 *
 * The script prints one fact per line, in this order, then "end":
 *   git <sha> | gitno <why>        the workdir's HEAD, or why there is none
 *   dirty <n> | dirty ?            tracked files that differ from HEAD
 *   df <porcelain line>            the first GATE_DIRTY_SHOWN of them
 *   dsha <sha256>                  of `git diff HEAD --binary` (when dirty)
 *   out dir|new|notdir P|nowrite P|no P     output_root
 *   init missing|nometa|ok <bytes> initialize_from, then "m <line>" for the
 *                                  metadata's first GATE_META_MAX bytes
 *   wbrun <dir name>               a W&B run directory of wandb.id already there
 *   ckpt                           then ckpt_probe_fragment's lines, up to
 *                                  its last line ". ok|truncated|missing"
 * A line the parser does not know is an error: the two ends are one build.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "ckpt.h"
#include "err.h"
#include "fsutil.h"
#include "gate.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "pattern.h"
#include "shword.h"
#include "spawn.h"
#include "xmalloc.h"

#define GATE_OUT_CAP	(2u << 20)

/* Parts of a word's name that mark its value a secret (gate_scrub_command). */
static const char *const gate_secret_words[] = {
	"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS",
	"AUTH", "PAT",
};

static char *
gate_path(const struct wk_config *cfg, const char *key)
{
	const char *v = config_get_str(cfg, key);
	char *j, *abs;

	if (v == NULL || *v == '\0')
		return NULL;
	j = fs_join(cfg->workdir, v);
	abs = fs_abspath(j);
	free(j);
	return abs;
}

char *
gate_output_root(const struct wk_config *cfg)
{
	return gate_path(cfg, "output_root");
}

char *
gate_init_path(const struct wk_config *cfg)
{
	return gate_path(cfg, "initialize_from");
}

/* The metadata file that marks a checkpoint complete. */
static const char *
gate_meta_name(const struct wk_config *cfg)
{
	const char *c = ckpt_configured(cfg) ? config_get_str(cfg, "checkpoints.complete_file") : NULL;

	return c != NULL && *c != '\0' ? c : "metadata.json";
}

/* ---- the script ---- */

char *
gate_script(const struct wk_config *cfg)
{
	struct buf b = BUF_INIT;
	char *out = gate_output_root(cfg), *init = gate_init_path(cfg), *frag;

	buf_puts(&b, "# watchkeeper launch gate facts: read-only\nLC_ALL=C; export LC_ALL\n");
	shword_assign(&b, "W", cfg->workdir);
	shword_assign(&b, "O", out != NULL ? out : "");
	shword_assign(&b, "I", init != NULL ? init : "");
	shword_assign(&b, "M", gate_meta_name(cfg));
	{
		const char *id = config_get_str(cfg, "wandb.id");
		char *j = fs_join(cfg->workdir, config_get_str(cfg, "wandb.dir")), *wd = fs_abspath(j);

		shword_assign(&b, "WB", cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(cfg->root,
		    "wandb")) && id != NULL ? wd : "");
		shword_assign(&b, "WID", id != NULL ? id : "");
		free(wd);
		free(j);
	}
	buf_puts(&b,
	    "if ! command -v git >/dev/null 2>&1; then echo 'gitno git is not installed'\n"
	    "elif s=$(git -C \"$W\" rev-parse --verify -q HEAD 2>&1); then\n"
	    "  echo \"git $s\"\n"
	    "  if st=$(git -C \"$W\" status --porcelain --untracked-files=no 2>/dev/null); then\n"
	    "    if [ -z \"$st\" ]; then echo 'dirty 0'; else\n"
	    "      n=$(printf '%s\\n' \"$st\" | wc -l); echo \"dirty $((n + 0))\"\n"
	    "      printf '%s\\n' \"$st\" | sed -n '1," "20" "s/^/df /p'\n"
	    "      if command -v sha256sum >/dev/null 2>&1; then\n"
	    "        echo \"dsha $(git -C \"$W\" diff HEAD --binary 2>/dev/null | sha256sum | cut -c1-64)\"\n"
	    "      fi\n"
	    "    fi\n"
	    "  else echo 'dirty ?'; fi\n"
	    "else\n"
	    "  s=$(printf '%s\\n' \"$s\" | sed -n '1p'); echo \"gitno ${s:-no commit (git rev-parse HEAD failed)}\"\n"
	    "fi\n"
	    "if [ -n \"$O\" ]; then\n"
	    "  if [ -d \"$O\" ]; then if [ -w \"$O\" ]; then echo 'out dir'; else echo \"out nowrite $O\"; fi\n"
	    "  elif [ -e \"$O\" ]; then echo \"out notdir $O\"\n"
	    "  else d=$O\n"
	    "    while [ ! -e \"$d\" ]; do n=${d%/*}; [ -n \"$n\" ] || n=/; [ \"$n\" = \"$d\" ] && break; d=$n; done\n"
	    "    if [ -d \"$d\" ] && [ -w \"$d\" ]; then echo 'out new'; else echo \"out no $d\"; fi\n"
	    "  fi\n"
	    "fi\n"
	    "if [ -n \"$WB\" ] && [ -d \"$WB\" ]; then\n"
	    "  for d in \"$WB\"/run-*-\"$WID\" \"$WB\"/offline-run-*-\"$WID\"; do\n"
	    "    if [ -d \"$d\" ]; then echo \"wbrun ${d##*/}\"; fi\n"
	    "  done\n"
	    "fi\n"
	    "if [ -n \"$I\" ]; then\n"
	    "  if [ ! -e \"$I\" ]; then echo 'init missing'\n"
	    "  else\n"
	    "    if [ -d \"$I\" ]; then m=$I/$M; else m=$I.$M; fi\n"
	    "    if [ -f \"$m\" ]; then\n"
	    "      echo \"init ok $(wc -c <\"$m\" | tr -d ' ')\"\n"
	    "      dd if=\"$m\" bs=" "65536" " count=1 2>/dev/null | sed 's/^/m /'; echo\n"
	    "    else echo 'init nometa'; fi\n"
	    "  fi\n"
	    "fi\n");
	if ((frag = ckpt_probe_fragment(cfg)) != NULL) {
		buf_printf(&b, "echo ckpt\n%s\n", frag);
		free(frag);
	}
	buf_puts(&b, "echo end\n");
	free(out);
	free(init);
	return buf_detach(&b);
}

/* ---- parsing ---- */

void
gate_facts_free(struct gate_facts *f)
{
	free(f->git_sha);
	free(f->git_why);
	free(f->dirty_files);
	free(f->diff_sha);
	free(f->out_block);
	free(f->meta);
	free(f->wb_runs);
	ckpt_scan_free(f->ckpt);
	free(f->ckpt_why);
	memset(f, 0, sizeof(*f));
}

static int
gate_hex64(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return s[64] == '\0';
}

/* One fact line (without its '\n'); 0, or -1 when it is not one. */
static int
gate_line(struct gate_facts *f, char *line, struct buf *files, struct buf *meta)
{
	static const struct { const char *word; enum gate_out out; } outs[] = {
		{ "dir", GATE_OUT_DIR }, { "new", GATE_OUT_NEW }, { "notdir ", GATE_OUT_NOTDIR },
		{ "nowrite ", GATE_OUT_NOWRITE }, { "no ", GATE_OUT_BLOCKED },
	};
	char *v = strchr(line, ' '), *end;
	size_t i, n;

	if (v != NULL)
		*v++ = '\0';
	if (strcmp(line, "m") == 0) {
		buf_puts(meta, v != NULL ? v : "");
		buf_putc(meta, '\n');
		return 0;
	}
	if (v == NULL)
		return -1;
	if (strcmp(line, "git") == 0 && strlen(v) >= 7 && f->git_sha == NULL) {
		f->git = 1;
		f->git_sha = xstrdup(v);
	} else if (strcmp(line, "gitno") == 0)
		f->git_why = xstrdup(v);
	else if (strcmp(line, "dirty") == 0) {
		f->dirty = strtol(v, &end, 10);
		if (strcmp(v, "?") == 0)
			f->dirty = -1;
		else if (end == v || *end != '\0' || f->dirty < 0)
			return -1;
	} else if (strcmp(line, "wbrun") == 0) {
		size_t k = f->wb_runs != NULL ? strlen(f->wb_runs) : 0;

		f->wb_runs = xreallocarray(f->wb_runs, k + strlen(v) + 2, 1);
		snprintf(f->wb_runs + k, strlen(v) + 2, "%s\n", v);
	} else if (strcmp(line, "df") == 0) {
		buf_puts(files, v);
		buf_putc(files, '\n');
	} else if (strcmp(line, "dsha") == 0) {
		if (gate_hex64(v))	/* a sha256sum that printed nothing: unknown */
			f->diff_sha = xstrdup(v);
	} else if (strcmp(line, "out") == 0) {
		for (i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
			n = strlen(outs[i].word);
			if (outs[i].word[n - 1] == ' ' ? strncmp(v, outs[i].word, n) == 0 :
			    strcmp(v, outs[i].word) == 0)
				break;
		}
		if (i == sizeof(outs) / sizeof(outs[0]))
			return -1;
		f->out = outs[i].out;
		if (outs[i].word[n - 1] == ' ')
			f->out_block = xstrdup(v + n);
	} else if (strcmp(line, "init") == 0) {
		if (strcmp(v, "missing") == 0)
			f->init = GATE_INIT_MISSING;
		else if (strcmp(v, "nometa") == 0)
			f->init = GATE_INIT_NOMETA;
		else if (strncmp(v, "ok ", 3) == 0) {
			f->init = GATE_INIT_OK;
			f->meta_size = strtoll(v + 3, &end, 10);
			if (end == v + 3 || *end != '\0')
				return -1;
		} else
			return -1;
	} else
		return -1;
	return 0;
}

int
gate_parse(const struct wk_config *cfg, const char *out, size_t len, struct gate_facts *f,
    char **why)
{
	struct buf files = BUF_INIT, meta = BUF_INIT, ck = BUF_INIT;
	char *text = xstrndup(out, len), *line, *nl;
	int r = WK_ERR_PARSE, inck = 0, end = 0;
	long lineno = 0;

	memset(f, 0, sizeof(*f));
	f->dirty = -1;
	*why = NULL;
	for (line = text; *line != '\0' && !end; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		else
			nl = line + strlen(line);
		lineno++;
		if (inck) {
			buf_puts(&ck, line);
			buf_putc(&ck, '\n');
			inck = !(line[0] == '.' && line[1] == ' ');
		} else if (strcmp(line, "ckpt") == 0)
			inck = 1;
		else if (strcmp(line, "end") == 0)
			end = 1;
		else if (*line != '\0' && gate_line(f, line, &files, &meta) != 0) {
			*why = xstrfmt("launch gate facts line %ld: not understood: %.200s", lineno, line);
			goto out;
		}
	}
	if (!end || inck) {
		*why = xstrdup("the launch gate's facts script did not finish (no \"end\" line)");
		goto out;
	}
	if (files.len > 0)
		f->dirty_files = buf_detach(&files);
	if (f->init == GATE_INIT_OK)
		f->meta = buf_detach(&meta);
	if (ck.len > 0 && ckpt_parse_listing(cfg, ck.data, ck.len, &f->ckpt, &f->ckpt_why) != 0)
		f->ckpt = NULL;
	r = 0;
 out:
	if (r != 0)
		gate_facts_free(f);
	buf_free(&files);
	buf_free(&meta);
	buf_free(&ck);
	free(text);
	return r;
}

/* ---- scrubbing ---- */

static int
gate_secret_name(const char *name, size_t n)
{
	size_t i, k, e;

	/* By whole components between '-', '_' and '.': HF_TOKEN, api-key; not tokenizer. */
	for (k = 0; k < n; k = e + 1) {
		for (e = k; e < n && strchr("-_.", name[e]) == NULL; e++)
			;
		for (i = 0; i < sizeof(gate_secret_words) / sizeof(gate_secret_words[0]); i++)
			if (e - k == strlen(gate_secret_words[i]) &&
			    strncasecmp(name + k, gate_secret_words[i], e - k) == 0)
				return 1;
	}
	return 0;
}

char *
gate_scrub_command(const char *cmd)
{
	struct buf b = BUF_INIT;
	const char *p = cmd, *w, *eq;
	size_t n;
	int mask_next = 0;

	while (*p != '\0') {
		if (isspace((unsigned char)*p)) {
			buf_putc(&b, *p++);
			continue;
		}
		for (w = p; *p != '\0' && !isspace((unsigned char)*p); p++)
			;
		n = (size_t)(p - w);
		eq = memchr(w, '=', n);
		if (mask_next) {
			buf_puts(&b, "***");
			mask_next = 0;
		} else if (n > 2 && w[0] == '-' && w[1] == '-' &&
		    gate_secret_name(w + 2, (eq != NULL ? (size_t)(eq - w) : n) - 2)) {
			if (eq != NULL) {
				buf_append(&b, w, (size_t)(eq - w) + 1);
				buf_puts(&b, "***");
			} else {
				buf_append(&b, w, n);
				mask_next = 1;
			}
		} else if (eq != NULL && eq > w && w[0] != '-' && gate_secret_name(w, (size_t)(eq - w))) {
			buf_append(&b, w, (size_t)(eq - w) + 1);
			buf_puts(&b, "***");
		} else
			buf_append(&b, w, n);
	}
	return buf_detach(&b);
}

/* ---- judging ---- */

void
gate_result_free(struct gate_result *res)
{
	buf_free(&res->text);
	free(res->approve_sha);
	cJSON_Delete(res->json);
	memset(res, 0, sizeof(*res));
}

static void
gate_refuse(struct gate_result *res, cJSON *arr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
gate_refuse(struct gate_result *res, cJSON *arr, const char *fmt, ...)
{
	va_list ap;
	struct buf b = BUF_INIT;
	char *s;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	s = buf_detach(&b);
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
	res->refused++;
	free(s);
}

/* The step a checkpoint's metadata names: "step", "global_step" or "iteration". */
static long long
gate_meta_step(const cJSON *meta, const char **key)
{
	static const char *const keys[] = { "step", "global_step", "iteration" };
	const cJSON *v;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = cJSON_GetObjectItemCaseSensitive(meta, keys[i]);
		if (cJSON_IsNumber(v) && v->valuedouble >= 0) {
			*key = keys[i];
			return (long long)v->valuedouble;
		}
	}
	return -1;
}

/* The step group 1 of checkpoints.pattern finds in name, or -1. */
static long long
gate_name_step(const struct wk_config *cfg, const char *name)
{
	const char *pat = ckpt_configured(cfg) ? config_get_str(cfg, "checkpoints.pattern") : NULL;
	struct pattern *re = NULL;
	char *g = NULL, *end;
	long long step = -1;

	struct pattern_span sp[2];

	if (pat == NULL || pattern_compile(pat, &re, NULL, 0) != 0)
		return -1;
	if (pattern_match_groups(re, name, strlen(name), sp, 2) == 1 && sp[1].start >= 0 &&
	    sp[1].end > sp[1].start) {
		g = xstrndup(name + sp[1].start, (size_t)(sp[1].end - sp[1].start));
		step = strtoll(g, &end, 10);
		if (*end != '\0' || !isdigit((unsigned char)g[0]))
			step = -1;
	}
	free(g);
	pattern_free(re);
	return step;
}

static void
gate_code(const struct wk_config *cfg, const struct gate_facts *f, const struct gate_opts *o,
    struct gate_result *res, cJSON *refusals)
{
	int strict = config_get_bool(cfg, "hero") || config_get_bool(cfg, "refuse_dirty");
	int dirty = !f->git || f->dirty != 0;
	cJSON *g = cJSON_AddObjectToObject(res->json, "git");
	const char *sha = f->diff_sha;

	if (f->git) {
		json_set_str(g, "sha", f->git_sha);
		json_set_bool(g, "dirty", f->dirty != 0);
		buf_printf(&res->text, "  code:            git %s in %s", f->git_sha, cfg->workdir);
		if (f->dirty == 0)
			buf_puts(&res->text, " (clean)\n");
		else if (f->dirty < 0)
			buf_puts(&res->text, " (its state could not be read: counted dirty)\n");
		else
			buf_printf(&res->text, " + uncommitted changes to %ld tracked file%s (diff "
			    "sha256 %s)\n", f->dirty, f->dirty == 1 ? "" : "s", sha != NULL ? sha :
			    "unknown: no sha256sum on the box");
	} else {
		json_set_str(g, "none", f->git_why != NULL ? f->git_why : "unknown");
		buf_printf(&res->text, "  code:            not pinned: %s is no git work tree (%s)\n",
		    cfg->workdir, f->git_why != NULL ? f->git_why : "unknown");
	}
	if (sha != NULL)
		json_set_str(g, "diff_sha256", sha);
	if (f->dirty > 0 && f->dirty_files != NULL) {
		const char *l, *e;

		for (l = f->dirty_files; *l != '\0'; l = *e != '\0' ? e + 1 : e) {
			e = strchr(l, '\n');
			if (e == NULL)
				e = l + strlen(l);
			buf_printf(&res->text, "                     %.*s\n", (int)(e - l), l);
		}
		if (f->dirty > GATE_DIRTY_SHOWN)
			buf_printf(&res->text, "                     ... and %ld more\n",
			    f->dirty - GATE_DIRTY_SHOWN);
	}
	if (!dirty || !strict)
		return;
	if (o->allow_dirty) {
		res->dirty_allowed = 1;
		res->approve_sha = xstrdup(sha != NULL ? sha : f->git ? "unknown" : "no-git");
		json_set_str(g, "allowed", "--allow-dirty");
		buf_printf(&res->text, "                   launched anyway: --allow-dirty (recorded, "
		    "with the diff's sha256)\n");
	} else if (o->approved != NULL && (sha != NULL || !f->git) &&
	    strcmp(o->approved, sha != NULL ? sha : "no-git") == 0) {
		res->dirty_allowed = 1;
		json_set_str(g, "allowed", "approved before");
		buf_printf(&res->text, "                   the same diff was approved with "
		    "--allow-dirty before\n");
	} else if (!f->git)
		gate_refuse(res, refusals, "the code is not pinned: %s is no git work tree (%s); a "
		    "%s run launches only pinned code: commit it to git there, or launch with "
		    "--allow-dirty (recorded)", cfg->workdir, f->git_why != NULL ? f->git_why : "?",
		    config_get_bool(cfg, "hero") ? "hero" : "refuse_dirty");
	else {
		char n[32] = "its";

		if (f->dirty > 0)
			snprintf(n, sizeof(n), "%ld", f->dirty);
		gate_refuse(res, refusals, "the code in %s has uncommitted changes to %s tracked "
		    "file%s%s; commit them (or stash them), or launch with --allow-dirty (the diff's "
		    "sha256 is recorded in the logbook)", cfg->workdir, n, f->dirty == 1 ? "" : "s",
		    o->approved != NULL ? " (not the diff approved before)" : "");
	}
}

static void
gate_paths(const struct wk_config *cfg, const struct gate_facts *f, struct gate_result *res,
    cJSON *refusals)
{
	static const char *const outs[] = {
		[GATE_OUT_DIR] = "exists", [GATE_OUT_NEW] = "does not exist yet: it can be created",
		[GATE_OUT_BLOCKED] = "cannot be created", [GATE_OUT_NOTDIR] = "is not a directory",
		[GATE_OUT_NOWRITE] = "cannot be written",
	};
	char *out = gate_output_root(cfg), *init = gate_init_path(cfg);
	cJSON *meta = NULL, *o;
	const char *key = NULL;
	long long step;

	if (out == NULL)
		buf_puts(&res->text, "  output_root:     not pinned (output_root unset)\n");
	else {
		json_set_str(res->json, "output_root", out);
		buf_printf(&res->text, "  output_root:     %s (%s)\n", out,
		    f->out != GATE_OUT_NONE ? outs[f->out] : "not checked");
		if (f->out == GATE_OUT_BLOCKED)
			gate_refuse(res, refusals, "output_root %s cannot be created: %s is not a "
			    "directory this user can write; pick another, or create it first", out,
			    f->out_block != NULL ? f->out_block : "its parent");
		else if (f->out >= GATE_OUT_NOTDIR)
			gate_refuse(res, refusals, "output_root %s %s: pick a directory this user "
			    "can write", out, outs[f->out]);
	}
	if (init == NULL)
		goto out;
	o = cJSON_AddObjectToObject(res->json, "initialize_from");
	json_set_str(o, "path", init);
	if (f->init == GATE_INIT_MISSING || f->init == GATE_INIT_NONE) {
		buf_printf(&res->text, "  initialize_from: %s (does not exist)\n", init);
		gate_refuse(res, refusals, "initialize_from %s does not exist on the box", init);
		goto out;
	}
	if (f->init == GATE_INIT_NOMETA) {
		buf_printf(&res->text, "  initialize_from: %s (no %s)\n", init, gate_meta_name(cfg));
		gate_refuse(res, refusals, "initialize_from %s has no %s: a checkpoint without its "
		    "metadata may be partial or of another run; name a complete checkpoint", init,
		    gate_meta_name(cfg));
		goto out;
	}
	if (f->meta_size > GATE_META_MAX || (meta = cJSON_Parse(f->meta)) == NULL ||
	    !cJSON_IsObject(meta)) {
		buf_printf(&res->text, "  initialize_from: %s (%s is not a JSON object%s)\n", init,
		    gate_meta_name(cfg), f->meta_size > GATE_META_MAX ? ": over 64 KiB" : "");
		gate_refuse(res, refusals, "initialize_from %s: its %s is not a JSON object: "
		    "the checkpoint's metadata cannot be read", init, gate_meta_name(cfg));
		goto out;
	}
	if ((step = gate_meta_step(meta, &key)) >= 0)
		buf_printf(&res->text, "  initialize_from: %s (step %lld from %s \"%s\")\n", init,
		    step, gate_meta_name(cfg), key);
	else if ((step = gate_name_step(cfg, strrchr(init, '/') + 1)) >= 0)
		buf_printf(&res->text, "  initialize_from: %s (step %lld, inferred from its name; "
		    "%s names none)\n", init, step, gate_meta_name(cfg));
	else
		buf_printf(&res->text, "  initialize_from: %s (%s present; step unknown)\n", init,
		    gate_meta_name(cfg));
	if (step >= 0)
		json_set_num(o, "step", (double)step);
	json_set(o, "metadata", meta);	/* transferred */
	meta = NULL;
 out:
	cJSON_Delete(meta);
	free(out);
	free(init);
}

static void
gate_ckpt(const struct wk_config *cfg, const struct gate_facts *f, struct gate_result *res)
{
	struct ckpt_summary sum;
	char *line;
	cJSON *c;

	if (!ckpt_configured(cfg)) {
		buf_puts(&res->text, "  checkpoints:     none configured (no resume point is tracked)\n");
		return;
	}
	buf_printf(&res->text, "  checkpoints:     %s, complete when they hold %s; none complete: "
	    "%s%s\n", config_get_str(cfg, "checkpoints.dir"), gate_meta_name(cfg),
	    strcmp(config_get_str(cfg, "checkpoints.fallback"), "stop") == 0 ? "stop" : "start fresh",
	    config_get_bool(cfg, "hero") ? " (a hero relaunch: stop and escalate)" : "");
	if (f->ckpt == NULL) {
		buf_printf(&res->text, "                   not read: %s\n",
		    f->ckpt_why != NULL ? f->ckpt_why : "no listing");
		return;
	}
	ckpt_summarize(f->ckpt, 0, &sum);
	sum.age_s = -1;
	line = ckpt_summary_text(&sum);
	buf_printf(&res->text, "                   %s\n", line);
	free(line);
	c = cJSON_AddObjectToObject(res->json, "checkpoint");
	if (f->ckpt->newest != NULL) {
		json_set_str(c, "path", f->ckpt->newest->path);
		json_set_num(c, "step", (double)f->ckpt->newest->step);
		buf_printf(&res->text, "                   {checkpoint} now: %s (step %lld)\n",
		    f->ckpt->newest->path, f->ckpt->newest->step);
	}
	{
		size_t i, nrej = 0;

		for (i = 0; i < f->ckpt->nentries; i++)
			nrej += f->ckpt->entries[i].rejected;
		if (nrej > 0)
			buf_printf(&res->text, "                   %zu entr%s of a rejected lineage "
			    "(checkpoints.reject): never resumed from\n", nrej, nrej == 1 ? "y" : "ies");
	}
}

int
gate_judge(const struct wk_config *cfg, const struct gate_facts *f,
    const struct gate_opts *o, struct gate_result *res)
{
	const char *id = config_get_str(cfg, "wandb.id"), *name = config_get_str(cfg, "wandb.name");
	cJSON *refusals, *w;
	size_t i;
	char *c;

	memset(res, 0, sizeof(*res));
	res->json = cJSON_CreateObject();
	refusals = cJSON_AddArrayToObject(res->json, "refusals");
	buf_printf(&res->text, "launch contract of run %s%s\n", cfg->run,
	    config_get_bool(cfg, "hero") ? " (a hero run)" : "");
	for (i = 0; i < cfg->nchain; i++) {
		const struct wk_stage *st = &cfg->chain[i];
		const char *cmd = st->run != NULL ? st->run : st->resubmit != NULL ? st->resubmit :
		    st->adopt;

		if (cmd == NULL) {
			buf_printf(&res->text, "  stage %s: waits (no command)\n", st->name);
			continue;
		}
		c = gate_scrub_command(cmd);
		buf_printf(&res->text, "  stage %s: %s%s\n", st->name, st->run == NULL &&
		    st->resubmit == NULL ? "adopts job " : "", c);
		free(c);
	}
	gate_code(cfg, f, o, res, refusals);
	gate_paths(cfg, f, res, refusals);
	if (cfg->has_progress && cfg->progress.max > 0) {
		buf_printf(&res->text, "  final step:      %ld (progress.max)\n", cfg->progress.max);
		json_set_num(res->json, "final_step", (double)cfg->progress.max);
	} else if (cfg->has_progress)
		buf_puts(&res->text, "  final step:      inferred: the total the progress bar prints "
		    "(progress.max unset)\n");
	else
		buf_puts(&res->text, "  final step:      unknown (no progress section)\n");
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(cfg->root, "wandb"))) {
		w = cJSON_AddObjectToObject(res->json, "wandb");
		if (id != NULL)
			json_set_str(w, "id", id);
		if (name != NULL)
			json_set_str(w, "name", name);
		json_set_str(w, "resume", config_get_str(cfg, "wandb.resume"));
		buf_printf(&res->text, "  W&B:             id %s, name %s, resume %s\n",
		    id != NULL ? id : "not pinned (wandb.id unset)", name != NULL ? name : "unset",
		    config_get_str(cfg, "wandb.resume"));
		if (f->wb_runs != NULL) {
			int never = strcmp(config_get_str(cfg, "wandb.resume"), "never") == 0;

			buf_printf(&res->text, "                   the box has run %s of it already (%.*s): "
			    "%s\n", id, (int)strcspn(f->wb_runs, "\n"), f->wb_runs, never ?
			    "wandb.resume never refuses it" : "this launch resumes it");
			json_set_bool(w, "exists", 1);
			if (never)
				gate_refuse(res, refusals, "wandb.resume is never but the box has W&B run %s "
				    "already (%.*s): wandb.init would refuse it; a new lineage needs a new "
				    "wandb.id, a resume \"allow\"", id, (int)strcspn(f->wb_runs, "\n"),
				    f->wb_runs);
		}
	} else
		buf_puts(&res->text, "  W&B:             not configured (no wandb section)\n");
	gate_ckpt(cfg, f, res);
	if (cfg->dri != NULL) {
		buf_printf(&res->text, "  DRI:             %s\n", cfg->dri);
		json_set_str(res->json, "dri", cfg->dri);
	} else if (o->who != NULL) {
		buf_printf(&res->text, "  DRI:             %s (inferred: the login user; set \"dri\")\n",
		    o->who);
		json_set_str(res->json, "dri_inferred", o->who);
	} else
		buf_puts(&res->text, "  DRI:             not named (set \"dri\")\n");
	{
		const cJSON *it;

		cJSON_ArrayForEach(it, refusals)
			buf_printf(&res->text, "REFUSED: %s\n", it->valuestring);
	}
	json_set_bool(res->json, "passed", res->refused == 0);
	return res->refused;
}

/* ---- on the box ---- */

static char *
gate_approved(const struct wk_config *cfg)
{
	char *p = layout_path(cfg->workdir, GATE_FILE), *sha = NULL;
	cJSON *doc = NULL;

	if (jsonfile_load(p, &doc) == 0 && json_str(doc, "approved_diff_sha256", NULL) != NULL)
		sha = xstrdup(json_str(doc, "approved_diff_sha256", ""));
	cJSON_Delete(doc);
	free(p);
	return sha;
}

int
gate_local(const struct wk_config *cfg, int allow_dirty, struct gate_result *res)
{
	char *script = gate_script(cfg), *out = NULL, *why = NULL, *approved = gate_approved(cfg);
	const char *tmp = getenv("TMPDIR");
	char hex[17], *file, *argv[3];
	struct gate_facts f;
	struct gate_opts o;
	int status, r;

	memset(res, 0, sizeof(*res));
	memset(&f, 0, sizeof(f));
	/*
	 * The script from a file of its own, not `sh -c`: a config's values are in
	 * it, and one long enough would pass an argument's bound (E2BIG).
	 */
	fs_random_hex(hex, 8);
	file = xstrfmt("%s/watchkeeper-gate.%s.sh", tmp != NULL && tmp[0] == '/' ? tmp : "/tmp", hex);
	argv[0] = "/bin/sh";
	argv[1] = file;
	argv[2] = NULL;
	if ((r = atomic_write(file, script, strlen(script), 0600)) == 0) {
		r = spawn_capture(argv, GATE_OUT_CAP, 0, &status, &out);
		(void)unlink(file);
	}
	free(file);
	if (r != 0) {
		log_error("launch gate: cannot run its facts script: %s", wk_strerror(r));
		goto out;
	}
	if ((r = gate_parse(cfg, out, strlen(out), &f, &why)) != 0) {
		log_error("launch gate: %s", why);
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.allow_dirty = allow_dirty;
	o.approved = approved;
	o.who = getenv("LOGNAME") != NULL ? getenv("LOGNAME") : getenv("USER");
	gate_judge(cfg, &f, &o, res);
	if (res->refused == 0 && allow_dirty && res->approve_sha != NULL) {
		char *p = layout_path(cfg->workdir, GATE_FILE);
		cJSON *doc = cJSON_CreateObject();

		json_set_str(doc, "approved_diff_sha256", res->approve_sha);
		if (layout_create(cfg->workdir, &why) != 0 || jsonfile_save(p, doc) != 0)
			log_warn("cannot keep the approved diff in %s: %s (the next launch asks "
			    "again)", p, wk_strerror(WK_ERR_SYSTEM));
		cJSON_Delete(doc);
		free(p);
	}
 out:
	gate_facts_free(&f);
	free(script);
	free(out);
	free(why);
	free(approved);
	return r;
}
