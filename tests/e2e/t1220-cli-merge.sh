#!/bin/sh
# git threadmind merge: a child's sections go under its parent's, the child
# becomes done with mergedInto; what merge refuses.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop

# thread FILE ID PARENT: a thread file written by hand, its summary on stdin.
thread() {
	{
		printf "%s\n" "---" "id: $2" "title: Thread $2" "parentId: $3" \
			"author: x-0000" "createdAt: 2026-01-0${4:-1}T00:00:00.000Z" \
			"updatedAt: 2020-01-01T00:00:00.000Z" "branch: old" \
			"commit: 3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f" "---" &&
		cat
	} >"$1"
}

test_expect_success 'setup: auth with sections, its child auth-ui' '
	new_repo shop &&
	(cd shop && git threadmind init -q >/dev/null) &&
	thread $T/auth.md auth main 1 <<-\EOF &&

	Authentication for the shop.

	## Decisions
	- sessions in cookies

	## State
	- login done
	EOF
	thread $T/auth-ui.md auth-ui auth 2 <<-\EOF &&

	The login screens.

	## State
	- form built

	## Decisions
	- React Hook Form

	## Next steps
	- password reset
	EOF
	cp $T/auth-ui.md child.before &&
	(cd shop && git add . && git commit -q -m threads)
'

test_expect_success 'merge appends each section under the same-named one' '
	(cd shop && git threadmind merge auth-ui) 2>err &&
	grep "Merged thread .auth-ui. into .auth." err &&
	body $T/auth.md >actual &&
	cat >expect <<-\EOF &&

	Authentication for the shop.

	The login screens.

	## Decisions
	- sessions in cookies
	- React Hook Form

	## State
	- login done
	- form built

	## Next steps
	- password reset
	EOF
	test_cmp expect actual
'

test_expect_success 'the parent gets updatedAt and commit = HEAD, keeps its branch' '
	test "$(fm $T/auth.md commit)" = "$(git -C shop rev-parse HEAD)" &&
	test "$(fm $T/auth.md branch)" = old &&
	test "$(fm $T/auth.md updatedAt)" != 2020-01-01T00:00:00.000Z &&
	test "$(fm $T/auth.md createdAt)" = 2026-01-01T00:00:00.000Z
'

test_expect_success 'the child is done, mergedInto its parent, summary kept' '
	test "$(fm $T/auth-ui.md status)" = done &&
	test "$(fm $T/auth-ui.md mergedInto)" = auth &&
	test "$(fm $T/auth-ui.md updatedAt)" != 2020-01-01T00:00:00.000Z &&
	test "$(fm $T/auth-ui.md commit)" = 3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f &&
	test "$(fm $T/auth-ui.md branch)" = old &&
	body child.before >expect &&
	body $T/auth-ui.md >actual &&
	test_cmp expect actual &&
	(cd shop && git threadmind show auth-ui --json) >show.json &&
	python3 -c "
import json
d = json.load(open(\"show.json\"))
assert d[\"status\"] == \"done\" and d[\"mergedInto\"] == \"auth\", d
"
'

test_expect_success 'the merged child is hidden from the tree' '
	(cd shop && git threadmind tree) >out &&
	! grep auth-ui out &&
	(cd shop && git threadmind tree --all) >out &&
	grep "auth-ui  Thread auth-ui \[done\]" out
'

test_expect_success 'merging again is refused, nothing changes' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind merge auth-ui) 2>err &&
	grep "^fatal: thread .auth-ui. was already merged into .auth." err &&
	snap shop >after &&
	test_cmp before after &&
	test ! -e shop/.threadmind/.lock
'

test_expect_success 'reopen then merge copies no list item twice' '
	(cd shop && git threadmind -q reopen auth-ui &&
		git threadmind -q merge auth-ui) &&
	test "$(grep -c "^- React Hook Form$" $T/auth.md)" = 1 &&
	test "$(fm $T/auth-ui.md mergedInto)" = auth
'

test_expect_success 'merge refuses the root thread' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind merge main) 2>err &&
	grep "^fatal: thread .main. is a root: it has no parent" err &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'merge refuses a thread whose parent file is missing' '
	thread $T/lost.md lost ghost 3 </dev/null &&
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind merge lost) 2>err &&
	grep "^fatal: the parent of thread .lost., .ghost., does not exist" err &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'merge refuses done and abandoned threads' '
	thread $T/api.md api auth 4 </dev/null &&
	(cd shop && git threadmind -q done api) &&
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind merge api) 2>err &&
	grep "^fatal: thread .api. is done: reopen it first" err &&
	(cd shop && git threadmind -q abandon api) &&
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind merge api) 2>err &&
	grep "^fatal: thread .api. is abandoned" err &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'merge refuses a thread that is its own parent' '
	thread $T/loop.md loop loop 5 </dev/null &&
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind merge loop) 2>err &&
	grep "^fatal: thread .loop. is its own parent" err &&
	snap shop >after &&
	test_cmp before after &&
	rm $T/loop.md
