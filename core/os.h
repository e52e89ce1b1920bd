/*
 * os.h: what differs per operating system, and nothing else.
 *
 * Two files implement it, and the Makefile builds one: os-linux.c (the
 * box, and Linux owners) and os-darwin.c (macOS owners; compiled and linked
 * here by make check-macos, run only on a Mac).  The process functions of
 * proc.h (proc_boot_id, proc_info, proc_list, proc_cmdline) are theirs too.  Everything else is POSIX, the same code on
 * both (portable.h has the few glibc conveniences, done portably).
 */
#ifndef WK_OS_H
#define WK_OS_H

/* The running executable's path, symlinks resolved; caller frees; NULL on failure. */
char *os_self_exe(void);

/*
 * The file's data on the disk (Linux: its data-only sync).  macOS:
 * F_FULLFSYNC, since its fsync leaves the data in the drive's cache.  0, or -1 with errno.
 */
int os_datasync(int fd);

/*
 * Where the owner's state lives under $HOME when XDG_STATE_HOME is not set:
 * ".local/state" (the XDG default) on Linux, "Library/Application Support"
 * on macOS (layout.c: statedir_base).
 */
extern const char os_state_home[];

/*
 * The names dlopen tries for libcurl, in order, NULL-terminated
 * (core/curlapi.c), and what to say when none loads.
 */
extern const char *const os_curl_libs[];
extern const char os_curl_missing[];

/*
 * In a child after fork, before exec: fn called for every open descriptor
 * above 2 (os_each_fd); os_cloexec_fast marks them all close-on-exec at once
 * where the system can (0), else -1 and the caller walks os_each_fd.
 * Neither allocates: the parent may have had threads.
 */
int os_cloexec_fast(void);
void os_each_fd(void (*fn)(int fd, const void *arg), const void *arg);

#endif
