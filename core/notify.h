/*
 * notify.h: notification sinks: who gets told what, in which form.
 *
 * A sink is one entry of the config's notify[] list.  This module knows, for
 * each sink type, how to turn an event into a request (URL, headers, body),
 * how to judge the receiver's answer (2xx is not always success: feishu,
 * dingtalk and wecom answer 200 with an error code in the body), and how to
 * write the one-line message a person reads on a phone.  The durable queue
 * in front of it is outbox.c.
 *
 * Secrets (webhook URLs, tokens) are resolved here, from the environment
 * (url_env, token_env; on the box the secrets file first) or the config,
 * kept only in memory, and every text this module returns for humans or
 * files has been through notify_scrub().
 * Sinks are named by their id ("0-slack": index in notify[] and type), never
 * by their URL.
 */
#ifndef WK_NOTIFY_H
#define WK_NOTIFY_H

#include <stddef.h>

#include <cJSON.h>

#include "config.h"

struct notify_sink {
	char	 id[48];	/* "<index>-<type>", used for outbox directories and messages */
	int	 index;		/* in notify[] */
	char	*type;		/* generic slack discord telegram ntfy feishu lark dingtalk wecom command */
	char	*url;		/* resolved; NULL when the type needs none (command) or it is missing */
	char	*token;		/* resolved token (telegram bot token, ntfy bearer); may be NULL */
	char	*chat_id;	/* telegram */
	char	*command;	/* command sink: sh -c, event JSON on stdin */
	char	**events;	/* filter: event types this sink takes; NULL = all */
	size_t	 nevents;
	char	*missing;	/* why this sink cannot send now ("SLACK_WEBHOOK_URL is not set"), or NULL */
	char	*channel;	/* slack through a bot token (Web API): the channel to post in */
	int	 card;		/* keeps one live message per run (card.h): "card", default on where the receiver can edit */
	long	 card_every_s;	/* progress edits of the card at most this often */
};

struct notify_sinks {
	struct notify_sink *v;
	size_t		 n;
	char		**secrets;	/* every resolved secret, for scrubbing; owned */
	size_t		 nsecrets;
	long		 connect_timeout_s;	/* per request */
	long		 timeout_s;		/* per request, total */
	/*
	 * 1 when loaded for the box (notify_sinks_load_box): this process's
	 * outbox keeps the sinks' live cards.  Elsewhere (patrol) a card sink
	 * takes only the events that ping a human, each as a message of its own.
	 */
	int		 cards;
};

/*
 * Build the sinks from cfg's notify[] (none is fine: n = 0).  A sink whose
 * secret is missing from the environment is still built, with ->missing set,
 * so its events are kept in the outbox and the problem is shown in status.
 * Returns 0.
 */
int notify_sinks_load(const struct wk_config *cfg, struct notify_sinks *out);

/*
 * The secrets file: <workdir>/.watchkeeper/secrets, a JSON object
 * {"VAR_NAME": "value", ...} with the values of the url_env/token_env
 * variables the config names, as the owner's environment had them when
 * `patrol deploy` or a patrol resume last sent them (patrol/secrets.c).
 */
#define NOTIFY_SECRETS_FILE	"secrets"
#define NOTIFY_SECRETS_MAX	(1024u * 1024u)

/*
 * notify_sinks_load for onbox on the box: a url_env/token_env variable's
 * value is taken from the secrets file when it has the name (the file is
 * what the owner sent last: it wins), else from the environment.  Nothing
 * is put into the environment (stages, tmux and command sinks never see the
 * file's values), and every value in the file becomes a secret to scrub.
 * A file that cannot be used (malformed, a symlink, not ours, readable by
 * group or others) is logged, naming the file, and every sink that takes a
 * value by variable name is held (->missing says why): its events stay in
 * the outbox.  Returns 0.
 */
int notify_sinks_load_box(const struct wk_config *cfg, struct notify_sinks *out);

/*
 * Read and check a secrets file: a regular file (not a symlink) owned by
 * this user, no group or other permission bits, at most NOTIFY_SECRETS_MAX
 * bytes, a JSON object whose keys are variable names and whose values are
 * strings.  0 and *out (caller deletes); 1 when there is no such file
 * (*out NULL); else a WK_ERR_* code and *why (caller frees), which says
 * what is wrong (and the line of a syntax error) and never quotes the text.
 */
int notify_secrets_read(const char *path, cJSON **out, char **why);

