#!/bin/sh
# Hostile thread files a cloned repository can carry (issue 11; the
# reproductions d2, d8 and d14 of ../shared/repro/reliability/): every
# command stays within a time and memory bound, and summary bytes survive
# rewrites exactly.  Bounds: docs/SECURITY.md.
. "$(dirname "$0")/test-lib.sh"

P=.threadmind/threads/p

# Coarse denial-of-service guards: these inputs cost tens of seconds before
# the fixes and milliseconds after.  Sanitized builds are a few times slower
# and use far more memory.
MAX_S=2 MAX_KB=65536
! sanitizer_build || MAX_S=10 MAX_KB=1048576

# keys_file PATH N: a thread file with N distinct unknown keys.
keys_file() {
	frontmatter id=keys title=K parentId=main $(awk -v n="$2" \
		'BEGIN { for (i = 0; i < n; i++) printf "k%x=v\n", i }') >"$1"
}

# nested_file PATH FIELD N CHAR: FIELD holds N times CHAR ([ or {).
nested_file() {
	frontmatter id=n parentId=main "$2=$(printf "%$3s" "" | tr " " "$4")" \
		>"$1"
}

# summary_of ID: the JSON summary of a thread, raw bytes on stdout.
summary_of() {
	git threadmind show --json "$1" | python3 -c \
		'import json, sys; sys.stdout.write(json.load(sys.stdin)["summary"])'
}

test_expect_success 'setup: a project with the hooks installed' '
	new_repo r &&
	(cd r && git threadmind init -q --title P &&
		git threadmind install -q >/dev/null 2>&1)
'

# d2: 100,000 unknown keys (930 KB, under the 1 MiB cap) cost ~42 s per
# command when the duplicate-key check was quadratic.
test_expect_success 'd2: 100,000 keys: every command and hook is fast' '
	(cd r && keys_file $P/keys.md 100000 &&
		test $(wc -c <$P/keys.md) -lt 1048576 &&
		test_bounded d2-prompt git threadmind prompt &&
		test_bounded d2-status git threadmind status &&
		grep "threads: 2 active" "$TEST_ROOT/d2-status.out" &&
		test_bounded d2-show git threadmind show --json keys &&
		test_bounded d2-checkout git checkout -q -b feat &&
		test "$(cat "$TEST_ROOT/d2-checkout.rc")" = 0 &&
		test_bounded d2-set git threadmind set keys title=K2 &&
		test "$(cat "$TEST_ROOT/d2-set.rc")" = 0 &&
		test $(grep -c "^k[0-9a-f]*: v$" $P/keys.md) = 100000 &&
		grep "^title: K2$" $P/keys.md)
'

test_expect_success 'd2: a duplicate key far down is still found' '
	(cd r && sed "s/^k1869f: v$/k0: again/" $P/keys.md >dup &&
		cp dup $P/keys.md && rm dup &&
		test_bounded d2-dup git threadmind show keys &&
		test "$(cat "$TEST_ROOT/d2-dup.rc")" = 128 &&
		grep "keys.md.* line 100005: duplicate key .k0." \
			"$TEST_ROOT/d2-dup.err" &&
		rm $P/keys.md)
'

# d8: flow collections nested 10k-40k deep went to libyaml, whose time grows
# with the square of the depth (28-54 s per file at 100k).
test_expect_success 'd8: deep nesting is refused at once, naming the file' '
	(cd r && for n in 10000 40000 100000; do
		nested_file $P/n.md paths $n "[" &&
		test_bounded d8-status-paths-$n git threadmind status &&
		test "$(cat "$TEST_ROOT/d8-status-paths-$n.rc")" = 0 &&
		grep "warning: skipping .*threads/p/n.md. line 4: cannot read field .paths.: lists or mappings nested more than 2 deep" \
			"$TEST_ROOT/d8-status-paths-$n.err" || return 1
	done)
'

# A text field is text unless it is one quoted string (0.4 wrote titles
# raw): brackets there are read as they are, as fast.
test_expect_success 'd8: deep brackets in a text field are its text' '
	(cd r && for n in 10000 100000; do
		for f in title branch; do
			nested_file $P/n.md $f $n "[" &&
			test_bounded d8-text-$f-$n git threadmind show --json n &&
			test "$(cat "$TEST_ROOT/d8-text-$f-$n.rc")" = 0 &&
			python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d[sys.argv[2]] == \"[\" * int(sys.argv[3])" \
				"$TEST_ROOT/d8-text-$f-$n.out" $f $n || return 1
		done
	done && rm $P/n.md)
'

test_expect_success 'd8: the merge driver is bounded too' '
	(cd r && nested_file deep.md title 100000 "{" &&
		printf -- "---\nid: n\ntitle: N\nparentId: main\n---\n" >base.md &&
		sed "s/^title: N$/title: O/" base.md >ours.md &&
		cp ours.md ours2.md &&
		test_bounded d8-driver git-threadmind-merge base.md ours.md deep.md 7 \
			.threadmind/threads/p/n.md &&
		test "$(cat "$TEST_ROOT/d8-driver.rc")" -le 1 &&
		cp deep.md deep2.md &&
		test_bounded d8-driver2 git-threadmind-merge base.md deep2.md ours2.md 7 \
			.threadmind/threads/p/n.md &&
		test "$(cat "$TEST_ROOT/d8-driver2.rc")" -le 1 &&
		rm -f $P/n.md deep.md deep2.md base.md ours.md ours2.md)
'

test_expect_success 'd8: two levels and brackets in text still read' '
	(cd r && printf -- "---\nid: b\ntitle: \"[[[x]]]\"\nparentId: main\npaths:\n  - app/[slug]/[[...all]]/page.tsx\n---\n" >$P/b.md &&
		git threadmind show --json b >b.json &&
		python3 -c "import json; d=json.load(open(\"b.json\")); assert d[\"title\"] == \"[[[x]]]\", d; assert d[\"paths\"] == [\"app/[slug]/[[...all]]/page.tsx\"], d" &&
		rm $P/b.md b.json)
'

# d14 (found by fuzzing): CR CR LF lost one CR per rewrite.
test_expect_success 'd14: CR CR LF survives summary, show and rewrites' '
	(cd r && printf "one\r\r\ntwo\n" >s &&
		git threadmind summary main -F s >/dev/null 2>&1 &&
		printf "\none\r\ntwo\n" >want &&
		body $P/main.md >got && cmp want got &&
		summary_of main >got && cmp s got &&
		cp $P/main.md before &&
		git threadmind summary main -F got >/dev/null 2>&1 &&
		test_exit_code 1 env GIT_EDITOR=true git threadmind edit main \
			2>err && grep "summary unchanged" err &&
		git threadmind set main title=Main2 >/dev/null &&
		body $P/main.md >got && cmp want got &&
		summary_of main >got && cmp s got)
'

test_expect_success 'd14: a CRLF file keeps its body byte for byte' '
	(cd r && printf -- "---\r\nid: c\r\ntitle: C\r\nparentId: main\r\n---\r\n\r\none\r\r\ntwo\r\r\r\nthree\r\n" >$P/c.md &&
		cp $P/c.md before &&
		summary_of c >s &&
		printf "one\r\r\ntwo\r\r\r\nthree\n" >want && cmp want s &&
		for i in 1 2 3; do
			git threadmind summary c -F s >/dev/null 2>&1 || return 1
			summary_of c >s2 && cmp want s2 || return 1
		done &&
		body before >want && body $P/c.md >got && cmp want got &&
		git threadmind set c title=D >/dev/null &&
		body $P/c.md >got && cmp want got &&
		grep "^title: D.$" $P/c.md)
'

test_done
