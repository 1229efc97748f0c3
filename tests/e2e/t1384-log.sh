#!/bin/sh
# git threadmind log: the commits that changed a thread (or every thread),
# newest first, with their author, date, subject and change; -p, --oneline,
# -n, --since, --reverse, --json; merges; a project renamed followed.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop
SQ="'"

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

short() {
	git rev-parse --short=7 "$1"
}

test_expect_success 'setup: a thread through five commits and a merge' '
	new_repo shop && cd shop &&
	git threadmind init -q --title Shop >/dev/null &&
	commit store &&
	printf "## Decisions\n- one\n" | thread $T/auth.md auth main 2 &&
	commit "auth: created" &&
	echo code >code.c && commit "code only" &&
	printf "## Decisions\n- one\n- two\n" | thread $T/auth.md auth main 2 &&
	printf "## State\n- b\n" | thread $T/billing.md billing main 3 &&
	commit "auth: two; billing" &&
	git checkout -q -b side &&
	printf "## Decisions\n- one\n- two\n\n## State\n- side\n" |
		thread $T/auth.md auth main 2 &&
	commit "side: state" &&
	git checkout -q main &&
	printf "Preamble from main.\n\n## Decisions\n- one\n- two\n" |
		thread $T/auth.md auth main 2 &&
	commit "main: preamble" &&
	git threadmind install -q >/dev/null &&
	test_tick && git merge -q --no-edit side &&
	grep "^Preamble from main.$" $T/auth.md &&
	grep "^- side$" $T/auth.md &&
	git checkout -q -b other &&
	printf "## State\n- b\n- c\n" | thread $T/billing.md billing main 3 &&
	commit "billing only" &&
	git checkout -q main && test_tick && git merge -q --no-edit other &&
	git threadmind done -q auth && commit "auth: done"
'

test_expect_success '--oneline: newest first (commit date), merges that combined' '
	cd shop &&
	git threadmind log --oneline auth >out &&
	cat >expect <<-EOF &&
	$(short HEAD) auth: done (auth: done)
	$(short HEAD~2) Merge branch ${SQ}side${SQ} (auth: +1 items, +1 sections)
	$(short HEAD~3) main: preamble (auth: +1 items)
	$(short HEAD~2^2) side: state (auth: +1 items, +1 sections)
	$(short HEAD~4) auth: two; billing (auth: +1 items)
	$(short HEAD~6) auth: created (auth: added, +1 items)
	EOF
	test_cmp expect out
'

test_expect_success 'the default: author, date, subject and the change; -p' '
	cd shop &&
	git threadmind log -n 2 auth >out &&
	cat >expect <<-EOF &&
	commit $(git rev-parse HEAD)
	Author: A U Thor <author@example.com>
	Date:   2026-04-15 10:10:00 +0000

	    auth: done

	S auth  Thread auth
	    done

	commit $(git rev-parse HEAD~2)
	Merge: $(short HEAD~3) $(short HEAD~2^2)
	Author: A U Thor <author@example.com>
	Date:   2026-04-15 10:07:00 +0000

	    Merge branch ${SQ}side${SQ}

	    (merge: combined both sides; the change against the first parent)

	M auth  Thread auth
	    ## State (added): +1
	EOF
	test_cmp expect out &&
	git threadmind log -p -n 1 HEAD~2 -- auth >out &&
	sed -n "/^M auth/,\$p" out >tail &&
	printf "M auth  Thread auth\n    ## State (added)\n      + - side\n" >expect &&
	test_cmp expect tail
'

test_expect_success '-n, --since and --reverse' '
	cd shop &&
	git threadmind log --oneline --since 2026-04-15T10:05:30Z auth >out &&
	test_line_count() { test $(wc -l <"$2") -eq "$1"; } &&
	test_line_count 3 out &&
	head -n 1 out | grep "auth: done" &&
	tail -n 1 out | grep "main: preamble" &&
	git threadmind log --oneline --since @1776247530 auth >out2 &&
	test_cmp out out2 &&
	git threadmind log --oneline --since "3 years ago" auth >out &&
	test_line_count 6 out &&
	git threadmind log --oneline --reverse -n 2 auth >out &&
	printf "%s\n%s\n" "$(short HEAD~2) Merge branch ${SQ}side${SQ} (auth: +1 items, +1 sections)" \
		"$(short HEAD) auth: done (auth: done)" >expect &&
	test_cmp expect out &&
	git threadmind log -n 0 auth >out &&
	test_must_fail test -s out &&
	test_exit_code 129 git threadmind log -n x auth 2>err &&
	test_exit_code 129 git threadmind log --since yesterday-ish auth 2>err &&
	grep "cannot read" err
'

