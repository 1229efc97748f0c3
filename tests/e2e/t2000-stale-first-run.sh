#!/bin/sh
# The first run of staleness (no cache: a fresh clone, CI) costs the
# commits that matter (issue 20): the index describes only the commits some
# review point does not reach, a review point older than that range
# extends it (a thread committed later, a teammate's by a merge), the
# answers stay `git log <commit>..HEAD -- <paths>`'s; git-style progress on
# a terminal only, never into a file, never from the hooks.
. "$(dirname "$0")/test-lib.sh"

# set_commit ID HEX: point thread ID's `commit` at HEX (in the worktree).
set_commit() {
	sed "s/^commit: .*/commit: $2/" .threadmind/threads/app/$1.md >.tmp &&
	mv .tmp .threadmind/threads/app/$1.md
}

# like_git: `stale --json` gives, for every thread, what a `git log` loop
# says (newest commit, no other stale thread).
like_git() {
	git threadmind stale --json >out &&
	python3 - <<-\EOF
	import json, os, re, subprocess
	def git(*a):
	    return subprocess.run(("git",) + a, capture_output=True, text=True,
	                          check=True).stdout
	got = {e["id"]: e for e in json.load(open("out"))["stale"]}
	tdir = ".threadmind/threads/app/"
	want = {}
	for name in sorted(os.listdir(tdir)):
	    text = open(tdir + name).read()
	    base = re.search(r"^commit: (\S+)$", text, re.M)
	    paths = re.search(r"^paths: (.*)$", text, re.M)
	    if not base or not paths:
	        continue
	    log = git("log", "--format=%H", base.group(1) + "..HEAD", "--",
	              *json.loads(paths.group(1))).split()
	    log = [c for c in log
	           if tdir + name not in git("diff-tree", "-r", "--name-only",
	                                     "--no-commit-id", c + "^", c)]
	    if log:
	        want[name[:-3]] = log[0]
	assert {k: v["newestCommit"] for k, v in got.items()} == want, (got, want)
	print(len(want))
	EOF
}

# indexed: the number of commits the index describes (stubs, the parents
# it knows by their id only, left out), read from its layer files.
indexed() {
	python3 - <<-\EOF
	import glob, struct
	pad = lambda n: (n + 7) & ~7
	done = set()
	for f in glob.glob(".git/threadmind/commits/layer-*.idx"):
	    d = open(f, "rb").read()
	    n, npar = struct.unpack_from("<2I", d, 24)
	    at = 80 + pad(n * 20) + pad(n * 8) + pad((n + 1) * 4) + pad(npar * 4)
	    s = struct.unpack_from("<%dI" % (n + 1), d, at)
	    done |= {d[80 + 20 * i:100 + 20 * i] for i in range(n) if s[i + 1] > s[i]}
	print(len(done))
	EOF
}

test_expect_success 'setup: 40 commits, then a store whose threads review the last ones' '
	git init -q app && cd app &&
	printf "out\nerr\n.tmp\ntyped\n" >>.git/info/exclude &&
	for i in $(seq 1 40); do
		change "c$i" src/f$((i % 4)).c || return 1
	done &&
	git threadmind init >/dev/null &&
	git threadmind new One --paths src/f1.c >/dev/null &&
	git threadmind new Two --paths src >/dev/null &&
	echo "- one" | git threadmind summary -q one -F - &&
	echo "- two" | git threadmind summary -q two -F - &&
	set_commit one $(git rev-parse HEAD~3) &&
	set_commit two $(git rev-parse HEAD~1) &&
	git add -A && test_tick && git commit -q -m store &&
	change "c41" src/f1.c
'

test_expect_success 'a first run describes the range only: HEAD minus what every review point reaches' '
	cd app &&
	rm -rf .git/threadmind &&
	test "$(like_git)" = 2 &&
	# HEAD~3..HEAD: 3 commits, the store and c41; nothing older
	test "$(indexed)" = "$(git rev-list --count HEAD~5..HEAD)" &&
	test "$(git rev-list --count HEAD~5..HEAD)" = 5
