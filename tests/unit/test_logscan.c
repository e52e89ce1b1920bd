/*
 * test_logscan.c: incremental log reading against real files in a temp dir:
 * split reads, partial lines and persisted positions, resume, truncation,
 * rename rotation, late files, over-long lines, CRLF, NUL bytes, seek_end;
 * and the sanitizing line ring.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "logscan.h"

#define MAXLINES 64

struct got {
	char	*line[MAXLINES];
	size_t	 len[MAXLINES];
	int	 trunc[MAXLINES];
	int	 cr[MAXLINES];	/* ended by a lone '\r' */
	size_t	 n;
};

struct fixture {
	char	 dir[64];
	char	 path[128];
	struct got got;
};

static void
collect(void *arg, const char *line, size_t len, int flags)
{
	struct got *g = arg;

	assert_true(g->n < MAXLINES);
	g->line[g->n] = malloc(len + 1);
	memcpy(g->line[g->n], line, len);
	g->line[g->n][len] = '\0';
	g->len[g->n] = len;
	g->trunc[g->n] = (flags & LOGSCAN_TRUNCATED) != 0;
	g->cr[g->n] = (flags & LOGSCAN_CR) != 0;
	g->n++;
}

static void
got_clear(struct got *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		free(g->line[i]);
	memset(g, 0, sizeof(*g));
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/wk-logscan-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/train.log", f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	got_clear(&f->got);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void
write_at_end(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void
append(const char *path, const char *s)
{
	write_at_end(path, s, strlen(s));
}

static void
expect_lines(struct got *g, const char *const *want, size_t n)
{
	size_t i;

	assert_int_equal(g->n, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(g->line[i], want[i]);
		assert_int_equal(g->trunc[i], 0);
	}
	got_clear(g);
}

static void
test_split_and_partial(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	static const char *const first[] = { "step 1", "step 2" };
	static const char *const second[] = { "step 3 loss=2.1", "" };

	logscan_init(&ls, f->path, 0);
	append(f->path, "step 1\nstep 2\nstep 3 lo");
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 23);
	expect_lines(&f->got, first, 2);
	/* The partial "step 3 lo" is held back and not counted as consumed. */
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, 14);
	assert_int_equal(ls.partial.len, 9);

	assert_int_equal(logscan_poll(&ls, collect, &f->got), 0);
	assert_int_equal(f->got.n, 0);

	append(f->path, "ss=2.1\n\n");
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 8);
	expect_lines(&f->got, second, 2);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, 31);
	assert_int_equal(ls.lines, 4);
	assert_int_equal(ls.bytes, 31);
	logscan_free(&ls);
}

static void
test_line_across_chunks(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	char *big;
	size_t len = 100 * 1000;

	/* 100 kB lines straddle the 64 KiB read chunks. */
	big = malloc(len + 2);
	memset(big, 'x', len);
	big[len] = '\n';
	write_at_end(f->path, big, len + 1);
	big[0] = 'y';
	write_at_end(f->path, big, len + 1);
	logscan_init(&ls, f->path, 200 * 1000);
	assert_int_equal(logscan_poll(&ls, collect, &f->got), (long)(2 * (len + 1)));
	assert_int_equal(f->got.n, 2);
	assert_int_equal(f->got.len[0], len);
	assert_int_equal(f->got.len[1], len);
	assert_int_equal(f->got.line[1][0], 'y');
	assert_int_equal(f->got.trunc[1], 0);
	free(big);
	logscan_free(&ls);
}

static void
test_resume(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	static const char *const old[] = { "old 1", "old 2" };
	static const char *const fresh[] = { "half written, now done", "new 1" };

	append(f->path, "old 1\nold 2\nhalf wri");
	logscan_init(&ls, f->path, 0);
	assert_true(logscan_poll(&ls, collect, &f->got) > 0);
	expect_lines(&f->got, old, 2);
	logscan_get_pos(&ls, &pos);
	logscan_free(&ls);

	/* A new process resumes: the partial line is re-read, old lines are not. */
	append(f->path, "tten, now done\nnew 1\n");
	logscan_init(&ls, f->path, 0);
	logscan_set_pos(&ls, &pos);
	assert_true(logscan_poll(&ls, collect, &f->got) > 0);
	expect_lines(&f->got, fresh, 2);
	logscan_free(&ls);

	/* A saved position for another file (inode) is not honoured. */
	pos.ino ^= 1;
	logscan_init(&ls, f->path, 0);
	logscan_set_pos(&ls, &pos);
	assert_true(logscan_poll(&ls, collect, &f->got) > 0);
	assert_int_equal(f->got.n, 4);
	assert_string_equal(f->got.line[0], "old 1");
	got_clear(&f->got);
	logscan_free(&ls);
}

