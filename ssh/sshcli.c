/*
 * sshcli.c: the openssh transport, ssh.h's API on the system `ssh` client
 * (see sshcli.h).
 *
 * One connection is one ControlMaster, started with -N -f: its first
 * process exits once the connection is authenticated and the control socket
 * listens, which is the readiness signal (exit 0) or the failure (255, with
 * ssh's own lines in its log).  The master lives on as a daemon; `-O check`
 * gives its pid, close asks it to go (-O exit) and makes sure by pid.
 * ControlPersist is the connection's time limit, so a master whose owner was
 * killed ends by itself soon after its last command instead of never.  Each
 * command is a mux client of it (ControlMaster=no), so one TCP connection and
 * one authentication serve a whole tick.
 *
 * Logs.  The master logs (LogLevel INFO) into an unlinked file: that file is
 * its stderr and its -E /dev/fd/2, which keeps the log when ssh points stderr
 * at /dev/null as it daemonizes, and a ProxyJump helper writes there too.
 * So "Timeout, server not responding" can explain a lost connection later,
 * and nothing is ever left on disk.  Each command's client logs at DEBUG2 to
 * a file of its own (-E), apart from the command's stderr, which the master
 * writes straight into our pipe: the client's "Received exit status from
 * master N" tells a command's own exit 255 from ssh's, and "Control master
 * terminated unexpectedly" with the master still answering is a command
 * killed by a signal (ssh does not say which).  The command itself is sent
 * exactly as given, unwrapped, as libssh2 sends it.
 *
 * Host keys: StrictHostKeyChecking=yes, UpdateHostKeys=no, CheckHostIP=no on
 * every call, so a new or changed key is never accepted and known_hosts never
 * written.  Failures are classified from ssh's own words by one table.
 *
 * Processes.  Every ssh runs in a process group of its own (a ProxyCommand /
 * ProxyJump helper shares it) with its streams on pipes read together and
 * bounded; at the deadline the group gets SIGTERM, then SIGKILL, and the
 * client is reaped.  The master and the helpers left in its first process's
 * group are remembered as (pid, start time), so what close signals is
 * exactly what this connection started, whatever pids the system reuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "monotime.h"
#include "spawn.h"
#include "sshcli.h"
#include "sshq.h"
#include "xmalloc.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

#define SSHCLI_ERR_KEEP		(64 * 1024)	/* a command's stderr kept */
#define SSHCLI_LOG_KEEP		(64 * 1024)	/* the tail of an ssh log read to classify */
#define SSHCLI_CHUNK		65536
#define SSHCLI_LINE_MAX		300	/* ssh's own line, quoted in a message */
#define SSHCLI_CMDLINE_MAX	(16 * 1024)	/* of /proc/PID/cmdline, to recognise ours */
#define SSHCLI_PROCS_MAX	32	/* helpers remembered per connection */
/* ssh binds "<ControlPath>.<16 random characters>" and then links it into place. */
#define SSHCLI_SUN_EXTRA	17
/* After SIGTERM, this long before SIGKILL. */
#define SSHCLI_TERM_MS		300
/* `-O exit` and the master's going, on top of whatever the deadline left. */
#define SSHCLI_BYE_MS		2000
/* How often a finished ssh is looked at while it exits. */
#define SSHCLI_REAP_POLL_MS	2

/* Options on every ssh of a connection (after -F, before the box's own). */
static const char *const sshcli_fixed_opts[] = {
	"BatchMode=yes",		/* never a prompt: a prompt would wait forever */
	"StrictHostKeyChecking=yes",	/* never accept a new or changed key */
	"UpdateHostKeys=no",		/* never write known_hosts */
	"CheckHostIP=no",		/* (nor the address's entries) */
	"ClearAllForwardings=yes",	/* the user's LocalForward ... are not ours to open */
	"ForwardAgent=no",		/* no agent on a rented box */
	"ForwardX11=no",
	"PermitLocalCommand=no",
	"RequestTTY=no",
	"VisualHostKey=no",
};

struct sshcli_proc {
	pid_t			 pid;
	unsigned long long	 start;		/* clock ticks after boot: with pid, an identity */
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
	pid_t		 pid;		/* (reaped) also its process group */
};

/* ssh's words -> what happened and what to do; the first row found in the log wins. */
enum sshcli_hint { HINT_NONE, HINT_KEYGEN, HINT_TRUST, HINT_BYHAND };

