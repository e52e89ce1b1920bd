/*
 * test_warm.c: the parts of warm looks that need no box (ssh/warm.h): the
 * holder's name for a target (what changes it and what does not), the
 * wire's bounds on what a look and a holder may say, a reply taken back
 * into a result or an error as it was, the owner's private directory, and
 * ssh_script_command (a script on the command line as one safe word, run by
 * a real sh and bash as login shells).
 * Looks against a real sshd: tests/e2e/test_warm.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ssh.h"
#include "warm-int.h"
#include "xmalloc.h"

static char *ids_a[] = { "/k/id_a", "/k/id_b" };
static char *ids_b[] = { "/k/id_", "ab" };
static char *kh[] = { "/k/known_hosts" };

static struct ssh_target
target(void)
{
	struct ssh_target t;

	memset(&t, 0, sizeof(t));
	t.host = "gpu1.example";
	t.port = 22;
	t.user = "root";
	t.alias = "gpu1";
	t.identities = ids_a;
	t.nidentities = 2;
	t.known_hosts = kh;
	t.nknown_hosts = 1;
	t.connect_timeout_s = 10;
	return t;
}

static void
test_key_same_and_different(void **state)
{
	struct ssh_target t = target(), u;
	char a[17], b[17];
	size_t i;

	(void)state;
	warm_key(&t, a);
	assert_int_equal(strlen(a), 16);
	for (i = 0; i < 16; i++)
		assert_non_null(strchr("0123456789abcdef", a[i]));
	/* What only names it for messages, or says how it was chosen, is not the connection. */
	u = t;
	u.alias = "another-alias";
	u.transport_why = "why";
	u.warm = 1;
	warm_key(&u, b);
	assert_string_equal(a, b);
	/* Where, as whom, with which keys and known_hosts: each its own holder. */
	u = t;
	u.port = 2222;
	warm_key(&u, b);
	assert_string_not_equal(a, b);
	u = t;
	u.user = "ubuntu";
	warm_key(&u, b);
	assert_string_not_equal(a, b);
	u = t;
	u.host = "gpu2.example";
	warm_key(&u, b);
	assert_string_not_equal(a, b);
	u = t;
	u.nknown_hosts = 0;
	warm_key(&u, b);
	assert_string_not_equal(a, b);
	u = t;
	u.nidentities = 1;
	warm_key(&u, b);
	assert_string_not_equal(a, b);
	/* "/k/id_a" + "/k/id_b" is not "/k/id_" + "ab..." run together. */
	u = t;
	u.identities = ids_b;
	warm_key(&u, b);
	assert_string_not_equal(a, b);
	u = t;
	u.user = NULL;
	warm_key(&u, b);
	assert_string_not_equal(a, b);
}

static void
test_req_bounds(void **state)
{
	struct warm_req q, bad;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.magic = WARM_MAGIC;
	q.deadline_ms = 1000;
	q.cap = 1024;
	q.cmdlen = 5;
	q.inlen = 0;
	assert_int_equal(warm_req_check(&q), 0);
	bad = q;
	bad.magic ^= 1;
	assert_int_equal(warm_req_check(&bad), -1);
	bad = q;
	bad.deadline_ms = 0;
	assert_int_equal(warm_req_check(&bad), -1);
	bad = q;
	bad.cmdlen = 0;
	assert_int_equal(warm_req_check(&bad), -1);
	bad = q;
	bad.cmdlen = WARM_CMD_MAX;
	assert_int_equal(warm_req_check(&bad), 0);
	bad.cmdlen = WARM_CMD_MAX + 1;
	assert_int_equal(warm_req_check(&bad), -1);
	bad = q;
	bad.inlen = WARM_IN_MAX;
	assert_int_equal(warm_req_check(&bad), 0);
	bad.inlen = (uint64_t)WARM_IN_MAX + 1;
	assert_int_equal(warm_req_check(&bad), -1);
	bad = q;
	bad.cap = WARM_CAP_MAX + 1;
	assert_int_equal(warm_req_check(&bad), -1);
	bad.cap = UINT64_MAX;
	assert_int_equal(warm_req_check(&bad), -1);
}

