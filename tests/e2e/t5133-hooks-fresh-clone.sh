#!/bin/sh
# Issue 25 r11: the thread `status` shows is the thread a checkout keeps.  A
# new branch with no thread of its own keeps the thread of the branch
# checked out before (HEAD's reflog), as `status` showed it there: in a
# fresh clone that thread was never stored, and `git switch -c` used to
# fall back to `main`.
. "$(dirname "$0")/test-lib.sh"

# shown: the active thread `status` shows.
shown() {
	git threadmind status | sed -n "s/^active thread: \([^ ]*\).*/\1/p"
}

test_expect_success 'setup: an origin with a thread Cart on main' '
	new_repo origin &&
	(cd origin && git threadmind init -q && git threadmind install -q &&
		git threadmind new Cart --switch -q >/dev/null &&
		git add -A && git commit -q -m cart)
'

test_expect_success 'control: in the origin, git switch -c keeps the thread you were on' '
	(cd origin && git switch -q -c topic && git threadmind prompt &&
		git switch -q main) >out 2>err &&
	echo cart >expect &&
	test_cmp expect out &&
	test_must_fail test -s err
'

test_expect_success 'a fresh clone: status shows cart, nothing is stored yet' '
	git clone -q origin clone &&
	(cd clone && git threadmind install -q && shown >../out) &&
	echo cart >expect &&
	test_cmp expect out &&
	test_must_fail test -e clone/.threadmind/config.json
'

test_expect_success 'git switch -c topic2 keeps the thread status showed, silently (r11)' '
	(cd clone && git switch -q -c topic2) 2>err &&
	test_must_fail test -s err &&
	test "$(git -C clone threadmind prompt)" = cart &&
	(cd clone && shown >../out) &&
	echo cart >expect &&
	test_cmp expect out
'

test_expect_success 'and it is stored: back on main and again on a new branch' '
	(cd clone && git switch -q main && git switch -q -c topic3) 2>err &&
	test_must_fail test -s err &&
	test "$(git -C clone threadmind prompt)" = cart
'

test_expect_success 'the thread of the branch you came from, not a stale activeThreadId' '
	(cd clone && git switch -q main &&
		git threadmind new Pay --switch -q >/dev/null &&
		git add -A && git commit -q -m pay &&
		THREADMIND_HOOKS=0 git switch -q topic3 &&
		git threadmind switch cart -q &&
		THREADMIND_HOOKS=0 git switch -q main &&
		shown >../out &&
		git switch -q -c topic4) 2>err &&
	echo pay >expect &&
	test_cmp expect out &&
	test "$(git -C clone threadmind prompt)" = pay &&
	test_must_fail test -s err
'

test_expect_success 'a new branch from a detached HEAD falls back to activeThreadId' '
	(cd clone && git switch -q --detach main &&
		git switch -q -c topic5) 2>err &&
	test "$(git -C clone threadmind prompt)" = pay
'

test_done