static const struct sshcli_fail_row {
	const char	*needle;	/* in ssh's own lines */
	const char	*quote;		/* the line to quote when another than the needle's */
	enum ssh_fail	 kind;
	const char	*what;
	const char	*todo;		/* %s: per hint */
	enum sshcli_hint hint;
} sshcli_fail_table[] = {
	{ "REVOKED HOST KEY", "was revoked", SSH_FAIL_HOSTKEY_MISMATCH,
	  "the server presents a host key that known_hosts marks @revoked",
	  "Refused; known_hosts is never changed by watchkeeper. Find out why the key was "
	  "revoked before trusting this host.", HINT_NONE },
	{ "REMOTE HOST IDENTIFICATION HAS CHANGED", "has changed and you have requested",
	  SSH_FAIL_HOSTKEY_MISMATCH, "the host key has CHANGED",
	  "Refused; known_hosts is never overwritten. If the box was rebuilt or re-rented, "
	  "confirm the new fingerprint with the provider (web console), then remove the old "
	  "entry (%s) and add the new one; if nothing changed on your side, someone may be "
	  "intercepting the connection.", HINT_KEYGEN },
	{ "has changed and you have requested", NULL, SSH_FAIL_HOSTKEY_MISMATCH,
	  "the host key has CHANGED",
	  "Refused; known_hosts is never overwritten. Confirm the new fingerprint with the "
	  "provider (web console) before replacing the entry (%s).", HINT_KEYGEN },
	{ "host key is known for", NULL, SSH_FAIL_HOSTKEY_UNKNOWN, "the host key is not known",
	  "Check the server's fingerprint against the provider's console, then trust it by "
	  "connecting once by hand and answering yes: %s. known_hosts is never written by "
	  "watchkeeper.", HINT_TRUST },
	{ "Host key verification failed", NULL, SSH_FAIL_HOSTKEY_MISMATCH,
	  "the host key could not be verified",
	  "Refused; known_hosts is never changed by watchkeeper. See why with: %s",
	  HINT_BYHAND },
	{ "Permission denied", NULL, SSH_FAIL_AUTH, "no key was accepted",
	  "Check that the key's .pub is in the box's authorized_keys (box.identity, the "
	  "IdentityFile of ssh_config, or a key in ssh-agent); see with: %s", HINT_BYHAND },
	{ "Too many authentication failures", NULL, SSH_FAIL_AUTH,
	  "the server gave up after too many keys were offered",
	  "Set box.identity (or IdentitiesOnly yes with one IdentityFile).", HINT_NONE },
	{ "Could not resolve hostname", NULL, SSH_FAIL_RESOLVE, "cannot resolve the host name",
	  "Check box.host and the HostName that ssh_config gives it.", HINT_NONE },
	{ "Connection refused", NULL, SSH_FAIL_CONNECT, "the connection was refused",
	  "Is the box up, sshd running there, and the port right?", HINT_NONE },
	{ "timed out", NULL, SSH_FAIL_CONNECT, "no answer",
	  "Is the box up? Is the address or port wrong, or a firewall dropping it?", HINT_NONE },
	{ "No route to host", NULL, SSH_FAIL_CONNECT, "no route to the box",
	  "Is the box up, and the address right?", HINT_NONE },
	{ "Network is unreachable", NULL, SSH_FAIL_CONNECT, "the network is unreachable",
	  "Is this machine online?", HINT_NONE },
	{ "Unable to negotiate", NULL, SSH_FAIL_HANDSHAKE, "no algorithm both sides accept",
	  "See with: %s", HINT_BYHAND },
	{ "kex_exchange_identification", NULL, SSH_FAIL_HANDSHAKE,
	  "the server closed the connection before the SSH handshake",
	  "Is it an SSH server? Is it overloaded (MaxStartups)?", HINT_NONE },
	{ "Connection reset", NULL, SSH_FAIL_HANDSHAKE, "the connection was reset",
	  "Is it an SSH server? Is it overloaded (MaxStartups)?", HINT_NONE },
	{ "Connection closed by", NULL, SSH_FAIL_HANDSHAKE, "the server closed the connection",
	  "See with: %s", HINT_BYHAND },
	{ "ad configuration option", NULL, SSH_FAIL_UNSUPPORTED,
	  "ssh rejects the configuration", "Fix the ssh_config file it names.", HINT_NONE },
	{ "too long for Unix domain socket", NULL, SSH_FAIL_EXEC,
	  "the control socket's path is too long", "Use a shorter $XDG_STATE_HOME.", HINT_NONE },
};

static void
sshcli_result_clear(struct ssh_result *r)
{
	free(r->out);
	free(r->err);
	free(r->exit_signal);
	memset(r, 0, sizeof(*r));
	r->exit_status = -1;
}

/* ---- argv ---- */

