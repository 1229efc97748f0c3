#!/bin/sh
# The hooks' time budget holds inside long reads (issue 11, d2): a hook
# whose budget runs out while it reads a big cloned store stops there,
# exits 0, says nothing, writes nothing, and git goes on.  The budget is
# shortened with THREADMIND_HOOK_BUDGET (docs/hooks.md), so that a store
# of a few thousand files is "too big" and the test is fast.
. "$(dirname "$0")/test-lib.sh"

N=1500
P=.threadmind/threads/p

test_expect_success 'setup: a store of 1,500 threads, one orphan, hooks on' '
	new_repo r && (cd r && git threadmind init -q --title P &&
		git threadmind install -q >/dev/null &&
		python3 -c "
for i in range($N):
    open(\"$P/f%d.md\" % i, \"w\").write(
        \"---\nid: f%d\ntitle: F\nparentId: %s\n---\n\" %
        (i, \"gone\" if i == $N - 1 else \"main\"))
" &&
		cp .threadmind/config.json ../config.before)
'

# Without the limit each of these reads all the files and speaks or writes.
test_expect_success 'with time to spare, post-merge reads every file' '
	(cd r && git threadmind hook post-merge 0 2>../err) &&
	grep "^threadmind: 1 problem in the thread tree" err
'

test_expect_success 'post-merge past its budget: quiet, exit 0' '
	(cd r && THREADMIND_HOOK_BUDGET=0 git threadmind hook post-merge 0 \
		2>../err) &&
	test ! -s err
'

test_expect_success 'post-checkout past its budget writes nothing' '
	(cd r && THREADMIND_HOOKS=0 git checkout -q -b feat &&
		THREADMIND_HOOK_BUDGET=0 git threadmind hook post-checkout \
			0 HEAD 1 2>../err) &&
	test ! -s err &&
	test_cmp config.before r/.threadmind/config.json
'

test_expect_success 'with time to spare, post-checkout records the branch' '
	(cd r && git threadmind hook post-checkout 0 HEAD 1 2>../err) &&
	test ! -s err &&
	grep "\"feat\": \"main\"" r/.threadmind/config.json &&
	cp r/.threadmind/config.json config.feat
'

test_expect_success 'git checkout goes on when the hook runs out of time' '
	(cd r && THREADMIND_HOOK_BUDGET=0 git checkout -q -b feat2 \
		2>../err && test "$(git branch --show-current)" = feat2) &&
	test ! -s err &&
	test_cmp config.feat r/.threadmind/config.json
'

test_expect_success 'a budget longer than 2 s or not a number is ignored' '
	(cd r && THREADMIND_HOOK_BUDGET=1e9 git threadmind hook post-merge 0 \
		2>../err1 && THREADMIND_HOOK_BUDGET=soon git threadmind hook \
		post-merge 0 2>../err2) &&
	grep "1 problem" err1 && grep "1 problem" err2
'

# Inside the read: strace delays every openat by 1 ms, so that reading
# the 1,500 files takes 1.5 s or more whatever the machine, longer than
# any budget tried here, and the hook must stop part-way: some files
# opened, not all.  (Timing alone is not enough: a machine fast enough
# reads them all under strace within 0.2 s.)  On a machine so loaded that
# the hook did not reach the files, a longer budget is tried (at most
# twice).  LeakSanitizer cannot run under ptrace: off for the sanitizer
# build.
if command -v strace >/dev/null 2>&1 &&
	strace -f -e inject=openat:delay_exit=1 -o /dev/null true 2>/dev/null
then
	test_expect_success 'the read stops part-way through the files' '
		(cd r && THREADMIND_HOOKS=0 git checkout -q -b feat3) &&
		for b in 0.3 0.6 1.0; do
			# without the thread index (t5120) the hook opens
			# every file: what this test is about
			rm -f "$(git -C r rev-parse --path-format=absolute --git-common-dir)"/threadmind/paths-*.index &&
			(cd r && THREADMIND_HOOK_BUDGET=$b \
				ASAN_OPTIONS=detect_leaks=0 strace -f \
				-e trace=openat -e inject=openat:delay_exit=1000 \
				-o ../st git threadmind hook \
				post-checkout 0 HEAD 1 2>../err) &&
			test ! -s err &&
			opened=$(grep -c "\"f[0-9]*\.md\"" st || :) &&
			echo "budget $b s: opened $opened of $N" &&
			test_cmp config.feat r/.threadmind/config.json &&
			{ test "$opened" -eq 0 || break; } ||
			{ opened=failed; break; }
		done &&
		test "$opened" -gt 0 && test "$opened" -lt "$N"
	'
else
	echo "# skipped the strace test: strace cannot trace or delay here"
fi

test_done
