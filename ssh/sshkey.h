/*
 * sshkey.h: what kind of user key a file or the ssh-agent holds, without
 * a passphrase and without libssh2: enough for box.transport "auto" to tell
 * the keys libssh2 1.10 can sign with (ed25519, ecdsa) from the ones only
 * the system ssh can use against OpenSSH 9 (RSA, which needs rsa-sha2;
 * security keys; certificates).  See ../shared/NOTES.md.
 */
#ifndef WK_SSHKEY_H
#define WK_SSHKEY_H

#include <stddef.h>

/*
 * The key type of a private key file ("ssh-rsa", "ssh-ed25519", ...): from
 * its PEM header or the OpenSSH format's public blob (never encrypted), else
 * from "<priv>.pub".  0 with type filled, or -1 (unreadable, not a key we
 * can tell).
 */
int sshkey_file_type(const char *priv, char *type, size_t len);

/* Can libssh2 1.10 authenticate with a key of this type against OpenSSH 9? */
int sshkey_type_libssh2(const char *type);

/* "RSA", "ed25519", "ECDSA", "security-key", "certificate" ...: for messages. */
const char *sshkey_type_label(const char *type);

/*
 * Ask the ssh-agent at sock (SSH_AUTH_SOCK) for its keys, within
 * timeout_ms.  0 with *usable (keys libssh2 can use) and *unusable (the
 * rest; the first one's type in first, when given), or -1 when there is no
 * agent that answers.
 */
int sshkey_agent_types(const char *sock, int timeout_ms, size_t *usable, size_t *unusable,
    char *first, size_t firstlen);

#endif
