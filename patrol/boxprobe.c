/*
 * boxprobe.c: one connection to the box and its probe, for the commands
 * that look before they act (`patrol checkpoints`, `patrol seal`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "err.h"
#include "log.h"
#include "patrol.h"
#include "probe.h"
#include "ssh.h"
#include "target.h"

int
patrol_box_probe(const struct wk_config *cfg, long budget_s, const char *nothing,
    struct ssh_target *t, struct ssh_conn **conn, struct probe *p)
{
	struct ssh_error err;
	struct ssh_result res;
	struct diag dg = DIAG_INIT;
	char *script = NULL, *why = NULL;
	int rc = WK_EX_UNSEEN;

	memset(&err, 0, sizeof(err));
	memset(&res, 0, sizeof(res));
	*conn = NULL;
	if (target_from_config(cfg, t, &err, &dg) != 0 ||
	    ssh_connect(t, (int)(t->connect_timeout_s + budget_s) * 1000, conn, &err) != 0) {
		diag_print(&dg, stderr);
		log_error("cannot reach the box: %s; %s", err.msg, nothing);
		goto out;
	}
	script = probe_script(cfg);
	if (ssh_exec(*conn, "sh -s", script, strlen(script), PROBE_MAX_OUT, &res, &err) != 0) {
		log_error("the probe did not finish: %s; %s", err.msg, nothing);
		goto out;
	}
	if (probe_parse(cfg, res.out, res.out_len, p, &why) != 0) {
		log_error("the probe failed: %s; %s", why, nothing);
		rc = WK_EX_FAIL;
		goto out;
	}
	rc = 0;
 out:
	ssh_result_free(&res);
	diag_free(&dg);
	free(script);
	free(why);
	return rc;
}
