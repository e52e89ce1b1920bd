/*
 * sshcli.h: the openssh transport: ssh.h's connect / exec / put / close
 * served by the system `ssh` client, for what libssh2 cannot do (ProxyJump,
 * ProxyCommand, certificates, RSA keys).  It is ssh_transport_openssh
 * (transport.h), which ssh.c picks for a target with `openssh` set; callers
 * use ssh.h only.  Here: what the target's setup needs of it.
 *
 * One ControlMaster per connection (so one TCP connection, one
 * authentication, for every command of a tick), each command a mux client
 * of it.  Everything is bounded by the connection's deadline; every ssh
 * process started is reaped or killed by pid before the call returns, and
 * the master is gone when the connection is closed.
 *
 * Where the result differs from libssh2's: a command killed by a signal
 * gives exit_status -1 and exit_signal NULL (ssh does not pass the signal's
 * name on); a host key that is not known gives no fingerprint (ssh does not
 * print it under StrictHostKeyChecking=yes); box.identity is offered first,
 * but ssh_config's IdentityFile entries for the host stay in play after it
 * (ssh has no option to drop them), so a refused box.identity is not AUTH
 * when another configured key is accepted.  A ProxyJump hop is run by ssh
 * itself with -F only: its host key checking and batch mode are what
 * ssh_config says for the jump host, not our options.
 */
#ifndef WK_SSHCLI_H
#define WK_SSHCLI_H

#include <stddef.h>

#include "ssh.h"

/*
 * A control socket path for one connection of this process: "<dir>/cm-<pid>-<n>"
 * when that fits a unix socket's sun_path with the 17 bytes ssh adds while
 * binding it, else the same name in a private /tmp/wk-<uid>/ (created 0700;
 * refused unless it is a directory of ours that nobody else can enter).
 * dir NULL: the /tmp one.  A new string, or NULL with errno.
 */
char *sshcli_control_path(const char *dir);

#endif
