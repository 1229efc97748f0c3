#!/bin/sh
# Teams (DESIGN.md section 11, issue 25 r15): two long-lived branches each
# created "Search" (the same author, a second apart: two threads by their
# createdAt).  The first merge into main splits them (main's keeps the id,
# the branch's becomes search-2).  The branch keeps editing "its"
# search.md and is merged again, and main is merged into the branch: each
# time the driver stops rather than merge an edit into the other thread,
# and `resolve` sends the edit to the file that carries its thread's
# identity.  After each round each text is in its own thread.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop
S=$T/search.md
S2=$T/search-2.md

bullets() {
	grep "^- " "$1" | tr "\n" "|"
}

test_expect_success 'setup: "Search" created on two branches' '
	git init -q repo && cd repo &&
	echo r >README && git add -A && git commit -q -m init &&
	git threadmind init -q --title Shop && git threadmind install -q &&
	git add -A && git commit -q -m tm &&
	git switch -q -c carol/search &&
	git threadmind new Search -q >/dev/null &&
	printf "## Decisions\n- CAROL: sqlite FTS5\n" |
		git threadmind summary -q search -F - &&
	git add -A && git commit -q -m "carol search" &&
	sleep 1 &&
	git switch -q -c alice/search main &&
	git threadmind new Search -q >/dev/null &&
	git threadmind switch -q search &&
	printf "## Decisions\n- ALICE: elasticsearch\n" |
		git threadmind summary -q search -F - &&
	git add -A && git commit -q -m "alice search"
'

test_expect_success 'first merge: main keeps its "search", the branch'"'"'s is search-2' '
	cd repo && git switch -q main &&
	git merge -q --no-edit carol/search &&
	test_must_fail git merge -q --no-edit alice/search >/dev/null 2>&1 &&
	git threadmind resolve >out &&
	grep "^split $S: two threads were created as .search.; .Search. by .*, in HEAD, keeps it; .Search. by .*, from the merged branch, became .search-2. ($S2)$" out &&
	git commit -q --no-edit &&
	test "$(bullets $S)" = "- CAROL: sqlite FTS5|" &&
	test "$(bullets $S2)" = "- ALICE: elasticsearch|"
'

test_expect_success 'the branch edits its search.md; merged again, the driver stops' '
	cd repo && git switch -q alice/search &&
	printf "## Decisions\n- ALICE: elasticsearch\n- ALICE: index nightly\n" |
		git threadmind summary -q search -F - &&
	git commit -q -am "alice: nightly index" &&
	git switch -q main &&
	test_must_fail git merge --no-edit alice/search >out 2>err &&
	grep "^git-threadmind-merge: $S: .search. is .Search. by .* in HEAD, but the incoming edit is to .Search. by .*, which HEAD holds under another id: run .git threadmind resolve. to apply the edit there$" err &&
	git diff --name-only --diff-filter=U >unmerged &&
	echo $S >expect && test_cmp expect unmerged &&
	test "$(bullets $S)" = "- CAROL: sqlite FTS5|"
'

test_expect_success 'resolve: the edit lands in search-2, search stays carol'"'"'s' '
	cd repo &&
	git threadmind resolve >out &&
	grep "^followed $S: the edit from the merged branch is to .Search. by .*, which is .search-2. here: merged into $S2; .search. holds .Search. by .*$" out &&
	git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged &&
	git commit -q --no-edit &&
	test "$(bullets $S)" = "- CAROL: sqlite FTS5|" &&
	test "$(bullets $S2)" = "- ALICE: elasticsearch|- ALICE: index nightly|" &&
	grep "^id: search-2$" $S2 &&
	git diff --name-only HEAD^1 HEAD >changed &&
	echo $S2 >expect && test_cmp expect changed
'

test_expect_success 'main merged into the branch that edited again: the same, the other way' '
	cd repo && git switch -q alice/search &&
	test "$(git threadmind prompt)" = search &&
	printf "## Decisions\n- ALICE: elasticsearch\n- ALICE: index nightly\n- ALICE: shard by tenant\n" |
		git threadmind summary -q search -F - &&
	git commit -q -am "alice: shards" &&
	test_must_fail git merge --no-edit main >out 2>err &&
	grep "^git-threadmind-merge: $S: .search. is .Search. by .* on the incoming side, but HEAD.s edit is to .Search. by .*, which the incoming side holds under another id" err &&
	git threadmind resolve >out &&
	grep "^followed $S: the edit made in HEAD is to .Search. by .*, which is .search-2. here: merged into $S2; .search. holds .Search. by .*$" out &&
	git commit -q --no-edit &&
	test "$(bullets $S)" = "- CAROL: sqlite FTS5|" &&
	test "$(bullets $S2)" = "- ALICE: elasticsearch|- ALICE: index nightly|- ALICE: shard by tenant|"
'

test_expect_success 'the branch'"'"'s active thread follows its identity to search-2' '
	cd repo &&
	test "$(git threadmind prompt)" = search-2 &&
	git threadmind status >out 2>err &&
	grep "^warning: .search. is now .Search. by .* (another thread with the same id); the thread you had active, .Search. by .*, is .search-2.: switched to it$" err &&
	git threadmind status >out 2>err &&
	test ! -s err &&
	printf "## Decisions\n- ALICE: elasticsearch\n- ALICE: index nightly\n- ALICE: shard by tenant\n- ALICE: done\n" |
		git threadmind summary -q -F - &&
	grep "^- ALICE: done$" $S2 &&
	! grep ALICE $S &&
	git commit -q -am "alice: done"
'

test_expect_success 'a last merge into main is clean: nothing left to split' '
	cd repo && git switch -q main &&
	git merge -q --no-edit alice/search &&
	test "$(bullets $S)" = "- CAROL: sqlite FTS5|" &&
	test "$(bullets $S2)" = "- ALICE: elasticsearch|- ALICE: index nightly|- ALICE: shard by tenant|- ALICE: done|" &&
	git threadmind doctor >/dev/null
'

test_done
