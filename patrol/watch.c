/*
 * watch.c: `patrol watch --job ID`: a config that watches a cluster job
 * which already runs.
 *
 * The seeds start from a job the owner submitted ("What is the Ray job
 * ID?"), so the run's file is written for them: one stage that adopts the
 * job (chain[].adopt) and, when given, the owner's own submit command to
 * recover it (chain[].resubmit).  The profile comes from the id's shape:
 * /<user>/<job> is Iris, all digits (an optional _N array task) is a Slurm
 * job watched from the login node (profile slurm-job), anything else is Ray.
 *
 * The text is validated before it reaches FILE: it is written (atomically)
 * to a temp file beside FILE, loaded with config_load and checked with
 * jobctl_check, as onbox will, then renamed over FILE; a config that does
 * not load is removed and FILE is left as it was.  Its options are its own
 * (patrol.c hands over argv after the word), so none of patrol's apply.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "atomic.h"
#include "buf.h"
#include "config.h"
#include "diag.h"
#include "err.h"
#include "fsutil.h"
#include "jobctl.h"
#include "log.h"
#include "patrol.h"
#include "xmalloc.h"

struct watch_opts {
	const char	*job, *profile, *run, *stage, *resubmit, *workdir, *host;
	const char	*out;
	int		 force;
};

static void
watch_usage(FILE *fp)
{
	fprintf(fp, "usage: patrol watch --job ID [--profile ray|iris|slurm-job] [--run NAME] [--stage NAME]\n"
	    "                    [--resubmit CMD] [--workdir DIR] [--host HOST] [-o FILE] [--force]\n\n"
	    "Writes a run's config (JSONC) that watches a cluster job which already runs: the\n"
	    "stage's first attempt adopts job ID (chain[].adopt) instead of submitting one.\n"
	    "  --job ID         a Ray submission id, an Iris id /<user>/<job>, a Slurm job id\n"
	    "  --profile P      ray, iris or slurm-job; else from the id: /<user>/<job> is iris,\n"
	    "                   digits (and _N) slurm-job, anything else ray\n"
	    "  --run NAME       the run's name (default: from the id, as [A-Za-z0-9._-])\n"
	    "  --stage NAME     the stage's name (default: train)\n"
	    "  --resubmit CMD   your own submit command, run to recover the stage after a\n"
	    "                   failure; ray and iris: it must pass --no-wait (the new id is read\n"
	    "                   from its output; sbatch --parsable returns at once)\n"
	    "  --workdir DIR    where onbox keeps .watchkeeper/ (default: this directory)\n"
	    "  --host HOST      box.host: the machine whose CLI reaches the cluster, for patrol\n"
	    "  -o FILE          where to write (default: ./watchkeeper.json); an existing FILE is\n"
	    "                   refused unless --force\n"
	    "\nexit: 0 written, 1 FILE exists (no --force), 64 usage, 74 cannot write FILE,\n"
	    "78 the config written does not validate (nothing is left behind).\n");
}

/* "iris", "ray", or "slurm-job" for a Slurm job id (digits, optionally _N). */
static const char *
watch_guess(const char *id)
{
	size_t n = strspn(id, "0123456789");

	if (id[0] == '/')
		return "iris";
	if (n > 0 && (id[n] == '\0' ||
	    (id[n] == '_' && id[n + 1] != '\0' && id[n + 1 + strspn(id + n + 1, "0123456789")] == '\0')))
		return "slurm-job";
	return "ray";
}

/* /<user>/<job>: what `iris job list --prefix` needs (seed 001). */
static int
watch_iris_id(const char *id)
{
	const char *job;

	return id[0] == '/' && id[1] != '/' && id[1] != '\0' && (job = strchr(id + 1, '/')) != NULL &&
	    job[1] != '\0';
}

/* The default run name: the id (Iris: after /<user>/), other characters as '-'. */
static char *
watch_run_name(const char *id, const char *profile)
{
	struct buf b = BUF_INIT;
	const char *p = id;
	char *name;

	if (strcmp(profile, "iris") == 0)
		p = strchr(id + 1, '/') + 1;
	for (; *p != '\0' && b.len < CONFIG_NAME_MAX; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("._-", *p) != NULL)
			buf_putc(&b, *p);
		else if (b.len > 0 && b.data[b.len - 1] != '-')
			buf_putc(&b, '-');
	}
	name = buf_detach(&b);
	if (!config_name_ok(name)) {
		free(name);
		name = xstrdup("adopted");
	}
	return name;
}

/* s as a JSON string, quotes and escapes included. */
static void
watch_str(struct buf *b, const char *s)
{
	cJSON *j = cJSON_CreateString(s);
	char *q = j != NULL ? cJSON_PrintUnformatted(j) : NULL;

	if (q == NULL)
		fatal("out of memory");
	buf_puts(b, q);
	cJSON_free(q);
	cJSON_Delete(j);
}

