#!/bin/sh
# Keep the manual pages honest: their SYNOPSIS holds exactly the usage
# lines that `-h` prints (every command, the global usage, the driver),
# every command and long option is described, and both pages render with
# `man --warnings` printing nothing.
. "$(dirname "$0")/test-lib.sh"

if ! command -v man >/dev/null 2>&1; then
	echo "1..0 # SKIP man is not installed (make deps installs man-db)"
	exit 0
fi
MAN1="$TEST_SRC/docs/git-threadmind.1"
MAN2="$TEST_SRC/docs/git-threadmind-merge.1"
BS=$(printf '\b')
export BS

# render PAGE: the page as text, 80 columns, without overstrikes
render() {
	MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$1" 2>/dev/null |
		sed "s/.$BS//g"
}

# synopsis: one line per SYNOPSIS entry of the page on stdin (continuation
# lines, indented deeper, joined to their entry)
synopsis() {
	sed -n '/^SYNOPSIS$/,/^[A-Z]/p' | sed '1d;$d' | awk '
		/^       [^ ]/ { if (e != "") print e; e = substr($0, 8); next }
		/^        */ { sub(/^ */, ""); e = e " " $0; next }
		END { if (e != "") print e }'
}

# usage_lines CMD...: the usage lines CMD -h prints
usage_lines() {
	"$@" -h >"$TEST_ROOT/.usage"
	_rc=$?
	sed -n "s/^usage: //p; s/^   or: //p" "$TEST_ROOT/.usage"
	return $_rc
}

test_expect_success 'both pages render with man --warnings printing nothing' '
	for p in "$MAN1" "$MAN2"; do
		MANWIDTH=80 man --warnings -l "$p" 2>warn >/dev/null &&
		test_must_fail test -s warn || { cat warn; return 1; }
	done
'

test_expect_success 'a page with a roff mistake does warn (the check works)' '
	sed "s/^\.SH OPTIONS/.SH OPTIONS\n.FOO/" "$MAN1" >bad.1 &&
	MANWIDTH=80 man --warnings -l bad.1 2>warn >/dev/null;
	test -s warn
'

test_expect_success 'git-threadmind(1) SYNOPSIS is exactly the usage lines' '
	test_exit_code 129 git threadmind -h >help &&
	sed -n "s/^    \([a-z]*\) .*/\1/p" help >commands &&
	test $(wc -l <commands) -ge 20 &&
	{
		sed -n "s/^usage: //p; s/^   or: //p" help &&
		while read -r c; do
			test_exit_code 129 usage_lines git threadmind "$c" ||
				return 1
		done <commands
	} >expect &&
	render "$MAN1" >page &&
	synopsis <page >actual &&
	test_cmp expect actual
'

test_expect_success 'git-threadmind-merge(1) SYNOPSIS is its usage line' '
	test_exit_code 129 usage_lines git-threadmind-merge >expect &&
	render "$MAN2" | synopsis >actual &&
	test_cmp expect actual
'

test_expect_success 'every command has an entry under COMMANDS' '
	render "$MAN1" | sed -n "/^COMMANDS$/,/^HOOKS$/p" >section &&
	while read -r c; do
		grep -E -q "^       ([a-z]+, )*$c(,| |\$)" section ||
			{ echo "no entry for $c"; return 1; }
	done <commands
'

test_expect_success 'every long option of every command is described' '
	render "$MAN1" | sed -n "/^OPTIONS$/,/^HOOKS$/p" >described &&
	while read -r c; do
		git threadmind "$c" -h |
			sed -n "s/^    -., \(--[a-z-]*\).*/\1/p; s/^    \(--[a-z-]*\).*/\1/p"
	done <commands | sort -u >options &&
	test $(wc -l <options) -ge 15 &&
	while read -r o; do
		grep -q -- "$o" described || { echo "undescribed: $o"; return 1; }
	done <options
'

test_expect_success 'the sections the manual promises are there' '
	render "$MAN1" >page &&
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS HOOKS \
		"MERGE DRIVER" CONFIGURATION FILES ENVIRONMENT "EXIT STATUS" \
		EXAMPLES; do
		grep -q "^$s\$" page || { echo "no $s"; return 1; }
	done &&
	for k in threadmind.hooks threadmind.rewriteCommits \
		threadmind.lockTimeout color.threadmind merge.threadmind.driver \
		THREADMIND_HOOKS THREADMIND_MERGE NO_COLOR GIT_DIR; do
		grep -q "$k" page || { echo "no $k"; return 1; }
	done
'

test_done
