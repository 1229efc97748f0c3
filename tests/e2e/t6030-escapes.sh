#!/bin/sh
# Control characters from a cloned repository never reach the terminal raw
# (issue 11, reproduction d7; DESIGN.md section 11 "Titles"): human output
# shows them as '?', --json escapes them, input refuses them, and newlines
# in a typed title become one space.
. "$(dirname "$0")/test-lib.sh"

P=.threadmind/threads/p
ESC=$(printf '\033')
BEL=$(printf '\007')

# raw FILE: fails when FILE holds an ESC, a BEL or a C1 CSI byte pair.
raw() {
	if LC_ALL=C grep -q "[$ESC$BEL]" "$1" ||
		LC_ALL=C grep -q "$(printf '\302\233')" "$1"; then
		echo "raw control characters in $1:"
		od -c "$1" | head -5
		return 1
	fi
}

test_expect_success 'setup: a cloned thread whose fields hold escapes' '
	new_repo r && (cd r && git threadmind init -q --title P &&
		git threadmind install -q >/dev/null 2>&1 &&
		printf -- "---\nid: evil\ntitle: \"\\\\u001b]0;PWNED\\\\u0007 \\\\u009b2J\"\nparentId: \"gone\\\\u001b[31m\"\nbranch: feat\nupdatedAt: 2099-01-01T00:00:00.000Z\nx-note: \"\\\\u001b[5m\"\n---\n\n## Notes\n- n\n" \
			>$P/evil.md &&
		printf -- "---\nid: odd\ntitle: Odd\nparentId: main\nstatus: \"x\\\\u001b[2J\"\n---\n" \
			>$P/odd.md &&
		git add -A && git commit -q -m evil)
'

test_expect_success 'd7: the post-checkout hook line shows ? for them' '
	(cd r && git checkout -q -b feat 2>err && cat err &&
		grep "evil (?]0;PWNED? ?2J)" err && raw err)
'

for cmd in "tree" "tree --all" "list --all" "status" "show evil" "doctor" "stale"; do
	test_expect_success "d7: $cmd shows control characters as ?" "
		(cd r && git threadmind $cmd >out 2>&1; cat out && raw out)
	"
done

test_expect_success 'd7: tree names the fields it quotes without escapes' '
	(cd r && git threadmind tree --all >out 2>&1 &&
		grep "?]0;PWNED? ?2J" out &&
		grep "orphan: parent .gone?\[31m. missing" out &&
		grep "\[x?\[2J\]" out)
'

test_expect_success 'd7: --json escapes them' '
	(cd r && git threadmind show --json evil >out && raw out &&
		grep "\"title\": \"\\\\u001b]0;PWNED\\\\u0007" out &&
		git threadmind list --json >out && raw out &&
		git threadmind tree --json >out && raw out &&
		python3 -c "import json; t=[x for x in json.load(open(\"out\"))[\"roots\"] if x[\"id\"] == \"evil\"][0]; assert t[\"title\"].startswith(\"\\x1b]0;PWNED\\x07\"), t")
'

test_expect_success 'd7: an error message quoting a file name shows ?' '
	(cd r && printf "x" >"$P/bad${ESC}[2J.md" &&
		git threadmind tree >out 2>err; cat err && raw err &&
		grep "bad?\[2J.md" err && rm "$P/bad${ESC}[2J.md")
'

test_expect_success 'd7: a lock holder is shown with ?' '
	(cd r && printf "{\"pid\":1,\"host\":\"h${ESC}]0;X${BEL}\"}" >.threadmind/.lock &&
		git threadmind status >out 2>&1; cat out && raw out;
		rc=$?; rm -f .threadmind/.lock; test $rc = 0)
'

test_expect_success 'input: control characters in a new title are refused' '
	(cd r && cp -R .threadmind before &&
		test_must_fail git threadmind new "a${ESC}]0;X${BEL}b" 2>err &&
		cat err && raw err &&
		grep "holds a control character (.a?\]0;X?b., shown as .?.)" err &&
		test_must_fail git threadmind new "$(printf "tab\there")" &&
		test_must_fail git threadmind set main "title=x${ESC}y" 2>err &&
		raw err && grep "the title of .main. holds a control" err &&
		test_must_fail git threadmind project new "p${ESC}" &&
		diff -r before .threadmind && rm -rf before)
'

test_expect_success 'input: newlines in a title become one space' '
	(cd r && id=$(git threadmind new -q "$(printf "one\r\ntwo\rthree\nfour\n\nx")") &&
		test "$id" = one-two-three-four-x &&
		grep "^title: one two three four x\$" $P/$id.md &&
		git threadmind set $id "title=$(printf "five\r\nsix")" &&
		grep "^title: five six\$" $P/$id.md &&
		git threadmind project new -q "$(printf "New\nProj")" >out &&
		grep "^new-proj\$" out &&
		grep "\"title\": \"New Proj\"" .threadmind/projects/new-proj.json)
'

test_expect_success 'input: a title empty after trimming is refused' '
	(cd r && test_must_fail git threadmind new "$(printf " \r\n ")" 2>err &&
		grep "cannot be empty" err &&
		test_must_fail git threadmind set main "title=  " 2>err &&
		grep "cannot be empty" err &&
		test_must_fail git threadmind project new " " 2>err &&
		grep "cannot be empty" err)
'

test_done