/* The config's text. */
static char *
watch_render(const struct watch_opts *o, const char *run, const char *workdir)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "{\n  // Written by `patrol watch`: watches a job that already runs on the cluster.\n"
	    "  // `onbox --help-config` lists every key; edit freely.\n  \"run\": ");
	watch_str(&b, run);
	buf_printf(&b, ",\n  // profiles/%s.json: \"detach\": \"job\" and the %s job CLI's commands.\n"
	    "  \"profile\": ", o->profile, strcmp(o->profile, "iris") == 0 ? "Iris" : "Ray");
	watch_str(&b, o->profile);
	buf_puts(&b, ",\n  // onbox's markers, logs and state go in <workdir>/.watchkeeper/.\n"
	    "  \"workdir\": ");
	watch_str(&b, workdir);
	if (o->host != NULL) {
		buf_puts(&b, ",\n  // Where onbox runs: a machine whose CLI reaches the cluster.\n"
		    "  \"box\": { \"host\": ");
		watch_str(&b, o->host);
		buf_puts(&b, " }");
	}
	buf_puts(&b, ",\n  \"chain\": [\n    // adopt: attempt 1 follows this job instead of submitting one.\n");
	if (o->resubmit != NULL)
		buf_puts(&b, "    // resubmit: your own command, run to recover the stage after a failure.\n");
	else
		buf_puts(&b, "    // No \"resubmit\": once the job fails it is reported, not recovered.\n");
	buf_puts(&b, "    { \"stage\": ");
	watch_str(&b, o->stage);
	buf_puts(&b, ", \"adopt\": ");
	watch_str(&b, o->job);
	if (o->resubmit != NULL) {
		buf_puts(&b, ",\n      \"resubmit\": ");
		watch_str(&b, o->resubmit);
	}
	buf_puts(&b, " }\n  ]\n}\n");
	return buf_detach(&b);
}

/* The options' own checks; 0, or WK_EX_USAGE after saying which flag and why. */
static int
watch_check(struct watch_opts *o)
{
	const char *guess;

	if (o->job == NULL || o->job[0] == '\0' || o->job[0] == '-' || o->job[strcspn(o->job,
	    " \t\r\n\v\f")] != '\0') {
		fprintf(stderr, "patrol watch: --job: %s\n", o->job == NULL ? "required (the job's id)" :
		    "not a job id (no blanks, not starting with -)");
		return WK_EX_USAGE;
	}
	guess = watch_guess(o->job);
	if (o->profile == NULL)
		o->profile = guess;
	if (strcmp(o->profile, "ray") != 0 && strcmp(o->profile, "iris") != 0 &&
	    strcmp(o->profile, "slurm-job") != 0) {
		fprintf(stderr, "patrol watch: --profile %s: one of ray, iris, slurm-job%s\n",
		    o->profile, strcmp(o->profile, "slurm") == 0 ? " (a Slurm job that already runs "
		    "is watched from the login node: slurm-job)" : "");
		return WK_EX_USAGE;
	}
	if (strcmp(o->profile, "iris") == 0 && !watch_iris_id(o->job)) {
		fprintf(stderr, "patrol watch: --job %s: an Iris id is /<user>/<job>, as `iris job "
		    "list` shows it\n", o->job);
		return WK_EX_USAGE;
	}
	if (o->run != NULL && !config_name_ok(o->run)) {
		fprintf(stderr, "patrol watch: --run %s: must match [A-Za-z0-9._-]+, be at most %d "
		    "characters, and not be \".\" or \"..\"\n", o->run, CONFIG_NAME_MAX);
		return WK_EX_USAGE;
	}
	if (!config_name_ok(o->stage)) {
		fprintf(stderr, "patrol watch: --stage %s: must match [A-Za-z0-9._-]+, be at most %d "
		    "characters, and not be \".\" or \"..\"\n", o->stage, CONFIG_NAME_MAX);
		return WK_EX_USAGE;
	}
	if (o->resubmit != NULL && strcmp(o->profile, "slurm-job") != 0 &&
	    !jobctl_has_nowait(o->resubmit)) {
		fprintf(stderr, "patrol watch: --resubmit: must pass --no-wait (as `%s --no-wait` "
		    "does): onbox reads the new job's id from its output and must not wait for the "
		    "job to end\n", strcmp(o->profile, "iris") == 0 ? "iris job run" : "ray job submit");
		return WK_EX_USAGE;
	}
	if (o->workdir != NULL && (o->workdir[0] == '\0' || (o->host != NULL &&
	    o->workdir[0] != '/' && o->workdir[0] != '~'))) {
		fprintf(stderr, "patrol watch: --workdir %s: %s\n", o->workdir, o->workdir[0] == '\0' ?
		    "empty" : "a directory on the box: give an absolute path (or ~/...)");
		return WK_EX_USAGE;
	}
	if (o->host != NULL && (o->host[0] == '\0' || o->host[0] == '-')) {
		fprintf(stderr, "patrol watch: --host %s: not a host name or ~/.ssh/config alias\n",
		    o->host);
		return WK_EX_USAGE;
	}
	return 0;
}

