#!/bin/sh
# Review points that survive history rewriting (DESIGN.md section 11,
# issue 25 r01 and r02): after `pull --rebase`, `commit --amend` or a
# squash merge, a version of a thread file whose `commit` HEAD no longer
# reaches is reviewed at the commit that introduced it, in the author's
# clone (where the old commit lies dangling), a teammate's and a CI clone
# alike; "unknown base" is left for a shallow clone, with its remedy, and
# is never followed by "no stale threads".  threadmind.rewriteCommits is
# never set.
. "$(dirname "$0")/test-lib.sh"

test_person alice &&
test_person bob || exit 1

# ids of the stale threads (space-separated) and of the unknown bases, from
# `stale --json` run in the current folder: "stale=<ids> unknown=<ids>".
answer() {
	git threadmind stale --json >answer.json 2>/dev/null
	python3 -c '
import json
d = json.load(open("answer.json"))
print("stale=%s unknown=%s" % (" ".join(e["id"] for e in d["stale"]),
                               " ".join(d["unknownBase"])))'
}

# newest DIR ID: the newest commit `stale --json` gives thread ID in DIR.
newest() {
	(cd "$1" && git threadmind stale --json 2>/dev/null) | python3 -c '
import json, sys
print([e["newestCommit"] for e in json.load(sys.stdin)["stale"]
       if e["id"] == sys.argv[1]][0])' "$2"
}

# reviewed FILE: the `commit` the thread file names.
reviewed() {
	sed -n 's/^commit: //p' "$1"
}

CART=.threadmind/threads/shop/cart.md

test_expect_success 'setup: a remote, alice with a reviewed thread, bob' '
	git init -q --bare -b main remote.git &&
	as_person alice git clone -q "file://$TEST_ROOT/remote.git" alice 2>/dev/null &&
	(cd alice &&
	 printf "answer.json\n" >>.git/info/exclude &&
	 mkdir -p src/cart && echo "class Cart: pass" >src/cart/cart.py &&
	 git add -A && test_tick && as_person alice git commit -q -m init &&
	 as_person alice git threadmind init -q --title Shop &&
	 as_person alice git threadmind install -q &&
	 as_person alice git threadmind new Cart --paths src/cart -q >/dev/null &&
	 printf "## Decisions\n- dict sku->qty\n" |
		as_person alice git threadmind summary -q cart -F - &&
	 git add -A && test_tick && as_person alice git commit -q -m threads &&
	 as_person alice git push -q origin main) 2>/dev/null &&
	as_person bob git clone -q "file://$TEST_ROOT/remote.git" bob &&
	(cd bob && printf "answer.json\n" >>.git/info/exclude &&
	 as_person bob git threadmind install -q)
'

test_expect_success 'r01: code, touch, commit of the thread file: not stale' '
	(cd alice &&
	 echo "    def remove(self, s): pass" >>src/cart/cart.py &&
	 test_tick && as_person alice git commit -q -a -m "cart: remove()" &&
	 as_person alice git threadmind touch -q cart &&
	 test_tick && as_person alice git commit -q -a -m "threadmind: cart reviewed" &&
	 test "$(answer)" = "stale= unknown=" &&
	 test "$(reviewed $CART)" = "$(git rev-parse HEAD~1)") 2>/dev/null
'

test_expect_success 'r01: after pull --rebase, the author is not told her review is stale' '
	(cd bob && echo "# Shop" >README.md && git add README.md &&
	 test_tick && as_person bob git commit -q -m readme &&
	 as_person bob git push -q origin main) 2>/dev/null &&
	(cd alice &&
	 old=$(reviewed $CART) &&
	 test_tick && as_person alice git pull -q --rebase >/dev/null 2>&1 &&
	 # the reviewed commit lies dangling: still here, not in HEAD
	 git cat-file -e "$old^{commit}" &&
	 test_must_fail git merge-base --is-ancestor "$old" HEAD &&
	 test "$(reviewed $CART)" = "$old" &&
	 test "$(answer)" = "stale= unknown=" &&
	 test_exit_code 0 as_person alice git threadmind stale --exit-code >out 2>err &&
	 test ! -s out &&
	 test "$(cat err)" = "no stale threads" &&
	 test -z "$(git config threadmind.rewriteCommits)")
