/*
 * test_ckpt.c: checkpoints on real temp directories: numeric order (10 after
 * 9, 100 after 99, leading zeros), completeness (an incomplete newer one is
 * skipped, a complete_file that is a directory does not count, symlinks are
 * followed, plain-file checkpoints with sidecars), ignored names (no match,
 * not numeric, overflowing), the probe fragment run for real with sh and
 * bash against hostile names and compared with the local scan, the listing
 * parser's strictness, {checkpoint} substitution run through sh (one word
 * whatever the path holds), the fallback, and the stall arithmetic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "atomic.h"
#include "buf.h"
#include "ckpt.h"
#include "ckptkeep.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "xmalloc.h"

struct fx {
	char	 dir[64];
	char	*work;
	char	*ck;		/* the checkpoint dir, once loaded */
	struct wk_config *cfg;
};

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/wk-ckpt-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	f->work = xstrfmt("%s/work dir", f->dir);
	if (fs_mkdirs(f->work, 0755) != 0)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int r;

	/* Make anything a test made unreadable removable again. */
	if (f->ck != NULL)
		chmod(f->ck, 0755);
	r = unit_rmrf(f->dir);
	config_free(f->cfg);
	free(f->work);
	free(f->ck);
	free(f);
	return r == 0 ? 0 : -1;
}

/*
 * (Re)load the config with a checkpoints object made of key/value string
 * pairs (NULL-terminated); "every_steps" is put as a number.  No pairs at
 * all: no checkpoints object.
 */
static void
load(struct fx *f, ...)
{
	struct diag d = DIAG_INIT;
	cJSON *root = cJSON_CreateObject(), *chain, *st, *ck = NULL;
	const char *k, *v;
	char *path, *json;
	va_list ap;

	cJSON_AddStringToObject(root, "run", "r");
	cJSON_AddStringToObject(root, "workdir", f->work);
	cJSON_AddStringToObject(root, "detach", "nohup");
	chain = cJSON_AddArrayToObject(root, "chain");
	st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "stage", "train");
	cJSON_AddItemToArray(chain, st);
	va_start(ap, f);
	while ((k = va_arg(ap, const char *)) != NULL) {
		v = va_arg(ap, const char *);
		if (ck == NULL)
			ck = cJSON_AddObjectToObject(root, "checkpoints");
		if (strcmp(k, "every_steps") == 0)
			cJSON_AddNumberToObject(ck, k, strtod(v, NULL));
		else if (strcmp(k, "reject") == 0)	/* one name */
			cJSON_AddItemToObject(ck, k, cJSON_CreateStringArray(&v, 1));
		else
			cJSON_AddStringToObject(ck, k, v);
	}
	va_end(ap);
	/* {checkpoint} needs a checkpoints section (config_load refuses it otherwise). */
	cJSON_AddStringToObject(st, "run", ck != NULL ? "python train.py --resume {checkpoint}" :
	    "python train.py");
	json = cJSON_Print(root);
	path = fs_join(f->dir, "wk.json");
	assert_int_equal(atomic_write_str(path, json), 0);
	config_free(f->cfg);
	f->cfg = NULL;
	if (config_load(path, &f->cfg, &d) != 0) {
		diag_print(&d, stderr);
		fail_msg("config did not load");
	}
	free(f->ck);
	f->ck = ckpt_dir(f->cfg);
	diag_free(&d);
	free(path);
	free(json);
	cJSON_Delete(root);
}

/* ckdir/rel as a directory; complete: with metadata.json, modified at mtime (0: now). */
static void
mk(struct fx *f, const char *rel, int complete, time_t mtime)
{
	char *p = fs_join(f->ck, rel), *m;
	struct timespec ts[2];

	assert_int_equal(fs_mkdirs(p, 0755), 0);
	if (complete) {
		m = fs_join(p, "metadata.json");
		assert_int_equal(atomic_write_str(m, "{}"), 0);
		if (mtime != 0) {
			ts[0].tv_sec = ts[1].tv_sec = mtime;
			ts[0].tv_nsec = ts[1].tv_nsec = 0;
			assert_int_equal(utimensat(AT_FDCWD, m, ts, 0), 0);
		}
		free(m);
	}
	free(p);
}

/* A plain file ckdir/rel (parents made). */
static void
put(struct fx *f, const char *rel, const char *text)
{
	char *p = fs_join(f->ck, rel), *slash;

	slash = strrchr(p, '/');
	*slash = '\0';
	assert_int_equal(fs_mkdirs(p, 0755), 0);
	*slash = '/';
	assert_int_equal(atomic_write_str(p, text), 0);
	free(p);
}

static struct ckpt_scan *
scan(struct fx *f)
{
	struct ckpt_scan *s = NULL;
	char *why = NULL;

	if (ckpt_scan_dir(f->cfg, &s, &why) != 0)
		fail_msg("scan failed: %s", why);
	assert_null(why);
	return s;
}

/* The entry named name, or NULL. */
static const struct ckpt_entry *
entry(const struct ckpt_scan *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nentries; i++)
		if (strcmp(s->entries[i].name, name) == 0)
			return &s->entries[i];
	return NULL;
}

/* ---- ordering ---- */

static void
test_numeric_order(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;
	char *p;

	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", NULL);
	/* The older one has the newer mtime: mtime must not decide. */
	mk(f, "checkpoint-9", 1, 1700009999);
	mk(f, "checkpoint-10", 1, 1700000000);
	s = scan(f);
	assert_int_equal(s->nentries, 2);
	assert_int_equal(s->entries[0].step, 9);
	assert_int_equal(s->entries[1].step, 10);
	assert_non_null(s->newest);
	assert_int_equal(s->newest->step, 10);
	assert_string_equal(s->newest->name, "checkpoint-10");
	p = fs_join(f->ck, "checkpoint-10");
	assert_string_equal(s->newest->path, p);
	assert_true(p[0] == '/');
	free(p);
	assert_int_equal(s->newest->mtime, 1700000000);
	ckpt_scan_free(s);

	mk(f, "checkpoint-99", 1, 1700099999);
	mk(f, "checkpoint-100", 1, 1700000000);
	s = scan(f);
	assert_int_equal(s->nentries, 4);
	assert_int_equal(s->newest->step, 100);
	assert_int_equal(s->entries[2].step, 99);
	assert_int_equal(s->ncomplete, 4);
	assert_null(s->newest_incomplete);
	ckpt_scan_free(s);
}

