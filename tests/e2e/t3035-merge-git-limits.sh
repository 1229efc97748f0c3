#!/bin/sh
# Where git does not run the merge driver (issue 19, reproduction 08), and
# the ways out docs/merge.md gives: an octopus merge (git threadmind
# resolve after it, or one branch at a time), `-X ours|theirs` (not
# passed to drivers), a bare repository's `git merge-tree` (the driver's
# config and info/attributes), and a thread renamed on both sides (what
# resolve says).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

# two_branches DIR: x19_repo DIR, the thread committed on main, branches
# b1 and b2 each adding an item and bumping updatedAt, and main a commit
# of its own (so that no merge is a fast-forward).
two_branches() {
	x19_repo "$1" &&
	(cd "$1" && mkdir -p .threadmind/threads/app &&
	{ x19_fm && printf "## Decisions\n- d1\n\n## State\nWIP.\n"; } >$X19 &&
	git add -A && git commit -q -m base &&
	for i in 1 2; do
		git checkout -q -b b$i main &&
		sed "s/^- d1\$/- d1\n- from b$i/; s/^updatedAt: .*/updatedAt: 2026-04-1${i}T00:00:00.000Z/" $X19 >x.new &&
		mv x.new $X19 && git commit -q -am b$i || return 1
	done &&
	git checkout -q main && echo other >other.txt && git add other.txt &&
	git commit -q -m other)
}

# merged_ok FILE: the thread with both branches' items, b2's updatedAt.
merged_ok() {
	grep -x -- "- from b1" "$1" && grep -x -- "- from b2" "$1" &&
	test "$(fm "$1" updatedAt)" = 2026-04-12T00:00:00.000Z &&
	no_markers_in_header "$1" && ! grep "^<<<<<<<" "$1"
}

test_expect_success 'octopus: git merges each file without the driver, and stops' '
	two_branches oct &&
	(cd oct && test_must_fail git merge --no-edit b1 b2 >../oct-out 2>&1 &&
	git ls-files -u >../oct-u && test "$(wc -l <../oct-u)" = 3 &&
	grep "^<<<<<<<" $X19)
'

test_expect_success 'octopus: git threadmind resolve merges the file; the commit has three parents' '
	(cd oct && git threadmind resolve >../oct-resolve &&
	grep "^resolved .*x.md" ../oct-resolve &&
	test -z "$(git ls-files -u)" && merged_ok $X19 &&
	git commit -q --no-edit &&
	test "$(git rev-list --parents -1 HEAD | wc -w)" = 4)
'

test_expect_success 'octopus: merging the branches one at a time is clean' '
	two_branches seq &&
	(cd seq && git merge -q --no-edit b1 && git merge -q --no-edit b2 &&
	merged_ok $X19)
'

test_expect_success '-X theirs is not passed to the driver: the conflict stays, git checkout --theirs takes theirs' '
	x19_repo xt &&
	(cd xt && mkdir -p .threadmind/threads/app &&
	{ x19_fm && printf "## State\nWIP.\n"; } >$X19 && git add -A &&
	git commit -q -m base && git checkout -q -b x1 &&
	sed "s/^WIP.\$/Theirs WIP./" $X19 >x.new && mv x.new $X19 &&
	git commit -q -am x1 && git checkout -q main &&
	sed "s/^WIP.\$/Ours WIP./" $X19 >x.new && mv x.new $X19 &&
	git commit -q -am x2 &&
	test_must_fail git merge -q -X theirs --no-edit x1 &&
	grep "^<<<<<<<" $X19 &&
	git checkout --theirs -- $X19 && git add $X19 &&
	grep -x "Theirs WIP." $X19 && ! grep "^<<<<<<<" $X19 &&
	git commit -q --no-edit)
'

# The two lines docs/merge.md gives for a bare repository (a server).
bare_setup() {
	git -C "$1" config merge.threadmind.name "threadmind thread and project files" &&
	git -C "$1" config merge.threadmind.driver "git-threadmind-merge %O %A %B %L %P" &&
	mkdir -p "$1/info" &&
	printf "%s\n" ".threadmind/threads/**/*.md merge=threadmind" \
		".threadmind/projects/*.json merge=threadmind" >>"$1/info/attributes"
}

test_expect_success 'a bare repository: git merge-tree conflicts without the driver' '
	two_branches src && git clone -q --bare src srv.git &&
	test_must_fail git -C srv.git merge-tree --write-tree b1 b2 >mt-out &&
	grep "CONFLICT (content)" mt-out
'

test_expect_success 'a bare repository: with the driver config and info/attributes, git merge-tree merges it' '
	bare_setup srv.git &&
	tree=$(git -C srv.git merge-tree --write-tree b1 b2) &&
	git -C srv.git show "$tree:$X19" >mt-merged &&
	merged_ok mt-merged
'

test_expect_success 'renamed differently on both sides: resolve says so, and what to do' '
	x19_repo rr &&
	(cd rr && D=.threadmind/threads/app && mkdir -p $D &&
	{ x19_fm && printf "## Decisions\n- d1\n"; } >$D/x.md &&
	git add -A && git commit -q -m base && git checkout -q -b side &&
	git mv $D/x.md $D/y.md && git commit -q -m y && git checkout -q main &&
	git mv $D/x.md $D/z.md && git commit -q -m z &&
	test_must_fail git merge -q --no-edit side &&
	test_exit_code 1 git threadmind resolve >../rr-out 2>&1) &&
	cat >rr-expect <<-\EOF &&
	skipped .threadmind/threads/app/x.md: renamed on both sides: to '"'"'.threadmind/threads/app/z.md'"'"' in HEAD and to '"'"'.threadmind/threads/app/y.md'"'"' on the other side: keep one name ('"'"'git add'"'"' it, '"'"'git rm'"'"' the other) and '"'"'git rm'"'"' '"'"'.threadmind/threads/app/x.md'"'"'
	skipped .threadmind/threads/app/y.md: '"'"'.threadmind/threads/app/x.md'"'"' was renamed to '"'"'.threadmind/threads/app/z.md'"'"' in HEAD and to '"'"'.threadmind/threads/app/y.md'"'"' on the other side: keep one name ('"'"'git add'"'"' it, '"'"'git rm'"'"' the other) and '"'"'git rm'"'"' '"'"'.threadmind/threads/app/x.md'"'"'
	skipped .threadmind/threads/app/z.md: '"'"'.threadmind/threads/app/x.md'"'"' was renamed to '"'"'.threadmind/threads/app/z.md'"'"' in HEAD and to '"'"'.threadmind/threads/app/y.md'"'"' on the other side: keep one name ('"'"'git add'"'"' it, '"'"'git rm'"'"' the other) and '"'"'git rm'"'"' '"'"'.threadmind/threads/app/x.md'"'"'
	EOF
	test_cmp rr-expect rr-out &&
	(cd rr && git add .threadmind/threads/app/z.md &&
	git rm -q .threadmind/threads/app/y.md .threadmind/threads/app/x.md &&
	git commit -q --no-edit && git threadmind show z >../rr-show &&
	grep -x -- "- d1" ../rr-show)
'

test_done
