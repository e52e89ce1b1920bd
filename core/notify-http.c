/*
 * notify-http.c: HTTP delivery and the judging of every answer.
 *
 * HTTP goes through libcurl's easy interface (dlopen'ed by curlapi.c),
 * bounded by the outbox's connect and total timeouts, never following a
 * redirect (a webhook that moved must be fixed in the config, not chased).
 * Where libcurl cannot be loaded (the static portable onbox, a box without
 * libcurl.so.4) the same request goes through the box's curl command
 * (curlcmd.c).  Both are judged here by the same tables: HTTP statuses and
 * libcurl errors, first match wins, each with the words a person reads.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "buf.h"
#include "childio.h"
#include "curlapi.h"
#include "curlcmd.h"
#include "err.h"
#include "jsonfile.h"
#include "notify-int.h"
#include "xmalloc.h"

/* ---- judging ---- */

/*
 * HTTP statuses, first match wins.  Every message takes the status (%ld)
 * and then a detail (%s: "" or ": <the receiver's words>").
 */
static const struct notify_http_rule {
	long		 lo, hi;
	enum notify_outcome outcome;
	int		 detail;	/* quote the receiver's answer */
	const char	*fmt;
} notify_http_rules[] = {
	{ 200, 299, NJ_OK, 0, NULL },
	{ 300, 399, NJ_PERM, 0, "HTTP %ld: the receiver redirects; set the final URL%s" },
	{ 401, 401, NJ_PERM, 0, "HTTP %ld: not authorised: the token or URL is wrong or revoked%s" },
	{ 403, 403, NJ_PERM, 0, "HTTP %ld: not authorised: the token or URL is wrong or revoked%s" },
	{ 404, 404, NJ_PERM, 0,
	  "HTTP %ld: the URL is wrong (the receiver says this address does not exist)%s" },
	{ 408, 408, NJ_RETRY, 0, "HTTP %ld: the receiver timed out reading the message; will retry%s" },
	{ 410, 410, NJ_PERM, 0, "the webhook was deleted (HTTP %ld)%s" },
	{ 429, 429, NJ_RETRY, 0, "HTTP %ld: rate limited; will retry%s" },
	{ 400, 499, NJ_PERM, 1, "HTTP %ld: the receiver rejected the message%s" },
	{ 500, 599, NJ_RETRY, 0, "HTTP %ld: the receiver is failing; will retry%s" },
	{ LONG_MIN, LONG_MAX, NJ_RETRY, 1, "HTTP %ld: an answer watchkeeper does not understand; "
	  "will retry%s" },
};

/*
 * libcurl failures; the last entry catches the rest.  %ld, when present, is
 * the timeout; detail appends libcurl's own words (scrubbed).
 */
static const struct notify_curl_rule {
	int		 code;		/* -1: any */
	enum notify_outcome outcome;
	int		 detail;
	const char	*fmt;
} notify_curl_rules[] = {
	{ CURLE_OPERATION_TIMEDOUT, NJ_RETRY, 0, "no answer within %ld s (timeout); will retry" },
	{ CURLE_COULDNT_CONNECT, NJ_RETRY, 0, "connection refused: the receiver is down; will retry" },
	{ CURLE_COULDNT_RESOLVE_HOST, NJ_RETRY, 0, "cannot resolve the host (DNS); will retry" },
	{ CURLE_COULDNT_RESOLVE_PROXY, NJ_RETRY, 0, "cannot resolve the proxy (DNS); will retry" },
	{ CURLE_SSL_CONNECT_ERROR, NJ_RETRY, 1, "TLS handshake with the receiver failed; will retry" },
	{ CURLE_PEER_FAILED_VERIFICATION, NJ_PERM, 1, "TLS: the receiver's certificate does not verify" },
	{ CURLE_SSL_CACERT_BADFILE, NJ_PERM, 1, "TLS: cannot read the CA certificates" },
	{ CURLE_SSL_CERTPROBLEM, NJ_PERM, 1, "TLS: a problem with the local certificate" },
	{ CURLE_SSL_ENGINE_NOTFOUND, NJ_PERM, 1, "TLS: the crypto engine is missing" },
	{ CURLE_URL_MALFORMAT, NJ_PERM, 0, "the URL is malformed" },
	{ CURLE_UNSUPPORTED_PROTOCOL, NJ_PERM, 0, "the URL is not http:// or https://" },
	{ CURLE_GOT_NOTHING, NJ_RETRY, 0,
	  "the receiver closed the connection without answering; will retry" },
	{ CURLE_SEND_ERROR, NJ_RETRY, 1, "the connection broke while sending; will retry" },
	{ CURLE_RECV_ERROR, NJ_RETRY, 1, "the connection broke while reading the answer; will retry" },
	{ -1, NJ_RETRY, 1, "delivery failed; will retry" },
};

/* The receiver's words for a why: a JSON error field if there is one, one line, capped. */
static char *
notify_answer_words(const char *answer)
{
	static const char *const keys[] = { "description", "message", "error", "msg", "errmsg" };
	cJSON *doc = answer != NULL ? cJSON_Parse(answer) : NULL;
	const char *w = answer;
	char *flat, *r;
	size_t i;

	for (i = 0; cJSON_IsObject(doc) && i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (json_str(doc, keys[i], NULL) != NULL) {
			w = json_str(doc, keys[i], NULL);
			break;
		}
	}
	flat = notify_flat(w != NULL ? w : "");
	r = notify_cut(flat, NOTIFY_DETAIL_MAX);
	free(flat);
	cJSON_Delete(doc);
	return r;
}

