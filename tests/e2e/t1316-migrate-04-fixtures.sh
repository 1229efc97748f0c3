#!/bin/sh
# The three stores written by the real ThreadMind 0.4.1
# (tests/resources/threadmind-0.4/, see its README.md) upgraded, each both
# ways (AUTO: the first ordinary command; `git threadmind migrate`), then
# checked against what 0.4.1 itself showed of the ORIGINAL files, read by
# an independent reader (read04.py below, plain python, never our
# binaries): every thread listed once, every parent, title, summary,
# author and timestamp kept, nothing hidden, trees/ gone, a second command
# quiet, doctor clean but for leftovers named below (issue 18).
. "$(dirname "$0")/test-lib.sh"

FIX="$TEST_SRC/tests/resources/threadmind-0.4"
SHOW_EVERY=1
! sanitizer_build || SHOW_EVERY=4
export SHOW_EVERY
STORES="solo-2projects-111threads team-2projects-70threads hostile-titles-45threads"

# read04.py STORE: what ThreadMind 0.4.1 showed of every thread of the
# store folder STORE, read from its files the way 0.4.1 reads them, as JSON
# on stdout: {"<project>": {"<0.4 id>": {"file", "title", "parent",
# "author", "createdAt", "updatedAt", "summary", "body"}}}.
# - a thread's 0.4 id is its file name without `.md` (the file `.md` is the
#   id ''); its frontmatter is the lines between the first line `---` and
#   the next line `---`; each is split at its first `:`, key and value
#   trimmed (JavaScript's trim: 0.4.1 is TypeScript); the last line of a
#   key wins;
# - the summary is everything after that second `---` line, trimmed;
#   "body" is that text untrimmed (the bytes after the closing line);
# - the parent is the `parentId` of the id's node in trees/{project}.json
#   (null for a root), which 0.4 read for the tree; for a file the index
#   lacks, the file's `parentId` (`null` there is the root, as 0.4 wrote it).
# (0.4.1 itself evidently cuts the frontmatter at the first `---`
# anywhere, even inside a value: in the solo store, refactor-step-2, made
# with the title `Refactor --- step 2`, lost the rest of its title, its
# parent, author and createdAt at 0.4's next write. This reader cuts at
# the line, so the hostile store's `Refactor --- step 2`, which 0.4 never
# rewrote, is expected whole, as typed and as the file holds it. After the
# closing line both cuts agree: 0.4 kept every later `---` in a summary.)
cat >"$TEST_ROOT/read04.py" <<\EOF
import json, os, sys

JS_SPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
            "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


def trim(s):
    return s.strip(JS_SPACE)


def read_thread(path):
    lines = open(path, "rb").read().decode("utf-8").split("\n")
    assert lines[0] == "---", "%s: no frontmatter" % path
    close = lines.index("---", 1)
    fields = {}
    for line in lines[1:close]:
        if ":" in line:
            key, value = line.split(":", 1)
            fields[trim(key)] = trim(value)
    body = "\n".join(lines[close + 1:])
    return fields, body


store = os.path.join(sys.argv[1], ".threadmind")
out = {}
for project in sorted(os.listdir(os.path.join(store, "threads"))):
    folder = os.path.join(store, "threads", project)
    with open(os.path.join(store, "trees", project + ".json")) as f:
        nodes = json.load(f)["nodes"]
    threads = out[project] = {}
    for name in sorted(os.listdir(folder)):
        assert name.endswith(".md"), name
        tid = name[:-3]
        fields, body = read_thread(os.path.join(folder, name))
        if tid in nodes:
            parent = nodes[tid]["parentId"]
        else:
            parent = fields.get("parentId")
            parent = None if parent == "null" else parent
        threads[tid] = {
            "file": "threads/%s/%s" % (project, name),
            "title": fields.get("title"),
            "parent": parent,
            "author": fields.get("author"),
            "createdAt": fields.get("createdAt"),
            "updatedAt": fields.get("updatedAt"),
            "summary": trim(body),
            "body": body,
        }
json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
EOF

