#!/bin/sh
# git threadmind diff and log in a team's history: a rebase, a split by
# `resolve` (the same thread under a new id: renamed), and a repository in
# the middle of a conflicted merge (a conflicted thread is listed as such).
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop

as() {
	(cd "$TEST_ROOT/$1-clone" && as_person "$@")
}

author_of() {
	printf '%s-%s' "$1" \
		"$(printf %s "$1@example.com" | git hash-object --stdin | cut -c1-4)"
}

ALICE=$(author_of alice)
CAROL=$(author_of carol)

test_expect_success 'setup: a shared store, two clones' '
	test_person alice && test_person carol &&
	as_person alice git config --global pull.rebase false &&
	as_person carol git config --global pull.rebase false &&
	git init -q --bare origin.git &&
	as_person alice git clone -q origin.git alice-clone 2>/dev/null &&
	as alice git threadmind init -q --title Shop &&
	as alice git threadmind install -q &&
	as alice git add -A && as alice git commit -q -m tm &&
	as alice git push -q origin main &&
	as_person carol git clone -q origin.git carol-clone &&
	as carol git threadmind install -q
'

test_expect_success 'a split by resolve after pull --rebase: a rename' '
	as alice git threadmind new Reporting --switch -q >/dev/null &&
	printf "## Decisions\n- ALICE: nightly CSV export\n" |
		as alice git threadmind summary -q -F - &&
	as alice git add -A && as alice git commit -q -m "alice: reporting" &&
	sleep 1 &&
	as carol git threadmind new Reporting --switch -q >/dev/null &&
	printf "## Decisions\n- CAROL: Metabase dashboards\n" |
		as carol git threadmind summary -q -F - &&
	as carol git add -A && as carol git commit -q -m "carol: reporting" &&
	as carol git push -q origin main 2>/dev/null &&
	test_must_fail as alice git pull -q --rebase >/dev/null 2>&1 &&
	as alice git threadmind resolve >/dev/null &&
	as alice env GIT_EDITOR=true git rebase --continue >/dev/null 2>&1 &&
	as alice git threadmind diff ORIG_HEAD HEAD >out &&
	cat >expect <<-\EOF &&
	R reporting -> reporting-2  Reporting
	A reporting  Reporting
	    under main
	    ## Decisions (added)
	      + - CAROL: Metabase dashboards
	EOF
	test_cmp expect out &&
	as alice git threadmind diff --name-status ORIG_HEAD HEAD >out &&
	printf "R\treporting\treporting-2\nA\treporting\n" >expect &&
	test_cmp expect out &&
	as alice git threadmind diff --json ORIG_HEAD HEAD >json &&
	python3 -c "import json; d=json.load(open(\"json\"))
