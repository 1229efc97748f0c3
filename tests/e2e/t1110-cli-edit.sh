#!/bin/sh
# git threadmind edit: the summary in the editor git would choose.
. "$(dirname "$0")/test-lib.sh"

TD=r/.threadmind/threads/r

test_expect_success 'setup' '
	new_repo r &&
	(cd r && git threadmind init -q && git threadmind new -q Auth &&
		git threadmind new -q "Auth UI" --parent auth &&
		printf "## State\n- old plan\n" |
		git threadmind summary -q auth &&
		git add .threadmind && git commit -q -m threads &&
		git checkout -q -b feature/auth && echo y >f && git add f &&
		git commit -q -m f) &&
	test -f $TD/auth.md
'

test_expect_success 'GIT_EDITOR edits the summary' '
	fm $TD/auth.md updatedAt >before &&
	(cd r && GIT_EDITOR="sed -i s/old/new/" git threadmind edit auth) &&
	printf "\n## State\n- new plan\n" >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual &&
	fm $TD/auth.md updatedAt >after &&
	! test_cmp before after
'

test_expect_success 'edit sets commit = HEAD and branch' '
	(cd r && git rev-parse HEAD) >expect &&
	fm $TD/auth.md commit >actual &&
	test_cmp expect actual &&
	echo feature/auth >expect &&
	fm $TD/auth.md branch >actual &&
	test_cmp expect actual
'

test_expect_success 'the editor gets the summary in .git/THREADMIND_SUMMARY.md' '
	write_script seeing.sh <<-EOF &&
	printf "%s\n" "\$1" >"$TEST_ROOT/seen-name"
	cp "\$1" "$TEST_ROOT/seen"
	echo "- more" >>"\$1"
	EOF
	(cd r && GIT_EDITOR="$TEST_ROOT/seeing.sh" git threadmind edit auth) &&
	printf "## State\n- new plan\n" >expect &&
	test_cmp expect seen &&
	echo "$TEST_ROOT/r/.git/THREADMIND_SUMMARY.md" >expect &&
	test_cmp expect seen-name &&
	test ! -e r/.git/THREADMIND_SUMMARY.md &&
	printf "\n## State\n- new plan\n- more\n" >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual
'

test_expect_success 'an editor string with arguments and quotes works' '
	(cd r && GIT_EDITOR="sed -i -e '\''s/new plan/a b c/'\''" \
		git threadmind edit auth) &&
	grep "^- a b c$" $TD/auth.md
'

test_expect_success 'core.editor is used without GIT_EDITOR' '
	test_config -C r core.editor "sed -i s/more/core/" &&
	(cd r && VISUAL="sed -i s/more/visual/" EDITOR="sed -i s/more/ed/" \
		TERM=xterm git threadmind edit auth) &&
	grep "^- core$" $TD/auth.md
'

test_expect_success 'GIT_EDITOR wins over core.editor' '
	test_config -C r core.editor "sed -i s/core/core2/" &&
	(cd r && GIT_EDITOR="sed -i s/core/git/" git threadmind edit auth) &&
	grep "^- git$" $TD/auth.md
'

test_expect_success 'VISUAL before EDITOR on a real terminal' '
	(cd r && VISUAL="sed -i s/git/visual/" EDITOR="sed -i s/git/ed/" \
		TERM=xterm git threadmind edit auth) &&
	grep "^- visual$" $TD/auth.md
'

test_expect_success 'EDITOR, not VISUAL, on a dumb terminal' '
	(cd r && VISUAL="sed -i s/visual/v2/" EDITOR="sed -i s/visual/e2/" \
		TERM=dumb git threadmind edit auth) &&
	grep "^- e2$" $TD/auth.md
'

test_expect_success 'dumb terminal without any editor: fatal' '
	cp $TD/auth.md before &&
	(cd r && test_exit_code 128 env VISUAL=vi TERM=dumb \
		git threadmind edit auth) 2>err &&
	grep "^fatal: terminal is dumb, but EDITOR unset" err &&
	cmp before $TD/auth.md
'

test_expect_success 'an unchanged buffer aborts with exit 1' '
	cp $TD/auth.md before &&
	(cd r && test_exit_code 1 env GIT_EDITOR=true \
		git threadmind edit auth) 2>err &&
	grep "^Aborting: summary unchanged" err &&
	cmp before $TD/auth.md &&
	test ! -e r/.git/THREADMIND_SUMMARY.md
'

test_expect_success 'only trailing blank lines added: still unchanged' '
	(cd r && test_exit_code 1 env \
		GIT_EDITOR="sh -c '\''printf \"\n\n\" >>\"\$0\"'\''" \
		git threadmind edit auth) 2>err &&
	grep "^Aborting: summary unchanged" err &&
	cmp before $TD/auth.md
