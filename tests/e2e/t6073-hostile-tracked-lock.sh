#!/bin/sh
# A `.threadmind/.lock` that git tracks (a file, or a folder with files) is
# a doctor finding at any age, also seconds after the clone that brought
# it (issue 24): it should never be committed, .gitignore lists it, and
# --fix untracks and removes it, keeping that .gitignore line.
. "$(dirname "$0")/test-lib.sh"

D=.threadmind

test_expect_success 'setup: a store pushed with a lock folder in it' '
	new_repo up && (cd up && git threadmind init -q --title P &&
		git add -A && git commit -q -m store &&
		mkdir $D/.lock && echo someone >$D/.lock/held &&
		git add -f $D/.lock && git commit -q -m lock)
'

test_expect_success 'a fresh clone: doctor finds the young lock folder at once' '
	git clone -q up c1 && (cd c1 &&
		test_exit_code 1 git threadmind doctor >out && cat out &&
		grep "^tracked: .\.threadmind/\.lock. is tracked by git (1 file): it should never be committed" out &&
		grep "git rm -r --cached \.threadmind/\.lock" out &&
		! grep "no problems found" out)
'

test_expect_success '--fix untracks and removes it; .gitignore still lists it' '
	(cd c1 && test_exit_code 1 git threadmind doctor --fix >out;
		cat out && grep "^fixed: untracked .\.threadmind/\.lock. (commit the removal) and removed it$" out &&
		test ! -e $D/.lock && grep -x "\.lock" $D/.gitignore &&
		git status --porcelain >st && grep "^D  \.threadmind/\.lock/held$" st &&
		git commit -q -m untrack && git threadmind doctor >out;
		! grep "^tracked" out)
'

test_expect_success 'a tracked lock file that looks live: a finding too' '
	(cd up && git rm -q -r --cached $D/.lock && rm -rf $D/.lock &&
		printf "{\"pid\":%s,\"host\":\"%s\",\"startedAt\":\"2099-01-01T00:00:00.000Z\"}\n" \
			$$ "$(hostname)" >$D/.lock &&
		git add -f $D/.lock && git commit -q -m "lock file") &&
	git clone -q up c2 && (cd c2 &&
		test_exit_code 1 git threadmind doctor >out && cat out &&
		grep "^tracked: .\.threadmind/\.lock. is tracked by git (1 file)" out &&
		test_exit_code 1 git threadmind doctor --fix >out; cat out &&
		grep "^fixed: untracked .\.threadmind/\.lock.* and removed it$" out &&
		test ! -e $D/.lock)
'

test_done
