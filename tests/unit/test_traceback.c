/*
 * test_traceback.c: where a failure happened, on tracebacks real programs
 * printed (tests/unit/fixtures/tb/, its README says how each was made):
 * the user's innermost frame past torch and the standard library, chained
 * exceptions, ranks interleaved line by line, torchrun's ChildFailedError
 * (launcher traceback never reported), C++ terminate, CUDA and NCCL lines.
 * Each fixture is read as last_lines are kept: one string per line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceback.h"

#define FIXTURES WK_SRC_PROFILES_DIR "/../tests/unit/fixtures/tb/"

struct lines {
	char	*text;
	char	**v;
	size_t	 n;
};

static void
lines_load(struct lines *l, const char *name)
{
	char path[1024], *p, *nl;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%s%s", FIXTURES, name);
	f = fopen(path, "rb");
	if (f == NULL)
		fail_msg("cannot open fixture %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	l->text = calloc(1, (size_t)len + 1);
	l->v = calloc((size_t)len + 1, sizeof(*l->v));
	assert_non_null(l->text);
	assert_non_null(l->v);
	assert_int_equal(fread(l->text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	l->n = 0;
	for (p = l->text; *p != '\0'; p = nl + 1) {
		l->v[l->n++] = p;
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		*nl = '\0';
	}
}

static void
lines_free(struct lines *l)
{
	free(l->text);
	free(l->v);
}

struct expect {
	const char	*fixture;
	int		 found;
	const char	*file;		/* suffix of the file */
	long		 line;
	const char	*function;	/* "" none */
};

static const struct expect expects[] = {
	/* user code calling user code */
	{ "py_keyerror.txt", 1, "/tests/e2e/fixtures/torch/train.py", 62, "lr_at" },
	/* the header printed after a tqdm bar that had no newline (the bar's redraws split at CR) */
	{ "py_keyerror_after_tqdm_bar.txt", 1, "/tests/e2e/fixtures/torch/train.py", 62, "lr_at" },
	/* the error is raised in torch's linear.py: the user's line calling the model */
	{ "py_shape_in_torch.txt", 1, "/tests/e2e/fixtures/torch/train.py", 142, "main" },
	/* the last traceback (the ValueError raised in the handler), not the KeyError's */
	{ "py_chained_during_handling.txt", 1, "/tests/e2e/fixtures/torch/train.py", 88,
	    "fail_now" },
	/* raise ... from e: the outer RuntimeError's, past pyenv's json */
	{ "py_chained_direct_cause.txt", 1, "/tmp/where_tb/prep.py", 8, "read_config" },
	/* every frame library (<string>, pyenv's stdlib): the innermost one */
	{ "py_all_stdlib.txt", 1, "/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py",
	    353, "raw_decode" },
	/* a user frame beats the C++ "Exception raised from" after it */
	{ "py_cpp_stack.txt", 1, "/tmp/where_tb/idx.py", 5, "gather" },
	/* rank1 printed its exception line first although rank0's lines lead */
	{ "multirank_interleaved.txt", 1, "/tests/e2e/fixtures/torch/train.py", 62, "lr_at" },
	/* srun -l: rank 0 finished first here */
	{ "srun_label_interleaved.txt", 1, "/tests/e2e/fixtures/torch/train.py", 142, "main" },
	/* torchrun --tee: default1 failed first; rank 0 only lost its peer; launcher ignored */
	{ "torchrun_tee.txt", 1, "/tmp/where_tb/tr/dist_train.py", 9, "load_cfg" },
	/* only the launcher's traceback and a summary without tracebacks: nothing */
	{ "torchrun_summary_only.txt", 0, NULL, 0, NULL },
	/* @record: the summary's Root Cause traceback (rank 0) */
	{ "torchrun_summary_record.txt", 1, "/tmp/where_tb/tr/dist_rec.py", 23, "main" },
	/* torchrun itself crashing (no ChildFailedError): all library, innermost */
	{ "torchrun_launcher_crash.txt", 1,
	    "/usr/lib/python3/dist-packages/torch/distributed/elastic/multiprocessing/api.py", 162,
	    "to_map" },
	{ "cpp_terminate_cuda_at.txt", 1, "kernel_check.cu", 14, "" },
	{ "cpp_terminate_what.txt", 1, "what.cpp", 7, "" },
	{ "nccl_watchdog_terminate.txt", 1, "ProcessGroupNCCL.cpp", 821, "" },
	{ "nccl_terminate_error_in.txt", 1,
	    "/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", 1191, "" },
	/* a NCCL error raised into Python: the user's all_reduce line */
	{ "nccl_python_user_frame.txt", 1, "/workspace/proj/train.py", 97, "main" },
};

