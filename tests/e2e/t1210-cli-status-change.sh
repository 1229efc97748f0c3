#!/bin/sh
# git threadmind done / abandon / reopen: the status field and updatedAt.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop

# keys FILE: the frontmatter keys in order.
keys() {
	awk 'NR == 1 { next } /^---$/ { exit } { sub(/:.*/, ""); print }' "$1"
}

test_expect_success 'setup' '
	new_repo shop &&
	(cd shop && git threadmind init -q >/dev/null &&
		git threadmind -q new Auth &&
		git threadmind -q new "Auth UI" --parent auth &&
		git threadmind -q new Billing) >/dev/null &&
	test -f $T/billing.md
'

test_expect_success 'done writes status: done after updatedAt and bumps it' '
	age $T/billing.md &&
	fm $T/billing.md commit >commit.before &&
	(cd shop && git threadmind done billing) 2>err &&
	grep "Thread .billing. is now done" err &&
	test "$(fm $T/billing.md status)" = done &&
	fresh $T/billing.md &&
	keys $T/billing.md >keys &&
	printf "%s\n" id title parentId author createdAt updatedAt status \
		branch commit >expect &&
	test_cmp expect keys &&
	fm $T/billing.md commit >commit.after &&
	test_cmp commit.before commit.after
'

test_expect_success 'a done thread leaves list and tree, stays with --all' '
	(cd shop && git threadmind list) >out &&
	! grep billing out &&
	(cd shop && git threadmind list --status done) >out &&
	grep "^  billing  *done " out &&
	(cd shop && git threadmind tree --all) >out &&
	grep "billing  Billing \[done\]" out
'

test_expect_success 'done twice changes nothing' '
	cp $T/billing.md before &&
	(cd shop && git threadmind done billing) 2>err &&
	grep "already done" err &&
	test_cmp before $T/billing.md
'

test_expect_success 'abandon replaces done' '
	age $T/billing.md &&
	(cd shop && git threadmind abandon bil) &&
	test "$(fm $T/billing.md status)" = abandoned &&
	fresh $T/billing.md &&
	test "$(grep -c "^status:" $T/billing.md)" = 1
'

test_expect_success 'reopen removes the status and bumps updatedAt' '
	age $T/billing.md &&
	(cd shop && git threadmind reopen billing) 2>err &&
	grep "Thread .billing. is now active" err &&
	! grep "^status:" $T/billing.md &&
	fresh $T/billing.md &&
	(cd shop && git threadmind list) >out &&
	grep "^  billing  *active " out
'

test_expect_success 'reopen of an active thread changes nothing' '
	cp $T/billing.md before &&
	(cd shop && git threadmind reopen billing) 2>err &&
	grep "already active" err &&
	test_cmp before $T/billing.md
'

test_expect_success 'reopen clears mergedInto and an unknown status' '
	sed "s/^updatedAt: .*/&\nstatus: done\nmergedInto: auth/" \
		$T/auth-ui.md >m && cat m >$T/auth-ui.md &&
	test "$(fm $T/auth-ui.md mergedInto)" = auth &&
	(cd shop && git threadmind reopen auth-ui) 2>err &&
	grep "was merged into .auth." err &&
	! grep "^status:" $T/auth-ui.md &&
	! grep "^mergedInto:" $T/auth-ui.md &&
	sed "s/^updatedAt: .*/&\nstatus: blocked/" $T/auth-ui.md >m &&
	cat m >$T/auth-ui.md &&
	(cd shop && git threadmind list --status blocked) >out &&
	grep auth-ui out &&
	(cd shop && git threadmind reopen auth-ui) &&
	! grep "^status:" $T/auth-ui.md
'

test_expect_success 'done keeps mergedInto and unknown fields' '
	sed "s/^updatedAt: .*/&\nmergedInto: main\nx-extra: [1, 2]/" \
		$T/billing.md >m && cat m >$T/billing.md &&
	(cd shop && git threadmind done billing) &&
	test "$(fm $T/billing.md mergedInto)" = main &&
	test "$(fm $T/billing.md x-extra)" = "[1, 2]" &&
	(cd shop && git threadmind reopen billing) &&
	test "$(fm $T/billing.md x-extra)" = "[1, 2]"
'

test_expect_success 'the root thread main cannot be finished' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind done main) 2>err &&
	grep "^fatal: cannot mark .main. done: it is the project.s root thread" err &&
	(cd shop && test_exit_code 128 git threadmind abandon ma) 2>err &&
	grep "^fatal: cannot mark .main. abandoned" err &&
	snap shop >after &&
	test_cmp before after &&
	(cd shop && git threadmind reopen main) 2>err &&
	grep "already active" err
'

test_expect_success 'unknown, ambiguous and bad thread arguments' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind done nope) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd shop && test_exit_code 128 git threadmind abandon au) 2>err &&
	grep "^fatal: .au. is ambiguous: auth, auth-ui" err &&
	(cd shop && test_exit_code 128 git threadmind reopen ../x) &&
	(cd shop && test_exit_code 128 git threadmind done Foo) &&
	(cd shop && test_exit_code 128 git threadmind done ../billing) &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'a held lock makes done fail, naming the holder' '
	git -C shop config threadmind.lockTimeout 0.3 &&
	printf "{\"pid\":4242,\"host\":\"elsewhere\",\"startedAt\":\"x\"}" \
		>shop/.threadmind/.lock &&
	cp $T/billing.md before &&
	(cd shop && test_exit_code 128 git threadmind done billing) 2>err &&
	grep "^fatal: .*4242" err &&
	test_cmp before $T/billing.md &&
	rm shop/.threadmind/.lock &&
	git -C shop config --unset threadmind.lockTimeout
'

test_expect_success 'usage errors' '
	(cd shop && test_exit_code 129 git threadmind done a b) 2>err &&
	grep "^usage: git threadmind done \[<thread>\]" err &&
	(cd shop && test_exit_code 129 git threadmind abandon a b) 2>err &&
	grep "^usage: git threadmind abandon \[<thread>\]" err &&
	(cd shop && test_exit_code 129 git threadmind reopen -h) >out &&
	grep "^usage: git threadmind reopen \[<thread>\]" out
'

test_done
