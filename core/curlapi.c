/*
 * curlapi.c: find libcurl at run time (see curlapi.h for why).
 */
#include <stddef.h>

#include "curlapi.h"

#ifdef WK_PORTABLE
/*
 * The portable onbox (make onbox-portable) is linked statically: a static
 * glibc cannot load a shared library built against the box's own glibc (no
 * ld.so of its own, a different libc underneath), so it never tries.  HTTP(S)
 * then goes through the box's curl command (core/notify.c).
 */
const struct curl_api *
curl_api_get(const char **why)
{
	if (why != NULL)
		*why = "this onbox is static and cannot load libcurl";
	return NULL;
}
#else
#include <dlfcn.h>

static const char *const curl_sonames[] = { "libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4" };

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
};

const struct curl_api *
curl_api_get(const char **why)
{
	static struct curl_api api;
	static int state;	/* 0 untried, 1 ready, -1 failed */
	static const char *fail;
	void *h = NULL, *fn;
	size_t i;

	if (state == 0) {
		for (i = 0; i < sizeof(curl_sonames) / sizeof(curl_sonames[0]) && h == NULL; i++)
			h = dlopen(curl_sonames[i], RTLD_NOW | RTLD_LOCAL);
		state = -1;
		fail = "libcurl (libcurl.so.4) is not installed on this machine";
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
	if (state != 1 && why != NULL)
		*why = fail;
	return state == 1 ? &api : NULL;
}
#endif
