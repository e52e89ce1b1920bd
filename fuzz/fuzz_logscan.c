/*
 * fuzz_logscan.c: the incremental log reader and what reads its lines.
 *
 * The input is a log file's content.  It is written to a scratch file in up
 * to three pieces cut at offsets derived from the input, with a poll after
 * each, in one of four ways chosen by the input's last byte:
 *   0  plain appends;
 *   1  appends, and a restart between polls (position saved, its
 *      fingerprint through hex and back, a new scanner resumed from it), as
 *      a restarted onbox does;
 *   2  copytruncate: the file is emptied in place before the second piece;
 *   3  rotation by rename: the second piece goes to a new file at the path.
 * Every line goes through the triage scan, the progress pattern, the health
 * detectors and the ring of last lines.  For ways 0, 1 and 3 the lines must
 * be the ones a one-shot split of the same bytes gives (the documented line
 * ends: '\n', "\r\n", a lone '\r'), cut at max_line and flagged, ignoring
 * empty lines (a "\r" | "\n" pair split across two polls may or may not
 * leave one).  The compiled patterns and the health state are made once;
 * the state is reloaded from its empty save before each input, and the
 * scratch files are removed after it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "buf.h"
#include "fuzzutil.h"
#include "health.h"
#include "log.h"
#include "logscan.h"
#include "pattern.h"
#include "tail.h"
#include "triage.h"
#include "xmalloc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RING_LINES	4

static char *log_path, *rot_path;
static struct triage_scan ts, ts2;
static struct pattern *progress_re;
static struct health *health, *health2;
static cJSON *health_empty;

/* The lines of one input: "<len> <truncated>\n<bytes>" each, non-empty only. */
struct sink {
	struct buf	 lines;
	size_t		 max_line;
	struct linering	 ring;
	struct tailkeep	 tk;
	time_t		 now;
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct health_opts o;
	char errbuf[256];

	(void)argc;
	(void)argv;
	log_init("fuzz_logscan", 0);
	log_path = fz_path("train.log");
	rot_path = fz_path("train.log.1");
	if (triage_scan_init(&ts) != 0 || triage_scan_init(&ts2) != 0)
		abort();
	if (pattern_compile("step (\\d+)/(\\d+)", &progress_re, errbuf, sizeof(errbuf)) != 0)
		abort();
	memset(&o, 0, sizeof(o));
	o.progress_re = "step (\\d[\\d,]*)/(\\d+)";
	o.loss_re = "loss[=: ]+(\\S+)";
	o.spike_pct = 50;
	o.spike_steps = 2;
	o.tp_re = "([0-9.]+) ?it/s";
	o.drop_pct = 25;
	o.tp_ticks = 1;
	o.wandb = 1;
	if (health_new_opts(&o, &health, errbuf, sizeof(errbuf)) != 0 ||
	    health_new_opts(&o, &health2, errbuf, sizeof(errbuf)) != 0) {
		fprintf(stderr, "fuzz harness: %s\n", errbuf);
		abort();
	}
	health_empty = health_save(health);
	return 0;
}

static void
sink_add(struct buf *b, const char *line, size_t len, int truncated)
{
	if (len == 0)
		return;
	buf_printf(b, "%zu %d\n", len, truncated);
	buf_append(b, line, len);
}

static void
on_line(void *arg, const char *line, size_t len, int flags)
{
	struct sink *s = arg;
	struct pattern_span g[3];
	size_t i;

	if (len > s->max_line)
		abort();
	sink_add(&s->lines, line, len, (flags & LOGSCAN_TRUNCATED) != 0);
	triage_scan_line(&ts, line, len);
	if (pattern_match_groups(progress_re, line, len, g, 3) == 1) {
		for (i = 0; i < 3; i++)
			if (g[i].start < 0 || g[i].start > g[i].end || g[i].end > (long)len)
				abort();
	}
	health_line(health, line, len, s->now);
	s->now += 7;
	linering_push(&s->ring, line, len);
	tailkeep_line(&s->tk, line, len, flags);
}

/* The lines a one-shot read of d[0..n) gives (the last, unterminated one too). */
static void
ref_split(const char *d, size_t n, size_t max_line, struct buf *out)
{
	size_t i = 0, start = 0;

#define EMIT(a, b) sink_add(out, d + (a), (b) - (a) > max_line ? max_line : (b) - (a), \
	(b) - (a) > max_line)
	while (i < n) {
		if (d[i] == '\n') {
			EMIT(start, i);
			start = ++i;
		} else if (d[i] == '\r') {
			EMIT(start, i);
			i += i + 1 < n && d[i + 1] == '\n' ? 2 : 1;
			start = i;
		} else
			i++;
	}
	if (start < n)
		EMIT(start, n);
#undef EMIT
}

static void
restart(struct logscan *ls)
{
	struct logscan_pos pos, back;
	char hex[65];
	char *path = xstrdup(ls->path);
	size_t max_line = ls->max_line;

	logscan_get_pos(ls, &pos);
	logscan_fp_hex(&pos, hex);
	memset(&back, 0, sizeof(back));
	if (logscan_fp_parse(&back, hex) != 0 || back.fp_len != pos.fp_len ||
	    memcmp(back.fp, pos.fp, pos.fp_len) != 0)
		abort();
	back.dev = pos.dev;
	back.ino = pos.ino;
	back.off = pos.off;
	logscan_free(ls);
	logscan_init(ls, path, max_line);
	logscan_set_pos(ls, &back);
	free(path);
}

static void
check_printable(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			abort();
}

