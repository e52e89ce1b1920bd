#!/usr/bin/env bash
# The cost of core/health.c's health_line() over a generated training log
# (default 200 MB): Megatron iteration lines, HF Trainer dicts and tqdm bars
# split on '\r' as logscan splits them, wandb's banner, Python warnings and
# now and then a 64 kB line of binary junk, with progress, loss and
# throughput patterns as a config would give them.
#
# The log is read once by logscan alone and once by logscan feeding every
# line to health_line(); the difference is health_line's cost.  Prints a
# readable summary on stderr and one line on stdout:
#   LINES_PER_S|MB_PER_S|SCAN_MB_PER_S
# Usage: bench/health_bench.sh [BUILD_DIR] [MB]   (a plain build, not ASan)
set -eu
build=${1:-build}
MB=${2:-200}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build="$top/$build" ;; esac
[ -f "$build/libwatchkeeper.a" ] || { echo "health_bench: no $build/libwatchkeeper.a (make first)" >&2; exit 64; }
d=$(mktemp -d /tmp/wk-bench-health.XXXXXX)
trap 'rm -rf "$d"' EXIT

cat >"$d/drive.c" <<'C'
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "health.h"
#include "logscan.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double
unit(void)
{
	return (double)(next() >> 11) / (double)(1ULL << 53);
}

/* About mb megabytes of log into path. */
static void
generate(const char *path, long mb)
{
	FILE *fp = fopen(path, "w");
	long step = 0, total = 5000000, k;
	char junk[65536];

	if (fp == NULL) {
		perror(path);
		exit(1);
	}
	fputs("wandb: Syncing run fluent-sun-12\n"
	    "wandb: \xf0\x9f\x9a\x80 View run at https://wandb.ai/ana-lab/llama-ft/runs/3kq9x2ab\n", fp);
	while (ftell(fp) < mb * 1024L * 1024L) {
		k = (long)(next() % 100);
		step += k < 80;
		if (k < 45)
			fprintf(fp, " iteration %8ld/%8ld | consumed samples: %12ld | elapsed time "
			    "per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | "
			    "learning rate: %.6E | global batch size:   512 | lm loss: %.6E | loss "
			    "scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number "
			    "of nan iterations:   0 |\n", step, total, step * 512, 1040 + 10 * unit(),
			    180 + unit(), 1.5e-4, 2.3 + 0.1 * unit(), 0.8 + 0.1 * unit());
		else if (k < 80)
			fprintf(fp, "\r %2ld%%|#####     | %ld/%ld [12:01<39:33,  %.2fit/s]", step * 100 /
			    total, step, total, 3 + unit());
		else if (k < 95)
			fprintf(fp, "\n{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': 4.5e-05, "
			    "'epoch': %.2f}\n", 2.3 + 0.1 * unit(), 1 + unit(), (double)step / total);
		else if (k < 99)
			fputs("/usr/lib/python3/site-packages/torch/utils/data/dataloader.py:558: "
			    "UserWarning: This DataLoader will create 16 worker processes in total.\n", fp);
		else if (next() % 50 == 0) {
			for (size_t i = 0; i < sizeof(junk); i++)
				junk[i] = (char)(32 + next() % 200);
			fwrite(junk, 1, sizeof(junk), fp);
			fputc('\n', fp);
		}
	}
	fclose(fp);
}

struct run {
	struct health	*h;
	uint64_t	 lines;
	uint64_t	 bytes;
};

static void
count_line(void *arg, const char *line, size_t len, int flags)
{
	struct run *r = arg;

	(void)line;
	(void)flags;
	r->lines++;
	r->bytes += len + 1;
}

static void
health_cb(void *arg, const char *line, size_t len, int flags)
{
	struct run *r = arg;

	count_line(arg, line, len, flags);
	health_line(r->h, line, len, (time_t)1767225600 + (time_t)(r->lines / 1000));
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read path with logscan from 0, each line to fn; seconds taken. */
static double
scan(const char *path, logscan_line_fn fn, struct run *r)
{
	struct logscan ls;
	double t0 = now_s();

	logscan_init(&ls, path, LOGSCAN_DEFAULT_MAX_LINE * 8);
	while (logscan_poll(&ls, fn, r) > 0)
		;
	logscan_free(&ls);
	return now_s() - t0;
}

int
main(int argc, char **argv)
{
	struct health_opts o = {
		.progress_re = "(?:iteration\\s+|\\|\\s*)(\\d+)/\\s*(\\d+)",
		.loss_re = "(?:lm loss: |'loss': )([^ |,}]+)",
		.spike_pct = 50, .spike_steps = 10,
		.tp_re = "TFLOP/s/GPU\\): ([0-9.]+)",
		.drop_pct = 25, .tp_ticks = 2, .wandb = 1,
	};
	struct run base = { 0 }, full = { 0 };
	struct health_view v;
	char err[256];
	double t_scan, t_full, mb, health_s;

	if (argc != 3)
		return 64;
	generate(argv[1], atol(argv[2]));
	if (health_new_opts(&o, &full.h, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t_scan = scan(argv[1], count_line, &base);
	t_full = scan(argv[1], health_cb, &full);
	health_view(full.h, &v);
	mb = (double)full.bytes / (1024 * 1024);
	health_s = t_full - t_scan > 1e-9 ? t_full - t_scan : 1e-9;
	fprintf(stderr, "health_bench: %llu lines, %.1f MB; logscan alone %.2f s (%.0f MB/s); "
	    "logscan + health_line %.2f s; health_line %.0f lines/s, %.0f MB/s (%.0f ns/line); "
	    "end state %s, loss trend %.3f\n", (unsigned long long)full.lines, mb, t_scan,
	    mb / t_scan, t_full, full.lines / health_s, mb / health_s,
	    health_s * 1e9 / (double)full.lines, v.text, v.loss_trend);
	printf("%.0f|%.1f|%.1f\n", full.lines / health_s, mb / health_s, mb / t_scan);
	health_free(full.h);
	return 0;
}
C

# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -O2 -w -I"$top/core" $(pkg-config --cflags libcjson libpcre2-8) \
	-o "$d/drive" "$d/drive.c" "$build/libwatchkeeper.a" \
	$(pkg-config --libs libcjson libpcre2-8 2>/dev/null || echo -lcjson -lpcre2-8) -ldl -lm
"$d/drive" "$d/train.log" "$MB"
