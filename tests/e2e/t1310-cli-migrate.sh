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
	grep "^  shop/auth: parent main -> billing$" out &&
	grep "^  shop/auth-ui: parent auth -> main$" out &&
	grep "^  shop/gone: in trees/shop.json but has no thread file; ignored$" out &&
	grep "^  deleted trees/shop.json$" out &&
	grep "^  deleted stats/shop.json$" out &&
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
	grep "^  shop/auth: parent main -> billing$" out &&
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
	grep "^threadmind: upgraded .threadmind/ from 0.4 (2 changes" err &&
	grep "^parentId: auth-ui$" shop/.threadmind/threads/shop/billing.md &&
	test ! -e shop/.threadmind/trees &&
	(cd shop && git threadmind list) >out 2>err &&
	test ! -s err
'

test_expect_success 'an index that does not parse stops migrate; nothing changes' '
	mkdir shop/.threadmind/trees &&
	printf "{\"auth\": " >shop/.threadmind/trees/shop.json &&
	snapshot shop/.threadmind >before &&
	(cd shop && test_exit_code 128 git threadmind migrate --dry-run) 2>err &&
	grep "^fatal: .*trees/shop.json. is not valid JSON (line 1, column 10)" err &&
	(cd shop && test_exit_code 128 git threadmind migrate) 2>err &&
	snapshot shop/.threadmind >after &&
	test_cmp before after &&
	rm -r shop/.threadmind/trees
'

test_expect_success 'migrate usage' '
	(cd shop && test_exit_code 129 git threadmind migrate now) 2>err &&
	grep "^usage: git threadmind migrate \[--dry-run\] \[--prune\]" err &&
	(cd shop && test_exit_code 129 git threadmind migrate --frob) 2>err
'

test_done
