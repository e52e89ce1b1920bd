/*
 * sshcli-argv.c: the openssh transport's command lines (see sshcli.c): the
 * options every ssh of a connection gets (fixed ones that keep it
 * non-interactive and never write known_hosts, then only the box.* keys the
 * config set, the rest left to ssh_config), the control socket's options,
 * and the same as one line a person can paste ("see with: ssh ...").
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "monotime.h"
#include "spawn.h"
#include "sshcli-int.h"
#include "sshcli.h"
#include "sshq.h"
#include "transport.h"
#include "xmalloc.h"

/* Options on every ssh of a connection (after -F, before the box's own). */
static const char *const sshcli_fixed_opts[] = {
	"BatchMode=yes",		/* never a prompt: a prompt would wait forever */
	"StrictHostKeyChecking=yes",	/* never accept a new or changed key */
	"UpdateHostKeys=no",		/* never write known_hosts */
	"CheckHostIP=no",		/* (nor the address's entries) */
	"ClearAllForwardings=yes",	/* the user's LocalForward ... are not ours to open */
	"ForwardAgent=no",		/* no agent on a rented box */
	"ForwardX11=no",
	"PermitLocalCommand=no",
	"RequestTTY=no",
	"VisualHostKey=no",
};

/* ---- argv ---- */

static void
sshcli_av_add(struct sshcli_argv *a, const char *s)
{
	a->v = xreallocarray(a->v, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void sshcli_av_addf(struct sshcli_argv *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sshcli_av_addf(struct sshcli_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("out of memory");
	va_end(ap);
	sshcli_av_add(a, s);
	free(s);
}

static void
sshcli_av_addv(struct sshcli_argv *a, const struct sshcli_argv *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		sshcli_av_add(a, from->v[i]);
}

void
sshcli_av_free(struct sshcli_argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

/* s with every % doubled: ssh expands %-tokens in paths, ours are literal. */
void
sshcli_pct(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '%')
			buf_putc(b, '%');
		buf_putc(b, *s);
	}
}

/* A path as an ssh option value: literal %, double-quoted (\ and " escaped) against splitting. */
static void
sshcli_optpath(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			buf_putc(b, '\\');
		if (*s == '%')
			buf_putc(b, '%');
		buf_putc(b, *s);
	}
	buf_putc(b, '"');
}

/*
 * The options every ssh of this connection gets, and the box's part of them
 * as the start of a command a person can paste (c->advice).
 */
void
sshcli_common(struct sshcli_conn *c, const struct ssh_target *t)
{
	struct sshcli_argv *a = &c->common;
	struct buf v = BUF_INIT, adv = BUF_INIT;
	size_t i;
	char *q;

	buf_puts(&adv, "ssh");
	if (t->ssh_config_file != NULL) {
		sshcli_av_add(a, "-F");
		sshcli_av_add(a, t->ssh_config_file);
		q = sshq_quote(t->ssh_config_file);
		buf_printf(&adv, " -F %s", q);
		free(q);
	}
	for (i = 0; i < nitems(sshcli_fixed_opts); i++) {
		sshcli_av_add(a, "-o");
		sshcli_av_add(a, sshcli_fixed_opts[i]);
	}
	if (t->connect_timeout_s > 0)
		sshcli_av_addf(a, "-oConnectTimeout=%d", t->connect_timeout_s);
	sshcli_av_addf(a, "-oServerAliveInterval=%d", t->keepalive_s > 0 ? t->keepalive_s : 10);
	sshcli_av_addf(a, "-oServerAliveCountMax=%d", t->keepalive_max > 0 ? t->keepalive_max : 3);
	sshcli_av_add(a, "-S");
	sshcli_av_add(a, c->path_arg);
	if ((t->given & SSH_GIVEN_PORT) && t->port > 0) {
		sshcli_av_addf(a, "-p%d", t->port);
		buf_printf(&adv, " -p %d", t->port);
	}
	if ((t->given & SSH_GIVEN_USER) && t->user != NULL) {
		sshcli_av_add(a, "-l");
		sshcli_av_add(a, t->user);
		q = sshq_quote(t->user);
		buf_printf(&adv, " -l %s", q);
		free(q);
	}
	for (i = 0; (t->given & SSH_GIVEN_IDENTITY) && i < t->nidentities; i++) {
		buf_reset(&v);
		sshcli_pct(&v, t->identities[i]);
		sshcli_av_add(a, "-i");
		sshcli_av_add(a, buf_str(&v));
		q = sshq_quote(buf_str(&v));
		buf_printf(&adv, " -i %s", q);
		free(q);
	}
	if (t->given & SSH_GIVEN_IDENTITIES_ONLY) {
		sshcli_av_add(a, "-oIdentitiesOnly=yes");
		buf_puts(&adv, " -o IdentitiesOnly=yes");
	}
	if ((t->given & SSH_GIVEN_KNOWN_HOSTS) && t->nknown_hosts > 0) {
		buf_reset(&v);
		buf_puts(&v, "UserKnownHostsFile=");
		for (i = 0; i < t->nknown_hosts; i++) {
			if (i > 0)
				buf_putc(&v, ' ');
			sshcli_optpath(&v, t->known_hosts[i]);
		}
		sshcli_av_add(a, "-o");
		sshcli_av_add(a, buf_str(&v));
		q = sshq_quote(buf_str(&v));
		buf_printf(&adv, " -o %s", q);
		free(q);
	}
	c->qdest = sshq_quote(c->dest);
	c->advice = buf_detach(&adv);	/* transferred */
	buf_free(&v);
}

/* "ssh <the box's options> [extra] <dest> true": to try by hand.  Caller frees. */
char *
sshcli_byhand(const struct sshcli_conn *c, const char *extra)
{
	return xstrfmt("%s%s%s %s true", c->advice, extra != NULL ? " " : "",
	    extra != NULL ? extra : "", c->qdest);
}

/* ssh <pre...> <common> <post...> -- dest [command]: a new argv. */
void
sshcli_argv_build(struct sshcli_conn *c, struct sshcli_argv *a, const char *const *pre,
    const char *const *post, const char *command)
{
	size_t i;

	sshcli_av_add(a, "ssh");
	for (i = 0; pre != NULL && pre[i] != NULL; i++)
		sshcli_av_add(a, pre[i]);
	sshcli_av_addv(a, &c->common);
	for (i = 0; post != NULL && post[i] != NULL; i++)
		sshcli_av_add(a, post[i]);
	sshcli_av_add(a, "--");
	sshcli_av_add(a, c->dest);
	if (command != NULL)
		sshcli_av_add(a, command);
}