int
notify_code_of(enum notify_outcome o, int curl_code)
{
	if (o == NJ_OK)
		return 0;
	if (o == NJ_PERM)
		return WK_ERR_INVALID;
	if (curl_code == CURLE_OPERATION_TIMEDOUT)
		return WK_ERR_TIMEOUT;
	errno = curl_code == CURLE_COULDNT_CONNECT ? ECONNREFUSED : EAGAIN;
	return WK_ERR_SYSTEM;
}

int
notify_judge(const struct notify_sinks *all, const struct notify_sink *s, int curl_code,
    const char *curl_error, long http_status, const char *answer, char **why, int *permanent)
{
	const struct notify_type *t = notify_type_find(s->type);
	const struct notify_http_rule *h;
	const struct notify_curl_rule *c;
	enum notify_outcome o;
	struct buf b = BUF_INIT;
	char *words = NULL, *detail = NULL;
	const char *msg = "";
	cJSON *doc = NULL;
	long code = 0, secs;

	*why = NULL;
	*permanent = 0;
	if (curl_code != CURLE_OK) {
		for (c = notify_curl_rules; c->code != -1 && c->code != curl_code; c++)
			;
		o = c->outcome;
		secs = all != NULL ? all->timeout_s : 0;
		if (curl_error != NULL && (strncmp(curl_error, "Connection timed out", 20) == 0 ||
		    strncmp(curl_error, "Failed to connect", 17) == 0) && all != NULL)
			secs = all->connect_timeout_s;
		buf_printf(&b, c->fmt, secs);
		if (c->code == -1 && curl_api_get(NULL) != NULL)
			buf_printf(&b, " (%s)", curl_api_get(NULL)->easy_strerror((CURLcode)curl_code));
		else if (c->code == -1)
			buf_printf(&b, " (curl error %d)", curl_code);
		if (c->detail && curl_error != NULL && *curl_error != '\0') {
			words = notify_flat(curl_error);
			detail = notify_cut(words, NOTIFY_DETAIL_MAX);
			buf_printf(&b, ": %s", detail);
		}
		goto done;
	}
	for (h = notify_http_rules; http_status < h->lo || http_status > h->hi; h++)
		;
	o = h->outcome;
	if (o == NJ_OK) {
		if (t != NULL && t->refused != NULL && answer != NULL &&
		    (doc = cJSON_Parse(answer)) != NULL && t->refused(doc, &code, &msg)) {
			o = t->busy_code != 0 && code == t->busy_code ? NJ_RETRY : NJ_PERM;
			words = notify_flat(msg);
			detail = notify_cut(words, NOTIFY_DETAIL_MAX);
			buf_printf(&b, "HTTP %ld but the receiver refused: ", http_status);
			if (code != 0)
				buf_printf(&b, "%ld%s", code, *detail != '\0' ? " " : "");
			buf_printf(&b, "%s%s", detail, o == NJ_RETRY ? "; will retry" : "");
		}
		goto done;
	}
	if (h->detail)
		words = notify_answer_words(answer);
	detail = words != NULL && *words != '\0' ? xstrfmt(": %s", words) : xstrdup("");
	buf_printf(&b, h->fmt, http_status, detail);
 done:
	*permanent = o == NJ_PERM;
	if (o != NJ_OK)
		*why = notify_scrub(all, buf_str(&b));
	buf_free(&b);
	free(words);
	free(detail);
	cJSON_Delete(doc);
	return notify_code_of(o, curl_code);
}

/* ---- HTTP delivery ---- */

struct notify_answer {
	struct buf	b;
	size_t		cap;
};

static size_t
notify_curl_write(char *p, size_t size, size_t n, void *arg)
{
	struct notify_answer *a = arg;
	size_t len = size * n;

	childio_keep(&a->b, p, len, a->cap);
	return len;
}

int
notify_http(const struct notify_sinks *all, const struct notify_sink *s,
    const struct notify_request *rq, struct notify_reply *reply, char **why, int *permanent)
{
	struct notify_answer ans = { BUF_INIT, NOTIFY_ANSWER_MAX };
	struct curl_slist *hdrs = NULL, *h;
	char errbuf[CURL_ERROR_SIZE];
	CURL *c = NULL;
	CURLcode rc;
	const struct curl_api *api;
	const char *nocurl = NULL;
	long status = 0;
	size_t i;
	int r, saved;

	if ((api = curl_api_get(&nocurl)) == NULL)
		return curlcmd_send(all, s, rq, nocurl, reply, why, permanent);
	if ((c = api->easy_init()) == NULL) {
		*why = xstrdup("cannot start libcurl; will retry");
		*permanent = 0;
		errno = EAGAIN;
		r = WK_ERR_SYSTEM;
		goto out;
	}
	for (i = 0; i <= rq->nheaders; i++) {
		/* "Expect:" turns off 100-continue, which some webhook receivers mishandle. */
		if ((h = api->slist_append(hdrs, i < rq->nheaders ? rq->headers[i] : "Expect:")) == NULL)
			abort();
		hdrs = h;
	}
	/* The same CA bundle the curl command is given; a failure stays a failure. */
	curl_api_post_setup(api, c, rq->url, hdrs, rq->body, rq->body_len, all->connect_timeout_s,
	    all->timeout_s, curlcmd_cafile(), errbuf, notify_curl_write, &ans);
	if (rq->method != NULL)
		api->easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
	rc = api->easy_perform(c);
	if (rc == CURLE_OK)
		api->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	r = notify_judge(all, s, (int)rc, errbuf, status, buf_str(&ans.b), why, permanent);
	if (reply != NULL && rc == CURLE_OK) {
		reply->status = status;
		reply->answer = xstrdup(buf_str(&ans.b));
	}
 out:
	saved = errno;
	if (c != NULL)
		api->easy_cleanup(c);
	if (api != NULL)
		api->slist_free_all(hdrs);
	buf_free(&ans.b);
	errno = saved;
	return r;
}
