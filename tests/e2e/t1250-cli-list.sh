#!/bin/sh
# git threadmind list: one line per thread, --status, --branch, --json.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop
ESC=$(printf "\033")

# list_json EXPR: python assertions on list.json (as `d`, with ids(d)).
list_json() {
	python3 -c "
import json
d = json.load(open('list.json'))
def ids(d): return [t['id'] for t in d['threads']]
def get(i): return [t for t in d['threads'] if t['id'] == i][0]
$1
"
}

test_expect_success 'setup: threads on main and on a feature branch' '
	new_repo shop &&
	(cd shop && git threadmind init -q &&
		git threadmind -q new Auth &&
		git threadmind -q new "Fix #12 login" --parent auth &&
		git checkout -q -b feature &&
		git threadmind -q new Search &&
		git threadmind -q new Filters --parent search --switch &&
		git threadmind -q new Spike &&
		git threadmind -q done spike &&
		git checkout -q main &&
		git threadmind -q new Dropped &&
		git threadmind -q abandon dropped) >/dev/null &&
	test -f $T/filters.md
'

test_expect_success 'list shows unfinished threads sorted by id' '
	(cd shop && git threadmind list) >out &&
	sed "s/^..\([^ ]*\) .*/\1/" out >ids &&
	printf "%s\n" auth filters fix-12-login main search >expect &&
	test_cmp expect ids
'

test_expect_success 'each line: id, status, updatedAt, title' '
	(cd shop && git threadmind list) >out &&
	grep -E "^  fix-12-login  active     [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z  Fix #12 login$" out &&
	grep -E "^[* ] main  +active  +[0-9T:.-]+Z  Main$" out
'

test_expect_success 'the active thread of this branch is marked' '
	(cd shop && git threadmind -q switch auth && git threadmind list) >out &&
	grep "^\* auth " out &&
	test "$(grep -c "^\*" out)" = 1 &&
	(cd shop && git checkout -q feature && git threadmind list) >out &&
	grep "^\* filters " out &&
	git -C shop checkout -q main
'

test_expect_success 'list --status' '
	(cd shop && git threadmind list --status done) >out &&
	grep "^  spike  *done " out &&
	test "$(wc -l <out)" = 1 &&
	(cd shop && git threadmind list --status abandoned) >out &&
	grep "^  dropped  *abandoned " out &&
	test "$(wc -l <out)" = 1 &&
	(cd shop && git threadmind list --status active) >out &&
	test "$(wc -l <out)" = 5 &&
	! grep -e done -e abandoned out &&
	(cd shop && git threadmind list --status all) >out &&
	test "$(wc -l <out)" = 7
'

test_expect_success 'list --all shows finished threads too' '
	(cd shop && git threadmind list --all) >out &&
	test "$(wc -l <out)" = 7 &&
	grep "^  spike  *done " out &&
	grep "^  dropped  *abandoned " out
'

test_expect_success 'list --branch' '
	(cd shop && git threadmind list --branch feature) >out &&
	sed "s/^..\([^ ]*\) .*/\1/" out >ids &&
	printf "%s\n" filters search >expect &&
	test_cmp expect ids &&
	(cd shop && git threadmind list --branch feature --status done) >out &&
	grep "^  spike " out &&
	test "$(wc -l <out)" = 1 &&
	(cd shop && git threadmind list --branch nope) >out &&
	test ! -s out
'

test_expect_success 'list --json' '
	(cd shop && git threadmind list --json) >list.json &&
	list_json "
assert d[\"project\"] == \"shop\"
assert ids(d) == [\"auth\", \"filters\", \"fix-12-login\", \"main\", \"search\"], ids(d)
assert get(\"auth\")[\"active\"] is True
assert [t[\"id\"] for t in d[\"threads\"] if t[\"active\"]] == [\"auth\"]
f = get(\"fix-12-login\")
assert f[\"title\"] == \"Fix #12 login\" and f[\"parentId\"] == \"auth\"
assert f[\"status\"] is None and f[\"flags\"] == [] and f[\"branch\"] == \"main\"
assert get(\"filters\")[\"branch\"] == \"feature\"
assert get(\"main\")[\"parentId\"] is None
assert \"children\" not in f
"
'

test_expect_success 'list --json with --status and --branch' '
	(cd shop && git threadmind list --json --status done) >list.json &&
	list_json "
assert ids(d) == [\"spike\"]
assert d[\"threads\"][0][\"status\"] == \"done\"
" &&
	(cd shop && git threadmind list --json --all --branch feature) >list.json &&
	list_json "assert ids(d) == [\"filters\", \"search\", \"spike\"], ids(d)" &&
	(cd shop && git threadmind list --json --branch nope) >list.json &&
	list_json "assert d[\"threads\"] == []"
'

test_expect_success 'list --json flags an orphan' '
	sed "s/^parentId: .*/parentId: ghost/" $T/search.md >s &&
	cat s >$T/search.md &&
	(cd shop && git threadmind list --json) >list.json &&
	list_json "
assert get(\"search\")[\"flags\"] == [\"orphan\"]
assert get(\"filters\")[\"flags\"] == []
"
'

test_expect_success 'list output has no colour when piped, colour when asked' '
	(cd shop && git threadmind list) >out &&
	! grep "$ESC" out &&
	git -C shop config color.threadmind always &&
	(cd shop && git threadmind list) >out &&
	grep "$ESC\[32m\* $ESC\[m" out &&
	(cd shop && git threadmind list --no-color) >out &&
	! grep "$ESC" out &&
	git -C shop config --unset color.threadmind
'

test_expect_success 'usage errors' '
	(cd shop && test_exit_code 129 git threadmind list main) 2>err &&
	grep "^usage: git threadmind list" err &&
	(cd shop && test_exit_code 129 git threadmind list --status) 2>err &&
	(cd shop && test_exit_code 129 git threadmind list -h) >out &&
	grep -- "--branch" out
'

test_done
