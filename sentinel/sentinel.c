/*
 * sentinel.c: layer 3's entry point and its tick loop.
 *
 *   sentinel [-c FILE] (--marker NAME | --any A,B[,...]) [--interval S]
 *            [--max-ticks N] [--follow] [--json] [-v]
 *
 * Each tick is one short connection (connect, one check, close; tick.c),
 * never a session held open: the check is the mwait script (core/mwait.c),
 * or with --follow (after a first plain check) the box's `onbox wait`,
 * which answers within a bounded window (sentinel.follow_s) as soon as
 * inotify sees a marker land, and falls back to the plain check in the same
 * connection where the box has no `onbox wait`.  Between ticks it sleeps sentinel.interval_s on its
 * signal pipe (none after a --follow window that answered: it reconnects at
 * once), so a newer sentinel's SIGUSR1 or a SIGTERM is seen at once.
 *
 * It remembers each stage's current attempt: a relaunch is said out loud and
 * the wait goes on for the new attempt, and a FAILED twin of an older
 * attempt is stale and ignored.  A box that cannot be reached is retried,
 * one line per tick on stderr; a box that refuses us (auth, host key) ends
 * the wait at once.
 *
 * Exit: 0 found, 3 its FAILED twin, 1 gave up after max_ticks (or the run was
 * stopped on purpose), 2 refused,
 * 64 usage, 74 the local state dir, 75 superseded by a newer sentinel,
 * 78 config, 128+sig stopped.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cliopts.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "jsonfile.h"
#include "layout.h"
#include "lock.h"
#include "log.h"
#include "monotime.h"
#include "mwait.h"
#include "notify.h"
#include "sentinel.h"
#include "sigwait.h"
#include "sshq.h"
#include "target.h"
#include "traceback.h"
#include "xmalloc.h"

#define TICK_BUDGET_S	30	/* the check itself, on top of the connect timeout */
#define LAST_LINES_MAX	30

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: sentinel [-c FILE] (--marker NAME | --any A,B[,...]) [--interval S]\n"
	    "                [--max-ticks N] [--follow] [--json] [-v]\n\n"
	    "Waits for a marker on the box, one short ssh connection per tick, and always exits.\n\n"
	    "  -c, --config FILE  the run's config (else $WATCHKEEPER_CONFIG, else ./watchkeeper.json)\n"
	    "  --marker NAME      the marker to wait for\n"
	    "  --any A,B          the first of several markers\n"
	    "  --interval S       seconds between ticks (sentinel.interval_s, default 90)\n"
	    "  --max-ticks N      ticks before giving up (sentinel.max_ticks, default 120)\n"
	    "  --follow           let the box's onbox wait with inotify, up to sentinel.follow_s\n"
	    "                     (default 60) per connection: a marker is seen within a second\n"
	    "  --json             print the outcome as one JSON object\n"
	    "  -v, --verbose      more diagnostics\n\n"
	    "One sentinel per run and marker: a new one supersedes the old, which exits 75.\n\n"
	    "exit: 0 found, 3 its .FAILED twin appeared, 1 gave up after N ticks or at once when\n"
	    "the run was stopped on purpose (onbox stop / patrol stop), 2 the box refused (auth,\n"
	    "host key), 64 usage, 74 local state dir, 75 superseded, 78 config.\n");
}

/* ---- signals ---- */

/*
 * A signal came (sigwait.h): end the tick, say what it means and set the
 * outcome.  The exit code to leave with: 75 superseded, 128+sig stopped.
 */
static int
sentinel_signalled(struct sentinel *s, const struct sigwait_got *got)
{
	char *csv;
	size_t i;

	tick_abort(&s->conn);
	if (got->signo == SIGUSR1) {
		struct buf b = BUF_INIT;

		for (i = 0; i < s->spec.nmarkers; i++)
			buf_printf(&b, "%s%s", i > 0 ? "," : "", s->spec.markers[i]);
		csv = buf_detach(&b);
		free(s->message);
		s->message = xstrfmt("superseded by a newer sentinel (pid %lu) for %s", got->pid, csv);
		fprintf(stderr, "sentinel: %s; exiting\n", s->message);
		free(csv);
		s->outcome = "superseded";
		s->rc = SENTINEL_EX_SUPERSEDED;
	} else {
		free(s->message);
		s->message = xstrfmt("stopped by signal %s", strsignal(got->signo));
		fprintf(stderr, "sentinel: %s\n", s->message);
		s->outcome = "stopped";
		s->rc = 128 + got->signo;
	}
	return s->rc;
}

