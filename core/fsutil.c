/*
 * fsutil.c: filesystem helpers (see fsutil.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "os.h"
#include "xmalloc.h"

int
fs_mkdirs(const char *path, mode_t mode)
{
	char *p = xstrdup(path), *s;
	int r = 0;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST) {
			r = WK_ERR_SYSTEM;
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	if (r == 0) {
		struct stat st;

		if (stat(path, &st) != 0)
			r = WK_ERR_SYSTEM;
		else if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			r = WK_ERR_SYSTEM;
		}
	}
	free(p);
	return r;
}

int
fs_read_file(const char *path, size_t max, char **out, size_t *len)
{
	struct buf b = BUF_INIT;
	char chunk[8192];
	int fd, r = 0, saved;
	ssize_t n;

	*out = NULL;
	if (len != NULL)
		*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return WK_ERR_SYSTEM;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = WK_ERR_SYSTEM;
			break;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
			r = WK_ERR_TOOLONG;
			break;
		}
		buf_append(&b, chunk, (size_t)n);
	}
	saved = errno;
	close(fd);
	if (r != 0) {
		buf_free(&b);
		errno = saved;
		return r;
	}
	if (len != NULL)
		*len = b.len;
	*out = buf_detach(&b);	/* transferred */
	return 0;
}

char *
fs_join(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (b[0] == '/' || n == 0)
		return xstrdup(b);
	return xstrfmt("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

void
fs_random_hex(char *out, size_t n)
{
	static unsigned long long counter;
	unsigned char rnd[64] = { 0 };
	unsigned long long v;
	size_t i, got = 0;
	ssize_t r;
	int fd;

	if (n > sizeof(rnd))
		n = sizeof(rnd);
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) >= 0) {
		while (got < n && ((r = read(fd, rnd + got, n - got)) > 0 || (r < 0 && errno == EINTR)))
			got += r > 0 ? (size_t)r : 0;
		close(fd);
	}
	if (got < n) {
		/* No urandom: the time, the pid and a counter still make a usable id. */
		v = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32) ^ ++counter;
		for (i = 0; i < n; i++)
			rnd[i] = (unsigned char)(v >> (8 * (i % 8)));
	}
	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", rnd[i]);
	out[2 * n] = '\0';
}

int
fs_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *
fs_abspath(const char *path)
{
	struct buf b = BUF_INIT;
	char cwd[PATH_MAX], *full, *save = NULL, *tok;
	size_t *starts = NULL, n = 0;

	if (path[0] == '/')
		full = xstrdup(path);
	else if (getcwd(cwd, sizeof(cwd)) != NULL)
		full = fs_join(cwd, path);
	else
		full = xstrdup(path);
	for (tok = strtok_r(full, "/", &save); tok != NULL; tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (n > 0)
				b.len = starts[--n], b.data[b.len] = '\0';
			continue;
		}
		starts = xreallocarray(starts, n + 1, sizeof(*starts));
		starts[n++] = b.len;
		buf_putc(&b, '/');
		buf_puts(&b, tok);
	}
	if (b.len == 0)
		buf_putc(&b, '/');
	free(starts);
	free(full);
	return buf_detach(&b);
}

int
fs_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *p, *dir, *f;
	int found = 0;

	copy = xstrdup(path != NULL ? path : "/usr/bin:/bin");
	for (p = copy; !found && (dir = strsep(&p, ":")) != NULL;) {
		f = xstrfmt("%s/%s", *dir != '\0' ? dir : ".", name);
		found = access(f, X_OK) == 0;
		free(f);
	}
	free(copy);
	return found;
}

char *
fs_self_exe(void)
{
	return os_self_exe();
}

char *
fs_self_dir(void)
{
	char *self = fs_self_exe(), *slash;

	if (self == NULL || (slash = strrchr(self, '/')) == NULL) {
		free(self);
		return NULL;
	}
	slash[slash == self ? 1 : 0] = '\0';
	return self;
}

ssize_t
fs_read_nb(int fd, void *p, size_t n)
{
	ssize_t r;

	do
		r = read(fd, p, n);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		return r;
	return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
}