static void
test_resume_after_truncation_while_away(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	static const char *const want[] = { "short" };

	append(f->path, "a long first line\nanother long line\n");
	logscan_init(&ls, f->path, 0);
	logscan_poll(&ls, collect, &f->got);
	got_clear(&f->got);
	logscan_get_pos(&ls, &pos);
	logscan_free(&ls);

	assert_int_equal(truncate(f->path, 0), 0);
	append(f->path, "short\n");
	logscan_init(&ls, f->path, 0);
	logscan_set_pos(&ls, &pos);
	logscan_poll(&ls, collect, &f->got);
	expect_lines(&f->got, want, 1);
	logscan_free(&ls);
}

static void
test_truncation(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	static const char *const before[] = { "epoch 1 done", "epoch 2 done" };
	static const char *const after[] = { "fresh 1" };

	logscan_init(&ls, f->path, 0);
	append(f->path, "epoch 1 done\nepoch 2 done\npartial");
	logscan_poll(&ls, collect, &f->got);
	expect_lines(&f->got, before, 2);

	/* copytruncate / ": > log": same inode, smaller size; the partial is dropped. */
	assert_int_equal(truncate(f->path, 0), 0);
	append(f->path, "fresh 1\n");
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 8);
	expect_lines(&f->got, after, 1);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, 8);
	logscan_free(&ls);
}

static void
test_truncation_then_regrowth(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	static const char *const before[] = { "step 1/100" };
	static const char *const after[] = { "step 50/100 loss=0.25", "step 51/100 loss=0.24" };
	static const char *const more[] = { "step 52/100" };

	logscan_init(&ls, f->path, 0);
	append(f->path, "step 1/100\n");
	logscan_poll(&ls, collect, &f->got);
	expect_lines(&f->got, before, 1);

	/*
	 * Truncated and rewritten past our offset before we looked again: size
	 * alone says "grew"; the bytes before our offset say "rewritten".
	 */
	assert_int_equal(truncate(f->path, 0), 0);
	append(f->path, "step 50/100 loss=0.25\nstep 51/100 loss=0.24\n");
	logscan_poll(&ls, collect, &f->got);
	expect_lines(&f->got, after, 2);
	/* Plain growth afterwards is still plain growth. */
	append(f->path, "step 52/100\n");
	logscan_poll(&ls, collect, &f->got);
	expect_lines(&f->got, more, 1);

	/* The same from a resumed position (a restarted process that read nothing yet). */
	{
		struct logscan ls2;
		struct logscan_pos pos;
		static const char *const fresh[] = { "rewritten line one", "rewritten line two" };

		logscan_get_pos(&ls, &pos);
		logscan_init(&ls2, f->path, 0);
		logscan_set_pos(&ls2, &pos);
		assert_int_equal(logscan_poll(&ls2, collect, &f->got), 0);
		assert_int_equal(truncate(f->path, 0), 0);
		append(f->path, "rewritten line one\nrewritten line two\n");
		logscan_poll(&ls2, collect, &f->got);
		expect_lines(&f->got, fresh, 2);
		logscan_free(&ls2);
	}
	logscan_free(&ls);
}

static void
test_saved_fingerprint(void **state)
{
	struct fixture *f = *state;
	struct logscan ls, ls2;
	struct logscan_pos pos, back;
	char hex[65];
	static const char *const all[] = { "step 50/100", "step 51/100" };
	static const char *const tail[] = { "step 2/100" };

	logscan_init(&ls, f->path, 0);
	append(f->path, "step 1/100\n");
	logscan_poll(&ls, collect, &f->got);
	got_clear(&f->got);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.fp_len, 11);
	logscan_fp_hex(&pos, hex);
	assert_string_equal(hex, "7374657020312f3130300a");	/* "step 1/100\n" */
	memset(&back, 0, sizeof(back));
	assert_int_equal(logscan_fp_parse(&back, hex), 0);
	assert_int_equal(back.fp_len, 11);
	assert_memory_equal(back.fp, pos.fp, 11);
	assert_int_equal(logscan_fp_parse(&back, "abc"), WK_ERR_PARSE);
	logscan_free(&ls);

	/* Rewritten before a resumed scanner ever opened it: the saved bytes say so. */
	assert_int_equal(truncate(f->path, 0), 0);
	append(f->path, "step 50/100\nstep 51/100\n");
	logscan_init(&ls2, f->path, 0);
	logscan_set_pos(&ls2, &pos);
	logscan_poll(&ls2, collect, &f->got);
	expect_lines(&f->got, all, 2);
	logscan_free(&ls2);

	/* Plain growth after the saved position resumes there. */
	assert_int_equal(truncate(f->path, 0), 0);
	append(f->path, "step 1/100\n");
	logscan_init(&ls2, f->path, 0);
	logscan_set_pos(&ls2, &pos);
	append(f->path, "step 2/100\n");
	logscan_poll(&ls2, collect, &f->got);
	expect_lines(&f->got, tail, 1);
	logscan_free(&ls2);
}

