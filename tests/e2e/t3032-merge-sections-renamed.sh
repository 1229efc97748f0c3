#!/bin/sh
# git-threadmind-merge pairs sections by heading and by content (issue
# 19, reproductions 03, 09, 11): a heading renamed on one side is one
# section, a repeated heading is paired by content, a section deleted on
# one side and changed on the other is merged as if emptied.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

test_expect_success '03: renamed on one side, an item added on the other (git merge): one section, renamed' '
	x19_sides r03 "## Decisions\n- Use Redis\n\n## Open questions\n- Who owns the cart?\n- Is Redis enough?\n" \
		"## Decisions\n- Use Redis\n\n## Questions\n- Who owns the cart?\n- Is Redis enough?\n" \
		"## Decisions\n- Use Redis\n\n## Open questions\n- Who owns the cart?\n- Is Redis enough?\n- Do we need Kafka?\n" &&
	x19_expect r03 0 "\n## Decisions\n- Use Redis\n\n## Questions\n- Who owns the cart?\n- Is Redis enough?\n- Do we need Kafka?\n" &&
	x19_repo r03/repo && x19_branches r03/repo &&
	(cd r03/repo && git merge -q --no-edit side) &&
	body r03/repo/$X19 >r03/got-git && test_cmp r03/expect r03/got-git &&
	test "$(grep -c "^- Who owns the cart?$" r03/repo/$X19)" = 1
'

test_expect_success '03: only the case of the heading changed: one section, as renamed' '
	x19_sides r03c "## Open questions\n- Who owns the cart?\n" \
		"## Open Questions\n- Who owns the cart?\n" \
		"## Open questions\n- Who owns the cart?\n- Is Redis enough?\n" &&
	x19_expect r03c 0 "\n## Open Questions\n- Who owns the cart?\n- Is Redis enough?\n"
'

test_expect_success '03: renamed differently on both sides: a conflict on the heading, the body merged' '
	x19_sides r03d "## Notes\n- n1\n" "## Ours notes\n- n1\n- n2\n" \
		"## Theirs notes\n- n1\n- n3\n" &&
	x19_expect r03d 1 "\n<<<<<<< ours\n## Ours notes\n=======\n## Theirs notes\n>>>>>>> theirs\n- n1\n- n2\n- n3\n"
'

test_expect_success '09: a new section with a repeated heading above the edited one: the edit stays in its section' '
	x19_sides r09 "## Decisions\n- d1\n\n## Notes\n- old note\n" \
		"## Decisions\n- d1\n\n## Notes\n- new ours note\n\n## Notes\n- old note\n" \
		"## Decisions\n- d1\n\n## Notes\n- old note (confirmed)\n" &&
	x19_expect r09 0 "\n## Decisions\n- d1\n\n## Notes\n- new ours note\n\n## Notes\n- old note (confirmed)\n" &&
	! grep -x -- "- old note" r09/R2
'

test_expect_success '11: a section deleted on one side, a question added on the other: only the new question stays' '
	x19_sides r11 "## Decisions\n- d1\n\n## Open questions\n- Who owns the cart?\n- Is Redis enough?\n" \
		"## Decisions\n- d1\n- Redis is enough; Ana owns the cart\n" \
		"## Decisions\n- d1\n\n## Open questions\n- Who owns the cart?\n- Is Redis enough?\n- Do we need Kafka?\n" &&
	x19_expect r11 0 "\n## Decisions\n- d1\n- Redis is enough; Ana owns the cart\n\n## Open questions\n- Do we need Kafka?\n"
'

test_expect_success '11: deleted on one side, reworded and extended on the other: the changes stay, the rest goes' '
	x19_sides r11b "## State\nThe cart works.\n\n- cache warm\n- queue drained\n\n## Next steps\n- n1\n" \
		"## Next steps\n- n1\n" \
		"## State\nThe cart works, slowly.\n\n- cache warm\n- queue drained\n- logs rotated\n\n## Next steps\n- n1\n" &&
	x19_expect r11b 0 "\n## State\nThe cart works, slowly.\n\n- logs rotated\n\n## Next steps\n- n1\n"
'

test_expect_success '11: deleted on one side, unchanged on the other: deleted' '
	x19_sides r11c "## A\n- a\n\n## B\n- b\n" "## B\n- b\n- b2\n" "## A\n- a\n\n## B\n- b\n" &&
	x19_expect r11c 0 "\n## B\n- b\n- b2\n"
'

test_done
