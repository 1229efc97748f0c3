#!/bin/sh
# git threadmind diff: the revisions as git diff takes them (none: the work
# tree against the index; one; two; A..B; A...B from the merge base;
# --cached), `-- <thread>` limits, exit codes, several projects and a
# project renamed.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop

# thread FILE ID PARENT DAY: a thread file written by hand, summary on
# stdin.
thread() {
	{
		printf "%s\n" "---" "id: $2" "title: Thread $2" "parentId: $3" \
			"author: ann-1234" "createdAt: 2026-01-0$4T00:00:00.000Z" \
			"updatedAt: 2026-01-0$4T00:00:00.000Z" "---" &&
		cat
	} >"$1"
}

commit() {
	git add -A && test_tick && git commit -q -m "$1"
}

# names: the --name-status lines of `git threadmind diff ARGS` in ./out
names() {
	git threadmind diff --name-status "$@" >out
}

test_expect_success 'setup: main and a feature branch' '
	new_repo shop && cd shop &&
	git threadmind init -q --title Shop >/dev/null &&
	printf "## Decisions\n- one\n" | thread $T/auth.md auth main 2 &&
	commit base &&
	git checkout -q -b feature &&
	printf "## Decisions\n- one\n- two\n" | thread $T/auth.md auth main 2 &&
	printf "## State\n- started\n" | thread $T/billing.md billing main 3 &&
	commit feature &&
	git checkout -q main &&
	printf "## State\n- new\n" | thread $T/cart.md cart main 4 &&
	commit cart
'

test_expect_success 'two commits, A..B, and A...B from the merge base' '
	cd shop &&
	names main feature &&
	printf "M\tauth\nA\tbilling\nD\tcart\n" >expect &&
	test_cmp expect out &&
	names main..feature &&
	test_cmp expect out &&
	names main...feature &&
	printf "M\tauth\nA\tbilling\n" >expect &&
	test_cmp expect out &&
	git threadmind diff --json main...feature >json &&
	python3 -c "import json; d=json.load(open(\"json\"))
