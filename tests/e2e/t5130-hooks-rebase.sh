#!/bin/sh
# Issue 25 r07: while git replays commits (rebase, cherry-pick or revert of
# several commits, am) post-commit starts nothing and says nothing; a
# rebase's post-rewrite says once what the replayed commits would have said.
. "$(dirname "$0")/test-lib.sh"

# A git-threadmind first on PATH that logs its arguments to $TEST_ROOT/spy
# and runs the real one.
mkdir spy-bin &&
write_script spy-bin/git-threadmind <<EOF
echo "\$*" >>"$TEST_ROOT/spy"
exec "$TM_BUILD/git-threadmind" "\$@"
EOF
SPY_PATH="$TEST_ROOT/spy-bin:$PATH"

# spied CMD...: CMD with the spy on PATH, the log emptied first.
spied() {
	: >"$TEST_ROOT/spy" &&
	PATH="$SPY_PATH" "$@"
}

# starts WHAT: how many times the spy saw `hook WHAT`.
starts() {
	grep -c "^hook $1\( \|\$\)" "$TEST_ROOT/spy"
}

# topic N: branch topic with N commits changing src/a.c, made without
# hooks, and main one commit further (README).
topic() {
	git checkout -q -b topic main &&
	for i in $(seq "$1"); do
		echo "$i" >>src/a.c &&
		git -c core.hooksPath=/dev/null commit -q -a -m "c$i" || return 1
	done &&
	git checkout -q main &&
	echo more >>README &&
	git -c core.hooksPath=/dev/null commit -q -a -m base
}

test_expect_success 'setup: a thread on src, the hooks, 20 commits to replay' '
	new_repo app &&
	(cd app && mkdir src && echo x >src/a.c && echo y >src/b.c &&
		git add src && git commit -q -m src &&
		git threadmind init -q && git threadmind install -q &&
		git threadmind new Core --paths src/a.c -q >/dev/null &&
		git threadmind new Lib --paths src/b.c -q >/dev/null &&
		echo "- a summary: a blank one is never outdated" |
			git threadmind summary -q core -F - &&
		echo "- a summary: a blank one is never outdated" |
			git threadmind summary -q lib -F - &&
		git add -A && git commit -q -m threads && topic 20)
'

test_expect_success 'control: each plain commit on src says so' '
	(cd app && git checkout -q -b plain topic &&
		echo z >>src/a.c && spied git commit -q -a -m plain) 2>err &&
	echo "threadmind: summaries may be outdated: core (git threadmind stale)" >expect &&
	test_cmp expect err &&
	test "$(starts post-commit)" = 1
'

test_expect_success 'a rebase of 20 commits: post-commit never starts, post-rewrite says it once' '
	(cd app && git checkout -q -b t1 topic &&
		spied git rebase -q main) 2>err &&
	echo "threadmind: summaries may be outdated: core (git threadmind stale)" >expect &&
	test_cmp expect err &&
	test "$(starts post-commit)" = 0 &&
	test "$(starts "post-rewrite rebase")" = 1 &&
	test "$(git -C app rev-list --count main..t1)" = 20
'

test_expect_success 'the rebase line names every thread the replayed commits flag, once' '
	(cd app && git checkout -q -b both topic &&
		echo b >>src/b.c && git -c core.hooksPath=/dev/null commit -q -a -m b &&
		echo a >>src/a.c && git -c core.hooksPath=/dev/null commit -q -a -m a &&
		spied git rebase -q main) 2>err &&
	echo "threadmind: summaries may be outdated: core lib (git threadmind stale)" >expect &&
	test_cmp expect err
'

test_expect_success 'a replayed commit that also changes the thread file does not flag it' '
	(cd app && git checkout -q -b covered main &&
		echo c >>src/b.c &&
		printf "## State\n- reviewed\n" | git threadmind -q summary lib -F - &&
		git add -A && git -c core.hooksPath=/dev/null commit -q -m covered &&
		git checkout -q main && echo again >>README &&
		git -c core.hooksPath=/dev/null commit -q -a -m again &&
		git checkout -q covered && spied git rebase -q main) 2>err &&
	test_must_fail test -s err &&
	test "$(starts post-commit)" = 0
'

