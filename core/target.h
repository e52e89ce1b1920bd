/*
 * target.h: where the box is, for patrol and sentinel: the config's `box`
 * keys over what ssh_config says about box.host, and the local state
 * directory of the run.
 */
#ifndef WK_TARGET_H
#define WK_TARGET_H

#include "config.h"
#include "diag.h"
#include "ssh.h"

/*
 * Fill t from cfg: box.host resolved through box.ssh_config (default
 * ~/.ssh/config), then box.port/user/identity/known_hosts/connect_timeout_s
 * override.  Returns 0, or -1 with err (SSH_FAIL_UNSUPPORTED when the host
 * needs ProxyJump/ProxyCommand/certificates with the libssh2 transport;
 * config problems in d).  Caller frees with target_free.
 *
 * box.transport "openssh" sets t->openssh, t->ssh_config_file (box.ssh_config,
 * expanded), t->given (which box.* keys were set) and t->control_path (in
 * the state directory, created, or under /tmp when that path is too long for
 * a unix socket); ProxyJump and the like are then fine.
 */
int target_from_config(const struct wk_config *cfg, struct ssh_target *t, struct ssh_error *err,
    struct diag *d);
void target_free(struct ssh_target *t);

/*
 * $XDG_STATE_HOME/watchkeeper/<run> (default ~/.local/state/...), created
 * (0700) when create is set.  Returns a new string, or NULL with errno.
 */
char *statedir_path(const struct wk_config *cfg, int create);

#endif
