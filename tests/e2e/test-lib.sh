# Tiny TAP test library for the end-to-end tests (sourced by tNNNN-*.sh).
# Each script runs in its own throwaway folder with HOME pointed inside it,
# drives the real `git` binary, and prints TAP.  Modelled on git's t/.
#
#   test_expect_success 'title' 'commands chained with &&'
#   test_expect_failure is not provided: a known breakage is an issue.
#   test_must_fail CMD...    CMD must exit non-zero (and not crash)
#   test_exit_code N CMD...  CMD must exit with status N
#   test_cmp EXPECTED ACTUAL diff -u, failing when they differ
#   test_done               prints the plan, exits non-zero on failure

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
	THREADMIND_MERGE THREADMIND_HOOKS
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
	if (cd "$TEST_ROOT" && eval "$2") >"$_out" 2>&1; then
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
