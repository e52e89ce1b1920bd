/*
 * test_sshcli.c: what the openssh transport decides without a network: where
 * its control socket goes (sshcli_control_path: short enough for a unix
 * socket, private, unique), and what target_from_config hands it for
 * "transport": "openssh" (ProxyJump allowed, -F file, the box.* keys that
 * become ssh options).  The transport itself is tested against a real sshd
 * in tests/e2e/test_ssh.sh (openssh_*).
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
#include <sys/un.h>
#include <unistd.h>

#include "atomic.h"
#include "config.h"
#include "diag.h"
#include "fsutil.h"
#include "sshcli.h"
#include "target.h"
#include "xmalloc.h"

static char dir[64];
static char *old_xdg;

static int
setup(void **state)
{
	const char *x = getenv("XDG_STATE_HOME");

	(void)state;
	old_xdg = x != NULL ? xstrdup(x) : NULL;
	snprintf(dir, sizeof(dir), "/tmp/wk-sshcli-XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	int r = unit_rmrf(dir);

	(void)state;
	if (old_xdg != NULL)
		setenv("XDG_STATE_HOME", old_xdg, 1);
	else
		unsetenv("XDG_STATE_HOME");
	free(old_xdg);
	old_xdg = NULL;
	return r == 0 ? 0 : -1;
}

/* The longest control path ssh can bind: sun_path, its NUL, ".<16 random>". */
static size_t
sun_max(void)
{
	struct sockaddr_un sun;

	return sizeof(sun.sun_path) - 1 - 17;
}

