/*
 * test_curlcmd.c: the curl config quoting survives the real `curl -q -K -`
 * parser byte for byte (every hostile string is given to curl as an output
 * file name, and the file must appear under exactly that name), the config
 * keeps one option per line whatever the request holds, and the knob, the
 * curl finder and the CA bundle choice behave as curlcmd.h says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

#include "unit.h"

#include "curlapi.h"
#include "curlcmd.h"
#include "notify.h"

static const char *const hostile[] = {
	"\"", "\\", "\\\"", "a\"b", "\"\"", "trailing\\", "\\n literally", "a\nb", "\n", "\r",
	"\r\n", "\t", "\v", "x\\\" y", "#comment", "=eq", ":colon", "  spaces  ", " ",
	"\x01\x02\x7f\xff\xfe", "\xc3\xa9 \xe4\xb8\xad", "%s %{http_code} %n", "@file", "-dash",
	"url = \"evil\"", "a\nurl = \"evil\"\nx", "\\\\\\", "'single'", "$(x) `y`",
};

static char *curl_path;

static int
setup(void **state)
{
	char buf[PATH_MAX];
	const char *why;

	(void)state;
	unsetenv(HTTP_KNOB);
	if (curlcmd_find(buf, sizeof(buf), &why) == 0)
		curl_path = xstrdup(buf);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	free(curl_path);
	return 0;
}

/* Run curl -q -K - with conf on stdin; its exit status. */
static int
run_curl(const char *conf)
{
	char tmp[] = "/tmp/wk-curlcmd-conf-XXXXXX";
	char *argv[5];
	struct spawn_opts o;
	int fd, status = -1;
	pid_t pid;

	assert_true((fd = mkstemp(tmp)) >= 0);
	assert_int_equal(write(fd, conf, strlen(conf)), (ssize_t)strlen(conf));
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	unlink(tmp);
	argv[0] = curl_path;
	argv[1] = (char *)"-q";
	argv[2] = (char *)"-K";
	argv[3] = (char *)"-";
	argv[4] = NULL;
	spawn_opts_init(&o);
	o.fd_in = fd;
	o.fd_err = SPAWN_INHERIT;
	pid = spawn_argv(argv, &o);
	close(fd);
	assert_true(pid > 0);
	assert_int_equal(spawn_wait(pid, &status), 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Files in dir other than "src". */
static int
count_others(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    strcmp(e->d_name, "src") != 0;
	closedir(d);
	return n;
}

/* curl, given name through curlcmd_quote, writes exactly dir/name. */
static void
roundtrip_name(const char *dir, const char *name)
{
	char *src = xstrfmt("%s/src", dir), *url = xstrfmt("file://%s", src);
	char *path = xstrfmt("%s/%s", dir, name), *qurl = curlcmd_quote(url);
	char *qpath = curlcmd_quote(path), *conf, *got = NULL;
	size_t len = 0;

	conf = xstrfmt("silent\nshow-error\ngloboff\nurl = %s\noutput = %s\n", qurl, qpath);
	if (run_curl(conf) != 0)
		fail_msg("curl failed with output = %s", qpath);
	if (fs_read_file(path, 1024, &got, &len) != 0)
		fail_msg("curl did not write the file named %s", qpath);
	assert_int_equal(len, 8);
	assert_memory_equal(got, "payload\n", 8);
	/* No other file: the name was not cut or split into another option. */
	assert_int_equal(count_others(dir), 1);
	assert_int_equal(unlink(path), 0);
	free(got);
	free(conf);
	free(qpath);
	free(qurl);
	free(path);
	free(url);
	free(src);
}

static void
test_roundtrip_through_curl(void **state)
{
	char dir[] = "/tmp/wk-curlcmd-XXXXXX", *src, all[256];
	size_t i, n = 0;
	int c;

	(void)state;
	if (curl_path == NULL)
		skip();
	assert_non_null(mkdtemp(dir));
	src = xstrfmt("%s/src", dir);
	unit_put(src, "payload\n");
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++)
		roundtrip_name(dir, hostile[i]);
	/* Every byte a file name can hold, in one name. */
	for (c = 1; c < 256; c++)
		if (c != '/')
			all[n++] = (char)c;
	all[n] = '\0';
	roundtrip_name(dir, all);
	free(src);
	assert_int_equal(unit_rmrf(dir), 0);
}

static void
test_exact_forms(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "\"\"" },
		{ "abc", "\"abc\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "a\\b", "\"a\\\\b\"" },
		{ "1\n2\r3\t4\v5", "\"1\\n2\\r3\\t4\\v5\"" },
		{ "\xc3\xa9\x01", "\"\xc3\xa9\x01\"" },
	};
	size_t i;
	char *q;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		q = curlcmd_quote(cases[i].in);
		assert_string_equal(q, cases[i].out);
		free(q);
	}
}

