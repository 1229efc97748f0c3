#!/bin/sh
# Staleness for teams (DESIGN.md section 11): review points after merging
# two reviewed branches, `stale --exit-code` in a `--depth 1` clone, and the
# CI gate of docs/ci.md (a bare remote, clones as CI makes them).
. "$(dirname "$0")/test-lib.sh"

# review MSG: touch thread auth (its summary is reviewed) and commit it.
review() {
	git threadmind touch auth >/dev/null 2>&1 &&
	git add -A && test_tick && git commit -q -m "$1"
}

stale_ids() {
	git threadmind stale --json >out &&
	python3 -c "import json; print(\" \".join(x[\"id\"] for x in json.load(open(\"out\"))[\"stale\"]))"
}

test_expect_success 'setup: a repository with the driver and a thread on src' '
	git init -q app && cd app &&
	printf "out\nerr\n" >>.git/info/exclude &&
	change start src/a.c src/b.c README &&
	git threadmind init >/dev/null &&
	git threadmind install >/dev/null 2>&1 &&
	git threadmind new Auth --paths src >/dev/null &&
	echo "- tokens in src" | git threadmind summary -q auth -F - &&
	git add -A && test_tick && git commit -q -m "threadmind store" &&
	test_exit_code 0 git threadmind stale --exit-code >/dev/null 2>&1
'

test_expect_success 'review points: a thread reviewed on two merged branches is not stale' '
	cd app &&
	git checkout -q -b one &&
	change one src/a.c && review "review one" &&
	git checkout -q -b two main &&
	change two src/b.c && review "review two" &&
	git checkout -q main &&
	test_tick && git merge -q --no-edit one &&
	test_tick && git merge -q --no-edit two >/dev/null &&
	test -z "$(git status --porcelain)" &&
	# the merged file records one side only
	commit=$(sed -n "s/^commit: //p" .threadmind/threads/app/auth.md) &&
	test "$commit" = "$(git rev-parse one~1)" ||
	test "$commit" = "$(git rev-parse two~1)" &&
	test "$(stale_ids)" = "" &&
	test_exit_code 0 git threadmind stale --exit-code >/dev/null 2>&1
'

test_expect_success 'review points: an unreviewed branch merged makes it stale' '
	cd app &&
	git checkout -q -b three main &&
	change three src/a.c &&
	git checkout -q main &&
	test_tick && git merge -q --no-edit --no-ff three &&
	test "$(stale_ids)" = "auth" &&
	test_exit_code 1 git threadmind stale --exit-code >/dev/null 2>&1 &&
	review "review three" &&
	test "$(stale_ids)" = ""
'

test_expect_success 'a --depth 1 clone: unknown base, says so, --exit-code fails' '
	git clone -q --depth 1 "file://$TEST_ROOT/app" shallow &&
	cd shallow &&
	printf "out\nerr\n" >>.git/info/exclude &&
	test_exit_code 1 git threadmind stale --exit-code >out 2>err &&
	grep "^unknown base commit (not in this repository): auth$" out &&
	grep "this clone is shallow" err &&
	grep "git fetch --unshallow" err &&
	grep "fetch-depth: 0" err &&
	test_exit_code 1 git threadmind stale --exit-code --json >out 2>err &&
	python3 -c "import json; d=json.load(open(\"out\")); assert d[\"unknownBase\"]==[\"auth\"] and d[\"stale\"]==[], d" &&
	grep "git fetch --unshallow" err &&
	git fetch -q --unshallow &&
	test_exit_code 0 git threadmind stale --exit-code >out 2>err &&
	! grep shallow err &&
	# no progress into a pipe or a file
	! grep -i "indexing history" err
'

test_expect_success 'the cache: in the git dir, a second run reads it, a broken one is rebuilt' '
	cd app &&
	rm -f .git/threadmind/stale.cache &&
	git threadmind stale --json >first &&
	test -s .git/threadmind/stale.cache &&
	test -z "$(find . -path ./.git -prune -o -name "*cache*" -print)" &&
	! git status --porcelain --ignored | grep cache &&
	git threadmind stale --json >second &&
	cmp first second &&
	printf garbage >.git/threadmind/stale.cache &&
	git threadmind stale --json >third &&
	cmp first third &&
	git threadmind status >out &&
	grep "^stale: 0$" out &&
	! grep garbage .git/threadmind/stale.cache
'

test_expect_success 'the CI gate (docs/ci.md) fails a change under paths without review' '
	git clone -q --bare app remote.git &&
	git clone -q "file://$TEST_ROOT/remote.git" dev &&
	(cd dev && printf "out\nerr\n" >>.git/info/exclude &&
	 git checkout -q -b pr-bad && change bad src/b.c &&
	 git push -q origin pr-bad 2>/dev/null &&
	 git checkout -q -b pr-good main && change good src/b.c &&
	 review "review good" && git push -q origin pr-good 2>/dev/null) &&
	for pr in pr-bad pr-good; do
		git clone -q --depth 1 -b $pr "file://$TEST_ROOT/remote.git" ci-$pr &&
		(cd ci-$pr &&
		 { git fetch -q --unshallow || true; } &&
		 git threadmind stale --exit-code) >ci-$pr.out 2>&1
		echo $? >ci-$pr.rc
	done &&
	test "$(cat ci-pr-bad.rc)" = 1 &&
	grep "1 stale thread" ci-pr-bad.out &&
	test "$(cat ci-pr-good.rc)" = 0 &&
	grep "no stale threads" ci-pr-good.out
'

test_done
