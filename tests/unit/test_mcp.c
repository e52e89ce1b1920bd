/*
 * test_mcp.c: `patrol mcp`'s protocol without I/O (patrol/mcp-proto.c):
 * the JSON-RPC checks and their codes, version negotiation, tools/list,
 * tools/call and cancel as actions, the result line in both versions, the
 * UTF-8 check; the real tool table (every row's schemas parse, names are
 * unique); and mcp-run.c's argument helpers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "mcp.h"
#include "xmalloc.h"

static struct mcp_session
session(void)
{
	struct mcp_session s;

	memset(&s, 0, sizeof(s));
	s.tools = mcp_tools;
	s.ntools = mcp_ntools;
	return s;
}

/* Handle line; the action, and the reply parsed (or NULL). */
static enum mcp_act
handle(struct mcp_session *s, const char *line, cJSON **reply, struct mcp_call *call)
{
	enum mcp_act a;
	char *r;

	a = mcp_handle(s, line, strlen(line), &r, call);
	*reply = NULL;
	if (r != NULL) {
		assert_null(strchr(r, '\n'));
		*reply = cJSON_Parse(r);
		assert_non_null(*reply);
		free(r);
	}
	return a;
}

static int
error_code(const cJSON *reply)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");

	assert_non_null(e);
	return cJSON_GetObjectItemCaseSensitive(e, "code")->valueint;
}

/* line must be answered with code and the id idjson ("null", "1", "\"a\""). */
static void
expect_error(struct mcp_session *s, const char *line, int code, const char *idjson)
{
	struct mcp_call call;
	cJSON *r;
	char *id;

	assert_int_equal(handle(s, line, &r, &call), MCP_ACT_REPLY);
	assert_int_equal(error_code(r), code);
	id = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(r, "id"));
	assert_string_equal(id, idjson);
	cJSON_free(id);
	cJSON_Delete(r);
	mcp_call_free(&call);
}

static void
test_errors(void **state)
{
	struct mcp_session s = session();
	struct mcp_call call;
	char *line;
	cJSON *r;

	(void)state;
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", MCP_EINVALID,
	    "1");
	expect_error(&s, "{oops", MCP_EPARSE, "null");
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x", MCP_EPARSE, "null");
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xc0\xafng\"}", MCP_EPARSE,
	    "null");
	expect_error(&s, "[]", MCP_EINVALID, "null");
	expect_error(&s, "\"ping\"", MCP_EINVALID, "null");
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", MCP_EINVALID,
	    "null");
	expect_error(&s, "{\"id\":\"q\",\"method\":\"ping\"}", MCP_EINVALID, "\"q\"");
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":2}", MCP_EINVALID, "2");
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"}", MCP_EMETHOD, "3");
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":1}",
	    MCP_EPARAMS, "3");
	/* a NUL inside the length is a parse error too */
	assert_int_equal(mcp_handle(&s, "{\"a\":\0}", 7, &line, &call), MCP_ACT_REPLY);
	assert_non_null(strstr(line, "-32700"));
	free(line);
	/* notifications and responses: never answered */
	assert_int_equal(handle(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}", &r, &call),
	    MCP_ACT_NONE);
	assert_null(r);
	assert_int_equal(handle(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\"}", &r, &call),
	    MCP_ACT_NONE);
	assert_null(r);
	assert_int_equal(handle(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", &r, &call),
	    MCP_ACT_NONE);
	assert_null(r);
}

static void
test_initialize(void **state)
{
	static const struct {
		const char	*asked;
		const char	*answered;
		int		 old;
	} v[] = {
		{ "\"2025-06-18\"", "2025-06-18", 0 },
		{ "\"2025-03-26\"", "2025-03-26", 1 },
		{ "\"2024-11-05\"", "2025-06-18", 0 },
		{ "7", "2025-06-18", 0 },
	};
	struct mcp_session s;
	struct mcp_call call;
	cJSON *r, *res;
	char *line;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		s = session();
		line = xstrfmt("{\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\","
		    "\"params\":{\"protocolVersion\":%s}}", v[i].asked);
		assert_int_equal(handle(&s, line, &r, &call), MCP_ACT_REPLY);
		res = cJSON_GetObjectItemCaseSensitive(r, "result");
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res,
		    "protocolVersion")), v[i].answered);
		assert_int_equal(s.initialized, 1);
		assert_int_equal(s.old, v[i].old);
		assert_non_null(cJSON_GetObjectItemCaseSensitive(res, "instructions"));
		cJSON_Delete(r);
		free(line);
	}
}