assert d[\"from\"] == {\"side\": \"commit\", \"commit\": \"$(git merge-base main feature)\"}, d
assert d[\"to\"] == {\"side\": \"commit\", \"commit\": \"$(git rev-parse feature)\"}, d"
'

test_expect_success 'one commit: against the work tree' '
	cd shop &&
	names HEAD~1 &&
	printf "A\tcart\n" >expect &&
	test_cmp expect out &&
	git threadmind diff --json HEAD~1 >json &&
	grep "\"side\": \"worktree\"" json
'

test_expect_success 'no revision: the work tree against the index; --cached' '
	cd shop &&
	printf "## State\n- new\n- edited\n" | thread $T/cart.md cart main 4 &&
	names &&
	printf "M\tcart\n" >expect &&
	test_cmp expect out &&
	names --cached &&
	test_must_fail test -s out &&
	git add $T/cart.md &&
	names &&
	test_must_fail test -s out &&
	names --cached &&
	printf "M\tcart\n" >expect &&
	test_cmp expect out &&
	names --staged HEAD &&
	test_cmp expect out &&
	git threadmind diff >out &&
	test_must_fail test -s out &&
	git threadmind diff --cached >out &&
	printf "M cart  Thread cart\n    ## State\n      + - edited\n" >expect &&
	test_cmp expect out &&
	git commit -q -m edited
'

test_expect_success 'untracked thread files are left out, as git diff does' '
	cd shop &&
	git threadmind new -q Search >/dev/null &&
	names HEAD &&
	test_must_fail test -s out &&
	git add -A && names --cached &&
	grep "^A	search$" out &&
	git commit -q -m search
'

test_expect_success '-- <thread> limits; a prefix or a thread only a commit has' '
	cd shop &&
	names main feature -- auth &&
	printf "M\tauth\n" >expect &&
	test_cmp expect out &&
	names main feature -- au &&
	test_cmp expect out &&
	names main feature -- billing &&
	printf "A\tbilling\n" >expect &&
	test_cmp expect out &&
	names main feature auth &&
	printf "M\tauth\n" >expect &&
	test_cmp expect out &&
	names main feature -- auth billing &&
	printf "M\tauth\nA\tbilling\n" >expect &&
	test_cmp expect out
'

test_expect_success 'bad and ambiguous arguments' '
	cd shop &&
	test_exit_code 128 git threadmind diff nosuch 2>err &&
	grep "^fatal: ambiguous argument .nosuch.: unknown revision or thread; use .--." err &&
	test_exit_code 128 git threadmind diff nosuch -- 2>err &&
	grep "^fatal: bad revision .nosuch.$" err &&
	test_exit_code 128 git threadmind diff main feature HEAD 2>err &&
	grep "too many revisions" err &&
	test_exit_code 128 git threadmind diff --cached main feature 2>err &&
	grep "cached" err &&
	test_exit_code 128 git threadmind diff main..feature HEAD 2>err &&
	grep "range" err &&
	test_exit_code 129 git threadmind diff --stat --json 2>err &&
	test_exit_code 129 git threadmind diff --format=html 2>err &&
	grep "format" err &&
	test_exit_code 128 git threadmind diff -- ../x 2>err &&
	grep "invalid thread id" err
'

test_expect_success '--exit-code and -q' '
	cd shop &&
	test_exit_code 1 git threadmind diff --exit-code main feature >out &&
	test -s out &&
	test_exit_code 1 git threadmind diff -q main feature >out &&
	test_must_fail test -s out &&
	test_exit_code 1 git threadmind diff --quiet main feature >out &&
	test_must_fail test -s out &&
	test_exit_code 0 git threadmind -q diff main main >out &&
	test_must_fail test -s out &&
	test_exit_code 0 git threadmind diff --exit-code main feature -- nosuch-id
'

test_expect_success 'several projects: each headed; --project picks one' '
	cd shop &&
	git threadmind project new -q Back >/dev/null &&
	git threadmind --project shop new -q Coupons >/dev/null &&
	git add -A && git commit -q -m "back office" &&
	git threadmind diff HEAD~1 HEAD >out &&
	cat >expect <<-\EOF &&
	project back (added)
	A main  Main
	    a root
	project shop
	A coupons  Coupons
	    under main
	EOF
	test_cmp expect out &&
	names HEAD~1 HEAD &&
	printf "A\tback/main\nA\tshop/coupons\n" >expect &&
	test_cmp expect out &&
	names --project shop HEAD~1 HEAD &&
	printf "A\tcoupons\n" >expect &&
	test_cmp expect out &&
	git threadmind diff --json HEAD~1 HEAD >json &&
	python3 -c "import json; d=json.load(open(\"json\"))
assert [(p[\"project\"], p[\"oldProject\"]) for p in d[\"projects\"]] == [(\"back\", None), (\"shop\", \"shop\")], d"
'

test_expect_success 'a project renamed: one project, its changed threads only' '
	cd shop &&
	git mv .threadmind/threads/back .threadmind/threads/office &&
	sed "s/\"id\": \"back\"/\"id\": \"office\"/" .threadmind/projects/back.json \
		>.threadmind/projects/office.json &&
	git rm -q .threadmind/projects/back.json &&
	git add -A && git commit -q -m rename &&
	git threadmind diff HEAD~1 HEAD >out &&
	echo "project office (renamed from back)" >expect &&
	test_cmp expect out &&
	git threadmind diff --json HEAD~1 HEAD >json &&
	python3 -c "import json; d=json.load(open(\"json\"))
assert d[\"projects\"] == [{\"project\": \"office\", \"oldProject\": \"back\", \"threads\": []}], d" &&
	git threadmind --project office set -q main "title=Office" &&
	git add -A && git commit -q -m retitle &&
	git threadmind diff HEAD~2 HEAD >out &&
	cat >expect <<-\EOF &&
	project office (renamed from back)
	M main  Office
	    title: Main -> Office
	EOF
	test_cmp expect out
'

test_done
