#!/bin/sh
# git threadmind diff: every kind of change a thread can go through, each
# checked in the text and in --json (issue 21): threads added and removed
# (title and parent), moved, done / abandoned / reopened / merged into,
# title, branch, paths, a review; the summary by section (added, removed,
# moved, renamed) and by item (added, removed, reworded as one change,
# moved); updatedAt alone is no change unless --all-fields.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop
C=3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f

# thread FILE ID PARENT DAY [KEY=VALUE...]: a thread file written by hand,
# its summary on stdin.
thread() {
	_f=$1 _id=$2 _p=$3 _d=$4
	shift 4
	{
		printf "%s\n" "---" "id: $_id" "title: Thread $_id" \
			"parentId: $_p" "author: ann-1234" \
			"createdAt: 2026-01-0${_d}T00:00:00.000Z" \
			"updatedAt: 2026-01-0${_d}T00:00:00.000Z" &&
		for _kv in "$@"; do
			printf '%s: %s\n' "${_kv%%=*}" "${_kv#*=}" || return 1
		done &&
		printf -- '---\n' &&
		cat
	} >"$_f"
}

commit() {
	git add -A && test_tick && git commit -q -m "$1"
}

# d [ARGS]: git threadmind diff of the last commit, text in out, the
# --json document in json (json_is reads ./out: see jd).
d() {
	git threadmind diff "$@" HEAD~1 HEAD >out &&
	git threadmind diff --json "$@" HEAD~1 HEAD >json
}

# jd EXPR: a python expression on the JSON of the last d (as `d`).
jd() {
	python3 -c "import json; d=json.load(open('json')); assert $1, d"
}

test_expect_success 'setup: a store with auth and billing' '
	new_repo shop && cd shop &&
	git threadmind init -q --title Shop >/dev/null &&
	thread $T/auth.md auth main 2 branch=main "commit=$C" \
		"paths=[\"src/auth\"]" <<-\EOF &&

	## Decisions
	- sessions in cookies
	- passwords hashed with bcrypt
	- no social login

	## Constraints
	- GDPR

	## Notes
	an old note
	EOF
	thread $T/billing.md billing main 3 <<-\EOF &&

	## State
	- invoices by mail
	EOF
	commit threads
'

test_expect_success 'nothing changed: no output, exit 0 (1 with --exit-code)' '
	(cd shop && git threadmind diff HEAD HEAD >../out) &&
	test_must_fail test -s out &&
	(cd shop && git threadmind diff --exit-code HEAD HEAD) &&
	(cd shop &&
	 test_exit_code 1 git threadmind diff --exit-code HEAD~1 HEAD >/dev/null)
'

test_expect_success 'a thread added: title, parent, its summary as added' '
	cd shop &&
	thread $T/auth-ui.md auth-ui auth 4 <<-\EOF &&

	The login screens.

	## Decisions
	- React Hook Form
	  with zod schemas
	EOF
	commit "add auth-ui" && d &&
	cat >expect <<-\EOF &&
	A auth-ui  Thread auth-ui
	    under auth
	    (preamble)
	      + The login screens.
	    ## Decisions (added)
	      + - React Hook Form
	      +   with zod schemas
	EOF
	test_cmp expect out &&
	jd "len(d[\"projects\"]) == 1" &&
	jd "d[\"from\"][\"side\"] == \"commit\" and d[\"to\"][\"side\"] == \"commit\"" &&
	jd "d[\"projects\"][0][\"project\"] == \"shop\"" &&
	jd "[t[\"id\"] for t in d[\"projects\"][0][\"threads\"]] == [\"auth-ui\"]" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"status\"] == \"added\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"letter\"] == \"A\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"oldId\"] is None" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"before\"] is None" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"after\"][\"parentId\"] == \"auth\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"title\"] == \"Thread auth-ui\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"sections\"][1][\"change\"] == \"added\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"sections\"][1][\"items\"] == [{\"change\": \"added\", \"listItem\": True, \"old\": None, \"new\": \"- React Hook Form\n  with zod schemas\"}]"
'

test_expect_success 'a thread removed: what it was under, its summary as removed' '
	cd shop &&
	git rm -q $T/billing.md && commit "drop billing" && d &&
	cat >expect <<-\EOF &&
	D billing  Thread billing
	    was under main
	    ## State (removed)
	      - - invoices by mail
	EOF
	test_cmp expect out &&
	jd "d[\"projects\"][0][\"threads\"][0][\"status\"] == \"removed\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"after\"] is None" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"before\"][\"parentId\"] == \"main\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"sections\"][0][\"removed\"] == 1"
'

