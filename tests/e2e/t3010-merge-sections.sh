#!/bin/sh
# git-threadmind-merge on section bodies (DESIGN.md section 11, "Section
# bodies"): the reproductions of issue 10 (shared/repro/merge/*.sh), each
# run as the script does (the driver on three files) and through a real
# `git merge`, plus the driver's `paths` merge on a large input.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

# The frontmatter of the reproductions' thread x (8 lines), but its
# updatedAt: `frontmatter $X updatedAt=...`.
X="id=x title=X parentId=main author=a createdAt=2026-01-01T00:00:00.000Z"

# sides DIR O-BODY A-BODY B-BODY: DIR/O, DIR/A, DIR/B as the scripts write
# them (bodies are printf formats), and DIR/ours a copy of A.
sides() {
	mkdir -p "$1" &&
	{ frontmatter $X updatedAt=2026-01-01T00:00:00.000Z && printf "$2"; } >"$1/O" &&
	{ frontmatter $X updatedAt=2026-01-02T00:00:00.000Z && printf "$3"; } >"$1/A" &&
	{ frontmatter $X updatedAt=2026-01-03T00:00:00.000Z && printf "$4"; } >"$1/B" &&
	cp "$1/A" "$1/ours"
}

# drive DIR: the driver on DIR/O DIR/A DIR/B as the scripts run it; the
# result in DIR/A, its exit status in DIR/rc.
drive() {
	(cd "$1" && git-threadmind-merge O A B 7 .threadmind/threads/p/x.md \
		2>err; echo $? >rc)
}

# via_git DIR: the same three files through `git merge` in repository
# DIR/repo (main holds A, branch theirs B, both from O); the merged file
# in DIR/merged, git's exit status in DIR/git-rc.
via_git() {
	git init -q "$1/repo" &&
	setup_driver "$1/repo" &&
	(cd "$1/repo" &&
	f=.threadmind/threads/p/x.md && mkdir -p .threadmind/threads/p &&
	cp ../O $f && git add -A && git commit -q -m base &&
	git checkout -q -b theirs && cp ../B $f && git commit -q -am theirs &&
	git checkout -q main && cp ../ours $f && git commit -q -am ours &&
	{ git merge -q --no-edit theirs >../git-out 2>&1; echo $? >../git-rc; } &&
	cp $f ../merged)
}

# expect DIR RC BODY: the driver and git both give exit RC and BODY, after
# a frontmatter of 8 lines as the sides' (the scripts show line 9 on).
expect() {
	printf "$3" >"$1/expect" &&
	drive "$1" && test "$(cat "$1/rc")" = "$2" &&
	body "$1/A" >"$1/got" && test_cmp "$1/expect" "$1/got" &&
	no_markers_in_header "$1/A" &&
	test "$(header "$1/A" | wc -l)" = 8 &&
	via_git "$1" &&
	if [ "$2" = 0 ]; then test "$(cat "$1/git-rc")" = 0; else
		test "$(cat "$1/git-rc")" != 0; fi &&
	body "$1/merged" >"$1/got-git" && test_cmp "$1/expect" "$1/got-git" &&
	test "$(header "$1/merged" | wc -l)" = 8
}

test_expect_success 'd1: appending a section does not conflict with an item added above' '
	sides d1 "\n## Next steps\n- Write tests\n" \
		"\n## Next steps\n- Write tests\n\n## Risks\n- Token theft\n" \
		"\n## Next steps\n- Write tests\n- Ask Ana\n" &&
	expect d1 0 "\n## Next steps\n- Write tests\n- Ask Ana\n\n## Risks\n- Token theft\n"
'

test_expect_success 'd2: the last section deleted stays deleted when theirs appends one' '
	sides d2 "\n## Decisions\n- Use JWT\n\n## Next steps\n- Write tests\n" \
		"\n## Decisions\n- Use JWT\n" \
		"\n## Decisions\n- Use JWT\n\n## Next steps\n- Write tests\n\n## Notes\n- Ask Ana\n" &&
	expect d2 0 "\n## Decisions\n- Use JWT\n\n## Notes\n- Ask Ana\n"
'

test_expect_success 'd2: each side deletes a section: both are gone' '
	sides d2b "\n## Decisions\n- Use JWT\n\n## Next steps\n- Write tests\n" \
		"\n## Next steps\n- Write tests\n" \
		"\n## Decisions\n- Use JWT\n" &&
	expect d2b 0 "\n"
'

test_expect_success 'd3: an item added on both sides, a neighbour reworded: once' '
	sides d3 "\n## Next steps\n- Remove the fallback\n" \
		"\n## Next steps\n- Remove the fallback (done)\n- Wire the exporter\n" \
		"\n## Next steps\n- Remove the fallback\n- Wire the exporter\n" &&
	expect d3 0 "\n## Next steps\n- Remove the fallback (done)\n- Wire the exporter\n"
'

N="\n## Notes\n\`\`\`\n<<<<<<< ours\nold\n=======\nnew\n>>>>>>> theirs\n\`\`\`\n"

test_expect_success 'd4: a fenced block showing markers is text' '
	sides d4 "\n## Decisions\n- Use JWT\n$N" \
		"\n## Decisions\n- Use JWT\n- Ours item\n$N" \
		"\n## Decisions\n- Use JWT\n- Theirs item\n$N" &&
	expect d4 0 "\n## Decisions\n- Use JWT\n- Ours item\n- Theirs item\n$N" &&
	! grep "conflict markers" d4/err &&
	grep -xF "updatedAt: 2026-01-03T00:00:00.000Z" d4/A
'