# check.py WHAT EXPECT REPO [UPGRADE-OUTPUT]: compare the upgraded REPO
# with EXPECT (read04.py's output), printing each difference with the ids
# and both values; exits 1 when there is one. WHAT is
#   threads: `--project P list --all --json` lists each 0.4 thread once
#     and nothing else; parent, title, author, createdAt, updatedAt as 0.4
#     showed them; `show --json` gives the summary 0.4 showed (trimmed) and
#     the file's body to the byte (without its leading blank line);
#   rename: UPGRADE-OUTPUT has a line naming each `.md` thread's new id and
#     the file `.md` (or the id '');
#   tree: `tree --all --json` holds every thread once, under its parent,
#     roots the 0.4 roots, no flags; `status --json` counts them all, none
#     unreadable.
# The 0.4 thread '' (file `.md`) gets a new id at the upgrade: it is found
# in the list by createdAt + author + title, and must be the seed's slug of
# its title (`thread` when empty) with the collision suffix.
cat >"$TEST_ROOT/check.py" <<\EOF
import json, os, re, subprocess, sys, unicodedata

what, expect_file, repo = sys.argv[1:4]
# JavaScript's trim(), as in read04.py: the summary 0.4 showed is trimmed so
JS_SPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
            "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
expect = json.load(open(expect_file))
problems = []
# every thread's summary through `show`; one in four in the sanitizer
# build, where each run costs ten times more (the plain build's run
# checks them all)
SHOW_EVERY = int(os.environ.get("SHOW_EVERY", "1"))


def say(fmt, *args):
    problems.append(fmt % args)


def tm(*args):
    r = subprocess.run(("git", "threadmind") + args, cwd=repo,
                       capture_output=True)
    return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")


def tm_json(*args):
    rc, out, err = tm(*args)
    if rc != 0:
        say("git threadmind %s: exit %d: %s", " ".join(args), rc, err.strip())
        return None
    return json.loads(out)


# The seed's slug (DESIGN.md "IDs and slugs"), checked against
# tests/resources/slugs.jsonl below.
LETTERS = {"œ": "oe", "æ": "ae", "ß": "ss", "ø": "o", "ł": "l", "đ": "d",
           "þ": "th"}


def slug(title):
    s = "".join(LETTERS.get(c, c) for c in title.lower())
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    s = "".join(LETTERS.get(c, c) for c in s)
    s = re.sub(r"[\s_]+", "-", s)
    s = re.sub(r"[^a-z0-9-]", "", s)
    s = re.sub(r"-+", "-", s).strip("-")
    return s[:64].rstrip("-") or "thread"


for line in open(os.path.join(os.environ["TEST_SRC"],
                              "tests/resources/slugs.jsonl")):
    case = json.loads(line)
    assert slug(case["title"]) == case["slug"], case

VALID_ID = re.compile(r"^[a-z0-9-]+$")


def differ(got, want):
    """Where the text got first differs from want, with a little context."""
    if got is None:
        return "none, want %r" % want[:60]
    i = 0
    while i < min(len(got), len(want)) and got[i] == want[i]:
        i += 1
    a = max(0, i - 20)
    return "%d chars, want %d; from char %d: %r, want %r" % (
        len(got), len(want), a, got[a:i + 40], want[a:i + 40])


def empty(v):
    return v is None or v == ""


# Every project's list, and the new id of its 0.4 thread '' (None when it
# cannot be found).
lists, renamed, rename_problems = {}, {}, []
for project, threads in expect.items():
    doc = tm_json("--project", project, "list", "--all", "--json")
    lists[project] = doc["threads"] if doc else []
    if "" not in threads:
        continue
    old = threads[""]
    taken = set(threads) - {""}
    want = base = slug(old["title"] or "")
    n = 2
    while want in taken:
        want = "%s-%d" % (base, n)
        n += 1
    found = [t["id"] for t in lists[project]
             if t["id"] not in taken and t.get("title") == old["title"]
             and t.get("createdAt") == old["createdAt"]
             and t.get("author") == old["author"]]
    if len(found) != 1:
        rename_problems.append(
            "%s: the 0.4 thread '' (%s, title %r, createdAt %s, author %s) "
            "is listed under %d new ids %s, not once as %r"
            % (project, old["file"], old["title"], old["createdAt"],
               old["author"], len(found), found, want))
        renamed[project] = None
        continue
    renamed[project] = found[0]
    if found[0] != want or not VALID_ID.match(found[0]):
        rename_problems.append(
            "%s: the 0.4 thread '' (%s, title %r) got the id %r, not %r "
            "(the seed's slug of its title, with the collision suffix)"
            % (project, old["file"], old["title"], found[0], want))


def new_id(project, tid):
    if tid == "":
        return renamed.get(project) or "<new id of ''>"
    return tid


