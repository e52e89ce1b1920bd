/*
 * main.c: the handbook binary, layer 4's entry point (the renderer is the
 * library in handbook/render*.c).
 *
 *   handbook [-c FILE]                   write <statedir>/HANDBOOK.md, print its path
 *   handbook [-c FILE] -o FILE|-         write it to FILE, or to stdout
 *   handbook [-c FILE] --check [-o FILE] does what the handbook claims still hold?
 *
 * The handbook is rendered by the library in handbook/render*.c from the config, patrol's
 * state (read, never locked: a tick may be running) and the crontab.
 * --check reads the claims line at the end of the file back and compares
 * it with the box (one connection, one probe, as patrol's tick does) and
 * with the crontab, one line per claim.
 *
 * Exit: 0 written / no drift, 1 drift, 2 the box could not be seen (the
 * cron claim is still checked), 64 usage, 74 the handbook or the state
 * directory cannot be read or written, 78 config error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopts.h"
#include "config.h"
#include "crontab.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "handbook.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "pstate.h"
#include "probe.h"
#include "scheduler.h"
#include "ssh.h"
#include "target.h"
#include "xmalloc.h"

#define CHECK_BUDGET_S	60	/* the probe, on top of the connect timeout (as patrol's tick) */
#define HANDBOOK_MAX	(16u << 20)

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: handbook [-c FILE] [-o FILE|-] [-v]\n"
	    "       handbook [-c FILE] --check [-o FILE] [-v]\n\n"
	    "Write HANDBOOK.md, everything needed to take the run over, into the run's local\n"
	    "state directory (or FILE, or stdout with -o -) and print its path.  --check reads\n"
	    "what the handbook claims (markers present or absent, the cron line installed or\n"
	    "not) and compares it with the box and the crontab.\n\n"
	    "exit: 0 written / no drift, 1 drift, 2 box not reachable, 64 usage,\n"
	    "74 handbook or state unreadable, 78 config error.\n");
}

/* What one check run found. */
struct check {
	int	nclaims;
	int	ndrift;
	int	nunknown;
};

/* The probe of the box, or -1 with *why (caller frees). */
static int
check_probe(const struct wk_config *cfg, struct probe *p, char **why)
{
	struct ssh_target t;
	struct ssh_error err;
	struct ssh_conn *conn = NULL;
	struct ssh_result res;
	struct diag d = DIAG_INIT;
	char *script = NULL;
	int r = -1;

	*why = NULL;
	memset(&res, 0, sizeof(res));
	if (target_from_config(cfg, &t, &err, &d) != 0) {
		diag_print(&d, stderr);
		*why = xstrdup(err.msg);
		diag_free(&d);
		return -1;
	}
	diag_print(&d, stderr);
	if (ssh_connect(&t, (t.connect_timeout_s + CHECK_BUDGET_S) * 1000, &conn, &err) != 0) {
		*why = xstrfmt("%s: %s", ssh_fail_name(err.kind), err.msg);
		goto out;
	}
	script = probe_script(cfg);
	if (ssh_exec(conn, "sh -s", script, strlen(script), PROBE_MAX_OUT, &res, &err) != 0) {
		*why = xstrfmt("%s: %s", ssh_fail_name(err.kind), err.msg);
		goto out;
	}
	if (res.truncated) {
		*why = xstrdup("the probe's output exceeded its bound");
		goto out;
	}
	if (probe_parse(NULL, res.out, res.out_len, p, why) != 0)
		goto out;
	r = 0;
 out:
	if (conn != NULL)
		ssh_close(conn);
	ssh_result_free(&res);
	free(script);
	target_free(&t);
	diag_free(&d);
	return r;
}

/* One marker claim (name "M" or "M.FAILED") against the box. */
static void
check_marker(struct check *k, const char *name, int claimed, int have)
{
	k->nclaims++;
	if (have < 0) {
		k->nunknown++;
		printf("?     marker %s: not checked (the box was not seen)\n", name);
	} else if (claimed == have)
		printf("ok    marker %s %s\n", name, have ? "present" : "absent");
	else {
		k->ndrift++;
		printf("DRIFT marker %s: the handbook says %s, the box %s\n", name,
		    claimed ? "present" : "absent", have ? "has it" : "does not have it");
	}
}

