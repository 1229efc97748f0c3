#!/bin/sh
# git threadmind resolve: re-merging conflicted thread files from the index
# after a merge made without the driver.
. "$(dirname "$0")/test-lib.sh"

thread() { # thread TITLE UPDATED COMMIT BODY-LINE
	cat <<EOT
---
id: auth
title: $1
parentId: main
author: mahmoud-a3f9
createdAt: 2026-04-14T09:00:00.000Z
updatedAt: $2
branch: main
commit: $3
---

## Decisions
- Sessions server-side
$4
EOT
}

f=.threadmind/threads/mon-app/auth.md

test_expect_success 'setup: a frontmatter conflict merged without the driver' '
	git init -q repo && cd repo &&
	mkdir -p .threadmind/threads/mon-app &&
	thread Auth 2026-04-14T18:00:00.000Z a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1 "" >$f &&
	git add . && git commit -q -m base &&
	git switch -q -c side &&
	thread "Auth (side)" 2026-04-15T10:00:00.000Z b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2 "- side bullet" >$f &&
	git commit -q -am side &&
	git switch -q main &&
	thread Auth 2026-04-16T10:00:00.000Z c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3 "- main bullet" >$f &&
	git commit -q -am main &&
	test_must_fail git merge -q side &&
	grep "^<<<<<<<" $f
'

test_expect_success 'resolve merges the file by the driver rules and stages it' '
	cd repo &&
	git threadmind resolve >out &&
	grep "^resolved .threadmind/threads/mon-app/auth.md$" out &&
	! grep "^<<<<<<<\|^=======\|^>>>>>>>" $f &&
	grep "^title: Auth (side)$" $f &&
	grep "^updatedAt: 2026-04-16T10:00:00.000Z$" $f &&
	grep "^commit: c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3$" $f &&
	grep "^- side bullet$" $f &&
	grep "^- main bullet$" $f &&
	git diff --name-only --diff-filter=U >unmerged &&
	test ! -s unmerged &&
	git commit -q --no-edit
'

test_expect_success 'resolve with nothing to resolve says so and exits 0' '
	cd repo &&
	git threadmind resolve 2>err &&
	grep "nothing to resolve" err
'

test_expect_success 'resolve of a path without a conflict is fatal' '
	cd repo &&
	test_exit_code 128 git threadmind resolve $f 2>err &&
	grep "has no conflict" err
'

test_expect_success 'a true prose conflict keeps markers in the body only, exit 1' '
	cd repo &&
	echo "Sessions live on the server." >>$f &&
	git commit -q -am prose &&
	git switch -q -c p1 &&
	sed -i "s/^Sessions live on the server.$/Sessions live in Redis./" $f &&
	git commit -q -am p1 &&
	git switch -q main &&
	sed -i "s/^Sessions live on the server.$/Sessions live in Postgres./" $f &&
	git commit -q -am p2 &&
	test_must_fail git merge -q p1 &&
	(cd .threadmind && test_exit_code 1 git threadmind resolve threads/mon-app/auth.md) >out &&
	grep "^conflicts left in .threadmind/threads/mon-app/auth.md$" out &&
	awk "NR == 1 { next } /^---\$/ { exit } { print }" $f >fm &&
	grep "^title: " fm &&
	! grep "^<<<<<<<" fm &&
	grep "^<<<<<<< ours$" $f &&
	git diff --name-only --diff-filter=U >unmerged &&
	grep auth.md unmerged
'

test_done
