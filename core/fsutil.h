/*
 * fsutil.h: small filesystem helpers: mkdir -p, bounded whole-file reads,
 * path joining, existence checks.
 */
#ifndef WK_FSUTIL_H
#define WK_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* mkdir -p; 0 or WK_ERR_SYSTEM. */
int fs_mkdirs(const char *path, mode_t mode);
/*
 * Read a whole file of at most max bytes into *out (NUL-terminated; caller
 * frees) and *len (may be NULL).  WK_ERR_TOOLONG when larger, WK_ERR_SYSTEM
 * (errno ENOENT when missing) otherwise on failure.
 */
int fs_read_file(const char *path, size_t max, char **out, size_t *len);
/*
 * n random bytes as 2n lower-case hex digits and a NUL into out (2n + 1
 * bytes): /dev/urandom, else the time, the pid and a counter (an id, never
 * a key).
 */
void fs_random_hex(char *out, size_t n);
/* "a/b": joins with one '/'; b absolute -> copy of b.  Caller frees. */
char *fs_join(const char *a, const char *b);
int fs_exists(const char *path);
/* Absolute, without "." / ".." components or doubled slashes; no symlink resolution. */
char *fs_abspath(const char *path);
/* The path of the running executable (os.h: os_self_exe); caller frees; NULL on failure. */
char *fs_self_exe(void);
/* 1 when name is an executable file in a directory of $PATH (empty: "."), as exec finds it. */
int fs_on_path(const char *name);
/* The directory holding the running executable ("/" at the root); caller frees; NULL on failure. */
char *fs_self_dir(void);
/*
 * One read(2) from a non-blocking fd, EINTR retried: the bytes read (> 0),
 * 0 when nothing is there now (EAGAIN), -1 at EOF or on an error.
 */
ssize_t fs_read_nb(int fd, void *p, size_t n);

#endif
