#!/bin/sh
# The merge driver never writes a clean thread or project file over the
# 1 MiB limit every read refuses (issue 11, docs/merge.md "Limits"): two
# branches that each add 600 KB to a different section of one thread
# would merge cleanly into 1.2 MB; the driver leaves the line merge of the
# whole file instead, exits 1, and git stops on the conflict; `resolve`
# applies the same rule (one policy in lib/merge/, issue 23).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

# grow FILE SECTION TAG KB: add KB lines of about 1 KB under "## SECTION".
grow() {
	python3 - "$@" <<-\PY
	import sys
	f, section, tag, kb = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
	text = open(f).read()
	head = "## %s\n" % section
	lines = "".join("- %s %d %s\n" % (tag, i, "x" * 1000) for i in range(kb))
	open(f, "w").write(text.replace(head, head + lines, 1))
	PY
}

# branches DIR KB: main and feat each add KB lines to their own section
# (and bump updatedAt), from a common thread file.
branches() {
	base_repo "$1" &&
	(cd "$1" && git checkout -q -b feat &&
		grow $THREAD Decisions theirs "$2" &&
		sed "s/^updatedAt: .*/updatedAt: 2026-04-16T10:00:00.000Z/" \
			$THREAD >t && mv t $THREAD &&
		git commit -q -am feat &&
		git checkout -q main &&
		grow $THREAD State ours "$2" &&
		sed "s/^updatedAt: .*/updatedAt: 2026-04-16T11:00:00.000Z/" \
			$THREAD >t && mv t $THREAD &&
		git commit -q -am main)
}

test_expect_success 'under the limit the two sides merge cleanly' '
	branches small 400 &&
	(cd small && git merge -q --no-edit feat 2>../err) &&
	test ! -s err &&
	size=$(wc -c <small/$THREAD) && echo "$size bytes" &&
	test "$size" -le 1048576 && test "$size" -gt 800000 &&
	grep -c "^- ours " small/$THREAD >n && test "$(cat n)" = 400 &&
	grep -c "^- theirs " small/$THREAD >n && test "$(cat n)" = 400 &&
	(cd small && git threadmind show auth-ui >/dev/null)
'

test_expect_success 'over it, git stops on a conflict the driver names' '
	branches big 600 &&
	wc -c <big/$THREAD >ours.size && test "$(cat ours.size)" -lt 1048576 &&
	(cd big && test_must_fail git merge --no-edit feat >../out 2>../err) &&
	cat out err &&
	grep "CONFLICT (content): Merge conflict in $THREAD" out &&
	grep "git-threadmind-merge: $THREAD: the merged file would be [0-9]* bytes, over the 1 MiB limit" err &&
	git -C big ls-files -u >unmerged && test "$(wc -l <unmerged)" = 3
'

test_expect_success 'the file left is the line merge: both sides, markers' '
	grep -c "^- ours " big/$THREAD >n && test "$(cat n)" = 600 &&
	grep -c "^- theirs " big/$THREAD >n && test "$(cat n)" = 600 &&
	grep "^<<<<<<< " big/$THREAD && grep "^>>>>>>> " big/$THREAD &&
	(cd big && git show :2:$THREAD >a && git show :1:$THREAD >o &&
		git show :3:$THREAD >t &&
		git merge-file -p -L ours -L base -L theirs a o t >../expect;
		test $? -eq 1) &&
	test_cmp expect big/$THREAD
'

test_expect_success 'resolve applies the same rule: the line merge, in conflict; trimmed, it commits' '
	(cd big && git threadmind resolve >../out 2>&1; echo "rc=$?" >>../out) &&
	cat out &&
	grep "^conflicts left in $THREAD" out &&
	grep "the merged file would be [0-9]* bytes, over the 1 MiB limit of threadmind.s reads: left as a line merge, in conflict" out &&
	grep "^rc=1" out &&
	test_cmp expect big/$THREAD &&
	git -C big ls-files -u >unmerged && test "$(wc -l <unmerged)" = 3 &&
	(cd big && git show :2:$THREAD >$THREAD &&
		git add $THREAD && git commit -q --no-edit &&
		git threadmind show auth-ui >/dev/null)
'

test_expect_success 'files that are not thread or project files have no limit' '
	python3 -c "print(\"a\n\" * 600000)" >o.txt &&
	python3 -c "print(\"a\n\" * 600000 + \"ours\n\")" >a.txt &&
	python3 -c "print(\"theirs\n\" + \"a\n\" * 600000)" >b.txt &&
	git-threadmind-merge o.txt a.txt b.txt 7 docs/notes.txt &&
	test "$(wc -c <a.txt)" -gt 1048576
'

test_expect_success 'THREADMIND_MERGE=0 stays a plain line merge' '
	branches plain 600 &&
	(cd plain && git show HEAD:$THREAD >a && git show feat:$THREAD >b &&
		git show HEAD~1:$THREAD >o &&
		test_exit_code 1 env THREADMIND_MERGE=0 git-threadmind-merge \
			o a b 7 $THREAD 2>../err) &&
	! grep "1 MiB" err
'

test_done
