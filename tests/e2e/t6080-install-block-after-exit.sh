#!/bin/sh
# install-block-after-exit (issue 24): on a user's hook whose last command
# may end the script (`true; exit 0`, an `exit` in a `case … esac` or an
# `if … fi`, `echo done; exit 0 # comment`, `exec cmd`), install puts our
# block above that command, never after it (dead code); post-rewrite's
# block goes above the user's code, so that it reads git's list on stdin
# first and hands it on; doctor reads each hook and says when the block
# stands where it may never run (or, in post-rewrite, after the user's
# code).  A fake git-threadmind on PATH records what the hooks call.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a store, a fake git-threadmind that records' '
	new_repo r && (cd r && git threadmind init -q --title P) &&
	mkdir fake &&
	printf "#!/bin/sh\necho \"\$*\" >>\"%s/called\"\ncat >>\"%s/stdin\"\n" \
		"$PWD" "$PWD" >fake/git-threadmind &&
	chmod +x fake/git-threadmind
'

# hook_runs NAME BODY: install over a post-commit hook of BODY, then a
# commit must call `git-threadmind hook post-commit` and the user's code.
hook_runs() {
	printf "#!/bin/sh\n%s\n" "$1" >r/.git/hooks/post-commit &&
	chmod +x r/.git/hooks/post-commit &&
	(cd r && git threadmind install -q >/dev/null) &&
	rm -f called stdin &&
	(cd r && PATH="../fake:$PATH" git commit -q --allow-empty -m probe \
		>../out 2>&1) &&
	grep -x "hook post-commit" called &&
	grep "user hook ran" out &&
	(cd r && git threadmind doctor >../doc 2>&1; true) &&
	! grep "post-commit" doc
}

test_expect_success '`echo …; exit 0`: the block runs' '
	hook_runs "echo user hook ran; exit 0"
'

test_expect_success '`true; exit 0` after the user code: the block runs' '
	hook_runs "echo user hook ran
true; exit 0"
'

test_expect_success 'an `exit` in a final `case … esac`: the block runs' '
	hook_runs "echo user hook ran
case \$# in
0) exit 0 ;;
*) exit 0 ;;
esac" &&
	awk "/<<< threadmind/ { b = NR } /^case/ { c = NR } END { exit !(b < c) }" \
		r/.git/hooks/post-commit
'

test_expect_success 'an `exit` in a final `if … fi`: the block runs' '
	hook_runs "echo user hook ran
if true
then
	exit 0
fi"
'

test_expect_success '`exit 0 # comment` and a here-document: the block runs' '
	hook_runs "$(printf "cat <<EOF\nuser hook ran\nexit 0\nEOF\necho done; exit 0 %s comment" "#")"
'

test_expect_success '`exec cmd` last: the block runs' '
	hook_runs "exec echo user hook ran"
'

test_expect_success 'a hook not ending the script keeps the block at its end' '
	hook_runs "echo user hook ran" &&
	tail -n 1 r/.git/hooks/post-commit | grep "<<< threadmind <<<"
'

test_expect_success 'post-rewrite reading stdin: the block gets the list' '
	printf "#!/bin/sh\nwhile read a b; do echo \"user read \$a\"; done\n" \
		>r/.git/hooks/post-rewrite &&
	chmod +x r/.git/hooks/post-rewrite &&
	(cd r && git threadmind install -q >/dev/null) &&
	rm -f called stdin &&
	old=$(git -C r rev-parse HEAD) &&
	(cd r && PATH="../fake:$PATH" git commit -q --allow-empty --amend \
		-m amended >../out 2>&1) &&
	new=$(git -C r rev-parse HEAD) &&
	grep -x "hook post-rewrite amend" called &&
	grep -x "$old $new" stdin &&
	grep -x "user read $old" out
'

test_expect_success 'doctor: a block after the exit may never run' '
	printf "#!/bin/sh\necho hi; exit 0\n# >>> threadmind >>>\n# x\ngit-threadmind hook post-commit \"\$@\" || :\n# <<< threadmind <<<\n" \
		>r/.git/hooks/post-commit &&
	(cd r && test_exit_code 1 git threadmind doctor >../doc 2>&1) &&
	grep "the threadmind block in hook post-commit (.*) comes after the command that may end the script" doc &&
	(cd r && git threadmind install -q >/dev/null &&
		git threadmind doctor >../doc 2>&1; true) &&
	! grep "post-commit" doc &&
	awk "/<<< threadmind/ { b = NR } /^echo hi/ { c = NR } END { exit !(b < c) }" \
		r/.git/hooks/post-commit
'

test_expect_success 'doctor: post-rewrite block after the user code' '
	printf "#!/bin/sh\nwhile read a b; do :; done\n# >>> threadmind >>>\n# x\ngit-threadmind hook post-rewrite \"\$@\" || :\n# <<< threadmind <<<\n" \
		>r/.git/hooks/post-rewrite &&
	(cd r && test_exit_code 1 git threadmind doctor >../doc 2>&1) &&
	grep "the threadmind block in hook post-rewrite (.*) comes after the hook.s own code" doc
'

test_done
