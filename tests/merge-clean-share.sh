#!/bin/sh
# The share of clean results of git-threadmind-merge next to `git
# merge-file`'s on the seeded three-way cases of the unit suite's property
# test (tests/unit/check_merge_sections.c), as reported in docs/merge.md.
# Not part of `make check`.  Usage, after `make all build/check_unit`:
#   sh tests/merge-clean-share.sh [BUILD-FOLDER]
# TM_DRIVER=<binary> measures another build of the driver on the same cases.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
driver=${TM_DRIVER:-$build/git-threadmind-merge}
[ -x "$build/check_unit" ] && [ -x "$driver" ] || {
	echo "merge-clean-share: build check_unit and the driver first" >&2
	exit 2
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/tm-merge-share.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/cases"
(cd "$root/tests/unit" && TM_TEST_RESOURCES=$PWD/../resources \
	TM_MERGE_CORPUS="$dir/cases" CK_RUN_SUITE=merge_sections \
	"$build/check_unit" >"$dir/unit.out" 2>&1) || {
	cat "$dir/unit.out" >&2
	exit 1
}

# dup FILE: whether a list item line appears twice (no side holds one
# twice in these cases).
dup() {
	tr -d '\r' <"$1" | grep '^- ' | sort | uniq -d | grep -q .
}

n=0 ours=0 git=0 git_dup=0 ours_dup=0
for o in "$dir"/cases/*.O; do
	c=${o%.O}
	n=$((n + 1))
	if git merge-file -p "$c.A" "$o" "$c.B" >"$dir/git.out" 2>/dev/null; then
		git=$((git + 1))
		dup "$dir/git.out" && git_dup=$((git_dup + 1))
	fi
	cp "$c.A" "$dir/ours.out"
	if "$driver" "$o" "$dir/ours.out" "$c.B" 7 \
		.threadmind/threads/p/t.md 2>/dev/null; then
		ours=$((ours + 1))
		dup "$dir/ours.out" && ours_dup=$((ours_dup + 1))
	fi
done
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", 100 * a / b }'; }
echo "cases: $n"
echo "git-threadmind-merge: $ours clean ($(pct $ours $n)), $ours_dup of them with an item twice"
echo "git merge-file:       $git clean ($(pct $git $n)), $git_dup of them with an item twice"
