/*
 * notify.c: notification sinks (see notify.h): the front.
 *
 * Everything that differs between receivers is data: one table of sink
 * types (notify-types.c), one table of event kinds (notify-text.c) and
 * three judging tables (HTTP statuses and libcurl errors in notify-http.c,
 * a command's exit status in notify-cmd.c).  The functions around them
 * only walk the tables.  This file loads the sinks from the config (and,
 * on the box, the secrets file), builds the request a sink type wants and
 * sends it by HTTP or to the command.
 *
 * Secrets live only in struct notify_sinks; every text that leaves notify
 * goes through notify_scrub() (notify-scrub.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "card.h"
#include "err.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "notify.h"
#include "notify-int.h"
#include "xmalloc.h"

#ifndef WK_VERSION
#define WK_VERSION "dev"
#endif

#define TELEGRAM_API	"https://api.telegram.org"
#define SLACK_API	"https://slack.com/api"

/* ---- loading ---- */

/*
 * Where url_env/token_env values come from: the secrets file patrol sent
 * (on the box only; NULL elsewhere), then the environment.  problem: the
 * file exists but cannot be used (every sink that takes a value by name is
 * held: its events stay in the outbox).
 */
struct notify_src {
	const cJSON	*file;
	const char	*path;
	const char	*problem;
};

/*
 * A secret from the config (key), the secrets file or the environment
 * (envkey).  A problem lands in *missing (the first one wins) and names the
 * variable, never a value: not even a value pasted into envkey by mistake.
 */
static void
notify_resolve(const struct notify_src *src, const cJSON *it, const char *key,
    const char *envkey, char **val, char **missing)
{
	const char *v = json_str(it, key, NULL), *name = json_str(it, envkey, NULL), *e;
	char *why = NULL;

	if (v != NULL && *v != '\0') {
		*val = xstrdup(v);
		return;
	}
	if (name == NULL)
		return;
	e = NULL;
	if (!notify_env_name_ok(name))
		why = xstrfmt("\"%s\" is not an environment variable name (a value pasted there? "
		    "put it in the environment and name the variable)", envkey);
	else if (src->problem != NULL)
		why = xstrfmt("%s cannot be used (%s); %s is not read until it is fixed",
		    src->path, src->problem, name);
	else if ((e = json_str(src->file, name, NULL)) != NULL && *e != '\0')
		;	/* the file is what the owner sent last: it wins */
	else if ((e = getenv(name)) == NULL)
		why = src->path != NULL ? xstrfmt("environment variable %s is not set (nor in %s: "
		    "`patrol deploy` sends it from the owner's environment)", name, src->path) :
		    xstrfmt("environment variable %s is not set", name);
	else if (*e == '\0')
		why = xstrfmt("environment variable %s is empty", name);
	if (why == NULL && e != NULL)
		*val = xstrdup(e);
	if (why != NULL && *missing == NULL)
		*missing = why;	/* transferred */
	else
		free(why);
}

static void
notify_sink_init(struct notify_sinks *all, const struct notify_src *src, struct notify_sink *s,
    const cJSON *it, int index)
{
	const cJSON *chat = cJSON_GetObjectItemCaseSensitive(it, "chat_id");
	const cJSON *evs = cJSON_GetObjectItemCaseSensitive(it, "events"), *e;
	const char *type = json_str(it, "type", "generic");
	char *full;

	s->index = index;
	s->type = xstrdup(type);
	snprintf(s->id, sizeof(s->id), "%d-%s", index, type);
	if (strcmp(type, "command") == 0)
		s->command = xstrdup_or_null(json_str(it, "command", NULL));
	else
		notify_resolve(src, it, "url", "url_env", &s->url, &s->missing);
	notify_resolve(src, it, "token", "token_env", &s->token, &s->missing);
	s->channel = xstrdup_or_null(json_str(it, "channel", NULL));
	s->card_every_s = json_long(it, "card_every_s", CARD_EVERY_DEFAULT_S);
	if (cJSON_IsString(chat))
		s->chat_id = xstrdup(chat->valuestring);
	else if (cJSON_IsNumber(chat))
		s->chat_id = xstrfmt("%.0f", chat->valuedouble);
	if (cJSON_IsArray(evs)) {
		s->events = xcalloc((size_t)cJSON_GetArraySize(evs) + 1, sizeof(*s->events));
		cJSON_ArrayForEach(e, evs)
			if (cJSON_IsString(e))
				s->events[s->nevents++] = xstrdup(e->valuestring);
	}
	if (strcmp(type, "telegram") == 0) {
		if (s->url == NULL && s->missing == NULL)
			s->url = xstrdup(TELEGRAM_API);
		if (s->token == NULL && s->missing == NULL)
			s->missing = xstrdup("no bot token (set \"token_env\")");
		if (s->url != NULL && s->token != NULL) {
			full = notify_url_telegram(s);
			notify_secret_add(all, full);
			free(full);
		}
	} else if (strcmp(type, "slack") == 0 && s->channel != NULL) {
		/* The Web API through a bot token: url, when given, is the API's base. */
		if (s->url == NULL && s->missing == NULL)
			s->url = xstrdup(SLACK_API);
		if (s->token == NULL && s->missing == NULL)
			s->missing = xstrdup("no bot token for the channel (set \"token_env\")");
	} else if (s->url == NULL && s->missing == NULL && notify_type_find(type) != NULL &&
	    notify_type_find(type)->ctype != NULL)
		s->missing = xstrdup("no URL (set \"url_env\")");
	notify_secret_add_url(all, s->url);
	notify_secret_add(all, s->token);
	s->card = card_capable(s) && json_bool(it, "card", 1);
}

