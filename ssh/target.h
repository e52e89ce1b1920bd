/*
 * target.h: where the box is, for patrol and sentinel: the config's `box`
 * keys over what ssh_config says about box.host.
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
 * needs ProxyJump/ProxyCommand/certificates and the transport is libssh2,
 * or "auto" without a system ssh; config problems in d).  Caller frees with
 * target_free.
 *
 * The transport, decided here for every program: box.transport "libssh2"
 * and "openssh" as written; "auto" (the default) takes the system ssh when
 * the host needs what libssh2 cannot do, first match wins: ProxyJump,
 * ProxyCommand, CertificateFile, a Match the resolver cannot evaluate
 * (exec ...), HostKeyAlias, an identity file libssh2 would offer that is
 * RSA (or a security key), an "<identity>-cert.pub" beside one, an
 * ssh-agent holding only such keys (unless IdentitiesOnly).  Else, or when
 * no `ssh` is on PATH, libssh2.  t->transport_auto, t->transport_why and
 * t->cli_missing say what was decided (target_transport_text).
 *
 * With openssh, t->openssh, t->ssh_config_file (box.ssh_config,
 * expanded), t->given (which box.* keys were set) and t->control_path (in
 * the state directory, created, or under /tmp when that path is too long for
 * a unix socket) are set; ProxyJump and the like are then fine.
 */
int target_from_config(const struct wk_config *cfg, struct ssh_target *t, struct ssh_error *err,
    struct diag *d);
void target_free(struct ssh_target *t);

/* "libssh2" or "openssh": what t uses. */
const char *target_transport_name(const struct ssh_target *t);
/*
 * The transport in use and why, one line for the report log, the handbook
 * and sentinel: "openssh: ProxyJump bastion", "libssh2: nothing in the ssh
 * config or keys needs the system ssh", "openssh: set by box.transport".
 * A new string.
 */
char *target_transport_text(const struct ssh_target *t);

#endif
