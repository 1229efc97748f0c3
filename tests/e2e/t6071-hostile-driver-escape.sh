#!/bin/sh
# Paths and ids in every message of every binary go through the CLI's
# filter (lib/util/text.c, tm_text_vmessage): control characters show as '?'
# (issue 24, repro driver-path-escape; docs/SECURITY.md).  git 2.39 prints
# its own "Auto-merging <path>" raw: only our lines are checked.
. "$(dirname "$0")/test-lib.sh"

ESC=$(printf '\033')
BEL=$(printf '\007')
NAME="x${ESC}]0;PWNED${BEL}"

# raw FILE: fails when FILE holds an ESC or a BEL.
raw() {
	if LC_ALL=C grep -q "[$ESC$BEL]" "$1"; then
		echo "raw control characters in $1:"
		cat -v "$1"
		return 1
	fi
}

test_expect_success 'setup: a thread file named with a terminal escape' '
	new_repo r && (cd r && git threadmind init -q --title R &&
		git threadmind install -q >/dev/null 2>&1 &&
		P=.threadmind/threads/$(ls .threadmind/threads) &&
		printf "one\ntwo\nthree\n" >"$P/$NAME.md" &&
		git add -A && git commit -q -m base &&
		git checkout -q -b theirs &&
		printf "one\ntwo\nTHEIRS\n" >"$P/$NAME.md" &&
		git commit -q -a -m theirs && git checkout -q main &&
		printf "OURS\ntwo\nthree\n" >"$P/$NAME.md" &&
		git commit -q -a -m ours)
'

test_expect_success 'git merge: the driver names the file with ? for them' '
	(cd r && git merge -q --no-edit theirs >out 2>&1; cat -v out &&
		grep -v "^Auto-merging " out >ours &&
		grep "^git-threadmind-merge: .*/x?]0;PWNED?\.md: not a thread" ours &&
		raw ours && P=.threadmind/threads/$(ls .threadmind/threads) &&
		printf "OURS\ntwo\nTHEIRS\n" >expect && test_cmp expect "$P/$NAME.md")
'

test_expect_success 'the driver run by hand: %P and its errors filtered' '
	printf "a\n" >base && printf "b\n" >ours && printf "a\n" >theirs &&
	git-threadmind-merge base ours theirs 7 "n${ESC}[2J.txt" 2>err;
	cat -v err && raw err &&
	test_must_fail git-threadmind-merge "m${ESC}[2J" ours theirs 7 p 2>err &&
	cat -v err && grep "cannot open .m?\[2J." err && raw err
'

test_expect_success 'the CLI: an unknown command or option shows ? too' '
	test_must_fail git threadmind "st${ESC}[2J" 2>err && cat -v err &&
	grep "st?\[2J" err && raw err &&
	(cd r && test_must_fail git threadmind list "--a${ESC}[2J" 2>err &&
		cat -v err && grep "unknown option .--a?\[2J." err && raw err)
'

test_done