test_expect_success 'a thread moved: old parent -> new parent' '
	cd shop &&
	git threadmind move -q auth-ui main &&
	commit "move auth-ui" && d &&
	cat >expect <<-\EOF &&
	M auth-ui  Thread auth-ui
	    moved: auth -> main
	EOF
	test_cmp expect out &&
	jd "d[\"projects\"][0][\"threads\"][0][\"status\"] == \"modified\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"fields\"] == [{\"field\": \"parentId\", \"old\": \"auth\", \"new\": \"main\"}]" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"sections\"] == []"
'

test_expect_success 'status: done, abandoned, reopened' '
	cd shop &&
	git threadmind done -q auth-ui && commit done && d &&
	printf "S auth-ui  Thread auth-ui\n    done\n" >expect &&
	test_cmp expect out &&
	jd "d[\"projects\"][0][\"threads\"][0][\"letter\"] == \"S\"" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"fields\"] == [{\"field\": \"status\", \"old\": None, \"new\": \"done\"}]" &&
	git threadmind abandon -q auth-ui && commit abandon && d &&
	printf "S auth-ui  Thread auth-ui\n    abandoned (was done)\n" >expect &&
	test_cmp expect out &&
	git threadmind reopen -q auth-ui && commit reopen && d &&
	printf "S auth-ui  Thread auth-ui\n    reopened (was abandoned)\n" >expect &&
	test_cmp expect out &&
	jd "d[\"projects\"][0][\"threads\"][0][\"fields\"][0][\"new\"] is None" &&
	git threadmind diff --stat HEAD~3 HEAD~2 >out &&
	printf " auth-ui | done\n 1 thread changed\n" >expect &&
	test_cmp expect out
'

test_expect_success 'merged into its parent: both threads, in tree order' '
	cd shop &&
	git threadmind move -q auth-ui auth && commit "back under auth" &&
	git threadmind merge -q auth-ui && commit merge && d &&
	cat >expect <<-\EOF &&
	M auth  Thread auth
	    reviewed at REVIEW
	    (preamble)
	      + The login screens.
	    ## Decisions
	      + - React Hook Form
	      +   with zod schemas
	S auth-ui  Thread auth-ui
	    done
	    merged into auth
	EOF
	sed "s/REVIEW/$(git rev-parse --short=7 HEAD~1)/" expect >expect2 &&
	test_cmp expect2 out &&
	jd "[t[\"id\"] for t in d[\"projects\"][0][\"threads\"]] == [\"auth\", \"auth-ui\"]" &&
	jd "d[\"projects\"][0][\"threads\"][1][\"fields\"][1] == {\"field\": \"mergedInto\", \"old\": None, \"new\": \"auth\"}"
'

test_expect_success 'title, branch and paths' '
	cd shop &&
	git threadmind set -q auth "title=Auth service" branch=feature/login \
		paths=src/auth/login,src/session 2>/dev/null &&
	commit fields && d &&
	cat >expect <<-\EOF &&
	M auth  Auth service
	    title: Thread auth -> Auth service
	    branch: main -> feature/login
	    paths: +src/auth/login +src/session -src/auth
	EOF
	test_cmp expect out &&
	jd "[f[\"field\"] for f in d[\"projects\"][0][\"threads\"][0][\"fields\"]] == [\"title\", \"branch\", \"paths\"]" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"fields\"][2] == {\"field\": \"paths\", \"added\": [\"src/auth/login\", \"src/session\"], \"removed\": [\"src/auth\"]}"
'

test_expect_success 'a review: the commit moved, "reviewed at <short>"' '
	cd shop &&
	head=$(git rev-parse HEAD) &&
	was=$(git show HEAD:$T/auth.md | sed -n "s/^commit: //p") &&
	git threadmind touch -q auth && commit review && d &&
	printf "M auth  Auth service\n    branch: feature/login -> main\n    reviewed at %s\n" \
		$(git rev-parse --short=7 HEAD~1) >expect &&
	test_cmp expect out &&
	jd "d[\"projects\"][0][\"threads\"][0][\"fields\"] == [{\"field\": \"branch\", \"old\": \"feature/login\", \"new\": \"main\"}, {\"field\": \"commit\", \"old\": \"$was\", \"new\": \"$head\"}]"
'