'

test_expect_success 'r01: once pushed, a teammate and a full CI clone pass the gate' '
	(cd alice && as_person alice git push -q origin main) 2>/dev/null &&
	(cd bob && test_tick && as_person bob git pull -q --no-edit 2>/dev/null &&
	 test_exit_code 0 as_person bob git threadmind stale --exit-code >out 2>err &&
	 test ! -s out && test "$(cat err)" = "no stale threads") &&
	git clone -q "file://$TEST_ROOT/remote.git" ci &&
	(cd ci &&
	 # here the reviewed commit does not exist at all
	 test_must_fail git cat-file -e "$(reviewed $CART)^{commit}" &&
	 test_exit_code 0 git threadmind stale --exit-code >out 2>err &&
	 test ! -s out && test "$(cat err)" = "no stale threads")
'

test_expect_success 'r01: touch then commit --amend: the amended commit is the review point' '
	(cd alice &&
	 echo "    def clear(self): pass" >>src/cart/cart.py &&
	 test_tick && as_person alice git commit -q -a -m "cart: clear()" &&
	 as_person alice git threadmind touch -q cart &&
	 test_tick && as_person alice git commit -q -a --amend --no-edit &&
	 as_person alice git push -q origin main &&
	 test "$(answer)" = "stale= unknown=") >/dev/null 2>&1 &&
	rm -rf ci && git clone -q "file://$TEST_ROOT/remote.git" ci &&
	(cd ci &&
	 test_must_fail git cat-file -e "$(reviewed $CART)^{commit}" &&
	 test_exit_code 0 git threadmind stale --exit-code >out 2>err &&
	 test "$(cat err)" = "no stale threads")
'

test_expect_success 'r01: a change after the rewritten review is stale, everywhere alike' '
	(cd bob && test_tick && as_person bob git pull -q --no-edit &&
	 echo "    def total(self): pass" >>src/cart/cart.py &&
	 test_tick && as_person bob git commit -q -a -m "cart: total()" &&
	 as_person bob git push -q origin main) >/dev/null 2>&1 &&
	(cd alice && as_person alice git pull -q --rebase) >/dev/null 2>&1 &&
	rm -rf ci && git clone -q "file://$TEST_ROOT/remote.git" ci &&
	want=$(git -C ci rev-parse HEAD) &&
	for d in alice bob ci; do
		(cd $d && test "$(answer)" = "stale=cart unknown=" &&
		 test_exit_code 1 git threadmind stale --exit-code >/dev/null 2>&1) &&
		test "$(newest $d cart)" = "$want" || return 1
	done &&
	(cd ci && git threadmind stale >out 2>err &&
	 grep "^    newest: $(git rev-parse --short HEAD) cart: total()$" out &&
	 grep "^    changed: src/cart/cart.py$" out &&
	 test "$(cat err)" = "1 stale thread: review the summary, then run '\''git threadmind touch <thread>'\''")
'

