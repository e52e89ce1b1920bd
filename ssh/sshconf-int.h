/*
 * sshconf-int.h: what the parts of the ssh_config reader share (sshconf.c:
 * reading files and Include, the result; sshconf-parse.c: splitting lines,
 * the keyword table and its value handlers; sshconf-match.c: Host and Match
 * patterns; sshconf-token.c: ~, ${VAR} and %-token expansion, the host's
 * canonical name).  Private to them.
 */
#ifndef WK_SSH_SSHCONF_INT_H
#define WK_SSH_SSHCONF_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "diag.h"
#include "sshconf.h"

#define SC_MAX_DEPTH	16		/* readconf.c READCONF_MAX_DEPTH */
#define SC_MAX_FILE	(4 << 20)	/* no real ssh_config comes near this */
#define SC_WS		" \t\r\n"

/* A value with where it was written, for messages about it later. */
struct sc_val {
	char	*v;
	char	*file;
	int	 line;
};

struct sc_list {
	struct sc_val	*v;
	size_t		 n;
};

struct sc_ctx {
	const char	*alias;
	const char	*home;
	const char	*luser;
	struct diag	*d;
	int		 nerr;
	struct {
		dev_t	dev;
		ino_t	ino;
	}		 open[SC_MAX_DEPTH + 1];	/* files being read, outermost first */
	int		 nopen;
	/* Single values: NULL / -1 while unset. */
	struct sc_val	 hostname, user, host_key_alias, strict;
	struct sc_val	 proxy_jump, proxy_command;
	int		 port, connect_timeout, alive_interval, alive_count_max;
	int		 batch_mode, identities_only;
	struct sc_list	 identities, certificates, known_hosts;
	struct sshconf_skip *skipped;	/* Match criteria never evaluated */
	size_t		 nskipped;
};

/* One file being read. */
struct sc_file {
	const char	*path;
	int		 line;
	int		*activep;	/* shared with the including file */
	int		 nevermatch;	/* included from a block that does not apply */
	int		 depth;
};

/* The arguments of one line. */
struct sc_args {
	char	**v;
	size_t	  n;
	size_t	  i;
};

struct sc_kw;
typedef void (*sc_kw_fn)(struct sc_ctx *, struct sc_file *, const struct sc_kw *,
    char *rest, struct sc_args *);

struct sc_kw {
	const char	*name;
	sc_kw_fn	 fn;
	size_t		 off;	/* the field in struct sc_ctx */
};

struct sc_token {
	char		 key;
	const char	*val;
};

/* sshconf.c: files, Include, the result */
void sc_error(struct sc_ctx *c, const struct sc_file *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sc_kw_include(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a);

/* sshconf-parse.c: lines, values, the keyword table */
char * sc_strdelim(char **s);
char * sc_next(struct sc_args *a);
void sc_val_free(struct sc_val *v);
void sc_list_free(struct sc_list *l);
void sc_list_add(struct sc_list *l, const char *s, const struct sc_file *f);
void sc_line(struct sc_ctx *c, struct sc_file *f, char *line);

/* sshconf-match.c: patterns, Host and Match */
void sc_lower(char *s);
void sc_kw_host(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a);
void sc_kw_match(struct sc_ctx *c, struct sc_file *f, const struct sc_kw *k, char *rest,
    struct sc_args *a);

/* sshconf-token.c: ~, ${VAR} and %-tokens */
char * sc_expand(const char *s, const struct sc_token *toks, size_t ntoks, int dollar, char *why,
    size_t whylen);
void sc_canon_host(char **hostp);
void sc_expand_list(struct sc_ctx *c, const struct sc_list *l, const char *what,
    const struct sc_token *toks, size_t ntoks, char ***outp, size_t *np);

#endif
