#!/bin/sh
# git threadmind set: title, paths and branch.
. "$(dirname "$0")/test-lib.sh"

TD=r/.threadmind/threads/r

test_expect_success 'setup' '
	new_repo r &&
	(cd r && git threadmind init -q && git threadmind new -q Auth &&
		git threadmind new -q "Auth UI" --parent auth --paths src/auth &&
		printf "## State\n- doing\n" | git threadmind summary -q auth &&
		git add .threadmind && git commit -q -m threads) &&
	test -f $TD/auth.md
'

test_expect_success 'set title= keeps the id and the file name' '
	(cd r && git threadmind set auth "title=Fix: login") &&
	test -f $TD/auth.md &&
	test ! -e $TD/fix-login.md &&
	echo "\"Fix: login\"" >expect &&
	fm $TD/auth.md title >actual &&
	test_cmp expect actual &&
	echo auth >expect &&
	fm $TD/auth.md id >actual &&
	test_cmp expect actual
'

test_expect_success 'set changes several fields at once' '
	(cd r && git threadmind set auth-ui title=Login paths=src/a,src/b \
		branch=feature/login) &&
	(cd r && git threadmind show auth-ui --json) >out &&
	json_is "d[\"title\"] == \"Login\"" &&
	json_is "d[\"paths\"] == [\"src/a\", \"src/b\"]" &&
	json_is "d[\"branch\"] == \"feature/login\"" &&
	json_is "d[\"id\"] == \"auth-ui\" and d[\"parentId\"] == \"auth\"" &&
	echo "[\"src/a\",\"src/b\"]" >expect &&
	fm $TD/auth-ui.md paths >actual &&
	test_cmp expect actual
'

test_expect_success 'set bumps updatedAt only, not commit or branch' '
	fm $TD/auth.md commit >commit-before &&
	fm $TD/auth.md branch >branch-before &&
	fm $TD/auth.md updatedAt >before &&
	(cd r && git checkout -q -b other && echo z >z && git add z &&
		git commit -q -m z && git threadmind set auth title=Again) &&
	fm $TD/auth.md commit >actual &&
	test_cmp commit-before actual &&
	fm $TD/auth.md branch >actual &&
	test_cmp branch-before actual &&
	echo main >expect &&
	test_cmp expect actual &&
	fm $TD/auth.md updatedAt >after &&
	test "$(cat after)" \> "$(cat before)"
'

test_expect_success 'set leaves the summary alone' '
	(cd r && git threadmind show auth --json) >out &&
	json_is "d[\"summary\"] == \"## State\n- doing\n\""
'

test_expect_success 'repeated paths= add up; empty items and repeats go' '
	(cd r && git threadmind set auth-ui paths=lib,,docs paths=lib,test) &&
	echo "[\"lib\",\"docs\",\"test\"]" >expect &&
	fm $TD/auth-ui.md paths >actual &&
	test_cmp expect actual
'

test_expect_success 'paths= and branch= remove the fields' '
	(cd r && git threadmind set auth-ui paths= branch=) &&
	! grep "^paths:" $TD/auth-ui.md &&
	! grep "^branch:" $TD/auth-ui.md &&
	(cd r && git threadmind show auth-ui --json) >out &&
	json_is "d[\"branch\"] is None and d[\"paths\"] == []"
'

test_expect_success 'a tricky title round-trips through show --json' '
	(cd r && git threadmind set auth "title=- say \"null\" # ok") &&
	(cd r && git threadmind show auth --json) >out &&
	json_is "d[\"title\"] == \"- say \\\"null\\\" # ok\"" &&
	(cd r && git threadmind set auth title=null) &&
	echo "\"null\"" >expect &&
	fm $TD/auth.md title >actual &&
	test_cmp expect actual &&
	(cd r && git threadmind show auth --json) >out &&
	json_is "d[\"title\"] == \"null\""
'

test_expect_success 'the same values again: nothing written' '
	cp $TD/auth.md before &&
	(cd r && git threadmind set auth title=null) 2>err &&
	grep "nothing written" err &&
	cmp before $TD/auth.md
'

test_expect_success 'unknown or fixed fields are usage errors, nothing written' '
	cp -R r/.threadmind snap &&
	(cd r && test_exit_code 129 git threadmind set auth colour=red) 2>err &&
	grep "^error: unknown field .colour.: title, paths and branch" err &&
	grep "^usage: git threadmind set" err &&
	(cd r && test_exit_code 129 git threadmind set auth id=other) 2>err &&
	grep "never changes" err &&
	(cd r && test_exit_code 129 git threadmind set auth parentId=main) \
		2>err &&
	grep "git threadmind move" err &&
	(cd r && test_exit_code 129 git threadmind set auth title=ok \
		status=done) &&
	diff -r snap r/.threadmind
'

test_expect_success 'no assignment or no = is a usage error' '
	(cd r && test_exit_code 129 git threadmind set auth) 2>err &&
	grep "at least one <field>=<value>" err &&
	(cd r && test_exit_code 129 git threadmind set auth title) 2>err &&
	grep "not a field assignment" err &&
	(cd r && test_exit_code 129 git threadmind set) &&
	diff -r snap r/.threadmind
'

test_expect_success 'bad values are fatal, all or nothing' '
	(cd r && test_exit_code 128 git threadmind set auth title=Good \
		branch=a..b) 2>err &&
	grep "^fatal: .a..b. is not a valid branch name" err &&
	(cd r && test_exit_code 128 git threadmind set auth "title=  ") 2>err &&
	grep "^fatal: the title of .auth. cannot be empty" err &&
	(cd r && test_exit_code 128 git threadmind set auth branch=-x) &&
	diff -r snap r/.threadmind &&
	test ! -e r/.threadmind/.lock
'

test_expect_success 'unknown thread, bad ids, ambiguous prefix: fatal' '
	(cd r && test_exit_code 128 git threadmind set nope title=x) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd r && test_exit_code 128 git threadmind set ../x title=x) &&
	(cd r && test_exit_code 128 git threadmind set Foo title=x) &&
	(cd r && test_exit_code 128 git threadmind set au title=x) 2>err &&
	grep "^fatal: .au. is ambiguous: auth, auth-ui" err &&
	diff -r snap r/.threadmind
'

test_expect_success 'a unique prefix and global options after the command' '
	(cd r && git threadmind set auth- title=Prefixed -q) >out 2>err &&
	test_must_fail test -s err &&
	test_must_fail test -s out &&
	echo Prefixed >expect &&
	fm $TD/auth-ui.md title >actual &&
	test_cmp expect actual &&
	(cd r && git threadmind --project r set auth-ui title=Again) &&
	echo Again >expect &&
	fm $TD/auth-ui.md title >actual &&
	test_cmp expect actual
'

test_expect_success 'set -h exits 129 with the usage on stdout' '
	(cd r && test_exit_code 129 git threadmind set -h) >out &&
	grep "^usage: git threadmind set <thread> \[title=<title>\]" out
'

test_done
