#!/bin/sh
# git threadmind stale: threads whose paths changed since their commit,
# checked against `git log <commit>..HEAD -- <paths>`; status, tree, list.
. "$(dirname "$0")/test-lib.sh"

# set_commit ID HEX: point thread ID's `commit` at HEX (in the worktree).
set_commit() {
	sed "s/^commit: .*/commit: $2/" .threadmind/threads/app/$1.md >.tmp &&
	mv .tmp .threadmind/threads/app/$1.md
}

# What git says, for every thread of the project, compared with the JSON
# of `stale --json` in $1: the stale ids, their newest commit and changed
# paths, the unknown bases.  At least $2 threads must be stale.
cat >"$TEST_ROOT/check.py" <<'EOF'
import json, os, re, subprocess, sys

def git(*args):
    return subprocess.run(("git",) + args, capture_output=True, text=True,
                          check=True).stdout

def first_parent_diff(c, specs=()):
    parents = git("rev-list", "--parents", "-n1", c).split()[1:]
    if parents:
        args = ["diff", "--no-renames", "--name-only", parents[0], c]
    else:
        args = ["diff-tree", "-r", "--root", "--name-only", "--no-commit-id", c]
    return set(git(*args, "--", *specs).split())

got = json.load(open(sys.argv[1]))
stale = {e["id"]: e for e in got["stale"]}
tdir = ".threadmind/threads/app/"
unknown, checked = [], 0
for name in sorted(os.listdir(tdir)):
    tid, text = name[:-3], open(tdir + name).read()
    base = re.search(r"^commit: (\S+)$", text, re.M)
    paths = re.search(r"^paths: (.*)$", text, re.M)
    done = re.search(r"^status: (done|abandoned)$", text, re.M)
    blank = not text.split("\n---\n", 1)[1].strip()
    if not base or not paths or not json.loads(paths.group(1)) or done or blank:
        assert tid not in stale, tid
        continue
    base, paths = base.group(1), json.loads(paths.group(1))
    if subprocess.run(["git", "cat-file", "-e", base + "^{commit}"],
                      stderr=subprocess.DEVNULL).returncode:
        unknown.append(tid)
        continue
    log = git("log", "--format=%H", base + "..HEAD", "--", *paths).split()
    counted = [c for c in log if tdir + name not in first_parent_diff(c)]
    if not counted:
        assert tid not in stale, "%s: git says not stale" % tid
        continue
    assert tid in stale, "%s: git says stale: %s" % (tid, counted)
    e = stale[tid]
    assert e["commit"] == base and e["paths"] == paths, e
    assert e["newestCommit"] == counted[0], (tid, e, counted)
    changed = set().union(*(first_parent_diff(c, paths) for c in counted))
    assert e["changed"] == sorted(changed), (tid, e["changed"], changed)
    checked += 1
assert got["unknownBase"] == sorted(unknown), (got["unknownBase"], unknown)
assert len(got["stale"]) == checked
assert checked >= int(sys.argv[2]), "only %d stale" % checked
print("stale:", checked, "unknown:", len(unknown))
EOF

test_expect_success 'setup: a project with threads on paths' '
	git init -q app && cd app &&
	printf "out\nerr\n.tmp\n" >>.git/info/exclude &&
	change start src/auth/login.c src/api/routes.c lib/util.c docs/guide.md README &&
	git threadmind init >/dev/null &&
	git threadmind new Auth --paths src/auth >/dev/null &&
	git threadmind new API --paths src/api,lib/util.c >/dev/null &&
	git threadmind new Docs --paths "docs/*.md" >/dev/null &&
	git threadmind new Everything --paths . >/dev/null &&
	git threadmind new Idle >/dev/null &&
	for t in auth api docs everything; do
		echo "- what $t does" | git threadmind summary -q $t -F - || return 1
	done &&
	git add -A && test_tick && git commit -q -m "threadmind store" &&
	git threadmind stale --json >out &&
	python3 -c "import json; d=json.load(open(\"out\")); assert d == {\"project\": \"app\", \"stale\": [], \"unknownBase\": []}, d"
'

test_expect_success 'stale --json agrees with git log' '
	cd app &&
	change "auth: tokens" src/auth/token.c &&
	change "readme" README &&
	git checkout -q -b feature &&
	change "api: v2" src/api/v2.c lib/util.c &&
	change "docs: api" docs/api.md docs/img/a.png &&
	git checkout -q main &&
	change "auth: fix" src/auth/login.c &&
	test_tick && git merge -q --no-edit --no-ff feature &&
	change "auth and its summary" src/auth/login.c .threadmind/threads/app/auth.md &&
	first=$(git rev-list --max-parents=0 HEAD) &&
	set_commit everything "$first" &&
	git threadmind stale --json >out &&
	python3 "$TEST_ROOT/check.py" out 4
'

test_expect_success 'a commit that also changes the thread file covers it' '
	cd app &&
	git threadmind stale --json >out &&
	python3 -c "import json; d=json.load(open(\"out\")); e=[x for x in d[\"stale\"] if x[\"id\"]==\"auth\"][0]; assert e[\"changed\"]==[\"src/auth/login.c\", \"src/auth/token.c\"], e; assert e[\"newestCommit\"]!=\"$(git rev-parse HEAD)\", e" &&
	set_commit auth "$(git rev-parse HEAD~1)" &&
	git threadmind stale --json >out &&
	python3 -c "import json; d=json.load(open(\"out\")); assert \"auth\" not in [x[\"id\"] for x in d[\"stale\"]], d" &&
	python3 "$TEST_ROOT/check.py" out 3
