# Tiny TAP test library for the end-to-end tests (sourced by tNNNN-*.sh).
# Each script runs in its own throwaway folder with HOME pointed inside it,
# drives the real `git` binary, and prints TAP.  Modelled on git's t/.
#
#   test_expect_success 'title' 'commands chained with &&'
#   test_expect_failure is not provided: a known breakage is an issue.
#   test_must_fail CMD...    CMD must exit non-zero (and not crash)
#   test_exit_code N CMD...  CMD must exit with status N
#   test_cmp EXPECTED ACTUAL diff -u, failing when they differ
#   test_when_finished CMD  run CMD when the current test ends, pass or fail
#   test_config [-C DIR] KEY VALUE  git config for the current test only
#   write_script FILE       an executable sh script, its body on stdin
#   test_tick               the next commit date, one minute on
#   change MSG FILE...      append MSG to each FILE and commit, test_tick'd
#   test_person NAME, as_person NAME CMD...  a teammate with their own HOME
#   test_bounded NAME CMD...  CMD within a time and memory bound
#   test_bounded_ok NAME CMD...  the same, and CMD must exit 0
#   test_size_at_most FILE BYTES  FILE is not larger than BYTES
#   test_done               prints the plan, exits non-zero on failure
#   sanitizer_build         true when TM_BUILD is the ASan+UBSan build
#   skip_in_sanitizer_build WHY  a script that tests no code of ours the
#                           sanitizers could check (docs, Makefile, source
#                           layout) skips itself whole there
# and helpers on thread files and stores: frontmatter, fm, body, age,
# fresh, snap, setparent, chain_files, json_is, json_depth (each described
# where it is defined).

set -u
: "${TM_BUILD:?TM_BUILD must point at the build folder}"
TEST_NAME=$(basename "$0" .sh)
TEST_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/tm-e2e-$TEST_NAME.XXXXXX")
TEST_SRC=$(cd "$(dirname "$0")/../.." && pwd)
export TEST_ROOT TEST_SRC
HOME="$TEST_ROOT/home"
mkdir -p "$HOME"
export HOME
export XDG_CONFIG_HOME="$HOME/.config"
export GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.com'
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='committer@example.com'
export GIT_AUTHOR_DATE='1776247200 +0000' GIT_COMMITTER_DATE='1776247200 +0000'
export LC_ALL=C.UTF-8 LANG=C.UTF-8
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE NO_COLOR EDITOR VISUAL GIT_EDITOR \
	THREADMIND_MERGE THREADMIND_HOOKS THREADMIND_HOOK_BUDGET
export PATH="$TM_BUILD:$PATH"
git config --global user.name 'A U Thor'
git config --global user.email 'author@example.com'
git config --global init.defaultBranch main
git config --global advice.detachedHead false

test_count=0
test_failed=0
cd "$TEST_ROOT" || exit 1

test_expect_success() {
	test_count=$((test_count + 1))
	_out="$TEST_ROOT/.out.$test_count"
	if (
		test_cleanup=:
		_cleanup_failed=0
		cd "$TEST_ROOT" && eval "$2"
		_test_rc=$?
		cd "$TEST_ROOT" && eval "$test_cleanup"
		[ $_test_rc -eq 0 ] && [ $_cleanup_failed -eq 0 ]
	) >"$_out" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$_out"
		printf '#   while running:\n'
		printf '%s\n' "$2" | sed 's/^/#   /'
	fi
}

test_must_fail() {
	"$@"
	_rc=$?
	if [ $_rc -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*" >&2
		return 1
	elif [ $_rc -gt 129 ] && [ $_rc -ne 255 ] || [ $_rc -eq 127 ]; then
		echo "test_must_fail: died or not found ($_rc): $*" >&2
		return 1
	fi
	return 0
}

test_exit_code() {
	_want=$1
	shift
	"$@"
	_rc=$?
	if [ $_rc -ne "$_want" ]; then
		echo "test_exit_code: expected $_want, got $_rc: $*" >&2
		return 1
	fi
	return 0
}

test_cmp() {
	diff -u "$1" "$2"
}

# new_repo DIR: a fresh repository with one commit, cwd unchanged.
new_repo() {
	git init -q "$1" &&
	(cd "$1" && echo hello >README && git add README &&
		git commit -q -m initial)
}

# test_when_finished CMD: run CMD (from $TEST_ROOT) when the test ends,
# whether it passed or not; the last registered runs first, and a CMD that
# fails fails the test.
test_when_finished() {
	test_cleanup="{ $*
} || _cleanup_failed=1; $test_cleanup"
}