static void
after(struct sink *s)
{
	struct triage_input in;
	struct health_alert *alerts = NULL;
	struct health_view v;
	const char *evidence = NULL;
	cJSON *doc, *again;
	size_t i, n;

	/* The triage scan's verdict, and its state through save and load. */
	memset(&in, 0, sizeof(in));
	in.exited = 1;
	in.exit_code = 1;
	in.oom_kills = -1;
	if (triage_classify(&in, &ts, &evidence) >= TRIAGE_NCLASSES)
		abort();
	if (evidence != NULL)
		check_printable(evidence);
	doc = triage_scan_save(&ts);
	if (triage_scan_load(&ts2, doc) != 0 || memcmp(ts.hits, ts2.hits, triage_nrules) != 0)
		abort();
	cJSON_Delete(doc);

	/* Health: a tick, the alerts, the view, and the state through save and load. */
	health_tick(health, s->now);
	n = health_take_alerts(health, &alerts);
	for (i = 0; i < n; i++) {
		char *text;

		doc = health_alert_json(&alerts[i]);
		text = cJSON_PrintUnformatted(doc);
		if (text == NULL)
			abort();
		free(text);
		cJSON_Delete(doc);
	}
	free(alerts);
	health_view(health, &v);
	doc = health_view_json(&v);
	cJSON_Delete(doc);
	doc = health_save(health);
	if (health_load(health2, doc) != 0)
		abort();
	again = health_save(health2);
	if (!cJSON_Compare(doc, again, 1)) {
		char *a = cJSON_Print(doc), *b = cJSON_Print(again);

		fprintf(stderr, "health state changed through save/load:\n%s\n%s\n", a, b);
		abort();
	}
	cJSON_Delete(again);
	cJSON_Delete(doc);

	for (i = 0; i < s->ring.count; i++)
		check_printable(linering_get(&s->ring, i));

	/* The readable last lines: printable, bounded, and the same through scan.json. */
	{
		struct tailkeep tk2;
		cJSON *lines = tailkeep_lines(&s->tk), *lines2, *it;
		char *text;

		if (cJSON_GetArraySize(lines) > TAILKEEP_TB_LINES + TAILKEEP_LINES + 2)
			abort();
		cJSON_ArrayForEach(it, lines)
			check_printable(it->valuestring);
		text = cJSON_PrintUnformatted(lines);
		if (text == NULL || strlen(text) > TAILKEEP_OUT_BYTES + 2)
			abort();
		free(text);
		tailkeep_init(&tk2);
		doc = tailkeep_save(&s->tk);
		text = cJSON_PrintUnformatted(doc);
		cJSON_Delete(doc);
		doc = cJSON_Parse(text);
		free(text);
		if (tailkeep_load(&tk2, doc) != 0)
			abort();
		cJSON_Delete(doc);
		lines2 = tailkeep_lines(&tk2);
		if (!cJSON_Compare(lines, lines2, 1))
			abort();
		cJSON_Delete(lines);
		cJSON_Delete(lines2);
		tailkeep_free(&tk2);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct logscan ls;
	struct sink s;
	struct buf want = BUF_INIT;
	size_t cut[3], npieces, i, from = 0, max_line;
	int mode = size > 0 ? data[size - 1] & 3 : 0;

	if (size > 1 << 20)
		return -1;
	max_line = size > 1 && data[1] % 8 != 0 ? 8 + data[1] : LOGSCAN_DEFAULT_MAX_LINE;
	memset(&s, 0, sizeof(s));
	buf_init(&s.lines);
	s.max_line = max_line;
	s.now = 1700000000;
	linering_init(&s.ring, RING_LINES);
	tailkeep_init(&s.tk);
	triage_scan_reset(&ts);
	if (health_load(health, health_empty) != 0)
		abort();
	health_new_attempt(health, 1);
	unlink(log_path);
	unlink(rot_path);

	logscan_init(&ls, log_path, max_line);
	/* Nothing there yet: a poll reads nothing. */
	if (logscan_poll(&ls, on_line, &s) != 0)
		abort();
	npieces = fz_cuts(data, size, cut, 3);
	for (i = 0; i < npieces; i++) {
		if (i == 1 && mode == 2)
			fz_write(log_path, "", 0, 0);	/* copytruncate */
		if (i == 1 && mode == 3 && rename(log_path, rot_path) != 0)
			abort();
		fz_write(log_path, data + from, cut[i] - from, 1);
		if (i == 0 && mode == 3) {
			/* The old file's tail is delivered at the rotation; the oracle splits there. */
			ref_split((const char *)data, cut[0], max_line, &want);
		}
		if (logscan_poll(&ls, on_line, &s) < 0)
			abort();
		if (mode == 1)
			restart(&ls);
		from = cut[i];
	}
	/* A last poll (after a restart, the held partial line is read again), then the stage ends. */
	if (logscan_poll(&ls, on_line, &s) < 0)
		abort();
	logscan_flush(&ls, on_line, &s);
	if (mode != 2) {
		if (mode == 3 && npieces > 1)
			ref_split((const char *)data + cut[0], size - cut[0], max_line, &want);
		else {
			buf_reset(&want);
			ref_split((const char *)data, size, max_line, &want);
		}
		if (want.len != s.lines.len || memcmp(buf_str(&want), buf_str(&s.lines), want.len) != 0) {
			fprintf(stderr, "logscan lines differ from a one-shot split (mode %d, max_line %zu, "
			    "%zu pieces)\n", mode, max_line, npieces);
			abort();
		}
	}
	after(&s);

	logscan_free(&ls);
	linering_free(&s.ring);
	tailkeep_free(&s.tk);
	buf_free(&s.lines);
	buf_free(&want);
	unlink(log_path);
	unlink(rot_path);
	return 0;
}
