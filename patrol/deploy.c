/*
 * deploy.c: `patrol deploy`: put the run on the box and start layer 1.
 *
 * Over ONE connection, in this order, so that nothing lands on the box
 * before every check that can refuse has passed:
 *   1. the probe: refuse when anything of the run is alive (a deploy must
 *      never double-launch);
 *   2. one read-only facts script (POSIX sh, run with `sh -s`): the box's
 *      `uname -m`, the first line of `onbox --version` of the deployed
 *      .watchkeeper/bin/onbox and of the one on the PATH, the sha256 of the
 *      box's copies of the config, profile and onbox, tmux on the PATH,
 *      and whether the workdir and the config's directory can be created;
 *   2b. the launch gate (core/gate.c): its read-only facts script runs in
 *      the same `sh -s` as step 2's (after a "@gate" line); the contract is
 *      printed and judged; a refusal stops here (--check stops here always);
 *   3. the choice of onbox (--onbox; else an onbox of THIS version already
 *      on the box; else the portable build for the box's arch, found as
 *      the README's "patrol deploy" says) and the refusals (unknown arch with no build, an
 *      onbox of another version with no build, workdir not creatable);
 *   4. mkdir, then each file sent only when its checksum differs from the
 *      box's copy (onbox to bin/onbox.new, checked with --version there,
 *      then renamed over bin/onbox);
 *   5. `onbox start`, and what deploy learned about the box is kept in
 *      patrol.json ("deploy", for the handbook).
 * Every remote command is a script fed to `sh -s`, so the login shell only
 * ever parses those two words (dash, bash, even csh do).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/evp.h>

#include "buf.h"
#include "config.h"
#include "decide.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "gate.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "remote.h"
#include "patrol.h"
#include "probe.h"
#include "ssh.h"
#include "sshq.h"
#include "target.h"
#include "xmalloc.h"

#define DEPLOY_BUDGET_S	120
#define DEPLOY_FILE_MAX	(64u << 20)
#define DEPLOY_OUT_MAX	(1u << 20)

/* The files deploy keeps in step with the box, in the order they are sent. */
enum deploy_file { DF_ONBOX, DF_CONFIG, DF_PROFILE, DF_COUNT };
static const char *const deploy_file_name[DF_COUNT] = { "onbox", "config", "profile" };

/* The architectures `make onbox-portable` builds (README: patrol deploy). */
static const char *const deploy_arches[] = { "x86_64", "aarch64" };

struct deploy {
	const struct wk_config	*cfg;
	struct ssh_conn		*conn;
	struct ssh_error	 err;
	char			*remote[DF_COUNT];	/* each file's path on the box; NULL: none */
	char			*local[DF_COUNT];	/* the local file to send; NULL: nothing to send */

	/* What the facts script said. */
	char			*arch;		/* `uname -m`, arm64 read as aarch64 */
	char			*binver;	/* bin/onbox --version line 1; NULL: no such file */
	char			*pathonbox;	/* `command -v onbox`; NULL: none */
	char			*pathver;
	char			*boxsha[DF_COUNT];	/* the box's copies; NULL: none or no sha256sum */
	int			 tmux;		/* tmux on the box's PATH */
	char			*notdir[2];	/* workdir, config dir: the directory that blocks, or NULL */
	char			*gate;		/* the launch gate's facts (after "@gate"), or NULL */

	/* What deploy chose and found. */
	const char		*source;	/* "uploaded", "--onbox", "box" */
	char			*onbox;		/* the onbox that runs the run, on the box */
	char			*version;	/* its --version, line 1 */
	char			*http;		/* line 2 ("http: ..."), or NULL */
	int			 stale_bin;	/* bin/onbox is of another version: moved aside */
};

/*
 * Run a script with `sh -s` on the box; 0 and its output (caller frees) or
 * WK_ERR_REMOTE (message printed).
 */
