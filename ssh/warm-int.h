/*
 * warm-int.h: what the parts of warm looks share (warm.c: the asking side
 * and the "warm" transport; warm-hold.c: the holder; warm-wire.c: what the
 * two say, pure).  Private to those three and the unit test.
 */
#ifndef WK_SSH_WARM_INT_H
#define WK_SSH_WARM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ssh.h"
#include "warm.h"

/* ---- the wire between a look and its holder (same binary both ends) ---- */

#define WARM_MAGIC	0x776b7731u	/* "wkw1" */

struct warm_req {
	uint32_t	magic;
	uint32_t	deadline_ms;
	uint64_t	cap;
	uint64_t	cmdlen;		/* then cmdlen bytes of command, then inlen of stdin */
	uint64_t	inlen;
};

struct warm_rep {
	uint32_t	magic;
	int32_t		ok;		/* 1: the command ran */
	int32_t		kind;		/* enum ssh_fail when not ok */
	int32_t		unsent;
	int32_t		exit_status;
	int32_t		truncated;
	int32_t		fresh;		/* the look connected (cold) rather than reusing */
	int32_t		pad;
	uint64_t	outlen;		/* then outlen bytes of stdout, then errlen of stderr */
	uint64_t	errlen;
	char		signal[32];
	char		msg[1024];
	char		fingerprint[128];
};

/*
 * The holder's name for a target: 16 hex digits over every field that
 * changes where or as whom the connection goes.  out has 17 bytes.
 */
void warm_key(const struct ssh_target *t, char out[17]);
/* 0 when a request header is one this build serves, else -1. */
int warm_req_check(const struct warm_req *q);
/* A reply header from an exec's outcome (r: the result when rc == 0). */
void warm_rep_fill(struct warm_rep *p, int rc, const struct ssh_result *r,
    const struct ssh_error *err, int fresh);
/* 0 when a reply header is whole and sane for cap, else -1. */
int warm_rep_check(const struct warm_rep *p, uint64_t cap);
/* The outcome back from a reply and its bytes: 0 with res, or -1 with err. */
int warm_rep_take(const struct warm_rep *p, const char *body, struct ssh_result *res,
    struct ssh_error *err);

/* warm.c: all of data to a socket (no SIGPIPE), either side; 0 or -1. */
int warm_send(int fd, const void *data, size_t len);
/*
 * warm.c: exactly len bytes from fd within dl, watching watch_fd (-1: none):
 * 0, 1 when watch_fd became readable, -1 on end of file, an error or dl.
 */
struct deadline;
int warm_recv(int fd, void *data, size_t len, const struct deadline *dl, int watch_fd);

/* warm-hold.c: the holder, in its own process; never returns. */
struct proc_id;
_Noreturn void warm_hold(const struct ssh_target *t, int lfd, const char *sock, const char *lock,
    const struct proc_id *owner, int idle_s);

#endif
