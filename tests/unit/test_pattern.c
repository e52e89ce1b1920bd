/*
 * test_pattern.c: PCRE2 wrapper and patset.  The patset tests compare every
 * hit against matching each member alone, on both the joined (prefilter)
 * path and the member-by-member fallback.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "pattern.h"

static struct pattern *
must_compile(const char *re)
{
	struct pattern *p = NULL;
	char err[256];

	if (pattern_compile(re, &p, err, sizeof(err)) != 0)
		fail_msg("compile \"%s\": %s", re, err);
	return p;
}

static int
match_str(struct pattern *p, const char *s)
{
	return pattern_match(p, s, strlen(s));
}

static void
test_python_syntax(void **state)
{
	struct pattern *p;

	(void)state;
	p = must_compile("step\\s+\\d+/\\d+");
	assert_int_equal(match_str(p, "train: step   12/5155 loss=2.1"), 1);
	assert_int_equal(match_str(p, "train: step x/5155"), 0);
	assert_string_equal(pattern_source(p), "step\\s+\\d+/\\d+");
	pattern_free(p);

	p = must_compile("(?i)training completed");
	assert_int_equal(match_str(p, "INFO TRAINING Completed in 3h"), 1);
	assert_int_equal(match_str(p, "training not completed"), 0);
	pattern_free(p);

	/* '|' is alternation, non-greedy works, named groups compile. */
	p = must_compile("QUEUE DONE|Training completed");
	assert_int_equal(match_str(p, "QUEUE DONE"), 1);
	assert_int_equal(match_str(p, "Training completed"), 1);
	assert_int_equal(match_str(p, "QUEUE"), 0);
	pattern_free(p);

	p = must_compile("(?P<step>\\d+?)x");
	assert_int_equal(pattern_ngroups(p), 1);
	pattern_free(p);
}

static void
test_invalid_regex(void **state)
{
	struct pattern *p = (struct pattern *)1;
	char err[256];

	(void)state;
	assert_int_equal(pattern_compile("step (\\d+", &p, err, sizeof(err)), WK_ERR_REGEX);
	assert_null(p);
	assert_non_null(strstr(err, "missing closing parenthesis"));
	assert_non_null(strstr(err, "at offset 9"));

	assert_int_equal(pattern_compile("a[b", &p, err, sizeof(err)), WK_ERR_REGEX);
	assert_null(p);
	assert_non_null(strstr(err, "offset 3"));

	/* UTF mode is refused: it would make invalid UTF-8 a matching error. */
	assert_int_equal(pattern_compile("(*UTF)x", &p, err, sizeof(err)), WK_ERR_REGEX);
	assert_null(p);
	assert_non_null(strstr(err, "offset"));

	/* A tiny error buffer is still NUL-terminated. */
	assert_int_equal(pattern_compile("(", &p, err, 8), WK_ERR_REGEX);
	assert_true(strlen(err) < 8);
}

static void
test_groups(void **state)
{
	struct pattern_span g[4];
	struct pattern *p;
	const char *s = "epoch 3 step 4600/5155 loss=1.25";

	(void)state;
	p = must_compile("step ([0-9]+)/([0-9]+)(x)?");
	assert_int_equal(pattern_ngroups(p), 3);
	assert_int_equal(pattern_match_groups(p, s, strlen(s), g, 4), 1);
	assert_int_equal(g[0].start, 8);
	assert_int_equal(g[0].end, 22);
	assert_int_equal(g[1].start, 13);
	assert_int_equal(g[1].end, 17);
	assert_memory_equal(s + g[2].start, "5155", 4);
	assert_int_equal(g[2].end - g[2].start, 4);
	assert_int_equal(g[3].start, -1);	/* optional group not set */
	assert_int_equal(g[3].end, -1);

	g[1].start = 99;
	assert_int_equal(pattern_match_groups(p, "no steps", 8, g, 2), 0);
	pattern_free(p);

	/* More slots than groups: the extra ones are unset. */
	p = must_compile("a(b)");
	memset(g, 0, sizeof(g));
	assert_int_equal(pattern_match_groups(p, "xab", 3, g, 4), 1);
	assert_int_equal(g[1].start, 2);
	assert_int_equal(g[2].start, -1);
	assert_int_equal(g[3].end, -1);
	pattern_free(p);
}