'

test_expect_success 'an empty buffer aborts with exit 1' '
	(cd r && test_exit_code 1 env GIT_EDITOR="cp /dev/null" \
		git threadmind edit auth) 2>err &&
	grep "^Aborting: summary empty" err &&
	cmp before $TD/auth.md
'

test_expect_success 'a failing editor is fatal; the text is kept' '
	(cd r && test_exit_code 128 env \
		GIT_EDITOR="sed -i s/e2/lost/ \"\$@\"; false" \
		git threadmind edit auth) 2>err &&
	grep "^fatal: there was a problem with the editor" err &&
	grep "THREADMIND_SUMMARY.md" err &&
	cmp before $TD/auth.md &&
	grep "^- lost$" r/.git/THREADMIND_SUMMARY.md &&
	(cd r && test_exit_code 128 env GIT_EDITOR=no-such-editor-here \
		git threadmind edit auth) &&
	cmp before $TD/auth.md
'

test_expect_success 'a summary changed during the edit is not overwritten' '
	write_script racing.sh <<-\EOF &&
	echo racing >"$1"
	printf "## Other\n" | git threadmind summary -q auth
	EOF
	(cd r && test_exit_code 128 env GIT_EDITOR="$TEST_ROOT/racing.sh" \
		git threadmind edit auth) 2>err &&
	grep "^fatal: thread .auth.: the summary changed while you were editing" err &&
	printf "\n## Other\n" >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual &&
	grep "^racing$" r/.git/THREADMIND_SUMMARY.md &&
	test ! -e r/.threadmind/.lock
'

test_expect_success 'fields changed during the edit are kept' '
	write_script renaming.sh <<-\EOF &&
	echo renamed-summary >"$1"
	git threadmind set -q auth title=Renamed
	EOF
	(cd r && GIT_EDITOR="$TEST_ROOT/renaming.sh" git threadmind edit auth) &&
	echo Renamed >expect &&
	fm $TD/auth.md title >actual &&
	test_cmp expect actual &&
	printf "\nrenamed-summary\n" >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual
'

test_expect_success 'edit keeps a CRLF file CRLF' '
	printf -- "---\r\nid: crlf\r\ntitle: Windows\r\nparentId: main\r\nx-tool: kept\r\n---\r\n\r\n## A\r\n- one\r\n" \
		>$TD/crlf.md &&
	(cd r && GIT_EDITOR="sed -i s/one/two/" git threadmind edit crlf) &&
	grep -c "" $TD/crlf.md >lines &&
	grep -c "$(printf "\r")\$" $TD/crlf.md >crlines &&
	test_cmp lines crlines &&
	grep "^- two" $TD/crlf.md &&
	grep "^x-tool: kept" $TD/crlf.md
'

test_expect_success 'unknown thread or ambiguous prefix: the editor never runs' '
	cp -R r/.threadmind snap &&
	(cd r && test_exit_code 128 env GIT_EDITOR="touch $TEST_ROOT/ran" \
		git threadmind edit nope) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd r && test_exit_code 128 env GIT_EDITOR="touch $TEST_ROOT/ran" \
		git threadmind edit au) 2>err &&
	grep "^fatal: .au. is ambiguous: auth, auth-ui" err &&
	(cd r && test_exit_code 128 env GIT_EDITOR="touch $TEST_ROOT/ran" \
		git threadmind edit ../x) &&
	(cd r && test_exit_code 128 env GIT_EDITOR="touch $TEST_ROOT/ran" \
		git threadmind edit Foo) &&
	test ! -e ran &&
	diff -r snap r/.threadmind
'

test_expect_success 'edit -h and usage errors exit 129' '
	(cd r && test_exit_code 129 git threadmind edit -h) >out &&
	grep "^usage: git threadmind edit \[<thread>\]" out &&
	(cd r && test_exit_code 129 git threadmind edit auth auth-ui)
'

test_expect_success 'outside git the buffer lives in TMPDIR and is removed' '
	mkdir -p nogit tmp &&
	(cd nogit && GIT_CEILING_DIRECTORIES="$TEST_ROOT" git threadmind init -q) &&
	write_script where.sh <<-EOF &&
	printf "%s\n" "\$1" >"$TEST_ROOT/where"
	echo outside >"\$1"
	EOF
	(cd nogit && GIT_CEILING_DIRECTORIES="$TEST_ROOT" TMPDIR="$TEST_ROOT/tmp" \
		GIT_EDITOR="$TEST_ROOT/where.sh" git threadmind edit main) &&
	grep "^$TEST_ROOT/tmp/threadmind-[^/]*/THREADMIND_SUMMARY.md$" where &&
	test -z "$(ls tmp)" &&
	grep "^outside$" nogit/.threadmind/threads/nogit/main.md
'

test_done
