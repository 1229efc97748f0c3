#!/bin/sh
# Teams (DESIGN.md section 11, issue 25 r03): a same-id split never hands a
# published thread to someone else.  Alice and Carol each create
# "Reporting"; Alice created hers first, Carol pushed first.  In a
# `pull --rebase` the upstream (Carol's, already published) keeps the id
# and Alice's replayed thread takes the suffix, whoever created first.  In
# a plain `git pull` (a merge) HEAD's side keeps it, so a published id can
# change hands: then config.json's record of the active thread's identity
# makes Carol's next command say so and switch to where her thread went,
# and her next summary lands in her own thread.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop
R=$T/reporting.md
R2=$T/reporting-2.md
B=$T/billing.md
B2=$T/billing-2.md

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

test_expect_success 'alice creates "Reporting" first; carol pushes hers first' '
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
	grep "\"activeThreadIdentity\": {" carol-clone/.threadmind/config.json &&
	grep "\"author\": \"$CAROL\"" carol-clone/.threadmind/config.json
'

test_expect_success 'pull --rebase: the driver keeps the upstream, names both threads' '
	test_must_fail as alice git pull -q --rebase >/dev/null 2>err &&
	grep "^git-threadmind-merge: $R: two threads .reporting. were created on both sides: .Reporting. by $CAROL, already in HEAD, keeps the id; .Reporting. by $ALICE takes the next free one: run .git threadmind resolve. to keep both$" err &&
	grep "^author: $CAROL$" alice-clone/$R
'

test_expect_success 'resolve: the upstream keeps the id, the replayed thread is renamed' '
	as alice git threadmind resolve >out &&
	grep "^split $R: two threads were created as .reporting.; .Reporting. by $CAROL, upstream, keeps it; .Reporting. by $ALICE, from the commit being replayed, became .reporting-2. ($R2)$" out &&
	! grep -E "ours|theirs" out &&
	as alice env GIT_EDITOR=true git rebase --continue >/dev/null 2>&1 &&
	test "$(as alice git show HEAD:$R | sed -n "s/^author: //p")" = "$CAROL" &&
	test "$(as alice git show HEAD:$R2 | sed -n "s/^author: //p")" = "$ALICE" &&
	as alice git show HEAD:$R2 >r2 &&
	grep "^id: reporting-2$" r2 && grep "^title: Reporting$" r2 &&
	grep "^- ALICE: nightly CSV export$" r2 &&
	! grep ALICE alice-clone/$R &&
	test "$(as alice git threadmind prompt)" = reporting-2 &&
	as alice git push -q origin main 2>/dev/null
'

test_expect_success "carol pulls: her published id still names her own thread" '
	as carol git pull -q --no-edit 2>/dev/null &&
	test "$(as carol git threadmind prompt)" = reporting &&
	as carol git threadmind show --json reporting >json &&
	grep "\"author\": \"$CAROL\"" json &&
	as carol git threadmind status >out 2>err &&
	! grep "another thread" err &&
	printf "## Decisions\n- CAROL: Metabase dashboards\n- CAROL: weekly digest\n" |
		as carol git threadmind summary -q -F - &&
	grep "^- CAROL: weekly digest$" carol-clone/$R &&
	test $(grep -l "ALICE: nightly CSV export" carol-clone/$R carol-clone/$R2 | wc -l) -eq 1 &&
	grep "^- ALICE: nightly CSV export$" carol-clone/$R2 &&
	as carol git commit -q -am "carol: digest" &&
	as carol git push -q origin main 2>/dev/null
'

test_expect_success 'a plain pull (a merge): HEAD keeps the id, the published one moves' '
	as alice git pull -q --no-edit 2>/dev/null &&
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
	as alice git threadmind resolve >out &&
	grep "^split $B: two threads were created as .billing.; .Billing. by $ALICE, in HEAD, keeps it; .Billing. by $CAROL, from the merged branch, became .billing-2. ($B2)$" out &&
	as alice git commit -q --no-edit &&
	test "$(as alice git threadmind prompt)" = billing &&
	as alice git push -q origin main 2>/dev/null
'

test_expect_success 'carol pulls: commands say her thread moved and switch to it' '
	as carol git pull -q --no-edit 2>/dev/null &&
	grep "^author: $ALICE$" carol-clone/$B &&
	grep "^author: $CAROL$" carol-clone/$B2 &&
	test "$(as carol git threadmind prompt)" = billing-2 &&
	as carol git threadmind status >out 2>err &&
	grep "^warning: .billing. is now .Billing. by $ALICE (another thread with the same id); the thread you had active, .Billing. by $CAROL, is .billing-2.: switched to it$" err &&
	test $(grep -c "^warning:" err) -eq 1 &&
	grep "\"activeThreadId\": \"billing-2\"" carol-clone/.threadmind/config.json &&
	grep "\"main\": \"billing-2\"" carol-clone/.threadmind/config.json &&
	grep "\"id\": \"billing-2\"" carol-clone/.threadmind/config.json &&
	as carol git threadmind status >out 2>err &&
	test ! -s err
'

test_expect_success "carol's next summary lands in her own thread" '
	printf "## Decisions\n- CAROL: Stripe\n- CAROL: yearly plans\n" |
		as carol git threadmind summary -q -F - &&
	grep "^- CAROL: yearly plans$" carol-clone/$B2 &&
	grep "^- ALICE: invoices by mail$" carol-clone/$B &&
	! grep CAROL carol-clone/$B
'

test_expect_success 'the guard also covers a branchThreads entry (a thread renamed elsewhere)' '
	as carol git threadmind switch reporting -q &&
	as carol git threadmind new Audit --switch -q >/dev/null &&
	sed -e "s/\"activeThreadId\": \"audit\"/\"activeThreadId\": \"reporting\"/" \
		carol-clone/.threadmind/config.json >cfg &&
	grep "\"main\": \"audit\"" cfg &&
	cp cfg carol-clone/.threadmind/config.json &&
	as carol mv $T/audit.md $T/audit-2.md &&
	as carol sed -i "s/^id: audit$/id: audit-2/" $T/audit-2.md &&
	printf "## Decisions
- CAROL: Metabase dashboards
- CAROL: later
" |
		as carol git threadmind summary -q reporting -F - &&
	test "$(as carol git threadmind prompt)" = audit-2 &&
	as carol git threadmind status 2>err >/dev/null &&
	grep "^warning: .audit. is now gone; the thread you had active, .Audit. by $CAROL, is .audit-2.: switched to it$" err
'

test_done
