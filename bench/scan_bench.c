/*
 * scan_bench.c: the cost of reading a training log incrementally, as onbox
 * does (core/logscan.c + core/health.c), as the log grows.
 *
 *   scan_bench DIR MB...
 *
 * For each size: write a log of about MB megabytes of realistic lines, read
 * it once whole (MB/s), keep the position, then 20 times append 1 KiB and
 * "restart": a fresh reader set to the kept position (fingerprint checked)
 * reads only the new bytes.  The per-tick cost must not grow with the log.
 * Prints one line per size on stdout: "MB FULL_MB_PER_S TICK_US_MEDIAN".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "health.h"
#include "logscan.h"

#define TICKS	20

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
line_fn(void *arg, const char *line, size_t len, int flags)
{
	(void)flags;
	health_line(arg, line, len, 0);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
generate(const char *path, long mb, long *step)
{
	FILE *fp = fopen(path, "w");
	long bytes = 0, want = mb * 1024 * 1024;
	char line[256];
	int n;

	if (fp == NULL) {
		perror(path);
		exit(1);
	}
	while (bytes < want) {
		(*step)++;
		n = snprintf(line, sizeof(line), " iteration %8ld/ 5000000 | consumed samples: %10ld | "
		    "elapsed time per iteration (ms): 312.4 | learning rate: 2.9E-04 | lm loss: %.6E | "
		    "tokens/s=%ld |\n", *step, *step * 512, 2.0 + (double)(*step % 97) / 1000.0,
		    45000 + *step % 300);
		fwrite(line, 1, (size_t)n, fp);
		bytes += n;
	}
	fclose(fp);
}

int
main(int argc, char **argv)
{
	struct health_opts o;
	struct health *h = NULL;
	char err[256], path[4096];
	int i, t;

	if (argc < 3) {
		fprintf(stderr, "usage: scan_bench DIR MB...\n");
		return 64;
	}
	memset(&o, 0, sizeof(o));
	o.progress_re = "iteration\\s+(\\d+)/\\s*(\\d+)";
	o.loss_re = "lm loss: (\\S+)";
	o.spike_pct = 50;
	o.spike_steps = 10;
	o.tp_re = "tokens/s=(\\d+)";
	o.drop_pct = 25;
	o.tp_ticks = 2;
	o.wandb = 1;
	if (health_new_opts(&o, &h, err, sizeof(err)) != 0) {
		fprintf(stderr, "scan_bench: %s\n", err);
		return 1;
	}
	for (i = 2; i < argc; i++) {
		long mb = strtol(argv[i], NULL, 10), step = 0;
		struct logscan ls;
		struct logscan_pos pos;
		double t0, full, ticks[TICKS];
		char more[1024];

		snprintf(path, sizeof(path), "%s/train.%ld.log", argv[1], mb);
		generate(path, mb, &step);
		logscan_init(&ls, path, LOGSCAN_DEFAULT_MAX_LINE);
		t0 = now_s();
		while (logscan_poll(&ls, line_fn, h) > 0)
			;
		full = now_s() - t0;
		logscan_get_pos(&ls, &pos);
		logscan_free(&ls);
		for (t = 0; t < TICKS; t++) {
			FILE *fp = fopen(path, "a");
			size_t k;

			for (k = 0; k + 128 < sizeof(more); k += 128)
				snprintf(more + k, 129, "%-126ld\n", ++step);
			fwrite(more, 1, k, fp);
			fclose(fp);
			t0 = now_s();
			logscan_init(&ls, path, LOGSCAN_DEFAULT_MAX_LINE);
			logscan_set_pos(&ls, &pos);	/* a restarted reader, from the kept position */
			while (logscan_poll(&ls, line_fn, h) > 0)
				;
			ticks[t] = now_s() - t0;
			logscan_get_pos(&ls, &pos);
			logscan_free(&ls);
		}
		qsort(ticks, TICKS, sizeof(ticks[0]), cmp_double);
		printf("%ld %.1f %.1f\n", mb, (double)mb / full, ticks[TICKS / 2] * 1e6);
		fflush(stdout);
		unlink(path);
	}
	health_free(h);
	return 0;
}
