/*
 * logbook.c: LOGBOOK.md, appended to and never rewritten (see logbook.h).
 *
 * One entry is built in memory and appended with a single write(2) under
 * O_APPEND (append_record), so two writers never interleave inside an entry
 * and a crash leaves at most a missing entry, never half of an old one.
 * Text from the box cannot forge structure: the heading and paragraph are
 * flattened to one line each (control characters become spaces) and the
 * evidence sits in a fence longer than any run of backticks inside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "logbook.h"
#include "md.h"
#include "monotime.h"
#include "xmalloc.h"

/*
 * Create the file with its title unless it exists; 0 or WK_ERR_SYSTEM.  The
 * title is written to a private file that is then link(2)ed into place, so
 * the logbook appears with its title already in it: created empty and
 * titled afterwards, another writer's first entry could land before the
 * title and be overwritten by it.
 */
static int
logbook_create(const char *path, const char *run)
{
	struct buf b = BUF_INIT;
	char *tmp;
	int fd, r = 0;

	if (access(path, F_OK) == 0)
		return 0;
	tmp = xstrfmt("%s.%ld.new", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		free(tmp);
		return WK_ERR_SYSTEM;
	}
	buf_puts(&b, "# Logbook: ");
	md_flat(&b, run);
	buf_puts(&b, "\n\nAppend-only: one entry per event that matters, oldest first, "
	    "each with its UTC time and evidence. Written by watchkeeper; never edited.\n\n");
	if (write_full(fd, b.data, b.len) != 0 || fsync(fd) != 0)
		r = WK_ERR_SYSTEM;
	close(fd);
	if (r == 0 && link(tmp, path) != 0 && errno != EEXIST)
		r = WK_ERR_SYSTEM;
	(void)unlink(tmp);
	if (r == 0)
		(void)fsync_parent(path);
	buf_free(&b);
	free(tmp);
	return r;
}

int
logbook_append(const char *dir, const char *run, time_t when, const char *kind,
    const char *text, const char *evidence)
{
	struct buf b = BUF_INIT;
	char ts[TIMEFMT_LEN], *path = fs_join(dir, LOGBOOK_FILE);
	int r;

	if ((r = logbook_create(path, run)) != 0)
		goto out;
	timefmt_utc(when, ts, sizeof(ts));
	buf_printf(&b, "### %s · ", ts);
	md_flat(&b, kind);
	buf_puts(&b, "\n");
	if (text != NULL && text[0] != '\0') {
		md_flat(&b, text);
		buf_putc(&b, '\n');
	}
	if (evidence != NULL && evidence[0] != '\0') {
		buf_putc(&b, '\n');
		md_block(&b, "", evidence);
	} else
		buf_putc(&b, '\n');
	r = append_record(path, b.data, b.len);
 out:
	buf_free(&b);
	free(path);
	return r;
}