def check_threads():
    for project, threads in expect.items():
        want = {new_id(project, tid): tid for tid in threads}
        seen = {}
        for t in lists[project]:
            seen[t["id"]] = seen.get(t["id"], 0) + 1
        for tid in sorted(seen):
            if seen[tid] > 1:
                say("%s: %r listed %d times", project, tid, seen[tid])
            if tid not in want:
                say("%s: %r listed, but 0.4 had no such thread", project, tid)
        for nid, tid in sorted(want.items()):
            if nid not in seen:
                say("%s: 0.4 thread %r (%s, title %r) not listed by "
                    "list --all", project, tid, threads[tid]["file"],
                    threads[tid]["title"])
        for k, t in enumerate(lists[project]):
            if t["id"] not in want:
                continue
            old = threads[want[t["id"]]]
            where = "%s/%s (0.4 %s)" % (project, t["id"], old["file"])
            parent = old["parent"]
            parent = None if parent is None else new_id(project, parent)
            if t.get("parentId") != parent:
                say("%s: parentId %r, 0.4 showed it under %r", where,
                    t.get("parentId"), parent)
            if t.get("title") != old["title"]:
                say("%s: title %r, 0.4 showed %r", where, t.get("title"),
                    old["title"])
            for key in ("author", "createdAt", "updatedAt"):
                got, had = t.get(key), old[key]
                if got != had and not (empty(got) and empty(had)):
                    say("%s: %s %r, 0.4 showed %r", where, key, got, had)
            if k % SHOW_EVERY:
                continue
            args = ["--project", project, "show", "--json"]
            args += ["--", t["id"]] if t["id"].startswith("-") else [t["id"]]
            doc = tm_json(*args)
            if doc is None:
                continue
            summary = doc.get("summary")
            body = old["body"]
            body = body[1:] if body.startswith("\n") else body
            if summary is None or summary.strip(JS_SPACE) != old["summary"]:
                say("%s: summary not the one 0.4 showed: %s", where,
                    differ(summary and summary.strip(JS_SPACE),
                           old["summary"]))
            elif summary != body:
                say("%s: summary not the file's body (trimmed alike): %s",
                    where, differ(summary, body))


def check_rename(output_file):
    output = open(output_file).read().splitlines()
    for project, nid in sorted(renamed.items()):
        old = re.compile(r"(^|[/\s'\"(])\.md\b|''|\"\"")
        if nid is None or not any(nid in line and old.search(line)
                                  for line in output):
            say("%s: the upgrade output names no rename of the 0.4 thread "
                "'' (file .md) to %s; it was:\n%s", project,
                "its new id" if nid is None else repr(nid), "\n".join(output))


def check_tree():
    for project, threads in expect.items():
        want = sorted(new_id(project, tid) for tid in threads)
        roots = sorted(new_id(project, tid) for tid in threads
                       if threads[tid]["parent"] is None)
        rc, out, err = tm("--project", project, "tree", "--all", "--json")
        if rc != 0:
            say("%s: tree --all --json: exit %d: %s", project, rc, err)
            continue
        doc = json.loads(out)
        got = []
        todo = [(None, r) for r in doc["roots"]]
        while todo:
            parent, node = todo.pop()
            got.append(node["id"])
            if parent is not None and node.get("parentId") != parent:
                say("%s: tree --all --json shows %r under %r, its parentId "
                    "is %r", project, node["id"], parent, node.get("parentId"))
            if node.get("flags"):
                say("%s: tree --all --json flags %r %s", project, node["id"],
                    node["flags"])
            todo.extend((node["id"], c) for c in node["children"])
        for tid in sorted(set(want) - set(got)):
            say("%s: tree --all --json lacks %r", project, tid)
        for tid in sorted(set(got)):
            if got.count(tid) > 1 or tid not in want:
                say("%s: tree --all --json holds %r %d times, 0.4 had it %d "
                    "times", project, tid, got.count(tid), want.count(tid))
        top = sorted(r["id"] for r in doc["roots"])
        if top != roots:
            say("%s: tree --all --json roots %s, 0.4's roots %s", project,
                top, roots)
        doc = tm_json("--project", project, "status", "--json")
        if doc:
            counts = doc["counts"]
            if counts["unreadable"] or sum(counts.values()) != len(threads):
                say("%s: status --json counts %s, 0.4 had %d threads",
                    project, counts, len(threads))


if what == "threads":
    problems += rename_problems
    check_threads()
elif what == "rename":
    problems += rename_problems
    check_rename(sys.argv[4])
elif what == "tree":
    check_tree()
else:
    sys.exit("check.py: unknown check " + what)
