#!/bin/sh
# git-threadmind-merge under the other commands that merge files:
# rebase, cherry-pick, revert, stash pop, merge-tree, criss-cross merges.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

test_expect_success 'git rebase: frontmatter edits replay cleanly' '
	fm_branches r1 &&
	(cd r1 && git checkout -q feat && git rebase -q main) &&
	test "$(git -C r1 rev-list --count main..feat)" = 1 &&
	expect_fm_merged r1/$THREAD
'

test_expect_success 'git cherry-pick: the same result' '
	fm_branches r2 &&
	(cd r2 && git cherry-pick feat >/dev/null) &&
	expect_fm_merged r2/$THREAD
'

test_expect_success 'git merge-tree --write-tree: the same result' '
	fm_branches r3 &&
	tree=$(git -C r3 merge-tree --write-tree main feat) &&
	git -C r3 cat-file -p "$tree:$THREAD" >merged &&
	expect_fm_merged merged
'

test_expect_success 'git revert of a frontmatter change made before others' '
	base_repo r4 &&
	(cd r4 &&
	set_field $THREAD title "Auth UI v2" &&
	set_field $THREAD updatedAt 2026-04-15T13:00:00.000Z &&
	set_field $THREAD commit $B40 &&
	git commit -q -am rename &&
	set_field $THREAD updatedAt 2026-04-15T14:00:00.000Z &&
	set_field $THREAD commit $C40 &&
	set_field $THREAD branch release &&
	git commit -q -am later &&
	git revert --no-edit HEAD~1 >/dev/null) &&
	header r4/$THREAD >h &&
	grep -xF "title: Auth UI" h &&
	grep -xF "updatedAt: 2026-04-15T14:00:00.000Z" h &&
	grep -xF "commit: $C40" h &&
	grep -xF "branch: release" h &&
	test -z "$(git -C r4 status --porcelain)"
'

test_expect_success 'git stash pop over a commit that changed the same fields' '
	base_repo r5 &&
	(cd r5 &&
	set_field $THREAD updatedAt 2026-04-15T13:00:00.000Z &&
	set_field $THREAD commit $B40 &&
	add_item $THREAD State "stashed item" &&
	git stash -q &&
	set_field $THREAD updatedAt 2026-04-15T14:00:00.000Z &&
	set_field $THREAD commit $C40 &&
	set_field $THREAD title "Committed title" &&
	git commit -q -am committed &&
	git stash pop -q) &&
	test "$(git -C r5 stash list | wc -l)" = 0 &&
	header r5/$THREAD >h &&
	grep -xF "updatedAt: 2026-04-15T14:00:00.000Z" h &&
	grep -xF "commit: $C40" h &&
	grep -xF "title: Committed title" h &&
	grep -xF -- "- stashed item" r5/$THREAD
'

# criss-cross: x and y each merge the other, then both go on and are
# merged again, so git first merges the two merge bases (with the driver)
# into a virtual ancestor.
criss_cross() {
	base_repo "$1" &&
	(cd "$1" &&
	git checkout -q -b x &&
	set_field $THREAD title "Title from x" &&
	set_field $THREAD updatedAt 2026-04-15T13:00:00.000Z &&
	git commit -q -am x1 &&
	git checkout -q -b y main &&
	set_field $THREAD branch branch-y &&
	set_field $THREAD updatedAt 2026-04-15T13:30:00.000Z &&
	$2 &&
	git commit -q -am y1 &&
	git checkout -q x && git merge -q --no-edit y~0 &&
	git checkout -q y && git merge -q --no-edit x~1 &&
	git checkout -q x &&
	set_field $THREAD updatedAt 2026-04-15T15:00:00.000Z &&
	set_field $THREAD commit $B40 &&
	add_item $THREAD Decisions "x after" &&
	git commit -q -am x2 &&
	git checkout -q y &&
	set_field $THREAD updatedAt 2026-04-15T16:00:00.000Z &&
	set_field $THREAD commit $C40 &&
	add_item $THREAD Decisions "y after" &&
	git commit -q -am y2 &&
	test "$(git merge-base --all x y | wc -l)" = 2)
}

test_expect_success 'a criss-cross merge stays clean' '
	criss_cross r6 true &&
	(cd r6 && git merge -q --no-edit x) &&
	header r6/$THREAD >h &&
	grep -xF "title: Title from x" h &&
	grep -xF "branch: branch-y" h &&
	grep -xF "updatedAt: 2026-04-15T16:00:00.000Z" h &&
	grep -xF "commit: $C40" h &&
	grep -xF -- "- x after" r6/$THREAD &&
	grep -xF -- "- y after" r6/$THREAD
'

prose_x() {
	sed "s/^Sign-up is done\./Sign-up is done by x./" $THREAD >t &&
	mv t $THREAD
}

prose_y() {
	sed "s/^Sign-up is done\./Sign-up is done by y./" $THREAD >t &&
	mv t $THREAD
}

test_expect_success 'criss-cross bases that conflict: frontmatter clean, the conflict in its section' '
	base_repo r7 &&
	(cd r7 &&
	git checkout -q -b x && prose_x &&
	set_field $THREAD updatedAt 2026-04-15T13:00:00.000Z &&
	git commit -q -am x1 &&
	git checkout -q -b y main && prose_y &&
	set_field $THREAD updatedAt 2026-04-15T13:30:00.000Z &&
	git commit -q -am y1 &&
	git checkout -q x && test_must_fail git merge -q --no-edit y~0 &&
	git checkout y~0 -- $THREAD && git commit -q --no-edit &&
	git checkout -q y && test_must_fail git merge -q --no-edit x~1 &&
	git checkout x~1 -- $THREAD && git commit -q --no-edit &&
	git checkout -q x &&
	set_field $THREAD updatedAt 2026-04-15T15:00:00.000Z &&
	git commit -q -am x2 &&
	git checkout -q y &&
	set_field $THREAD updatedAt 2026-04-15T16:00:00.000Z &&
	git commit -q -am y2 &&
	test_must_fail git merge --no-edit x >../out 2>&1) &&
	! grep "already holds conflict markers" out &&
	no_markers_in_header r7/$THREAD &&
	header r7/$THREAD >h &&
	grep -xF "updatedAt: 2026-04-15T16:00:00.000Z" h &&
	grep -x "Sign-up is done by x." r7/$THREAD &&
	grep -x "Sign-up is done by y." r7/$THREAD &&
	test "$(grep -c "^<<<<<<<" r7/$THREAD)" = 1 &&
	awk "/^<<<<<<</ { print prev } { if (/^## /) prev = \$0 }" \
		r7/$THREAD >where &&
	grep -xF "## State" where &&
	(cd r7 && git threadmind show auth-ui >../show.out) &&
	grep -xF "updatedAt: 2026-04-15T16:00:00.000Z" show.out
'

test_done
