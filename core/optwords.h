/*
 * optwords.h: a stage's options for a manager's CLI (chain[].sbatch,
 * chain[].job) as quoted words on a command line.
 *
 * The value is a string of option words ("--gres=gpu:1 --mem=32G", split on
 * blanks; each word starts with -) or an object of option name: value, where
 * the name is lower case, digits and -, a string or whole number gives
 * "--name=value", true gives "--name" and false leaves it out.  reserved()
 * says which option words collide with the ones watchkeeper sets itself (the
 * long name it collides with, or NULL), and may refuse a word outright by
 * setting *why (an option the profile does not list).  kind names the CLI in
 * messages, with its article ("an sbatch", "a job").
 *
 * Ownership: nothing kept; *why, when set, is the caller's to free.
 */
#ifndef WK_OPTWORDS_H
#define WK_OPTWORDS_H

#include <cJSON.h>

#include "buf.h"

/*
 * NULL when option word w (with its dashes, "--name" or "--name=value") is
 * free to use, else the long name it collides with; or NULL with *why set to
 * refuse it for another reason.
 */
typedef const char *(*optwords_reserved_fn)(const char *w, void *arg, char **why);

/*
 * Append o's options to b as words, each after a blank and quoted with
 * sshq_append() (b may be NULL: check only).  0, or WK_ERR_INVALID with *why.
 */
int optwords_append(const cJSON *o, const char *kind, optwords_reserved_fn reserved, void *arg,
    struct buf *b, char **why);

#endif