static void
test_leading_zeros(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;

	load(f, "dir", "ckpt", "pattern", "^step_(\\d+)$", NULL);
	mk(f, "step_00001200", 1, 0);
	mk(f, "step_900", 1, 0);
	mk(f, "step_0000", 1, 0);
	mk(f, "step_0000000000000000000000000000042", 1, 0);
	s = scan(f);
	assert_int_equal(s->nentries, 4);
	assert_int_equal(s->entries[0].step, 0);
	assert_int_equal(s->entries[1].step, 42);
	assert_int_equal(s->entries[2].step, 900);
	assert_int_equal(s->newest->step, 1200);
	assert_string_equal(s->newest->name, "step_00001200");
	ckpt_scan_free(s);
}

static void
test_ties(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;
	int i;

	load(f, "dir", "ckpt", "pattern", "^step_(\\d+)$", NULL);
	mk(f, "step_1200", 1, 1700000002);
	mk(f, "step_001200", 1, 1700000001);
	mk(f, "step_01200", 0, 0);
	for (i = 0; i < 3; i++) {
		s = scan(f);
		assert_int_equal(s->nentries, 3);
		/* Same step: byte order of the names. */
		assert_string_equal(s->entries[0].name, "step_001200");
		assert_string_equal(s->entries[1].name, "step_01200");
		assert_string_equal(s->entries[2].name, "step_1200");
		assert_string_equal(s->newest->name, "step_001200");
		assert_string_equal(s->newest_incomplete->name, "step_01200");
		ckpt_scan_free(s);
	}
}

/* ---- completeness ---- */

static void
test_incomplete_skipped(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;
	struct ckpt_summary sum;
	char *t, *l;

	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", NULL);
	mk(f, "checkpoint-1200", 1, 1700000000);
	mk(f, "checkpoint-1300", 0, 0);
	/* A directory named like the completeness file is not one. */
	mk(f, "checkpoint-1400/metadata.json", 0, 0);
	/* Nor is a link to a directory. */
	mk(f, "checkpoint-1500", 0, 0);
	l = xstrfmt("%s/checkpoint-1500/metadata.json", f->ck);
	assert_int_equal(symlink(f->ck, l), 0);
	free(l);
	s = scan(f);
	assert_int_equal(s->nentries, 4);
	assert_int_equal(s->ncomplete, 1);
	assert_int_equal(s->newest->step, 1200);
	assert_int_equal(s->newest_incomplete->step, 1500);
	assert_false(entry(s, "checkpoint-1400")->complete);
	assert_int_equal(entry(s, "checkpoint-1300")->mtime, 0);
	ckpt_summarize(s, 1700000000 + 3 * 3600 + 12 * 60, &sum);
	assert_int_equal(sum.step, 1200);
	assert_int_equal(sum.age_s, 3 * 3600 + 12 * 60);
	assert_int_equal(sum.ncomplete, 1);
	assert_int_equal(sum.nincomplete, 3);
	assert_int_equal(sum.incomplete_step, 1500);
	t = ckpt_summary_text(&sum);
	assert_string_equal(t, "newest complete checkpoint step 1200 (checkpoint-1200, 3h12m old); "
	    "1 complete, 3 incomplete (newest step 1500)");
	free(t);
	/* The box's clock behind the file's: age 0, not negative. */
	ckpt_summarize(s, 1600000000, &sum);
	assert_int_equal(sum.age_s, 0);
	ckpt_scan_free(s);
}

/* checkpoints.reject: a rejected lineage's checkpoint is never newest, however new. */
static void
test_rejected_never_newest(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;
	char *cmd, *why;

	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", "reject", "checkpoint-1300", NULL);
	mk(f, "checkpoint-1200", 1, 1700000000);
	mk(f, "checkpoint-1300", 1, 1700000100);
	mk(f, "checkpoint-1400", 0, 0);
	s = scan(f);
	assert_int_equal(s->nentries, 3);
	assert_int_equal(s->ncomplete, 1);
	assert_int_equal(s->newest->step, 1200);
	assert_int_equal(s->newest_incomplete->step, 1400);
	assert_true(entry(s, "checkpoint-1300")->rejected);
	assert_false(entry(s, "checkpoint-1300")->complete);
	assert_false(entry(s, "checkpoint-1200")->rejected);
	assert_int_equal(ckpt_subst_scan("python train.py --resume {checkpoint}", s, f->cfg, &cmd,
	    &why), 0);
	assert_non_null(strstr(cmd, "checkpoint-1200"));
	free(cmd);
	ckpt_scan_free(s);
}

/* Retention (ckptkeep.c): every reason to keep, alone, and what is left a candidate. */
static void
test_keep(void **state)
{
	static const char *const names[] = {
		"s-100", "s-200", "s-300", "s-400", "s-500", "s-600", "s-700", "s-800", "s-900",
	};
	struct fx *f = *state;
	struct ckpt_scan *s;
	struct ckpt_keep_in in;
	unsigned why[16];
	char *launch, text[160];
	size_t i;

	load(f, "dir", "ckpt", "pattern", "^s-(\\d+)$", "reject", "s-700", NULL);
	for (i = 0; i < 9; i++)
		mk(f, names[i], i != 1 && i != 8, 1700000000 + (time_t)i);
	mk(f, "s-1000", 0, 0);
	s = scan(f);
	assert_int_equal(s->nentries, 10);
	assert_int_equal(s->newest->step, 800);
	launch = xstrfmt("%s/s-300", f->ck);
	memset(&in, 0, sizeof(in));
	in.newest = 2;
	in.permanent_every = 500;
	in.final_step = 100;
	in.launch = (const char *const *)&launch;
	in.nlaunch = 1;
	/* 100 final; 200 incomplete and old: candidate; 300 launch; 400 candidate; 500
	 * milestone; 600 newest; 700 rejected; 800 newest + recovery; 900 and 1000 in progress. */
	assert_int_equal(ckpt_keep(s, &in, why), 2);
	assert_int_equal(why[0], KEEP_FINAL);
	assert_int_equal(why[1], 0);
	assert_int_equal(why[2], KEEP_LAUNCH);
	assert_int_equal(why[3], 0);
	assert_int_equal(why[4], KEEP_MILESTONE);
	assert_int_equal(why[5], KEEP_NEWEST);
	assert_int_equal(why[6], KEEP_REJECTED);
	assert_int_equal(why[7], KEEP_NEWEST | KEEP_RECOVERY);
	assert_int_equal(why[8], KEEP_INPROGRESS);
	assert_int_equal(why[9], KEEP_INPROGRESS);
	ckpt_keep_text(why[7], text, sizeof(text));
	assert_string_equal(text, "recovery, newest");
	ckpt_keep_text(0, text, sizeof(text));
	assert_string_equal(text, "delete candidate");
	/* A truncated listing: nothing is a candidate. */
	s->truncated = 1;
	assert_int_equal(ckpt_keep(s, &in, why), 0);
	assert_int_equal(why[1], KEEP_UNSURE);
	ckpt_scan_free(s);
	free(launch);
}