static int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void
test_fixtures(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(expects) / sizeof(expects[0]); i++) {
		const struct expect *e = &expects[i];
		struct lines l;
		struct tb_where w;
		int got;

		lines_load(&l, e->fixture);
		got = tb_where_find((const char *const *)l.v, l.n, &w);
		if (got != e->found || (got && (!ends_with(w.file, e->file) || w.line != e->line ||
		    strcmp(w.function, e->function) != 0)))
			fail_msg("%s: got %d %s:%ld in '%s', want %d %s:%ld in '%s'", e->fixture, got,
			    w.file, w.line, w.function, e->found, e->file ? e->file : "-", e->line,
			    e->function ? e->function : "");
		lines_free(&l);
	}
}

/* The tail starts inside the traceback (its header already dropped). */
static void
test_cut_header(void **state)
{
	struct lines l;
	struct tb_where w;

	(void)state;
	lines_load(&l, "py_shape_in_torch.txt");
	/* lines 0-3: step, header, first frame and its source */
	assert_int_equal(tb_where_find((const char *const *)l.v + 4, l.n - 4, &w), 1);
	assert_true(ends_with(w.file, "train.py"));
	assert_int_equal(w.line, 142);
	/* only torch's frames left: the innermost one */
	assert_int_equal(tb_where_find((const char *const *)l.v + 6, l.n - 6, &w), 1);
	assert_true(ends_with(w.file, "torch/nn/modules/linear.py"));
	assert_int_equal(w.line, 114);
	lines_free(&l);
}

static void
test_nothing(void **state)
{
	static const char *const plain[] = {
		"step 1/4 loss=0.4399", "", NULL, "0: step 2/4", "[rank0]: done",
		"error: see 12: not a location", "  File \"x.py\", line oops",
	};
	struct tb_where w;

	(void)state;
	assert_int_equal(tb_where_find(plain, sizeof(plain) / sizeof(plain[0]), &w), 0);
	assert_string_equal(w.file, "");
	assert_int_equal(tb_where_find(NULL, 0, &w), 0);
}

/* Cluster job logs: Iris's "[T] task=ID attempt=N | " and a Ray worker's "(fn pid=N) ". */
static void
test_job_prefixes(void **state)
{
	static const char *const iris[] = {
		"[18:54:53] task=/wk/wk-r1-train/0 attempt=0 | step 5",
		"[18:54:53] task=/wk/wk-r1-train/0 attempt=0 | Traceback (most recent call last):",
		"[18:54:53] task=/wk/wk-r1-train/0 attempt=0 |   File \"/root/run/train.py\", line 44, in main",
		"[18:54:53] task=/wk/wk-r1-train/0 attempt=0 |     lr = cfg[\"lr\"]",
		"[18:54:53] task=/wk/wk-r1-train/0 attempt=0 | KeyError: 'lr'",
	};
	static const char *const iris_old[] = {
		"[18:54:53] task=/wk/j/0 | Traceback (most recent call last):",
		"[18:54:53] task=/wk/j/0 |   File \"/root/run/eval.py\", line 7, in run",
		"[18:54:53] task=/wk/j/0 |     x()",
		"[18:54:53] task=/wk/j/0 | NameError: name 'x' is not defined",
	};
	static const char *const ray[] = {
		"(train_fn pid=4242, ip=10.0.0.1) Traceback (most recent call last):",
		"(train_fn pid=4242, ip=10.0.0.1)   File \"/home/ray/train.py\", line 12, in train_fn",
		"(train_fn pid=4242, ip=10.0.0.1)     1 / 0",
		"(train_fn pid=4242, ip=10.0.0.1) ZeroDivisionError: division by zero",
	};
	/* Not prefixes: a time with no task, a shape cut short. */
	static const char *const cut[] = { "[18:54", "[18:54:53] task", "(pid" };
	struct tb_where w;
	size_t i;

	(void)state;
	assert_int_equal(tb_where_find(iris, sizeof(iris) / sizeof(iris[0]), &w), 1);
	assert_string_equal(w.file, "/root/run/train.py");
	assert_int_equal(w.line, 44);
	assert_string_equal(w.function, "main");
	assert_int_equal(tb_where_find(iris_old, sizeof(iris_old) / sizeof(iris_old[0]), &w), 1);
	assert_string_equal(w.file, "/root/run/eval.py");
	assert_int_equal(w.line, 7);
	assert_int_equal(tb_where_find(ray, sizeof(ray) / sizeof(ray[0]), &w), 1);
	assert_string_equal(w.file, "/home/ray/train.py");
	assert_string_equal(w.function, "train_fn");
	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
		assert_int_equal(tb_where_find(&cut[i], 1, &w), 0);
}

