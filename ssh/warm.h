/*
 * warm.h: warm looks: one ssh connection per box held open by a process
 * that looks more than once (patrol mcp, patrol --all, patrol top), each
 * look a new exec channel on it (warm.c, warm-hold.c, warm-wire.c).
 *
 * The owner (the long-lived process) calls warm_init once: from then on it
 * and every process forked from it may look through warm_exec, or through
 * ssh_connect with target->warm set (the "warm" transport: each ssh_exec a
 * look).  A look goes to a holder: a process of its own per box (per
 * target and slot), started by the first look at that box, that owns the
 * connection and serves one look at a time over a unix socket in the
 * owner's private directory.  A second look while the first runs takes the
 * next slot (a second holder and connection, up to WARM_SLOTS), so a long
 * `onbox wait` never holds up a status; past that, the look goes cold.
 *
 * A holder connects at its first look and again after the connection died;
 * a look that failed because the connection was gone before its channel
 * opened (err.unsent) is run once more on a fresh connection (the command
 * never ran, so this is safe for any command).  Between looks it sends
 * keepalives; it ends, closing the connection, after idle_s without a look,
 * when its socket is removed (warm_shutdown) or when the owner is gone.
 *
 * Cancelling: a look whose asker goes away (its socket closes: a SIGTERM'd
 * or killed mcp call, or warm_exec seeing watch_fd) has its channel closed
 * at once, which ends the command on the box (`onbox wait` exits when its
 * reader goes), and the connection stays warm for the next look.
 *
 * Either transport: an openssh target's holder holds its ControlMaster
 * (each look a mux client of it, ended at once by a cancel; the master goes
 * with the holder, which leaves through ssh_close on warm_shutdown's
 * SIGTERM, or after ControlPersist's idle time should the holder be killed).
 */
#ifndef WK_SSH_WARM_H
#define WK_SSH_WARM_H

#include <stddef.h>
#include <stdint.h>

#include "ssh.h"

#define WARM_SLOTS		4	/* connections per box at most (looks at once) */
#define WARM_IDLE_S		60	/* default: a connection unused this long is closed */
#define WARM_CMD_MAX		(1024 * 1024)
#define WARM_IN_MAX		(64 * 1024 * 1024)
#define WARM_CAP_MAX		((uint64_t)256 * 1024 * 1024)

/*
 * Start warm looks for this process and its children: a private directory
 * (0700) for the holders' sockets.  idle_s <= 0: $WATCHKEEPER_WARM_IDLE_S,
 * else WARM_IDLE_S.  0, or -1 (errno) when the directory cannot be made, and
 * then every look is cold.  Calling it again is a no-op.
 */
int warm_init(int idle_s);
/* In the owner: end every holder (their sockets go; each closes its connection) and the directory. */
void warm_shutdown(void);
/* 1 when warm_init ran in this process or one it was forked from. */
int warm_active(void);
/* The private directory ("" when not active), for tests and messages. */
const char *warm_dir(void);

enum warm_res {
	WARM_DONE = 0,		/* the command ran: res filled (caller frees) */
	WARM_FAIL = -1,		/* err says why (as ssh_connect/ssh_exec would) */
	WARM_NONE = 1,		/* no warm way (not active, no command, every slot busy): go cold */
	WARM_WATCH = 2,		/* watch_fd became readable: the look was abandoned */
};

/*
 * One look: command with in on its stdin, stdout kept up to cap, bounded by
 * deadline_ms (the connect too when the holder has to connect).  watch_fd
 * >= 0: when it becomes readable the look is abandoned (the holder closes
 * its channel) and WARM_WATCH returned, watch_fd not read.
 */
enum warm_res warm_exec(const struct ssh_target *t, const char *command, const void *in,
    size_t inlen, size_t cap, int deadline_ms, int watch_fd, struct ssh_result *res,
    struct ssh_error *err);

#endif