static void
sshcli_av_add(struct sshcli_argv *a, const char *s)
{
	a->v = xreallocarray(a->v, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void sshcli_av_addf(struct sshcli_argv *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sshcli_av_addf(struct sshcli_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("out of memory");
	va_end(ap);
	sshcli_av_add(a, s);
	free(s);
}

static void
sshcli_av_addv(struct sshcli_argv *a, const struct sshcli_argv *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		sshcli_av_add(a, from->v[i]);
}

static void
sshcli_av_free(struct sshcli_argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

/* s with every % doubled: ssh expands %-tokens in paths, ours are literal. */
static void
sshcli_pct(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '%')
			buf_putc(b, '%');
		buf_putc(b, *s);
	}
}

/* A path as an ssh option value: literal %, double-quoted (\ and " escaped) against splitting. */
static void
sshcli_optpath(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			buf_putc(b, '\\');
		if (*s == '%')
			buf_putc(b, '%');
		buf_putc(b, *s);
	}
	buf_putc(b, '"');
}

/*
 * The options every ssh of this connection gets, and the box's part of them
 * as the start of a command a person can paste (c->advice).
 */
static void
sshcli_common(struct sshcli_conn *c, const struct ssh_target *t)
{
	struct sshcli_argv *a = &c->common;
	struct buf v = BUF_INIT, adv = BUF_INIT;
	size_t i;
	char *q;

	buf_puts(&adv, "ssh");
	if (t->ssh_config_file != NULL) {
		sshcli_av_add(a, "-F");
		sshcli_av_add(a, t->ssh_config_file);
		q = sshq_quote(t->ssh_config_file);
		buf_printf(&adv, " -F %s", q);
		free(q);
	}
	for (i = 0; i < nitems(sshcli_fixed_opts); i++) {
		sshcli_av_add(a, "-o");
		sshcli_av_add(a, sshcli_fixed_opts[i]);
	}
	if (t->connect_timeout_s > 0)
		sshcli_av_addf(a, "-oConnectTimeout=%d", t->connect_timeout_s);
	sshcli_av_addf(a, "-oServerAliveInterval=%d", t->keepalive_s > 0 ? t->keepalive_s : 10);
	sshcli_av_addf(a, "-oServerAliveCountMax=%d", t->keepalive_max > 0 ? t->keepalive_max : 3);
	sshcli_av_add(a, "-S");
	sshcli_av_add(a, c->path_arg);
	if ((t->given & SSH_GIVEN_PORT) && t->port > 0) {
		sshcli_av_addf(a, "-p%d", t->port);
		buf_printf(&adv, " -p %d", t->port);
	}
	if ((t->given & SSH_GIVEN_USER) && t->user != NULL) {
		sshcli_av_add(a, "-l");
		sshcli_av_add(a, t->user);
		q = sshq_quote(t->user);
		buf_printf(&adv, " -l %s", q);
		free(q);
	}
	for (i = 0; (t->given & SSH_GIVEN_IDENTITY) && i < t->nidentities; i++) {
		buf_reset(&v);
		sshcli_pct(&v, t->identities[i]);
		sshcli_av_add(a, "-i");
		sshcli_av_add(a, buf_str(&v));
		q = sshq_quote(buf_str(&v));
		buf_printf(&adv, " -i %s", q);
		free(q);
	}
	if (t->given & SSH_GIVEN_IDENTITIES_ONLY) {
		sshcli_av_add(a, "-oIdentitiesOnly=yes");
		buf_puts(&adv, " -o IdentitiesOnly=yes");
	}
	if ((t->given & SSH_GIVEN_KNOWN_HOSTS) && t->nknown_hosts > 0) {
		buf_reset(&v);
		buf_puts(&v, "UserKnownHostsFile=");
		for (i = 0; i < t->nknown_hosts; i++) {
			if (i > 0)
				buf_putc(&v, ' ');
			sshcli_optpath(&v, t->known_hosts[i]);
		}
		sshcli_av_add(a, "-o");
		sshcli_av_add(a, buf_str(&v));
		q = sshq_quote(buf_str(&v));
		buf_printf(&adv, " -o %s", q);
		free(q);
	}
	c->qdest = sshq_quote(c->dest);
	c->advice = buf_detach(&adv);	/* transferred */
	buf_free(&v);
}

/* "ssh <the box's options> [extra] <dest> true": to try by hand.  Caller frees. */
static char *
sshcli_byhand(const struct sshcli_conn *c, const char *extra)
{
	return xstrfmt("%s%s%s %s true", c->advice, extra != NULL ? " " : "",
	    extra != NULL ? extra : "", c->qdest);
}

/* ssh <pre...> <common> <post...> -- dest [command]: a new argv. */
static void
sshcli_argv_build(struct sshcli_conn *c, struct sshcli_argv *a, const char *const *pre,
    const char *const *post, const char *command)
{
	size_t i;

	sshcli_av_add(a, "ssh");
	for (i = 0; pre != NULL && pre[i] != NULL; i++)
		sshcli_av_add(a, pre[i]);
	sshcli_av_addv(a, &c->common);
	for (i = 0; post != NULL && post[i] != NULL; i++)
		sshcli_av_add(a, post[i]);
	sshcli_av_add(a, "--");
	sshcli_av_add(a, c->dest);
	if (command != NULL)
		sshcli_av_add(a, command);
}

/* ---- processes ---- */

/* /proc/PID/stat: state, group, session, start time (ticks after boot).  0, or -1 when gone. */
static int
sshcli_proc_stat(pid_t pid, pid_t *pgrp, pid_t *sid, unsigned long long *start, char *state)
{
	char path[64], buf[1024], *p;
	unsigned long long v;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The name may hold anything, ')' too: the fields start after the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return -1;
	*state = p[2];
	p += 3;
	/* Field 3 is the state; 5 the process group, 6 the session, 22 the start time. */
	for (field = 4; field <= 22; field++) {
		while (*p == ' ')
			p++;
		v = strtoull(p, &p, 10);
		if (field == 5)
			*pgrp = (pid_t)v;
		else if (field == 6)
			*sid = (pid_t)v;
		else if (field == 22)
			*start = v;
	}
	return 0;
}

/* Is (pid, start) still that process, and not a zombie? */
static int
sshcli_proc_alive(const struct sshcli_proc *pr)
{
	unsigned long long start;
	pid_t pgrp, sid;
	char state;

	if (pr->pid <= 0 || sshcli_proc_stat(pr->pid, &pgrp, &sid, &start, &state) != 0)
		return 0;
	return start == pr->start && state != 'Z' && state != 'X';
}

/* Does pid's command line hold "-S" then this connection's control path? */
static int
sshcli_proc_ours(const struct sshcli_conn *c, pid_t pid)
{
	char path[64], *buf, *p, *end, *prev = NULL;
	ssize_t n;
	size_t len = 0;
	int fd, ours = 0;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	buf = xmalloc(SSHCLI_CMDLINE_MAX + 1);
	while (len < SSHCLI_CMDLINE_MAX &&
	    (n = read(fd, buf + len, SSHCLI_CMDLINE_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	end = buf + len;
	for (p = buf; p < end && !ours; p += strlen(p) + 1) {
		ours = prev != NULL && strcmp(prev, "-S") == 0 && strcmp(p, c->path_arg) == 0;
		prev = p;
	}
	free(buf);
	return ours;
}

/*
 * Processes in group pgrp (> 0) of our session, or, with pgrp 0, processes
 * carrying this connection's control path: added to out with their start
 * times.
 */
static void
sshcli_proc_find(const struct sshcli_conn *c, pid_t pgrp, struct sshcli_procs *out)
{
	struct dirent *de;
	unsigned long long start;
	DIR *d;
	pid_t pid, g, sid, mysid = getsid(0);
	char state, *end;

	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL && out->n < SSHCLI_PROCS_MAX) {
		pid = (pid_t)strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end != '\0' || pid == getpid())
			continue;
		if (sshcli_proc_stat(pid, &g, &sid, &start, &state) != 0 || state == 'Z')
			continue;
		if (pgrp > 0 ? g != pgrp || sid != mysid : !sshcli_proc_ours(c, pid))
			continue;
		out->p[out->n].pid = pid;
		out->p[out->n].start = start;
		out->n++;
	}
	closedir(d);
}

/* Wait up to ms for every process in ps to be gone; 1 when they are. */
static int
sshcli_procs_wait(const struct sshcli_procs *ps, uint64_t ms)
{
	struct deadline dl;
	size_t i;
	int left;

	deadline_set(&dl, ms);
	for (;;) {
		for (i = 0, left = 0; i < ps->n; i++)
			left += sshcli_proc_alive(&ps->p[i]);
		if (left == 0)
			return 1;
		if (deadline_expired(&dl))
			return 0;
		(void)poll(NULL, 0, 5);
	}
}

/* End what is left of ps (not our children): a grace of grace_ms, SIGTERM, SIGKILL. */
static void
sshcli_procs_end(const struct sshcli_procs *ps, uint64_t grace_ms)
{
	size_t i;
	int sig;

	if (sshcli_procs_wait(ps, grace_ms))
		return;
	for (sig = SIGTERM;; sig = SIGKILL) {
		for (i = 0; i < ps->n; i++)
			if (sshcli_proc_alive(&ps->p[i])) {
				log_debug("sending signal %d to ssh process %ld", sig, (long)ps->p[i].pid);
				(void)kill(ps->p[i].pid, sig);
			}
		if (sshcli_procs_wait(ps, SSHCLI_TERM_MS) || sig == SIGKILL)
			break;
	}
}

/* Has our child pid exited?  (It stays unreaped, so its group id stays its own.) */
static int
sshcli_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
		return errno != EINTR;
	return si.si_pid == pid;
}

/* End our child pid and its group: SIGTERM, a grace, SIGKILL; then reap it. */
static void
sshcli_kill(pid_t pid, int *status)
{
	struct deadline dl;

	(void)kill(-pid, SIGTERM);
	deadline_set(&dl, SSHCLI_TERM_MS);
	while (!sshcli_exited(pid) && !deadline_expired(&dl))
		(void)poll(NULL, 0, SSHCLI_REAP_POLL_MS);
	/* Also whatever it started in its group (a ProxyCommand) that outlived it. */
	(void)kill(-pid, SIGKILL);
	(void)spawn_wait(pid, status);
}

static void
sshcli_nonblock(int fd)
{
	int fl;

	if (fd >= 0 && (fl = fcntl(fd, F_GETFL)) >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void
sshcli_closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read what fd has into b, keeping up to keep bytes in all. 0 more may come, 1 EOF. */
static int
sshcli_drain(int fd, struct buf *b, size_t keep, int *truncated, char *chunk)
{
	ssize_t n;
	size_t k;

	for (;;) {
		n = read(fd, chunk, SSHCLI_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : 1;
		if (n == 0)
			return 1;
		k = b->len < keep ? keep - b->len : 0;
		if (k > (size_t)n)
			k = (size_t)n;
		if (k > 0)
			buf_append(b, chunk, k);
		if (k < (size_t)n && truncated != NULL)
			*truncated = 1;
	}
}

/*
 * Run argv with r's input, collecting stdout (r->cap) and stderr (64 KiB)
 * together until both end and it exits, or until dl: then its group is
 * ended (r->timed_out).  0 with r->status, or -1 when it could not be
 * started (err).
 */
static int
sshcli_run(const struct sshcli_conn *c, char *const argv[], const struct deadline *dl,
    struct sshcli_run *r, struct ssh_error *err)
{
	struct spawn_opts o;
	struct pollfd pfd[3];
	char *chunk = NULL;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int ret = -1, n, rc, i_in, i_out, i_err;
	size_t off = 0;
	ssize_t w;
	pid_t pid;

	r->status = 255 << 8;	/* as ssh's own failure, should waitpid have nothing to say */
	r->timed_out = 0;
	r->pid = 0;
	/* A socket, not a pipe: send() with MSG_NOSIGNAL needs no SIGPIPE handling. */
	if (r->inlen > 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0)
		goto sysfail;
	if (pipe2(out, O_CLOEXEC) != 0 || (r->err_fd < 0 && pipe2(ep, O_CLOEXEC) != 0))
		goto sysfail;
	spawn_opts_init(&o);
	o.fd_in = in[1] >= 0 ? in[1] : SPAWN_DEVNULL;
	o.fd_out = out[1];
	o.fd_err = r->err_fd >= 0 ? r->err_fd : ep[1];
	o.new_pgrp = 1;
	pid = spawn_argv(argv, &o);
	sshcli_closefd(&in[1]);
	sshcli_closefd(&out[1]);
	sshcli_closefd(&ep[1]);
	if (pid < 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: cannot run ssh: %s (install the OpenSSH client, "
		    "or use \"transport\": \"libssh2\")", c->label, strerror(errno));
		goto out;
	}
	r->pid = pid;
	sshcli_nonblock(in[0]);
	sshcli_nonblock(out[0]);
	sshcli_nonblock(ep[0]);
	chunk = xmalloc(SSHCLI_CHUNK);
	while (in[0] >= 0 || out[0] >= 0 || ep[0] >= 0) {
		n = 0;
		i_in = i_out = i_err = -1;
		if (in[0] >= 0) {
			pfd[n].fd = in[0];
			pfd[n].events = POLLOUT;
			i_in = n++;
		}
		if (out[0] >= 0) {
			pfd[n].fd = out[0];
			pfd[n].events = POLLIN;
			i_out = n++;
		}
		if (ep[0] >= 0) {
			pfd[n].fd = ep[0];
			pfd[n].events = POLLIN;
			i_err = n++;
		}
		if (deadline_expired(dl)) {
			r->timed_out = 1;
			break;
		}
		rc = poll(pfd, (nfds_t)n, deadline_poll_timeout(dl, 1, -1));
		if (rc < 0 && errno != EINTR) {
			r->timed_out = 1;	/* cannot wait: end it like a deadline */
			break;
		}
		if (rc <= 0)
			continue;
		if (i_in >= 0 && pfd[i_in].revents != 0) {
			w = send(in[0], r->in + off, r->inlen - off < SSHCLI_CHUNK ?
			    r->inlen - off : SSHCLI_CHUNK, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0)
				off += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				/* The command stopped reading (or ended): the rest is moot. */
				log_debug("stdin not taken after %zu bytes: %s", off, strerror(errno));
				off = r->inlen;
			}
			if (off >= r->inlen)
				sshcli_closefd(&in[0]);	/* EOF for the command */
		}
		if (i_out >= 0 && pfd[i_out].revents != 0 &&
		    sshcli_drain(out[0], &r->out, r->cap, &r->truncated, chunk))
			sshcli_closefd(&out[0]);
		if (i_err >= 0 && pfd[i_err].revents != 0 &&
		    sshcli_drain(ep[0], &r->err, SSHCLI_ERR_KEEP, NULL, chunk))
			sshcli_closefd(&ep[0]);
	}
	/* Its streams are closed: it is exiting. */
	while (!r->timed_out && !sshcli_exited(pid)) {
		if (deadline_expired(dl))
			r->timed_out = 1;
		else
			(void)poll(NULL, 0, deadline_poll_timeout(dl, 1, SSHCLI_REAP_POLL_MS));
	}
	if (r->timed_out)
		sshcli_kill(pid, &r->status);
	else
		(void)spawn_wait(pid, &r->status);
	ret = 0;
	goto out;
sysfail:
	ssh_error_set(err, SSH_FAIL_EXEC, "%s: cannot start ssh: %s", c->label, strerror(errno));
out:
	sshcli_closefd(&in[0]);
	sshcli_closefd(&in[1]);
	sshcli_closefd(&out[0]);
	sshcli_closefd(&out[1]);
	sshcli_closefd(&ep[0]);
	sshcli_closefd(&ep[1]);
	free(chunk);
	return ret;
}

static void
sshcli_run_init(struct sshcli_run *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->out);
	buf_init(&r->err);
	r->err_fd = -1;
}

static void
sshcli_run_free(struct sshcli_run *r)
{
	buf_free(&r->out);
	buf_free(&r->err);
}

/* ---- ssh's words ---- */

/* Up to the last SSHCLI_LOG_KEEP bytes of the file at fd, without \r (and debug lines). */
static void
sshcli_log_read(int fd, int debug, struct buf *b)
{
	struct stat st;
	struct buf raw = BUF_INIT;
	char *line, *next;
	off_t from = 0;
	ssize_t n;
	size_t want;

	buf_reset(b);
	if (fd < 0 || fstat(fd, &st) != 0)
		return;
	if (st.st_size > SSHCLI_LOG_KEEP)
		from = st.st_size - SSHCLI_LOG_KEEP;
	want = (size_t)(st.st_size - from);
	buf_reserve(&raw, want + 1);
	while (raw.len < want) {
		n = pread(fd, raw.data + raw.len, want - raw.len, from + (off_t)raw.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		raw.len += (size_t)n;
	}
	raw.data[raw.len] = '\0';
	for (line = raw.data; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		if (*line == '\0' || (!debug && strncmp(line, "debug", 5) == 0))
			continue;
		buf_printf(b, "%s\n", line);
	}
	buf_free(&raw);
}

/* The log's line holding needle (NULL: the last line), cut, into out; 0 or -1 none. */
static int
sshcli_log_line(const char *log, const char *needle, char *out, size_t outlen)
{
	const char *p, *s, *e;

	out[0] = '\0';
	if (needle != NULL) {
		if ((p = strstr(log, needle)) == NULL)
			return -1;
		for (s = p; s > log && s[-1] != '\n'; s--)
			;
	} else {
		e = log + strlen(log);
		while (e > log && e[-1] == '\n')
			e--;
		if (e == log)
			return -1;
		for (s = e; s > log && s[-1] != '\n'; s--)
			;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	e = strchr(s, '\n');
	if (e == NULL)
		e = s + strlen(s);
	if ((size_t)(e - s) > SSHCLI_LINE_MAX)
		e = s + SSHCLI_LINE_MAX;
	snprintf(out, outlen, "%.*s", (int)(e - s), s);
	return 0;
}

/* The line after the one holding needle (ssh prints the fingerprint and the fix on their own). */
static void
sshcli_log_next(const char *log, const char *needle, char *out, size_t outlen)
{
	const char *p;

	out[0] = '\0';
	if ((p = strstr(log, needle)) != NULL && (p = strchr(p, '\n')) != NULL)
		(void)sshcli_log_line(p + 1, "", out, outlen);
}

/* Fill err from ssh's log: the first table row found, ssh's line, what to do. */
static void
sshcli_classify(struct sshcli_conn *c, const char *log, enum ssh_fail dflt, const char *doing,
    struct ssh_error *err)
{
	const struct sshcli_fail_row *row = NULL;
	char line[SSHCLI_LINE_MAX + 8], extra[SSHCLI_LINE_MAX + 8], todo[900], *cmd = NULL;
	const char *hint = "";
	size_t i;

	for (i = 0; i < nitems(sshcli_fail_table) && row == NULL; i++)
		if (strstr(log, sshcli_fail_table[i].needle) != NULL)
			row = &sshcli_fail_table[i];
	if (row == NULL) {
		if (sshcli_log_line(log, NULL, line, sizeof(line)) != 0)
			snprintf(line, sizeof(line), "it said nothing");
		cmd = sshcli_byhand(c, NULL);
		ssh_error_set(err, dflt, "%s: ssh failed while %s (ssh: %s); see with: %s", c->label,
		    doing, line, cmd);
		free(cmd);
		return;
	}
	if (row->quote == NULL || sshcli_log_line(log, row->quote, line, sizeof(line)) != 0)
		(void)sshcli_log_line(log, row->needle, line, sizeof(line));
	switch (row->hint) {
	case HINT_KEYGEN:
		sshcli_log_next(log, "remove with:", extra, sizeof(extra));
		hint = extra[0] != '\0' ? extra : "ssh-keygen -R HOST -f KNOWN_HOSTS";
		break;
	case HINT_TRUST:
		hint = cmd = sshcli_byhand(c, "-o BatchMode=no -o StrictHostKeyChecking=ask");
		break;
	case HINT_BYHAND:
		hint = cmd = sshcli_byhand(c, NULL);
		break;
	case HINT_NONE:
		break;
	}
	snprintf(todo, sizeof(todo), row->todo, hint);
	ssh_error_set(err, row->kind, "%s: %s (ssh: %s). %s", c->label, row->what, line, todo);
	if (row->kind == SSH_FAIL_HOSTKEY_MISMATCH) {
		sshcli_log_next(log, "key sent by the remote host is", extra, sizeof(extra));
		extra[strcspn(extra, " .")] = '\0';
		if (strncmp(extra, "SHA256:", 7) == 0)
			snprintf(err->fingerprint, sizeof(err->fingerprint), "%.100s", extra);
	}
	free(cmd);
}

/* ---- the master ---- */

static size_t
sshcli_sun_max(void)
{
	struct sockaddr_un sun;

	return sizeof(sun.sun_path) - 1 - SSHCLI_SUN_EXTRA;
}

char *
sshcli_control_path(const char *dir)
{
	static unsigned int seq;
	struct stat st;
	char *p = NULL, *tmp = NULL;
	int saved;

	seq++;
	if (dir != NULL) {
		p = xstrfmt("%s/cm-%ld-%u", dir, (long)getpid(), seq);
		if (strlen(p) <= sshcli_sun_max())
			goto out;
		free(p);
		p = NULL;
	}
	/* Too long (or no directory): a private one of ours under /tmp. */
	tmp = xstrfmt("/tmp/wk-%lu", (unsigned long)getuid());
	if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
		goto out;
	if (lstat(tmp, &st) != 0)
		goto out;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		errno = EPERM;
		goto out;
	}
	p = xstrfmt("%s/cm-%ld-%u", tmp, (long)getpid(), seq);
out:
	saved = errno;
	free(tmp);
	errno = saved;
	return p;
}

/* The socket path is free for a new master: a stale socket is removed, a live one refused. */
static int
sshcli_path_free(struct sshcli_conn *c, struct ssh_error *err)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd, live = 0;

	if (lstat(c->path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: control socket %s: %s", c->label, c->path,
		    strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: %s is in the way of the control socket",
		    c->label, c->path);
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", c->path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0) {
		live = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
		close(fd);
	}
	if (live) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: the control socket %s is in use by another "
		    "connection (one connection per target at a time)", c->label, c->path);
		return -1;
	}
	(void)unlink(c->path);
	return 0;
}