static int
deploy_sh(struct deploy *d, const char *what, const char *script, struct ssh_result *res)
{
	memset(res, 0, sizeof(*res));
	if (ssh_exec(d->conn, "sh -s", script, strlen(script), DEPLOY_OUT_MAX, res, &d->err) != 0) {
		log_error("%s: %s", what, d->err.msg);
		return WK_ERR_REMOTE;
	}
	return 0;
}

static void
put_assign(struct buf *b, const char *var, const char *val)
{
	buf_printf(b, "%s=", var);
	sshq_append(b, val != NULL ? val : "");
	buf_putc(b, '\n');
}

/* The sha256 of data as 64 hex digits (libcrypto). */
static void
deploy_sha256(const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) != 1 || n != 32) {
		hex[0] = '\0';
		return;
	}
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/*
 * The sha256 of a local file; 0, or the read's WK_ERR_* code, or
 * WK_ERR_INVALID when libcrypto gives no sha256.
 */
static int
deploy_file_sha(const char *path, char hex[65])
{
	char *data = NULL;
	size_t len;
	int r;

	if ((r = fs_read_file(path, DEPLOY_FILE_MAX, &data, &len)) != 0)
		return r;
	deploy_sha256(data, len, hex);
	free(data);
	return hex[0] != '\0' ? 0 : WK_ERR_INVALID;
}

/*
 * Probe and refuse when anything of the run is alive. 0 to go on, 1 alive, a
 * WK_ERR_* code failed (message printed).
 */
static int
deploy_check_idle(struct deploy *d)
{
	char *script = probe_script(d->cfg), *why = NULL;
	struct ssh_result res;
	struct probe p;
	int r;

	if ((r = deploy_sh(d, "probe", script, &res)) != 0)
		goto out;
	if (probe_parse(NULL, res.out, res.out_len, &p, &why) != 0) {
		r = WK_ERR_PARSE;
		log_error("the probe failed: %s", why);
		ssh_result_free(&res);
		goto out;
	}
	if (p.tmux == 1 || p.onbox_alive || p.stage_alive) {
		log_error("run %s is alive on the box (%s); not deploying over it (nothing was "
		    "uploaded). Look at it with `patrol -c %s --once`", d->cfg->run,
		    p.onbox_alive ? "onbox runs" : p.stage_alive ? "a stage runs" :
		    "its tmux session exists", d->cfg->path);
		r = 1;
	} else
		r = 0;
	probe_free(&p);
	ssh_result_free(&res);
 out:
	free(why);
	free(script);
	return r;
}

/* ---- the facts ---- */

static char *
deploy_facts_script(const struct deploy *d)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "# watchkeeper deploy facts: read-only\nexport LC_ALL=C\n");
	put_assign(&b, "W", d->cfg->workdir);
	put_assign(&b, "C", d->remote[DF_CONFIG]);
	put_assign(&b, "P", d->remote[DF_PROFILE]);
	put_assign(&b, "B", d->remote[DF_ONBOX]);
	buf_puts(&b,
	    "a=$(uname -m 2>/dev/null); echo \"arch ${a:-unknown}\"\n"
	    "v() { \"$1\" --version 2>/dev/null | head -n 1; }\n"
	    "if [ -f \"$B\" ]; then echo \"binv $(v \"$B\")\"; fi\n"
	    "o=$(command -v onbox 2>/dev/null)\n"
	    "case $o in /*) echo \"path $o\"; echo \"pathv $(v \"$o\")\" ;; esac\n"
	    "S=; if command -v sha256sum >/dev/null 2>&1; then S=1; fi\n"
	    "h() { if [ -n \"$S\" ] && [ -f \"$2\" ]; then echo \"sha $1 $(sha256sum <\"$2\" | cut -c1-64)\"; fi; }\n"
	    "h onbox \"$B\"; h config \"$C\"; h profile \"$P\"\n"
	    "if command -v tmux >/dev/null 2>&1; then echo 'tmux 1'; else echo 'tmux 0'; fi\n"
	    /* The nearest existing ancestor must be a writable directory. */
	    "wr() { d=$1; while [ ! -e \"$d\" ]; do case $d in */*) n=${d%/*} ;; *) n=. ;; esac; "
	    "[ -n \"$n\" ] || n=/; [ \"$n\" = \"$d\" ] && break; d=$n; done; "
	    "if [ -d \"$d\" ] && [ -w \"$d\" ]; then echo \"$2 ok\"; else echo \"$2 no $d\"; fi; }\n"
	    "wr \"$W\" workdir; wr \"${C%/*}\" confdir\n"
	    "echo end\n");
	{
		char *gate = gate_script(d->cfg);	/* the launch gate's facts, in the same round trip */

		buf_printf(&b, "echo @gate\n%s", gate);
		free(gate);
	}
	return buf_detach(&b);
}

