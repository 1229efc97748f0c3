#!/bin/sh
# Property test of the staleness rule (DESIGN.md section 11, "Staleness
# across merges"; issue 25): seeded random histories made with the real
# git -- code commits, reviews (`touch`) committed alone, with the code or
# amended into it, branches, merges, squash merges of branches then
# deleted, rebases, `gc --prune=now` of what they left -- and at each
# branch tip, in a fresh clone and with a review not committed, `stale
# --json` must give the answer of a second implementation of the rule
# here, from git's plumbing alone: the review points of every version of
# the thread files in HEAD's history (its `commit` when `git rev-list HEAD`
# has it, else the commits whose blob differs from every parent's), then
# `git log HEAD --not <review points> -- <paths>` without the commits that
# change the thread's file.  The staleness caches are kept between the
# checks or deleted at random (their answers must be the same).
#
# TM_PROP_CASES (default 40: about 280 checks) histories from seed
# TM_PROP_SEED (default 1); the counts are printed as a TAP comment.
. "$(dirname "$0")/test-lib.sh"

# Under ASan+UBSan every git threadmind run is a few times slower: fewer
# histories there (the plain build's run covers the 40).
! sanitizer_build || : "${TM_PROP_CASES:=12}"
TM_PROP_CASES=${TM_PROP_CASES:-40}
export TM_PROP_CASES

cat >"$TEST_ROOT/prop.py" <<'EOF'
import fnmatch, json, os, random, re, shutil, subprocess, sys

ROOT = os.environ["TEST_ROOT"]
CASES = int(os.environ.get("TM_PROP_CASES", "40"))
SEED = int(os.environ.get("TM_PROP_SEED", "1"))
FILES = ["a/x.c", "a/y.c", "b/z.c", "c/w.c"]
SPECS = [["a"], ["b", "c/w.c"], ["a/x.c"], ["*.c"]]
TDIR = ".threadmind/threads/repo/"
clock = [1776247200]
stats = {"checks": 0, "stale": 0, "rewritten": 0, "dangling": 0,
         "unknown": 0, "ops": {}}


def run(args, cwd, check=True, data=None):
    clock[0] += 61
    env = dict(os.environ)
    env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = "%d +0000" % clock[0]
    p = subprocess.run(args, cwd=cwd, input=data, capture_output=True,
                       env=env)
    if check and p.returncode:
        raise RuntimeError("%s in %s: %d\n%s%s" % (
            " ".join(args), cwd, p.returncode, p.stdout.decode(),
            p.stderr.decode()))
    return p


def git(cwd, *args, check=True):
    return run(("git",) + args, cwd, check).stdout.decode()


def ok(cwd, *args):
    return run(("git",) + args, cwd, False).returncode == 0


def tm(cwd, *args, data=None):
    return run(("git", "threadmind") + args, cwd, data=data).stdout.decode()


# ---- the second implementation of the rule ----

def split(text):
    """frontmatter fields (the ones the rule reads) and body, or None"""
    lines = text.split("\n")
    if not lines or lines[0] != "---":
        return None
    try:
        end = lines.index("---", 1)
    except ValueError:
        return None
    fields = {}
    for line in lines[1:end]:
        m = re.match(r"^([A-Za-z]+): ?(.*)$", line)
        if m:
            fields[m.group(1)] = m.group(2)
    return fields, "\n".join(lines[end + 1:])


def matches(spec, path):
    if any(c in spec for c in "*?["):
        return fnmatch.fnmatchcase(path, spec)
    spec = spec.rstrip("/")
    return path == spec or path.startswith(spec + "/")


