/*
 * launchgate.c: the launch gate as onbox runs it (core/gate.c judges):
 * `onbox start` before it detaches, `onbox run` before anything launches.
 *
 * Passed: one line (the whole contract with full, and in onbox.log always,
 * since `onbox run` tees its log there).  Refused: the contract and each
 * refusal on stderr, exit 1, and nothing was started or written.
 *
 * Except when the first missing stage's newest attempt is unfinished: then
 * this start re-attaches to it (or follows it, or finds it lost), and
 * refusing would leave a live training unwatched.  The refusals are said
 * as a warning and the start goes on; a new attempt it may launch passes
 * the gate again there (runner_launch, entry.c).
 */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "gate.h"
#include "history.h"
#include "jsonfile.h"
#include "log.h"
#include "onbox.h"
#include "runner-int.h"

int
onbox_attempt_unfinished(const struct wk_config *cfg)
{
	size_t i = runner_first_missing(cfg);
	cJSON *hist;
	int r;

	if (i >= cfg->nchain || (hist = hist_load(cfg->workdir, cfg->chain[i].name)) == NULL)
		return 0;
	r = is_unfinished(hist_last(hist));
	cJSON_Delete(hist);
	return r;
}

int
onbox_gate(const struct wk_config *cfg, int allow_dirty, int full, cJSON **contract)
{
	struct gate_result res;
	const cJSON *g, *c;
	int rc;

	if (gate_local(cfg, allow_dirty, &res) != 0)
		return WK_EX_SOFTWARE;	/* said */
	if (full) {	/* --check: the contract and its refusals, on stdout */
		fputs(buf_str(&res.text), stdout);
		rc = res.refused > 0 ? WK_EX_FAIL : 0;
		goto out;
	}
	if (res.refused > 0 && onbox_attempt_unfinished(cfg)) {
		log_warn("launch gate: run %s would be refused (%d refusal%s), but an attempt of it "
		    "is unfinished: re-attaching to it, not launching; a new attempt is gated "
		    "again:\n%s", cfg->run, res.refused, res.refused == 1 ? "" : "s",
		    buf_str(&res.text));
		rc = 0;
		goto out;	/* no contract: the next launch gates itself */
	}
	if (res.refused > 0) {
		log_error("launch gate: run %s is not started (%d refusal%s):\n%s", cfg->run,
		    res.refused, res.refused == 1 ? "" : "s", buf_str(&res.text));
		rc = WK_EX_FAIL;
		goto out;
	}
	g = cJSON_GetObjectItemCaseSensitive(res.json, "git");
	c = cJSON_GetObjectItemCaseSensitive(res.json, "checkpoint");
	if (contract != NULL)	/* onbox run: into onbox.log */
		log_info("%s", buf_str(&res.text));
	else
		printf("launch gate: passed (%s%s%s%s%s%s)\n",
		    json_str(g, "sha", NULL) != NULL ? "git " : "code not in git",
		    json_str(g, "sha", ""), json_bool(g, "dirty", 0) ? " dirty, " : "",
		    json_str(g, "allowed", ""), json_str(c, "path", NULL) != NULL ?
		    "; {checkpoint}: " : "", json_str(c, "path", ""));
	if (contract != NULL) {
		json_set_str(res.json, "text", buf_str(&res.text));
		*contract = res.json;
		res.json = NULL;	/* transferred */
	}
	rc = 0;
 out:
	gate_result_free(&res);
	return rc;
}
