#!/bin/sh
# A damaged or hostile .git/index (issue 24, repro index-v4-quadratic-memory:
# a 1 MiB version 4 index whose prefix-compressed paths grow by 64 bytes an
# entry took ~8 s and 2 GiB, then printed 2 GB): the index reader refuses
# a path of PATH_MAX bytes or more, more entries than the file can hold
# and paths expanding past 16 times the file's size, with one warning
# naming .git/index and how to rebuild it, never asking libgit2 (which
# would expand every path).  Small files here; the 1 MiB ones are in
# `make bad` (tests/bad/run, case index-v4-1mib).
. "$(dirname "$0")/test-lib.sh"

MAX_S=1 MAX_KB=65536
! sanitizer_build || MAX_S=10 MAX_KB=1048576
GEN=$TEST_SRC/tests/bad/hostile-index.py

# damaged NAME WHY: `status` ran as NAME within the bounds, exit 0, one
# warning naming the index and saying WHY, no conflicts line, short output.
damaged() {
	cat "$TEST_ROOT/$1.err" &&
	test "$(cat "$TEST_ROOT/$1.rc")" = 0 &&
	grep "^warning: .*/\.git/index. looks damaged: $2.*git reset" \
		"$TEST_ROOT/$1.err" &&
	test "$(wc -l <"$TEST_ROOT/$1.err")" = 1 &&
	! grep "^conflicts:" "$TEST_ROOT/$1.out" &&
	test_size_at_most "$TEST_ROOT/$1.out" 4096
}

test_expect_success 'setup: a store, a real version 4 index with a conflict' '
	new_repo r && (cd r && git threadmind init -q --title R &&
		git add -A && git commit -q -m store &&
		blob=$(echo x | git hash-object -w --stdin) &&
		printf "100644 $blob 1\t.threadmind/threads/r/x.md\n" |
			git update-index --index-info &&
		git update-index --index-version 4 &&
		git threadmind status >out && cat out &&
		grep "^conflicts: .threadmind/threads/r/x.md (run" out &&
		cp .git/index "$TEST_ROOT/index.real")
'

test_expect_success 'paths growing by 64 bytes: refused at the first too long' '
	(cd r && python3 "$GEN" .git/index 256 grow &&
		test_bounded status git threadmind status) &&
	damaged status "entry 64 has a path of 4108 bytes or more"
'

test_expect_success 'paths expanding past 16 times the file: refused' '
	(cd r && python3 "$GEN" .git/index 800 long &&
		test_bounded status git threadmind status) &&
	damaged status "its prefix-compressed paths (index version 4) expand to more than 16 times"
'

test_expect_success 'doctor: the damaged index is a finding, within the bounds' '
	(cd r && test_bounded doctor git threadmind doctor &&
		test "$(cat "$TEST_ROOT/doctor.rc")" = 1 &&
		grep "^conflict: .*/\.git/index. looks damaged: its prefix-compressed" \
			"$TEST_ROOT/doctor.out")
'

test_expect_success 'diff and the pre-commit check: refused, never read by libgit2' '
	(cd r && python3 "$GEN" .git/index 800 long &&
		test_bounded diff git threadmind diff &&
		test "$(cat "$TEST_ROOT/diff.rc")" = 128 &&
		grep "^fatal: .*/\.git/index. looks damaged: its prefix-compressed" \
			"$TEST_ROOT/diff.err" &&
		test_bounded cached git threadmind diff --cached &&
		test "$(cat "$TEST_ROOT/cached.rc")" = 128 &&
		test_bounded hook git threadmind hook pre-commit &&
		grep "looks damaged" "$TEST_ROOT/hook.err")
'

test_expect_success 'more entries than the file holds: refused' '
	(cd r && python3 "$GEN" .git/index 4000000000 count &&
		test_bounded status git threadmind status -q) &&
	damaged status "it claims 4000000000 entries, more than its 32 bytes can hold"
'

test_expect_success 'the real index read again: the conflict is back' '
	(cd r && cp "$TEST_ROOT/index.real" .git/index &&
		git threadmind status >out 2>err && cat out err &&
		grep "^conflicts: .threadmind/threads/r/x.md" out &&
		! test -s err)
'

test_done
