#!/bin/sh
# The hooks' thread index ($GIT_COMMON_DIR/threadmind/paths-*.index) with
# the real git: post-commit and post-checkout give the answers of a read of
# every file after edits in place (same size, mtime put back), new and
# removed files, a deleted or damaged index; the index never lands in the
# work tree.
. "$(dirname "$0")/test-lib.sh"

# inplace FILE OLD NEW: replace OLD by NEW (same length) in FILE without
# truncating it, then put its mtime back.
inplace() {
	python3 -c '
import os, sys
f, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
assert len(old) == len(new)
st = os.stat(f)
with open(f, "r+b") as h:
    d = h.read()
    assert old in d
    h.seek(0)
    h.write(d.replace(old, new, 1))
os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))' "$@"
}

index_files() {
	ls "$(git -C app rev-parse --path-format=absolute --git-common-dir)"/threadmind/paths-*.index
}

test_expect_success 'setup: threads with and without paths, the hooks' '
	new_repo app &&
	(cd app && mkdir -p src/a src/b && echo a >src/a/f && echo b >src/b/f &&
		git add . && git commit -q -m code &&
		git threadmind init >/dev/null 2>&1 && git threadmind install >/dev/null &&
		git threadmind new Alpha --paths src/a >/dev/null 2>&1 &&
		git threadmind new Beta --paths src/b >/dev/null 2>&1 &&
		git threadmind new Delta >/dev/null 2>&1 &&
		for t in alpha beta; do
			echo "- $t" | git threadmind summary -q $t -F - || exit 1
		done &&
		git add .threadmind && git commit -q -m threads) 2>err &&
	test ! -s err
'

test_expect_success 'post-commit flags by the index, kept out of the work tree' '
	(cd app && echo a2 >>src/a/f && git commit -q -am "change a") 2>err &&
	echo "threadmind: summaries may be outdated: alpha (git threadmind stale)" >expect &&
	test_cmp expect err &&
	test "$(index_files | wc -l)" -eq 1 &&
	test -z "$(git -C app status --porcelain)"
'

test_expect_success 'an edit in place of the same size, mtime put back, is seen' '
	inplace app/.threadmind/threads/app/alpha.md "\"src/a\"" "\"src/b\"" &&
	(cd app && git commit -q -am "alpha follows b") 2>err &&
	test ! -s err &&
	(cd app && echo b2 >>src/b/f && git commit -q -am "change b") 2>err &&
	echo "threadmind: summaries may be outdated: alpha beta (git threadmind stale)" >expect &&
	test_cmp expect err
'

test_expect_success 'new and removed thread files are seen' '
	sed "s/Beta/Gamma/; s/^id: beta/id: gamma/" app/.threadmind/threads/app/beta.md \
		>app/.threadmind/threads/app/gamma.md &&
	rm app/.threadmind/threads/app/beta.md &&
	(cd app && git add -A .threadmind && git commit -q -m "gamma for beta") 2>err &&
	test ! -s err &&
	(cd app && echo b3 >>src/b/f && git commit -q -am "change b again") 2>err &&
	echo "threadmind: summaries may be outdated: alpha gamma (git threadmind stale)" >expect &&
	test_cmp expect err
'

test_expect_success 'a deleted or damaged index changes no answer' '
	rm "$(index_files)" &&
	(cd app && echo b4 >>src/b/f && git commit -q -am b4) 2>err &&
	test_cmp expect err &&
	test "$(index_files | wc -l)" -eq 1 &&
	head -c 100 /dev/urandom >"$(index_files)" &&
	(cd app && echo b5 >>src/b/f && git commit -q -am b5) 2>err &&
	test_cmp expect err &&
	f=$(index_files) && head -c 60 "$f" >"$f.cut" && mv "$f.cut" "$f" &&
	(cd app && echo b6 >>src/b/f && git commit -q -am b6) 2>err &&
	test_cmp expect err &&
	(cd app && git threadmind hook post-commit) 2>err &&
	test_cmp expect err
'

test_expect_success 'post-checkout falls back on the branch field through the index' '
	(cd app && git threadmind hook post-checkout x x 1) 2>err &&
	inplace app/.threadmind/threads/app/delta.md "branch: main" "branch: topi" &&
	(cd app && git checkout -q -b topi) 2>err &&
	echo "threadmind: active thread is now delta (Delta)" >expect &&
	test_cmp expect err
'

test_expect_success 'a linked worktree has an index of its own' '
	(cd app && git worktree add -q ../wt -b wtb) 2>/dev/null &&
	(cd wt && echo a9 >>src/a/f && git commit -q -am "a in wt") 2>err &&
	test "$(index_files | wc -l)" -eq 2 &&
	test -z "$(git -C wt status --porcelain)"
'

test_expect_success 'many threads: an edit in place is seen through the lstat threads, and with core.preloadIndex false' '
	d=app/.threadmind/threads/app &&
	python3 -c "
import re, sys
d = sys.argv[1]
t = open(d + \"/alpha.md\").read()
for i in range(1200):
    m = re.sub(\"(?m)^id: alpha\", \"id: m%d\" % i, t)
    open(\"%s/m%d.md\" % (d, i), \"w\").write(re.sub(\"(?m)^title: .*\", \"title: M%d\" % i, m))
" $d &&
	(cd app && git add -A .threadmind && git commit -q -m "1,200 threads") 2>err &&
	test ! -s err &&
	(cd app && echo b7 >>src/b/f && git commit -q -am b7) 2>err &&
	grep "outdated: alpha gamma m0 m1 m10 m100 m1000 m1001 m1002 m1003 …" err &&
	(cd app && git -c core.preloadIndex=false threadmind hook post-commit) 2>err2 &&
	test_cmp err err2 &&
	sleep 1 &&
	(cd app && git threadmind hook post-commit) 2>/dev/null &&
	inplace $d/m777.md "\"src/b\"" "\"src/a\"" &&
	(cd app && echo a8 >>src/a/f && git add src/a/f && git commit -q -m a8) 2>err &&
	echo "threadmind: summaries may be outdated: m777 (git threadmind stale)" >expect &&
	test_cmp expect err &&
	inplace $d/m778.md "\"src/b\"" "\"src/a\"" &&
	(cd app && git -c core.preloadIndex=false threadmind hook post-commit) 2>err &&
	echo "threadmind: summaries may be outdated: m777 m778 (git threadmind stale)" >expect &&
	test_cmp expect err
'

test_done
