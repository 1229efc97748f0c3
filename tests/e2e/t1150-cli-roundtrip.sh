#!/bin/sh
# Round-trip fidelity: hand-written thread files in the seed's format go
# through set / touch / summary; untouched files stay byte-identical and
# touched ones keep unknown fields, comments, CRLF and a --- body line.
. "$(dirname "$0")/test-lib.sh"

SEED="$TEST_SRC/tests/resources/seed-example"
TD=r/.threadmind/threads/mon-app

# header_from FILE KEY: the frontmatter lines from KEY to the closing ---.
header_from() {
	python3 -c '
import sys
lines = open(sys.argv[1], "rb").read().splitlines(True)
end = next(i for i in range(1, len(lines)) if lines[i].rstrip(b"\r\n") == b"---")
start = next(i for i in range(1, end) if lines[i].startswith(sys.argv[2].encode() + b":"))
sys.stdout.buffer.write(b"".join(lines[start:end + 1]))' "$1" "$2"
}

# changed_keys FILE: the keys of the lines git diff shows as changed.
changed_keys() {
	(cd r && git diff -U0 -- "${1#r/}") |
	grep "^[-+][^-+]" | sed "s/^\([-+][^:]*\):.*/\1/" | sort
}

# all_crlf FILE: every line ends in CRLF.
all_crlf() {
	test "$(grep -c "" "$1")" = "$(grep -c "$(printf "\r")\$" "$1")"
}

test_expect_success 'setup: the seed plus hand-written threads' '
	new_repo r &&
	cp -R "$SEED/.threadmind" r/ &&
	cat >$TD/tricky.md <<-\EOF &&
	---
	id: tricky
	title: "Fix: login"
	parentId: main
	author: mahmoud-a3f9
	createdAt: 2026-04-16T08:00:00.000Z
	updatedAt: 2026-04-16T09:00:00.000Z
	branch: "null"
	paths: ["src/login","- dash"]
	reviewer: "- dash"
	# a comment the plugin wrote
	labels:
	  - a
	  - "null"
	x-score: 12
	empty-thing:
	---

	## Décisions
	- first
	---
	- after a rule
	EOF
	printf -- "---\r\nid: crlf\r\ntitle: \"null\"\r\nparentId: auth\r\nauthor: w-1234\r\ncreatedAt: 2026-04-17T08:00:00.000Z\r\nupdatedAt: 2026-04-17T08:00:00.000Z\r\nx-editor: \"vscode: 1.90\"\r\n---\r\n\r\n## State\r\n---\r\n- crlf body\r\n" \
		>$TD/crlf.md &&
	printf -- "---\nid: hash\ntitle: Fix #12 login\nparentId: auth-ui\nauthor: p-0000\ncreatedAt: 2026-04-18T08:00:00Z\nupdatedAt: 2026-04-18T08:00:00+02:00\npaths:\n  - src/a\n  - src/b\n---\n## Body without a blank line\n- no final newline" \
		>$TD/hash.md &&
	(cd r && git add .threadmind && git commit -q -m seed) &&
	cp -R r/.threadmind orig &&
	ls $TD >files &&
	test "$(wc -l <files)" -eq 6
'

test_expect_success 'every hand-written file reads back as written' '
	(cd r && git threadmind show tricky --json) >out &&
	json_is "d[\"title\"] == \"Fix: login\" and d[\"branch\"] == \"null\"" &&
	json_is "d[\"paths\"] == [\"src/login\", \"- dash\"]" &&
	json_is "d[\"summary\"] == \"## Décisions\n- first\n---\n- after a rule\n\"" &&
	(cd r && git threadmind show crlf --json) >out &&
	json_is "d[\"title\"] == \"null\" and d[\"parentId\"] == \"auth\"" &&
	json_is "d[\"summary\"] == \"## State\n---\n- crlf body\n\"" &&
	(cd r && git threadmind show hash --json) >out &&
	json_is "d[\"title\"] == \"Fix #12 login\" and d[\"paths\"] == [\"src/a\", \"src/b\"]"
'

test_expect_success 'set title on a seed thread changes only that file' '
	(cd r && git threadmind set auth "title=Auth: sessions") &&
	(cd r && git status --porcelain) >actual &&
	echo " M .threadmind/threads/mon-app/auth.md" >expect &&
	test_cmp expect actual
'

test_expect_success '... and only its title and updatedAt lines' '
	changed_keys $TD/auth.md >actual &&
	printf "+title\n+updatedAt\n-title\n-updatedAt\n" >expect &&
	test_cmp expect actual &&
	echo "\"Auth: sessions\"" >expect &&
	fm $TD/auth.md title >actual &&
	test_cmp expect actual &&
	body orig/threads/mon-app/auth.md >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual
'

test_expect_success 'untouched threads, config and project are byte-identical' '
	for f in main auth-ui tricky crlf hash
	do
		cmp orig/threads/mon-app/$f.md $TD/$f.md || return 1
	done &&
	cmp orig/config.json r/.threadmind/config.json &&
	cmp orig/projects/mon-app.json r/.threadmind/projects/mon-app.json
'

test_expect_success 'touch main adds commit and branch, nothing else' '
	(cd r && git threadmind touch main) &&
	changed_keys $TD/main.md >actual &&
	printf "+branch\n+commit\n+updatedAt\n-updatedAt\n" >expect &&
	test_cmp expect actual &&
	cmp orig/threads/mon-app/auth-ui.md $TD/auth-ui.md &&
	cmp orig/threads/mon-app/tricky.md $TD/tricky.md
