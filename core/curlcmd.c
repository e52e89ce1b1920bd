/*
 * curlcmd.c: webhooks through the box's curl command (see curlcmd.h).
 *
 * One request is one `curl -q -K -` run through spawn.c in its own process
 * group: -q first so the user's ~/.curlrc (a -k, a -L) cannot change what we
 * ask for, and everything else, the URL first of all, on stdin as a config.
 * The config asks for what notify-http.c asks libcurl for: a POST of the
 * body with the request's headers and "Expect:", the connect and total
 * timeouts, no redirects, http and https only, no URL globbing, and the CA
 * bundle.  Feeding curl its config and reading its answer is childio.c's.
 *
 * curl prints the answer's body then, through --write-out, a marker line with
 * the HTTP status; the first NOTIFY answer bytes and the last bytes (where the
 * marker is) are kept, so a huge answer neither grows memory nor hides the
 * status.  "curl: (N) words" on stderr is libcurl's error buffer.  curl gets
 * its own timeout plus a grace to say so itself; past that it is killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "buf.h"
#include "childio.h"
#include "curlapi.h"
#include "curlcmd.h"
#include "err.h"
#include "monotime.h"
#include "notify.h"
#include "notify-int.h"	/* a part of notify: its second way to HTTP */
#include "portable.h"
#include "spawn.h"
#include "xmalloc.h"

#define CURLCMD_ANSWER_MAX	(16 * 1024)	/* the receiver's words we keep */
#define CURLCMD_TAIL		128		/* last stdout bytes: the status marker */
#define CURLCMD_ERR_MAX		4096
#define CURLCMD_VERSION_MAX	200
#define CURLCMD_GRACE_MS	5000		/* past curl's own --max-time */
#define CURLCMD_POLL_SLICE_MS	50
#define CURLCMD_EXIT_SLICE_MS	2
#define CURLCMD_MARKER		"watchkeeper-http-status:"

/* Where distributions keep their CA bundle, most common first. */
static const char *const curlcmd_ca_paths[] = {
	"/etc/ssl/certs/ca-certificates.crt",			/* Debian, Ubuntu, Arch */
	"/etc/pki/tls/certs/ca-bundle.crt",			/* RHEL, CentOS, Fedora */
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",	/* RHEL 7+ */
	"/etc/ssl/ca-bundle.pem",				/* SUSE */
	"/etc/ssl/cert.pem",					/* Alpine, macOS */
};

static const char *const curlcmd_ca_env[] = { "CURL_CA_BUNDLE", "SSL_CERT_FILE" };

/* Where curl is looked for after $PATH (cron and sudo strip PATH). */
static const char *const curlcmd_dirs[] = { "/usr/bin", "/bin" };

const char *
curlcmd_cafile(void)
{
	const char *v;
	size_t i;

	for (i = 0; i < sizeof(curlcmd_ca_env) / sizeof(curlcmd_ca_env[0]); i++)
		if ((v = getenv(curlcmd_ca_env[i])) != NULL && *v != '\0')
			return v;
	for (i = 0; i < sizeof(curlcmd_ca_paths) / sizeof(curlcmd_ca_paths[0]); i++)
		if (access(curlcmd_ca_paths[i], R_OK) == 0)
			return curlcmd_ca_paths[i];
	return NULL;
}

/* 1 when dir/curl is an executable regular file; its path in buf. */
static int
curlcmd_try(const char *dir, size_t dlen, char *buf, size_t len)
{
	struct stat st;
	int n;

	if (dlen == 0 || dir[0] != '/')
		return 0;	/* a relative PATH entry would depend on the cwd */
	n = snprintf(buf, len, "%.*s/curl", (int)dlen, dir);
	if (n < 0 || (size_t)n >= len)
		return 0;
	return stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0;
}

