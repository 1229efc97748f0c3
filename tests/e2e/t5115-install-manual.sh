#!/bin/sh
# install / uninstall --manual: the plan printed as shell commands that do
# exactly what install would do.
. "$(dirname "$0")/test-lib.sh"

# a repository with a store and no hooks folder
tm_repo() {
	new_repo "$1" &&
	rm -rf "$1/.git/hooks" &&
	(cd "$1" && git threadmind init >/dev/null 2>&1 &&
		git add .threadmind && git commit -q -m store)
}

test_expect_success 'paths and values are single-quoted for sh' '
	tm_repo "it'\''s" &&
	(cd "it'\''s" && git threadmind install --manual) >steps &&
	test ! -e "it'\''s/.git/hooks" &&
	top=$(cd "it'\''s" && pwd -P | sed "s/'\''/'\''\\\\'\'''\''/g") &&
	grep -Fx "mkdir -p '\''$top/.git/hooks'\''" steps &&
	grep -Fx "cat >'\''$top/.git/hooks/post-commit'\'' <<'\''THREADMIND_EOF'\''" steps &&
	grep -Fx "chmod 755 '\''$top/.git/hooks/post-commit'\''" steps &&
	grep -Fx "cat >'\''$top/.threadmind/.gitattributes'\'' <<'\''THREADMIND_EOF'\''" steps &&
	grep "^git config merge.threadmind.driver '\''if command -v git-threadmind-merge >/dev/null; then git-threadmind-merge %O %A %B %L %P; .*; exit 1'\''$" steps &&
	grep "^# hook '\''post-commit'\'': " steps &&
	(cd "it'\''s" && sh ../steps) &&
	test_cmp "$TEST_SRC/hooks/post-commit" "it'\''s/.git/hooks/post-commit" &&
	ls -l "it'\''s/.git/hooks/post-commit" | grep "^-rwxr-xr-x" &&
	(cd "it'\''s" && git threadmind install) >out &&
	grep "already installed" out
'

test_expect_success 'a done step is only a comment saying so' '
	(cd "it'\''s" && git threadmind install --manual) >steps &&
	! grep -v -e "^# already done: " -e "^\$" steps &&
	test $(grep -c "^# already done: " steps) -eq 8
'

test_expect_success 'a hook without a final line end is written with printf' '
	tm_repo noeol &&
	tm_repo twin &&
	mkdir noeol/.git/hooks twin/.git/hooks &&
	for r in noeol twin; do
		printf "#!/bin/sh\necho mine" >$r/.git/hooks/post-merge &&
		chmod +x $r/.git/hooks/post-merge || return 1
	done &&
	(cd noeol && git threadmind install --manual) >steps &&
	grep "^printf '\''%s'\'' '\''#!/bin/sh$" steps &&
	(cd noeol && sh ../steps) &&
	(cd twin && git threadmind install) &&
	test_cmp twin/.git/hooks/post-merge noeol/.git/hooks/post-merge &&
	(cd noeol && git threadmind install) >out &&
	grep "already installed" out
'

test_expect_success 'config steps: --global, --unset' '
	(cd twin && git threadmind install --global --manual) >steps &&
	grep "^git config --global merge.threadmind.driver '\''if command -v git-threadmind-merge >/dev/null; then git-threadmind-merge %O %A %B %L %P; .*; exit 1'\''$" steps &&
	(cd twin && git threadmind uninstall --manual) >steps &&
	grep -Fx "git config --unset merge.threadmind.driver" steps &&
	grep -Fx "git config --unset merge.threadmind.name" steps &&
	(cd twin && sh ../steps) &&
	test_must_fail git -C twin config merge.threadmind.driver
'

test_done
