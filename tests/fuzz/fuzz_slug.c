/*
 * libFuzzer harness of the slug rules (tm_slugify, tm_slug_unique,
 * tm_id_validate): any bytes give an id that validates, made only of
 * a-z 0-9 and single inner dashes, at most TM_SLUG_MAX bytes, and that is
 * its own slug; a suffixed id stays within the limit.  `make fuzz`.
 */
#include "threadmind/slug.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_id(const char *id)
{
	size_t len = strlen(id), i;

	if (!len || len > TM_SLUG_MAX || tm_id_validate(id, NULL) < 0)
		abort();
	if (id[0] == '-' || id[len - 1] == '-' || strstr(id, "--"))
		abort();
	for (i = 0; i < len; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') ||
		      (id[i] >= '0' && id[i] <= '9') || id[i] == '-'))
			abort();
}

/* Everything up to `*limit` taken: forces a long suffix. */
static int taken_below(const char *id, void *payload)
{
	int *left = payload;

	(void)id;
	return (*left)-- > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *title = malloc(size + 1), *slug, *again, *unique;
	int left;

	memcpy(title, data, size);
	title[size] = '\0';
	slug = tm_slugify(title, size % 2 ? TM_SLUG_THREAD : TM_SLUG_PROJECT);
	check_id(slug);
	again = tm_slugify(slug, TM_SLUG_THREAD);
	if (strcmp(again, slug))
		abort();
	left = size ? data[0] % 16 : 0;
	if (tm_slug_unique(&unique, slug, taken_below, &left) < 0)
		abort();
	check_id(unique);
	if (tm_id_validate(title, NULL) == 0 && strlen(title) > TM_ID_MAX)
		abort();
	free(unique);
	free(again);
	free(slug);
	free(title);
	return 0;
}
