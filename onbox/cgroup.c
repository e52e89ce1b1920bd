/*
 * cgroup.c: a process's memory cgroup directory and its oom_kill counter
 * (see cgroup.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "xmalloc.h"

#define CG_FILE_MAX	(1024 * 1024)	/* mountinfo of a busy host stays far below */

/* mountinfo escapes space, tab, newline and backslash as \ooo: undo it in place. */
static void
cg_unescape(char *s)
{
	char *w = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else
			*w++ = *s;
	}
	*w = '\0';
}

/* 1 when the comma-separated list has the element want. */
static int
cg_has_word(const char *list, const char *want)
{
	size_t n = strlen(want);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, want, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	return 0;
}

static int
cg_is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/*
 * pid's cgroup path in the v1 memory hierarchy (*v1 = 1) or, without one,
 * the v2 hierarchy (*v1 = 0).  Caller frees; NULL, *why and *r (a WK_ERR_* code).
 */
static char *
cg_proc_path(const char *root, long pid, int *v1, int *r, char **why)
{
	char *path = NULL, *data = NULL, *line, *save = NULL, *c1, *c2, *v2path = NULL, *res = NULL;

	if (pid > 0)
		path = xstrfmt("%s/proc/%ld/cgroup", root, pid);
	else
		path = xstrfmt("%s/proc/self/cgroup", root);
	if ((*r = fs_read_file(path, CG_FILE_MAX, &data, NULL)) != 0) {
		*why = xstrfmt("%s: %s", path, wk_strerror(*r));
		goto out;
	}
	for (line = strtok_r(data, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		/* "4:memory:/a/b" (v1) or "0::/a/b" (v2); the path may hold ':' */
		if ((c1 = strchr(line, ':')) == NULL || (c2 = strchr(c1 + 1, ':')) == NULL)
			continue;
		*c2 = '\0';
		if (cg_has_word(c1 + 1, "memory")) {
			res = xstrdup(c2 + 1);
			*v1 = 1;
			break;
		}
		if (strcmp(line, "0:") == 0 && c1[1] == '\0' && v2path == NULL)
			v2path = xstrdup(c2 + 1);
	}
	if (res == NULL && v2path != NULL) {
		res = v2path;
		v2path = NULL;
		*v1 = 0;
	}
	if (res == NULL) {
		*r = WK_ERR_NOTFOUND;
		*why = xstrfmt("%s: no memory controller line (v1 \"N:memory:/path\" or v2 "
		    "\"0::/path\")", path);
	}
 out:
	free(v2path);
	free(data);
	free(path);
	return res;
}

/* The directory of cgpath under the mount (mountpoint mnt, root mroot), or NULL. */
static char *
cg_under_mount(const char *root, const char *mnt, const char *mroot, const char *cgpath)
{
	size_t rl = strlen(mroot);
	const char *rest = NULL;
	char *cand;

	/* The path is relative to the hierarchy's root; the mount shows mroot there. */
	if (strcmp(mroot, "/") == 0)
		rest = cgpath;
	else if (strncmp(cgpath, mroot, rl) == 0 && (cgpath[rl] == '/' || cgpath[rl] == '\0'))
		rest = cgpath + rl;
	if (rest != NULL) {
		cand = xstrfmt("%s%s%s", root, mnt, strcmp(rest, "/") == 0 ? "" : rest);
		if (cg_is_dir(cand))
			return cand;
		free(cand);
	}
	/* A cgroup namespace: the path is relative to the namespace's root, mounted here. */
	if (strcmp(cgpath, "/") != 0) {
		cand = xstrfmt("%s%s%s", root, mnt, cgpath);
		if (cg_is_dir(cand))
			return cand;
		free(cand);
	}
	return NULL;
}

int
cgroup_memory_dir(const char *root, long pid, char **dir, char **why)
{
	char *cgpath = NULL, *path = NULL, *data = NULL, *line, *save = NULL, *f[10], *sep, *p;
	char *fallback = NULL, *fs;
	int v1 = 0, r = WK_ERR_NOTFOUND, rc, nf, seen = 0;

	*dir = *why = NULL;
	if (root == NULL)
		root = "";
	if ((cgpath = cg_proc_path(root, pid, &v1, &r, why)) == NULL)
		goto out;
	r = WK_ERR_NOTFOUND;
	path = xstrfmt("%s/proc/self/mountinfo", root);
	if ((rc = fs_read_file(path, CG_FILE_MAX, &data, NULL)) != 0) {
		*why = xstrfmt("%s: %s", path, wk_strerror(rc));
		r = rc;
		goto out;
	}
	for (line = strtok_r(data, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		/* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
		if ((sep = strstr(line, " - ")) == NULL)
			continue;
		*sep = '\0';
		for (nf = 0, p = strtok_r(line, " ", &fs); p != NULL && nf < 5;
		    p = strtok_r(NULL, " ", &fs))
			f[nf++] = p;
		if (nf < 5)
			continue;
		for (nf = 5, p = strtok_r(sep + 3, " ", &fs); p != NULL && nf < 8;
		    p = strtok_r(NULL, " ", &fs))
			f[nf++] = p;
		if (nf < 8)
			continue;
		if (v1 ? strcmp(f[5], "cgroup") != 0 || !cg_has_word(f[7], "memory") :
		    strcmp(f[5], "cgroup2") != 0)
			continue;
		seen = 1;
		cg_unescape(f[3]);
		cg_unescape(f[4]);
		if ((*dir = cg_under_mount(root, f[4], f[3], cgpath)) != NULL)
			break;
		if (fallback == NULL && strcmp(f[3], "/") != 0)
			fallback = xstrfmt("%s%s", root, f[4]);
	}
	/*
	 * The last resort: a container that mounted only its own cgroup (root
	 * not "/"), and a path that names it from outside the namespace.
	 */
	if (*dir == NULL && fallback != NULL && cg_is_dir(fallback)) {
		*dir = fallback;
		fallback = NULL;
	}
	if (*dir != NULL)
		r = 0;
	else if (!seen)
		*why = xstrfmt("%s: no %s mount", path, v1 ? "cgroup v1 memory" : "cgroup2");
	else
		*why = xstrfmt("%s: no directory for cgroup %s%s under the %s mounts", path,
		    v1 ? "memory:" : "", cgpath, v1 ? "cgroup v1 memory" : "cgroup2");
 out:
	free(fallback);
	free(data);
	free(path);
	free(cgpath);
	return r;
}

/*
 * The "oom_kill N" value of path, or a WK_ERR_* code and *why (*err: the
 * read's errno, else 0).
 */
static long
cg_read_oom_kill(const char *path, char **why, int *err)
{
	char *data = NULL, *line, *save = NULL, *end;
	long v, r = WK_ERR_PARSE;
	int rc;

	*err = 0;
	if ((rc = fs_read_file(path, CG_FILE_MAX, &data, NULL)) != 0) {
		*err = rc == WK_ERR_SYSTEM ? errno : 0;
		*why = xstrfmt("%s: %s", path, wk_strerror(rc));
		r = rc;
		goto out;
	}
	for (line = strtok_r(data, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "oom_kill ", 9) != 0)
			continue;
		errno = 0;
		v = strtol(line + 9, &end, 10);
		if (errno == 0 && end != line + 9 && v >= 0)
			r = v;
		break;
	}
	if (r < 0)
		*why = xstrfmt("%s: no \"oom_kill N\" line", path);
 out:
	free(data);
	return r;
}

long
cgroup_oom_kill(const char *dir, char **why)
{
	char *path = xstrfmt("%s/memory.events", dir), *why1 = NULL;
	long r, r1;
	int e, e2;

	*why = NULL;
	if ((r = r1 = cg_read_oom_kill(path, &why1, &e)) >= 0)
		goto out;
	free(path);
	path = xstrfmt("%s/memory.oom_control", dir);
	if ((r = cg_read_oom_kill(path, why, &e2)) >= 0)
		goto out;
	/* Say why v2's file failed unless it is simply not there (a v1 cgroup). */
	if (e != ENOENT) {
		free(*why);
		*why = why1;
		why1 = NULL;
		r = r1;
	}
 out:
	free(why1);
	free(path);
	return r;
}

int
cgroup_oom_mark(cJSON *a, const char *root, long pid)
{
	const char *had = json_str(a, "oom_cgroup", NULL);
	char *dir = NULL, *why = NULL;
	long n;
	int changed = 0;

	if (cgroup_memory_dir(root, pid, &dir, &why) != 0) {
		/* The stage already gone: what was read before its launch stands. */
		if (pid > 0 && had != NULL)
			goto out;
		json_set_str(a, "oom_why", why);
		changed = 1;
		goto out;
	}
	if (had != NULL && strcmp(had, dir) == 0)
		goto out;
	changed = 1;
	json_set_str(a, "oom_cgroup", dir);
	if ((n = cgroup_oom_kill(dir, &why)) >= 0) {
		json_set_num(a, "oom_kill_base", (double)n);
		cJSON_DeleteItemFromObject(a, "oom_why");
	} else {
		cJSON_DeleteItemFromObject(a, "oom_kill_base");
		json_set_str(a, "oom_why", why);
	}
 out:
	free(dir);
	free(why);
	return changed;
}

long
cgroup_oom_delta(const cJSON *a, char **why)
{
	const char *dir = json_str(a, "oom_cgroup", NULL);
	long base = json_long(a, "oom_kill_base", -1), now;

	*why = NULL;
	if (dir == NULL || base < 0) {
		*why = xstrdup(json_str(a, "oom_why", "no cgroup recorded at the launch"));
		return WK_ERR_NOTFOUND;
	}
	if ((now = cgroup_oom_kill(dir, why)) < 0)
		return now;
	if (now < base) {
		*why = xstrfmt("%s: the oom_kill counter went back from %ld to %ld (a new cgroup "
		    "of the same name)", dir, base, now);
		return WK_ERR_STALE;
	}
	return now - base;
}