static void
test_ignored_names(void **state)
{
	struct fx *f = *state;
	static const char *names[] = {
		"checkpoint-final", "checkpoint-", "checkpoint- 12", "checkpoint-+12",
		"checkpoint-12 ", "checkpoint-0x10", "checkpoint-1e3", "checkpoint--3",
		"other-5", "runs", "checkpoint-\xe4\xb8\x80",
	};
	struct ckpt_scan *s;
	size_t i;

	load(f, "dir", "ckpt", "pattern", "^checkpoint-(.*)$", NULL);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		mk(f, names[i], 1, 0);
	mk(f, "checkpoint-7", 1, 0);
	s = scan(f);
	assert_int_equal(s->nnames, sizeof(names) / sizeof(names[0]) + 1);
	assert_int_equal(s->nentries, 1);
	assert_int_equal(s->newest->step, 7);
	ckpt_scan_free(s);

	/* An optional group that did not take part: ignored. */
	load(f, "dir", "ckpt2", "pattern", "^ck(?:pt-(\\d+))?$", NULL);
	mk(f, "ck", 1, 0);
	mk(f, "ckpt-3", 1, 0);
	s = scan(f);
	assert_int_equal(s->nentries, 1);
	assert_int_equal(s->newest->step, 3);
	ckpt_scan_free(s);
}

static void
test_overflow(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;

	load(f, "dir", "ckpt", "pattern", "^s(\\d+)$", NULL);
	mk(f, "s9223372036854775807", 0, 0);		/* LLONG_MAX: a step */
	mk(f, "s9223372036854775808", 1, 0);		/* LLONG_MAX + 1: ignored */
	mk(f, "s99999999999999999999999", 1, 0);
	mk(f, "s18446744073709551616", 1, 0);		/* 2^64: would wrap to 0 */
	mk(f, "s5", 1, 0);
	s = scan(f);
	assert_int_equal(s->nentries, 2);
	assert_int_equal(s->newest->step, 5);
	assert_true(s->newest_incomplete->step == LLONG_MAX);
	ckpt_scan_free(s);
}

static void
test_symlinks(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;
	char *real, *l, *t;

	load(f, "dir", "ckpt", "pattern", "^step_(\\d+)$", NULL);
	/* A complete checkpoint elsewhere, linked in: complete, under its link's path. */
	real = xstrfmt("%s/elsewhere/real", f->dir);
	assert_int_equal(fs_mkdirs(real, 0755), 0);
	t = fs_join(real, "metadata.json");
	assert_int_equal(atomic_write_str(t, "{}"), 0);
	free(t);
	mk(f, "step_1", 0, 0);	/* makes the dir */
	l = fs_join(f->ck, "step_50");
	assert_int_equal(symlink(real, l), 0);
	free(l);
	/* A dangling link: incomplete. */
	l = fs_join(f->ck, "step_60");
	assert_int_equal(symlink("/nonexistent/wk-ckpt", l), 0);
	free(l);
	/* The completeness file a link to a regular file: complete. */
	mk(f, "step_40", 0, 0);
	l = xstrfmt("%s/step_40/metadata.json", f->ck);
	t = xstrfmt("%s/elsewhere/real/metadata.json", f->dir);
	assert_int_equal(symlink(t, l), 0);
	free(l);
	free(t);
	/* ... to a directory: not complete. */
	mk(f, "step_45", 0, 0);
	l = xstrfmt("%s/step_45/metadata.json", f->ck);
	assert_int_equal(symlink(real, l), 0);
	free(l);
	s = scan(f);
	assert_int_equal(s->nentries, 5);
	assert_int_equal(s->newest->step, 50);
	l = fs_join(f->ck, "step_50");
	assert_string_equal(s->newest->path, l);
	free(l);
	assert_true(s->newest->mtime > 0);
	assert_true(entry(s, "step_40")->complete);
	assert_false(entry(s, "step_45")->complete);
	assert_false(entry(s, "step_60")->complete);
	assert_int_equal(s->newest_incomplete->step, 60);
	ckpt_scan_free(s);
	free(real);
}

static void
test_plain_files(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;

	load(f, "dir", "ckpt", "pattern", "model_(\\d+)\\.pt", NULL);
	put(f, "model_100.pt", "weights");
	put(f, "model_100.pt.metadata.json", "{}");
	put(f, "model_200.pt", "weights, still being written");
	put(f, "model_300.pt.metadata.json", "{}");	/* a sidecar alone: nothing */
	s = scan(f);
	assert_int_equal(s->nentries, 2);
	assert_int_equal(s->newest->step, 100);
	assert_string_equal(s->newest->name, "model_100.pt");
	assert_true(s->newest->mtime > 0);
	assert_int_equal(s->newest_incomplete->step, 200);
	ckpt_scan_free(s);

	/* complete_file "": existence is completeness. */
	load(f, "dir", "ckpt", "pattern", "^model_(\\d+)\\.pt$", "complete_file", "", NULL);
	s = scan(f);
	assert_int_equal(s->nentries, 2);
	assert_int_equal(s->ncomplete, 2);
	assert_int_equal(s->newest->step, 200);
	ckpt_scan_free(s);

	/* Another name, nested inside the directory. */
	load(f, "dir", "ckpt", "pattern", "^step-(\\d+)$", "complete_file", "state/DONE", NULL);
	put(f, "step-7/state/DONE", "");
	mk(f, "step-8/state", 0, 0);
	s = scan(f);
	assert_int_equal(s->nentries, 2);
	assert_int_equal(s->newest->step, 7);
	ckpt_scan_free(s);
}

