/*
 * The revision and thread arguments of `diff` and `log`, told apart as git
 * tells revisions from paths: what follows `--` is threads; before it, an
 * argument git reads as a revision is one (diff), the first one naming a
 * thread is the thread (log).
 */
#ifndef TM_CLI_REVARGS_H
#define TM_CLI_REVARGS_H

#include "cli.h"

struct revargs {
	int after_dashdash; /* positional arguments after `--`, or -1 */
	tm_strv revs;
	tm_strv threads; /* thread ids (a prefix resolved in the work tree) */
};

/* Before parse_options: remember how many arguments follow `--`. */
void revargs_dashdash(struct revargs *ra, int argc, const char **argv);

/*
 * Sort the `n` positional arguments left by parse_options into revisions
 * and threads.  diff (`log` false): leading revisions, then threads.  log:
 * a first argument that names a thread of the work tree's project is the
 * thread (`log main --` for the branch), the rest revisions.  An argument
 * before `--` that is neither is fatal, as git's "ambiguous argument".  Needs
 * cli_open first.
 */
void revargs_split(struct revargs *ra, const char **argv, int n, bool log,
		   const char *const *usage, const struct option *opts);

/* The store's repository (fatal outside git) and where the store's folder
 * is in its work tree ("" or "sub/dir/"). */
tm_git *revargs_git(void);
const char *revargs_prefix(void);

void revargs_clear(struct revargs *ra);

#endif
