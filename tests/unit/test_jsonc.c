/*
 * test_jsonc.c: comment stripping, syntax-error positions and the key-line
 * index of core/jsonc.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonc.h"

/* Strip a copy of s; returns it (caller frees) and the result code in *rc. */
static char *
strip(const char *s, int *rc, int *line)
{
	char *t = strdup(s);

	*rc = jsonc_strip(t, strlen(t), line);
	return t;
}

static void
test_strip_line_comment(void **state)
{
	int rc, line;
	char *t = strip("{\"a\": 1} // note\n", &rc, &line);

	(void)state;
	assert_int_equal(rc, 0);
	assert_string_equal(t, "{\"a\": 1}        \n");
	free(t);
}

static void
test_strip_block_comment_keeps_newlines(void **state)
{
	int rc, line;
	char *t = strip("{/* one\ntwo\nthree */\"a\": 1}", &rc, &line);

	(void)state;
	assert_int_equal(rc, 0);
	assert_string_equal(t, "{      \n   \n        \"a\": 1}");
	assert_int_equal(jsonc_line_at(t, (size_t)(strchr(t, 'a') - t)), 3);
	free(t);
}

static void
test_strip_inside_strings_kept(void **state)
{
	int rc, line;
	const char *src = "{\"u\": \"http://x/*y*/\", \"v\": \"a\\\"//b\", \"w\": \"\\\\\"// c\n}";
	char *t = strip(src, &rc, &line);

	(void)state;
	assert_int_equal(rc, 0);
	/* Strings keep their // and / *; the comment after the "\\" string goes. */
	assert_non_null(strstr(t, "\"http://x/*y*/\""));
	assert_non_null(strstr(t, "\"a\\\"//b\""));
	assert_non_null(strstr(t, "\"\\\\\"    \n}"));
	assert_int_equal(strlen(t), strlen(src));
	free(t);
}

static void
test_strip_crlf(void **state)
{
	int rc, line;
	char *t = strip("{\r\n// x\r\n\"a\": 1 /* y */\r\n}\r\n", &rc, &line);

	(void)state;
	assert_int_equal(rc, 0);
	assert_string_equal(t, "{\r\n    \r\n\"a\": 1        \r\n}\r\n");
	free(t);
}

static void
test_strip_unterminated_block(void **state)
{
	int rc, line;
	char *t = strip("{\n\"a\": 1,\n/* open\n\n", &rc, &line);

	(void)state;
	assert_int_equal(rc, WK_ERR_PARSE);
	assert_int_equal(line, 3);
	free(t);
}

static void
test_strip_slash_star_slash(void **state)
{
	int rc, line;
	/* "/ * /" does not close itself. */
	char *t = strip("/*/ 1 */2", &rc, &line);

	(void)state;
	assert_int_equal(rc, 0);
	assert_string_equal(t, "        2");
	free(t);
}

static void
test_strip_bom(void **state)
{
	int rc, line;
	char *t = strip("\xef\xbb\xbf{}", &rc, &line);

	(void)state;
	assert_int_equal(rc, 0);
	assert_string_equal(t, "   {}");
	free(t);
}

static void
test_line_at(void **state)
{
	const char *s = "a\nb\r\nc";

	(void)state;
	assert_int_equal(jsonc_line_at(s, 0), 1);
	assert_int_equal(jsonc_line_at(s, 2), 2);
	assert_int_equal(jsonc_line_at(s, 5), 3);
}

/* Parse s (a literal) and return the diagnostics, rc in *rc. */
static int
parse(const char *s, cJSON **root, struct jsonc_index *idx, struct diag *d)
{
	return jsonc_parse("t.json", s, strlen(s), root, idx, d);
}

