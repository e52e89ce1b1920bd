/*
 * github.c: the run record on GitHub: a notify[] entry of type "github"
 * ({"type": "github", "repo": "owner/name", "issue": N, "token_env": ...,
 * "api": ...}) is delivered by patrol on the owner's machine, never by the
 * box: the token stays here (deploy sends no github secret).
 *
 * The run's issue (created at the first delivery when none is given, its
 * body linking the logbook; the logbook gets its link back) receives a
 * comment, prefixed 🤖, for each significant logbook entry (launch,
 * relaunch, failure, verdict change, run finished, seal) and a digest every
 * 24 h.  Comments wait in patrol.json ("github": pending, oldest first) and
 * leave it only when GitHub said 201, so none is lost to a failed tick:
 *   401, 5xx, no answer      kept; said; the next tick tries again
 *   403 rate limited         kept; nothing is sent before retry-after (or
 *                            x-ratelimit-reset when the remaining is 0)
 *   403 other, 404, 410      kept; said (rights, repo, issues off)
 *   422 on a comment         dropped and said: GitHub will never take it
 * The token: notify[].token, else its token_env's value, else GITHUB_TOKEN
 * or GH_TOKEN, else `gh auth token` where gh is logged in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "config.h"
#include "err.h"
#include "ghapi.h"
#include "jsonfile.h"
#include "log.h"
#include "logbook.h"
#include "logbookgit.h"
#include "patrol.h"
#include "pstate.h"
#include "spawn.h"
#include "xmalloc.h"

#define GH_PENDING_MAX	1000
#define GH_DIGEST_S	86400
#define GH_TIMEOUT_S	30
#define GH_BODY_MAX	60000	/* GitHub takes 65536 characters a comment */

/* The significant logbook entries, by the start of their kind. */
static const char *const gh_kinds[] = {
	"launch ", "relaunch ", "verdict ", "run finished", "SEAL", "stopped", "resumed",
};

/* The first notify[] entry of type github, or NULL. */
static const cJSON *
gh_sink(const struct wk_config *cfg)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(cfg->root, "notify"))
		if (strcmp(json_str(it, "type", ""), "github") == 0)
			return it;
	return NULL;
}

/* The token (caller frees), or NULL. */
static char *
gh_token(const cJSON *sink)
{
	static const char *const envs[] = { "GITHUB_TOKEN", "GH_TOKEN" };
	const char *v = json_str(sink, "token", NULL), *e = json_str(sink, "token_env", NULL);
	char *argv[] = { "gh", "auth", "token", NULL }, *out = NULL;
	size_t i;
	int status;

	if (v != NULL && *v != '\0')
		return xstrdup(v);
	if (e != NULL && (v = getenv(e)) != NULL && *v != '\0')
		return xstrdup(v);
	for (i = 0; e == NULL && i < sizeof(envs) / sizeof(envs[0]); i++)
		if ((v = getenv(envs[i])) != NULL && *v != '\0')
			return xstrdup(v);
	if (e == NULL && spawn_capture(argv, 4096, 0, &status, &out) == 0 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0 && out != NULL) {
		out[strcspn(out, "\r\n")] = '\0';
		if (*out != '\0')
			return out;
	}
	free(out);
	return NULL;
}

static cJSON *
gh_state(struct pstate *st)
{
	cJSON *g = cJSON_GetObjectItemCaseSensitive(st->doc, "github");

	if (!cJSON_IsObject(g)) {
		g = cJSON_CreateObject();
		json_set(st->doc, "github", g);
	}
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(g, "pending")))
		json_set(g, "pending", cJSON_CreateArray());
	return g;
}

static void
gh_push(struct pstate *st, const char *body)
{
	cJSON *p = cJSON_GetObjectItemCaseSensitive(gh_state(st), "pending");

	if (cJSON_GetArraySize(p) >= GH_PENDING_MAX) {
		log_warn("github: %d comments wait already; the oldest is dropped", GH_PENDING_MAX);
		cJSON_DeleteItemFromArray(p, 0);
	}
	cJSON_AddItemToArray(p, cJSON_CreateString(body));
}

void
github_queue(struct pstate *st, const struct wk_config *cfg, const char *kind, const char *text)
{
	size_t i;
	char *body;

	if (gh_sink(cfg) == NULL)
		return;
	for (i = 0; i < sizeof(gh_kinds) / sizeof(gh_kinds[0]); i++)
		if (strncmp(kind, gh_kinds[i], strlen(gh_kinds[i])) == 0)
			break;
	if (i == sizeof(gh_kinds) / sizeof(gh_kinds[0]) && strstr(kind, " FAILED") == NULL)
		return;
	body = xstrfmt("🤖 **%s** — %.*s", kind, GH_BODY_MAX, text != NULL ? text : "");
	gh_push(st, body);
	free(body);
}

/* Said once per call: what GitHub answered, in words. */
static const char *
gh_message(const struct gh_reply *r)
{
	return json_str(r->json, "message", r->err[0] != '\0' ? r->err : "no message");
}

/* A 403 that is a rate limit: when to try again (unix seconds), else 0. */
static long
gh_limited(const struct gh_reply *r, time_t now)
{
	if (r->status != 403 && r->status != 429)
		return 0;
	if (r->retry_after >= 0)
		return (long)now + r->retry_after;
	if (r->rl_remaining == 0 && r->rl_reset > 0)
		return r->rl_reset;
	return 0;
}