static void
test_binary_input(void **state)
{
	static const char bin[] = "\xff\xfe\x00garbage \xc3\x28 \xed\xa0\x80 loss=\x80nan\x00 step 7";
	struct pattern_span g[2];
	struct pattern *p;

	(void)state;
	p = must_compile("step (\\d+)");
	assert_int_equal(pattern_match(p, bin, sizeof(bin) - 1), 1);
	assert_int_equal(pattern_match_groups(p, bin, sizeof(bin) - 1, g, 2), 1);
	assert_int_equal(bin[g[1].start], '7');
	pattern_free(p);

	/* Matching sees past NUL bytes: the length is what counts. */
	p = must_compile("garbage");
	assert_int_equal(pattern_match(p, bin, sizeof(bin) - 1), 1);
	assert_int_equal(pattern_match(p, bin, 2), 0);
	assert_int_equal(pattern_match(p, NULL, 0), 0);
	pattern_free(p);

	p = must_compile("\\x{ff}\\x{fe}");
	assert_int_equal(pattern_match(p, bin, sizeof(bin) - 1), 1);
	pattern_free(p);

	p = must_compile(".*");
	assert_int_equal(pattern_match(p, bin, sizeof(bin) - 1), 1);
	pattern_free(p);
}

static void
test_match_limit(void **state)
{
	struct pattern *p;
	char s[64];

	(void)state;
	memset(s, 'a', 40);
	strcpy(s + 40, "!");
	p = must_compile("(a+)+$");
	assert_int_equal(pattern_match(p, s, strlen(s)), WK_ERR_REGEX);
	/* The pattern stays usable. */
	assert_int_equal(pattern_match(p, "aaa", 3), 1);
	pattern_free(p);
}

static void
test_jit_stack_overflow(void **state)
{
	struct pattern *p;
	size_t i, n = 200 * 1000;
	char *s;

	(void)state;
	s = malloc(n);
	for (i = 0; i < n; i++)
		s[i] = "ab"[i % 2];
	/* 20 kB overflows the JIT's default 32 KiB stack, not the 1 MiB one. */
	p = must_compile("(?:a|(b))+$");
	assert_int_equal(pattern_match(p, s, 20 * 1000), 1);
	assert_int_equal(pattern_match(p, s, 20 * 1000), 1);
	pattern_free(p);
	/* 200 kB overflows that too: the interpreter answers, both ways. */
	p = must_compile("^(?:a|(b))+$");
	assert_int_equal(pattern_match(p, s, n), 1);
	s[n - 1] = '!';
	assert_int_equal(pattern_match(p, s, n), 0);
	pattern_free(p);
	free(s);
}

/* Lines that exercise every member below in some combination. */
static const char *const lines[] = {
	"",
	"plain line with nothing",
	"step 12/100 loss=2.31",
	"STEP 12/100 LOSS=NAN",
	"Traceback (most recent call last):",
	"KeyError: 'lr'",
	"abab",
	"xyzzy xyzzy",
	"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
	"a\tb\x01\xff\xfe",
	"loss: nan",
	"Killed",
	"  Killed",
	"foo=bar;baz",
	"(a+)",
	"aa",
};

static void
check_set_equals_members(const char *const *res, size_t n, int expect_err_none)
{
	struct pattern **each;
	struct patset *set = NULL;
	unsigned char *hits;
	char err[256];
	size_t i, j;
	int r, count;

	assert_int_equal(patset_compile(res, n, &set, err, sizeof(err)), 0);
	assert_int_equal(patset_count(set), n);
	each = calloc(n, sizeof(*each));
	hits = calloc(n, 1);
	for (i = 0; i < n; i++)
		each[i] = must_compile(res[i]);
	for (j = 0; j < sizeof(lines) / sizeof(lines[0]); j++) {
		memset(hits, 0xaa, n);
		r = patset_match(set, lines[j], strlen(lines[j]), hits, 0);
		if (expect_err_none)
			assert_true(r >= 0);
		count = 0;
		for (i = 0; i < n; i++) {
			int want = match_str(each[i], lines[j]);

			if (want != hits[i])
				fail_msg("line \"%s\" member %zu \"%s\": set %d, alone %d",
				    lines[j], i, res[i], hits[i], want);
			count += want;
		}
		assert_int_equal(r, count);
	}
	for (i = 0; i < n; i++)
		pattern_free(each[i]);
	free(each);
	free(hits);
	patset_free(set);
}