test_expect_success '--json: one document, every commit' '
	cd shop &&
	git threadmind log --json -n 2 auth >out &&
	json_is "d[\"project\"] == \"shop\" and d[\"thread\"] == \"auth\"" &&
	json_is "[c[\"commit\"] for c in d[\"commits\"]] == [\"$(git rev-parse HEAD)\", \"$(git rev-parse HEAD~2)\"]" &&
	json_is "d[\"commits\"][0][\"author\"] == {\"name\": \"A U Thor\", \"email\": \"author@example.com\", \"date\": \"2026-04-15T10:10:00+00:00\"}" &&
	json_is "d[\"commits\"][0][\"subject\"] == \"auth: done\" and not d[\"commits\"][0][\"merge\"]" &&
	json_is "d[\"commits\"][0][\"parents\"] == [\"$(git rev-parse HEAD~1)\"] and d[\"commits\"][0][\"against\"] == \"$(git rev-parse HEAD~1)\"" &&
	json_is "d[\"commits\"][1][\"merge\"] and d[\"commits\"][1][\"combined\"]" &&
	json_is "d[\"commits\"][0][\"projects\"][0][\"threads\"][0][\"fields\"] == [{\"field\": \"status\", \"old\": None, \"new\": \"done\"}]" &&
	git threadmind log --json --reverse auth >out &&
	json_is "d[\"commits\"][0][\"against\"] == \"$(git rev-parse HEAD~7)\" and d[\"commits\"][0][\"projects\"][0][\"threads\"][0][\"status\"] == \"added\""
'

test_expect_success 'every thread; revisions and ranges; main the thread or the branch' '
	cd shop &&
	git threadmind log --oneline >out &&
	cat >expect <<-EOF &&
	$(short HEAD) auth: done (auth: done)
	$(short HEAD~1) billing only (billing: +1 items)
	$(short HEAD~2) Merge branch ${SQ}side${SQ} (auth: +1 items, +1 sections)
	$(short HEAD~3) main: preamble (auth: +1 items)
	$(short HEAD~2^2) side: state (auth: +1 items, +1 sections)
	$(short HEAD~4) auth: two; billing (auth: +1 items; billing: added, +1 items)
	$(short HEAD~6) auth: created (auth: added, +1 items)
	$(short HEAD~7) store (main: added)
	EOF
	test_cmp expect out &&
	git threadmind log --oneline main -- >out2 &&
	test_cmp out out2 &&
	git threadmind log --oneline main >out &&
	echo "$(short HEAD~7) store (main: added)" >expect &&
	test_cmp expect out &&
	git threadmind log --oneline -- main >out &&
	test_cmp expect out &&
	git threadmind log --oneline auth HEAD~3..HEAD >out &&
	cat >expect <<-EOF &&
	$(short HEAD) auth: done (auth: done)
	$(short HEAD~2) Merge branch ${SQ}side${SQ} (auth: +1 items, +1 sections)
	$(short HEAD~2^2) side: state (auth: +1 items, +1 sections)
	EOF
	test_cmp expect out &&
	git threadmind log --oneline auth side >out &&
	cat >expect <<-EOF &&
	$(short side) side: state (auth: +1 items, +1 sections)
	$(short HEAD~4) auth: two; billing (auth: +1 items)
	$(short HEAD~6) auth: created (auth: added, +1 items)
	EOF
	test_cmp expect out &&
	git threadmind log --oneline auth ^side HEAD >out &&
	test $(wc -l <out) -eq 3 &&
	! grep "side: state" out &&
	test_exit_code 128 git threadmind log nosuch 2>err &&
	grep "ambiguous argument" err &&
	test_exit_code 129 git threadmind log --oneline -- auth billing 2>err
'

test_expect_success 'a commit changing only updatedAt is left out (--all-fields: listed)' '
	cd shop &&
	sed "s/^updatedAt: .*/updatedAt: 2030-01-01T00:00:00.000Z/" $T/auth.md >x &&
	mv x $T/auth.md && commit "touch only" &&
	git threadmind log --oneline -n 1 auth >out &&
	grep "auth: done" out &&
	git threadmind log --oneline -n 1 --all-fields auth >out &&
	grep "^$(short HEAD) touch only (auth: updatedAt)$" out
'

test_expect_success 'a project renamed: log follows the thread into the old folder' '
	cd shop &&
	git mv .threadmind/threads/shop .threadmind/threads/store &&
	sed "s/\"id\": \"shop\"/\"id\": \"store\"/" .threadmind/projects/shop.json \
		>.threadmind/projects/store.json &&
	git rm -q .threadmind/projects/shop.json &&
	commit "rename the project" &&
	printf "## Decisions\n- one\n- two\n- three\n" |
		git threadmind --project store summary -q auth -F - &&
	commit "auth: three" &&
	git threadmind --project store log --oneline -n 3 auth >out &&
	cat >expect <<-EOF &&
	$(short HEAD) auth: three (auth: +1 -2 items, -1 sections, branch, reviewed)
	$(short HEAD~1) rename the project (project store renamed from shop)
	$(short HEAD~3) auth: done (auth: done)
	EOF
	test_cmp expect out &&
	git threadmind --project store log --json -n 2 auth >out &&
	json_is "[c[\"project\"] for c in d[\"commits\"]] == [\"store\", \"store\"]" &&
	json_is "d[\"commits\"][1][\"projects\"] == [{\"project\": \"store\", \"oldProject\": \"shop\", \"threads\": []}]" &&
	git threadmind --project store log --oneline -n 4 >out &&
	grep "rename the project (project store renamed from shop)" out &&
	grep "billing only" out
'

test_done