/* An unlinked file for the master's log, in the socket's private directory. */
static int
sshcli_logfile(struct sshcli_conn *c, struct ssh_error *err)
{
	char *tmpl = xstrfmt("%s.mXXXXXX", c->path);
	int r = -1;

	if ((c->logfd = mkostemp(tmpl, O_CLOEXEC | O_APPEND)) < 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: cannot create %s: %s", c->label, tmpl,
		    strerror(errno));
		goto out;
	}
	(void)unlink(tmpl);
	r = 0;
out:
	free(tmpl);
	return r;
}

/* ssh -O CMD: 0 with its stderr in *said (caller frees), or -1. */
static int
sshcli_control(struct sshcli_conn *c, const char *cmd, const struct deadline *dl, char **said)
{
	static const char *const pre[] = { "-oLogLevel=ERROR", "-oControlMaster=no", NULL };
	const char *post[] = { "-O", cmd, NULL };
	struct sshcli_argv a = { NULL, 0 };
	struct sshcli_run r;
	struct ssh_error scratch;
	int ret = -1;

	if (said != NULL)
		*said = NULL;
	sshcli_run_init(&r);
	r.cap = 4096;
	sshcli_argv_build(c, &a, pre, post, NULL);
	if (sshcli_run(c, a.v, dl, &r, &scratch) != 0)
		goto out;
	if (said != NULL)
		*said = xstrdup(buf_str(&r.err));
	ret = !r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 ? 0 : -1;
out:
	sshcli_run_free(&r);
	sshcli_av_free(&a);
	return ret;
}

