#!/bin/sh
# The hooks (git threadmind hook …) driven by the real git: the active thread
# follows the branch, branchThreads, stale flags, post-merge, post-rewrite.
. "$(dirname "$0")/test-lib.sh"

# cfg FILE EXPR: print a Python expression over config.json's object `d`.
cfg() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

test_expect_success 'setup: a store, two branches, the hooks' '
	new_repo app &&
	(cd app && git threadmind init >/dev/null 2>&1 &&
		git threadmind install >/dev/null &&
		git add .threadmind && git commit -q -m store &&
		git checkout -q -b feat &&
		git threadmind new Auth UI --switch >/dev/null 2>&1 &&
		git add .threadmind && git commit -q -m auth) &&
	test "$(cfg app/.threadmind/config.json "d[\"activeThreadId\"]")" = auth-ui
'

test_expect_success 'switching branches back and forth switches the active thread' '
	(cd app && git checkout -q main) 2>err &&
	echo "threadmind: active thread is now main (Main)" >expect &&
	test_cmp expect err &&
	test "$(cfg app/.threadmind/config.json "d[\"activeThreadId\"]")" = main &&
	(cd app && git checkout -q feat) 2>err &&
	echo "threadmind: active thread is now auth-ui (Auth UI)" >expect &&
	test_cmp expect err &&
	test "$(cfg app/.threadmind/config.json "d[\"activeThreadId\"]")" = auth-ui &&
	test "$(cfg app/.threadmind/config.json "d[\"branchThreads\"][\"app\"][\"feat\"]")" = auth-ui &&
	(cd app && git checkout -q main && git checkout -q feat) 2>err &&
	test "$(wc -l <err)" -eq 2
'

test_expect_success 'a checkout that changes nothing says nothing' '
	(cd app && git checkout -q -b feat2 && git checkout -q feat) 2>err &&
	test ! -s err
'

test_expect_success 'a new branch gets the thread whose branch field names it' '
	(cd app && git checkout -q -b topic &&
		git threadmind new Topic work >/dev/null 2>&1 &&
		git add .threadmind && git commit -q -m topic &&
		git checkout -q feat) 2>/dev/null &&
	python3 -c "
