# Helpers of the hook-manager tests (t514x, sourced after test-lib.sh):
# finding the real tools, and the scenario every manager must pass.
#
# husky and lefthook come from an npm folder made by scripts/hook-tools:
# $TM_HOOK_TOOLS, else $TM_BUILD/hook-tools (where .ci/run puts them),
# else whatever is on PATH; pre-commit is Debian's package, on PATH.
# TM_HOOK_TOOLS=none: no real tool at all (CI's sanitizer pass, where the
# tool-free t5143 and t5144 still run).

HOOK_TOOLS=${TM_HOOK_TOOLS:-$TM_BUILD/hook-tools}

# tool NAME: the path of NAME's command, or nothing.
tool() {
	if [ "$HOOK_TOOLS" = none ]; then
		return 0
	elif [ -x "$HOOK_TOOLS/node_modules/.bin/$1" ]; then
		echo "$HOOK_TOOLS/node_modules/.bin/$1"
	else
		command -v "$1" 2>/dev/null
	fi
}

# require_tool NAME: skip the whole script (TAP "1..0 # SKIP") without it.
require_tool() {
	if [ "$HOOK_TOOLS" = none ]; then
		echo "1..0 # SKIP the real $1 is not run here (TM_HOOK_TOOLS=none)"
		exit 0
	elif [ -z "$(tool "$1")" ]; then
		echo "1..0 # SKIP $1 not found: run scripts/hook-tools (or set TM_HOOK_TOOLS to a folder where it ran) to test with the real $1"
		exit 0
	fi
}

# cfg FILE EXPR: a Python expression over config.json's object `d`.
cfg() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

# active REPO: the active thread of REPO.
active() {
	cfg "$1/.threadmind/config.json" 'd["activeThreadId"]'
}

# snap REPO DEST FILE...: copy REPO's FILEs (relative paths) under DEST,
# "missing" marked for those that do not exist.
snap_files() {
	_r=$1 _d=$2
	shift 2
	rm -rf "$_d" && mkdir -p "$_d" &&
	for _f; do
		mkdir -p "$_d/$(dirname "$_f")" &&
		if [ -e "$_r/$_f" ]; then
			cp -p "$_r/$_f" "$_d/$_f"
		else
			: >"$_d/$_f.missing"
		fi || return 1
	done
}

# same_files REPO DEST FILE...: each FILE is byte for byte as snapped
# (or still missing), with the same mode.
same_files() {
	_r=$1 _d=$2
	shift 2
	for _f; do
		if [ -e "$_d/$_f.missing" ]; then
			if [ -e "$_r/$_f" ]; then
				echo "$_f exists, and did not before" >&2
				return 1
			fi
		else
			cmp "$_d/$_f" "$_r/$_f" || return 1
			[ "$(stat -c %a "$_d/$_f")" = "$(stat -c %a "$_r/$_f")" ] ||
				{ echo "$_f: mode changed" >&2 && return 1; }
		fi
	done
}

# store REPO: a store with thread Auth (paths src/, a summary) on main.
store() {
	(cd "$1" && mkdir -p src && echo a >src/a && git add src &&
		git commit -q -m code &&
		git threadmind new Auth --paths src --switch -q &&
		echo "- login" | git threadmind summary -q auth -F - &&
		git add .threadmind && git commit -q -m auth) >/dev/null 2>&1
}

# The scenario, in REPO with ThreadMind installed through a manager whose
# own post-commit hook prints OWN: real checkouts, commits, a merge and an
# amend, and our lines in what git printed (the managers print their own
# around them).  Each step says what it checks when it fails.

# scenario_branch REPO OWN: a new branch, a thread made there, recorded by
# post-commit; the manager's own post-commit ran.
scenario_branch() {
	(cd "$1" && git checkout -q -b feat &&
		git threadmind new "UI work" --switch -q &&
		git add .threadmind && git commit -q -m ui) >out 2>&1 &&
	grep "$2" out &&
	test "$(cfg "$1/.threadmind/config.json" 'd["branchThreads"]["app"]["feat"]')" = ui-work
}

# scenario_switch REPO: checking out a branch switches the active thread.
scenario_switch() {
	(cd "$1" && git checkout -q main) >out 2>&1 &&
	grep "^threadmind: active thread is now auth (Auth)$" out &&
	test "$(active "$1")" = auth &&
	(cd "$1" && git checkout -q feat) >out 2>&1 &&
	grep "^threadmind: active thread is now ui-work (UI work)$" out &&
	test "$(active "$1")" = ui-work
}

# scenario_commit REPO OWN: a commit of src/ says auth may be outdated.
scenario_commit() {
	(cd "$1" && echo b >>src/a && git commit -q -am "change src") \
		>out 2>&1 &&
	grep "^threadmind: summaries may be outdated: auth (git threadmind stale)$" out &&
	grep "$2" out
}

# scenario_merge REPO: post-merge flags the stale thread after a merge.
scenario_merge() {
	(cd "$1" && git checkout -q main && git merge -q --no-ff -m merge feat) \
		>out 2>&1 &&
	grep "^threadmind: summaries may be outdated: auth (git threadmind stale)$" out
}

# scenario_amend REPO: post-rewrite lists a thread anchored on the
# amended commit.
scenario_amend() {
	head=$(git -C "$1" rev-parse HEAD) &&
	python3 - "$1/.threadmind/threads/app/auth.md" "$head" <<-\EOF &&
	import re, sys
	s = open(sys.argv[1]).read()
	open(sys.argv[1], "w").write(re.sub(r"(?m)^commit: .*$", "commit: " + sys.argv[2], s))
	EOF
	(cd "$1" && git commit -q -a --amend --no-edit) >out 2>&1 &&
	grep "^threadmind: re-anchor with git threadmind touch: auth$" out
}

# scenario_refuse REPO: pre-commit refuses conflict markers in a staged
# frontmatter (and nothing is committed).
scenario_refuse() {
	f=.threadmind/threads/app/auth.md &&
	cp "$1/$f" auth.md.saved &&
	python3 - "$1/$f" <<-\EOF &&
	import sys
	p = sys.argv[1]
	out = []
	for line in open(p).read().splitlines(True):
	    if line.startswith("title: "):
	        out += ["<<<<<<< ours\n", line, "=======\n",
	                "title: Theirs\n", ">>>>>>> theirs\n"]
	    else:
	        out.append(line)
	open(p, "w").write("".join(out))
	EOF
	git -C "$1" rev-parse HEAD >head.before &&
	(cd "$1" && git add $f && test_must_fail git commit -q -m markers) \
		>out 2>&1 &&
	grep "^threadmind: commit refused: conflict markers in the frontmatter of '$f'$" out &&
	git -C "$1" rev-parse HEAD >head.after &&
	test_cmp head.before head.after &&
	cp auth.md.saved "$1/$f" && git -C "$1" add $f
}

# worktree_add REPO: a linked worktree wt-REPO on a new branch.
worktree_add() {
	(cd "$1" && git worktree add -q ../wt-$1 -b wt-$1 main) >out 2>&1
}

# scenario_worktree REPO OWN: in the linked worktree, a commit of src/ is
# flagged too, and the manager's own hook ran.
scenario_worktree() {
	(cd wt-$1 && git threadmind switch auth -q &&
		echo c >>src/a && git commit -q -am "in the worktree") \
		>out 2>&1 &&
	grep "^threadmind: summaries may be outdated: auth (git threadmind stale)$" out &&
	grep "$2" out &&
	test "$(cfg "wt-$1/.threadmind/config.json" "d[\"branchThreads\"][\"app\"][\"wt-$1\"]")" = auth
}
