/*
 * stop.h: stopping a run on purpose (`onbox stop`, `patrol stop`), shared by
 * the running onbox (runner.c), which stops its own stage when asked, and
 * cmd-stop.c, which asks it, or stops a stage left without its onbox.
 *
 * Two files under <workdir>/.watchkeeper/, both written atomically:
 *   stop.request  {"by", "when", "time_unix", "nonce"}: `onbox stop` asks the
 *                 onbox holding the run's lock (then sends it SIGUSR1)
 *   stopped       {"run", "when", "time_unix", "by", "stage", "attempt",
 *                 "how", "nonce"}: the run was stopped; nothing resumes it
 *                 until `onbox start`/`onbox run` removes it (stop_clear)
 */
#ifndef WK_STOP_H
#define WK_STOP_H

#include <sys/types.h>

#include <cJSON.h>

#define STOP_REQUEST	"stop.request"
#define STOP_RECORD	"stopped"
#define STOP_KILL_WAIT_MS 5000	/* after SIGKILL the kernel needs only moments */
#define STOP_BY_MAX	160

/*
 * Who stops: from (NULL: "onbox stop"; else a caller's own words, e.g.
 * "patrol stop (alice@laptop)", cut to safe characters) and this box's
 * user@host.  Caller frees.
 */
char *stop_who(const char *from);

/* Write stop.request for by; nonce (17 bytes) receives its id.  0 or -1 (errno set). */
int stop_request_write(const char *workdir, const char *by, char *nonce);
/* stop.request, or NULL when there is none (caller frees). */
cJSON *stop_request_load(const char *workdir);
/* The stopped record, or NULL when the run is not stopped (caller frees). */
cJSON *stop_record_load(const char *workdir);

/*
 * Write the stopped record (stage NULL and attempt 0: nothing was running)
 * and remove stop.request.  by and nonce from the request when there is one.
 * 0 or -1 (errno set).
 */
int stop_record_write(const char *workdir, const char *run, const char *by, const char *nonce,
    const char *stage, long attempt, const char *how);

/*
 * Mark attempt a (an entry of the stage's history) ended "stopped" by by,
 * how: the caller saves the history.
 */
void stop_mark_attempt(cJSON *a, const char *by, const char *how);

/* Remove both files; 1 when the run was recorded stopped, else 0. */
int stop_clear(const char *workdir);

/*
 * SIGTERM to process group pgid, then SIGKILL once grace_s passed with a
 * live member left; returns when none is left (0) or STOP_KILL_WAIT_MS after
 * the SIGKILL (-1).  tick(arg) runs every few tens of ms while waiting (a
 * heartbeat).  *killed is set to 1 when SIGKILL was needed.
 */
int stop_group(pid_t pgid, long grace_s, void (*tick)(void *), void *arg, int *killed);

#endif
