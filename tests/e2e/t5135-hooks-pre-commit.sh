#!/bin/sh
# Issue 25 (r05): the pre-commit hook refuses to commit a staged thread or
# project file whose frontmatter holds conflict markers, naming the file
# and `git threadmind resolve`; it blocks nothing else, and --no-verify
# skips it as any pre-commit.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/app/auth.md
P=.threadmind/projects/app.json

# marked FILE: FILE's frontmatter line `title:` made a conflict.
marked() {
	python3 - "$1" <<-\EOF
	import sys
	p = sys.argv[1]
	out = []
	for line in open(p).read().splitlines(True):
	    if line.startswith("title: "):
	        out += ["<<<<<<< ours\n", line, "=======\n",
	                "title: Theirs\n", ">>>>>>> theirs\n"]
	    else:
	        out.append(line)
	open(p, "w").write("".join(out))
	EOF
}

refused_for() {
	printf "%s\n" \
		"threadmind: commit refused: conflict markers in the frontmatter of '$1'" \
		"threadmind: run 'git threadmind resolve $1', then commit again (--no-verify commits anyway)" \
		>expect &&
	test_cmp expect err
}

test_expect_success 'setup: a store, a thread, the hooks (pre-commit among them)' '
	new_repo app &&
	(cd app && git threadmind init -q && git threadmind install -q &&
		git threadmind new Auth -q >/dev/null &&
		git add -A && git commit -q -m store) &&
	test -x app/.git/hooks/pre-commit &&
	test_cmp "$TEST_SRC/hooks/pre-commit" app/.git/hooks/pre-commit
'

test_expect_success 'a staged thread file with markers in its frontmatter is refused' '
	(cd app && marked $T && git add $T &&
		git rev-parse HEAD >../before &&
		test_exit_code 1 git commit -q -m markers) 2>err &&
	refused_for "$T" &&
	git -C app rev-parse HEAD >after &&
	test_cmp before after
'

test_expect_success 'git commit -a and a commit of the path alone are refused too' '
	(cd app && git reset -q &&
		test_exit_code 1 git commit -q -a -m all) 2>err &&
	refused_for "$T" &&
	(cd app && test_exit_code 1 git commit -q -m only -- $T) 2>err &&
	refused_for "$T" &&
	git -C app rev-parse HEAD >after &&
	test_cmp before after
'

test_expect_success 'a commit of something else goes through; --no-verify commits anyway' '
	(cd app && echo more >>README && git add README &&
		git commit -q -m readme) 2>err &&
	test_must_fail test -s err &&
	(cd app && git add $T && git commit -q --no-verify -m forced) &&
	git -C app show --stat HEAD | grep "auth.md"
'

test_expect_success 'markers already in HEAD never block a commit that leaves them as they are' '
	(cd app && echo again >>README && git commit -q -a -m again) 2>err &&
	test_must_fail test -s err &&
	(cd app && git threadmind new Other -q >/dev/null && git add -A &&
		git commit -q -m other) 2>err &&
	test_must_fail test -s err
'

test_expect_success 'a file fixed, or deleted, commits' '
	(cd app && git show HEAD~3:$T >$T && git add $T &&
		git commit -q -m fixed) 2>err &&
	test_must_fail test -s err &&
	G=.threadmind/threads/app/gone.md &&
	(cd app && git threadmind new Gone -q >/dev/null && marked $G &&
		git add -A && git commit -q --no-verify -m m2 &&
		git rm -q $G && git commit -q -m gone) 2>err &&
	test_must_fail test -s err
'

test_expect_success 'markers in a body are text: no refusal' '
	(cd app && git threadmind new Notes -q >/dev/null &&
		printf "## State\n<<<<<<< ours\n- a\n=======\n- b\n>>>>>>> theirs\n" \
			>>.threadmind/threads/app/notes.md &&
		git add -A && git commit -q -m body) 2>err &&
	test_must_fail test -s err
'

test_expect_success 'a project file with markers is refused' '
	(cd app && python3 -c "
import sys
p = \"$P\"
s = open(p).read()
open(p, \"w\").write(s.replace(\"\\n\", \"\\n<<<<<<< ours\\n=======\\n>>>>>>> theirs\\n\", 1))
" && git add $P && test_exit_code 1 git commit -q -m project) 2>err &&
	refused_for "$P" &&
	(cd app && git checkout -q HEAD -- $P)
'

test_expect_success 'several files: named on one line, the second says each' '
	(cd app && git threadmind new Two -q >/dev/null &&
		marked .threadmind/threads/app/two.md &&
		marked .threadmind/threads/app/notes.md && git add -A &&
		test_exit_code 1 git commit -q -m two) 2>err &&
	cat >expect <<-\EOF &&
	threadmind: commit refused: conflict markers in the frontmatter of '\''.threadmind/threads/app/notes.md'\'' '\''.threadmind/threads/app/two.md'\''
	threadmind: run '\''git threadmind resolve <file>'\'' for each, then commit again (--no-verify commits anyway)
	EOF
	test_cmp expect err &&
	(cd app && git reset -q --hard)
'

test_expect_success 'a merge made without the driver: the conflicted file cannot be added and committed (r05)' '
	(cd app && git config --remove-section merge.threadmind &&
		git checkout -q -b side && git threadmind -q set auth title=Side &&
		git commit -q -a -m side && git checkout -q main &&
		git threadmind -q set auth title=Main && git commit -q -a -m main &&
		test_must_fail git merge -q side >/dev/null 2>&1 &&
		grep "^<<<<<<< " $T &&
		git add $T && test_exit_code 1 git commit -q --no-edit) 2>err &&
	refused_for "$T" &&
	(cd app && git merge --abort && git threadmind install -q)
'

test_expect_success 'off like the other hooks: THREADMIND_HOOKS=0' '
	(cd app && marked $T && git add $T &&
		THREADMIND_HOOKS=0 git commit -q -m off) 2>err &&
	test_must_fail test -s err &&
	(cd app && git reset -q --hard HEAD~1)
'

test_expect_success 'a user pre-commit hook gets our block: both run, the refusal stops the commit' '
	(cd app && git threadmind uninstall -q &&
		printf "#!/bin/sh\necho mine >>\"\$(git rev-parse --git-dir)/mine.log\"\nexit 0\n" \
			>.git/hooks/pre-commit &&
		chmod +x .git/hooks/pre-commit && cp .git/hooks/pre-commit ../own &&
		git threadmind install -q &&
		grep "^# >>> threadmind >>>" .git/hooks/pre-commit &&
		marked $T && git add $T &&
		test_exit_code 1 git commit -q -m block) 2>err &&
	refused_for "$T" &&
	(cd app && git reset -q --hard && echo x >>README &&
		git commit -q -a -m ok) 2>err &&
	test_must_fail test -s err &&
	test "$(wc -l <app/.git/mine.log)" = 2 &&
	(cd app && git threadmind uninstall -q) &&
	test_cmp own app/.git/hooks/pre-commit
'

test_expect_success 'a user hook failing on its own still fails; ours adds nothing then' '
	(cd app && git threadmind install -q &&
		printf "#!/bin/sh\nexit 3\n" >.git/hooks/pre-commit &&
		git threadmind install -q && echo y >>README &&
		test_must_fail git commit -q -a -m fails) 2>err &&
	test_must_fail grep threadmind err
'

test_done
