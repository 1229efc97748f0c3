#!/bin/sh
# Issue 25 r08: a branch renamed with `git branch -m` keeps its thread.  On
# the next checkout of the new name, post-checkout finds in the branch's
# reflog ("Branch: renamed refs/heads/OLD to refs/heads/NEW") the name it had,
# takes over OLD's branchThreads entry when no branch is named OLD any more,
# and moves the entry to the new name.
. "$(dirname "$0")/test-lib.sh"

# bt BRANCH: branchThreads["app"][BRANCH] in config.json, or "-".
bt() {
	python3 -c 'import json,sys
d = json.load(open("app/.threadmind/config.json"))
print(d.get("branchThreads", {}).get("app", {}).get(sys.argv[1], "-"))' "$1"
}

test_expect_success 'setup: a thread on feature/coupons, the hooks' '
	new_repo app &&
	(cd app && git threadmind init -q && git threadmind install -q &&
		git add -A && git commit -q -m store &&
		git switch -q -c feature/coupons &&
		git threadmind new Coupons --switch -q >/dev/null &&
		git add -A && git commit -q -m coupons &&
		git switch -q main) 2>/dev/null &&
	test "$(bt feature/coupons)" = coupons &&
	test "$(git -C app threadmind prompt)" = main
'

test_expect_success 'control: switching back brings the thread back' '
	(cd app && git switch -q feature/coupons && git threadmind prompt &&
		git switch -q main) 2>/dev/null >out &&
	echo coupons >expect &&
	test_cmp expect out
'

test_expect_success 'after git branch -m, switching to the new name brings it back (r08)' '
	git -C app branch -m feature/coupons feature/discounts &&
	(cd app && git switch -q feature/discounts) 2>err &&
	echo "threadmind: active thread is now coupons (Coupons)" >expect &&
	test_cmp expect err &&
	test "$(git -C app threadmind prompt)" = coupons
'

test_expect_success 'the entry moved to the new name' '
	test "$(bt feature/discounts)" = coupons &&
	test "$(bt feature/coupons)" = - &&
	(cd app && git switch -q main && git switch -q feature/discounts) \
		2>/dev/null &&
	test "$(git -C app threadmind prompt)" = coupons
'

test_expect_success 'renamed twice without a checkout between: followed back' '
	(cd app && git switch -q main &&
		git branch -m feature/discounts deals &&
		git branch -m deals offers &&
		git switch -q offers) 2>/dev/null &&
	test "$(git -C app threadmind prompt)" = coupons &&
	test "$(bt offers)" = coupons &&
	test "$(bt feature/discounts)" = -
'

test_expect_success 'the current branch renamed in place: followed at its next checkout' '
	(cd app && git branch -m promo &&
		git switch -q main && git switch -q promo) 2>/dev/null &&
	test "$(git -C app threadmind prompt)" = coupons &&
	test "$(bt promo)" = coupons
'

test_expect_success 'a copy (git branch -c) is not a rename: the copy starts as a new branch' '
	(cd app && git switch -q main &&
		git threadmind switch main -q &&
		git branch -c promo promo-copy &&
		git switch -q promo-copy) 2>/dev/null &&
	test "$(git -C app threadmind prompt)" = main &&
	test "$(bt promo)" = coupons
'

test_expect_success 'an old name that a branch holds again is not taken over' '
	(cd app && git switch -q promo &&
		git switch -q main &&
		git branch -m promo sale && git branch promo main &&
		git switch -q sale) 2>/dev/null &&
	test "$(git -C app threadmind prompt)" = main &&
	test "$(bt promo)" = coupons
'

test_done
