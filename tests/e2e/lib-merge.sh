# Helpers of the merge-driver end-to-end tests (sourced by t3*-merge-*.sh
# after test-lib.sh): a repository with the driver registered, a thread
# file written by hand, field edits with sed.

THREAD=.threadmind/threads/app/auth-ui.md
PROJECT=.threadmind/projects/app.json

# setup_driver DIR: register git-threadmind-merge in repository DIR and
# write .threadmind/.gitattributes as gitattributes.sample says.
setup_driver() {
	git -C "$1" config merge.threadmind.name 'threadmind files' &&
	git -C "$1" config merge.threadmind.driver \
		'git-threadmind-merge %O %A %B %L %P' &&
	mkdir -p "$1/.threadmind" &&
	grep -v '^#' "$TEST_SRC/gitattributes.sample" \
		>"$1/.threadmind/.gitattributes"
}

# write_thread FILE: the sample thread auth-ui of project app.
write_thread() {
	mkdir -p "$(dirname "$1")" &&
	cat >"$1" <<-\EOT
	---
	id: auth-ui
	title: Auth UI
	parentId: main
	author: a-u-thor-1234
	createdAt: 2026-04-15T10:00:00.000Z
	updatedAt: 2026-04-15T12:00:00.000Z
	branch: main
	commit: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
	paths: ["src/auth"]
	---

	## Decisions
	- Login form with React Hook Form

	## State
	Sign-up is done.
	- password reset to do
	EOT
}

# write_project FILE: the sample project file of project app.
write_project() {
	mkdir -p "$(dirname "$1")" &&
	cat >"$1" <<-\EOT
	{
	  "id": "app",
	  "title": "App",
	  "systemContext": "Next.js shop",
	  "mode": "solo",
	  "rootThreadId": "main"
	}
	EOT
}

# set_field FILE KEY VALUE: replace the frontmatter line "KEY: ...".
set_field() {
	sed "s|^$2: .*|$2: $3|" "$1" >"$1.new" && mv "$1.new" "$1" &&
	grep -qxF "$2: $3" "$1"
}

