#!/bin/sh
# git-threadmind-merge does not depend on which side is ours (issue 19,
# reproductions 01 and 05): the same three files give the same exit and
# the same text both ways, and `git merge` on a branch gives what
# `git rebase` of that branch gives.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

# on_side_merge_and_rebase DIR: in DIR/repo (x19_branches), on branch
# side, `git merge main` (ours: side) and `git rebase main` (ours: main);
# the results in DIR/merged and DIR/rebased, the exits in DIR/m-rc and
# DIR/rb-rc.
on_side_merge_and_rebase() {
	x19_repo "$1/repo" && x19_branches "$1/repo" &&
	(cd "$1/repo" && git checkout -q side &&
	{ git merge -q --no-edit main >../m-out 2>&1; echo $? >../m-rc; } &&
	cp $X19 ../merged && { git merge --abort 2>/dev/null || :; } &&
	git reset -q --hard side &&
	{ git rebase -q main >../rb-out 2>&1; echo $? >../rb-rc; } &&
	cp $X19 ../rebased && { git rebase --abort 2>/dev/null || :; })
}

test_expect_success '01: prose replaced by an item on one side, the item added below it on the other: clean both ways' '
	x19_sides r01 "## State\nThe login form is done.\n" \
		"## State\n- Ship the login form\n" \
		"## State\nThe login form is done.\n- Ship the login form\n" &&
	x19_expect r01 0 "\n## State\n- Ship the login form\n" &&
	body r01/R2 >r01/got2 && test_cmp r01/expect r01/got2
'

test_expect_success '01: git merge on the branch and git rebase of it agree' '
	on_side_merge_and_rebase r01 &&
	test "$(cat r01/m-rc)" = 0 && test "$(cat r01/rb-rc)" = 0 &&
	body r01/merged >r01/got-merge && test_cmp r01/expect r01/got-merge &&
	body r01/rebased >r01/got-rebase && test_cmp r01/expect r01/got-rebase
'

test_expect_success '01: a conflict both ways, each block holding its side (the item in theirs)' '
	x19_sides c01 "## State\nThe login form is done.\n" \
		"## State\nThe login form is shipped.\n" \
		"## State\nThe login form is done, tested.\n- Ship the login form\n" &&
	x19_expect c01 1 "\n## State\n<<<<<<< ours\nThe login form is shipped.\n=======\nThe login form is done, tested.\n- Ship the login form\n>>>>>>> theirs\n" &&
	printf "\n## State\n<<<<<<< ours\nThe login form is done, tested.\n- Ship the login form\n=======\nThe login form is shipped.\n>>>>>>> theirs\n" >c01/expect2 &&
	body c01/R2 >c01/got2 && test_cmp c01/expect2 c01/got2
'

test_expect_success '05: a section moved on one side, an item added to it on the other: moved both ways' '
	x19_sides r05 "## Decisions\n- d1\n\n## State\nWIP.\n\n## Next steps\n- n1\n" \
		"## Next steps\n- n1\n\n## Decisions\n- d1\n\n## State\nWIP.\n" \
		"## Decisions\n- d1\n\n## State\nWIP.\n\n## Next steps\n- n1\n- n2\n" &&
	x19_expect r05 0 "\n## Next steps\n- n1\n- n2\n\n## Decisions\n- d1\n\n## State\nWIP.\n" &&
	body r05/R2 >r05/got2 && test_cmp r05/expect r05/got2
'

test_expect_success '05: git merge on the branch and git rebase of it agree' '
	on_side_merge_and_rebase r05 &&
	test "$(cat r05/m-rc)" = 0 && test "$(cat r05/rb-rc)" = 0 &&
	body r05/merged >r05/got-merge && test_cmp r05/expect r05/got-merge &&
	body r05/rebased >r05/got-rebase && test_cmp r05/expect r05/got-rebase
'

test_expect_success 'the frontmatter and the whole file are the same both ways' '
	cmp r01/R1 r01/R2 && cmp r05/R1 r05/R2 &&
	test "$(fm r05/R1 updatedAt)" = 2026-04-17T00:00:00.000Z
'

test_done
