/*
 * libFuzzer harness of the 0.4 tree-index parser (tm_migrate_parse_index):
 * it must never crash, and every link it returns has an id that may name a
 * file (a hostile index cannot smuggle `../` into a path) or is 0.4's empty
 * id (its `.md` thread, renamed by the upgrade), and a success holds at
 * least one link.  `make fuzz`.
 */
#include "threadmind/migrate.h"
#include "threadmind/slug.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tm_migrate_index idx = {0};
	size_t i;

	if (tm_migrate_parse_index(&idx, (const char *)data, size,
				   "trees/p.json") == 0) {
		if (!idx.n)
			abort(); /* "a shape with no link at all" is an error */
		for (i = 0; i < idx.n; i++)
			if (*idx.links[i].id &&
			    tm_id_validate(idx.links[i].id, NULL) < 0)
				abort();
	}
	tm_migrate_index_clear(&idx);
	return 0;
}