static int
notify_sinks_build(const struct wk_config *cfg, const struct notify_src *src,
    struct notify_sinks *out)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cfg->root, "notify"), *it;
	int n;

	out->connect_timeout_s = config_get_int(cfg, "outbox.connect_timeout_s");
	out->timeout_s = config_get_int(cfg, "outbox.timeout_s");
	if (!cJSON_IsArray(arr) || (n = cJSON_GetArraySize(arr)) == 0)
		return 0;
	out->v = xcalloc((size_t)n, sizeof(*out->v));
	n = 0;
	cJSON_ArrayForEach(it, arr) {
		/* github: the run record, patrol's alone (patrol/github.c); its index stays. */
		if (strcmp(json_str(it, "type", "generic"), "github") != 0) {
			notify_sink_init(out, src, &out->v[out->n], it, n);
			out->n++;
		}
		n++;
	}
	return 0;
}

int
notify_sinks_load(const struct wk_config *cfg, struct notify_sinks *out)
{
	struct notify_src src = { NULL, NULL, NULL };

	memset(out, 0, sizeof(*out));
	return notify_sinks_build(cfg, &src, out);
}

/* What notify_resolve would look up for each sink (see notify.h). */
static const struct notify_env_key {
	const char	*envkey;
	const char	*literal;
	int		 not_command;
} notify_env_keys[] = {
	{ "url_env", "url", 1 },
	{ "token_env", "token", 0 },
};

void
notify_secret_names(const struct wk_config *cfg, int warn, char ***names, size_t *n)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cfg->root, "notify"), *it;
	const struct notify_env_key *k;
	const char *name, *lit;
	size_t i, j;
	int idx = 0;

	*names = NULL;
	*n = 0;
	cJSON_ArrayForEach(it, arr) {
		/* A github token stays on the owner's machine: patrol delivers that sink. */
		for (i = strcmp(json_str(it, "type", "generic"), "github") == 0 ?
		    sizeof(notify_env_keys) / sizeof(notify_env_keys[0]) : 0;
		    i < sizeof(notify_env_keys) / sizeof(notify_env_keys[0]); i++) {
			k = &notify_env_keys[i];
			if (k->not_command && strcmp(json_str(it, "type", "generic"), "command") == 0)
				continue;
			lit = json_str(it, k->literal, NULL);
			if ((name = json_str(it, k->envkey, NULL)) == NULL ||
			    (lit != NULL && *lit != '\0'))
				continue;
			if (!notify_env_name_ok(name)) {
				/* It may be a value pasted there: never print it. */
				if (warn)
					log_warn("notify[%d].%s is not an environment variable "
					    "name; nothing is sent for it", idx, k->envkey);
				continue;
			}
			for (j = 0; j < *n && strcmp((*names)[j], name) != 0; j++)
				;
			if (j < *n)
				continue;
			*names = xreallocarray(*names, *n + 1, sizeof(**names));
			(*names)[(*n)++] = xstrdup(name);
		}
		idx++;
	}
}

int
notify_sinks_load_box(const struct wk_config *cfg, struct notify_sinks *out)
{
	struct notify_src src = { NULL, NULL, NULL };
	const cJSON *it;
	cJSON *file = NULL;
	char *path = layout_path(cfg->workdir, NOTIFY_SECRETS_FILE), *why = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	out->cards = 1;
	src.path = path;
	if ((r = notify_secrets_read(path, &file, &why)) < 0) {
		log_error("%s: %s; refusing it: every sink that names a url_env/token_env is "
		    "held and its events stay in the outbox (send it again with `patrol deploy`)", path, why);
		src.problem = why;
	}
	src.file = file;
	/* Every value it holds is a secret, whether a sink uses it or not. */
	cJSON_ArrayForEach(it, file)
		notify_secret_add_url(out, it->valuestring);
	notify_sinks_build(cfg, &src, out);
	cJSON_Delete(file);
	free(why);
	free(path);
	return 0;
}