# add_item FILE SECTION ITEM: append "- ITEM" to the end of a section.
add_item() {
	awk -v sec="## $2" -v item="- $3" '
		$0 == sec { in_sec = 1; print; next }
		in_sec && (/^## / || /^$/) { print item; in_sec = 0 }
		{ print }
		END { if (in_sec) print item }' "$1" >"$1.new" &&
	mv "$1.new" "$1" && grep -qxF -- "- $3" "$1"
}

# header FILE: the frontmatter block, from the first line to the second
# `---` (sed -n '1,/^---$/p' would stop at the first).
header() {
	awk 'n < 2 { print } /^---\r?$/ { n++ }' "$1"
}

# no_markers_in_header FILE: nothing above the second `---` is a marker.
no_markers_in_header() {
	header "$1" >header.out &&
	test "$(grep -c '^---' header.out)" = 2 &&
	! grep -E '^(<<<<<<<|=======|>>>>>>>|\|\|\|\|\|\|\|)' header.out
}

# base_repo DIR: a repository with the driver, the sample thread and
# project committed on main.
base_repo() {
	git init -q "$1" &&
	setup_driver "$1" &&
	write_thread "$1/$THREAD" &&
	write_project "$1/$PROJECT" &&
	(cd "$1" && git add -A && git commit -q -m base)
}

B40=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
C40=cccccccccccccccccccccccccccccccccccccccc

# fm_branches DIR: base_repo, then branch feat and main (checked out at
# the end) both editing the thread's frontmatter and adding an item.
fm_branches() {
	base_repo "$1" &&
	(cd "$1" &&
	git checkout -q -b feat &&
	set_field $THREAD title "Auth UI v2" &&
	set_field $THREAD updatedAt 2026-04-15T13:00:00.000Z &&
	set_field $THREAD branch feat &&
	set_field $THREAD commit $B40 &&
	set_field $THREAD paths '["src/auth","src/feat"]' &&
	add_item $THREAD Decisions "Feat item" &&
	git commit -q -am feat &&
	git checkout -q main &&
	set_field $THREAD updatedAt 2026-04-15T14:00:00.000Z &&
	set_field $THREAD branch release &&
	set_field $THREAD commit $C40 &&
	set_field $THREAD paths '["src/auth","src/main"]' &&
	add_item $THREAD Decisions "Main item" &&
	git commit -q -am main)
}

# expect_fm_merged FILE: FILE is fm_branches merged with main as ours.
expect_fm_merged() {
	cat >expect <<-EOT &&
	---
	id: auth-ui
	title: Auth UI v2
	parentId: main
	author: a-u-thor-1234
	createdAt: 2026-04-15T10:00:00.000Z
	updatedAt: 2026-04-15T14:00:00.000Z
	branch: release
	commit: $C40
	paths: ["src/auth","src/main","src/feat"]
	---

	## Decisions
	- Login form with React Hook Form
	- Main item
	- Feat item

	## State
	Sign-up is done.
	- password reset to do
	EOT
	test_cmp expect "$1"
}

# ---- issue 19's reproductions (t3030-t3036) ----

# X19 and x19_fm UPDATEDAT: the reproductions' thread x
# (.threadmind/threads/app/x.md), its frontmatter and the blank line after.
X19=.threadmind/threads/app/x.md
x19_fm() {
	printf -- '---\nid: x\ntitle: X\nparentId: main\nauthor: ana-1c2e\ncreatedAt: 2026-04-15T10:00:00.000Z\nupdatedAt: %s\n---\n\n' "${1:-2026-04-15T12:00:00.000Z}"
}

# x19_sides DIR O-BODY A-BODY B-BODY: DIR/O, DIR/A and DIR/B with those
# bodies (printf formats); A's updatedAt is the 16th, B's the 17th (B
# leads).
x19_sides() {
	mkdir -p "$1" &&
	{ x19_fm && printf -- "$2"; } >"$1/O" &&
	{ x19_fm 2026-04-16T00:00:00.000Z && printf -- "$3"; } >"$1/A" &&
	{ x19_fm 2026-04-17T00:00:00.000Z && printf -- "$4"; } >"$1/B"
}

# x19_both DIR: the driver as git runs it, both ways: DIR/R1 with A as
# ours, DIR/R2 with B as ours; exit codes in DIR/rc1 and DIR/rc2.
x19_both() {
	cp "$1/A" "$1/R1" && cp "$1/B" "$1/R2" &&
	(cd "$1" && { git-threadmind-merge O R1 B 7 $X19 2>err1; echo $? >rc1; } &&
	{ git-threadmind-merge O R2 A 7 $X19 2>err2; echo $? >rc2; })
}

# x19_expect DIR RC BODY: both ways exit RC; the merge with A as ours has
# exactly BODY (a printf format) after its frontmatter.
x19_expect() {
	x19_both "$1" &&
	test "$(cat "$1/rc1")" = "$2" && test "$(cat "$1/rc2")" = "$2" &&
	printf -- "$3" >"$1/expect" && body "$1/R1" >"$1/got" &&
	test_cmp "$1/expect" "$1/got" && no_markers_in_header "$1/R1" &&
	no_markers_in_header "$1/R2"
}

# x19_repo DIR: a repository with threadmind initialised and installed
# (the driver as `install` registers it), committed on main.
x19_repo() {
	git init -q -b main "$1" &&
	(cd "$1" && git threadmind init --title app >/dev/null &&
	git threadmind install >/dev/null && git add -A &&
	git commit -q -m init)
}

# x19_branches DIR: in the repository DIR, O committed on main, branch
# side holding B, main holding A (checked out at the end).
x19_branches() {
	(cd "$1" && mkdir -p .threadmind/threads/app && cp ../O $X19 &&
	git add -A && git commit -q -m base && git checkout -q -b side &&
	cp ../B $X19 && git commit -q -am side && git checkout -q main &&
	cp ../A $X19 && git commit -q -am main)
}
