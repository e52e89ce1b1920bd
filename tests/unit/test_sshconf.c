/*
 * test_sshconf.c: sshconf_resolve against hand-written ssh_config files in a
 * throwaway HOME.  Every expectation here was first checked with OpenSSH
 * 9.2's `ssh -G -F file alias`, which prints what ssh resolved.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "err.h"
#include "sshconf.h"
#include "xmalloc.h"

static char dir[PATH_MAX];	/* the test's HOME */
static char *old_home;

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int
setup(void **state)
{
	const char *h = getenv("HOME");
	char *ssh;

	(void)state;
	old_home = h != NULL ? xstrdup(h) : NULL;
	snprintf(dir, sizeof(dir), "/tmp/wk-sshconf-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	setenv("HOME", dir, 1);
	ssh = xstrfmt("%s/.ssh", dir);
	if (mkdir(ssh, 0700) != 0)
		return -1;
	free(ssh);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (old_home != NULL)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_home);
	old_home = NULL;
	return 0;
}

/* dir/rel; caller frees. */
static char *
at(const char *rel)
{
	return xstrfmt("%s/%s", dir, rel);
}

/* Write dir/rel (mode 0644 whatever the umask: ssh checks it). */
static void
put(const char *rel, const char *text)
{
	char *p = at(rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
	free(p);
}

static void
mkdir_at(const char *rel)
{
	char *p = at(rel);

	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
}

/* Resolve alias through dir/cfg holding text. */
static int
resolve(const char *text, const char *alias, struct sshconf_host *h, struct diag *d)
{
	char *p = at("cfg");
	int r;

	put("cfg", text);
	r = sshconf_resolve(p, alias, h, d);
	free(p);
	return r;
}

static int
diag_has(const struct diag *d, const char *needle)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strstr(d->msgs[i], needle) != NULL)
			return 1;
	return 0;
}

static void
assert_diag(const struct diag *d, const char *needle)
{
	if (!diag_has(d, needle)) {
		diag_print(d, stderr);
		fail_msg("no diagnostic contains \"%s\"", needle);
	}
}

static const char *
luser(void)
{
	struct passwd *pw = getpwuid(getuid());

	assert_non_null(pw);
	return pw->pw_name;
}

/* Expect h->identities (or known_hosts) to be exactly these, with ~ as dir. */
static void
assert_paths(char **got, size_t n, const char *const *want, size_t nwant)
{
	size_t i;

	assert_int_equal(n, nwant);
	for (i = 0; i < nwant; i++) {
		char *w = want[i][0] == '~' ? xstrfmt("%s%s", dir, want[i] + 1) : xstrdup(want[i]);

		assert_string_equal(got[i], w);
		free(w);
	}
}

#define PATHS(got, n, ...) do {						\
	const char *const want_[] = { __VA_ARGS__ };			\
	assert_paths(got, n, want_, sizeof(want_) / sizeof(want_[0]));	\
} while (0)

static void
test_defaults(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve("# nothing\n\n", "box", &h, &d), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(h.alias, "box");
	assert_string_equal(h.hostname, "box");
	assert_int_equal(h.port, 22);
	assert_string_equal(h.user, luser());
	assert_int_equal(h.identities_given, 0);
	PATHS(h.identities, h.nidentities, "~/.ssh/id_rsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ed25519");
	PATHS(h.known_hosts, h.nknown_hosts, "~/.ssh/known_hosts", "~/.ssh/known_hosts2");
	assert_int_equal(h.identities_only, 0);
	assert_int_equal(h.connect_timeout_s, 0);
	assert_int_equal(h.server_alive_interval, 0);
	assert_int_equal(h.server_alive_count_max, 3);
	assert_null(h.proxy_jump);
	assert_null(h.proxy_command);
	assert_null(h.certificate_file);
	assert_int_equal(h.ncertificate_files, 0);
	assert_int_equal(h.batch_mode, 0);
	assert_null(h.strict_host_key_checking);
	sshconf_free(&h);
	assert_null(h.hostname);
	diag_free(&d);
}

