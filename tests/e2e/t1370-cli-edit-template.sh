#!/bin/sh
# `edit` on a thread whose summary is empty starts from a template, as
# `git commit` does (issue 25, r12): the seed's five sections, then "# "
# comment lines with the thread's id, title, project and paths and how to
# abort.  On save the template's comment lines and the sections left empty
# go; the user's own `# ` headings stay; an unchanged template aborts.
. "$(dirname "$0")/test-lib.sh"

TD=r/.threadmind/threads/r

# The buffer the editor sees is copied to $TEST_ROOT/buffer.
test_expect_success 'setup' '
	new_repo r &&
	(cd r && git threadmind init -q &&
		git threadmind new -q "Auth UI" --paths README >/dev/null &&
		git threadmind new -q Bare >/dev/null &&
		git add .threadmind && git commit -q -m threads) &&
	write_script copy-buffer.sh <<-EOF
	cp "\$1" "$TEST_ROOT/buffer"
	EOF
'

# r12 (../shared/repro/team2/r12-edit-blank-buffer.sh): the buffer of a new
# thread was empty.
test_expect_success 'r12: a new thread opens the template, not an empty buffer' '
	cp $TD/auth-ui.md before &&
	(cd r && test_exit_code 1 env GIT_EDITOR="$TEST_ROOT/copy-buffer.sh" \
		git threadmind edit auth-ui 2>../err) &&
	cat >expect <<-\EOF &&
	## Decisions

	## Constraints

	## State

	## Open questions

	## Next steps

	# Summary of thread '\''auth-ui'\'' (Auth UI), project '\''r'\''.
	# Paths: README
	# Write under the sections you need; those left empty are dropped.
	# These '\''# '\'' lines are removed when you save; your own Markdown headings stay.
	# Leave every section empty (or empty the file) to abort: nothing is written.
	EOF
	test_cmp expect buffer &&
	echo "Aborting: template left empty; '\''auth-ui'\'' was not changed" >expect &&
	test_cmp expect err &&
	cmp before $TD/auth-ui.md &&
	test ! -e r/.git/THREADMIND_SUMMARY.md
'

test_expect_success 'a thread without paths: the template says how to set them' '
	(cd r && test_exit_code 1 env GIT_EDITOR="$TEST_ROOT/copy-buffer.sh" \
		git threadmind edit bare 2>/dev/null) &&
	grep "^# Summary of thread .bare. (Bare), project .r.\.$" buffer &&
	grep "^# Paths: none (git threadmind set bare paths=<path>,\.\.\. names the files it covers)\.$" buffer
'

test_expect_success 'saved: comment lines and empty sections go, filled ones and # headings stay' '
	write_script fill.sh <<-\EOF &&
	sed -e "s/^## State$/## State\n- login form done/" \
		-e "s/^## Next steps$/## Next steps\n- reset password/" \
		-e "1i # Auth notes" "$1" >"$1.new" && mv "$1.new" "$1"
	EOF
	(cd r && GIT_EDITOR="$TEST_ROOT/fill.sh" git threadmind edit auth-ui) &&
	printf "\n# Auth notes\n## State\n- login form done\n\n## Next steps\n- reset password\n" >expect &&
	body $TD/auth-ui.md >actual &&
	test_cmp expect actual &&
	(cd r && git rev-parse HEAD) >expect &&
	fm $TD/auth-ui.md commit >actual &&
	test_cmp expect actual
'

test_expect_success 'a summary that is not empty opens as it is, without the template' '
	(cd r && test_exit_code 1 env GIT_EDITOR="$TEST_ROOT/copy-buffer.sh" \
		git threadmind edit auth-ui 2>../err) &&
	printf "# Auth notes\n## State\n- login form done\n\n## Next steps\n- reset password\n" >expect &&
	test_cmp expect buffer &&
	grep "^Aborting: summary unchanged" err
'

test_expect_success 'text appended after the comment lines is kept; the comments are not' '
	(cd r && git threadmind new -q Appended >/dev/null &&
		GIT_EDITOR="sh -c '\''printf \"## State\n- appended\n\" >>\"\$0\"'\''" \
		git threadmind edit appended) &&
	printf "\n## State\n- appended\n" >expect &&
	body $TD/appended.md >actual &&
	test_cmp expect actual
'

test_expect_success 'an emptied template aborts as an empty summary (exit 1)' '
	(cd r && git threadmind new -q Emptied >/dev/null) &&
	cp $TD/emptied.md before &&
	(cd r && test_exit_code 1 env GIT_EDITOR="cp /dev/null" \
		git threadmind edit emptied 2>../err) &&
	grep "^Aborting: summary empty; .emptied. was not changed$" err &&
	cmp before $TD/emptied.md
'

test_expect_success 'a template with only comment lines edited away still aborts' '
	(cd r && test_exit_code 1 env GIT_EDITOR="sed -i /^#\ /d" \
		git threadmind edit emptied 2>../err) &&
	grep "^Aborting: template left empty" err &&
	cmp before $TD/emptied.md
'

test_done