static void
test_missing_and_errors(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s = NULL;
	struct ckpt_summary sum;
	char *why = NULL, *t;

	/* Missing: not an error. */
	load(f, "dir", "/nonexistent/wk ckpt", "pattern", "^step_(\\d+)$", NULL);
	s = scan(f);
	assert_true(s->missing);
	assert_int_equal(s->nentries, 0);
	assert_null(s->newest);
	ckpt_summarize(s, time(NULL), &sum);
	t = ckpt_summary_text(&sum);
	assert_string_equal(t, "no complete checkpoint: /nonexistent/wk ckpt does not exist");
	free(t);
	ckpt_scan_free(s);

	/* A plain file where the directory should be: missing too. */
	load(f, "dir", "notadir", "pattern", "^step_(\\d+)$", NULL);
	t = fs_join(f->work, "notadir");
	assert_int_equal(atomic_write_str(t, "x"), 0);
	free(t);
	s = scan(f);
	assert_true(s->missing);
	ckpt_scan_free(s);

	/* Empty directory. */
	load(f, "dir", "ckpt", "pattern", "^step_(\\d+)$", NULL);
	assert_int_equal(fs_mkdirs(f->ck, 0755), 0);
	s = scan(f);
	assert_false(s->missing);
	ckpt_summarize(s, time(NULL), &sum);
	t = ckpt_summary_text(&sum);
	why = xstrfmt("no complete checkpoint in %s (no matching entries)", f->ck);
	assert_string_equal(t, why);
	free(why);
	why = NULL;
	free(t);
	ckpt_scan_free(s);

	/* Relative dir resolves against workdir; ".." components folded. */
	load(f, "dir", "a/../ckpt", "pattern", "^step_(\\d+)$", NULL);
	t = xstrfmt("%s/ckpt", f->work);
	assert_string_equal(f->ck, t);
	free(t);

	/* Bad complete_file values. */
	load(f, "dir", "ckpt", "pattern", "^step_(\\d+)$", "complete_file", "../escape", NULL);
	assert_int_equal(ckpt_scan_dir(f->cfg, &s, &why), WK_ERR_INVALID);
	assert_null(s);
	assert_non_null(strstr(why, "checkpoints.complete_file"));
	free(why);
	load(f, "dir", "ckpt", "pattern", "^step_(\\d+)$", "complete_file", "/abs/DONE", NULL);
	assert_int_equal(ckpt_scan_dir(f->cfg, &s, &why), WK_ERR_INVALID);
	free(why);

	/* Not configured. */
	load(f, NULL);
	assert_false(ckpt_configured(f->cfg));
	assert_null(ckpt_dir(f->cfg));
	assert_null(ckpt_probe_fragment(f->cfg));
	assert_int_equal(ckpt_scan_dir(f->cfg, &s, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "not configured"));
	free(why);
	assert_int_equal(ckpt_parse_listing(f->cfg, ". ok\n", 5, &s, &why), WK_ERR_INVALID);
	free(why);

	/* An unreadable directory (not for root, who reads everything). */
	if (geteuid() != 0) {
		load(f, "dir", "ckpt", "pattern", "^step_(\\d+)$", NULL);
		assert_int_equal(chmod(f->ck, 0), 0);
		assert_int_equal(ckpt_scan_dir(f->cfg, &s, &why), WK_ERR_SYSTEM);
		assert_non_null(strstr(why, "checkpoints.dir"));
		free(why);
		chmod(f->ck, 0755);
	}
}

/* ---- the probe fragment, run for real ---- */

/*
 * Run the fragment as the probe does (`<fragment> | p`, p adding the '|'),
 * with shell ("sh" or "bash"), and return its lines without the '|'.
 */
static char *
run_fragment(struct fx *f, const char *shell, size_t *len)
{
	char *frag = ckpt_probe_fragment(f->cfg), *script, *file, *cmd, *out;
	struct buf b = BUF_INIT;
	size_t n, i;

	assert_non_null(frag);
	script = xstrfmt("p() { tr -d '\\000' | awk '{ print \"|\" $0 }'; }\n"
	    "echo @checkpoints\n%s | p\necho @end\n", frag);
	file = fs_join(f->dir, "probe.sh");
	assert_int_equal(atomic_write_str(file, script), 0);
	cmd = xstrfmt("%s ./probe.sh\n", shell);
	out = unit_sh(cmd, f->dir, &n);
	/* Strip the framing as the probe parser does. */
	assert_true(n > strlen("@checkpoints\n@end\n"));
	assert_memory_equal(out, "@checkpoints\n", 13);
	assert_string_equal(out + n - 5, "@end\n");
	for (i = 13; i < n - 5; ) {
		const char *nl = memchr(out + i, '\n', n - 5 - i);

		assert_non_null(nl);
		assert_int_equal(out[i], '|');
		buf_append(&b, out + i + 1, (size_t)(nl - (out + i)));
		i = (size_t)(nl - out) + 1;
	}
	*len = b.len;
	free(out);
	free(cmd);
	free(file);
	free(script);
	free(frag);
	return buf_detach(&b);
}

static struct ckpt_scan *
parse(struct fx *f, const char *text, size_t len)
{
	struct ckpt_scan *s = NULL;
	char *why = NULL;

	if (ckpt_parse_listing(f->cfg, text, len, &s, &why) != 0)
		fail_msg("listing rejected: %s\n%s", why, text);
	assert_null(why);
	return s;
}

/* Two scans say the same. */
static void
same(const struct ckpt_scan *a, const struct ckpt_scan *b)
{
	size_t i;

	assert_string_equal(a->dir, b->dir);
	assert_int_equal(a->missing, b->missing);
	assert_int_equal(a->truncated, b->truncated);
	assert_int_equal(a->nnames, b->nnames);
	assert_int_equal(a->nentries, b->nentries);
	assert_int_equal(a->ncomplete, b->ncomplete);
	for (i = 0; i < a->nentries; i++) {
		assert_string_equal(a->entries[i].name, b->entries[i].name);
		assert_string_equal(a->entries[i].path, b->entries[i].path);
		assert_true(a->entries[i].step == b->entries[i].step);
		assert_int_equal(a->entries[i].complete, b->entries[i].complete);
		assert_true(a->entries[i].mtime == b->entries[i].mtime);
	}
	assert_true((a->newest == NULL) == (b->newest == NULL));
	if (a->newest != NULL)
		assert_int_equal(a->newest - a->entries, b->newest - b->entries);
	assert_true((a->newest_incomplete == NULL) == (b->newest_incomplete == NULL));
}

static void
no_pwned(struct fx *f)
{
	static const char *names[] = { "PWNED", "PWNED2", "PWNED3" };
	char *p;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p = fs_join(f->dir, names[i]);
		assert_false(fs_exists(p));
		free(p);
		p = fs_join(f->work, names[i]);
		assert_false(fs_exists(p));
		free(p);
	}
}

#define HOSTILE_DIR	"it's a \"ck\" $(touch PWNED) `touch PWNED2` [s]* ? dir"

