/*
 * proc.h: process identity that survives pid reuse and reboots, and locks
 * with "is anyone holding this?".
 *
 * A pid alone is not an identity: after a reboot or enough forks it names a
 * different process.  (boot id, pid, start time) does name one process.
 *
 * The per-system part (proc_boot_id, proc_info, proc_list, proc_cmdline)
 * is os-linux.c's or os-darwin.c's (libproc, sysctl); the locks are
 * lock-linux.c's (Linux) or lock-flock.c's; the rest (proc.c) is POSIX.
 */
#ifndef WK_PROC_H
#define WK_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_id {
	pid_t		pid;
	uint64_t	start;		/* proc_info's start; 0 unknown */
	char		boot[40];	/* proc_boot_id() when identified */
};

/* What the system says of one process now. */
struct proc_info {
	pid_t		pgrp;
	pid_t		sid;
	/*
	 * When it started, in the system's own unit (Linux: clock ticks after
	 * boot; macOS: microseconds since the epoch): only ever compared with
	 * another reading on the same machine.
	 */
	uint64_t	start;
	char		state;		/* 'Z' a zombie (exited, not reaped); else running or asleep */
};

/* pid's state, group, session and start time: 0, or WK_ERR_NOTFOUND when it does not exist. */
int proc_info(pid_t pid, struct proc_info *pi);
/* Every process's pid now, *n of them (caller frees); NULL when they cannot be listed. */
pid_t *proc_list(size_t *n);
/*
 * Up to cap bytes of pid's arguments into buf, each NUL-terminated (the
 * shape Linux keeps them in): their length, 0 when unreadable.
 */
size_t proc_cmdline(pid_t pid, char *buf, size_t cap);
/* This boot's id into out (40 bytes); "" when unreadable. */
void proc_boot_id(char *out, size_t len);

/* Fill id for pid; 0 or WK_ERR_NOTFOUND when the process does not exist. */
int proc_identify(pid_t pid, struct proc_id *id);
/* 1 when the very process id names is still alive (not a zombie), else 0. */
int proc_alive(const struct proc_id *id);
/* Wait up to ms for every process of ids[0..n) to be gone: how many are still alive. */
size_t proc_wait_gone(const struct proc_id *ids, size_t n, uint64_t ms);
/*
 * 1 when our child pid has exited (a zombie, not reaped yet: its pid and
 * group id cannot be reused meanwhile) or is gone, 0 while it runs.
 */
int proc_exited(pid_t pid);
/*
 * 1 when pid's command line (its first 16 KiB) holds the argument opt
 * immediately followed by val ("-S" <control path>: the ssh processes of
 * one openssh connection), else 0.
 */
int proc_cmdline_pair(pid_t pid, const char *opt, const char *val);

/*
 * Open (creating) path and take an exclusive lock on it without waiting,
 * held by the open file description (inherited across fork, released when
 * its last descriptor closes).  Returns the descriptor (close-on-exec)
 * holding the lock, WK_ERR_BUSY when another open file description holds
 * it, WK_ERR_SYSTEM otherwise.
 */
int lock_try(const char *path);
/*
 * Like lock_try but waiting up to max_ms for the holder to let go (for short
 * critical sections).  Returns the descriptor, WK_ERR_BUSY after max_ms, or
 * WK_ERR_SYSTEM.
 */
int lock_wait(const char *path, int max_ms);
/*
 * 1 when someone holds the lock at path, 0 when free (or the file is
 * missing), <0 on error.  On Linux (lock-linux.c) asking never disturbs a
 * real locker; with flock (lock-flock.c) the question itself takes the lock
 * for an instant, so only onbox, on the Linux box, asks it.
 */
int lock_is_held(const char *path);

/* ---- the box's: Linux only (os-linux.c), called by onbox alone ---- */

/*
 * 1 when some live process (not a zombie) is in process group pgid: a stage
 * whose leader is gone may leave children in its group.
 */
int proc_group_alive(pid_t pgid);
/* 1 when process pid has path (same device and inode) open: who holds a lock file. */
int proc_has_open(pid_t pid, const char *path);
/* A descriptor for the process (Linux); WK_ERR_SYSTEM (errno set) when unsupported or gone. */
int proc_pidfd(pid_t pid);

#endif