static void
assert_private_tmp(const char *p)
{
	char *want = xstrfmt("/tmp/wk-%lu/cm-%ld-", (unsigned long)getuid(), (long)getpid());
	char *d = xstrfmt("/tmp/wk-%lu", (unsigned long)getuid());
	struct stat st;

	assert_non_null(p);
	assert_true(strncmp(p, want, strlen(want)) == 0);
	assert_true(strlen(p) <= sun_max());
	assert_int_equal(lstat(d, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 077, 0);
	assert_int_equal(st.st_uid, getuid());
	free(want);
	free(d);
}

static void
test_control_path_in_dir(void **state)
{
	char *p, *q, *want = xstrfmt("%s/cm-%ld-", dir, (long)getpid());

	(void)state;
	p = sshcli_control_path(dir);
	q = sshcli_control_path(dir);
	assert_non_null(p);
	assert_non_null(q);
	assert_true(strncmp(p, want, strlen(want)) == 0);
	assert_string_not_equal(p, q);	/* one per connection */
	free(p);
	free(q);
	free(want);
}

static void
test_control_path_too_long(void **state)
{
	char longdir[200], *p;

	(void)state;
	memset(longdir, 'd', sizeof(longdir));
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	p = sshcli_control_path(longdir);
	assert_private_tmp(p);
	free(p);
	p = sshcli_control_path(NULL);
	assert_private_tmp(p);
	free(p);
}

static void
test_control_path_boundary(void **state)
{
	char d[128], *p, num[32];
	unsigned long seq;
	size_t tail, n;

	(void)state;
	p = sshcli_control_path("/x");
	assert_non_null(p);
	/* The next call's "/cm-<pid>-<seq + 1>": as long as this one's, give or take a digit. */
	seq = strtoul(strrchr(p, '-') + 1, NULL, 10);
	tail = strlen(p) - 2 - (size_t)snprintf(num, sizeof(num), "%lu", seq) +
	    (size_t)snprintf(num, sizeof(num), "%lu", seq + 1);
	free(p);
	n = sun_max() - tail;
	memset(d, 'd', sizeof(d));
	d[0] = '/';
	d[n] = '\0';
	p = sshcli_control_path(d);
	assert_non_null(p);
	assert_true(strncmp(p, d, n) == 0);
	assert_true(strlen(p) <= sun_max());
	free(p);
	d[n] = 'd';
	d[n + 2] = '\0';
	p = sshcli_control_path(d);
	assert_private_tmp(p);
	free(p);
}

/* A config for run "r" with box (JSON members) and an ssh_config holding cfgtext. */
static struct wk_config *
load(const char *box, const char *cfgtext)
{
	struct wk_config *cfg = NULL;
	struct diag d = DIAG_INIT;
	char *p = fs_join(dir, "wk.json"), *c = fs_join(dir, "ssh_config"), *text;

	assert_int_equal(atomic_write_str(c, cfgtext), 0);
	text = xstrfmt("{ \"run\": \"r\", \"workdir\": \"/w\", \"box\": { \"ssh_config\": \"%s\", %s },\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"x\" } ] }\n", c, box);
	assert_int_equal(atomic_write_str(p, text), 0);
	if (config_load(p, &cfg, &d) != 0)
		diag_print(&d, stderr);
	assert_non_null(cfg);
	diag_free(&d);
	free(text);
	free(p);
	free(c);
	return cfg;
}

static const char jump_cfg[] =
    "Host gpu\n\tHostName 10.0.0.7\n\tUser ubuntu\n\tProxyJump bastion\n"
    "\tIdentityFile /k/id_ed25519\n";

static void
test_target_openssh(void **state)
{
	struct wk_config *cfg;
	struct ssh_target t;
	struct ssh_error err;
	struct diag d = DIAG_INIT;
	char *c = fs_join(dir, "ssh_config"), *sd = xstrfmt("%s/state/watchkeeper/r/cm-", dir);
	char *x = xstrfmt("%s/state", dir), *rd = xstrfmt("%s/state/watchkeeper/r", dir);

	(void)state;
	setenv("XDG_STATE_HOME", x, 1);
	cfg = load("\"host\": \"gpu\", \"transport\": \"openssh\", \"port\": 2222, "
	    "\"known_hosts\": \"/k/kh\"", jump_cfg);
	assert_int_equal(target_from_config(cfg, &t, &err, &d), 0);
	assert_true(t.openssh);
	assert_string_equal(t.ssh_config_file, c);
	assert_string_equal(t.alias, "gpu");
	assert_string_equal(t.host, "10.0.0.7");
	assert_int_equal(t.port, 2222);
	assert_int_equal(t.given, SSH_GIVEN_PORT | SSH_GIVEN_KNOWN_HOSTS);
	assert_non_null(t.control_path);
	assert_true(strncmp(t.control_path, sd, strlen(sd)) == 0);
	assert_true(fs_exists(rd));
	target_free(&t);
	config_free(cfg);

	/* box.user and box.identity become options too (the key alone: IdentitiesOnly). */
	cfg = load("\"host\": \"gpu\", \"transport\": \"openssh\", \"user\": \"root\", "
	    "\"identity\": \"/k/id_rsa\"", jump_cfg);
	assert_int_equal(target_from_config(cfg, &t, &err, &d), 0);
	assert_int_equal(t.given, SSH_GIVEN_USER | SSH_GIVEN_IDENTITY | SSH_GIVEN_IDENTITIES_ONLY);
	assert_int_equal(t.nidentities, 1);
	assert_string_equal(t.identities[0], "/k/id_rsa");
	target_free(&t);
	config_free(cfg);

	/* The same host on an explicit libssh2 is refused, naming the way out. */
	cfg = load("\"host\": \"gpu\", \"transport\": \"libssh2\"", jump_cfg);
	assert_int_equal(target_from_config(cfg, &t, &err, &d), -1);
	assert_int_equal(err.kind, SSH_FAIL_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "ProxyJump"));
	assert_non_null(strstr(err.msg, "\"transport\": \"openssh\""));
	assert_null(t.control_path);
	config_free(cfg);
	diag_free(&d);
	free(c);
	free(sd);
	free(x);
	free(rd);
}

static void
test_target_openssh_long_statedir(void **state)
{
	struct wk_config *cfg;
	struct ssh_target t;
	struct ssh_error err;
	struct diag d = DIAG_INIT;
	char *x;

	(void)state;
	x = xstrfmt("%s/a-state-directory-with-a-long-name/that-no-unix-socket-could-live-in", dir);
	setenv("XDG_STATE_HOME", x, 1);
	cfg = load("\"host\": \"gpu\", \"transport\": \"openssh\"", jump_cfg);
	assert_int_equal(target_from_config(cfg, &t, &err, &d), 0);
	assert_private_tmp(t.control_path);
	assert_int_equal(t.given, 0);
	target_free(&t);
	config_free(cfg);
	diag_free(&d);
	free(x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_control_path_in_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_path_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_path_boundary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_target_openssh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_target_openssh_long_statedir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