'

test_expect_success 'a review point older than the range extends the index, kept, git log answers' '
	cd app &&
	old=$(git rev-parse HEAD~30) &&
	git threadmind new Old --paths src/f2.c >/dev/null &&
	echo "- old" | git threadmind summary -q old -F - &&
	set_commit old $old &&
	git add -A && test_tick && git commit -q -m "thread reviewed long ago" &&
	test "$(like_git)" = 3 &&
	test "$(indexed)" = "$(git rev-list --count HEAD ^$old)" &&
	rm -f .git/threadmind/stale.cache &&
	test "$(like_git)" = 3 &&
	test "$(indexed)" = "$(git rev-list --count HEAD ^$old)"
'

test_expect_success 'a teammate reviewed far back: the merge that brings it extends the index' '
	cd app &&
	mate=$(git rev-parse HEAD~36) &&
	git checkout -q -b mate &&
	change "m1" src/f3.c &&
	git threadmind new Mate --paths src/f3.c >/dev/null &&
	echo "- mate" | git threadmind summary -q mate -F - &&
	set_commit mate $mate &&
	git add -A && test_tick && git commit -q -m "mate reviews" &&
	git checkout -q main &&
	change "c42" src/f1.c &&
	test_tick && git merge -q --no-edit mate >/dev/null &&
	test -z "$(git status --porcelain)" &&
	test "$(like_git)" = 4 &&
	test "$(indexed)" = "$(git rev-list --count HEAD ^$mate)" &&
	echo $mate >../mate
'

test_expect_success 'progress: git-style on a terminal, nothing into a file or from a hook' '
	cd app &&
	rm -rf .git/threadmind &&
	n=$(git rev-list --count HEAD ^$(cat ../mate)) &&
	GIT_PROGRESS_DELAY=0 script -qec "git threadmind status" /dev/null >typed &&
	grep -a "Indexing history: 100% ($n/$n), done\." typed &&
	! grep -a "threadmind: indexing" typed &&
	rm -rf .git/threadmind &&
	GIT_PROGRESS_DELAY=0 git threadmind status >out 2>err &&
	! grep -i "indexing" err out &&
	rm -rf .git/threadmind &&
	GIT_PROGRESS_DELAY=0 script -qec "git threadmind -q status" /dev/null >typed &&
	! grep -ai "indexing" typed &&
	rm -rf .git/threadmind &&
	# -- the hooks: no progress, even on a terminal
	git threadmind install >/dev/null 2>&1 &&
	echo x >>src/f0.c && git add src/f0.c && test_tick &&
	GIT_PROGRESS_DELAY=0 script -qec "git commit -q -m hooked" /dev/null >typed &&
	! grep -ai "indexing" typed &&
	test "$(git log -1 --format=%s)" = hooked
'

test_expect_success 'an older version reviewed far back costs nothing: the range is the newer review point'"'"'s' '
	mkdir v && cd v && git init -q app && cd app &&
	for i in $(seq 1 30); do
		change "c$i" src/f$((i % 3)).c || return 1
	done &&
	git threadmind init >/dev/null &&
	git threadmind new Ver --paths src/f1.c >/dev/null &&
	echo "- ver" | git threadmind summary -q ver -F - &&
	set_commit ver $(git rev-parse HEAD~25) &&
	git add -A && test_tick && git commit -q -m "store, reviewed long ago" &&
	change "c31" src/f1.c && change "c32" src/f2.c &&
	new=$(git rev-parse HEAD) &&
	set_commit ver $new &&
	git add -A && test_tick && git commit -q -m "reviewed again" &&
	change "c33" src/f1.c &&
	rm -rf .git/threadmind &&
	test "$(like_git)" = 1 &&
	# the store commit, c31 and c32 are reachable from the new review
	# point: only "reviewed again" and c33 are described
	test "$(indexed)" = "$(git rev-list --count HEAD ^$new)" &&
	test "$(git rev-list --count HEAD ^$new)" = 2
'

test_done