static void
test_patset_equals_members(void **state)
{
	static const char *const res[] = {
		"step \\d+/\\d+",
		"(?i)loss\\s*[=:]\\s*nan",
		"^Traceback \\(most recent call last\\):",
		"\\bKeyError\\b",
		"CUDA out of memory",
		"^\\s*Killed\\s*$",
		"(a|b)+",		/* groups are fine when nothing refers to them */
		"xyzzy",
		"\\Q(a+)\\E",
		"\\t",
		"x*",			/* matches everything, even "" */
		"(?#comment)foo=(?<v>\\w+)",
	};

	(void)state;
	check_set_equals_members(res, sizeof(res) / sizeof(res[0]), 1);
}

static void
test_patset_fallback(void **state)
{
	/* A back reference: \1 would name another member's group inside the alternation. */
	static const char *const backref[] = {
		"(x)yz",
		"(a|b)\\1",
		"(?i)killed",
		"(?<w>xyzzy) \\k<w>",
		"step",
	};
	/* Duplicate names: the alternation itself does not compile. */
	static const char *const dupnames[] = {
		"(?<n>step)",
		"(?<n>loss)",
		"Killed",
	};
	/* Verbs and recursion change meaning next to other branches. */
	static const char *const verbs[] = {
		"a(*COMMIT)x",
		"ab",
		"(a)(?1)",
		"\\((?:[^()]|(?R))*\\)",
		"(?x) fo o # comment",
		"foo",
	};
	unsigned char hits[5];
	struct patset *set = NULL;
	char err[256];

	(void)state;
	check_set_equals_members(backref, 5, 1);
	check_set_equals_members(dupnames, 3, 1);
	check_set_equals_members(verbs, 6, 1);

	/* The case that would go wrong when joined: "abab" has (a|b)\1 nowhere. */
	assert_int_equal(patset_compile(backref, 5, &set, err, sizeof(err)), 0);
	assert_int_equal(patset_match(set, "abab", 4, hits, 0), 0);
	assert_int_equal(patset_match(set, "aa", 2, hits, 0), 1);
	assert_int_equal(hits[1], 1);
	patset_free(set);
}

static void
test_patset_accumulate_and_errors(void **state)
{
	static const char *const res[] = { "alpha", "beta", "gamma" };
	static const char *const bad[] = { "ok", "bro(ken" };
	unsigned char hits[3];
	struct patset *set = NULL;
	char err[256];

	(void)state;
	assert_int_equal(patset_compile(res, 3, &set, err, sizeof(err)), 0);
	memset(hits, 0, sizeof(hits));
	assert_int_equal(patset_match(set, "alpha", 5, hits, 1), 1);
	assert_int_equal(patset_match(set, "gamma", 5, hits, 1), 1);
	assert_int_equal(hits[0], 1);
	assert_int_equal(hits[1], 0);
	assert_int_equal(hits[2], 1);
	assert_int_equal(patset_match(set, "beta", 4, hits, 0), 1);
	assert_int_equal(hits[0], 0);
	assert_int_equal(hits[1], 1);
	assert_int_equal(hits[2], 0);
	patset_free(set);

	set = (struct patset *)1;
	assert_int_equal(patset_compile(bad, 2, &set, err, sizeof(err)), WK_ERR_REGEX);
	assert_null(set);
	assert_non_null(strstr(err, "pattern 1"));
	assert_non_null(strstr(err, "offset"));

	/* A member that hits its match limit: the others still report, the result is an error. */
	{
		static const char *const slow[] = { "(a+)+$", "aaaa" };
		unsigned char h[2];
		char s[64];

		memset(s, 'a', 40);
		strcpy(s + 40, "!");
		assert_int_equal(patset_compile(slow, 2, &set, err, sizeof(err)), 0);
		assert_int_equal(patset_match(set, s, strlen(s), h, 0), WK_ERR_REGEX);
		assert_int_equal(h[0], 0);
		assert_int_equal(h[1], 1);
		patset_free(set);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python_syntax),
		cmocka_unit_test(test_invalid_regex),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_binary_input),
		cmocka_unit_test(test_match_limit),
		cmocka_unit_test(test_jit_stack_overflow),
		cmocka_unit_test(test_patset_equals_members),
		cmocka_unit_test(test_patset_fallback),
		cmocka_unit_test(test_patset_accumulate_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
