/*
 * test_jsondiff.c: config drift as people read it: changed, added and
 * removed leaves, arrays by index, hidden secrets, bounded output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsondiff.h"

static char *
diff(const char *a, const char *b, size_t max)
{
	cJSON *x = cJSON_Parse(a), *y = cJSON_Parse(b);
	char *d;

	assert_non_null(x);
	assert_non_null(y);
	d = jsondiff_text(x, y, max, jsondiff_hide_secrets);
	cJSON_Delete(x);
	cJSON_Delete(y);
	return d;
}

static void
test_jsondiff_equal(void **state)
{
	(void)state;
	assert_null(diff("{\"a\": 1, \"b\": [1, {\"c\": \"x\"}]}", "{\"b\": [1, {\"c\": \"x\"}], \"a\": 1}", 10));
	assert_null(diff("{}", "{}", 10));
}

static void
test_jsondiff_changes(void **state)
{
	char *d;

	(void)state;
	d = diff("{\"run\": \"r\", \"heartbeat_s\": 1, \"chain\": [{\"stage\": \"train\", \"run\": \"python a.py\"}],"
	    " \"loss\": {\"pattern\": \"l=(\\\\d+)\"}}",
	    "{\"run\": \"r\", \"heartbeat_s\": 2, \"chain\": [{\"stage\": \"train\", \"run\": \"python a.py --lr 3e-4\"},"
	    " {\"stage\": \"eval\"}], \"results\": \"m.csv\"}", 10);
	assert_non_null(d);
	assert_string_equal(d,
	    "heartbeat_s: 1 -> 2\n"
	    "chain[0].run: \"python a.py\" -> \"python a.py --lr 3e-4\"\n"
	    "+ chain[1].stage: \"eval\"\n"
	    "+ results: \"m.csv\"\n"
	    "- loss.pattern\n");
	free(d);
}

/* Values under notify[] never appear, changed or added. */
static void
test_jsondiff_hides_secrets(void **state)
{
	char *d;

	(void)state;
	d = diff("{\"notify\": [{\"type\": \"slack\", \"url\": \"https://hooks/OLDSECRET\"}]}",
	    "{\"notify\": [{\"type\": \"slack\", \"url\": \"https://hooks/NEWSECRET\"},"
	    " {\"type\": \"telegram\", \"token_env\": \"TG\", \"chat_id\": 42}]}", 10);
	assert_non_null(d);
	assert_null(strstr(d, "SECRET"));
	assert_null(strstr(d, "42"));
	assert_non_null(strstr(d, "notify[0].url: changed (value not shown)\n"));
	assert_non_null(strstr(d, "+ notify[1].chat_id (value not shown)\n"));
	free(d);
}

/* The copy kept on disk: notify[] values only as digests; a change still shows. */
static void
test_jsondiff_redacted(void **state)
{
	cJSON *a = cJSON_Parse("{\"run\": \"r\", \"notify\": [{\"type\": \"slack\", \"url\": \"https://h/SECRET1\", \"chat_id\": 42}]}");
	cJSON *b = cJSON_Parse("{\"run\": \"r\", \"notify\": [{\"type\": \"slack\", \"url\": \"https://h/SECRET2\", \"chat_id\": 42}]}");
	cJSON *ra = jsondiff_redacted(a), *rb = jsondiff_redacted(b);
	char *ta = cJSON_PrintUnformatted(ra), *d;

	(void)state;
	assert_null(strstr(ta, "SECRET"));
	assert_null(strstr(ta, "42"));
	assert_non_null(strstr(ta, "\"run\":\"r\""));
	d = jsondiff_text(ra, rb, 10, jsondiff_hide_secrets);
	assert_non_null(d);
	assert_string_equal(d, "notify[0].url: changed (value not shown)\n");
	free(d);
	{
		/* The same values give the same digests: no drift where nothing changed. */
		cJSON *again = jsondiff_redacted(a);

		assert_null(jsondiff_text(ra, again, 10, NULL));
		cJSON_Delete(again);
	}
	free(ta);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(ra);
	cJSON_Delete(rb);
}

/* At most max lines, then a count; long values are cut. */
static void
test_jsondiff_bounded(void **state)
{
	char a[4096], b[4096], *d, big[600];
	size_t o = 0, p = 0;
	int i;

	(void)state;
	o += (size_t)snprintf(a + o, sizeof(a) - o, "{");
	p += (size_t)snprintf(b + p, sizeof(b) - p, "{");
	for (i = 0; i < 50; i++) {
		o += (size_t)snprintf(a + o, sizeof(a) - o, "%s\"k%d\": %d", i ? ", " : "", i, i);
		p += (size_t)snprintf(b + p, sizeof(b) - p, "%s\"k%d\": %d", i ? ", " : "", i, i + 1);
	}
	snprintf(a + o, sizeof(a) - o, "}");
	snprintf(b + p, sizeof(b) - p, "}");
	d = diff(a, b, 5);
	assert_non_null(d);
	assert_non_null(strstr(d, "k4: 4 -> 5\n... and 45 more\n"));
	assert_null(strstr(d, "k5:"));
	free(d);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(a, sizeof(a), "{\"v\": \"%s\"}", big);
	d = diff("{\"v\": \"short\"}", a, 5);
	assert_non_null(d);
	assert_true(strlen(d) < 400);
	assert_non_null(strstr(d, "...\n"));
	free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jsondiff_equal),
		cmocka_unit_test(test_jsondiff_changes),
		cmocka_unit_test(test_jsondiff_hides_secrets),
		cmocka_unit_test(test_jsondiff_bounded),
		cmocka_unit_test(test_jsondiff_redacted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