static void
test_probe_hostile(void **state)
{
	struct fx *f = *state;
	static const char *shells[] = { "sh", "bash" };
	struct ckpt_scan *loc, *rem;
	char *out, *l, *t;
	size_t len, i;

	load(f, "dir", HOSTILE_DIR, "pattern", "step_(\\d+)", NULL);
	mk(f, "step_1", 1, 1700000001);
	mk(f, "step_2 it's \"q\" $(touch PWNED) `touch PWNED2`", 1, 1700000002);
	mk(f, "step_3;rm -rf x|y&", 0, 0);
	mk(f, "-step_4", 1, 1700000004);
	mk(f, ".step_6", 1, 1700000006);
	mk(f, "step_7\nstep_8", 1, 1700000007);	/* a newline: skipped on both sides */
	mk(f, "step_9 ", 1, 1700000009);
	mk(f, "  step_10", 1, 1700000010);
	mk(f, "step_11\\n", 1, 1700000011);
	mk(f, "step_12\t", 0, 0);
	put(f, "step_13.pt", "w");
	put(f, "step_13.pt.metadata.json", "{}");
	mk(f, "..step_16", 1, 1700000016);
	mk(f, "\xe6\xa3\x80\xe6\x9f\xa5\xe7\x82\xb9step_17", 1, 1700000017);
	mk(f, "step_18/metadata.json", 0, 0);
	mk(f, "%s%n step_19 $HOME", 1, 1700000019);
	mk(f, "not a checkpoint", 1, 0);
	l = fs_join(f->ck, "step_14");
	t = fs_join(f->ck, "step_1");
	assert_int_equal(symlink(t, l), 0);
	free(l);
	free(t);
	l = fs_join(f->ck, "step_15");
	assert_int_equal(symlink("/nonexistent/wk", l), 0);
	free(l);
	loc = scan(f);
	assert_int_equal(loc->nnames, 18);	/* 19 names, one with a newline */
	assert_int_equal(loc->nentries, 16);	/* less the sidecar and "not a checkpoint" */
	assert_int_equal(loc->newest->step, 19);
	assert_int_equal(loc->newest->mtime, 1700000019);
	assert_true(entry(loc, "step_14")->complete);
	assert_false(entry(loc, "step_15")->complete);
	assert_true(entry(loc, "step_13.pt")->complete);
	assert_false(entry(loc, "step_18")->complete);
	assert_int_equal(entry(loc, "step_2 it's \"q\" $(touch PWNED) `touch PWNED2`")->step, 2);
	for (i = 0; i < sizeof(shells) / sizeof(shells[0]); i++) {
		out = run_fragment(f, shells[i], &len);
		rem = parse(f, out, len);
		same(loc, rem);
		ckpt_scan_free(rem);
		free(out);
	}
	no_pwned(f);
	ckpt_scan_free(loc);

	/* A hostile completeness file name. */
	load(f, "dir", HOSTILE_DIR, "pattern", "step_(\\d+)",
	    "complete_file", "it's $(touch PWNED3) done", NULL);
	put(f, "step_9 /it's $(touch PWNED3) done", "");
	put(f, "step_13.pt.it's $(touch PWNED3) done", "");
	loc = scan(f);
	/* step_9 and step_13.pt; step_1 (and its link step_14) are no more. */
	assert_int_equal(loc->ncomplete, 2);
	assert_true(entry(loc, "step_9 ")->complete);
	assert_true(entry(loc, "step_13.pt")->complete);
	assert_false(entry(loc, "step_14")->complete);
	out = run_fragment(f, "sh", &len);
	rem = parse(f, out, len);
	same(loc, rem);
	ckpt_scan_free(rem);
	free(out);
	ckpt_scan_free(loc);
	no_pwned(f);

	/* Missing directory. */
	load(f, "dir", "nope $(touch PWNED)", "pattern", "step_(\\d+)", NULL);
	out = run_fragment(f, "sh", &len);
	assert_int_equal(len, strlen(". missing\n"));
	assert_memory_equal(out, ". missing\n", len);
	rem = parse(f, out, len);
	assert_true(rem->missing);
	loc = scan(f);
	same(loc, rem);
	ckpt_scan_free(loc);
	ckpt_scan_free(rem);
	free(out);
	no_pwned(f);
}

