#!/bin/sh
# test-lib.sh itself: the cleanup, config, script and thread-file helpers
# every other script relies on.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup' '
	new_repo r &&
	mkdir -p s/.threadmind/threads/s &&
	printf "%s\n" "---" "id: a" "title: A b" "parentId: main" \
		"updatedAt: 2026-01-01T00:00:00.000Z" "---" "" "## State" \
		>s/.threadmind/threads/s/a.md &&
	printf "%s\r\n" "---" "id: c" "parentId: main" "---" "x" \
		>s/.threadmind/threads/s/c.md
'

test_expect_success 'test_when_finished runs, last first, after a pass' '
	(
		test_expect_success inner "
			test_when_finished \"echo one >>order\" &&
			test_when_finished \"echo two >>order\" &&
			true
		"
	) >out &&
	grep "^ok 3 - inner$" out &&
	printf "two\none\n" >expect &&
	test_cmp expect order
'

test_expect_success 'test_when_finished runs after a failure too' '
	(
		test_expect_success inner "
			test_when_finished \"echo ran >cleaned\" &&
			false
		"
	) >out &&
	grep "^not ok 4 - inner$" out &&
	test "$(cat cleaned)" = ran
'

test_expect_success 'a failing cleanup fails the test' '
	(test_expect_success inner "test_when_finished false && true") >out &&
	grep "^not ok 5 - inner$" out
'

test_expect_success 'test_config sets a value for one test only' '
	(
		test_expect_success inner "
			test_config -C r threadmind.x 1 &&
			test \"\$(git -C r config threadmind.x)\" = 1
		"
	) >out &&
	grep "^ok 6 - inner$" out &&
	test_must_fail git -C r config threadmind.x &&
	(test_expect_success inner "test_config -C r threadmind.x 2 && false") \
		>out &&
	grep "^not ok 6 - inner$" out &&
	test_must_fail git -C r config threadmind.x
'

test_expect_success 'write_script makes an executable sh script' '
	write_script hello.sh <<-\EOF &&
	echo "hello $1"
	EOF
	test "$(./hello.sh you)" = "hello you" &&
	head -n 1 hello.sh >actual &&
	echo "#!/bin/sh" >expect &&
	test_cmp expect actual
'

test_expect_success 'test_tick moves the commit date one minute on' '
	(
		test_tick &&
		test "$GIT_COMMITTER_DATE" = "1776247260 +0000" &&
		test_tick &&
		test "$GIT_AUTHOR_DATE" = "1776247320 +0000"
	)
'

test_expect_success 'change appends, commits every file, one minute on' '
	(cd r && change one a/x b &&
		test "$(git log -1 --format=%s)" = one &&
		test "$(git log -1 --format=%ct)" -gt "$(git log -1 --skip=1 --format=%ct)" &&
		test -z "$(git status --porcelain)" &&
		change two b && test "$(cat b)" = "$(printf "one\ntwo")" &&
		git show --stat HEAD | grep " b | 1 +")
'

test_expect_success 'test_person: a teammate with their own HOME and identity' '
	test_person bob "B O B" &&
	test "$(as_person bob git config --global user.name)" = "B O B" &&
	test "$(as_person bob git config --global user.email)" = bob@example.com &&
	test "$(as_person bob sh -c "echo \$HOME")" = "$TEST_ROOT/bob-home" &&
	test "$(git config --global user.name)" = "A U Thor" &&
	test_person ana &&
	test "$(as_person ana git config --global user.name)" = ana
'

test_expect_success 'fm reads a frontmatter value, without a CR' '
	test "$(fm s/.threadmind/threads/s/a.md title)" = "A b" &&
	test "$(fm s/.threadmind/threads/s/c.md parentId)" = main &&
	test -z "$(fm s/.threadmind/threads/s/a.md branch)"
'

test_expect_success 'body gives the bytes after the frontmatter' '
	printf "\n## State\n" >expect &&
	body s/.threadmind/threads/s/a.md >actual &&
	test_cmp expect actual
'

test_expect_success 'age and fresh: an old updatedAt is not fresh' '
	cp s/.threadmind/threads/s/a.md a.md &&
	fresh a.md &&
	age a.md &&
	test "$(fm a.md updatedAt)" = 2020-01-01T00:00:00.000Z &&
	! fresh a.md
'

test_expect_success 'snap lists every file of a store with its content' '
	snap s >before &&
	grep "^== ./threads/s/a.md$" before &&
	echo changed >>s/.threadmind/threads/s/c.md &&
	snap s >after &&
	! test_cmp before after
'

test_expect_success 'frontmatter writes the block fm and body read back' '
	{ frontmatter id=x "title=A = b" parentId=main &&
		printf "\nz\n"; } >x.md &&
	printf "%s\n" "---" "id: x" "title: A = b" "parentId: main" "---" "" z \
		>expect &&
	test_cmp expect x.md &&
	test "$(fm x.md title)" = "A = b" &&
	frontmatter >empty &&
	printf -- "---\n---\n" >expect &&
	test_cmp expect empty
'

test_expect_success 'chain_files writes a parent chain' '
	mkdir chain &&
	chain_files chain 3 main &&
	test "$(ls chain | wc -l)" = 3 &&
	test "$(fm chain/c0.md parentId)" = main &&
	test "$(fm chain/c2.md parentId)" = c1 &&
	test "$(fm chain/c2.md id)" = c2
'

test_expect_success 'json_depth counts nesting, strings left out, and balance' '
	cat >j <<-\EOF &&
	{"a": [[], {"b": "]}[\\\"{"}]}
	EOF
	python3 -c "import json; json.load(open(\"j\"))" &&
	test "$(json_depth j)" = 3 &&
	echo "[[]" >j &&
	test_must_fail json_depth j &&
	echo "[]]" >j &&
	test_must_fail json_depth j
'

test_expect_success 'test_bounded_ok: within the bound and exit 0' '
	MAX_S=60 MAX_KB=1048576 &&
	test_bounded_ok ok true &&
	test_must_fail test_bounded_ok bad false &&
	test "$(cat bad.rc)" = 1 &&
	MAX_KB=1 &&
	if [ -x /usr/bin/time ]; then test_must_fail test_bounded_ok big true; fi
'

test_expect_success 'test_size_at_most' '
	printf 12345 >five &&
	test_size_at_most five 5 &&
	test_must_fail test_size_at_most five 4
'

test_done