'

test_expect_success 'human output: id, title, newest commit, changed paths' '
	cd app &&
	git threadmind stale >out 2>err &&
	grep "^api  API$" out &&
	grep "^    newest: $(git rev-parse --short feature~1) api: v2$" out &&
	grep "^    changed: lib/util.c$" out &&
	grep "^    changed: src/api/v2.c$" out &&
	! grep "^auth" out &&
	grep "3 stale threads" err &&
	git threadmind -q stale >out 2>err &&
	test_must_fail test -s err
'

test_expect_success '--exit-code: 1 when a thread is stale, 0 otherwise' '
	cd app &&
	test_exit_code 1 git threadmind stale --exit-code >/dev/null 2>&1 &&
	test_exit_code 1 git threadmind stale --json --exit-code >/dev/null &&
	head=$(git rev-parse HEAD) &&
	for t in api docs everything; do set_commit $t $head || return 1; done &&
	test_exit_code 0 git threadmind stale --exit-code >out 2>err &&
	test_must_fail test -s out &&
	grep "no stale threads" err
'

test_expect_success 'unknown base: listed apart, not stale; --exit-code fails' '
	cd app &&
	set_commit docs 0123456789abcdef0123456789abcdef01234567 &&
	set_commit api abc123 &&
	test_exit_code 1 git threadmind stale --exit-code --json >out &&
	python3 -c "import json; d=json.load(open(\"out\")); assert d[\"unknownBase\"]==[\"api\", \"docs\"], d; assert d[\"stale\"]==[], d" &&
	python3 "$TEST_ROOT/check.py" out 0 &&
	git threadmind stale >out 2>/dev/null &&
	grep "^unknown base commit (not in this repository): api docs$" out
'

test_expect_success 'status shows the stale count' '
	cd app &&
	git threadmind status >out &&
	grep "^stale: 0$" out &&
	first=$(git rev-list --max-parents=0 HEAD) &&
	set_commit everything "$first" &&
	set_commit auth "$first" &&
	git threadmind status >out &&
	grep "^stale: 2 (git threadmind stale)$" out &&
	git threadmind status --json >out &&
	python3 -c "import json; d=json.load(open(\"out\")); assert d[\"stale\"]==2, d"
'

test_expect_success 'tree and list flag the stale threads' '
	cd app &&
	git threadmind tree --no-color >out &&
	grep "auth  Auth (stale)$" out &&
	grep "everything  Everything (stale)$" out &&
	grep "idle  Idle$" out &&
	grep "docs  Docs$" out &&
	git threadmind tree --json >out &&
	python3 -c "
import json
d = json.load(open(\"out\"))
flags = {}
def walk(n):
    flags[n[\"id\"]] = n[\"flags\"]
    for c in n[\"children\"]:
        walk(c)
for r in d[\"roots\"]:
    walk(r)
assert flags[\"auth\"] == [\"stale\"], flags
assert flags[\"everything\"] == [\"stale\"], flags
assert flags[\"idle\"] == [] and flags[\"main\"] == [], flags
" &&
	git threadmind list --json >out &&
	python3 -c "import json; d=json.load(open(\"out\")); f={t[\"id\"]: t[\"flags\"] for t in d[\"threads\"]}; assert f[\"auth\"]==[\"stale\"] and f[\"api\"]==[], f" &&
	git threadmind tree --dot >out &&
	grep "\"auth\" .*color=orange" out
'

test_expect_success 'finished threads are never stale' '
	cd app &&
	sed "s/^updatedAt: .*/&\nstatus: done/" .threadmind/threads/app/auth.md >.tmp &&
	mv .tmp .threadmind/threads/app/auth.md &&
	git threadmind stale --json >out &&
	python3 -c "import json; d=json.load(open(\"out\")); assert [x[\"id\"] for x in d[\"stale\"]]==[\"everything\"], d" &&
	python3 "$TEST_ROOT/check.py" out 1
'

test_expect_success 'a shallow clone does not fail' '
	git clone -q --depth 2 "file://$TEST_ROOT/app" shallow &&
	cd shallow &&
	cp -R ../app/.threadmind/threads/app/. .threadmind/threads/app/ &&
	git threadmind stale --json >out &&
	python3 "$TEST_ROOT/check.py" out 0
'

test_expect_success 'stale -h and extra arguments are usage errors' '
	cd app &&
	test_exit_code 129 git threadmind stale -h >out &&
	grep "usage: git threadmind stale \[--json\] \[--exit-code\]" out &&
	test_exit_code 129 git threadmind stale extra 2>err &&
	grep "stale takes no arguments" err
'

test_expect_success 'outside git: stale is fatal, status says n/a' '
	mkdir plain && cd plain &&
	git threadmind init >/dev/null 2>&1 &&
	test_exit_code 128 git threadmind stale 2>err &&
	grep "^fatal: .*not in a git repository" err &&
	git threadmind status >out &&
	grep "^stale: n/a" out &&
	git threadmind status --json >out &&
	python3 -c "import json; d=json.load(open(\"out\")); assert d[\"stale\"] is None, d"
'

test_done
