#!/bin/sh
# A missing driver never loses a side (DESIGN.md section 11): the driver
# command `install` registers falls back to `git merge-file` markers when
# git-threadmind-merge is not on the PATH of the merging process (a GUI
# client); `resolve` then merges the file by the rules.  `doctor` reports
# the old registration, which had no fallback, and `install` upgrades it.
. "$(dirname "$0")/test-lib.sh"

f=.threadmind/threads/repo/search.md

# A PATH without the build folder: git and the shell, not the driver.
NODRIVER=$(printf '%s\n' "$PATH" | tr : '\n' | grep -vxF "$TM_BUILD" |
	paste -sd: -)

test_expect_success 'setup: a thread both sides change' '
	git init -q repo && cd repo &&
	git threadmind init >/dev/null &&
	git threadmind install >/dev/null &&
	git threadmind new Search >/dev/null &&
	git add -A && git commit -q -m base &&
	git switch -q -c side &&
	printf "## Decisions\n- side: rank with BM25\n" |
		git threadmind summary search -F - &&
	git commit -q -am side &&
	git switch -q main &&
	printf "## Decisions\n- main: index with trigrams\n" |
		git threadmind summary search -F - &&
	git commit -q -am main &&
	! PATH=$NODRIVER command -v git-threadmind-merge
'

test_expect_success 'the merge without the binary keeps both sides in markers' '
	cd repo &&
	test_must_fail env PATH="$NODRIVER" git merge --no-edit side 2>err &&
	grep "^git-threadmind-merge not found: $f merged as text, run git threadmind resolve$" err &&
	grep "^<<<<<<< ours$" $f &&
	grep "^>>>>>>> theirs$" $f &&
	grep "^- side: rank with BM25$" $f &&
	grep "^- main: index with trigrams$" $f &&
	git diff --name-only --diff-filter=U >unmerged &&
	grep "^$f$" unmerged
'

test_expect_success 'status, doctor and tree name resolve' '
	cd repo &&
	git threadmind status >out &&
	grep "^conflicts: $f (run .git threadmind resolve.)$" out &&
	test_exit_code 1 git threadmind doctor >out &&
	grep "^conflict: .$f. is unmerged" out &&
	git threadmind tree >/dev/null 2>err &&
	grep "^warning: skipping .*$f.: it holds merge conflict markers; run .git threadmind resolve.$" err
'

test_expect_success 'resolve merges it by the rules and stages it' '
	cd repo &&
	git threadmind resolve >out &&
	grep "^resolved $f$" out &&
	! grep "^<<<<<<<\|^=======\|^>>>>>>>" $f &&
	grep "^- side: rank with BM25$" $f &&
	grep "^- main: index with trigrams$" $f &&
	git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged &&
	git commit -q --no-edit &&
	git threadmind status >out &&
	! grep "^conflicts:" out
'

test_expect_success 'with the binary on PATH the same command runs the driver' '
	cd repo &&
	git switch -q -c side2 &&
	printf "## Decisions\n- side: rank with BM25\n- side2\n" |
		git threadmind summary search -F - &&
	git commit -q -am side2 &&
	git switch -q main &&
	printf "## Decisions\n- side: rank with BM25\n- main2\n" |
		git threadmind summary search -F - &&
	git commit -q -am main2 &&
	git merge -q --no-edit side2 2>err &&
	! grep "not found" err &&
	grep "^- side2$" $f &&
	grep "^- main2$" $f
'

test_expect_success 'doctor reports an old-style registration, install upgrades it' '
	cd repo &&
	git config merge.threadmind.driver "git-threadmind-merge %O %A %B %L %P" &&
	test_exit_code 1 git threadmind doctor >out &&
	grep "^merge-driver: .*old-style registration.*git threadmind install" out &&
	git threadmind install >out &&
	grep "upgrade merge.threadmind.driver" out &&
	git config merge.threadmind.driver >driver &&
	grep "git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B" driver &&
	git threadmind doctor >out &&
	! grep "^merge-driver" out
'

test_expect_success 'markers staged by hand are still reported' '
	cd repo &&
	printf -- "---\nid: x\ntitle: X\n<<<<<<< ours\nparentId: main\n=======\nparentId: search\n>>>>>>> theirs\n---\n" \
		>.threadmind/threads/repo/x.md &&
	git add .threadmind/threads/repo/x.md &&
	git threadmind status >out &&
	grep "^conflicts: .threadmind/threads/repo/x.md (run .git threadmind resolve.)$" out &&
	test_exit_code 1 git threadmind doctor >out &&
	grep "^conflict: .\.threadmind/threads/repo/x.md. holds merge conflict markers" out &&
	git threadmind list >/dev/null 2>err &&
	grep "x.md.: it holds merge conflict markers; run .git threadmind resolve.$" err &&
	git rm -q -f .threadmind/threads/repo/x.md &&
	git threadmind doctor
'

test_done