static void
test_probe_bounds(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *loc, *rem;
	struct ckpt_summary sum;
	char *out, *p, name[256];
	size_t len, i;
	int fd;

	/* One name more than CKPT_MAX_ENTRIES. */
	load(f, "dir", "ckpt", "pattern", "^f_(\\d+)$", NULL);
	assert_int_equal(fs_mkdirs(f->ck, 0755), 0);
	for (i = 0; i <= CKPT_MAX_ENTRIES; i++) {
		p = xstrfmt("%s/f_%05zu", f->ck, i);
		assert_true((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0);
		close(fd);
		free(p);
	}
	out = run_fragment(f, "sh", &len);
	rem = parse(f, out, len);
	assert_true(rem->truncated);
	assert_int_equal(rem->nnames, CKPT_MAX_ENTRIES);
	assert_int_equal(rem->nentries, CKPT_MAX_ENTRIES);
	/* The first ones in byte order. */
	assert_true(rem->entries[CKPT_MAX_ENTRIES - 1].step == CKPT_MAX_ENTRIES - 1);
	loc = scan(f);
	assert_true(loc->truncated);
	assert_int_equal(loc->nnames, CKPT_MAX_ENTRIES);
	ckpt_summarize(loc, time(NULL), &sum);
	free(out);
	out = ckpt_summary_text(&sum);
	assert_non_null(strstr(out, "; only the first 10000 entries were looked at"));
	free(out);
	ckpt_scan_free(loc);
	ckpt_scan_free(rem);

	/* Long names: the byte bound, 262144 / (200 + 16) = 1213 names. */
	load(f, "dir", "long", "pattern", "^b_(\\d+)_", NULL);
	assert_int_equal(fs_mkdirs(f->ck, 0755), 0);
	for (i = 0; i < 1300; i++) {
		snprintf(name, sizeof(name), "b_%04zu_", i);
		memset(name + 7, 'x', 193);
		name[200] = '\0';
		p = fs_join(f->ck, name);
		assert_true((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0);
		close(fd);
		free(p);
	}
	out = run_fragment(f, "sh", &len);
	assert_true(len < CKPT_LISTING_MAX);
	rem = parse(f, out, len);
	assert_true(rem->truncated);
	assert_int_equal(rem->nnames, 1213);
	loc = scan(f);
	assert_true(loc->truncated);
	assert_int_equal(loc->nnames, 1213);
	ckpt_scan_free(loc);
	ckpt_scan_free(rem);
	free(out);
}

/* ---- the listing parser ---- */

static void
test_listing_strict(void **state)
{
	struct fx *f = *state;
	static const char good[] =
	    "1 1700000001 step_1\n"
	    "0 0 step 2 it's\n"
	    "1 1700000003 step_3\n"
	    "1 0 step_4\n"
	    "0 0  step_5 \n"
	    ". ok\n";
	static const struct {
		const char *text;
		size_t len;	/* 0: strlen */
		const char *why;
	} bad[] = {
		{ "", 0, "empty" },
		{ "\n", 0, "line 1" },
		{ "0 0 step_1\n", 0, "no status line" },
		{ "0 0 step_1", 0, "no status line" },
		{ "0 0 step_1\n. ok\n0 0 step_2\n", 0, "after the status line" },
		{ ". ok\n. ok\n", 0, "after the status line" },
		{ ". ok\n\n", 0, "after the status line" },
		{ "2 0 step_1\n. ok\n", 0, "not an entry line" },
		{ "1 -5 step_1\n. ok\n", 0, "bad mtime" },
		{ "1 0012 step_1\n. ok\n", 0, "bad mtime" },
		{ "1 99999999999999999999 step_1\n. ok\n", 0, "bad mtime" },
		{ "1 12x step_1\n. ok\n", 0, "bad mtime" },
		{ "1  5 step_1\n. ok\n", 0, "bad mtime" },
		{ "1\t5 step_1\n. ok\n", 0, "not an entry line" },
		{ "0 17 step_1\n. ok\n", 0, "incomplete entry with an mtime" },
		{ "1 5\n. ok\n", 0, "no name" },
		{ "1\n. ok\n", 0, "not an entry line" },
		{ "1 555\n. ok\n", 0, "no name" },
		{ "1 5 \n. ok\n", 0, "bad name" },
		{ "1 5 a/step_1\n. ok\n", 0, "bad name" },
		{ "1 5 .\n. ok\n", 0, "bad name" },
		{ "1 5 ..\n. ok\n", 0, "bad name" },
		{ "1 5 step_1\n\n. ok\n", 0, "line 2" },
		{ "1 5 step_1\n. okay\n", 0, "unknown status line" },
		{ "1 5 step_1\n.ok\n", 0, "unknown status line" },
		{ "1 5 step_1\n. missing\n", 0, "entries of a missing directory" },
		{ "|1 5 step_1\n. ok\n", 0, "not an entry line" },
		{ "1 5 step_1\n|. ok\n", 0, "not an entry line" },
		{ "@end\n. ok\n", 0, "not an entry line" },
		{ "1 5 step_1\n0 0 step_1\n. ok\n", 0, "listed twice" },
		{ "1 5 st\0ep_1\n. ok\n", 17, "bad name" },
		{ "1 5 step_1\n. ok\0", 16, "unknown status line" },
	};
	struct ckpt_scan *s = NULL;
	struct buf b = BUF_INIT;
	char *why = NULL;
	size_t i, len;
	int rc;

	load(f, "dir", "ckpt", "pattern", "^\\s*step_(\\d+)", NULL);
	s = parse(f, good, strlen(good));
	assert_int_equal(s->nnames, 5);
	assert_int_equal(s->nentries, 4);
	assert_int_equal(s->newest->step, 4);
	assert_true(s->newest->mtime == 0);	/* complete, mtime unknown on the box */
	assert_int_equal(s->newest_incomplete->step, 5);
	assert_string_equal(s->newest_incomplete->name, " step_5 ");
	ckpt_scan_free(s);
	/* The final newline is optional. */
	s = parse(f, good, strlen(good) - 1);
	assert_int_equal(s->nentries, 4);
	ckpt_scan_free(s);
	/* Every strict prefix is rejected (except the one without the last newline). */
	for (len = 0; len + 1 < strlen(good); len++) {
		s = NULL;
		rc = ckpt_parse_listing(f->cfg, good, len, &s, &why);
		if (rc != WK_ERR_PARSE)
			fail_msg("prefix of %zu bytes accepted", len);
		assert_null(s);
		assert_non_null(why);
		free(why);
		why = NULL;
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = bad[i].len != 0 ? bad[i].len : strlen(bad[i].text);
		s = NULL;
		rc = ckpt_parse_listing(f->cfg, bad[i].text, len, &s, &why);
		if (rc != WK_ERR_PARSE)
			fail_msg("bad listing %zu accepted", i);
		assert_null(s);
		if (why == NULL || strstr(why, bad[i].why) == NULL)
			fail_msg("bad listing %zu: why \"%s\", wanted \"%s\"", i,
			    why == NULL ? "(null)" : why, bad[i].why);
		free(why);
		why = NULL;
	}
	/* Over the bounds: one entry line too many. */
	for (i = 0; i <= CKPT_MAX_ENTRIES; i++)
		buf_printf(&b, "0 0 x%zu\n", i);
	buf_puts(&b, ". truncated\n");
	assert_int_equal(ckpt_parse_listing(f->cfg, b.data, b.len, &s, &why), WK_ERR_PARSE);
	assert_non_null(strstr(why, "line 10001: more than the bounds allow"));
	free(why);
	why = NULL;
	buf_reset(&b);
	/* ... and at the bound, fine. */
	for (i = 0; i < CKPT_MAX_ENTRIES; i++)
		buf_printf(&b, "0 0 x%zu\n", i);
	buf_puts(&b, ". truncated\n");
	s = parse(f, b.data, b.len);
	assert_true(s->truncated);
	assert_int_equal(s->nnames, CKPT_MAX_ENTRIES);
	assert_int_equal(s->nentries, 0);
	ckpt_scan_free(s);
	buf_free(&b);
	/* A pattern that does not compile here is a regex error, not a parse error. */
	load(f, "dir", "ckpt", "pattern", "^step_(\\d+)$", NULL);
	s = parse(f, ". ok", 4);
	assert_int_equal(s->nentries, 0);
	assert_false(s->missing);
	ckpt_scan_free(s);
}

/* ---- {checkpoint} ---- */

/* Run command with sh in f->dir and return its stdout (caller frees). */
static char *
sh_out(struct fx *f, const char *command)
{
	char *script = xstrfmt("%s\n", command), *out;
	size_t len;

	out = unit_sh(script, f->dir, &len);
	free(script);
	return out;
}

static void
test_subst_hostile(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;
	char *path, *out = NULL, *why = NULL, *want, *got;

	load(f, "dir", HOSTILE_DIR, "pattern", "^step_(\\d+)", NULL);
	path = xstrfmt("%s/it's a \"ck\" $(touch PWNED) `touch PWNED2` ;|&<>*? \\ $HOME 'end'",
	    f->dir);
	assert_int_equal(ckpt_subst("printf '[%s]\\n' {checkpoint} --resume={checkpoint} x",
	    path, f->cfg, &out, &why), 0);
	assert_null(why);
	got = sh_out(f, out);
	want = xstrfmt("[%s]\n[--resume=%s]\n[x]\n", path, path);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(out);

	/* From a scan of a hostile directory with a hostile newest name. */
	mk(f, "step_2 it's $(touch PWNED) `touch PWNED2` \"x\"", 1, 0);
	mk(f, "step_1", 1, 0);
	s = scan(f);
	assert_int_equal(ckpt_subst_scan("printf '[%s]\\n' {checkpoint}", s, f->cfg, &out, &why), 0);
	got = sh_out(f, out);
	want = xstrfmt("[%s]\n", s->newest->path);
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "/" HOSTILE_DIR "/step_2 it's"));
	free(got);
	free(want);
	free(out);
	ckpt_scan_free(s);

	/* A path with a newline is refused: a comment could not hold it. */
	assert_int_equal(ckpt_subst("run {checkpoint}", "/a\nb", f->cfg, &out, &why),
	    WK_ERR_INVALID);
	assert_null(out);
	assert_non_null(strstr(why, "newline"));
	free(why);
	no_pwned(f);
	free(path);
}