for p in problems:
    print(p)
print("%s: %d problems" % (what, len(problems)))
sys.exit(1 if problems else 0)
EOF

# doctor.py REPO: `git threadmind doctor --json` in REPO finds nothing but
# these leftovers, each named with its reason (anything else is printed):
#   gitignore (.threadmind/.gitignore): 0.4's own file, which ignores only
#     config.json (not .lock, *.tmp); the upgrade leaves a file the user
#     wrote alone, `doctor --fix` adds the lines;
#   merge-driver, gitattributes, hooks: `git threadmind install` was never
#     run in this fresh 0.4 clone; nothing the upgrade is meant to do.
cat >"$TEST_ROOT/doctor.py" <<\EOF
import json, subprocess, sys

r = subprocess.run(["git", "threadmind", "doctor", "--json"], cwd=sys.argv[1],
                   capture_output=True)
doc = json.loads(r.stdout)
bad = []
for p in doc["problems"]:
    kind, msg = p["kind"], p["message"]
    if kind == "gitignore" and p["file"] == ".threadmind/.gitignore" \
            and ".lock" in msg and "*.tmp" in msg:
        continue
    if kind in ("merge-driver", "gitattributes", "hooks") \
            and "git threadmind install" in msg:
        continue
    bad.append("%s: %s" % (kind, msg))
if r.returncode != (1 if doc["problems"] else 0):
    bad.append("exit %d with %d problems" % (r.returncode, len(doc["problems"])))
for b in bad:
    print("not a leftover of 0.4 we accept: " + b)
sys.exit(1 if bad else 0)
EOF

# sanity.py: read04.py's view of the fixtures agrees with what their
# README and files say (so that its expectations can be trusted).
cat >"$TEST_ROOT/sanity.py" <<\EOF
import json, os
root = os.environ["TEST_ROOT"]


def load(store):
    return json.load(open(os.path.join(root, store + ".expect")))


solo = load("solo-2projects-111threads")
assert sorted(solo) == ["back-office-admin", "boutique-en-ligne"], list(solo)
assert [len(solo[p]) for p in sorted(solo)] == [29, 82]
shop = solo["boutique-en-ligne"]
assert shop[""]["title"] == "~" and shop[""]["parent"] == "under-the-dashed-one"
assert shop["child-of"]["parent"] == ""
assert shop["null"]["title"] == "null"
assert shop["15"]["parent"] == "null"  # the thread null, from trees/
assert shop["refactor-step-2"]["parent"] == "main"  # trees/, not the file's
assert shop["refactor-step-2"]["author"] == ""
team = load("team-2projects-70threads")
assert [len(team[p]) for p in sorted(team)] == [7, 63]
q = team["quipe-plateforme"]
assert q["ab-testing"]["parent"] == "qa-caching"  # trees/ wins
assert q["webhooks-4"]["parent"] == "mobile-layout-2"  # not in trees/
assert q["ber-refactor"]["author"] == ""
h = load("hostile-titles-45threads")["hostile-titles"]
assert len(h) == 45
assert h["quick-fix"]["title"] == '"Quick" fix'
assert h["quoted"]["title"] == '"quoted"'
assert h["wip-auth"]["title"] == "[WIP] Auth"
assert h["single-q"]["title"] == "'single' q"
assert h["-4"]["title"] == "~" and h[""]["title"] == "认证模块"
assert h["a-b-tab"]["title"] == "a\tb tab"
assert h["refactor-step-2"]["title"] == "Refactor --- step 2"
assert h["yes"]["parent"] == "" and h["-3"]["parent"] == "-4"
assert h["fix-login-redirect-loop"]["parent"] == "null"
assert h["main"]["parent"] is None
print("the fixtures read as their README says")
EOF

test_expect_success 'the three 0.4.1 stores are resources, each with its config.json' '
	test -f "$FIX/README.md" &&
	for s in $STORES; do
		for f in config.json .gitignore projects trees stats threads; do
			test -e "$FIX/$s/.threadmind/$f" || {
				echo "missing $s/.threadmind/$f"
				return 1
			}
		done &&
		test -f "$FIX/$s/ops.jsonl" &&
		python3 "$TEST_ROOT/read04.py" "$FIX/$s" >"$TEST_ROOT/$s.expect" ||
		return 1
	done &&
	python3 "$TEST_ROOT/sanity.py"
'

