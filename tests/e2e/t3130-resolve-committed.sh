#!/bin/sh
# Conflict markers committed by a merge made without the driver (issue 25,
# r05): a server's `merge-tree` + `commit-tree`, or a `git add` of the
# conflicted file.  `status` names `git threadmind resolve`, and resolve
# re-merges the file from its markers' two sides against the merge base of
# the merge's parents, writes it and stages it; the thread is listed again.
. "$(dirname "$0")/test-lib.sh"

f=.threadmind/threads/shop/cart.md

test_expect_success 'setup: main and side change cart, a server merges them without the driver' '
	git init -q repo && cd repo &&
	echo x >README && git add -A && git commit -q -m init &&
	git threadmind init -q --title Shop &&
	git threadmind install -q &&
	git threadmind new Cart -q >/dev/null &&
	printf "## Decisions\n- dict\n- drop me\n" |
		git threadmind summary -q cart -F - &&
	git add -A && git commit -q -m tm &&
	git switch -q -c side &&
	printf "## Decisions\n- dict\n- SIDE: persist in localStorage\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am side &&
	git switch -q main &&
	printf "## Decisions\n- dict\n- drop me\n- MAIN: coupons\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am main &&
	git clone -q --bare . ../server.git &&
	c=$(cd ../server.git && t=$(git merge-tree --write-tree main side | head -1) &&
		git commit-tree "$t" -p main -p side -m "Merge side (server)") &&
	git fetch -q ../server.git "$c" &&
	git merge -q --ff-only "$c" 2>/dev/null &&
	git rev-parse --short HEAD >../merge &&
	git rev-parse --short $(git merge-base HEAD^1 HEAD^2) >../base &&
	grep "^<<<<<<<" $f &&
	git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged
'

test_expect_success 'status, doctor and list point at resolve' '
	cd repo &&
	git threadmind status >out &&
	grep "^conflicts: $f (run '\''git threadmind resolve'\'')$" out &&
	test_exit_code 1 git threadmind doctor >out &&
	grep "$f.*holds merge conflict markers; run '\''git threadmind resolve'\''" out &&
	git threadmind list >out 2>err &&
	! grep " cart " out &&
	grep "skipping .*cart.md.*run '\''git threadmind resolve'\''" err
'

test_expect_success 'resolve re-merges from the markers against the merge base and stages it' '
	cd repo &&
	git threadmind resolve >out 2>err &&
	echo "resolved $f" >expect &&
	test_cmp expect out &&
	echo "  (re-merged from the conflict markers committed in $(cat ../merge), against the merge base of its parents ($(cat ../base)))" >expect &&
	test_cmp expect err &&
	! grep "^<<<<<<<\|^=======\|^>>>>>>>" $f &&
	grep "^- SIDE: persist in localStorage$" $f &&
	grep "^- MAIN: coupons$" $f &&
	grep "^- dict$" $f &&
	! grep "^- drop me$" $f &&
	git diff --name-only >unstaged &&
	test ! -s unstaged &&
	git diff --cached --name-only >staged &&
	echo $f >expect &&
	test_cmp expect staged
'

test_expect_success 'the thread is back in list and tree; status has no conflict line' '
	cd repo &&
	git threadmind list >out &&
	grep "^  cart " out &&
	git threadmind tree >out &&
	grep "cart  Cart" out &&
	git threadmind status >out &&
	! grep "^conflicts:" out &&
	git commit -q -m "cart: resolved" &&
	git threadmind resolve 2>err &&
	grep "^nothing to resolve$" err
'

test_expect_success 'setup: a git add of the conflicted file during a merge' '
	cd repo &&
	git switch -q -c side2 &&
	printf "## Decisions\n- dict\n- SIDE2\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am side2 &&
	git switch -q main &&
	printf "## Decisions\n- dict\n- MAIN2\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am main2 &&
	git config --remove-section merge.threadmind &&
	test_when_finished "git -C repo threadmind install -q" &&
	test_must_fail git merge -q side2 >/dev/null 2>&1 &&
	grep "^<<<<<<<" $f &&
	git add $f &&
	git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged
