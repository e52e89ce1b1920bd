/*
 * secrets.c: send the notification secrets to the box.
 *
 * The config names its webhook URLs and tokens by environment variable
 * (notify[].url_env, token_env), and onbox on the box needs their values,
 * but an onbox started by `patrol deploy` or a resume has only the box's
 * own environment.  So patrol reads the values from the owner's
 * environment and writes them to <workdir>/.watchkeeper/secrets on the box
 * (core/notify.h: a JSON object {"NAME": "value"}, mode 0600), where onbox
 * reads them when it loads its sinks.
 *
 * The values travel only on the channel's stdin: the remote command is a
 * fixed script with the (quoted) path in it, and `cat` puts stdin into a
 * temp file created under umask 077 in the same directory, renamed over
 * the old file.  Same with both transports: libssh2 writes stdin to the
 * channel; the system ssh gets it on its own stdin (ssh/sshcli.c), never
 * in its argv.
 *
 * A variable missing (or empty) here is warned about by name; the box keeps
 * the value it was sent before for that name (read back on the channel's
 * stdout), since a tick from cron usually lacks the owner's shell exports
 * and a resume must not leave the box mute.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
#include "err.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "notify.h"
#include "patrol.h"
#include "ssh.h"
#include "sshq.h"
#include "xmalloc.h"

/* The marker: a server that forces its own command exits 0 too. */
#define SECRETS_DONE	"wk-secrets-done\n"

/* sh -c 'body' with d= the file's directory and f= the file: one quoted word for the login shell. */
static char *
secrets_command(const char *path, const char *body)
{
	struct buf script = BUF_INIT, cmd = BUF_INIT;
	char *d = xstrndup(path, (size_t)(strrchr(path, '/') - path));

	buf_puts(&script, "umask 077; d=");
	sshq_append(&script, d);
	buf_puts(&script, "; f=\"$d/" NOTIFY_SECRETS_FILE "\"; ");
	buf_puts(&script, body);
	buf_puts(&cmd, "sh -c ");
	sshq_append(&cmd, buf_str(&script));
	buf_free(&script);
	free(d);
	return buf_detach(&cmd);
}

/*
 * Writes stdin to the file: a temp file created under umask 077 (noclobber:
 * never through something already there), then renamed.  mv onto a
 * directory would move into it: one where the file goes is refused.
 */
static const char secrets_write_body[] =
    "mkdir -p -- \"$d\" || exit 1; "
    "if [ -d \"$f\" ]; then echo \"$f is a directory\" >&2; exit 1; fi; "
    "t=\"$d/.secrets.wk-tmp.$$\"; rm -f -- \"$t\"; set -C; "
    "cat > \"$t\" && { sync -- \"$t\" 2>/dev/null; chmod 600 -- \"$t\"; } && "
    "mv -f -- \"$t\" \"$f\" && "
    "echo wk-secrets-done && exit 0; rm -f -- \"$t\"; exit 1";

/* Prints the file (on the channel's stdout) when it is a regular file. */
static const char secrets_read_body[] =
    "if [ -f \"$f\" ] && [ ! -L \"$f\" ]; then cat -- \"$f\"; fi; exit 0";

/*
 * The values the box has now, for names missing here: a cron tick usually
 * lacks the owner's shell exports, and must not wipe what deploy sent.
 * Adds them to doc; what cannot be read is left out (with a warning).
 */
static void
secrets_keep_old(struct ssh_conn *conn, const char *path, char **missing, size_t nmissing,
    cJSON *doc)
{
	struct ssh_result res;
	struct ssh_error err;
	char *cmd = secrets_command(path, secrets_read_body);
	const char *v;
	cJSON *old = NULL;
	size_t i;

	memset(&res, 0, sizeof(res));
	if (ssh_exec(conn, cmd, NULL, 0, NOTIFY_SECRETS_MAX, &res, &err) != 0) {
		log_warn("cannot read %s on the box: %s", path, err.msg);
		goto out;
	}
	if (res.exit_status != 0 || res.truncated || res.out_len == 0)
		goto out;
	if ((old = cJSON_ParseWithLength(res.out, res.out_len)) == NULL || !cJSON_IsObject(old)) {
		log_warn("%s on the box is not a JSON object; values missing here are not kept", path);
		goto out;
	}
	for (i = 0; i < nmissing; i++) {
		if ((v = json_str(old, missing[i], NULL)) == NULL || *v == '\0')
			continue;
		cJSON_AddStringToObject(doc, missing[i], v);
		log_warn("%s: the box keeps the value it was sent before", missing[i]);
	}
out:
	if (res.out != NULL)
		memset(res.out, 0, res.out_len);
	ssh_result_free(&res);
	cJSON_Delete(old);
	free(cmd);
}

int
secrets_send(const struct wk_config *cfg, struct ssh_conn *conn, struct ssh_error *err)
{
	struct ssh_result res;
	char **names = NULL, **missing = NULL, *json = NULL, *script = NULL, *path = NULL;
	const char *v;
	size_t n = 0, i, sent = 0, nmissing = 0;
	cJSON *doc = NULL;
	int ret = WK_ERR_REMOTE;

	memset(&res, 0, sizeof(res));
	memset(err, 0, sizeof(*err));
	notify_secret_names(cfg, 1, &names, &n);
	if (n == 0) {
		ret = 0;	/* nothing named: nothing sent, nothing said */
		goto out;
	}
	doc = cJSON_CreateObject();
	missing = xcalloc(n, sizeof(*missing));
	for (i = 0; i < n; i++) {
		if ((v = getenv(names[i])) == NULL || *v == '\0') {
			log_warn("%s is %s in this environment: not sent to the box", names[i],
			    v == NULL ? "not set" : "empty");
			missing[nmissing++] = names[i];
			continue;
		}
		cJSON_AddStringToObject(doc, names[i], v);
		sent++;
	}
	path = layout_path(cfg->workdir, NOTIFY_SECRETS_FILE);
	if (nmissing > 0)
		secrets_keep_old(conn, path, missing, nmissing, doc);
	json = cJSON_PrintUnformatted(doc);
	script = secrets_command(path, secrets_write_body);
	if (ssh_exec(conn, script, json, strlen(json), 4096, &res, err) != 0)
		goto out;
	if (res.exit_status != 0 || res.out == NULL || strcmp(res.out, SECRETS_DONE) != 0) {
		ssh_error_set(err, SSH_FAIL_EXEC, "cannot write %s on the box (exit %d): %.300s",
		    path, res.exit_status, res.err != NULL ? res.err : "");
		goto out;
	}
	log_info("sent %zu of %zu notification secret(s) to %s", sent, n, path);
	ret = 0;
out:
	ssh_result_free(&res);
	if (json != NULL) {
		memset(json, 0, strlen(json));
		free(json);
	}
	cJSON_Delete(doc);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(missing);	/* its strings were names' */
	free(script);
	free(path);
	return ret;
}
