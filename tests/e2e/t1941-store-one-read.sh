#!/bin/sh
# One read of config.json per command run (issue 23, "the hook's route"):
# the store keeps what it read, the CLI opens the store once, and the hook
# takes the lock once.  Counted with strace: the openat calls of
# config.json by `status`, `tree`, `list`, `hook post-checkout` and
# `switch` (and a checkout running the installed hook), none without a
# store.  And one open of the .threadmind folder by `status` (discovery,
# the lock holder and the merge-driver hint share the store's descriptor).
. "$(dirname "$0")/test-lib.sh"

if ! command -v strace >/dev/null 2>&1 ||
	! strace -f -o /dev/null true >/dev/null 2>&1; then
	echo "1..0 # SKIP strace is not installed or cannot trace here (make deps installs it)"
	exit 0
fi

# reads CMD...: how many times CMD (and the processes it starts) opened a
# file named config.json; its output goes to out and err.  LeakSanitizer
# cannot run under ptrace: off for the traced commands of a sanitizer build
# (the other scripts check their leaks).
reads() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat -o "$TEST_ROOT/trace" "$@" >out 2>err
	_rc=$?
	grep -c '[/"]config\.json"' "$TEST_ROOT/trace"
	return $_rc
}

# reads_once CMD...: CMD succeeds and reads config.json exactly once
reads_once() {
	_n=$(reads "$@") || { cat err >&2; return 1; }
	test "$_n" -eq 1 || {
		echo "config.json opened $_n times by: $*" >&2
		grep 'config\.json"' "$TEST_ROOT/trace" >&2
		return 1
	}
}

test_expect_success 'setup: a store, a thread on branch feat' '
	new_repo app &&
	(cd app && git threadmind init >/dev/null 2>&1 &&
		git add .threadmind && git commit -q -m store &&
		git checkout -q -b feat &&
		git threadmind new Auth UI --switch >/dev/null 2>&1 &&
		git add .threadmind && git commit -q -m auth)
'

test_expect_success 'status, tree and list read config.json once' '
	(cd app && reads_once git threadmind status &&
		grep "active thread: auth-ui" out &&
		reads_once git threadmind tree &&
		reads_once git threadmind list &&
		grep auth-ui out)
'

# dir_opens: how many openat calls of the last traced command named the
# .threadmind folder itself (a path ending in "/.threadmind" or the bare
# name; the files under it are not counted)
dir_opens() {
	grep -c 'openat([^"]*"\([^"]*/\)\{0,1\}\.threadmind",' "$TEST_ROOT/trace"
}

test_expect_success 'status opens the .threadmind folder once' '
	(cd app && reads_once git threadmind status &&
		n=$(dir_opens) &&
		{ test "$n" -eq 1 ||
			{ echo "status opened .threadmind $n times" >&2 &&
				grep "\.threadmind\"," "$TEST_ROOT/trace" >&2 &&
				false; }; })
'

test_expect_success 'switch reads config.json once, writing it once' '
	(cd app && reads_once git threadmind switch main &&
		test "$(grep -c "config\.json\.[^\"]*\.tmp\"" "$TEST_ROOT/trace")" -eq 1 &&
		git threadmind status >st && grep "active thread: main" st &&
		reads_once git threadmind switch auth-ui)
'

test_expect_success 'hook post-checkout reads config.json once while it switches' '
	(cd app && old=$(git rev-parse HEAD) &&
		git checkout -q main &&
		reads_once git threadmind hook post-checkout \
			"$old" "$(git rev-parse HEAD)" 1 &&
		echo "threadmind: active thread is now main (Main)" >expect &&
		test_cmp expect err &&
		reads_once git threadmind hook post-checkout \
			"$old" "$(git rev-parse HEAD)" 1 &&
		test ! -s err)
'

# stats FILE / opens FILE: how many stat-family / open calls of the last
# traced command named FILE (a thread file: the hook looking whether it is
# there, reading it)
stats() {
	grep -c "stat[a-z0-9]*([^\"]*\"\([^\"]*/\)\{0,1\}$1\"" "$TEST_ROOT/trace"
}
opens() {
	grep -c "open[a-z0-9]*([^\"]*\"\([^\"]*/\)\{0,1\}$1\"" "$TEST_ROOT/trace"
}

test_expect_success 'hook post-checkout looks for the branch thread file once, reads it once' '
	(cd app && old=$(git rev-parse HEAD) &&
		git checkout -q feat &&
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -e trace=%file,%stat -o "$TEST_ROOT/trace" \
			git threadmind hook post-checkout \
			"$old" "$(git rev-parse HEAD)" 1 2>err &&
		echo "threadmind: active thread is now auth-ui (Auth UI)" >expect &&
		test_cmp expect err &&
		n=$(stats auth-ui.md) &&
		{ test "$n" -eq 1 ||
			{ echo "the hook looked for auth-ui.md $n times" >&2 &&
				grep "auth-ui\.md\"" "$TEST_ROOT/trace" >&2 &&
				false; }; } &&
		n=$(opens auth-ui.md) &&
		{ test "$n" -eq 1 ||
			{ echo "the hook read auth-ui.md $n times" >&2 &&
				false; }; } &&
		git checkout -q main && git threadmind hook post-checkout \
			"$(git rev-parse feat)" "$(git rev-parse HEAD)" 1 2>/dev/null)
'

test_expect_success 'a checkout running the installed hook reads it once' '
	(cd app && git threadmind install >/dev/null &&
		reads_once git checkout -q feat &&
		echo "threadmind: active thread is now auth-ui (Auth UI)" >expect &&
		test_cmp expect err)
'

test_expect_success 'no store: config.json is never opened' '
	new_repo bare &&
	(cd bare && for c in status tree list; do
			n=$(reads git threadmind $c) ; test "$n" -eq 0 || exit 1
		done &&
		n=$(reads git threadmind hook post-checkout x y 1) &&
		test "$n" -eq 0)
'

test_done
