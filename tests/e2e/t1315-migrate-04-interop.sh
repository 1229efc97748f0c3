#!/bin/sh
# Stores as ThreadMind 0.4.1 writes them (issue 18; the reproductions of
# ../shared/repro/interop/): raw titles, the empty id, the index applied
# once, a teammate's index that comes back, and the messages around them.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind

# store04 DIR: a git repository with a 0.4 store of project p (no thread).
store04() {
	git init -q "$1" &&
	mkdir -p "$1/$T/projects" "$1/$T/threads/p" "$1/$T/trees" &&
	printf '# Per-user state\nconfig.json\n\n' >"$1/$T/.gitignore" &&
	printf '{\n  "id": "p",\n  "title": "P",\n  "systemContext": "",\n  "mode": "solo",\n  "rootThreadId": "main"\n}' \
		>"$1/$T/projects/p.json" &&
	printf '{\n  "activeProjectId": "p",\n  "activeThreadId": "main",\n  "author": "alice-1a2b",\n  "version": 1\n}' \
		>"$1/$T/config.json"
}

# th04 DIR ID PARENT TITLE [BODY]: a thread file as 0.4.1 writes it: every
# value raw, the body after a blank line, no final newline.
th04_n=0
th04() {
	th04_n=$((th04_n + 1)) &&
	_ts=$(printf '2026-04-15T10:%02d:00.000Z' $th04_n) &&
	printf -- '---\nid: %s\ntitle: %s\nparentId: %s\nauthor: alice-1a2b\ncreatedAt: %s\nupdatedAt: %s\n---\n\n%s' \
		"$2" "$4" "$3" "$_ts" "$_ts" "${5:-}" >"$1/$T/threads/p/$2.md"
}

# tree04 DIR ID:PARENT...: trees/p.json as 0.4 writes it (children
# lists kept in step), PARENT null for a root.
tree04() {
	_d=$1 && shift &&
	python3 - "$@" >"$_d/$T/trees/p.json" <<-\EOF
	import json, sys
	pairs = [a.split(':') for a in sys.argv[1:]]
	nodes = {i: {"parentId": None if p == "null" else p, "children": []}
	         for i, p in pairs}
	for i, p in pairs:
	    if p != "null" and p in nodes:
	        nodes[p]["children"].append(i)
	sys.stdout.write(json.dumps({"nodes": nodes}, indent=2))
	EOF
}

# title_of ID: the title `show --json` gives, on stdout.
title_of() {
	git threadmind show --json -- "$1" | python3 -c \
		'import json, sys; sys.stdout.write(json.load(sys.stdin)["title"])'
}

test_expect_success '02: titles 0.4 wrote raw with YAML indicators are read as 0.4 showed them' '
	store04 r02 &&
	th04 r02 main null P &&
	printf "%s\n" "\"Quick\" fix for login" "'"'"'single'"'"' quotes q" \
		"[WIP] Auth" "{x} placeholder" "*bold* idea" "> note to self" \
		"| table layout" "'"'"'single" "[a]" "{a: b}" "- dash" "? q" \
		"@alice" "%x" "#12 crash" "Fix: login" >r02/titles &&
	i=0 && ids="main" && pairs="main:null" &&
	while IFS= read -r t; do
		i=$((i + 1)) &&
		th04 r02 t$i main "$t" "## State
- $t" && ids="$ids t$i" && pairs="$pairs t$i:main" || return 1
	done <r02/titles &&
	th04 r02 child t3 "Child of WIP" &&
	tree04 r02 $pairs child:t3 &&
	(cd r02 && git add -A && git commit -q -m "0.4 store" &&
		git threadmind migrate >out 2>err) &&
	test ! -e r02/$T/trees/p.json &&
	(cd r02 && git threadmind list --json) >out &&
	json_is "len(d[\"threads\"]) == $i + 2" &&
	(cd r02 && git threadmind tree) >out 2>err &&
	test ! -s err &&
	grep "^  │   └── child  Child of WIP$" out &&
	i=0 &&
	while IFS= read -r t; do
		i=$((i + 1)) &&
		(cd r02 && title_of t$i) >got &&
		printf "%s" "$t" >want &&
		test_cmp want got || return 1
	done <r02/titles
'