# test_unconfig [-C DIR] KEY: unset KEY (all its values); not set is fine.
test_unconfig() {
	_dir=.
	if [ "$1" = -C ]; then
		_dir=$2
		shift 2
	fi
	git -C "$_dir" config --unset-all "$1"
	_unset_rc=$?
	[ $_unset_rc -eq 0 ] || [ $_unset_rc -eq 5 ]
}

# test_config [-C DIR] KEY VALUE: git config KEY VALUE (in DIR), unset
# again when the test ends.
test_config() {
	_dir=.
	if [ "$1" = -C ]; then
		_dir=$2
		shift 2
	fi
	test_when_finished "test_unconfig -C '$_dir' '$1'" &&
	git -C "$_dir" config "$@"
}

# write_script FILE: FILE made an executable sh script, its body on stdin.
write_script() {
	{ echo '#!/bin/sh' && cat; } >"$1" &&
	chmod +x "$1"
}

# test_tick: each commit one minute after the previous one (the dates
# above fix one for all), so that "newest" means something; the clock is a
# file because every test runs in a subshell.
test_tick() {
	_t=$(cat "$TEST_ROOT/.clock" 2>/dev/null || echo 1776247200)
	_t=$((_t + 60))
	echo "$_t" >"$TEST_ROOT/.clock"
	GIT_COMMITTER_DATE="$_t +0000"
	GIT_AUTHOR_DATE="$_t +0000"
	export GIT_COMMITTER_DATE GIT_AUTHOR_DATE
}

# frontmatter KEY=VALUE...: a frontmatter block with those lines ("KEY:
# VALUE", in that order) on stdout; what follows is the caller's.
frontmatter() {
	printf -- '---\n' &&
	for _kv in "$@"; do
		printf '%s: %s\n' "${_kv%%=*}" "${_kv#*=}" || return 1
	done &&
	printf -- '---\n'
}

# change MSG FILE...: append MSG to each FILE (its folder made) and commit
# every change, at the next test_tick.
change() {
	_msg=$1
	shift
	for _f in "$@"; do
		mkdir -p "$(dirname "$_f")" && echo "$_msg" >>"$_f" || return 1
	done
	git add -A && test_tick && git commit -q -m "$_msg"
}

# test_person NAME [FULL-NAME]: a teammate: their own HOME
# ($TEST_ROOT/NAME-home) with git identity FULL-NAME (else NAME)
# <NAME@example.com>, set up as this user's.
test_person() {
	mkdir -p "$TEST_ROOT/$1-home" &&
	as_person "$1" git config --global user.name "${2:-$1}" &&
	as_person "$1" git config --global user.email "$1@example.com" &&
	as_person "$1" git config --global init.defaultBranch main &&
	as_person "$1" git config --global advice.detachedHead false
}

# as_person NAME CMD...: run CMD as teammate NAME (HOME and XDG_CONFIG_HOME).
as_person() {
	_who=$1
	shift
	HOME="$TEST_ROOT/$_who-home" XDG_CONFIG_HOME="$TEST_ROOT/$_who-home/.config" \
		"$@"
}

# fm FILE KEY: the value of KEY in FILE's frontmatter, as written (without
# a CR at the end); nothing when absent.
fm() {
	awk -v k="$2" 'NR == 1 && /^---\r?$/ { f = 1; next }
		f && /^---\r?$/ { exit }
		f && index($0, k ": ") == 1 {
			v = substr($0, length(k) + 3); sub(/\r$/, "", v); print v
		}' "$1"
}

# body FILE: the bytes after FILE's frontmatter block, exactly.
body() {
	python3 -c '
import sys
lines = open(sys.argv[1], "rb").read().splitlines(True)
end = next(i for i in range(1, len(lines)) if lines[i].rstrip(b"\r\n") == b"---")
sys.stdout.buffer.write(b"".join(lines[end + 1:]))' "$1"
}

# age FILE: an old updatedAt (2020-01-01), so that a bump shows.
age() {
	sed 's/^updatedAt: [^\r]*/updatedAt: 2020-01-01T00:00:00.000Z/' "$1" \
		>"$TEST_ROOT/.aged" && cat "$TEST_ROOT/.aged" >"$1"
}

# fresh FILE: updatedAt was bumped since age (and is well formed).
fresh() {
	fm "$1" updatedAt >"$TEST_ROOT/.ts" &&
	! grep -q 2020-01-01 "$TEST_ROOT/.ts" &&
	grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$' \
		"$TEST_ROOT/.ts"
}