test_expect_success 'rebase -i stopped for an edit: an amend there starts nothing' '
	(cd app && git checkout -q -b edit topic &&
		GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/edit/" \
			spied git rebase -q -i main &&
		echo e >>src/b.c &&
		PATH="$SPY_PATH" git commit -q -a --amend --no-edit &&
		test "$(starts post-commit)" = 0 &&
		PATH="$SPY_PATH" git rebase --continue) >out 2>err &&
	test "$(starts post-commit)" = 0 &&
	grep "^threadmind: summaries may be outdated: core lib (git threadmind stale)$" err &&
	test "$(grep -c "^threadmind:" err)" = 1
'

test_expect_success 'pull --rebase of two local commits says it once' '
	git clone -q app clone &&
	(cd clone && git threadmind install -q && git checkout -q topic &&
		echo 1 >>src/a.c && git -c core.hooksPath=/dev/null commit -q -a -m l1 &&
		echo 2 >>src/a.c && git -c core.hooksPath=/dev/null commit -q -a -m l2) &&
	(cd app && git checkout -q topic && echo 3 >>src/b.c &&
		git -c core.hooksPath=/dev/null commit -q -a -m upstream) &&
	(cd clone && spied git pull -q --rebase) 2>err &&
	echo "threadmind: summaries may be outdated: core (git threadmind stale)" >expect &&
	test_cmp expect err &&
	test "$(starts post-commit)" = 0
'

test_expect_success 'a cherry-pick or revert of several commits starts nothing; of one, as a commit' '
	(cd app && git checkout -q -b side main &&
		for i in 1 2 3; do
			echo "s$i" >>src/a.c &&
			git -c core.hooksPath=/dev/null commit -q -a -m "s$i" ||
			return 1
		done &&
		git checkout -q -b picks main &&
		spied git cherry-pick side~3..side~1 &&
		test "$(git rev-list --count main..picks)" = 2 &&
		test "$(starts post-commit)" = 0) >out 2>err &&
	test_must_fail grep "^threadmind:" err &&
	(cd app && spied git cherry-pick side) >out 2>err &&
	test "$(starts post-commit)" = 1 &&
	echo "threadmind: summaries may be outdated: core (git threadmind stale)" >expect &&
	test_cmp expect err &&
	(cd app && spied git revert --no-edit HEAD~2..HEAD &&
		test "$(git rev-list --count main..picks)" = 5) >out 2>err &&
	test "$(starts post-commit)" = 0 &&
	test_must_fail grep "^threadmind:" err
'

test_expect_success 'an amend says it once (post-commit), not again in post-rewrite' '
	(cd app && echo amend >>src/a.c &&
		spied git commit -q -a --amend --no-edit) 2>err &&
	echo "threadmind: summaries may be outdated: core (git threadmind stale)" >expect &&
	test_cmp expect err &&
	test "$(starts post-commit)" = 1 &&
	test "$(starts "post-rewrite amend")" = 1
'

test_expect_success 'a call by hand (a user hook with our block) stays quiet during a rebase' '
	(cd app && mv .git/hooks/post-commit own-stub &&
		write_script .git/hooks/post-commit </dev/null &&
		git threadmind install -q &&
		grep "^# >>> threadmind >>>" .git/hooks/post-commit &&
		git checkout -q -b t2 topic &&
		spied git rebase -q main) 2>err &&
	test "$(starts post-commit)" = "$(git -C app rev-list --count main..t2)" &&
	echo "threadmind: summaries may be outdated: core lib (git threadmind stale)" >expect &&
	test_cmp expect err &&
	(cd app && git threadmind uninstall -q && git threadmind install -q &&
		cmp own-stub .git/hooks/post-commit)
'

test_expect_success 'a rebase starts git-threadmind twice at most: post-checkout, post-rewrite' '
	(cd app && git threadmind uninstall -q && git threadmind install -q &&
		git checkout -q -b f1 topic && git checkout -q -b f2 topic &&
		git checkout -q f1 &&
		s=$(date +%s%N) &&
		git -c core.hooksPath=/dev/null rebase -q main 2>/dev/null &&
		off=$(( ($(date +%s%N) - s) / 1000000 )) &&
		git checkout -q f2 &&
		s=$(date +%s%N) &&
		spied git rebase -q main 2>/dev/null &&
		on=$(( ($(date +%s%N) - s) / 1000000 )) &&
		n=$(git rev-list --count main..f2) &&
		echo "rebase of $n commits: $off ms without hooks, $on ms with" \
			>"$TEST_ROOT/figures") &&
	test "$(wc -l <spy)" -le 2 &&
	test "$(starts post-commit)" = 0
'
sed 's/^/# /' figures 2>/dev/null

test_done
