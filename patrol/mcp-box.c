/*
 * mcp-box.c: the box of a run for patrol mcp's read-only calls (see
 * mcp-box.h): the target, the signal pipe, one script per connection through
 * ssh/tick.c (the sentinel's own), and what each outcome means for a tool
 * result: unreachable is SSH_DOWN (a normal result, the caller's to
 * render), refused and cancelled are isError.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "err.h"
#include "mcp-box.h"
#include "mcp.h"
#include "sigwait.h"
#include "target.h"

int
mcp_box_open(struct mcp_box *b, const struct wk_config *cfg, struct mcp_out *out)
{
	struct ssh_error err;
	struct diag d = DIAG_INIT;
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	int r = -1;

	memset(b, 0, sizeof(*b));
	b->cfg = cfg;
	if ((b->conn.sigfd = sigwait_open(sigs, sizeof(sigs) / sizeof(sigs[0]))) < 0) {
		mcp_error(out, "run '%s': the signal pipe: %s", cfg->run, wk_strerror(WK_ERR_SYSTEM));
		goto out;
	}
	if (target_from_config(cfg, &b->target, &err, &d) != 0) {
		mcp_error(out, "run '%s': cannot reach the box this way: %s: %s", cfg->run,
		    ssh_fail_name(err.kind), err.msg);
		goto out;
	}
	b->have_target = 1;
	b->conn.target = &b->target;
	r = 0;
 out:
	diag_free(&d);
	return r;
}

/* A cancel: the connection is gone already (tick.c); say so. */
static int
mcp_box_cancelled(struct mcp_box *b, const struct sigwait_got *got, struct mcp_out *out)
{
	return mcp_error(out, "run '%s': cancelled (%s)", b->cfg->run, strsignal(got->signo));
}

enum mcp_box_res
mcp_box_run(struct mcp_box *b, const char *script, int budget_s, struct tick_res *r,
    struct mcp_out *out)
{
	int deadline_ms = (b->target.connect_timeout_s + budget_s) * 1000;

	switch (tick_run(&b->conn, "sh -s", script, strlen(script), deadline_ms, r)) {
	case TICK_SEEN:
		return MCP_BOX_SEEN;
	case TICK_STOPPED:
		mcp_box_cancelled(b, &r->sig, out);
		break;
	case TICK_REFUSED:
		mcp_error(out, "run '%s': the box refused the connection (%s: %s)", b->cfg->run,
		    ssh_fail_name(r->err.kind), r->err.msg);
		break;
	case TICK_UNREACHABLE:
		snprintf(b->down, sizeof(b->down), "%.800s", r->err.msg);
		tick_res_free(r);
		return MCP_BOX_DOWN;
	}
	tick_res_free(r);
	return MCP_BOX_FAILED;
}

int
mcp_box_sleep(struct mcp_box *b, int ms, struct mcp_out *out)
{
	struct sigwait_got got;

	if (ms <= 0 || !sigwait_fd(b->conn.sigfd, ms, &got))
		return 0;
	return mcp_box_cancelled(b, &got, out);
}

void
mcp_box_close(struct mcp_box *b)
{
	tick_abort(&b->conn);
	if (b->have_target)
		target_free(&b->target);
	b->have_target = 0;
	if (b->conn.sigfd >= 0)
		sigwait_close();
	b->conn.sigfd = -1;
}
