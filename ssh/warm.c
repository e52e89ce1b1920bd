/*
 * warm.c: warm looks, the asking side (see warm.h): the owner's private
 * directory, finding (or starting) a box's holder, one look over its unix
 * socket, and the "warm" transport that makes ssh_connect/ssh_exec looks.
 *
 * Slots.  Each holder serves one look at a time; a look takes the first
 * slot whose lock (<dir>/<key>.<slot>.lock) it can hold, for the whole look,
 * so a busy holder is never asked and a look waits on nobody.  Under that
 * lock the look connects to <key>.<slot>.sock; when nothing listens there it
 * binds the socket itself and forks the holder with the listening socket in
 * hand (double fork, own session: it outlives the look, and a cancelled
 * look's process group is not its group), so there is no window in which a
 * second look could start a second holder.  A holder that ends for idleness
 * takes the slot's lock first, so it never leaves a look unanswered.
 *
 * The owner's state is plain static data: a forked child (mcp's per-call
 * children, patrol --all's ticks) inherits it, which is how every process of
 * the family finds the same holders.
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
#include "transport.h"
#include "warm-int.h"
#include "xmalloc.h"

/* On top of the look's own deadline (and one reconnect), how long a look waits for its holder. */
#define WARM_GRACE_MS	5000
/* How long warm_shutdown waits for its holders to go. */
#define WARM_END_MS	2000
#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

static const struct ssh_transport ssh_transport_warm;

static struct {
	int		active;
	int		idle_s;
	char		dir[108];
	struct proc_id	owner;
} warm;

int
warm_active(void)
{
	return warm.active;
}

const char *
warm_dir(void)
{
	return warm.active ? warm.dir : "";
}

int
warm_init(int idle_s)
{
	const char *base = getenv("TMPDIR"), *env;
	char *tmpl;
	int ret = -1;

	if (warm.active)
		return 0;
	if (base == NULL || *base == '\0' || strlen(base) > 40)
		base = "/tmp";
	/* Short: a unix socket's path is at most ~104 bytes, and <key>.<slot>.sock follows. */
	tmpl = xstrfmt("%s/wk-warm.XXXXXX", base);
	if (mkdtemp(tmpl) == NULL)
		goto out;
	snprintf(warm.dir, sizeof(warm.dir), "%s", tmpl);
	if (idle_s <= 0 && (env = getenv("WATCHKEEPER_WARM_IDLE_S")) != NULL)
		idle_s = atoi(env);
	warm.idle_s = idle_s > 0 ? idle_s : WARM_IDLE_S;
	if (proc_identify(getpid(), &warm.owner) != 0)
		goto out;
	warm.active = 1;
	ssh_transport_held = &ssh_transport_warm;
	log_debug("warm looks: holders under %s, idle %d s", warm.dir, warm.idle_s);
	ret = 0;
 out:
	if (ret != 0 && warm.dir[0] != '\0')
		(void)rmdir(warm.dir);
	free(tmpl);
	return ret;
}

/* The holder whose pid file is path, if it is still that very process: 0 and *id. */
static int
warm_pidfile(const char *path, struct proc_id *id)
{
	struct proc_id now;
	unsigned long long start;
	long pid;
	FILE *f;
	int n;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	n = fscanf(f, "%ld %llu", &pid, &start);
	fclose(f);
	if (n != 2 || pid <= 1 || proc_identify((pid_t)pid, &now) != 0 ||
	    now.start != (uint64_t)start)
		return -1;
	*id = now;
	return 0;
}

