#!/bin/sh
# Issue 25 r09: a clone where `git threadmind install` never ran (git never
# runs setup from a clone) is told so by the everyday commands: one hint
# line when .threadmind/.gitattributes asks for the merge driver and
# merge.threadmind.driver is not set; not with -q, not with --json, not in
# the hooks.
. "$(dirname "$0")/test-lib.sh"

HINT="hint: this clone has no merge driver for .threadmind/ (merge.threadmind.driver is not set), so merges leave conflict markers in thread files; run 'git threadmind install' once per clone"

test_expect_success 'setup: an origin that ran install, a clone that did not' '
	new_repo origin &&
	(cd origin && git threadmind init -q && git threadmind install -q &&
		git threadmind new Auth -q >/dev/null &&
		git add -A && git commit -q -m tm) &&
	git clone -q origin clone &&
	grep "merge=threadmind" clone/.threadmind/.gitattributes
'

# hinted: ./err holds the hint line once.
hinted() {
	test "$(grep -c "^hint: this clone has no merge driver" err)" = 1 &&
	grep -Fx "$HINT" err
}

test_expect_success 'status, new, summary, tree and the others say it once (r09)' '
	for cmd in "status" "new Other" "tree" "list" "show auth" \
		"switch auth" "set other title=O"; do
		(cd clone && git threadmind $cmd >/dev/null 2>../err) &&
		hinted || return 1
	done &&
	# stale is a CI gate: its stderr is its answer, nothing else
	(cd clone && git threadmind stale >/dev/null 2>../err) &&
	! grep hint err &&
	(cd clone && printf "## x\n- y\n" |
		git threadmind summary auth -F - >/dev/null 2>../err) &&
	hinted
'

test_expect_success 'not with -q, not with --json' '
	for cmd in "-q status" "status -q" "-q tree" "status --json" \
		"tree --json" "list --json" "show --json auth"; do
		(cd clone && git threadmind $cmd >/dev/null 2>../err) &&
		test_must_fail test -s err || return 1
	done
'

test_expect_success 'not from prompt, doctor (which reports it), hook' '
	(cd clone && git threadmind prompt >/dev/null 2>../err) &&
	test_must_fail test -s err &&
	(cd clone && test_exit_code 1 git threadmind doctor >../out 2>../err) &&
	test_must_fail grep "^hint:" err &&
	grep "merge.threadmind.driver is not set" out &&
	(cd clone && git threadmind hook post-checkout x y 1 2>../err) &&
	test_must_fail grep "^hint:" err
'

test_expect_success 'nothing once the driver is registered (install, or --global)' '
	(cd clone && git threadmind install -q &&
		git threadmind status >/dev/null 2>../err) &&
	test_must_fail test -s err &&
	(cd clone && git threadmind uninstall -q &&
		git threadmind status >/dev/null 2>../err) &&
	echo "$HINT" >expect &&
	test_cmp expect err &&
	test_when_finished "git threadmind uninstall --global -q" &&
	git threadmind install --global -q &&
	(cd clone && git threadmind status >/dev/null 2>../err) &&
	test_must_fail test -s err
'

test_expect_success 'nothing when the attributes do not ask for the driver' '
	new_repo solo &&
	(cd solo && git threadmind init -q &&
		git threadmind status >/dev/null 2>../err) &&
	test_must_fail test -e solo/.threadmind/.gitattributes &&
	test_must_fail test -s err &&
	printf "threads/**/*.md diff=markdown\n# merge=threadmind\n" \
		>solo/.threadmind/.gitattributes &&
	(cd solo && git threadmind status >/dev/null 2>../err) &&
	test_must_fail test -s err
'

test_expect_success 'a config that names threadmind but not the driver still gets it' '
	test_config -C clone threadmind.hooks true &&
	test_config -C clone merge.threadmind.name "x" &&
	(cd clone && git threadmind status >/dev/null 2>../err) &&
	echo "$HINT" >expect &&
	test_cmp expect err &&
	test_config -C clone merge.threadmind.driver "true" &&
	(cd clone && git threadmind status >/dev/null 2>../err) &&
	test_must_fail test -s err
'

test_done