static void
test_config_one_option_per_line(void **state)
{
	static const char *const allowed[] = { "silent", "show-error", "globoff", "proto",
		"connect-timeout", "max-time", "cacert", "header", "data-binary", "data-raw",
		"write-out", "url" };
	char *headers[] = { (char *)"Content-Type: application/json", (char *)"X-Evil: a\nurl = \"x\"" };
	struct notify_sinks all;
	struct notify_request rq;
	char *conf, *line, *save = NULL;
	int nlines = 0, nurl = 0, raw = 0;
	size_t i;

	(void)state;
	memset(&all, 0, sizeof(all));
	all.connect_timeout_s = 3;
	all.timeout_s = 9;
	memset(&rq, 0, sizeof(rq));
	rq.url = (char *)"http://127.0.0.1:1/a\"b\\c\nurl = \"http://evil\"";
	rq.headers = headers;
	rq.nheaders = 2;
	rq.body = (char *)"{\"text\": \"line1\\nline2\"}\n\r\nurl = \"http://evil\"";
	rq.body_len = strlen(rq.body);
	conf = curlcmd_config(&all, &rq, "/ca dir/\"b\".pem");
	for (line = strtok_r(conf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		size_t w = strcspn(line, " ");
		int ok = 0;

		for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
			ok |= strlen(allowed[i]) == w && strncmp(line, allowed[i], w) == 0;
		if (!ok)
			fail_msg("unexpected config line: %s", line);
		nurl += strncmp(line, "url ", 4) == 0;
		nlines++;
	}
	/* 3 flags, proto, 2 timeouts, cacert, 3 headers, data, write-out, url */
	assert_int_equal(nlines, 13);
	assert_int_equal(nurl, 1);
	free(conf);
	/* A body starting with '@' must not make curl read a file. */
	rq.body = (char *)"@/etc/passwd";
	rq.body_len = strlen(rq.body);
	conf = curlcmd_config(&all, &rq, NULL);
	raw = strstr(conf, "\ndata-raw = \"@/etc/passwd\"\n") != NULL;
	assert_true(raw);
	assert_null(strstr(conf, "data-binary"));
	assert_null(strstr(conf, "cacert"));
	free(conf);
}

static void
test_knob(void **state)
{
	static const struct {
		const char *v;
		enum http_knob k;
	} cases[] = {
		{ "", HTTP_AUTO }, { "auto", HTTP_AUTO }, { "libcurl", HTTP_LIBCURL },
		{ "curl", HTTP_CURL }, { "none", HTTP_NONE }, { "CURL", HTTP_BAD },
		{ "curl ", HTTP_BAD },
	};
	size_t i;

	(void)state;
	unsetenv(HTTP_KNOB);
	assert_int_equal(http_knob(), HTTP_AUTO);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv(HTTP_KNOB, cases[i].v, 1);
		assert_int_equal(http_knob(), cases[i].k);
	}
	unsetenv(HTTP_KNOB);
}

static void
test_find(void **state)
{
	char dir[] = "/tmp/wk-curlcmd-find-XXXXXX", buf[PATH_MAX], *stub, *path, *old;
	const char *why = NULL;

	(void)state;
	old = xstrdup_or_null(getenv("PATH"));
	assert_non_null(mkdtemp(dir));
	stub = xstrfmt("%s/curl", dir);
	unit_put(stub, "#!/bin/sh\nexit 0\n");
	/* Not executable: skipped. */
	path = xstrfmt("relative/dir:%s:/nonexistent", dir);
	setenv("PATH", path, 1);
	if (curlcmd_find(buf, sizeof(buf), &why) == 0)
		assert_string_not_equal(buf, stub);
	assert_int_equal(chmod(stub, 0755), 0);
	assert_int_equal(curlcmd_find(buf, sizeof(buf), &why), 0);
	assert_string_equal(buf, stub);
	setenv(HTTP_KNOB, "none", 1);
	assert_int_equal(curlcmd_find(buf, sizeof(buf), &why), -1);
	assert_string_equal(why, "WATCHKEEPER_HTTP=none");
	setenv(HTTP_KNOB, "libcurl", 1);
	assert_int_equal(curlcmd_find(buf, sizeof(buf), &why), -1);
	setenv(HTTP_KNOB, "curl", 1);
	assert_int_equal(curlcmd_find(buf, sizeof(buf), &why), 0);
	unsetenv(HTTP_KNOB);
	if (old != NULL)
		setenv("PATH", old, 1);
	else
		unsetenv("PATH");
	assert_int_equal(unit_rmrf(dir), 0);
	free(path);
	free(stub);
	free(old);
}

static void
test_cafile(void **state)
{
	static const char *const known[] = { "/etc/ssl/certs/ca-certificates.crt",
		"/etc/pki/tls/certs/ca-bundle.crt", "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
		"/etc/ssl/ca-bundle.pem", "/etc/ssl/cert.pem" };
	const char *ca, *want = NULL;
	size_t i;

	(void)state;
	setenv("CURL_CA_BUNDLE", "/x/ca.pem", 1);
	setenv("SSL_CERT_FILE", "/y/ca.pem", 1);
	assert_string_equal(curlcmd_cafile(), "/x/ca.pem");
	unsetenv("CURL_CA_BUNDLE");
	assert_string_equal(curlcmd_cafile(), "/y/ca.pem");
	setenv("SSL_CERT_FILE", "", 1);
	for (i = 0; i < sizeof(known) / sizeof(known[0]) && want == NULL; i++)
		if (access(known[i], R_OK) == 0)
			want = known[i];
	ca = curlcmd_cafile();
	if (want == NULL)
		assert_null(ca);
	else
		assert_string_equal(ca, want);
	unsetenv("SSL_CERT_FILE");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_forms),
		cmocka_unit_test(test_roundtrip_through_curl),
		cmocka_unit_test(test_config_one_option_per_line),
		cmocka_unit_test(test_knob),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_cafile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