# Each check below reports every failure it finds (ok=1), not only the
# first, so that one run shows all that is wrong.
for store in $STORES; do
	for mode in auto migrate; do
		R=$store.$mode

		test_expect_success "$store ($mode): a 0.4 repository, committed as 0.4 left it" '
			git init -q "$R" &&
			cp -R "$FIX/$store/.threadmind" "$R/" &&
			chmod -R u+w "$R/.threadmind" &&
			diff -r "$FIX/$store/.threadmind" "$R/.threadmind" &&
			(cd "$R" && git add -A && git commit -q -m "ThreadMind 0.4") &&
			test -f "$R/.threadmind/config.json" &&
			test -z "$(git -C "$R" ls-files .threadmind/config.json)" &&
			git -C "$R" ls-files .threadmind/trees | grep -q json &&
			test -z "$(git -C "$R" status --porcelain)"
		'

		# The upgrade's output (both streams) is kept in $R.up.all for
		# the rename check.
		if [ $mode = auto ]; then
			test_expect_success "$store (auto): the first command, list --all --json, upgrades the store" '
				(cd "$R" && git threadmind list --all --json) \
					>"$R.up.out" 2>"$R.up.err"
				rc=$? &&
				cp "$R.up.err" "$R.up.all" &&
				cat "$R.up.all" &&
				{ test $rc = 0 || { echo "exit code $rc" && false; }; } &&
				grep -i upgraded "$R.up.err" &&
				(cd "$R" && git threadmind list --all --json) >"$R.again" &&
				test_cmp "$R.up.out" "$R.again"
			'
		else
			test_expect_success "$store (migrate): migrate upgrades the store" '
				(cd "$R" && git threadmind migrate) >"$R.up.out" 2>"$R.up.err"
				rc=$? &&
				cat "$R.up.out" "$R.up.err" >"$R.up.all" &&
				cat "$R.up.all" &&
				{ test $rc = 0 || { echo "exit code $rc" && false; }; } &&
				grep -i "^migrated" "$R.up.out"
			'
		fi

		test_expect_success "$store ($mode): trees/ is gone; a second command changes no file and says nothing of an upgrade" '
			ok=0 &&
			git -C "$R" status --porcelain >"$R.st1" &&
			{ (cd "$R" && git threadmind list --all --json) >/dev/null \
				2>"$R.err2" || ok=1; } &&
			git -C "$R" status --porcelain >"$R.st2" &&
			{ test_cmp "$R.st1" "$R.st2" || ok=1; } &&
			if grep -i upgraded "$R.err2"; then
				echo "(printed by the second command)" && ok=1
			fi &&
			find "$R/.threadmind" -path "*trees*" >"$R.trees" &&
			if test -s "$R.trees"; then
				echo "trees/ kept:" && cat "$R.trees" && ok=1
			fi &&
			test $ok = 0
		'

		if ls "$FIX/$store"/.threadmind/threads/*/.md >/dev/null 2>&1; then
			test_expect_success "$store ($mode): the upgrade says which thread it renamed from .md" '
				python3 "$TEST_ROOT/check.py" rename "$TEST_ROOT/$store.expect" \
					"$R" "$R.up.all"
			'
		fi

		test_expect_success "$store ($mode): every 0.4 thread listed once, with the parent, title, summary, author and dates 0.4 showed" '
			python3 "$TEST_ROOT/check.py" threads "$TEST_ROOT/$store.expect" "$R"
		'

		test_expect_success "$store ($mode): nothing hidden: no file skipped, the tree holds every thread once" '
			ok=0 &&
			for p in $(python3 -c "import json,sys; print(*json.load(open(sys.argv[1])))" \
					"$TEST_ROOT/$store.expect"); do
				for c in tree list; do
					(cd "$R" && git threadmind --project "$p" $c --all) \
						>/dev/null 2>"$R.err" || ok=1
					if grep -Ei "skipping|unreadable|cannot read" "$R.err"; then
						echo "(printed by --project $p $c --all)" && ok=1
					fi
				done
			done &&
			{ python3 "$TEST_ROOT/check.py" tree "$TEST_ROOT/$store.expect" \
				"$R" || ok=1; } &&
			test $ok = 0
		'

		test_expect_success "$store ($mode): doctor names no problem but the leftovers accepted; no command since the upgrade wrote a file" '
			ok=0 &&
			{ python3 "$TEST_ROOT/doctor.py" "$R" || ok=1; } &&
			git -C "$R" status --porcelain >"$R.st3" &&
			{ test_cmp "$R.st1" "$R.st3" || ok=1; } &&
			test $ok = 0
		'
	done
done

test_done
