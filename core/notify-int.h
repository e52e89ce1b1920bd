/*
 * notify-int.h: what the notify files share and callers never see.
 *
 * notify.c (loading the sinks, building a request, sending) walks the sink
 * type table of notify-types.c; the wording of events (notify-text.c), the
 * secrets and their masking (notify-scrub.c), HTTP delivery and judging
 * (notify-http.c, curlcmd.c) and the command sink (notify-cmd.c) are called
 * from there.  The public interface stays notify.h.
 */
#ifndef WK_NOTIFY_INT_H
#define WK_NOTIFY_INT_H

#include <stddef.h>

#include <cJSON.h>

#include "notify.h"

#define NOTIFY_TEXT_MAX		1000	/* one message line, bytes */
#define NOTIFY_LAST_MAX		160	/* the "last:" part of a failure */
#define NOTIFY_SUMMARY_MAX	300	/* the results summary */
#define NOTIFY_SUMMARY_PAIRS	8
#define NOTIFY_FIRSTLINE_MAX	200
#define NOTIFY_DETAIL_MAX	200	/* a receiver's or command's words inside a why */
#define NOTIFY_ANSWER_MAX	(16 * 1024)
#define NOTIFY_CMD_OUT_MAX	4096
#define NOTIFY_DISCORD_MAX	2000	/* Discord refuses longer content */
#define NOTIFY_SECRET_MIN	6	/* shorter "secrets" would mangle ordinary text */
#define NOTIFY_PATH_SECRET_MIN	16	/* a URL's path is a secret of its own when this long */
#define NOTIFY_KILL_GRACE_MS	2000	/* SIGTERM to SIGKILL */
#define NOTIFY_POLL_SLICE_MS	50	/* how often a running command's exit is checked */

/* ---- notify-text.c: small text helpers and the event wording ---- */

/* s as one trimmed line (control characters folded to spaces).  Caller frees. */
char *notify_flat(const char *s);
/* A header value: printable ASCII only (no CR/LF can split the header).  Caller frees. */
char *notify_header_value(const char *s);
/* A copy of a cJSON value printed on one line; caller frees. */
char *notify_json_line(const cJSON *v);
/*
 * How ntfy shows ev: its title (ASCII, "" for none; caller frees), and its
 * priority and tags (static, NULL for none).
 */
char *notify_ntfy_look(const cJSON *ev, const char **prio, const char **tags);

/* ---- notify-types.c: the sink type table ---- */

struct notify_type {
	const char	*name;
	const char	*ctype;		/* NULL: not HTTP (command) */
	char		*(*body)(const struct notify_sink *, const cJSON *, const char *);
	char		*(*url)(const struct notify_sink *);	/* NULL: the sink's url */
	void		(*headers)(const struct notify_sink *, const cJSON *, struct notify_request *);
	int		(*refused)(const cJSON *, long *, const char **);
	long		 busy_code;	/* a refusal code meaning "too fast": retry */
	size_t		 text_max;	/* 0: NOTIFY_TEXT_MAX is the only bound */
};

/* The row for a sink type, or NULL. */
const struct notify_type *notify_type_find(const char *name);
/* telegram's URL: the API base, the bot token, sendMessage (or method).  Caller frees. */
char *notify_url_telegram(const struct notify_sink *s);
char *notify_url_telegram_method(const struct notify_sink *s, const char *method);
/* slack's URL: the webhook's, or with a channel the Web API base and method.  Caller frees. */
char *notify_url_slack(const struct notify_sink *s, const char *method);
/* Add a "Name: value" header line to r. */
void notify_req_header(struct notify_request *r, char *line /* transferred */);

/* ---- notify-scrub.c: the secrets ---- */

/* Add s (NULL, "" and repeats are ignored) to the secrets to scrub. */
void notify_secret_add(struct notify_sinks *all, const char *s);
/* A URL and, when long enough to be a credential by itself, its path and query. */
void notify_secret_add_url(struct notify_sinks *all, const char *url);
/* 1 when s is an environment variable name. */
int notify_env_name_ok(const char *s);

/* ---- notify-http.c: delivery over HTTP, judging ---- */

enum notify_outcome { NJ_OK, NJ_RETRY, NJ_PERM };

/* An outcome as notify_send() returns it (errno set for a retry). */
int notify_code_of(enum notify_outcome o, int curl_code);
/* Send rq to s by libcurl, else by the curl command; as notify_send(). */
int notify_http(const struct notify_sinks *all, const struct notify_sink *s,
    const struct notify_request *rq, struct notify_reply *reply, char **why, int *permanent);

/* ---- notify-cmd.c: the command sink ---- */

/* Run s's command with rq's body on its stdin; as notify_send(). */
int notify_command(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev,
    const struct notify_request *rq, char **why, int *permanent);

#endif
