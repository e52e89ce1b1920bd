/*
 * curlapi.h: libcurl, loaded when first needed.
 *
 * The on-box agent spends hours idle waiting on a log; linking libcurl would
 * map it and its ~30 dependencies (TLS, LDAP, GSSAPI, HTTP/2 ...) into every
 * onbox, about 7 MB of resident pages for nothing.  Only the processes that
 * deliver notifications (short-lived children, `onbox notify`) load it, with
 * dlopen.  It is still libcurl that speaks HTTP; this file only finds it.
 * A box without libcurl runs onbox fine and reports why it cannot notify.
 */
#ifndef WK_CURLAPI_H
#define WK_CURLAPI_H

#include <curl/curl.h>

struct curl_api {
	CURLcode	(*global_init)(long);
	CURL		*(*easy_init)(void);
	CURLcode	(*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode	(*easy_perform)(CURL *);
	CURLcode	(*easy_getinfo)(CURL *, CURLINFO, ...);
	void		(*easy_cleanup)(CURL *);
	const char	*(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void		(*slist_free_all)(struct curl_slist *);
	char		*(*version)(void);
};

/*
 * The loaded and globally initialised API, or NULL with *why (static text)
 * saying what is missing.  Loaded once per process.  Never loaded when
 * WATCHKEEPER_HTTP asks for the curl command or nothing (curlcmd.h), nor in
 * a build with WK_PORTABLE=1 (static: it cannot dlopen); callers then go to
 * the curl command (curlcmd_send).
 */
const struct curl_api *curl_api_get(const char **why);

/*
 * The options every POST of ours sets on e: url, headers, body, the two
 * bounds (seconds), no signals, no redirects, http/https only, the CA bundle
 * the caller gives (ca: curlcmd_cafile(), NULL none), errbuf
 * (CURL_ERROR_SIZE), and the answer's body to write(ptr, size, n, data).
 */
void curl_api_post_setup(const struct curl_api *api, CURL *e, const char *url,
    struct curl_slist *headers, const char *body, size_t len, long connect_s, long timeout_s,
    const char *ca, char *errbuf, size_t (*write)(char *, size_t, size_t, void *), void *data);

#define HTTP_KNOB	"WATCHKEEPER_HTTP"

/* What WATCHKEEPER_HTTP asks for: libcurl, the curl command (curlcmd.h), either, or nothing. */
enum http_knob {
	HTTP_AUTO,
	HTTP_LIBCURL,	/* libcurl only */
	HTTP_CURL,	/* the curl command only */
	HTTP_NONE,	/* nothing: every event stays in the outbox */
	HTTP_BAD,	/* an unknown value: treated as none, and said so */
};
enum http_knob http_knob(void);

#endif
