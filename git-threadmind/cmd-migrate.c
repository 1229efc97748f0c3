/* git threadmind migrate: the upgrade from 0.4 (trees/, and stats/). */
#include "builtin.h"
#include "cli.h"

static const char *const migrate_usage[] = {
	"git threadmind migrate [--dry-run] [--prune]",
	NULL,
};

int cmd_migrate(int argc, const char **argv)
{
	bool dry_run = false, prune = false;
	const struct option opts[] = {
		OPT_BOOL_('n', "dry-run", &dry_run,
			  "print what would change, write nothing"),
		OPT_BOOL_(0, "prune", &prune,
			  "also delete the 0.4 stats/ folder"),
		OPT_GLOBALS,
		OPT_END_(),
	};
	tm_strv report = TM_STRV_INIT, left = TM_STRV_INIT;
	size_t i;
	int rc = 0;

	if (parse_options(argc, argv, opts, migrate_usage) != 0)
		usage_msg(migrate_usage, opts, "migrate takes no arguments");
	/* Every project at once; never the automatic upgrade (--dry-run
	 * must not write). */
	cli_open_flags(CLI_OPEN_NO_UPGRADE | CLI_OPEN_NO_PROJECT);
	if (!tm_migrate_needed(cli.store, prune)) {
		inform("nothing to migrate: %s/ is up to date",
		       tm_store_dir(cli.store));
		if (!prune && tm_migrate_needed(cli.store, true))
			note("hint: the unused 0.4 stats/ folder stays; 'git "
			     "threadmind migrate --prune' deletes it");
		return 0;
	}
	if (tm_migrate_run(&report, &left, cli.store, dry_run, prune) < 0)
		die_lib();
	/* --dry-run's report is what it was asked for; the changes made are
	 * informational (-q) */
	if (dry_run || !global_opts.quiet) {
		if (dry_run)
			printf("dry run, nothing written; migrate would make "
			       "these changes:\n");
		else
			printf("migrated %s/ from ThreadMind 0.4:\n",
			       tm_store_dir(cli.store));
		for (i = 0; i < report.n; i++)
			printf("  %s\n", report.items[i]);
		if (!report.n)
			printf("  (%s)\n", dry_run ? "no file would change"
						   : "no file changed");
	}
	for (i = 0; i < left.n; i++)
		warning("%s", left.items[i]);
	/* Something is left for a human: not a success, but not a dead end
	 * either (every other command keeps working). */
	if (left.n)
		rc = EXIT_NEGATIVE;
	if (!dry_run && report.n)
		note("%s", tm_migrate_closing_line());
	tm_strv_clear(&report);
	tm_strv_clear(&left);
	return rc;
}
