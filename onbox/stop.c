/*
 * stop.c: the stop request, the stopped record, and stopping a stage's
 * process group (see stop.h).
 *
 * The group is watched through /proc (proc_group_alive), not through the
 * wrapper: a stage whose shell died on SIGTERM may leave a child in its
 * group that ignores it, and "stopped" must mean nothing of it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "jsonfile.h"
#include "history.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "proc.h"
#include "stop.h"
#include "xmalloc.h"

#define STOP_POLL_MS	50

char *
stop_who(const char *from)
{
	/*
	 * The login name from the environment, not getpwuid(): the portable onbox
	 * is a static glibc binary, and NSS lookups there would need the box's
	 * own glibc at run time (scripts/portable.sh refuses such a link).
	 */
	const char *user = getenv("USER");
	char host[256], safe[STOP_BY_MAX + 1], uid[32];
	size_t i, n = 0;

	if (user == NULL || *user == '\0')
		user = getenv("LOGNAME");
	if (user == NULL || *user == '\0') {
		snprintf(uid, sizeof(uid), "uid %ld", (long)getuid());
		user = uid;
	}

	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	if (from == NULL || *from == '\0')
		return xstrfmt("onbox stop (%s@%s)", user, host);
	/* Another program's words, kept to what cannot surprise a log or a shell. */
	for (i = 0; from[i] != '\0' && n < STOP_BY_MAX; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._-:() ",
		    from[i]) != NULL)
			safe[n++] = from[i];
	safe[n] = '\0';
	return xstrfmt("%s, on the box as %s@%s", safe, user, host);
}

static void
stop_nonce(char *out)
{
	unsigned char b[8];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		unsigned long v = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);

		memcpy(b, &v, sizeof(b) < sizeof(v) ? sizeof(b) : sizeof(v));
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int
stop_request_write(const char *workdir, const char *by, char *nonce)
{
	char *p = layout_path(workdir, STOP_REQUEST), when[TIMEFMT_LEN];
	cJSON *doc = cJSON_CreateObject();
	time_t now = time(NULL);
	int r;

	stop_nonce(nonce);
	timefmt_utc(now, when, sizeof(when));
	cJSON_AddStringToObject(doc, "by", by);
	cJSON_AddStringToObject(doc, "when", when);
	cJSON_AddNumberToObject(doc, "time_unix", (double)now);
	cJSON_AddStringToObject(doc, "nonce", nonce);
	r = jsonfile_save(p, doc) == 0 ? 0 : -1;
	cJSON_Delete(doc);
	free(p);
	return r;
}

static cJSON *
stop_load(const char *workdir, const char *name)
{
	char *p = layout_path(workdir, name);
	cJSON *doc = NULL;

	if (jsonfile_load(p, &doc) != 0 || !cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	free(p);
	return doc;
}

cJSON *
stop_request_load(const char *workdir)
{
	return stop_load(workdir, STOP_REQUEST);
}

cJSON *
stop_record_load(const char *workdir)
{
	return stop_load(workdir, STOP_RECORD);
}

int
stop_record_write(const char *workdir, const char *run, const char *by, const char *nonce,
    const char *stage, long attempt, const char *how)
{
	char *p = layout_path(workdir, STOP_RECORD), *rq = layout_path(workdir, STOP_REQUEST);
	char when[TIMEFMT_LEN];
	cJSON *doc = cJSON_CreateObject();
	time_t now = time(NULL);
	int r;

	timefmt_utc(now, when, sizeof(when));
	cJSON_AddStringToObject(doc, "run", run);
	cJSON_AddStringToObject(doc, "when", when);
	cJSON_AddNumberToObject(doc, "time_unix", (double)now);
	cJSON_AddStringToObject(doc, "by", by != NULL ? by : "?");
	if (stage != NULL) {
		cJSON_AddStringToObject(doc, "stage", stage);
		cJSON_AddNumberToObject(doc, "attempt", (double)attempt);
	} else {
		cJSON_AddNullToObject(doc, "stage");
		cJSON_AddNumberToObject(doc, "attempt", 0);
	}
	cJSON_AddStringToObject(doc, "how", how);
	if (nonce != NULL)
		cJSON_AddStringToObject(doc, "nonce", nonce);
	r = jsonfile_save(p, doc) == 0 ? 0 : -1;
	if (r == 0 && unlink(rq) != 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", rq, wk_strerror(WK_ERR_SYSTEM));
	cJSON_Delete(doc);
	free(p);
	free(rq);
	return r;
}

/* Attempt a ended "stopped": on purpose, so no class, no policy decision, no FAILED marker. */
void
stop_mark_attempt(cJSON *a, const char *by, const char *how)
{
	char when[TIMEFMT_LEN];

	timefmt_utc(time(NULL), when, sizeof(when));
	json_set_str(a, HIST_KEY_RESULT, "stopped");
	json_set_str(a, HIST_KEY_ENDED, when);
	json_set_str(a, HIST_KEY_STOPPED_BY, by);
	json_set_str(a, HIST_KEY_STOP, how);
	json_set_bool(a, HIST_KEY_REPORTED, 1);
}

int
stop_clear(const char *workdir)
{
	char *p = layout_path(workdir, STOP_RECORD), *rq = layout_path(workdir, STOP_REQUEST);
	int was = unlink(p) == 0;

	if (!was && errno != ENOENT)
		log_warn("cannot remove %s: %s", p, wk_strerror(WK_ERR_SYSTEM));
	(void)unlink(rq);
	free(p);
	free(rq);
	return was;
}

int
stop_group(pid_t pgid, long grace_s, void (*tick)(void *), void *arg, int *killed)
{
	struct deadline d;
	int rc = 0;

	*killed = 0;
	if (pgid <= 1)
		return 0;
	log_info("stopping process group %ld: SIGTERM, SIGKILL after %ld s", (long)pgid, grace_s);
	if (kill(-pgid, SIGTERM) != 0 && errno != ESRCH)
		log_warn("kill(-%ld, SIGTERM): %s", (long)pgid, wk_strerror(WK_ERR_SYSTEM));
	deadline_set(&d, (uint64_t)grace_s * 1000);
	while (proc_group_alive(pgid) && !deadline_expired(&d)) {
		if (tick != NULL)
			tick(arg);
		usleep(STOP_POLL_MS * 1000);
	}
	if (!proc_group_alive(pgid))
		goto out;
	log_warn("process group %ld still runs %ld s after SIGTERM: SIGKILL", (long)pgid, grace_s);
	*killed = 1;
	if (kill(-pgid, SIGKILL) != 0 && errno != ESRCH)
		log_warn("kill(-%ld, SIGKILL): %s", (long)pgid, wk_strerror(WK_ERR_SYSTEM));
	deadline_set(&d, STOP_KILL_WAIT_MS);
	while (proc_group_alive(pgid) && !deadline_expired(&d)) {
		if (tick != NULL)
			tick(arg);
		usleep(STOP_POLL_MS * 1000);
	}
	if (proc_group_alive(pgid)) {
		log_error("process group %ld still has live processes %d ms after SIGKILL",
		    (long)pgid, STOP_KILL_WAIT_MS);
		rc = -1;
	}
 out:
	return rc;
}