# setparent FILE PARENT: edit FILE's parentId by hand.
setparent() {
	sed "s/^parentId: .*/parentId: $2/" "$1" >"$TEST_ROOT/.p" &&
	cat "$TEST_ROOT/.p" >"$1"
}

# snap REPO: every file of REPO's store with its content (to check that
# nothing changed).
snap() {
	(cd "$1/.threadmind" && find . -type f | LC_ALL=C sort |
		while read -r f; do echo "== $f"; cat "$f"; done)
}

# chain_files DIR N PARENT: N thread files DIR/c0.md ... a parent chain,
# c0 under PARENT and each next one under the one before (title C).
chain_files() {
	python3 - "$@" <<-\EOF
	import sys
	d, n, parent = sys.argv[1], int(sys.argv[2]), sys.argv[3]
	for i in range(n):
	    open("%s/c%d.md" % (d, i), "w").write(
	        "---\nid: c%d\ntitle: C\nparentId: %s\n---\n"
	        % (i, parent if i == 0 else "c%d" % (i - 1)))
	EOF
}

# json_is EXPR: assert a python expression on the JSON in ./out (as `d`).
json_is() {
	python3 -c "import json,sys; d=json.load(open('out')); assert $1, d"
}

# json_depth FILE: how deep the arrays and objects of the JSON text in FILE
# nest, on stdout (found without recursion: json.load stops at ~1,000);
# fails when they do not balance.
json_depth() {
	python3 - "$1" <<-\EOF
	import re, sys
	depth = top = 0
	for tok in re.finditer(r'"(?:[^"\\]|\\.)*"|[][{}]', open(sys.argv[1]).read()):
	    t = tok.group()
	    if t in "[{":
	        depth += 1
	        top = max(top, depth)
	    elif t in "]}":
	        depth -= 1
	        assert depth >= 0, "closed more than opened"
	assert depth == 0, "%d left open" % depth
	print(top)
	EOF
}

sanitizer_build() {
	grep -aq __asan_init "$TM_BUILD/git-threadmind"
}

skip_in_sanitizer_build() {
	if sanitizer_build; then
		echo "1..0 # SKIP the sanitizer build: $1"
		rm -rf "$TEST_ROOT"
		exit 0
	fi
}

test_done() {
	echo "1..$test_count"
	if [ "${TM_KEEP:-}" = 1 ] || [ $test_failed -ne 0 ]; then
		echo "# kept $TEST_ROOT"
	else
		rm -rf "$TEST_ROOT"
	fi
	[ $test_failed -eq 0 ]
	exit $?
}

# test_bounded NAME CMD...: run CMD (stdout and stderr to NAME.out / NAME.err),
# fail when it died of a signal or went past MAX_S seconds or MAX_KB of
# memory (the caller sets MAX_S and MAX_KB); its exit code is kept in NAME.rc.
test_bounded() {
	_n=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$TEST_ROOT/$_n.time" "$@" \
			>"$TEST_ROOT/$_n.out" 2>"$TEST_ROOT/$_n.err"
		_rc=$?
		# GNU time writes "Command exited with non-zero status" first
		_m=$(tail -n 1 "$TEST_ROOT/$_n.time")
	else
		_t0=$(date +%s)
		"$@" >"$TEST_ROOT/$_n.out" 2>"$TEST_ROOT/$_n.err"
		_rc=$?
		_m="$(($(date +%s) - _t0)) 0"
	fi
	echo $_rc >"$TEST_ROOT/$_n.rc"
	echo "$_n: exit $_rc, $_m (s KB)"
	[ $_rc -le 128 ] || { echo "$_n died: $_rc"; return 1; }
	echo "$_m" | awk -v s=$MAX_S -v kb=$MAX_KB \
		'{ if ($1 > s || $2 > kb) { print "over the bound: " $0; exit 1 } }'
}

# test_bounded_ok NAME CMD...: test_bounded, and CMD must exit 0 (its
# stderr shown when it does not).
test_bounded_ok() {
	test_bounded "$@" || return 1
	[ "$(cat "$TEST_ROOT/$1.rc")" -eq 0 ] || {
		cat "$TEST_ROOT/$1.err"
		return 1
	}
}

# test_size_at_most FILE BYTES: FILE has at most BYTES bytes (said).
test_size_at_most() {
	_s=$(wc -c <"$1")
	echo "$1: $_s bytes (bound $2)"
	[ "$_s" -le "$2" ]
}
