#!/bin/sh
# `summary --append [--section <heading>]` adds lines to a summary by
# sections (merge's rule) without rewriting the rest, and `show
# --summary-only` prints the summary alone (issue 25, Friction): scripts no
# longer rebuild the whole body.
. "$(dirname "$0")/test-lib.sh"

TD=r/.threadmind/threads/r

test_expect_success 'setup' '
	new_repo r &&
	(cd r && git threadmind init -q &&
		git threadmind new -q Auth >/dev/null &&
		printf "Intro line.\n\n## Decisions\n- JWT tokens\n\n## State\n- login done\n\n## Notes\n\n  kept   as is  \n" |
		git threadmind summary -q auth &&
		git add .threadmind && git commit -q -m threads &&
		echo y >f && git add f && git commit -q -m f)
'

test_expect_success 'show --summary-only prints the summary exactly, nothing else' '
	(cd r && git threadmind show --summary-only auth) >actual &&
	printf "Intro line.\n\n## Decisions\n- JWT tokens\n\n## State\n- login done\n\n## Notes\n\n  kept   as is  \n" >expect &&
	test_cmp expect actual &&
	(cd r && git threadmind show --summary-only main) >actual &&
	test_must_fail test -s actual
'

test_expect_success 'show --summary-only round-trips through summary -F -' '
	cp $TD/auth.md before &&
	(cd r && git threadmind show --summary-only auth |
		git threadmind summary -q auth -F -) &&
	body before >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual
'

test_expect_success 'show: --json with --summary-only is a usage error' '
	(cd r && test_exit_code 129 git threadmind show --json --summary-only auth) 2>err &&
	grep "^error: --json and --summary-only cannot be used together" err
'

test_expect_success 'summary --append --section: under that section, the rest byte for byte' '
	(cd r && printf -- "- reset password done\n" |
		git threadmind summary auth --append --section state 2>../err) &&
	grep "^Appended to the summary of .auth.$" err &&
	printf "\nIntro line.\n\n## Decisions\n- JWT tokens\n\n## State\n- login done\n- reset password done\n\n## Notes\n\n  kept   as is  \n" >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual &&
	(cd r && git rev-parse HEAD) >expect &&
	fm $TD/auth.md commit >actual &&
	test_cmp expect actual
'

test_expect_success 'summary --append: the text'\''s own sections go under theirs' '
	printf "Second intro.\n\n## Decisions\n- refresh tokens\n\n## Next steps\n- 2FA\n" >add.md &&
	(cd r && git threadmind summary -q --append -F ../add.md auth) &&
	printf "\nIntro line.\n\nSecond intro.\n\n## Decisions\n- JWT tokens\n- refresh tokens\n\n## State\n- login done\n- reset password done\n\n## Notes\n\n  kept   as is  \n\n## Next steps\n- 2FA\n" >expect &&
	body $TD/auth.md >actual &&
	test_cmp expect actual
'

test_expect_success 'summary --append --section: a section the summary lacks is added at the end' '
	(cd r && echo "- is SSO needed?" |
		git threadmind summary -q --append --section "Open questions") &&
	(cd r && git threadmind show --summary-only main) >actual &&
	printf "## Open questions\n- is SSO needed?\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'summary --append of an empty text: fatal, nothing written' '
	cp $TD/auth.md before &&
	(cd r && printf "\n \n" |
		test_exit_code 128 git threadmind summary --append auth) 2>err &&
	grep "^fatal: nothing to append to the summary of .auth.: the text is empty; nothing was written$" err &&
	cmp before $TD/auth.md
'

test_expect_success 'summary: --section without --append, --append with --allow-empty' '
	(cd r && test_exit_code 129 git threadmind summary --section State auth </dev/null) 2>err &&
	grep "^error: --section needs --append" err &&
	(cd r && test_exit_code 129 git threadmind summary --append --allow-empty auth </dev/null) 2>err &&
	grep "^error: --append and --allow-empty cannot be used together" err &&
	(cd r && echo x | test_exit_code 128 git threadmind summary --append --section "" auth) 2>err &&
	grep "^fatal: a section to append under is one line of text" err &&
	cmp before $TD/auth.md
'

test_done
