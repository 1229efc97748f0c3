#!/bin/sh
# A kinder CLI (issue 12): the active thread by default, touch of several
# threads or every stale one, "did you mean" for thread ids, --color, -q,
# option values, bad config values, bare repositories, GIT_DIR and
# GIT_WORK_TREE.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop
ESC=$(printf '\033')
export ESC

field() {
	sed -n "2,/^---/s/^$2: //p" "$1"
}

# on_tty CMD...: run CMD with stdout on a pseudo-terminal; its output on
# stdout (carriage returns removed)
on_tty() {
	python3 -c '
import os, pty, sys
out = []
def read(fd):
    data = os.read(fd, 1024)
    out.append(data)
    return data
sys.stdout.flush()
null = os.open(os.devnull, os.O_WRONLY)
saved = os.dup(1)
os.dup2(null, 1)
status = pty.spawn(sys.argv[1:], read)
os.dup2(saved, 1)
sys.stdout.buffer.write(b"".join(out).replace(b"\r", b""))
sys.exit(os.waitstatus_to_exitcode(status))' "$@"
}

test_expect_success 'setup' '
	new_repo shop &&
	(cd shop && git threadmind init -q &&
		git threadmind new -q Auth --paths src/auth --switch &&
		git threadmind new -q "Auth UI" --parent auth &&
		git add .threadmind && git commit -q -m threads)
'

test_expect_success 'init -q prints nothing' '
	new_repo quiet &&
	(cd quiet && git threadmind init -q) >out 2>err &&
	test_must_fail test -s out &&
	test_must_fail test -s err &&
	test -d quiet/.threadmind
'

test_expect_success 'done, abandon, reopen default to the active thread' '
	(cd shop && git threadmind done) 2>err &&
	grep "Thread .auth. is now done" err &&
	test "$(field $T/auth.md status)" = done &&
	(cd shop && git threadmind reopen) &&
	test -z "$(field $T/auth.md status)" &&
	(cd shop && git threadmind abandon) &&
	test "$(field $T/auth.md status)" = abandoned &&
	(cd shop && git threadmind reopen) &&
	test -z "$(field $T/auth.md status)" &&
	test -z "$(field $T/auth-ui.md status)"
'

test_expect_success 'summary and edit default to the active thread' '
	printf "## State\n- from stdin\n" |
		(cd shop && git threadmind summary) &&
	grep -- "- from stdin" $T/auth.md &&
	! grep -- "- from stdin" $T/auth-ui.md &&
	cat >ed.sh <<-\EOS &&
	#!/bin/sh
	echo "- edited" >>"$1"
	EOS
	chmod +x ed.sh &&
	(cd shop && GIT_EDITOR="$TEST_ROOT/ed.sh" git threadmind edit) &&
	grep -- "- edited" $T/auth.md &&
	! grep -- "- edited" $T/auth-ui.md
'

test_expect_success 'touch defaults to the active thread, takes several' '
	(cd shop && git add .threadmind && git commit -q -m sums &&
		echo b >b && git add b && git commit -q -m b &&
		git threadmind touch) 2>err &&
	head=$(git -C shop rev-parse HEAD) &&
	test "$(field $T/auth.md commit)" = "$head" &&
	test "$(field $T/auth-ui.md commit)" != "$head" &&
	test "$(field $T/main.md commit)" != "$head" &&
	(cd shop && git threadmind touch auth-ui main auth-ui) 2>err &&
	test "$(field $T/auth-ui.md commit)" = "$head" &&
	test "$(field $T/main.md commit)" = "$head" &&
	test $(grep -c "^Marked" err) = 2 &&
	(cd shop && git add .threadmind && git commit -q -m touched)
'

test_expect_success 'touch of several writes nothing when one is unknown' '
	cp $T/auth.md before &&
	(cd shop && test_exit_code 128 git threadmind touch auth nope) 2>err &&
	grep "no thread matches .nope." err &&
	test_cmp before $T/auth.md
'

test_expect_success 'touch --stale re-anchors every stale thread' '
	(cd shop && git threadmind touch --stale) 2>err &&
	grep "No stale threads" err &&
	(cd shop && mkdir -p src/auth && echo x >src/auth/login.js &&
		git add src && git commit -q -m login &&
		git threadmind stale --exit-code >/dev/null;
		test $? = 1) &&
	auth_ui_before=$(field $T/auth-ui.md commit) &&
	(cd shop && git threadmind touch --stale) 2>err &&
	grep "Marked .auth. as reviewed" err &&
	test $(grep -c "^Marked" err) = 1 &&
	test "$(field $T/auth.md commit)" = "$(git -C shop rev-parse HEAD)" &&
	test "$(field $T/auth-ui.md commit)" = "$auth_ui_before" &&
	(cd shop && git threadmind stale --exit-code) &&
	(cd shop && test_exit_code 129 git threadmind touch --stale auth)
'

test_expect_success 'an unknown thread id suggests the closest ids' '
	(cd shop && test_exit_code 128 git threadmind show autj) 2>err &&
	grep "^fatal: no thread matches .autj.; did you mean .auth.?$" err &&
	test $(wc -l <err) = 1 &&
	(cd shop && test_exit_code 128 git threadmind done aht-ui) 2>err &&
	grep "did you mean .auth-ui.?" err &&
	(cd shop && test_exit_code 128 git threadmind show zzzzzzzz) 2>err &&
	grep "no thread matches" err &&
	! grep "did you mean" err
