#!/bin/sh
# ThreadMind 0.4 gave a title with no ASCII letter or digit an empty slug,
# so the second and third such threads got the ids `-2`, `-3` (issue 18,
# repro 06: `show -2` said "unknown switch '2'").  In a command whose
# arguments are threads, an unknown switch that is exactly a thread's id is
# that thread; `--` ends the options; an unknown switch that names no
# thread stays a usage error, with a hint for `-- -2` when it looks like a
# 0.4 id.
. "$(dirname "$0")/test-lib.sh"

T=r/.threadmind

# th ID PARENT TITLE [BODY]: a thread file exactly as ThreadMind 0.4.1
# writes it (no quoting, body after a blank line, no final newline).
n=0
th() {
	n=$((n + 1))
	ts=$(printf '2026-04-15T10:%02d:00.000Z' "$n")
	printf -- '---\nid: %s\ntitle: %s\nparentId: %s\nauthor: alice-1a2b\ncreatedAt: %s\nupdatedAt: %s\n---\n\n%s' \
		"$1" "$3" "$2" "$ts" "$ts" "${4:-}" >"$T/threads/p/$1.md"
}

# The store of ../shared/repro/interop/06-dash-ids-as-arguments.sh.
test_expect_success 'setup: a store written by ThreadMind 0.4.1' '
	git init -q r &&
	mkdir -p $T/projects $T/threads/p $T/trees &&
	printf "config.json\n\n" >$T/.gitignore &&
	printf "{\n  \"id\": \"p\",\n  \"title\": \"P\",\n  \"systemContext\": \"\",\n  \"mode\": \"solo\",\n  \"rootThreadId\": \"main\"\n}" >$T/projects/p.json &&
	printf "{\n  \"activeProjectId\": \"p\",\n  \"activeThreadId\": \"main\",\n  \"author\": \"alice-1a2b\",\n  \"version\": 1\n}" >$T/config.json &&
	th main null P &&
	th "" main "认证模块" &&
	th -2 main "支付模块" "body of -2" &&
	th -3 main "🚀" "body of -3" &&
	(cd r && git add -A && git commit -q -m "0.4 store")
'

test_expect_success 'repro 06: show -2 shows thread -2, exit 0' '
	(cd r && git threadmind show -2 2>../err) >out &&
	grep "^id: \"-2\"$" out &&
	grep "^title: 支付模块$" out &&
	grep "^body of -2$" out &&
	test_must_fail grep "unknown switch" err
'

test_expect_success 'show -- -2 gives the same' '
	(cd r && git threadmind show -- -2) >out2 &&
	test_cmp out out2 &&
	(cd r && git threadmind show -3 --json) >out &&
	grep "\"id\": \"-3\"" out &&
	(cd r && git threadmind show --summary-only -- -3) >out &&
	printf "body of -3\n" >expect &&
	test_cmp expect out
'

test_expect_success 'every command taking threads takes -2' '
	(cd r && git threadmind switch -2 &&
		git threadmind prompt) >out &&
	printf "%s\n" -2 >expect &&
	test_cmp expect out &&
	(cd r && git threadmind set -2 title=Paiement) &&
	grep "^title: Paiement" $T/threads/p/-2.md &&
	(cd r && echo "- paid" |
		git threadmind summary -q -2 --append --section State) &&
	grep "^- paid$" $T/threads/p/-2.md &&
	(cd r && git threadmind move -3 -2) &&
	grep "^parentId: \"-2\"" $T/threads/p/-3.md &&
	(cd r && git threadmind done -3 && git threadmind reopen -3) &&
	(cd r && GIT_EDITOR="sed -i s/paid/payé/" git threadmind edit -2) &&
	grep "^- payé$" $T/threads/p/-2.md &&
	(cd r && git threadmind touch -q -2 -3 && git threadmind merge -3) &&
	grep "^mergedInto: \"-2\"" $T/threads/p/-3.md &&
	grep "^body of -3$" $T/threads/p/-2.md &&
	(cd r && git threadmind rm -q -3) &&
	test ! -e $T/threads/p/-3.md
'

test_expect_success 'the thread is looked for in --project, given after it too' '
	(cd r && git threadmind show -2 --project p) >out &&
	grep "^id: \"-2\"$" out &&
	(cd r && test_exit_code 129 git threadmind show -2 --project nope) 2>err &&
	grep "^error: unknown switch .2.$" err