static void
test_rep_round_trip_ok(void **state)
{
	struct ssh_result r, back;
	struct ssh_error err;
	struct warm_rep p;
	char body[] = "out\0put" "err";

	(void)state;
	memset(&r, 0, sizeof(r));
	r.exit_status = 3;
	r.out = body;
	r.out_len = 7;
	r.err = body + 7;
	r.err_len = 3;
	r.truncated = 1;
	r.exit_signal = "KILL";
	ssh_error_clear(&err);
	warm_rep_fill(&p, 0, &r, &err, 1);
	assert_int_equal(warm_rep_check(&p, 7), 0);
	assert_int_equal(warm_rep_check(&p, 6), -1);	/* more stdout than the look allowed */
	assert_int_equal(p.fresh, 1);
	assert_int_equal(warm_rep_take(&p, body, &back, &err), 0);
	assert_int_equal(back.exit_status, 3);
	assert_int_equal(back.out_len, 7);
	assert_memory_equal(back.out, "out\0put", 7);
	assert_int_equal(back.out[7], '\0');
	assert_string_equal(back.err, "err");
	assert_int_equal(back.truncated, 1);
	assert_string_equal(back.exit_signal, "KILL");
	ssh_result_free(&back);
}

static void
test_rep_round_trip_fail(void **state)
{
	struct ssh_result back;
	struct ssh_error err, got;
	struct warm_rep p, bad;

	(void)state;
	ssh_error_set(&err, SSH_FAIL_HOSTKEY_MISMATCH, "box: the host key changed");
	snprintf(err.fingerprint, sizeof(err.fingerprint), "SHA256:abc");
	err.unsent = 1;
	warm_rep_fill(&p, -1, NULL, &err, 0);
	assert_int_equal(warm_rep_check(&p, 0), 0);
	ssh_error_clear(&got);
	assert_int_equal(warm_rep_take(&p, "", &back, &got), -1);
	assert_int_equal(got.kind, SSH_FAIL_HOSTKEY_MISMATCH);
	assert_string_equal(got.msg, "box: the host key changed");
	assert_string_equal(got.fingerprint, "SHA256:abc");
	assert_int_equal(got.unsent, 1);
	assert_null(back.out);
	assert_int_equal(back.exit_status, -1);
	/* What a holder of another build, or a broken one, could say: refused. */
	bad = p;
	bad.magic = 0;
	assert_int_equal(warm_rep_check(&bad, 0), -1);
	bad = p;
	bad.ok = 2;
	assert_int_equal(warm_rep_check(&bad, 0), -1);
	bad = p;
	bad.outlen = 1;
	assert_int_equal(warm_rep_check(&bad, 10), -1);
	bad = p;
	bad.kind = SSH_OK;
	assert_int_equal(warm_rep_check(&bad, 0), -1);
	bad.kind = SSH_FAIL_UNSUPPORTED + 1;
	assert_int_equal(warm_rep_check(&bad, 0), -1);
	bad = p;
	memset(bad.msg, 'x', sizeof(bad.msg));
	assert_int_equal(warm_rep_check(&bad, 0), -1);
	bad = p;
	bad.ok = 1;
	bad.errlen = (uint64_t)32 * 1024 * 1024;
	assert_int_equal(warm_rep_check(&bad, 0), -1);
}

