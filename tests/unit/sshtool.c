/*
 * sshtool.c: drives ssh/ssh.c (both transports) from the shell for tests/e2e/test_ssh.sh.
 *
 *   sshtool --host H --port P --user U --identity F --known-hosts F
 *           [--identities-only] [--timeout-ms N] [--connect-timeout-s N]
 *           [--keepalive-s N] [--keepalive-max N] [--cap BYTES] [--in FILE]
 *           [--put REMOTE_PATH [--mode OCTAL]] [--repeat N] [--alias NAME] [-v]
 *           [--openssh [--ssh-config FILE] [--control-path PATH]]
 *           [COMMAND]
 *
 * --openssh uses the system ssh client (ssh/sshcli.c): the destination is
 * --alias (else --host), resolved by ssh through --ssh-config (ssh -F);
 * --port, --user, --identity, --identities-only and --known-hosts, when
 * given, become ssh options over what that file says.  --host is then only
 * for messages (and the destination when there is no --alias).
 *
 * One connection; --put writes FILE's bytes (--in) to REMOTE_PATH, then
 * COMMAND runs --repeat times (default once) with FILE as its stdin.  Prints
 * one JSON object: on success the last command's exit_status, exit_signal,
 * out, err, byte counts and truncated; on failure the error kind, msg and
 * fingerprint.  Exit 0 on success, 2 on an ssh error, 64 on bad usage.
 * --identity and --known-hosts may be repeated.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fsutil.h"
#include "log.h"
#include "monotime.h"
#include "ssh.h"
#include "xmalloc.h"

#define SSHTOOL_IN_MAX	(256u * 1024 * 1024)

enum {
	OPT_HOST = 256, OPT_PORT, OPT_USER, OPT_IDENTITY, OPT_KNOWN, OPT_IDONLY, OPT_TIMEOUT,
	OPT_CTIMEOUT, OPT_KA, OPT_KAMAX, OPT_CAP, OPT_IN, OPT_PUT, OPT_MODE, OPT_REPEAT,
	OPT_ALIAS, OPT_OPENSSH, OPT_SSH_CONFIG, OPT_CONTROL_PATH,
};

static const struct option sshtool_opts[] = {
	{ "host", required_argument, NULL, OPT_HOST },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "user", required_argument, NULL, OPT_USER },
	{ "identity", required_argument, NULL, OPT_IDENTITY },
	{ "known-hosts", required_argument, NULL, OPT_KNOWN },
	{ "identities-only", no_argument, NULL, OPT_IDONLY },
	{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
	{ "connect-timeout-s", required_argument, NULL, OPT_CTIMEOUT },
	{ "keepalive-s", required_argument, NULL, OPT_KA },
	{ "keepalive-max", required_argument, NULL, OPT_KAMAX },
	{ "cap", required_argument, NULL, OPT_CAP },
	{ "in", required_argument, NULL, OPT_IN },
	{ "put", required_argument, NULL, OPT_PUT },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "alias", required_argument, NULL, OPT_ALIAS },
	{ "openssh", no_argument, NULL, OPT_OPENSSH },
	{ "ssh-config", required_argument, NULL, OPT_SSH_CONFIG },
	{ "control-path", required_argument, NULL, OPT_CONTROL_PATH },
	{ NULL, 0, NULL, 0 },
};

/* JSON string: control characters and bytes >= 0x80 as \u00XX, so any output parses. */
static void
sshtool_json_str(struct buf *b, const char *s, size_t n)
{
	unsigned char ch;
	size_t i;

	if (s == NULL) {
		buf_puts(b, "null");
		return;
	}
	buf_putc(b, '"');
	for (i = 0; i < n; i++) {
		ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, (char)ch);
		} else if (ch == '\n')
			buf_puts(b, "\\n");
		else if (ch < 0x20 || ch >= 0x7f)
			buf_printf(b, "\\u%04x", ch);
		else
			buf_putc(b, (char)ch);
	}
	buf_putc(b, '"');
}

static void
sshtool_json_cstr(struct buf *b, const char *s)
{
	sshtool_json_str(b, s, s != NULL ? strlen(s) : 0);
}

static long
sshtool_num(const char *s, int base, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, base);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < 0) {
		fprintf(stderr, "sshtool: bad %s: %s\n", what, s);
		exit(64);
	}
	return v;
}