test_expect_success 'controls: items on both sides united; an item added alike once' '
	sides c1 "\n## Decisions\n- Use JWT\n" \
		"\n## Decisions\n- Use JWT\n- Ours item\n" \
		"\n## Decisions\n- Use JWT\n- Theirs item\n" &&
	expect c1 0 "\n## Decisions\n- Use JWT\n- Ours item\n- Theirs item\n" &&
	sides c2 "\n## Next steps\n- Remove the fallback\n" \
		"\n## Next steps\n- Remove the fallback\n- Wire the exporter\n" \
		"\n## Next steps\n- Remove the fallback\n- Wire the exporter\n" &&
	expect c2 0 "\n## Next steps\n- Remove the fallback\n- Wire the exporter\n"
'

test_expect_success 'a section added on both sides stays one list' '
	sides s1 "\n## Decisions\n- d1\n" \
		"\n## Decisions\n- d1\n\n## Risks\n- r1\n" \
		"\n## Decisions\n- d1\n- d2\n\n## Risks\n- r2\n" &&
	expect s1 0 "\n## Decisions\n- d1\n- d2\n\n## Risks\n- r1\n- r2\n"
'

test_expect_success 'a conflict stays in its section, one blank line between sections' '
	sides s2 "\n## A\nBase prose.\n\n\n## B\n- b\n" \
		"\n## A\nOurs prose.\n\n\n## B\n- b\n" \
		"\n## A\nTheirs prose.\n\n## B\n- b\n\n## C\n- c\n" &&
	expect s2 1 "\n## A\n<<<<<<< ours\nOurs prose.\n=======\nTheirs prose.\n>>>>>>> theirs\n\n## B\n- b\n\n## C\n- c\n"
'

test_expect_success 'an ancestor with markers in its frontmatter is read as empty' '
	mkdir cc && (cd cc &&
	{ printf -- "---\nid: x\ntitle: X\nparentId: main\n" &&
	  printf -- "<<<<<<< Temporary merge branch 1\nupdatedAt: 2026-01-01T00:00:00.000Z\n" &&
	  printf -- "=======\nupdatedAt: 2026-01-01T00:00:01.000Z\n" &&
	  printf -- ">>>>>>> Temporary merge branch 2\n---\n\n## Decisions\n- Use JWT\n"; } >O &&
	{ frontmatter $X updatedAt=2026-01-02T00:00:00.000Z && printf "\n## Decisions\n- Use JWT\n- Ours\n"; } >A &&
	{ frontmatter $X updatedAt=2026-01-03T00:00:00.000Z && printf "\n## Decisions\n- Use JWT\n- Theirs\n"; } >B) &&
	drive cc && test "$(cat cc/rc)" = 0 &&
	no_markers_in_header cc/A &&
	grep -xF "updatedAt: 2026-01-03T00:00:00.000Z" cc/A &&
	printf "\n## Decisions\n- Use JWT\n- Ours\n- Theirs\n" >cc/expect &&
	body cc/A >cc/got && test_cmp cc/expect cc/got &&
	test "$(header cc/A | wc -l)" = 8
'

test_expect_success 'markers in ours frontmatter: a line merge, exit 1' '
	mkdir m1 && (cd m1 &&
	{ printf -- "---\nid: x\ntitle: X\nparentId: main\n" &&
	  printf -- "<<<<<<< HEAD\nupdatedAt: 2026-01-02T00:00:00.000Z\n" &&
	  printf -- "=======\nupdatedAt: 2026-01-02T00:00:01.000Z\n" &&
	  printf -- ">>>>>>> other\n---\n\n## Decisions\n- Use JWT\n"; } >A &&
	{ frontmatter $X updatedAt=2026-01-01T00:00:00.000Z && printf "\n## Decisions\n- Use JWT\n"; } >O &&
	{ frontmatter $X updatedAt=2026-01-01T00:00:00.000Z && printf "\n## Decisions\n- Use JWT\n- Theirs\n"; } >B) &&
	drive m1 && test "$(cat m1/rc)" = 1 &&
	grep "ours already holds conflict markers" m1/err &&
	grep -xF -- "- Theirs" m1/A
'

# A bound, not a speed test (that is bench/): the quadratic merge took 57 s
# on this input; a loaded machine or the sanitizer build can take a few s.
LIMIT_MS=10000
! sanitizer_build || LIMIT_MS=30000

test_expect_success 'paths changed on both sides: 20,000 items merge far from quadratic time' '
	awk -v n=20000 "function fm(f, u, from, to, extra,   i, sep) {
		printf \"---\nid: t\ntitle: T\nparentId: main\nupdatedAt: %s\npaths: [\", u > f
		for (i = from; i < to; i++) { printf \"%s\\\"p%d\\\"\", sep, i > f; sep = \",\" }
		for (i = 0; i < n && extra != \"\"; i++) printf \",\\\"%s%d\\\"\", extra, i > f
		printf \"]\n---\n\" > f
	}
	BEGIN {
		fm(\"PO\", \"2026-01-01T00:00:00.000Z\", 0, n, \"\")
		fm(\"PA\", \"2026-01-02T00:00:00.000Z\", 1, n, \"a\")
		fm(\"PB\", \"2026-01-03T00:00:00.000Z\", 0, n - 1, \"b\")
	}" &&
	test "$(wc -c <PA)" -gt 300000 &&
	start=$(date +%s%N) &&
	git-threadmind-merge PO PA PB 7 .threadmind/threads/p/t.md &&
	end=$(date +%s%N) &&
	echo "$(( (end - start) / 1000000 )) ms" &&
	test $(( (end - start) / 1000000 )) -lt $LIMIT_MS &&
	grep -c "\"a19999\",\"b0\"" PA &&
	! grep "\"p0\"" PA && ! grep "\"p19999\"" PA &&
	grep "\"p1\",\"p2\"" PA
'

test_done