void
warm_shutdown(void)
{
	struct proc_id ids[64];
	struct dirent *de;
	size_t n = 0;
	const char *dot;
	char *path;
	DIR *d;

	if (!warm.active || warm.owner.pid != getpid())
		return;
	warm.active = 0;
	ssh_transport_held = NULL;
	/*
	 * Every socket goes (a holder that sees its socket gone leaves by
	 * itself), and the holders are asked to go now, by pid and start time:
	 * the owner ends after them, so nothing of it outlives it.
	 */
	if ((d = opendir(warm.dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			path = xstrfmt("%s/%s", warm.dir, de->d_name);
			dot = strrchr(de->d_name, '.');
			if (dot != NULL && strcmp(dot, ".pid") == 0 && n < nitems(ids) &&
			    warm_pidfile(path, &ids[n]) == 0 && kill(ids[n].pid, SIGTERM) == 0)
				n++;
			(void)unlink(path);
			free(path);
		}
		closedir(d);
	}
	(void)rmdir(warm.dir);
	(void)proc_wait_gone(ids, n, WARM_END_MS);
}

/* ---- one look ---- */

static int
warm_sun(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return -1;
	memcpy(sun->sun_path, path, strlen(path) + 1);
	return 0;
}

/* A connected socket to path, or -1. */
static int
warm_dial(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	if (warm_sun(&sun, path) != 0 || (fd = wk_socket(AF_UNIX, SOCK_STREAM, 0, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Bind and listen at path (a stale socket there is replaced: we hold the slot's lock). */
static int
warm_listen(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	if (warm_sun(&sun, path) != 0 || (fd = wk_socket(AF_UNIX, SOCK_STREAM, 0, 0)) < 0)
		return -1;
	(void)unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 || listen(fd, 4) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Start the holder of t on lfd: 0, or -1. */
static int
warm_spawn(const struct ssh_target *t, int lfd, const char *sock, const char *lock)
{
	struct spawn_opts o;
	const char *logpath;
	pid_t mid, pid;
	int status, logfd = -1;

	spawn_opts_init(&o);	/* every stream on /dev/null: it must hold none of ours */
	o.new_session = 1;
	/* A developer's window into the holders: their log lines (patrol -v: debug) appended there. */
	if ((logpath = getenv("WATCHKEEPER_WARM_LOG")) != NULL && *logpath != '\0' &&
	    (logfd = open(logpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		o.fd_err = logfd;
	o.keep_fds = &lfd;
	o.nkeep = 1;
	fflush(NULL);
	if ((mid = spawn_fork(&o)) < 0) {
		if (logfd >= 0)
			close(logfd);
		return -1;
	}
	if (mid == 0) {
		if ((pid = fork()) < 0)
			_exit(1);
		if (pid == 0) {
			/* The holder's own connection is a plain one, never a look through a holder. */
			warm.active = 0;
			ssh_transport_held = NULL;
			warm_hold(t, lfd, sock, lock, &warm.owner, warm.idle_s);
		}
		_exit(0);
	}
	if (logfd >= 0)
		close(logfd);
	if (spawn_wait(mid, &status) != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

int
warm_send(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read exactly len bytes from fd within dl, watching watch_fd: 0, 1 when
 * watch_fd became readable, -1 on end of file, an error or the deadline.
 */
int
warm_recv(int fd, void *data, size_t len, const struct deadline *dl, int watch_fd)
{
	struct pollfd pfd[2];
	char *p = data;
	ssize_t n;
	int r;

	while (len > 0) {
		pfd[0].fd = fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = watch_fd;
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		r = poll(pfd, watch_fd >= 0 ? 2 : 1, deadline_poll_timeout(dl, 1, -1));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (watch_fd >= 0 && pfd[1].revents != 0)
			return 1;
		if (r == 0) {
			if (deadline_expired(dl))
				return -1;
			continue;
		}
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Hold the first free slot of key: the lock's descriptor and the slot, or -1 when all are busy. */
static int
warm_slot(const char *key, int *slot)
{
	char *lock;
	int fd = -1, i;

	for (i = 0; i < WARM_SLOTS && fd < 0; i++) {
		lock = xstrfmt("%s/%s.%d.lock", warm.dir, key, i);
		fd = lock_try(lock);
		if (fd < 0)
			log_debug("warm: slot %d of %s: %s", i, key, fd == WK_ERR_BUSY ? "busy" :
			    strerror(errno));
		free(lock);
		if (fd >= 0)
			*slot = i;
	}
	return fd >= 0 ? fd : -1;
}

enum warm_res
warm_exec(const struct ssh_target *t, const char *command, const void *in, size_t inlen,
    size_t cap, int deadline_ms, int watch_fd, struct ssh_result *res, struct ssh_error *err)
{
	struct warm_req q;
	struct warm_rep p;
	struct deadline dl;
	char key[17], *sock = NULL, *lock = NULL, *body = NULL;
	int lockfd = -1, fd = -1, lfd, slot = 0, r;
	enum warm_res ret = WARM_NONE;

	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	ssh_error_clear(err);
	if (!warm.active || command == NULL || *command == '\0' ||
	    strlen(command) > WARM_CMD_MAX || (in != NULL && inlen > WARM_IN_MAX) ||
	    (uint64_t)cap > WARM_CAP_MAX)
		goto out;
	warm_key(t, key);
	if ((lockfd = warm_slot(key, &slot)) < 0) {
		log_debug("warm: every slot of %s is busy: a cold look", key);
		goto out;
	}
	sock = xstrfmt("%s/%s.%d.sock", warm.dir, key, slot);
	lock = xstrfmt("%s/%s.%d.lock", warm.dir, key, slot);
	if ((fd = warm_dial(sock)) < 0) {
		if ((lfd = warm_listen(sock)) < 0) {
			log_debug("warm: cannot listen at %s: %s", sock, strerror(errno));
			goto out;
		}
		r = warm_spawn(t, lfd, sock, lock);
		close(lfd);
		if (r != 0 || (fd = warm_dial(sock)) < 0) {
			log_debug("warm: no holder at %s", sock);
			(void)unlink(sock);
			goto out;
		}
	}
	memset(&q, 0, sizeof(q));
	q.magic = WARM_MAGIC;
	q.deadline_ms = (uint32_t)(deadline_ms > 0 ? deadline_ms : 1);
	q.cap = cap;
	q.cmdlen = strlen(command);
	q.inlen = in != NULL ? inlen : 0;
	if (warm_send(fd, &q, sizeof(q)) != 0 || warm_send(fd, command, q.cmdlen) != 0 ||
	    (q.inlen > 0 && warm_send(fd, in, q.inlen) != 0)) {
		/* The holder went between our dial and our words: nothing ran. */
		ssh_error_set(err, SSH_FAIL_IO, "the warm connection's holder for %s went away",
		    t->alias != NULL ? t->alias : t->host);
		err->unsent = 1;
		ret = WARM_FAIL;
		goto out;
	}
	/* Its own deadline, a reconnect's, and some slack: the holder bounds each. */
	deadline_set(&dl, 2 * (uint64_t)q.deadline_ms + WARM_GRACE_MS);
	ret = WARM_FAIL;
	if ((r = warm_recv(fd, &p, sizeof(p), &dl, watch_fd)) == 0 && warm_rep_check(&p, cap) == 0) {
		body = xmalloc((size_t)(p.outlen + p.errlen) + 1);
		r = warm_recv(fd, body, (size_t)(p.outlen + p.errlen), &dl, watch_fd);
	} else if (r == 0)
		r = -1;
	if (r == 1) {
		ret = WARM_WATCH;
		goto out;
	}
	if (r != 0) {
		ssh_error_set(err, SSH_FAIL_IO, "the warm connection's holder for %s gave no "
		    "answer", t->alias != NULL ? t->alias : t->host);
		goto out;
	}
	log_debug("warm: %s slot %d: %s look", key, slot, p.fresh ? "a connecting" : "a warm");
	ret = warm_rep_take(&p, body, res, err) == 0 ? WARM_DONE : WARM_FAIL;
 out:
	/* Closing the socket is the cancel, for a look abandoned (WARM_WATCH). */
	if (fd >= 0)
		close(fd);
	if (lockfd >= 0)
		close(lockfd);
	free(body);
	free(sock);
	free(lock);
	return ret;
}

/* ---- the "warm" transport: ssh_connect with target->warm ---- */

/*
 * Connecting costs nothing here: the holder connects (or already is) when
 * the first exec arrives, and a failure to connect comes back then, as the
 * exec's error.  What the warm way cannot do (an SFTP put, a look with
 * every slot busy) takes a direct libssh2 connection, made once.
 */
struct warm_conn {
	const struct ssh_target	*t;	/* the caller's: it outlives the connection */
	struct deadline		 dl;
	int			 deadline_ms;
	void			*direct;	/* libssh2's, when needed */
	struct ssh_error	 direct_err;
	int			 direct_tried;
};

/* The target's own transport, for what goes direct (and what the holder holds). */
static const struct ssh_transport *
warm_t_ops(const struct warm_conn *w)
{
	return w->t->openssh ? &ssh_transport_openssh : &ssh_transport_libssh2;
}

static int
warm_t_connect(const struct ssh_target *t, int deadline_ms, void **out, struct ssh_error *err)
{
	struct warm_conn *w = xcalloc(1, sizeof(*w));

	(void)err;
	w->t = t;
	w->deadline_ms = deadline_ms;
	deadline_set(&w->dl, (uint64_t)deadline_ms);
	*out = w;
	return 0;
}

static int
warm_t_left(struct warm_conn *w)
{
	uint64_t left = deadline_left_ms(&w->dl);

	return left > 0 ? (int)left : 1;
}

static void *
warm_t_direct(struct warm_conn *w, struct ssh_error *err)
{
	if (w->direct == NULL && !w->direct_tried) {
		w->direct_tried = 1;
		if (warm_t_ops(w)->connect(w->t, warm_t_left(w), &w->direct, &w->direct_err) != 0)
			w->direct = NULL;
	}
	if (w->direct == NULL)
		*err = w->direct_err;
	return w->direct;
}

static int
warm_t_exec(void *conn, const char *command, const void *in, size_t inlen, size_t cap,
    struct ssh_result *res, struct ssh_error *err)
{
	struct warm_conn *w = conn;
	void *d;

	if (w->direct == NULL) {
		switch (warm_exec(w->t, command, in, inlen, cap, warm_t_left(w), -1, res, err)) {
		case WARM_DONE:
			return 0;
		case WARM_FAIL:
		case WARM_WATCH:
			return -1;
		case WARM_NONE:
			break;
		}
	}
	if ((d = warm_t_direct(w, err)) == NULL)
		return -1;
	return warm_t_ops(w)->exec(d, command, in, inlen, cap, res, err);
}

static int
warm_t_put(void *conn, const char *remote_path, const void *data, size_t len, int mode,
    struct ssh_error *err)
{
	struct warm_conn *w = conn;
	void *d;

	if ((d = warm_t_direct(w, err)) == NULL)
		return -1;
	return warm_t_ops(w)->put(d, remote_path, data, len, mode, err);
}

static void
warm_t_close(void *conn)
{
	struct warm_conn *w = conn;

	if (w == NULL)
		return;
	if (w->direct != NULL)
		warm_t_ops(w)->close(w->direct);
	free(w);
}

static const struct ssh_transport ssh_transport_warm = {
	"warm", warm_t_connect, warm_t_exec, warm_t_put, warm_t_close, NULL, NULL, NULL
};
