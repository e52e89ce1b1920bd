/*
 * jsondiff.h: what changed between two JSON documents, for people.
 *
 * Both documents are flattened to leaf paths ("chain[0].run", "loss.spike_pct")
 * and compared; the result is one line per difference, in the order of the
 * newer document (removed paths last):
 *
 *   chain[0].run: "python train.py" -> "python train.py --lr 3e-4"
 *   + loss.spike_pct: 30
 *   - throughput
 *
 * A path for which hide() returns 1 is reported as changed without its
 * values ("notify[0].url: changed (value not shown)"), so secrets in a
 * config never reach a diff.  Values are cut to a bounded length.
 */
#ifndef WK_JSONDIFF_H
#define WK_JSONDIFF_H

#include <stddef.h>

#include <cJSON.h>

/*
 * The differences from old to new, at most max_lines lines (then "... and N
 * more"), or NULL when the documents are equal.  hide may be NULL.  Caller
 * frees.
 */
char *jsondiff_text(const cJSON *old, const cJSON *new, size_t max_lines,
    int (*hide)(const char *path));

/*
 * A copy of a config safe to keep on disk: every value under notify[] (URLs,
 * tokens, chat ids) is replaced by "(hidden #<digest>)", so a diff still
 * sees that it changed.  Caller deletes.
 */
cJSON *jsondiff_redacted(const cJSON *doc);

/* A hide() for watchkeeper configs: every value under notify[] (URLs, tokens, chat ids). */
int jsondiff_hide_secrets(const char *path);

#endif
