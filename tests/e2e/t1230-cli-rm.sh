#!/bin/sh
# git threadmind rm: children move up (or go with --recursive), config.json
# forgets the deleted threads, main and bad arguments are refused.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop
C=shop/.threadmind/config.json

# config EXPR: assert a python expression on config.json (as `c`).
config() {
	python3 -c "import json,sys; c = json.load(open(sys.argv[1])); assert $1, c" "$C"
}

test_expect_success 'setup: auth with auth-ui and auth-api (with deep)' '
	new_repo shop &&
	(cd shop && git threadmind init -q >/dev/null &&
		git threadmind -q new Auth &&
		git threadmind -q new "Auth UI" --parent auth &&
		git threadmind -q new "Auth API" --parent auth &&
		git threadmind -q new Deep --parent auth-api &&
		git threadmind -q new Billing &&
		git threadmind -q new Old --parent billing) >/dev/null &&
	test -f $T/deep.md && test -f $T/old.md
'

test_expect_success 'rm moves the children to the parent' '
	age $T/auth-ui.md && age $T/deep.md &&
	cp $T/deep.md deep.before &&
	(cd shop && git threadmind rm auth) 2>err &&
	grep "Removed thread .auth.; 2 children moved to .main." err &&
	test ! -e $T/auth.md &&
	test "$(fm $T/auth-ui.md parentId)" = main &&
	test "$(fm $T/auth-api.md parentId)" = main &&
	test "$(fm $T/auth-ui.md updatedAt)" != 2020-01-01T00:00:00.000Z &&
	test_cmp deep.before $T/deep.md &&
	test ! -e shop/.threadmind/.lock
'

test_expect_success 'the tree stays connected after rm' '
	(cd shop && git threadmind tree --json) >tree.json &&
	python3 -c "
