/*
 * atomic.h: the one way watchkeeper writes a file another process reads.
 *
 * A temp file in the same directory, a full-write loop, fsync, rename over
 * the target, fsync of the directory: a reader sees the old content or the
 * new content, never a torn file, and after a crash the rename is durable.
 */
#ifndef WK_ATOMIC_H
#define WK_ATOMIC_H

#include <stddef.h>
#include <sys/types.h>

/* 0 or WK_ERR_SYSTEM (errno set); on failure the target is untouched and no temp file remains. */
int atomic_write(const char *path, const void *data, size_t len, mode_t mode);
int atomic_write_str(const char *path, const char *s);

/* write() until done, retrying EINTR; 0 or WK_ERR_SYSTEM. */
int write_full(int fd, const void *data, size_t len);

/* fsync the directory that holds path; 0 or WK_ERR_SYSTEM. */
int fsync_parent(const char *path);

/*
 * Append one record to an append-only file (O_APPEND, a single write(), then
 * a data sync, os_datasync): concurrent appenders never interleave within a record of a few
 * KiB.  A record is expected to end in '\n'.  0 or WK_ERR_SYSTEM.
 */
int append_record(const char *path, const void *data, size_t len);

#endif