def expected(repo):
    """{"stale": {id: (newest, changed)}, "unknown": [ids]}"""
    threads = {}
    for name in sorted(os.listdir(os.path.join(repo, TDIR))):
        parsed = split(open(os.path.join(repo, TDIR, name)).read())
        if not parsed or not name.endswith(".md"):
            continue
        f, body = parsed
        paths = json.loads(f.get("paths", "[]"))
        if (not paths or not f.get("commit") or body.strip() == "" or
                f.get("status") in ("done", "abandoned")):
            continue
        threads[name[:-3]] = (f["commit"], paths,
                              (f.get("createdAt"), f.get("author")))
    order, parents = [], {}
    for line in git(repo, "rev-list", "--parents", "HEAD").split("\n"):
        if line:
            c, *ps = line.split()
            order.append(c)
            parents[c] = ps
    reach = set(order)
    # the first-parent diff of every commit of HEAD
    diff, cur = {}, None
    for line in git(repo, "log", "--format=%x00%H", "--name-only",
                    "--no-renames", "--diff-merges=first-parent",
                    "HEAD").split("\n"):
        if line.startswith("\0"):
            cur = line[1:]
            diff[cur] = set()
        elif line:
            diff[cur].add(line)
    names = sorted({p for c in order for p in diff[c]
                    if p.startswith(TDIR) and "/" not in p[len(TDIR):]
                    and p.endswith(".md")})
    # the blob of every thread file in every commit
    query = "".join("%s:%s\n" % (c, p) for c in order for p in names)
    out = run(["git", "cat-file", "--batch-check=%(objectname) %(objecttype)"],
              repo, data=query.encode()).stdout.decode().split("\n")
    blob, k = {}, 0
    for c in order:
        for p in names:
            words = out[k].split()
            k += 1
            if len(words) == 2 and words[1] == "blob":
                blob[(c, p)] = words[0]
    ids = sorted(set(blob.values()))
    data = run(["git", "cat-file", "--batch"], repo,
               data="".join(i + "\n" for i in ids).encode()).stdout
    info, at = {}, 0
    for i in ids:
        nl = data.index(b"\n", at)
        size = int(data[at:nl].split()[2])
        parsed = split(data[nl + 1:nl + 1 + size].decode())
        at = nl + 1 + size + 1
        info[i] = parsed[0] if parsed else None
    # the versions: (path, blob) -> identity, commit, introducers
    versions = {}
    for (c, p), b in blob.items():
        if info[b] is None:
            continue
        intro = all(blob.get((q, p)) != b for q in parents[c])
        v = versions.setdefault((p, b), {
            "ident": (info[b].get("createdAt"), info[b].get("author")),
            "commit": info[b].get("commit"), "intro": set()})
        if intro:
            v["intro"].add(c)
    result = {"stale": {}, "unknown": []}
    for tid, (commit, paths, ident) in threads.items():
        own = TDIR + tid + ".md"
        mine = {k: v for k, v in versions.items() if v["ident"] == ident}
        points = set()
        if commit in reach:
            points.add(commit)
        elif not any(v["commit"] == commit for v in mine.values()):
            if not ok(repo, "cat-file", "-e", commit + "^{commit}"):
                result["unknown"].append(tid)
                continue
            points.add(commit)
        for v in mine.values():
            if not v["commit"]:
                continue
            if v["commit"] in reach:
                points.add(v["commit"])
            else:
                points |= v["intro"]
                stats["rewritten"] += 1
        if not points:
            result["unknown"].append(tid)
            continue
        log = git(repo, "log", "--format=%H", "HEAD", "--not",
                  *sorted(points), "--", *paths).split()
        counted = [c for c in log
                   if own not in diff[c] and
                   not any((p, blob.get((c, p))) in mine
                           for p in diff[c] if p != own)]
        if counted:
            changed = sorted({p for c in counted for p in diff[c]
                              if any(matches(s, p) for s in paths)})
            result["stale"][tid] = (counted[0], changed)
    return result


def check(repo, what):
    if random.random() < 0.3:
        shutil.rmtree(os.path.join(repo, ".git", "threadmind"),
                      ignore_errors=True)
    got = json.loads(tm(repo, "stale", "--json"))
    want = expected(repo)
    have = {e["id"]: (e["newestCommit"], e["changed"]) for e in got["stale"]}
    stats["checks"] += 1
    stats["stale"] += len(have)
    stats["unknown"] += len(got["unknownBase"])
    if have != want["stale"] or got["unknownBase"] != sorted(want["unknown"]):
        print("MISMATCH (%s) in %s" % (what, repo))
        print("  stale --json: %s unknown %s" % (have, got["unknownBase"]))
        print("  the rule:     %s unknown %s" % (want["stale"],
                                                 sorted(want["unknown"])))
        print(git(repo, "log", "--graph", "--oneline", "--all"))
        sys.exit(1)


