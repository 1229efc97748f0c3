#!/bin/sh
# The options before the command name go through the same parser as every
# command's (issue 23, item 13): what works after the name works before
# it -- an abbreviation, a cluster of switches -- and a mistake is worded
# the same way; -h, --help and --version keep their meaning there.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: two projects' '
	new_repo r &&
	(cd r && git threadmind init -q --title Shop &&
		git threadmind project new -q "Back Office" >/dev/null &&
		git threadmind new -q --project back-office Invoices >/dev/null)
'

test_expect_success 'an abbreviated global option before the command' '
	(cd r && git threadmind --proj back-office list) >out &&
	grep "invoices" out &&
	(cd r && git threadmind --proj=shop list) >out &&
	! grep "invoices" out &&
	(cd r && git threadmind list --proj back-office) >after &&
	(cd r && git threadmind --proj back-office list) >before &&
	test_cmp after before
'

test_expect_success 'a cluster of switches before the command: -qh' '
	test_exit_code 129 git threadmind -qh >out &&
	test_exit_code 129 git threadmind -h >expect &&
	test_cmp expect out &&
	grep "^usage: git threadmind \[--project <id>\]" out
'

test_expect_success 'mistakes worded as after a command' '
	(cd r && test_exit_code 129 git threadmind -x status) 2>before &&
	(cd r && test_exit_code 129 git threadmind status -x) 2>after &&
	head -n 1 before >b1 && head -n 1 after >a1 &&
	echo "error: unknown switch '"'"'x'"'"'" >expect &&
	test_cmp expect b1 && test_cmp expect a1 &&
	(cd r && test_exit_code 129 git threadmind --no-color=x status) 2>err &&
	grep "^error: option .--no-color. takes no value$" err &&
	(cd r && test_exit_code 129 git threadmind --color=pink status) 2>err &&
	grep "^error: option .--color. expects" err &&
	(cd r && test_exit_code 129 git threadmind --project) 2>err &&
	grep "^error: option .--project. requires a value$" err
'

test_expect_success '--version, --help and -- before the command' '
	git threadmind --version >out &&
	grep "^git-threadmind version " out &&
	git-threadmind --help >out && # run directly: git would open the manual
	grep "^    status  *project, active thread" out &&
	(cd r && git threadmind --project shop -- tree) >out &&
	grep "main  Main" out
'

test_done
