/*
 * pattern.c: PCRE2 regexes for user patterns and the triage table (see pattern.h).
 *
 * Every pattern is compiled once, JIT-compiled when the library can (the
 * interpreter is the silent fallback), and owns its match data and a match
 * context, so matching a line allocates nothing.  UTF mode is off and
 * forbidden (PCRE2_NEVER_UTF): a log is arbitrary bytes, and in UTF mode an
 * invalid sequence is a matching error, which must never stop a scan.
 * Runaway backtracking stops at PCRE2's match limit and is reported as
 * WK_ERR_REGEX.  That limit counts per start position, so a pattern that is
 * quadratic in the line length is bounded only by the line length (logscan's
 * max_line).  The JIT's default 32 KiB stack overflows on repeated groups
 * over a few kB: the first overflow gives the pattern a 1 MiB JIT stack, and
 * one beyond that is retried with the interpreter, whose memory is bounded
 * by PATTERN_HEAP_LIMIT_KIB.  Under valgrind the JIT is not used: its SIMD
 * scans read whole aligned 16-byte blocks past the end of the subject
 * (harmless, never across a page), which memcheck reports as errors.
 *
 * A patset joins its members into one alternation "(?:m0)|(?:m1)|..." so a
 * line that matches none of them (almost every line) costs one match call.
 * That is only sound for members whose meaning cannot change inside the
 * alternation: numbered back references and subroutine calls would point at
 * another member's groups, recursion at the whole alternation, and
 * backtracking verbs such as (*COMMIT) would cut off the members after them.
 * patset_joinable() rejects those (conservatively: a false "no" only costs
 * speed), and such members are matched on every line.  When the alternation
 * does not compile at all (duplicate group names, a stray \Q), every member
 * is matched on every line.  Either way hits[] equals what matching each
 * member alone gives.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "log.h"
#include "pattern.h"
#include "xmalloc.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define PATTERN_UNDER_VALGRIND()	(RUNNING_ON_VALGRIND != 0)
#endif
#endif
#ifndef PATTERN_UNDER_VALGRIND
#define PATTERN_UNDER_VALGRIND()	0
#endif

/* The interpreter's backtracking memory per match, in KiB (PCRE2's default is 20 GB). */
#define PATTERN_HEAP_LIMIT_KIB	(64 * 1024)
/* The JIT stack a pattern gets once the default 32 KiB overflowed. */
#define PATTERN_JIT_STACK_MAX	(1024 * 1024)

struct pattern {
	char			*source;	/* owned */
	pcre2_code		*code;
	pcre2_match_data	*md;
	pcre2_match_context	*mctx;
	pcre2_jit_stack		*jstack;	/* NULL until the default one overflowed */
	size_t			 ngroups;
};

struct patset {
	struct pattern	**members;	/* owned; n entries */
	size_t		  n;
	unsigned char	 *joined;	/* member i is inside any */
	struct pattern	 *any;		/* the alternation; NULL when none */
};

static void
pattern_errmsg(int code, size_t offset, char *errbuf, size_t errlen)
{
	PCRE2_UCHAR msg[256];

	if (errbuf == NULL || errlen == 0)
		return;
	if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
		snprintf((char *)msg, sizeof(msg), "error %d", code);
	snprintf(errbuf, errlen, "%s at offset %zu", (char *)msg, offset);
}

