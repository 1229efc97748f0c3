#!/bin/sh
# Issue 22: lefthook (from the npm registry) runs the hooks.  install adds a
# `threadmind` command per hook to lefthook.yml (beside the team's own,
# never in lefthook's stubs), says to run `lefthook install`, and our hooks
# then run on real checkouts, commits, a merge and an amend, in linked
# worktrees too; uninstall gives the files back byte for byte.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-managers.sh"

require_tool lefthook
LEFTHOOK=$(tool lefthook)
export LEFTHOOK_BIN="$LEFTHOOK" NO_COLOR=1

FILES="lefthook.yml .git/hooks/post-commit .git/hooks/post-checkout
.git/hooks/post-commit.old"

test_expect_success 'setup: a store, lefthook.yml with the team commands, lefthook install' '
	new_repo app &&
	(cd app && git threadmind init -q &&
		cat >lefthook.yml <<-\EOF &&
		# the team hooks
		post-commit:
		  commands:
		    own:
		      run: echo own-post-commit
		pre-commit:
		  parallel: true
		EOF
		"$LEFTHOOK" install >/dev/null 2>&1 &&
		grep -q lefthook .git/hooks/post-commit &&
		git add -A && git commit -q -m lefthook) &&
	snap_files app before $FILES
'

test_expect_success 'install adds our commands to lefthook.yml and says to run lefthook install' '
	(cd app && git threadmind install) >out 2>err &&
	grep "^lefthook: add threadmind.s commands in .*/lefthook\.yml. (post-checkout, post-commit, post-merge, post-rewrite, pre-commit)$" out &&
	grep "^warning: lefthook has not installed its hooks post-checkout, post-merge, post-rewrite in .*/\.git/hooks. yet: run .lefthook install.$" err &&
	same_files app before .git/hooks/post-commit .git/hooks/post-checkout &&
	cat >expect <<-\EOF &&
	# the team hooks
	post-commit:
	  commands:
	# >>> threadmind >>>
	# added by '"'"'git threadmind install'"'"'; '"'"'git threadmind uninstall'"'"' removes it
	    threadmind:
	      run: "command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook post-commit || :"
	# <<< threadmind <<<
	    own:
	      run: echo own-post-commit
	pre-commit:
	# >>> threadmind >>>
	# added by '"'"'git threadmind install'"'"'; '"'"'git threadmind uninstall'"'"' removes it
	  commands:
	    threadmind:
	      run: "command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook pre-commit || [ $? -ne 1 ]"
	# <<< threadmind <<<
	  parallel: true
	# >>> threadmind >>>
	# added by '"'"'git threadmind install'"'"'; '"'"'git threadmind uninstall'"'"' removes it
	post-checkout:
	  commands:
	    threadmind:
	      run: "command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook post-checkout {1} {2} {3} || :"
	post-merge:
	  commands:
	    threadmind:
	      run: "command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook post-merge {1} || :"
	post-rewrite:
	  commands:
	    threadmind:
	      run: "command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook post-rewrite {1} || :"
	      use_stdin: true
	# <<< threadmind <<<
	EOF
	test_cmp expect app/lefthook.yml &&
	(cd app && "$LEFTHOOK" install) >out 2>&1 &&
	(cd app && git threadmind install) >out 2>err &&
	test ! -s err &&
	grep "already installed (hooks run by lefthook from .*/lefthook\.yml.)" out &&
	(cd app && git add -A && git commit -q -m "threadmind in lefthook") >out 2>&1
'

test_expect_success 'lefthook runs ours: a new branch and post-commit (its own command runs too)' '
	store app &&
	scenario_branch app own-post-commit
'

test_expect_success 'a checkout switches the active thread' '
	scenario_switch app
'

test_expect_success 'a commit of the paths says the summary may be outdated' '
	scenario_commit app own-post-commit
'

test_expect_success 'post-merge and post-rewrite (amend: the list on stdin) run' '
	scenario_merge app &&
	scenario_amend app
'

test_expect_success 'pre-commit refuses conflict markers' '
	scenario_refuse app
'

test_expect_success 'lefthook install again keeps ours working' '
	(cd app && "$LEFTHOOK" install -f) >/dev/null 2>&1 &&
	(cd app && git checkout -q feat) >out 2>&1 &&
	grep "^threadmind: active thread is now ui-work (UI work)$" out || { cat out; false; }
'

test_expect_success 'in a linked worktree too' '
	worktree_add app &&
	scenario_worktree app own-post-commit
'

test_expect_success 'doctor names lefthook, and finds a stub without our command' '
	(cd app && git threadmind doctor) >out 2>&1 &&
	grep "^the hooks are run by lefthook (.*/lefthook\.yml.)$" out &&
	cp app/lefthook.yml saved.yml &&
	(cd app && git threadmind uninstall -q) &&
	(cd app && test_exit_code 1 git threadmind doctor) >out 2>&1 &&
	grep "^hooks: lefthook runs the hooks, but .*/lefthook\.yml. does not call threadmind (post-checkout, post-commit, post-merge, post-rewrite, pre-commit); run .git threadmind install.$" out &&
	cp saved.yml app/lefthook.yml
'

test_expect_success 'our stubs from before lefthook, and lefthook .old copies, are taken out' '
	new_repo old &&
	(cd old && git threadmind init -q && git threadmind install -q &&
		printf "%s\n" "pre-commit:" "  commands:" "    own:" \
			"      run: echo own" >lefthook.yml &&
		"$LEFTHOOK" install >/dev/null 2>&1 &&
		test -f .git/hooks/pre-commit.old &&
		git threadmind install) >out 2>err &&
	grep "^hook .pre-commit.: delete .*/\.git/hooks/pre-commit\.old.$" out &&
	grep "^hook .post-checkout.: delete .*/\.git/hooks/post-checkout.$" out &&
	test ! -e old/.git/hooks/pre-commit.old &&
	test ! -e old/.git/hooks/post-checkout &&
	grep -q lefthook old/.git/hooks/pre-commit
'

test_expect_success 'uninstall gives every file back byte for byte' '
	(cd app && git threadmind uninstall) >out 2>&1 &&
	grep "^lefthook: remove threadmind.s lines from .*/lefthook\.yml.$" out &&
	same_files app before lefthook.yml &&
	(cd app && git commit -q --allow-empty -m after) >out 2>&1 &&
	! grep "^threadmind:" out &&
	grep own-post-commit out
'

test_done
