/* The read view as the commands load it (see view.h). */
#include "view.h"

#include "progress.h"

void view_load(tm_view *v, bool all)
{
	tm_stale_options opts = {0};
	struct cli_progress progress;
	size_t i;

	if (tm_view_load(v, cli.store, cli.project) < 0) {
		cli_warn_load_errors(&v->errors);
		tm_view_free(v);
		die_lib();
	}
	cli_warn_load_errors(&v->errors);
	if (v->moved.from)
		cli_follow_moved(&v->moved, v->active);
	cli_progress_init(&progress);
	opts.progress = cli_progress_report;
	opts.progress_data = &progress;
	tm_view_mark(v, cli.store, cli.project, all, &opts);
	cli_progress_end(&progress);
	if (v->stale_error)
		warning("cannot tell which threads are stale: %s",
			v->stale_error);
	for (i = 0; i < v->stale_warnings.n; i++)
		warning("%s", v->stale_warnings.items[i]);
}
