#!/bin/sh
# git threadmind project rename, rm and set.
. "$(dirname "$0")/test-lib.sh"

D=shop/.threadmind

test_expect_success 'setup: two projects' '
	new_repo shop &&
	(cd shop && git threadmind init -q && git threadmind new -q Auth &&
		git threadmind project new -q "Back office")
'

test_expect_success 'project set: fields of the current project' '
	(cd shop && git threadmind project set "systemContext=Be brief.
Always." title=Boutique mode=team) 2>err &&
	python3 -c "import json; p=json.load(open(\"$D/projects/shop.json\")); assert p[\"systemContext\"]==\"Be brief.\nAlways.\" and p[\"title\"]==\"Boutique\" and p[\"mode\"]==\"team\", p" &&
	(cd shop && git threadmind project set --project back-office title=Office) &&
	grep "\"title\": \"Office\"" $D/projects/back-office.json &&
	(cd shop && test_exit_code 128 git threadmind project set mode=both) 2>err &&
	grep "^fatal: invalid mode .both. (solo or team)" err &&
	(cd shop && test_exit_code 128 git threadmind project set id=x) 2>err &&
	grep "^fatal: unknown project field .id." err &&
	(cd shop && test_exit_code 129 git threadmind project set title) 2>err &&
	grep "is not <key>=<value>" err
'

test_expect_success 'project rename: folder, file and config.json follow' '
	(cd shop && git threadmind project rename shop store) 2>err &&
	test ! -e $D/projects/shop.json && test ! -e $D/threads/shop &&
	test -f $D/threads/store/auth.md &&
	grep "\"id\": \"store\"" $D/projects/store.json &&
	python3 -c "import json; c=json.load(open(\"$D/config.json\")); assert c[\"activeProjectId\"]==\"store\" and \"shop\" not in c[\"branchThreads\"], c" &&
	(cd shop && git threadmind status) >out &&
	grep "^project: store (Boutique)" out &&
	(cd shop && test_exit_code 128 git threadmind project rename store back-office) 2>err &&
	grep "^fatal: project id .back-office. is taken" err &&
	(cd shop && test_exit_code 128 git threadmind project rename store "../x") 2>err &&
	test -d $D/threads/store
'

test_expect_success 'project rm: refusals, then removal' '
	(cd shop && test_exit_code 128 git threadmind project rm store) 2>err &&
	grep "is the current project" err &&
	echo mine >$D/threads/back-office/notes.txt &&
	(cd shop && test_exit_code 128 git threadmind project rm back-office) 2>err &&
	grep "notes.txt. is not a thread file" err &&
	test -f $D/threads/back-office/main.md &&
	rm $D/threads/back-office/notes.txt &&
	(cd shop && git threadmind project rm back-office) 2>err &&
	test ! -e $D/threads/back-office && test ! -e $D/projects/back-office.json &&
	(cd shop && test_exit_code 128 git threadmind project rm store) 2>err &&
	grep "is the only project; use --force" err &&
	(cd shop && git threadmind project rm --force store) &&
	test ! -e $D/threads/store &&
	test ! -e $D/.lock &&
	(cd shop && test_exit_code 129 git threadmind project use x --force) 2>err &&
	grep "\-\-force is for .project rm." err
'

test_done
