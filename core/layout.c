/*
 * layout.c: the on-box directory layout (see layout.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "layout.h"
#include "os.h"
#include "xmalloc.h"

char *
layout_root(const char *workdir)
{
	return fs_join(workdir, LAYOUT_DIR);
}

char *
layout_path(const char *workdir, const char *sub)
{
	return xstrfmt("%s/" LAYOUT_DIR "/%s", workdir, sub);
}

char *
layout_marker(const char *workdir, const char *marker)
{
	return xstrfmt("%s/" LAYOUT_DIR "/markers/%s", workdir, marker);
}

char *
layout_failed(const char *workdir, const char *marker)
{
	return xstrfmt("%s/" LAYOUT_DIR "/markers/%s.FAILED", workdir, marker);
}

char *
layout_attempt_log_rel(const char *stage, long attempt)
{
	return xstrfmt(LAYOUT_DIR "/logs/%s.%ld.log", stage, attempt);
}

char *
layout_attempt_log(const char *workdir, const char *stage, long attempt)
{
	return xstrfmt("%s/" LAYOUT_DIR "/logs/%s.%ld.log", workdir, stage, attempt);
}

char *
layout_stage_file(const char *workdir, const char *stage)
{
	return xstrfmt("%s/" LAYOUT_DIR "/stages/%s.json", workdir, stage);
}

char *
layout_attempt_record(const char *workdir, const char *stage, long attempt)
{
	return xstrfmt("%s/" LAYOUT_DIR "/attempts/%s.%ld.json", workdir, stage, attempt);
}

char *
layout_attempt_config(const char *workdir, const char *stage, long attempt)
{
	return xstrfmt("%s/" LAYOUT_DIR "/attempts/%s.%ld.config.json", workdir, stage, attempt);
}

char *
layout_attempt_lock(const char *workdir, const char *stage, long attempt)
{
	return xstrfmt("%s/" LAYOUT_DIR "/attempts/%s.%ld.lock", workdir, stage, attempt);
}

int
layout_create(const char *workdir, char **failed)
{
	static const char *const dirs[] = { "markers", "logs", "outbox", "stages", "attempts" };
	size_t i;
	char *p;

	*failed = NULL;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		p = layout_path(workdir, dirs[i]);
		if (fs_mkdirs(p, 0755) != 0) {
			*failed = p;	/* transferred */
			return WK_ERR_SYSTEM;
		}
		free(p);
	}
	return 0;
}

char *
statedir_base(void)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		return xstrfmt("%s/watchkeeper", xdg);
	if (home != NULL)
		return xstrfmt("%s/%s/watchkeeper", home, os_state_home);
	errno = ENOENT;
	return NULL;
}

char *
statedir_path(const struct wk_config *cfg, int create)
{
	char *base = statedir_base(), *p;

	if (base == NULL)
		return NULL;
	p = xstrfmt("%s/%s", base, cfg->run);
	free(base);
	if (create && fs_mkdirs(p, 0700) != 0) {
		free(p);
		return NULL;
	}
	return p;
}
