/*
 * fuzz_config.c: the config loader on arbitrary text.
 *
 * The input is a config file's text.  It goes three ways:
 *   - jsonc_strip() on a copy: it may only turn bytes into spaces, never
 *     touch a newline, so its output is checked byte by byte;
 *   - jsonc_parse() on the buffer (comments, cJSON, the key-line index);
 *   - config_load() on a file holding it (the whole loader: key tables,
 *     profile merge from the tree's profiles/, regexes, derived checks).
 * A load that fails must say why (at least one diagnostic); a load that
 * succeeds is handed to the code that reads a config: the probe script, the
 * Slurm and job checks and command lines, the remote command, the health
 * detectors.  Nothing is kept between inputs but the scratch file's name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "config.h"
#include "diag.h"
#include "fuzzutil.h"
#include "health.h"
#include "jobctl.h"
#include "jsonc.h"
#include "log.h"
#include "probe.h"
#include "remote.h"
#include "slurm.h"
#include "xmalloc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *cfg_path;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Only the tree's profiles: a profile of the machine's would make runs differ. */
	unsetenv("WATCHKEEPER_PROFILES");
	log_init("fuzz_config", 0);
	cfg_path = fz_path("watchkeeper.json");
	return 0;
}

/* jsonc_strip() turns comment bytes (and a BOM) into spaces and nothing else. */
static void
check_strip(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	size_t i;
	int line;

	memcpy(s, data, size);
	s[size] = '\0';
	(void)jsonc_strip(s, size, &line);
	for (i = 0; i < size; i++) {
		if ((unsigned char)s[i] == data[i])
			continue;
		if (s[i] != ' ' || data[i] == '\n' || data[i] == '\r') {
			fprintf(stderr, "jsonc_strip changed byte %zu from 0x%02x to 0x%02x\n",
			    i, data[i], (unsigned char)s[i]);
			abort();
		}
	}
	free(s);
}

static void
check_parse(const uint8_t *data, size_t size)
{
	struct jsonc_index idx = JSONC_INDEX_INIT;
	struct diag d = DIAG_INIT;
	cJSON *root = NULL;
	size_t i;
	int rc;

	rc = jsonc_parse("fuzz.json", (const char *)data, size, &root, &idx, &d);
	if (rc == 0) {
		if (root == NULL)
			abort();
		for (i = 0; i < idx.n; i++) {
			/* Every key has a line, and a lookup by its path finds one. */
			if (idx.keys[i].line < 1 || jsonc_index_line(&idx, idx.keys[i].path) < 1)
				abort();
		}
	} else if (root != NULL || idx.n != 0 || d.n == 0)
		abort();
	cJSON_Delete(root);
	jsonc_index_free(&idx);
	diag_free(&d);
}

/* What the binaries do with a config that loaded. */
static void
use_config(const struct wk_config *cfg)
{
	struct health *h = NULL;
	struct diag d = DIAG_INIT;
	char errbuf[256], *s, *why;
	size_t i;

	s = probe_script(cfg);
	free(s);
	s = probe_script_at(cfg, 12345);
	free(s);
	s = remote_onbox_command(cfg, "status --json");
	free(s);
	s = remote_boxcfg(cfg);
	free(s);
	(void)jobctl_check(cfg, &d);
	(void)slurm_check(cfg, &d);
	s = slurm_query_script(cfg);
	free(s);
	for (i = 0; i < cfg->nchain; i++) {
		why = NULL;
		s = slurm_sbatch_command(cfg, i, "/opt/wk/bin/onbox", "/opt/wk/run.json",
		    i > 0 ? "123" : NULL, &why);
		if (s == NULL && why == NULL)
			abort();
		free(s);
		free(why);
		if (config_stage(cfg, cfg->chain[i].name) == NULL)
			abort();
		s = jobctl_job_name(cfg, cfg->chain[i].name);
		free(s);
	}
	if (health_new(cfg, &h, errbuf, sizeof(errbuf)) == 0)
		health_free(h);
	diag_free(&d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d = DIAG_INIT;
	struct wk_config *cfg = NULL;
	int rc;

	if (size > JSONC_MAX_SIZE + 16)
		return -1;
	check_strip(data, size);
	check_parse(data, size);

	fz_write(cfg_path, data, size, 0);
	rc = config_load(cfg_path, &cfg, &d);
	if (rc == 0) {
		if (cfg == NULL || cfg->nchain == 0)
			abort();
		use_config(cfg);
	} else if (cfg != NULL || d.n == 0) {
		fprintf(stderr, "config_load failed (%d) without a diagnostic\n", rc);
		abort();
	}
	config_free(cfg);
	diag_free(&d);
	return 0;
}
