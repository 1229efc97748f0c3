#!/bin/sh
# git threadmind project list / new / use.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'project list on a fresh store marks the only project' '
	new_repo shop &&
	(cd shop && git threadmind init -q) &&
	(cd shop && git threadmind project list) >out &&
	printf "* shop  shop\n" >expect &&
	test_cmp expect out &&
	(cd shop && git threadmind project) >out2 &&
	test_cmp expect out2
'

test_expect_success 'project new creates the project file and its main thread' '
	(cd shop && git threadmind project new "Back Office") >out 2>err &&
	printf "back-office\n" >expect &&
	test_cmp expect out &&
	grep "project use back-office" err &&
	test -f shop/.threadmind/projects/back-office.json &&
	grep "^id: main$" shop/.threadmind/threads/back-office/main.md &&
	grep "^title: Main$" shop/.threadmind/threads/back-office/main.md &&
	grep "^parentId: null$" shop/.threadmind/threads/back-office/main.md &&
	grep "\"title\": \"Back Office\"" shop/.threadmind/projects/back-office.json &&
	grep "\"mode\": \"solo\"" shop/.threadmind/projects/back-office.json
'

test_expect_success 'project new does not switch projects' '
	(cd shop && git threadmind status) >out &&
	grep "^project: shop (shop)$" out
'

test_expect_success 'project new: collision suffix and --mode team' '
	(cd shop && git threadmind project new "Back  office!" --mode team) >out &&
	printf "back-office-2\n" >expect &&
	test_cmp expect out &&
	grep "\"mode\": \"team\"" shop/.threadmind/projects/back-office-2.json
'

test_expect_success 'project new does not reuse a threads/ folder without project' '
	mkdir -p shop/.threadmind/threads/legacy &&
	cp shop/.threadmind/threads/shop/main.md shop/.threadmind/threads/legacy/ &&
	(cd shop && git threadmind project new Legacy) >out &&
	printf "legacy-2\n" >expect &&
	test_cmp expect out
'

test_expect_success 'project list --json' '
	(cd shop && git threadmind project list --json) >out &&
	python3 -c "
import json
d = json.load(open(\"out\"))
assert d[\"activeProjectId\"] == \"shop\", d
ids = [p[\"id\"] for p in d[\"projects\"]]
assert ids == [\"back-office\", \"back-office-2\", \"legacy-2\", \"shop\"], ids
p = d[\"projects\"][1]
assert p[\"title\"] == \"Back  office!\" and p[\"mode\"] == \"team\", p
assert p[\"rootThreadId\"] == \"main\" and p[\"systemContext\"] == \"\", p
assert [p[\"active\"] for p in d[\"projects\"]] == [False, False, False, True]
assert sorted(p.keys()) == sorted([\"id\", \"title\", \"systemContext\", \"mode\", \"rootThreadId\", \"active\"])
"
'

test_expect_success 'project use switches project and thread' '
	(cd shop && git threadmind project use back-office-2) 2>err &&
	grep "Switched to project .back-office-2." err &&
	python3 -c "
import json
c = json.load(open(\"shop/.threadmind/config.json\"))
assert c[\"activeProjectId\"] == \"back-office-2\", c
assert c[\"activeThreadId\"] == \"main\", c
" &&
	(cd shop && git threadmind status) >out &&
	grep "^project: back-office-2 (Back  office!)$" out &&
	(cd shop && git threadmind project list) >out &&
	grep "^\* back-office-2 " out &&
	grep "^  shop " out
'

test_expect_success 'project use picks the project'"'"'s thread for this branch' '
	(cd shop && git threadmind project use shop && git threadmind new -q Auth &&
		git checkout -q -b feature &&
		git threadmind switch -q auth &&
		git threadmind project use back-office &&
		git threadmind project use shop) &&
	python3 -c "
import json
c = json.load(open(\"shop/.threadmind/config.json\"))
assert c[\"activeProjectId\"] == \"shop\", c
assert c[\"activeThreadId\"] == \"auth\", c
" &&
	(cd shop && git checkout -q main)
'

test_expect_success 'project use takes a unique prefix' '
	(cd shop && git threadmind project use leg) &&
	(cd shop && git threadmind status --json) >out &&
	python3 -c "import json; assert json.load(open(\"out\"))[\"project\"] == \"legacy-2\""
'

test_expect_success 'project use refuses ambiguous, unknown and invalid ids' '
	cp shop/.threadmind/config.json before &&
	(cd shop && test_exit_code 128 git threadmind project use back) 2>err &&
	grep "^fatal: .back. is ambiguous: back-office, back-office-2" err &&
	(cd shop && test_exit_code 128 git threadmind project use nope) 2>err &&
	grep "^fatal: no project matches .nope." err &&
	(cd shop && test_exit_code 128 git threadmind project use ../x) 2>err &&
	grep "^fatal: invalid project id .\.\./x." err &&
	test_cmp before shop/.threadmind/config.json
'

test_expect_success 'several projects and none active: project list and use still work' '
	python3 -c "
import json
p = \"shop/.threadmind/config.json\"
c = json.load(open(p)); c[\"activeProjectId\"] = None
json.dump(c, open(p, \"w\"), indent=2)
" &&
	(cd shop && test_exit_code 128 git threadmind new X) 2>err &&
	grep "project use" err &&
	(cd shop && git threadmind status) >out &&
	grep "^project: shop " out && grep "^project: back-office " out &&
	(cd shop && git threadmind project list) >out &&
	! grep "^\*" out &&
	(cd shop && git threadmind project list --json) >out &&
	python3 -c "import json; assert json.load(open(\"out\"))[\"activeProjectId\"] is None" &&
	(cd shop && git threadmind project use shop && git threadmind status) >out &&
	grep "^project: shop " out
'

test_expect_success 'a project file that does not parse is skipped by project list' '
	printf "{ nope" >shop/.threadmind/projects/broken.json &&
	(cd shop && git threadmind project list) >out 2>err &&
	grep "^warning: skipping .*broken.json" err &&
	grep "^\* shop " out &&
	! grep broken out &&
	rm shop/.threadmind/projects/broken.json
'

test_expect_success 'project usage errors' '
	(cd shop && test_exit_code 129 git threadmind project frob) 2>err &&
	grep "unknown project command .frob." err &&
	(cd shop && test_exit_code 129 git threadmind project new) 2>err &&
	grep "needs a title" err &&
	(cd shop && test_exit_code 129 git threadmind project new X --mode duo) 2>err &&
	grep "usage: git threadmind project" err &&
	(cd shop && test_exit_code 129 git threadmind project new X --json) 2>err &&
	(cd shop && test_exit_code 129 git threadmind project use a b) 2>err &&
	(cd shop && test_exit_code 129 git threadmind project -h) >out &&
	grep "^usage: git threadmind project \[list\]" out &&
	test ! -e shop/.threadmind/projects/x.json
'

test_done
