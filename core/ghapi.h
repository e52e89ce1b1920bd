/*
 * ghapi.h: the two GitHub REST calls the run record makes (create an issue,
 * create an issue comment), through libcurl (curlapi.h), with the headers
 * GitHub documents (Accept: application/vnd.github+json,
 * X-GitHub-Api-Version, a Bearer token, a User-Agent) and what an answer
 * says beyond its status: the rate limit's retry-after and x-ratelimit-*.
 */
#ifndef WK_GHAPI_H
#define WK_GHAPI_H

#include <cJSON.h>

#define GH_API_DEFAULT	"https://api.github.com"
#define GH_API_VERSION	"2022-11-28"

struct gh_reply {
	long	 status;	/* HTTP status; 0: no answer (err says why) */
	cJSON	*json;		/* the body, parsed; NULL when it was not JSON */
	long	 retry_after;	/* retry-after, seconds; -1 none */
	long	 rl_remaining;	/* x-ratelimit-remaining; -1 none */
	long	 rl_reset;	/* x-ratelimit-reset, unix seconds; -1 none */
	char	 err[256];
};

/*
 * POST body (JSON) to api + path with token.  0 when GitHub answered (any
 * status: see r->status), WK_ERR_REMOTE when nothing came back (r->err),
 * WK_ERR_SYSTEM when libcurl is missing.  Free r with gh_reply_free.
 */
int gh_post(const char *api, const char *token, const char *path, const cJSON *body,
    long timeout_s, struct gh_reply *r);
void gh_reply_free(struct gh_reply *r);

#endif
