/*
 * top.c: `patrol top`, every run patrol knows on one live screen (ncurses).
 *
 *   patrol top [--interval S] [--jobs N] [--slow S]
 *
 * One row a run (top-fmt.c): verdict in colour, stage#attempt, a progress
 * bar with ~cur/max and ETA, a loss sparkline, the heartbeat's age, when the
 * box was last seen, the refresh, the last event.  Enter opens a run (what
 * its state knows, the last lines of its log, its checkpoints); l follows its
 * log; s and r stop and resume it (`patrol stop`'s and `patrol resume`'s
 * code), each after y/n; space refreshes now.
 *
 * The loop polls the keyboard, the signal pipe (SIGTERM, SIGINT, SIGHUP:
 * core/sigwait.h) and the children's pipes, and reads state files only;
 * everything that reaches a box runs in a child (top-look.c, top-act.c).
 * Whatever ends it (q, Ctrl-C, SIGTERM, a lost terminal: SIGHUP or the
 * terminal's end of file) goes through the one exit, where endwin() gives
 * the terminal back as initscr found it (modes, cursor, the alternate
 * screen left), before the children are ended.  stderr goes to /dev/null
 * while the screen is up (a warning would tear it) and comes back after.
 *
 * Exit: 0 after q, Ctrl-C, SIGTERM or SIGHUP; 64 usage, or when stdin and
 * stdout are not a terminal (the table for scripts is `patrol status
 * --all`), or the terminal type is unknown.
 *
 * --bench-frames N (make bench, not for users): no terminal, no refreshes;
 * draws N frames of the fleet into /dev/null, each parsing both state files
 * of every run again (every run ticked and looked at since the last frame:
 * the worst case), then N frames parsing every top.json again (a refresh of
 * every run), then N where nothing changed, and prints the CPU of each kind
 * of frame and the peak RSS as one JSON line.
 */
#include <curses.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exits.h"
#include "monotime.h"
#include "sigwait.h"
#include "top.h"
#include "warm.h"
#include "xmalloc.h"

#define TOP_INTERVAL_DEF	10
#define TOP_JOBS_DEF		4
#define TOP_SLOW_DEF		10
#define TOP_KILL_MIN_S		120	/* a refresh is ended past max(this, 4 x --slow) */
#define TOP_FOLLOW_S		2
#define TOP_TICK_MS		250	/* the loop's pace while children run */

static void
top_usage(FILE *fp)
{
	fprintf(fp, "usage: patrol top [--interval S] [--jobs N] [--slow S]\n\n"
	    "A live view of every run patrol knows: one row a run (verdict, stage#attempt,\n"
	    "progress bar, ~cur/max, ETA, loss sparkline, heartbeat age, when the box was\n"
	    "last seen, the refresh, the last event).\n\n"
	    "  --interval S  refresh every S seconds (default %d, 1 to 3600)\n"
	    "  --jobs N      at most N runs refreshed at once (default %d, 1 to 64)\n"
	    "  --slow S      a refresh running longer shows as \"slow\" (default %d, 1 to 600);\n"
	    "                past max(%d, 4 x S) seconds it is ended\n\n"
	    "keys: up/down (k/j) select, Enter open the run (its state, the last lines of its\n"
	    "log, its checkpoints), l follow its log, s stop it, r resume it (each asks y/n;\n"
	    "the same code as `patrol stop` and `patrol resume`), space refresh now, q or Esc\n"
	    "back / quit.  A refresh is a look: the tick's probe and decision in a child, with\n"
	    "nothing done and no tick counted (saved as top.json beside patrol.json); the\n"
	    "screen never waits for a box.\n\n"
	    "exit: 0 after q, Ctrl-C, SIGTERM or a lost terminal (the terminal is left as it\n"
	    "was); 64 usage, or stdin/stdout not a terminal (use `patrol status --all`), or\n"
	    "an unknown terminal type.\n", TOP_INTERVAL_DEF, TOP_JOBS_DEF, TOP_SLOW_DEF,
	    TOP_KILL_MIN_S);
}

/* An integer option in [lo, hi]; -1 (said) when it is not one. */
static long
top_num(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "patrol top: %s %s: a number from %ld to %ld\n", opt, s, lo, hi);
		return -1;
	}
	return v;
}