static void
test_tools(void **state)
{
	struct mcp_session s = session();
	struct mcp_call call;
	cJSON *r, *tools, *t;

	(void)state;
	s.initialized = 1;
	assert_int_equal(handle(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", &r,
	    &call), MCP_ACT_REPLY);
	tools = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "result"),
	    "tools");
	assert_int_equal(cJSON_GetArraySize(tools), (int)mcp_ntools);
	cJSON_ArrayForEach(t, tools) {
		assert_non_null(cJSON_GetObjectItemCaseSensitive(t, "outputSchema"));
		assert_non_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t,
		    "annotations"), "readOnlyHint"));
	}
	cJSON_Delete(r);
	assert_int_equal(handle(&s, "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"runs\",\"_meta\":{\"progressToken\":\"p\"}}}", &r, &call),
	    MCP_ACT_CALL);
	assert_null(r);
	assert_string_equal(call.tool->name, "runs");
	assert_string_equal(call.id->valuestring, "c");
	assert_true(cJSON_IsObject(call.args));
	assert_string_equal(call.progress_token->valuestring, "p");
	mcp_call_free(&call);
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"nope\"}}", MCP_EPARAMS, "2");
	expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"runs\",\"arguments\":\"x\"}}", MCP_EPARAMS, "2");
	assert_int_equal(handle(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
	    "\"params\":{\"requestId\":12}}", &r, &call), MCP_ACT_CANCEL);
	assert_null(r);
	assert_int_equal(call.id->valueint, 12);
	mcp_call_free(&call);
}

/* Every row's schemas parse as objects, its names are unique, it has a call and a description. */
static void
test_rows(void **state)
{
	cJSON *in, *out, *t;
	size_t i, j;

	(void)state;
	assert_int_equal(mcp_ntools, 8);
	for (i = 0; i < mcp_ntools; i++) {
		in = cJSON_Parse(mcp_tools[i]->input_schema);
		out = cJSON_Parse(mcp_tools[i]->output_schema);
		if (!cJSON_IsObject(in) || !cJSON_IsObject(out))
			fail_msg("tool %s: a schema does not parse", mcp_tools[i]->name);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in,
		    "type")), "object");
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(out,
		    "type")), "object");
		assert_non_null(mcp_tools[i]->call);
		assert_true(strlen(mcp_tools[i]->description) > 0);
		t = mcp_tool_json(mcp_tools[i], 0);
		assert_non_null(t);
		cJSON_Delete(t);
		for (j = 0; j < i; j++)
			assert_string_not_equal(mcp_tools[i]->name, mcp_tools[j]->name);
		cJSON_Delete(in);
		cJSON_Delete(out);
	}
}

static void
test_result_line(void **state)
{
	struct mcp_session s = session();
	struct mcp_out out;
	cJSON *id = cJSON_CreateString("x"), *r, *res;
	char *line;

	(void)state;
	memset(&out, 0, sizeof(out));
	out.structured = cJSON_Parse("{\"a\":1}");
	out.text = xstrdup("short");
	line = mcp_result_line(&s, id, &out);
	assert_null(out.structured);
	r = cJSON_Parse(line);
	res = cJSON_GetObjectItemCaseSensitive(r, "result");
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res,
	    "structuredContent"), "a")->valueint, 1);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(res, "isError")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res, "content")), 1);
	cJSON_Delete(r);
	free(line);
	s.old = 1;
	out.structured = cJSON_Parse("{\"a\":1}");
	out.text = xstrdup("short");
	out.is_error = 1;
	line = mcp_result_line(&s, id, &out);
	r = cJSON_Parse(line);
	res = cJSON_GetObjectItemCaseSensitive(r, "result");
	assert_null(cJSON_GetObjectItemCaseSensitive(res, "structuredContent"));
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "content"),
	    1)->child->next->valuestring, "{\"a\":1}");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "isError")));
	cJSON_Delete(r);
	free(line);
	cJSON_Delete(id);
}