'

test_expect_success 'resolve <file> takes the markers with the merge base of HEAD and MERGE_HEAD' '
	cd repo &&
	git threadmind resolve $f >out 2>err &&
	echo "resolved $f" >expect &&
	test_cmp expect out &&
	grep "re-merged from the conflict markers in the file, against the merge base of HEAD and MERGE_HEAD" err &&
	grep "^- SIDE2$" $f &&
	grep "^- MAIN2$" $f &&
	! grep "^<<<<<<<" $f &&
	git commit -q --no-edit
'

test_expect_success '--committed re-merges from the markers even with index stages' '
	cd repo &&
	git switch -q -c side3 &&
	printf "## Decisions\n- dict\n- SIDE3\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am side3 &&
	git switch -q main &&
	printf "## Decisions\n- dict\n- MAIN3\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am main3 &&
	git config --remove-section merge.threadmind &&
	test_when_finished "git -C repo threadmind install -q" &&
	test_must_fail git merge -q side3 >/dev/null 2>&1 &&
	git threadmind resolve --committed >out 2>err &&
	grep "^resolved $f$" out &&
	grep "re-merged from the conflict markers in the file" err &&
	grep "^- SIDE3$" $f &&
	grep "^- MAIN3$" $f &&
	git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged &&
	git commit -q --no-edit
'

test_expect_success 'a prose conflict committed: the frontmatter is merged, the body keeps markers, exit 1' '
	cd repo &&
	printf "## State\nSessions live in memory.\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am p0 &&
	git switch -q -c p1 &&
	printf "## State\nSessions live in Redis.\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am p1 &&
	git switch -q main &&
	printf "## State\nSessions live in Postgres.\n" |
		git threadmind summary -q cart -F - &&
	git commit -q -am p2 &&
	git push -q ../server.git main p1 &&
	c=$(cd ../server.git && t=$(git merge-tree --write-tree main p1 | head -1) &&
		git commit-tree "$t" -p main -p p1 -m "server merge") &&
	git fetch -q ../server.git "$c" &&
	git merge -q --ff-only "$c" 2>/dev/null &&
	sed -n "2,/^---$/p" $f | grep "^<<<<<<<" &&
	test_exit_code 1 git threadmind resolve >out 2>err &&
	echo "conflicts left in $f: edit the sections between the markers, then '\''git add'\'' it" >expect &&
	test_cmp expect out &&
	sed -n "2,/^---$/p" $f >header &&
	! grep "^<<<<<<<\|^=======\|^>>>>>>>" header &&
	grep "^<<<<<<< ours$" $f &&
	grep "^Sessions live in Redis.$" $f &&
	grep "^Sessions live in Postgres.$" $f &&
	git threadmind list >out &&
	grep "^  cart " out
'

test_expect_success 'markers that do not pair up are left alone, with the reason' '
	cd repo &&
	git checkout -q -f HEAD &&
	git threadmind new Other -q >/dev/null &&
	printf "<<<<<<< x\n>>>>>>> y\n" >>.threadmind/threads/shop/other.md &&
	test_exit_code 1 git threadmind resolve .threadmind/threads/shop/other.md >out &&
	grep "^skipped .threadmind/threads/shop/other.md: the conflict opened at line [0-9]* is not closed: a line of 7 .=. then one of 7 .>. must follow it: resolve it by hand$" out &&
	grep "^>>>>>>> y$" .threadmind/threads/shop/other.md
'

test_expect_success 'a file without stages nor markers is still no conflict (128)' '
	cd repo &&
	test_exit_code 128 git threadmind resolve .threadmind/threads/shop/main.md 2>err &&
	grep "^fatal: .\.threadmind/threads/shop/main\.md. has no conflict to resolve$" err &&
	test_exit_code 128 git threadmind resolve --committed .threadmind/threads/shop/main.md
'

test_done