static void
test_rotation_by_rename(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	char rotated[160];
	struct stat st;
	static const char *const first[] = { "a1" };
	static const char *const rest[] = { "a2", "a3 unterminated", "b1", "b2" };

	snprintf(rotated, sizeof(rotated), "%s.1", f->path);
	logscan_init(&ls, f->path, 0);
	append(f->path, "a1\n");
	logscan_poll(&ls, collect, &f->got);
	expect_lines(&f->got, first, 1);

	/* The writer adds to the old file, it is renamed, a new one is created. */
	append(f->path, "a2\na3 unterminated");
	assert_int_equal(rename(f->path, rotated), 0);
	/* Renamed away but not replaced yet: keep reading the old file. */
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 18);
	assert_int_equal(f->got.n, 1);
	assert_string_equal(f->got.line[0], "a2");
	got_clear(&f->got);

	append(f->path, "b1\nb2\n");
	logscan_poll(&ls, collect, &f->got);
	/* The old file's tail came first, its unterminated line included. */
	assert_int_equal(f->got.n, 3);
	assert_string_equal(f->got.line[0], "a3 unterminated");
	assert_string_equal(f->got.line[1], rest[2]);
	assert_string_equal(f->got.line[2], rest[3]);
	got_clear(&f->got);

	assert_int_equal(stat(f->path, &st), 0);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.ino, (uint64_t)st.st_ino);
	assert_int_equal(pos.off, 6);
	logscan_free(&ls);
}

static void
test_rotation_drains_old_file(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	char rotated[160];
	static const char *const want[] = { "old tail 1", "old tail 2", "new 1" };

	snprintf(rotated, sizeof(rotated), "%s.1", f->path);
	logscan_init(&ls, f->path, 0);
	append(f->path, "");
	logscan_poll(&ls, collect, &f->got);
	append(f->path, "old tail 1\nold tail 2\n");
	assert_int_equal(rename(f->path, rotated), 0);
	append(f->path, "new 1\n");
	/* One poll: the old file to its end, then the new one from 0. */
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 22 + 6);
	expect_lines(&f->got, want, 3);
	logscan_free(&ls);
}

static void
test_file_appears_later(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	static const char *const want[] = { "hello" };

	logscan_init(&ls, f->path, 0);
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 0);
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 0);
	assert_int_equal(ls.fd, -1);
	append(f->path, "hello\n");
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 6);
	expect_lines(&f->got, want, 1);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, 6);
	logscan_free(&ls);

	/* A missing directory is "not there yet" too, not an error. */
	logscan_init(&ls, "/nonexistent-wk-dir/x.log", 0);
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 0);
	logscan_free(&ls);
}

static void
test_long_line_bounded(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	size_t big = 5 * 1024 * 1024, i;
	char *data;

	data = malloc(big);
	for (i = 0; i < big; i++)
		data[i] = (char)('a' + i % 26);
	logscan_init(&ls, f->path, 1024);
	write_at_end(f->path, data, big);
	assert_int_equal(logscan_poll(&ls, collect, &f->got), (long)big);
	/* 5 MB and no newline yet: nothing delivered, almost nothing held. */
	assert_int_equal(f->got.n, 0);
	assert_true(ls.skipping);
	assert_true(ls.partial.cap <= 4096);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, 0);

	append(f->path, "more\nnext\n");
	logscan_poll(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 2);
	assert_int_equal(f->got.len[0], 1024);
	assert_int_equal(f->got.trunc[0], 1);
	assert_memory_equal(f->got.line[0], data, 1024);
	assert_string_equal(f->got.line[1], "next");
	assert_int_equal(f->got.trunc[1], 0);
	assert_true(ls.partial.cap <= 4096);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, big + 10);
	free(data);
	logscan_free(&ls);
}