static void
test_subst_tokens(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *cmd;
		const char *want;	/* with path "/c k" */
	} ok[] = {
		{ "python train.py", "python train.py" },
		{ "", "" },
		{ "run {checkpoints} {checkpoint {Checkpoint} { checkpoint}",
		  "run {checkpoints} {checkpoint {Checkpoint} { checkpoint}" },
		{ "run {checkpoint}", "run '/c k'" },
		{ "{checkpoint}", "'/c k'" },
		{ "a {checkpoint} b {checkpoint}", "a '/c k' b '/c k'" },
		{ "run {{checkpoint}}", "run {'/c k'}" },
		{ "run --resume={checkpoint},x", "run --resume='/c k',x" },
		{ "echo 'a'{checkpoint}'b'", "echo 'a''/c k''b'" },
		{ "echo it\\'s {checkpoint}", "echo it\\'s '/c k'" },
		{ "echo \"a\\\"\" {checkpoint}", "echo \"a\\\"\" '/c k'" },
		{ "x=1 # it's {checkpoint}\necho {checkpoint}", "x=1 # it's '/c k'\necho '/c k'" },
		{ "echo a#{checkpoint}", "echo a#'/c k'" },
		{ "echo $(ls {checkpoint})", "echo $(ls '/c k')" },
	};
	static const struct {
		const char *cmd;
		const char *why;
	} bad[] = {
		{ "echo '{checkpoint}'", "byte 6 of the command is inside single quotes" },
		{ "echo \"{checkpoint}\"", "byte 6 of the command is inside double quotes" },
		{ "echo \"$(cat {checkpoint})\"", "inside double quotes" },
		{ "echo \"a\\\"{checkpoint}\"", "inside double quotes" },
		{ "echo \\{checkpoint}", "byte 6 of the command is right after a backslash" },
		{ "cat <<EOF\n{checkpoint}\nEOF", "here-document" },
		{ "echo {checkpoint} 'x{checkpoint}'", "byte 20 of the command is inside single quotes" },
	};
	char *out = NULL, *why = NULL;
	size_t i;

	load(f, "dir", "ckpt", "pattern", "^step_(\\d+)", "fallback", "stop", NULL);
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (ckpt_subst(ok[i].cmd, "/c k", f->cfg, &out, &why) != 0)
			fail_msg("\"%s\" refused: %s", ok[i].cmd, why);
		assert_null(why);
		assert_string_equal(out, ok[i].want);
		assert_int_equal(shword_check_token(ok[i].cmd, &why), 0);
		assert_null(why);
		free(out);
		out = NULL;
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ckpt_subst(bad[i].cmd, "/c k", f->cfg, &out, &why),
		    WK_ERR_INVALID);
		assert_null(out);
		if (strstr(why, bad[i].why) == NULL)
			fail_msg("\"%s\": why \"%s\", wanted \"%s\"", bad[i].cmd, why, bad[i].why);
		free(why);
		assert_int_equal(shword_check_token(bad[i].cmd, &why), WK_ERR_INVALID);
		free(why);
		why = NULL;
	}
	/* The accepted ones really are one word each. */
	out = sh_out(f, "set -- 'a''/c k''b'; echo $#; printf '[%s]\\n' \"$@\"");
	assert_string_equal(out, "1\n[a/c kb]\n");
	free(out);
	assert_int_equal(shword_uses_token("x {checkpoint}"), 1);
	assert_int_equal(shword_uses_token("x {checkpoints}"), 0);
	assert_int_equal(shword_uses_token(NULL), 0);
	assert_int_equal(ckpt_subst(NULL, "/x", f->cfg, &out, &why), WK_ERR_INVALID);
	free(why);
}

static void
test_subst_fallback(void **state)
{
	struct fx *f = *state;
	struct ckpt_scan *s;
	char *out = NULL, *why = NULL, *want;

	/* fresh, default none "": an empty word. */
	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", NULL);
	assert_int_equal(ckpt_subst("printf '[%s]\\n' {checkpoint} x", NULL, f->cfg, &out, &why), 0);
	assert_string_equal(out, "printf '[%s]\\n' '' x");
	free(out);
	out = sh_out(f, "printf '[%s]\\n' '' x");
	assert_string_equal(out, "[]\n[x]\n");
	free(out);

	/* fresh with a none of its own: still one word. */
	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", "fallback", "fresh",
	    "none", "scratch 'dir' $(touch PWNED)", NULL);
	assert_int_equal(ckpt_subst("printf '[%s]\\n' {checkpoint}", NULL, f->cfg, &out, &why), 0);
	want = sh_out(f, out);
	assert_string_equal(want, "[scratch 'dir' $(touch PWNED)]\n");
	free(want);
	free(out);
	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", "none", "a\nb", NULL);
	assert_int_equal(ckpt_subst("run {checkpoint}", NULL, f->cfg, &out, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "checkpoints.none"));
	free(why);

	/* stop */
	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", "fallback", "stop", NULL);
	assert_int_equal(ckpt_subst("run {checkpoint}", NULL, f->cfg, &out, &why), WK_ERR_NOTFOUND);
	assert_null(out);
	want = xstrfmt("no complete checkpoint in %s; checkpoints.fallback is stop", f->ck);
	assert_string_equal(why, want);
	free(want);
	free(why);
	/* ... a command without the token does not care. */
	assert_int_equal(ckpt_subst("run --fresh", NULL, f->cfg, &out, &why), 0);
	assert_string_equal(out, "run --fresh");
	free(out);
	/* ... from a scan: what was there. */
	s = scan(f);
	assert_int_equal(ckpt_subst_scan("run {checkpoint}", s, f->cfg, &out, &why),
	    WK_ERR_NOTFOUND);
	want = xstrfmt("no complete checkpoint in %s (%s does not exist); "
	    "checkpoints.fallback is stop", f->ck, f->ck);
	assert_string_equal(why, want);
	free(want);
	free(why);
	ckpt_scan_free(s);
	mk(f, "checkpoint-1200", 0, 0);
	mk(f, "checkpoint-1300", 0, 0);
	s = scan(f);
	assert_int_equal(ckpt_subst_scan("run {checkpoint}", s, f->cfg, &out, &why),
	    WK_ERR_NOTFOUND);
	want = xstrfmt("no complete checkpoint in %s (2 entries, newest incomplete: step 1300); "
	    "checkpoints.fallback is stop", f->ck);
	assert_string_equal(why, want);
	free(want);
	free(why);
	ckpt_scan_free(s);
	/* With a complete one, its path. */
	mk(f, "checkpoint-1100", 1, 0);
	s = scan(f);
	assert_int_equal(ckpt_subst_scan("run {checkpoint}", s, f->cfg, &out, &why), 0);
	want = xstrfmt("run '%s/checkpoint-1100'", f->ck);
	assert_string_equal(out, want);
	free(want);
	free(out);
	ckpt_scan_free(s);

	/* Token, no path, no checkpoints configured. */
	load(f, NULL);
	assert_int_equal(ckpt_subst("run {checkpoint}", NULL, f->cfg, &out, &why), WK_ERR_INVALID);
	assert_non_null(strstr(why, "no checkpoints are configured"));
	free(why);
	assert_int_equal(ckpt_subst("run {checkpoint}", "/p", f->cfg, &out, &why), 0);
	assert_string_equal(out, "run '/p'");
	free(out);
	no_pwned(f);
}

