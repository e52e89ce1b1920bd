/*
 * card.h: one live message per run, per sink that can edit what it sent.
 *
 * A chat where every stage start, alert and retry of every run is a message
 * of its own drowns the one that needs a human.  So a sink whose receiver
 * can edit a message keeps one per run, the card, edited in place as the
 * run moves (verdict, stage, progress bar, ETA, loss sparkline, last event,
 * when it was updated), and sends a message of its own, which pings, only
 * for what needs a human (card_pings): a failure that is not restarted, a
 * lost stage, a critical alert, DONE, STOPPED, and patrol's verdicts that
 * need one (a crash, a host key that changed ...).
 *
 * Receivers (the documented request shapes):
 *   telegram  sendMessage, then editMessageText {chat_id, message_id, text}
 *   discord   the webhook with ?wait=true (answers the message and its id),
 *             then PATCH <webhook>/messages/{id}
 *   slack     with a bot token and a channel: chat.postMessage, then
 *             chat.update {channel, ts, text} (an incoming webhook cannot edit)
 * Other sinks, and any with "card": false, keep one message per event.
 *
 * The card is kept where events happen: the box's outbox (the sinks loaded
 * by notify_sinks_load_box), in <outbox>/<sink id>/card.json: the message's
 * id and the folded state, written atomically after each edit, so the card
 * survives an onbox restart and a new run (another instance) gets a new
 * card.  The outbox removes an event only once the card shows it and its
 * ping (if any) is delivered: nothing is lost while a card is edited.  An
 * edit the receiver refuses for good (the message was deleted ...) falls
 * back to a new card; one that may work later is retried, as any delivery.
 */
#ifndef WK_CARD_H
#define WK_CARD_H

#include <time.h>

#include <cJSON.h>

#include "notify.h"

#define CARD_FILE		"card.json"
#define CARD_EVENT		"progress"	/* the box's progress, for cards only */
#define CARD_EVERY_DEFAULT_S	60
#define CARD_LOSS_MAX		24		/* values in the sparkline */
#define CARD_TEXT_MAX		1800		/* bytes; Discord takes 2000 */

/* 1 when s's receiver can edit what it sent (telegram, discord, slack with a channel). */
int card_capable(const struct notify_sink *s);

/* 1 when ev needs a human: it is sent as a message of its own, which pings. */
int card_pings(const cJSON *ev);

/*
 * Fold ev into the card's state st (an object).  An event of another run
 * instance than st's starts a new card (st is emptied first).
 */
void card_fold(cJSON *st, const cJSON *ev);

/* The card's text at now: a few lines, at most CARD_TEXT_MAX bytes.  Caller frees. */
char *card_text(const cJSON *st, time_t now);

/*
 * Build the request that shows text: an edit of st's message (edit = 1;
 * st has a message_id) or a new one.  0, or WK_ERR_INVALID when s cannot
 * send (missing secret, not card_capable).  notify_request_free() frees.
 */
int card_request(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *st,
    const char *text, int edit, struct notify_request *out);

/* The new message's id (and slack's channel id) from the answer to a post, into st: 0 or -1. */
int card_take_id(const struct notify_sink *s, const char *answer, cJSON *st);

/*
 * Show st as the card at now: edit its message, or post a new one when it
 * has none or the edit was refused for good; st gets the new id, "posted"
 * and "updated".  As notify_send() (0, or a code with *why and *permanent).
 */
int card_show(const struct notify_sinks *all, const struct notify_sink *s, cJSON *st, time_t now,
    char **why, int *permanent);

/*
 * patrol's side: ev (a verdict that pings) carries "cards", the box's cards
 * as the last probe saw them in its heartbeat ({sink id: state}).  Edit s's
 * card with ev folded in, so the card says what only patrol could see (a
 * crash, a box that is down) until the box edits it again.  Never posts a
 * card; a failure is logged (the ping is what must arrive).
 */
void card_follow(const struct notify_sinks *all, const struct notify_sink *s, const cJSON *ev);

#endif