/* Write text to a temp file beside path, validate it, rename it over path.  An exit code. */
static int
watch_write(const char *path, const char *text)
{
	struct wk_config *cfg = NULL;
	struct diag d = DIAG_INIT;
	char hex[17], *dir = fs_abspath(path), *tmp;
	int rc = 0;

	*strrchr(dir, '/') = '\0';
	fs_random_hex(hex, 8);
	tmp = xstrfmt("%s/.watch-%s.json", dir, hex);
	if (atomic_write_str(tmp, text) != 0) {
		fprintf(stderr, "patrol watch: %s: %s\n", path, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	if (config_load(tmp, &cfg, &d) != 0 || jobctl_check(cfg, &d) != 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "patrol watch: the config for %s does not validate; nothing written "
		    "(exit 78)\n", path);
		rc = WK_EX_CONFIG;
	} else if (rename(tmp, path) != 0 || fsync_parent(path) != 0) {
		fprintf(stderr, "patrol watch: %s: %s\n", path, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
	}
	if (rc != 0)
		(void)unlink(tmp);
out:
	config_free(cfg);
	diag_free(&d);
	free(tmp);
	free(dir);
	return rc;
}

int
patrol_watch(int argc, char **argv)
{
	/* The options with a value come first, in the order of watch_opts' fields (val[]). */
	static const struct option longopts[] = {
		{ "job", required_argument, NULL, 'v' },
		{ "profile", required_argument, NULL, 'v' },
		{ "run", required_argument, NULL, 'v' },
		{ "stage", required_argument, NULL, 'v' },
		{ "resubmit", required_argument, NULL, 'v' },
		{ "workdir", required_argument, NULL, 'v' },
		{ "host", required_argument, NULL, 'v' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct watch_opts o = { .stage = "train", .out = "watchkeeper.json" };
	const char **val[] = { &o.job, &o.profile, &o.run, &o.stage, &o.resubmit, &o.workdir,
	    &o.host };
	char *run = NULL, *workdir = NULL, *text = NULL;
	int ch, idx, rc;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:h", longopts, &idx)) != -1) {
		switch (ch) {
		case 'v':
			*val[idx] = optarg;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'f':
			o.force = 1;
			break;
		case 'h':
			watch_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "patrol watch: %s: %s\n", argv[optind - 1],
			    ch == ':' ? "needs a value" : "unknown option");
			watch_usage(stderr);
			return WK_EX_USAGE;
		}
	}
	/* The options' checks first: `--job -o FILE` is a --job problem. */
	if ((rc = watch_check(&o)) != 0)
		return rc;
	if (optind != argc) {
		fprintf(stderr, "patrol watch: %s: unexpected argument\n", argv[optind]);
		watch_usage(stderr);
		return WK_EX_USAGE;
	}
	if (o.out[0] == '\0') {
		fprintf(stderr, "patrol watch: -o: empty\n");
		return WK_EX_USAGE;
	}
	if (!o.force && access(o.out, F_OK) == 0) {
		fprintf(stderr, "patrol watch: %s exists; not overwriting it (--force replaces it)\n",
		    o.out);
		return WK_EX_FAIL;
	}
	run = o.run != NULL ? xstrdup(o.run) : watch_run_name(o.job, o.profile);
	workdir = o.workdir == NULL || o.workdir[0] == '/' || o.workdir[0] == '~' ?
	    xstrdup_or_null(o.workdir) : fs_abspath(o.workdir);
	if (workdir == NULL)
		workdir = fs_abspath(".");
	text = watch_render(&o, run, workdir);
	if ((rc = watch_write(o.out, text)) != 0)
		goto out;
	printf("patrol watch: wrote %s (run %s: stage %s adopts %s job %s)\n\n%s\nnext:\n", o.out, run,
	    o.stage, o.profile, o.job, text);
	if (o.host != NULL) {
		printf("  patrol -c %s deploy    (onbox and this file to %s, then onbox start there)\n"
		    "  patrol -c %s --once    (one tick: expect OK, %s attempt 1)\n", o.out, o.host,
		    o.out, o.stage);
		if (o.workdir == NULL)
			printf("(workdir is this directory, %s: the box must have it, else --workdir)\n",
			    workdir);
	} else
		printf("  onbox -c %s start     (on this machine: its %s CLI must reach the cluster)\n"
		    "  onbox -c %s status\n(or copy the file to a machine whose %s CLI does and run "
		    "them there; with --host, `patrol deploy` does that)\n", o.out, o.profile, o.out,
		    o.profile);
out:
	free(text);
	free(workdir);
	free(run);
	return rc;
}