/* ---- stall ---- */

static void
test_stall(void **state)
{
	struct fx *f = *state;
	static const long long one[] = { 1200 };
	static const long long three[] = { 3000, 1000, 2000, 2000 };
	static const long long irregular[] = { 0, 100, 1100, 1200, 2200 };
	static const long long odd[] = { 0, 100, 1100, 2100 };
	static const long long neg[] = { -5, 1000, 2000 };
	struct ckpt_stall st;
	struct ckpt_scan *s;
	long long many[40];
	char *t;
	size_t i;

	/* Configured spacing: stalled past 2 x spacing, not at it. */
	assert_int_equal(ckpt_stalled(one, 1, 3850, 1000, &st), 1);
	assert_true(st.known && !st.learned);
	assert_true(st.newest == 1200 && st.behind == 2650 && st.spacing == 1000);
	t = ckpt_stall_text(&st);
	assert_string_equal(t, "newest complete checkpoint step 1200 is 2650 steps behind "
	    "progress 3850; they land every 1000 steps (checkpoints.every_steps)");
	free(t);
	assert_int_equal(ckpt_stalled(one, 1, 3200, 1000, &st), 0);
	assert_true(st.behind == 2000);
	assert_int_equal(ckpt_stalled(one, 1, 3201, 1000, &st), 1);
	/* Progress behind the checkpoint (a restart from an older one): not stalled. */
	assert_int_equal(ckpt_stalled(one, 1, 100, 1000, &st), 0);
	assert_true(st.known && st.behind == -1100);
	/* Unknown progress. */
	assert_int_equal(ckpt_stalled(one, 1, -1, 1000, &st), 0);
	assert_false(st.known);

	/* Learned: unsorted, duplicates once. */
	assert_int_equal(ckpt_stalled(three, 4, 5001, 0, &st), 1);
	assert_true(st.learned && st.spacing == 1000 && st.newest == 3000);
	t = ckpt_stall_text(&st);
	assert_string_equal(t, "newest complete checkpoint step 3000 is 2001 steps behind "
	    "progress 5001; they land every ~1000 steps");
	free(t);
	assert_int_equal(ckpt_stalled(three, 4, 5000, 0, &st), 0);
	/* Even count of differences: mean of the middle two (100, 100, 1000, 1000 -> 550). */
	ckpt_stalled(irregular, 5, 2200, 0, &st);
	assert_true(st.spacing == 550);
	/* Odd count: the middle one (100, 1000, 1000 -> 1000). */
	ckpt_stalled(odd, 4, 2100, 0, &st);
	assert_true(st.spacing == 1000);
	/* Negative steps are ignored. */
	ckpt_stalled(neg, 3, 2000, 0, &st);
	assert_true(st.spacing == 1000 && st.newest == 2000);
	/* Only the last CKPT_SPACING_WINDOW differences: the spacing changed from 10 to 1000. */
	for (i = 0; i < 40; i++)
		many[i] = i < 20 ? (long long)i * 10 : 190 + ((long long)i - 19) * 1000;
	ckpt_stalled(many, 40, many[39], 0, &st);
	assert_true(st.spacing == 1000);

	/* Unknown spacing: one checkpoint and nothing configured, never stalled. */
	assert_int_equal(ckpt_stalled(one, 1, 1000000, 0, &st), 0);
	assert_false(st.known);
	assert_true(st.spacing == 0 && st.newest == 1200);
	t = ckpt_stall_text(&st);
	assert_non_null(strstr(t, "spacing unknown"));
	free(t);
	/* No checkpoint at all. */
	assert_int_equal(ckpt_stalled(NULL, 0, 1000000, 1000, &st), 0);
	assert_true(st.newest == -1);
	t = ckpt_stall_text(&st);
	assert_string_equal(t, "no complete checkpoint yet (progress 1000000)");
	free(t);
	/* No overflow near the top. */
	assert_int_equal(ckpt_stalled(neg + 1, 1, LLONG_MAX, LLONG_MAX / 2 + 1, &st), 0);
	assert_int_equal(ckpt_stalled(neg + 1, 1, LLONG_MAX, LLONG_MAX / 4, &st), 1);

	/* Over a scan: complete ones only, and checkpoints.every_steps. */
	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", NULL);
	mk(f, "checkpoint-1000", 1, 0);
	mk(f, "checkpoint-2000", 1, 0);
	mk(f, "checkpoint-2500", 0, 0);
	s = scan(f);
	assert_int_equal(ckpt_scan_stalled(s, f->cfg, 4001, &st), 1);
	assert_true(st.learned && st.spacing == 1000 && st.newest == 2000);
	ckpt_scan_free(s);
	load(f, "dir", "ckpt", "pattern", "^checkpoint-(\\d+)$", "every_steps", "5000", NULL);
	s = scan(f);
	assert_int_equal(ckpt_scan_stalled(s, f->cfg, 4001, &st), 0);
	assert_true(!st.learned && st.spacing == 5000);
	ckpt_scan_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_numeric_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leading_zeros, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ties, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejected_never_newest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ignored_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_strict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subst_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subst_tokens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subst_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stall, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
