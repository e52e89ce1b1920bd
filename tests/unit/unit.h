/*
 * unit.h: what the cmocka unit tests share.  Include after <cmocka.h>.
 */
#ifndef WK_UNIT_H
#define WK_UNIT_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "fsutil.h"
#include "spawn.h"
#include "xmalloc.h"

static inline int
unit_rm1(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) == 0 ? 0 : -1;
}

/* Remove a test's directory tree (no shell); 0 or -1. */
static inline int
unit_rmrf(const char *dir)
{
	return nftw(dir, unit_rm1, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write text to path atomically, creating its directories.  Asserts it worked. */
static inline void
unit_put(const char *path, const char *text)
{
	char *d = xstrdup(path), *slash = strrchr(d, '/');

	*slash = '\0';
	assert_int_equal(fs_mkdirs(d, 0755), 0);
	assert_int_equal(atomic_write_str(path, text), 0);
	free(d);
}

/* Run script with `sh -s` in cwd; its stdout (caller frees) and *len.  Asserts it exited. */
static inline char *
unit_sh(const char *script, const char *cwd, size_t *len)
{
	char *argv[] = { "sh", "-s", NULL };
	struct spawn_opts o;
	struct buf out = BUF_INIT;
	int in[2], outp[2], status;
	char chunk[4096];
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(outp, O_CLOEXEC), 0);
	spawn_opts_init(&o);
	o.cwd = cwd;
	o.fd_in = in[0];
	o.fd_out = outp[1];
	o.fd_err = SPAWN_INHERIT;
	pid = spawn_argv(argv, &o);
	assert_true(pid > 0);
	close(in[0]);
	close(outp[1]);
	assert_int_equal(write(in[1], script, strlen(script)), (ssize_t)strlen(script));
	close(in[1]);
	while ((n = read(outp[0], chunk, sizeof(chunk))) > 0)
		buf_append(&out, chunk, (size_t)n);
	close(outp[0]);
	spawn_wait(pid, &status);
	assert_true(WIFEXITED(status));
	*len = out.len;
	return buf_detach(&out);
}

#endif
