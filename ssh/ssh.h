/*
 * ssh.h: short, bounded SSH connections to the box, on libssh2 or, for
 * setups libssh2 cannot do (ProxyJump, certificates, RSA keys), on the
 * system `ssh` client (target.openssh; sshcli.c).  Two implementations of
 * one interface (transport.h) behind the calls below (ssh.c).
 *
 * Connect (non-blocking, bounded), verify the host key against known_hosts
 * (never accept a changed key, never write known_hosts), authenticate
 * (ssh-agent, then identity files), run commands on one connection, close.
 * Every wait is bounded by the connection's deadline; TCP_USER_TIMEOUT makes
 * a dead peer visible mid-read.  See ../shared/NOTES.md for what libssh2 1.10
 * needs against OpenSSH 9 (keepalive after the handshake, host-key method
 * preference from known_hosts, TCP_QUICKACK re-armed after reads).
 *
 * Both transports give the same results through the same calls; where the
 * openssh one cannot (no signal name, no fingerprint of an unknown key),
 * sshcli.h says so.
 */
#ifndef WK_SSH_H
#define WK_SSH_H

#include <stddef.h>

#include "sshfail.h"

struct ssh_target {
	char	*host;		/* to connect to (HostName) */
	int	 port;
	char	*user;
	char	*alias;		/* as the user wrote it, for messages */
	char	**identities;	/* private key files; public key = path + ".pub" when present */
	size_t	 nidentities;
	int	 identities_only;	/* do not use the agent */
	char	**known_hosts;
	size_t	 nknown_hosts;
	int	 connect_timeout_s;
	int	 keepalive_s;	/* ServerAliveInterval; 0: 10 */
	int	 keepalive_max;	/* ServerAliveCountMax; 0: 3 */
	/*
	 * ssh_connect may hand the connection to a warm holder (warm.h) when
	 * this process (or one it was forked from) called warm_init: each exec
	 * is then a channel on a connection held open across looks.  Set by
	 * the caller; target_from_config leaves it 0.
	 */
	int	 warm;

	/* The openssh transport (box.transport "openssh"); libssh2 ignores these. */
	int	 openssh;
	/*
	 * ssh -F: box.ssh_config, expanded; NULL: ssh reads ~/.ssh/config and
	 * /etc/ssh/ssh_config itself.  ssh is given alias (else host) as the
	 * destination, so everything that file says about it applies.
	 */
	char	*ssh_config_file;
	/*
	 * The control socket of the connection's ControlMaster: a literal path
	 * (no %-tokens), unique to this process, short enough for a unix socket
	 * (sshcli_control_path); NULL: one under /tmp is picked at connect.
	 * One open connection per target at a time.
	 */
	char	*control_path;
	/*
	 * SSH_GIVEN_* bits: the fields the config itself set (box.port ...).
	 * Only these are passed to ssh as options; the rest (and everything
	 * else: ProxyJump, CertificateFile ...) ssh takes from ssh_config.
	 */
	unsigned int given;

	/*
	 * How the transport was chosen (target_from_config): with "auto", why
	 * is what needs the system ssh ("ProxyJump bastion", "RSA key
	 * /home/u/.ssh/id_rsa ..."), or NULL when nothing does; cli_missing:
	 * something does but no `ssh` is on PATH, so libssh2 it is.
	 */
	int	 transport_auto;
	int	 cli_missing;
	char	*transport_why;
};

#define SSH_GIVEN_PORT			0x01	/* -p port */
#define SSH_GIVEN_USER			0x02	/* -l user */
#define SSH_GIVEN_IDENTITY		0x04	/* -i for each identities[] (tried before ssh_config's) */
#define SSH_GIVEN_IDENTITIES_ONLY	0x08	/* -o IdentitiesOnly=yes */
#define SSH_GIVEN_KNOWN_HOSTS		0x10	/* -o UserKnownHostsFile=known_hosts[] */