int
curlcmd_find(char *buf, size_t len, const char **why)
{
	const char *path = getenv("PATH"), *p, *e;
	size_t i;

	switch (http_knob()) {
	case HTTP_NONE:
		*why = HTTP_KNOB "=none";
		return -1;
	case HTTP_LIBCURL:
		*why = HTTP_KNOB "=libcurl";
		return -1;
	case HTTP_BAD:
		*why = HTTP_KNOB " is not libcurl, curl, none or auto";
		return -1;
	default:
		break;
	}
	for (p = path; p != NULL && *p != '\0'; p = *e == ':' ? e + 1 : e) {
		e = p + strcspn(p, ":");
		if (curlcmd_try(p, (size_t)(e - p), buf, len))
			return 0;
	}
	for (i = 0; i < sizeof(curlcmd_dirs) / sizeof(curlcmd_dirs[0]); i++)
		if (curlcmd_try(curlcmd_dirs[i], strlen(curlcmd_dirs[i]), buf, len))
			return 0;
	*why = "no curl command on PATH, in /usr/bin or /bin";
	return -1;
}

/* Why nothing reaches HTTP(S), from libcurl's and the command's reasons.  Caller frees. */
static char *
curlcmd_none_why(const char *nolib, const char *nocmd)
{
	switch (http_knob()) {
	case HTTP_NONE:
	case HTTP_BAD:
		return xstrdup(nocmd);
	case HTTP_LIBCURL:
		return xstrdup(nolib != NULL ? nolib : "libcurl cannot be loaded");
	case HTTP_CURL:
		return xstrfmt("%s (" HTTP_KNOB "=curl)", nocmd);
	default:
		return xstrfmt("%s; %s", nolib != NULL ? nolib : "libcurl cannot be loaded", nocmd);
	}
}

/* ---- how this process reaches HTTP(S) ---- */

/* The first n space-separated words of s (the version and the TLS library), cut. */
static char *
curlcmd_words(const char *s, int n)
{
	const char *e = s;
	char *w, *r;

	while (n-- > 0 && *e != '\0') {
		e += strcspn(e, " ");
		if (n > 0)
			e += strspn(e, " ");
	}
	w = xstrndup(s, (size_t)(e - s));
	r = notify_cut(w, CURLCMD_VERSION_MAX);
	free(w);
	return r;
}

/* "curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 OpenSSL/3.0.19 zlib/..." -> up to the TLS library. */
static char *
curlcmd_version_of(const char *path, char **bad)
{
	char *argv[3], *out = NULL, *line, *r = NULL;
	const char *v;
	int status = 0;

	*bad = NULL;
	argv[0] = (char *)path;
	argv[1] = (char *)"--version";
	argv[2] = NULL;
	if (spawn_capture(argv, 4096, 0, &status, &out) != 0) {
		*bad = xstrfmt("the curl command %s cannot be run: %s", path, wk_strerror(WK_ERR_SYSTEM));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || strncmp(out, "curl ", 5) != 0) {
		*bad = WIFEXITED(status) ? xstrfmt("the curl command %s does not run (`curl --version` "
		    "exited %d)", path, WEXITSTATUS(status)) : xstrfmt("the curl command %s does not "
		    "run (`curl --version` was killed by signal %d)", path, WTERMSIG(status));
		goto out;
	}
	v = out + 5;
	line = xstrndup(v, strcspn(v, "\r\n"));
	r = curlcmd_words(line, 4);
	free(line);
 out:
	free(out);
	return r;
}

void
curlcmd_how_get(struct curlcmd_how *h)
{
	const struct curl_api *api;
	const char *nolib = NULL, *nocmd = NULL, *v;
	char path[PATH_MAX], *ver, *bad = NULL, *why = NULL, *cut;

	memset(h, 0, sizeof(*h));
	if ((api = curl_api_get(&nolib)) != NULL) {
		v = api->version != NULL ? api->version() : "";
		if (strncmp(v, "libcurl/", 8) == 0)
			v += 8;
		cut = curlcmd_words(v, 2);
		h->via = "libcurl";
		h->detail = xstrfmt("libcurl %s", cut);
		free(cut);
		return;
	}
	if (curlcmd_find(path, sizeof(path), &nocmd) == 0) {
		if ((ver = curlcmd_version_of(path, &bad)) != NULL) {
			h->via = "curl";
			h->detail = xstrfmt("curl command %s %s", path, ver);
			free(ver);
			return;
		}
		nocmd = bad;
	}
	why = curlcmd_none_why(nolib, nocmd);
	h->via = "none";
	h->detail = xstrfmt("none (%s); events stay in the outbox", why);
	free(why);
	free(bad);
}

