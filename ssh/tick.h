/*
 * tick.h: one short connection in a child process (see tick.c), on what it
 * needs: the target, the signal pipe, and the child it runs the connection in.
 * A signal that ends a tick is handed back (sigwait.h).  Used by sentinel's
 * ticks and by patrol mcp's wait, logs and events (patrol/mcp-box.c).
 */
#ifndef WK_SSH_TICK_H
#define WK_SSH_TICK_H

#include <stddef.h>
#include <sys/types.h>

#include "ssh.h"
#include "sigwait.h"

struct tick_conn {
	const struct ssh_target *target;	/* the box; NULL: none yet (nothing to clean up) */
	int		 sigfd;		/* the caller's signal pipe (sigwait.h), watched while the tick runs */
	pid_t		 child;		/* the tick's connection; 0 none */
};

enum tick_kind {
	TICK_SEEN,		/* the command ran: out, exit_status */
	TICK_UNREACHABLE,	/* retried next tick: err */
	TICK_REFUSED,		/* auth, host key, unsupported: err */
	TICK_STOPPED,		/* a signal ended the tick (the child is gone): sig */
};

struct tick_res {
	enum tick_kind	 kind;
	struct ssh_error err;
	int		 exit_status;
	char		*out;		/* NUL-terminated; caller frees */
	size_t		 outlen;
	struct sigwait_got sig;
};

/*
 * Connect, run command with in on its stdin, close: in a child process, so
 * that a supersede or SIGTERM ends the tick within a second, connection and
 * ssh processes included.  Bounded by deadline_ms.  Returns r->kind.
 */
enum tick_kind tick_run(struct tick_conn *tc, const char *command, const char *in, size_t inlen,
    int deadline_ms, struct tick_res *r);
void tick_res_free(struct tick_res *r);
/* End the tick's child (if any) and everything of its connection. */
void tick_abort(struct tick_conn *tc);

#endif
