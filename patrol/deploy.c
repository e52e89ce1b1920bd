/*
 * deploy.c: `patrol deploy`: put the run on the box and start layer 1.
 *
 * Over ONE connection: probe first and refuse when the run is alive (a deploy
 * must never double-launch); upload the config (and the profile it names)
 * atomically; make sure an onbox that runs THERE exists (the box's own on its
 * PATH, else the one built next to this patrol, uploaded and checked with
 * `onbox --version`, since a rented box often has an older glibc); then
 * `onbox start`.  Nothing is started when any step fails.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "decide.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "layout.h"
#include "log.h"
#include "remote.h"
#include "patrol.h"
#include "probe.h"
#include "ssh.h"
#include "sshq.h"
#include "target.h"
#include "xmalloc.h"

#define DEPLOY_BUDGET_S	120
#define DEPLOY_FILE_MAX	(64u << 20)

struct deploy {
	const struct wk_config	*cfg;
	struct ssh_conn		*conn;
	struct ssh_error	 err;
	char			*boxcfg;	/* the config's path on the box */
};

/* Run cmd on the box; 0 and its output (caller frees) or -1 (message printed). */
static int
deploy_run(struct deploy *d, const char *what, const char *cmd, const void *in, size_t inlen,
    struct ssh_result *res)
{
	memset(res, 0, sizeof(*res));
	if (ssh_exec(d->conn, cmd, in, inlen, 1 << 20, res, &d->err) != 0) {
		log_error("%s: %s", what, d->err.msg);
		return -1;
	}
	return 0;
}

static int
deploy_put_file(struct deploy *d, const char *local, const char *remote, int mode)
{
	char *data = NULL;
	size_t len;
	int r;

	if (fs_read_file(local, DEPLOY_FILE_MAX, &data, &len) != 0) {
		log_error("cannot read %s: %s", local, strerror(errno));
		return -1;
	}
	r = ssh_put(d->conn, remote, data, len, mode, &d->err);
	if (r != 0)
		log_error("upload of %s to %s failed: %s", local, remote, d->err.msg);
	free(data);
	return r;
}

