#!/bin/sh
# git threadmind migrate: the 0.4 upgrade, --dry-run and --prune.
. "$(dirname "$0")/test-lib.sh"

# snapshot DIR: every file under DIR with its checksum, sorted.
snapshot() {
	(cd "$1" && find . -type f -exec sha1sum {} + | sort -k2)
}

# A 0.4 index that moves auth-ui under main and makes auth a child of
# billing (as nested children), plus a stats/ folder.
make_legacy() {
	mkdir -p "$1/.threadmind/trees" "$1/.threadmind/stats" &&
	cat >"$1/.threadmind/trees/shop.json" <<-\JSON &&
	{"id": "main", "children": [
	  {"id": "billing", "children": [{"id": "auth", "children": []}]},
	  {"id": "auth-ui", "children": []},
	  {"id": "gone", "children": []}
	]}
	JSON
	echo "{\"views\": 3}" >"$1/.threadmind/stats/shop.json"
}

test_expect_success 'setup: a store with three threads' '
	new_repo shop &&
	(cd shop && git threadmind init -q &&
		git threadmind new -q Auth &&
		git threadmind new -q --parent auth "Auth UI" &&
		git threadmind new -q Billing) &&
	grep "^parentId: auth$" shop/.threadmind/threads/shop/auth-ui.md
'

test_expect_success 'migrate with nothing to do says so' '
	(cd shop && git threadmind migrate) >out &&
	grep "^nothing to migrate: .* is up to date$" out
'

test_expect_success 'migrate --dry-run reports and writes nothing' '
	make_legacy shop &&
	snapshot shop/.threadmind >before &&
	(cd shop && git threadmind migrate --dry-run --prune) >out &&
	grep "^dry run, nothing written" out &&
	grep "^  shop/auth: parent .main. -> .billing.$" out &&
	grep "^  shop/auth-ui: parent .auth. -> .main.$" out &&
	grep "^  shop/gone: in trees/shop.json but has no thread file; would be ignored$" out &&
	grep "^  would delete trees/shop.json$" out &&
	grep "^  would delete stats/shop.json$" out &&
	! grep "deleted" out &&
	snapshot shop/.threadmind >after &&
	test_cmp before after
'

test_expect_success 'doctor and prompt do not run the upgrade' '
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^upgrade: .*git threadmind migrate" out &&
	(cd shop && git threadmind prompt) >out 2>err &&
	test ! -s err &&
	snapshot shop/.threadmind >after &&
	test_cmp before after
'

test_expect_success 'migrate applies the index, deletes it, keeps stats/' '
	(cd shop && git threadmind migrate) >out 2>err &&
	grep "^migrated .*/.threadmind/ from ThreadMind 0.4:$" out &&
	grep "^  shop/auth: parent .main. -> .billing.$" out &&
	! grep stats out &&
	grep "commit .threadmind/" err &&
	grep "^parentId: billing$" shop/.threadmind/threads/shop/auth.md &&
	grep "^parentId: main$" shop/.threadmind/threads/shop/auth-ui.md &&
	test ! -e shop/.threadmind/trees &&
	test -f shop/.threadmind/stats/shop.json
'

test_expect_success 'then nothing to migrate, with a hint about stats/' '
	(cd shop && git threadmind migrate) >out 2>err &&
	grep "^nothing to migrate" out &&
	grep "migrate --prune" err
'

test_expect_success 'migrate --prune deletes stats/' '
	(cd shop && git threadmind migrate --prune) >out &&
	grep "^  deleted stats/shop.json$" out &&
	test ! -e shop/.threadmind/stats &&
	(cd shop && git threadmind migrate --prune) >out &&
	grep "^nothing to migrate" out
'

