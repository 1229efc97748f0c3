#!/bin/sh
# Teams (DESIGN.md section 11): two people, each in their own clone of one
# bare remote and with their own HOME, create "Search" on their own branch.
# The merge never fuses the two threads: with the driver it exits 1 and
# names `git threadmind resolve`; without it git leaves markers; `resolve`
# keeps both: the one already in the branch merged into keeps the id (HEAD's
# side in a merge, the upstream in a rebase), the incoming one is renamed,
# with the threads added under it.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/ana-clone
S=$T/search.md
S2=$T/search-2.md

# as NAME CMD...: run CMD as teammate NAME, in their clone.
as() {
	(cd "$TEST_ROOT/$1-clone" && as_person "$@")
}

test_expect_success 'setup: a shared store in a bare remote, two clones' '
	test_person ana && test_person bob &&
	git init -q --bare origin.git &&
	as_person ana git clone -q origin.git ana-clone 2>/dev/null &&
	as ana git threadmind init --mode team >/dev/null &&
	as ana git threadmind install >/dev/null &&
	as ana git add -A &&
	as ana git commit -q -m "threadmind store" &&
	as ana git push -q origin main &&
	as_person bob git clone -q origin.git bob-clone &&
	as bob git threadmind install >/dev/null
'

test_expect_success 'each creates "Search" on a branch and pushes it' '
	as ana git switch -q -c ana/search &&
	as ana git threadmind new Search --switch >/dev/null &&
	printf "## Decisions\n- ana: rank with BM25\n" |
		as ana git threadmind summary search -F - &&
	as ana git add -A && as ana git commit -q -m "ana: search" &&
	as ana git push -q origin ana/search &&
	sleep 1 &&
	as bob git switch -q -c bob/search &&
	as bob git threadmind new Search --switch >/dev/null &&
	printf "## Decisions\n- bob: index with trigrams\n" |
		as bob git threadmind summary search -F - &&
	as bob git threadmind new Tuning --parent search >/dev/null &&
	as bob git add -A && as bob git commit -q -m "bob: search" &&
	as bob git push -q origin bob/search &&
	as ana git fetch -q && as bob git fetch -q
'

test_expect_success 'with the driver: exit 1, ours kept, one line naming resolve' '
	as ana git switch -q main &&
	as ana git merge -q --no-edit origin/ana/search &&
	as ana cp $S ../ana-search.md &&
	test_must_fail as ana git merge --no-edit origin/bob/search 2>err &&
	grep "^git-threadmind-merge: $S: two threads .search. were created on both sides: .Search. by ana-[0-9a-f]*, already in HEAD, keeps the id; .Search. by bob-[0-9a-f]* takes the next free one: run .git threadmind resolve. to keep both$" err &&
	test $(grep -c "^git-threadmind-merge" err) -eq 1 &&
	test_cmp ana-search.md ana-clone/$S &&
	as ana git threadmind show search >/dev/null
'

test_expect_success 'the conflict is visible in status and doctor' '
	as ana git threadmind status >out &&
	grep "^conflicts: $S (run .git threadmind resolve.)$" out &&
	test_exit_code 1 as ana git threadmind doctor >out &&
	grep "^conflict: .$S. is unmerged in the index.*git threadmind resolve" out
'

test_expect_success 'resolve keeps both: HEAD'"'"'s side keeps the id' '
	as ana git threadmind resolve >out &&
	grep "^split $S: two threads were created as .search.; .Search. by ana-[0-9a-f]*, in HEAD, keeps it; .Search. by bob-[0-9a-f]*, from the merged branch, became .search-2. ($S2)$" out &&
	! grep -E "ours|theirs" out &&
	as ana git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged &&
	grep "^author: ana" ana-clone/$S &&
	grep "^- ana: rank with BM25$" ana-clone/$S &&
	grep "^id: search-2$" ana-clone/$S2 &&
	grep "^title: Search$" ana-clone/$S2 &&
	grep "^author: bob" ana-clone/$S2 &&
	grep "^- bob: index with trigrams$" ana-clone/$S2 &&
	grep "^  re-pointed .tuning. to parent .search-2.$" out &&
	grep "^parentId: search-2$" ana-clone/$T/tuning.md &&
	as ana git commit -q --no-edit &&
	as ana git threadmind tree >tree &&
	grep "search  Search" tree &&
	grep "search-2  Search" tree &&
	as ana git threadmind doctor >/dev/null
'

test_expect_success 'without the driver: markers, then the same rule' '
	as bob git config --remove-section merge.threadmind &&
	as bob git threadmind status >/dev/null &&
	test_must_fail as bob git merge -q --no-edit origin/ana/search \
		>/dev/null 2>&1 &&
	grep "^<<<<<<<" bob-clone/$S &&
	as bob git threadmind status >out &&
	grep "^conflicts: $S (run .git threadmind resolve.)$" out &&
	as bob git threadmind tree >/dev/null 2>err &&
	grep "^warning: skipping .*$S.: it holds merge conflict markers; run .git threadmind resolve.$" err &&
	as bob git threadmind list >/dev/null 2>err &&
	grep "git threadmind resolve" err &&
	as bob git threadmind resolve >out &&
	grep "^split $S: .*; .Search. by bob-[0-9a-f]*, in HEAD, keeps it; .Search. by ana-[0-9a-f]*, from the merged branch, became .search-2. ($S2)$" out &&
	as bob git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged &&
	as bob git commit -q --no-edit &&
	grep "^- bob: index with trigrams$" bob-clone/$S &&
	grep "^- ana: rank with BM25$" bob-clone/$S2 &&
	grep "^parentId: search$" bob-clone/$T/tuning.md
'

test_expect_success "config.json keeps naming each person's own thread" '
	grep "\"activeThreadId\": \"search\"" bob-clone/.threadmind/config.json &&
	grep "\"bob/search\": \"search\"" bob-clone/.threadmind/config.json &&
	grep "\"ana/search\": \"search\"" ana-clone/.threadmind/config.json &&
	test "$(as bob git threadmind prompt)" = search &&
	as bob git threadmind show --json search >json &&
	grep "\"author\": \"bob-" json
'

test_expect_success 'a rebase onto ana'"'"'s branch: the upstream keeps the id' '
	as ana git show HEAD:$S >a1 && as ana git show HEAD:$S2 >a2 &&
	as ana git show HEAD:$T/tuning.md >a3 &&
	as bob git config merge.threadmind.name "threadmind files" &&
	as bob git config merge.threadmind.driver \
		"git-threadmind-merge %O %A %B %L %P" &&
	as bob git switch -q -c rb origin/bob/search &&
	test_must_fail as bob git rebase -q origin/ana/search >/dev/null 2>err &&
	grep "two threads .search. were created on both sides: .Search. by ana-[0-9a-f]*, already in HEAD, keeps the id" err &&
	as bob git threadmind resolve >out &&
	grep "^split $S: .*; .Search. by ana-[0-9a-f]*, upstream, keeps it; .Search. by bob-[0-9a-f]*, from the commit being replayed, became .search-2. ($S2)$" out &&
	as bob env GIT_EDITOR=true git rebase --continue >/dev/null 2>&1 &&
	as bob git show HEAD:$S >r1 && test_cmp a1 r1 &&
	as bob git show HEAD:$S2 >r2 && test_cmp a2 r2 &&
	as bob git show HEAD:$T/tuning.md >r3 && test_cmp a3 r3 &&
	grep "\"activeThreadId\": \"search-2\"" bob-clone/.threadmind/config.json &&
	test "$(as bob git threadmind prompt)" = search-2
'

test_done
