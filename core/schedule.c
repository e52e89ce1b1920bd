/*
 * schedule.c: cron's five fields as sets, and as systemd and launchd want
 * them (see schedule.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "schedule.h"

/* One field's bounds and names (the table cron's man page has). */
struct sched_field {
	const char		*name;
	int			 min, max;
	const char *const	*names;		/* names[i] is min + i; NULL: numbers only */
};

static const char *const sched_months[] = {
	"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", NULL
};
static const char *const sched_days[] = { "sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL };

enum { F_MIN, F_HOUR, F_DOM, F_MON, F_DOW, F_N };

static const struct sched_field sched_fields[F_N] = {
	{ "minute", 0, 59, NULL },
	{ "hour", 0, 23, NULL },
	{ "day of month", 1, 31, NULL },
	{ "month", 1, 12, sched_months },
	{ "day of week", 0, 7, sched_days },	/* 7 is Sunday too */
};

static const struct {
	const char	*word;
	const char	*fields;
} sched_words[] = {
	{ "@hourly", "0 * * * *" },
	{ "@daily", "0 0 * * *" },
	{ "@midnight", "0 0 * * *" },
	{ "@weekly", "0 0 * * 0" },
	{ "@monthly", "0 0 1 * *" },
	{ "@yearly", "0 0 1 1 *" },
	{ "@annually", "0 0 1 1 *" },
};

/* A number or a name at *p: its value, *p past it; -1 when neither. */
static int
sched_value(const struct sched_field *f, const char **p)
{
	const char *s = *p;
	char *end;
	long v;
	int i;

	if (isdigit((unsigned char)*s)) {
		v = strtol(s, &end, 10);
		if (end - s > 3)
			return -1;
		*p = end;
		return (int)v;
	}
	for (i = 0; f->names != NULL && f->names[i] != NULL; i++)
		if (strncasecmp(s, f->names[i], 3) == 0 && !isalpha((unsigned char)s[3])) {
			*p = s + 3;
			return f->min + i;
		}
	return -1;
}

/* One field's text (len bytes at s) into *bits: 0, or -1 with why. */
static int
sched_field_parse(const struct sched_field *f, const char *s, size_t len, uint64_t *bits,
    char *why, size_t whylen)
{
	char item[64];
	const char *p, *comma, *end = s + len;
	int a, b, step, v;

	*bits = 0;
	for (p = s; p < end; p = comma + 1) {
		comma = memchr(p, ',', (size_t)(end - p));
		if (comma == NULL)
			comma = end;
		if (comma == p || (size_t)(comma - p) >= sizeof(item))
			goto bad;
		memcpy(item, p, (size_t)(comma - p));
		item[comma - p] = '\0';
		p = item;
		step = 1;
		if (*p == '*') {
			a = f->min;
			b = f->max;
			p++;
		} else {
			if ((a = sched_value(f, &p)) < 0)
				goto bad;
			b = a;
			if (*p == '-') {
				p++;
				if ((b = sched_value(f, &p)) < 0)
					goto bad;
			} else if (*p == '/')
				b = f->max;	/* "a/n": a to the end, every n */
		}
		if (*p == '/') {
			char *e = (char *)p;
			long n;

			p++;
			n = isdigit((unsigned char)*p) ? strtol(p, &e, 10) : 0;
			if (n < 1 || n > f->max || e - p > 2)
				goto bad;
			step = (int)n;
			p = e;
		}
		if (*p != '\0' || a < f->min || b > f->max || a > b)
			goto bad;
		for (v = a; v <= b; v += step)
			*bits |= (uint64_t)1 << v;
		if (comma == end)
			break;
	}
	return 0;
 bad:
	snprintf(why, whylen, "the %s field \"%.*s\" is not %d-%d, a range, a step or a list of them",
	    f->name, (int)len, s, f->min, f->max);
	return -1;
}

int
sched_parse(const char *spec, struct sched *s, char *why, size_t whylen)
{
	const char *p, *start[F_N];
	size_t len[F_N], i;
	uint64_t bits[F_N];
	int n;

	memset(s, 0, sizeof(*s));
	while (*spec == ' ' || *spec == '\t')
		spec++;
	if (*spec == '@') {
		for (i = 0; i < sizeof(sched_words) / sizeof(sched_words[0]); i++)
			if (strcmp(spec, sched_words[i].word) == 0)
				return sched_parse(sched_words[i].fields, s, why, whylen);
		snprintf(why, whylen, "\"%.40s\" is not one of @hourly, @daily, @midnight, @weekly, "
		    "@monthly, @yearly, @annually", spec);
		return -1;
	}
	for (n = 0, p = spec; *p != '\0' && n <= F_N;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (n < F_N)
			start[n] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
		if (n < F_N)
			len[n] = (size_t)(p - start[n]);
		n++;
	}
	if (n != F_N) {
		snprintf(why, whylen, "\"%.60s\" has %d fields, not five (minute hour day-of-month "
		    "month day-of-week) or an @word", spec, n);
		return -1;
	}
	for (i = 0; i < F_N; i++)
		if (sched_field_parse(&sched_fields[i], start[i], len[i], &bits[i], why, whylen) != 0)
			return -1;
	s->minute = bits[F_MIN];
	s->hour = (uint32_t)bits[F_HOUR];
	s->dom = (uint32_t)bits[F_DOM];
	s->month = (uint32_t)bits[F_MON];
	s->dow = (uint32_t)(bits[F_DOW] & 0x7f) | (uint32_t)(bits[F_DOW] >> 7 & 1);	/* 7: Sunday */
	s->dom_star = start[F_DOM][0] == '*';
	s->dow_star = start[F_DOW][0] == '*';
	return 0;
}

/* Is every value of [min, max] in bits? */
static int
sched_full(uint64_t bits, int min, int max)
{
	int v;

	for (v = min; v <= max; v++)
		if (!(bits >> v & 1))
			return 0;
	return 1;
}

/* "*" or the values, comma-separated, each with fmt. */
static void
sched_list(struct buf *b, uint64_t bits, int min, int max, const char *fmt)
{
	int v, first = 1;

	if (sched_full(bits, min, max)) {
		buf_putc(b, '*');
		return;
	}
	for (v = min; v <= max; v++)
		if (bits >> v & 1) {
			if (!first)
				buf_putc(b, ',');
			buf_printf(b, fmt, v);
			first = 0;
		}
}

static void
sched_systemd_one(const struct sched *s, struct buf *b, uint32_t dom, uint32_t dow)
{
	static const char *const dn[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	int v, first = 1;

	buf_puts(b, "OnCalendar=");
	if (!sched_full(dow, 0, 6)) {
		for (v = 0; v <= 6; v++)
			if (dow >> v & 1) {
				buf_printf(b, "%s%s", first ? "" : ",", dn[v]);
				first = 0;
			}
		buf_putc(b, ' ');
	}
	buf_puts(b, "*-");
	sched_list(b, s->month, 1, 12, "%02d");
	buf_putc(b, '-');
	sched_list(b, dom, 1, 31, "%02d");
	buf_putc(b, ' ');
	sched_list(b, s->hour, 0, 23, "%02d");
	buf_putc(b, ':');
	sched_list(b, s->minute, 0, 59, "%02d");
	buf_puts(b, ":00\n");
}

void
sched_systemd(const struct sched *s, struct buf *b)
{
	const uint32_t alldom = 0xfffffffeu, alldow = 0x7f;

	if (!s->dom_star && !s->dow_star) {
		/* cron: either day field matching is enough */
		sched_systemd_one(s, b, s->dom, alldow);
		sched_systemd_one(s, b, alldom, s->dow);
	} else
		sched_systemd_one(s, b, s->dom, s->dow);
}

/* The values of a restricted field (none: it is unrestricted, a wildcard). */
struct sched_vals {
	const char	*key;
	int		 v[60];
	int		 n;
};

static void
sched_vals(struct sched_vals *f, const char *key, uint64_t bits, int min, int max)
{
	int v;

	f->key = key;
	f->n = 0;
	if (sched_full(bits, min, max))
		return;
	for (v = min; v <= max; v++)
		if (bits >> v & 1)
			f->v[f->n++] = v;
}

/* Every combination of fs' values: one dict each.  The count. */
static int
sched_launchd_product(struct buf *b, const struct sched_vals *fs, int nf, int indent)
{
	int idx[5] = { 0 }, i, k, count = 0;

	for (;;) {
		for (k = 0; k < indent; k++)
			buf_putc(b, '\t');
		buf_puts(b, "<dict>");
		for (i = 0; i < nf; i++)
			if (fs[i].n > 0)
				buf_printf(b, "<key>%s</key><integer>%d</integer>", fs[i].key, fs[i].v[idx[i]]);
		buf_puts(b, "</dict>\n");
		count++;
		for (i = nf - 1; i >= 0; i--) {
			if (fs[i].n == 0)
				continue;
			if (++idx[i] < fs[i].n)
				break;
			idx[i] = 0;
		}
		if (i < 0)
			return count;
	}
}

static long
sched_launchd_count(const struct sched_vals *fs, int nf)
{
	long c = 1;
	int i;

	for (i = 0; i < nf; i++)
		if (fs[i].n > 0)
			c *= fs[i].n;
	return c;
}

int
sched_launchd(const struct sched *s, struct buf *b, int indent)
{
	struct sched_vals fs[5], fd[5], fw[5];
	long total;
	int n;

	/* launchd's keys: all given ones must match; a missing key matches any value. */
	sched_vals(&fs[0], "Month", s->month, 1, 12);
	sched_vals(&fs[1], "Day", s->dom, 1, 31);
	sched_vals(&fs[2], "Weekday", s->dow, 0, 6);
	sched_vals(&fs[3], "Hour", s->hour, 0, 23);
	sched_vals(&fs[4], "Minute", s->minute, 0, 59);
	if (!s->dom_star && !s->dow_star && fs[1].n > 0 && fs[2].n > 0) {
		/* cron: either day field matching is enough: the days, then the weekdays */
		memcpy(fd, fs, sizeof(fs));
		memcpy(fw, fs, sizeof(fs));
		fd[2].n = 0;
		fw[1].n = 0;
		total = sched_launchd_count(fd, 5) + sched_launchd_count(fw, 5);
		if (total > SCHED_LAUNCHD_MAX)
			return -1;
		n = sched_launchd_product(b, fd, 5, indent);
		return n + sched_launchd_product(b, fw, 5, indent);
	}
	if (sched_launchd_count(fs, 5) > SCHED_LAUNCHD_MAX)
		return -1;
	return sched_launchd_product(b, fs, 5, indent);
}

long
sched_interval_s(const struct sched *s)
{
	long first = -1, prev = -1, gap = 0, t;

	for (t = 0; t < 24 * 60; t++) {
		if (!(s->hour & (1u << (t / 60))) || !(s->minute & ((uint64_t)1 << (t % 60))))
			continue;
		if (prev >= 0 && t - prev > gap)
			gap = t - prev;
		if (first < 0)
			first = t;
		prev = t;
	}
	if (first < 0)
		return 86400;
	if (first + 24 * 60 - prev > gap)	/* across midnight; a single run: the whole day */
		gap = first + 24 * 60 - prev;
	return gap * 60;
}