/*
 * The variable names onbox would read for cfg's sinks (as the loader does:
 * url_env unless the sink is a command or has its own "url", token_env
 * unless it has its own "token"), each once, in config order: what patrol
 * sends.  A url_env/token_env that is not a variable name is left out (and,
 * with warn, warned about by position, never its text).  Caller frees each
 * and *names.
 */
void notify_secret_names(const struct wk_config *cfg, int warn, char ***names, size_t *n);
void notify_sinks_free(struct notify_sinks *s);

/* 1 when sink s takes events of this type (its events filter, "test" always). */
int notify_wants(const struct notify_sink *s, const char *event_type);
/*
 * 1 when sink s of sinks all takes ev: its type filter, and for a card
 * sink the card's rules (card.h): "progress" only where the card is kept,
 * and, where it is not (patrol), only the events that ping a human.
 */
int notify_wants_ev(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev);

/*
 * The message a person reads at a glance, one line, e.g.
 *   [llama-ft-1] eval DONE · ~5155/5155 · results: acc=0.812 f1=0.790 · 3h12m
 *   [llama-ft-1] train FAILED (cuda_oom) attempt 2 · last: torch.OutOfMemoryError: CUDA out of memory …
 * Bounded (about 1,000 bytes).  Caller frees.
 */
char *notify_text(const cJSON *ev);

/*
 * The results file condensed for a message: a two-column CSV (name,value),
 * or a header row and one row of values, becomes "acc=0.812 f1=0.790";
 * anything else becomes its first line, cut.  Caller frees; NULL for "".
 */
char *notify_results_summary(const char *csv);

/*
 * Deliver ev to s now (blocking, bounded by the sinks' timeouts).  Returns 0
 * when the receiver acknowledged it, or a negative code with *why (scrubbed,
 * caller frees) saying what happened in words a person can act on, e.g.
 * "HTTP 404: the URL is wrong (the receiver says this address does not exist)".
 * *permanent is set when retrying cannot help until the config changes
 * (4xx other than 408/429, a missing secret); the event is kept either way.
 */
int notify_send(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev,
    char **why, int *permanent);

/* A copy of text with every secret of all replaced by "***".  Caller frees. */
char *notify_scrub(const struct notify_sinks *all, const char *text);

/* ---- exposed for tests and for callers that want to show a request ---- */

/*
 * One request to a receiver.  For HTTP sinks: url (holds secrets: never
 * print it), headers as "Name: value" lines, body.  For a command sink: url
 * NULL, no headers, body = the event JSON as one line plus "\n" (its stdin).
 * The body has been through notify_scrub().  notify_request_free() frees it.
 */
struct notify_request {
	const char *method;	/* static; NULL: POST */
	char	*url;
	char	**headers;
	size_t	 nheaders;
	char	*body;
	size_t	 body_len;
};

/*
 * Build what notify_send() would send for ev to s.  0, or WK_ERR_INVALID
 * when s cannot send (s->missing set, or no URL).
 */
int notify_request_build(const struct notify_sinks *all, const struct notify_sink *s,
    const cJSON *ev, struct notify_request *out);
void notify_request_free(struct notify_request *r);

/*
 * What the receiver answered, for callers that read it (the card's message
 * id): the HTTP status (0: none came) and its body, bounded (caller frees).
 */
struct notify_reply {
	long	 status;
	char	*answer;
};
/*
 * Send rq to s (notify_http's way: libcurl, else the curl command) and judge
 * it as notify_send() does; reply (may be NULL) gets the raw answer.
 */
int notify_send_request(const struct notify_sinks *all, const struct notify_sink *s,
    const struct notify_request *rq, struct notify_reply *reply, char **why, int *permanent);
void notify_reply_free(struct notify_reply *r);

/*
 * Judge one HTTP exchange: curl_code (a CURLcode, 0 = a response came) with
 * curl_error (CURLOPT_ERRORBUFFER text, may be NULL or ""), the HTTP status
 * and the receiver's answer (may be NULL).  Returns 0 when delivered, else
 * WK_ERR_TIMEOUT (no answer in time), WK_ERR_INVALID (permanent: the config
 * must change) or WK_ERR_SYSTEM with errno EAGAIN or ECONNREFUSED (retry
 * later), with *why (scrubbed, caller frees) and *permanent.
 */
int notify_judge(const struct notify_sinks *all, const struct notify_sink *s, int curl_code,
    const char *curl_error, long http_status, const char *answer, char **why, int *permanent);

/*
 * A copy of s of at most max bytes, cut at a UTF-8 character boundary; when
 * cut, it ends with "…" (counted in max).  Caller frees.
 */
char *notify_cut(const char *s, size_t max);

#endif