/* Who is the master?  `-O check` says; the pid must carry our control path. */
static int
sshcli_master_find(struct sshcli_conn *c, struct ssh_error *err)
{
	char *said = NULL, *p, line[SSHCLI_LINE_MAX + 8];
	unsigned long long start;
	pid_t pid = 0, pgrp, sid;
	char state;
	int r = -1;

	if (sshcli_control(c, "check", &c->deadline, &said) == 0 &&
	    (p = strstr(said, "(pid=")) != NULL)
		pid = (pid_t)strtol(p + 5, NULL, 10);
	if (pid <= 0 || !sshcli_proc_ours(c, pid) ||
	    sshcli_proc_stat(pid, &pgrp, &sid, &start, &state) != 0) {
		if (sshcli_log_line(said != NULL ? said : "", NULL, line, sizeof(line)) != 0)
			snprintf(line, sizeof(line), "no answer");
		ssh_error_set(err, deadline_expired(&c->deadline) ? SSH_FAIL_TIMEOUT : SSH_FAIL_EXEC,
		    "%s: ssh connected, but its control master does not answer (ssh -O check: %s)",
		    c->label, line);
		goto out;
	}
	c->master.pid = pid;
	c->master.start = start;
	r = 0;
out:
	free(said);
	return r;
}

/* Start the master and wait until it is ready or has failed. */
static int
sshcli_master_start(struct sshcli_conn *c, struct ssh_error *err)
{
	struct sshcli_argv a = { NULL, 0 };
	struct sshcli_run r;
	struct buf log = BUF_INIT;
	char persist[48], line[SSHCLI_LINE_MAX + 8], *cmd = NULL;
	const char *pre[] = { "-oLogLevel=INFO", "-E", "/dev/fd/2", "-oControlMaster=yes",
	    persist, NULL };
	static const char *const post[] = { "-N", "-f", NULL };
	int ret = -1;

	/* Past the time limit it ends by itself, should nobody be left to close it. */
	snprintf(persist, sizeof(persist), "-oControlPersist=%ds", c->deadline_ms / 1000 + 2);
	sshcli_run_init(&r);
	r.cap = 4096;
	r.err_fd = c->logfd;
	sshcli_argv_build(c, &a, pre, post, NULL);
	c->started = 1;
	if (sshcli_run(c, a.v, &c->deadline, &r, err) != 0)
		goto out;
	/* A ProxyJump or ProxyCommand helper stays in the group: remember it by identity. */
	sshcli_proc_find(c, r.pid, &c->helpers);
	sshcli_log_read(c->logfd, 0, &log);
	if (r.timed_out) {
		if (sshcli_log_line(buf_str(&log), NULL, line, sizeof(line)) != 0)
			snprintf(line, sizeof(line), "nothing yet");
		cmd = sshcli_byhand(c, NULL);
		ssh_error_set(err, SSH_FAIL_CONNECT, "%s: no SSH connection within the connection's "
		    "time limit of %d ms (ssh said: %s). Is the box up? See with: %s", c->label,
		    c->deadline_ms, line, cmd);
		goto out;
	}
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
		sshcli_classify(c, buf_str(&log), SSH_FAIL_HANDSHAKE, "connecting", err);
		goto out;
	}
	if (sshcli_master_find(c, err) != 0)
		goto out;
	ret = 0;