'

test_expect_success '--color, --color=always|never|auto, --no-color' '
	(cd shop && git threadmind list --color) >out &&
	grep -q "$ESC" out &&
	(cd shop && git threadmind --color=always list) >out &&
	grep -q "$ESC" out &&
	(cd shop && git threadmind list --color=never) >out &&
	! grep -q "$ESC" out &&
	(cd shop && git threadmind list --color --no-color) >out &&
	! grep -q "$ESC" out &&
	(cd shop && git threadmind list --color=auto) >out &&
	! grep -q "$ESC" out &&
	(cd shop && NO_COLOR=1 git threadmind list --color) >out &&
	grep -q "$ESC" out &&
	(cd shop && test_exit_code 129 git threadmind list --color=bogus) 2>err &&
	grep "expects \"always\", \"auto\" or \"never\"" err &&
	(cd shop && test_exit_code 129 git threadmind --color=bogus list) &&
	(cd shop && test_exit_code 129 git threadmind list --no-color=x)
'

test_expect_success 'on a terminal: colour, but not with TERM=dumb' '
	(cd shop && TERM=xterm on_tty git threadmind list) >out &&
	grep -q "$ESC" out &&
	(cd shop && TERM=dumb on_tty git threadmind list) >out &&
	grep auth out &&
	! grep -q "$ESC" out &&
	(cd shop && TERM=dumb on_tty git threadmind list --color) >out &&
	grep -q "$ESC" out
'

test_expect_success '--project without a value is a usage error' '
	(cd shop && test_exit_code 129 git threadmind --project) 2>err &&
	grep "^error: option .--project. requires a value" err &&
	grep "^usage: git threadmind" err &&
	(cd shop && test_exit_code 129 git threadmind list --project) 2>err &&
	grep "requires a value" err
'

test_expect_success 'bad config values are fatal, naming the key' '
	(cd shop && test_exit_code 128 git -c color.threadmind=bogus \
		threadmind list) 2>err &&
	grep "^fatal: bad boolean config value .bogus. for .color.threadmind." err &&
	(cd shop && test_exit_code 128 git -c color.ui=bogus \
		threadmind tree) 2>err &&
	grep "color.ui" err &&
	(cd shop && git -c color.ui=true threadmind list) >out &&
	! grep -q "$ESC" out &&
	(cd shop && git -c color.threadmind=always threadmind list) >out &&
	grep -q "$ESC" out &&
	cp $T/auth.md before &&
	(cd shop && test_exit_code 128 git -c threadmind.lockTimeout=abc \
		threadmind touch) 2>err &&
	grep "^fatal: bad numeric config value .abc. for .threadmind.lockTimeout." err &&
	test_cmp before $T/auth.md &&
	(cd shop && test_exit_code 128 git -c threadmind.lockTimeout=-1 \
		threadmind done auth-ui) &&
	(cd shop && git -c threadmind.lockTimeout=0.5 threadmind touch)
'

test_expect_success 'list --status bogus is a usage error' '
	(cd shop && test_exit_code 129 git threadmind list --status bogus) 2>err &&
	grep "^error: --status must be active, done, abandoned or all" err &&
	grep "^usage: git threadmind list" err &&
	(cd shop && git threadmind list --status done) &&
	(cd shop && git threadmind list --status all) >out &&
	grep auth-ui out
'

test_expect_success 'init in a bare repository: must be run in a work tree' '
	git init -q --bare bare.git &&
	(cd bare.git && test_exit_code 128 git threadmind init) 2>err &&
	grep "^fatal: this operation must be run in a work tree$" err &&
	test_must_fail test -e bare.git/.threadmind &&
	(GIT_DIR="$TEST_ROOT/bare.git" && export GIT_DIR &&
		test_exit_code 128 git threadmind init)
'

test_expect_success 'GIT_DIR and GIT_WORK_TREE find the store' '
	mkdir elsewhere &&
	(cd elsewhere && GIT_DIR="$TEST_ROOT/shop/.git" \
		GIT_WORK_TREE="$TEST_ROOT/shop" git threadmind list) >out &&
	grep auth-ui out &&
	(cd elsewhere && git --git-dir="$TEST_ROOT/shop/.git" \
		--work-tree="$TEST_ROOT/shop" threadmind show auth) >out &&
	grep "^id: auth$" out &&
	(cd shop/src && GIT_DIR="$TEST_ROOT/shop/.git" \
		git threadmind list) >out &&
	grep auth-ui out &&
	(cd elsewhere && test_exit_code 128 env \
		GIT_DIR="$TEST_ROOT/shop/.git" git threadmind list) 2>err &&
	grep "not a ThreadMind repository" err
'

test_expect_success 'init with GIT_DIR and GIT_WORK_TREE creates the store there' '
	git init -q --bare sep.git && mkdir sepwt &&
	(cd elsewhere && GIT_DIR="$TEST_ROOT/sep.git" \
		GIT_WORK_TREE="$TEST_ROOT/sepwt" git threadmind init -q) &&
	test -d sepwt/.threadmind &&
	test_must_fail test -e elsewhere/.threadmind
'

test_done
