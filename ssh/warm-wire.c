/*
 * warm-wire.c: what a look and its holder say to each other (warm.h), and
 * the holder's name for a target.  Pure: no I/O, so the unit tests take it
 * apart (tests/unit/test_warm.c).
 *
 * Both ends are the same binary (the holder is forked from a look), so the
 * headers are plain structs; a magic number still guards against a stale
 * socket of another build, and every length is bounded before it is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warm-int.h"
#include "xmalloc.h"

static void
warm_fnv(uint64_t *h, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "\001");

	for (; *p != '\0'; p++) {
		*h ^= *p;
		*h *= 0x100000001b3ULL;
	}
	*h ^= 0xff;	/* a separator no string holds: "ab","c" is not "a","bc" */
	*h *= 0x100000001b3ULL;
}

void
warm_key(const struct ssh_target *t, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char num[64];
	size_t i;

	warm_fnv(&h, t->host);
	snprintf(num, sizeof(num), "%d/%d/%d/%d/%d", t->port, t->identities_only,
	    t->connect_timeout_s, t->keepalive_s, t->keepalive_max);
	warm_fnv(&h, num);
	warm_fnv(&h, t->user);
	for (i = 0; i < t->nidentities; i++)
		warm_fnv(&h, t->identities[i]);
	warm_fnv(&h, "known_hosts:");
	for (i = 0; i < t->nknown_hosts; i++)
		warm_fnv(&h, t->known_hosts[i]);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

int
warm_req_check(const struct warm_req *q)
{
	if (q->magic != WARM_MAGIC || q->deadline_ms == 0 || q->cmdlen == 0 ||
	    q->cmdlen > WARM_CMD_MAX || q->inlen > WARM_IN_MAX || q->cap > WARM_CAP_MAX)
		return -1;
	return 0;
}

void
warm_rep_fill(struct warm_rep *p, int rc, const struct ssh_result *r, const struct ssh_error *err,
    int fresh)
{
	memset(p, 0, sizeof(*p));
	p->magic = WARM_MAGIC;
	p->fresh = fresh;
	if (rc != 0) {
		p->kind = (int32_t)err->kind;
		p->unsent = err->unsent;
		snprintf(p->msg, sizeof(p->msg), "%s", err->msg);
		snprintf(p->fingerprint, sizeof(p->fingerprint), "%s", err->fingerprint);
		return;
	}
	p->ok = 1;
	p->exit_status = r->exit_status;
	p->truncated = r->truncated;
	p->outlen = r->out_len;
	p->errlen = r->err_len;
	if (r->exit_signal != NULL)
		snprintf(p->signal, sizeof(p->signal), "%s", r->exit_signal);
}

int
warm_rep_check(const struct warm_rep *p, uint64_t cap)
{
	if (p->magic != WARM_MAGIC || (p->ok != 0 && p->ok != 1))
		return -1;
	if (!p->ok && (p->outlen != 0 || p->errlen != 0 || p->kind <= SSH_OK ||
	    p->kind > SSH_FAIL_UNSUPPORTED))
		return -1;
	/* stderr is bounded by the transport (64 KiB); leave room for another's bound. */
	if (p->outlen > cap || p->errlen > 16 * 1024 * 1024)
		return -1;
	if (memchr(p->msg, '\0', sizeof(p->msg)) == NULL ||
	    memchr(p->fingerprint, '\0', sizeof(p->fingerprint)) == NULL ||
	    memchr(p->signal, '\0', sizeof(p->signal)) == NULL)
		return -1;
	return 0;
}

int
warm_rep_take(const struct warm_rep *p, const char *body, struct ssh_result *res,
    struct ssh_error *err)
{
	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	if (!p->ok) {
		ssh_error_set(err, (enum ssh_fail)p->kind, "%s", p->msg);
		snprintf(err->fingerprint, sizeof(err->fingerprint), "%s", p->fingerprint);
		err->unsent = p->unsent;
		return -1;
	}
	res->exit_status = p->exit_status;
	res->truncated = p->truncated;
	res->out_len = (size_t)p->outlen;
	res->out = xmalloc(res->out_len + 1);
	memcpy(res->out, body, res->out_len);
	res->out[res->out_len] = '\0';
	res->err_len = (size_t)p->errlen;
	res->err = xmalloc(res->err_len + 1);
	memcpy(res->err, body + res->out_len, res->err_len);
	res->err[res->err_len] = '\0';
	if (p->signal[0] != '\0')
		res->exit_signal = xstrdup(p->signal);
	return 0;
}
