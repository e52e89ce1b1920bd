/*
 * ghapi.c: a POST to GitHub's REST API and what its answer says (ghapi.h).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "childio.h"
#include "curlapi.h"
#include "curlcmd.h"
#include "err.h"
#include "ghapi.h"
#include "xmalloc.h"

#define GH_ANSWER_MAX	(1u << 20)

static size_t
gh_write(char *p, size_t size, size_t n, void *arg)
{
	childio_keep(arg, p, size * n, GH_ANSWER_MAX);
	return size * n;
}

/* One header line: the rate limit's numbers. */
static size_t
gh_header(char *p, size_t size, size_t n, void *arg)
{
	static const struct { const char *name; size_t off; } hs[] = {
		{ "retry-after:", offsetof(struct gh_reply, retry_after) },
		{ "x-ratelimit-remaining:", offsetof(struct gh_reply, rl_remaining) },
		{ "x-ratelimit-reset:", offsetof(struct gh_reply, rl_reset) },
	};
	struct gh_reply *r = arg;
	size_t len = size * n, i, k;
	char v[32];

	for (i = 0; i < sizeof(hs) / sizeof(hs[0]); i++) {
		k = strlen(hs[i].name);
		if (len <= k || strncasecmp(p, hs[i].name, k) != 0)
			continue;
		snprintf(v, sizeof(v), "%.*s", (int)(len - k < sizeof(v) - 1 ? len - k : sizeof(v) - 1),
		    p + k);
		if (isdigit((unsigned char)v[strspn(v, " \t")]))
			*(long *)((char *)r + hs[i].off) = strtol(v, NULL, 10);
	}
	return len;
}

int
gh_post(const char *api, const char *token, const char *path, const cJSON *body, long timeout_s,
    struct gh_reply *r)
{
	const struct curl_api *c;
	struct curl_slist *h = NULL;
	struct buf ans = BUF_INIT;
	char *url = xstrfmt("%s%s", api, path), *auth = xstrfmt("Authorization: Bearer %s", token);
	char *text = cJSON_PrintUnformatted(body), errbuf[CURL_ERROR_SIZE];
	const char *why = NULL;
	static const char *const fixed[] = {
		"Accept: application/vnd.github+json",
		"X-GitHub-Api-Version: " GH_API_VERSION,
		"Content-Type: application/json",
		"User-Agent: watchkeeper/" WK_VERSION,
		"Expect:",
	};
	CURL *e = NULL;
	CURLcode rc;
	size_t i;
	int ret = WK_ERR_REMOTE;

	memset(r, 0, sizeof(*r));
	r->retry_after = r->rl_remaining = r->rl_reset = -1;
	if ((c = curl_api_get(&why)) == NULL) {
		snprintf(r->err, sizeof(r->err), "no libcurl: %s", why);
		ret = WK_ERR_SYSTEM;
		goto out;
	}
	if ((e = c->easy_init()) == NULL) {
		snprintf(r->err, sizeof(r->err), "cannot start libcurl");
		goto out;
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		h = c->slist_append(h, fixed[i]);
	h = c->slist_append(h, auth);
	curl_api_post_setup(c, e, url, h, text, strlen(text), 10L, timeout_s, curlcmd_cafile(),
	    errbuf, gh_write, &ans);
	c->easy_setopt(e, CURLOPT_HEADERFUNCTION, gh_header);
	c->easy_setopt(e, CURLOPT_HEADERDATA, r);
	if ((rc = c->easy_perform(e)) != CURLE_OK) {
		snprintf(r->err, sizeof(r->err), "%s", errbuf[0] != '\0' ? errbuf : c->easy_strerror(rc));
		goto out;
	}
	c->easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->status);
	if (ans.len > 0)
		r->json = cJSON_ParseWithLength(ans.data, ans.len);
	ret = 0;
 out:
	if (e != NULL)
		c->easy_cleanup(e);
	if (c != NULL)
		c->slist_free_all(h);
	buf_free(&ans);
	free(text);
	free(auth);
	free(url);
	return ret;
}

void
gh_reply_free(struct gh_reply *r)
{
	cJSON_Delete(r->json);
	r->json = NULL;
}
