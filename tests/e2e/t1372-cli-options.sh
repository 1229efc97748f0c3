#!/bin/sh
# Option parsing as git's parse-options does it (issue 25, Friction):
# `<command> --help` opens the manual while `-h` prints the usage, a long
# option may be abbreviated to an unambiguous prefix (exact names win, an
# ambiguous prefix names the candidates), and `--` ends the options.
. "$(dirname "$0")/test-lib.sh"

# `git help` runs man.<viewer>.cmd with the page's name: a viewer that
# prints it shows which page was opened, without man.
test_expect_success 'setup' '
	new_repo r &&
	(cd r && git threadmind init -q &&
		git threadmind new -q Auth >/dev/null &&
		git threadmind new -q "Auth UI" --parent auth >/dev/null &&
		git threadmind done -q auth-ui) &&
	git config --global help.format man &&
	git config --global man.viewer tmview &&
	git config --global man.tmview.cmd "echo manual:"
'

test_expect_success '<command> --help opens the manual git-threadmind(1), exit 0' '
	for c in show status tree list summary edit touch project doctor \
		stale hook help; do
		(cd r && git threadmind $c --help) >out || return 1
		echo "manual: git-threadmind" >expect &&
		test_cmp expect out || return 1
	done &&
	(cd r && git threadmind show auth --json --help) >out &&
	test_cmp expect out &&
	(cd r && git threadmind project list --help) >out &&
	test_cmp expect out
'

test_expect_success 'git threadmind --help (git turns it into git help threadmind)' '
	(cd r && git threadmind --help) >out &&
	echo "manual: git-threadmind" >expect &&
	test_cmp expect out
'

test_expect_success 'the manual shown is the page itself, through man' '
	if ! command -v man >/dev/null 2>&1; then
		echo "# man is not installed: checked through man.viewer only"
	else
		mkdir -p man/man1 &&
		cp "$TEST_SRC/docs/git-threadmind.1" man/man1/ &&
		git config --global --unset man.viewer &&
		test_when_finished "git config --global man.viewer tmview" &&
		(cd r && MANPATH="$TEST_ROOT/man" MANPAGER=cat PAGER=cat \
			MANWIDTH=80 git threadmind show --help) >out 2>err &&
		grep "^SYNOPSIS" out &&
		grep "git threadmind show \[<thread>\] \[--json | --summary-only\]" out
	fi
'

test_expect_success '-h still prints the usage on stdout, exit 129' '
	(cd r && test_exit_code 129 git threadmind show -h) >out &&
	grep "^usage: git threadmind show " out &&
	(cd r && test_exit_code 129 git threadmind hook -h) >out &&
	grep "^usage: git threadmind hook " out &&
	(cd r && git threadmind help show) >expect &&
	(cd r && test_exit_code 129 git threadmind show -h) >out &&
	test_cmp expect out
'

test_expect_success 'a unique prefix of a long option is that option' '
	(cd r && git threadmind list --all) >expect &&
	grep "auth-ui" expect &&
	(cd r && git threadmind list --al) >out &&
	test_cmp expect out &&
	(cd r && git threadmind show auth --js) >out &&
	(cd r && git threadmind show auth --json) >expect &&
	test_cmp expect out &&
	(cd r && git threadmind list --stat=done --br=main) >out &&
	(cd r && git threadmind list --status=done --branch=main) >expect &&
	test_cmp expect out &&
	(cd r && git threadmind list --stat done) >out &&
	test_cmp expect out
'

test_expect_success 'an abbreviated --json or --dot groups several projects as the full name does' '
	(cd r && git threadmind project new Other >/dev/null &&
		git add -A && git commit -q -m threads) &&
	git clone -q r clone &&
	(cd clone && git threadmind list --json) >expect &&
	grep "\"projects\"" expect &&
	(cd clone && git threadmind list --js) >actual &&
	test_cmp expect actual &&
	(cd clone && git threadmind tree --dot) >expect &&
	(cd clone && git threadmind tree --d) >actual &&
	test_cmp expect actual &&
	test_must_fail grep "^project: " actual &&
	(cd clone && test_exit_code 129 git threadmind tree -h) >actual &&
	grep "^usage: git threadmind tree" actual &&
	test_must_fail grep "^project: " actual &&
	(cd clone && git threadmind tree --help) >actual &&
	echo "manual: git-threadmind" >expect &&
	test_cmp expect actual
'

test_expect_success 'an ambiguous prefix is a usage error naming the candidates' '
	(cd r && test_exit_code 129 git threadmind list --a) 2>err &&
	grep "^error: ambiguous option .--a.: could be .--all. or .--ascii.$" err &&
	grep "^usage: git threadmind list" err &&
	(cd r && test_exit_code 129 git threadmind tree --no-a) 2>err &&
	grep "^error: ambiguous option .--no-a.: could be .--no-all. or .--no-ascii.$" err
'

test_expect_success 'an exact name wins over the longer names it begins' '
	(cd r && git threadmind new -q Pay >/dev/null) &&
	(cd r && test_exit_code 128 git threadmind summary pay --append \
		</dev/null) 2>err &&
	grep "nothing to append" err &&
	(cd r && printf "x\n" | git threadmind summary -q pay --allow) &&
	(cd r && test_exit_code 129 git threadmind summary pay --a </dev/null) 2>err &&
	grep "^error: ambiguous option .--a.: could be .--allow-empty., .--append. or .--ascii.$" err
'

test_expect_success 'the --no- form of a boolean, abbreviated too' '
	(cd r && git threadmind list --all --no-all) >out &&
	(cd r && git threadmind list) >expect &&
	test_cmp expect out &&
	(cd r && git threadmind list --all --no-al) >out &&
	test_cmp expect out &&
	(cd r && git threadmind list --no-c) >out &&
	test_cmp expect out &&
	(cd r && test_exit_code 129 git threadmind list --no-al=x) 2>err &&
	grep "^error: option .--no-all. takes no value" err
'

test_expect_success 'an unknown option stays a usage error' '
	(cd r && test_exit_code 129 git threadmind list --frob) 2>err &&
	grep "^error: unknown option .--frob.$" err &&
	(cd r && test_exit_code 129 git threadmind list --=x) 2>err &&
	grep "^error: unknown option .--=x.$" err
'

test_expect_success '-- ends the options: what follows is an argument' '
	(cd r && git threadmind show -- auth) >out &&
	grep "^id: auth$" out &&
	(cd r && test_exit_code 128 git threadmind show -- --json) 2>err &&
	grep "^fatal: " err &&
	(cd r && git threadmind show --json -- auth) >out &&
	grep "\"id\": \"auth\"" out
'

test_done