/* Run cmd as the box's login shell would: shell -c cmd; its stdout. */
static char *
run_sh(const char *shell, const char *cmd)
{
	char *argv[] = { (char *)shell, "-c", (char *)cmd, NULL }, *out = NULL;
	int status;

	assert_int_equal(spawn_capture(argv, 1 << 20, 0, &status, &out), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	return out;
}

static void
test_script_command_round_trip(void **state)
{
	static const char *const scripts[] = {
		"printf '%s\\n' \"it's\" '$(id)' '`x`' 'a|b;c&&d' \"$HOME_NOT_SET\"\necho done",
		"x='quo'\"'\"'te'; echo \"$x\"\n# a comment with ' and \"\necho end",
		"i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done",
	};
	static const char *const want[] = {
		"it's\n$(id)\n`x`\na|b;c&&d\n\ndone\n",
		"quo'te\nend\n",
		"0\n1\n2\n",
	};
	static const char *const shells[] = { "/bin/sh", "/bin/bash" };
	const char *body;
	char *cmd, *out;
	size_t i, j, n;

	(void)state;
	for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		cmd = ssh_script_command(scripts[i]);
		assert_non_null(cmd);
		/* One quoted word any login shell reads alike: no newline, '!', '$', quote, backquote in it. */
		n = strlen(cmd);
		assert_true(n > 14);
		assert_int_equal(strncmp(cmd, "printf '", 8), 0);
		assert_string_equal(cmd + n - 6, "' | sh");
		for (body = cmd + 8; body < cmd + n - 6; body++)
			assert_non_null(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789 _.,:/=+@\\", *body));
		for (j = 0; j < sizeof(shells) / sizeof(shells[0]); j++) {
			if (access(shells[j], X_OK) != 0)
				continue;
			out = run_sh(shells[j], cmd);
			assert_string_equal(out, want[i]);
			free(out);
		}
		free(cmd);
	}
}

static void
test_script_command_bound(void **state)
{
	char *script, *cmd;
	size_t n = SSH_SCRIPT_CMD_MAX - strlen("printf '' | sh");

	(void)state;
	script = xmalloc(n + 2);
	memset(script, ':', n + 1);
	script[n] = '\0';
	cmd = ssh_script_command(script);
	assert_non_null(cmd);
	assert_int_equal(strlen(cmd), SSH_SCRIPT_CMD_MAX);
	free(cmd);
	script[n] = ':';
	script[n + 1] = '\0';
	assert_null(ssh_script_command(script));
	/* Every other byte is four (\\ooo): a script of quotes is refused sooner. */
	memset(script, '\'', n / 4 + 1);
	script[n / 4 + 1] = '\0';
	assert_null(ssh_script_command(script));
	free(script);
}

static void
test_owner_dir(void **state)
{
	struct ssh_target t = target();
	struct ssh_result res;
	struct ssh_error err;
	struct stat st;
	char dir[128];

	(void)state;
	assert_int_equal(warm_active(), 0);
	assert_string_equal(warm_dir(), "");
	/* Not warm: the caller connects itself. */
	assert_int_equal(warm_exec(&t, "true", NULL, 0, 10, 1000, -1, &res, &err), WARM_NONE);
	setenv("TMPDIR", "/tmp", 1);
	assert_int_equal(warm_init(0), 0);
	assert_int_equal(warm_active(), 1);
	assert_int_equal(warm_init(0), 0);	/* again: the same */
	snprintf(dir, sizeof(dir), "%s", warm_dir());
	assert_int_equal(strncmp(dir, "/tmp/wk-warm.", 13), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	/* No command: nothing warm to do (either transport is held otherwise: test_warm.sh). */
	assert_int_equal(warm_exec(&t, "", NULL, 0, 10, 1000, -1, &res, &err), WARM_NONE);
	t.openssh = 1;
	assert_int_equal(warm_exec(&t, "", NULL, 0, 10, 1000, -1, &res, &err), WARM_NONE);
	warm_shutdown();
	assert_int_equal(warm_active(), 0);
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(errno, ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_same_and_different),
		cmocka_unit_test(test_req_bounds),
		cmocka_unit_test(test_rep_round_trip_ok),
		cmocka_unit_test(test_rep_round_trip_fail),
		cmocka_unit_test(test_script_command_round_trip),
		cmocka_unit_test(test_script_command_bound),
		cmocka_unit_test(test_owner_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
