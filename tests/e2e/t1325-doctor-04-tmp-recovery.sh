#!/bin/sh
# Interrupted writes: ThreadMind 0.4 writes {file}.{8 hex}.tmp in full, then
# truncates and rewrites the file, then deletes the tmp; after a crash the
# tmp can be the only complete copy.  doctor names such a recovery, --fix
# puts the tmp in place (the old file kept as .broken), the upgrade reads a
# complete trees/ tmp, and a stray tmp is removed only when it is older
# than its file and no larger.  Ports interop repros 05 and 10.
. "$(dirname "$0")/test-lib.sh"

# store04 DIR: a git repository holding a ThreadMind 0.4.1 store, its files
# byte for byte as 0.4.1 writes them (no quoting, no final newline):
# project p, threads main and auth (under main), trees/p.json; nothing
# committed yet.
store04() {
	git init -q "$1" &&
	mkdir -p "$1/.threadmind/projects" "$1/.threadmind/threads/p" \
		"$1/.threadmind/trees" &&
	printf '# Per-user state\nconfig.json\n\n' >"$1/.threadmind/.gitignore" &&
	printf '{\n  "id": "p",\n  "title": "P",\n  "systemContext": "",\n  "mode": "solo",\n  "rootThreadId": "main"\n}' \
		>"$1/.threadmind/projects/p.json" &&
	printf '{\n  "activeProjectId": "p",\n  "activeThreadId": "main",\n  "author": "alice-1a2b",\n  "version": 1\n}' \
		>"$1/.threadmind/config.json" &&
	th "$1" main null P &&
	th "$1" auth main 'Auth system' '## Decisions
- JWT in httpOnly cookies
## State
- login done, reset to do' &&
	printf '{\n  "nodes": {\n    "main": {\n      "parentId": null,\n      "children": [\n        "auth"\n      ]\n    },\n    "auth": {\n      "parentId": "main",\n      "children": []\n    }\n  }\n}' \
		>"$1/.threadmind/trees/p.json"
}

# th DIR ID PARENT TITLE [BODY]: a thread file as 0.4.1 writes it.
th() {
	printf -- '---\nid: %s\ntitle: %s\nparentId: %s\nauthor: alice-1a2b\ncreatedAt: 2026-04-15T10:00:00.000Z\nupdatedAt: 2026-04-15T10:00:00.000Z\n---\n\n%s' \
		"$2" "$4" "$3" "${5:-}" >"$1/.threadmind/threads/p/$2.md"
}

# commit04 DIR: commit the store as it is (0.4 commits its *.tmp too).
commit04() {
	(cd "$1" && git add -A && git commit -q -m "0.4 store after a crash")
}

# no_findings OUT: no finding about files left in the doctor output OUT.
no_findings() {
	! grep -E "^(recovery|leftover|stray-tmp|upgrade|unreadable|config):" "$1"
}

P=.threadmind/threads/p

test_expect_success 'an empty thread file and its complete 0.4 .tmp (repro 05): doctor names both' '
	store04 empty &&
	cp empty/$P/auth.md full.md &&
	cp empty/$P/auth.md empty/$P/auth.md.3f2a9c1e.tmp &&
	: >empty/$P/auth.md &&
	touch -d "1 hour ago" empty/$P/auth.md.3f2a9c1e.tmp &&
	commit04 empty &&
	(cd empty && test_exit_code 1 git threadmind doctor) >out &&
	grep "^recovery: .$P/auth.md.3f2a9c1e.tmp. is the only complete copy of .$P/auth.md., which is empty (an interrupted write); --fix puts it in place of .$P/auth.md.$" out &&
	! grep "^stray-tmp:" out &&
	test_cmp full.md empty/$P/auth.md.3f2a9c1e.tmp
'

test_expect_success 'doctor --fix restores it, then runs the upgrade it blocked' '
	(cd empty && test_exit_code 1 git threadmind doctor --fix) >out &&
	grep "^fixed: restored .$P/auth.md. from .$P/auth.md.3f2a9c1e.tmp.$" out &&
	grep "^fixed: deleted trees/p.json$" out &&
	test_cmp full.md empty/$P/auth.md &&
	grep "^- JWT in httpOnly cookies$" empty/$P/auth.md &&
	test ! -e empty/$P/auth.md.3f2a9c1e.tmp &&
	test ! -e empty/$P/auth.md.broken &&
	test ! -e empty/.threadmind/trees &&
	no_findings out &&
	(cd empty && git threadmind show auth --json) >out &&
	json_is "d[\"parentId\"] == \"main\" and \"JWT in httpOnly cookies\" in d[\"summary\"]"
