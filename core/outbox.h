/*
 * outbox.h: notifications that are never lost.
 *
 * Every event a sink wants is first written, atomically, as one file in
 * <dir>/<sink id>/<seq>.json; only a receiver's acknowledgement removes it.
 * Each sink is its own ordered queue: its oldest file is always tried first,
 * and a failure stops that sink (not the others) until its retry time, which
 * backs off exponentially with jitter up to a cap.  Any process can deliver
 * (a running onbox's delivery child, the next onbox, `onbox notify --flush`,
 * patrol on the owner's machine); <dir>/.lock makes sure only one does at a
 * time, so nothing is sent twice by two deliverers.  A receiver may still see
 * an event twice (it acknowledged, we died before removing the file): every
 * event carries a stable id for it to drop the duplicate.
 *
 * The queue is bounded per sink by max_pending: beyond it the oldest events
 * that only report progress (digest, stage_started, test) are dropped first,
 * and failure, done and verdict events are never dropped.
 */
#ifndef WK_OUTBOX_H
#define WK_OUTBOX_H

#include <stdint.h>

#include <cJSON.h>

#include "notify.h"

struct outbox_opts {
	long	retry_base_ms;
	long	retry_max_s;
	long	max_pending;
};

void outbox_opts_from_config(const struct wk_config *cfg, struct outbox_opts *o);

/*
 * Queue ev for every sink that wants it.  Returns the number of files
 * written, or WK_ERR_SYSTEM (errno set) when one could not be written.
 */
int outbox_enqueue(const char *dir, const struct notify_sinks *sinks, const cJSON *ev,
    const struct outbox_opts *o);

struct outbox_result {
	int	delivered;
	int	failed;		/* attempts that failed this flush */
	int	pending;	/* left in the outbox afterwards, all sinks */
};

/*
 * Deliver what is due, each sink in order; with force, ignore retry times.
 * The caller holds the outbox lock (outbox_lock).  Returns 0 and res.
 * verbose prints one line per delivery attempt to stdout.
 */
int outbox_flush(const char *dir, const struct notify_sinks *sinks, const struct outbox_opts *o,
    int force, int verbose, struct outbox_result *res);

/*
 * Take <dir>/.lock, waiting up to wait_ms for another deliverer (whose work
 * is bounded by its timeouts): a descriptor, WK_ERR_BUSY or WK_ERR_SYSTEM.
 */
int outbox_lock(const char *dir, int wait_ms);

/*
 * Space kept for the queue on a disk that fills up: <dir>/.reserve, a file of
 * OUTBOX_RESERVE bytes really allocated (zeros written), made when there is
 * room.  outbox_reserve_make: 1 made or already there, 0 no room for it (or
 * dir cannot be made).  outbox_reserve_release: unlinks it, so that events
 * that no disk space could take can still be queued; 1 when there was one.
 * The queue's files need no reserve otherwise, and listing skips it.
 */
#define OUTBOX_RESERVE	(128 * 1024)
int outbox_reserve_make(const char *dir);
int outbox_reserve_release(const char *dir);

/* Milliseconds (wall clock) when the earliest sink head is due; 0 when nothing is pending. */
int64_t outbox_next_due_ms(const char *dir, const struct notify_sinks *sinks);

/*
 * Per sink: {sink, type, pending, dropped, last_ok, last_error, failing_since,
 * permanent, next_try, missing, card_message, card_updated, card (the card's
 * state, card.h)}; an array, caller frees.  Never holds secrets.
 */
cJSON *outbox_status(const char *dir, const struct notify_sinks *sinks);

/* Wall clock in milliseconds. */
int64_t outbox_now_ms(void);

#endif