'

test_expect_success 'a fresh clone with several projects: the one holding -2' '
	(cd r && git threadmind project new Other >/dev/null &&
		git add -A && git commit -q -m other) &&
	git clone -q r clone &&
	(cd clone && git threadmind show -2) >out &&
	grep "^id: \"-2\"$" out &&
	(cd clone && test_exit_code 129 git threadmind show -4) 2>err &&
	grep "^error: unknown switch .4.$" err
'

test_expect_success 'a 0.4-looking id that names no thread: usage error and a hint for --' '
	(cd r && test_exit_code 129 git threadmind show -7) 2>err &&
	cat >expect <<-\EOF &&
	error: unknown switch '\''7'\''
	hint: a thread id that starts with '\''-'\'' goes after '\''--'\'': '\''git threadmind show -- -7'\''
	EOF
	sed -n "1,2p" err >actual &&
	test_cmp expect actual &&
	grep "^usage: git threadmind show" err
'

test_expect_success 'other unknown switches: the usage error, no hint' '
	(cd r && test_exit_code 129 git threadmind show -x) 2>err &&
	grep "^error: unknown switch .x.$" err &&
	test_must_fail grep "^hint:" err &&
	(cd r && test_exit_code 129 git threadmind show -q2) 2>err &&
	grep "^error: unknown switch .2.$" err &&
	test_must_fail grep "^hint:" err &&
	(cd r && test_exit_code 129 git threadmind show --frob) 2>err &&
	grep "^error: unknown option .--frob.$" err
'

test_expect_success 'a command that takes no thread keeps -2 a usage error, without hint' '
	(cd r && test_exit_code 129 git threadmind list -2) 2>err &&
	grep "^error: unknown switch .2.$" err &&
	test_must_fail grep "^hint:" err
'

test_expect_success 'outside a store -2 stays a usage error (129), not a fatal one' '
	mkdir nowhere &&
	(cd nowhere && GIT_CEILING_DIRECTORIES="$TEST_ROOT" \
		test_exit_code 129 git threadmind show -2) 2>err &&
	grep "^error: unknown switch .2.$" err &&
	grep "^hint: " err
'

# complete WORD...: the completion of the last word of "WORD...", through
# git's bash completion when it is installed (as t1920 does), else called
# directly; one reply a line.
cat >complete.bash <<'EOF2'
git_completion=/usr/share/bash-completion/completions/git
if [ -f "$git_completion" ]; then
	. "$git_completion"
	. "$TEST_SRC/contrib/completion/git-threadmind.bash"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	__git_wrap__git_main
else
	. "$TEST_SRC/contrib/completion/git-threadmind.bash"
	words=("$@")
	cword=$((${#words[@]} - 1))
	cur=${words[cword]}
	COMPREPLY=()
	_git_threadmind
fi
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sed 's/ $//'
EOF2

if command -v bash >/dev/null 2>&1; then
	test_expect_success 'completion: after --, ids (those starting with - too), no options; after a thread of show, commits' '
		(cd r && bash "$TEST_ROOT/complete.bash" git threadmind show -- "") >actual &&
		(cd r && ls .threadmind/threads/p | sed -n "s/\.md$//p" | grep . | LC_ALL=C sort) >expect &&
		grep "^-2$" expect &&
		LC_ALL=C sort actual >sorted &&
		test_cmp expect sorted &&
		(cd r && bash "$TEST_ROOT/complete.bash" git threadmind show -- -) >actual &&
		printf "%s\n" -2 >expect &&
		test_cmp expect actual &&
		(cd r && bash "$TEST_ROOT/complete.bash" git threadmind show --) >actual &&
		grep "^--json$" actual &&
		(cd r && bash "$TEST_ROOT/complete.bash" git threadmind show -- -2 "") >actual &&
		printf "%s\n" HEAD main >expect &&
		test_cmp expect actual &&
		(cd r && bash "$TEST_ROOT/complete.bash" git threadmind show -- -2 HEAD "") >actual &&
		test_must_fail test -s actual &&
		(cd r && bash "$TEST_ROOT/complete.bash" git threadmind diff HEAD -- -) >actual &&
		printf "%s\n" -2 >expect &&
		test_cmp expect actual &&
		(cd r && bash "$TEST_ROOT/complete.bash" git threadmind log -- -) >actual &&
		test_cmp expect actual
	'
fi

test_done