t = d[\"projects\"][0][\"threads\"]
assert [(x[\"status\"], x[\"oldId\"], x[\"id\"]) for x in t] == [(\"renamed\", \"reporting\", \"reporting-2\"), (\"added\", None, \"reporting\")], t
assert t[0][\"before\"][\"author\"] == t[0][\"after\"][\"author\"] == \"$ALICE\", t
assert t[1][\"after\"][\"author\"] == \"$CAROL\", t
assert t[0][\"fields\"] == [] and t[0][\"sections\"] == [], t" &&
	as alice git threadmind diff --all-fields ORIG_HEAD HEAD -- reporting-2 >out &&
	printf "R reporting -> reporting-2  Reporting\n    id: reporting -> reporting-2\n" >expect &&
	test_cmp expect out &&
	as alice git push -q origin main 2>/dev/null
'

test_expect_success 'a split in a merge: log follows the thread to its old id' '
	as carol git pull -q --no-edit 2>/dev/null &&
	as carol git threadmind new Billing --switch -q >/dev/null &&
	printf "## Decisions\n- CAROL: Stripe\n" |
		as carol git threadmind summary -q -F - &&
	as carol git add -A && as carol git commit -q -m "carol: billing" &&
	as carol git push -q origin main 2>/dev/null &&
	as alice git threadmind new Billing --switch -q >/dev/null &&
	printf "## Decisions\n- ALICE: invoices by mail\n" |
		as alice git threadmind summary -q -F - &&
	as alice git add -A && as alice git commit -q -m "alice: billing" &&
	test_must_fail as alice git pull -q --no-edit >/dev/null 2>&1 &&
	as alice git threadmind resolve >/dev/null &&
	as alice git commit -q --no-edit &&
	as alice git push -q origin main 2>/dev/null &&
	as carol git pull -q --no-edit 2>/dev/null &&
	as carol git threadmind diff HEAD@{1} HEAD >out &&
	cat >expect <<-\EOF &&
	A billing  Billing
	    under reporting-2
	    ## Decisions (added)
	      + - ALICE: invoices by mail
	R billing -> billing-2  Billing
	EOF
	test_cmp expect out &&
	merge=$(as carol git rev-parse HEAD) &&
	theirs=$(as carol git rev-parse HEAD^2) &&
	subject=$(as carol git log -1 --format=%s HEAD) &&
	as carol git threadmind log --oneline billing-2 >out &&
	printf "%s %s (billing-2: renamed from billing)\n%s carol: billing (billing: added, +1 items)\n" \
		$(echo $merge | cut -c1-7) "$subject" \
		$(echo $theirs | cut -c1-7) >expect &&
	test_cmp expect out &&
	as carol git threadmind log billing-2 >out &&
	grep "^Merge: $(as carol git rev-parse --short=7 HEAD^1) $(echo $theirs | cut -c1-7)$" out &&
	grep "^    (merge: the change against parent 2, $(echo $theirs | cut -c1-7), where the thread came from)$" out &&
	grep "^R billing -> billing-2  Billing$" out &&
	as carol git threadmind log --json billing-2 >json &&
	python3 -c "import json; d=json.load(open(\"json\"))
c = d[\"commits\"]
assert [x[\"commit\"] for x in c] == [\"$merge\", \"$theirs\"], c
assert c[0][\"combined\"] and c[0][\"against\"] == \"$theirs\", c[0]
assert [x[\"thread\"] for x in c] == [\"billing-2\", \"billing\"], c
assert c[0][\"projects\"][0][\"threads\"][0][\"status\"] == \"renamed\", c[0]
assert c[1][\"projects\"][0][\"threads\"][0][\"status\"] == \"added\", c[1]"
'

test_expect_success 'a rebase: main...feature shows the feature only' '
	new_repo solo && cd solo &&
	git threadmind init -q --title Shop >/dev/null &&
	git threadmind install -q >/dev/null &&
	printf "## Decisions\n- one\n\n## State\n- started\n" |
		git threadmind summary -q main -F - &&
	git add -A && git commit -q -m base &&
	git checkout -q -b feature &&
	printf "## Decisions\n- one\n- feature decision\n\n## State\n- started\n" |
		git threadmind summary -q main -F - &&
	git commit -q -am "feature: decide" &&
	git checkout -q main &&
	printf "## Decisions\n- one\n\n## State\n- started\n- main progress\n" |
		git threadmind summary -q main -F - &&
	git threadmind new -q Cart >/dev/null &&
	git add -A && git commit -q -m "main: progress" &&
	git checkout -q feature &&
	git rebase -q main >/dev/null 2>&1 &&
	git threadmind diff main...feature >out &&
	cat >expect <<-\EOF &&
	M main  Main
	    ## Decisions
	      + - feature decision
	EOF
	test_cmp expect out &&
	git threadmind diff ORIG_HEAD HEAD >out &&
	cat >expect <<-\EOF &&
	M main  Main
	    branch: feature -> main
	    ## State
	      + - main progress
	A cart  Cart
	    under main
	EOF
	test_cmp expect out &&
	git threadmind log --oneline main..feature >out &&
	printf "%s feature: decide (main: +1 items)\n" \
		$(git rev-parse --short=7 HEAD) >expect &&
	test_cmp expect out
'

test_expect_success 'a conflicted merge: listed as conflicted, not an error' '
	cd solo &&
	git checkout -q -b left main &&
	printf "Where we are: left.\n\n## Decisions\n- one, left\n" |
		git threadmind summary -q main -F - &&
	git commit -q -am left &&
	git checkout -q -b right main &&
	printf "Where we are: right.\n\n## Decisions\n- one, right\n" |
		git threadmind summary -q main -F - &&
	git commit -q -am right &&
	test_must_fail git merge -q left >/dev/null 2>&1 &&
	git threadmind diff >out &&
	cat >expect <<-\EOF &&
	U main
	    a merge left it conflicted: run '"'git threadmind resolve'"'
	EOF
	test_cmp expect out &&
	git threadmind diff HEAD >out &&
	cat >expect <<-\EOF &&
	U main  Main
	    a merge left it conflicted: run '"'git threadmind resolve'"'
	EOF
	test_cmp expect out &&
	git threadmind diff --name-status HEAD >out &&
	printf "U\tmain\n" >expect &&
	test_cmp expect out &&
	git threadmind diff --json HEAD >json &&
	python3 -c "import json; d=json.load(open(\"json\"))
t = d[\"projects\"][0][\"threads\"]
assert [(x[\"status\"], x[\"letter\"], x[\"id\"]) for x in t] == [(\"conflicted\", \"U\", \"main\")], t
assert t[0][\"before\"][\"title\"] == \"Main\" and t[0][\"after\"] is None, t" &&
	test_exit_code 1 git threadmind diff --exit-code HEAD >/dev/null &&
	git threadmind log --oneline -n 1 main >out &&
	grep "right" out &&
	git merge --abort
'

test_expect_success 'markers in a file git no longer holds unmerged: conflicted' '
	cd solo &&
	git checkout -q -b left2 main &&
	git threadmind set -q main title=Left && git commit -q -am left2 &&
	git checkout -q -b right2 main &&
	git threadmind set -q main title=Right && git commit -q -am right2 &&
	THREADMIND_MERGE=0 git merge -q left2 >/dev/null 2>&1;
	grep "^<<<<<<<" .threadmind/threads/shop/main.md &&
	git add -A &&
	git threadmind diff --cached >out &&
	cat >expect <<-\EOF &&
	U main  Right
	    a merge left it conflicted: run '"'git threadmind resolve'"'
	EOF
	test_cmp expect out &&
	git threadmind diff --stat --cached >out &&
	printf " main | conflicted\n 1 thread changed\n" >expect &&
	test_cmp expect out &&
	git reset -q --hard
'

test_done
