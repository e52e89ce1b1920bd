/*
 * warm-hold.c: a box's holder (see warm.h): a process of its own that owns
 * one ssh connection and serves looks on a listening unix socket, one at a
 * time, each an exec channel on that connection.
 *
 *   idle:   poll the socket; every keepalive interval ssh_conn_idle (a
 *           keepalive, and a peek for a peer that hung up: the connection is
 *           dropped then, and the next look connects); every second, is the
 *           owner alive and is our socket still ours?  Leave after idle_s
 *           without a look, taking the slot's lock first, so that no look is
 *           left waiting on a holder that is going.
 *   a look: read its request whole (bounded), connect when there is no
 *           connection (or it went while idle), run it with the look's deadline and the look's own
 *           socket as the cancel (a look that goes away closes the channel
 *           at once, and the connection stays), retry once on a fresh
 *           connection when the old one was gone before the channel opened,
 *           drop a connection that broke, answer; then open the next
 *           look's channel ahead (ssh_conn_prepare), so that a warm look
 *           is the exec alone.
 *
 * It runs forked from a look: signals reset and every descriptor but the
 * listening socket closed (spawn_fork), in a session of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "monotime.h"
#include "portable.h"
#include "proc.h"
#include "warm-int.h"
#include "xmalloc.h"

#define WARM_CHECK_MS	1000	/* how often the owner and the socket are looked at */
#define WARM_READ_MS	5000	/* a look's request arrives within this */
#define WARM_PREPARE_MS	10000	/* opening the next look's channel ahead */

struct warm_holder {
	const struct ssh_target	*t;
	struct ssh_conn		*conn;
	int			 lfd;
	const char		*sock;
	const char		*lock;
	struct stat		 st;	/* our socket, as bound */
};

/* Exactly len bytes of a look's request, within WARM_READ_MS: 0 or -1. */
static int
warm_hold_read(int fd, void *data, size_t len)
{
	struct deadline dl;

	deadline_set(&dl, WARM_READ_MS);
	return warm_recv(fd, data, len, &dl, -1) == 0 ? 0 : -1;
}

/* One look on client fd. */
static void
warm_hold_serve(struct warm_holder *h, int fd)
{
	struct warm_req q;
	struct warm_rep p;
	struct ssh_result res;
	struct ssh_error err;
	char *cmd = NULL, *in = NULL;
	int rc = -1, fresh = 0, attempt;

	memset(&res, 0, sizeof(res));
	ssh_error_clear(&err);
	if (warm_hold_read(fd, &q, sizeof(q)) != 0 || warm_req_check(&q) != 0)
		goto out;
	cmd = xmalloc((size_t)q.cmdlen + 1);
	in = xmalloc((size_t)q.inlen + 1);
	if (warm_hold_read(fd, cmd, (size_t)q.cmdlen) != 0 ||
	    warm_hold_read(fd, in, (size_t)q.inlen) != 0)
		goto out;
	cmd[q.cmdlen] = '\0';
	/* Gone while idle (the server closed it, a peer that hung up): connect afresh. */
	if (h->conn != NULL && ssh_conn_idle(h->conn, 0) != 0) {
		log_debug("warm: the held connection went while idle: connecting again");
		ssh_close(h->conn);
		h->conn = NULL;
	}
	for (attempt = 0; attempt < 2; attempt++) {
		if (h->conn == NULL) {
			fresh = 1;
			if ((rc = ssh_connect(h->t, (int)q.deadline_ms, &h->conn, &err)) != 0)
				break;
		}
		ssh_conn_limit(h->conn, (int)q.deadline_ms, fd);
		rc = ssh_exec(h->conn, cmd, in, (size_t)q.inlen, (size_t)q.cap, &res, &err);
		ssh_conn_limit(h->conn, (int)q.deadline_ms, -1);
		if (rc == 0)
			break;
		if (ssh_conn_idle(h->conn, 0) != 0) {
			ssh_close(h->conn);
			h->conn = NULL;
		}
		/* Gone before the channel opened: the command never ran; once more, fresh. */
		log_debug("warm: look failed (%s, unsent %d, fresh %d, connection %s)", err.msg,
		    err.unsent, fresh, h->conn != NULL ? "kept" : "dropped");
		if (!(err.unsent && !fresh && h->conn == NULL))
			break;
		log_debug("warm: the held connection was gone (%s): connecting again", err.msg);
	}
	warm_rep_fill(&p, rc, &res, &err, fresh);
	(void)warm_send(fd, &p, sizeof(p));	/* a look gone: nobody to tell */
	if (rc == 0) {
		(void)warm_send(fd, res.out, res.out_len);
		(void)warm_send(fd, res.err, res.err_len);
	}
	/* The look has its answer: the next look's channel is opened now, off its clock. */
	if (h->conn != NULL) {
		ssh_conn_limit(h->conn, WARM_PREPARE_MS, -1);
		if (ssh_conn_prepare(h->conn) != 0 && ssh_conn_idle(h->conn, 0) != 0) {
			log_debug("warm: the connection went while opening the next channel");
			ssh_close(h->conn);
			h->conn = NULL;
		}
	}
 out:
	ssh_result_free(&res);
	free(cmd);
	free(in);
}

