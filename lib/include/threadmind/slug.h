/*
 * Ids of threads and projects: slugs made from titles, collision suffixes,
 * the validation every id goes through before it becomes a path, and the
 * resolution of a user's (possibly abbreviated) id.
 */
#ifndef TM_SLUG_H
#define TM_SLUG_H

#include "buf.h"

#include <stdbool.h>

#define TM_SLUG_MAX 64  /* longest generated id */
#define TM_ID_MAX   252 /* longest accepted id (255 bytes with ".md") */

typedef enum { TM_SLUG_THREAD, TM_SLUG_PROJECT } tm_slug_kind;

/*
 * The slug of `title` (UTF-8; NULL is taken as ""): accents stripped and
 * lower-cased (Unicode compatibility decomposition without combining marks,
 * plus oe/ae/ss/o/l/d/th for the letters that have no decomposition),
 * white space and underscores turned into dashes, everything but a-z, 0-9
 * and '-' dropped, dashes collapsed and trimmed, cut to TM_SLUG_MAX bytes
 * and a trailing dash trimmed again.  Bytes that are not valid UTF-8 are
 * dropped.  When nothing is left the slug is "thread" or "project",
 * according to `kind`.
 *
 * Returns a malloc'd string, never NULL; the caller frees it.
 */
char *tm_slugify(const char *title, tm_slug_kind kind);

/*
 * Like tm_slugify, with `fallback` instead of "thread"/"project" when the
 * slug is empty (NULL `fallback`: the empty string is returned then).
 * Returns a malloc'd string, never NULL.
 */
char *tm_slugify_or(const char *title, const char *fallback);

/*
 * Tells whether `id` is already taken: 1 taken, 0 free, or a negative TM_E*
 * code (with tm_error_set) when that cannot be known, e.g. a folder that
 * cannot be listed.  `payload` is the pointer given to tm_slug_unique.
 */
typedef int (*tm_id_taken_fn)(const char *id, void *payload);

/* How many candidates tm_slug_unique tries before giving up. */
#define TM_SLUG_MAX_TRIES 10000

/*
 * The first id that `taken` reports free among `base`, `base`-2, `base`-3,
 * ... `base`-TM_SLUG_MAX_TRIES.  `base` is a slug (as tm_slugify returns);
 * before a suffix is added, it is shortened (and a trailing dash trimmed
 * again) so that the result never exceeds TM_SLUG_MAX bytes.  A NULL
 * `taken` means nothing is taken.
 *
 * On success *out is a malloc'd id, which the caller frees.  Errors: those
 * of `taken`, and TM_EEXISTS when every candidate is taken ("every id from
 * 'x' to 'x-10000' is taken; give a different title").
 */
int tm_slug_unique(char **out, const char *base, tm_id_taken_fn taken,
		   void *payload);

/*
 * Check that `id` may name a file: ^[a-z0-9-]+$ and at most TM_ID_MAX
 * bytes.  `what` ("thread" or "project"; NULL means "thread") names the kind
 * of id in the message.  Call it before any path is built from an id.
 *
 * Returns 0, or TM_EINVALID (NULL, empty, bad character, too long) with a
 * message such as "invalid thread id '../x': ids are lower-case letters,
 * digits and dashes".
 */
int tm_id_validate(const char *id, const char *what);

/*
 * Resolve the user argument `arg` to one of `ids` (NULL is an empty
 * list): an exact match wins, otherwise `arg` must be the prefix of exactly
 * one id (the same id listed twice counts once).  An empty `arg` matches
 * nothing.  `what` ("thread" or "project"; NULL means "thread") names the
 * kind of id in messages.
 *
 * On success *out is a malloc'd copy of the id, which the caller frees.
 * Errors: TM_ENOTFOUND ("no thread matches 'x'"), TM_EAMBIGUOUS ("'a' is
 * ambiguous: auth, auth-ui (give more characters)", listing every
 * candidate in strcmp order).
 */
int tm_id_resolve(char **out, const char *arg, const tm_strv *ids,
		  const char *what);

#endif
