/*
 * agent.c: the user's ssh-agent for a tick that no terminal started (see
 * ssh.h: ssh_agent_find).
 *
 * cron gives patrol no SSH_AUTH_SOCK, nor does a systemd timer unless the
 * session exported it to the user manager; a launchd agent has the
 * session's.  The agents a desktop runs listen at known places: Debian's
 * ssh-agent user service ($XDG_RUNTIME_DIR/openssh_agent), systemd's socket
 * unit (ssh-agent.socket), GNOME's keyring and gcr (keyring/ssh, gcr/ssh),
 * gpg-agent (gnupg/S.gpg-agent.ssh), and macOS's launchd agent
 * (/private/tmp/com.apple.launchd.*\/Listeners).  The first that is a
 * socket of this user's becomes SSH_AUTH_SOCK for this process, so both
 * transports use it.  An unset SSH_AUTH_SOCK is never guessed past these.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "ssh.h"
#include "xmalloc.h"

static const char *const agent_runtime_names[] = {
	"openssh_agent", "ssh-agent.socket", "gcr/ssh", "keyring/ssh", "gnupg/S.gpg-agent.ssh",
};

static int agent_state;			/* 0: not looked yet; else an SSH_AGENT_* */
static char agent_where[256];		/* where it looked, for SSH_AGENT_NONE's note */

/* A socket owned by this user? */
static int
agent_sock_ok(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == getuid();
}

static int
agent_take(const char *path, const char *how)
{
	if (!agent_sock_ok(path))
		return 0;
	setenv("SSH_AUTH_SOCK", path, 1);
	log_debug("no SSH_AUTH_SOCK: using the ssh-agent at %s (%s)", path, how);
	return 1;
}

int
ssh_agent_find(void)
{
	const char *sock = getenv("SSH_AUTH_SOCK"), *rt = getenv("XDG_RUNTIME_DIR");
	char *dir, *p;
	glob_t g;
	size_t i;
	int found = 0;

	if (agent_state != 0)
		return agent_state;
	if (sock != NULL && sock[0] != '\0')
		return agent_state = SSH_AGENT_ENV;
	dir = rt != NULL && rt[0] == '/' ? xstrdup(rt) : xstrfmt("/run/user/%lu", (unsigned long)getuid());
	for (i = 0; !found && i < sizeof(agent_runtime_names) / sizeof(agent_runtime_names[0]); i++) {
		p = xstrfmt("%s/%s", dir, agent_runtime_names[i]);
		found = agent_take(p, "the session's agent");
		free(p);
	}
	if (!found && glob("/private/tmp/com.apple.launchd.*/Listeners", 0, NULL, &g) == 0) {
		for (i = 0; !found && i < g.gl_pathc; i++)
			found = agent_take(g.gl_pathv[i], "launchd's agent");
		globfree(&g);
	}
	snprintf(agent_where, sizeof(agent_where), "%s", dir);
	free(dir);
	return agent_state = found ? SSH_AGENT_FOUND : SSH_AGENT_NONE;
}

const char *
ssh_agent_where(void)
{
	return agent_where;
}