static void
test_index_paths_and_lines(void **state)
{
	const char *s =
	    "{\n"						/* 1 */
	    "  // the box\n"					/* 2 */
	    "  \"box\": { \"host\": \"h\",\n"			/* 3 */
	    "    \"port\": 22 },\n"				/* 4 */
	    "  \"chain\": [\n"					/* 5 */
	    "    { \"stage\": \"a\", \"run\": \"x // y\" },\n"	/* 6 */
	    "    /* second */ {\n"				/* 7 */
	    "      \"stage\": \"b\",\n"				/* 8 */
	    "      \"done_when\": \"[}]\\\"{\"\n"		/* 9 */
	    "    }\n"						/* 10 */
	    "  ],\n"						/* 11 */
	    "  \"n\": [1, 2.5e3, true, null, [ {\"deep\": 1} ]]\n"	/* 12 */
	    "}\n";
	struct jsonc_index idx;
	struct diag d = DIAG_INIT;
	cJSON *root;

	(void)state;
	assert_int_equal(parse(s, &root, &idx, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(jsonc_index_line(&idx, "box"), 3);
	assert_int_equal(jsonc_index_line(&idx, "box.host"), 3);
	assert_int_equal(jsonc_index_line(&idx, "box.port"), 4);
	assert_int_equal(jsonc_index_line(&idx, "chain"), 5);
	assert_int_equal(jsonc_index_line(&idx, "chain[0]"), 6);
	assert_int_equal(jsonc_index_line(&idx, "chain[0].run"), 6);
	assert_int_equal(jsonc_index_line(&idx, "chain[1]"), 7);
	assert_int_equal(jsonc_index_line(&idx, "chain[1].stage"), 8);
	assert_int_equal(jsonc_index_line(&idx, "chain[1].done_when"), 9);
	assert_int_equal(jsonc_index_line(&idx, "n[4][0].deep"), 12);
	assert_int_equal(jsonc_index_line(&idx, "chain[2]"), 0);
	assert_int_equal(jsonc_index_line(&idx, "nope"), 0);
	/* Values come from cJSON, comments are gone. */
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(root, "chain"), 0), "run")->valuestring, "x // y");
	cJSON_Delete(root);
	jsonc_index_free(&idx);
}

static void
test_index_escaped_keys(void **state)
{
	const char *s = "{\"a\\u0062\": {\"q\\\"t\": 1}, \"\\u00e9\": 2}";
	struct jsonc_index idx;
	struct diag d = DIAG_INIT;
	cJSON *root;

	(void)state;
	assert_int_equal(parse(s, &root, &idx, &d), 0);
	assert_int_equal(jsonc_index_line(&idx, "ab"), 1);
	assert_int_equal(jsonc_index_line(&idx, "ab.q\"t"), 1);
	assert_int_equal(jsonc_index_line(&idx, "\xc3\xa9"), 1);
	assert_non_null(cJSON_GetObjectItem(root, "ab"));
	cJSON_Delete(root);
	jsonc_index_free(&idx);
}

static void
test_duplicate_key(void **state)
{
	const char *s =
	    "{\n"
	    "  \"a\": 1,\n"
	    "  \"b\": { \"x\": 1, \"y\": 2 },\n"
	    "  \"c\": { \"x\": 1,\n"
	    "     \"x\": 2 },\n"
	    "  \"a\": 3\n"
	    "}\n";
	struct jsonc_index idx;
	struct diag d = DIAG_INIT;
	cJSON *root;

	(void)state;
	assert_int_equal(parse(s, &root, &idx, &d), WK_ERR_PARSE);
	assert_null(root);
	assert_int_equal(d.n, 2);
	/* Sorted by key within each object: c.x (inner object) is found first. */
	assert_string_equal(d.msgs[0], "t.json:5: duplicate key \"c.x\" (first at line 4)");
	assert_string_equal(d.msgs[1], "t.json:6: duplicate key \"a\" (first at line 2)");
	diag_free(&d);
}

