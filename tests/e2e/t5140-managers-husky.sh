#!/bin/sh
# Issue 22: husky (9, from the npm registry) runs the hooks.  install puts
# our calls in husky's own scripts .husky/<hook> -- never in .husky/_, which
# husky writes again at every `npm install` -- and our hooks then run on
# real checkouts, commits, a merge and an amend, beside the team's own
# husky scripts, in linked worktrees too; uninstall gives the files back
# byte for byte.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-managers.sh"

require_tool husky
HUSKY_PKG=$(cd "$(dirname "$(readlink -f "$(tool husky)")")" && pwd)

FILES=".husky/pre-commit .husky/post-commit .husky/post-checkout
.husky/post-merge .husky/post-rewrite .husky/_/post-commit
.husky/_/post-checkout .husky/_/h"

test_expect_success 'setup: a store, husky set up by npm install, the team scripts' '
	new_repo app &&
	(cd app && git threadmind init -q &&
		cat >package.json <<-EOF &&
		{"name": "app", "private": true, "scripts": {"prepare": "husky"},
		 "devDependencies": {"husky": "file:$HUSKY_PKG"}}
		EOF
		echo node_modules >.gitignore &&
		npm install --offline --no-audit --no-fund >npm.out 2>&1 &&
		rm npm.out &&
		test "$(git config core.hooksPath)" = .husky/_ &&
		echo "echo own-pre-commit" >.husky/pre-commit &&
		printf "%s\n" "#!/usr/bin/env sh" "echo own-post-commit" \
			>.husky/post-commit &&
		git add -A && git commit -q -m husky) &&
	snap_files app before $FILES
'

test_expect_success 'install writes into .husky/<hook>, never into .husky/_' '
	(cd app && git threadmind install) >out 2>err &&
	grep "^husky: create the script .*/\.husky/post-checkout. calling threadmind$" out &&
	grep "^husky: add the threadmind block to .*/\.husky/post-commit.$" out &&
	grep "^husky: add the threadmind block to .*/\.husky/pre-commit.$" out &&
	test ! -s err &&
	same_files app before .husky/_/post-commit .husky/_/post-checkout .husky/_/h &&
	test -x app/.husky/post-checkout &&
	grep -c "git-threadmind hook" app/.husky/post-rewrite &&
	head -1 app/.husky/post-commit >first &&
	echo "#!/usr/bin/env sh" >expect && test_cmp expect first &&
	test ! -e app/.git/hooks/post-checkout &&
	(cd app && git threadmind install) >out &&
	grep "already installed (hooks run by husky from .*/\.husky.)" out &&
	(cd app && git add -A && git commit -q -m "threadmind in husky") 2>/dev/null
'

test_expect_success 'husky runs ours: a new branch and post-commit (the own scripts run too)' '
	store app &&
	scenario_branch app own-post-commit
'

test_expect_success 'a checkout switches the active thread' '
	scenario_switch app
'

test_expect_success 'a commit of the paths says the summary may be outdated' '
	scenario_commit app own-post-commit
'

test_expect_success 'post-merge and post-rewrite (amend) run' '
	scenario_merge app &&
	scenario_amend app
'

test_expect_success 'pre-commit refuses conflict markers; the own pre-commit still runs' '
	scenario_refuse app &&
	grep own-pre-commit out
'

test_expect_success 'a line added after our block still runs' '
	(cd app && echo "echo added-later" >>.husky/post-commit &&
		git commit -q --allow-empty -m later) >out 2>&1 &&
	grep added-later out &&
	grep own-post-commit out &&
	git -C app checkout -q .husky/post-commit
'

test_expect_success 'npm install (husky writes .husky/_ again) keeps ours working' '
	(cd app && rm -rf .husky/_ &&
		npm install --offline --no-audit --no-fund >../npm.out 2>&1) &&
	test -f app/.husky/_/h &&
	(cd app && git checkout -q feat) >out 2>&1 &&
	grep "^threadmind: active thread is now ui-work (UI work)$" out
'

test_expect_success 'a linked worktree: husky set up there, ours run too' '
	worktree_add app &&
	(cd wt-app && git threadmind install) >out 2>err &&
	grep "warning: husky.s hooks folder .*/wt-app/\.husky/_. is missing here: run .npx husky." err &&
	(cd wt-app && "$(tool husky)" >/dev/null) &&
	(cd wt-app && git threadmind install) >out 2>err &&
	test ! -s err &&
	scenario_worktree app own-post-commit
'

test_expect_success 'doctor names husky and finds a script without our call' '
	(cd app && git threadmind doctor) >out 2>&1 &&
	grep "^the hooks are run by husky (.*/\.husky.)$" out &&
	cp app/.husky/post-merge post-merge.saved &&
	echo "echo own" >app/.husky/post-merge &&
	(cd app && test_exit_code 1 git threadmind doctor) >out 2>&1 &&
	grep "^hooks: .*post-merge" out &&
	cp post-merge.saved app/.husky/post-merge
'

test_expect_success '--manual prints the husky scripts and changes nothing' '
	rm app/.husky/post-merge &&
	(cd app && git threadmind install --manual) >out &&
	grep "^# husky runs the hooks: threadmind goes into .*/\.husky.$" out &&
	grep "^cat >.*/\.husky/post-merge. <<.THREADMIND_EOF.$" out &&
	test ! -e app/.husky/post-merge &&
	git -C app checkout -q .husky/post-merge
'

test_expect_success 'uninstall gives every file back byte for byte' '
	(cd app && git threadmind uninstall) >out 2>&1 &&
	same_files app before $FILES &&
	(cd app && git commit -q --allow-empty -m after) >out 2>&1 &&
	! grep "^threadmind:" out &&
	grep own-post-commit out
'

test_expect_success 'a clone has our husky scripts; install says husky is not set up' '
	git clone -q app clone &&
	grep "git-threadmind hook post-checkout" clone/.husky/post-checkout &&
	(cd clone && git threadmind install) >out 2>err &&
	! grep "^husky:" out &&
	grep "warning: husky is not set up in this clone (core.hooksPath is not .*/clone/\.husky/_.): run .npx husky." err &&
	test ! -e clone/.git/hooks/post-checkout
'

test_done
