/*
 * notify-scrub.c: the secrets of the sinks, and keeping them out of text.
 *
 * Secrets (webhook URLs, a long enough URL path, tokens, telegram's full
 * URL, every value of the secrets file) live only in struct notify_sinks.
 * Every text that leaves notify for a person, a log, a file or a receiver
 * goes through notify_scrub(), which masks every byte covered by any
 * occurrence of any secret, so overlapping secrets cannot leak a fragment.
 * The secrets file patrol sends (patrol/secrets.c writes it) is read and
 * checked here; its text is never quoted in a complaint.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "jsonc.h"
#include "notify-int.h"
#include "xmalloc.h"

/* ---- scrubbing ---- */

char *
notify_scrub(const struct notify_sinks *all, const char *text)
{
	unsigned char *mask = NULL;
	struct buf b = BUF_INIT;
	const char *p;
	size_t len, i, sl;
	int hit = 0;

	if (text == NULL)
		return NULL;
	len = strlen(text);
	mask = xcalloc(len + 1, 1);
	for (i = 0; all != NULL && i < all->nsecrets; i++) {
		sl = strlen(all->secrets[i]);
		if (sl < NOTIFY_SECRET_MIN)
			continue;
		for (p = text; (p = memmem(p, len - (size_t)(p - text), all->secrets[i], sl)) != NULL;
		    p++) {
			memset(mask + (p - text), 1, sl);
			hit = 1;
		}
	}
	if (!hit) {
		free(mask);
		return xstrdup(text);
	}
	for (i = 0; i < len;) {
		if (!mask[i]) {
			buf_putc(&b, text[i++]);
			continue;
		}
		buf_puts(&b, "***");
		while (i < len && mask[i])
			i++;
	}
	free(mask);
	return buf_detach(&b);
}

void
notify_secret_add(struct notify_sinks *all, const char *s)
{
	size_t i;

	if (s == NULL || *s == '\0')
		return;
	for (i = 0; i < all->nsecrets; i++)
		if (strcmp(all->secrets[i], s) == 0)
			return;
	all->secrets = xreallocarray(all->secrets, all->nsecrets + 1, sizeof(*all->secrets));
	all->secrets[all->nsecrets++] = xstrdup(s);
}

/* A URL and, when long enough to be a credential by itself, its path and query. */
void
notify_secret_add_url(struct notify_sinks *all, const char *url)
{
	const char *p;

	notify_secret_add(all, url);
	if (url != NULL && (p = strstr(url, "://")) != NULL && (p = strchr(p + 3, '/')) != NULL &&
	    strlen(p) >= NOTIFY_PATH_SECRET_MIN)
		notify_secret_add(all, p);
}

int
notify_env_name_ok(const char *s)
{
	size_t i;

	if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* ---- the secrets file (patrol/secrets.c writes it) ---- */

int
notify_secrets_read(const char *path, cJSON **out, char **why)
{
	struct stat st;
	struct buf b = BUF_INIT;
	const char *end = NULL;
	const cJSON *it;
	cJSON *doc = NULL;
	char chunk[4096];
	ssize_t n;
	int fd, rc = WK_ERR_INVALID;

	*out = NULL;
	*why = NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 1;
		*why = errno == ELOOP ? xstrdup("it is a symbolic link") :
		    xstrfmt("cannot open it: %s", wk_strerror(WK_ERR_SYSTEM));
		return errno == ELOOP ? WK_ERR_INVALID : WK_ERR_SYSTEM;
	}
	if (fstat(fd, &st) != 0) {
		*why = xstrfmt("cannot stat it: %s", wk_strerror(WK_ERR_SYSTEM));
		rc = WK_ERR_SYSTEM;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = xstrdup("it is not a regular file");
		goto out;
	}
	if (st.st_uid != geteuid()) {
		*why = xstrfmt("it is owned by uid %ld, not by this user (uid %ld)",
		    (long)st.st_uid, (long)geteuid());
		goto out;
	}
	if ((st.st_mode & 077) != 0) {
		*why = xstrfmt("its mode is %04o: group or others have access; it must be 0600 "
		    "(`patrol deploy` writes it so)", (unsigned int)(st.st_mode & 07777));
		goto out;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = xstrfmt("cannot read it: %s", wk_strerror(WK_ERR_SYSTEM));
			rc = WK_ERR_SYSTEM;
			goto out;
		}
		if (b.len + (size_t)n > NOTIFY_SECRETS_MAX) {
			*why = xstrfmt("it is larger than %u bytes", (unsigned int)NOTIFY_SECRETS_MAX);
			goto out;
		}
		buf_append(&b, chunk, (size_t)n);
	}
	/* Never quote the text: it holds secrets.  The line is all a person needs. */
	if ((doc = cJSON_ParseWithLengthOpts(buf_str(&b), b.len + 1, &end, 1)) == NULL) {
		*why = xstrfmt("line %d: not valid JSON", jsonc_line_at(buf_str(&b),
		    end != NULL && end >= buf_str(&b) ? (size_t)(end - buf_str(&b)) : 0));
		rc = WK_ERR_PARSE;
		goto out;
	}
	if (!cJSON_IsObject(doc)) {
		*why = xstrdup("not a JSON object of \"NAME\": \"value\" pairs");
		rc = WK_ERR_PARSE;
		goto out;
	}
	cJSON_ArrayForEach(it, doc) {
		if (it->string == NULL || !notify_env_name_ok(it->string)) {
			*why = xstrdup("a key is not an environment variable name");
			rc = WK_ERR_PARSE;
			goto out;
		}
		if (!cJSON_IsString(it)) {
			*why = xstrfmt("\"%s\": the value is not a string", it->string);
			rc = WK_ERR_PARSE;
			goto out;
		}
	}
	*out = doc;
	doc = NULL;	/* transferred */
	rc = 0;
out:
	close(fd);
	cJSON_Delete(doc);
	/* The text held secrets: do not leave them in freed memory longer than needed. */
	if (b.data != NULL)
		memset(b.data, 0, b.len);
	buf_free(&b);
	return rc;
}