/*
 * <sock minus .sock>.pid: our pid and start time, for warm_shutdown to end
 * us by (the owner does not know the pids of holders its children started).
 */
static void
warm_hold_pidfile(const char *sock)
{
	struct proc_id me;
	size_t n = strlen(sock);
	char *path, *tmp;
	FILE *f;

	if (n < 5 || proc_identify(getpid(), &me) != 0)
		return;
	path = xstrfmt("%.*s.pid", (int)(n - 5), sock);
	tmp = xstrfmt("%s.tmp", path);
	if ((f = fopen(tmp, "we")) != NULL) {
		fprintf(f, "%ld %llu\n", (long)me.pid, (unsigned long long)me.start);
		if (fclose(f) == 0 && rename(tmp, path) == 0)
			tmp[0] = '\0';
	}
	if (tmp[0] != '\0')
		(void)unlink(tmp);
	free(tmp);
	free(path);
}

/* Is the socket at h->sock still the one we bound? */
static int
warm_hold_ours(const struct warm_holder *h)
{
	struct stat st;

	return stat(h->sock, &st) == 0 && st.st_dev == h->st.st_dev && st.st_ino == h->st.st_ino;
}

/* The owner's warm_shutdown asks with SIGTERM: leave through the one exit (ssh_close). */
static volatile sig_atomic_t warm_hold_term;

static void
warm_hold_on_term(int sig)
{
	(void)sig;
	warm_hold_term = 1;
}

_Noreturn void
warm_hold(const struct ssh_target *t, int lfd, const char *sock, const char *lock,
    const struct proc_id *owner, int idle_s)
{
	struct warm_holder h;
	struct pollfd pfd;
	uint64_t last_look, last_check, last_alive, now, ka_ms;
	int fd, lockfd = -1, n, orphan = 0;
	struct sigaction sa;

	signal(SIGPIPE, SIG_IGN);
	/*
	 * Not a plain death: the openssh transport's master is a daemon of its
	 * own, which only ssh_close ends (libssh2's socket would go with us).
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = warm_hold_on_term;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGTERM, &sa, NULL);
	memset(&h, 0, sizeof(h));
	h.t = t;
	h.lfd = lfd;
	h.sock = sock;
	h.lock = lock;
	if (stat(sock, &h.st) != 0)
		_exit(1);
	warm_hold_pidfile(sock);
	ka_ms = (uint64_t)(t->keepalive_s > 0 ? t->keepalive_s : 10) * 1000;
	last_look = last_check = last_alive = monotime_ms();
	for (;;) {
		if (warm_hold_term)
			break;
		pfd.fd = lfd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		n = poll(&pfd, 1, WARM_CHECK_MS);
		now = monotime_ms();
		if (n > 0 && (pfd.revents & POLLIN) && (fd = accept(lfd, NULL, NULL)) >= 0) {
			warm_hold_serve(&h, fd);
			close(fd);
			last_look = last_alive = monotime_ms();
			continue;
		}
		if (now - last_check >= WARM_CHECK_MS) {
			last_check = now;
			if (!proc_alive(owner)) {
				orphan = 1;
				break;
			}
			if (!warm_hold_ours(&h))
				break;
		}
		if (h.conn != NULL && now - last_alive >= ka_ms) {
			last_alive = now;
			if (ssh_conn_idle(h.conn, 1) != 0) {
				log_debug("warm: the held connection to %s is gone", t->host);
				ssh_close(h.conn);
				h.conn = NULL;
			}
		}
		if (now - last_look >= (uint64_t)idle_s * 1000) {
			/* Only with the slot's lock: a look holding it is about to dial us. */
			if ((lockfd = lock_try(lock)) >= 0)
				break;
		}
	}
	if (warm_hold_ours(&h)) {
		char *pid = xstrfmt("%.*s.pid", (int)(strlen(sock) - 5), sock);

		(void)unlink(pid);
		(void)unlink(sock);
		free(pid);
	}
	/* An owner that died without warm_shutdown leaves its directory to the last holder. */
	if (orphan) {
		char *dir = xstrdup(sock), *slash = strrchr(dir, '/');

		(void)unlink(lock);
		if (slash != NULL) {
			*slash = '\0';
			(void)rmdir(dir);	/* fails while another holder's files are there */
		}
		free(dir);
	}
	close(lfd);
	if (h.conn != NULL) {
		ssh_conn_limit(h.conn, 1000, -1);	/* a short goodbye */
		ssh_close(h.conn);
	}
	if (lockfd >= 0)
		close(lockfd);
	_exit(0);
}