test_expect_success '02: a rewrite quotes them so that they read back the same' '
	i=0 &&
	while IFS= read -r t; do
		i=$((i + 1)) &&
		(cd r02 && git threadmind set t$i branch=x >/dev/null &&
			title_of t$i) >got &&
		printf "%s" "$t" >want &&
		test_cmp want got || return 1
	done <r02/titles &&
	test "$(fm r02/$T/threads/p/t1.md title)" = "\"\\\"Quick\\\" fix for login\"" &&
	test "$(fm r02/$T/threads/p/t3.md title)" = "\"[WIP] Auth\"" &&
	test "$(fm r02/$T/threads/p/t16.md title)" = "\"Fix: login\""
'

test_expect_success '03: null, ~, &amp, !important and "quoted" are texts, kept by every rewrite' '
	store04 r03 &&
	th04 r03 main null P &&
	th04 r03 null main null &&
	th04 r03 tilde main "~" &&
	th04 r03 amp main "&amp" &&
	th04 r03 imp main "!important" &&
	th04 r03 quoted main "\"quoted\"" &&
	th04 r03 yes main yes &&
	th04 r03 n2024 main 2024 &&
	(cd r03 && git add -A && git commit -q -m "0.4 store") &&
	for x in null:null tilde:~ amp:\&amp imp:!important "quoted:\"quoted\"" yes:yes n2024:2024; do
		id=${x%%:*} && want=${x#*:} &&
		(cd r03 && title_of $id) >got && printf "%s" "$want" >w &&
		test_cmp w got &&
		(cd r03 && git threadmind set $id branch=x >/dev/null &&
			git threadmind move $id main >/dev/null 2>&1;
			git threadmind touch $id >/dev/null &&
			title_of $id) >got &&
		test_cmp w got || return 1
	done &&
	test "$(fm r03/$T/threads/p/null.md title)" = "\"null\"" &&
	test "$(fm r03/$T/threads/p/null.md id)" = "\"null\"" &&
	test "$(fm r03/$T/threads/p/quoted.md title)" = "\"\\\"quoted\\\"\"" &&
	test "$(fm r03/$T/threads/p/amp.md title)" = "\"&amp\""
'

test_expect_success '04: 0.4 empty id is named by every command and by doctor until the upgrade' '
	store04 r04 &&
	th04 r04 main null P &&
	th04 r04 "" main "认证模块" "## Décisions
- OAuth2 + PKCE" &&
	th04 r04 login "" "Login screen" &&
	th04 r04 thread main "Thread" &&
	(cd r04 && git add -A && git commit -q -m "0.4 store") &&
	(cd r04 && test_exit_code 1 git threadmind doctor) >out &&
	grep "threads/p/\.md.: a ThreadMind 0.4 thread with an empty id" out &&
	(cd r04 && git threadmind migrate --dry-run) >out &&
	grep "^  p/\.md: ThreadMind 0.4.s empty id; would be renamed threads/p/thread-2\.md (title .认证模块.)$" out &&
	grep "^  p/login: parent .. -> .thread-2.$" out &&
	test -f r04/$T/threads/p/.md
'

test_expect_success '04: the upgrade gives it an id from its title and re-points its children' '
	(cd r04 && git threadmind status --json) >out 2>err &&
	grep "p/\.md: ThreadMind 0.4.s empty id; renamed threads/p/thread-2\.md" err &&
	grep "whole team upgrades together" err &&
	json_is "sum(d[\"counts\"].values()) == 4" &&
	test ! -e r04/$T/threads/p/.md &&
	test "$(fm r04/$T/threads/p/thread-2.md id)" = thread-2 &&
	test "$(fm r04/$T/threads/p/thread-2.md title)" = "认证模块" &&
	test "$(fm r04/$T/threads/p/login.md parentId)" = thread-2 &&
	body r04/$T/threads/p/thread-2.md >got &&
	printf "\n## Décisions\n- OAuth2 + PKCE" >want &&
	test_cmp want got &&
	(cd r04 && git threadmind tree) >out 2>err &&
	test ! -s err &&
	grep "^  ├── thread-2  认证模块$" out &&
	grep "^  │   └── login  Login screen$" out &&
	(cd r04 && test_exit_code 1 git threadmind doctor) >out &&
	! grep -Ev "^(gitignore|merge-driver|gitattributes|hooks): |problems found" out
'

test_expect_success '04: with an index, its entries for the empty id follow the new id' '
	store04 r04b &&
	th04 r04b main null P &&
	th04 r04b "" main "🚀" &&
	th04 r04b a main A &&
	th04 r04b b main B &&
	tree04 r04b main:null :main a: b:a &&
	(cd r04b && git add -A && git commit -q -m "0.4 store" &&
		git threadmind migrate) >out &&
	grep "^  p/a: parent .main. -> .thread.$" out &&
	grep "^  p/b: parent .main. -> .a.$" out &&
	grep "^  deleted trees/p.json$" out &&
	test "$(fm r04b/$T/threads/p/a.md parentId)" = thread &&
	test "$(fm r04b/$T/threads/p/thread.md parentId)" = main
'

test_expect_success '01, 07: while a file is unreadable, the index keeps only what waits' '
	store04 r01 &&
	th04 r01 main null P &&
	th04 r01 a main A &&
	th04 r01 b main B &&
	th04 r01 c main C &&
	printf -- "---\nid: w\ntitle: W\n" >r01/$T/threads/p/w.md &&
	tree04 r01 main:null a:main b:main c:b w:c &&
	(cd r01 && git add -A && git commit -q -m "0.4 store" &&
		test_exit_code 1 git threadmind migrate) >out 2>err &&
	grep "^  p/c: parent .main. -> .b.$" out &&
	grep "^  trees/p.json: kept with the 1 entry that waits$" out &&
	grep "threads/p/w.md.*its parent from trees/p.json (.c.) waits in the index" err &&
	python3 -c "import json; d = json.load(open(\"r01/$T/trees/p.json\")); assert d == {\"nodes\": {\"w\": {\"parentId\": \"c\"}}}, d" &&
	(cd r01 && git add -A && git commit -q -m "after migrate" &&
		git threadmind move c main) &&
	for i in 1 2 3; do
		(cd r01 && git threadmind list) >out 2>err &&
		! grep "upgraded" err &&
		grep "w.md" err || return 1
	done &&
	test "$(fm r01/$T/threads/p/c.md parentId)" = main &&
	(cd r01 && git add -A && git commit -q -m moved &&
		git threadmind list >/dev/null 2>&1 &&
		git status --porcelain -- .threadmind) >out &&
	test ! -s out
'

test_expect_success '01: once the file is fixed the waiting entry is applied and the index goes' '
	th04 r01 w main W &&
	(cd r01 && git threadmind list) >out 2>err &&
	grep "^  p/w: parent .main. -> .c.$" err &&
	grep "^  deleted trees/p.json$" err &&
	test ! -e r01/$T/trees &&
	test "$(fm r01/$T/threads/p/w.md parentId)" = c &&
	test "$(fm r01/$T/threads/p/c.md parentId)" = main
'

test_expect_success '08: ids in upgrade messages are quoted: the thread null is no root' '
	store04 r08 &&
	th04 r08 main null P &&
	th04 r08 null main null &&
	th04 r08 kid null "Child of null" &&
	tree04 r08 main:null null:main kid:null &&
	sed -i "s/\"parentId\": null,\n      \"children\": \[\]/X/" r08/$T/trees/p.json &&
	python3 - r08/$T/trees/p.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["nodes"]["kid"]["parentId"] = "null"
	open(sys.argv[1], "w").write(json.dumps(d, indent=2))
	EOF
	(cd r08 && git add -A && git commit -q -m "0.4 store" &&
		git threadmind migrate --dry-run) >out &&
	grep "^  p/kid: parent (root) -> .null.$" out &&
	(cd r08 && git threadmind migrate) >out &&
	test "$(fm r08/$T/threads/p/kid.md parentId)" = "\"null\"" &&
	(cd r08 && git threadmind tree) >out &&
	grep "^  └── null  null$" out &&
	grep "^      └── kid  Child of null$" out
'

test_expect_success '09: a child of an unreadable file is flagged parent unreadable, not missing' '
	store04 r09 &&
	th04 r09 main null P &&
	printf -- "---\nid: w\n" >r09/$T/threads/p/w.md &&
	th04 r09 c w Child &&
	th04 r09 d gone Dangling &&
	(cd r09 && git threadmind tree) >out 2>err &&
	grep " c  Child (orphan: parent .w. unreadable)$" out &&
	grep " d  Dangling (orphan: parent .gone. missing)$" out &&
	grep "^warning: skipping .*threads/p/w.md" err
'

test_expect_success '11: a teammate on 0.4 brings the index back; the upgrade does not revert moves' '
	store04 r11 &&
	th04 r11 main null Shop &&
	th04 r11 cart main Cart &&
	th04 r11 search main Search &&
	th04 r11 payments main Payments &&
	tree04 r11 main:null cart:main search:main payments:main &&
	(cd r11 && git add -A && git commit -q -m "0.4 store" &&
		git checkout -q -b bob04) &&
	th04 r11 bob-idea search "Bob idea" &&
	tree04 r11 main:null cart:search search:main payments:main bob-idea:search &&
	(cd r11 && git add -A && git commit -q -m "bob (0.4): new thread, index" &&
		git checkout -q main &&
		git threadmind migrate >/dev/null &&
		git add -A && git commit -q -m upgrade &&
		git threadmind move payments search >/dev/null &&
		git add -A && git commit -q -m "move payments" &&
		test_must_fail git merge -q --no-edit bob04 >/dev/null 2>&1 &&
		git status --porcelain -- .threadmind/trees) >out &&
	grep "^DU .threadmind/trees/p.json$" out &&
	(cd r11 && git threadmind tree) >out 2>err &&
	grep "^  p/payments: trees/p.json (ThreadMind 0.4) says parent .main.; kept .search.: the file changed since the upgrade" err &&
	grep "^  p/cart: parent .main. -> .search.$" err &&
	grep "^warning: trees/p.json came back after the upgrade (commit [0-9a-f]*): someone still writes it with ThreadMind 0.4" err &&
	test "$(fm r11/$T/threads/p/payments.md parentId)" = search &&
	test "$(fm r11/$T/threads/p/cart.md parentId)" = search &&
	test "$(fm r11/$T/threads/p/bob-idea.md parentId)" = search &&
	test ! -e r11/$T/trees/p.json
'

test_expect_success '11: status and doctor say who writes 0.4; resolve drops the index' '
	(cd r11 && git threadmind status) >out &&
	grep "^conflicts: .threadmind/trees/p.json (run .git threadmind resolve.)$" out &&
	grep "^.threadmind/trees/p.json: ThreadMind 0.4.s index came back with a merge: someone still runs 0.4" out &&
	(cd r11 && test_exit_code 1 git threadmind doctor) >out &&
	grep "trees/p.json. is unmerged in the index: ThreadMind 0.4.s index came back" out &&
	(cd r11 && git threadmind resolve) >out &&
	grep "^dropped .threadmind/trees/p.json: ThreadMind 0.4.s index" out &&
	(cd r11 && git ls-files -u) >out &&
	test ! -s out &&
	(cd r11 && git commit -q --no-edit && git threadmind list) >out 2>err &&
	test ! -s err
'

test_expect_success '12: doctor on the 0.4 thread titled null: no loss, no false announcement' '
	store04 r12 &&
	th04 r12 main null P &&
	th04 r12 null main null body &&
	(cd r12 && git add -A && git commit -q -m "0.4 store" &&
		git threadmind doctor --fix >out 2>&1;
		title_of null) >got &&
	printf null >want &&
	test_cmp want got &&
	! grep "writes .id: null." r12/out &&
	grep "^title: \\(null\\|\"null\"\\)$" r12/$T/threads/p/null.md
'

test_expect_success '12: doctor announces the id line exactly as --fix writes it' '
	printf -- "---\ntitle: null\nparentId: main\n---\n" >r12/$T/threads/p/null.md &&
	(cd r12 && test_exit_code 1 git threadmind doctor) >out &&
	grep "threads/p/null.md. has no id field; --fix writes .id: \"null\".$" out &&
	(cd r12 && git threadmind doctor --fix >/dev/null 2>&1;
		title_of null) >got &&
	test_cmp want got &&
	test "$(fm r12/$T/threads/p/null.md id)" = "\"null\""
'

test_done
