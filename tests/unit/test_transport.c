/*
 * test_transport.c: box.transport "auto" decided from ssh_config texts and
 * real key files (made with ssh-keygen in the test's directory) and a real
 * ssh-agent: every reason the system ssh is taken, the cases libssh2 keeps,
 * what an explicit libssh2/openssh still does, and what happens without a
 * system ssh on PATH.  Also sshkey.c's key types from each file format.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "sshkey.h"
#include "target.h"
#include "xmalloc.h"

static char dir[64];
static char *old_env[5];
static const char *const env_names[] = { "HOME", "XDG_STATE_HOME", "PATH", "SSH_AUTH_SOCK" };

static void
save_env(void)
{
	size_t i;

	for (i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++) {
		const char *v = getenv(env_names[i]);

		old_env[i] = v != NULL ? xstrdup(v) : NULL;
	}
}

static void
restore_env(void)
{
	size_t i;

	for (i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++) {
		if (old_env[i] != NULL)
			setenv(env_names[i], old_env[i], 1);
		else
			unsetenv(env_names[i]);
		free(old_env[i]);
		old_env[i] = NULL;
	}
}

/* Run a shell script in dir with the real PATH; asserts it printed "ok". */
static void
sh_ok(const char *script)
{
	char *out, *full = xstrfmt("%s && echo ok\n", script);
	size_t len;

	out = unit_sh(full, dir, &len);
	if (strstr(out, "ok") == NULL)
		fail_msg("script failed: %s", script);
	free(out);
	free(full);
}