static void
top_colours(struct top_ui *u)
{
	static const struct {
		enum top_colour	 c;
		short		 fg;
	} pairs[] = {
		{ TOP_C_GOOD, COLOR_GREEN }, { TOP_C_INFO, COLOR_CYAN },
		{ TOP_C_WARN, COLOR_YELLOW }, { TOP_C_BAD, COLOR_RED },
	};
	size_t i;

	u->colour = has_colors();
	if (!u->colour)
		return;
	start_color();
	(void)use_default_colors();
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		init_pair((short)pairs[i].c, pairs[i].fg, -1);
}

/* The loop; returns when the screen is to end. */
static void
top_loop(struct top_ui *u, int sigfd)
{
	unsigned long long next = 0, now;
	struct sigwait_got got;
	struct pollfd pfd[4];
	int ch, timeout, n;

	for (;;) {
		now = monotime_ms();
		if (now >= next) {
			top_look_all(&u->m);
			next = now + (unsigned long long)u->interval_s * 1000;
		}
		(void)top_look_pump(&u->looks, &u->m);
		top_model_scan(&u->m);
		top_reselect(u);
		if (u->cmd.run == NULL)
			top_pending(u);
		if (u->act.run != NULL)
			(void)top_act_read(&u->act);
		if (u->cmd.run != NULL && top_act_read(&u->cmd) && u->cmd.pid <= 0 && u->cmd.fd < 0)
			top_cmd_done(u);
		top_draw(u);
		doupdate();
		n = 0;
		pfd[n].fd = STDIN_FILENO;
		pfd[n++].events = POLLIN;
		pfd[n].fd = sigfd;
		pfd[n++].events = POLLIN;
		if (u->act.fd >= 0) {
			pfd[n].fd = u->act.fd;
			pfd[n++].events = POLLIN;
		}
		if (u->cmd.fd >= 0) {
			pfd[n].fd = u->cmd.fd;
			pfd[n++].events = POLLIN;
		}
		/* Ages on the screen move each second; children are looked at 4 times a second. */
		timeout = u->looks.running > 0 || u->act.pid > 0 || u->cmd.pid > 0 || u->pending ?
		    TOP_TICK_MS : 1000;
		if (next - now < (unsigned long long)timeout)
			timeout = (int)(next - now);
		/* EINTR (a signal: ours are on sigfd; SIGWINCH is getch's KEY_RESIZE): read on. */
		if (poll(pfd, (nfds_t)n, timeout) < 0)
			pfd[0].revents = 0;
		if (sigwait_fd(sigfd, 0, &got) == 1)
			return;
		/* The terminal went away (its end of file, a hang-up). */
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			return;
		while ((ch = getch()) != ERR)
			if (top_key(u, ch))
				return;
	}
}

/* --bench-frames N: see the top of the file. */
static int
top_bench(struct top_ui *u, long frames)
{
	struct rusage r0, r1, r2, r3;
	SCREEN *scr;
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	long i;
	double changed, looked, still;

	if (out == NULL || in == NULL ||
	    (scr = newterm(getenv("TERM") != NULL ? NULL : "xterm-256color", out, in)) == NULL) {
		fprintf(stderr, "patrol top: --bench-frames: no terminal description (TERM)\n");
		if (out != NULL)
			fclose(out);
		if (in != NULL)
			fclose(in);
		return WK_EX_USAGE;
	}
	top_colours(u);
	getrusage(RUSAGE_SELF, &r0);
	for (i = 0; i < frames; i++) {
		u->m.force = TOP_FORCE_ALL;
		top_model_scan(&u->m);
		top_draw(u);
		doupdate();
	}
	getrusage(RUSAGE_SELF, &r1);
	for (i = 0; i < frames; i++) {
		u->m.force = TOP_FORCE_LOOKS;
		top_model_scan(&u->m);
		top_draw(u);
		doupdate();
	}
	getrusage(RUSAGE_SELF, &r3);
	for (i = 0; i < frames; i++) {
		top_model_scan(&u->m);
		top_draw(u);
		doupdate();
	}
	getrusage(RUSAGE_SELF, &r2);
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
#define TOP_MS(a, b) (((b).ru_utime.tv_sec - (a).ru_utime.tv_sec + (b).ru_stime.tv_sec - \
    (a).ru_stime.tv_sec) * 1e3 + ((b).ru_utime.tv_usec - (a).ru_utime.tv_usec + \
    (b).ru_stime.tv_usec - (a).ru_stime.tv_usec) / 1e3)
	changed = TOP_MS(r0, r1) / (double)frames;
	looked = TOP_MS(r1, r3) / (double)frames;
	still = TOP_MS(r3, r2) / (double)frames;
	printf("{\"runs\": %zu, \"frames\": %ld, \"cpu_ms_per_frame_all_changed\": %.3f, "
	    "\"cpu_ms_per_frame_all_looked\": %.3f, \"cpu_ms_per_frame_unchanged\": %.3f, "
	    "\"maxrss_kb\": %ld}\n", u->m.n, frames, changed, looked, still, r2.ru_maxrss);
	return 0;
}

