#!/bin/sh
# Issue 22: how install edits a hook manager's config (without the tools:
# the files alone, and the managers' stubs as they write them).  Each shape
# of lefthook.yml, lefthook.toml and .pre-commit-config.yaml gets our lines
# where the manager reads them, or a refusal that changes nothing and
# prints the exact lines to add; uninstall gives every file back byte for
# byte; --manual prints the lines; doctor reports a manager stub whose
# config lacks our entry.
. "$(dirname "$0")/test-lib.sh"

# repo NAME: a repository with a store (nothing installed).
repo() {
	new_repo "$1" &&
	(cd "$1" && git threadmind init -q)
}

# roundtrip NAME FILE: install, then uninstall gives FILE back.
roundtrip() {
	cp "$1/$2" "$1.before" &&
	(cd "$1" && git threadmind install -q) &&
	! cmp -s "$1.before" "$1/$2" &&
	(cd "$1" && git threadmind install -q) &&
	cp "$1/$2" "$1.installed" &&
	(cd "$1" && git threadmind uninstall -q) &&
	cmp "$1.before" "$1/$2"
}

# valid_lefthook FILE, valid_pre_commit FILE: the real tool reads FILE
# (when it is there: t5141 and t5142 need it, this test does not).
. "$TEST_SRC/tests/e2e/lib-managers.sh"
valid_lefthook() {
	[ -z "$(tool lefthook)" ] && return 0
	rm -rf vl && git init -q vl && cp "$1" vl/lefthook.yml &&
	(cd vl && "$(tool lefthook)" validate) >/dev/null
}
valid_pre_commit() {
	[ -z "$(tool pre-commit)" ] && return 0
	pre-commit validate-config "$1" >/dev/null
}

test_expect_success 'lefthook.yml: commands, jobs, a hook without either, absent hooks' '
	repo ly &&
	cat >ly/lefthook.yml <<-\EOF &&
	# team
	pre-commit:
	    parallel: true
	    commands:
	        lint:
	            run: npm run lint
	post-checkout:
	  jobs:
	    - name: deps
	      run: npm ci
	post-merge:
	  piped: true
	EOF
	roundtrip ly lefthook.yml &&
	valid_lefthook ly.installed &&
	grep -n "" ly.installed >numbered &&
	grep "^7:        threadmind:$" numbered &&
	grep "^13:  jobs:$" numbered &&
	grep "^16:    - name: threadmind$" numbered &&
	grep "^17:      run: \"command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook post-checkout {1} {2} {3} || :\"$" numbered &&
	grep "^  commands:$" ly.installed &&
	grep "^post-commit:$" ly.installed &&
	grep "^post-rewrite:$" ly.installed &&
	test "$(grep -c "^# >>> threadmind >>>$" ly.installed)" = 4 &&
	test "$(ls ly/.git/hooks | grep -v sample)" = ""
'

test_expect_success 'lefthook.yml without a final line end, and with CRLF line ends' '
	repo lz &&
	printf "post-commit:\n  commands:\n    own:\n      run: echo own" >lz/lefthook.yml &&
	roundtrip lz lefthook.yml &&
	repo lc &&
	printf "post-commit:\r\n  commands:\r\n    own:\r\n      run: echo own\r\n" >lc/lefthook.yml &&
	roundtrip lc lefthook.yml &&
	cr=$(printf "\r") &&
	test "$(grep -c "threadmind:$cr\$" lc.installed)" = 5 &&
	valid_lefthook lc.installed
'

test_expect_success 'a key lefthook.yml holds in a form not safe to edit: refused, nothing written' '
	repo lf &&
	printf "%s\n" "post-commit: {commands: {own: {run: echo}}}" >lf/lefthook.yml &&
	cp lf/lefthook.yml before &&
	(cd lf && test_exit_code 128 git threadmind install) >out 2>err &&
	grep "^error: lefthook: .*/lefthook\.yml. cannot be edited safely (its .post-commit. key is not a plain block map); add these lines to it by hand, then run install again:$" err &&
	grep "^    post-checkout:$" err &&
	grep "^      commands:$" err &&
	grep "^          run: \"command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook post-rewrite {1} || :\"$" err &&
	grep "^          use_stdin: true$" err &&
	grep "^fatal: nothing was installed" err &&
	cmp before lf/lefthook.yml &&
	test -z "$(git -C lf config merge.threadmind.driver)" &&
	printf "%s\n" "post-commit:" "  commands:" "    threadmind:" "      run: x" >lf/lefthook.yml &&
	(cd lf && test_exit_code 128 git threadmind install) 2>err &&
	grep "already has a command named .threadmind." err &&
	printf "%s\n" "base: &b" "  commands: {}" "post-commit: *b" >lf/lefthook.yml &&
	(cd lf && test_exit_code 128 git threadmind install) 2>err &&
	grep "its .post-commit. key is not a plain block map" err
