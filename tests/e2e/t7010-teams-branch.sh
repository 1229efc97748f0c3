#!/bin/sh
# Branch binding for teammates (DESIGN.md sections 3 and 11): the thread
# one person worked on feature/x is the one a teammate's `git switch
# feature/x` picks in another clone; merge does not rebind the parent; the
# fallback skips finished threads.
. "$(dirname "$0")/test-lib.sh"

test_person bob 'B O B'

T=alice/.threadmind/threads/alice

test_expect_success 'alice shares a store through a bare remote' '
	new_repo alice &&
	(cd alice && git threadmind init -q && git threadmind install >/dev/null &&
		git add -A && git commit -q -m threads) &&
	git clone -q --bare alice remote.git &&
	(cd alice && git remote add origin ../remote.git &&
		git fetch -q origin && git branch -q -u origin/main)
'

test_expect_success 'alice works on feature/x: a thread bound to the branch' '
	(cd alice && git switch -q -c feature/x &&
		git threadmind new "Feature X" --switch -q &&
		git threadmind new "X part" --parent feature-x -q &&
		printf "## Decisions\n- use a queue\n" >../notes &&
		git threadmind summary x-part -F ../notes -q) &&
	test "$(fm $T/feature-x.md branch)" = feature/x
'

test_expect_success 'merging the child while on feature/y keeps the parent on feature/x' '
	(cd alice && git add -A && git commit -q -m "x work" &&
		git switch -q -c feature/y &&
		git threadmind merge x-part -q) &&
	test "$(fm $T/feature-x.md branch)" = feature/x &&
	grep -c "^- use a queue$" $T/feature-x.md >count &&
	echo 1 >expect && test_cmp expect count &&
	test "$(fm $T/x-part.md status)" = done
'

test_expect_success 'merging again after reopen copies no bullet twice' '
	(cd alice && git threadmind reopen x-part -q &&
		git threadmind merge x-part -q) &&
	grep -c "^- use a queue$" $T/feature-x.md >count &&
	test_cmp expect count &&
	test "$(fm $T/feature-x.md branch)" = feature/x
'

test_expect_success 'alice brings feature/y into feature/x' '
	(cd alice && git add -A && git commit -q -m "merge x-part" &&
		git switch -q feature/x && git merge -q --ff-only feature/y)
'

test_expect_success 'the newest thread on feature/x is abandoned' '
	(cd alice && git threadmind new "Dead end" -q &&
		git threadmind abandon dead-end -q) &&
	test "$(fm $T/dead-end.md branch)" = feature/x &&
	test "$(fm $T/dead-end.md status)" = abandoned &&
	newest=$(grep -h "^updatedAt: " $T/*.md | sort | tail -n 1) &&
	grep -q "^$newest$" $T/dead-end.md
'

test_expect_success 'alice pushes both branches' '
	(cd alice && git add -A && git commit -q -m "dead end" &&
		git push -q origin feature/x feature/y 2>/dev/null)
'

test_expect_success 'bob has no branchThreads: git switch feature/x picks feature-x' '
	as_person bob git clone -q remote.git bob &&
	(cd bob && as_person bob git threadmind install >/dev/null &&
		as_person bob git switch -q feature/x) 2>err &&
	(cd bob && as_person bob git threadmind status) >out &&
	grep "^active thread: feature-x (Feature X)$" out &&
	(cd bob && as_person bob git threadmind prompt) >out &&
	echo feature-x >expect && test_cmp expect out
'

test_done
