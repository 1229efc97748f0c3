#!/bin/sh
# A first run takes a thread file's committed version from the work tree's
# copy, already read and parsed, when git's index vouches that the two are
# the same bytes (lib/stale/stale_worktree.c); when the copy has changed
# since, the version is the blob's.  The answers are those the engine gives
# reading every blob (GIT_INDEX_FILE set: the index is then not taken as
# vouching for anything).
. "$(dirname "$0")/test-lib.sh"

# none_stale: `stale --json` from a fresh index, as it is and with the
# blobs read, must agree, and find no stale thread.
none_stale() {
	rm -rf .git/threadmind &&
	git threadmind stale --json >out.vouched &&
	rm -rf .git/threadmind &&
	GIT_INDEX_FILE=.git/index git threadmind stale --json >out.blobs &&
	test_cmp out.blobs out.vouched &&
	cp out.vouched out &&
	json_is "len(d[\"stale\"]) == 0"
}

# wt_file: the thread's file.
wt_file() {
	ls .threadmind/threads/*/wt.md
}

test_expect_success 'setup: a thread reviewed at P2, its file older than the index' '
	git init -q app && cd app &&
	printf "out*\n" >>.git/info/exclude &&
	change base src/f0.c src/f1.c &&
	git threadmind init >/dev/null &&
	change w1 src/f0.c && git rev-parse HEAD >../p1 &&
	change w2 src/f0.c && git rev-parse HEAD >../p2 &&
	git threadmind new Wt --paths src/f0.c >/dev/null &&
	echo "- w" | git threadmind summary -q wt -F - &&
	f=$(ls .threadmind/threads/*/wt.md) &&
	sed -i "s/^commit: .*/commit: $(cat ../p2)/" $f &&
	touch -d "2020-01-01 00:00:00" $f &&
	git add -A && test_tick && git commit -q -m store &&
	test -z "$(git status --porcelain)"
'

test_expect_success 'clean: the same answer, not stale' '
	cd app &&
	none_stale
'

test_expect_success 'the work tree now reviews P1: HEAD still holds P2, which covers P2' '
	cd app &&
	sed -i "s/^commit: .*/commit: $(cat ../p1)/" "$(wt_file)" &&
	none_stale
'

test_expect_success 'the old mtime put back on the changed file: still the blob' '
	cd app &&
	touch -d "2020-01-01 00:00:00" "$(wt_file)" &&
	none_stale
'

test_done