test_expect_success 'any other command runs the upgrade once, saying so' '
	mkdir shop/.threadmind/trees &&
	echo "{\"billing\": {\"parentId\": \"auth-ui\"}}" >shop/.threadmind/trees/shop.json &&
	(cd shop && git threadmind list) >out 2>err &&
	grep "^threadmind: upgraded .threadmind/ from ThreadMind 0.4:$" err &&
	grep "^  shop/billing: parent .*-> .auth-ui.$" err &&
	grep "whole team upgrades together" err &&
	grep "^parentId: auth-ui$" shop/.threadmind/threads/shop/billing.md &&
	test ! -e shop/.threadmind/trees &&
	(cd shop && git threadmind list) >out 2>err &&
	test ! -s err
'

test_expect_success 'an index that does not parse is set aside, never fatal' '
	mkdir shop/.threadmind/trees &&
	printf "{\"auth\": " >shop/.threadmind/trees/shop.json &&
	snapshot shop/.threadmind >before &&
	(cd shop && test_exit_code 1 git threadmind migrate --dry-run) >out 2>err &&
	grep "^  would set aside trees/shop.json as trees/shop.json.invalid$" out &&
	grep "^warning: .*trees/shop.json. is not valid JSON (line 1, column 10).*; migrate would set it aside" err &&
	snapshot shop/.threadmind >after &&
	test_cmp before after &&
	(cd shop && git threadmind list) >out 2>err &&
	grep "^warning: .*not valid JSON.*set aside as trees/shop.json.invalid: check the thread files. parentId by hand" err &&
	test -f shop/.threadmind/trees/shop.json.invalid &&
	test ! -e shop/.threadmind/trees/shop.json &&
	(cd shop && git threadmind list) >out 2>err &&
	test ! -s err &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^upgrade: .*trees/shop.json.invalid. is a 0.4 tree index" out &&
	rm -r shop/.threadmind/trees
'

test_expect_success 'an index whose entries are all invalid names each one' '
	mkdir shop/.threadmind/trees &&
	echo "{\"Bad Id\": null, \"../x\": \"main\"}" >shop/.threadmind/trees/shop.json &&
	(cd shop && test_exit_code 1 git threadmind migrate) >out 2>err &&
	grep "^  trees/shop.json: entry .Bad Id. skipped (not a valid thread id)$" out &&
	grep "^  trees/shop.json: entry .\.\./x. skipped (not a valid thread id)$" out &&
	grep "^  set aside trees/shop.json as trees/shop.json.invalid$" out &&
	grep "none of its 2 entries" err &&
	rm -r shop/.threadmind/trees
'

test_expect_success 'an unreadable thread file: reads work, the rest is applied (d5)' '
	mkdir shop/.threadmind/trees &&
	echo "{\"main\": null, \"auth\": \"main\", \"broken\": \"main\"}" >shop/.threadmind/trees/shop.json &&
	printf -- "---\nid: broken\n" >shop/.threadmind/threads/shop/broken.md &&
	for c in status tree list "show main"; do
		(cd shop && git threadmind $c) >out 2>err || return 1
		grep "^warning: .*threads/shop/broken.md.*waits in the index, which is kept: fix the file, then run .git threadmind migrate." err || return 1
	done &&
	grep "^parentId: main$" shop/.threadmind/threads/shop/auth.md &&
	test -f shop/.threadmind/trees/shop.json &&
	(cd shop && test_exit_code 1 git threadmind doctor --fix) >out 2>err &&
	grep "^upgrade: the ThreadMind 0.4 upgrade cannot finish: .*broken.md" out &&
	printf -- "---\nid: broken\ntitle: B\nparentId: auth\n---\n" >shop/.threadmind/threads/shop/broken.md &&
	(cd shop && git threadmind migrate) >out &&
	grep "^  shop/broken: parent .auth. -> .main.$" out &&
	grep "^  deleted trees/shop.json$" out &&
	test ! -e shop/.threadmind/trees &&
	rm shop/.threadmind/threads/shop/broken.md
'

test_expect_success 'migrate usage' '
	(cd shop && test_exit_code 129 git threadmind migrate now) 2>err &&
	grep "^usage: git threadmind migrate \[--dry-run\] \[--prune\]" err &&
	(cd shop && test_exit_code 129 git threadmind migrate --frob) 2>err
'

test_done