/* 1 when the box has marker's FAILED twin (readable or not). */
static int
check_has_failed(const struct probe *p, const char *marker)
{
	size_t i;

	for (i = 0; i < p->nfailed; i++)
		if (strcmp(p->failed[i].marker, marker) == 0)
			return 1;
	return 0;
}

/* 1 when every value of obj (NULL is fine) is a boolean. */
static int
check_bools(const cJSON *obj)
{
	const cJSON *it;

	if (obj == NULL)
		return 1;
	if (!cJSON_IsObject(obj))
		return 0;
	cJSON_ArrayForEach(it, obj)
		if (!cJSON_IsBool(it))
			return 0;
	return 1;
}

static int
handbook_check(const struct wk_config *cfg, const char *path)
{
	const cJSON *markers, *failed, *cron, *it;
	struct check k = { 0, 0, 0 };
	struct probe p;
	cJSON *claims = NULL;
	char *text = NULL, *why = NULL, *name;
	int r, seen = 0, rc, cur, mask;

	memset(&p, 0, sizeof(p));
	if (fs_read_file(path, HANDBOOK_MAX, &text, NULL) != 0) {
		log_error("cannot read the handbook %s: %s", path, wk_strerror(WK_ERR_SYSTEM));
		return WK_EX_IOERR;
	}
	r = handbook_claims_parse(text, &claims);
	free(text);
	if (r == WK_ERR_NOTFOUND) {
		log_error("%s: no claims line (\"" CLAIMS_TAG "... -->\"): not a handbook, or cut short",
		    path);
		return WK_EX_IOERR;
	}
	markers = cJSON_GetObjectItemCaseSensitive(claims, "markers");
	failed = cJSON_GetObjectItemCaseSensitive(claims, "failed");
	cron = cJSON_GetObjectItemCaseSensitive(claims, "cron");
	if (r != 0 || !check_bools(markers) || !check_bools(failed) ||
	    (cron != NULL && !cJSON_IsBool(cron))) {
		log_error("%s: the claims line is garbled", path);
		cJSON_Delete(claims);
		return WK_EX_IOERR;
	}
	printf("checking %s (generated %s)\n", path, json_str(claims, "generated", "at an unknown time"));

	if (cJSON_GetArraySize(markers) + cJSON_GetArraySize(failed) > 0) {
		if (check_probe(cfg, &p, &why) == 0)
			seen = 1;
		else
			printf("box not reachable: %s\n", why);
		cJSON_ArrayForEach(it, markers)
			check_marker(&k, it->string, cJSON_IsTrue(it), seen ? probe_has_marker(&p, it->string) : -1);
		cJSON_ArrayForEach(it, failed) {
			name = xstrfmt("%s.FAILED", it->string);
			check_marker(&k, name, cJSON_IsTrue(it), seen ? check_has_failed(&p, it->string) : -1);
			free(name);
		}
	} else
		printf("-     markers: the handbook claims nothing about them (no tick had seen the box)\n");

	if (cron != NULL) {
		k.nclaims++;
		mask = sched_installed(cfg);
		cur = mask < 0 ? -1 : mask != 0;
		if (cur < 0) {
			k.nunknown++;
			printf("?     cron: not checked (`crontab -l` failed)\n");
		} else if (cur == cJSON_IsTrue(cron))
			printf("ok    cron %s\n", cur ? "installed" : "not installed");
		else {
			k.ndrift++;
			if (mask & (1 << SCHED_CRON) || !cur)
				printf("DRIFT cron: the handbook says %s, the crontab %s\n",
				    cJSON_IsTrue(cron) ? "installed" : "not installed",
				    cur ? "has this run's line" : "does not have this run's line");
			else
				printf("DRIFT cron: the handbook says not installed, a %s has this run\n",
				    sched_entry_name(mask));
		}
	} else
		printf("-     cron: the handbook does not say (the crontab could not be read then)\n");

	if (k.ndrift > 0)
		printf("drift: %d of %d claims no longer hold; write the handbook again (handbook -c %s)\n",
		    k.ndrift, k.nclaims, cfg->path);
	else if (k.nunknown > 0)
		printf("no drift seen, but %d of %d claims could not be checked\n", k.nunknown, k.nclaims);
	else
		printf("no drift: %d claims hold\n", k.nclaims);
	rc = !seen && cJSON_GetArraySize(markers) + cJSON_GetArraySize(failed) > 0 ? 2 :
	    k.ndrift > 0 ? 1 : 0;

	if (seen)
		probe_free(&p);
	free(why);
	cJSON_Delete(claims);
	return rc;
}