void
curlcmd_how_free(struct curlcmd_how *h)
{
	free(h->detail);
	memset(h, 0, sizeof(*h));
}

/* ---- the config ---- */

char *
curlcmd_quote(const char *s)
{
	struct buf b = BUF_INIT;

	buf_putc(&b, '"');
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '\\':
			buf_puts(&b, "\\\\");
			break;
		case '"':
			buf_puts(&b, "\\\"");
			break;
		case '\n':
			buf_puts(&b, "\\n");
			break;
		case '\r':
			buf_puts(&b, "\\r");
			break;
		case '\t':
			buf_puts(&b, "\\t");
			break;
		case '\v':
			buf_puts(&b, "\\v");
			break;
		default:
			buf_putc(&b, *s);
		}
	}
	buf_putc(&b, '"');
	return buf_detach(&b);
}

static void
curlcmd_put(struct buf *b, const char *opt, const char *val)
{
	char *q;

	if (val == NULL) {
		buf_printf(b, "%s\n", opt);
		return;
	}
	q = curlcmd_quote(val);
	buf_printf(b, "%s = %s\n", opt, q);
	free(q);
}

char *
curlcmd_config(const struct notify_sinks *all, const struct notify_request *rq, const char *cafile)
{
	struct buf b = BUF_INIT;
	char num[32];
	size_t i;

	curlcmd_put(&b, "silent", NULL);
	curlcmd_put(&b, "show-error", NULL);
	curlcmd_put(&b, "globoff", NULL);
	curlcmd_put(&b, "proto", "=http,https");
	snprintf(num, sizeof(num), "%ld", all->connect_timeout_s > 0 ? all->connect_timeout_s : 1);
	curlcmd_put(&b, "connect-timeout", num);
	snprintf(num, sizeof(num), "%ld", all->timeout_s > 0 ? all->timeout_s : 1);
	curlcmd_put(&b, "max-time", num);
	if (cafile != NULL)
		curlcmd_put(&b, "cacert", cafile);
	if (rq->method != NULL)
		curlcmd_put(&b, "request", rq->method);
	for (i = 0; i < rq->nheaders; i++)
		curlcmd_put(&b, "header", rq->headers[i]);
	/* "Expect:" turns off 100-continue, which some webhook receivers mishandle. */
	curlcmd_put(&b, "header", "Expect:");
	/* data-binary reads a file when the value starts with '@'; data-raw never does. */
	curlcmd_put(&b, rq->body[0] == '@' ? "data-raw" : "data-binary", rq->body);
	curlcmd_put(&b, "write-out", "\n" CURLCMD_MARKER "%{http_code}\n");
	curlcmd_put(&b, "url", rq->url);
	return buf_detach(&b);
}

/* ---- running curl ---- */

struct curlcmd_run {
	struct buf	 head;		/* the first bytes of stdout, up to CURLCMD_ANSWER_MAX */
	char		 tail[CURLCMD_TAIL + 1];
	size_t		 ntail;
	size_t		 total;		/* stdout bytes seen */
	struct buf	 err;		/* stderr, capped */
	int		 status;
	int		 exited, killed, lost;
};

static void
curlcmd_take_out(struct curlcmd_run *run, const char *p, size_t n)
{
	size_t keep;

	childio_keep(&run->head, p, n, CURLCMD_ANSWER_MAX);
	run->total += n;
	if (n >= CURLCMD_TAIL) {
		memcpy(run->tail, p + n - CURLCMD_TAIL, CURLCMD_TAIL);
		run->ntail = CURLCMD_TAIL;
	} else {
		keep = run->ntail + n > CURLCMD_TAIL ? CURLCMD_TAIL - n : run->ntail;
		memmove(run->tail, run->tail + run->ntail - keep, keep);
		memcpy(run->tail + keep, p, n);
		run->ntail = keep + n;
	}
	run->tail[run->ntail] = '\0';
}

/* Drain fd into run (stdout) or run->err; closes it and sets -1 at EOF. */
static void
curlcmd_read(int *fd, struct curlcmd_run *run, int is_err)
{
	char chunk[4096];
	ssize_t n;

	while ((n = childio_read(fd, chunk, sizeof(chunk))) > 0) {
		if (!is_err)
			curlcmd_take_out(run, chunk, (size_t)n);
		else
			childio_keep(&run->err, chunk, (size_t)n, CURLCMD_ERR_MAX);
	}
}

