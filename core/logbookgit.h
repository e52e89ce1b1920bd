/*
 * logbookgit.h: the logbook in a git repository ("git history is the
 * durability layer", seed 004): logbook.git names a repository (a URL or a
 * path git can clone), logbook.path the file in it (default
 * "<run>/LOGBOOK.md").  patrol keeps a clone in its state directory
 * (<statedir>/logbook-repo), copies LOGBOOK.md there after each tick that
 * added to it, commits it (one commit per material update) and pushes.
 *
 * A push that fails (unreachable, rejected, no rights) keeps the commit: the
 * next sync pushes every commit not yet pushed.  One rejected because the
 * remote moved on is rebased onto it (`git pull --rebase`) and pushed again.
 * git runs with GIT_TERMINAL_PROMPT=0 (it never waits for a password) and
 * each command within LOGBOOK_GIT_TIMEOUT_MS, its process group killed past it.
 */
#ifndef WK_LOGBOOKGIT_H
#define WK_LOGBOOKGIT_H

#include "config.h"

#define LOGBOOK_GIT_DIR		"logbook-repo"
#define LOGBOOK_GIT_TIMEOUT_MS	60000

/* 1 when logbook.git is set. */
int logbook_git_configured(const struct wk_config *cfg);

/*
 * Bring <dir>/LOGBOOK.md into the repository: clone when needed, commit it
 * when it changed (message msg), push what is not pushed.  0 committed or
 * pushed something, 1 nothing to do, else a negative WK_ERR_* with *why
 * (caller frees): WK_ERR_REMOTE (clone or push failed: the commit, when one
 * was made, is kept), WK_ERR_EXEC (git failed otherwise), WK_ERR_SYSTEM.
 */
int logbook_git_sync(const struct wk_config *cfg, const char *dir, const char *msg, char **why);

/*
 * Tag the clone's HEAD with tag (an annotated tag, message msg) and push the
 * tag; an existing tag of that name is an error (a seal is made once).
 * 0, or a negative code with *why as above.
 */
int logbook_git_tag(const struct wk_config *cfg, const char *dir, const char *tag,
    const char *msg, char **why);

/* The repository-relative path of the logbook; caller frees. */
char *logbook_git_path(const struct wk_config *cfg);

#endif