static int
handbook_generate(const struct wk_config *cfg, const char *cfgpath, const char *out)
{
	struct handbook_ctx c;
	char *statedir, *bindir, *abs, *target = NULL, *md, *transport = NULL;
	cJSON *ps = NULL;
	int rc = 0;

	if ((statedir = statedir_path(cfg, 1)) == NULL) {
		log_error("cannot create the run's state directory: %s", wk_strerror(WK_ERR_SYSTEM));
		return WK_EX_IOERR;
	}
	bindir = fs_self_dir();
	abs = fs_abspath(cfgpath);
	ps = pstate_load(statedir);
	c = (struct handbook_ctx){ .cfg = cfg, .config_path = abs, .bindir = bindir,
	    .statedir = statedir, .pstate = ps, .cron = sched_is_installed(cfg),
	    .generator = "handbook" };
	/* The transport as patrol would choose it now (no connection is made). */
	if (cfg->box.host != NULL) {
		struct ssh_target t;
		struct ssh_error err;
		struct diag d = DIAG_INIT;

		if (target_from_config(cfg, &t, &err, &d) == 0) {
			c.transport = transport = target_transport_text(&t);
			target_free(&t);
		}
		diag_free(&d);
	}
	if (out != NULL && strcmp(out, "-") == 0) {
		md = handbook_render(&c);
		fputs(md, stdout);
		free(md);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			log_error("cannot write to stdout: %s", wk_strerror(WK_ERR_SYSTEM));
			rc = WK_EX_IOERR;
		}
		goto out;
	}
	target = out != NULL ? xstrdup(out) : fs_join(statedir, HANDBOOK_FILE);
	if (handbook_write(&c, target) != 0) {
		log_error("cannot write %s: %s", target, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	printf("%s\n", target);
 out:
	free(transport);
	cJSON_Delete(ps);
	free(statedir);
	free(bindir);
	free(abs);
	free(target);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "check", no_argument, NULL, 'C' },
		WK_LONGOPTS_COMMON
	};
	struct wk_config *cfg = NULL;
	struct cli_common cc = { "handbook", usage, NULL, 0 };
	const char *out = NULL;
	char *path, *dir, *file;
	int ch, check = 0, rc;

	log_init("handbook", 0);
	while ((ch = getopt_long(argc, argv, "c:o:vVh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			out = optarg;
			break;
		case 'C':
			check = 1;
			break;
		default:
			if ((rc = cli_common(&cc, ch)) != CLI_NEXT)
				return rc;
		}
	}
	if (optind != argc || (out != NULL && *out == '\0')) {
		usage(stderr);
		return WK_EX_USAGE;
	}
	if (check && out != NULL && strcmp(out, "-") == 0) {
		fprintf(stderr, "handbook: --check reads a file: give -o FILE, not -o -\n");
		return WK_EX_USAGE;
	}
	log_init("handbook", cc.verbose);
	path = config_find(cc.config);
	if (config_load_report("handbook", path, &cfg) != 0) {
		free(path);
		return WK_EX_CONFIG;
	}
	if (!check)
		rc = handbook_generate(cfg, path, out);
	else if (out != NULL)
		rc = handbook_check(cfg, out);
	else if ((dir = statedir_path(cfg, 0)) == NULL) {
		log_error("no local state directory for run %s: %s", cfg->run, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
	} else {
		file = fs_join(dir, HANDBOOK_FILE);
		rc = handbook_check(cfg, file);
		free(file);
		free(dir);
	}
	config_free(cfg);
	free(path);
	return rc;
}
