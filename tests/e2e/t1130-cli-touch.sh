#!/bin/sh
# git threadmind touch: mark a summary as reviewed at HEAD.
. "$(dirname "$0")/test-lib.sh"

TD=r/.threadmind/threads/r

test_expect_success 'setup' '
	new_repo r &&
	(cd r && git threadmind init -q && git threadmind new -q Auth &&
		git threadmind new -q "Auth UI" --parent auth &&
		printf "## State\n- ok\n" | git threadmind summary -q auth &&
		git add .threadmind && git commit -q -m threads) &&
	test -f $TD/auth.md
'

test_expect_success 'touch sets commit = HEAD, branch and updatedAt' '
	fm $TD/auth.md updatedAt >before &&
	body $TD/auth.md >body-before &&
	(cd r && git checkout -q -b feature/review && echo a >a &&
		git add a && git commit -q -m a && git threadmind touch auth) &&
	(cd r && git rev-parse HEAD) >expect &&
	fm $TD/auth.md commit >actual &&
	test_cmp expect actual &&
	echo feature/review >expect &&
	fm $TD/auth.md branch >actual &&
	test_cmp expect actual &&
	fm $TD/auth.md updatedAt >after &&
	test "$(cat after)" \> "$(cat before)" &&
	body $TD/auth.md >actual &&
	test_cmp body-before actual
'

test_expect_success 'touch changes nothing else in the file' '
	cp $TD/auth.md before &&
	(cd r && echo b >b && git add b && git commit -q -m b &&
		git threadmind touch auth) &&
	test_must_fail diff before $TD/auth.md >d &&
	grep "^[<>]" d | sed "s/: .*//" | sort >actual &&
	printf "< commit\n< updatedAt\n> commit\n> updatedAt\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'touch says where it marked the thread' '
	(cd r && git threadmind touch auth) 2>err &&
	(cd r && git rev-parse --short=7 HEAD) >short &&
	grep "Marked .auth. as reviewed at $(cat short)" err &&
	(cd r && git threadmind touch -q auth) 2>err &&
	test_must_fail test -s err
'

test_expect_success 'on a detached HEAD: commit moves, branch stays' '
	(cd r && git checkout -q --detach HEAD~1 && git threadmind touch auth) &&
	(cd r && git rev-parse HEAD) >expect &&
	fm $TD/auth.md commit >actual &&
	test_cmp expect actual &&
	echo feature/review >expect &&
	fm $TD/auth.md branch >actual &&
	test_cmp expect actual &&
	(cd r && git checkout -q feature/review)
'

test_expect_success 'touch by unique prefix' '
	(cd r && git threadmind touch auth-) &&
	(cd r && git rev-parse HEAD) >expect &&
	fm $TD/auth-ui.md commit >actual &&
	test_cmp expect actual
'

test_expect_success 'touch shows up in show --json' '
	(cd r && git threadmind show auth-ui --json) >out &&
	(cd r && git rev-parse HEAD) >head &&
	python3 -c "import json; d=json.load(open(\"out\")); assert d[\"commit\"]==open(\"head\").read().strip(), d; assert d[\"branch\"]==\"feature/review\", d"
'

test_expect_success 'unknown thread, bad ids, ambiguous prefix: fatal' '
	cp -R r/.threadmind snap &&
	(cd r && test_exit_code 128 git threadmind touch nope) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd r && test_exit_code 128 git threadmind touch ../x) &&
	(cd r && test_exit_code 128 git threadmind touch Foo) &&
	(cd r && test_exit_code 128 git threadmind touch au) 2>err &&
	grep "^fatal: .au. is ambiguous: auth, auth-ui" err &&
	diff -r snap r/.threadmind
'

test_expect_success 'touch without a commit yet is fatal' '
	git init -q unborn &&
	(cd unborn && git threadmind init -q) &&
	cp unborn/.threadmind/threads/unborn/main.md before &&
	(cd unborn && test_exit_code 128 git threadmind touch main) 2>err &&
	grep "^fatal: cannot mark .main. as reviewed at HEAD: HEAD has no commit" err &&
	cmp before unborn/.threadmind/threads/unborn/main.md
'

test_expect_success 'touch outside git is fatal' '
	mkdir nogit &&
	(cd nogit && GIT_CEILING_DIRECTORIES="$TEST_ROOT" git threadmind init -q) &&
	cp nogit/.threadmind/threads/nogit/main.md before &&
	(cd nogit && test_exit_code 128 env GIT_CEILING_DIRECTORIES="$TEST_ROOT" \
		git threadmind touch main) 2>err &&
	grep "not in a git repository" err &&
	cmp before nogit/.threadmind/threads/nogit/main.md
'

test_expect_success 'touch waits for the lock and leaves the file alone' '
	test_config -C r threadmind.lockTimeout 0.2 &&
	mkdir r/.threadmind/.lock &&
	test_when_finished "rm -rf r/.threadmind/.lock" &&
	(cd r && test_exit_code 128 git threadmind touch auth) 2>err &&
	grep "is held by" err &&
	rmdir r/.threadmind/.lock &&
	diff -r snap r/.threadmind
'

test_expect_success 'touch -h and usage errors exit 129' '
	(cd r && test_exit_code 129 git threadmind touch -h) >out &&
	grep "^usage: git threadmind touch \[<thread>...\]" out &&
	grep "^   or: git threadmind touch --stale" out &&
	(cd r && test_exit_code 129 git threadmind touch --stale auth) &&
	(cd r && test_exit_code 129 git threadmind touch --frob) &&
	diff -r snap r/.threadmind
'

test_done
