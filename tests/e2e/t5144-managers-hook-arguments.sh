#!/bin/sh
# Issue 22: `git threadmind hook` takes its arguments the way the managers
# pass them (checked against the real tools in t5141, t5142): the
# pre-commit framework gives none, but PRE_COMMIT_FROM_REF,
# PRE_COMMIT_TO_REF, PRE_COMMIT_CHECKOUT_TYPE and
# PRE_COMMIT_REWRITE_COMMAND, and runs post-rewrite without stdin, so the
# list comes from git's own files (the rebase's rewritten-list, the amend's
# reflog entry).  Here git runs hook scripts that call us as pre-commit
# does, so no tool is needed.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-managers.sh"

# as_pre_commit REPO HOOK: a hook script calling us as pre-commit does.
as_pre_commit() {
	case $2 in
	post-checkout) env='PRE_COMMIT_FROM_REF=$1 PRE_COMMIT_TO_REF=$2 PRE_COMMIT_CHECKOUT_TYPE=$3' ;;
	post-rewrite) env='PRE_COMMIT_REWRITE_COMMAND=$1' ;;
	*) env= ;;
	esac
	write_script "$1/.git/hooks/$2" <<-EOF
	exec </dev/null
	$env git-threadmind hook $2
	EOF
}

test_expect_success 'setup: a store, hooks calling us without arguments nor stdin' '
	new_repo app &&
	(cd app && git threadmind init -q) &&
	store app &&
	for h in post-checkout post-commit post-merge post-rewrite; do
		as_pre_commit app $h || return 1
	done &&
	(cd app && git checkout -q -b feat &&
		git threadmind new "UI work" --switch -q &&
		git add .threadmind && git commit -q -m ui) &&
	test "$(cfg app/.threadmind/config.json "d[\"branchThreads\"][\"app\"][\"feat\"]")" = ui-work
'

test_expect_success 'post-checkout from PRE_COMMIT_* switches the thread' '
	(cd app && git checkout -q main) 2>err &&
	echo "threadmind: active thread is now auth (Auth)" >expect &&
	test_cmp expect err &&
	(cd app && git checkout -q feat) 2>err &&
	echo "threadmind: active thread is now ui-work (UI work)" >expect &&
	test_cmp expect err
'

test_expect_success 'a file checkout (PRE_COMMIT_CHECKOUT_TYPE=0) changes nothing' '
	(cd app && git checkout -q main -- README) 2>err &&
	test ! -s err &&
	test "$(active app)" = ui-work
'

test_expect_success 'git arguments still win over the variables' '
	(cd app && PRE_COMMIT_FROM_REF=x PRE_COMMIT_TO_REF=y PRE_COMMIT_CHECKOUT_TYPE=0 \
		git threadmind hook post-checkout HEAD HEAD 1) 2>err &&
	test ! -s err
'

test_expect_success 'post-rewrite after an amend, without stdin: the reflog entry' '
	scenario_amend app
'

test_expect_success 'post-rewrite after a rebase, without stdin: the rewritten list' '
	(cd app && git checkout -q -b topic main &&
		echo t >src/t && git add src/t && git commit -q -m topic &&
		git checkout -q main && git commit -q --allow-empty -m more &&
		git checkout -q topic) >/dev/null 2>&1 &&
	(cd app && git rebase -q main) >out 2>&1 &&
	echo "threadmind: summaries may be outdated: auth (git threadmind stale)" >expect &&
	test_cmp expect out
'

test_expect_success 'nothing to go by (a person typing it): nothing said' '
	(cd app && git threadmind hook post-rewrite </dev/null) >out 2>&1 &&
	test ! -s out &&
	(cd app && PRE_COMMIT_REWRITE_COMMAND=rebase \
		git threadmind hook post-rewrite </dev/null) >out 2>&1 &&
	test ! -s out
'

test_done
