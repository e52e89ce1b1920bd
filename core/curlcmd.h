/*
 * curlcmd.h: webhooks through the box's `curl` command, when libcurl cannot
 * be loaded.
 *
 * The portable onbox is static and cannot dlopen libcurl, and old or minimal
 * boxes may not have libcurl.so.4 at all; nearly every box has a `curl`
 * command, built for its own distribution's TLS library and CA store.  So
 * HTTP(S) goes: libcurl (dlopen, dynamic builds only) -> the curl command ->
 * none, in which case every event stays in the outbox and the reason is shown
 * by `onbox --version`, `onbox status` and `onbox notify --test`.
 *
 * The request's URL (a secret), headers and body reach curl on its stdin as a
 * config (`curl -q -K -`), never on its argv, where any user of the box could
 * read them in its process list.  The answer is judged by notify_judge(), with curl's
 * exit code read as the CURLcode it is, so retries, permanent failures and
 * their wording are the same as through libcurl.
 *
 * WATCHKEEPER_HTTP=libcurl|curl|none forces one way (tests and overrides);
 * unset, empty or "auto" tries them in order.
 */
#ifndef WK_CURLCMD_H
#define WK_CURLCMD_H

#include <stddef.h>

#include "notify.h"


/* How this process reaches HTTP(S). */
struct curlcmd_how {
	const char	*via;		/* "libcurl", "curl" or "none" (static text) */
	char		*detail;	/* the text after "http: " (see curlcmd_how_get); caller frees */
};

/*
 * Find out, now, how this process reaches HTTP(S).  detail reads
 *   "libcurl 7.88.1 OpenSSL/3.0.19 ..."
 *   "curl command /usr/bin/curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 ..."
 *   "none (<why>); events stay in the outbox"
 * so "http: " + detail is the line `onbox --version` prints.  Runs
 * `curl --version` when the command is the way.  curlcmd_how_free() frees.
 */
void curlcmd_how_get(struct curlcmd_how *h);
void curlcmd_how_free(struct curlcmd_how *h);

/*
 * The curl command to use: its absolute path in buf (first of $PATH's
 * entries, /usr/bin, /bin holding an executable "curl"), or -1 with *why
 * (static text) when there is none or the knob rules it out.
 */
int curlcmd_find(char *buf, size_t len, const char **why);

/*
 * The CA bundle to verify receivers against: $CURL_CA_BUNDLE, else
 * $SSL_CERT_FILE, else the first existing of the Debian/Ubuntu, RHEL-family,
 * SUSE and Alpine bundles; NULL when none exists (the TLS library's default).
 * Static or environment storage: do not free.
 */
const char *curlcmd_cafile(void);

/*
 * s as one double-quoted curl config parameter: \ " newline CR tab VT
 * escaped (curl's -K syntax), every other byte as it is.  Caller frees.
 */
char *curlcmd_quote(const char *s);

/*
 * The whole config fed to `curl -q -K -` for rq.  Holds the URL: never log
 * it.  Caller frees.
 */
char *curlcmd_config(const struct notify_sinks *all, const struct notify_request *rq,
    const char *cafile);

/*
 * Deliver rq through the curl command, as notify_send() does (same returns,
 * *why scrubbed and caller-freed, *permanent).  With no curl command the
 * event is kept: WK_ERR_SYSTEM (EAGAIN), never permanent, and *why says
 * "no way to reach HTTP(S) on this box (<why>): the event stays in the outbox".
 * nolib is why libcurl was not used (may be NULL).  reply (may be NULL)
 * gets the status and answer when curl got one.
 */
int curlcmd_send(const struct notify_sinks *all, const struct notify_sink *s,
    const struct notify_request *rq, const char *nolib, struct notify_reply *reply, char **why,
    int *permanent);

#endif