/* Wait up to ms (< 0: no bound) for a signal: 0 when none came, else as sentinel_signalled. */
static int
sentinel_wait_signal(struct sentinel *s, int ms)
{
	struct sigwait_got got;

	return sigwait_fd(s->conn.sigfd, ms, &got) ? sentinel_signalled(s, &got) : 0;
}

/* Every marker's lock, superseding its holder.  0, or an exit code. */
static int
sentinel_lock(struct sentinel *s)
{
	struct sigwait_got got;
	int rc = slock_take(s->statedir, s->spec.markers, s->spec.nmarkers, s->conn.sigfd,
	    &s->lockfds, &got);

	return rc == SLOCK_SIGNALLED ? sentinel_signalled(s, &got) : rc;
}

/* ---- what a check says ---- */

/* s->seen = text on one line (an ssh message may span several). */
static void
sentinel_seen(struct sentinel *s, const char *fmt, const char *text)
{
	char *p;

	snprintf(s->seen, sizeof(s->seen), fmt, text);
	for (p = s->seen; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
}

static void
sentinel_elapsed(const struct sentinel *s, char *out, size_t len)
{
	timefmt_duration((long)((monotime_ms() - s->start_ms) / 1000), out, len);
}

/* The markers of spec stage j, "A or B". */
static char *
sentinel_stage_markers(const struct sentinel *s, size_t j)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < s->spec.nmarkers; i++)
		if (s->spec.stage_of[i] != NULL && strcmp(s->spec.stage_of[i], s->spec.stages[j]) == 0)
			buf_printf(&b, "%s%s", b.len > 0 ? " or " : "", s->spec.markers[i]);
	return buf_detach(&b);
}

/* A stage's attempt above the one last seen: a relaunch, said and recorded. */
static void
sentinel_relaunch(struct sentinel *s, const struct mwait *w)
{
	cJSON *e;
	char *ms;
	size_t j;

	for (j = 0; j < w->ns; j++) {
		long cur = w->s[j].attempt;

		if (s->attempt[j] > 0 && cur > s->attempt[j]) {
			ms = sentinel_stage_markers(s, j);
			fprintf(stderr, "sentinel: stage %s was relaunched: attempt %ld (was %ld); waiting "
			    "for %s from attempt %ld\n", s->spec.stages[j], cur, s->attempt[j], ms, cur);
			free(ms);
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "stage", s->spec.stages[j]);
			cJSON_AddNumberToObject(e, "from", (double)s->attempt[j]);
			cJSON_AddNumberToObject(e, "to", (double)cur);
			cJSON_AddItemToArray(s->relaunched, e);
		}
		/* Whatever the box says now is what the next tick is compared with. */
		s->attempt[j] = cur;
	}
}

/* "stage train attempt 2 running", "nothing running on the box: ...", into s->seen. */
static void
sentinel_describe(struct sentinel *s, const struct mwait *w)
{
	struct buf b = BUF_INIT;
	size_t j;

	for (j = 0; j < w->ns; j++) {
		if (b.len > 0)
			buf_puts(&b, ", ");
		if (w->s[j].attempt > 0)
			buf_printf(&b, "stage %s attempt %ld %s", s->spec.stages[j], w->s[j].attempt,
			    w->s[j].result[0] != '\0' ? w->s[j].result : "(no result yet)");
		else
			buf_printf(&b, "stage %s not started", s->spec.stages[j]);
	}
	if (mwait_idle(w))
		snprintf(s->seen, sizeof(s->seen), "nothing running on the box: the marker cannot appear "
		    "until the run is resumed%s%s%s", b.len > 0 ? " (" : "", buf_str(&b),
		    b.len > 0 ? ")" : "");
	else if (b.len == 0)
		snprintf(s->seen, sizeof(s->seen), "%s", w->onbox_alive ? "onbox running" :
		    "the stage process is running, onbox is not");
	else
		snprintf(s->seen, sizeof(s->seen), "%s%s", buf_str(&b),
		    w->onbox_alive ? "" : "; onbox is not running");
	buf_free(&b);
}

