#!/bin/sh
# A file-size limit (ulimit -f, RLIMIT_FSIZE) below the file to write
# (issue 24, repro ulimit-fsize-signal): the binaries ignore SIGXFSZ, so
# the write fails with EFBIG and takes the disk-full path: 'fatal:' and
# exit 128 (exit 2 for the merge driver), the file as it was, no '.lock'
# and no '.tmp' left behind, the next write at once.
. "$(dirname "$0")/test-lib.sh"

P=.threadmind/threads/r

# Under ulimit -f 0 even stderr cannot go to a file: it goes through a
# pipe, which the limit does not cover.

# leftovers: the lock or a temp file left in the store (listed), else fails.
leftovers() {
	ls -a .threadmind/.lock $P/*.tmp 2>/dev/null
}

test_expect_success 'setup: a store with a thread' '
	new_repo r && (cd r && git threadmind init -q --title R &&
		mkdir src && echo a >src/a.c &&
		git threadmind new -q Auth --paths src >id &&
		git add -A && git commit -q -m threads &&
		cp $P/auth.md "$TEST_ROOT/auth.before") &&
	awk "BEGIN { print \"## Decisions\"; for (i = 0; i < 3000; i++) print \"- item \" i }" \
		>sum.txt
'

test_expect_success 'summary over ulimit -f: fatal, exit 128, nothing left' '
	(cd r && (ulimit -f 4 && exec git threadmind summary auth \
		-F "$TEST_ROOT/sum.txt") >out 2>err; echo $? >rc;
		cat err && test "$(cat rc)" = 128 &&
		grep "^fatal: cannot write .*auth\.md.*ulimit -f" err &&
		! grep -i "signal\|size limit exceeded" err &&
		test -z "$(leftovers)" &&
		cmp "$TEST_ROOT/auth.before" $P/auth.md)
'

test_expect_success 'the next write goes through at once' '
	(cd r && MAX_S=3 MAX_KB=1048576 &&
		test_bounded_ok set git threadmind set auth title=Next &&
		grep "^title: Next" $P/auth.md && test -z "$(leftovers)")
'

test_expect_success 'ulimit -f 0: the lock file itself cannot be written' '
	(cd r && cp $P/auth.md before &&
		{ (ulimit -f 0 && exec git threadmind set auth title=Zero) \
			2>&1; echo $? >rc; } | cat >err &&
		cat err && test "$(cat rc)" = 128 &&
		grep "^fatal: cannot write .*\.lock.*ulimit -f" err &&
		test -z "$(leftovers)" && cmp before $P/auth.md &&
		rm before)
'

test_expect_success 'the merge driver over ulimit -f: exit 2, ours kept' '
	awk "BEGIN { for (i = 0; i < 400; i++) print \"line \" i }" >base &&
	sed "s/^line 3$/OURS/" base >ours && cp ours ours.before &&
	sed "s/^line 390$/THEIRS/" base >theirs &&
	(ulimit -f 4 && exec git-threadmind-merge base ours theirs 7 \
		notes.txt) >out 2>err; echo $? >rc;
	cat err && test "$(cat rc)" = 2 &&
	grep "ulimit -f" err && cmp ours.before ours &&
	test -z "$(ls ours.*.tmp 2>/dev/null)" &&
	git-threadmind-merge base ours theirs 7 notes.txt &&
	grep "^OURS$" ours && grep "^THEIRS$" ours
'

test_done
