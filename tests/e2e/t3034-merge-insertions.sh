#!/bin/sh
# git-threadmind-merge keeps both sides' insertions at one place (issue
# 19, "Pure insertions at the same place"): where neither side changed or
# removed a line of the ancestor there, both are kept, ours first, exit 0;
# the same heading added on both sides is one section with both bodies.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

STATE="## State\nThe login form is done.\n\n## Next steps\n- Ship\n"

test_expect_success 'two new paragraphs at the end of a section: both, ours first' '
	x19_sides p1 "$STATE" \
		"## State\nThe login form is done.\n\nThe API is up (ours).\n\n## Next steps\n- Ship\n" \
		"## State\nThe login form is done.\n\nThe docs are out (theirs).\nSupport knows.\n\n## Next steps\n- Ship\n" &&
	x19_expect p1 0 "\n## State\nThe login form is done.\n\nThe API is up (ours).\n\nThe docs are out (theirs).\nSupport knows.\n\n## Next steps\n- Ship\n" &&
	printf "\n## State\nThe login form is done.\n\nThe docs are out (theirs).\nSupport knows.\n\nThe API is up (ours).\n\n## Next steps\n- Ship\n" >p1/expect2 &&
	body p1/R2 >p1/got2 && test_cmp p1/expect2 p1/got2
'

test_expect_success 'the same paragraph added on both sides: once' '
	x19_sides p2 "$STATE" \
		"## State\nThe login form is done.\n\nThe API is up.\n\n## Next steps\n- Ship\n" \
		"## State\nThe login form is done.\n\nThe API is up.\n\n## Next steps\n- Ship\n- Tell support\n" &&
	x19_expect p2 0 "\n## State\nThe login form is done.\n\nThe API is up.\n\n## Next steps\n- Ship\n- Tell support\n"
'

test_expect_success 'a line appended to a paragraph and a new paragraph at the same place: both' '
	x19_sides p3 "$STATE" \
		"## State\nThe login form is done.\n\nThe API is up.\n\n## Next steps\n- Ship\n" \
		"## State\nThe login form is done.\nIt was tested.\n\n## Next steps\n- Ship\n" &&
	x19_expect p3 0 "\n## State\nThe login form is done.\nIt was tested.\n\nThe API is up.\n\n## Next steps\n- Ship\n" &&
	cmp p3/R1 p3/R2
'

test_expect_success 'the same section added on both sides: one section, both bodies (git merge)' '
	x19_sides g1 "## Decisions\n- d1\n" \
		"## Decisions\n- d1\n\n## Glossary\n- cart: a basket\n- SKU: an article\n" \
		"## Decisions\n- d1\n\n## Glossary\n- SKU: an article\n- PSP: a payment provider\n" &&
	x19_expect g1 0 "\n## Decisions\n- d1\n\n## Glossary\n- cart: a basket\n- SKU: an article\n- PSP: a payment provider\n" &&
	x19_repo g1/repo && x19_branches g1/repo &&
	(cd g1/repo && git merge -q --no-edit side) &&
	body g1/repo/$X19 >g1/got-git && test_cmp g1/expect g1/got-git
'

test_expect_success 'the same section with prose on both sides: both paragraphs under one heading' '
	x19_sides g2 "## Decisions\n- d1\n" \
		"## Decisions\n- d1\n\n## Glossary\nA cart holds articles.\n" \
		"## Decisions\n- d1\n\n## Glossary\nA SKU names an article.\n" &&
	x19_expect g2 0 "\n## Decisions\n- d1\n\n## Glossary\nA cart holds articles.\n\nA SKU names an article.\n"
'

test_expect_success 'two different sections added at one place: both, the later edit first' '
	x19_sides g3 "## Decisions\n- d1\n" \
		"## Decisions\n- d1\n\n## Risks\n- r1\n" \
		"## Decisions\n- d1\n\n## Links\n- l1\n" &&
	x19_expect g3 0 "\n## Decisions\n- d1\n\n## Links\n- l1\n\n## Risks\n- r1\n" &&
	cmp g3/R1 g3/R2
'

test_expect_success 'a line changed there on one side: a conflict, as in git' '
	x19_sides c1 "$STATE" \
		"## State\nThe login form is shipped.\nThe API is up.\n\n## Next steps\n- Ship\n" \
		"## State\nThe login form is done.\nThe docs are out.\n\n## Next steps\n- Ship\n" &&
	x19_expect c1 1 "\n## State\n<<<<<<< ours\nThe login form is shipped.\nThe API is up.\n=======\nThe login form is done.\nThe docs are out.\n>>>>>>> theirs\n\n## Next steps\n- Ship\n"
'

test_done
