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
#include "err.h"
#include "log.h"
#include "monotime.h"
#include "portable.h"
#include "proc.h"
#include "spawn.h"
#include "sshcli-int.h"
#include "sshcli.h"
#include "sshq.h"
#include "transport.h"
#include "xmalloc.h"

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
		    wk_strerror(WK_ERR_SYSTEM));
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
	if ((fd = wk_socket(AF_UNIX, SOCK_STREAM, 0, 0)) >= 0) {
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
		    wk_strerror(WK_ERR_SYSTEM));
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
	struct proc_info pi;
	pid_t pid = 0;
	int r = -1;

	if (sshcli_control(c, "check", &c->deadline, &said) == 0 &&
	    (p = strstr(said, "(pid=")) != NULL)
		pid = (pid_t)strtol(p + 5, NULL, 10);
	if (pid <= 0 || !proc_cmdline_pair(pid, "-S", c->path_arg) ||
	    proc_info(pid, &pi) != 0) {
		if (sshcli_log_line(said != NULL ? said : "", NULL, line, sizeof(line)) != 0)
			snprintf(line, sizeof(line), "no answer");
		ssh_error_set(err, deadline_expired(&c->deadline) ? SSH_FAIL_TIMEOUT : SSH_FAIL_EXEC,
		    "%s: ssh connected, but its control master does not answer (ssh -O check: %s)",
		    c->label, line);
		goto out;
	}
	c->master.pid = pid;
	c->master.start = pi.start;
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

static void sshcli_close(void *conn);

static int
sshcli_connect(const struct ssh_target *t, int deadline_ms, void **out, struct ssh_error *err)
{
	struct sshcli_conn *c;
	struct buf b = BUF_INIT;
	const char *host = t->host != NULL ? t->host : "";
	int ret = -1;

	c = xcalloc(1, sizeof(*c));
	c->logfd = -1;
	c->cancel_fd = -1;
	c->deadline_ms = deadline_ms;
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
		    "(/tmp/wk-%lu): %s", c->label, (unsigned long)getuid(), wk_strerror(WK_ERR_SYSTEM));
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

static int
sshcli_exec(void *conn, const char *command, const void *in, size_t inlen, size_t cap,
    struct ssh_result *res, struct ssh_error *err)
{
	static const char *const post[] = { "-oControlMaster=no", NULL };
	struct sshcli_conn *c = conn;
	struct sshcli_argv a = { NULL, 0 };
	struct sshcli_run r;
	struct buf dlog = BUF_INIT, clog = BUF_INIT;
	const char *pre[] = { "-oLogLevel=DEBUG2", "-E", c->client_log, NULL };
	int fd = -1, status = -1, ret = -1;

	sshcli_run_init(&r);
	if (sshcli_usable(c, err) != 0)
		goto out;
	/* Ours, 0600, empty: ssh appends to it. */
	(void)unlink(c->client_log);
	if ((fd = open(c->client_log, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: cannot create %s: %s", c->label,
		    c->client_log, wk_strerror(WK_ERR_SYSTEM));
		goto out;
	}
	r.in = in;
	r.inlen = in != NULL ? inlen : 0;
	r.cap = cap;
	sshcli_argv_build(c, &a, pre, post, command);
	if (sshcli_run(c, a.v, &c->deadline, &r, err) != 0)
		goto out;
	if (r.cancelled) {
		/* the master lives on: only this command's client was ended */
		ssh_error_set(err, SSH_FAIL_EXEC, "%s: cancelled while running the command", c->label);
		goto out;
	}
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
		ssh_result_free(res);
	return ret;
}

static int
sshcli_put(void *conn, const char *remote_path, const void *data, size_t len, int mode,
    struct ssh_error *err)
{
	struct sshcli_conn *c = conn;
	struct ssh_result res;
	struct buf script = BUF_INIT, cmd = BUF_INIT;
	char *tmp, *qtmp, *qpath;
	int ret = -1;

	memset(&res, 0, sizeof(res));
	res.exit_status = -1;
	tmp = xstrfmt("%s.wk-tmp.%ld", remote_path, (long)getpid());
	/*
	 * Written under umask 077 (nobody sees it before its mode is set),
	 * synced, given exactly mode, then renamed over the old file: one
	 * rename(2), so a reader sees the old file or the new, never a part.
	 * The marker: a server that forces its own command exits 0 too.
	 */
	qtmp = sshq_quote(tmp);
	qpath = sshq_quote(remote_path);
	buf_printf(&script, "umask 077; t=%s; p=%s; cat > \"$t\" || { rm -f -- \"$t\"; exit 1; }; "
	    "sync -- \"$t\" 2>/dev/null; "
	    "chmod %04o -- \"$t\" && mv -f -- \"$t\" \"$p\" && echo wk-put-done && exit 0; "
	    "rm -f -- \"$t\"; exit 1", qtmp, qpath, (unsigned int)mode & 07777);
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
	ssh_result_free(&res);
	buf_free(&script);
	buf_free(&cmd);
	free(tmp);
	free(qtmp);
	free(qpath);
	return ret;
}

static void
sshcli_close(void *conn)
{
	struct sshcli_conn *c = conn;
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

/*
 * A held connection (ssh/warm.h): each look gets its own time from now on
 * (the master's ControlPersist stays what connect set: a master idle that
 * long ends by itself, and the holder connects again), and cancel_fd, which
 * readable or hung up ends the look's client at once (its session, and so
 * the box's command, with it); the master lives on.
 */
static void
sshcli_limit(void *conn, int deadline_ms, int cancel_fd)
{
	struct sshcli_conn *c = conn;

	c->cancel_fd = cancel_fd;
	if (deadline_ms > 0) {
		c->deadline_ms = deadline_ms;
		deadline_set(&c->deadline, (uint64_t)deadline_ms);
	}
}

/* 0 while the master lives (the connection is up), -1 when only closing is left. */
static int
sshcli_idle(void *conn, int keepalive)
{
	struct sshcli_conn *c = conn;

	(void)keepalive;	/* the master's own ServerAliveInterval keeps it */
	return !c->broken && sshcli_proc_alive(&c->master) ? 0 : -1;
}

const struct ssh_transport ssh_transport_openssh = {
	"openssh", sshcli_connect, sshcli_exec, sshcli_put, sshcli_close, sshcli_limit, sshcli_idle,
	NULL
};