'

test_expect_success 'summary on auth-ui replaces the body only' '
	printf "## State\n- rewritten\n" |
		(cd r && git threadmind summary auth-ui) &&
	printf "\n## State\n- rewritten\n" >expect &&
	body $TD/auth-ui.md >actual &&
	test_cmp expect actual &&
	changed_keys $TD/auth-ui.md >keys &&
	! grep -v -e "^[-+]commit$" -e "^[-+]updatedAt$" -e "^[-+]branch$" \
		-e "^[-+]- " -e "^[-+]## " -e "^[-+]$" keys &&
	grep "^-## État" keys &&
	cmp orig/threads/mon-app/crlf.md $TD/crlf.md &&
	cmp orig/threads/mon-app/hash.md $TD/hash.md
'

test_expect_success 'set title on tricky keeps unknown fields and comments' '
	(cd r && git threadmind set tricky "title=Fix: login (v2)") &&
	changed_keys $TD/tricky.md >actual &&
	printf "+title\n+updatedAt\n-title\n-updatedAt\n" >expect &&
	test_cmp expect actual &&
	header_from orig/threads/mon-app/tricky.md branch >expect &&
	header_from $TD/tricky.md branch >actual &&
	test_cmp expect actual &&
	grep "^branch: \"null\"$" $TD/tricky.md &&
	grep "^reviewer: \"- dash\"$" $TD/tricky.md &&
	grep "^# a comment the plugin wrote$" $TD/tricky.md
'

test_expect_success '... and its body, --- line included, byte for byte' '
	body orig/threads/mon-app/tricky.md >expect &&
	body $TD/tricky.md >actual &&
	test_cmp expect actual &&
	grep -c "^---$" $TD/tricky.md >count &&
	echo 3 >expect &&
	test_cmp expect count
'

test_expect_success 'the same title again writes nothing' '
	cp $TD/tricky.md before &&
	(cd r && git threadmind set tricky "title=Fix: login (v2)") &&
	cmp before $TD/tricky.md
'

test_expect_success 'a refused set leaves the file alone' '
	(cd r && test_exit_code 128 git threadmind set tricky title=X \
		branch=bad..name) &&
	cmp before $TD/tricky.md
'

test_expect_success 'touch on the CRLF file keeps CRLF and its unknown field' '
	(cd r && git threadmind touch crlf) &&
	all_crlf $TD/crlf.md &&
	grep "^x-editor: \"vscode: 1.90\"" $TD/crlf.md &&
	grep "^title: \"null\"" $TD/crlf.md &&
	body orig/threads/mon-app/crlf.md >expect &&
	body $TD/crlf.md >actual &&
	test_cmp expect actual &&
	tr -d "\r" <orig/threads/mon-app/crlf.md >lf-orig &&
	tr -d "\r" <$TD/crlf.md >lf-now &&
	test_must_fail diff lf-orig lf-now >d &&
	grep "^[<>]" d | sed "s/: .*//" | sort >actual &&
	printf "< updatedAt\n> branch\n> commit\n> updatedAt\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'summary on the CRLF file writes the new body in CRLF' '
	printf "## Next\n---\n- lf input\n" |
		(cd r && git threadmind summary crlf) &&
	all_crlf $TD/crlf.md &&
	printf "\r\n## Next\r\n---\r\n- lf input\r\n" >expect &&
	body $TD/crlf.md >actual &&
	test_cmp expect actual &&
	grep "^x-editor: \"vscode: 1.90\"" $TD/crlf.md
'

test_expect_success 'summary on tricky keeps its unknown fields' '
	printf "## Décisions\n- new\n---\n- still after a rule\n" |
		(cd r && git threadmind summary tricky) &&
	header_from orig/threads/mon-app/tricky.md reviewer >expect &&
	header_from $TD/tricky.md reviewer >actual &&
	test_cmp expect actual &&
	(cd r && git threadmind show tricky --json) >out &&
	json_is "d[\"summary\"] == \"## Décisions\n- new\n---\n- still after a rule\n\"" &&
	json_is "d[\"title\"] == \"Fix: login (v2)\""
'

test_expect_success 'touch on a plugin-style file keeps values and body' '
	(cd r && git threadmind touch hash) &&
	(cd r && git threadmind show hash --json) >out &&
	json_is "d[\"title\"] == \"Fix #12 login\"" &&
	json_is "d[\"paths\"] == [\"src/a\", \"src/b\"]" &&
	json_is "d[\"createdAt\"] == \"2026-04-18T08:00:00Z\"" &&
	body orig/threads/mon-app/hash.md >expect &&
	body $TD/hash.md >actual &&
	cmp expect actual
'

test_expect_success 'only the threads worked on changed; all still parse' '
	(cd r && git status --porcelain) | sort >actual &&
	for f in auth auth-ui crlf hash main tricky
	do
		echo " M .threadmind/threads/mon-app/$f.md"
	done | sort >expect &&
	test_cmp expect actual &&
	cmp orig/config.json r/.threadmind/config.json &&
	cmp orig/projects/mon-app.json r/.threadmind/projects/mon-app.json &&
	(cd r && git threadmind list --json) >out 2>err &&
	test_must_fail test -s err &&
	json_is "sorted(t[\"id\"] for t in d[\"threads\"]) == [\"auth\", \"auth-ui\", \"crlf\", \"hash\", \"main\", \"tricky\"]"
'

test_done
