/*
 * cgroup.h: the memory cgroup a process runs in, and its oom_kill counter.
 *
 * A stage's OOM kills are counted in its own memory cgroup, not in the
 * root's: onbox resolves the stage's cgroup when it launches it (from
 * /proc/PID/cgroup and /proc/self/mountinfo) and reads the same counter
 * when it ends.  Both cgroup v1 (the hierarchy with the memory controller,
 * memory.oom_control) and v2 (memory.events) are read.
 */
#ifndef WK_CGROUP_H
#define WK_CGROUP_H

#include <cJSON.h>

/*
 * The sysfs directory of pid's memory cgroup (pid <= 0: this process).  A
 * v1 hierarchy with the memory controller wins over the v2 one.  root
 * prefixes every path read (NULL or "" for the real system; a fake tree in
 * tests): root/proc/PID/cgroup, root/proc/self/mountinfo and the mount
 * points found there.  Inside a cgroup namespace the path in
 * /proc/PID/cgroup is relative to the namespace's root, and the mount's root
 * field is "/" or the container's own path: mountpoint + (path minus the
 * mount root) is tried first, then mountpoint + path, then the mount point
 * itself.  0 and *dir (caller frees), or a WK_ERR_* code and *why (caller
 * frees): WK_ERR_NOTFOUND when no line or mount names it.
 */
int cgroup_memory_dir(const char *root, long pid, char **dir, char **why);

/*
 * The cumulative oom_kill counter of the cgroup directory dir: v2
 * memory.events, else v1 memory.oom_control.  A WK_ERR_* code and *why (caller frees)
 * when neither has one, e.g. "/sys/fs/cgroup/x/memory.oom_control: No such
 * file or directory".
 */
long cgroup_oom_kill(const char *dir, char **why);

/*
 * Attempt records (cJSON objects in the stage's history): where the stage's
 * OOM kills are counted.  cgroup_oom_mark sets "oom_cgroup" (the directory
 * of pid's memory cgroup; pid <= 0: this process, whose cgroup a child
 * inherits) and "oom_kill_base" (its counter now), or "oom_why" when that
 * cannot be read.  Called before a launch (pid 0) and after it (the stage's
 * pid): when the stage runs in the same cgroup the earlier base stands, so a
 * kill between the two reads still counts.  1 when a changed, else 0.
 */
int cgroup_oom_mark(cJSON *a, const char *root, long pid);
/*
 * The counter's increase since cgroup_oom_mark, or a WK_ERR_* code and *why
 * (caller frees): WK_ERR_NOTFOUND nothing recorded, WK_ERR_STALE the counter
 * went back.
 */
long cgroup_oom_delta(const cJSON *a, char **why);

#endif
