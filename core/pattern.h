/*
 * pattern.h: user-written regexes, on PCRE2 (8-bit, UTF off, JIT when available).
 *
 * People copy patterns from Python, so PCRE2 syntax is the contract: \d, \s,
 * (?i), non-greedy, named groups.  A pattern is compiled once and matched
 * against many lines; each struct pattern owns its match data, so one pattern
 * must not be matched from two threads at once (we have none).
 *
 * A patset matches many patterns against a line in one pass where it can: the
 * patterns are joined into one alternation used as a prefilter, and only lines
 * that hit it are tried against each member to learn which ones matched.
 */
#ifndef WK_PATTERN_H
#define WK_PATTERN_H

#include <stddef.h>

struct pattern;

/*
 * Compile re.  On failure returns WK_ERR_REGEX, sets *out to NULL and writes a
 * message naming the offset into errbuf ("missing closing parenthesis at
 * offset 5").  Caller frees *out with pattern_free().
 */
int pattern_compile(const char *re, struct pattern **out, char *errbuf, size_t errlen);
void pattern_free(struct pattern *p);
const char *pattern_source(const struct pattern *p);

/* 1 when p matches somewhere in s[0..len), 0 when not, WK_ERR_REGEX on a matching error. */
int pattern_match(struct pattern *p, const char *s, size_t len);

/*
 * Like pattern_match, and on a match fills groups[i] with {start, end} offsets
 * of capture group i (0 = whole match) for i < ngroups; unset groups get
 * {-1, -1}.  Returns 1, 0 or WK_ERR_REGEX.
 */
struct pattern_span { long start, end; };
int pattern_match_groups(struct pattern *p, const char *s, size_t len,
    struct pattern_span *groups, size_t ngroups);

/* Number of capture groups in p. */
size_t pattern_ngroups(const struct pattern *p);

struct patset;

/*
 * Compile n patterns into a set.  On failure returns WK_ERR_REGEX and names
 * the failing member's index and offset in errbuf.  The set copies what it needs.
 */
int patset_compile(const char *const *res, size_t n, struct patset **out,
    char *errbuf, size_t errlen);
void patset_free(struct patset *s);
size_t patset_count(const struct patset *s);
/*
 * Match one line against every member.  hits[i] is set to 1 for each member
 * that matches (hits has patset_count() entries and is not cleared first
 * when accumulate != 0).  Returns the number of members that matched, or
 * WK_ERR_REGEX.
 */
int patset_match(struct patset *s, const char *line, size_t len, unsigned char *hits,
    int accumulate);

#endif
