#!/bin/sh
# A branch whose name is not UTF-8 (git allows bytes >= 0x80 in ref names;
# a remote can offer one) never makes config.json or a thread file invalid
# (issue 24, repro non-utf8-branch-config): such a name is stored with
# each bad byte as \xHH (docs/format.md), and the hooks, switch, status,
# new and list --branch work on it as on any branch.
. "$(dirname "$0")/test-lib.sh"

B=$(printf 'feat-\377\376')
KEY='feat-\xff\xfe'

# valid_json: config.json is UTF-8 JSON (as strict readers want it).
valid_json() {
	python3 -c "import json; json.load(open('.threadmind/config.json', encoding='utf-8'))"
}

# entry BRANCH: branchThreads[r][BRANCH] of config.json on stdout.
entry() {
	python3 -c "import json, sys; print(json.load(open('.threadmind/config.json', encoding='utf-8'))['branchThreads']['r'].get(sys.argv[1]))" "$1"
}

test_expect_success 'setup: a store with the hooks, a thread auth' '
	new_repo r && (cd r && git threadmind init -q --title R &&
		git threadmind install -q >/dev/null 2>&1 &&
		mkdir src && echo a >src/a.c &&
		git threadmind new -q Auth --paths src >/dev/null &&
		git add -A && git commit -q -m threads)
'

test_expect_success 'checkout of the branch: the hook keeps config.json valid' '
	(cd r && git checkout -q -b "$B" 2>err && cat err &&
		valid_json && test "$(entry "$KEY")" = main)
'

test_expect_success 'switch records the entry under the escaped name' '
	(cd r && git threadmind switch -q auth && valid_json &&
		test "$(entry "$KEY")" = auth &&
		! LC_ALL=C grep -q "$(printf "\377")" .threadmind/config.json)
'

test_expect_success 'status works and shows the stored form' '
	(cd r && git threadmind status >out && cat out &&
		grep "^branch: feat-\\\\xff\\\\xfe$" out &&
		grep "^active thread: auth" out)
'

test_expect_success 'the entry is found again after a checkout back' '
	(cd r && git checkout -q main && git threadmind prompt >p &&
		test "$(cat p)" = main &&
		git checkout -q "$B" && git threadmind prompt >p &&
		test "$(cat p)" = auth && valid_json)
'

test_expect_success 'new on the branch writes a thread file that parses' '
	(cd r && git threadmind new -q Other >id && id=$(cat id) &&
		grep "^branch: feat-\\\\xff\\\\xfe$" .threadmind/threads/r/$id.md &&
		git threadmind show $id >/dev/null 2>err && cat err &&
		! grep warning err &&
		git threadmind list --branch "$B" >out && cat out &&
		grep " $id " out && ! grep " auth " out)
'

test_expect_success 'a valid UTF-8 name is stored as it is' '
	(cd r && git checkout -q -b "feat-$(printf "\303\251")" &&
		git threadmind switch -q auth && valid_json &&
		test "$(entry "feat-$(printf "\303\251")")" = auth)
'

test_done
