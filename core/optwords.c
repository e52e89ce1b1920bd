/*
 * optwords.c: a stage's options for a manager's CLI as quoted words (see
 * optwords.h): chain[].sbatch for slurm.c, chain[].job for jobctl.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "optwords.h"
#include "sshq.h"
#include "xmalloc.h"

#define OPTWORDS_NAME_MAX	64

/* Lower case, digits and -, starting with a letter. */
static int
optwords_name_ok(const char *k)
{
	size_t i;

	if (!islower((unsigned char)k[0]))
		return 0;
	for (i = 1; k[i] != '\0'; i++)
		if (!islower((unsigned char)k[i]) && !isdigit((unsigned char)k[i]) && k[i] != '-')
			return 0;
	return i <= OPTWORDS_NAME_MAX;
}

/* w through reserved(): 0, or WK_ERR_INVALID with *why naming shown (the word as written). */
static int
optwords_free(const char *w, const char *shown, optwords_reserved_fn reserved, void *arg,
    char **why)
{
	const char *res;

	if ((res = reserved(w, arg, why)) != NULL) {
		*why = xstrfmt("\"%.60s\": watchkeeper sets --%s itself", shown, res);
		return WK_ERR_INVALID;
	}
	return *why != NULL ? WK_ERR_INVALID : 0;
}

static void
optwords_put(struct buf *b, const char *w)
{
	if (b == NULL)
		return;
	buf_putc(b, ' ');
	sshq_append(b, w);
}

/* The string form: blank-separated words, each an option. */
static int
optwords_string(const char *p, optwords_reserved_fn reserved, void *arg, struct buf *b, char **why)
{
	const char *e;
	char *w;
	int ret = 0;

	for (;;) {
		p += strspn(p, " \t\n");
		if (*p == '\0')
			return 0;
		e = p + strcspn(p, " \t\n");
		w = xstrndup(p, (size_t)(e - p));
		if (w[0] != '-' || strcmp(w, "-") == 0 || strcmp(w, "--") == 0) {
			*why = xstrfmt("\"%.60s\" is not an option: options start with - "
			    "(and \"--\" would end them)", w);
			ret = WK_ERR_INVALID;
		} else if ((ret = optwords_free(w, w, reserved, arg, why)) == 0)
			optwords_put(b, w);
		free(w);
		if (ret != 0)
			return ret;
		p = e;
	}
}

int
optwords_append(const cJSON *o, const char *kind, optwords_reserved_fn reserved, void *arg,
    struct buf *b, char **why)
{
	const cJSON *it;
	char *w;
	int ret;

	*why = NULL;
	if (o == NULL)
		return 0;
	if (cJSON_IsString(o))
		return optwords_string(o->valuestring, reserved, arg, b, why);
	cJSON_ArrayForEach(it, o) {
		if (!optwords_name_ok(it->string)) {
			*why = xstrfmt("\"%.60s\" is not %s option name (lower case, digits, -)",
			    it->string, kind);
			return WK_ERR_INVALID;
		}
		w = xstrfmt("--%s", it->string);
		ret = optwords_free(w, it->string, reserved, arg, why);
		free(w);
		if (ret != 0)
			return ret;
		if (cJSON_IsTrue(it))
			w = xstrfmt("--%s", it->string);
		else if (cJSON_IsFalse(it))
			continue;
		else if (cJSON_IsString(it))
			w = xstrfmt("--%s=%s", it->string, it->valuestring);
		else if (cJSON_IsNumber(it) && fabs(it->valuedouble) <= 1e15 &&
		    it->valuedouble == floor(it->valuedouble))
			w = xstrfmt("--%s=%ld", it->string, (long)it->valuedouble);
		else {
			*why = xstrfmt("\"%s\": a value is a string, a whole number, true or false",
			    it->string);
			return WK_ERR_INVALID;
		}
		optwords_put(b, w);
		free(w);
	}
	return 0;
}