static int
deploy_facts(struct deploy *d)
{
	struct ssh_result res;
	char *script = deploy_facts_script(d), *line, *nl, *val;
	size_t i;
	int r, end = 0;

	if ((r = deploy_sh(d, "facts", script, &res)) != 0)
		goto out;
	/* What follows "@gate" is the gate's (deploy_gate): cut off before the facts are read. */
	if (strncmp(res.out, "@gate\n", 6) == 0)
		line = res.out;
	else if ((line = strstr(res.out, "\n@gate\n")) != NULL)
		line++;
	if (line != NULL) {
		d->gate = xstrdup(line + 6);
		*line = '\0';
	}
	for (line = res.out; line != NULL && *line != '\0'; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		val = strchr(line, ' ');
		if (val != NULL)
			*val++ = '\0';
		else
			val = line + strlen(line);
		if (strcmp(line, "arch") == 0)
			d->arch = xstrdup(strcmp(val, "arm64") == 0 ? "aarch64" : val);
		else if (strcmp(line, "binv") == 0)
			d->binver = xstrdup(val);
		else if (strcmp(line, "path") == 0)
			d->pathonbox = xstrdup(val);
		else if (strcmp(line, "pathv") == 0)
			d->pathver = xstrdup(val);
		else if (strcmp(line, "tmux") == 0)
			d->tmux = strcmp(val, "1") == 0;
		else if (strcmp(line, "workdir") == 0 || strcmp(line, "confdir") == 0) {
			if (strncmp(val, "no ", 3) == 0)
				d->notdir[line[0] == 'c'] = xstrdup(val + 3);
		} else if (strcmp(line, "sha") == 0) {
			for (i = 0; i < DF_COUNT; i++)
				if (strncmp(val, deploy_file_name[i], strlen(deploy_file_name[i])) == 0 &&
				    val[strlen(deploy_file_name[i])] == ' ')
					d->boxsha[i] = xstrdup(val + strlen(deploy_file_name[i]) + 1);
		} else if (strcmp(line, "end") == 0)
			end = 1;
	}
	if (!end || d->arch == NULL) {
		log_error("the box did not answer deploy's checks (exit %d): %.300s", res.exit_status,
		    res.err != NULL ? res.err : "");
		r = WK_ERR_REMOTE;
	}
 out:
	ssh_result_free(&res);
	free(script);
	return r;
}

/* ---- the launch gate ---- */

/*
 * Judge the gate's facts (deploy_facts brought them) with the local config
 * (the one about to be uploaded).  Prints the contract; 0 passed, 1
 * refused, a WK_ERR_* code failed (message printed).
 */