/* The FAILED twin's last lines (last_lines[], else a "tail" string), scrubbed, at most LAST_LINES_MAX. */
static cJSON *
sentinel_lines(const struct sentinel *s, const cJSON *doc)
{
	struct notify_sinks sinks;
	const cJSON *arr = cJSON_GetObjectItem(doc, "last_lines"), *it;
	const char *tail = json_str(doc, "tail", NULL);
	cJSON *out = cJSON_CreateArray();
	char *copy = NULL, *line, *save, *clean;
	int n;

	notify_sinks_load(s->cfg, &sinks);
	if (cJSON_IsArray(arr)) {
		cJSON_ArrayForEach(it, arr)
			if (cJSON_IsString(it)) {
				clean = notify_scrub(&sinks, it->valuestring);
				cJSON_AddItemToArray(out, cJSON_CreateString(clean));
				free(clean);
			}
	} else if (tail != NULL) {
		copy = xstrdup(tail);
		for (line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
			clean = notify_scrub(&sinks, line);
			cJSON_AddItemToArray(out, cJSON_CreateString(clean));
			free(clean);
		}
	}
	while ((n = cJSON_GetArraySize(out)) > LAST_LINES_MAX)
		cJSON_DeleteItemFromArray(out, 0);
	free(copy);
	notify_sinks_free(&sinks);
	return out;
}

/* The deciding check: remember what the outcome needs. */
static void
sentinel_decided(struct sentinel *s, const struct mwait *w, enum mwait_outcome o, size_t i)
{
	const struct mwait_stage *st = mwait_stage_of(w, &s->spec, i);
	char el[32];

	s->decided = (int)i;
	s->decided_attempt = st != NULL ? st->attempt : 0;
	sentinel_elapsed(s, el, sizeof(el));
	if (o == MWAIT_STOPPED) {
		/* No marker comes until someone starts the run again: waiting on is pointless. */
		const char *by = json_str(w->stopped_doc, "by", "someone");
		const char *when = json_str(w->stopped_doc, "when", "?");

		s->outcome = "run_stopped";
		s->rc = SENTINEL_EX_GAVE_UP;
		snprintf(s->seen, sizeof(s->seen), "the run was stopped on purpose by %s at %s", by, when);
		if (!s->json)
			printf("sentinel: gave up (tick %ld, %s): the run was stopped on purpose by %s at %s; "
			    "%s will not appear until `onbox start` (or `patrol deploy`) starts it again\n",
			    s->tick, el, by, when, s->names);
		return;
	}
	if (o == MWAIT_FOUND) {
		/* The attempt that earned the marker, when the marker says so. */
		if (json_long(w->m[i].doc, "attempt", 0) > 0)
			s->decided_attempt = json_long(w->m[i].doc, "attempt", 0);
		s->outcome = "found";
		s->rc = SENTINEL_EX_FOUND;
		snprintf(s->seen, sizeof(s->seen), "%s found", s->spec.markers[i]);
		if (!s->json)
			printf("sentinel: %s found (tick %ld, %s)\n", s->spec.markers[i], s->tick, el);
		return;
	}
	s->outcome = "failed";
	s->rc = SENTINEL_EX_FAILED;
	s->failed_doc = w->m[i].failed_doc != NULL ? cJSON_Duplicate(w->m[i].failed_doc, 1) : NULL;
	if (w->m[i].failed_attempt > 0)
		s->decided_attempt = w->m[i].failed_attempt;
	snprintf(s->seen, sizeof(s->seen), "%s.FAILED (%s)", s->spec.markers[i],
	    json_str(s->failed_doc, "class", "unknown"));
	if (!s->json) {
		cJSON *lines = sentinel_lines(s, s->failed_doc), *it;
		const char *stage = json_str(s->failed_doc, "stage", s->spec.stage_of[i]);
		char at[200];

		printf("sentinel: %s FAILED (tick %ld, %s): class %s", s->spec.markers[i], s->tick, el,
		    json_str(s->failed_doc, "class", "unknown"));
		if (json_str(s->failed_doc, "title", NULL) != NULL)
			printf(" (%s)", json_str(s->failed_doc, "title", ""));
		if (stage != NULL && s->decided_attempt > 0)
			printf(", stage %s attempt %ld", stage, s->decided_attempt);
		printf("\n");
		if (json_str(s->failed_doc, "remediation", NULL) != NULL)
			printf("  remediation: %s\n", json_str(s->failed_doc, "remediation", ""));
		if (tb_where_text(cJSON_GetObjectItem(s->failed_doc, "where"), at, sizeof(at)))
			printf("  where: %s\n", at);
		if (cJSON_GetArraySize(lines) > 0)
			printf("  last lines:\n");
		cJSON_ArrayForEach(it, lines)
			printf("    %s\n", it->valuestring);
		cJSON_Delete(lines);
	}
}

