/*
 * The author id (DESIGN.md: a thread's `author`): the slug of the user's
 * name and four hex digits of their e-mail's git blob hash.  The rule is
 * the store's; git only says who the user is (tm_git_user).
 */
#include "store.h"

#include "error.h"
#include "git.h"
#include "slug.h"

#include <stdlib.h>
#include <string.h>

int tm_author_id(char **out, const char *name, const char *email)
{
	char hex[41];
	tm_buf id = TM_BUF_INIT;
	char *slug;
	int error;

	if (!email)
		email = "";
	if ((error = tm_git_hash_blob(hex, email, strlen(email))) < 0)
		return error;
	slug = tm_slugify_or(name, "user");
	tm_buf_printf(&id, "%s-%.4s", slug, hex);
	free(slug);
	*out = tm_buf_detach(&id);
	return 0;
}

int tm_store_author(char **out, tm_store *s, tm_config *cfg)
{
	const char *author = cfg ? tm_config_get_string(cfg, "author") : NULL;
	char *name = NULL, *email = NULL;
	int error;

	if (author && *author) {
		*out = tm_xstrdup(author);
		return 0;
	}
	if ((error = tm_git_user(&name, &email, tm_store_git(s))) == 0)
		error = tm_author_id(out, name, email);
	free(name);
	free(email);
	return error;
}
