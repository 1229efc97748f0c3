#!/bin/sh
# A line added on a branch to a child thread that was `git threadmind
# merge`d into its parent on main (issue 25, r06): the git merge brings it
# to the finished child only.  The driver says so, status, doctor, the
# post-merge hook and tree report it until `merge --again` adds it to the
# parent (docs/merge.md, "A thread merged into its parent on one side").
. "$(dirname "$0")/test-lib.sh"

d=.threadmind/threads/shop
note="git-threadmind-merge: $d/oauth.md: 'oauth' was merged into 'auth' on one side and gained 1 line on the other: once the merge is done, run 'git threadmind merge --again oauth' to add it to 'auth'"

test_expect_success 'setup: oauth merged into auth on main, edited on carol/oauth' '
	git init -q repo && cd repo &&
	echo x >README && git add -A && git commit -q -m init &&
	git threadmind init -q --title Shop &&
	git threadmind install -q &&
	git threadmind new Auth -q >/dev/null &&
	git threadmind new OAuth --parent auth -q >/dev/null &&
	printf "## Decisions\n- sessions in redis\n" |
		git threadmind summary -q auth -F - &&
	printf "## Decisions\n- provider.exchange\n" |
		git threadmind summary -q oauth -F - &&
	git add -A && git commit -q -m threads &&
	git switch -q -c carol/oauth &&
	printf "## Decisions\n- provider.exchange\n- CAROL: Google first, then GitHub\n" |
		git threadmind summary -q oauth -F - &&
	git commit -q -am "oauth: google first" &&
	git switch -q main &&
	git threadmind merge -q oauth &&
	git commit -q -am "oauth integrated into auth" &&
	git branch before-merge
'

test_expect_success 'the merge succeeds; the driver and the post-merge hook say what is left' '
	cd repo &&
	git merge --no-edit carol/oauth >out 2>err &&
	grep -x -F "$note" err &&
	grep -x "threadmind: 1 problem in the thread tree (git threadmind doctor)" err &&
	grep "^- CAROL: Google first, then GitHub$" $d/oauth.md &&
	grep "^status: done$" $d/oauth.md &&
	grep "^mergedInto: auth$" $d/oauth.md &&
	! grep CAROL $d/auth.md &&
	git status --porcelain --untracked-files=no >dirty &&
	test ! -s dirty
'

test_expect_success 'r06: the line is visible in the active tree, and something warns' '
	cd repo &&
	( git threadmind show auth; git threadmind tree; git threadmind list ) 2>/dev/null |
		grep -c -e "CAROL: Google" -e " oauth " >count &&
	echo 1 >expect &&
	test_cmp expect count &&
	git threadmind status >out &&
	grep -x "merged: '\''oauth'\'' holds 1 line that '\''auth'\'' lacks (run '\''git threadmind merge --again oauth'\'')" out &&
	test_exit_code 1 git threadmind doctor >out &&
	grep -x "unintegrated: thread '\''oauth'\'' was merged into '\''auth'\'' but holds 1 line that '\''auth'\'' lacks (written on a branch the merge had not reached); run '\''git threadmind merge --again oauth'\''" out &&
	git threadmind tree >out &&
	grep "oauth  OAuth \[done\] (holds lines '\''auth'\'' lacks: git threadmind merge --again oauth)$" out &&
	git threadmind list >out &&
	! grep oauth out &&
	git threadmind list --all --json >out &&
	grep -A2 "\"flags\": \[" out | grep "\"unintegrated\""
'

test_expect_success 'merge of the merged thread points at --again' '
	cd repo &&
	test_exit_code 128 git threadmind merge oauth 2>err &&
	grep -x "fatal: thread '\''oauth'\'' was already merged into '\''auth'\'' (to add what it gained since, run '\''git threadmind merge --again oauth'\'')" err
'

test_expect_success 'merge --again adds the line to auth, under its section; then nothing is left' '
	cd repo &&
	git threadmind merge --again oauth 2>err &&
	echo "Merged 1 line of '\''oauth'\'' into '\''auth'\'' again" >expect &&
	test_cmp expect err &&
	git threadmind show auth >out &&
	sed -n "/^## Decisions$/,\$p" out >decisions &&
	printf "%s\n" "## Decisions" "- sessions in redis" "- provider.exchange" \
		"- CAROL: Google first, then GitHub" >expect &&
	test_cmp expect decisions &&
	git diff --name-only >changed &&
	echo $d/auth.md >expect &&
	test_cmp expect changed &&
	git threadmind status >out &&
	! grep "^merged:" out &&
	git threadmind doctor &&
	git threadmind tree >out &&
	! grep oauth out &&
	git threadmind merge --again oauth 2>err &&
	grep -x "'\''oauth'\'' has nothing that '\''auth'\'' lacks" err &&
	git diff --name-only >changed &&
	echo $d/auth.md >expect &&
	test_cmp expect changed &&
	git commit -q -am "auth: carol'\''s oauth line"
'

test_expect_success 'a rebase onto the merge says it too, and never fails' '
	cd repo &&
	git switch -q -c carol2 before-merge~1 &&
	printf "## Decisions\n- provider.exchange\n- CAROL2: PKCE\n" |
		git threadmind summary -q oauth -F - &&
	git commit -q -am "oauth: pkce" &&
	git rebase -q before-merge 2>err &&
	grep -F "git-threadmind-merge: $d/oauth.md: '\''oauth'\'' was merged into '\''auth'\'' on one side and gained 1 line on the other" err &&
	grep "^- CAROL2: PKCE$" $d/oauth.md &&
	grep "^mergedInto: auth$" $d/oauth.md &&
	git threadmind status >out &&
	grep "^merged: '\''oauth'\'' holds 1 line" out
'

test_expect_success 'merge --again of a thread never merged, or merged into a thread now gone' '
	cd repo &&
	test_exit_code 128 git threadmind merge --again auth 2>err &&
	grep -x "fatal: thread '\''auth'\'' was not merged into its parent: run '\''git threadmind merge auth'\''" err &&
	sed -i "s/^mergedInto: auth$/mergedInto: gone/" $d/oauth.md &&
	test_exit_code 128 git threadmind merge --again oauth 2>err &&
	grep -x "fatal: thread '\''oauth'\'' was merged into '\''gone'\'', which no longer exists: reopen it ('\''git threadmind reopen oauth'\'') and merge it again" err
'

test_done