/* ---- the tick loop ---- */

/* One tick.  0 to go on (*served: a --follow window answered), else the exit code. */
static int
sentinel_tick(struct sentinel *s, const char *plain, int *served)
{
	struct tick_res r;
	struct mwait w;
	enum mwait_outcome o;
	char *in, *why = NULL;
	size_t i;
	int deadline_s, follow, rc = 0;

	*served = 0;
	/*
	 * --follow's first tick is the plain check: what is there already, and
	 * which attempt runs, so that a relaunch in the first window is known
	 * for one.  Every later tick is a window of `onbox wait`.
	 */
	follow = s->follow && s->tick > 1;
	in = follow ? mwait_follow_script(s->cfg->workdir, &s->spec, s->attempt, s->follow_s,
	    s->cfg->poll_ms, plain) : xstrdup(plain);
	deadline_s = s->target.connect_timeout_s + TICK_BUDGET_S + (follow ? (int)s->follow_s : 0);
	switch (tick_run(&s->conn, "sh -s", in, strlen(in), deadline_s * 1000, &r)) {
	case TICK_STOPPED:
		rc = sentinel_signalled(s, &r.sig);
		break;
	case TICK_REFUSED:
		free(s->message);
		s->message = xstrfmt("%s: %s", ssh_fail_name(r.err.kind), r.err.msg);
		sentinel_seen(s, "the box refused: %s", s->message);
		fprintf(stderr, "sentinel: the box refused the connection (%s); not retrying (exit 2)\n",
		    s->message);
		s->outcome = "refused";
		rc = s->rc = SENTINEL_EX_REFUSED;
		break;
	case TICK_UNREACHABLE:
		sentinel_seen(s, "box unreachable: %s", r.err.msg);
		break;
	case TICK_SEEN:
		if (mwait_parse(r.out, r.outlen, &s->spec, &w, &why) != 0) {
			sentinel_seen(s, "box unreachable: its answer was rejected (%s)", why);
			free(why);
			break;
		}
		/* The first tick goes straight on to the first window. */
		*served = s->follow && (!follow || r.exit_status == 0);
		if (follow && r.exit_status == MWAIT_FOLLOW_FALLBACK && !s->fallback_said) {
			fprintf(stderr, "sentinel: the box has no `onbox wait`: --follow falls back to "
			    "polling every %ld s\n", s->interval_s);
			s->fallback_said = 1;
		}
		sentinel_relaunch(s, &w);
		if ((o = mwait_decide(&w, &s->spec, &i)) != MWAIT_PENDING) {
			sentinel_decided(s, &w, o, i);
			rc = s->rc;
		} else
			sentinel_describe(s, &w);
		mwait_free(&w);
		break;
	}
	tick_res_free(&r);
	free(in);
	return rc;
}

static int
sentinel_loop(struct sentinel *s)
{
	char *plain = mwait_script(s->cfg->workdir, &s->spec), el[32];
	int served, rc;

	for (s->tick = 1;; s->tick++) {
		if ((rc = sentinel_tick(s, plain, &served)) != 0 || s->outcome != NULL)
			break;
		fprintf(stderr, "sentinel: tick %ld/%ld: %s not yet (%s)\n", s->tick, s->max_ticks, s->names,
		    s->seen);
		if (s->tick >= s->max_ticks) {
			sentinel_elapsed(s, el, sizeof(el));
			if (!s->json)
				printf("sentinel: gave up after %ld ticks (%s): %s never appeared; last seen: %s\n",
				    s->tick, el, s->names, s->seen);
			s->outcome = "gave_up";
			rc = s->rc = SENTINEL_EX_GAVE_UP;
			break;
		}
		/* A --follow window that answered already waited: go again at once. */
		if ((rc = sentinel_wait_signal(s, served ? 0 : (int)s->interval_s * 1000)) != 0)
			break;
	}
	free(plain);
	return rc;
}

