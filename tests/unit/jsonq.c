/*
 * jsonq: one value of a JSON file, printed as python3 prints it (an e2e
 * test helper: tests/e2e/lib.sh's json()).
 *
 *   jsonq FILE EXPR
 *
 * EXPR is the python expression over the parsed file `d` that the tests
 * write, in the shapes that need no interpreter:
 *   d  d["key"]  d[0]  d[-1]  d["a"][2]["b"] ...   (keys in "" or '')
 *   d.get("key")  d.get("key", N)                   (N an integer)
 *   len(any of the above)
 * A string prints as itself, true/false lowercase (as json() prints a
 * bool), null as None, an integer (a number equal to its floor, below
 * 1e15) in decimal; a list, an object or another number is python's to
 * print.  Exit 0 with the value; 1 where python would raise (no such file,
 * a missing key, an index out of range, len of a number: the error on
 * stderr); 2 where this helper does not answer (another EXPR shape, a value
 * that is python's to print, a file cJSON does not parse): json() then asks
 * python3.  A python3 start costs some 80 ms of CPU on these machines, jq's
 * some 30, this one's a millisecond; the tests call json() thousands of
 * times, many of them in polls.
 *
 *   jsonq --or-python FILE EXPR
 *
 * answers all of it: where this helper does not (exit 2 above), it execs
 * python3 with json()'s one-liner (PY below), whose answer, output and exit
 * status are then the command's.  lib.sh's json() is this, and `$(json ...)`
 * in a test is this command itself (an alias): one process, not a fork of
 * the test's bash around it (a fork costs some 8 ms of CPU here).
 *
 * Where an object repeats a key, the last one counts, as in python.  One
 * difference is left: a number written with a fraction or an exponent that
 * is whole (2.0, 1e3) prints as an integer, where python3 prints a float;
 * cJSON keeps no number's spelling, and the files the tests read are written
 * by cJSON, which never spells a whole number so.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

enum { JQ_OK = 0, JQ_RAISE = 1, JQ_PASS = 2 };

/* json()'s python3: the value of EXPR over d, printed as print() does, booleans lower-case. */
static const char PY[] = "import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2],{\"d\":d}); "
    "print(v if not isinstance(v,bool) else str(v).lower())";

static const char *file;

static int
raise_err(const char *what, const char *arg)
{
	fprintf(stderr, "jsonq: %s: %s%s\n", file, what, arg != NULL ? arg : "");
	return JQ_RAISE;
}

/* The last member named key (python keeps the last of repeated keys). */
static cJSON *
member(const cJSON *obj, const char *key, size_t klen)
{
	cJSON *c, *found = NULL;

	for (c = obj->child; c != NULL; c = c->next)
		if (c->string != NULL && strlen(c->string) == klen && memcmp(c->string, key, klen) == 0)
			found = c;
	return found;
}

/* Python's len of an object: its distinct keys. */
static int
obj_len(const cJSON *obj)
{
	const cJSON *c;
	int n = 0;

	for (c = obj->child; c != NULL; c = c->next)
		if (c->string != NULL && member(obj, c->string, strlen(c->string)) == c)
			n++;
	return n;
}

/* A quoted key at *p ("..." or '...', no escapes): its text and length; p past it. */
static int
quoted(const char **p, const char **key, size_t *klen)
{
	char q = **p;
	const char *end;

	if (q != '"' && q != '\'')
		return -1;
	if ((end = strchr(*p + 1, q)) == NULL || memchr(*p + 1, '\\', (size_t)(end - *p - 1)) != NULL)
		return -1;
	*key = *p + 1;
	*klen = (size_t)(end - *key);
	*p = end + 1;
	return 0;
}

/* An optionally signed decimal integer at *p; p past it. */
static int
integer(const char **p, long *v)
{
	char *end;

	if (!isdigit((unsigned char)**p) && !(**p == '-' && isdigit((unsigned char)(*p)[1])))
		return -1;
	errno = 0;
	*v = strtol(*p, &end, 10);
	if (errno != 0)
		return -1;
	*p = end;
	return 0;
}

static void
skip_blanks(const char **p)
{
	while (**p == ' ')
		(*p)++;
}