/* Not text: a NUL (it would cut a string short) or bytes that are not UTF-8. */
static void
test_not_text(void **state)
{
	static const struct {
		const char *text;
		size_t len;		/* 0: strlen */
		const char *msg;
	} cases[] = {
		{ "{\n \"run\": \"echo b\0; touch x\"\n}\n", 28,
		  "t.json:2: a NUL byte (byte 18): a config is text" },
		{ "{\n\n \"a\": \"\xff\"\n}\n", 0, "t.json:3: byte 11 is not UTF-8: a config is UTF-8 text" },
		{ "{ \"a\": \"\xc0\xaf\" }", 0, "t.json:1: byte 9 is not UTF-8: a config is UTF-8 text" },
		{ "{ \"a\": \"\xed\xa0\x80\" }", 0, "t.json:1: byte 9 is not UTF-8: a config is UTF-8 text" },
		{ "{ \"a\": \"\xf4\x90\x80\x80\" }", 0, "t.json:1: byte 9 is not UTF-8: a config is UTF-8 text" },
		{ "{ \"a\": \"\xe2\x82\" }", 0, "t.json:1: byte 9 is not UTF-8: a config is UTF-8 text" },
		{ "{ \"a\": 1 } \xe2", 0, "t.json:1: byte 12 is not UTF-8: a config is UTF-8 text" },
	};
	struct jsonc_index idx;
	struct diag d = DIAG_INIT;
	cJSON *root;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(jsonc_parse("t.json", cases[i].text, cases[i].len > 0 ? cases[i].len :
		    strlen(cases[i].text), &root, &idx, &d),
		    WK_ERR_PARSE);
		assert_null(root);
		assert_int_equal(d.n, 1);
		assert_string_equal(d.msgs[0], cases[i].msg);
		diag_free(&d);
	}
	/* Well-formed UTF-8 of every length is text. */
	assert_int_equal(parse("{ \"a\": \"caf\xc3\xa9 \xe8\xae\xad\xe7\xbb\x83 \xf0\x9f\x9a\x80\" }", &root,
	    &idx, &d), 0);
	assert_string_equal(cJSON_GetObjectItem(root, "a")->valuestring,
	    "caf\xc3\xa9 \xe8\xae\xad\xe7\xbb\x83 \xf0\x9f\x9a\x80");
	cJSON_Delete(root);
	jsonc_index_free(&idx);
	assert_int_equal(d.n, 0);
}

static void
test_syntax_errors(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "{\n \"a\": 1\n \"b\": 2\n}\n", "t.json:3: syntax error near '\"b\": 2'" },
		{ "{\n \"a\": [1, 2}\n}\n", "t.json:2: syntax error near '}'" },
		{ "{\n \"a\": 1,\n}\n", "t.json:3: syntax error near '}'" },
		{ "{\n \"a\": 1\n", "t.json:3: syntax error near end of file" },
		{ "", "t.json:1: syntax error near end of file" },
		{ "{ // c\n \"a\": \"x // y /* z\", /* b\n more */ \"b\": tru\n}",
		  "t.json:3: syntax error near 'tru'" },
		{ "{\n\"a\": 1}\n/* open\n", "t.json:3: unterminated /* comment" },
		{ "{} {}", "t.json:1: syntax error near '{}'" },
	};
	struct jsonc_index idx;
	struct diag d = DIAG_INIT;
	cJSON *root;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].text, &root, &idx, &d), WK_ERR_PARSE);
		assert_null(root);
		assert_int_equal(idx.n, 0);
		assert_int_equal(d.n, 1);
		assert_string_equal(d.msgs[0], cases[i].msg);
		diag_free(&d);
	}
}

static void
test_deep_nesting(void **state)
{
	size_t n = 5000, i;
	char *s = malloc(2 * n + 1);
	struct jsonc_index idx;
	struct diag d = DIAG_INIT;
	cJSON *root;

	(void)state;
	for (i = 0; i < n; i++) {
		s[i] = '[';
		s[n + i] = ']';
	}
	s[2 * n] = '\0';
	assert_int_equal(parse(s, &root, &idx, &d), WK_ERR_PARSE);
	assert_null(root);
	diag_free(&d);
	free(s);
}

static void
test_load_missing_file(void **state)
{
	struct jsonc_index idx;
	struct diag d = DIAG_INIT;
	cJSON *root;

	(void)state;
	assert_int_equal(jsonc_load("/nonexistent/x.json", &root, &idx, &d), WK_ERR_SYSTEM);
	assert_int_equal(errno, ENOENT);
	assert_null(root);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0], "/nonexistent/x.json: cannot read: No such file or directory");
	diag_free(&d);
}

static void
test_paths(void **state)
{
	char *p;

	(void)state;
	p = jsonc_path_key("", "run");
	assert_string_equal(p, "run");
	free(p);
	p = jsonc_path_key("chain[1]", "done_when");
	assert_string_equal(p, "chain[1].done_when");
	free(p);
	p = jsonc_path_elem("chain", 12);
	assert_string_equal(p, "chain[12]");
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_line_comment),
		cmocka_unit_test(test_strip_block_comment_keeps_newlines),
		cmocka_unit_test(test_strip_inside_strings_kept),
		cmocka_unit_test(test_strip_crlf),
		cmocka_unit_test(test_strip_unterminated_block),
		cmocka_unit_test(test_strip_slash_star_slash),
		cmocka_unit_test(test_strip_bom),
		cmocka_unit_test(test_line_at),
		cmocka_unit_test(test_index_paths_and_lines),
		cmocka_unit_test(test_index_escaped_keys),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_not_text),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
