#!/bin/sh
# Issue 25 r10: hooks turned off start no git-threadmind process at all.
# The stubs test THREADMIND_HOOKS and `git -c threadmind.hooks` themselves;
# threadmind.hooks=false in a config file is noted by the binary once
# (<git dir>/threadmind/hooks-off) and the stubs trust the note while no
# config file is newer; post-checkout asks `git config` once per checkout.
. "$(dirname "$0")/test-lib.sh"

mkdir spy-bin &&
write_script spy-bin/git-threadmind <<EOF
echo "\$*" >>"$TEST_ROOT/spy"
exec "$TM_BUILD/git-threadmind" "\$@"
EOF
SPY_PATH="$TEST_ROOT/spy-bin:$PATH"

# spied CMD...: CMD with the spy first on PATH, the log emptied first.
spied() {
	: >"$TEST_ROOT/spy" &&
	PATH="$SPY_PATH" "$@"
}

# started: how many git-threadmind processes the spy saw.
started() {
	wc -l <"$TEST_ROOT/spy" | tr -d " "
}

# everyday: a branch, a commit, a merge, an amend, a rebase, back to main.
everyday() {
	git checkout -q -b "$1" &&
	echo "$1" >>README && git commit -q -a -m "$1" &&
	git commit -q --amend --no-edit &&
	git checkout -q main && echo "m$1" >>other && git add other &&
	git commit -q -m "m$1" &&
	git merge -q --no-edit "$1" &&
	git checkout -q "$1" && git rebase -q main &&
	git checkout -q main
}

test_expect_success 'setup: a store, the hooks' '
	new_repo app &&
	(cd app && git threadmind init -q && git threadmind install -q &&
		git add -A && git commit -q -m store)
'

test_expect_success 'control: with the hooks on, they start git-threadmind' '
	(cd app && spied everyday on) 2>/dev/null &&
	test "$(started)" -ge 6
'

test_expect_success 'THREADMIND_HOOKS=0 (off, false, no) starts nothing' '
	for v in 0 off FALSE No; do
		(cd app && THREADMIND_HOOKS=$v spied everyday "env$v") \
			>out 2>err &&
		test "$(started)" = 0 &&
		test_must_fail grep threadmind err || return 1
	done
'

test_expect_success 'git -c threadmind.hooks=false starts nothing (r10)' '
	(cd app && spied git -c threadmind.hooks=false checkout -q -b c1 &&
		echo c1 >>README &&
		PATH="$SPY_PATH" git -c ThreadMind.Hooks=no commit -q -a -m c1 &&
		PATH="$SPY_PATH" git -c threadmind.hooks=false checkout -q main) &&
	test "$(started)" = 0
'

test_expect_success 'git -c threadmind.hooks=true wins over the config file' '
	test_config -C app threadmind.hooks false &&
	(cd app && spied git -c threadmind.hooks=true checkout -q -b c2 &&
		PATH="$SPY_PATH" git -c threadmind.hooks=true checkout -q main) &&
	test "$(started)" = 2
'

test_expect_success 'threadmind.hooks=false in a config file: noted once, then nothing starts' '
	rm -f app/.git/threadmind/hooks-off &&
	test_config -C app threadmind.hooks false &&
	(cd app && spied git checkout -q -b f1) &&
	test "$(started)" = 1 &&
	test -f app/.git/threadmind/hooks-off &&
	(cd app && spied everyday f2) >out 2>err &&
	test "$(started)" = 0 &&
	test_must_fail grep threadmind err
'

test_expect_success 'turned on again: the next hooks start it, and the note goes' '
	test -f app/.git/threadmind/hooks-off &&
	git -C app config threadmind.hooks true &&
	(cd app && echo t >>README && spied git commit -q -a -m on) &&
	grep "^hook pre-commit$" spy && grep "^hook post-commit$" spy &&
	test "$(started)" = 2 &&
	test_must_fail test -e app/.git/threadmind/hooks-off &&
	git -C app config --unset threadmind.hooks
'

test_expect_success 'post-checkout asks git once per checkout while the note is there' '
	test_config -C app threadmind.hooks false &&
	(cd app && spied git commit -q --allow-empty -m note) &&
	test -f app/.git/threadmind/hooks-off &&
	test_config -C app include.path "$TEST_ROOT/inc" &&
	printf "[threadmind]\n\thooks = false\n" >inc &&
	test_unconfig -C app threadmind.hooks &&
	(cd app && spied git checkout -q -b k1) &&
	test "$(started)" = 0 &&
	printf "[threadmind]\n\thooks = true\n" >inc &&
	(cd app && spied git commit -q --allow-empty -m still-noted) &&
	test "$(started)" = 0 &&
	(cd app && spied git checkout -q main) 2>/dev/null &&
	test "$(started)" = 1 &&
	test_must_fail test -e app/.git/threadmind/hooks-off
'

test_expect_success 'the global config, and a linked worktree, alike' '
	test_when_finished "git config --global --unset threadmind.hooks" &&
	git config --global threadmind.hooks false &&
	(cd app && spied git worktree add -q ../wt -b wt 2>/dev/null) &&
	test "$(started)" = 1 &&
	test -f "$(git -C wt rev-parse --git-dir)/threadmind/hooks-off" &&
	(cd wt && spied git commit -q --allow-empty -m w1) &&
	test "$(started)" = 0 &&
	(cd wt && spied git checkout -q -b w2 && echo w >>README &&
		PATH="$SPY_PATH" git commit -q -a -m w2 &&
		PATH="$SPY_PATH" git commit -q --amend --no-edit &&
		PATH="$SPY_PATH" git checkout -q wt) >out 2>err &&
	test "$(started)" = 0 &&
	git config --global threadmind.hooks true &&
	(cd wt && spied git commit -q --allow-empty -m w3) &&
	test "$(started)" = 2
'

test_expect_success 'the repro of r10: THREADMIND_HOOKS=0 and threadmind.hooks=false' '
	(cd app && THREADMIND_HOOKS=0 spied git switch -q -c b1 &&
		echo 1 >>README &&
		PATH="$SPY_PATH" THREADMIND_HOOKS=0 git commit -q -a -m one &&
		PATH="$SPY_PATH" git -c threadmind.hooks=false switch -q main) &&
	test "$(started)" = 0
'

test_done