test_expect_success 'the summary: sections added, removed, moved; items reworded once' '
	cd shop &&
	git threadmind summary -q auth -F - <<-\EOF &&
	The login screens.

	## Constraints
	- GDPR

	## Decisions
	- sessions in cookies
	- passwords hashed with argon2id
	- React Hook Form
	  with zod schemas
	- two-factor by TOTP

	## Open questions
	- SSO for the admins?
	EOF
	commit "auth summary" && d &&
	cat >expect <<-\EOF &&
	M auth  Auth service
	    reviewed at REVIEW
	    ## Constraints (moved)
	    ## Decisions
	      - - no social login
	      ~ - passwords hashed with bcrypt
	      > - passwords hashed with argon2id
	      + - two-factor by TOTP
	    ## Open questions (added)
	      + - SSO for the admins?
	    ## Notes (removed)
	      - an old note
	EOF
	sed "s/REVIEW/$(git rev-parse --short=7 HEAD~1)/" expect >expect2 &&
	test_cmp expect2 out &&
	jd "[(s[\"change\"], s[\"heading\"] or s[\"oldHeading\"], s[\"moved\"]) for s in d[\"projects\"][0][\"threads\"][0][\"sections\"]] == [(\"kept\", \"Constraints\", True), (\"changed\", \"Decisions\", False), (\"added\", \"Open questions\", False), (\"removed\", \"Notes\", False)]" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"sections\"][1][\"items\"][1] == {\"change\": \"reworded\", \"listItem\": True, \"old\": \"- passwords hashed with bcrypt\", \"new\": \"- passwords hashed with argon2id\"}" &&
	jd "[d[\"projects\"][0][\"threads\"][0][\"sections\"][1][k] for k in (\"added\", \"removed\", \"reworded\", \"movedItems\")] == [1, 1, 1, 0]" &&
	git threadmind diff --stat HEAD~1 HEAD >out &&
	echo " auth | +2 -2 ~1 items, +1 -1 sections, 1 section moved or renamed, reviewed" >expect &&
	echo " 1 thread changed" >>expect &&
	test_cmp expect out
'

test_expect_success 'an item moved, a section renamed' '
	cd shop &&
	prev=$(git show HEAD:$T/auth.md | sed -n "s/^commit: //p") &&
	git threadmind summary -q auth -F - <<-\EOF &&
	The login screens.

	## Constraints
	- GDPR

	## Decisions
	- passwords hashed with argon2id
	- React Hook Form
	  with zod schemas
	- two-factor by TOTP
	- sessions in cookies

	## Questions
	- SSO for the admins?
	EOF
	sed -i "s/^commit: .*/commit: $prev/" $T/auth.md &&
	commit "auth: reorder" && d &&
	cat >expect <<-\EOF &&
	M auth  Auth service
	    ## Decisions
	      = - sessions in cookies
	    ## Questions (renamed from ## Open questions)
	EOF
	test_cmp expect out &&
	jd "d[\"projects\"][0][\"threads\"][0][\"sections\"][0][\"items\"] == [{\"change\": \"moved\", \"listItem\": True, \"old\": \"- sessions in cookies\", \"new\": None}]" &&
	jd "d[\"projects\"][0][\"threads\"][0][\"sections\"][1][\"renamed\"] and d[\"projects\"][0][\"threads\"][0][\"sections\"][1][\"oldHeading\"] == \"Open questions\""
'

test_expect_success 'updatedAt alone is no change; --all-fields shows it' '
	cd shop &&
	sed "s/^updatedAt: .*/updatedAt: 2027-01-01T00:00:00.000Z/" $T/auth.md \
		>x && mv x $T/auth.md &&
	git add -A && git commit -q -m touch-only &&
	git threadmind diff --exit-code HEAD~1 HEAD >out &&
	test_must_fail test -s out &&
	git threadmind diff --all-fields HEAD~1 HEAD >out &&
	was=$(git show HEAD~1:$T/auth.md | sed -n "s/^updatedAt: //p") &&
	printf "M auth  Auth service\n    updatedAt: %s -> 2027-01-01T00:00:00.000Z\n" \
		"$was" >expect &&
	test_cmp expect out &&
	git threadmind diff --json --all-fields HEAD~1 HEAD >json &&
	jd "d[\"projects\"][0][\"threads\"][0][\"fields\"] == [{\"field\": \"updatedAt\", \"old\": \"$was\", \"new\": \"2027-01-01T00:00:00.000Z\"}]" &&
	git threadmind diff --json HEAD~1 HEAD >json &&
	jd "d[\"projects\"] == []"
'

test_expect_success 'line ends and blank lines alone are no change' '
	cd shop &&
	sed "s/\$/\r/" $T/auth.md >x && mv x $T/auth.md &&
	printf "\n\n" >>$T/auth.md &&
	git add -A && git commit -q -m crlf &&
	git threadmind diff --exit-code HEAD~1 HEAD >out &&
	test_must_fail test -s out
'

test_done
