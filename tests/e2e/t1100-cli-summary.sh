#!/bin/sh
# git threadmind summary: replacing a summary from a file or stdin.
. "$(dirname "$0")/test-lib.sh"

TD=r/.threadmind/threads/r

test_expect_success 'setup' '
	new_repo r &&
	(cd r && git threadmind init -q && git threadmind new -q Auth &&
		git threadmind new -q "Auth UI" --parent auth &&
		git threadmind new -q API && git add .threadmind &&
		git commit -q -m threads) &&
	test -f $TD/auth.md && test -f $TD/auth-ui.md && test -f $TD/api.md
'

test_expect_success 'summary reads the new summary from stdin' '
	printf "## Decisions\n- cookies httpOnly\n" >new &&
	(cd r && git threadmind summary auth <../new) &&
	printf "\n## Decisions\n- cookies httpOnly\n" >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual
'

test_expect_success 'summary sets commit = HEAD, branch and updatedAt' '
	fm $TD/api.md updatedAt >before &&
	fm $TD/api.md createdAt >created &&
	(cd r && git checkout -q -b feature/api && echo x >f &&
		git add f && git commit -q -m f) &&
	echo "## State" | (cd r && git threadmind summary api) &&
	(cd r && git rev-parse HEAD) >expect &&
	fm $TD/api.md commit >actual &&
	test_cmp expect actual &&
	echo feature/api >expect &&
	fm $TD/api.md branch >actual &&
	test_cmp expect actual &&
	fm $TD/api.md updatedAt >after &&
	! test_cmp before after &&
	test "$(cat after)" \> "$(cat before)" &&
	fm $TD/api.md createdAt >actual &&
	test_cmp created actual
'

test_expect_success 'summary -F reads a file relative to the current folder' '
	mkdir -p r/sub &&
	printf "## State\n- from a file\n" >r/sub/note.md &&
	(cd r/sub && git threadmind summary auth-ui -F note.md) &&
	printf "\n## State\n- from a file\n" >expect &&
	body $TD/auth-ui.md >actual &&
	test_cmp expect actual
'

test_expect_success 'summary -F - reads stdin, --file= works too' '
	printf "one\n" | (cd r && git threadmind summary auth-ui -F -) &&
	printf "\none\n" >expect &&
	body $TD/auth-ui.md >actual &&
	test_cmp expect actual &&
	printf "two\n" >r/two.md &&
	(cd r && git threadmind summary auth-ui --file=two.md) &&
	printf "\ntwo\n" >expect &&
	body $TD/auth-ui.md >actual &&
	test_cmp expect actual
'

test_expect_success 'the text is normalised: CRLF, trailing blank lines' '
	printf "## A\r\n- x\r\n\r\n  \r\n\r\n" |
		(cd r && git threadmind summary auth-ui) &&
	printf "\n## A\n- x\n" >expect &&
	body $TD/auth-ui.md >actual &&
	test_cmp expect actual
'

test_expect_success 'a --- line in the summary is kept' '
	printf "## A\n---\n- after the rule\n" |
		(cd r && git threadmind summary auth-ui) &&
	(cd r && git threadmind show auth-ui --json) >out &&
	python3 -c "import json; d=json.load(open(\"out\")); assert d[\"summary\"]==\"## A\n---\n- after the rule\n\", d; assert d[\"title\"]==\"Auth UI\", d"
'

test_expect_success 'an empty summary is refused, nothing written' '
	cp $TD/auth.md before &&
	(cd r && test_exit_code 128 git threadmind summary auth </dev/null) \
		2>err &&
	grep "^fatal: the new summary of .auth. is empty" err &&
	grep -- "--allow-empty" err &&
	cmp before $TD/auth.md &&
	printf " \n\t\n\n" >blank &&
	(cd r && test_exit_code 128 git threadmind summary auth -F ../blank) &&
	cmp before $TD/auth.md
'

test_expect_success '--allow-empty erases the summary' '
	(cd r && git threadmind summary --allow-empty auth </dev/null) &&
	body $TD/auth.md >actual &&
	test_must_fail test -s actual &&
	(cd r && git threadmind show auth --json) >out &&
	python3 -c "import json; d=json.load(open(\"out\")); assert d[\"summary\"]==\"\", d"
