/*
 * portable.h: the few conveniences one libc has and another lacks, done once in
 * POSIX so that every system runs the same code (the suite here runs what a
 * Mac runs).  What truly differs per system is in os.h instead.
 */
#ifndef WK_PORTABLE_H
#define WK_PORTABLE_H

#include <signal.h>
#include <stddef.h>

/* A pipe with both ends close-on-exec.  0, or -1 with errno. */
int wk_pipe_cloexec(int fds[2]);
/* Set FD_CLOEXEC (and O_NONBLOCK when nonblock) on fd.  0, or -1 with errno. */
int wk_fd_flags(int fd, int nonblock);
/*
 * socket(2) / socketpair(2) made close-on-exec (and non-blocking when
 * nonblock) with fcntl after the call.  Only the caller's own threads (none)
 * could race an exec in between.
 */
int wk_socket(int domain, int type, int protocol, int nonblock);
int wk_socketpair(int domain, int type, int protocol, int sv[2]);
/*
 * send(2)'s MSG_NOSIGNAL where the system has it; elsewhere (macOS) the
 * sockets wk_socket and wk_socketpair make carry SO_NOSIGPIPE instead.
 */
#include <sys/socket.h>
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL	0
#endif

/* The last c in the n bytes at s, or NULL. */
void *wk_memlast(const void *s, int c, size_t n);
/* Zero n bytes at p in a way no compiler drops (a secret's buffer). */
void wk_bzero_secret(void *p, size_t n);
/*
 * Exec file (searched on the caller's PATH unless it holds a '/') with
 * argv and the environment envp; a script without "#!" runs with
 * /bin/sh.  Returns only on failure, with errno (EACCES when a candidate
 * was found but could not run, else the last error).  Allocates nothing:
 * safe in a child after fork.
 */
int wk_exec_path(const char *file, char *const argv[], char *const envp[]);

/*
 * Ignoring SIGPIPE around writes to a child that may stop reading (EPIPE
 * then, never a signal that kills us), and putting the caller's disposition
 * back after.
 */
struct wk_sigpipe {
	struct sigaction	old;
	int			epipe;	/* a write saw EPIPE (the caller's note) */
};
void wk_sigpipe_ignore(struct wk_sigpipe *g);
void wk_sigpipe_restore(struct wk_sigpipe *g);

#endif
