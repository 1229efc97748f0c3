#!/bin/sh
# `git threadmind help [<command>]` and the one-line answer to a mistyped
# command with git's "did you mean" suggestion.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'help alone prints the command list, exit 0' '
	git threadmind help >out &&
	grep "^usage: git threadmind \[--project <id>\]" out &&
	grep "^    status  *project, active thread" out &&
	grep "^    help  *" out &&
	test_exit_code 129 git threadmind -h >h &&
	test_cmp h out
'

test_expect_success 'help <command> prints what <command> -h prints, exit 0' '
	for c in status tree list project hook help; do
		git threadmind help $c >out || return 1
		test_exit_code 129 git threadmind $c -h >expect || return 1
		test_cmp expect out || return 1
	done &&
	grep "^usage: git threadmind help \[<command>\]" out
'

test_expect_success 'help -h is a usage (129); two arguments are a usage error' '
	test_exit_code 129 git threadmind help -h >out &&
	grep "^usage: git threadmind help" out &&
	test_exit_code 129 git threadmind help tree list 2>err &&
	grep "^error: too many arguments" err
'

test_expect_success 'git-threadmind --help run directly prints the list, exit 0' '
	git-threadmind --help >out &&
	grep "^commands:" out &&
	grep "git help threadmind" out
'

test_expect_success 'a mistyped command: one line, did you mean, exit 1' '
	test_exit_code 1 git threadmind stauts >out 2>err &&
	test_must_fail test -s out &&
	printf "%s\n" \
		"git threadmind: '\''stauts'\'' is not a threadmind command. See '\''git threadmind help'\''." \
		"did you mean '\''status'\''?" >expect &&
	test_cmp expect err
'

test_expect_success 'suggestions: insertion, prefix, several, none' '
	test_exit_code 1 git threadmind tuch 2>err &&
	grep "^did you mean .touch.?$" err &&
	test_exit_code 1 git threadmind prj 2>err &&
	grep "^did you mean .project.?$" err &&
	test_exit_code 1 git threadmind st 2>err &&
	grep "^did you mean .status. or .stale.?$" err &&
	test_exit_code 1 git threadmind frobnicate 2>err &&
	test $(wc -l <err) = 1 &&
	test_exit_code 1 git threadmind help stauts 2>err &&
	grep "^did you mean .status.?$" err
'

test_done
