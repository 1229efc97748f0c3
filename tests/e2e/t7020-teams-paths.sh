#!/bin/sh
# Paths are pathspecs from the repository root (DESIGN.md section 11):
# typed in a subfolder, outside the tree, matching nothing; doctor after
# `git mv`.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop

test_expect_success 'a repository with code in a subfolder' '
	new_repo shop &&
	(cd shop && mkdir -p pkg/test lib && echo t >pkg/test/test_api.py &&
		echo l >lib/util.c && echo m >pkg/main.py &&
		git add . && git commit -q -m code &&
		git threadmind init -q && git add -A &&
		git commit -q -m threads)
'

test_expect_success 'new --paths in a subfolder stores them from the root' '
	(cd shop/pkg/test && git threadmind new "API" -q \
		--paths test_api.py,../main.py,./../../lib/,"*.py") 2>err &&
	test ! -s err &&
	echo "[\"pkg/test/test_api.py\",\"pkg/main.py\",\"lib/\",\"pkg/test/*.py\"]" >expect &&
	fm $T/api.md paths >actual &&
	test_cmp expect actual
'

test_expect_success 'the thread is flagged when the file typed in the subfolder changes' '
	(cd shop && echo "- the API" | git threadmind summary -q api -F - &&
		git add -A && git commit -q -m api &&
		echo change >>pkg/test/test_api.py && git commit -q -a -m change &&
		git threadmind stale) >out &&
	grep "^api" out &&
	grep "changed: pkg/test/test_api.py" out
'

test_expect_success 'pathspec magic is kept as typed' '
	(cd shop/pkg && git threadmind set api "paths=:(exclude)test,:/lib") &&
	echo "[\":(exclude)test\",\":/lib\"]" >expect &&
	fm $T/api.md paths >actual &&
	test_cmp expect actual
'

test_expect_success 'set paths= reads them from the current folder too' '
	(cd shop/pkg/test && git threadmind set api paths=test_api.py,../../lib/util.c) &&
	echo "[\"pkg/test/test_api.py\",\"lib/util.c\"]" >expect &&
	fm $T/api.md paths >actual &&
	test_cmp expect actual
'

test_expect_success 'a path outside the work tree is refused (128), nothing written' '
	cp $T/api.md before &&
	(cd shop/pkg && test_exit_code 128 git threadmind new "Bad" --paths /etc/passwd) 2>err &&
	grep "^fatal: ./etc/passwd. is outside the repository at " err &&
	(cd shop/pkg && test_exit_code 128 git threadmind new "Bad" --paths ../../outside) 2>err &&
	grep "^fatal: .\.\./\.\./outside. is outside the repository" err &&
	test ! -e $T/bad.md &&
	(cd shop/pkg && test_exit_code 128 git threadmind set api paths=../..) 2>err &&
	grep "outside the repository" err &&
	test_cmp before $T/api.md
'

test_expect_success 'an absolute path inside the tree is stored from the root' '
	(cd shop/pkg && git threadmind set api "paths=$TEST_ROOT/shop/lib/") &&
	echo "[\"lib/\"]" >expect &&
	fm $T/api.md paths >actual &&
	test_cmp expect actual
'

test_expect_success 'a path matching nothing is kept with a warning' '
	(cd shop/pkg && git threadmind new "Later" -q --paths future.c) 2>err &&
	grep "^warning: .pkg/future.c. matches nothing in HEAD or the work tree" err &&
	echo "[\"pkg/future.c\"]" >expect &&
	fm $T/later.md paths >actual &&
	test_cmp expect actual &&
	(cd shop && echo x >pkg/new.c && git threadmind -q set later paths=pkg/new.c) 2>err &&
	test ! -s err
'

test_expect_success 'doctor is quiet while every entry matches HEAD' '
	(cd shop && git threadmind set later paths=pkg/main.py &&
		git threadmind install >/dev/null &&
		git add -A && git commit -q -m paths &&
		git threadmind doctor) >out &&
	! grep unmatched-path out
'

test_expect_success 'after git mv, doctor names the new names' '
	(cd shop && git mv pkg/test/test_api.py pkg/test/test_http.py &&
		git mv lib src && git commit -q -m rename &&
		echo more >>pkg/main.py && git commit -q -a -m more) &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^unmatched-path: thread .api.: paths entry .lib/. matches nothing in HEAD; renamed to .src/. in [0-9a-f]\{7\}; follow it .*paths=src/.$" out &&
	(cd shop && git threadmind set api paths=pkg/test/test_api.py,lib/) 2>/dev/null &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "paths entry .pkg/test/test_api.py. matches nothing in HEAD; renamed to .pkg/test/test_http.py. in " out &&
	grep "paths=pkg/test/test_http.py,lib/.$" out &&
	test "$(grep -c unmatched-path out)" = 2
'

test_expect_success 'an entry gone without a rename is reported without one' '
	(cd shop && git threadmind set later paths=pkg/main.py,gone.c 2>/dev/null &&
		test_exit_code 1 git threadmind doctor) >out &&
	grep "^unmatched-path: thread .later.: paths entry .gone.c. matches nothing in HEAD; fix or drop it .*paths=pkg/main.py.$" out
'

test_done