static int
deploy_gate(struct deploy *d, int allow_dirty)
{
	char *why = NULL;
	struct gate_result res;
	struct gate_facts f;
	struct gate_opts o;
	int r;

	memset(&res, 0, sizeof(res));
	if (d->gate == NULL)
		r = gate_parse(d->cfg, "", 0, &f, &why);	/* says what is missing */
	else
		r = gate_parse(d->cfg, d->gate, strlen(d->gate), &f, &why);
	if (r != 0) {
		log_error("launch gate: %s", why);
		r = WK_ERR_REMOTE;
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.allow_dirty = allow_dirty;
	o.who = getenv("LOGNAME") != NULL ? getenv("LOGNAME") : getenv("USER");
	r = gate_judge(d->cfg, &f, &o, &res) > 0;
	gate_facts_free(&f);
	fputs(buf_str(&res.text), stdout);
 out:
	gate_result_free(&res);
	free(why);
	return r;
}

/* ---- the choice of onbox ---- */

/* The portable build for arch (README: patrol deploy), or NULL; looked lists where it looked. */
static char *
deploy_portable(const char *arch, struct buf *looked)
{
	const char *env = getenv("WATCHKEEPER_ONBOX_DIR");
	char *self = fs_self_dir(), *cand[2] = { NULL, NULL }, *found = NULL;
	struct stat st;
	size_t i;

	if (env != NULL && *env != '\0')
		cand[0] = xstrfmt("%s/onbox-%s-linux", env, arch);
	else if (self != NULL) {
		cand[0] = xstrfmt("%s/portable/onbox-%s-linux", self, arch);
		cand[1] = xstrfmt("%s/../lib/watchkeeper/onbox-%s-linux", self, arch);
	}
	for (i = 0; i < 2 && cand[i] != NULL; i++) {
		buf_printf(looked, "%s%s", i > 0 ? ", " : "", cand[i]);
		if (found == NULL && stat(cand[i], &st) == 0 && S_ISREG(st.st_mode)) {
			found = cand[i];
			cand[i] = NULL;	/* transferred */
		}
	}
	free(cand[0]);
	free(cand[1]);
	free(self);
	return found;
}

/* Pick the onbox; 0, or WK_ERR_NOTFOUND with the refusal printed (nothing has been sent). */
static int
deploy_choose(struct deploy *d, const char *onbox_local)
{
	char *want = xstrfmt("onbox %s", WK_VERSION), *port, hex[65];
	struct buf looked = BUF_INIT;
	size_t i;
	int r = WK_ERR_NOTFOUND, known = 0;

	if (onbox_local != NULL) {
		d->local[DF_ONBOX] = xstrdup(onbox_local);
		d->source = "--onbox";
		d->onbox = xstrdup(d->remote[DF_ONBOX]);
		r = 0;
		goto out;
	}
	if (d->binver != NULL && strcmp(d->binver, want) == 0) {
		/* ours uploaded before: the portable build, when it is the same file ("unchanged") */
		port = deploy_portable(d->arch, &looked);
		if (port != NULL && d->boxsha[DF_ONBOX] != NULL &&
		    deploy_file_sha(port, hex) == 0 && strcmp(hex, d->boxsha[DF_ONBOX]) == 0) {
			d->local[DF_ONBOX] = port;	/* transferred */
			port = NULL;
			d->source = "uploaded";
		} else
			d->source = "box";
		free(port);
		d->onbox = xstrdup(d->remote[DF_ONBOX]);
		r = 0;
		goto out;
	}
	if (d->pathver != NULL && strcmp(d->pathver, want) == 0) {
		d->source = "box";
		d->onbox = xstrdup(d->pathonbox);
		/* remote_onbox_command prefers bin/onbox: a stale one is moved aside. */
		d->stale_bin = d->binver != NULL;
		r = 0;
		goto out;
	}
	if ((port = deploy_portable(d->arch, &looked)) != NULL) {
		d->local[DF_ONBOX] = port;	/* transferred */
		d->source = "uploaded";
		d->onbox = xstrdup(d->remote[DF_ONBOX]);
		r = 0;
		goto out;
	}
	for (i = 0; i < sizeof(deploy_arches) / sizeof(deploy_arches[0]); i++)
		known |= strcmp(d->arch, deploy_arches[i]) == 0;
	if (!known)
		log_error("the box is %s: watchkeeper builds a portable onbox for x86_64 and aarch64 "
		    "only, and none for %s was found (looked at %s). Nothing was uploaded. Build "
		    "onbox on the box (make onbox) and put it on its PATH, or give one with "
		    "--onbox PATH", d->arch, d->arch, buf_str(&looked));
	else if (d->binver != NULL || d->pathver != NULL)
		log_error("the box's onbox (%s: \"%s\") is not %s, and no portable onbox for %s was "
		    "found (looked at %s). Nothing was uploaded. Run `make onbox-portable` (or "
		    "`make install`) here, or give one with --onbox PATH",
		    d->binver != NULL ? d->remote[DF_ONBOX] : d->pathonbox,
		    d->binver != NULL ? d->binver : d->pathver, want, d->arch, buf_str(&looked));
	else
		log_error("no onbox on the box and no portable onbox for %s here (looked at %s). "
		    "Nothing was uploaded. Run `make onbox-portable` (or `make install`), or give "
		    "one with --onbox PATH", d->arch, buf_str(&looked));
 out:
	buf_free(&looked);
	free(want);
	return r;
}

/* ---- sending ---- */

static int
deploy_mkdirs(struct deploy *d)
{
	struct buf s = BUF_INIT;
	struct ssh_result res;
	char *bindir = xstrfmt("%s/" LAYOUT_DIR "/bin", d->cfg->workdir);
	const char *c = d->remote[DF_CONFIG], *slash = strrchr(c, '/');
	int r;

	buf_puts(&s, "mkdir -p ");
	sshq_append(&s, d->cfg->workdir);
	buf_putc(&s, ' ');
	sshq_append(&s, bindir);
	if (slash != NULL && slash != c) {
		char *dir = xstrndup(c, (size_t)(slash - c)), *prof = xstrfmt("%s/profiles", dir);

		buf_putc(&s, ' ');
		sshq_append(&s, dir);
		buf_putc(&s, ' ');
		sshq_append(&s, prof);
		free(dir);
		free(prof);
	}
	if (d->stale_bin) {
		buf_puts(&s, " && mv -f ");
		sshq_append(&s, d->remote[DF_ONBOX]);
		buf_putc(&s, ' ');
		{
			char *old = xstrfmt("%s.old", d->remote[DF_ONBOX]);

			sshq_append(&s, old);
			free(old);
		}
	}
	buf_putc(&s, '\n');
	if ((r = deploy_sh(d, "mkdir", s.data, &res)) != 0)
		goto out;
	if (res.exit_status != 0) {
		log_error("cannot create the run's directories on the box (exit %d): %.300s",
		    res.exit_status, res.err != NULL ? res.err : "");
		r = WK_ERR_REMOTE;
	}
	if (r == 0 && d->stale_bin)
		printf("onbox: moved the box's %s (\"%s\") aside to %s.old: the one on the PATH is "
		    "%s\n", d->remote[DF_ONBOX], d->binver, d->remote[DF_ONBOX], d->pathver);
	ssh_result_free(&res);
 out:
	buf_free(&s);
	free(bindir);
	return r;
}

/*
 * Send file f when the box's copy differs (or cannot be compared); onbox
 * goes to bin/onbox.new first and becomes bin/onbox only once it runs there.
 * 1 sent, 0 unchanged, a WK_ERR_* code failed (message printed).
 */
static int
deploy_send(struct deploy *d, enum deploy_file f, int mode)
{
	static const char *const what[DF_COUNT] = { "onbox", "the config", "profile" };
	char *data = NULL, hex[65], *dest = NULL;
	size_t len;
	int r;

	if ((r = fs_read_file(d->local[f], DEPLOY_FILE_MAX, &data, &len)) != 0) {
		log_error("cannot read %s: %s", d->local[f], wk_strerror(r));
		goto out;
	}
	deploy_sha256(data, len, hex);
	if (hex[0] != '\0' && d->boxsha[f] != NULL && strcmp(hex, d->boxsha[f]) == 0) {
		if (f != DF_ONBOX)	/* deploy_check_onbox says it, with the version */
			printf("%s: unchanged (%s)\n", deploy_file_name[f], d->remote[f]);
		r = 0;
		goto out;
	}
	dest = f == DF_ONBOX ? xstrfmt("%s.new", d->remote[f]) : xstrdup(d->remote[f]);
	if (ssh_put(d->conn, dest, data, len, mode, &d->err) != 0) {
		log_error("upload of %s to %s failed: %s", d->local[f], dest, d->err.msg);
		r = WK_ERR_REMOTE;
		goto out;
	}
	if (f != DF_ONBOX)
		printf("%s: uploaded %s to %s%s\n", deploy_file_name[f], what[f], d->remote[f],
		    d->boxsha[f] != NULL ? " (changed)" : "");
	r = 1;
 out:
	free(dest);
	free(data);
	return r;
}

/*
 * Run the chosen onbox's --version on the box (the uploaded one as .new,
 * renamed over bin/onbox when it runs, removed when it does not).  Keeps
 * line 1 and the http line (onbox --version: core/curlcmd.h).  0, or a
 * WK_ERR_* code (message printed).
 */
static int
deploy_check_onbox(struct deploy *d, int fresh)
{
	struct buf s = BUF_INIT;
	struct ssh_result res;
	char *nl, *l2;
	int r;

	put_assign(&s, "B", d->onbox);
	put_assign(&s, "N", fresh ? "1" : "");
	buf_puts(&s, "O=$B; [ -n \"$N\" ] && O=\"$B.new\"\n"
	    "if out=$(\"$O\" --version 2>&1); then\n"
	    "  if [ -n \"$N\" ]; then mv -f \"$O\" \"$B\" || exit 70; fi\n"
	    "  printf '%s\\n' \"$out\"\n"
	    "else\n"
	    "  s=$?; [ -n \"$N\" ] && rm -f \"$O\"; printf '%s\\n' \"$out\" >&2; exit $s\n"
	    "fi\n");
	if ((r = deploy_sh(d, "onbox --version", s.data, &res)) != 0)
		goto out;
	r = WK_ERR_REMOTE;
	if (res.exit_status != 0) {
		/* An older glibc, another arch: say what the box said, and the way out. */
		log_error("%s does not run on the box (exit %d): %.300s\n  %s", fresh ? d->local[DF_ONBOX] :
		    d->onbox, res.exit_status, res.err != NULL ? res.err : "",
		    fresh ? "it was removed again; use the portable build (make onbox-portable) for "
		    "the box's arch, or build onbox on the box (make onbox)" :
		    "put a working onbox there, or give one with --onbox PATH");
		goto out_res;
	}
	if ((nl = strchr(res.out, '\n')) != NULL)
		*nl++ = '\0';
	d->version = xstrdup(res.out);
	if (nl != NULL && strncmp(nl, "http:", 5) == 0) {
		l2 = nl;
		if ((nl = strchr(l2, '\n')) != NULL)
			*nl = '\0';
		d->http = xstrdup(l2);
	}
	if (fresh)
		printf("onbox: uploaded %s to %s: %s\n", d->local[DF_ONBOX], d->onbox, d->version);
	else if (d->local[DF_ONBOX] != NULL)
		printf("onbox: unchanged (%s): %s\n", d->onbox, d->version);
	else
		printf("onbox: the box's own %s: %s\n", d->onbox, d->version);
	printf("  %s\n", d->http != NULL ? d->http : "http: unknown (this onbox does not say)");
	if (d->http != NULL && strncmp(d->http, "http: none", 10) == 0)
		log_warn("the box cannot deliver webhooks (%s): onbox keeps every event in %s/"
		    LAYOUT_DIR "/outbox until it can; install curl on the box", d->http,
		    d->cfg->workdir);
	r = 0;
 out_res:
	ssh_result_free(&res);
 out:
	buf_free(&s);
	return r;
}

/* Keep what deploy learned about the box in patrol.json (the handbook shows it). */
static void
deploy_record(struct deploy *d, int fallback)
{
	struct pstate st;
	cJSON *o;
	char now[TIMEFMT_LEN];
	int r;

	if ((r = pstate_open(d->cfg, &st)) != 0) {
		log_warn("could not record the deploy in patrol's state (%s): the next deploy "
		    "records it", r == WK_ERR_BUSY ? "a patrol tick holds it" : wk_strerror(r));
		return;
	}
	timefmt_utc(time(NULL), now, sizeof(now));
	o = cJSON_CreateObject();
	json_set_str(o, "at", now);
	json_set_str(o, "arch", d->arch);
	json_set_str(o, "onbox_version", d->version);
	json_set_str(o, "onbox_path", d->onbox);
	json_set_str(o, "onbox_source", d->source);
	if (d->http != NULL)
		json_set_str(o, "http", d->http);
	json_set_bool(o, "tmux_missing", fallback);
	json_set(st.doc, "deploy", o);	/* transferred */
	if ((r = pstate_save(&st)) != 0)
		log_warn("cannot write %s/patrol.json: %s", st.dir, wk_strerror(r));
	pstate_close(&st);
}

int
patrol_deploy(struct wk_config *cfg, const char *onbox_local, int flags)
{
	int start = (flags & DEPLOY_START) != 0, secrets = (flags & DEPLOY_SECRETS) != 0;
	struct deploy d;
	struct ssh_target t;
	struct ssh_result res;
	struct diag dg = DIAG_INIT;
	char *startcmd, *slash;
	size_t i;
	int rc = WK_EX_FAIL, r, fallback;

	memset(&d, 0, sizeof(d));
	memset(&t, 0, sizeof(t));
	d.cfg = cfg;
	d.remote[DF_CONFIG] = remote_boxcfg(cfg);
	d.local[DF_CONFIG] = xstrdup(cfg->path);
	d.remote[DF_ONBOX] = xstrfmt("%s/" LAYOUT_DIR "/bin/onbox", cfg->workdir);
	if (cfg->profile_path != NULL) {
		slash = strrchr(d.remote[DF_CONFIG], '/');
		d.remote[DF_PROFILE] = xstrfmt("%.*s/profiles/%s.json",
		    slash != NULL ? (int)(slash - d.remote[DF_CONFIG]) : 1,
		    slash != NULL ? d.remote[DF_CONFIG] : ".", cfg->profile);
		d.local[DF_PROFILE] = xstrdup(cfg->profile_path);
	}
	if (target_from_config(cfg, &t, &d.err, &dg) != 0 ||
	    ssh_connect(&t, (t.connect_timeout_s + DEPLOY_BUDGET_S) * 1000, &d.conn, &d.err) != 0) {
		diag_print(&dg, stderr);
		log_error("cannot reach the box: %s", d.err.msg);
		rc = WK_EX_UNSEEN;
		goto out;
	}
	/* --check: the contract alone, judged against the box; nothing else. */
	if (flags & DEPLOY_CHECK) {
		if (deploy_facts(&d) != 0)
			goto out;
		r = deploy_gate(&d, 0);
		rc = r == 0 ? 0 : WK_EX_FAIL;
		if (r == 1)
			printf("the launch gate refuses (see above); `patrol deploy` would not start "
			    "run %s\n", cfg->run);
		goto out;
	}
	/* 1-3: the checks that can refuse.  Nothing is written on the box before they pass. */
	if ((r = deploy_check_idle(&d)) != 0) {
		rc = r > 0 ? WK_EX_TEMPFAIL : WK_EX_FAIL;
		goto out;
	}
	if (deploy_facts(&d) != 0)
		goto out;
	if ((r = deploy_gate(&d, (flags & DEPLOY_ALLOW_DIRTY) != 0)) != 0) {
		if (r == 1)
			log_error("the launch gate refuses run %s (see above). Nothing was uploaded",
			    cfg->run);
		goto out;
	}
	for (i = 0; i < 2; i++)
		if (d.notdir[i] != NULL) {
			const char *home = getenv("HOME"), *p = i == 0 ? cfg->workdir : d.remote[DF_CONFIG];
			int mine = home != NULL && *home == '/' && strlen(home) > 1 &&
			    strncmp(p, home, strlen(home)) == 0 && p[strlen(home)] == '/';

			log_error("cannot create %s on the box: %s is not a directory this user can "
			    "write. Nothing was uploaded. Pick a %s under the login user's home, "
			    "or create it there first%s%s%s", p, d.notdir[i],
			    i == 0 ? "\"workdir\"" : "\"box\": {\"config\"}",
			    mine ? " (it is under THIS machine's $HOME, " : "", mine ? home : "",
			    mine ? ": \"~\" in the config is expanded here, so write the box's "
			    "absolute path)" : "");
			goto out;
		}
	if (deploy_choose(&d, onbox_local) != 0)
		goto out;
	printf("box: %s\n", d.arch);
	/* 4: directories, then each file only when it changed. */
	if (deploy_mkdirs(&d) != 0)
		goto out;
	r = d.local[DF_ONBOX] != NULL ? deploy_send(&d, DF_ONBOX, 0755) : 0;
	if (r < 0 || deploy_check_onbox(&d, r) != 0)
		goto out;
	if (deploy_send(&d, DF_CONFIG, 0600) < 0)
		goto out;
	if (d.local[DF_PROFILE] != NULL && deploy_send(&d, DF_PROFILE, 0644) < 0)
		goto out;
	fallback = cfg->detach_kind == DETACH_TMUX && !d.tmux;
	/* onbox start says it itself; without a start, deploy does. */
	if (fallback && !start)
		printf("tmux is not on the box's PATH: onbox will start run %s with nohup instead "
		    "(watch: tail -f %s/" LAYOUT_DIR "/onbox.out)\n", cfg->run, cfg->workdir);
	/* After every check above, before `onbox start` below. */
	if (secrets && secrets_send(cfg, d.conn, &d.err) != 0) {
		log_error("cannot send the notification secrets to the box: %s; not starting "
		    "(`--no-secrets` skips them)", d.err.msg);
		goto out;
	}
	deploy_record(&d, fallback);
	if (!start) {
		rc = 0;
		goto out;
	}
	/* 5: start. */
	startcmd = remote_onbox_command(cfg, flags & DEPLOY_ALLOW_DIRTY ? "start --allow-dirty" :
	    "start");
	r = deploy_sh(&d, "onbox start", startcmd, &res);
	free(startcmd);
	if (r != 0)
		goto out;
	fputs(res.out, stdout);
	if (res.err != NULL)
		fputs(res.err, stderr);
	rc = res.exit_status == 0 ? 0 : res.exit_status == WK_EX_TEMPFAIL ? WK_EX_TEMPFAIL : WK_EX_FAIL;
	ssh_result_free(&res);
	if (rc == 0)
		printf("next: patrol -c %s --install-cron   (a tick every %s)\n", cfg->path,
		    config_get_str(cfg, "patrol.schedule"));
 out:
	if (d.conn != NULL)
		ssh_close(d.conn);
	target_free(&t);
	diag_free(&dg);
	for (i = 0; i < DF_COUNT; i++) {
		free(d.remote[i]);
		free(d.local[i]);
		free(d.boxsha[i]);
	}
	free(d.notdir[0]);
	free(d.notdir[1]);
	free(d.gate);
	free(d.arch);
	free(d.binver);
	free(d.pathonbox);
	free(d.pathver);
	free(d.onbox);
	free(d.version);
	free(d.http);
	return rc;
}