out:
	free(cmd);
	buf_free(&log);
	sshcli_run_free(&r);
	sshcli_av_free(&a);
	return ret;
}

int
sshcli_connect(const struct ssh_target *t, int deadline_ms, struct sshcli_conn **out,
    struct ssh_error *err)
{
	struct ssh_error scratch;
	struct sshcli_conn *c;
	struct buf b = BUF_INIT;
	const char *host = t->host != NULL ? t->host : "";
	int ret = -1;

	if (err == NULL)
		err = &scratch;
	*out = NULL;
	memset(err, 0, sizeof(*err));
	c = xcalloc(1, sizeof(*c));
	c->logfd = -1;
	c->deadline_ms = deadline_ms > 0 ? deadline_ms : 1;
	deadline_set(&c->deadline, (uint64_t)c->deadline_ms);
	c->dest = xstrdup(t->alias != NULL && *t->alias != '\0' ? t->alias : host);
	if (*host == '\0')
		c->label = xstrdup(c->dest);
	else if (strcmp(c->dest, host) != 0)
		c->label = xstrfmt("%s (%s port %d)", c->dest, host, t->port > 0 ? t->port : 22);
	else
		c->label = xstrfmt("%s port %d", c->dest, t->port > 0 ? t->port : 22);
	if (*c->dest == '\0') {
		ssh_error_set(err, SSH_FAIL_RESOLVE, "no host name given");
		goto out;
	}
	c->path = t->control_path != NULL ? xstrdup(t->control_path) : sshcli_control_path(NULL);
	if (c->path == NULL) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: no private directory for ssh's control socket "
		    "(/tmp/wk-%lu): %s", c->label, (unsigned long)getuid(), strerror(errno));
		goto out;
	}
	if (strlen(c->path) > sshcli_sun_max()) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: the control socket path %s is longer than the "
		    "%zu bytes a unix socket allows", c->label, c->path, sshcli_sun_max());
		goto out;
	}
	sshcli_pct(&b, c->path);
	c->path_arg = buf_detach(&b);	/* transferred */
	c->client_log = xstrfmt("%s.log", c->path);
	sshcli_common(c, t);
	if (sshcli_path_free(c, err) != 0 || sshcli_logfile(c, err) != 0)
		goto out;
	if (sshcli_master_start(c, err) != 0)
		goto out;
	log_debug("%s: connected through ssh, master pid %ld", c->label, (long)c->master.pid);
	*out = c;
	c = NULL;	/* transferred */
	ret = 0;