static void
test_args_check(void **state)
{
	static const struct mcp_tool row = {
		"t", "T", "d", "{\"type\":\"object\",\"properties\":{\"run\":{},\"n\":{}},"
		"\"required\":[\"run\"],\"additionalProperties\":false}", "{}", 0, NULL
	}, open_row = { "o", "O", "d", "{\"type\":\"object\"}", "{}", 0, NULL };
	static const struct {
		const struct mcp_tool *row;
		const char	*args;
		const char	*cause;		/* NULL: fine */
	} c[] = {
		{ &row, "{\"run\":\"a\"}", NULL },
		{ &row, "{\"run\":5,\"n\":1}", NULL },	/* types are the tool's */
		{ &row, "{\"n\":1}", "argument 'run': required" },
		{ &row, "{\"run\":\"a\",\"x\":1}", "argument 'x': unknown (t takes run, n)" },
		{ &open_row, "{\"x\":1}", NULL },
	};
	cJSON *a;
	char *cause;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		a = cJSON_Parse(c[i].args);
		cause = mcp_args_check(c[i].row, a);
		if (c[i].cause == NULL)
			assert_null(cause);
		else
			assert_string_equal(cause, c[i].cause);
		free(cause);
		cJSON_Delete(a);
	}
}

static void
test_utf8(void **state)
{
	(void)state;
	assert_true(mcp_utf8_ok("a\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", 10));
	assert_false(mcp_utf8_ok("\xc3", 1));
	assert_false(mcp_utf8_ok("\xed\xa0\x80", 3));		/* a surrogate */
	assert_false(mcp_utf8_ok("\xe0\x80\x80", 3));		/* overlong */
	assert_false(mcp_utf8_ok("\xf4\x90\x80\x80", 4));	/* past U+10FFFF */
	assert_false(mcp_utf8_ok("\xff", 1));
	assert_false(mcp_utf8_ok("a\0b", 3));
}

static void
test_args(void **state)
{
	cJSON *a = cJSON_Parse("{\"n\":5,\"f\":1.5,\"big\":1e300,\"s\":\"x\",\"b\":true,\"z\":null}");
	struct mcp_out out;
	const char *s;
	long v;
	int b;

	(void)state;
	memset(&out, 0, sizeof(out));
	assert_int_equal(mcp_arg_int(a, "n", 1, 600, 9, &v, &out), 0);
	assert_int_equal(v, 5);
	assert_int_equal(mcp_arg_int(a, "missing", 1, 600, 9, &v, &out), 0);
	assert_int_equal(v, 9);
	assert_int_equal(mcp_arg_int(a, "z", 1, 600, 9, &v, &out), 0);
	assert_int_equal(mcp_arg_int(a, "f", 1, 600, 9, &v, &out), -1);
	assert_string_equal(out.text, "argument 'f': must be an integer from 1 to 600");
	assert_int_equal(out.is_error, 1);
	assert_int_equal(mcp_arg_int(a, "big", 1, 600, 9, &v, &out), -1);
	assert_int_equal(mcp_arg_int(a, "s", 1, 600, 9, &v, &out), -1);
	assert_int_equal(mcp_arg_int(a, "n", 6, 600, 9, &v, &out), -1);
	assert_int_equal(mcp_arg_str(a, "s", &s, &out), 0);
	assert_string_equal(s, "x");
	assert_int_equal(mcp_arg_str(a, "n", &s, &out), -1);
	assert_string_equal(out.text, "argument 'n': must be a string");
	assert_int_equal(mcp_arg_bool(a, "b", 0, &b, &out), 0);
	assert_int_equal(b, 1);
	assert_int_equal(mcp_arg_bool(a, "missing", 0, &b, &out), 0);
	assert_int_equal(b, 0);
	assert_int_equal(mcp_arg_bool(a, "s", 0, &b, &out), -1);
	free(out.text);
	cJSON_Delete(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_initialize),
		cmocka_unit_test(test_tools),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_result_line),
		cmocka_unit_test(test_args_check),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
