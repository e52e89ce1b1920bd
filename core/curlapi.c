/*
 * curlapi.c: find libcurl at run time (see curlapi.h for why).
 *
 * The portable onbox (WK_PORTABLE=1) is static: dlopen there would need the
 * very glibc it was built to avoid, so libcurl is never tried and HTTP(S)
 * goes through the box's curl command (curlcmd.c).
 */
#ifndef WK_PORTABLE
#define WK_PORTABLE 0
#endif

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if !WK_PORTABLE
#include <dlfcn.h>
#endif

#include "curlapi.h"
#include "os.h"

#if !WK_PORTABLE

static const struct {
	const char	*sym;
	size_t		 off;
} curl_syms[] = {
	{ "curl_global_init", offsetof(struct curl_api, global_init) },
	{ "curl_easy_init", offsetof(struct curl_api, easy_init) },
	{ "curl_easy_setopt", offsetof(struct curl_api, easy_setopt) },
	{ "curl_easy_perform", offsetof(struct curl_api, easy_perform) },
	{ "curl_easy_getinfo", offsetof(struct curl_api, easy_getinfo) },
	{ "curl_easy_cleanup", offsetof(struct curl_api, easy_cleanup) },
	{ "curl_easy_strerror", offsetof(struct curl_api, easy_strerror) },
	{ "curl_slist_append", offsetof(struct curl_api, slist_append) },
	{ "curl_slist_free_all", offsetof(struct curl_api, slist_free_all) },
	{ "curl_version", offsetof(struct curl_api, version) },
};
#endif

/* Why WATCHKEEPER_HTTP rules libcurl out, or NULL. */
static const struct {
	const char	*value;
	enum http_knob	 knob;
} http_knobs[] = {
	{ "", HTTP_AUTO },
	{ "auto", HTTP_AUTO },
	{ "libcurl", HTTP_LIBCURL },
	{ "curl", HTTP_CURL },
	{ "none", HTTP_NONE },
};

enum http_knob
http_knob(void)
{
	const char *v = getenv(HTTP_KNOB);
	size_t i;

	if (v == NULL)
		return HTTP_AUTO;
	for (i = 0; i < sizeof(http_knobs) / sizeof(http_knobs[0]); i++)
		if (strcmp(v, http_knobs[i].value) == 0)
			return http_knobs[i].knob;
	return HTTP_BAD;
}

static const char *
curl_api_knob(void)
{
	switch (http_knob()) {
	case HTTP_CURL:
		return HTTP_KNOB "=curl";
	case HTTP_NONE:
		return HTTP_KNOB "=none";
	case HTTP_BAD:
		return HTTP_KNOB " is not libcurl, curl, none or auto";
	default:
		return NULL;
	}
}

const struct curl_api *
curl_api_get(const char **why)
{
	static struct curl_api api;
	static int state;	/* 0 untried, 1 ready, -1 failed */
	static const char *fail;
	void *h = NULL, *fn;
	size_t i;

	if (state == 0 && (fail = curl_api_knob()) != NULL)
		state = -1;
	if (state == 0 && WK_PORTABLE) {
		fail = "this onbox is a static build and does not load libcurl";
		state = -1;
	}
#if !WK_PORTABLE
	if (state == 0) {
		for (i = 0; os_curl_libs[i] != NULL && h == NULL; i++)
			h = dlopen(os_curl_libs[i], RTLD_NOW | RTLD_LOCAL);
		state = -1;
		fail = os_curl_missing;
		for (i = 0; h != NULL && i < sizeof(curl_syms) / sizeof(curl_syms[0]); i++) {
			if ((fn = dlsym(h, curl_syms[i].sym)) == NULL) {
				fail = "the libcurl found lacks a function watchkeeper needs";
				break;
			}
			/* POSIX guarantees function pointers round-trip through void *. */
			*(void **)((char *)&api + curl_syms[i].off) = fn;
		}
		if (h != NULL && i == sizeof(curl_syms) / sizeof(curl_syms[0])) {
			if (api.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
				state = 1;
			else
				fail = "curl_global_init failed";
		}
	}
#else
	(void)h;
	(void)fn;
	(void)i;
#endif
	if (state != 1 && why != NULL)
		*why = fail;
	return state == 1 ? &api : NULL;
}

void
curl_api_post_setup(const struct curl_api *api, CURL *e, const char *url,
    struct curl_slist *headers, const char *body, size_t len, long connect_s, long timeout_s,
    const char *ca, char *errbuf, size_t (*write)(char *, size_t, size_t, void *), void *data)
{
	errbuf[0] = '\0';
	api->easy_setopt(e, CURLOPT_URL, url);
	api->easy_setopt(e, CURLOPT_HTTPHEADER, headers);
	api->easy_setopt(e, CURLOPT_POST, 1L);
	api->easy_setopt(e, CURLOPT_POSTFIELDS, body);
	api->easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	api->easy_setopt(e, CURLOPT_CONNECTTIMEOUT, connect_s);
	api->easy_setopt(e, CURLOPT_TIMEOUT, timeout_s);
	api->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	api->easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	api->easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
	api->easy_setopt(e, CURLOPT_WRITEFUNCTION, write);
	api->easy_setopt(e, CURLOPT_WRITEDATA, data);
	if (ca != NULL)
		api->easy_setopt(e, CURLOPT_CAINFO, ca);
#if LIBCURL_VERSION_NUM >= 0x075500
	api->easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	api->easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}
