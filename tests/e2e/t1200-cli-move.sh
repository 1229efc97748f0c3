#!/bin/sh
# git threadmind move: re-parenting, and what it refuses (cycles, main,
# bad, unknown and ambiguous thread arguments).
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop

test_expect_success 'setup: main, auth, auth-ui under auth, billing' '
	new_repo shop &&
	(cd shop && git threadmind -q init) >/dev/null &&
	(cd shop && git threadmind -q new Auth &&
		git threadmind -q new "Auth UI" --parent auth &&
		git threadmind -q new Billing) >ids &&
	printf "auth\nauth-ui\nbilling\n" >expect &&
	test_cmp expect ids &&
	test "$(fm $T/auth-ui.md parentId)" = auth &&
	test "$(fm $T/billing.md parentId)" = main
'

test_expect_success 'move sets parentId and bumps updatedAt only' '
	age $T/billing.md &&
	cp $T/auth.md auth.before &&
	fm $T/billing.md createdAt >created.before &&
	(cd shop && git threadmind move billing auth-ui) 2>err &&
	grep "Moved thread .billing. under .auth-ui. (was under .main.)" err &&
	test "$(fm $T/billing.md parentId)" = auth-ui &&
	fresh $T/billing.md &&
	fm $T/billing.md createdAt >created.after &&
	test_cmp created.before created.after &&
	test "$(fm $T/billing.md title)" = Billing &&
	test_cmp auth.before $T/auth.md &&
	test ! -e shop/.threadmind/.lock
'

test_expect_success 'the tree shows the new parent' '
	(cd shop && git threadmind tree --json) >tree.json &&
	python3 -c "
import json
d = json.load(open(\"tree.json\"))
ui = d[\"roots\"][0][\"children\"][0][\"children\"][0]
assert ui[\"id\"] == \"auth-ui\", ui[\"id\"]
assert [c[\"id\"] for c in ui[\"children\"]] == [\"billing\"], ui
assert ui[\"children\"][0][\"depth\"] == 3
"
'

test_expect_success 'move refuses a cycle, naming both threads' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind move auth billing) 2>err &&
	grep "^fatal: cannot move .auth. under .billing.: .billing. is a descendant of .auth." err &&
	grep cycle err &&
	snap shop >after &&
	test_cmp before after &&
	test ! -e shop/.threadmind/.lock
'

test_expect_success 'move refuses a thread under itself' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind move auth-ui auth-ui) 2>err &&
	grep "^fatal: cannot move .auth-ui. under itself" err &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'move refuses main' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind move main billing) 2>err &&
	grep "^fatal: cannot move .main.: it is the project.s root thread" err &&
	(cd shop && test_exit_code 128 git threadmind move ma auth) &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'move refuses unknown threads and parents' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind move nope main) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd shop && test_exit_code 128 git threadmind move billing nope) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'an ambiguous prefix lists the candidates' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind move au main) 2>err &&
	grep "^fatal: .au. is ambiguous: auth, auth-ui" err &&
	(cd shop && test_exit_code 128 git threadmind move billing au) 2>err &&
	grep "auth, auth-ui" err &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'bad ids are refused with nothing changed' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind move ../x main) 2>err &&
	grep "^fatal: " err &&
	(cd shop && test_exit_code 128 git threadmind move Foo main) &&
	(cd shop && test_exit_code 128 git threadmind move billing ../../x) &&
	(cd shop && test_exit_code 128 git threadmind move billing Main) &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'unique prefixes work for both arguments' '
	(cd shop && git threadmind move bil ma) &&
	test "$(fm $T/billing.md parentId)" = main
'

test_expect_success 'moving under the current parent changes nothing' '
	cp $T/billing.md before &&
	(cd shop && git threadmind move billing main) 2>err &&
	grep "already under .main." err &&
	test_cmp before $T/billing.md
'

test_expect_success 'move fixes an orphan' '
	sed "s/^parentId: main$/parentId: ghost/" $T/billing.md >b &&
	cat b >$T/billing.md &&
	(cd shop && git threadmind tree) >out &&
	grep "billing.*orphan" out &&
	(cd shop && git threadmind move billing auth) 2>err &&
	grep "was under .ghost." err &&
	(cd shop && git threadmind tree) >out &&
	! grep orphan out &&
	test "$(fm $T/billing.md parentId)" = auth
'

test_expect_success 'move keeps CRLF line ends and unknown fields' '
	printf "%s\r\n" "---" "id: legacy" "title: \"Legacy: old\"" \
		"parentId: main" "author: x-0000" \
		"createdAt: 2026-01-01T00:00:00.000Z" \
		"updatedAt: 2026-01-01T00:00:00.000Z" "custom: keep me" "---" \
		"" "## Notes" "- n" >$T/legacy.md &&
	(cd shop && git threadmind -q move legacy auth) &&
	test "$(fm $T/legacy.md parentId)" = auth &&
	test "$(fm $T/legacy.md custom)" = "keep me" &&
	test "$(fm $T/legacy.md title)" = "\"Legacy: old\"" &&
	fresh $T/legacy.md &&
	test "$(grep -c "$(printf "\r")\$" $T/legacy.md)" = "$(wc -l <$T/legacy.md)"
'

test_expect_success 'move makes a root thread a child' '
	sed "s/^parentId: auth/parentId: null/" $T/legacy.md >l &&
	cat l >$T/legacy.md &&
	(cd shop && git threadmind move legacy main) 2>err &&
	grep "was a root" err &&
	test "$(fm $T/legacy.md parentId)" = main
'

test_expect_success 'usage errors' '
	(cd shop && test_exit_code 129 git threadmind move billing) 2>err &&
	grep "^usage: git threadmind move <thread> <new-parent>" err &&
	(cd shop && test_exit_code 129 git threadmind move a b c) &&
	(cd shop && test_exit_code 129 git threadmind move --frob a b) &&
	(cd shop && test_exit_code 129 git threadmind move -h) >out &&
	grep "^usage: git threadmind move" out
'

test_expect_success 'global options after the command name' '
	(cd shop && git threadmind move billing main -q) 2>err &&
	test ! -s err &&
	test "$(fm $T/billing.md parentId)" = main
'

test_done