static int
group_setup(void **state)
{
	char *p, *path;

	(void)state;
	save_env();
	snprintf(dir, sizeof(dir), "/tmp/wk-transport-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	/* Keys of each kind; HOME is the test's directory, so ~/.ssh is ours. */
	sh_ok("mkdir -p home/.ssh bin empty keys"
	    " && ssh-keygen -q -N '' -t rsa -b 2048 -f keys/id_rsa"
	    " && ssh-keygen -q -N '' -t rsa -b 2048 -m PEM -f keys/pem_rsa"
	    " && ssh-keygen -q -N '' -t rsa -b 2048 -m PKCS8 -f keys/p8_rsa"
	    " && ssh-keygen -q -N '' -t ed25519 -f keys/id_ed25519"
	    " && ssh-keygen -q -N '' -t ecdsa -f keys/id_ecdsa"
	    " && ssh-keygen -q -N '' -t ed25519 -f keys/certified"
	    " && ssh-keygen -q -N '' -t ed25519 -f keys/ca"
	    " && ssh-keygen -q -s keys/ca -I test -n root keys/certified.pub"
	    " && printf '#!/bin/sh\\nexit 255\\n' >bin/ssh && chmod +x bin/ssh");
	p = xstrfmt("%s/home", dir);
	setenv("HOME", p, 1);
	free(p);
	p = xstrfmt("%s/state", dir);
	setenv("XDG_STATE_HOME", p, 1);
	free(p);
	/* A system ssh on PATH (a stand-in: nothing here runs it). */
	path = xstrfmt("%s/bin:%s", dir, old_env[2] != NULL ? old_env[2] : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	free(path);
	unsetenv("SSH_AUTH_SOCK");
	return 0;
}

static int
group_teardown(void **state)
{
	int r = unit_rmrf(dir);

	(void)state;
	restore_env();
	return r == 0 ? 0 : -1;
}

/* Each test: no default key files in ~/.ssh, a system ssh on PATH, no agent. */
static int
setup(void **state)
{
	char *path = xstrfmt("%s/bin:%s", dir, old_env[2] != NULL ? old_env[2] : "/usr/bin:/bin");

	(void)state;
	setenv("PATH", path, 1);
	free(path);
	unsetenv("SSH_AUTH_SOCK");
	sh_ok("rm -f home/.ssh/id_*");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return 0;
}

/* dir/<name> (caller frees). */
static char *
at(const char *name)
{
	return xstrfmt("%s/%s", dir, name);
}

/* A config for run "r" with box members and an ssh_config holding cfgtext. */
static struct wk_config *
load(const char *box, const char *cfgtext)
{
	struct wk_config *cfg = NULL;
	struct diag d = DIAG_INIT;
	char *p = at("wk.json"), *c = at("ssh_config"), *text;

	assert_int_equal(atomic_write_str(c, cfgtext), 0);
	text = xstrfmt("{ \"run\": \"r\", \"workdir\": \"/w\", \"box\": { \"ssh_config\": \"%s\"%s%s },\n"
	    "  \"chain\": [ { \"stage\": \"train\", \"run\": \"x\" } ] }\n", c, *box != '\0' ? ", " : "",
	    box);
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

/* "Host box" with HostName 127.0.0.1 and whatever lines follow (tabs, newlines included). */
static char *
host(const char *lines)
{
	return xstrfmt("Host box\n\tHostName 127.0.0.1\n\tUser root\n%s", lines);
}

/*
 * Decide for box (members) over cfgtext: asserts target_from_config gives 0,
 * the transport, and the text holding want (NULL: not checked).  Returns
 * the number of warnings.
 */
static size_t
decide(const char *box, const char *cfgtext, const char *transport, const char *want)
{
	struct wk_config *cfg = load(box, cfgtext);
	struct ssh_target t;
	struct ssh_error err;
	struct diag d = DIAG_INIT;
	char *text;
	size_t n;

	if (target_from_config(cfg, &t, &err, &d) != 0)
		fail_msg("target_from_config: %s", err.msg);
	text = target_transport_text(&t);
	if (strcmp(target_transport_name(&t), transport) != 0 ||
	    (want != NULL && strstr(text, want) == NULL))
		fail_msg("want %s with \"%s\", have \"%s\"", transport, want != NULL ? want : "", text);
	assert_true(strncmp(text, transport, strlen(transport)) == 0);
	if (t.openssh)
		assert_non_null(t.control_path);
	n = d.n;
	free(text);
	target_free(&t);
	diag_free(&d);
	config_free(cfg);
	return n;
}

/* Does the transport text for box over cfgtext contain needle? */
static int
decide_text(const char *box, const char *cfgtext, const char *needle)
{
	struct wk_config *cfg = load(box, cfgtext);
	struct ssh_target t;
	struct ssh_error err;
	struct diag d = DIAG_INIT;
	char *text;
	int r;

	assert_int_equal(target_from_config(cfg, &t, &err, &d), 0);
	text = target_transport_text(&t);
	r = strstr(text, needle) != NULL;
	free(text);
	target_free(&t);
	diag_free(&d);
	config_free(cfg);
	return r;
}

/* Like decide, for an identity file of the test's keys dir. */
static void
decide_key(const char *key, const char *transport, const char *want)
{
	char *lines = xstrfmt("\tIdentityFile %s/keys/%s\n\tIdentitiesOnly yes\n", dir, key);
	char *text = host(lines);

	decide("\"host\": \"box\"", text, transport, want);
	free(text);
	free(lines);
}

static void
test_key_types(void **state)
{
	static const struct {
		const char	*file;
		const char	*type;
	} cases[] = {
		{ "keys/id_rsa", "ssh-rsa" },		/* OpenSSH format: the public blob */
		{ "keys/pem_rsa", "ssh-rsa" },		/* PEM header */
		{ "keys/p8_rsa", "ssh-rsa" },		/* PKCS#8: from its .pub */
		{ "keys/id_ed25519", "ssh-ed25519" },
		{ "keys/id_ecdsa", "ecdsa-sha2-nistp256" },
	};
	char type[128], *p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = at(cases[i].file);
		assert_int_equal(sshkey_file_type(p, type, sizeof(type)), 0);
		assert_string_equal(type, cases[i].type);
		free(p);
	}
	/* PKCS#8 without its .pub cannot be told; neither can a missing file or a non-key. */
	sh_ok("mv keys/p8_rsa.pub keys/p8_rsa.pub.away");
	p = at("keys/p8_rsa");
	assert_int_equal(sshkey_file_type(p, type, sizeof(type)), -1);
	free(p);
	sh_ok("mv keys/p8_rsa.pub.away keys/p8_rsa.pub");
	p = at("keys/none");
	assert_int_equal(sshkey_file_type(p, type, sizeof(type)), -1);
	free(p);
	p = at("wk.json");
	assert_int_equal(atomic_write_str(p, "{}\n"), 0);
	assert_int_equal(sshkey_file_type(p, type, sizeof(type)), -1);
	free(p);
	assert_true(sshkey_type_libssh2("ssh-ed25519"));
	assert_true(sshkey_type_libssh2("ecdsa-sha2-nistp256"));
	assert_false(sshkey_type_libssh2("ssh-rsa"));
	assert_false(sshkey_type_libssh2("sk-ssh-ed25519@openssh.com"));
	assert_false(sshkey_type_libssh2("ssh-ed25519-cert-v01@openssh.com"));
	assert_string_equal(sshkey_type_label("ssh-rsa"), "RSA");
	assert_string_equal(sshkey_type_label("sk-ssh-ed25519@openssh.com"), "security-key");
}

/* Keys: RSA identity files go to the system ssh; ed25519 and ECDSA stay on libssh2. */
static void
test_auto_keys(void **state)
{
	char *text, *lines, *why;

	(void)state;
	decide_key("id_ed25519", "libssh2", "libssh2: nothing in the ssh config or keys needs");
	decide_key("id_ecdsa", "libssh2", NULL);
	why = xstrfmt("openssh: RSA key %s/keys/id_rsa (libssh2 1.10 cannot sign rsa-sha2)", dir);
	decide_key("id_rsa", "openssh", why);
	free(why);
	decide_key("pem_rsa", "openssh", "RSA key");
	decide_key("p8_rsa", "openssh", "RSA key");
	/* An ed25519 key that does not exist is not offered; the RSA one after it is. */
	lines = xstrfmt("\tIdentityFile %s/keys/gone\n\tIdentityFile %s/keys/id_ed25519\n"
	    "\tIdentityFile %s/keys/id_rsa\n", dir, dir, dir);
	text = host(lines);
	decide("\"host\": \"box\"", text, "openssh", "/keys/id_rsa");
	free(text);
	free(lines);

	/* No IdentityFile: ssh's default files in ~/.ssh. */
	text = host("");
	decide("\"host\": \"box\"", text, "libssh2", NULL);	/* none exists */
	sh_ok("cp keys/id_ed25519 keys/id_ed25519.pub home/.ssh/");
	decide("\"host\": \"box\"", text, "libssh2", NULL);
	sh_ok("cp keys/id_rsa keys/id_rsa.pub home/.ssh/");
	why = xstrfmt("openssh: RSA key %s/home/.ssh/id_rsa", dir);
	decide("\"host\": \"box\"", text, "openssh", why);
	free(why);

	/* box.identity is the one key libssh2 offers: an ed25519 one wins over ~/.ssh/id_rsa. */
	lines = xstrfmt("\"host\": \"box\", \"identity\": \"%s/keys/id_ed25519\"", dir);
	decide(lines, text, "libssh2", NULL);
	free(lines);
	lines = xstrfmt("\"host\": \"box\", \"identity\": \"%s/keys/pem_rsa\"", dir);
	decide(lines, text, "openssh", "/keys/pem_rsa");
	free(lines);
	free(text);

	/* A certificate beside an identity: ssh loads it by itself, libssh2 never. */
	why = xstrfmt("openssh: certificate %s/keys/certified-cert.pub", dir);
	decide_key("certified", "openssh", why);
	free(why);
}

/* ssh_config: every keyword libssh2 cannot honour names itself as the reason. */
static void
test_auto_config(void **state)
{
	char *text, *lines, *why;
	size_t warnings;

	(void)state;
	lines = xstrfmt("\tIdentityFile %s/keys/id_ed25519\n", dir);

	text = xstrfmt("Host box\n\tHostName 127.0.0.1\n\tProxyJump bastion\n%s", lines);
	decide("\"host\": \"box\"", text, "openssh", "openssh: ProxyJump bastion");
	free(text);

	text = xstrfmt("Host box\n\tProxyCommand nc -X connect -x proxy:3128 %%h %%p\n%s", lines);
	why = xstrdup("openssh: ProxyCommand nc");
	decide("\"host\": \"box\"", text, "openssh", why);
	assert_int_equal(decide_text("\"host\": \"box\"", text, "-X"), 0);
	free(why);
	free(text);
	/* Only the program: the rest of the command may hold a token. */
	text = xstrfmt("Host box\n\tProxyCommand exec /usr/bin/tunnel --token s3cr3t %%h\n%s", lines);
	decide("\"host\": \"box\"", text, "openssh", "openssh: ProxyCommand /usr/bin/tunnel");
	assert_int_equal(decide_text("\"host\": \"box\"", text, "s3cr3t"), 0);
	free(text);

	text = xstrfmt("Host box\n\tCertificateFile %s/keys/certified-cert.pub\n%s", dir, lines);
	why = xstrfmt("openssh: CertificateFile %s/keys/certified-cert.pub", dir);
	decide("\"host\": \"box\"", text, "openssh", why);
	free(why);
	free(text);

	/* Match exec: ssh evaluates it, so no "block skipped" warning either. */
	text = xstrfmt("Host box\n%sMatch exec \"test -e /nonexistent\"\n\tPort 2222\n", lines);
	why = xstrfmt("openssh: Match exec at %s/ssh_config:3 (ssh evaluates it", dir);
	warnings = decide("\"host\": \"box\"", text, "openssh", why);
	assert_int_equal(warnings, 0);
	free(why);
	/* The explicit libssh2 skips the block and says so, as before. */
	warnings = decide("\"host\": \"box\", \"transport\": \"libssh2\"", text, "libssh2",
	    "libssh2: set by box.transport");
	assert_int_equal(warnings, 1);
	free(text);
	text = xstrfmt("Host box\n%sMatch canonical\n\tPort 2222\n", lines);
	decide("\"host\": \"box\"", text, "openssh", "openssh: Match canonical at");
	free(text);
	/* A criterion that fails before the exec: ssh runs nothing and skips the block too. */
	text = xstrfmt("Host box\n%sMatch originalhost other exec true\n\tPort 2222\n", lines);
	warnings = decide("\"host\": \"box\"", text, "libssh2", NULL);
	assert_int_equal(warnings, 1);
	free(text);
	text = xstrfmt("Host box\n%sMatch originalhost box exec true\n\tPort 2222\n", lines);
	decide("\"host\": \"box\"", text, "openssh", "openssh: Match exec at");
	free(text);

	text = xstrfmt("Host box\n\tHostKeyAlias gpu-7\n%s", lines);
	decide("\"host\": \"box\"", text, "openssh", "openssh: HostKeyAlias gpu-7");
	free(text);

	/* A ProxyJump in a block that does not apply is nothing. */
	text = xstrfmt("Host other\n\tProxyJump bastion\nHost box\n%s", lines);
	decide("\"host\": \"box\"", text, "libssh2", NULL);
	free(text);
	/* First reason wins: ProxyJump before an RSA key. */
	text = xstrfmt("Host box\n\tProxyJump bastion\n\tIdentityFile %s/keys/id_rsa\n", dir);
	decide("\"host\": \"box\"", text, "openssh", "openssh: ProxyJump bastion");
	free(text);
	free(lines);
}

/* Explicit transports do what they did before "auto". */
static void
test_explicit(void **state)
{
	struct wk_config *cfg;
	struct ssh_target t;
	struct ssh_error err;
	struct diag d = DIAG_INIT;
	char *text, *lines;

	(void)state;
	lines = xstrfmt("\tIdentityFile %s/keys/id_rsa\n", dir);
	text = host(lines);
	/* libssh2 with an RSA key: no error before connecting (authentication says it). */
	decide("\"host\": \"box\", \"transport\": \"libssh2\"", text, "libssh2",
	    "libssh2: set by box.transport");
	decide("\"host\": \"box\", \"transport\": \"openssh\"", text, "openssh",
	    "openssh: set by box.transport");
	free(text);
	free(lines);
	lines = xstrfmt("\tIdentityFile %s/keys/id_ed25519\n", dir);
	text = host(lines);
	decide("\"host\": \"box\", \"transport\": \"openssh\"", text, "openssh", NULL);
	free(text);
	free(lines);

	/* libssh2 with a ProxyJump: today's error. */
	cfg = load("\"host\": \"box\", \"transport\": \"libssh2\"", "Host box\n\tProxyJump bastion\n");
	assert_int_equal(target_from_config(cfg, &t, &err, &d), -1);
	assert_int_equal(err.kind, SSH_FAIL_UNSUPPORTED);
	assert_string_equal(err.msg, "box uses ProxyJump, which the libssh2 transport cannot do: "
	    "set \"box\": {\"transport\": \"openssh\"}");
	config_free(cfg);
	diag_free(&d);
}

/* No ssh on PATH: libssh2, saying what it lacks; a host libssh2 cannot reach is an error. */
static void
test_no_system_ssh(void **state)
{
	struct wk_config *cfg;
	struct ssh_target t;
	struct ssh_error err;
	struct diag d = DIAG_INIT;
	char *text, *lines, *empty = at("empty"), *why;
	size_t warnings;

	(void)state;
	setenv("PATH", empty, 1);
	lines = xstrfmt("\tIdentityFile %s/keys/id_rsa\n", dir);
	text = host(lines);
	why = xstrfmt("libssh2: RSA key %s/keys/id_rsa (libssh2 1.10 cannot sign rsa-sha2) needs "
	    "the system ssh, which is not installed (no ssh on PATH)", dir);
	decide("\"host\": \"box\"", text, "libssh2", why);
	free(why);
	free(text);
	free(lines);

	lines = xstrfmt("\tIdentityFile %s/keys/id_ed25519\n", dir);
	text = xstrfmt("Host box\n%sMatch exec true\n\tPort 2222\n", lines);
	warnings = decide("\"host\": \"box\"", text, "libssh2", "libssh2: Match exec at");
	assert_int_equal(warnings, 1);		/* the block is skipped, and said to be */
	free(text);
	free(lines);

	cfg = load("\"host\": \"box\"", "Host box\n\tProxyJump bastion\n");
	assert_int_equal(target_from_config(cfg, &t, &err, &d), -1);
	assert_int_equal(err.kind, SSH_FAIL_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "box uses ProxyJump, which the libssh2 transport cannot do"));
	assert_non_null(strstr(err.msg, "not installed (no ssh on PATH): install the OpenSSH client"));
	config_free(cfg);
	cfg = load("\"host\": \"box\"", "Host box\n\tCertificateFile /k/c-cert.pub\n");
	assert_int_equal(target_from_config(cfg, &t, &err, &d), -1);
	assert_non_null(strstr(err.msg, "CertificateFile"));
	config_free(cfg);
	diag_free(&d);
	free(empty);
}

/* A real ssh-agent: only RSA keys in it sends the host to the system ssh. */
static void
test_agent(void **state)
{
	char *argv[] = { "ssh-agent", "-D", "-a", NULL, NULL };
	char *sock = at("agent.sock"), *text, *lines, *script;
	struct spawn_opts o;
	struct stat st;
	int status, i;
	pid_t pid;
	size_t usable, unusable;
	char first[64];

	(void)state;
	argv[3] = sock;
	spawn_opts_init(&o);
	o.fd_err = SPAWN_INHERIT;
	pid = spawn_argv(argv, &o);
	assert_true(pid > 0);
	/* Bound, then listening: wait until it answers (bounded), not just for the socket file. */
	for (i = 0; i < 500 && sshkey_agent_types(sock, 1000, &usable, &unusable, first,
	    sizeof(first)) != 0; i++)
		usleep(10000);
	if (stat(sock, &st) != 0 ||
	    sshkey_agent_types(sock, 1000, &usable, &unusable, first, sizeof(first)) != 0) {
		kill(pid, SIGTERM);
		spawn_wait(pid, &status);
		fail_msg("ssh-agent -D -a %s: no answer (status %d)", sock, status);
	}
	setenv("SSH_AUTH_SOCK", sock, 1);

	/* Empty agent: nothing to say; libssh2 (with the default files, none here). */
	assert_int_equal(sshkey_agent_types(sock, 1000, &usable, &unusable, first, sizeof(first)), 0);
	assert_int_equal(usable + unusable, 0);
	text = host("");
	decide("\"host\": \"box\"", text, "libssh2", NULL);

	script = xstrfmt("SSH_AUTH_SOCK=%s ssh-add -q keys/id_rsa 2>/dev/null", sock);
	sh_ok(script);
	free(script);
	assert_int_equal(sshkey_agent_types(sock, 1000, &usable, &unusable, first, sizeof(first)), 0);
	assert_int_equal(usable, 0);
	assert_int_equal(unusable, 1);
	assert_string_equal(first, "ssh-rsa");
	decide("\"host\": \"box\"", text, "openssh",
	    "openssh: ssh-agent holds only RSA keys (libssh2 1.10 cannot sign rsa-sha2)");
	/* IdentitiesOnly: the agent is not used, so it does not count. */
	lines = xstrfmt("\tIdentityFile %s/keys/id_ed25519\n\tIdentitiesOnly yes\n", dir);
	free(text);
	text = host(lines);
	decide("\"host\": \"box\"", text, "libssh2", NULL);
	free(text);
	free(lines);
	/* An ed25519 key in the agent too: libssh2 can sign with that one. */
	script = xstrfmt("SSH_AUTH_SOCK=%s ssh-add -q keys/id_ed25519 2>/dev/null", sock);
	sh_ok(script);
	free(script);
	assert_int_equal(sshkey_agent_types(sock, 1000, &usable, &unusable, first, sizeof(first)), 0);
	assert_int_equal(usable, 1);
	assert_int_equal(unusable, 1);
	text = host("");
	decide("\"host\": \"box\"", text, "libssh2", NULL);
	free(text);

	assert_int_equal(kill(pid, SIGTERM), 0);
	spawn_wait(pid, &status);
	/* A socket nobody answers on: no agent. */
	assert_int_equal(sshkey_agent_types(sock, 200, &usable, &unusable, first, sizeof(first)), -1);
	unsetenv("SSH_AUTH_SOCK");
	free(sock);
}

/* Every ssh failure kind is one code of err.h's vocabulary, each its own, each with text. */
static void
test_fail_codes(void **state)
{
	int seen[SSH_FAIL_UNSUPPORTED + 1];
	int k, j;

	(void)state;
	assert_int_equal(ssh_fail_code(SSH_OK), WK_OK);
	assert_int_equal(ssh_fail_code(SSH_FAIL_TIMEOUT), WK_ERR_TIMEOUT);
	assert_int_equal(ssh_fail_code(SSH_FAIL_HOSTKEY_MISMATCH), WK_ERR_SSH_HOSTKEY_MISMATCH);
	for (k = SSH_FAIL_RESOLVE; k <= SSH_FAIL_UNSUPPORTED; k++) {
		seen[k] = ssh_fail_code((enum ssh_fail)k);
		assert_true(seen[k] < 0);
		assert_string_not_equal(wk_strerror(seen[k]), "unknown error");
		for (j = SSH_FAIL_RESOLVE; j < k; j++)
			assert_int_not_equal(seen[j], seen[k]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fail_codes),
		cmocka_unit_test_setup_teardown(test_key_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explicit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_system_ssh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