'

test_expect_success 'a NUL byte or invalid UTF-8 is refused' '
	cp $TD/auth-ui.md before &&
	printf "a\000b\n" >nul &&
	(cd r && test_exit_code 128 git threadmind summary auth-ui -F ../nul) \
		2>err &&
	grep "NUL byte" err &&
	printf "caf\351\n" >latin1 &&
	(cd r && test_exit_code 128 git threadmind summary auth-ui \
		-F ../latin1) 2>err &&
	grep "not valid UTF-8" err &&
	cmp before $TD/auth-ui.md
'

test_expect_success 'a summary over 1 MiB is refused' '
	python3 -c "import sys; sys.stdout.write(\"x\" * (1 << 20))" >big &&
	cp $TD/auth-ui.md before &&
	(cd r && test_exit_code 128 git threadmind summary auth-ui -F ../big) \
		2>err &&
	grep "larger than 1 MiB" err &&
	cmp before $TD/auth-ui.md
'

test_expect_success 'a missing -F file is fatal and names it' '
	(cd r && test_exit_code 128 git threadmind summary auth -F nope.md) \
		2>err &&
	grep "^fatal: cannot read .nope.md." err
'

test_expect_success 'a unique prefix names the thread' '
	echo "## Prefixed" | (cd r && git threadmind summary ap) &&
	printf "\n## Prefixed\n" >expect &&
	body $TD/api.md >actual &&
	test_cmp expect actual
'

test_expect_success 'unknown thread, bad ids: fatal, nothing written' '
	cp -R r/.threadmind snap &&
	echo text >t &&
	(cd r && test_exit_code 128 git threadmind summary nope -F ../t) \
		2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd r && test_exit_code 128 git threadmind summary ../x -F ../t) &&
	(cd r && test_exit_code 128 git threadmind summary Foo -F ../t) &&
	(cd r && test_exit_code 128 git threadmind summary "" -F ../t) &&
	diff -r snap r/.threadmind
'

test_expect_success 'an ambiguous prefix lists the candidates' '
	(cd r && test_exit_code 128 git threadmind summary au -F ../t) 2>err &&
	grep "^fatal: .au. is ambiguous: auth, auth-ui" err &&
	diff -r snap r/.threadmind
'

test_expect_success 'summary waits for the lock and fails naming it' '
	test_config -C r threadmind.lockTimeout 0.3 &&
	echo "{\"pid\":1,\"host\":\"elsewhere\",\"startedAt\":\"x\"}" \
		>r/.threadmind/.lock &&
	test_when_finished "rm -f r/.threadmind/.lock" &&
	(cd r && test_exit_code 128 git threadmind summary api -F ../t) \
		2>err &&
	grep "^fatal: .*lock.* is held by" err &&
	rm r/.threadmind/.lock &&
	diff -r snap r/.threadmind
'

test_expect_success 'no lock is left behind after a refusal' '
	(cd r && test_exit_code 128 git threadmind summary auth </dev/null) &&
	test ! -e r/.threadmind/.lock &&
	(cd r && git threadmind summary api -F ../t) &&
	test ! -e r/.threadmind/.lock
'

test_expect_success 'summary -h and usage errors exit 129' '
	(cd r && test_exit_code 129 git threadmind summary -h) >out &&
	grep "^usage: git threadmind summary \[<thread>\]" out &&
	(cd r && test_exit_code 129 git threadmind summary a b) 2>err &&
	grep "^usage: git threadmind summary" err &&
	(cd r && test_exit_code 129 git threadmind summary api --frob)
'

test_expect_success 'the note goes to stderr, -q silences it' '
	(cd r && git threadmind summary api -F ../t) >out 2>err &&
	test_must_fail test -s out &&
	grep "Updated the summary of .api." err &&
	(cd r && git threadmind -q summary api -F ../t) >out 2>err &&
	test_must_fail test -s err &&
	(cd r && git threadmind summary api -F ../t -q) 2>err &&
	test_must_fail test -s err
'

test_done