int
pattern_compile(const char *re, struct pattern **out, char *errbuf, size_t errlen)
{
	struct pattern *p = NULL;
	PCRE2_SIZE erroff = 0;
	uint32_t ncap = 0;
	int errcode = 0, r = WK_ERR_REGEX;

	*out = NULL;
	if (errbuf != NULL && errlen > 0)
		errbuf[0] = '\0';
	if (re == NULL) {
		if (errbuf != NULL && errlen > 0)
			snprintf(errbuf, errlen, "no pattern");
		r = WK_ERR_INVALID;
		goto out;
	}
	p = xcalloc(1, sizeof(*p));
	p->source = xstrdup(re);
	p->code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, PCRE2_NEVER_UTF,
	    &errcode, &erroff, NULL);
	if (p->code == NULL) {
		pattern_errmsg(errcode, erroff, errbuf, errlen);
		goto out;
	}
	/* Failure only means "no JIT here": pcre2_match() then interprets. */
	if (!PATTERN_UNDER_VALGRIND())
		(void)pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE);
	if (pcre2_pattern_info(p->code, PCRE2_INFO_CAPTURECOUNT, &ncap) == 0)
		p->ngroups = ncap;
	p->md = pcre2_match_data_create_from_pattern(p->code, NULL);
	p->mctx = pcre2_match_context_create(NULL);
	if (p->md == NULL || p->mctx == NULL)
		fatal("out of memory creating match data for \"%s\"", re);
	pcre2_set_heap_limit(p->mctx, PATTERN_HEAP_LIMIT_KIB);
	*out = p;
	p = NULL;	/* transferred */
	r = 0;
 out:
	pattern_free(p);
	return r;
}

void
pattern_free(struct pattern *p)
{
	if (p == NULL)
		return;
	pcre2_match_context_free(p->mctx);
	pcre2_jit_stack_free(p->jstack);
	pcre2_match_data_free(p->md);
	pcre2_code_free(p->code);
	free(p->source);
	free(p);
}

const char *
pattern_source(const struct pattern *p)
{
	return p->source;
}

size_t
pattern_ngroups(const struct pattern *p)
{
	return p->ngroups;
}

/* pcre2_match() on s[0..len): >0 on a match, 0 when none, WK_ERR_REGEX on an error. */
static int
pattern_exec(struct pattern *p, const char *s, size_t len)
{
	int rc;

	if (s == NULL)
		s = "";
	rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, 0, 0, p->md, p->mctx);
	if (rc == PCRE2_ERROR_JIT_STACKLIMIT && p->jstack == NULL &&
	    (p->jstack = pcre2_jit_stack_create(32 * 1024, PATTERN_JIT_STACK_MAX, NULL)) != NULL) {
		pcre2_jit_stack_assign(p->mctx, NULL, p->jstack);
		rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, 0, 0, p->md, p->mctx);
	}
	if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
		rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, 0, PCRE2_NO_JIT, p->md, p->mctx);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0)
		return WK_ERR_REGEX;
	/* 0 means the ovector was too small; it never is (sized from the pattern). */
	return rc == 0 ? 1 : rc;
}

int
pattern_match(struct pattern *p, const char *s, size_t len)
{
	int rc = pattern_exec(p, s, len);

	return rc > 0 ? 1 : rc;
}

int
pattern_match_groups(struct pattern *p, const char *s, size_t len,
    struct pattern_span *groups, size_t ngroups)
{
	PCRE2_SIZE *ov;
	uint32_t nov;
	size_t i;
	int rc;

	if ((rc = pattern_exec(p, s, len)) <= 0)
		return rc;
	ov = pcre2_get_ovector_pointer(p->md);
	nov = pcre2_get_ovector_count(p->md);
	for (i = 0; i < ngroups; i++) {
		groups[i].start = groups[i].end = -1;
		if (i >= nov || i >= (size_t)rc || ov[2 * i] == PCRE2_UNSET)
			continue;
		groups[i].start = (long)ov[2 * i];
		groups[i].end = (long)ov[2 * i + 1];
	}
	return 1;
}

/*
 * Whether re keeps its meaning as one branch of an alternation with other
 * patterns (see the top of the file).  Errs towards 0.
 */
