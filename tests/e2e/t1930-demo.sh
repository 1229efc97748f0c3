#!/bin/sh
# make demo (scripts/demo): into a pipe it writes no escape bytes, exits 0,
# leaves its repositories, ends saying how to explore them, and the lines
# it shows ("$ <command>") are all it runs: pasted into sh in an empty
# folder they print the same (times, hashes and folders aside) and build
# the same repositories.
. "$(dirname "$0")/test-lib.sh"

ESC=$(printf '\033')
export ESC
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# normalize DIR <file: the output without what differs from run to run
normalize() {
	sed -E -e "s|$1|DIR|g" \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/TIME/g' \
		-e 's/\b[0-9a-f]{7,40}\b/HASH/g' -e '/^$/d'
}

# state DIR: what the demo leaves in DIR (commits, thread files, tree)
state() {
	for r in shop teammate; do
		echo "== $r" &&
		git -C "$1/$r" log --format=%s --graph &&
		git -C "$1/$r" status --porcelain &&
		(cd "$1/$r" && git threadmind tree --ascii) &&
		for f in "$1/$r"/.threadmind/threads/*/*.md; do
			echo "-- ${f#"$1"/}" && cat "$f"
		done || return 1
	done | normalize "$1"
}

test_expect_success 'the demo runs into a pipe: exit 0, no escape bytes' '
	TM_DEMO_DIR="$TEST_ROOT/demo" sh "$TEST_SRC/scripts/demo" >out 2>&1 &&
	! grep -q "$ESC" out &&
	grep -q "^\$ git threadmind init --title .Mon App.$" out
'

test_expect_success 'it leaves the repositories and says how to explore them' '
	test -d demo/shop/.threadmind && test -d demo/teammate/.git &&
	test "$(tail -n 1 out)" = "cd demo/shop && git threadmind tree" &&
	(cd demo/shop && git threadmind tree --ascii) >tree &&
	grep "auth-ui" tree
'

test_expect_success 'it shows the stale flow and a merge fixed by resolve' '
	grep "^threadmind: summaries may be outdated: auth" out &&
	grep -q "^\$ git threadmind stale$" out &&
	grep -q "^\$ git threadmind touch auth$" out &&
	grep "^CONFLICT (content): Merge conflict in .threadmind" out &&
	grep "^resolved .threadmind/threads/mon-app/auth-ui.md$" out &&
	! grep -q "^<<<<<<<" demo/teammate/.threadmind/threads/mon-app/auth-ui.md
'

test_expect_success 'it reviews a branch with diff main...feature, then log' '
	sed -n "/^\$ git threadmind diff main...feature\/cookies$/,/^\$ git merge/p" \
		out >diff &&
	grep "^M auth  Auth (cookies)$" diff &&
	grep "^    title: Auth -> Auth (cookies)$" diff &&
	grep "^    ## Decisions$" diff &&
	grep "^      + - Cookies httpOnly$" diff &&
	grep -q "^\$ git threadmind log --oneline -n 3 auth$" out &&
	grep -E "^[0-9a-f]{7} Merge branch .feature/cookies. \(auth: \+1 items, title\)$" out
'

test_expect_success 'by default under <build>/demo/, recreated on each run' '
	mkdir fb && ln -s "$TM_BUILD"/git-threadmind* fb/ &&
	mkdir -p fb/demo && echo leftover >fb/demo/leftover &&
	TM_BUILD=fb sh "$TEST_SRC/scripts/demo" >fb.out 2>&1 &&
	test_must_fail test -e fb/demo/leftover &&
	test -d fb/demo/shop/.threadmind &&
	test "$(tail -n 1 fb.out)" = "cd fb/demo/shop && git threadmind tree"
'

test_expect_success 'the shown lines, pasted into sh, reproduce the demo' '
	sed -n "s/^\\$ //p" out >paste.sh &&
	test $(wc -l <paste.sh) -ge 60 &&
	mkdir paste paste-home &&
	(cd paste && HOME="$TEST_ROOT/paste-home" sh ../paste.sh) >paste.out 2>&1 &&
	normalize "$TEST_ROOT/paste" <paste.out >actual &&
	sed -e "/^\\$ /d" -e "/^== /d" out | head -n -3 |
		normalize "$TEST_ROOT/demo" >expect &&
	test_cmp expect actual &&
	state "$TEST_ROOT/demo" >expect &&
	state "$TEST_ROOT/paste" >actual &&
	test_cmp expect actual &&
	grep "^title: Auth UI (forms)$" expect
'

test_done
