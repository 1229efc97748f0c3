#!/bin/sh
# A fresh clone of a store with two projects, through a bare remote, by a
# second person (own HOME): read commands cover every project, write
# commands ask for --project, hooks stay silent (DESIGN.md section 11).
. "$(dirname "$0")/test-lib.sh"

test_person bob 'B O B'

HINT="hint: after cloning, each teammate puts git-threadmind and git-threadmind-merge on PATH and runs .git threadmind install. (once per clone; .git threadmind install --global. once per user)"

test_expect_success 'init and install print the line a teammate needs' '
	new_repo shop &&
	(cd shop && git threadmind init) 2>err &&
	grep "^$HINT$" err &&
	(cd shop && git threadmind install) >out 2>err &&
	grep "^$HINT$" out &&
	test ! -s err &&
	(cd shop && git threadmind -q install) >out 2>err &&
	! grep hint: out err &&
	(cd shop && git threadmind install --global) >out 2>&1 &&
	! grep "^$HINT$" out &&
	git config --global --remove-section merge.threadmind &&
	(cd shop && git threadmind uninstall) >out 2>&1 &&
	! grep "^$HINT$" out
'

test_expect_success 'a store with two projects is pushed to a bare remote' '
	(cd shop &&
		git threadmind project new "Back Office" 2>/dev/null &&
		git threadmind new "Search" -q &&
		git threadmind --project back-office new "Invoices" -q &&
		git add -A && git commit -q -m threads) &&
	git clone -q --bare shop remote.git
'

test_expect_success 'the clone has no config.json' '
	as_person bob git clone -q remote.git bob-shop &&
	test -d bob-shop/.threadmind/projects &&
	test ! -e bob-shop/.threadmind/config.json
'

test_expect_success 'hooks installed in the clone stay silent' '
	(cd bob-shop && as_person bob git threadmind install >/dev/null) &&
	(cd bob-shop && echo more >>README && as_person bob git commit -q -a -m more &&
		as_person bob git switch -q -c feature/x && as_person bob git switch -q main) \
		2>err &&
	test ! -s err
'

test_expect_success 'status covers every project, grouped by project id' '
	(cd bob-shop && as_person bob git threadmind status) >out 2>err &&
	grep "^project: back-office (Back Office)$" out &&
	grep "^project: shop (shop)$" out &&
	grep -n "^project: " out | cut -d: -f1 >lines &&
	test "$(head -n 1 lines)" = 1 &&
	test "$(wc -l <lines)" = 2 &&
	test ! -s err
'

test_expect_success 'tree and list group the threads by project' '
	(cd bob-shop && as_person bob git threadmind --ascii tree) >out &&
	sed -n 1p out >first &&
	grep "^project: back-office" first &&
	awk "/^project: back-office/{p=1} /^project: shop/{p=2} /invoices/{i=p} /search/{s=p} END{exit !(i==1 && s==2)}" out &&
	(cd bob-shop && as_person bob git threadmind list) >out &&
	awk "/^project: back-office/{p=1} /^project: shop/{p=2} /^. *invoices /{i=p} /^. *search /{s=p} END{exit !(i==1 && s==2)}" out
'

test_expect_success 'list --json is one document with a member per project' '
	(cd bob-shop && as_person bob git threadmind list --json) >out &&
	python3 -c "
import json
d = json.load(open(\"out\"))[\"projects\"]
assert sorted(d) == [\"back-office\", \"shop\"], d
ids = lambda p: sorted(t[\"id\"] for t in d[p][\"threads\"])
assert ids(\"back-office\") == [\"invoices\", \"main\"], d
assert ids(\"shop\") == [\"main\", \"search\"], d
"
'

test_expect_success 'stale covers every project' '
	(cd bob-shop && as_person bob git threadmind stale --json) >out &&
	python3 -c "
import json
d = json.load(open(\"out\"))[\"projects\"]
assert sorted(d) == [\"back-office\", \"shop\"], d
"
'

test_expect_success 'show finds a thread only one project has' '
	(cd bob-shop && as_person bob git threadmind show invoices) >out &&
	grep "^title: Invoices$" out &&
	(cd bob-shop && test_exit_code 128 as_person bob git threadmind show main) \
		2>err &&
	grep "^fatal: thread .main. in projects back-office, shop" err &&
	grep -- "--project" err
'

test_expect_success 'write commands ask for --project, naming the projects' '
	(cd bob-shop && test_exit_code 128 as_person bob git threadmind new "Y") \
		2>err &&
	grep "^fatal: several projects (back-office, shop) and none active; pass --project" err &&
	(cd bob-shop && test_exit_code 128 as_person bob git threadmind switch search) \
		2>err &&
	grep "^fatal: several projects" err &&
	test ! -e bob-shop/.threadmind/threads/shop/y.md
'

test_expect_success 'with --project a write command works' '
	(cd bob-shop && as_person bob git threadmind --project shop new "Y" -q) &&
	test -f bob-shop/.threadmind/threads/shop/y.md
'

test_expect_success 'once a project is picked, it is the one used' '
	(cd bob-shop && as_person bob git threadmind project use shop &&
		as_person bob git threadmind status) >out &&
	grep "^project: shop (shop)$" out &&
	! grep "back-office" out
'

test_expect_success 'a clone of a store with one project uses it at once' '
	new_repo solo &&
	(cd solo && git threadmind init -q && git add -A &&
		git commit -q -m threads) &&
	as_person bob git clone -q solo bob-solo &&
	(cd bob-solo && as_person bob git threadmind new "Z" -q &&
		as_person bob git threadmind status) >out &&
	grep "^project: solo (solo)$" out &&
	test -f bob-solo/.threadmind/threads/solo/z.md
'

test_done