'

test_expect_success 'a cut thread file: restored, the cut one kept as .broken' '
	store04 cut &&
	cp cut/$P/auth.md full.md &&
	th cut db main Database "## State
- migrations written, rollback to test" &&
	cp cut/$P/db.md db.md &&
	cp cut/$P/auth.md cut/$P/auth.md.0badc0de.tmp &&
	cp cut/$P/db.md cut/$P/db.md.d0d0cafe.tmp &&
	head -c 170 full.md >cut/$P/auth.md &&
	head -c 40 db.md >cut/$P/db.md &&
	head -c 170 full.md >auth.cut &&
	touch -d "1 hour ago" cut/$P/auth.md.0badc0de.tmp cut/$P/db.md.d0d0cafe.tmp &&
	commit04 cut &&
	(cd cut && test_exit_code 1 git threadmind doctor) >out &&
	grep "^recovery: .$P/auth.md.0badc0de.tmp. is the only complete copy of .$P/auth.md., which is cut short (an interrupted write); --fix puts it in place of .$P/auth.md. and keeps the old file as .$P/auth.md.broken.$" out &&
	grep "^recovery: .$P/db.md.d0d0cafe.tmp. is the only complete copy of .$P/db.md., which does not parse (an interrupted write); --fix puts it in place of .$P/db.md. and keeps the old file as .$P/db.md.broken.$" out &&
	(cd cut && test_exit_code 1 git threadmind doctor --fix) >out &&
	grep "^fixed: restored .$P/auth.md. from .$P/auth.md.0badc0de.tmp.; its old content is kept as .$P/auth.md.broken.$" out &&
	grep "^fixed: restored .$P/db.md. from .$P/db.md.d0d0cafe.tmp.; its old content is kept as .$P/db.md.broken.$" out &&
	test_cmp full.md cut/$P/auth.md &&
	test_cmp db.md cut/$P/db.md &&
	test_cmp auth.cut cut/$P/auth.md.broken &&
	test ! -e cut/$P/auth.md.0badc0de.tmp &&
	test ! -e cut/$P/db.md.d0d0cafe.tmp &&
	grep "^leftover: .$P/auth.md.broken. is the old content of .$P/auth.md., kept when --fix put its complete temporary copy in its place; check that nothing in it is missing from .$P/auth.md., then delete it (--fix keeps it)$" out &&
	grep "^leftover: .$P/db.md.broken. is the old content of .$P/db.md." out
'

