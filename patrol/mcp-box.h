/*
 * mcp-box.h: the box of a run, for patrol mcp's read-only calls (wait, logs,
 * events): the target, and each script run through ssh/tick.c: a look over
 * the server's warm connection to the box (ssh/warm.h), or, where there is
 * none, a short connection of its own; a cancel ends either at once.
 *
 * The call's child routes SIGTERM, SIGINT and SIGHUP to a
 * signal pipe (core/sigwait.h): the server's cancel (SIGTERM to the child's
 * process group) ends the look: a warm look's socket closes and its holder
 * closes the channel (the connection stays for the next look); a short
 * connection's process group is ended (tick_abort: its ssh processes).
 * Either way the box's `onbox wait` exits when its reader goes, and the call
 * returns "cancelled".
 */
#ifndef WK_MCP_BOX_H
#define WK_MCP_BOX_H


#include "ssh.h"
#include "tick.h"

struct mcp_out;
struct wk_config;

struct mcp_box {
	const struct wk_config	*cfg;
	struct ssh_target	 target;
	int			 have_target;
	struct tick_conn	 conn;
	char			 down[900];	/* the last failure: why the box was not seen */
};

/*
 * Resolve cfg's target and set up the signal pipe.  0, or -1 with out set to
 * the isError result (no way to the box this transport can take).
 */
int mcp_box_open(struct mcp_box *b, const struct wk_config *cfg, struct mcp_out *out);

enum mcp_box_res {
	MCP_BOX_SEEN,		/* the script ran: r->out, r->exit_status */
	MCP_BOX_DOWN,		/* unreachable (SSH_DOWN): b->down says why */
	MCP_BOX_FAILED,		/* refused or cancelled: out is set (isError), return it */
};

/*
 * Run script through `sh -s` on the box in one connection, bounded by the
 * connect timeout plus budget_s.  On MCP_BOX_SEEN the caller frees r with
 * tick_res_free.
 */
enum mcp_box_res mcp_box_run(struct mcp_box *b, const char *script, int budget_s,
    struct tick_res *r, struct mcp_out *out);
/* Sleep up to ms on the signal pipe: 0, or -1 with out set (cancelled). */
int mcp_box_sleep(struct mcp_box *b, int ms, struct mcp_out *out);
void mcp_box_close(struct mcp_box *b);

#endif