struct ssh_result {
	int	 exit_status;	/* -1 when the command died by a signal or none was reported */
	char	*exit_signal;	/* "KILL" ... or NULL (always NULL with openssh) */
	char	*out;		/* NUL-terminated, at most cap bytes kept */
	size_t	 out_len;
	char	*err;
	size_t	 err_len;
	int	 truncated;	/* more than cap bytes arrived on stdout */
};

struct ssh_conn;

/*
 * Connect, verify, authenticate; everything bounded by deadline_ms (total,
 * the connect timeout is applied inside it too).  0 and *out, or -1 with err.
 */
int ssh_connect(const struct ssh_target *t, int deadline_ms, struct ssh_conn **out,
    struct ssh_error *err);
/*
 * Run command on the open connection (an exec channel), feed it in[0..inlen),
 * collect stdout (up to cap bytes; the rest is drained and counted) and
 * stderr (bounded), until it exits or the connection's deadline passes.
 * 0 with res filled (caller frees with ssh_result_free), or -1 with err.
 */
int ssh_exec(struct ssh_conn *c, const char *command, const void *in, size_t inlen, size_t cap,
    struct ssh_result *res, struct ssh_error *err);
/*
 * Write data to remote_path (atomically: temp name then rename, then exactly
 * mode) over SFTP, or with openssh through `sh -c` on the box.  0 or -1 with err.
 */
int ssh_put(struct ssh_conn *c, const char *remote_path, const void *data, size_t len, int mode,
    struct ssh_error *err);
void ssh_close(struct ssh_conn *c);
void ssh_result_free(struct ssh_result *r);

/*
 * For a connection held open across looks (warm.c).  ssh_conn_limit: the
 * following calls' deadline, deadline_ms from now (replacing the one given
 * to ssh_connect), and cancel_fd (-1: none): when it becomes readable or
 * hangs up during an exec, the exec's channel is closed, the connection
 * kept, and the exec fails with SSH_FAIL_EXEC "cancelled".  ssh_conn_idle:
 * between looks, without waiting: take in what arrived, look whether the
 * peer hung up, and with keepalive send a keepalive when one is due (never
 * right before a look: its reply would cost that look a round trip); 0
 * while the connection lives, -1 when it is gone.  Both are libssh2's
 * only: with the openssh transport limit does nothing and idle says gone.
 */
void ssh_conn_limit(struct ssh_conn *c, int deadline_ms, int cancel_fd);
int ssh_conn_idle(struct ssh_conn *c, int keepalive);
/*
 * Open the next exec's channel ahead, between looks, within the deadline
 * of the last ssh_conn_limit: the look after it saves a round trip.  0, or
 * -1 (the next exec opens its own; ssh_conn_idle says whether the
 * connection is still there).  libssh2 only (-1 elsewhere).
 */
int ssh_conn_prepare(struct ssh_conn *c);

/*
 * A script for `sh` on the box as one command line, "printf '<script>' | sh"
 * with every byte but letters, digits and " _.,:/=+@" written \ooo, when
 * that fits in SSH_SCRIPT_CMD_MAX bytes, else NULL: run it as "sh -s" with
 * the script on stdin.  sh still reads the script on its stdin, as with
 * "sh -s", and the login shell still parses only safe words (csh too: no
 * newline or '!' in its quotes); but nothing waits for the channel's window,
 * which sshd opens only when the command starts, so it saves the round trip
 * that stdin costs.  Caller frees.
 */
#define SSH_SCRIPT_CMD_MAX	(64 * 1024)
char *ssh_script_command(const char *script);

/*
 * The user's ssh-agent (agent.c), looked for once a process: SSH_AGENT_ENV
 * when SSH_AUTH_SOCK is set; SSH_AGENT_FOUND when it was not and a socket
 * of this user's was found where desktops keep theirs (it is then set, for
 * both transports); SSH_AGENT_NONE when neither.  target_from_config()
 * calls it; a refused key then says that no agent was reached.
 */
#define SSH_AGENT_ENV	1
#define SSH_AGENT_FOUND	2
#define SSH_AGENT_NONE	(-1)
int ssh_agent_find(void);
/* Where ssh_agent_find looked (the runtime directory), for a message. */
const char *ssh_agent_where(void);

#endif
