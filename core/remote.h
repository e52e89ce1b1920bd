/*
 * remote.h: the commands watchkeeper runs on the box through ssh, built in
 * one place so patrol, the handbook and deploy print and run the same text.
 * Every value from the config goes through sshq; the result is one line of
 * POSIX sh for the remote login shell.
 */
#ifndef WK_REMOTE_H
#define WK_REMOTE_H

#include "config.h"

/* The config's path on the box: box.config, else <workdir>/.watchkeeper/watchkeeper.json. */
char *remote_boxcfg(const struct wk_config *cfg);

/*
 * `cd <workdir> && exec <onbox> -c <boxcfg> <args>`, where <onbox> is the
 * deployed .watchkeeper/bin/onbox when it is there, else onbox from PATH.
 * args is a fixed word list of ours ("start", "status --json"), never user
 * text.  Caller frees.
 */
char *remote_onbox_command(const struct wk_config *cfg, const char *args);

#endif