static void
test_first_value_wins(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve(
	    "Host box\n"
	    "  Port 2200\n"
	    "Host *\n"
	    "  Port 22\n"
	    "  User first\n"
	    "  ConnectTimeout 7\n"
	    "Host box\n"
	    "  User second\n"
	    "  ConnectTimeout 8\n"
	    "  HostName late.example\n",
	    "box", &h, &d), 0);
	assert_int_equal(h.port, 2200);
	assert_string_equal(h.user, "first");
	assert_int_equal(h.connect_timeout_s, 7);
	assert_string_equal(h.hostname, "late.example");
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_host_patterns(void **state)
{
	static const struct {
		const char	*host_line;
		const char	*alias;
		int		 applies;
	} cases[] = {
		{ "Host alpha box gamma", "box", 1 },
		{ "Host alpha gamma", "box", 0 },
		{ "Host *", "box", 1 },
		{ "Host b?x", "box", 1 },
		{ "Host b?x", "boox", 0 },
		{ "Host b*x", "boox", 1 },
		{ "Host *.example.com", "a.example.com", 1 },
		{ "Host *.example.com", "example.com", 0 },
		{ "Host * !bastion", "bastion", 0 },
		{ "Host * !bastion", "box", 1 },
		{ "Host !bastion *", "bastion", 0 },
		{ "Host !bastion", "box", 0 },		/* a negation alone never applies */
		{ "Host b* !b?x", "box", 0 },
		{ "Host b* !b?x", "boxes", 1 },
		{ "Host a,box", "box", 0 },		/* Host does not split at commas */
		{ "Host=box", "box", 1 },
		{ "Host \"box\"", "box", 1 },
		/* Host matches the alias as typed, case and all (ssh -G agrees). */
		{ "Host MyBox", "MyBox", 1 },
		{ "Host mybox", "MyBox", 0 },
		{ "Host MyBox", "mybox", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sshconf_host h;
		struct diag d = DIAG_INIT;
		char *text = xstrfmt("%s\n  Port 2222\n", cases[i].host_line);

		assert_int_equal(resolve(text, cases[i].alias, &h, &d), 0);
		if (h.port != (cases[i].applies ? 2222 : 22))
			fail_msg("\"%s\" for %s: port %d", cases[i].host_line, cases[i].alias,
			    h.port);
		sshconf_free(&h);
		diag_free(&d);
		free(text);
	}
}

static void
test_keyword_forms(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve(
	    "   # indented comment\n"
	    "HOST box\n"
	    "\tHOSTNAME=real.example\n"
	    "  pOrT = 2222\n"
	    "  user= bob   \n"
	    "  IdentitiesOnly\tyes\r\n"
	    "  BatchMode=TRUE # trailing comment\n"
	    "  serveralivecountmax =5\n"
	    "  StrictHostKeyChecking accept-new\n"
	    "  ConnectTimeout 1m30s\n"
	    "  SomethingWeKnowNothingAbout with args\n",
	    "box", &h, &d), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(h.hostname, "real.example");
	assert_int_equal(h.port, 2222);
	assert_string_equal(h.user, "bob");
	assert_int_equal(h.identities_only, 1);
	assert_int_equal(h.batch_mode, 1);
	assert_int_equal(h.server_alive_count_max, 5);
	assert_string_equal(h.strict_host_key_checking, "accept-new");
	assert_int_equal(h.connect_timeout_s, 90);
	/* readconf: BatchMode without ServerAliveInterval means 300s. */
	assert_int_equal(h.server_alive_interval, 300);
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_quoted_values(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve(
	    "Host box\n"
	    "  IdentityFile \"/keys/with space/id\"\n"
	    "  IdentityFile '/single quoted/id'\n"
	    "  IdentityFile /escaped\\ space/id\n"
	    "  UserKnownHostsFile \"/a b/kh\" /c/kh2\n"
	    "  User \"bob\"\n",
	    "box", &h, &d), 0);
	PATHS(h.identities, h.nidentities, "/keys/with space/id", "/single quoted/id",
	    "/escaped space/id");
	PATHS(h.known_hosts, h.nknown_hosts, "/a b/kh", "/c/kh2");
	assert_string_equal(h.user, "bob");
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_identity_accumulates(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve(
	    "Host box\n"
	    "  IdentityFile ~/.ssh/box_key\n"
	    "  CertificateFile ~/.ssh/box-cert.pub\n"
	    "Host other\n"
	    "  IdentityFile ~/.ssh/other_key\n"
	    "Host *\n"
	    "  IdentityFile ~/.ssh/id_ed25519\n"
	    "  IdentityFile ~/.ssh/box_key\n"		/* a duplicate is dropped, as ssh does */
	    "  CertificateFile /etc/ssh/user-cert.pub\n",
	    "box", &h, &d), 0);
	assert_int_equal(h.identities_given, 1);
	PATHS(h.identities, h.nidentities, "~/.ssh/box_key", "~/.ssh/id_ed25519");
	PATHS(h.certificate_files, h.ncertificate_files, "~/.ssh/box-cert.pub",
	    "/etc/ssh/user-cert.pub");
	assert_string_equal(h.certificate_file, h.certificate_files[0]);
	sshconf_free(&h);
	diag_free(&d);

	/* IdentityFile none: given, and no file at all (not the defaults). */
	assert_int_equal(resolve("IdentityFile none\n", "box", &h, &d), 0);
	assert_int_equal(h.identities_given, 1);
	assert_int_equal(h.nidentities, 0);
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_known_hosts_first_line(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve(
	    "Host box\n"
	    "  UserKnownHostsFile ~/.ssh/kh_one /etc/kh_two\n"
	    "Host *\n"
	    "  UserKnownHostsFile ~/.ssh/ignored\n",
	    "box", &h, &d), 0);
	PATHS(h.known_hosts, h.nknown_hosts, "~/.ssh/kh_one", "/etc/kh_two");
	sshconf_free(&h);
	diag_free(&d);

	assert_int_equal(resolve("UserKnownHostsFile none\n", "box", &h, &d), 0);
	assert_int_equal(h.nknown_hosts, 0);
	sshconf_free(&h);
	diag_free(&d);

	assert_int_equal(resolve("UserKnownHostsFile /a none\n", "box", &h, &d), WK_ERR_PARSE);
	assert_diag(&d, "cfg:1: UserKnownHostsFile: \"none\" must appear alone");
	diag_free(&d);
}

static void
test_tokens(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;
	char *want;

	(void)state;
	setenv("WK_TEST_KEYDIR", "/env/keys", 1);
	assert_int_equal(resolve(
	    "Host Box\n"
	    "  HostName %h.Example.COM\n"
	    "  Port 2222\n"
	    "  User bob\n"
	    "  IdentityFile ~/.ssh/%h-%p-%r-%u\n"
	    "  IdentityFile %d/x%%y\n"
	    "  IdentityFile ${WK_TEST_KEYDIR}/%n\n"
	    "  IdentityFile ~\n"
	    "  UserKnownHostsFile ~/kh_%h \"%d/kh 2\"\n"
	    "  CertificateFile ~/.ssh/%n-%r-cert.pub\n",
	    "Box", &h, &d), 0);
	assert_int_equal(d.n, 0);
	/* %h in HostName is the alias as typed; the result is lowercased, as ssh does. */
	assert_string_equal(h.hostname, "box.example.com");
	want = xstrfmt("~/.ssh/box.example.com-2222-bob-%s", luser());
	PATHS(h.identities, h.nidentities, want, "~/x%y", "/env/keys/Box", "~/");
	free(want);
	PATHS(h.known_hosts, h.nknown_hosts, "~/kh_box.example.com", "~/kh 2");
	PATHS(h.certificate_files, h.ncertificate_files, "~/.ssh/Box-bob-cert.pub");
	sshconf_free(&h);
	diag_free(&d);
	unsetenv("WK_TEST_KEYDIR");

	/* Tokens are expanded after everything is known: defaults included. */
	assert_int_equal(resolve(
	    "IdentityFile ~/.ssh/%r@%h:%p\n"
	    "HostName h.example\n",
	    "box", &h, &d), 0);
	want = xstrfmt("~/.ssh/%s@h.example:22", luser());
	PATHS(h.identities, h.nidentities, want);
	free(want);
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_token_errors(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve(
	    "Host box\n"
	    "  User bob\n"
	    "  IdentityFile ~/.ssh/%z\n"
	    "  HostName %q.example\n"
	    "  UserKnownHostsFile /kh/%\n"
	    "  CertificateFile ${WK_TEST_SURELY_UNSET}/c\n",
	    "box", &h, &d), WK_ERR_PARSE);
	assert_diag(&d, "cfg:3: Bad value for IdentityFile: '~/.ssh/%z': unknown token %z");
	assert_diag(&d, "cfg:4: Bad value for HostName: '%q.example': unknown token %q");
	assert_diag(&d, "cfg:5: Bad value for UserKnownHostsFile");
	assert_diag(&d, "cfg:6: Bad value for CertificateFile");
	assert_diag(&d, "WK_TEST_SURELY_UNSET");
	assert_int_equal(d.n, 4);
	assert_null(h.hostname);	/* nothing is handed out on failure */
	sshconf_free(&h);
	diag_free(&d);

	/* A bad token in a block that does not apply is never expanded. */
	assert_int_equal(resolve("Host other\n  IdentityFile %z\n", "box", &h, &d), 0);
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_hostname_case_and_addresses(void **state)
{
	static const struct {
		const char	*hostname;
		const char	*want;
	} cases[] = {
		{ "Real.Example.COM", "real.example.com" },
		{ "127.1", "127.0.0.1" },		/* ssh rewrites an address numerically */
		{ "10.0.0.7", "10.0.0.7" },
		{ "FE80::A", "FE80::A" },		/* addresses are not lowercased */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sshconf_host h;
		struct diag d = DIAG_INIT;
		char *text = xstrfmt("HostName %s\n", cases[i].hostname);

		assert_int_equal(resolve(text, "box", &h, &d), 0);
		assert_string_equal(h.hostname, cases[i].want);
		sshconf_free(&h);
		diag_free(&d);
		free(text);
	}
}

static void
test_include(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;
	char *abs, *text;

	(void)state;
	mkdir_at(".ssh/conf.d");
	put(".ssh/conf.d/10-box.conf",
	    "Host box\n"
	    "  HostName box.from.include\n"
	    "Host nothing-else\n");		/* must not leak into the including file */
	put(".ssh/conf.d/20-all.conf", "Port 2020\n");
	put(".ssh/conf.d/README", "Port 1\n");	/* not matched by *.conf */
	put(".ssh/hidden.conf",
	    "User from-hidden-block\n"
	    "IdentityFile ~/.ssh/hidden\n"
	    "Host box\n"			/* matches, but the Include did not apply */
	    "  BatchMode yes\n"
	    "Match all\n"
	    "  StrictHostKeyChecking no\n");
	put("abs.conf", "ServerAliveInterval 11\n");
	put(".ssh/tilde.conf", "ServerAliveCountMax 12\n");
	abs = at("abs.conf");
	text = xstrfmt(
	    "Include conf.d/*.conf\n"
	    "User after-include\n"
	    "Include no-such-file-*.conf also-missing.conf\n"
	    "Include %s ~/.ssh/tilde.conf\n"
	    "Host never-this\n"
	    "  Include hidden.conf\n",
	    abs);
	assert_int_equal(resolve(text, "box", &h, &d), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(h.hostname, "box.from.include");
	assert_int_equal(h.port, 2020);
	assert_string_equal(h.user, "after-include");
	assert_int_equal(h.server_alive_interval, 11);
	assert_int_equal(h.server_alive_count_max, 12);
	assert_int_equal(h.identities_given, 0);	/* nothing in hidden.conf applied */
	assert_int_equal(h.batch_mode, 0);
	assert_null(h.strict_host_key_checking);
	sshconf_free(&h);
	diag_free(&d);

	/* Included in a matching block: applies; its own Host lines still count. */
	assert_int_equal(resolve("Host never-this\n  Include hidden.conf\n", "never-this", &h,
	    &d), 0);
	assert_string_equal(h.user, "from-hidden-block");
	assert_int_equal(h.batch_mode, 0);
	assert_string_equal(h.strict_host_key_checking, "no");
	sshconf_free(&h);
	diag_free(&d);

	/* A file included from a block that does not apply is still checked. */
	put(".ssh/bad.conf", "Port nope\n");
	assert_int_equal(resolve("Host never-this\n  Include bad.conf\n", "box", &h, &d),
	    WK_ERR_PARSE);
	assert_diag(&d, "bad.conf:1: Bad value for Port: 'nope'");
	diag_free(&d);
	free(abs);
	free(text);
}

static void
test_include_loops(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;
	char name[32], text[64];
	int i;

	(void)state;
	put(".ssh/a.conf", "Include b.conf\n");
	put(".ssh/b.conf", "Port 2222\nInclude a.conf\n");
	assert_int_equal(resolve("Include a.conf\n", "box", &h, &d), WK_ERR_PARSE);
	assert_diag(&d, "b.conf:2: Include loop:");
	assert_diag(&d, "a.conf is already being read");
	diag_free(&d);

	/* A file that includes itself, even from a block that does not apply. */
	put(".ssh/self.conf", "Host nothing\n  Include self.conf\n");
	assert_int_equal(resolve("Include self.conf\n", "box", &h, &d), WK_ERR_PARSE);
	assert_diag(&d, "self.conf:2: Include loop:");
	diag_free(&d);

	/* cfg -> n1 -> ... -> n16 is the deepest ssh accepts; n17 is one too many. */
	for (i = 1; i <= 17; i++) {
		snprintf(name, sizeof(name), ".ssh/n%d", i);
		snprintf(text, sizeof(text), "Include n%d\n", i + 1);
		put(name, i == 16 ? "Port 1616\n" : text);
	}
	assert_int_equal(resolve("Include n1\n", "box", &h, &d), 0);
	assert_int_equal(h.port, 1616);
	sshconf_free(&h);
	diag_free(&d);
	put(".ssh/n16", "Include n17\n");
	put(".ssh/n17", "Port 1717\n");
	assert_int_equal(resolve("Include n1\n", "box", &h, &d), WK_ERR_PARSE);
	assert_diag(&d, "n16:1: Include");
	assert_diag(&d, "nested more than 16 deep");
	diag_free(&d);
}

static void
test_match(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;
	char *text;

	(void)state;
	text = xstrfmt(
	    "Host box\n"
	    "  HostName Real.Example\n"
	    "Match host real.example\n"			/* HostName so far, any case */
	    "  Port 1001\n"
	    "Match originalhost BOX\n"			/* the alias, any case */
	    "  User matched-alias\n"
	    "Match user matched-alias\n"		/* User so far */
	    "  IdentitiesOnly yes\n"
	    "Match !host real.example\n"
	    "  BatchMode yes\n"
	    "Match host=box,real.* !originalhost other\n"
	    "  ConnectTimeout 3\n"
	    "Match localuser %s\n"
	    "  ServerAliveCountMax 9\n"
	    "Match localuser !%s\n"
	    "  ServerAliveInterval 99\n"
	    "Match all\n"
	    "  StrictHostKeyChecking yes\n"
	    "Match host real.example originalhost nope\n"
	    "  UserKnownHostsFile /never\n",
	    luser(), luser());
	assert_int_equal(resolve(text, "box", &h, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(h.port, 1001);
	assert_string_equal(h.hostname, "real.example");
	assert_string_equal(h.user, "matched-alias");
	assert_int_equal(h.identities_only, 1);
	assert_int_equal(h.batch_mode, 0);
	assert_int_equal(h.connect_timeout_s, 3);
	assert_int_equal(h.server_alive_count_max, 9);
	assert_int_equal(h.server_alive_interval, 0);
	assert_string_equal(h.strict_host_key_checking, "yes");
	PATHS(h.known_hosts, h.nknown_hosts, "~/.ssh/known_hosts", "~/.ssh/known_hosts2");
	sshconf_free(&h);
	diag_free(&d);
	free(text);

	/* Match user without a User: the local user. */
	text = xstrfmt("Match user %s\n  Port 1002\n", luser());
	assert_int_equal(resolve(text, "box", &h, &d), 0);
	assert_int_equal(h.port, 1002);
	sshconf_free(&h);
	diag_free(&d);
	free(text);

	assert_int_equal(resolve("Match !all\n  Port 1003\n", "box", &h, &d), 0);
	assert_int_equal(h.port, 22);
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_match_errors(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve(
	    "Match host\n"
	    "Match all host box\n"
	    "Match\n"
	    "Match # just a comment\n",
	    "box", &h, &d), WK_ERR_PARSE);
	assert_diag(&d, "cfg:1: Missing Match criteria for host");
	assert_diag(&d, "cfg:2: 'all' cannot be combined with other Match attributes");
	assert_diag(&d, "cfg:3: no argument after keyword \"Match\"");
	assert_diag(&d, "cfg:4: One or more attributes required for Match");
	assert_int_equal(d.n, 4);
	diag_free(&d);
}

static void
test_match_exec_never_runs(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;
	char *pwned = at("PWNED"), *text;

	(void)state;
	text = xstrfmt(
	    "Match exec \"touch %s\"\n"
	    "  Port 1001\n"
	    "Match host box exec \"touch %s\"\n"	/* ssh would run this one */
	    "  User exec-user\n"
	    "Match !exec \"touch %s\"\n"
	    "  ConnectTimeout 5\n"
	    "Match canonical\n"
	    "  ServerAliveInterval 5\n"
	    "Match final all\n"
	    "  ServerAliveCountMax 5\n"
	    "Match tagged x\n"
	    "  BatchMode yes\n"
	    "Match all\n"				/* the skipped blocks end here */
	    "  Port 2002\n",
	    pwned, pwned, pwned);
	assert_int_equal(resolve(text, "box", &h, &d), 0);
	assert_int_equal(access(pwned, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	/* Listed, not warned: the caller warns (libssh2) or leaves it to ssh (auto). */
	assert_int_equal(d.n, 0);
	assert_int_equal(h.nskipped, 6);
	assert_string_equal(h.skipped[0].criterion, "exec");
	assert_int_equal(h.skipped[5].line, 11);
	sshconf_warn_skipped(&h, &d);
	assert_diag(&d, "cfg:1: Match criterion exec is not supported; block skipped");
	assert_diag(&d, "cfg:3: Match criterion exec is not supported; block skipped");
	assert_diag(&d, "cfg:5: Match criterion exec is not supported; block skipped");
	assert_diag(&d, "cfg:7: Match criterion canonical is not supported; block skipped");
	assert_diag(&d, "cfg:9: Match criterion final is not supported; block skipped");
	assert_diag(&d, "cfg:11: Match criterion tagged is not supported; block skipped");
	assert_int_equal(d.n, 6);
	assert_int_equal(h.port, 2002);
	assert_string_equal(h.user, luser());
	assert_int_equal(h.connect_timeout_s, 0);
	assert_int_equal(h.server_alive_interval, 0);
	assert_int_equal(h.server_alive_count_max, 3);
	assert_int_equal(h.batch_mode, 0);
	sshconf_free(&h);
	diag_free(&d);
	free(text);
	free(pwned);
}

static void
test_bad_values(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;

	(void)state;
	assert_int_equal(resolve(
	    "Host elsewhere\n"
	    "  Port abc\n"			/* checked even where the block does not apply */
	    "Port 0\n"
	    "Port 65536\n"
	    "ConnectTimeout -1\n"
	    "ServerAliveInterval 5x\n"
	    "ServerAliveCountMax 1.5\n"
	    "BatchMode maybe\n"
	    "IdentitiesOnly 1\n"
	    "StrictHostKeyChecking sometimes\n"
	    "Port 22 23\n"
	    "HostName\n"
	    "User \"unterminated\n"
	    "IdentityFile \"\"\n"
	    "Port 65535\n",
	    "box", &h, &d), WK_ERR_PARSE);
	assert_diag(&d, "cfg:2: Bad value for Port: 'abc'");
	assert_diag(&d, "cfg:3: Bad value for Port: '0'");
	assert_diag(&d, "cfg:4: Bad value for Port: '65536'");
	assert_diag(&d, "cfg:5: Bad value for ConnectTimeout: '-1'");
	assert_diag(&d, "cfg:6: Bad value for ServerAliveInterval: '5x'");
	assert_diag(&d, "cfg:7: Bad value for ServerAliveCountMax: '1.5'");
	assert_diag(&d, "cfg:8: Bad value for BatchMode: 'maybe'");
	assert_diag(&d, "cfg:9: Bad value for IdentitiesOnly: '1'");
	assert_diag(&d, "cfg:10: Bad value for StrictHostKeyChecking: 'sometimes'");
	assert_diag(&d, "cfg:11: Port: extra arguments at end of line");
	assert_diag(&d, "cfg:12: no argument after keyword \"HostName\"");
	assert_diag(&d, "cfg:13: invalid quotes");
	assert_diag(&d, "cfg:14: Missing argument for IdentityFile");
	assert_int_equal(d.n, 13);
	assert_null(h.hostname);
	diag_free(&d);

	/* The values that are right. */
	assert_int_equal(resolve(
	    "Port 65535\n"
	    "ConnectTimeout none\n"		/* none: still unset, a later value counts */
	    "ConnectTimeout 0\n"
	    "ServerAliveCountMax 0\n"
	    "BatchMode no\n"
	    "ServerAliveInterval 2h\n",
	    "box", &h, &d), 0);
	assert_int_equal(h.port, 65535);
	assert_int_equal(h.connect_timeout_s, 0);
	assert_int_equal(h.server_alive_count_max, 0);
	assert_int_equal(h.server_alive_interval, 7200);
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_missing_files(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;
	char *p = at("no-such-config");

	(void)state;
	errno = 0;
	assert_int_equal(sshconf_resolve(p, "box", &h, &d), WK_ERR_SYSTEM);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(d.n, 1);
	assert_diag(&d, p);
	assert_null(h.hostname);
	sshconf_free(&h);
	diag_free(&d);
	free(p);

	/* No ~/.ssh/config: the defaults, quietly. */
	assert_int_equal(sshconf_resolve(NULL, "box", &h, &d), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(h.hostname, "box");
	assert_int_equal(h.port, 22);
	PATHS(h.identities, h.nidentities, "~/.ssh/id_rsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ed25519");
	sshconf_free(&h);
	diag_free(&d);
}

static void
test_default_file(void **state)
{
	struct sshconf_host h;
	struct diag d = DIAG_INIT;
	char *p = at(".ssh/config");

	(void)state;
	put(".ssh/config", "Host box\n  HostName from-default\n");
	assert_int_equal(sshconf_resolve(NULL, "box", &h, &d), 0);
	assert_string_equal(h.hostname, "from-default");
	sshconf_free(&h);
	diag_free(&d);

	/* ssh refuses a ~/.ssh/config others can write; so do we. */
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(sshconf_resolve(NULL, "box", &h, &d), WK_ERR_PARSE);
	assert_diag(&d, "Bad owner or permissions");
	diag_free(&d);

	/* An explicit file (ssh -F) is not checked. */
	assert_int_equal(sshconf_resolve(p, "box", &h, &d), 0);
	assert_string_equal(h.hostname, "from-default");
	sshconf_free(&h);
	diag_free(&d);
	free(p);
}

static void
test_proxy(void **state)
{
	static const struct {
		const char	*text;
		const char	*jump;
		const char	*command;
	} cases[] = {
		{ "ProxyJump bastion\n", "bastion", NULL },
		{ "ProxyJump none\nProxyJump bastion\n", NULL, NULL },
		{ "ProxyJump jump1,user@jump2:2222 # two hops\n", "jump1,user@jump2:2222", NULL },
		{ "ProxyCommand none\nProxyJump bastion\n", NULL, NULL },
		{ "ProxyCommand nc %h %p\n", NULL, "nc %h %p" },
		{ "ProxyCommand = sh -c \"nc %h %p\"\n", NULL, "sh -c \"nc %h %p\"" },
		{ "ProxyJump bastion\nProxyCommand nc %h %p\n", "bastion", NULL },
		{ "ProxyCommand nc %h %p\nProxyJump bastion\n", NULL, "nc %h %p" },
		/* ssh 9.2: ProxyJump none does not stop a later ProxyCommand. */
		{ "ProxyJump none\nProxyCommand nc %h %p\n", NULL, "nc %h %p" },
		{ "Host other\n  ProxyJump bastion\n", NULL, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sshconf_host h;
		struct diag d = DIAG_INIT;

		assert_int_equal(resolve(cases[i].text, "box", &h, &d), 0);
		if (cases[i].jump == NULL)
			assert_null(h.proxy_jump);
		else
			assert_string_equal(h.proxy_jump, cases[i].jump);
		if (cases[i].command == NULL)
			assert_null(h.proxy_command);
		else
			assert_string_equal(h.proxy_command, cases[i].command);
		sshconf_free(&h);
		diag_free(&d);
	}
}

static void
test_realistic(void **state)
{
	static const char cfg[] =
	    "# ~/.ssh/config\n"
	    "Include config.d/*\n"
	    "\n"
	    "Host bastion\n"
	    "    HostName bastion.corp.example.com\n"
	    "    User jump\n"
	    "    Port 2222\n"
	    "    IdentityFile ~/.ssh/bastion_ed25519\n"
	    "\n"
	    "Host *.internal !bastion\n"
	    "    ProxyJump bastion\n"
	    "    User deploy\n"
	    "\n"
	    "Host box box.internal\n"
	    "    HostName 10.0.0.7\n"
	    "    IdentityFile ~/.ssh/box_ed25519\n"
	    "    IdentitiesOnly yes\n"
	    "\n"
	    "Host *\n"
	    "    ServerAliveInterval 30\n"
	    "    ServerAliveCountMax 4\n"
	    "    IdentityFile ~/.ssh/id_ed25519\n"
	    "    UserKnownHostsFile ~/.ssh/known_hosts ~/.ssh/known_hosts.d/%h\n"
	    "    ConnectTimeout 10\n"
	    "    StrictHostKeyChecking accept-new\n";
	struct sshconf_host h;
	struct diag d = DIAG_INIT;
	char *p = at(".ssh/config");

	(void)state;
	mkdir_at(".ssh/config.d");
	put(".ssh/config.d/legacy", "Host legacy\n    Port 2200\n    User old\n");
	put(".ssh/config", cfg);

	assert_int_equal(sshconf_resolve(NULL, "box", &h, &d), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(h.hostname, "10.0.0.7");
	assert_int_equal(h.port, 22);
	assert_string_equal(h.user, luser());
	PATHS(h.identities, h.nidentities, "~/.ssh/box_ed25519", "~/.ssh/id_ed25519");
	assert_int_equal(h.identities_only, 1);
	PATHS(h.known_hosts, h.nknown_hosts, "~/.ssh/known_hosts", "~/.ssh/known_hosts.d/10.0.0.7");
	assert_int_equal(h.server_alive_interval, 30);
	assert_int_equal(h.server_alive_count_max, 4);
	assert_int_equal(h.connect_timeout_s, 10);
	assert_string_equal(h.strict_host_key_checking, "accept-new");
	assert_null(h.proxy_jump);
	sshconf_free(&h);

	assert_int_equal(sshconf_resolve(p, "box.internal", &h, &d), 0);
	assert_string_equal(h.hostname, "10.0.0.7");
	assert_string_equal(h.user, "deploy");
	assert_string_equal(h.proxy_jump, "bastion");
	PATHS(h.identities, h.nidentities, "~/.ssh/box_ed25519", "~/.ssh/id_ed25519");
	sshconf_free(&h);

	assert_int_equal(sshconf_resolve(NULL, "bastion", &h, &d), 0);
	assert_string_equal(h.hostname, "bastion.corp.example.com");
	assert_string_equal(h.user, "jump");
	assert_int_equal(h.port, 2222);
	assert_null(h.proxy_jump);
	assert_int_equal(h.identities_only, 0);
	PATHS(h.identities, h.nidentities, "~/.ssh/bastion_ed25519", "~/.ssh/id_ed25519");
	PATHS(h.known_hosts, h.nknown_hosts, "~/.ssh/known_hosts",
	    "~/.ssh/known_hosts.d/bastion.corp.example.com");
	sshconf_free(&h);

	assert_int_equal(sshconf_resolve(NULL, "db.internal", &h, &d), 0);
	assert_string_equal(h.hostname, "db.internal");
	assert_string_equal(h.user, "deploy");
	assert_string_equal(h.proxy_jump, "bastion");
	assert_int_equal(h.identities_given, 1);
	PATHS(h.identities, h.nidentities, "~/.ssh/id_ed25519");
	sshconf_free(&h);

	assert_int_equal(sshconf_resolve(NULL, "legacy", &h, &d), 0);
	assert_int_equal(h.port, 2200);
	assert_string_equal(h.user, "old");
	sshconf_free(&h);
	assert_int_equal(d.n, 0);
	diag_free(&d);
	free(p);
}

static void
test_match_list(void **state)
{
	static const struct {
		const char	*patterns;
		const char	*host;
		int		 want;
	} cases[] = {
		{ "*", "box", 1 },
		{ "*", "", 1 },
		{ "box", "box", 1 },
		{ "box", "boxx", 0 },
		{ "box", "bo", 0 },
		{ "b?x", "box", 1 },
		{ "b?x", "bx", 0 },
		{ "*.example.com", "a.example.com", 1 },
		{ "*.example.com", "example.com", 0 },
		{ "*a*b*", "xaxxbx", 1 },
		{ "*a*b", "xaxxbx", 0 },
		{ "a**?", "ab", 1 },
		{ "a**?", "a", 0 },
		{ "* !bastion", "bastion", 0 },
		{ "* !bastion", "box", 1 },
		{ "!bastion *", "bastion", 0 },
		{ "!bastion", "box", 0 },
		{ "!*", "box", 0 },
		{ "a,b c", "b", 1 },
		{ "a,b c", "c", 1 },
		{ "a,b\tc", "d", 0 },
		{ "a,!b,*", "b", 0 },
		{ "Box", "box", 0 },
		{ "", "box", 0 },
		{ "  ", "box", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (sshconf_match_list(cases[i].patterns, cases[i].host) != cases[i].want)
			fail_msg("sshconf_match_list(\"%s\", \"%s\") != %d", cases[i].patterns,
			    cases[i].host, cases[i].want);
}

static void
test_free_zeroed(void **state)
{
	struct sshconf_host h;

	(void)state;
	memset(&h, 0, sizeof(h));
	sshconf_free(&h);
	sshconf_free(&h);
	sshconf_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_value_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_patterns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keyword_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quoted_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_accumulates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_hosts_first_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tokens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_token_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostname_case_and_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include_loops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match_exec_never_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proxy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realistic, setup, teardown),
		cmocka_unit_test(test_match_list),
		cmocka_unit_test(test_free_zeroed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