static void
test_long_line_edges(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;

	/* max_line 4: exactly 4 fits, "\r" does not count, 5 is cut. */
	logscan_init(&ls, f->path, 4);
	append(f->path, "abcd\nabcd\r\nabcde\nab");
	logscan_poll(&ls, collect, &f->got);
	append(f->path, "cdef\r\n");
	logscan_poll(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 4);
	assert_string_equal(f->got.line[0], "abcd");
	assert_int_equal(f->got.trunc[0], 0);
	assert_string_equal(f->got.line[1], "abcd");
	assert_int_equal(f->got.trunc[1], 0);
	assert_string_equal(f->got.line[2], "abcd");
	assert_int_equal(f->got.trunc[2], 1);
	assert_string_equal(f->got.line[3], "abcd");
	assert_int_equal(f->got.trunc[3], 1);
	logscan_free(&ls);
}

static void
test_crlf_and_nul(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	static const char data[] = "dos line\r\nbin\0ary\xff\n\r\nkeep\rmid\n";

	logscan_init(&ls, f->path, 0);
	write_at_end(f->path, data, sizeof(data) - 1);
	logscan_poll(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 5);
	assert_string_equal(f->got.line[0], "dos line");
	assert_int_equal(f->got.len[1], 8);
	assert_memory_equal(f->got.line[1], "bin\0ary\xff", 8);
	assert_int_equal(f->got.len[2], 0);
	/* A lone '\r' ends a line too. */
	assert_string_equal(f->got.line[3], "keep");
	assert_string_equal(f->got.line[4], "mid");
	logscan_free(&ls);
}

static void
test_progress_bar_carriage_returns(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	static const char *const split[] = { " 30%|### | 3/10", "epoch done", "next" };

	logscan_init(&ls, f->path, 0);
	/* tqdm: each redraw starts with '\r'; no '\n' until the end. */
	append(f->path, "\r 10%|#   | 1/10\r 20%|##  | 2/10\r");
	logscan_poll(&ls, collect, &f->got);
	/* The last '\r' of a read holds its line: is it "\r\n"?  The next byte says. */
	assert_int_equal(f->got.n, 1);
	assert_true(f->got.cr[0]);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, strlen("\r 10%|#   | 1/10\r"));
	append(f->path, "\r 25%|##  | 2/10\r");
	logscan_poll(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 2);
	assert_string_equal(f->got.line[1], " 20%|##  | 2/10");
	assert_true(f->got.cr[1]);
	got_clear(&f->got);
	/* A "\r\n" whose halves arrive in two reads is one line end, not two. */
	append(f->path, " 30%|### | 3/10\r");
	logscan_poll(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 1);
	assert_string_equal(f->got.line[0], " 25%|##  | 2/10");
	assert_true(f->got.cr[0]);
	got_clear(&f->got);
	append(f->path, "\nepoch done\r\nnext\n");
	logscan_poll(&ls, collect, &f->got);
	assert_false(f->got.cr[0] || f->got.cr[1] || f->got.cr[2]);
	expect_lines(&f->got, split, 3);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, strlen("\r 10%|#   | 1/10\r 20%|##  | 2/10\r") +
	    strlen("\r 25%|##  | 2/10\r") +
	    strlen(" 30%|### | 3/10\r") + strlen("\nepoch done\r\nnext\n"));
	logscan_free(&ls);
}

/* How each line ended: '\n', "\r\n", a lone '\r' (a redraw), or nothing yet (flush). */
static void
test_line_end_flags(void **state)
{
	struct fixture *f = *state;
	struct logscan ls, ls2;
	struct logscan_pos pos;
	static const char data[] = "\rbar 1\rbar 2\r    \rstep 2\n\rbar 3\r\nlong line here\rx\r";

	logscan_init(&ls, f->path, 8);
	write_at_end(f->path, data, sizeof(data) - 1);
	logscan_poll(&ls, collect, &f->got);
	/* The trailing '\r' waits; everything before it is decided. */
	assert_int_equal(f->got.n, 6);
	assert_string_equal(f->got.line[0], "bar 1");
	assert_true(f->got.cr[0]);
	assert_string_equal(f->got.line[2], "    ");
	assert_true(f->got.cr[2]);
	assert_string_equal(f->got.line[3], "step 2");
	assert_false(f->got.cr[3]);
	assert_string_equal(f->got.line[4], "bar 3");
	assert_false(f->got.cr[4]);
	assert_string_equal(f->got.line[5], "long lin");
	assert_true(f->got.trunc[5] && f->got.cr[5]);
	/* A re-attached reader re-reads the held line from the saved position, same flags. */
	logscan_get_pos(&ls, &pos);
	logscan_init(&ls2, f->path, 8);
	logscan_set_pos(&ls2, &pos);
	got_clear(&f->got);
	logscan_flush(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 1);
	assert_string_equal(f->got.line[0], "x");
	assert_true(f->got.cr[0]);
	got_clear(&f->got);
	logscan_free(&ls);
	append(f->path, "y\n");
	logscan_poll(&ls2, collect, &f->got);
	assert_int_equal(f->got.n, 2);
	assert_string_equal(f->got.line[0], "x");
	assert_true(f->got.cr[0]);
	assert_string_equal(f->got.line[1], "y");
	assert_false(f->got.cr[1]);
	got_clear(&f->got);
	logscan_free(&ls2);
}

