#!/bin/sh
# git threadmind install / uninstall: merge driver config, attributes, hooks.
. "$(dirname "$0")/test-lib.sh"

# snapshot DIR: every file under .git/hooks (and core.hooksPath folders),
# .threadmind/.gitattributes and the threadmind config, with modes.
snapshot() {
	(cd "$1" &&
		find .git/hooks githooks .threadmind/.gitattributes \
			-type f -exec ls -l {} \; 2>/dev/null |
			awk '{print $1, $NF}' | sort &&
		find .git/hooks githooks .threadmind/.gitattributes \
			-type f -exec cat {} \; 2>/dev/null &&
		git config --list --local | grep -i threadmind
	) || true
}

# a repository with a store and no sample hooks
tm_repo() {
	new_repo "$1" &&
	rm -rf "$1/.git/hooks" && mkdir "$1/.git/hooks" &&
	(cd "$1" && git threadmind init >/dev/null 2>&1 &&
		git add .threadmind && git commit -q -m store)
}

test_expect_success 'install writes the driver config, attributes, hooks' '
	tm_repo app &&
	cp app/.git/config config0 &&
	(cd app && git threadmind install) >out &&
	for h in post-checkout post-commit post-merge post-rewrite pre-commit; do
		test -x app/.git/hooks/$h &&
		test_cmp "$TEST_SRC/hooks/$h" app/.git/hooks/$h &&
		ls -l app/.git/hooks/$h | grep "^-rwxr-xr-x" &&
		grep "hook .$h.: create" out || return 1
	done &&
	git -C app config merge.threadmind.driver >driver &&
	grep "^if command -v git-threadmind-merge >/dev/null; then git-threadmind-merge %O %A %B %L %P; " driver &&
	grep "git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B; exit 1$" driver &&
	git -C app config merge.threadmind.name &&
	printf "threads/**/*.md merge=threadmind diff=markdown\nprojects/*.json merge=threadmind\n" >expect &&
	test_cmp expect app/.threadmind/.gitattributes &&
	(cd app && git check-attr diff merge -- .threadmind/threads/p/x.md \
		.threadmind/projects/app.json .threadmind/config.json) >attr &&
	grep "^.threadmind/threads/p/x.md: diff: markdown$" attr &&
	grep "^.threadmind/threads/p/x.md: merge: threadmind$" attr &&
	grep "app.json: diff: unspecified" attr &&
	grep "app.json: merge: threadmind" attr &&
	grep "app.json: merge: threadmind" attr &&
	grep "config.json: merge: unspecified" attr
'

test_expect_success 'install twice changes nothing' '
	snapshot app >before &&
	(cd app && git threadmind install) >out &&
	grep "already installed" out &&
	snapshot app >after &&
	test_cmp before after
'

test_expect_success 'uninstall removes the hooks and the config, keeps attributes' '
	(cd app && git threadmind uninstall) >out &&
	for h in post-checkout post-commit post-merge post-rewrite pre-commit; do
		test ! -e app/.git/hooks/$h || return 1
	done &&
	test_must_fail git -C app config merge.threadmind.driver &&
	test_must_fail git -C app config merge.threadmind.name &&
	test_cmp config0 app/.git/config &&
	test -f app/.threadmind/.gitattributes &&
	(cd app && git threadmind uninstall) >out &&
	grep "nothing to uninstall" out &&
	(cd app && git threadmind uninstall --attributes) &&
	test ! -e app/.threadmind/.gitattributes
'

test_expect_success 'git diff names the ## section of a thread in its hunk headers' '
	printf "## Decisions\n- d1\n\n## State\n- s1\n- s2\n- s3\n- s4\n- s5\n" >one &&
	sed "s/^- s5$/- s5 changed/" one >two &&
	(cd app && git threadmind install -q &&
		git threadmind summary -F ../one &&
		git add .threadmind && git commit -q -m one &&
		git threadmind summary -F ../two &&
		git diff -- .threadmind/threads >../diff &&
		git add .threadmind && git commit -q -m two &&
		git log -p -1 -- .threadmind/threads >../log) &&
	grep "^@@ -[0-9,]* +[0-9,]* @@ ## State$" diff &&
	grep "^@@ -[0-9,]* +[0-9,]* @@ ## State$" log &&
	grep "^+- s5 changed" log
'

test_expect_success 'install upgrades the line of earlier versions in place' '
	printf "# mine\n*.png binary\nthreads/**/*.md   merge=threadmind\nprojects/*.json merge=threadmind\n*.txt text\n" \
		>app/.threadmind/.gitattributes &&
	(cd app && git threadmind install) >out &&
	grep "attributes: add or upgrade the threadmind lines in" out &&
	printf "# mine\n*.png binary\nthreads/**/*.md merge=threadmind diff=markdown\nprojects/*.json merge=threadmind\n*.txt text\n" >expect &&
	test_cmp expect app/.threadmind/.gitattributes &&
	(cd app && git threadmind install) >out &&
	grep "already installed" out &&
	test_cmp expect app/.threadmind/.gitattributes &&
	(cd app && git threadmind uninstall --attributes -q) &&
	printf "# mine\n*.png binary\n*.txt text\n" >expect &&
	test_cmp expect app/.threadmind/.gitattributes &&
	printf "threads/**/*.md merge=threadmind\nprojects/*.json merge=threadmind\n" \
		>app/.threadmind/.gitattributes &&
	(cd app && git threadmind uninstall --attributes -q) &&
	test ! -e app/.threadmind/.gitattributes &&
	(cd app && git threadmind install -q)