static int
patset_joinable(const char *re)
{
	const char *p = re;
	size_t k;

	while (*p != '\0') {
		if (p[0] == '\\') {
			if (p[1] == '\0')
				return 0;
			/* \1-\9 back references, \g and \k references and subroutine calls. */
			if ((p[1] >= '1' && p[1] <= '9') || p[1] == 'g' || p[1] == 'k')
				return 0;
			if (p[1] == 'Q') {
				if ((p = strstr(p + 2, "\\E")) == NULL)
					return 0;
				p += 2;
				continue;
			}
			/* \cX: X is taken literally, even a backslash. */
			if (p[1] == 'c' && p[2] != '\0')
				p++;
			p += 2;
			continue;
		}
		if (p[0] == '(' && p[1] == '*')
			return 0;	/* verbs, (*positive_lookahead:, start-of-pattern options */
		if (p[0] == '(' && p[1] == '?') {
			if (p[2] == '#') {
				if ((p = strchr(p + 3, ')')) == NULL)
					return 0;
				p++;
				continue;
			}
			/* (?1) (?+1) (?-1) (?R) (?&n) (?P>n) (?P=n) (?(cond)...) */
			if (p[2] == '\0' || strchr("0123456789+R&(", p[2]) != NULL ||
			    (p[2] == '-' && p[3] >= '0' && p[3] <= '9') ||
			    (p[2] == 'P' && (p[3] == '>' || p[3] == '=')))
				return 0;
			/* (?x) and friends: a '#' comment would swallow the ")|(?:" after it. */
			k = strspn(p + 2, "imnsxJU^-");
			if ((p[2 + k] == ')' || p[2 + k] == ':') && memchr(p + 2, 'x', k) != NULL)
				return 0;
		}
		p++;
	}
	return 1;
}

int
patset_compile(const char *const *res, size_t n, struct patset **out,
    char *errbuf, size_t errlen)
{
	struct patset *s = NULL;
	struct buf alt = BUF_INIT;
	char member_err[256];
	size_t i, njoined = 0;
	int r = WK_ERR_REGEX;

	*out = NULL;
	if (errbuf != NULL && errlen > 0)
		errbuf[0] = '\0';
	s = xcalloc(1, sizeof(*s));
	s->members = xcalloc(n, sizeof(*s->members));
	s->joined = xcalloc(n, 1);
	s->n = n;
	for (i = 0; i < n; i++) {
		if ((r = pattern_compile(res[i], &s->members[i], member_err,
		    sizeof(member_err))) != 0) {
			if (errbuf != NULL && errlen > 0)
				snprintf(errbuf, errlen, "pattern %zu: %s", i, member_err);
			goto out;
		}
		if (!patset_joinable(res[i]))
			continue;
		buf_puts(&alt, njoined > 0 ? "|(?:" : "(?:");
		buf_puts(&alt, res[i]);
		buf_puts(&alt, ")");
		s->joined[i] = 1;
		njoined++;
	}
	if (njoined > 0 && pattern_compile(buf_str(&alt), &s->any, NULL, 0) != 0)
		memset(s->joined, 0, n);	/* match every member on every line */
	*out = s;
	s = NULL;	/* transferred */
	r = 0;
 out:
	buf_free(&alt);
	patset_free(s);
	return r;
}

void
patset_free(struct patset *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		pattern_free(s->members[i]);
	free(s->members);
	free(s->joined);
	pattern_free(s->any);
	free(s);
}

size_t
patset_count(const struct patset *s)
{
	return s->n;
}

/*
 * On a matching error in one member the others are still tried and their
 * hits recorded; the result is then WK_ERR_REGEX.
 */
int
patset_match(struct patset *s, const char *line, size_t len, unsigned char *hits,
    int accumulate)
{
	size_t i;
	int prefilter = 1, nmatched = 0, failed = 0, rc;

	if (!accumulate && s->n > 0)
		memset(hits, 0, s->n);
	/* An error in the alternation (say, its match limit) proves nothing: try every member. */
	if (s->any != NULL)
		prefilter = pattern_match(s->any, line, len) != 0;
	for (i = 0; i < s->n; i++) {
		if (s->joined[i] && !prefilter)
			continue;
		if ((rc = pattern_match(s->members[i], line, len)) < 0)
			failed = 1;
		else if (rc > 0) {
			hits[i] = 1;
			nmatched++;
		}
	}
	return failed ? WK_ERR_REGEX : nmatched;
}
