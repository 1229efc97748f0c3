#!/bin/sh
# git-threadmind-merge on the frontmatter (issue 19, reproductions 07 and
# 10): every list-valued field is set-merged as `paths` is; `branch` and
# `commit` are one review point, taken together from the side with the
# later updatedAt when either changed on both sides.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

# with_fields DIR: the reproductions' O, A and B with extra frontmatter
# lines: `with_fields DIR 'LINE' 'A-SED' 'B-SED'` adds LINE after
# createdAt in O, then edits A and B with the sed scripts.
with_fields() {
	mkdir -p "$1" &&
	{ x19_fm && printf "## Decisions\n- d1\n"; } |
		sed "/^createdAt: /a\\
$2" >"$1/O" &&
	sed "$3; s/^updatedAt: .*/updatedAt: 2026-04-16T00:00:00.000Z/" "$1/O" >"$1/A" &&
	sed "$4; s/^updatedAt: .*/updatedAt: 2026-04-17T00:00:00.000Z/" "$1/O" >"$1/B"
}

test_expect_success '07: an unknown list field extended differently on both sides keeps every addition' '
	with_fields r07 "tags: [\"auth\"]" \
		"s/^tags: .*/tags: [\"auth\",\"security\"]/" \
		"s/^tags: .*/tags: [\"auth\",\"perf\"]/" &&
	x19_both r07 && test "$(cat r07/rc1)" = 0 && test "$(cat r07/rc2)" = 0 &&
	test "$(fm r07/R1 tags)" = "[\"auth\",\"security\",\"perf\"]" &&
	test "$(fm r07/R2 tags)" = "[\"auth\",\"perf\",\"security\"]"
'

test_expect_success '07: block and flow lists, removals honoured, through git merge' '
	with_fields r07b "tags: [auth, legacy]" \
		"s/^tags: .*/tags: [auth, security]/" \
		"s/^tags: .*/tags:\\n  - auth\\n  - legacy\\n  - perf/" &&
	x19_repo r07b/repo && x19_branches r07b/repo &&
	(cd r07b/repo && git merge -q --no-edit side) &&
	test "$(fm r07b/repo/$X19 tags)" = "[\"auth\",\"security\",\"perf\"]" &&
	git -C r07b/repo threadmind show x >/dev/null
'

test_expect_success '07: a list field changed on one side only keeps that side, as written' '
	with_fields r07c "tags: [auth]" "s/^tags: .*/tags: [auth, ui]/" \
		"s/^- d1$/- d1\\n- d2/" &&
	x19_both r07c && test "$(fm r07c/R1 tags)" = "[auth, ui]"
'

B1=b111111111111111111111111111111111111111
C2=c222222222222222222222222222222222222222

test_expect_success '10: commit changed on both sides, branch on one: both from the later updatedAt' '
	with_fields r10 "branch: feature/a\\
commit: a000000000000000000000000000000000000000" \
		"s/^commit: .*/commit: $C2/; s/^branch: .*/branch: feature\\/b/" \
		"s/^commit: .*/commit: $B1/" &&
	x19_both r10 && test "$(cat r10/rc1)" = 0 &&
	test "$(fm r10/R1 branch)" = feature/a && test "$(fm r10/R1 commit)" = $B1 &&
	cmp r10/R1 r10/R2
'

test_expect_success '10: branch changed on both sides, commit on one: both from the later updatedAt' '
	with_fields r10b "branch: main\\
commit: a000000000000000000000000000000000000000" \
		"s/^branch: .*/branch: feature\\/a/; s/^commit: .*/commit: $C2/" \
		"s/^branch: .*/branch: feature\\/b/" &&
	x19_both r10b &&
	test "$(fm r10b/R1 branch)" = feature/b &&
	test "$(fm r10b/R1 commit)" = a000000000000000000000000000000000000000
'

test_expect_success '10: each changed on one side only: each side'"'"'s change, as before' '
	with_fields r10c "branch: main\\
commit: a000000000000000000000000000000000000000" \
		"s/^branch: .*/branch: feature\\/a/" \
		"s/^commit: .*/commit: $B1/" &&
	x19_both r10c &&
	test "$(fm r10c/R1 branch)" = feature/a && test "$(fm r10c/R1 commit)" = $B1
'

test_done
