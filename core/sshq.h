/*
 * sshq.h: quoting for POSIX sh.  Every piece of text that reaches a shell
 * (a remote command, a `sh -c` line, a tmux command) goes through here.
 *
 * The word is wrapped in single quotes and each ' becomes '\'' , so a regex
 * with |, a path with spaces or quotes, $(...), backticks, ; and newlines all
 * reach the shell as one inert word.
 */
#ifndef WK_SSHQ_H
#define WK_SSHQ_H

#include "buf.h"

/* Append s as one quoted word. */
void sshq_append(struct buf *b, const char *s);
/* A new string holding s as one quoted word; caller frees. */
char *sshq_quote(const char *s);
/*
 * Append argv (NULL-terminated) as space-separated quoted words.
 */
void sshq_append_argv(struct buf *b, const char *const *argv);

#endif