test_expect_success 'a .broken is never deleted; a second one is .broken-2' '
	(cd cut && test_exit_code 1 git threadmind doctor --fix) >out &&
	test_cmp auth.cut cut/$P/auth.md.broken &&
	cp cut/$P/auth.md full2.md &&
	cp cut/$P/auth.md cut/$P/auth.md.1badc0de.tmp &&
	echo "---" >cut/$P/auth.md &&
	touch -d "1 hour ago" cut/$P/auth.md.1badc0de.tmp &&
	(cd cut && test_exit_code 1 git threadmind doctor --fix) >out &&
	grep "^fixed: restored .$P/auth.md. from .$P/auth.md.1badc0de.tmp.; its old content is kept as .$P/auth.md.broken-2.$" out &&
	test_cmp full2.md cut/$P/auth.md &&
	echo "---" >expect &&
	test_cmp expect cut/$P/auth.md.broken-2 &&
	test_cmp auth.cut cut/$P/auth.md.broken &&
	test $(grep -c "^leftover: .$P/auth.md.broken" out) = 2 &&
	rm cut/$P/*.broken* &&
	(cd cut && test_exit_code 1 git threadmind doctor) >out &&
	no_findings out
'

test_expect_success 'a missing thread file and its complete .tmp: restored' '
	store04 missing &&
	th missing kid auth "Kid of auth" "## State
- only in the tmp" &&
	mv missing/$P/kid.md missing/$P/kid.md.5e6f7a8b.tmp &&
	cp missing/$P/kid.md.5e6f7a8b.tmp kid.md &&
	touch -d "1 hour ago" missing/$P/kid.md.5e6f7a8b.tmp &&
	commit04 missing &&
	(cd missing && test_exit_code 1 git threadmind doctor) >out &&
	grep "^recovery: .$P/kid.md.5e6f7a8b.tmp. is the only complete copy of .$P/kid.md., which is missing (an interrupted write); --fix puts it in place of .$P/kid.md.$" out &&
	(cd missing && test_exit_code 1 git threadmind doctor --fix) >out &&
	grep "^fixed: restored .$P/kid.md. from .$P/kid.md.5e6f7a8b.tmp.$" out &&
	test_cmp kid.md missing/$P/kid.md &&
	no_findings out &&
	(cd missing && git threadmind show kid --json) >out &&
	json_is "d[\"parentId\"] == \"auth\""
'

test_expect_success 'JSON files and our own {uuid}.tmp: recovered too, config.json not set aside' '
	store04 json &&
	U=1b4e28ba-2fa1-4d2b-883f-0016d3cca427 &&
	cp json/.threadmind/projects/p.json project.json &&
	cp json/.threadmind/config.json config.json &&
	mv json/.threadmind/projects/p.json json/.threadmind/projects/p.json.$U.tmp &&
	: >json/.threadmind/projects/p.json &&
	cp json/.threadmind/config.json json/.threadmind/config.json.c0ffee00.tmp &&
	printf "{\n  \"activeProj" >json/.threadmind/config.json &&
	touch -d "1 hour ago" json/.threadmind/projects/p.json.$U.tmp json/.threadmind/config.json.c0ffee00.tmp &&
	commit04 json &&
	(cd json && test_exit_code 1 git threadmind doctor) >out &&
	grep "^recovery: .\.threadmind/projects/p.json.$U.tmp. is the only complete copy of .\.threadmind/projects/p.json., which is empty" out &&
	grep "^recovery: .\.threadmind/config.json.c0ffee00.tmp. is the only complete copy of .\.threadmind/config.json., which does not parse" out &&
	(cd json && test_exit_code 1 git threadmind doctor --fix) >out &&
	test_cmp project.json json/.threadmind/projects/p.json &&
	test_cmp config.json json/.threadmind/config.json &&
	test -f json/.threadmind/config.json.broken &&
	! ls json/.threadmind | grep corrupt &&
	! ls json/.threadmind/projects | grep "\.tmp$" &&
	grep "^leftover: .\.threadmind/config.json.broken. is the old content" out &&
	test $(grep -c "^leftover:" out) = 1
'

# repro 10: 0.4 crashed inside writeTree: trees/p.json is empty, the whole
# index is in its .tmp, and only the index knows that kid's parent is the
# thread "null".
trees04() {
	store04 "$1" &&
	th "$1" null main null &&
	th "$1" kid null "Child of null" &&
	rm "$1/.threadmind/threads/p/auth.md" &&
	printf '{\n  "nodes": {\n    "main": {\n      "parentId": null,\n      "children": [\n        "null"\n      ]\n    },\n    "null": {\n      "parentId": "main",\n      "children": [\n        "kid"\n      ]\n    },\n    "kid": {\n      "parentId": "null",\n      "children": []\n    }\n  }\n}' \
		>"$1/.threadmind/trees/p.json.9c1e5b7d.tmp" &&
	: >"$1/.threadmind/trees/p.json" &&
	touch -d "1 hour ago" "$1/.threadmind/trees/p.json.9c1e5b7d.tmp" &&
	commit04 "$1"
}

test_expect_success 'an empty trees/ index and its complete .tmp (repro 10): migrate uses the .tmp and keeps it' '
	trees04 trees &&
	cp trees/.threadmind/trees/p.json.9c1e5b7d.tmp index.json &&
	(cd trees && git threadmind migrate) >out 2>&1 &&
	grep "^  trees/p.json is empty: used the complete index an interrupted 0.4 write left in trees/p.json.9c1e5b7d.tmp (kept: delete it once the parents look right)$" out &&
	grep "^  p/kid: parent" out &&
	grep "^  deleted trees/p.json$" out &&
	! grep "invalid\|set aside" out &&
	test ! -e trees/.threadmind/trees/p.json &&
	test_cmp index.json trees/.threadmind/trees/p.json.9c1e5b7d.tmp &&
	(cd trees && git threadmind show kid --json) >out &&
	json_is "d[\"parentId\"] == \"null\""
'

test_expect_success 'doctor names the kept trees/ .tmp; --fix never deletes it' '
	(cd trees && test_exit_code 1 git threadmind doctor) >out &&
	grep "^leftover: .\.threadmind/trees/p.json.9c1e5b7d.tmp. is the complete 0.4 index an interrupted write left, which the upgrade applied in place of the empty or broken .\.threadmind/trees/p.json.; delete it once the parents look right (--fix keeps it)$" out &&
	(cd trees && test_exit_code 1 git threadmind doctor --fix) >out &&
	test_cmp index.json trees/.threadmind/trees/p.json.9c1e5b7d.tmp &&
	grep "^leftover: .\.threadmind/trees/p.json.9c1e5b7d.tmp" out &&
	(cd trees && git threadmind show kid --json) >out &&
	json_is "d[\"parentId\"] == \"null\""
'

test_expect_success 'the same through doctor --fix, and through the upgrade any command runs' '
	trees04 trees2 &&
	(cd trees2 && test_exit_code 1 git threadmind doctor) >out &&
	grep "^upgrade: .\.threadmind/trees. holds a ThreadMind 0.4 tree index; --fix (or .git threadmind migrate.) applies it$" out &&
	grep "^upgrade: .\.threadmind/trees/p.json.9c1e5b7d.tmp. is the complete 0.4 index that .\.threadmind/trees/p.json. lacks (it is empty): the upgrade (--fix or .git threadmind migrate.) applies it instead, and keeps it$" out &&
	(cd trees2 && test_exit_code 1 git threadmind doctor --fix) >out &&
	grep "^fixed: trees/p.json is empty: used the complete index an interrupted 0.4 write left in trees/p.json.9c1e5b7d.tmp" out &&
	test -f trees2/.threadmind/trees/p.json.9c1e5b7d.tmp &&
	(cd trees2 && git threadmind show kid --json) >out &&
	json_is "d[\"parentId\"] == \"null\"" &&
	trees04 trees3 &&
	(cd trees3 && git threadmind show kid --json) >out 2>err &&
	json_is "d[\"parentId\"] == \"null\"" &&
	grep "^threadmind: upgraded .threadmind/ from ThreadMind 0.4:$" err &&
	grep "trees/p.json.9c1e5b7d.tmp" err &&
	test ! -e trees3/.threadmind/trees/p.json &&
	test -f trees3/.threadmind/trees/p.json.9c1e5b7d.tmp
'

test_expect_success 'a stray .tmp older than its file and no larger is removed; a newer or larger one is kept' '
	store04 stray &&
	commit04 stray &&
	(cd stray && git threadmind migrate -q) &&
	M=stray/$P/main.md &&
	head -c 40 $M >$M.0a1b2c3d.tmp &&
	printf "not a thread file, and larger than main.md is: %0300d" 0 >$M.2a3b4c5d.tmp &&
	head -c 40 $M >$M.3a4b5c6d.tmp &&
	touch -d "2 hours ago" $M &&
	touch -d "3 hours ago" $M.0a1b2c3d.tmp $M.2a3b4c5d.tmp &&
	touch -d "1 hour ago" $M.3a4b5c6d.tmp &&
	(cd stray && test_exit_code 1 git threadmind doctor) >out &&
	grep "^stray-tmp: .$P/main.md.0a1b2c3d.tmp. is a temporary file left by an interrupted write, older than .$P/main.md. and no larger; --fix removes it$" out &&
	grep "^stray-tmp: .$P/main.md.2a3b4c5d.tmp. is a temporary file left by an interrupted write, larger than .$P/main.md.; --fix removes only one older than its file and no larger, so it is kept: compare the two, then delete it$" out &&
	grep "^stray-tmp: .$P/main.md.3a4b5c6d.tmp. is a temporary file left by an interrupted write, not older than .$P/main.md.; --fix removes only one older than its file and no larger, so it is kept" out &&
	(cd stray && test_exit_code 1 git threadmind doctor --fix) >out &&
	grep "^fixed: removed .$P/main.md.0a1b2c3d.tmp.$" out &&
	test ! -e $M.0a1b2c3d.tmp &&
	test -f $M.2a3b4c5d.tmp &&
	test -f $M.3a4b5c6d.tmp &&
	test $(grep -c "^stray-tmp:" out) = 2
'

test_done
