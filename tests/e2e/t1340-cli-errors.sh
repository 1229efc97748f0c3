#!/bin/sh
# Refusals shared by every command: no store, corrupt config.json, unknown,
# invalid and ambiguous thread ids, symlinks, files over 1 MiB.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop

test_expect_success 'setup' '
	new_repo shop &&
	(cd shop && git threadmind init -q &&
		git threadmind new -q Auth && git threadmind new -q "Auth UI" &&
		git threadmind new -q Billing) >/dev/null
'

test_expect_success 'no .threadmind/: every command fails with 128 and says to init' '
	new_repo plain &&
	for cmd in status tree list "show main" "new X" "switch main" \
		"project list" "project new X" migrate doctor
	do
		(cd plain && test_exit_code 128 git threadmind $cmd) 2>err &&
		grep "^fatal: not a ThreadMind repository" err &&
		grep "run .git threadmind init." err || return 1
	done &&
	test ! -e plain/.threadmind
'

test_expect_success 'a corrupt config.json is never overwritten' '
	printf "{\n  \"activeProjectId\": \"shop\",\n  oops\n}\n" >shop/.threadmind/config.json &&
	cp shop/.threadmind/config.json before &&
	(cd shop && test_exit_code 128 git threadmind switch auth) 2>err &&
	grep "^fatal: .*\.threadmind/config.json. is not valid JSON (line 3, column 3)" err &&
	grep "fix it or delete it" err &&
	cmp before shop/.threadmind/config.json &&
	(cd shop && test_exit_code 128 git threadmind new Other) 2>err &&
	grep "config.json. is not valid JSON (line 3, column 3)" err &&
	cmp before shop/.threadmind/config.json &&
	test ! -e $T/other.md &&
	(cd shop && test_exit_code 128 git threadmind project use shop) 2>err &&
	cmp before shop/.threadmind/config.json &&
	(cd shop && test_exit_code 128 git threadmind project new Other) 2>err &&
	grep "line 3, column 3" err &&
	cmp before shop/.threadmind/config.json &&
	test ! -e shop/.threadmind/projects/other.json &&
	test ! -e shop/.threadmind/.lock
'

test_expect_success 'a deleted config.json gives the defaults back' '
	rm shop/.threadmind/config.json &&
	(cd shop && git threadmind status) >out &&
	grep "^active thread: billing (Billing)$" out &&
	grep "^lock: free$" out
'

test_expect_success 'unknown thread: 128 naming it' '
	for cmd in "show nope" "switch nope" "new --parent nope X"
	do
		(cd shop && test_exit_code 128 git threadmind $cmd) 2>err &&
		grep "^fatal: no thread matches .nope." err || return 1
	done &&
	test ! -e $T/x.md
'

test_expect_success 'invalid ids ../x and Foo: 128 before any path is built' '
	for id in ../x Foo ../../etc/passwd
	do
		for cmd in show switch "new X --parent"
		do
			(cd shop && test_exit_code 128 git threadmind $cmd $id) 2>err &&
			grep "^fatal: invalid thread id .$id.: ids are lower-case letters, digits and dashes" err ||
			return 1
		done
	done &&
	(cd shop && test_exit_code 128 git threadmind --project ../x list) 2>err &&
	grep "^fatal: invalid project id .\.\./x." err &&
	(cd shop && test_exit_code 128 git threadmind list --project Foo) 2>err &&
	grep "^fatal: invalid project id .Foo." err &&
	test ! -e $T/x.md
'

test_expect_success 'ambiguous prefix lists the candidates' '
	(cd shop && test_exit_code 128 git threadmind show au) 2>err &&
	grep "^fatal: .au. is ambiguous: auth, auth-ui (give more characters)$" err &&
	(cd shop && test_exit_code 128 git threadmind switch a) 2>err &&
	grep "^fatal: .a. is ambiguous: auth, auth-ui (give more characters)$" err
'

test_expect_success 'a unique prefix and an exact id that is a prefix work' '
	(cd shop && git threadmind show bil) >out &&
	grep "^id: billing$" out &&
	(cd shop && git threadmind show auth) >out &&
	grep "^id: auth$" out
'

test_expect_success 'a symlinked .threadmind/threads/<project> is refused' '
	mkdir outside &&
	mv $T outside/shop &&
	ln -s ../../../outside/shop $T &&
	for cmd in list tree "show main" "new X"
	do
		(cd shop && test_exit_code 128 git threadmind $cmd) 2>err &&
		grep "^fatal: .*threads/shop. is a symbolic link" err || return 1
	done &&
	test ! -e outside/shop/x.md &&
	rm $T && mv outside/shop $T
'

test_expect_success 'a symlinked .threadmind is refused' '
	new_repo linked &&
	mv shop/.threadmind real-store &&
	ln -s ../real-store shop/.threadmind &&
	(cd shop && test_exit_code 128 git threadmind status) 2>err;
	rc=$? &&
	rm shop/.threadmind && mv real-store shop/.threadmind &&
	test $rc = 0 &&
	grep "^fatal: .*symbolic link" err
'

test_expect_success 'a thread file over 1 MiB: list and tree warn and go on' '
	{
		printf -- "---\nid: huge\ntitle: Huge\nparentId: main\n---\n" &&
		head -c 1100000 /dev/zero | tr "\0" "x"
	} >$T/huge.md &&
	(cd shop && git threadmind list) >out 2>err &&
	grep "^warning: skipping .*huge.md. is larger than 1 MiB" err &&
	test $(grep -c "^warning:" err) = 1 &&
	grep " billing " out &&
	! grep huge out &&
	(cd shop && git threadmind tree) >out 2>err &&
	grep "^warning: skipping .*huge.md" err &&
	grep "billing" out &&
	(cd shop && git threadmind list --json) >out 2>err &&
	python3 -c "import json; d=json.load(open(\"out\")); assert \"huge\" not in [t[\"id\"] for t in d[\"threads\"]]" &&
	grep "huge.md" err
'

test_expect_success 'a thread file over 1 MiB: show is a fatal error' '
	(cd shop && test_exit_code 128 git threadmind show huge) 2>err &&
	grep "^fatal: .*huge.md. is larger than 1 MiB" err &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^unreadable: .*huge.md. is larger than 1 MiB" out &&
	rm $T/huge.md
'

test_done
