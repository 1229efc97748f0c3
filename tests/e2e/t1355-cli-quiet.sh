#!/bin/sh
# -q (--quiet) silences what git's -q silences: the informational lines a
# command prints besides its output, on stderr and on stdout.  Errors,
# warnings and the output itself (an id, a list, --dry-run, --manual,
# doctor's findings) stay.
. "$(dirname "$0")/test-lib.sh"

# quiet CMD...: run CMD; it must succeed and print nothing at all
quiet() {
	"$@" >"$TEST_ROOT/out" 2>"$TEST_ROOT/err" ||
		{ cat "$TEST_ROOT/out" "$TEST_ROOT/err"; return 1; }
	test ! -s "$TEST_ROOT/out" ||
		{ echo "# stdout: $(cat "$TEST_ROOT/out")"; return 1; }
	test ! -s "$TEST_ROOT/err" ||
		{ echo "# stderr: $(cat "$TEST_ROOT/err")"; return 1; }
}

test_expect_success 'setup: without -q the same commands say what they did' '
	new_repo shop && cd shop &&
	git threadmind init >out 2>err && test -s out && test -s err &&
	git threadmind new Auth >out 2>err &&
	echo auth >expect && test_cmp expect out &&
	grep "^Created thread .auth." err &&
	git threadmind switch auth 2>err && grep "^Switched to thread" err &&
	echo "- a" | git threadmind summary -F - 2>err && grep "^Updated the summary" err &&
	git threadmind set auth title=Auth2 2>err && grep "^Updated thread" err &&
	git threadmind install >out && grep "^hook .post-commit.: create" out &&
	git threadmind install >out && grep "already installed" out &&
	git threadmind doctor >out && grep "^no problems found$" out &&
	git add .threadmind && git commit -q -m threads
'

test_expect_success 'thread commands: -q before or after the command, nothing printed' '
	cd shop &&
	git threadmind -q new Billing >out 2>err &&
	echo billing >expect && test_cmp expect out && test ! -s err &&
	git threadmind new Search -q >out 2>err &&
	echo search >expect && test_cmp expect out && test ! -s err &&
	quiet git threadmind -q switch billing &&
	echo "- b" >sum &&
	quiet git threadmind -q summary -F sum &&
	echo "- c" | quiet git threadmind summary -q -F - &&
	quiet git threadmind -q set billing title=Bills &&
	quiet git threadmind -q set billing title=Bills &&
	quiet git threadmind -q touch billing auth &&
	quiet git threadmind -q move search billing &&
	quiet git threadmind -q move search billing &&
	quiet git threadmind -q done search &&
	quiet git threadmind -q reopen search &&
	quiet git threadmind -q abandon search &&
	quiet git threadmind -q merge billing &&
	quiet git threadmind -q rm search &&
	quiet git threadmind -q stale
'

test_expect_success 'project commands: the new id stays, the notes go' '
	cd shop &&
	git threadmind -q project new Other >out 2>err &&
	echo other >expect && test_cmp expect out && test ! -s err &&
	quiet git threadmind -q project use other &&
	quiet git threadmind -q project use shop &&
	quiet git threadmind -q project rename other else &&
	quiet git threadmind -q project set --project else systemContext=ctx &&
	quiet git threadmind -q project rm else
'

test_expect_success 'install, uninstall, doctor: the steps and counts go' '
	cd shop &&
	quiet git threadmind -q uninstall &&
	quiet git threadmind -q uninstall &&
	quiet git threadmind -q install &&
	test -x .git/hooks/post-commit &&
	quiet git threadmind -q install &&
	quiet git threadmind -q doctor &&
	git threadmind -q install --manual >out 2>err &&
	grep "already done" out &&
	rm .threadmind/.gitignore &&
	git threadmind -q doctor --fix >out 2>err &&
	test ! -s out && test ! -s err &&
	test -f .threadmind/.gitignore &&
	rm .threadmind/.gitignore &&
	test_exit_code 1 git threadmind -q doctor >out 2>err &&
	grep "^gitignore: .*is missing" out &&
	test $(wc -l <out) = 1 && test ! -s err &&
	git threadmind -q doctor --fix
'

test_expect_success 'migrate: the report goes, --dry-run stays; the automatic upgrade is silent' '
	cd shop &&
	quiet git threadmind -q migrate &&
	mkdir .threadmind/trees &&
	echo "{\"auth\": {\"parentId\": \"main\"}}" >.threadmind/trees/shop.json &&
	git threadmind -q migrate --dry-run >out 2>err &&
	grep "^dry run, nothing written" out &&
	quiet git threadmind -q migrate &&
	test ! -e .threadmind/trees &&
	mkdir .threadmind/trees &&
	echo "{\"auth\": {\"parentId\": \"main\"}}" >.threadmind/trees/shop.json &&
	git threadmind -q list >out 2>err &&
	test ! -s err && grep "auth" out &&
	test ! -e .threadmind/trees
'

test_expect_success 'resolve: "resolved" goes, a conflict left stays' '
	cd shop && git add .threadmind && git commit -q -m more &&
	f=.threadmind/threads/shop/auth.md &&
	git switch -q -c side &&
	echo "- side" | git threadmind summary -q -F - auth &&
	git commit -q -am side &&
	git switch -q - &&
	echo "- main" | git threadmind summary -q -F - auth &&
	git commit -q -am main &&
	git config --remove-section merge.threadmind &&
	test_must_fail git merge -q side >/dev/null 2>&1 &&
	quiet git threadmind -q resolve &&
	git diff --cached --name-only >staged && grep auth.md staged &&
	git commit -q --no-edit &&
	quiet git threadmind -q resolve &&
	git threadmind install -q
'

test_expect_success 'errors and warnings are never silenced' '
	cd shop &&
	test_exit_code 128 git threadmind -q show nope >out 2>err &&
	grep "^fatal: " err &&
	test_exit_code 1 git threadmind -q stauts 2>err &&
	grep "did you mean .status." err &&
	cp .threadmind/config.json config.saved &&
	echo "{" >.threadmind/config.json &&
	git threadmind -q list >out 2>err &&
	grep "^warning: .*config.json" err &&
	test -s out &&
	cp config.saved .threadmind/config.json
'

test_done