'

test_expect_success 'a hook already called by hand in lefthook.yml is left alone' '
	repo lh &&
	printf "%s\n" "post-commit:" "  commands:" "    tm:" \
		"      run: git threadmind hook post-commit" >lh/lefthook.yml &&
	roundtrip lh lefthook.yml &&
	test "$(grep -c "hook post-commit" lh.installed)" = 1
'

test_expect_success 'lefthook.toml: tables appended; an inline table refused' '
	repo lt &&
	printf "%s\n" "[post-commit.commands.own]" "run = \"echo own\"" >lt/lefthook.toml &&
	roundtrip lt lefthook.toml &&
	grep "^\[post-commit\.commands\.threadmind\]$" lt.installed &&
	grep "^use_stdin = true$" lt.installed &&
	printf "%s\n" "[post-commit]" "commands = { own = { run = \"x\" } }" >lt/lefthook.toml &&
	(cd lt && test_exit_code 128 git threadmind install) 2>err &&
	grep "^    \[post-checkout\.commands\.threadmind\]$" err
'

test_expect_success 'lefthook.json: never edited; the members to add are printed' '
	repo lj &&
	echo "{}" >lj/lefthook.json &&
	(cd lj && test_exit_code 128 git threadmind install) 2>err &&
	grep "^error: lefthook: threadmind does not edit JSON; add these members to the top-level object of .*/lefthook\.json., then run install again:$" err &&
	grep "^    \"post-merge\": {\"commands\": {\"threadmind\": {\"run\": \"command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook post-merge {1} || :\"}}},$" err
'

test_expect_success 'pre-commit: indentless and indented repos, types absent or listed' '
	repo pa &&
	printf "%s\n" "repos:" "-   repo: https://example.com/hooks" "    rev: v1" \
		"    hooks:" "    -   id: check-yaml" >pa/.pre-commit-config.yaml &&
	roundtrip pa .pre-commit-config.yaml &&
	grep -n "" pa.installed >numbered &&
	grep "^4:- repo: local$" numbered &&
	tail -2 pa.installed >tail &&
	printf "%s\n" "default_install_hook_types: [pre-commit, post-checkout, post-commit, post-merge, post-rewrite]" \
		"# <<< threadmind <<<" >expect &&
	test_cmp expect tail &&
	repo pb &&
	printf "%s\n" "minimum_pre_commit_version: 3.2.0" "default_install_hook_types:" \
		"    - post-commit" "repos:" "    - repo: local" "      hooks: []" \
		>pb/.pre-commit-config.yaml &&
	roundtrip pb .pre-commit-config.yaml &&
	grep "^    - repo: local$" pb.installed &&
	grep "^        stages: \[pre-commit\]$" pb.installed &&
	test "$(grep -c "^    - post-commit$" pb.installed)" = 1 &&
	valid_pre_commit pa.installed
'

test_expect_success 'pre-commit: types as a flow list are left, and said to add' '
	repo pf &&
	printf "%s\n" "default_install_hook_types: [pre-commit]" "repos: []" >pf/.pre-commit-config.yaml &&
	(cd pf && test_exit_code 128 git threadmind install) 2>err &&
	grep "its .repos. key is not a plain block list" err &&
	printf "%s\n" "default_install_hook_types: [pre-commit]" "repos:" \
		"- repo: local" "  hooks: []" >pf/.pre-commit-config.yaml &&
	cp pf/.pre-commit-config.yaml before &&
	(cd pf && git threadmind install) >out 2>err &&
	grep "^warning: pre-commit: threadmind does not edit the form of default_install_hook_types in .*/\.pre-commit-config\.yaml.; add these hook types to it:$" err &&
	grep "^    post-checkout, post-commit, post-merge, post-rewrite$" err &&
	grep "run .pre-commit install -t post-checkout -t post-commit -t post-merge -t post-rewrite -t pre-commit.$" err &&
	head -1 pf/.pre-commit-config.yaml >first &&
	head -1 before >expect && test_cmp expect first &&
	(cd pf && git threadmind uninstall -q) &&
	cmp before pf/.pre-commit-config.yaml
'