'

test_expect_success 'a user hook keeps running and is restored byte for byte' '
	tm_repo user &&
	printf "#!/bin/sh\n# mine\necho \"user hook \$3\" >>\"\$(git rev-parse --git-dir)/../user.log\"\nexit 0" \
		>user/.git/hooks/post-checkout &&
	chmod 700 user/.git/hooks/post-checkout &&
	cp user/.git/hooks/post-checkout orig &&
	(cd user && git threadmind install) >out &&
	grep "add the threadmind block" out &&
	grep "^# >>> threadmind >>>$" user/.git/hooks/post-checkout &&
	(cd user && git checkout -q -b feat && git threadmind new Feature --switch >/dev/null 2>&1 &&
		git checkout main) 2>err &&
	grep "threadmind: active thread is now main" err &&
	grep "user hook 1" user/user.log &&
	(cd user && git threadmind install) >out &&
	grep "already installed" out &&
	(cd user && git threadmind uninstall) &&
	cmp orig user/.git/hooks/post-checkout &&
	ls -l user/.git/hooks/post-checkout | grep "^-rwx------" &&
	test ! -e user/.git/hooks/post-commit
'

test_expect_success 'a hook that is only a shebang plus our block is deleted' '
	printf "#!/bin/sh\n" >user/.git/hooks/post-merge &&
	chmod +x user/.git/hooks/post-merge &&
	(cd user && git threadmind install && git threadmind uninstall) &&
	test ! -e user/.git/hooks/post-merge
'

test_expect_success 'a python hook: the rest is installed, its line printed' '
	tm_repo py &&
	printf "#!/usr/bin/env python3\nprint(1)\n" >py/.git/hooks/post-commit &&
	chmod +x py/.git/hooks/post-commit &&
	cp py/.git/hooks/post-commit orig &&
	(cd py && git threadmind install) >out 2>err &&
	grep "^warning: hook .post-commit.: .*post-commit. is a python script, so threadmind cannot add its block; add this line to it:$" err &&
	grep "^    import subprocess, sys; subprocess.call(\[\"git-threadmind\", \"hook\", \"post-commit\"\] + sys.argv\[1:\])$" err &&
	cmp orig py/.git/hooks/post-commit &&
	test -x py/.git/hooks/post-merge &&
	test -x py/.git/hooks/post-checkout &&
	git -C py config merge.threadmind.driver &&
	(cd py && git threadmind install) >out 2>err &&
	grep "python script" err &&
	(cd py && git threadmind uninstall) >/dev/null 2>&1
'

test_expect_success 'a node hook gets a node line; an unknown one an instruction' '
	tm_repo js &&
	printf "#!/usr/bin/env node\n" >js/.git/hooks/post-merge &&
	printf "#!/usr/bin/ruby\n" >js/.git/hooks/post-rewrite &&
	chmod +x js/.git/hooks/post-merge js/.git/hooks/post-rewrite &&
	(cd js && git threadmind install) >out 2>err &&
	grep "^    require(\"child_process\").spawnSync(\"git-threadmind\", \[\"hook\", \"post-merge\", ...process.argv.slice(2)\], {stdio: \"inherit\"});$" err &&
	grep "^warning: hook .post-rewrite.: .* is not a shell script, so threadmind cannot add its block; add the call by hand:$" err &&
	grep "^    make it run .git-threadmind hook post-rewrite. with the hook.s arguments and its standard input, ignoring its exit status$" err &&
	test -x js/.git/hooks/post-checkout
'

test_expect_success 'a call added by hand is left alone' '
	printf "#!/usr/bin/env python3\n# runs git-threadmind hook post-commit\n" \
		>py/.git/hooks/post-commit &&
	cp py/.git/hooks/post-commit orig &&
	(cd py && git threadmind install) >out &&
	cmp orig py/.git/hooks/post-commit &&
	test -x py/.git/hooks/post-merge &&
	(cd py && git threadmind uninstall) >out 2>err &&
	grep "warning: hook .post-commit.*remove it by hand" err &&
	cmp orig py/.git/hooks/post-commit
'

test_expect_success 'core.hooksPath is honoured, relative to the worktree root' '
	tm_repo hp &&
	git -C hp config core.hooksPath githooks &&
	mkdir -p hp/sub &&
	(cd hp/sub && git threadmind install) >out &&
	test -x hp/githooks/post-checkout &&
	test ! -e hp/.git/hooks/post-checkout &&
	(cd hp && git checkout -q -b feat &&
		git threadmind new Feat --switch >/dev/null 2>&1 &&
		git checkout -q main) 2>err &&
	grep "active thread is now main" err &&
	(cd hp && git threadmind uninstall) &&
	test ! -e hp/githooks/post-checkout
