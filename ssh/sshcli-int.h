/*
 * sshcli-int.h: what the parts of the openssh transport share (sshcli.c:
 * the master, connect, commands, close; sshcli-argv.c: ssh's command lines;
 * sshcli-proc.c: running ssh bounded, and the processes that are ours;
 * sshcli-log.c: ssh's own lines turned into an ssh_error).  Private to them.
 */
#ifndef WK_SSH_SSHCLI_INT_H
#define WK_SSH_SSHCLI_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "monotime.h"
#include "ssh.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

#define SSHCLI_ERR_KEEP		(64 * 1024)	/* a command's stderr kept */
#define SSHCLI_LOG_KEEP		(64 * 1024)	/* the tail of an ssh log read to classify */
#define SSHCLI_CHUNK		65536
#define SSHCLI_LINE_MAX		300	/* ssh's own line, quoted in a message */
#define SSHCLI_PROCS_MAX	32	/* helpers remembered per connection */
/* ssh binds "<ControlPath>.<16 random characters>" and then links it into place. */
#define SSHCLI_SUN_EXTRA	17
/* After SIGTERM, this long before SIGKILL. */
#define SSHCLI_TERM_MS		300
/* `-O exit` and the master's going, on top of whatever the deadline left. */
#define SSHCLI_BYE_MS		2000
/* How often a finished ssh is looked at while it exits. */
#define SSHCLI_REAP_POLL_MS	2

struct sshcli_proc {
	pid_t			 pid;
	uint64_t		 start;		/* proc_info's start: with pid, an identity */
};

struct sshcli_procs {
	struct sshcli_proc	 p[SSHCLI_PROCS_MAX];
	size_t			 n;
};

struct sshcli_argv {
	char	**v;		/* NULL-terminated */
	size_t	  n;
};

struct sshcli_conn {
	char			*label;		/* "alias (host port N)", for messages */
	char			*dest;		/* what ssh is asked to reach: the alias */
	char			*path;		/* control socket, as on disk */
	char			*path_arg;	/* the same with % doubled, as ssh takes it */
	char			*client_log;	/* a command's client log (-E), removed after it */
	char			*advice;	/* "ssh -F ... -p N", for commands in messages */
	char			*qdest;		/* dest, quoted for a shell */
	struct sshcli_argv	 common;	/* options every ssh of this connection gets */
	struct deadline		 deadline;
	int			 deadline_ms;
	struct sshcli_proc	 master;	/* the daemon; pid 0: none known */
	struct sshcli_procs	 helpers;	/* left in the master's start group (ProxyJump) */
	int			 logfd;		/* the master's log: an unlinked file */
	int			 started;	/* a master was launched */
	int			 broken;	/* only closing is left */
	int			 cancel_fd;	/* readable or hung up: end the command now; -1 none */
};

/* One ssh run: what goes in, what came out. */
struct sshcli_run {
	const char	*in;
	size_t		 inlen;
	size_t		 cap;		/* stdout kept; the rest is read and counted */
	int		 err_fd;	/* >= 0: the child's stderr goes there, uncaptured */
	struct buf	 out, err;
	int		 truncated;
	int		 status;	/* waitpid status */
	int		 timed_out;	/* the deadline ended it */
	int		 cancelled;	/* c->cancel_fd ended it (timed_out is set too) */
	pid_t		 pid;		/* (reaped) also its process group */
};

/* sshcli-argv.c: the ssh command lines of a connection */
void sshcli_av_free(struct sshcli_argv *a);
void sshcli_pct(struct buf *b, const char *s);
void sshcli_common(struct sshcli_conn *c, const struct ssh_target *t);
char * sshcli_byhand(const struct sshcli_conn *c, const char *extra);
void sshcli_argv_build(struct sshcli_conn *c, struct sshcli_argv *a, const char *const *pre,
    const char *const *post, const char *command);

/* sshcli-proc.c: running ssh, and knowing our processes */
int sshcli_proc_alive(const struct sshcli_proc *pr);
void sshcli_proc_find(const struct sshcli_conn *c, pid_t pgrp, struct sshcli_procs *out);
int sshcli_procs_wait(const struct sshcli_procs *ps, uint64_t ms);
void sshcli_procs_end(const struct sshcli_procs *ps, uint64_t grace_ms);
int sshcli_run(const struct sshcli_conn *c, char *const argv[], const struct deadline *dl,
    struct sshcli_run *r, struct ssh_error *err);
void sshcli_run_init(struct sshcli_run *r);
void sshcli_run_free(struct sshcli_run *r);

/* sshcli-log.c: ssh's own lines read and classified */
void sshcli_log_read(int fd, int debug, struct buf *b);
int sshcli_log_line(const char *log, const char *needle, char *out, size_t outlen);
void sshcli_classify(struct sshcli_conn *c, const char *log, enum ssh_fail dflt, const char *doing,
    struct ssh_error *err);

#endif
