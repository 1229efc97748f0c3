#!/bin/sh
# git threadmind show <thread> <commit> and show <commit>:<thread>: a
# thread as a commit has it, read from git objects (also one the work tree
# no longer has).
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop

thread() {
	{
		printf "%s\n" "---" "id: $2" "title: $5" "parentId: $3" \
			"author: ann-1234" "createdAt: 2026-01-0$4T00:00:00.000Z" \
			"updatedAt: 2026-01-0$4T00:00:00.000Z" "---" &&
		cat
	} >"$1"
}

test_expect_success 'setup: auth in two versions, billing removed' '
	new_repo shop && cd shop &&
	git threadmind init -q --title Shop >/dev/null &&
	printf "\n## Decisions\n- one\n" | thread $T/auth.md auth main 2 Auth &&
	printf "\n## State\n- b\n" | thread $T/billing.md billing main 3 Billing &&
	git add -A && git commit -q -m one &&
	printf "\n## Decisions\n- one\n- two\n" |
		thread $T/auth.md auth main 2 "Auth v2" &&
	git rm -q $T/billing.md &&
	git add -A && git commit -q -m two
'

test_expect_success 'show <thread> <commit>: the thread as it was' '
	cd shop &&
	git threadmind show auth HEAD~1 >out &&
	cat >expect <<-\EOF &&
	---
	id: auth
	title: Auth
	parentId: main
	author: ann-1234
	createdAt: 2026-01-02T00:00:00.000Z
	updatedAt: 2026-01-02T00:00:00.000Z
	---

	## Decisions
	- one
	EOF
	test_cmp expect out &&
	git threadmind show HEAD~1:auth >out2 &&
	test_cmp expect out2 &&
	git threadmind show au HEAD~1 >out2 &&
	test_cmp expect out2 &&
	git threadmind show auth >out &&
	grep "^title: Auth v2$" out
'

test_expect_success '--summary-only and --json' '
	cd shop &&
	git threadmind show --summary-only HEAD~1:auth >out &&
	printf "## Decisions\n- one\n" >expect &&
	test_cmp expect out &&
	git threadmind show --json auth HEAD~1 >out &&
	json_is "d[\"id\"] == \"auth\" and d[\"title\"] == \"Auth\"" &&
	json_is "d[\"summary\"] == \"## Decisions\\n- one\\n\"" &&
	json_is "d[\"at\"] == \"$(git rev-parse HEAD~1)\"" &&
	git threadmind show --json auth >out &&
	json_is "\"at\" not in d"
'

test_expect_success 'a thread only an older commit has' '
	cd shop &&
	test_must_fail git threadmind show billing 2>err &&
	git threadmind show HEAD~1:billing >out &&
	grep "^title: Billing$" out &&
	git threadmind show billing HEAD~1 >out2 &&
	test_cmp out out2
'

test_expect_success 'errors: no such thread then, a bad revision, bad forms' '
	cd shop &&
	test_exit_code 128 git threadmind show HEAD:billing 2>err &&
	grep "^fatal: no thread matches .billing. in project .shop. at $(git rev-parse --short=7 HEAD)$" err &&
	test_exit_code 128 git threadmind show auth nosuch 2>err &&
	grep "^fatal: bad revision .nosuch.$" err &&
	test_exit_code 129 git threadmind show :auth 2>err &&
	test_exit_code 129 git threadmind show HEAD: 2>err &&
	test_exit_code 129 git threadmind show a b c 2>err &&
	test_exit_code 128 git threadmind show HEAD~1:../x 2>err &&
	grep "invalid thread id" err
'

test_done