# ---- random histories ----

def branches(repo):
    return git(repo, "for-each-ref", "--format=%(refname:short)",
               "refs/heads/").split()


def current(repo):
    return git(repo, "symbolic-ref", "--short", "HEAD").strip()


def code(repo, rnd):
    for f in rnd.sample(FILES, rnd.randint(1, 2)):
        with open(os.path.join(repo, f), "a") as h:
            h.write("line %d\n" % rnd.randint(0, 1 << 30))


def review(repo, rnd):
    tm(repo, "touch", "-q", "t%d" % rnd.randrange(len(SPECS)))


def commit(repo, msg):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", msg)


def pull_request(repo, rnd, step):
    """a branch with code and reviews, the base moving meanwhile, then
    merged back: rebased then merged, squashed (the branch deleted or
    not), merged as it is, or its review amended then merged"""
    base = current(repo)
    br = "pr%d" % step
    git(repo, "switch", "-q", "-c", br)
    for k in range(rnd.randint(1, 3)):
        code(repo, rnd)
        if rnd.random() < 0.5:
            review(repo, rnd)
        commit(repo, "pr %d.%d" % (step, k))
    if rnd.random() < 0.6:
        review(repo, rnd)
        commit(repo, "pr %d review" % step)
    how = rnd.choice(["rebase", "squash", "merge", "amend"])
    if how == "amend":
        review(repo, rnd)
        git(repo, "commit", "-q", "-a", "--amend", "--no-edit")
    git(repo, "switch", "-q", base)
    if rnd.random() < 0.7:
        code(repo, rnd)
        commit(repo, "%s moves on %d" % (base, step))
    if how == "rebase":
        git(repo, "switch", "-q", br)
        if not ok(repo, "rebase", "-q", "-X", "theirs", base):
            ok(repo, "rebase", "--abort")
        git(repo, "switch", "-q", base)
    if how == "squash":
        if ok(repo, "merge", "-q", "--squash", "-X", "theirs", br):
            commit(repo, "squash %s" % br)
        else:
            git(repo, "reset", "-q", "--hard")
    elif not ok(repo, "merge", "-q", "--no-ff", "--no-edit", "-X",
                rnd.choice(["ours", "theirs"]), br):
        ok(repo, "merge", "--abort")
    if rnd.random() < 0.6:
        git(repo, "branch", "-q", "-D", br)