'

test_expect_success '--manual writes nothing and prints every step' '
	tm_repo man &&
	printf "#!/bin/sh\necho mine\n" >man/.git/hooks/post-merge &&
	chmod +x man/.git/hooks/post-merge &&
	snapshot man >before &&
	(cd man && git threadmind install --manual) >steps &&
	snapshot man >after &&
	test_cmp before after &&
	grep "^git config merge.threadmind.driver .if command -v git-threadmind-merge >/dev/null; then git-threadmind-merge %O %A %B %L %P; .*; exit 1.$" steps &&
	grep "^git config merge.threadmind.name " steps &&
	grep "^cat >.*/.threadmind/.gitattributes. <<" steps &&
	for h in post-checkout post-commit post-rewrite; do
		grep "^chmod 755 .*/.git/hooks/$h.$" steps || return 1
	done &&
	grep "add the threadmind block to .*post-merge" steps &&
	(cd man && sh ../steps) &&
	(cd man && git threadmind install) >out &&
	grep "already installed" out &&
	(cd man && git threadmind uninstall --manual) >usteps &&
	grep "^git config --unset merge.threadmind.driver$" usteps &&
	grep "^rm .*/post-commit.$" usteps &&
	test -x man/.git/hooks/post-commit
'

test_expect_success 'install --global writes the global config' '
	tm_repo glob &&
	cp "$HOME/.gitconfig" gconfig0 &&
	(cd glob && git threadmind install --global) &&
	git config --global merge.threadmind.driver | grep "git-threadmind-merge %O %A %B %L %P; .*git merge-file" &&
	test_must_fail git -C glob config --local merge.threadmind.driver &&
	test -x glob/.git/hooks/post-commit &&
	(cd glob && git threadmind uninstall --global) &&
	test_must_fail git config --global merge.threadmind.driver &&
	test_cmp gconfig0 "$HOME/.gitconfig"
'

test_expect_success 'install --global outside a repository: the driver only' '
	mkdir -p nowhere &&
	(cd nowhere && GIT_CEILING_DIRECTORIES=$TEST_ROOT git threadmind install --global) &&
	git config --global merge.threadmind.driver | grep "git-threadmind-merge %O %A %B %L %P; .*git merge-file" &&
	(cd nowhere && GIT_CEILING_DIRECTORIES=$TEST_ROOT git threadmind uninstall --global) &&
	test_must_fail git config --global merge.threadmind.driver
'

test_expect_success 'install needs a git repository and a store' '
	(cd nowhere && GIT_CEILING_DIRECTORIES=$TEST_ROOT \
		test_exit_code 128 git threadmind install) 2>err &&
	grep "^fatal: not a git repository" err &&
	new_repo plain &&
	(cd plain && test_exit_code 128 git threadmind install) 2>err &&
	grep "^fatal: not a ThreadMind repository" err &&
	test ! -e plain/.git/hooks/post-commit
'

test_expect_success 'install and uninstall take no arguments' '
	(cd app && test_exit_code 129 git threadmind install now) 2>err &&
	grep "^usage: git threadmind install" err &&
	(cd app && test_exit_code 129 git threadmind uninstall -h) >out &&
	grep "^usage: git threadmind uninstall" out
'

test_expect_success 'doctor reports a missing or outdated hook, clean after install' '
	new_repo doc && (cd doc && git threadmind init -q) &&
	(cd doc && test_exit_code 1 git threadmind doctor) >out &&
	grep "^hooks: missing hook post-commit (.*/post-commit.); run .git threadmind install.$" out &&
	(cd doc && git threadmind install -q && git threadmind doctor) &&
	rm doc/.git/hooks/post-merge &&
	printf "#!/bin/sh\necho mine\n" >doc/.git/hooks/post-commit &&
	chmod +x doc/.git/hooks/post-commit &&
	(cd doc && test_exit_code 1 git threadmind doctor) >out &&
	grep "^hooks: missing hook post-merge " out &&
	grep "^hooks: threadmind is not called from hook post-commit (.*); run .git threadmind install.$" out &&
	test $(grep -c "^hooks:" out) = 2 &&
	printf "#!/usr/bin/env python3\nprint(1)\n" >doc/.git/hooks/post-commit &&
	chmod -x doc/.git/hooks/post-commit &&
	(cd doc && test_exit_code 1 git threadmind doctor) >out &&
	grep "^hooks: hook .post-commit.: .* is not executable.*by hand: git-threadmind hook post-commit" out &&
	chmod +x doc/.git/hooks/post-commit &&
	(cd doc && test_exit_code 1 git threadmind doctor) >out &&
	grep "^hooks: hook .post-commit.: .* is a python script, so threadmind cannot add its block; add this line to it: import subprocess" out &&
	! grep ":;" out
'

test_done
