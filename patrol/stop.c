/*
 * stop.c: `patrol stop`: stop the run on purpose from the owner's machine.
 *
 * One ssh connection, one command: the box's own `onbox stop` (through
 * remote_onbox_command, so the deployed onbox is used), which does the work
 * and waits for it (SIGTERM to the stage's process group, SIGKILL after
 * stop_grace_s).  Its words are printed as they are.  Who asked is passed
 * as `--by "patrol stop (user@host)"`, quoted with sshq.
 *
 * patrol stop writes no patrol state: not patrol.json, not the report log.
 * The next tick reports STOPPED and the logbook gets run_stopped from the
 * box's events.  An unreachable box: exit 2, nothing stopped and nothing
 * recorded anywhere (no SSH_DOWN report line either: that is a tick's).
 * patrol_stop_exec is the act itself, printing nothing: patrol stop prints
 * its words, the MCP stop tool (tick.c's TICK_STOP) returns them.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "diag.h"
#include "log.h"
#include "patrol.h"
#include "remote.h"
#include "ssh.h"
#include "sshq.h"
#include "target.h"
#include "xmalloc.h"

/* "patrol stop (user@host)": who asked, for onbox stop's --by. */
static char *
stop_by(void)
{
	struct passwd *pw = getpwuid(getuid());
	char host[256];

	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	return xstrfmt("patrol stop (%s@%s)", pw != NULL ? pw->pw_name : "?", host);
}

int
patrol_stop_exec(const struct wk_config *cfg, struct ssh_conn *conn, struct ssh_result *res,
    struct ssh_error *err)
{
	struct buf args = BUF_INIT;
	char *by = stop_by(), *cmd;
	int rc;

	buf_puts(&args, "stop --by ");
	sshq_append(&args, by);
	cmd = remote_onbox_command(cfg, args.data);
	memset(res, 0, sizeof(*res));
	if (ssh_exec(conn, cmd, NULL, 0, 64 * 1024, res, err) != 0)
		rc = -1;
	else	/* onbox stop's codes pass through (0 stopped, 75, 78 ...); a missing onbox is 127 */
		rc = res->exit_status >= 0 ? res->exit_status : WK_EX_FAIL;
	buf_free(&args);
	free(cmd);
	free(by);
	return rc;
}

int
patrol_stop(struct wk_config *cfg)
{
	struct ssh_target t;
	struct ssh_conn *conn = NULL;
	struct ssh_error err;
	struct ssh_result res;
	struct diag dg = DIAG_INIT;
	int rc = WK_EX_FAIL;

	memset(&err, 0, sizeof(err));
	memset(&res, 0, sizeof(res));
	if (target_from_config(cfg, &t, &err, &dg) != 0 ||
	    ssh_connect(&t, (int)(t.connect_timeout_s + cfg->stop_grace_s + PATROL_STOP_BUDGET_S) * 1000,
	    &conn, &err) != 0) {
		diag_print(&dg, stderr);
		log_error("cannot reach the box: %s; nothing was stopped and nothing recorded (exit 2)",
		    err.msg);
		rc = WK_EX_UNSEEN;
		goto out;
	}
	if ((rc = patrol_stop_exec(cfg, conn, &res, &err)) < 0) {
		log_error("onbox stop on the box did not finish: %s; look again with `patrol -c %s "
		    "--once`", err.msg, cfg->path);
		rc = WK_EX_UNSEEN;
		goto out;
	}
	if (res.out != NULL)
		fputs(res.out, stdout);
	if (res.err != NULL)
		fputs(res.err, stderr);
	if (rc == 127)
		log_error("no onbox on the box (deploy it first: patrol -c %s deploy)", cfg->path);
 out:
	ssh_result_free(&res);
	if (conn != NULL)
		ssh_close(conn);
	target_free(&t);
	diag_free(&dg);
	return rc;
}