/* Probe and refuse when anything of the run is alive. 0 to go on. */
static int
deploy_check_idle(struct deploy *d)
{
	char *script = probe_script(d->cfg), *why = NULL;
	struct ssh_result res;
	struct probe p;
	int r = -1;

	if (deploy_run(d, "probe", "sh -s", script, strlen(script), &res) != 0)
		goto out;
	if (probe_parse(res.out, res.out_len, &p, &why) != 0) {
		log_error("the probe failed: %s", why);
		ssh_result_free(&res);
		goto out;
	}
	if (p.tmux == 1 || p.onbox_alive || p.stage_alive) {
		log_error("run %s is alive on the box (%s); not deploying over it",
		    d->cfg->run, p.onbox_alive ? "onbox runs" : p.stage_alive ? "a stage runs" :
		    "its tmux session exists");
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

/* The onbox to use on the box: its own, or ours uploaded.  0 when one runs there. */
static int
deploy_onbox(struct deploy *d, const char *upload)
{
	struct ssh_result res;
	struct buf cmd = BUF_INIT;
	char *bin = xstrfmt("%s/" LAYOUT_DIR "/bin/onbox", d->cfg->workdir);
	int r = -1;

	if (upload == NULL) {
		if (deploy_run(d, "check", "command -v onbox >/dev/null 2>&1 && onbox --version", NULL, 0,
		    &res) == 0 && res.exit_status == 0) {
			printf("the box has its own onbox: %s", res.out);
			r = 0;
		}
		ssh_result_free(&res);
		if (r == 0)
			goto out;
		log_error("no onbox on the box's PATH; give one with --onbox PATH "
		    "(or build it there: make onbox)");
		goto out;
	}
	if (deploy_put_file(d, upload, bin, 0755) != 0)
		goto out;
	sshq_append(&cmd, bin);
	buf_puts(&cmd, " --version");
	if (deploy_run(d, "check", cmd.data, NULL, 0, &res) != 0)
		goto out;
	if (res.exit_status != 0) {
		/* An older glibc says so on stderr: pass it on, with the way out. */
		log_error("the uploaded onbox does not run on the box (exit %d): %.300s\n"
		    "  build it there instead: copy the source tree and run `make onbox`",
		    res.exit_status, res.err != NULL ? res.err : "");
		ssh_result_free(&res);
		goto out;
	}
	printf("uploaded onbox to %s: %s", bin, res.out);
	ssh_result_free(&res);
	r = 0;
 out:
	buf_free(&cmd);
	free(bin);
	return r;
}

int
patrol_deploy(struct wk_config *cfg, const char *onbox_local, int start, int secrets)
{
	struct deploy d;
	struct ssh_target t;
	struct ssh_result res;
	struct diag dg = DIAG_INIT;
	struct buf cmd = BUF_INIT;
	char *dir = NULL, *startcmd;
	int rc = WK_EX_FAIL, r;

	memset(&d, 0, sizeof(d));
	d.cfg = cfg;
	d.boxcfg = remote_boxcfg(cfg);
	if (target_from_config(cfg, &t, &d.err, &dg) != 0 ||
	    ssh_connect(&t, (t.connect_timeout_s + DEPLOY_BUDGET_S) * 1000, &d.conn, &d.err) != 0) {
		diag_print(&dg, stderr);
		log_error("cannot reach the box: %s", d.err.msg);
		rc = 2;
		goto out;
	}
	if ((r = deploy_check_idle(&d)) != 0) {
		rc = r > 0 ? WK_EX_TEMPFAIL : WK_EX_FAIL;
		goto out;
	}
	/* Directories first: the config's and the workdir's own. */
	dir = xstrdup(d.boxcfg);
	/* dirname() may write into its argument: take the directory once. */
	{
		char *copy = dir;

		dir = xstrdup(dirname(copy));
		free(copy);
	}
	buf_puts(&cmd, "mkdir -p ");
	sshq_append(&cmd, dir);
	buf_putc(&cmd, ' ');
	{
		char *bindir = xstrfmt("%s/" LAYOUT_DIR "/bin", cfg->workdir);
		char *profdir = xstrfmt("%s/profiles", dir);

		sshq_append(&cmd, bindir);
		buf_putc(&cmd, ' ');
		sshq_append(&cmd, profdir);
		free(bindir);
		free(profdir);
	}
	if (deploy_run(&d, "mkdir", cmd.data, NULL, 0, &res) != 0 || res.exit_status != 0) {
		ssh_result_free(&res);
		goto out;
	}
	ssh_result_free(&res);
	if (deploy_put_file(&d, cfg->path, d.boxcfg, 0600) != 0)
		goto out;
	printf("uploaded the config to %s\n", d.boxcfg);
	if (cfg->profile_path != NULL) {
		char *pp = xstrfmt("%s/profiles/%s.json", dir, cfg->profile);

		r = deploy_put_file(&d, cfg->profile_path, pp, 0644);
		if (r == 0)
			printf("uploaded profile %s to %s\n", cfg->profile, pp);
		free(pp);
		if (r != 0)
			goto out;
	}
	if (deploy_onbox(&d, onbox_local) != 0)
		goto out;
	if (secrets && secrets_send(cfg, d.conn, &d.err) != 0) {
		log_error("cannot send the notification secrets to the box: %s; not starting "
		    "(`--no-secrets` skips them)", d.err.msg);
		goto out;
	}
	if (!start) {
		rc = 0;
		goto out;
	}
	startcmd = remote_onbox_command(cfg, "start");
	r = deploy_run(&d, "onbox start", startcmd, NULL, 0, &res);
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
	buf_free(&cmd);
	free(dir);
	free(d.boxcfg);
	return rc;
}