def history(case):
    rnd = random.Random(SEED * 100003 + case)
    random.seed(SEED * 100003 + case + 1)
    d = os.path.join(ROOT, "case%d" % case)
    repo = os.path.join(d, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    for f in FILES:
        os.makedirs(os.path.join(repo, os.path.dirname(f)), exist_ok=True)
        open(os.path.join(repo, f), "w").write("start\n")
    commit(repo, "root")
    tm(repo, "init", "-q")
    for i, spec in enumerate(SPECS):
        tm(repo, "new", "T%d" % i, "--paths", ",".join(spec), "-q")
        tm(repo, "summary", "-q", "t%d" % i, "-F", "-",
           data=b"- thread %d\n" % i)
    commit(repo, "threads")
    nb = 0
    ops = [("code", 18), ("review", 10), ("amend", 8), ("branch", 8),
           ("switch", 6), ("merge", 10), ("squash", 8), ("rebase", 10),
           ("pr", 18), ("gc", 4)]
    for step in range(rnd.randint(10, 16)):
        others = [b for b in branches(repo) if b != current(repo)]
        pick = [(o, w) for o, w in ops
                if others or o in ("code", "review", "amend", "branch", "pr")]
        x = rnd.uniform(0, sum(w for _, w in pick))
        for op, w in pick:
            x -= w
            if x < 0:
                break
        if op == "code":
            code(repo, rnd)
            if rnd.random() < 0.3:
                review(repo, rnd)
            commit(repo, "code %d" % step)
        elif op == "review":
            review(repo, rnd)
            commit(repo, "review %d" % step)
        elif op == "amend":
            code(repo, rnd)
            commit(repo, "code %d" % step)
            review(repo, rnd)
            git(repo, "commit", "-q", "-a", "--amend", "--no-edit")
        elif op == "branch":
            nb += 1
            start = rnd.choice(branches(repo))
            git(repo, "switch", "-q", "-c", "b%d" % nb, start)
        elif op == "switch":
            git(repo, "switch", "-q", rnd.choice(others))
        elif op == "merge":
            if not ok(repo, "merge", "-q", "--no-edit",
                      "-X", rnd.choice(["ours", "theirs"]),
                      rnd.choice(others)):
                ok(repo, "merge", "--abort")
        elif op == "squash":
            other = rnd.choice(others)
            if ok(repo, "merge", "-q", "--squash", "-X", "theirs", other):
                commit(repo, "squash %s" % other)
                if rnd.random() < 0.6:
                    git(repo, "branch", "-q", "-D", other)
            else:
                git(repo, "reset", "-q", "--hard")
        elif op == "rebase":
            if not ok(repo, "rebase", "-q", "-X", "theirs",
                      rnd.choice(others)):
                ok(repo, "rebase", "--abort")
        elif op == "pr":
            pull_request(repo, rnd, step)
        else:
            git(repo, "reflog", "expire", "--expire=now", "--all")
            git(repo, "gc", "-q", "--prune=now")
        stats["ops"][op] = stats["ops"].get(op, 0) + 1
        if rnd.random() < 0.25:
            check(repo, "after %s %d" % (op, step))
    return rnd, d, repo


for case in range(CASES):
    rnd, d, repo = history(case)
    dangling = git(repo, "fsck", "--unreachable", "--no-reflogs").split()
    stats["dangling"] += sum(1 for w in dangling if w == "commit")
    here = current(repo)
    check(repo, "at %s" % here)
    for b in rnd.sample(branches(repo), min(2, len(branches(repo)))):
        if b != here:
            git(repo, "switch", "-q", b)
            check(repo, "at %s" % b)
    git(repo, "switch", "-q", here)
    clone = os.path.join(d, "clone")
    git(d, "clone", "-q", repo, clone)
    check(clone, "in a fresh clone")
    # a review not committed: at HEAD, or at a commit HEAD does not reach
    # (dangling, or missing), in the worktree only
    tid = "t%d" % rnd.randrange(len(SPECS))
    pool = [w for w in git(repo, "rev-list", "--all", "--reflog").split()]
    target = rnd.choice(pool + ["0123456789abcdef0123456789abcdef01234567"])
    f = os.path.join(repo, TDIR, tid + ".md")
    text = open(f).read()
    open(f, "w").write(re.sub(r"(?m)^commit: .*$", "commit: " + target, text))
    check(repo, "%s reviewed at %s, not committed" % (tid, target[:7]))
    shutil.rmtree(d)
print("checks %d of %d histories (seed %d): %d stale, %d unknown, "
      "%d rewritten review points, %d dangling commits; ops %s" % (
          stats["checks"], CASES, SEED, stats["stale"], stats["unknown"],
          stats["rewritten"], stats["dangling"],
          " ".join("%s=%d" % kv for kv in sorted(stats["ops"].items()))))
EOF

test_expect_success 'stale gives the rule'"'"'s answer on random rewritten histories' '
	python3 "$TEST_ROOT/prop.py" >prop.out 2>&1 || { cat prop.out; false; } &&
	n=$(sed -n "s/^checks \([0-9]*\) of .*/\1/p" prop.out) &&
	test "$n" -ge "$((4 * ${TM_PROP_CASES:-40}))" &&
	# the histories did rewrite reviewed commits, and found stale threads
	test "$(sed -n "s/.*, \([0-9]*\) rewritten review points.*/\1/p" prop.out)" -gt 0 &&
	test "$(sed -n "s/.*: \([0-9]*\) stale, .*/\1/p" prop.out)" -gt 0
'
sed "s/^/# /" "$TEST_ROOT/prop.out"

test_done