/* Create the run's issue; 0 and the number in g, else -1 (said). */
static int
gh_create_issue(struct pstate *st, const struct wk_config *cfg, const cJSON *sink, const char *api,
    const char *token, cJSON *g, time_t now)
{
	cJSON *b = cJSON_CreateObject();
	struct gh_reply r;
	char *path = xstrfmt("/repos/%s/issues", json_str(sink, "repo", "")), *text, *lp = NULL;
	long until;
	int rc = -1;

	if (logbook_git_configured(cfg))
		lp = logbook_git_path(cfg);
	text = xstrfmt("🤖 The run record of watchkeeper run **%s** (workdir `%s`). Every launch, "
	    "relaunch, failure, escalation and the seal is commented here, with a digest every 24 h."
	    "\n\nThe logbook: %s%s%s%s.", cfg->run, cfg->workdir, lp != NULL ? "`" : "",
	    lp != NULL ? config_get_str(cfg, "logbook.git") : "LOGBOOK.md in patrol's state "
	    "directory on the owner's machine", lp != NULL ? "`, file `" : "", lp != NULL ? lp : "");
	if (lp != NULL) {
		char *t2 = xstrfmt("%s`", text);

		free(text);
		text = t2;
	}
	json_set_str(b, "title", cfg->run);
	json_set_str(b, "body", text);
	if (gh_post(api, token, path, b, GH_TIMEOUT_S, &r) != 0)
		log_warn("github: cannot create the run's issue in %s: %s; tried again next tick",
		    json_str(sink, "repo", ""), r.err);
	else if (r.status == 201 && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r.json, "number"))) {
		json_set_num(g, "issue", json_num(r.json, "number", 0));
		json_set_str(g, "url", json_str(r.json, "html_url", ""));
		json_set_num(g, "last_digest", (double)now);
		(void)logbook_append(st->dir, cfg->run, now, "GitHub issue",
		    json_str(r.json, "html_url", ""), NULL);
		printf("github: created issue #%ld for run %s: %s\n", json_long(r.json, "number", 0),
		    cfg->run, json_str(r.json, "html_url", ""));
		rc = 0;
	} else if ((until = gh_limited(&r, now)) > 0) {
		json_set_num(g, "next_try", (double)until);
		log_warn("github: rate limited (%ld): %s; nothing is sent before %ld s from now",
		    r.status, gh_message(&r), until - (long)now);
	} else
		log_warn("github: creating the run's issue in %s failed (%ld): %s; tried again next "
		    "tick", json_str(sink, "repo", ""), r.status, gh_message(&r));
	gh_reply_free(&r);
	cJSON_Delete(b);
	free(path);
	free(text);
	free(lp);
	return rc;
}

void
github_flush(struct pstate *st, const struct wk_config *cfg, const char *line)
{
	const cJSON *sink = gh_sink(cfg);
	const char *api;
	char *token = NULL, *path = NULL, *body;
	cJSON *g, *p, *b;
	struct gh_reply r;
	time_t now = time(NULL);
	long until;

	if (sink == NULL)
		return;
	g = gh_state(st);
	api = json_str(sink, "api", GH_API_DEFAULT);
	if (json_num(g, "next_try", 0) > (double)now)
		return;	/* rate limited: said when it was */
	if ((token = gh_token(sink)) == NULL) {
		log_warn("github: no token (set %s, or log in with `gh auth login`); %d comment(s) "
		    "wait", json_str(sink, "token_env", "GITHUB_TOKEN"),
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "pending")));
		return;
	}
	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(g, "issue"))) {
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(sink, "issue"))) {
			json_set_num(g, "issue", json_num(sink, "issue", 0));
			json_set_num(g, "last_digest", (double)now);
		} else if (gh_create_issue(st, cfg, sink, api, token, g, now) != 0)
			goto out;
	}
	if (line != NULL && now - (long)json_num(g, "last_digest", (double)now) >= GH_DIGEST_S) {
		body = xstrfmt("🤖 **24 h digest** — %s", line);
		gh_push(st, body);
		free(body);
		json_set_num(g, "last_digest", (double)now);
	}
	path = xstrfmt("/repos/%s/issues/%ld/comments", json_str(sink, "repo", ""),
	    json_long(g, "issue", 0));
	p = cJSON_GetObjectItemCaseSensitive(g, "pending");
	while (cJSON_GetArraySize(p) > 0) {
		b = cJSON_CreateObject();
		json_set_str(b, "body", cJSON_GetArrayItem(p, 0)->valuestring);
		if (gh_post(api, token, path, b, GH_TIMEOUT_S, &r) != 0) {
			log_warn("github: %s; %d comment(s) wait for the next tick", r.err,
			    cJSON_GetArraySize(p));
			cJSON_Delete(b);
			break;
		}
		cJSON_Delete(b);
		if (r.status == 201)
			cJSON_DeleteItemFromArray(p, 0);
		else if (r.status == 422) {
			log_error("github: GitHub refuses a comment (422 %s): dropped", gh_message(&r));
			cJSON_DeleteItemFromArray(p, 0);
		} else {
			if ((until = gh_limited(&r, now)) > 0) {
				json_set_num(g, "next_try", (double)until);
				log_warn("github: rate limited (%ld): %s; %d comment(s) wait %ld s",
				    r.status, gh_message(&r), cJSON_GetArraySize(p), until - (long)now);
			} else
				log_warn("github: commenting on %s#%ld failed (%ld): %s; %d comment(s) "
				    "wait for the next tick", json_str(sink, "repo", ""),
				    json_long(g, "issue", 0), r.status, gh_message(&r),
				    cJSON_GetArraySize(p));
			gh_reply_free(&r);
			break;
		}
		gh_reply_free(&r);
	}
 out:
	free(path);
	free(token);
}