test_expect_success 'a pre-commit stub with no config: the config is created, and deleted again' '
	repo pn &&
	printf "%s\n" "#!/usr/bin/env bash" "# File generated by pre-commit: https://pre-commit.com" \
		"ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=post-commit)" \
		>pn/.git/hooks/post-commit &&
	chmod +x pn/.git/hooks/post-commit &&
	(cd pn && git threadmind install) >out 2>err &&
	grep "^pre-commit: add threadmind.s hooks in .*/pn/\.pre-commit-config\.yaml." out &&
	grep "^repos:$" pn/.pre-commit-config.yaml &&
	grep "warning: pre-commit has not installed its hooks post-checkout, post-merge, post-rewrite, pre-commit in" err &&
	(cd pn && git threadmind uninstall -q) &&
	test ! -e pn/.pre-commit-config.yaml
'

test_expect_success 'doctor: a lefthook stub whose config lacks our command is a finding' '
	repo ld &&
	printf "%s\n" "post-commit:" "  commands:" "    own:" "      run: echo" >ld/lefthook.yml &&
	printf "%s\n" "#!/bin/sh" "call_lefthook run \"post-commit\" \"\$@\"" >ld/.git/hooks/post-commit &&
	chmod +x ld/.git/hooks/post-commit &&
	(cd ld && test_exit_code 1 git threadmind doctor) >out 2>&1 &&
	grep "^hooks: lefthook runs the hooks, but .*/lefthook\.yml. does not call threadmind (post-checkout, post-commit, post-merge, post-rewrite, pre-commit); run .git threadmind install.$" out &&
	grep "^hooks: lefthook has not installed its hooks post-checkout, post-merge, post-rewrite, pre-commit in .*/\.git/hooks. yet: run .lefthook install.$" out &&
	grep "^the hooks are run by lefthook (.*/lefthook\.yml.)$" out
'

test_expect_success '--manual names the manager and prints the lines it adds' '
	(cd ld && git threadmind install --manual) >out &&
	grep "^# lefthook runs the hooks: threadmind goes into .*/lefthook\.yml.$" out &&
	grep "^# the lines threadmind adds:$" out &&
	grep "^#         run: \"command -v git-threadmind >/dev/null 2>&1 || exit 0; git-threadmind hook post-merge {1} || :\"$" out &&
	grep "^cat >.*/lefthook\.yml. <<.THREADMIND_EOF.$" out &&
	! grep threadmind ld/lefthook.yml
'

test_expect_success '--manual for pre-commit: the entry and the types, nothing written' '
	repo pm &&
	printf "%s\n" "repos:" "- repo: https://example.org/hooks" "  rev: v1" \
		"  hooks:" "  - id: lint" >pm/.pre-commit-config.yaml &&
	cp pm/.pre-commit-config.yaml pm.before &&
	(cd pm && git threadmind install --manual) >out &&
	grep "^# pre-commit runs the hooks: threadmind goes into .*/\.pre-commit-config\.yaml.$" out &&
	grep "^#   - repo: local$" out &&
	grep "^#     - id: threadmind-pre-commit$" out &&
	grep "^#       stages: \[post-rewrite\]$" out &&
	grep "^#   default_install_hook_types: \[pre-commit, post-checkout, post-commit, post-merge, post-rewrite\]$" out &&
	grep "^cat >.*/\.pre-commit-config\.yaml. <<.THREADMIND_EOF.$" out &&
	grep "^# pre-commit has not installed its hooks .* yet: run .pre-commit install.$" out &&
	cmp pm.before pm/.pre-commit-config.yaml &&
	test -z "$(git -C pm config merge.threadmind.driver)"
'

test_expect_success 'our stub left in the hooks folder is taken out when lefthook runs the hooks' '
	repo ls &&
	(cd ls && git threadmind install -q &&
		printf "%s\n" "post-commit:" "  commands:" "    own:" "      run: echo" >lefthook.yml &&
		git threadmind install) >out 2>&1 &&
	grep "^hook .post-checkout.: delete .*/\.git/hooks/post-checkout.$" out &&
	test ! -e ls/.git/hooks/post-checkout &&
	test ! -e ls/.git/hooks/pre-commit
'

test_expect_success 'uninstall takes our stub out of what pre-commit moved aside (.legacy)' '
	repo pl &&
	(cd pl && git threadmind install -q &&
		mv .git/hooks/post-commit .git/hooks/post-commit.legacy &&
		printf "%s\n" "#!/usr/bin/env bash" "# File generated by pre-commit: https://pre-commit.com" \
			>.git/hooks/post-commit && chmod +x .git/hooks/post-commit &&
		git threadmind uninstall) >out 2>&1 &&
	grep "^hook .post-commit.: delete .*/\.git/hooks/post-commit\.legacy.$" out &&
	test ! -e pl/.git/hooks/post-commit.legacy &&
	grep -q "File generated by pre-commit" pl/.git/hooks/post-commit
'

test_done
