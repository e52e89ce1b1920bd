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
 * channel; the system ssh gets it on its own stdin (core/sshcli.c), never
 * in its argv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "buf.h"
#include "config.h"
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

/* The script that writes stdin to path: no value in it, only the quoted path. */
static char *
secrets_script(const char *path)
{
	struct buf b = BUF_INIT;
	char *d;

	d = xstrndup(path, (size_t)(strrchr(path, '/') - path));
	buf_puts(&b, "umask 077; d=");
	sshq_append(&b, d);
	/* mv onto a directory would move into it: refuse one where the file goes. */
	buf_puts(&b, "; f=\"$d/" NOTIFY_SECRETS_FILE "\"; mkdir -p -- \"$d\" || exit 1; "
	    "if [ -d \"$f\" ]; then echo \"$f is a directory\" >&2; exit 1; fi; "
	    "t=\"$d/.secrets.wk-tmp.$$\"; cat > \"$t\" && chmod 600 -- \"$t\" && "
	    "mv -f -- \"$t\" \"$f\" && echo wk-secrets-done && exit 0; rm -f -- \"$t\"; exit 1");
	free(d);
	return buf_detach(&b);
}

int
secrets_send(const struct wk_config *cfg, struct ssh_conn *conn, struct ssh_error *err)
{
	struct ssh_result res;
	char **names = NULL, *json = NULL, *script = NULL, *path = NULL;
	const char *v;
	size_t n = 0, i, sent = 0;
	cJSON *doc = NULL;
	int ret = -1;

	memset(&res, 0, sizeof(res));
	memset(err, 0, sizeof(*err));
	notify_secret_names(cfg, 1, &names, &n);
	if (n == 0) {
		ret = 0;	/* nothing named: nothing sent, nothing said */
		goto out;
	}
	doc = cJSON_CreateObject();
	for (i = 0; i < n; i++) {
		if ((v = getenv(names[i])) == NULL || *v == '\0') {
			log_warn("%s is %s in this environment: not sent to the box (its sink there "
			    "uses the box's own environment, if it has it)", names[i],
			    v == NULL ? "not set" : "empty");
			continue;
		}
		cJSON_AddStringToObject(doc, names[i], v);
		sent++;
	}
	json = cJSON_PrintUnformatted(doc);
	path = layout_path(cfg->workdir, NOTIFY_SECRETS_FILE);
	script = secrets_script(path);
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
	free(script);
	free(path);
	return ret;
}
