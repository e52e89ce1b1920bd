/*
 * fuzzutil.c: scratch files and fixed configs for the fuzz targets (see fuzzutil.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "fuzzutil.h"
#include "xmalloc.h"

static char *fz_dir;
static int fz_registered;

static int
fz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void
fz_tmpdir_remove(void)
{
	if (fz_dir == NULL)
		return;
	nftw(fz_dir, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(fz_dir);
	fz_dir = NULL;
}

const char *
fz_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *tmpl;

	if (fz_dir != NULL)
		return fz_dir;
	if (base == NULL || *base != '/')
		base = "/tmp";
	tmpl = xstrfmt("%s/wk-fuzz.XXXXXX", base);
	if (mkdtemp(tmpl) == NULL) {
		fprintf(stderr, "fuzz harness: mkdtemp %s: %s\n", tmpl, strerror(errno));
		abort();
	}
	fz_dir = tmpl;
	if (!fz_registered) {
		atexit(fz_tmpdir_remove);
		fz_registered = 1;
	}
	return fz_dir;
}

char *
fz_path(const char *name)
{
	return xstrfmt("%s/%s", fz_tmpdir(), name);
}

void
fz_write(const char *path, const void *data, size_t len, int append)
{
	const char *p = data;
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0600);
	if (fd < 0) {
		fprintf(stderr, "fuzz harness: open %s: %s\n", path, strerror(errno));
		abort();
	}
	while (len > 0) {
		if ((n = write(fd, p, len)) < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "fuzz harness: write %s: %s\n", path, strerror(errno));
			abort();
		}
		p += n;
		len -= (size_t)n;
	}
	close(fd);
}

struct wk_config *
fz_config(const char *name, const char *json)
{
	struct diag d = DIAG_INIT;
	struct wk_config *cfg = NULL;
	char *path = fz_path(name);

	fz_write(path, json, strlen(json), 0);
	if (config_load(path, &cfg, &d) != 0) {
		fprintf(stderr, "fuzz harness: the fixed config does not load:\n");
		diag_print(&d, stderr);
		abort();
	}
	diag_free(&d);
	unlink(path);
	free(path);
	return cfg;
}

size_t
fz_cuts(const unsigned char *data, size_t len, size_t *cut, size_t n)
{
	size_t i, k = 0, prev = 0;
	unsigned seed = 0;

	for (i = 0; i < 4 && i < len; i++)
		seed = seed * 131 + data[i];
	for (i = 0; i + 1 < n && len > 0; i++) {
		size_t at;

		seed = seed * 1103515245u + 12345u;
		at = prev + (seed >> 8) % (len - prev + 1);
		if (at == prev || at >= len)
			continue;
		cut[k++] = prev = at;
	}
	cut[k++] = len;
	return k;
}