/*
 * Run path -q -K - with conf on its stdin, bounded by ms.  0 with run filled
 * (exited, killed or lost), or WK_ERR_SYSTEM / WK_ERR_EXEC with errno.
 */
static int
curlcmd_exec(const char *path, const char *conf, uint64_t ms, struct curlcmd_run *run)
{
	struct spawn_opts o;
	struct deadline dl;
	struct wk_sigpipe pg;
	char *argv[5];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 }, r = 0, saved;
	size_t off = 0, len = strlen(conf);
	pid_t pid = -1, w;

	/* A curl that exits before reading its whole config must not kill us with SIGPIPE. */
	wk_sigpipe_ignore(&pg);
	if (wk_pipe_cloexec(in) != 0 || wk_pipe_cloexec(out) != 0 || wk_pipe_cloexec(err) != 0) {
		r = WK_ERR_SYSTEM;
		goto out;
	}
	argv[0] = (char *)path;
	argv[1] = (char *)"-q";		/* must come first: ignore ~/.curlrc */
	argv[2] = (char *)"-K";
	argv[3] = (char *)"-";
	argv[4] = NULL;
	spawn_opts_init(&o);
	o.fd_in = in[0];
	o.fd_out = out[1];
	o.fd_err = err[1];
	o.new_pgrp = 1;
	pid = spawn_argv(argv, &o);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	in[0] = out[1] = err[1] = -1;
	if (pid < 0) {
		r = (int)pid;
		goto out;
	}
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	deadline_set(&dl, ms);
	while (!run->exited && !deadline_expired(&dl)) {
		struct pollfd pf[3];
		nfds_t np = 0;

		childio_poll_add(pf, &np, out[0], POLLIN);
		childio_poll_add(pf, &np, err[0], POLLIN);
		childio_poll_add(pf, &np, in[1], POLLOUT);
		/* Both streams at EOF: curl is exiting, look again soon. */
		if (poll(pf, np, deadline_poll_timeout(&dl, 1, np > 0 ? CURLCMD_POLL_SLICE_MS :
		    CURLCMD_EXIT_SLICE_MS)) < 0 && errno != EINTR)
			break;
		curlcmd_read(&out[0], run, 0);
		curlcmd_read(&err[0], run, 1);
		childio_feed(&in[1], conf, len, &off, &pg);
		/* Reap only after both streams' EOF: the status marker is the last thing written. */
		if (out[0] >= 0 || err[0] >= 0)
			continue;
		if ((w = waitpid(pid, &run->status, WNOHANG)) == pid)
			run->exited = 1;
		else if (w < 0 && errno == ECHILD)
			run->lost = run->exited = 1;	/* someone else reaped it */
	}
	if (!run->exited) {
		/* Past curl's own --max-time and the grace: killed, by its pid. */
		kill(pid, SIGKILL);
		spawn_wait(pid, &run->status);
		run->killed = 1;
	}
 out:
	saved = errno;
	childio_close(in);
	childio_close(out);
	childio_close(err);
	wk_sigpipe_restore(&pg);
	errno = saved;
	return r;
}

/* The HTTP status from the marker and the answer before it (caller frees). */
static long
curlcmd_status(struct curlcmd_run *run, char **answer)
{
	const char *all = run->total <= CURLCMD_ANSWER_MAX ? buf_str(&run->head) : run->tail;
	const char *m = NULL, *p;
	long status = 0;

	for (p = all; (p = strstr(p, "\n" CURLCMD_MARKER)) != NULL; p++)
		m = p;
	if (m != NULL)
		status = strtol(m + 1 + strlen(CURLCMD_MARKER), NULL, 10);
	if (run->total <= CURLCMD_ANSWER_MAX)
		*answer = m != NULL ? xstrndup(all, (size_t)(m - all)) : xstrdup(all);
	else
		*answer = xstrdup(buf_str(&run->head));
	return status;
}