out:
	sshcli_close(c);
	buf_free(&b);
	return ret;
}

/* ---- commands ---- */

/* Can a command still be run?  0, or -1 with err (and the connection broken). */
static int
sshcli_usable(struct sshcli_conn *c, struct ssh_error *err)
{
	struct buf log = BUF_INIT;
	char line[SSHCLI_LINE_MAX + 8];

	if (c->broken) {
		ssh_error_set(err, deadline_expired(&c->deadline) ? SSH_FAIL_TIMEOUT : SSH_FAIL_IO,
		    "%s: the connection is no longer usable", c->label);
		return -1;
	}
	if (deadline_expired(&c->deadline)) {
		c->broken = 1;
		ssh_error_set(err, SSH_FAIL_TIMEOUT, "%s: the connection's time limit of %d ms ran out",
		    c->label, c->deadline_ms);
		return -1;
	}
	if (sshcli_proc_alive(&c->master))
		return 0;
	c->broken = 1;
	sshcli_log_read(c->logfd, 0, &log);
	if (sshcli_log_line(buf_str(&log), NULL, line, sizeof(line)) != 0)
		snprintf(line, sizeof(line), "its control master exited");
	ssh_error_set(err, SSH_FAIL_IO, "%s: the connection ended (ssh: %s)", c->label, line);
	buf_free(&log);
	return -1;
}

/*
 * After a command's client exited with status st, having logged dlog (with
 * debug lines) and clog (without): the command's own exit status into
 * *exit_status (0), or a failure of ssh's (-1 with err).
 */
static int
sshcli_outcome(struct sshcli_conn *c, int st, const char *dlog, const char *clog,
    int *exit_status, struct ssh_error *err)
{
	static const char got[] = "Received exit status from master ";
	/* The mux client's own complaints (the master refused the session ...). */
	static const char *const mux[] = { "mux_client", "muxclient", "Control socket" };
	struct buf log = BUF_INIT;
	char line[SSHCLI_LINE_MAX + 8];
	const char *p;
	size_t i;
	int ret = -1;

	if (!WIFEXITED(st)) {
		c->broken = 1;
		ssh_error_set(err, SSH_FAIL_IO, "%s: the ssh client died by signal %d", c->label,
		    WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		goto out;
	}
	if ((p = strstr(dlog, got)) != NULL) {
		*exit_status = atoi(p + sizeof(got) - 1);
		ret = 0;
		goto out;
	}
	if (WEXITSTATUS(st) != 255) {
		/* A client that reached the box on its own (no master): the same status. */
		*exit_status = WEXITSTATUS(st);
		ret = 0;
		goto out;
	}
	if (strstr(dlog, "Control master terminated unexpectedly") != NULL) {
		/* The session ended without an exit status: killed, if the master still answers. */
		if (sshcli_proc_alive(&c->master) &&
		    sshcli_control(c, "check", &c->deadline, NULL) == 0) {
			*exit_status = -1;
			ret = 0;
			goto out;
		}
		c->broken = 1;
		sshcli_log_read(c->logfd, 0, &log);
		if (sshcli_log_line(buf_str(&log), NULL, line, sizeof(line)) != 0)
			snprintf(line, sizeof(line), "its control master exited");
		ssh_error_set(err, SSH_FAIL_IO, "%s: the connection ended while running the command "
		    "(ssh: %s)", c->label, line);
		goto out;
	}
	for (i = 0; i < nitems(mux); i++) {
		if (sshcli_log_line(clog, mux[i], line, sizeof(line)) != 0)
			continue;
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: ssh could not start the command on the "
		    "connection (ssh: %s)", c->label, line);
		goto out;
	}
	sshcli_classify(c, clog, SSH_FAIL_IO, "running the command", err);
out:
	buf_free(&log);
	return ret;
}