'

test_expect_success 'an empty child summary leaves the parent untouched' '
	thread $T/empty.md empty auth 6 </dev/null &&
	cp $T/auth.md before &&
	(cd shop && git threadmind merge empty) 2>err &&
	grep "added nothing" err &&
	test_cmp before $T/auth.md &&
	test "$(fm $T/empty.md status)" = done &&
	test "$(fm $T/empty.md mergedInto)" = auth
'

test_expect_success 'new sections go at the end, the preamble under the preamble' '
	thread $T/pay.md pay main 7 <<-\EOF &&

	## Decisions
	- Stripe
	EOF
	thread $T/pay-eu.md pay-eu pay 8 <<-\EOF &&

	EU rules apply.

	## Open questions
	- VAT?

	## decisions
	- SEPA too
	EOF
	(cd shop && git threadmind -q merge pay-e) &&
	body $T/pay.md >actual &&
	cat >expect <<-\EOF &&

	EU rules apply.

	## Decisions
	- Stripe
	- SEPA too

	## Open questions
	- VAT?
	EOF
	test_cmp expect actual
'

test_expect_success 'a CRLF parent stays CRLF' '
	thread $T/crlf.md crlf main 9 <<-\EOF &&

	## Notes
	- one
	EOF
	sed "s/\$/$(printf "\r")/" $T/crlf.md >c && cat c >$T/crlf.md &&
	thread $T/crlf-kid.md crlf-kid crlf 9 <<-\EOF &&
	## Notes
	- two
	EOF
	(cd shop && git threadmind -q merge crlf-kid) &&
	test "$(grep -c "$(printf "\r")\$" $T/crlf.md)" = "$(wc -l <$T/crlf.md)" &&
	body $T/crlf.md | tr -d "\r" >actual &&
	printf "\n## Notes\n- one\n- two\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'the merged child keeps its own children, shown dimmed' '
	thread $T/ship.md ship main 1 </dev/null &&
	thread $T/ship-a.md ship-a ship 2 </dev/null &&
	thread $T/ship-a-x.md ship-a-x ship-a 3 </dev/null &&
	(cd shop && git threadmind -q merge ship-a) &&
	test "$(fm $T/ship-a-x.md parentId)" = ship-a &&
	(cd shop && git threadmind tree --ascii) >out &&
	grep "ship-a  Thread ship-a \[done\]" out &&
	grep "ship-a-x  Thread ship-a-x$" out
'

test_expect_success 'unknown, ambiguous and bad thread arguments' '
	snap shop >before &&
	(cd shop && test_exit_code 128 git threadmind merge nope) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd shop && test_exit_code 128 git threadmind merge ship-) 2>err &&
	grep "^fatal: .ship-. is ambiguous: ship-a, ship-a-x" err &&
	(cd shop && test_exit_code 128 git threadmind merge ../x) &&
	(cd shop && test_exit_code 128 git threadmind merge Foo) &&
	snap shop >after &&
	test_cmp before after
'

test_expect_success 'usage errors' '
	(cd shop && test_exit_code 129 git threadmind merge) 2>err &&
	grep "^usage: git threadmind merge \[--again\] <thread>" err &&
	(cd shop && test_exit_code 129 git threadmind merge a b) &&
	(cd shop && test_exit_code 129 git threadmind merge -h) >out &&
	grep "^usage: git threadmind merge" out
'

test_done
