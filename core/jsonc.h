/*
 * jsonc.h: JSON with comments, parsed by cJSON, with a line for every key.
 *
 * jsonc_strip() blanks // and / * * / comments in place (outside strings),
 * keeping every newline, so offsets in the stripped text are on the same
 * lines as in the file.  cJSON then parses the stripped text; it keeps no
 * positions, so jsonc_index_build() walks the same text structurally and
 * records the line of every object key and array element by its path
 * ("box.port", "chain[1].done_when", "chain[1]").  The index only locates;
 * every value comes from cJSON.  It also reports duplicate keys.
 *
 * Paths: an object member is "<parent>.<key>" ("<key>" at the top), an array
 * element "<parent>[<i>]".  jsonc_path_key()/jsonc_path_elem() build them,
 * so the index and its users agree.
 */
#ifndef WK_JSONC_H
#define WK_JSONC_H

#include <stddef.h>

#include <cJSON.h>

#include "diag.h"

#define JSONC_MAX_SIZE	(4 * 1024 * 1024)	/* a config larger than this is a mistake */

struct jsonc_key {
	char	*path;		/* owned */
	int	 line;		/* 1-based */
};

struct jsonc_index {
	struct jsonc_key *keys;	/* sorted by path after build; owned */
	size_t	 n;
};

#define JSONC_INDEX_INIT { NULL, 0 }

/*
 * Replace the comments in text[0..len) with spaces, in place, keeping '\n'
 * and '\r'; a UTF-8 byte order mark becomes spaces too.  Returns 0, or
 * WK_ERR_PARSE for an unterminated block comment with *errline set to the
 * line where it starts.
 */
int jsonc_strip(char *text, size_t len, int *errline);

/* The 1-based line of byte offset off in text (counting '\n'). */
int jsonc_line_at(const char *text, size_t off);

/*
 * Index the keys of the (stripped, already cJSON-valid) text.  Duplicate keys
 * in one object are reported to d as "file:line: duplicate key \"path\"".
 * Returns 0, or WK_ERR_PARSE when a duplicate was found or the text is not
 * JSON after all (the index is still usable).  Free with jsonc_index_free().
 */
int jsonc_index_build(const char *text, size_t len, struct jsonc_index *idx,
    const char *file, struct diag *d);
/* The line of path, or 0 when the index has no such path. */
int jsonc_index_line(const struct jsonc_index *idx, const char *path);
void jsonc_index_free(struct jsonc_index *idx);

/*
 * Read file, strip comments, parse with cJSON and index it.  On success
 * returns 0, *root (caller frees with cJSON_Delete) and idx filled.  On
 * failure *root is NULL, idx is empty, the problem is in d ("file:line:
 * syntax error near ...") and the return is WK_ERR_SYSTEM (cannot read;
 * errno set), WK_ERR_TOOLONG or WK_ERR_PARSE.
 */
int jsonc_load(const char *file, cJSON **root, struct jsonc_index *idx, struct diag *d);

/* Same, for text already in memory (not modified; name is used in messages). */
int jsonc_parse(const char *name, const char *text, size_t len, cJSON **root,
    struct jsonc_index *idx, struct diag *d);

/* New strings; caller frees.  parent may be "" (or NULL) for the top level. */
char *jsonc_path_key(const char *parent, const char *key);
char *jsonc_path_elem(const char *parent, size_t i);

#endif
