/* remote.c: commands run on the box (see remote.h). */
#include <stdlib.h>

#include "buf.h"
#include "layout.h"
#include "remote.h"
#include "sshq.h"
#include "xmalloc.h"

char *
remote_boxcfg(const struct wk_config *cfg)
{
	if (cfg->box.config != NULL)
		return xstrdup(cfg->box.config);
	return xstrfmt("%s/" LAYOUT_DIR "/watchkeeper.json", cfg->workdir);
}

char *
remote_onbox_command(const struct wk_config *cfg, const char *args)
{
	struct buf b = BUF_INIT;
	char *boxcfg = remote_boxcfg(cfg);

	buf_puts(&b, "W=");
	sshq_append(&b, cfg->workdir);
	buf_puts(&b, "; C=");
	sshq_append(&b, boxcfg);
	buf_puts(&b, "; O=\"$W/" LAYOUT_DIR "/bin/onbox\"; [ -x \"$O\" ] || O=onbox; "
	    "cd \"$W\" && exec \"$O\" -c \"$C\" ");
	buf_puts(&b, args);
	free(boxcfg);
	return buf_detach(&b);
}
