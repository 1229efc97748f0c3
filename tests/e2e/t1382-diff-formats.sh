#!/bin/sh
# git threadmind diff: --stat, --name-status, --format=markdown (a comment
# for a pull request, long sections folded) and the colours of git's
# color.diff slots.
. "$(dirname "$0")/test-lib.sh"

T=.threadmind/threads/shop

thread() {
	{
		printf "%s\n" "---" "id: $2" "title: Thread $2" "parentId: $3" \
			"author: ann-1234" "createdAt: 2026-01-0$4T00:00:00.000Z" \
			"updatedAt: 2026-01-0$4T00:00:00.000Z" "---" &&
		cat
	} >"$1"
}

test_expect_success 'setup: two commits' '
	new_repo shop && cd shop &&
	git threadmind init -q --title Shop >/dev/null &&
	printf "## Decisions\n- one\n- two\n" | thread $T/auth.md auth main 2 &&
	printf "## State\n- a\n" | thread $T/old.md old main 3 &&
	git add -A && git commit -q -m one &&
	printf "## Decisions\n- one\n- two, reworded\n- three\n" |
		thread $T/auth.md auth main 2 &&
	git rm -q $T/old.md &&
	{
		printf "## Notes\n" &&
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			echo "- note $i" || return 1
		done &&
		printf "\n## Code\n- run \`make\` or \`\`\`sh\`\`\` blocks\n"
	} | thread $T/new.md new auth 4 &&
	git add -A && git commit -q -m two
'

test_expect_success '--stat: one line per thread, then the count' '
	cd shop &&
	git threadmind diff --stat HEAD~1 HEAD >out &&
	cat >expect <<-\EOF &&
	 auth | +1 ~1 items
	 new  | added, +13 items
	 old  | removed, -1 items
	 3 threads changed, 1 added, 1 removed
	EOF
	test_cmp expect out
'

test_expect_success '--name-status: a letter and the id' '
	cd shop &&
	git threadmind diff --name-status HEAD~1 HEAD >out &&
	printf "M\tauth\nA\tnew\nD\told\n" >expect &&
	test_cmp expect out
'

test_expect_success '--format=markdown: headings, diff blocks, long sections folded' '
	cd shop &&
	git threadmind diff --format=markdown HEAD~1 HEAD >out &&
	cat >expect <<-\EOF &&
	### ThreadMind: HEAD~1 HEAD

	3 threads changed.

	#### M `auth` Thread auth

	*+1 ~1 items*

	**## Decisions: +1 ~1**

	```diff
	- - two
	+ - two, reworded
	+ - three
	```

	#### A `new` Thread new

	*added, +13 items*

	- under `auth`

	<details><summary>## Notes (added): +12</summary>

	```diff
	+ - note 1
	+ - note 2
	+ - note 3
	+ - note 4
	+ - note 5
	+ - note 6
	+ - note 7
	+ - note 8
	+ - note 9
	+ - note 10
	+ - note 11
	+ - note 12
	```

	</details>

	**## Code (added): +1**

	````diff
	+ - run `make` or ```sh``` blocks
	````

	#### D `old` Thread old

	*removed, -1 items*

	- was under `main`

	**## State (removed): -1**

	```diff
	- - a
	```

	EOF
	test_cmp expect out &&
	git threadmind diff --format markdown HEAD HEAD >out &&
	printf "### ThreadMind: HEAD HEAD\n\nNo thread changed.\n" >expect &&
	test_cmp expect out &&
	git threadmind diff --format=text --name-status HEAD~1 HEAD >out &&
	grep "^M	auth$" out
'

ESC=$(printf "\033")

test_expect_success '--color: the default slots' '
	cd shop &&
	git threadmind diff --color HEAD~1 HEAD -- auth >out &&
	printf "%s\n" "${ESC}[1mM auth  Thread auth${ESC}[m" \
		"    ${ESC}[36m## Decisions${ESC}[m" \
		"      ${ESC}[31m~ - two${ESC}[m" \
		"      ${ESC}[32m> - two, reworded${ESC}[m" \
		"      ${ESC}[32m+ - three${ESC}[m" >expect &&
	test_cmp expect out &&
	git threadmind --color=always diff HEAD~1 HEAD -- auth >out &&
	test_cmp expect out
'

test_expect_success 'color.diff.<slot> as git reads it; color.diff on and off' '
	cd shop &&
	test_config -C "$TEST_ROOT/shop" color.diff.new "blue bold" &&
	test_config -C "$TEST_ROOT/shop" color.diff.meta "reverse" &&
	test_config -C "$TEST_ROOT/shop" color.diff.frag "#ff0000 ul" &&
	test_config -C "$TEST_ROOT/shop" color.diff.old "normal" &&
	test_config -C "$TEST_ROOT/shop" color.diff always &&
	git threadmind diff HEAD~1 HEAD -- auth >out &&
	printf "%s\n" "${ESC}[7mM auth  Thread auth${ESC}[m" \
		"    ${ESC}[4;38;2;255;0;0m## Decisions${ESC}[m" \
		"      ~ - two" \
		"      ${ESC}[1;34m> - two, reworded${ESC}[m" \
		"      ${ESC}[1;34m+ - three${ESC}[m" >expect &&
	test_cmp expect out &&
	NO_COLOR=1 git threadmind diff HEAD~1 HEAD -- auth >out &&
	! grep -q "$ESC" out &&
	git threadmind diff --no-color HEAD~1 HEAD -- auth >out &&
	! grep -q "$ESC" out &&
	git config color.diff never &&
	test_config -C "$TEST_ROOT/shop" color.ui always &&
	git threadmind diff HEAD~1 HEAD -- auth >out &&
	! grep -q "$ESC" out &&
	git config --unset color.diff &&
	git threadmind diff HEAD~1 HEAD -- auth >out &&
	grep -q "$ESC" out
'

test_expect_success 'a bad colour is fatal, naming the key' '
	cd shop &&
	test_config -C "$TEST_ROOT/shop" color.diff.new "purple-ish" &&
	test_exit_code 128 git threadmind diff --color HEAD~1 HEAD 2>err &&
	grep "^fatal: invalid color value: purple-ish (color.diff.new)$" err
'

test_expect_success 'control characters in a summary are shown as ?' '
	cd shop &&
	printf "## Decisions\n- one\n- two\n- bell\007 here\n" |
		thread $T/auth.md auth main 2 &&
	git threadmind diff >out &&
	grep "^      + - bell? here$" out &&
	git threadmind diff --json >out &&
	grep -F "bell\\u0007 here" out &&
	git checkout -q $T/auth.md
'

test_done
