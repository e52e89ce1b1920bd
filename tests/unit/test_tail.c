/*
 * test_tail.c: the readable last lines (core/tail.c): progress-bar redraws
 * collapsed, tqdm.write's clearing lines, tracebacks kept whole (long ones,
 * chained ones, the newest of two, rank-prefixed and interleaved ones, one
 * glued to a bar), the bounds, and scan.json's save and load; and the real
 * bytes of the torch fixture's bar read through logscan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "logscan.h"
#include "tail.h"

static void
nl(struct tailkeep *tk, const char *s)
{
	tailkeep_line(tk, s, strlen(s), 0);
}

static void
cr(struct tailkeep *tk, const char *s)
{
	tailkeep_line(tk, s, strlen(s), LOGSCAN_CR);
}

static void
bar(struct tailkeep *tk, int i, int total)
{
	char b[128];

	snprintf(b, sizeof(b), "Epoch 0: %3d%%|####| %d/%d [00:01<00:02, 9.%02dit/s, loss=0.5]",
	    100 * i / total, i, total, i % 100);
	cr(tk, b);
}

/* The output as one string, lines joined by '\n'; caller frees. */
static char *
joined(const struct tailkeep *tk, int *n)
{
	cJSON *arr = tailkeep_lines(tk), *it;
	size_t len = 1;
	char *out;

	cJSON_ArrayForEach(it, arr)
		len += strlen(it->valuestring) + 1;
	out = calloc(1, len);
	cJSON_ArrayForEach(it, arr) {
		strcat(out, it->valuestring);
		strcat(out, "\n");
	}
	*n = cJSON_GetArraySize(arr);
	cJSON_Delete(arr);
	return out;
}