static void
sentinel_json(const struct sentinel *s)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	size_t i;
	char *text;

	cJSON_AddStringToObject(o, "run", s->cfg->run);
	arr = cJSON_AddArrayToObject(o, "markers");
	for (i = 0; i < s->spec.nmarkers; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(s->spec.markers[i]));
	cJSON_AddStringToObject(o, "outcome", s->outcome);
	if (s->decided >= 0)
		cJSON_AddStringToObject(o, "marker", s->spec.markers[s->decided]);
	else
		cJSON_AddNullToObject(o, "marker");
	cJSON_AddNumberToObject(o, "ticks", (double)s->tick);
	cJSON_AddNumberToObject(o, "max_ticks", (double)s->max_ticks);
	cJSON_AddNumberToObject(o, "elapsed_s", (double)((monotime_ms() - s->start_ms) / 100) / 10.0);
	if (strcmp(s->outcome, "failed") == 0) {
		cJSON_AddStringToObject(o, "class", json_str(s->failed_doc, "class", "unknown"));
		if (json_str(s->failed_doc, "remediation", NULL) != NULL)
			cJSON_AddStringToObject(o, "remediation", json_str(s->failed_doc, "remediation", ""));
		cJSON_AddItemToObject(o, "last_lines", sentinel_lines(s, s->failed_doc));
		if (cJSON_IsObject(cJSON_GetObjectItem(s->failed_doc, "where")))
			cJSON_AddItemToObject(o, "where",
			    cJSON_Duplicate(cJSON_GetObjectItem(s->failed_doc, "where"), 1));
	}
	cJSON_AddStringToObject(o, "last_seen", s->seen);
	if (s->decided_attempt > 0)
		cJSON_AddNumberToObject(o, "attempt", (double)s->decided_attempt);
	if (cJSON_GetArraySize(s->relaunched) > 0)
		cJSON_AddItemToObject(o, "relaunched", cJSON_Duplicate(s->relaunched, 1));
	if (s->message != NULL)
		cJSON_AddStringToObject(o, "message", s->message);
	cJSON_AddNumberToObject(o, "exit", s->rc);
	text = cJSON_PrintUnformatted(o);
	printf("%s\n", text);
	free(text);
	cJSON_Delete(o);
}

/* A whole number in [min, max] from an option, or -1. */
static long
sentinel_optnum(const char *name, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "sentinel: %s %s: want a whole number in %ld..%ld\n", name, arg, min, max);
		return -1;
	}
	return v;
}

