#!/bin/sh
# Teams (DESIGN.md section 11, issue 25 r14): `pull --rebase` of two local
# commits that create "Reporting" and edit it again, onto an upstream that
# has Carol's "Reporting".  The first pick is split (Carol's keeps the id,
# Alice's becomes reporting-2); the second pick's edit of reporting.md is
# an edit of Alice's thread, which the driver never merges into Carol's
# file: it stops, and `resolve` sends the edit to reporting-2.  Every
# replayed commit ends up with each person's text in their own thread.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop
R=$T/reporting.md
R2=$T/reporting-2.md

as() {
	(cd "$TEST_ROOT/$1-clone" && as_person "$@")
}

author_of() {
	printf '%s-%s' "$1" \
		"$(printf %s "$1@example.com" | git hash-object --stdin | cut -c1-4)"
}

ALICE=$(author_of alice)
CAROL=$(author_of carol)

test_expect_success 'setup: carol pushes "Reporting"; alice has two local commits' '
	test_person alice && test_person carol &&
	git init -q --bare origin.git &&
	as_person alice git clone -q origin.git alice-clone 2>/dev/null &&
	as alice git threadmind init -q --title Shop &&
	as alice git threadmind install -q &&
	as alice git add -A && as alice git commit -q -m tm &&
	as alice git push -q origin main &&
	as_person carol git clone -q origin.git carol-clone &&
	as carol git threadmind install -q &&
	as carol git threadmind new Reporting --switch -q >/dev/null &&
	printf "## Decisions\n- CAROL: Metabase dashboards\n" |
		as carol git threadmind summary -q -F - &&
	as carol git add -A && as carol git commit -q -m "carol: reporting" &&
	as carol git push -q origin main 2>/dev/null &&
	as alice git threadmind new Reporting --switch -q >/dev/null &&
	printf "## Decisions\n- ALICE: nightly CSV export\n" |
		as alice git threadmind summary -q -F - &&
	as alice git add -A && as alice git commit -q -m "alice: reporting" &&
	printf "## Decisions\n- ALICE: nightly CSV export\n- ALICE: also a JSON feed\n" |
		as alice git threadmind summary -q -F - &&
	as alice git commit -q -am "alice: reporting json"
'

test_expect_success 'first pick: add/add, split by resolve' '
	test_must_fail as alice git pull -q --rebase >/dev/null 2>err &&
	grep "two threads .reporting. were created on both sides" err &&
	as alice git threadmind resolve >out &&
	grep "^split $R: .*; .Reporting. by $CAROL, upstream, keeps it; .Reporting. by $ALICE, from the commit being replayed, became .reporting-2. ($R2)$" out
'

test_expect_success 'second pick: the driver stops instead of fusing the threads' '
	test_must_fail as alice env GIT_EDITOR=true git rebase --continue \
		>out 2>err &&
	grep "^git-threadmind-merge: $R: .reporting. is .Reporting. by $CAROL in HEAD, but the incoming edit is to .Reporting. by $ALICE, which HEAD holds under another id: run .git threadmind resolve. to apply the edit there$" err &&
	as alice git diff --name-only --diff-filter=U >unmerged &&
	echo $R >expect && test_cmp expect unmerged &&
	grep "^author: $CAROL$" alice-clone/$R &&
	! grep ALICE alice-clone/$R &&
	# the edit is already in alice'"'"'s own file, in the work tree only
	grep "^git-threadmind-merge: $R: the edit is to the thread now in $R2: merged there in the work tree; .git threadmind resolve. stages it$" err &&
	grep "^- ALICE: also a JSON feed$" alice-clone/$R2 &&
	grep "^id: reporting-2$" alice-clone/$R2 &&
	as alice git diff --name-only >modified &&
	grep "^$R2$" modified &&
	as alice git threadmind status >out &&
	grep "^conflicts: $R (run .git threadmind resolve.)$" out
'

test_expect_success "resolve sends the edit to alice's own thread" '
	as alice git threadmind resolve >out &&
	grep "^followed $R: the edit from the commit being replayed is to .Reporting. by $ALICE, which is .reporting-2. here: merged into $R2; .reporting. holds .Reporting. by $CAROL$" out &&
	as alice git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged &&
	as alice env GIT_EDITOR=true git rebase --continue >/dev/null 2>&1 &&
	test ! -d alice-clone/.git/rebase-merge
'

test_expect_success 'each person'"'"'s text is in their own thread, in every commit' '
	test "$(as alice git log --format=%s origin/main..HEAD | tr "\n" "|")" = \
		"alice: reporting json|alice: reporting|" &&
	test "$(as alice git show HEAD:$R | sed -n "s/^author: //p")" = "$CAROL" &&
	test "$(as alice git show HEAD:$R2 | sed -n "s/^author: //p")" = "$ALICE" &&
	as alice git show HEAD:$R >r && as alice git show HEAD:$R2 >r2 &&
	test $(grep -c ALICE r) -eq 0 &&
	grep "^- CAROL: Metabase dashboards$" r &&
	grep "^id: reporting-2$" r2 &&
	grep "^- ALICE: nightly CSV export$" r2 &&
	grep "^- ALICE: also a JSON feed$" r2 &&
	! grep CAROL r2 &&
	as alice git diff --name-only HEAD~1 HEAD >changed &&
	echo $R2 >expect && test_cmp expect changed &&
	as alice git show HEAD~1:$R2 >first &&
	grep "^- ALICE: nightly CSV export$" first &&
	! grep "JSON feed" first &&
	test "$(as alice git threadmind prompt)" = reporting-2
'

test_expect_success 'carol pulls: her thread untouched, alice'"'"'s beside it' '
	as alice git push -q origin main 2>/dev/null &&
	as carol git pull -q --no-edit 2>/dev/null &&
	test "$(as carol git threadmind prompt)" = reporting &&
	! grep ALICE carol-clone/$R &&
	grep "^- ALICE: also a JSON feed$" carol-clone/$R2
'

test_done