import json
p = \"app/.threadmind/config.json\"
d = json.load(open(p))
d[\"branchThreads\"][\"app\"].pop(\"topic\", None)
json.dump(d, open(p, \"w\"), indent=2)
" &&
	(cd app && git checkout -q topic) 2>err &&
	grep "active thread is now topic-work (Topic work)" err &&
	test "$(cfg app/.threadmind/config.json "d[\"branchThreads\"][\"app\"][\"topic\"]")" = topic-work
'

test_expect_success 'a file checkout and a detached checkout change nothing' '
	(cd app && git checkout -q feat) 2>/dev/null &&
	python3 -c "
import json
p = \"app/.threadmind/config.json\"
d = json.load(open(p))
d[\"activeThreadId\"] = \"main\"
json.dump(d, open(p, \"w\"), indent=2)
" &&
	cp app/.threadmind/config.json before &&
	echo changed >app/README &&
	(cd app && git checkout -- README && git checkout -q main -- README) 2>err &&
	test ! -s err &&
	test_cmp before app/.threadmind/config.json &&
	(cd app && git checkout -q --detach && git checkout -q --detach main) 2>err &&
	test ! -s err &&
	test_cmp before app/.threadmind/config.json
'

test_expect_success 'post-commit records branchThreads from the active thread' '
	(cd app && git checkout -q feat) 2>/dev/null &&
	python3 -c "
import json
p = \"app/.threadmind/config.json\"
d = json.load(open(p))
d[\"activeThreadId\"] = \"main\"
d[\"sessions\"] = [{\"id\": \"s1\"}]
json.dump(d, open(p, \"w\"), indent=2)
" &&
	(cd app && git status --porcelain) >st-before &&
	(cd app && echo x >x && git add x && git commit -q -m x) 2>err &&
	test ! -s err &&
	test "$(cfg app/.threadmind/config.json "d[\"branchThreads\"][\"app\"][\"feat\"]")" = main &&
	test "$(cfg app/.threadmind/config.json "d[\"sessions\"][0][\"id\"]")" = s1 &&
	(cd app && git status --porcelain) >st &&
	test_cmp st-before st
'

test_expect_success 'post-commit on a detached HEAD records nothing' '
	cp app/.threadmind/config.json before &&
	(cd app && git checkout -q --detach && git commit -q --allow-empty -m d &&
		git checkout -q feat) 2>/dev/null &&
	test_cmp before app/.threadmind/config.json
'

test_expect_success 'post-commit flags exactly the threads whose paths changed' '
	new_repo stl &&
	(cd stl && mkdir -p src/a src/b doc && echo a >src/a/f && echo b >src/b/f &&
		echo d >doc/f && git add . && git commit -q -m code &&
		git threadmind init >/dev/null 2>&1 && git threadmind install >/dev/null &&
		git threadmind new Alpha --paths src/a >/dev/null 2>&1 &&
		git threadmind new Beta --paths src/b >/dev/null 2>&1 &&
		git threadmind new Gamma --paths src >/dev/null 2>&1 &&
		git threadmind new Delta >/dev/null 2>&1 &&
		for t in alpha beta gamma; do
			echo "- $t" | git threadmind summary -q $t -F - || exit 1
		done &&
		git add .threadmind && git commit -q -m threads) 2>err &&
	test ! -s err &&
	(cd stl && echo a2 >>src/a/f && git commit -q -am "change a") 2>err &&
	echo "threadmind: summaries may be outdated: alpha gamma (git threadmind stale)" >expect &&
	test_cmp expect err &&
	(cd stl && echo d2 >>doc/f && git commit -q -am "change doc") 2>err &&
	test ! -s err
'

test_expect_success 'a commit that also changes the thread file does not flag it' '
	(cd stl && echo a3 >>src/a/f && echo "- reviewed" >>.threadmind/threads/stl/alpha.md &&
		git commit -q -am "change a with its summary") 2>err &&
	echo "threadmind: summaries may be outdated: gamma (git threadmind stale)" >expect &&
	test_cmp expect err
'

test_expect_success 'post-commit names at most ten threads' '
	(cd stl && for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			git threadmind new "Many $i" --paths many >/dev/null 2>&1 &&
			echo "- $i" | git threadmind summary -q many-$i -F - || exit 1
		done &&
		git add .threadmind && git commit -q -m many &&
		mkdir many && echo m >many/f && git add many && git commit -q -m m) 2>err &&
	echo "threadmind: summaries may be outdated: many-1 many-10 many-11 many-12 many-2 many-3 many-4 many-5 many-6 many-7 … (git threadmind stale)" >expect &&
	test_cmp expect err
'

test_expect_success 'post-merge flags the stale threads' '
	(cd stl && git checkout -q -b side 2>/dev/null && echo b2 >>src/b/f &&
		THREADMIND_HOOKS=0 git commit -q -am "change b" &&
		git checkout -q main 2>/dev/null &&
		echo x >>doc/f && THREADMIND_HOOKS=0 git commit -q -am doc2 &&
		git merge -q --no-edit side) 2>err &&
	grep "^threadmind: summaries may be outdated: .*beta.* (git threadmind stale)$" err &&
	! grep "problem" err
'

test_expect_success 'a linked worktree runs the shared hooks' '
	(cd app && git worktree add -q -b wt ../wt) 2>err &&
	test ! -e app/.git/worktrees/wt/hooks &&
	test -f wt/.threadmind/config.json &&
	test "$(cfg wt/.threadmind/config.json "d[\"branchThreads\"][\"app\"][\"wt\"]")" = main &&
	(cd wt && git threadmind switch auth-ui >/dev/null 2>&1 &&
		python3 -c "
import json
p = \".threadmind/config.json\"
d = json.load(open(p))
d[\"activeThreadId\"] = \"main\"
json.dump(d, open(p, \"w\"), indent=2)
" &&
		test "$(cfg .threadmind/config.json "d[\"branchThreads\"][\"app\"][\"wt\"]")" = auth-ui &&
		git commit -q --allow-empty -m in-wt) &&
	test "$(cfg wt/.threadmind/config.json "d[\"branchThreads\"][\"app\"][\"wt\"]")" = main
'

test_expect_success 'a corrupt config.json does not make checkout or commit fail' '
	printf "{ \"activeThreadId\": " >app/.threadmind/config.json &&
	cp app/.threadmind/config.json before &&
	(cd app && git checkout -q main) 2>err &&
	grep "^threadmind: post-checkout hook skipped: .*config.json" err &&
	test "$(wc -l <err)" -eq 1 &&
	(cd app && git commit -q --allow-empty -m c) 2>err &&
	grep "^threadmind: post-commit hook skipped" err &&
	test "$(git -C app rev-parse --abbrev-ref HEAD)" = main &&
	test_cmp before app/.threadmind/config.json &&
	rm app/.threadmind/config.json
'

test_expect_success 'threadmind.hooks=false and THREADMIND_HOOKS=0 silence everything' '
	(cd app && git checkout -q feat) 2>/dev/null &&
	cp app/.threadmind/config.json before &&
	git -C app config threadmind.hooks false &&
	(cd app && git checkout -q main && git checkout -q feat &&
		git checkout -q main) 2>err &&
	test ! -s err &&
	test_cmp before app/.threadmind/config.json &&
	git -C app config --unset threadmind.hooks &&
	(cd app && git -c threadmind.hooks=false checkout -q feat &&
		THREADMIND_HOOKS=0 git checkout -q main &&
		THREADMIND_HOOKS=0 git commit -q --allow-empty -m q) 2>err &&
	test ! -s err &&
	test_cmp before app/.threadmind/config.json
'

test_expect_success 'post-rewrite after commit --amend lists the thread' '
	(cd app && git checkout -q feat &&
		git threadmind new Anchored >/dev/null 2>&1 &&
		git add .threadmind && git commit -q -m anchored) 2>/dev/null &&
	head=$(git -C app rev-parse HEAD) &&
	python3 - "$head" <<-\EOF &&
	import re, sys
	p = "app/.threadmind/threads/app/anchored.md"
	s = open(p).read()
	open(p, "w").write(re.sub(r"(?m)^commit: .*$", "commit: " + sys.argv[1], s))
	EOF
	(cd app && git commit -q --amend --allow-empty -m amended) 2>err &&
	echo "threadmind: re-anchor with git threadmind touch: anchored" >expect &&
	test_cmp expect err &&
	test "$(fm app/.threadmind/threads/app/anchored.md commit)" = "$head"
'

test_expect_success 'threadmind.rewriteCommits=true rewrites the commit field' '
	head=$(git -C app rev-parse HEAD) &&
	python3 - "$head" <<-\EOF &&
	import re, sys
	p = "app/.threadmind/threads/app/anchored.md"
	s = open(p).read()
	open(p, "w").write(re.sub(r"(?m)^commit: .*$", "commit: " + sys.argv[1], s))
	EOF
	cp app/.threadmind/threads/app/anchored.md before &&
	(cd app && git -c threadmind.rewriteCommits=true commit -q --amend \
		--allow-empty -m again) 2>err &&
	new=$(git -C app rev-parse HEAD) &&
	test "$new" != "$head" &&
	test "$(fm app/.threadmind/threads/app/anchored.md commit)" = "$new" &&
	grep "re-anchored on the rewritten commits: anchored" err &&
	sed "s/^commit: .*/commit: $new/" before >expect &&
	test_cmp expect app/.threadmind/threads/app/anchored.md
'

test_expect_success 'post-merge reports problems in the merged tree' '
	(cd app && git checkout -q -b side &&
		printf -- "---\nid: lost\ntitle: Lost\nparentId: nowhere\n---\n" \
			>.threadmind/threads/app/lost.md &&
		printf -- "---\nid: other\ntitle: Renamed\nparentId: main\n---\n" \
			>.threadmind/threads/app/renamed.md &&
		git add .threadmind && git commit -q -m problems &&
		git checkout -q feat && git merge -q --no-edit side) 2>err &&
	grep "^threadmind: 2 problems in the thread tree (git threadmind doctor)$" err
'

test_expect_success 'post-merge counts as doctor does: no id field, an unreadable parent once' '
	(cd app && git checkout -q -b side2 &&
		printf -- "---\ntitle: No id\nparentId: main\n---\n" \
			>.threadmind/threads/app/noid.md &&
		printf -- "---\nid: broken\ntitle: [\n" \
			>.threadmind/threads/app/broken.md &&
		for k in kid1 kid2; do
			printf -- "---\nid: $k\ntitle: K\nparentId: broken\n---\n" \
				>.threadmind/threads/app/$k.md || return 1
		done &&
		git add .threadmind && git commit -q -m more &&
		git checkout -q feat && git merge -q --no-edit side2) 2>err &&
	grep "^threadmind: 4 problems in the thread tree (git threadmind doctor)$" err &&
	(cd app && test_must_fail git threadmind doctor) >out &&
	grep -c "^\(orphan\|id-mismatch\|unreadable\|cycle\|bad-id\):" out >count &&
	echo 4 >expect &&
	test_cmp expect count
'

test_expect_success 'the hook waits at most a second for the lock' '
	mkdir app/.threadmind/.lock &&
	python3 -c "
import json
p = \"app/.threadmind/config.json\"
d = json.load(open(p))
d[\"branchThreads\"][\"app\"][\"main\"] = \"anchored\"
json.dump(d, open(p, \"w\"), indent=2)
" &&
	start=$(date +%s) &&
	(cd app && git checkout -q main) 2>err &&
	end=$(date +%s) &&
	test $((end - start)) -le 3 &&
	grep "^threadmind: post-checkout hook skipped: .*\.lock" err &&
	rmdir app/.threadmind/.lock
'

test_expect_success 'hook always exits 0, and is silent outside a store' '
	(cd app && git threadmind hook && git threadmind hook nonsense x &&
		git threadmind hook post-checkout &&
		git threadmind hook post-checkout a b c d &&
		git threadmind hook post-rewrite amend </dev/null) >out 2>&1 &&
	test ! -s out &&
	new_repo plain &&
	(cd plain && git threadmind hook post-checkout x y 1 &&
		git threadmind hook post-merge 0 &&
		echo "a b" | git threadmind hook post-rewrite amend) >out 2>&1 &&
	test ! -s out &&
	mkdir -p nowhere &&
	(cd nowhere && GIT_CEILING_DIRECTORIES=$TEST_ROOT \
		git threadmind hook post-commit) >out 2>&1 &&
	test ! -s out
'

test_done