/* libcurl's words from curl's stderr: the last "curl: (N) words" line, else the last line. */
static char *
curlcmd_error_words(struct buf *err)
{
	const char *s = buf_str(err), *p, *e, *best = NULL, *best_end = NULL, *q;

	for (p = s; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		e = p + strcspn(p, "\n");
		if (p + strspn(p, " \t\r") >= e)
			continue;
		if (best == NULL || strncmp(best, "curl: (", 7) != 0 || strncmp(p, "curl: (", 7) == 0) {
			best = p;
			best_end = e;
		}
	}
	if (best == NULL)
		return xstrdup("");
	if (strncmp(best, "curl: (", 7) == 0 && (q = memchr(best, ')', (size_t)(best_end - best))) != NULL)
		best = q + 1 + (q[1] == ' ');
	while (best_end > best && best_end[-1] == '\r')
		best_end--;
	return xstrndup(best, (size_t)(best_end - best));
}

int
curlcmd_send(const struct notify_sinks *all, const struct notify_sink *s,
    const struct notify_request *rq, const char *nolib, struct notify_reply *reply, char **why,
    int *permanent)
{
	struct curlcmd_run run;
	struct buf msg = BUF_INIT;
	char path[PATH_MAX], *conf = NULL, *none = NULL, *answer = NULL, *words = NULL;
	const char *nocmd = NULL;
	uint64_t ms;
	long status;
	int r;

	*why = NULL;
	*permanent = 0;
	memset(&run, 0, sizeof(run));
	if (curlcmd_find(path, sizeof(path), &nocmd) != 0) {
		none = curlcmd_none_why(nolib, nocmd);
		buf_printf(&msg, "no way to reach HTTP(S) on this box (%s): the event stays in the outbox",
		    none);
		r = WK_ERR_SYSTEM;
		goto out;
	}
	conf = curlcmd_config(all, rq, curlcmd_cafile());
	ms = (uint64_t)(all->timeout_s > 0 ? all->timeout_s : 1) * 1000 + CURLCMD_GRACE_MS;
	if ((r = curlcmd_exec(path, conf, ms, &run)) != 0) {
		buf_printf(&msg, "cannot run the curl command %s: %s; will retry", path, wk_strerror(WK_ERR_SYSTEM));
		r = WK_ERR_SYSTEM;
		goto out;
	}
	if (run.killed) {
		/* curl overran its own --max-time: the same words as libcurl's timeout. */
		r = notify_judge(all, s, CURLE_OPERATION_TIMEDOUT, NULL, 0, NULL, why, permanent);
		goto out;
	}
	if (run.lost) {
		buf_printf(&msg, "the curl command's exit status was taken by another waiter; will retry");
		r = WK_ERR_SYSTEM;
		goto out;
	}
	if (WIFSIGNALED(run.status)) {
		buf_printf(&msg, "the curl command was killed by signal %d; will retry",
		    WTERMSIG(run.status));
		r = WK_ERR_SYSTEM;
		goto out;
	}
	if (WEXITSTATUS(run.status) == 126 || WEXITSTATUS(run.status) == 127) {
		/* Not a CURLcode: the shell's or the loader's "cannot run" (a missing libcurl.so). */
		buf_printf(&msg, "no way to reach HTTP(S) on this box (the curl command %s does not run "
		    "(exit %d)): the event stays in the outbox", path, WEXITSTATUS(run.status));
		r = WK_ERR_SYSTEM;
		goto out;
	}
	status = curlcmd_status(&run, &answer);
	words = curlcmd_error_words(&run.err);
	/* curl's exit code is the CURLcode libcurl returned. */
	r = notify_judge(all, s, WEXITSTATUS(run.status), words, status, answer, why, permanent);
	if (reply != NULL && WEXITSTATUS(run.status) == 0) {
		reply->status = status;
		reply->answer = answer;	/* transferred */
		answer = NULL;
	}
 out:
	if (msg.len > 0)
		*why = notify_scrub(all, buf_str(&msg));
	if (r == WK_ERR_SYSTEM)
		errno = EAGAIN;
	if (conf != NULL) {
		/* it holds the URL */
		wk_bzero_secret(conf, strlen(conf));
		free(conf);
	}
	free(none);
	free(answer);
	free(words);
	buf_free(&msg);
	buf_free(&run.head);
	buf_free(&run.err);
	return r;
}