void
notify_sinks_free(struct notify_sinks *s)
{
	size_t i, j;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		struct notify_sink *k = &s->v[i];

		free(k->type);
		free(k->url);
		free(k->token);
		free(k->chat_id);
		free(k->command);
		free(k->channel);
		for (j = 0; j < k->nevents; j++)
			free(k->events[j]);
		free(k->events);
		free(k->missing);
	}
	free(s->v);
	for (i = 0; i < s->nsecrets; i++)
		free(s->secrets[i]);
	free(s->secrets);
	memset(s, 0, sizeof(*s));
}

int
notify_wants(const struct notify_sink *s, const char *event_type)
{
	size_t i;

	if (event_type != NULL && strcmp(event_type, "test") == 0)
		return 1;
	if (s->events == NULL)
		return 1;
	for (i = 0; event_type != NULL && i < s->nevents; i++)
		if (strcmp(s->events[i], event_type) == 0)
			return 1;
	return 0;
}

int
notify_wants_ev(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev)
{
	const char *type = json_str(ev, "event", "");

	if (strcmp(type, CARD_EVENT) == 0)
		return s->card && all->cards;
	if (!notify_wants(s, type))
		return 0;
	/* Where the card is kept elsewhere (the box's), only what needs a human. */
	return !s->card || all->cards || card_pings(ev);
}

/* ---- requests ---- */

void
notify_request_free(struct notify_request *r)
{
	size_t i;

	if (r == NULL)
		return;
	free(r->url);
	for (i = 0; i < r->nheaders; i++)
		free(r->headers[i]);
	free(r->headers);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

int
notify_request_build(const struct notify_sinks *all, const struct notify_sink *s,
    const cJSON *ev, struct notify_request *out)
{
	const struct notify_type *t = notify_type_find(s->type);
	char *text = NULL, *clean = NULL, *cut = NULL, *raw = NULL, *id = NULL;
	int r = WK_ERR_INVALID;

	memset(out, 0, sizeof(*out));
	if (s->missing != NULL || t == NULL)
		goto out;
	if (t->ctype == NULL) {
		if (s->command == NULL)
			goto out;
		text = notify_json_line(ev);
		raw = xstrfmt("%s\n", text);
	} else {
		if (s->url == NULL)
			goto out;
		text = notify_text(ev);
		clean = notify_scrub(all, text);
		cut = notify_cut(clean, t->text_max != 0 ? t->text_max : NOTIFY_TEXT_MAX);
		raw = t->body(s, ev, cut);
		out->url = t->url != NULL ? t->url(s) : xstrdup(s->url);
		notify_req_header(out, xstrfmt("Content-Type: %s", t->ctype));
		notify_req_header(out, xstrfmt("User-Agent: watchkeeper/%s", WK_VERSION));
		id = notify_header_value(json_str(ev, "id", ""));
		notify_req_header(out, xstrfmt("X-Watchkeeper-Event-Id: %s", id));
		if (t->headers != NULL)
			t->headers(s, ev, out);
	}
	out->body = notify_scrub(all, raw);
	out->body_len = strlen(out->body);
	r = 0;
 out:
	free(text);
	free(clean);
	free(cut);
	free(raw);
	free(id);
	return r;
}

/* ---- sending ---- */

void
notify_reply_free(struct notify_reply *r)
{
	if (r == NULL)
		return;
	free(r->answer);
	memset(r, 0, sizeof(*r));
}

int
notify_send_request(const struct notify_sinks *all, const struct notify_sink *s,
    const struct notify_request *rq, struct notify_reply *reply, char **why, int *permanent)
{
	*why = NULL;
	*permanent = 0;
	if (reply != NULL)
		memset(reply, 0, sizeof(*reply));
	return notify_http(all, s, rq, reply, why, permanent);
}

int
notify_send(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev,
    char **why, int *permanent)
{
	const struct notify_type *t = notify_type_find(s->type);
	struct notify_request rq;
	int r;

	*why = NULL;
	*permanent = 0;
	if (s->missing != NULL || t == NULL) {
		*why = s->missing != NULL ? notify_scrub(all, s->missing) :
		    xstrfmt("unknown sink type \"%s\"", s->type);
		*permanent = 1;
		return WK_ERR_INVALID;
	}
	if (notify_request_build(all, s, ev, &rq) != 0) {
		*why = xstrdup(t->ctype == NULL ? "no command to run" : "no URL to send to");
		*permanent = 1;
		return WK_ERR_INVALID;
	}
	if (t->ctype == NULL)
		r = notify_command(all, s, ev, &rq, why, permanent);
	else
		r = notify_http(all, s, &rq, NULL, why, permanent);
	notify_request_free(&rq);
	return r;
}
