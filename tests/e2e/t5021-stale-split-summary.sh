#!/bin/sh
# Staleness follows a thread across a same-id split's rename (issue 25
# r04): the versions of the old file that carry the thread's identity
# (createdAt and author) are its versions.  A thread whose summary is blank
# is never stale, for `stale`, post-commit and post-merge alike; status and
# tree say "no summary yet" instead (issue 25 r13).
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop

# stale_ids: the ids `stale --json` reports stale, space-separated.
stale_ids() {
	git threadmind stale --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join(e["id"] for e in json.load(sys.stdin)["stale"]))'
}

# thread_of FILE: the id of the thread of the split whose paths name FILE
# (search or search-2, whichever side kept the id).
thread_of() {
	for f in $T/search.md $T/search-2.md; do
		case "$(fm $f paths)" in *"$1"*) basename $f .md ;; esac
	done
}

test_expect_success 'r04 setup: two people create Search on two branches, code and thread together' '
	git init -q shop && cd shop &&
	printf "out\nerr\n" >>.git/info/exclude &&
	mkdir src && echo x >src/app.py && git add -A && test_tick &&
	git commit -q -m init &&
	git threadmind init -q --title Shop && git threadmind install -q &&
	git add -A && test_tick && git commit -q -m tm &&
	git switch -q -c carol/search &&
	git -c user.name=carol -c user.email=carol@ex.com threadmind new Search \
		--paths src/search/engine.py -q >/dev/null &&
	mkdir -p src/search && echo "def engine(): pass" >src/search/engine.py &&
	printf "## Decisions\n- sqlite FTS5\n" | git threadmind summary -q search -F - &&
	git add -A && test_tick &&
	git -c user.name=carol -c user.email=carol@ex.com commit -q -m "search: engine + thread" &&
	sleep 1 &&
	git switch -q -c alice/search main &&
	git threadmind new Search --paths src/search/api.py -q >/dev/null &&
	mkdir -p src/search && echo "def api(): pass" >src/search/api.py &&
	printf "## Decisions\n- REST api\n" | git threadmind summary -q search -F - &&
	git add -A && test_tick && git commit -q -m "search: api + thread" &&
	test "$(stale_ids)" = ""
'

test_expect_success 'r04: after the merge and the split, neither thread is stale for its own commit' '
	cd shop &&
	test_tick && git merge -q --no-edit carol/search >/dev/null 2>&1;
	git threadmind resolve >/dev/null 2>&1 &&
	test_tick && git commit -q --no-edit &&
	test -f $T/search.md && test -f $T/search-2.md &&
	carol=$(thread_of engine.py) && alice=$(thread_of api.py) &&
	test -n "$carol" && test -n "$alice" && test "$carol" != "$alice" &&
	git threadmind stale >out 2>err &&
	test ! -s out &&
	test "$(cat err)" = "no stale threads" &&
	test_exit_code 0 git threadmind stale --exit-code >/dev/null 2>&1
'

test_expect_success 'r04: the split threads still see their own later changes, and only those' '
	cd shop &&
	carol=$(thread_of engine.py) && alice=$(thread_of api.py) &&
	change "engine v2" src/search/engine.py &&
	test "$(stale_ids)" = "$carol" &&
	change "api v2" src/search/api.py &&
	test "$(stale_ids)" = "$(printf "%s\n" "$alice" "$carol" | sort | tr "\n" " " | sed "s/ $//")" &&
	git threadmind touch -q "$carol" && git threadmind touch -q "$alice" &&
	git add -A && test_tick && git commit -q -m reviewed &&
	test "$(stale_ids)" = ""
'

test_expect_success 'r13 setup: a thread made for code about to be written, no summary yet' '
	git init -q app && cd app &&
	printf "out\nerr\n" >>.git/info/exclude &&
	echo r >README && git add -A && test_tick && git commit -q -m init &&
	git threadmind init -q && git threadmind install -q &&
	git add -A && test_tick && git commit -q -m tm &&
	git threadmind new OAuth --paths src/oauth.py --switch -q >/dev/null 2>&1 &&
	git add .threadmind && test_tick && git commit -q -m thread
'

test_expect_success 'r13: its code committed: post-commit is silent, stale says nothing' '
	cd app &&
	mkdir -p src && echo "def cb(): pass" >src/oauth.py && git add src &&
	test_tick && git commit -q -m "oauth code" 2>err &&
	test ! -s err &&
	git threadmind stale >out 2>err &&
	test ! -s out && test "$(cat err)" = "no stale threads" &&
	test_exit_code 0 git threadmind stale --exit-code >/dev/null 2>&1 &&
	test "$(stale_ids)" = ""
'

test_expect_success 'r13: status and tree say "no summary yet" instead' '
	cd app &&
	git threadmind status >out &&
	grep "^stale: 0$" out &&
	grep "^no summary yet: oauth (git threadmind summary <thread>)$" out &&
	git threadmind tree --no-color >out &&
	grep "oauth  OAuth (no summary yet)$" out &&
	grep "main  Main$" out &&
	git threadmind tree --json >out &&
	python3 -c "
import json
d = json.load(open(\"out\"))
assert d[\"roots\"][0][\"children\"][0][\"flags\"] == [], d"
'

test_expect_success 'r13: once summarised, the thread is watched like any other' '
	cd app &&
	printf "## Decisions\n- PKCE\n" | git threadmind summary -q oauth -F - &&
	git add -A && test_tick && git commit -q -m "oauth summary" 2>err &&
	test ! -s err &&
	git threadmind status >out &&
	! grep "no summary yet" out &&
	echo "def refresh(): pass" >>src/oauth.py &&
	test_tick && git commit -q -a -m "oauth refresh" 2>err &&
	echo "threadmind: summaries may be outdated: oauth (git threadmind stale)" >expect &&
	test_cmp expect err &&
	test "$(stale_ids)" = "oauth" &&
	git threadmind tree --no-color >out &&
	grep "oauth  OAuth (stale)$" out
'

test_expect_success 'r13: a summary blanked by hand: the caches give the new answer' '
	cd app &&
	test "$(stale_ids)" = "oauth" &&
	git threadmind status >out && grep "^stale: 1 " out &&
	# the body emptied by hand: commit and paths unchanged
	f=.threadmind/threads/app/oauth.md &&
	awk "NR == 1 || !done { print } /^---\$/ && NR > 1 { done = 1 }" \
		$f >tmp &&
	mv tmp $f && test "$(tail -n 1 $f)" = "---" &&
	test "$(stale_ids)" = "" &&
	git threadmind status >out &&
	grep "^stale: 0$" out &&
	grep "^no summary yet: oauth " out &&
	git add -A && test_tick && git commit -q -m "blank summary" 2>err &&
	echo "def again(): pass" >>src/oauth.py &&
	test_tick && git commit -q -a -m "oauth again" 2>err &&
	test ! -s err
'

test_expect_success 'r13: post-merge does not flag a thread without a summary' '
	cd app &&
	git add -A && THREADMIND_HOOKS=0 git commit -q --allow-empty -m state &&
	test "$(tail -n 1 .threadmind/threads/app/oauth.md)" = "---" &&
	git switch -q -c side &&
	echo "def side(): pass" >>src/oauth.py &&
	THREADMIND_HOOKS=0 git commit -q -a -m side &&
	git switch -q main 2>/dev/null &&
	echo x >>README && THREADMIND_HOOKS=0 git commit -q -a -m readme &&
	test_tick && git merge -q --no-edit side 2>err &&
	test "$(git rev-list --count --merges HEAD^..HEAD)" = 1 &&
	! grep "outdated" err
'

test_done
