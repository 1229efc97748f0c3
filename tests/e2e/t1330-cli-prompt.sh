#!/bin/sh
# git threadmind prompt: the active thread id, silent and fast.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'prompt prints the active thread id and a newline' '
	new_repo shop &&
	(cd shop && git threadmind init -q && git threadmind new -q Auth &&
		git threadmind new -q Billing) &&
	(cd shop && git threadmind prompt) >out 2>err &&
	printf "main\n" >expect &&
	test_cmp expect out &&
	test ! -s err
'

test_expect_success 'prompt follows switch, from a subfolder too' '
	mkdir -p shop/src/deep &&
	(cd shop && git threadmind switch -q auth) &&
	(cd shop/src/deep && git threadmind prompt) >out &&
	printf "auth\n" >expect &&
	test_cmp expect out
'

test_expect_success 'prompt follows the branch (branchThreads first)' '
	(cd shop && git checkout -q -b feature && git threadmind switch -q billing) &&
	(cd shop && git threadmind prompt) >out &&
	printf "billing\n" >expect &&
	test_cmp expect out &&
	(cd shop && git checkout -q main && git threadmind prompt) >out &&
	printf "auth\n" >expect &&
	test_cmp expect out
'

test_expect_success 'prompt falls back to the newest thread of the branch' '
	(cd shop && git checkout -q -b fresh &&
		git threadmind new -q "On fresh" >/dev/null &&
		git threadmind prompt) >out &&
	printf "on-fresh\n" >expect &&
	test_cmp expect out &&
	(cd shop && git checkout -q main)
'

test_expect_success 'detached HEAD: activeThreadId' '
	(cd shop && git checkout -q --detach && git threadmind prompt) >out;
	rc=$? && (cd shop && git checkout -q main) && test $rc = 0 &&
	printf "billing\n" >expect &&
	test_cmp expect out
'

test_expect_success 'prompt --project' '
	(cd shop && git threadmind project new -q Other) &&
	(cd shop && git threadmind prompt --project other) >out &&
	printf "main\n" >expect &&
	test_cmp expect out
'

test_expect_success 'outside a ThreadMind repository: nothing, exit 0' '
	new_repo plain &&
	(cd plain && git threadmind prompt) >out 2>err &&
	test ! -s out && test ! -s err &&
	mkdir nogit &&
	(cd nogit && git-threadmind prompt) >out 2>err &&
	test ! -s out && test ! -s err
'

test_expect_success 'on errors: nothing, exit 0' '
	cp shop/.threadmind/config.json saved &&
	printf "{ oops" >shop/.threadmind/config.json &&
	(cd shop && git threadmind prompt) >out 2>err &&
	test ! -s out && test ! -s err &&
	(cd shop && git threadmind prompt --project ../x) >out 2>err &&
	test ! -s out && test ! -s err &&
	cp saved shop/.threadmind/config.json
'

test_expect_success 'no warning, no lock, no upgrade' '
	printf -- "---\nid: broken\n" >shop/.threadmind/threads/shop/broken.md &&
	echo "{\"pid\":1}" >shop/.threadmind/.lock &&
	mkdir shop/.threadmind/trees &&
	echo "{\"auth\": \"billing\"}" >shop/.threadmind/trees/shop.json &&
	(cd shop && git threadmind prompt) >out 2>err &&
	printf "auth\n" >expect &&
	test_cmp expect out &&
	test ! -s err &&
	test -f shop/.threadmind/.lock &&
	test -f shop/.threadmind/trees/shop.json &&
	grep "^parentId: main$" shop/.threadmind/threads/shop/auth.md &&
	rm -r shop/.threadmind/.lock shop/.threadmind/trees
'

# Only where strace can trace (not in every container).
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null
then
	test_expect_success 'a branchThreads hit opens no thread file' '
		(cd shop && ASAN_OPTIONS=detect_leaks=0 strace -f -o ../trace -e trace=open,openat,stat,newfstatat,lstat,statx \
			git-threadmind prompt) >out &&
		printf "auth\n" >expect &&
		test_cmp expect out &&
		grep "\"auth.md\"" trace &&
		! grep "open.*\.md\"" trace
	'

	# config.json records who the thread it last made active is
	# (activeThreadIdentity): when this branch's entry names it, prompt
	# reads that one file to see that the id still holds that thread.
	test_expect_success 'the recorded active thread: only its file is read' '
		(cd shop && git threadmind switch -q auth &&
			ASAN_OPTIONS=detect_leaks=0 strace -f -o ../trace \
				-e trace=open,openat git-threadmind prompt) >out &&
		printf "auth\n" >expect &&
		test_cmp expect out &&
		grep "open.*\"auth.md\"" trace &&
		test $(grep -c "open.*\.md\"" trace) -eq 1
	'
fi

test_expect_success 'prompt usage' '
	(cd shop && test_exit_code 129 git threadmind prompt extra) 2>err &&
	grep "^usage: git threadmind prompt" err
'

test_done