static int
count_sub(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* A traceback of nframes frames (2 lines each), header and exception line: 2 + 2 * nframes lines. */
static void
traceback(struct tailkeep *tk, const char *prefix, int nframes, const char *exc)
{
	char b[256];
	int i;

	snprintf(b, sizeof(b), "%sTraceback (most recent call last):", prefix);
	nl(tk, b);
	for (i = 0; i < nframes; i++) {
		snprintf(b, sizeof(b), "%s  File \"/work/train.py\", line %d, in f%d", prefix, 100 + i, i);
		nl(tk, b);
		snprintf(b, sizeof(b), "%s    return f%d(depth + 1)", prefix, i + 1);
		nl(tk, b);
	}
	snprintf(b, sizeof(b), "%s%s", prefix, exc);
	nl(tk, b);
}

static void
test_bar_collapse(void **state)
{
	struct tailkeep tk;
	char *s;
	int n, i, step;

	(void)state;
	tailkeep_init(&tk);
	assert_true(tailkeep_empty(&tk));
	assert_null(tailkeep_last(&tk));
	/* tqdm.write beside a bar: redraws, the clearing line, the log line. */
	for (step = 1; step <= 40; step++) {
		for (i = 0; i < 25; i++)
			bar(&tk, step, 40);
		cr(&tk, "                                        ");
		cr(&tk, "");
		{
			char b[64];

			snprintf(b, sizeof(b), "step %d/40 loss=0.5", step);
			nl(&tk, b);
		}
	}
	bar(&tk, 40, 40);
	s = joined(&tk, &n);
	/* 30 lines: 15 log lines, each after the bar's one newest state, and the live bar. */
	assert_int_equal(n, 31);
	assert_int_equal(count_sub(s, "Epoch 0:"), 16);
	assert_int_equal(count_sub(s, "step "), 15);
	assert_non_null(strstr(s, "9.39it/s, loss=0.5]\nstep 39/40 loss=0.5\n"));
	assert_true(strncmp(tailkeep_last(&tk), "Epoch 0: 100%", 13) == 0);
	free(s);

	/* tqdm's close: the last redraw ends with '\n' over the uncleared bar: one line. */
	tailkeep_clear(&tk);
	nl(&tk, "start");
	bar(&tk, 39, 40);
	nl(&tk, "Epoch 0: 100%|####| 40/40 [00:01<00:00, 9.40it/s, loss=0.5]");
	nl(&tk, "Training completed");
	s = joined(&tk, &n);
	assert_string_equal(s, "start\nEpoch 0: 100%|####| 40/40 [00:01<00:00, 9.40it/s, loss=0.5]\n"
	    "Training completed\n");
	free(s);
	/* A line that is not the bar keeps the bar's state before it. */
	tailkeep_clear(&tk);
	bar(&tk, 3, 40);
	nl(&tk, "a real line");
	s = joined(&tk, &n);
	assert_int_equal(n, 2);
	assert_non_null(strstr(s, "3/40"));
	free(s);
	tailkeep_free(&tk);
}

static void
test_long_traceback_after_redraws(void **state)
{
	struct tailkeep tk;
	cJSON *arr;
	char *s, want[64];
	int n, i;

	(void)state;
	tailkeep_init(&tk);
	nl(&tk, "step 14/20 loss=0.15");
	for (i = 0; i < 500; i++)
		bar(&tk, i % 20, 20);
	traceback(&tk, "", 59, "RecursionError: maximum recursion depth exceeded");	/* 120 lines */
	nl(&tk, "after 1");
	nl(&tk, "after 2");
	s = joined(&tk, &n);
	/* The traceback whole, then what came after; the lines before it left the ring. */
	assert_int_equal(n, 122);
	assert_true(strncmp(s, "Traceback (most recent call last):\n", 35) == 0);
	for (i = 0; i < 59; i++) {
		snprintf(want, sizeof(want), "line %d, in f%d\n", 100 + i, i);
		assert_int_equal(count_sub(s, want), 1);
	}
	assert_non_null(strstr(s, "RecursionError: maximum recursion depth exceeded\nafter 1\nafter 2\n"));
	assert_int_equal(count_sub(s, "Epoch 0:"), 0);
	free(s);
	/* Thirty more lines: the traceback stays, the ring moves on. */
	for (i = 0; i < 40; i++)
		nl(&tk, "later");
	arr = tailkeep_lines(&tk);
	assert_int_equal(cJSON_GetArraySize(arr), 120 + 30);
	assert_string_equal(cJSON_GetArrayItem(arr, 119)->valuestring,
	    "RecursionError: maximum recursion depth exceeded");
	cJSON_Delete(arr);
	tailkeep_free(&tk);
}

static void
test_glued_header_and_tqdm_exit(void **state)
{
	struct tailkeep tk;
	char *s;
	int n;

	(void)state;
	tailkeep_init(&tk);
	/* What train.py --fail keyerror writes: the bar had no '\n' when Python printed. */
	nl(&tk, "step 14/20 loss=0.1533");
	tailkeep_line(&tk, "Epoch 0:  70%|###   | 14/20 [00:00<00:00, 19.02it/s]Traceback (most recent call last):",
	    strlen("Epoch 0:  70%|###   | 14/20 [00:00<00:00, 19.02it/s]Traceback (most recent call last):"), 0);
	nl(&tk, "  File \"train.py\", line 62, in lr_at");
	nl(&tk, "    warm = cfg[\"warmup_steps\"]");
	nl(&tk, "           ~~~^^^^^^^^^^^^^^^^");
	nl(&tk, "KeyError: 'warmup_steps'");
	nl(&tk, "Epoch 0:  70%|###   | 14/20 [00:00<00:00, 17.23it/s]");
	s = joined(&tk, &n);
	assert_string_equal(s, "step 14/20 loss=0.1533\n"
	    "Epoch 0:  70%|###   | 14/20 [00:00<00:00, 19.02it/s]\n"
	    "Traceback (most recent call last):\n"
	    "  File \"train.py\", line 62, in lr_at\n"
	    "    warm = cfg[\"warmup_steps\"]\n"
	    "           ~~~^^^^^^^^^^^^^^^^\n"
	    "KeyError: 'warmup_steps'\n"
	    "Epoch 0:  70%|###   | 14/20 [00:00<00:00, 17.23it/s]\n");
	free(s);
	tailkeep_free(&tk);
}

static void
test_chained_and_newest(void **state)
{
	struct tailkeep tk;
	char *s;
	int n, i;

	(void)state;
	tailkeep_init(&tk);
	traceback(&tk, "", 20, "OldError: the first one");
	for (i = 0; i < 40; i++)
		nl(&tk, "going on");
	/* A chain: a KeyError, and a ValueError raised while handling it, then the cause form. */
	traceback(&tk, "", 15, "KeyError: 'warmup_steps'");
	nl(&tk, "");
	nl(&tk, "During handling of the above exception, another exception occurred:");
	nl(&tk, "");
	traceback(&tk, "", 15, "ValueError: no warmup");
	nl(&tk, "");
	nl(&tk, "The above exception was the direct cause of the following exception:");
	nl(&tk, "");
	traceback(&tk, "", 1, "RuntimeError: config broken");
	nl(&tk, "  (see the config docs)");
	nl(&tk, "exit 1");
	s = joined(&tk, &n);
	assert_null(strstr(s, "OldError"));
	assert_int_equal(count_sub(s, "Traceback (most recent call last):"), 3);
	assert_true(strncmp(s, "Traceback (most recent call last):\n", 35) == 0);
	assert_non_null(strstr(s, "KeyError: 'warmup_steps'\n\nDuring handling"));
	assert_non_null(strstr(s, "RuntimeError: config broken\n  (see the config docs)\nexit 1\n"));
	/* 32 + 3 + 32 + 3 + 4 + 1 traceback lines, and the line after. */
	assert_int_equal(n, 32 + 3 + 32 + 3 + 4 + 1 + 1);
	free(s);

	/* Two in a row: the newer replaces the older even when both fit. */
	tailkeep_clear(&tk);
	for (i = 0; i < 3; i++)
		traceback(&tk, "", 30, i == 2 ? "NewError: two" : "OldError: one");
	s = joined(&tk, &n);
	assert_int_equal(n, 62);
	assert_null(strstr(s, "OldError"));
	free(s);
	tailkeep_free(&tk);
}

static void
test_rank_prefixes(void **state)
{
	struct tailkeep tk;
	char b[256], *s;
	int n, i;

	(void)state;
	assert_int_equal(tailkeep_prefix_len("[rank0]: x"), 9);
	assert_int_equal(tailkeep_prefix_len("[default3]:x"), 11);
	assert_int_equal(tailkeep_prefix_len("12: x"), 4);
	assert_int_equal(tailkeep_prefix_len("12:x"), 0);
	assert_int_equal(tailkeep_prefix_len("[a b]: x"), 0);
	assert_int_equal(tailkeep_prefix_len("Epoch 0: 5%"), 0);
	assert_int_equal(tailkeep_prefix_len("[]: x"), 0);

	tailkeep_init(&tk);
	/* rank0's traceback, rank1 still logging between its lines. */
	nl(&tk, "[rank0]: Traceback (most recent call last):");
	for (i = 0; i < 30; i++) {
		snprintf(b, sizeof(b), "[rank0]:   File \"/work/train.py\", line %d, in f", 10 + i);
		nl(&tk, b);
		snprintf(b, sizeof(b), "[rank1]: step %d/100 loss=0.5", i);
		nl(&tk, b);
		nl(&tk, "[rank0]:     f()");
	}
	nl(&tk, "[rank1]: Traceback (most recent call last):");	/* another rank's, while rank0's is open */
	nl(&tk, "[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275");
	for (i = 0; i < 40; i++)
		nl(&tk, "[rank1]: more");
	s = joined(&tk, &n);
	assert_true(strncmp(s, "[rank0]: Traceback (most recent call last):\n", 44) == 0);
	for (i = 0; i < 30; i++) {
		snprintf(b, sizeof(b), "line %d, in f\n", 10 + i);
		assert_int_equal(count_sub(s, b), 1);
	}
	assert_int_equal(count_sub(s, "[rank0]:     f()"), 30);
	assert_int_equal(count_sub(s, "DistBackendError"), 1);
	assert_int_equal(n, 62 + 30);
	free(s);
	tailkeep_free(&tk);
}

static void
test_bounds(void **state)
{
	struct tailkeep tk;
	cJSON *arr, *it;
	char *big, *s;
	size_t cost;
	int n, i;

	(void)state;
	tailkeep_init(&tk);
	/* A 1000-frame traceback: its start, the marker, its newest lines. */
	traceback(&tk, "", 1000, "RecursionError: maximum recursion depth exceeded");
	s = joined(&tk, &n);
	assert_int_equal(n, TAILKEEP_TB_LINES + 1);
	assert_true(strncmp(s, "Traceback (most recent call last):\n", 35) == 0);
	assert_non_null(strstr(s, "traceback lines not kept ...]\n"));
	assert_non_null(strstr(s, "[... 1802 traceback lines not kept ...]"));
	assert_non_null(strstr(s, "line 1099, in f999\n    return f1000(depth + 1)\nRecursionError"));
	free(s);

	/* Over-long lines, binary garbage, quotes: bounded per line and in all. */
	big = malloc(8192);
	memset(big, '"', 8192);
	tailkeep_clear(&tk);
	nl(&tk, "Traceback (most recent call last):");
	for (i = 0; i < 300; i++)
		tailkeep_line(&tk, big, 8192, LOGSCAN_TRUNCATED);
	for (i = 0; i < 8192; i++)
		big[i] = (char)(i * 7 + 1);
	for (i = 0; i < 1000; i++) {
		tailkeep_line(&tk, big, 8192, i % 2 ? LOGSCAN_CR : 0);
		tailkeep_line(&tk, big + i, 8192 - (size_t)i, LOGSCAN_TRUNCATED);
	}
	arr = tailkeep_lines(&tk);
	cost = 0;
	cJSON_ArrayForEach(it, arr) {
		const char *p;

		assert_true(strlen(it->valuestring) <= TAILKEEP_LINE_MAX);
		for (p = it->valuestring; *p != '\0'; p++)
			cost += *p == '"' || *p == '\\' ? 2 : 1;
		cost += 3;
	}
	assert_true(cost <= TAILKEEP_OUT_BYTES);
	assert_true(cJSON_GetArraySize(arr) <= TAILKEEP_TB_LINES + TAILKEEP_LINES + 2);
	cJSON_Delete(arr);
	free(big);
	tailkeep_free(&tk);
}

static void
test_save_load(void **state)
{
	struct tailkeep a, b;
	cJSON *sv, *la, *lb, *bad;
	char *pa, *pb;
	int i;

	(void)state;
	tailkeep_init(&a);
	tailkeep_init(&b);
	nl(&a, "step 1");
	traceback(&a, "[rank0]: ", 40, "KeyError: 'x'");
	nl(&a, "[rank0]: ");	/* a blank held: a chain may follow */
	for (i = 0; i < 10; i++)
		bar(&a, i, 10);
	cr(&a, "   ");
	sv = tailkeep_save(&a);
	pa = cJSON_PrintUnformatted(sv);
	/* Through text, as scan.json goes. */
	cJSON_Delete(sv);
	sv = cJSON_Parse(pa);
	free(pa);
	assert_int_equal(tailkeep_load(&b, sv), 0);
	cJSON_Delete(sv);
	/* The same lines now, and the same after the same next lines. */
	nl(&a, "[rank0]: During handling of the above exception, another exception occurred:");
	nl(&b, "[rank0]: During handling of the above exception, another exception occurred:");
	traceback(&a, "[rank0]: ", 2, "ValueError: y");
	traceback(&b, "[rank0]: ", 2, "ValueError: y");
	la = tailkeep_lines(&a);
	lb = tailkeep_lines(&b);
	pa = cJSON_PrintUnformatted(la);
	pb = cJSON_PrintUnformatted(lb);
	assert_string_equal(pa, pb);
	assert_non_null(strstr(pa, "\"[rank0]: KeyError: 'x'\",\"[rank0]: \",\"Epoch 0:  90%"));
	assert_non_null(strstr(pa, "9/10 [00:01<00:02, 9.09it/s, loss=0.5]\",\"[rank0]: During handling"));
	assert_non_null(strstr(pa, "9/10"));
	free(pa);
	free(pb);
	cJSON_Delete(la);
	cJSON_Delete(lb);

	/* Not a saved tailkeep (an older onbox's array, junk): -1, and empty. */
	bad = cJSON_Parse("[\"a\", \"b\"]");
	assert_int_equal(tailkeep_load(&b, bad), WK_ERR_PARSE);
	assert_true(tailkeep_empty(&b));
	cJSON_Delete(bad);
	bad = cJSON_Parse("{\"seq\": 3, \"lines\": [[1, \"x\"]], \"traceback\": {\"state\": 9, \"prefix\": \"\"}}");
	assert_int_equal(tailkeep_load(&b, bad), WK_ERR_PARSE);
	assert_true(tailkeep_empty(&b));
	cJSON_Delete(bad);
	tailkeep_free(&a);
	tailkeep_free(&b);
}

/* The fixture's real bytes (tqdm.write beside a bar, the bar glued to the traceback) through logscan. */
static void
feed_line(void *arg, const char *line, size_t len, int flags)
{
	tailkeep_line(arg, line, len, flags);
}

static void
test_through_logscan(void **state)
{
	char dir[] = "/tmp/wk-tail-XXXXXX", path[64], *s, b[256];
	struct logscan ls;
	struct tailkeep tk;
	FILE *fp;
	int step, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/train.log", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("\rEpoch 0:   0%|          | 0/20 [00:00<?, ?it/s]", fp);
	for (step = 1; step <= 14; step++) {
		fprintf(fp, "\rEpoch 0: %3d%%|##        | %d/20 [00:00<00:00, 19.%02dit/s, loss=0.2]",
		    step * 5, step, step);
		fprintf(fp, "\r%40s\rstep %d/20 loss=0.2\n", "", step);
		fprintf(fp, "\rEpoch 0: %3d%%|##        | %d/20 [00:00<00:00, 19.%02dit/s, loss=0.2]",
		    step * 5, step, step);
	}
	fputs("Traceback (most recent call last):\n  File \"train.py\", line 62, in lr_at\n"
	    "    warm = cfg[\"warmup_steps\"]\nKeyError: 'warmup_steps'\n"
	    "\rEpoch 0:  70%|##        | 14/20 [00:00<00:00, 17.23it/s, loss=0.2]\n", fp);
	fclose(fp);
	tailkeep_init(&tk);
	logscan_init(&ls, path, 0);
	assert_true(logscan_poll(&ls, feed_line, &tk) > 0);
	logscan_flush(&ls, feed_line, &tk);
	logscan_free(&ls);
	s = joined(&tk, &n);
	/* 30 lines: a bar's one state before each step line (it went on after step 14: one more). */
	assert_int_equal(n, 30);
	assert_non_null(strstr(s, "13/20 [00:00<00:00, 19.13it/s, loss=0.2]\nstep 13/20 loss=0.2\n"
	    "Epoch 0:  70%|##        | 14/20 [00:00<00:00, 19.14it/s, loss=0.2]\nstep 14/20 loss=0.2\n"
	    "Epoch 0:  70%|##        | 14/20 [00:00<00:00, 19.14it/s, loss=0.2]\n"
	    "Traceback (most recent call last):\n"));
	assert_non_null(strstr(s, "KeyError: 'warmup_steps'\nEpoch 0:  70%"));
	snprintf(b, sizeof(b), "rm -rf '%s'", dir);
	assert_int_equal(system(b), 0);
	free(s);
	tailkeep_free(&tk);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar_collapse),
		cmocka_unit_test(test_long_traceback_after_redraws),
		cmocka_unit_test(test_glued_header_and_tqdm_exit),
		cmocka_unit_test(test_chained_and_newest),
		cmocka_unit_test(test_rank_prefixes),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_through_logscan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
