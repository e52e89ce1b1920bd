/*
 * test_sshq.c: every hostile string survives a round trip through a real
 * `sh -c` as one inert word, and nothing it contains is ever executed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "spawn.h"
#include "sshq.h"
#include "xmalloc.h"

static const char *const hostile[] = {
	"", "'", "''", "'''", "a b", "  leading and trailing  ", "$(touch PWNED)",
	"`touch PWNED`", ";touch PWNED", "a|b|c", "x && touch PWNED", "x || touch PWNED",
	"line1\nline2", "\n", "$HOME", "${HOME}", "\\", "\\'", "!", "!!", "*", "?", "[a-z]*",
	"~", "~root", "-n", "--", "%s%n", "a'b\"c", "\"", "'$(touch PWNED)'",
	"it's a \"test\"", "\t\ttabs", "#comment", "> PWNED", "< /etc/passwd", "2>&1",
	"a\\nb", "{a,b}", "$((1+1))", "$'\\x41'", "é ü 中文", "\r\n", "&", "&&", "(x)",
};

static char *
roundtrip(const char *s)
{
	struct buf cmd = BUF_INIT;
	char *out = NULL;
	int status = -1;

	buf_puts(&cmd, "printf '%s' ");
	sshq_append(&cmd, s);
	{
		char *argv[] = { "sh", "-c", cmd.data, NULL };

		assert_int_equal(spawn_capture(argv, 1 << 20, 1, &status, &out), 0);
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	buf_free(&cmd);
	return out;
}

static void
test_roundtrip_hostile(void **state)
{
	char dir[] = "/tmp/wk-sshq-XXXXXX", old[4096];
	size_t i;

	(void)state;
	assert_non_null(getcwd(old, sizeof(old)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		char *out = roundtrip(hostile[i]);

		assert_string_equal(out, hostile[i]);
		free(out);
	}
	/* Nothing was executed. */
	assert_int_equal(access("PWNED", F_OK), -1);
	assert_int_equal(chdir(old), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void
test_roundtrip_all_bytes(void **state)
{
	char s[256], *out;
	int i;

	(void)state;
	for (i = 1; i < 256; i++)
		s[i - 1] = (char)i;
	s[255] = '\0';
	out = roundtrip(s);
	assert_int_equal(strlen(out), 255);
	assert_memory_equal(out, s, 255);
	free(out);
}

static void
test_exact_forms(void **state)
{
	char *q;

	(void)state;
	q = sshq_quote("");
	assert_string_equal(q, "''");
	free(q);
	q = sshq_quote("abc");
	assert_string_equal(q, "'abc'");
	free(q);
	q = sshq_quote("it's");
	assert_string_equal(q, "'it'\\''s'");
	free(q);
	q = sshq_quote("a|b");
	assert_string_equal(q, "'a|b'");
	free(q);
}

static void
test_argv_words(void **state)
{
	const char *argv[] = { "a b", "c'd", "$(x)", NULL };
	struct buf b = BUF_INIT, cmd = BUF_INIT;
	char *out = NULL;
	int status;

	(void)state;
	sshq_append_argv(&b, argv);
	assert_string_equal(b.data, "'a b' 'c'\\''d' '$(x)'");
	/* Three words reach the shell. */
	buf_puts(&cmd, "printf '<%s>' ");
	buf_puts(&cmd, b.data);
	{
		char *sh[] = { "sh", "-c", cmd.data, NULL };

		assert_int_equal(spawn_capture(sh, 4096, 1, &status, &out), 0);
	}
	assert_string_equal(out, "<a b><c'd><$(x)>");
	free(out);
	buf_free(&b);
	buf_free(&cmd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_hostile),
		cmocka_unit_test(test_roundtrip_all_bytes),
		cmocka_unit_test(test_exact_forms),
		cmocka_unit_test(test_argv_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
