#!/bin/sh
# git-threadmind-merge under `git merge`: frontmatter merged field by
# field, prose conflicts in the body only, JSON, text fallbacks, options.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

test_expect_success 'frontmatter edited on two branches merges cleanly' '
	fm_branches r1 &&
	(cd r1 && git merge -q --no-edit feat) &&
	(cd r1 && git ls-files -u) >unmerged &&
	test ! -s unmerged &&
	expect_fm_merged r1/$THREAD
'

test_expect_success 'without the driver the same merge conflicts' '
	fm_branches r0 &&
	git -C r0 config --remove-section merge.threadmind &&
	test_must_fail git -C r0 merge -q --no-edit feat &&
	grep "^<<<<<<< " r0/$THREAD
'

test_expect_success 'merging the other way gives the same fields' '
	fm_branches r2 &&
	(cd r2 && git checkout -q feat && git merge -q --no-edit main) &&
	header r2/$THREAD | grep -v "^paths:" >other &&
	header r1/$THREAD | grep -v "^paths:" >expect &&
	test_cmp expect other &&
	grep -xF "paths: [\"src/auth\",\"src/feat\",\"src/main\"]" r2/$THREAD
'

test_expect_success 'a true prose conflict stops git, markers only in the body' '
	fm_branches r3 &&
	(cd r3 &&
	git checkout -q feat &&
	sed "s/^Sign-up is done\\./Sign-up and login are done./" $THREAD >t &&
	mv t $THREAD && git commit -q -am "feat prose" &&
	git checkout -q main &&
	sed "s/^Sign-up is done\\./Sign-up is half done./" $THREAD >t &&
	mv t $THREAD && git commit -q -am "main prose" &&
	test_exit_code 1 git merge -q --no-edit feat) &&
	git -C r3 ls-files -u >unmerged &&
	test "$(wc -l <unmerged)" = 3 &&
	no_markers_in_header r3/$THREAD &&
	grep -xF "updatedAt: 2026-04-15T14:00:00.000Z" r3/$THREAD &&
	grep -xF "title: Auth UI v2" r3/$THREAD &&
	sed -n "/^## State/,\$p" r3/$THREAD >state &&
	cat >expect <<-\EOT &&
	## State
	<<<<<<< ours
	Sign-up is half done.
	=======
	Sign-up and login are done.
	>>>>>>> theirs
	- password reset to do
	EOT
	test_cmp expect state
'

test_expect_success 'merge.conflictStyle=diff3 is honoured' '
	(cd r3 && git merge --abort && git config merge.conflictStyle diff3 &&
	test_exit_code 1 git merge -q --no-edit feat) &&
	no_markers_in_header r3/$THREAD &&
	grep -A1 "^||||||| base\$" r3/$THREAD >base &&
	printf "||||||| base\nSign-up is done.\n" >expect &&
	test_cmp expect base
'

test_expect_success 'conflict-marker-size sets the marker size' '
	(cd r3 && git merge --abort && git config --unset merge.conflictStyle &&
	echo "threads/**/*.md conflict-marker-size=12" \
		>>.threadmind/.gitattributes &&
	test_exit_code 1 git merge -q --no-edit feat) &&
	grep -x "<<<<<<<<<<<< ours" r3/$THREAD &&
	grep -x ">>>>>>>>>>>> theirs" r3/$THREAD &&
	(cd r3 && git merge --abort && git checkout .threadmind/.gitattributes)
'

test_expect_success 'a project JSON conflict: markers around the key' '
	base_repo r4 &&
	(cd r4 &&
	git checkout -q -b feat &&
	sed "s/\"solo\"/\"team\"/; s/\"App\"/\"Shop\"/" $PROJECT >t &&
	mv t $PROJECT && git commit -q -am feat &&
	git checkout -q main &&
	sed "s/\"solo\"/\"duo\"/" $PROJECT >t &&
	mv t $PROJECT && git commit -q -am main &&
	test_exit_code 1 git merge -q --no-edit feat) &&
	cat >expect <<-\EOT &&
	{
	  "id": "app",
	  "title": "Shop",
	  "systemContext": "Next.js shop",
	<<<<<<< ours
	  "mode": "duo",
	=======
	  "mode": "team",
	>>>>>>> theirs
	  "rootThreadId": "main"
	}
	EOT
	test_cmp expect r4/$PROJECT
'