static void
test_seek_end_and_flush(void **state)
{
	struct fixture *f = *state;
	struct logscan ls;
	struct logscan_pos pos;
	static const char *const want[] = { "-rest of line", "attempt 2 starts" };
	static const char *const flushed[] = { "no newline" };

	append(f->path, "attempt 1 line\nattempt 1 half");
	logscan_init(&ls, f->path, 0);
	assert_int_equal(logscan_seek_end(&ls), 0);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, 29);
	assert_int_equal(logscan_poll(&ls, collect, &f->got), 0);
	/* The unterminated line was skipped too: its rest comes as a line of its own. */
	append(f->path, "-rest of line\nattempt 2 starts\n");
	logscan_poll(&ls, collect, &f->got);
	expect_lines(&f->got, want, 2);

	append(f->path, "no newline");
	logscan_poll(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 0);
	logscan_flush(&ls, collect, &f->got);
	expect_lines(&f->got, flushed, 1);
	logscan_get_pos(&ls, &pos);
	assert_int_equal(pos.off, 29 + 31 + 10);
	logscan_flush(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 0);
	logscan_free(&ls);

	/* seek_end with no file: the file that appears later is all new. */
	assert_int_equal(unlink(f->path), 0);
	logscan_init(&ls, f->path, 0);
	assert_int_equal(logscan_seek_end(&ls), 0);
	append(f->path, "late\n");
	logscan_poll(&ls, collect, &f->got);
	assert_int_equal(f->got.n, 1);
	got_clear(&f->got);
	logscan_free(&ls);
}

static void
test_linering(void **state)
{
	struct linering r;
	char longline[3000];
	char buf[32];
	int i;

	(void)state;
	linering_init(&r, 3);
	assert_null(linering_last(&r));
	assert_null(linering_get(&r, 0));
	for (i = 1; i <= 5; i++) {
		snprintf(buf, sizeof(buf), "line %d", i);
		linering_push(&r, buf, strlen(buf));
	}
	assert_int_equal(r.count, 3);
	assert_string_equal(linering_get(&r, 0), "line 3");
	assert_string_equal(linering_get(&r, 2), "line 5");
	assert_null(linering_get(&r, 3));
	assert_string_equal(linering_last(&r), "line 5");

	/* Controls but '\t' become '?', as do DEL, C1 controls and invalid UTF-8. */
	linering_push(&r, "a\tb\x1b[31mc\0d\x7f" "\xc2\x9b" "\xff" "\xc3\xa9", 17);
	assert_string_equal(linering_last(&r), "a\tb?[31mc?d???\xc3\xa9");

	memset(longline, 'z', sizeof(longline));
	linering_push(&r, longline, sizeof(longline));
	assert_int_equal(strlen(linering_last(&r)), 1024);

	linering_clear(&r);
	assert_int_equal(r.count, 0);
	assert_null(linering_last(&r));
	linering_push(&r, "x", 1);
	assert_string_equal(linering_last(&r), "x");
	linering_free(&r);

	linering_init(&r, 0);
	linering_push(&r, "x", 1);
	assert_null(linering_last(&r));
	linering_free(&r);
}

static void
test_sanitize_cut(void **state)
{
	char *s;

	(void)state;
	/* A cut never splits a UTF-8 sequence. */
	s = linering_sanitize("ab\xe2\x82\xac", 5, 4);
	assert_string_equal(s, "ab");
	free(s);
	s = linering_sanitize("ab\xe2\x82\xac", 5, 5);
	assert_string_equal(s, "ab\xe2\x82\xac");
	free(s);
	/* Overlong and surrogate encodings are invalid. */
	s = linering_sanitize("\xc0\xaf\xed\xa0\x80", 5, 64);
	assert_string_equal(s, "?????");
	free(s);
	s = linering_sanitize("", 0, 0);
	assert_string_equal(s, "");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_split_and_partial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_across_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_after_truncation_while_away, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncation_then_regrowth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_saved_fingerprint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotation_by_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotation_drains_old_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_appears_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_line_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_line_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crlf_and_nul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_progress_bar_carriage_returns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seek_end_and_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_end_flags, setup, teardown),
		cmocka_unit_test(test_linering),
		cmocka_unit_test(test_sanitize_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