/* Code points of a UTF-8 string (python's len of a str). */
static long
utf8_len(const char *s)
{
	long n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

static int
print_value(const cJSON *v)
{
	if (cJSON_IsString(v))
		printf("%s\n", v->valuestring);
	else if (cJSON_IsTrue(v))
		printf("true\n");
	else if (cJSON_IsFalse(v))
		printf("false\n");
	else if (cJSON_IsNull(v))
		printf("None\n");
	else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
		printf("%.0f\n", v->valuedouble + 0.0);	/* -0 prints 0 */
	else
		return JQ_PASS;
	return JQ_OK;
}

/* The value of EXPR (the part after `d`) in root, or a JQ_ code. */
static int
walk(const cJSON *root, const char *e, const cJSON **out)
{
	const cJSON *cur = root, *dflt = NULL;
	static cJSON none = { .type = cJSON_NULL };
	static cJSON num = { .type = cJSON_Number };
	const char *key;
	size_t klen;
	long idx;

	if (strncmp(e, ".get(", 5) == 0) {
		e += 5;
		if (quoted(&e, &key, &klen) != 0)
			return JQ_PASS;
		skip_blanks(&e);
		dflt = &none;
		if (*e == ',') {
			e++;
			skip_blanks(&e);
			if (integer(&e, &idx) != 0)
				return JQ_PASS;
			num.valuedouble = (double)idx;
			num.valueint = (int)idx;
			dflt = &num;
		}
		if (strcmp(e, ")") != 0)
			return JQ_PASS;
		if (!cJSON_IsObject(cur))
			return raise_err("AttributeError: no .get on a ", cJSON_IsArray(cur) ? "list" : "scalar");
		*out = member(cur, key, klen);
		if (*out == NULL)
			*out = dflt;
		return JQ_OK;
	}
	while (*e != '\0') {
		if (*e++ != '[')
			return JQ_PASS;
		if (quoted(&e, &key, &klen) == 0) {
			if (*e++ != ']')
				return JQ_PASS;
			if (!cJSON_IsObject(cur))
				return raise_err("TypeError: a key of a non-object: ", key);
			if ((cur = member(cur, key, klen)) == NULL) {
				fprintf(stderr, "jsonq: %s: KeyError: '%.*s'\n", file, (int)klen, key);
				return JQ_RAISE;
			}
		} else if (integer(&e, &idx) == 0) {
			int n;

			if (*e++ != ']')
				return JQ_PASS;
			if (!cJSON_IsArray(cur))
				return raise_err("TypeError: an index of a non-list", NULL);
			n = cJSON_GetArraySize(cur);
			if (idx < 0)
				idx += n;
			if (idx < 0 || idx >= n)
				return raise_err("IndexError: list index out of range", NULL);
			cur = cJSON_GetArrayItem(cur, (int)idx);
		} else
			return JQ_PASS;
	}
	*out = cur;
	return JQ_OK;
}

static int answer(const char *e);

int
main(int argc, char **argv)
{
	int or_python = argc == 4 && strcmp(argv[1], "--or-python") == 0, rc;

	if (argc != 3 + or_python) {
		fprintf(stderr, "usage: jsonq [--or-python] FILE EXPR\n");
		return 64;
	}
	file = argv[1 + or_python];
	rc = answer(argv[2 + or_python]);
	if (rc != JQ_PASS || !or_python)
		return rc;
	fflush(stdout);
	execlp("python3", "python3", "-c", PY, file, argv[2 + or_python], (char *)NULL);
	fprintf(stderr, "jsonq: python3: %s\n", strerror(errno));
	return 127;
}

/* EXPR's value on stdout, or a JQ_ code (nothing printed for JQ_PASS). */
static int
answer(const char *e)
{
	const cJSON *v = NULL;
	cJSON *root = NULL;
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int rc, want_len = 0;
	FILE *f;

	if (strncmp(e, "len(", 4) == 0) {
		size_t el = strlen(e);

		if (el < 6 || e[el - 1] != ')')
			return JQ_PASS;
		want_len = 1;
		e += 4;
	}
	if (*e != 'd')
		return JQ_PASS;
	if ((f = fopen(file, "r")) == NULL)
		return raise_err(errno == ENOENT ? "FileNotFoundError" : strerror(errno), NULL);
	do {
		if (len + 4096 + 1 > cap) {
			char *t = realloc(text, cap = 2 * cap + 4096 + 1);

			if (t == NULL) {
				rc = raise_err("MemoryError", NULL);
				goto out;
			}
			text = t;
		}
		n = fread(text + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	text[len] = '\0';
	if (ferror(f)) {
		rc = raise_err("OSError: read", NULL);
		goto out;
	}
	if (memchr(text, '\0', len) != NULL || (root = cJSON_ParseWithOpts(text, NULL, 1)) == NULL) {
		rc = JQ_PASS;
		goto out;
	}
	if (want_len) {
		/* walk sees the inner expression: "len(" was skipped, ")" is cut here */
		char *inner = strdup(e + 1);

		if (inner == NULL) {
			rc = raise_err("MemoryError", NULL);
			goto out;
		}
		inner[strlen(inner) - 1] = '\0';
		rc = walk(root, inner, &v);
		free(inner);
		if (rc != JQ_OK)
			goto out;
		if (cJSON_IsArray(v))
			printf("%d\n", cJSON_GetArraySize(v));
		else if (cJSON_IsObject(v))
			printf("%d\n", obj_len(v));
		else if (cJSON_IsString(v))
			printf("%ld\n", utf8_len(v->valuestring));
		else
			rc = raise_err("TypeError: len of a ", cJSON_IsNull(v) ? "None" : "scalar");
		goto out;
	}
	if ((rc = walk(root, e + 1, &v)) == JQ_OK)
		rc = print_value(v);
 out:
	cJSON_Delete(root);
	free(text);
	fclose(f);
	return rc;
}