import json
d = json.load(open(\"tree.json\"))
assert len(d[\"roots\"]) == 1, d[\"roots\"]
kids = [c[\"id\"] for c in d[\"roots\"][0][\"children\"]]
assert kids == [\"auth-ui\", \"auth-api\", \"billing\"], kids
api = d[\"roots\"][0][\"children\"][1]
assert [c[\"id\"] for c in api[\"children\"]] == [\"deep\"], api
assert api[\"children\"][0][\"depth\"] == 2
"
'

test_expect_success 'rm --recursive removes the whole subtree' '
	cp $T/billing.md billing.before &&
	(cd shop && git threadmind rm --recursive auth-api) 2>err &&
	grep "Removed 2 threads: .auth-api. and its subtree" err &&
	test ! -e $T/auth-api.md &&
	test ! -e $T/deep.md &&
	test -f $T/auth-ui.md &&
	test_cmp billing.before $T/billing.md
'

test_expect_success 'rm forgets the thread in config.json, keeps the rest' '
	(cd shop && git threadmind -q switch billing) &&
	config "c[\"activeThreadId\"] == \"billing\"" &&
	config "c[\"branchThreads\"][\"shop\"][\"main\"] == \"billing\"" &&
	python3 -c "
import json
c = json.load(open(\"$C\"))
c[\"sessions\"] = [{\"id\": \"s1\"}]
c[\"branchThreads\"][\"shop\"][\"feature\"] = \"auth-ui\"
c[\"branchThreads\"][\"other\"] = {\"main\": \"billing\"}
c[\"x-custom\"] = 42
json.dump(c, open(\"$C\", \"w\"), indent=2)
" &&
	(cd shop && git threadmind rm -r billing) &&
	test ! -e $T/billing.md && test ! -e $T/old.md &&
	config "c[\"activeThreadId\"] is None" &&
	config "\"main\" not in c[\"branchThreads\"][\"shop\"]" &&
	config "c[\"branchThreads\"][\"shop\"][\"feature\"] == \"auth-ui\"" &&
	config "c[\"branchThreads\"][\"other\"] == {\"main\": \"billing\"}" &&
	config "c[\"sessions\"] == [{\"id\": \"s1\"}]" &&
	config "c[\"x-custom\"] == 42" &&
	config "c[\"activeProjectId\"] == \"shop\"" &&
	(cd shop && git threadmind status) >out &&
	grep "^active thread: " out &&
	! grep "^active thread: billing" out
'

test_expect_success 'rm refuses main, with or without --recursive' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind rm main) 2>err &&
	grep "^fatal: cannot remove .main.: it is the project.s root thread" err &&
	(cd shop && test_exit_code 128 git threadmind rm --recursive main) &&
	(cd shop && test_exit_code 128 git threadmind rm ma) &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'rm -r refuses a subtree holding main' '
	(cd shop && git threadmind -q new Top) >/dev/null &&
	setparent $T/top.md null &&
	setparent $T/main.md top &&
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind rm -r top) 2>err &&
	grep "^fatal: cannot remove .top. recursively: the root thread .main. is below it" err &&
	snap shop >after &&
	test_cmp before after &&
	setparent $T/main.md null &&
	(cd shop && git threadmind -q rm top) &&
	test ! -e $T/top.md
'

test_expect_success 'unknown, ambiguous and bad thread arguments' '
	(cd shop && git threadmind -q new "Auth API") >/dev/null &&
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind rm nope) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd shop && test_exit_code 128 git threadmind rm auth-) 2>err &&
	grep "^fatal: .auth-. is ambiguous: auth-api, auth-ui" err &&
	(cd shop && test_exit_code 128 git threadmind rm ../x) &&
	(cd shop && test_exit_code 128 git threadmind rm -r ../../etc) &&
	(cd shop && test_exit_code 128 git threadmind rm Foo) &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'a corrupt config.json stops rm before any change' '
	cp $C config.good &&
	printf "{\"activeThreadId\": \"auth-ui\",\n  oops\n}\n" >$C &&
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind rm auth-ui) 2>err &&
	grep "^fatal: .*config.json" err &&
	grep "line 2" err &&
	snap shop >after &&
	test_cmp before after &&
	cp config.good $C
'

test_expect_success 'children of an orphan keep its missing parent' '
	(cd shop && git threadmind -q new Lost &&
		git threadmind -q new Kid --parent lost) >/dev/null &&
	setparent $T/lost.md ghost &&
	(cd shop && git threadmind rm lost) 2>err &&
	grep "1 child moved to .ghost." err &&
	test "$(fm $T/kid.md parentId)" = ghost &&
	(cd shop && git threadmind tree) >out &&
	grep "kid  Kid (orphan: parent .ghost. missing)" out
'

test_expect_success 'children of a root become roots' '
	(cd shop && git threadmind -q new Solo &&
		git threadmind -q new Under --parent solo) >/dev/null &&
	setparent $T/solo.md null &&
	(cd shop && git threadmind rm solo) 2>err &&
	grep "1 child moved to the top" err &&
	test "$(fm $T/under.md parentId)" = null
'

test_expect_success 'in a two-thread cycle the other thread becomes a root' '
	(cd shop && git threadmind -q new Ping &&
		git threadmind -q new Pong --parent ping) >/dev/null &&
	setparent $T/ping.md pong &&
	(cd shop && git threadmind tree) >out &&
	grep "cycle" out &&
	(cd shop && git threadmind rm ping) &&
	test "$(fm $T/pong.md parentId)" = null &&
	(cd shop && git threadmind tree) >out &&
	! grep cycle out
'

test_expect_success 'rm of a done leaf, and by prefix' '
	(cd shop && git threadmind -q new Finished &&
		git threadmind -q done finished &&
		git threadmind rm fin) 2>err &&
	grep "^Removed thread .finished.$" err &&
	test ! -e $T/finished.md
'

test_expect_success 'usage errors' '
	(cd shop && test_exit_code 129 git threadmind rm) 2>err &&
	grep "^usage: git threadmind rm <thread> \[--recursive\]" err &&
	(cd shop && test_exit_code 129 git threadmind rm a b) &&
	(cd shop && test_exit_code 129 git threadmind rm --force auth-ui) &&
	test -f $T/auth-ui.md &&
	(cd shop && test_exit_code 129 git threadmind rm -h) >out &&
	grep "recursive" out
'

test_done