/* Fill s->spec from the marker list (each stage looked up in the chain).  0 or -1. */
static int
sentinel_spec(struct sentinel *s, const char *list)
{
	struct buf names = BUF_INIT;
	char *copy = xstrdup(list), *tok, *save;
	const char *stage;
	size_t i;
	int r = 0;

	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		stage = NULL;
		for (i = 0; i < s->cfg->nchain; i++)
			if (strcmp(s->cfg->chain[i].marker, tok) == 0)
				stage = s->cfg->chain[i].name;
		if (mwait_spec_add(&s->spec, tok, stage) != 0) {
			fprintf(stderr, "sentinel: \"%s\" is not a marker name ([A-Za-z0-9._-]+)\n", tok);
			r = -1;
		}
	}
	if (r == 0 && s->spec.nmarkers == 0) {
		fprintf(stderr, "sentinel: no marker given\n");
		r = -1;
	}
	for (i = 0; i < s->spec.nmarkers; i++)
		buf_printf(&names, "%s%s", i > 0 ? " or " : "", s->spec.markers[i]);
	s->names = buf_detach(&names);
	free(copy);
	return r;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "marker", required_argument, NULL, 'm' },
		{ "any", required_argument, NULL, 'a' },
		{ "interval", required_argument, NULL, 'i' },
		{ "max-ticks", required_argument, NULL, 'n' },
		{ "follow", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		WK_LONGOPTS_COMMON
	};
	struct sentinel s;
	struct ssh_error err;
	struct diag d = DIAG_INIT;
	static const int sigs[] = { SIGUSR1, SIGTERM, SIGINT, SIGHUP };
	struct cli_common cc = { "sentinel", usage, NULL, 0 };
	const char *list = NULL, *iopt = NULL, *nopt = NULL;
	char *path = NULL;
	int ch, rc = WK_EX_USAGE;

	memset(&s, 0, sizeof(s));
	s.conn.sigfd = -1;
	s.decided = -1;
	s.start_ms = monotime_ms();
	/* Before anything else: a newer sentinel's SIGUSR1 must never find us unprepared. */
	if ((s.conn.sigfd = sigwait_open(sigs, sizeof(sigs) / sizeof(sigs[0]))) < 0) {
		fprintf(stderr, "sentinel: the signal pipe: %s (exit 70)\n", wk_strerror(WK_ERR_SYSTEM));
		return WK_EX_SOFTWARE;
	}
	signal(SIGPIPE, SIG_IGN);
	log_init("sentinel", 0);
	while ((ch = getopt_long(argc, argv, "c:vVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
		case 'a':
			if (list != NULL) {
				fprintf(stderr, "sentinel: one --marker or one --any\n");
				goto usage;
			}
			list = optarg;
			if (ch == 'm' && strchr(list, ',') != NULL) {
				fprintf(stderr, "sentinel: --marker takes one name; use --any A,B\n");
				goto usage;
			}
			break;
		case 'i':
			iopt = optarg;
			break;
		case 'n':
			nopt = optarg;
			break;
		case 'f':
			s.follow = 1;
			break;
		case 'j':
			s.json = 1;
			break;
		default:
			if ((rc = cli_common(&cc, ch)) != CLI_NEXT)
				goto out;
		}
	}
	if (optind != argc || list == NULL)
		goto usage;
	log_init("sentinel", cc.verbose);
	path = config_find(cc.config);
	if ((rc = config_load_report("sentinel", path, &s.cfg)) != 0)
		goto out;
	s.interval_s = config_get_int(s.cfg, "sentinel.interval_s");
	s.max_ticks = config_get_int(s.cfg, "sentinel.max_ticks");
	s.follow_s = config_get_int(s.cfg, "sentinel.follow_s");
	if ((iopt != NULL && (s.interval_s = sentinel_optnum("--interval", iopt, 1, 86400)) < 0) ||
	    (nopt != NULL && (s.max_ticks = sentinel_optnum("--max-ticks", nopt, 1, 1000000)) < 0) ||
	    sentinel_spec(&s, list) != 0)
		goto usage;
	s.attempt = xcalloc(s.spec.nstages + 1, sizeof(*s.attempt));
	s.relaunched = cJSON_CreateArray();
	if ((s.statedir = statedir_path(s.cfg, 1)) == NULL) {
		fprintf(stderr, "sentinel: cannot create the run's local state directory: %s (exit 74)\n",
		    wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	if ((rc = sentinel_lock(&s)) != 0)
		goto done;
	if (target_from_config(s.cfg, &s.target, &err, &d) != 0) {
		diag_print(&d, stderr);
		if (err.kind == SSH_FAIL_EXEC) {
			fprintf(stderr, "sentinel: %s (exit 74)\n", err.msg);
			rc = WK_EX_IOERR;
			goto out;
		}
		/* No retry can help: the config names no way to the box this transport can take. */
		free(s.message);
		s.message = xstrfmt("%s: %s", ssh_fail_name(err.kind), err.msg);
		fprintf(stderr, "sentinel: cannot reach the box this way: %s (exit 2)\n", s.message);
		sentinel_seen(&s, "no way to the box: %s", err.msg);
		s.outcome = "refused";
		rc = s.rc = SENTINEL_EX_REFUSED;
		goto done;
	}
	s.have_target = 1;
	s.conn.target = &s.target;
	/* Said once: the system ssh stands in for libssh2 (or would, but is missing). */
	if (s.target.transport_auto && s.target.transport_why != NULL) {
		char *tr = target_transport_text(&s.target);

		fprintf(stderr, "sentinel: transport %s\n", tr);
		free(tr);
	}
	rc = sentinel_loop(&s);
 done:
	fflush(stderr);
	if (s.json && s.outcome != NULL)
		sentinel_json(&s);
	goto out;
 usage:
	usage(stderr);
	rc = WK_EX_USAGE;
 out:
	fflush(stdout);
	tick_abort(&s.conn);
	slock_release(s.lockfds, s.spec.nmarkers);
	if (s.have_target)
		target_free(&s.target);
	cJSON_Delete(s.failed_doc);
	cJSON_Delete(s.relaunched);
	mwait_spec_free(&s.spec);
	free(s.attempt);
	free(s.names);
	free(s.statedir);
	free(s.message);
	if (s.cfg != NULL)
		config_free(s.cfg);
	diag_free(&d);
	free(path);
	if (s.conn.sigfd >= 0)
		sigwait_close();
	return rc;
}
