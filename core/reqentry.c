/*
 * reqentry.c: one completion.require entry, as the config check sees it
 * (see reqentry.h).  A leaf: config validates with it and complete.c
 * (which needs config) uses its token, so neither includes the other's
 * rules.
 */
#include <stddef.h>
#include <string.h>

#include "err.h"
#include "reqentry.h"
#include "xmalloc.h"

int
reqentry_ok(const char *entry, char **why)
{
	const char *p, *seg;
	size_t n;

	*why = NULL;
	if (strstr(entry, REQENTRY_FINAL_CKPT) != NULL) {
		if (strcmp(entry, REQENTRY_FINAL_CKPT) != 0)
			*why = xstrdup(REQENTRY_FINAL_CKPT " must be an entry of its own, not part "
			    "of a path");
		goto out;
	}
	if (*entry == '\0') {
		*why = xstrdup("empty: name a file, directory or glob under the workdir");
		goto out;
	}
	if (*entry == '/') {
		*why = xstrfmt("\"%s\" is absolute: entries are relative to the workdir", entry);
		goto out;
	}
	if (*entry == '~') {
		*why = xstrfmt("\"%s\": no ~ expansion here: entries are relative to the workdir",
		    entry);
		goto out;
	}
	for (p = entry; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			*why = xstrdup("holds a control character");
			goto out;
		}
	}
	for (seg = entry; *seg != '\0'; seg += n + (seg[n] == '/')) {
		n = strcspn(seg, "/");
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			*why = xstrfmt("\"%s\" leaves the workdir (a \"..\" component)", entry);
			goto out;
		}
	}
 out:
	return *why == NULL ? 0 : WK_ERR_INVALID;
}