test_expect_success 'project keys changed on each side merge cleanly' '
	(cd r4 && git merge --abort &&
	git checkout -q -b other main~1 &&
	sed "s/Next.js shop/Next.js shop, Stripe/" $PROJECT >t &&
	mv t $PROJECT && git commit -q -am other &&
	git merge -q --no-edit feat) &&
	grep -xF "  \"title\": \"Shop\"," r4/$PROJECT &&
	grep -xF "  \"systemContext\": \"Next.js shop, Stripe\"," r4/$PROJECT &&
	grep -xF "  \"mode\": \"team\"," r4/$PROJECT
'

test_expect_success 'a non-thread file under threads/ is merged as text' '
	base_repo r5 &&
	N=.threadmind/threads/app/NOTES.md &&
	(cd r5 &&
	printf "one\ntwo\nthree\nfour\n" >$N && git add $N &&
	git commit -q -m notes && git checkout -q -b feat &&
	printf "one\ntwo\nthree\nFOUR\n" >$N && git commit -q -am feat &&
	git checkout -q main &&
	printf "ONE\ntwo\nthree\nfour\n" >$N && git commit -q -am main &&
	git merge -q --no-edit feat 2>../err) &&
	printf "ONE\ntwo\nthree\nFOUR\n" >expect &&
	test_cmp expect r5/$N &&
	grep "NOTES.md: not a thread or project file: merged as text" err
'

test_expect_success 'a text conflict in a non-thread file keeps both sides' '
	N=.threadmind/threads/app/NOTES.md &&
	(cd r5 && git checkout -q -b t2 main~1 &&
	printf "one\ntwo\nthree\nfour 2\n" >$N && git commit -q -am t2 &&
	test_exit_code 1 git merge -q --no-edit feat) &&
	grep -x "four 2" r5/$N && grep -x "FOUR" r5/$N &&
	grep -x "<<<<<<< ours" r5/$N
'

test_expect_success 'THREADMIND_MERGE=0 makes a plain line merge' '
	fm_branches r6 &&
	(cd r6 && THREADMIND_MERGE=0 && export THREADMIND_MERGE &&
	test_exit_code 1 git merge -q --no-edit feat) &&
	header r6/$THREAD >h &&
	grep "^<<<<<<< " h && grep -x "updatedAt: 2026-04-15T13:00:00.000Z" h
'

test_expect_success 'git-threadmind-merge -h and bad usage' '
	test_exit_code 129 git-threadmind-merge -h >out &&
	grep "^usage: git-threadmind-merge <base> <ours> <theirs>" out &&
	test_exit_code 129 git-threadmind-merge a b 2>err &&
	grep "^usage:" err
'

test_expect_success 'an unreadable input: exit 2, %A untouched' '
	printf "ours\n" >A && printf "theirs\n" >B &&
	test_exit_code 2 git-threadmind-merge missing A B 7 x.md 2>err &&
	grep "cannot open .missing." err &&
	printf "ours\n" >expect && test_cmp expect A
'

test_expect_success 'the driver writes %A only, never %P' '
	mkdir -p d/.threadmind/threads/app && (cd d &&
	write_thread O && cp O A && cp O B && cp O P &&
	set_field A title Ours && set_field B branch theirs &&
	git-threadmind-merge O A B 7 P &&
	cmp O P &&
	grep -xF "title: Ours" A && grep -xF "branch: theirs" A)
'

test_expect_success 'labels after %P are used; unexpanded ones ignored' '
	(cd d &&
	printf "a\nb\n" >O && printf "a\nours\n" >A && printf "a\ntheirs\n" >B &&
	cp A A2 &&
	test_exit_code 1 git-threadmind-merge O A B 9 f.txt base HEAD feature &&
	grep -x "<<<<<<<<< HEAD" A && grep -x ">>>>>>>>> feature" A &&
	test_exit_code 1 git-threadmind-merge O A2 B %L f.txt %S %X %Y &&
	grep -x "<<<<<<< ours" A2 && grep -x ">>>>>>> theirs" A2)
'

test_expect_success 'ours in CRLF: the whole result in CRLF' '
	(cd d &&
	write_thread O && sed "s/\$/\r/" O >A && cp O B &&
	set_field B title Theirs &&
	git-threadmind-merge O A B 7 $THREAD &&
	cr=$(printf "\r") &&
	test "$(grep -c "$cr\$" A)" = "$(wc -l <A)" &&
	grep -q "^title: Theirs" A)
'

test_done
