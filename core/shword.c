/*
 * shword.c: shell words (see shword.h): where the {checkpoint} token may
 * stand in an sh -c command, and NAME='value' lines for built scripts.
 *
 * The token becomes one sshq-quoted word, so it must sit where sh reads an
 * unquoted word: a small scan over the command's quoting states (none,
 * '...', "...", # comment) finds a token that would not.  Needs nothing of
 * ckpt or config: config validates chain[].run with it, ckpt_subst calls it
 * before replacing.
 */
#include <stddef.h>
#include <string.h>

#include "err.h"
#include "shword.h"
#include "sshq.h"
#include "xmalloc.h"

#define TOKLEN	(sizeof(SHWORD_TOKEN) - 1)

int
shword_uses_token(const char *command)
{
	return command != NULL && strstr(command, SHWORD_TOKEN) != NULL;
}

int
shword_check_token(const char *command, char **why)
{
	enum { Q_NONE, Q_SINGLE, Q_DOUBLE, Q_COMMENT } st = Q_NONE;
	const char *where = NULL;
	size_t i;
	int heredoc = 0, tok;

	*why = NULL;
	if (command == NULL)
		return 0;
	for (i = 0; command[i] != '\0' && where == NULL; i++) {
		tok = strncmp(command + i, SHWORD_TOKEN, TOKLEN) == 0;
		switch (st) {
		case Q_NONE:
			if (tok) {
				if (heredoc)
					where = "after a here-document operator <<";
				else
					i += TOKLEN - 1;
				break;
			}
			if (command[i] == '\\') {
				if (strncmp(command + i + 1, SHWORD_TOKEN, TOKLEN) == 0) {
					i++;
					where = "right after a backslash";
				} else if (command[i + 1] != '\0')
					i++;
			} else if (command[i] == '\'')
				st = Q_SINGLE;
			else if (command[i] == '"')
				st = Q_DOUBLE;
			else if (command[i] == '#' &&
			    (i == 0 || strchr(" \t\n;&|()<>", command[i - 1]) != NULL))
				st = Q_COMMENT;
			else if (command[i] == '<' && command[i + 1] == '<') {
				heredoc = 1;
				i++;
			}
			break;
		case Q_SINGLE:
			if (tok)
				where = "inside single quotes";
			else if (command[i] == '\'')
				st = Q_NONE;
			break;
		case Q_DOUBLE:
			if (tok)
				where = "inside double quotes";
			else if (command[i] == '\\' && command[i + 1] != '\0')
				i++;
			else if (command[i] == '"')
				st = Q_NONE;
			break;
		case Q_COMMENT:
			if (command[i] == '\n')
				st = Q_NONE;
			break;
		}
	}
	if (where == NULL)
		return 0;
	*why = xstrfmt(SHWORD_TOKEN " at byte %zu of the command is %s; write it bare: "
	    "it is replaced by one quoted word", i - 1, where);
	return WK_ERR_INVALID;
}

void
shword_assign(struct buf *b, const char *name, const char *value)
{
	buf_puts(b, name);
	buf_putc(b, '=');
	sshq_append(b, value);
	buf_putc(b, '\n');
}
