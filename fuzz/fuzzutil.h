/*
 * fuzzutil.h: what the libFuzzer targets in fuzz/ share.
 *
 * Each target keeps one scratch directory per process (created on first use
 * under $TMPDIR, else /tmp, removed at exit), so inputs that must be files
 * (configs, logs) never touch the tree.  fuzz/run.sh points TMPDIR at its
 * build dir and removes it afterwards too, since a crashing target exits
 * without running atexit handlers.
 *
 * A failure of the harness itself (cannot create a file) is not a finding:
 * it is reported on stderr and aborts, so it cannot pass unnoticed.
 */
#ifndef WK_FUZZUTIL_H
#define WK_FUZZUTIL_H

#include <stddef.h>

#include "config.h"

/* The per-process scratch directory (absolute); created on the first call. */
const char *fz_tmpdir(void);
/*
 * Remove the scratch directory now (a target that needs it only to load its
 * fixed configs calls this at the end of its initializer, so that even a
 * crash leaves nothing behind).  A later fz_tmpdir() makes a new one.
 */
void fz_tmpdir_remove(void);
/* dir/name in the scratch directory; caller frees. */
char *fz_path(const char *name);
/* Write (or append) data[0..len) to path. */
void fz_write(const char *path, const void *data, size_t len, int append);
/* Load a fixed, known-good config text (written to name in the scratch dir); aborts on error. */
struct wk_config *fz_config(const char *name, const char *json);
/*
 * Split len bytes into at most n pieces at offsets taken from the input
 * itself (its first bytes, a seed that shifts with every mutation); cut[i]
 * is where piece i ends, cut[n - 1] == len.  Returns the number of pieces.
 */
size_t fz_cuts(const unsigned char *data, size_t len, size_t *cut, size_t n);

#endif