int
patrol_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "slow", required_argument, NULL, 's' },
		{ "bench-frames", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct top_ui u;
	SCREEN *scr = NULL;
	long v, bench = 0;
	int ch, rc = 0, sigfd = -1, saved_err = -1, devnull, warm_on = 0;
	const char *cs;

	memset(&u, 0, sizeof(u));
	u.interval_s = TOP_INTERVAL_DEF;
	u.follow_s = TOP_FOLLOW_S;
	u.looks.jobs = TOP_JOBS_DEF;
	u.looks.slow_ms = TOP_SLOW_DEF * 1000;
	u.act.fd = u.cmd.fd = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		v = 0;
		switch (ch) {
		case 'i':
			if ((v = top_num("--interval", optarg, 1, 3600)) < 0)
				return WK_EX_USAGE;
			u.interval_s = (int)v;
			break;
		case 'J':
			if ((v = top_num("--jobs", optarg, 1, 64)) < 0)
				return WK_EX_USAGE;
			u.looks.jobs = (int)v;
			break;
		case 's':
			if ((v = top_num("--slow", optarg, 1, 600)) < 0)
				return WK_EX_USAGE;
			u.looks.slow_ms = (unsigned)v * 1000;
			break;
		case 'B':
			if ((bench = top_num("--bench-frames", optarg, 1, 100000)) < 0)
				return WK_EX_USAGE;
			break;
		case 'h':
			top_usage(stdout);
			return 0;
		default:
			top_usage(stderr);
			return WK_EX_USAGE;
		}
	}
	if (optind != argc) {
		top_usage(stderr);
		return WK_EX_USAGE;
	}
	u.looks.kill_ms = u.looks.slow_ms * 4 > TOP_KILL_MIN_S * 1000 ? u.looks.slow_ms * 4 :
	    TOP_KILL_MIN_S * 1000;
	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	u.utf8 = cs != NULL && strcmp(cs, "UTF-8") == 0;
	top_model_init(&u.m);
	if (bench > 0) {
		rc = top_bench(&u, bench);
		goto out;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "patrol top: needs a terminal (stdin and stdout are not both one); "
		    "for a table a script can read: patrol status --all [--json]\n");
		rc = WK_EX_USAGE;
		goto out;
	}
	if ((sigfd = sigwait_open(sigs, sizeof(sigs) / sizeof(sigs[0]))) < 0) {
		fprintf(stderr, "patrol top: cannot set up its signals\n");
		rc = WK_EX_SOFTWARE;
		goto out;
	}
	if ((scr = newterm(NULL, stdout, stdin)) == NULL) {
		fprintf(stderr, "patrol top: cannot drive this terminal (TERM=%s)\n",
		    getenv("TERM") != NULL ? getenv("TERM") : "");
		rc = WK_EX_USAGE;
		goto out;
	}
	fflush(stderr);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
		saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		(void)dup2(devnull, STDERR_FILENO);
		close(devnull);
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	top_colours(&u);
	/* Each box's looks through one held connection (warm.h), inherited by the look children. */
	warm_on = warm_init(0) == 0;
	top_loop(&u, sigfd);
	/* The terminal first, as it was; then the children. */
	endwin();
	delscreen(scr);
	if (saved_err >= 0) {
		(void)dup2(saved_err, STDERR_FILENO);
		close(saved_err);
	}
	top_look_stop(&u.looks, &u.m);
	if (u.act.run != NULL)
		top_act_end(&u.act);
	if (u.cmd.run != NULL)
		top_act_end(&u.cmd);
	if (warm_on)
		warm_shutdown();
out:
	if (sigfd >= 0)
		sigwait_close();
	top_model_free(&u.m);
	return rc;
}
