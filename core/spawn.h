/*
 * spawn.h: the one way watchkeeper starts another program (tmux's job.c shape).
 *
 * Signals are blocked around fork; the child resets every disposition and its
 * mask, checks every dup2, marks every descriptor above 2 close-on-exec except
 * the ones it was asked to keep, and only then execs.  A failure in the child
 * before or at exec is reported back through a close-on-exec pipe, so the
 * caller gets the real errno instead of an exit status 127 to guess from.
 * spawn_sh and spawn_argv can hold the child until the parent has recorded
 * it (spawn_opts.started); spawn_fork does not exec and ignores it.
 */
#ifndef WK_SPAWN_H
#define WK_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#define SPAWN_DEVNULL	(-1)	/* connect the stream to /dev/null */
#define SPAWN_INHERIT	(-2)	/* leave the stream as the parent has it */
#define SPAWN_STDOUT	(-3)	/* stderr only: same as stdout */

struct spawn_opts {
	const char	*cwd;		/* NULL: inherit */
	int		 fd_in;		/* a descriptor, SPAWN_DEVNULL or SPAWN_INHERIT */
	int		 fd_out;
	int		 fd_err;	/* also SPAWN_STDOUT */
	int		 new_session;	/* setsid(): no controlling tty, own session */
	int		 new_pgrp;	/* setpgid(0, 0) (implied by new_session) */
	const int	*keep_fds;	/* descriptors that stay open in the child */
	size_t		 nkeep;
	char *const	*env;		/* NULL: the parent's environment */
	/*
	 * Called in the parent once the child exists and before it execs: the
	 * child waits for the call to return, so what the callback records
	 * (the child's pid, its identity) is on disk before the program runs
	 * a single instruction.  NULL: the child goes straight on.
	 */
	void		(*started)(pid_t pid, void *arg);
	void		*started_arg;
};

/* Options with every stream on /dev/null and nothing else set. */
void spawn_opts_init(struct spawn_opts *o);

/*
 * Run `/bin/sh -c cmd`.  Returns the child's pid (> 0), or WK_ERR_EXEC with
 * errno set to the child's failure (chdir, dup2, exec ...), or WK_ERR_SYSTEM
 * when fork itself failed.
 */
pid_t spawn_sh(const char *cmd, const struct spawn_opts *o);

/* Run argv[0] found on PATH with argv.  Same returns as spawn_sh. */
pid_t spawn_argv(char *const argv[], const struct spawn_opts *o);

/*
 * Fork with the same child preparation but no exec, closing every descriptor
 * above 2 except keep_fds: returns 0 in the child
 * (which must leave with _exit), the pid in the parent, WK_ERR_SYSTEM on
 * failure.  The child _exit(127)s if its preparation fails.
 */
pid_t spawn_fork(const struct spawn_opts *o);

/* waitpid() retrying EINTR.  0 and *status, or WK_ERR_SYSTEM. */
int spawn_wait(pid_t pid, int *status);

/*
 * Run argv, wait, and capture up to cap bytes of its stdout (stderr goes to
 * /dev/null unless SPAWN_INHERIT is wanted: pass inherit_err).  Returns 0 with
 * *status and *out (NUL-terminated, caller frees), or a negative code.
 */
int spawn_capture(char *const argv[], size_t cap, int inherit_err, int *status, char **out);

#endif
