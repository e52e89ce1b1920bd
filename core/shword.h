/*
 * shword.h: words of the sh scripts and commands we build or check.  The
 * {checkpoint} token in an sh -c command: is it there, and does it stand
 * where sh reads an unquoted word (so that replacing it by one
 * single-quoted word keeps the command's meaning); and one line assigning a
 * quoted value to a shell variable.  A leaf (buf and sshq only): needs
 * nothing of ckpt or config, so config's validation and ckpt's substitution
 * share it without including each other.
 */
#ifndef WK_SHWORD_H
#define WK_SHWORD_H

#include "buf.h"

#define SHWORD_TOKEN	"{checkpoint}"

/*
 * 1 when command holds the exact token "{checkpoint}" (nothing else is
 * replaced: no escapes, "{{checkpoint}}" is the token inside braces).
 */
int shword_uses_token(const char *command);

/*
 * The token must stand where sh reads an unquoted word (bare, or part of
 * one: --resume={checkpoint}), because it becomes one single-quoted word.
 * Rejected with WK_ERR_INVALID and *why naming the byte offset: inside '...'
 * or "..." (also "$(... {checkpoint})", conservatively), right after a
 * backslash, or after a here-document operator "<<".  In a # comment it is
 * allowed (and replaced).  0 when the command has no token.  For config
 * validation; ckpt_subst calls it too (as shword_check_token).
 */
int shword_check_token(const char *command, char **why);

/* Append the line NAME=VALUE to b, the value quoted by sshq (one word whatever it holds). */
void shword_assign(struct buf *b, const char *name, const char *value);

#endif