test_expect_success 'r02: a squash-merged, deleted branch: every clone passes the gate' '
	(cd alice &&
	 as_person alice git threadmind touch -q cart &&
	 test_tick && as_person alice git commit -q -a -m "cart reviewed" &&
	 as_person alice git push -q origin main &&
	 as_person alice git switch -q -c feature/oauth &&
	 mkdir -p src/auth && echo "def oauth(): pass" >src/auth/oauth.py &&
	 git add -A && test_tick && as_person alice git commit -q -m "auth: oauth" &&
	 as_person alice git threadmind new OAuth --paths src/auth/oauth.py -q >/dev/null &&
	 printf "## Decisions\n- provider.exchange\n" |
		as_person alice git threadmind summary -q oauth -F - &&
	 git add -A && test_tick && as_person alice git commit -q -m "threadmind: oauth" &&
	 as_person alice git push -q -u origin feature/oauth &&
	 test "$(answer)" = "stale= unknown=" &&
	 as_person alice git switch -q main &&
	 as_person alice git merge -q --squash feature/oauth &&
	 test_tick && as_person alice git commit -q -m "OAuth (#12, squashed)" &&
	 as_person alice git push -q origin main &&
	 as_person alice git push -q origin --delete feature/oauth &&
	 test "$(answer)" = "stale= unknown=" &&
	 test_exit_code 0 as_person alice git threadmind stale --exit-code) >/dev/null 2>&1 &&
	rm -rf ci && git clone -q "file://$TEST_ROOT/remote.git" ci &&
	(cd ci &&
	 test_must_fail git cat-file -e \
		"$(reviewed .threadmind/threads/shop/oauth.md)^{commit}" &&
	 test_exit_code 0 git threadmind stale --exit-code >out 2>err &&
	 test ! -s out && test "$(cat err)" = "no stale threads")
'

test_expect_success 'r02: a later unreviewed change of the squashed code is stale' '
	(cd alice && echo "def refresh(): pass" >>src/auth/oauth.py &&
	 test_tick && as_person alice git commit -q -a -m "auth: refresh" &&
	 as_person alice git push -q origin main) >/dev/null 2>&1 &&
	rm -rf ci && git clone -q "file://$TEST_ROOT/remote.git" ci &&
	(cd ci && test "$(answer)" = "stale=oauth unknown=") &&
	test "$(newest ci oauth)" = "$(git -C ci rev-parse HEAD)" &&
	test "$(newest alice oauth)" = "$(git -C ci rev-parse HEAD)"
'

test_expect_success 'a shallow clone: unknown base with its remedy, never "no stale threads"' '
	(cd alice && as_person alice git threadmind touch -q oauth &&
	 test_tick && as_person alice git commit -q -a -m "oauth reviewed" &&
	 as_person alice git push -q origin main) >/dev/null 2>&1 &&
	git clone -q --depth 1 "file://$TEST_ROOT/remote.git" shallow &&
	(cd shallow &&
	 printf "answer.json\nout\nerr\n" >>.git/info/exclude &&
	 test "$(answer)" = "stale= unknown=cart oauth" &&
	 test_exit_code 1 git threadmind stale --exit-code >out 2>err &&
	 echo "unknown base commit (not in this repository): cart oauth" >expect &&
	 test_cmp expect out &&
	 echo "2 threads with an unknown base: this clone is shallow and the commits reviewed may lie beyond its boundary; deepen it with '\''git fetch --unshallow'\'' (GitHub Actions: actions/checkout with '\''fetch-depth: 0'\'')" >expect &&
	 test_cmp expect err &&
	 test_exit_code 1 git threadmind stale --exit-code --json >/dev/null 2>err &&
	 grep "fetch-depth: 0" err &&
	 git fetch -q --unshallow &&
	 test_exit_code 0 git threadmind stale --exit-code >out 2>err &&
	 test ! -s out && test "$(cat err)" = "no stale threads")
'

test_expect_success 'a review not committed that names a missing commit: unknown, with its remedy' '
	(cd ci &&
	 sed "s/^commit: .*/commit: 0123456789abcdef0123456789abcdef01234567/" \
		.threadmind/threads/shop/cart.md >tmp &&
	 mv tmp .threadmind/threads/shop/cart.md &&
	 test_exit_code 1 git threadmind stale --exit-code >out 2>err &&
	 grep "^unknown base commit (not in this repository): cart$" out &&
	 grep "^1 stale thread: " err &&
	 grep "^1 thread with an unknown base: its '\''commit'\'' names a commit this repository does not have; fetch it, or review the summary and run '\''git threadmind touch <thread>'\''$" err &&
	 ! grep "no stale threads" err &&
	 tail -n 1 err | grep "^1 thread with an unknown base: ")
'

test_done
