/*
 * sshconf.h: what an ssh_config file says about one host (our own reader:
 * no library does this, and patrol must resolve `box.host` exactly as the
 * user's `ssh` would).
 *
 * OpenSSH semantics: Host lines carry patterns (*, ?, !negation, several per
 * line); for each keyword the FIRST value obtained wins; Include pulls in
 * files (globs, relative to ~/.ssh); keywords are case-insensitive and may be
 * written "Key value" or "Key=value", values may be quoted.  Tokens in paths:
 * ~ and %h %p %r %u %d %%.  Unknown keywords are ignored (the user's file is
 * written for ssh, not for us); the ones watchkeeper cannot honour through
 * libssh2 (ProxyJump, ProxyCommand, CertificateFile) are reported so the
 * caller can say "use transport openssh".
 */
#ifndef WK_SSHCONF_H
#define WK_SSHCONF_H

#include <stddef.h>

#include "diag.h"

struct sshconf_host {
	char	*alias;			/* as asked */
	char	*hostname;		/* HostName (tokens expanded), else alias */
	int	 port;			/* Port, else 22 */
	char	*user;			/* User, else the local user */
	char	**identities;		/* IdentityFile, expanded, in order; none given: the defaults */
	size_t	 nidentities;
	int	 identities_given;	/* IdentityFile appeared (else identities are the default list) */
	int	 identities_only;	/* IdentitiesOnly yes */
	char	**known_hosts;		/* UserKnownHostsFile (space-separated list), expanded; default ~/.ssh/known_hosts */
	size_t	 nknown_hosts;
	int	 connect_timeout_s;	/* ConnectTimeout; 0 = not set */
	int	 server_alive_interval;	/* ServerAliveInterval; 0 = not set */
	int	 server_alive_count_max;	/* ServerAliveCountMax; default 3 */
	char	*proxy_jump;		/* set: libssh2 cannot do this hop */
	char	*proxy_command;
	char	*certificate_file;
	int	 batch_mode;		/* BatchMode yes */
	char	*strict_host_key_checking;	/* as written, or NULL */
	/* Every CertificateFile, expanded, in order (certificate_file is a copy of the first). */
	char	**certificate_files;
	size_t	 ncertificate_files;
	char	*host_key_alias;	/* HostKeyAlias as written, or NULL */
	/* Match lines with a criterion never evaluated (exec ...): their blocks were skipped. */
	struct sshconf_skip {
		char	*file;
		int	 line;
		char	*criterion;	/* "exec", "canonical" ... */
		int	 live;		/* the criteria before it matched: the block may apply */
	}	*skipped;
	size_t	 nskipped;
};

/*
 * Resolve alias through file (NULL: ~/.ssh/config; a missing default file is
 * fine, a missing explicit file is an error).  Problems (unreadable Include,
 * bad Port value) go to d as "file:line: message".  Returns 0 and fills out
 * (caller frees with sshconf_free), or WK_ERR_SYSTEM / WK_ERR_PARSE.
 */
int sshconf_resolve(const char *file, const char *alias, struct sshconf_host *out, struct diag *d);
void sshconf_free(struct sshconf_host *h);

/* h's skipped Match blocks, as warnings into d ("Match criterion exec is not supported; ..."). */
void sshconf_warn_skipped(const struct sshconf_host *h, struct diag *d);

/* OpenSSH's Host pattern-list rule: 1 match, 0 no match (a negated match wins). */
int sshconf_match_list(const char *patterns, const char *host);

/*
 * Details, as OpenSSH 9.2's `ssh -G` does them: Host patterns match the alias
 * as typed, case-sensitively (Match host/originalhost ignore case); hostname
 * is lowercased unless it is an address.  sshconf_match_list takes patterns
 * separated by blanks or commas, case-sensitively.  d may get warnings (an
 * unreadable ~/.ssh/config, which ssh skips) while sshconf_resolve returns
 * 0; a Match criterion we never evaluate (exec ...) is listed in skipped
 * instead, for the caller to warn about (sshconf_warn_skipped) or to leave
 * the host to the system ssh, which evaluates it.
 * UserKnownHostsFile none gives nknown_hosts 0; IdentityFile none gives
 * identities_given 1 and nidentities 0.
 */

#endif