static void
sshtool_push(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

int
main(int argc, char **argv)
{
	struct ssh_target t;
	struct ssh_error err;
	struct ssh_result res;
	struct ssh_conn *c = NULL;
	struct buf out = BUF_INIT;
	const char *command = NULL, *put = NULL, *infile = NULL;
	char *in = NULL;
	size_t inlen = 0, cap = 1024 * 1024, i;
	long timeout_ms = 30000, repeat = 1, runs = 0;
	int opt, verbose = 0, mode = 0644, ok = 0;
	uint64_t t0;

	memset(&t, 0, sizeof(t));
	memset(&err, 0, sizeof(err));
	memset(&res, 0, sizeof(res));
	res.exit_status = -1;
	t.port = 22;
	while ((opt = getopt_long(argc, argv, "v", sshtool_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_HOST: free(t.host); t.host = xstrdup(optarg); break;
		case OPT_PORT:
			t.port = (int)sshtool_num(optarg, 10, "port");
			t.given |= SSH_GIVEN_PORT;
			break;
		case OPT_USER:
			free(t.user);
			t.user = xstrdup(optarg);
			t.given |= SSH_GIVEN_USER;
			break;
		case OPT_IDENTITY:
			sshtool_push(&t.identities, &t.nidentities, optarg);
			t.given |= SSH_GIVEN_IDENTITY;
			break;
		case OPT_KNOWN:
			sshtool_push(&t.known_hosts, &t.nknown_hosts, optarg);
			t.given |= SSH_GIVEN_KNOWN_HOSTS;
			break;
		case OPT_IDONLY: t.identities_only = 1; t.given |= SSH_GIVEN_IDENTITIES_ONLY; break;
		case OPT_TIMEOUT: timeout_ms = sshtool_num(optarg, 10, "timeout"); break;
		case OPT_CTIMEOUT:
			t.connect_timeout_s = (int)sshtool_num(optarg, 10, "connect timeout");
			break;
		case OPT_KA: t.keepalive_s = (int)sshtool_num(optarg, 10, "keepalive"); break;
		case OPT_KAMAX: t.keepalive_max = (int)sshtool_num(optarg, 10, "keepalive max"); break;
		case OPT_CAP: cap = (size_t)sshtool_num(optarg, 10, "cap"); break;
		case OPT_IN: infile = optarg; break;
		case OPT_PUT: put = optarg; break;
		case OPT_MODE: mode = (int)sshtool_num(optarg, 8, "mode"); break;
		case OPT_REPEAT: repeat = sshtool_num(optarg, 10, "repeat"); break;
		case OPT_ALIAS: free(t.alias); t.alias = xstrdup(optarg); break;
		case OPT_OPENSSH: t.openssh = 1; break;
		case OPT_SSH_CONFIG:
			free(t.ssh_config_file);
			t.ssh_config_file = xstrdup(optarg);
			break;
		case OPT_CONTROL_PATH:
			free(t.control_path);
			t.control_path = xstrdup(optarg);
			break;
		case 'v': verbose++; break;
		default: fprintf(stderr, "sshtool: see the comment at the top of sshtool.c\n"); return 64;
		}
	}
	if (optind < argc)
		command = argv[optind++];
	if (optind != argc || (t.host == NULL && t.alias == NULL) || (command == NULL && put == NULL)) {
		fprintf(stderr, "usage: sshtool --host H --port P --user U --identity F "
		    "--known-hosts F [options] [COMMAND]\n");
		return 64;
	}
	log_init("sshtool", verbose);
	if (infile != NULL && fs_read_file(infile, SSHTOOL_IN_MAX, &in, &inlen) != 0) {
		fprintf(stderr, "sshtool: %s: %s\n", infile, strerror(errno));
		return 64;
	}
	t0 = monotime_ms();
	if (ssh_connect(&t, (int)timeout_ms, &c, &err) != 0)
		goto done;
	if (put != NULL && ssh_put(c, put, in != NULL ? in : "", inlen, mode, &err) != 0)
		goto done;
	for (; command != NULL && runs < repeat; runs++) {
		ssh_result_free(&res);
		if (ssh_exec(c, command, in, inlen, cap, &res, &err) != 0)
			goto done;
	}
	ok = 1;
done:
	ssh_close(c);
	buf_printf(&out, "{\"ok\": %s, \"runs\": %ld, \"elapsed_ms\": %llu", ok ? "true" : "false",
	    runs, (unsigned long long)(monotime_ms() - t0));
	if (ok && command != NULL) {
		buf_printf(&out, ", \"exit_status\": %d, \"exit_signal\": ", res.exit_status);
		sshtool_json_cstr(&out, res.exit_signal);
		buf_printf(&out, ", \"out_len\": %zu, \"err_len\": %zu, \"truncated\": %s, \"out\": ",
		    res.out_len, res.err_len, res.truncated ? "true" : "false");
		sshtool_json_str(&out, res.out, res.out_len);
		buf_puts(&out, ", \"err\": ");
		sshtool_json_str(&out, res.err, res.err_len);
	} else if (!ok) {
		buf_puts(&out, ", \"kind\": ");
		sshtool_json_cstr(&out, ssh_fail_name(err.kind));
		buf_puts(&out, ", \"msg\": ");
		sshtool_json_cstr(&out, err.msg);
		buf_puts(&out, ", \"fingerprint\": ");
		sshtool_json_cstr(&out, err.fingerprint);
	}
	buf_puts(&out, "}\n");
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	ssh_result_free(&res);
	for (i = 0; i < t.nidentities; i++)
		free(t.identities[i]);
	for (i = 0; i < t.nknown_hosts; i++)
		free(t.known_hosts[i]);
	free(t.identities);
	free(t.known_hosts);
	free(t.host);
	free(t.user);
	free(t.alias);
	free(t.ssh_config_file);
	free(t.control_path);
	free(in);
	return ok ? 0 : 2;
}
