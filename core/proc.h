/*
 * proc.h: process identity that survives pid reuse and reboots, and flock
 * helpers for "is anyone holding this?".
 *
 * A pid alone is not an identity: after a reboot or enough forks it names a
 * different process.  (boot id, pid, start time in clock ticks from
 * /proc/<pid>/stat) does name one process.
 */
#ifndef WK_PROC_H
#define WK_PROC_H

#include <stdint.h>
#include <sys/types.h>

struct proc_id {
	pid_t		pid;
	uint64_t	start;		/* /proc/<pid>/stat field 22; 0 unknown */
	char		boot[40];	/* /proc/sys/kernel/random/boot_id */
};

/* Fill id for pid; 0 or WK_ERR_NOTFOUND when the process does not exist. */
int proc_identify(pid_t pid, struct proc_id *id);
/* This boot's id into out (40 bytes); "" when unreadable. */
void proc_boot_id(char *out, size_t len);
/* 1 when the very process id names is still alive (not a zombie), else 0. */
int proc_alive(const struct proc_id *id);

/*
 * Open (creating) path and take an exclusive OFD lock without waiting.
 * Returns the descriptor (close-on-exec) holding the lock, WK_ERR_BUSY when
 * another open file description holds it, WK_ERR_SYSTEM otherwise.
 */
int lock_try(const char *path);
/*
 * Like lock_try but waiting up to max_ms for the holder to let go (for short
 * critical sections).  Returns the descriptor, WK_ERR_BUSY after max_ms, or
 * WK_ERR_SYSTEM.
 */
int lock_wait(const char *path, int max_ms);
/* 1 when someone holds the lock at path, 0 when free (or the file is missing), <0 on error. */
int lock_is_held(const char *path);

/*
 * 1 when some live process (not a zombie) is in process group pgid: a stage
 * whose leader is gone may leave children in its group.  Reads /proc.
 */
int proc_group_alive(pid_t pgid);
/* 1 when process pid has path (same device and inode) open: who holds a lock file. */
int proc_has_open(pid_t pid, const char *path);

/*
 * 1 when pid's command line (/proc/<pid>/cmdline, its first 16 KiB) holds
 * the argument opt immediately followed by val ("-S" <control path>: the
 * ssh processes of one openssh connection), else 0.
 */
int proc_cmdline_pair(pid_t pid, const char *opt, const char *val);

/* pidfd_open(2); WK_ERR_SYSTEM (errno set) when unsupported or the process is gone. */
int proc_pidfd(pid_t pid);

#endif