int
sshcli_exec(struct sshcli_conn *c, const char *command, const void *in, size_t inlen,
    size_t cap, struct ssh_result *res, struct ssh_error *err)
{
	static const char *const post[] = { "-oControlMaster=no", NULL };
	struct ssh_error scratch;
	struct sshcli_argv a = { NULL, 0 };
	struct sshcli_run r;
	struct buf dlog = BUF_INIT, clog = BUF_INIT;
	const char *pre[] = { "-oLogLevel=DEBUG2", "-E", c->client_log, NULL };
	int fd = -1, status = -1, ret = -1;

	if (err == NULL)
		err = &scratch;
	memset(err, 0, sizeof(*err));
	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	sshcli_run_init(&r);
	if (sshcli_usable(c, err) != 0)
		goto out;
	/* Ours, 0600, empty: ssh appends to it. */
	(void)unlink(c->client_log);
	if ((fd = open(c->client_log, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: cannot create %s: %s", c->label,
		    c->client_log, strerror(errno));
		goto out;
	}
	r.in = in;
	r.inlen = in != NULL ? inlen : 0;
	r.cap = cap;
	sshcli_argv_build(c, &a, pre, post, command);
	if (sshcli_run(c, a.v, &c->deadline, &r, err) != 0)
		goto out;
	if (r.timed_out) {
		c->broken = 1;
		ssh_error_set(err, SSH_FAIL_TIMEOUT, "%s: the connection's time limit of %d ms ran "
		    "out while running the command", c->label, c->deadline_ms);
		goto out;
	}
	sshcli_log_read(fd, 1, &dlog);
	sshcli_log_read(fd, 0, &clog);
	if (sshcli_outcome(c, r.status, buf_str(&dlog), buf_str(&clog), &status, err) != 0)
		goto out;
	res->exit_status = status;
	res->out_len = r.out.len;
	res->out = buf_detach(&r.out);	/* transferred */
	res->err_len = r.err.len;
	res->err = buf_detach(&r.err);	/* transferred */
	res->truncated = r.truncated;
	ret = 0;
out:
	if (fd >= 0) {
		close(fd);
		(void)unlink(c->client_log);
	}
	buf_free(&dlog);
	buf_free(&clog);
	sshcli_run_free(&r);
	sshcli_av_free(&a);
	if (ret != 0)
		sshcli_result_clear(res);
	return ret;
}

int
sshcli_put(struct sshcli_conn *c, const char *remote_path, const void *data, size_t len,
    int mode, struct ssh_error *err)
{
	struct ssh_error scratch;
	struct ssh_result res;
	struct buf script = BUF_INIT, cmd = BUF_INIT;
	char *tmp;
	int ret = -1;

	if (err == NULL)
		err = &scratch;
	memset(&res, 0, sizeof(res));
	tmp = xstrfmt("%s.wk-tmp.%ld", remote_path, (long)getpid());
	/*
	 * Written under umask 077 (nobody sees it before its mode is set),
	 * synced, given exactly mode, then renamed over the old file: one
	 * rename(2), so a reader sees the old file or the new, never a part.
	 * The marker: a server that forces its own command exits 0 too.
	 */
	buf_puts(&script, "umask 077; t=");
	sshq_append(&script, tmp);
	buf_puts(&script, "; p=");
	sshq_append(&script, remote_path);
	buf_printf(&script, "; cat > \"$t\" || { rm -f -- \"$t\"; exit 1; }; "
	    "sync -- \"$t\" 2>/dev/null; "
	    "chmod %04o -- \"$t\" && mv -f -- \"$t\" \"$p\" && echo wk-put-done && exit 0; "
	    "rm -f -- \"$t\"; exit 1", (unsigned int)mode & 07777);
	buf_puts(&cmd, "sh -c ");
	sshq_append(&cmd, buf_str(&script));
	if (sshcli_exec(c, buf_str(&cmd), data != NULL ? data : "", len, 4096, &res, err) != 0)
		goto out;
	if (res.exit_status != 0 || strcmp(res.out, "wk-put-done\n") != 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: cannot write %s on the box (exit %d): %.300s",
		    c->label, remote_path, res.exit_status, res.err != NULL ? res.err : "");
		goto out;
	}
	ret = 0;
out:
	sshcli_result_clear(&res);
	buf_free(&script);
	buf_free(&cmd);
	free(tmp);
	return ret;
}

void
sshcli_close(struct sshcli_conn *c)
{
	struct sshcli_procs left;
	struct deadline bye;
	struct stat st;

	if (c == NULL)
		return;
	memset(&left, 0, sizeof(left));
	if (c->master.pid > 0) {
		left.p[left.n++] = c->master;
		if (sshcli_proc_alive(&c->master)) {
			deadline_set(&bye, SSHCLI_BYE_MS);
			(void)sshcli_control(c, "exit", &bye, NULL);
			(void)sshcli_procs_wait(&left, deadline_left_ms(&bye));
		}
	} else if (c->started) {
		/* Launched but never identified: whatever carries our control path. */
		sshcli_proc_find(c, 0, &left);
	}
	sshcli_procs_end(&left, 0);
	/* Helpers see their master go and leave; a short grace, then they are ended. */
	sshcli_procs_end(&c->helpers, SSHCLI_TERM_MS);
	if (c->path != NULL && lstat(c->path, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)unlink(c->path);
	if (c->logfd >= 0)
		close(c->logfd);
	sshcli_av_free(&c->common);
	free(c->label);
	free(c->dest);
	free(c->path);
	free(c->path_arg);
	free(c->client_log);
	free(c->advice);
	free(c->qdest);
	free(c);
}
