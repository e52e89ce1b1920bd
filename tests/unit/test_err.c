/*
 * test_err.c: wk_strerror() has a text for every WK_ERR_* code, each distinct,
 * WK_ERR_SYSTEM reads as strerror(errno), and an unknown code is said so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <errno.h>
#include <string.h>

#include "err.h"

/* Every code but WK_ERR_SYSTEM (whose text is errno's), in enum order. */
static const int codes[] = {
	WK_OK, WK_ERR_INVALID, WK_ERR_PARSE, WK_ERR_NOTFOUND, WK_ERR_BUSY,
	WK_ERR_TIMEOUT, WK_ERR_TOOLONG, WK_ERR_EXEC, WK_ERR_REGEX, WK_ERR_STALE, WK_ERR_REMOTE,
	WK_ERR_SSH_RESOLVE, WK_ERR_SSH_CONNECT, WK_ERR_SSH_HANDSHAKE, WK_ERR_SSH_HOSTKEY_UNKNOWN,
	WK_ERR_SSH_HOSTKEY_MISMATCH, WK_ERR_SSH_AUTH, WK_ERR_SSH_IO, WK_ERR_SSH_UNSUPPORTED,
};

static void
test_every_code(void **state)
{
	size_t i, j;

	(void)state;
	assert_string_equal(wk_strerror(WK_OK), "success");
	assert_string_equal(wk_strerror(WK_ERR_INVALID), "invalid argument or input");
	assert_string_equal(wk_strerror(WK_ERR_PARSE), "parse error");
	assert_string_equal(wk_strerror(WK_ERR_NOTFOUND), "not found");
	assert_string_equal(wk_strerror(WK_ERR_BUSY), "held by another process");
	assert_string_equal(wk_strerror(WK_ERR_TIMEOUT), "timed out");
	assert_string_equal(wk_strerror(WK_ERR_TOOLONG), "too long");
	assert_string_equal(wk_strerror(WK_ERR_EXEC), "could not start program");
	assert_string_equal(wk_strerror(WK_ERR_REGEX), "regular expression error");
	assert_string_equal(wk_strerror(WK_ERR_STALE), "stale record");
	assert_string_equal(wk_strerror(WK_ERR_REMOTE), "failed on the box");
	assert_string_equal(wk_strerror(WK_ERR_SSH_RESOLVE), "ssh: the host name does not resolve");
	assert_string_equal(wk_strerror(WK_ERR_SSH_CONNECT), "ssh: no connection");
	assert_string_equal(wk_strerror(WK_ERR_SSH_HANDSHAKE), "ssh: the handshake failed");
	assert_string_equal(wk_strerror(WK_ERR_SSH_HOSTKEY_UNKNOWN), "ssh: the host key is not known");
	assert_string_equal(wk_strerror(WK_ERR_SSH_HOSTKEY_MISMATCH),
	    "ssh: the host key does not match");
	assert_string_equal(wk_strerror(WK_ERR_SSH_AUTH), "ssh: no identity was accepted");
	assert_string_equal(wk_strerror(WK_ERR_SSH_IO), "ssh: the connection broke");
	assert_string_equal(wk_strerror(WK_ERR_SSH_UNSUPPORTED), "ssh: not possible with this transport");
	/* and no two codes read the same */
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		for (j = 0; j < i; j++)
			assert_string_not_equal(wk_strerror(codes[i]), wk_strerror(codes[j]));
}

static void
test_codes_are_negative_and_distinct(void **state)
{
	size_t i, j;

	(void)state;
	assert_int_equal(WK_OK, 0);
	assert_int_equal(WK_ERR_SYSTEM, -1);
	for (i = 1; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_true(codes[i] < WK_ERR_SYSTEM);
		for (j = 0; j < i; j++)
			assert_int_not_equal(codes[i], codes[j]);
	}
}

static void
test_system_reads_errno(void **state)
{
	static const int errs[] = { ENOENT, EACCES, ENOSPC, EINTR, EEXIST };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		errno = errs[i];
		assert_string_equal(wk_strerror(WK_ERR_SYSTEM), strerror(errs[i]));
	}
	/* wk_strerror leaves errno as it found it. */
	errno = ENOENT;
	(void)wk_strerror(WK_ERR_SYSTEM);
	assert_int_equal(errno, ENOENT);
}

static void
test_unknown(void **state)
{
	(void)state;
	assert_string_equal(wk_strerror(-9999), "unknown error");
	assert_string_equal(wk_strerror(1), "unknown error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code),
		cmocka_unit_test(test_codes_are_negative_and_distinct),
		cmocka_unit_test(test_system_reads_errno),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