static void
test_json_and_text(void **state)
{
	struct lines l;
	cJSON *arr = cJSON_CreateArray(), *w;
	char text[256];
	size_t i;

	(void)state;
	lines_load(&l, "py_keyerror.txt");
	cJSON_AddItemToArray(arr, cJSON_CreateNumber(3));	/* skipped */
	for (i = 0; i < l.n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(l.v[i]));
	/* under the workdir: relative */
	w = tb_where_json(arr, "/work/wt/where/tests/e2e/fixtures/torch/");
	assert_non_null(w);
	assert_string_equal(cJSON_GetObjectItem(w, "file")->valuestring, "train.py");
	assert_int_equal((long)cJSON_GetObjectItem(w, "line")->valuedouble, 62);
	assert_string_equal(cJSON_GetObjectItem(w, "function")->valuestring, "lr_at");
	assert_int_equal(tb_where_text(w, text, sizeof(text)), 1);
	assert_string_equal(text, "at train.py:62 in lr_at");
	cJSON_Delete(w);
	/* a prefix that is not a whole directory, or no workdir: as printed */
	w = tb_where_json(arr, "/work/wt/where/tests/e2e/fixtures/tor");
	assert_string_equal(cJSON_GetObjectItem(w, "file")->valuestring,
	    "/work/wt/where/tests/e2e/fixtures/torch/train.py");
	cJSON_Delete(w);
	w = tb_where_json(arr, NULL);
	assert_true(ends_with(cJSON_GetObjectItem(w, "file")->valuestring, "/torch/train.py"));
	cJSON_DeleteItemFromObject(w, "function");
	assert_int_equal(tb_where_text(w, text, sizeof(text)), 1);
	assert_string_equal(text, "at train.py:62");
	cJSON_Delete(w);
	cJSON_Delete(arr);
	lines_free(&l);
	/* nothing to say */
	arr = cJSON_CreateArray();
	cJSON_AddItemToArray(arr, cJSON_CreateString("step 1/4 loss=0.4399"));
	assert_null(tb_where_json(arr, "/w"));
	assert_null(tb_where_json(NULL, "/w"));
	assert_int_equal(tb_where_text(NULL, text, sizeof(text)), 0);
	assert_int_equal(tb_where_text(arr, text, sizeof(text)), 0);
	cJSON_Delete(arr);
}

/*
 * A line number is 1..INT_MAX or none (0), wherever it comes from: a frame
 * whose number has 34 digits once reached (long)valuedouble (UBSan:
 * float-cast-overflow; fuzz/corpus/traceback/huge_line_number).
 */
static void
test_line_numbers_bounded(void **state)
{
	static const char *const huge[] = {
		"Traceback (most recent call last):",
		"  File \"x.py\", line 8333333333333333333333333333333333, in f",
		"    f()",
		"ValueError: boom",
	};
	static const char *const big_native[] = {
		"terminate called after throwing an instance of 'c10::Error'",
		"  what():  CUDA error at k.cu:99999999999999999999",
	};
	static const char *const edge[] = {
		"Traceback (most recent call last):",
		"  File \"y.py\", line 2147483647, in g",
		"ValueError: boom",
	};
	static const char *const signed_no[] = {
		"Traceback (most recent call last):",
		"  File \"z.py\", line -3, in h",
		"  File \"z.py\", line +4, in h",
		"ValueError: boom",
	};
	static const double bad[] = { 1e300, -1e300, 2147483648.0, 0.5, -1, 0 };
	struct tb_where w;
	cJSON *arr = cJSON_CreateArray(), *o;
	char text[256];
	size_t i;

	(void)state;
	assert_int_equal(tb_where_find(huge, 4, &w), 1);
	assert_string_equal(w.file, "x.py");
	assert_int_equal(w.line, 0);
	assert_string_equal(w.function, "f");
	for (i = 0; i < 4; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(huge[i]));
	o = tb_where_json(arr, "/w");
	assert_non_null(o);
	assert_int_equal(tb_where_text(o, text, sizeof(text)), 1);
	assert_string_equal(text, "at x.py in f");
	cJSON_Delete(o);
	cJSON_Delete(arr);
	assert_int_equal(tb_where_find(big_native, 2, &w), 1);
	assert_string_equal(w.file, "k.cu");
	assert_int_equal(w.line, 0);
	assert_int_equal(tb_where_find(edge, 3, &w), 1);
	assert_int_equal(w.line, 2147483647);
	assert_int_equal(tb_where_find(signed_no, 4, &w), 0);
	/* a marker read back from disk may say anything */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "file", "/a/b.py");
		cJSON_AddNumberToObject(o, "line", bad[i]);
		assert_int_equal(tb_where_text(o, text, sizeof(text)), 1);
		assert_string_equal(text, "at b.py");
		cJSON_Delete(o);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_cut_header),
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_job_prefixes),
		cmocka_unit_test(test_json_and_text),
		cmocka_unit_test(test_line_numbers_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
