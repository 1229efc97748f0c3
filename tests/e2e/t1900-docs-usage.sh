#!/bin/sh
# Keep the docs honest: every command's usage line (from -h) appears
# verbatim in README.md's command reference, and every command listed by
# `git threadmind -h` has one.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'the command list is not empty' '
	test_exit_code 129 git threadmind -h >help &&
	sed -n "s/^    \([a-z]*\) .*/\1/p" help >commands &&
	test $(wc -l <commands) -ge 20
'

test_expect_success 'README shows every usage line of every command' '
	tr "\n" " " <"$TEST_SRC/README.md" | tr -s " " >readme &&
	while read -r c; do
		test_exit_code 129 git threadmind "$c" -h >u || return 1
		sed -n "s/^usage: //p; s/^   or: //p" u >lines &&
		test -s lines || { echo "no usage for $c"; return 1; }
		while IFS= read -r line; do
			grep -F -q -- "\`$line\`" readme ||
				{ echo "README lacks: $line"; return 1; }
		done <lines
	done <commands
'

test_done
